//! `mind_mass_report`: the operator's "is this mind healthy?" glance, one
//! window-bounded pure read composed from reads that exist elsewhere —
//! formation cadence (the digest rows), journal mass (the replay stream
//! from the window's start, so the walk is O(window)), duplicate mass (the
//! tending scan's title clusters with the closure fold, plus the wake-cue
//! dedup dry run), embedding-space integrity (pin against the wired
//! embedder, and a bounded newest-first vector scan), review backlog
//! (standing dreams and `cognition_health`'s pending candidates) and sleep
//! recency (`last_maintenance_seq`).
//!
//! Those reads each scan the pairs' rows; the report reads each pair ONCE
//! (a narrow read lending every row with only the keys some section asks
//! for, none of them built as an owned row) and folds every section from
//! that pass by the rule of the read it stands for ([`MassScan`]): the
//! dry run's [`DedupScan`], the standing dreams' [`StandingDreamIds`], the
//! tending scan's kind and title rule, the sleep artifacts' rule, and the
//! review offers through `cognition_health`'s own fold over the pairs'
//! maintenance-candidate rows. Afterwards only the few rows those folds
//! name are read again (standing dreams by id, bindings of artifacts and
//! candidates, the newest rows' vectors). The tests hold every section to
//! the read it summarizes.
//!
//! Every count names its unit; warnings are `{word, detail}` pairs whose
//! word is one of the closed [`WARNING_WORDS`] and state structural facts,
//! never thresholds.
//!
//! Spec: api.md "Maintenance, health, and operator tools"
//! (`mind_mass_report`); constants `WARNING_WORDS`, `VECTOR_SCAN_LIMIT`.
//! Where the spec is silent (report keys, section order, the wording of
//! the details, the window boundary's text form) AbstractMemory 0.3.2
//! settles it.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use am_journal::{ClosureFilter, MemoryJournal};
use am_triples::text::title_key;
use am_triples::{
    EmbeddingPin, Narrow, NarrowRow, TextEmbedder, TripleAssertion, TripleQuery, TripleStore,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use crate::drives::PendingCandidates;
use crate::drives::health::candidate_row;
use crate::error::{Error, Result};
use crate::kinds::{DIGEST_PREDICATE, RecordKind};
use crate::record::DigestRow;
use crate::sleep::WakeCueDedup;
use crate::sleep::cadence::is_artifact;
use crate::sleep::dedup::DedupScan;
use crate::sleep::dreams::StandingDreamIds;
use crate::sleep::maintenance::{TendingKind, tending_kind, tending_title};
use crate::system::MemorySystem;

/// Newest-first bound of the per-row stored-vector scan.
pub const VECTOR_SCAN_LIMIT: usize = 4000;

am_triples::vocabulary! {
    /// The closed warning vocabulary of `mind_mass_report`: a panel badges
    /// the word and shows the detail.
    pub enum WarningWord("mind-mass warning word") {
        /// The pinned model is not the wired embedder's model.
        EmbedderMismatch = "embedder_mismatch",
        /// A stored or declared dimension contradicts the pinned one.
        DimensionMismatch = "dimension_mismatch",
        /// The store carries no embedding pin.
        Unpinned = "unpinned",
        /// A pinned space, yet scanned digest rows carry no vector.
        VectorlessRecords = "vectorless_records",
        /// The vector scan saw a bounded sample, or nothing.
        VectorScanPartial = "vector_scan_partial",
        /// No sleep artifact ever formed.
        NeverSlept = "never_slept",
    }
}

/// `WARNING_WORDS`: every word a mind-mass warning may carry.
pub const WARNING_WORDS: [&str; 6] = WarningWord::NAMES;

/// `mind_mass_report(store, journal, *, scopes, days=30, bucket="day",
/// embedder=None, now=None, vector_scan_limit=VECTOR_SCAN_LIMIT,
/// wake_cue_kind="episode")`'s keywords (the wired embedder is passed
/// beside them, not as data).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MindMass {
    /// The `(scope, owner_id)` pairs (scope lowercased, owner trimmed,
    /// repeats dropped; an empty owner is any owner).
    pub scopes: Vec<(String, String)>,
    /// The window, in days (at least 1).
    #[serde(default = "default_days")]
    pub days: i64,
    /// The bucket: `day` is the only one.
    #[serde(default = "default_bucket")]
    pub bucket: String,
    /// The window's end (any ISO-8601 text, read as UTC); default: the
    /// system's clock.
    #[serde(default)]
    pub now: Option<String>,
    /// The newest-first bound of the vector scan (`0` scans every row).
    #[serde(default = "default_scan_limit")]
    pub vector_scan_limit: usize,
    /// The kind the wake-cue dedup dry run counts; `None` skips it.
    #[serde(default = "default_wake_cue_kind")]
    pub wake_cue_kind: Option<RecordKind>,
}

fn default_days() -> i64 {
    30
}
fn default_bucket() -> String {
    "day".to_owned()
}
fn default_scan_limit() -> usize {
    VECTOR_SCAN_LIMIT
}
#[allow(clippy::unnecessary_wraps)]
fn default_wake_cue_kind() -> Option<RecordKind> {
    Some(RecordKind::Episode)
}

impl MindMass {
    /// The report over `scopes` with the spec's defaults.
    pub fn new(scopes: &[(&str, &str)]) -> Self {
        MindMass {
            scopes: scopes
                .iter()
                .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
                .collect(),
            days: default_days(),
            bucket: default_bucket(),
            now: None,
            vector_scan_limit: VECTOR_SCAN_LIMIT,
            wake_cue_kind: default_wake_cue_kind(),
        }
    }
}

/// One warning: a badge word and its sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MassWarning {
    /// One of [`WARNING_WORDS`].
    pub word: WarningWord,
    /// The sentence, naming its numbers.
    pub detail: String,
}

/// The report's window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MassWindow {
    /// Its length in days.
    pub days: i64,
    /// `day`.
    pub bucket: String,
    /// Its start (ISO-8601, UTC).
    pub since: String,
    /// Its end (ISO-8601, UTC).
    pub until: String,
}

/// One day of the formation curve.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KindDay {
    /// `YYYY-MM-DD`.
    pub day: String,
    /// Records formed that day, by kind.
    pub kinds: BTreeMap<String, usize>,
    /// Their sum.
    pub total: usize,
}

/// Formation cadence: all-time totals and the window's daily curve.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FormationMass {
    /// `records`.
    pub unit: String,
    /// Distinct digest rows, by kind (all time).
    pub total_by_kind: BTreeMap<String, usize>,
    /// The window's days, oldest first.
    pub by_day: Vec<KindDay>,
    /// Distinct digest rows (all time).
    pub records_total: usize,
    /// Of them, maintenance candidates and bookkeeping rows.
    pub machine_records: usize,
}

/// One pair's growth (overlapping pairs each count their own rows).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairGrowth {
    /// The scope.
    pub scope: String,
    /// The owner (`""` = any).
    pub owner_id: String,
    /// Its digest rows.
    pub records: usize,
    /// Of them, formed inside the window.
    pub formed_in_window: usize,
}

/// The per-pair section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairsMass {
    /// `records`.
    pub unit: String,
    /// One entry per pair, in the given order.
    pub by_pair: Vec<PairGrowth>,
}

/// One day of the journal curve.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FamilyDay {
    /// `YYYY-MM-DD`, or `undated`.
    pub day: String,
    /// Journal records that day, by family.
    pub families: BTreeMap<String, usize>,
    /// Their sum.
    pub total: usize,
}

/// The newest compaction cut, from the store file's meta.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Compaction {
    /// Whether a cut is recorded.
    pub available: bool,
    /// Why none is (absent when one is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The newest cut's fields, when one is recorded (`at`, `cut_seq`,
    /// `archive_ref`, `cuts_total`, `seq_since_cut`).
    #[serde(flatten)]
    pub cut: BTreeMap<String, Value>,
}

/// Journal mass over the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct JournalMass {
    /// `journal records`.
    pub unit: String,
    /// The seq the walk started after (the journal's seq at the window start).
    pub since_seq: i64,
    /// Journal records walked.
    pub walked: usize,
    /// The window's days, oldest first.
    pub by_day: Vec<FamilyDay>,
    /// The journal's head (a seq, not a count).
    pub current_seq: i64,
    /// The newest compaction cut.
    pub compaction: Compaction,
}

/// Duplicate mass: title clusters and the wake-cue dry run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DuplicateMass {
    /// The unit of each count.
    pub units: BTreeMap<String, String>,
    /// (kind, title key) groups of more than one live record.
    pub title_clusters: usize,
    /// Their records.
    pub title_cluster_records: usize,
    /// Where each count comes from.
    pub sources: BTreeMap<String, String>,
    /// Distinct wake-cue clusters (absent when the dry run is skipped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wake_cue_clusters: Option<usize>,
    /// Their members.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wake_cue_members: Option<usize>,
}

/// The bounded stored-vector scan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VectorScan {
    /// `records`.
    pub unit: String,
    /// Rows read.
    pub scanned: usize,
    /// Of how many digest rows.
    pub of: usize,
    /// Scanned rows with no vector.
    pub vectorless: usize,
    /// Scanned rows whose vector's dimension is not the pin's.
    pub off_dimension: usize,
    /// Whether the scan saw fewer than all rows.
    pub partial: bool,
}

/// Embedding-space integrity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EmbeddingHealth {
    /// The store's pin.
    pub pin: Option<EmbeddingPin>,
    /// The pin in one line.
    pub pin_note: String,
    /// The wired embedder's model, when it names one.
    pub wired_model: Option<String>,
    /// Whether pin and wired embedder agree (`None`: nothing to compare).
    #[serde(rename = "match")]
    pub matches: Option<bool>,
    /// The bounded vector scan.
    pub vector_scan: VectorScan,
}

/// Review backlog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReviewBacklog {
    /// `records`.
    pub unit: String,
    /// Distinct standing dreams across the pairs.
    pub unresolved_dreams: usize,
    /// `cognition_health`'s pending candidates.
    pub candidates: PendingCandidates,
    /// Where each count comes from.
    pub sources: BTreeMap<String, String>,
}

/// A unit-labelled total.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UnitTotal {
    /// `records`.
    pub unit: String,
    /// How many.
    pub total: usize,
}

/// Sleep recency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SleepRecency {
    /// The journal seq of the newest sleep artifact's formation (`0`: never).
    pub last_artifact_seq: i64,
    /// When the newest dream formed.
    pub newest_dream_at: Option<String>,
    /// Dreams formed, all time.
    pub dreams: UnitTotal,
}

/// `mind_mass_report`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MindMassReport {
    /// `mind_mass_report`.
    pub report: String,
    /// The journal head it read at.
    pub as_of_seq: i64,
    /// The window.
    pub window: MassWindow,
    /// Formation cadence.
    pub formation: FormationMass,
    /// Per-pair growth.
    pub pairs: PairsMass,
    /// Journal mass.
    pub journal: JournalMass,
    /// Duplicate mass.
    pub duplicates: DuplicateMass,
    /// Embedding-space integrity.
    pub embedding: EmbeddingHealth,
    /// Review backlog.
    pub review: ReviewBacklog,
    /// Sleep recency.
    pub sleep: SleepRecency,
    /// The structural facts worth a badge, in the order found.
    pub warnings: Vec<MassWarning>,
    /// What the read is and is not.
    pub provenance: String,
}

/// Python's `datetime.isoformat()` of a UTC instant: microseconds only when
/// non-zero, `+00:00` offset (the window's boundary text, compared with the
/// stored `observed_at` strings as 0.3.2 compares them).
fn py_isoformat(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    let base = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    if t.microsecond() == 0 {
        format!("{base}+00:00")
    } else {
        format!("{base}.{:06}+00:00", t.microsecond())
    }
}

fn warning(word: WarningWord, detail: String) -> MassWarning {
    MassWarning { word, detail }
}

/// The first `n` characters of `s` (Python's `s[:n]`).
fn prefix(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// The attribute keys of the report's one read of a pair: every key one of
/// its sections asks a row for (formation, the tending title fold, the
/// wake-cue dry run, standing dreams, sleep artifacts, review offers).
const MASS_ATTRIBUTES: [&str; 9] = [
    "record_edge",
    "record_kind",
    "bookkeeping",
    "maintenance_candidate",
    "title",
    "continuation_state",
    "review_required",
    "proposed_kind",
    "explores",
];

/// The provenance keys of that read (the dry run's `source`).
const MASS_PROVENANCE: [&str; 1] = ["source"];

/// The scan's maps: std's, with foldhash's hasher (a fold of 100,000 rows
/// hashes every id).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type FastSet<K> = HashSet<K, foldhash::fast::RandomState>;

/// One tending record of the duplicate-title fold: its kind (an index into
/// [`MassScan::kinds`]), its title key, and whether its graph id and
/// assertion id are both open.
struct TitleRecord {
    kind: usize,
    key: String,
    live: bool,
}

/// One digest row of the formation fold, for the newest-first vector scan.
struct FormedRow {
    observed_at: String,
    assertion_id: Option<String>,
}

/// Everything the report reads of the pairs' rows, folded from ONE narrow
/// read per pair ([`MassScan::row`], in the store's order, pair after pair),
/// each section by the rule of the read it summarizes:
/// - formation: the pair's digest rows (`predicate = dcterms:abstract`, as
///   its own query selects them), distinct across pairs by row id;
/// - title clusters: the tending scan's records (last row per graph id
///   wins, pair after pair) with the closure fold;
/// - the wake-cue dry run: one [`DedupScan`] per pair;
/// - standing dreams: one [`StandingDreamIds`] per pair;
/// - sleep artifacts: the graph ids of the pairs' dream and candidate rows;
/// - review offers: the pairs' maintenance-candidate digest rows.
struct MassScan<'c> {
    excluded: &'c HashSet<String>,
    // formation
    total_by_kind: BTreeMap<String, usize>,
    by_day: BTreeMap<String, BTreeMap<String, usize>>,
    growth: Vec<PairGrowth>,
    machine: usize,
    dreams_total: usize,
    newest_dream_at: Option<String>,
    formed: Vec<FormedRow>,
    seen: FastSet<String>,
    since: &'c str,
    // the tending title fold
    kinds: Vec<String>,
    titles: FastMap<String, TitleRecord>,
    // per pair
    dedup: Vec<DedupScan<'c>>,
    dreams: Vec<StandingDreamIds>,
    candidates: Vec<Vec<TripleAssertion>>,
    // across pairs
    artifacts: Vec<String>,
}

impl<'c> MassScan<'c> {
    fn new(excluded: &'c HashSet<String>, since: &'c str) -> Self {
        MassScan {
            excluded,
            total_by_kind: BTreeMap::new(),
            by_day: BTreeMap::new(),
            growth: Vec::new(),
            machine: 0,
            dreams_total: 0,
            newest_dream_at: None,
            formed: Vec::new(),
            seen: FastSet::default(),
            since,
            kinds: Vec::new(),
            titles: FastMap::default(),
            dedup: Vec::new(),
            dreams: Vec::new(),
            candidates: Vec::new(),
            artifacts: Vec::new(),
        }
    }

    /// Start the next pair (its rows follow).
    fn pair(&mut self, scope: &str, owner: &str, wake_cue_kind: Option<RecordKind>) {
        self.growth.push(PairGrowth {
            scope: scope.to_owned(),
            owner_id: owner.to_owned(),
            records: 0,
            formed_in_window: 0,
        });
        if let Some(kind) = wake_cue_kind {
            self.dedup.push(DedupScan::new(kind, self.excluded, false));
        }
        self.dreams.push(StandingDreamIds::new());
        self.candidates.push(Vec::new());
    }

    /// Fold one row of the current pair.
    fn row(&mut self, a: NarrowRow<'_>, scope: &str, owner: &str) {
        let view = DigestRow::of_attributes(a.attributes);
        if a.predicate == DIGEST_PREDICATE {
            self.formation_row(a, view, scope, owner);
            if candidate_row(a.predicate, view) {
                self.candidates
                    .last_mut()
                    .expect("a pair was started")
                    .push(narrow_owned(a));
            }
        }
        if !view.is_edge()
            && let TendingKind::Record(kind) = tending_kind(view)
        {
            let kind = match self.kinds.iter().position(|k| k == kind) {
                Some(i) => i,
                None => {
                    self.kinds.push(kind.to_owned());
                    self.kinds.len() - 1
                }
            };
            let live = !(self.excluded.contains(a.subject)
                || self.excluded.contains(a.assertion_id.unwrap_or_default()));
            let record = TitleRecord {
                kind,
                key: title_key(&tending_title(view)),
                live,
            };
            match self.titles.get_mut(a.subject) {
                Some(slot) => *slot = record,
                None => {
                    self.titles.insert(a.subject.to_owned(), record);
                }
            }
        }
        if let Some(d) = self.dedup.last_mut() {
            d.row(a);
        }
        self.dreams.last_mut().expect("a pair was started").row(a);
        if is_artifact(view) {
            self.artifacts.push(a.subject.to_owned());
        }
    }

    fn formation_row(&mut self, a: NarrowRow<'_>, view: DigestRow<'_>, scope: &str, owner: &str) {
        let kind = view
            .as_stored("record_kind")
            .filter(|k| !k.is_empty())
            .unwrap_or("memory");
        let when = a.observed_at;
        let in_window = when >= self.since;
        let g = self.growth.last_mut().expect("a pair was started");
        g.records += 1;
        if in_window {
            g.formed_in_window += 1;
        }
        let fresh = match a.assertion_id {
            Some(id) => !self.seen.contains(id) && self.seen.insert(id.to_owned()),
            None => self.seen.insert(format!("{}|{scope}|{owner}", a.subject)),
        };
        if !fresh {
            return;
        }
        bump(&mut self.total_by_kind, kind);
        if view.flag("maintenance_candidate") || view.flag("bookkeeping") {
            self.machine += 1;
        }
        if kind == "dream" {
            self.dreams_total += 1;
            if !when.is_empty() && self.newest_dream_at.as_deref().is_none_or(|n| when > n) {
                self.newest_dream_at = Some(when.to_owned());
            }
        }
        if in_window && !when.is_empty() {
            let day = prefix(when, 10);
            if !self.by_day.contains_key(day) {
                self.by_day.insert(day.to_owned(), BTreeMap::new());
            }
            if let Some(kinds) = self.by_day.get_mut(day) {
                bump(kinds, kind);
            }
        }
        self.formed.push(FormedRow {
            observed_at: when.to_owned(),
            assertion_id: a.assertion_id.map(str::to_owned),
        });
    }

    fn formation(&mut self) -> FormationMass {
        let records_total = self.total_by_kind.values().sum();
        FormationMass {
            unit: "records".to_owned(),
            total_by_kind: std::mem::take(&mut self.total_by_kind),
            by_day: std::mem::take(&mut self.by_day)
                .into_iter()
                .map(|(day, kinds)| KindDay {
                    day,
                    total: kinds.values().sum(),
                    kinds,
                })
                .collect(),
            records_total,
            machine_records: self.machine,
        }
    }

    /// The (kind, title key) groups of more than one live tending record:
    /// how many, and their records.
    fn title_clusters(&self) -> (usize, usize) {
        let mut by_key: FastMap<(usize, &str), usize> = FastMap::default();
        for rec in self.titles.values() {
            if rec.live && !rec.key.is_empty() {
                *by_key.entry((rec.kind, rec.key.as_str())).or_default() += 1;
            }
        }
        by_key
            .into_values()
            .filter(|n| *n > 1)
            .fold((0, 0), |(c, r), n| (c + 1, r + n))
    }
}

/// `map[key] += 1`, allocating the key only the first time.
fn bump(map: &mut BTreeMap<String, usize>, key: &str) {
    match map.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            map.insert(key.to_owned(), 1);
        }
    }
}

/// A lent row as an owned one (the fields a drive fold reads; the rest
/// default).
fn narrow_owned(a: NarrowRow<'_>) -> TripleAssertion {
    TripleAssertion {
        assertion_id: a.assertion_id.map(str::to_owned),
        subject: a.subject.to_owned(),
        predicate: a.predicate.to_owned(),
        object: a.object.to_owned(),
        scope: String::new(),
        owner_id: None,
        observed_at: a.observed_at.to_owned(),
        valid_from: None,
        valid_until: None,
        confidence: None,
        provenance: a.provenance.clone(),
        attributes: a.attributes.clone(),
    }
}

fn journal_curve(journal: &dyn MemoryJournal, since: &str) -> Result<JournalMass> {
    let since_seq = journal.seq_at(since)?;
    let mut by_day: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut walked = 0usize;
    // The stream read for each record's family and time only (no record
    // built). Its records come in runs of one day and family (a batch):
    // a run is counted, then added to the curve.
    let mut run: Option<(String, &'static str, usize)> = None;
    let add = |by_day: &mut BTreeMap<String, BTreeMap<String, usize>>,
               (day, family, n): (String, &'static str, usize)| {
        *by_day
            .entry(day)
            .or_default()
            .entry(family.to_owned())
            .or_default() += n;
    };
    journal.visit_replay_times(since_seq, None, &mut |family, at| {
        walked += 1;
        let when = at.trim();
        let day = if when.is_empty() {
            "undated"
        } else {
            prefix(when, 10)
        };
        match &mut run {
            Some((d, f, n)) if d == day && *f == family => *n += 1,
            _ => {
                if let Some(done) = run.replace((day.to_owned(), family, 1)) {
                    add(&mut by_day, done);
                }
            }
        }
    })?;
    if let Some(done) = run {
        add(&mut by_day, done);
    }
    Ok(JournalMass {
        unit: "journal records".to_owned(),
        since_seq,
        walked,
        by_day: by_day
            .into_iter()
            .map(|(day, families)| FamilyDay {
                day,
                total: families.values().sum(),
                families,
            })
            .collect(),
        current_seq: 0,
        compaction: Compaction {
            available: false,
            detail: None,
            cut: BTreeMap::new(),
        },
    })
}

/// The newest compaction cut recorded in the store file's meta (`compaction`,
/// an append-only list); a store that keeps no file meta says so.
fn compaction(store: &dyn TripleStore, current_seq: i64) -> Result<Compaction> {
    let none = |detail: &str| Compaction {
        available: false,
        detail: Some(detail.to_owned()),
        cut: BTreeMap::new(),
    };
    if !store.has_file_meta() {
        return Ok(none("store backend exposes no compaction meta"));
    }
    let history = store
        .file_meta("compaction")?
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .filter(|v| match v {
            Value::Null => false,
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
            Value::Bool(b) => *b,
            Value::String(s) => !s.is_empty(),
            Value::Number(n) => n.as_f64() != Some(0.0),
        });
    let Some(history) = history else {
        return Ok(none("no compaction recorded (absent or unreadable meta)"));
    };
    let entries = match history {
        Value::Array(a) => a,
        other => vec![other],
    };
    let newest = entries
        .last()
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let field = |k: &str| newest.get(k).cloned().unwrap_or(Value::Null);
    let cut_seq = field("cut_seq");
    let since_cut = cut_seq
        .as_f64()
        .filter(|_| !cut_seq.is_boolean())
        .map_or(Value::Null, |c| {
            #[allow(clippy::cast_possible_truncation)]
            Value::from(current_seq - c as i64)
        });
    let mut cut = BTreeMap::new();
    cut.insert("at".to_owned(), field("at"));
    cut.insert("cut_seq".to_owned(), cut_seq);
    cut.insert("archive_ref".to_owned(), field("archive_ref"));
    cut.insert("cuts_total".to_owned(), Value::from(entries.len()));
    cut.insert("seq_since_cut".to_owned(), since_cut);
    Ok(Compaction {
        available: true,
        detail: None,
        cut,
    })
}

fn embedding_health(
    store: &dyn TripleStore,
    embedder: Option<&dyn TextEmbedder>,
    rows: &[FormedRow],
    scan_limit: usize,
    warnings: &mut Vec<MassWarning>,
) -> Result<EmbeddingHealth> {
    let pin = store.embedding_pin()?;
    let wired = embedder
        .and_then(TextEmbedder::model_id)
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty());
    let pinned_model = pin
        .as_ref()
        .and_then(|p| p.model_id.clone())
        .filter(|m| !m.is_empty());
    let pinned_dim = pin.as_ref().and_then(|p| p.dimension);
    let mut matches = None;
    if let (Some(pm), Some(w)) = (&pinned_model, &wired) {
        matches = Some(pm == w);
        if pm != w {
            warnings.push(warning(
                WarningWord::EmbedderMismatch,
                format!(
                    "the store's pin names the model {pm:?} while the wired embedder names {w:?}; \
                     vector recall degrades to labelled vectorless reads until the two agree \
                     (or a re-embed runs)"
                ),
            ));
        }
    }
    let wired_dim = embedder
        .and_then(TextEmbedder::dimension)
        .filter(|d| *d > 0);
    if let (Some(pd), Some(wd)) = (pinned_dim, wired_dim)
        && pd != wd
    {
        if matches.is_none() {
            matches = Some(false);
        }
        warnings.push(warning(
            WarningWord::DimensionMismatch,
            format!(
                "the store's pin says dimension {pd} while the wired embedder declares {wd}; \
                 vectors of the wrong space are refused at write, and a re-embed is the way \
                 to move the home"
            ),
        ));
    }
    if pin.is_none() {
        warnings.push(warning(
            WarningWord::Unpinned,
            "the store carries no embedding pin (it predates pinning at creation); the \
             dimension is only enforced from its first embedded write"
                .to_owned(),
        ));
    }
    // Newest first (a stable sort on the text, as 0.3.2 sorts): the rows'
    // positions ordered by `observed_at` descending, ties in scan order;
    // only the first `scan_limit` of that order are needed, so they are
    // selected first and only they sorted.
    let newest_first = |a: &usize, b: &usize| {
        rows[*b]
            .observed_at
            .cmp(&rows[*a].observed_at)
            .then(a.cmp(b))
    };
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let take = if scan_limit == 0 {
        order.len()
    } else {
        scan_limit.min(order.len())
    };
    if take < order.len() && take > 0 {
        order.select_nth_unstable_by(take - 1, newest_first);
    }
    order.truncate(take);
    order.sort_unstable_by(newest_first);
    let sample = &order[..];
    let (mut vectorless, mut off_dimension) = (0usize, 0usize);
    for &i in sample {
        let id = rows[i].assertion_id.as_deref().unwrap_or_default();
        match store.stored_vector(id)? {
            None => vectorless += 1,
            Some(v) => {
                if pinned_dim.is_some_and(|d| d != v.len()) {
                    off_dimension += 1;
                }
            }
        }
    }
    let partial = rows.len() > sample.len();
    if partial {
        warnings.push(warning(
            WarningWord::VectorScanPartial,
            format!(
                "the vector scan read the newest {} of {} records; raise vector_scan_limit \
                 (0 reads every one) for the whole count",
                sample.len(),
                rows.len()
            ),
        ));
    }
    if vectorless > 0 && pin.is_some() {
        warnings.push(warning(
            WarningWord::VectorlessRecords,
            format!(
                "{vectorless} of {} scanned records have no stored vector although the store \
                 is pinned to an embedding space; vector recall cannot find them (a re-embed \
                 repairs this)",
                sample.len()
            ),
        ));
    }
    if off_dimension > 0 {
        warnings.push(warning(
            WarningWord::DimensionMismatch,
            format!(
                "{off_dimension} of {} scanned records store a vector whose dimension is not \
                 the pin's: two embedding spaces at rest (a re-embed repairs this)",
                sample.len()
            ),
        ));
    }
    Ok(EmbeddingHealth {
        pin_note: EmbeddingPin::note(pin.as_ref()),
        pin,
        wired_model: wired,
        matches,
        vector_scan: VectorScan {
            unit: "records".to_owned(),
            scanned: sample.len(),
            of: rows.len(),
            vectorless,
            off_dimension,
            partial,
        },
    })
}

fn strs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

impl MemorySystem {
    /// The mind-mass report over `args.scopes` (see the module doc), with
    /// `embedder` the wired embedder the pin is compared with (`None`: the
    /// pin is only read). A pure read: it deposits nothing and writes
    /// nothing.
    ///
    /// # Errors
    /// `InvalidInput` for a bucket other than `day`, `days < 1`, no pair, a
    /// blank scope or an unreadable `now`; the store's or journal's failure.
    pub fn mind_mass_report(
        &self,
        args: &MindMass,
        embedder: Option<&dyn TextEmbedder>,
    ) -> Result<MindMassReport> {
        if args.bucket != "day" {
            return Err(Error::invalid(format!(
                "mind_mass_report buckets by day only; got bucket {:?}",
                args.bucket
            )));
        }
        if args.days < 1 {
            return Err(Error::invalid(format!(
                "mind_mass_report needs a window of at least 1 day; got days = {}",
                args.days
            )));
        }
        let pairs = mass_pairs("mind_mass_report", &args.scopes)?;
        let now = match args.now.as_deref() {
            Some(n) => am_triples::timestamp::parse_timestamp(n)?,
            None => am_triples::timestamp::parse_timestamp(&self.now()?)?,
        };
        let since_dt = now - time::Duration::days(args.days);
        let since = py_isoformat(since_dt);
        let store = self.store.as_ref();
        let journal = self.journal.as_ref();
        let mut warnings = Vec::new();

        // The closure fold first: the scan's title and dry-run folds read it.
        let current_seq = journal.current_seq()?;
        let excluded: HashSet<String> = journal
            .closures(&ClosureFilter {
                until_seq: Some(current_seq),
                limit: 0,
                ..ClosureFilter::default()
            })?
            .into_iter()
            .map(|c| c.assertion_id)
            .collect();
        // ONE narrow read of each pair's rows feeds every section.
        let mut scan = MassScan::new(&excluded, &since);
        let keep = Narrow {
            attributes: &MASS_ATTRIBUTES,
            provenance: &MASS_PROVENANCE,
        };
        for (scope, owner) in &pairs {
            scan.pair(scope, owner, args.wake_cue_kind);
            let q = TripleQuery {
                scope: Some(scope.clone()),
                owner_id: (!owner.is_empty()).then(|| owner.clone()),
                limit: 0,
                ..TripleQuery::default()
            };
            store.visit_narrow(&q, keep, &mut |row| scan.row(row, scope, owner))?;
        }
        let formation = scan.formation();

        let mut journal_section = journal_curve(journal, &since)?;
        journal_section.current_seq = current_seq;
        journal_section.compaction = compaction(store, current_seq)?;
        let embedding = embedding_health(
            store,
            embedder,
            &scan.formed,
            args.vector_scan_limit,
            &mut warnings,
        )?;

        let mut unresolved: BTreeSet<String> = BTreeSet::new();
        for ((scope, owner), ids) in pairs.iter().zip(std::mem::take(&mut scan.dreams)) {
            for row in ids.finish(store, Some(journal), scope.trim(), owner.trim(), 0)? {
                unresolved.insert(row.assertion_id.clone().unwrap_or(row.subject));
            }
        }
        let candidates = crate::drives::health::pending_candidates(
            store,
            journal,
            &pairs,
            std::mem::take(&mut scan.candidates),
        )?;
        let review = ReviewBacklog {
            unit: "records".to_owned(),
            unresolved_dreams: unresolved.len(),
            candidates,
            sources: strs(&[
                (
                    "unresolved_dreams",
                    "sleep::unresolved_dreams (closures and hidden bindings folded; \
                     distinct rows across the pairs)",
                ),
                (
                    "candidates",
                    "cognition_health's candidates: the same fold the cognition read serves",
                ),
            ]),
        };

        let artifact_seq =
            crate::sleep::cadence::artifact_seq_of(journal, std::mem::take(&mut scan.artifacts))?;
        if artifact_seq == 0 {
            warnings.push(warning(
                WarningWord::NeverSlept,
                "no sleep artifact (a dream or a maintenance candidate) has formed in these \
                 scopes: consolidation has never run"
                    .to_owned(),
            ));
        }
        let duplicates = duplicate_mass(&mut scan, args.wake_cue_kind);
        Ok(MindMassReport {
            report: "mind_mass_report".to_owned(),
            as_of_seq: current_seq,
            window: MassWindow {
                days: args.days,
                bucket: "day".to_owned(),
                since: since.clone(),
                until: py_isoformat(now),
            },
            formation,
            pairs: PairsMass {
                unit: "records".to_owned(),
                by_pair: std::mem::take(&mut scan.growth),
            },
            journal: journal_section,
            duplicates,
            embedding,
            review,
            sleep: SleepRecency {
                last_artifact_seq: artifact_seq,
                newest_dream_at: scan.newest_dream_at.take(),
                dreams: UnitTotal {
                    unit: "records".to_owned(),
                    total: scan.dreams_total,
                },
            },
            warnings,
            provenance: "a pure read: deposits nothing and writes nothing; every count names \
                         its unit; warnings are structural facts as {word, detail} pairs from \
                         WARNING_WORDS, never thresholds; several whole-store scans per call, \
                         so read it at glance cadence and cache it, do not poll"
                .to_owned(),
        })
    }
}

/// Duplicate mass from the scan: the tending title fold's clusters, and
/// with `wake_cue_kind` the dry run's clusters of every pair (distinct
/// member sets across the pairs).
fn duplicate_mass(scan: &mut MassScan<'_>, wake_cue_kind: Option<RecordKind>) -> DuplicateMass {
    let (title_clusters, title_cluster_records) = scan.title_clusters();
    let mut out = DuplicateMass {
        units: strs(&[
            ("title_clusters", "clusters"),
            ("title_cluster_records", "records"),
        ]),
        title_clusters,
        title_cluster_records,
        sources: strs(&[(
            "title_clusters",
            "the maintenance duplicate-title fold (an unbounded count, closures folded, \
             the same inputs as maintenance_report)",
        )]),
        wake_cue_clusters: None,
        wake_cue_members: None,
    };
    if let Some(kind) = wake_cue_kind {
        // The pass's own defaults, as `wake_cue_dedup_pass(report_only=True,
        // kind=...)` runs with them.
        let dry = WakeCueDedup::new("", "", "mind-mass-report");
        let mut runs: Vec<(Vec<Vec<String>>, bool)> = std::mem::take(&mut scan.dedup)
            .into_iter()
            .map(|d| d.dry_run(dry.jaccard_floor, dry.min_cluster))
            .collect();
        let (clusters, members) = match runs.as_mut_slice() {
            // One pair whose rows had distinct ids: its clusters are
            // already distinct sets of distinct members.
            [(one, true)] => (one.len(), one.iter().map(Vec::len).sum()),
            _ => {
                let mut sets: BTreeSet<BTreeSet<String>> = BTreeSet::new();
                for (run, _) in runs {
                    for members in run {
                        let members: BTreeSet<String> = members.into_iter().collect();
                        if !members.is_empty() {
                            sets.insert(members);
                        }
                    }
                }
                (sets.len(), sets.iter().map(BTreeSet::len).sum())
            }
        };
        out.units
            .insert("wake_cue_clusters".to_owned(), "clusters".to_owned());
        out.units
            .insert("wake_cue_members".to_owned(), "records".to_owned());
        out.wake_cue_clusters = Some(clusters);
        out.wake_cue_members = Some(members);
        out.sources.insert(
            "wake_cue_clusters".to_owned(),
            format!(
                "wake_cue_dedup_pass(report_only=True, kind='{}')",
                kind.as_str()
            ),
        );
    }
    out
}

/// The pairs as the store keys them (scope trimmed and lowercased, owner
/// trimmed), repeats dropped, order kept.
pub(crate) fn mass_pairs(verb: &str, scopes: &[(String, String)]) -> Result<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (scope, owner) in scopes {
        let pair = (
            am_triples::canonicalize_term(scope),
            am_triples::assertion::py_strip(owner).to_owned(),
        );
        if pair.0.is_empty() {
            return Err(Error::invalid(format!(
                "{verb} needs a scope in every [scope, owner_id] pair, got {scope:?}"
            )));
        }
        if !out.contains(&pair) {
            out.push(pair);
        }
    }
    if out.is_empty() {
        return Err(Error::invalid(format!(
            "{verb} needs at least one (scope, owner_id) pair, got none"
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_read_keeps_every_key_a_section_folds() {
        let closed: HashSet<String> = HashSet::new();
        let dedup = DedupScan::new(RecordKind::Episode, &closed, false).keys();
        // The tending kind and title rule, and formation's own keys.
        let tending = Narrow {
            attributes: &[
                "record_edge",
                "record_kind",
                "bookkeeping",
                "maintenance_candidate",
                "title",
            ],
            provenance: &[],
        };
        for keys in [
            dedup,
            crate::sleep::dreams::STANDING_DREAM_KEYS,
            crate::sleep::cadence::ARTIFACT_KEYS,
            crate::drives::health::CANDIDATE_KEYS,
            tending,
        ] {
            for k in keys.attributes {
                assert!(MASS_ATTRIBUTES.contains(k), "attribute {k}");
            }
            for k in keys.provenance {
                assert!(MASS_PROVENANCE.contains(k), "provenance {k}");
            }
        }
    }
}
