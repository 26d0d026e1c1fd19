//! `mind_mass_report`: the operator's "is this mind healthy?" glance, one
//! window-bounded pure read composed from reads that exist elsewhere —
//! formation cadence (one digest-row pass), journal mass (the replay stream
//! from the window's start, so the walk is O(window)), duplicate mass (the
//! tending scan's title clusters with the closure fold, plus the wake-cue
//! dedup dry run), embedding-space integrity (pin against the wired
//! embedder, and a bounded newest-first vector scan), review backlog
//! (standing dreams and `cognition_health`'s pending candidates) and sleep
//! recency (`last_maintenance_seq`).
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

use std::collections::{BTreeMap, BTreeSet, HashSet};

use am_journal::{ClosureFilter, JournalRecord, MemoryJournal};
use am_triples::{EmbeddingPin, TextEmbedder, TripleAssertion, TripleQuery, TripleStore};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use crate::drives::{DriveScopes, PendingCandidates};
use crate::error::{Error, Result};
use crate::kinds::RecordKind;
use crate::record::DigestRow;
use crate::sleep::{LastMaintenanceSeq, UnresolvedDreams, WakeCueDedup};
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

fn record_time(r: &JournalRecord) -> &str {
    match r {
        JournalRecord::Event(e) => &e.observed_at,
        JournalRecord::Binding(b) => &b.observed_at,
        JournalRecord::Closure(c) => &c.observed_at,
        JournalRecord::Trace(t) => &t.observed_at,
        JournalRecord::Snapshot(s) => &s.observed_at,
        JournalRecord::Valence(v) => &v.observed_at,
        JournalRecord::Version(v) => &v.understood_at,
    }
}

/// The first `n` characters of `s` (Python's `s[:n]`).
fn prefix(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

struct Formation {
    section: FormationMass,
    pairs: Vec<PairGrowth>,
    dreams_total: usize,
    newest_dream_at: Option<String>,
    rows: Vec<TripleAssertion>,
}

fn formation_scan(
    store: &dyn TripleStore,
    pairs: &[(String, String)],
    since: &str,
) -> Result<Formation> {
    let mut total_by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_day: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut growth = Vec::new();
    let (mut machine, mut dreams_total) = (0usize, 0usize);
    let mut newest_dream_at: Option<String> = None;
    let mut rows = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (scope, owner) in pairs {
        let mut g = PairGrowth {
            scope: scope.clone(),
            owner_id: owner.clone(),
            records: 0,
            formed_in_window: 0,
        };
        let q = TripleQuery {
            scope: Some(scope.clone()),
            owner_id: (!owner.is_empty()).then(|| owner.clone()),
            predicate: Some("dcterms:abstract".to_owned()),
            limit: 0,
            ..TripleQuery::default()
        };
        for a in store.query(&q)? {
            let row = DigestRow::of(&a);
            let kind = row
                .as_stored("record_kind")
                .filter(|k| !k.is_empty())
                .unwrap_or("memory")
                .to_owned();
            let when = a.observed_at.clone();
            let in_window = when.as_str() >= since;
            g.records += 1;
            if in_window {
                g.formed_in_window += 1;
            }
            let row_id = a
                .assertion_id
                .clone()
                .unwrap_or_else(|| format!("{}|{scope}|{owner}", a.subject));
            if !seen.insert(row_id) {
                continue;
            }
            *total_by_kind.entry(kind.clone()).or_default() += 1;
            if row.flag("maintenance_candidate") || row.flag("bookkeeping") {
                machine += 1;
            }
            if kind == "dream" {
                dreams_total += 1;
                if !when.is_empty() && newest_dream_at.as_deref().is_none_or(|n| when.as_str() > n)
                {
                    newest_dream_at = Some(when.clone());
                }
            }
            if in_window && !when.is_empty() {
                *by_day
                    .entry(prefix(&when, 10).to_owned())
                    .or_default()
                    .entry(kind)
                    .or_default() += 1;
            }
            rows.push(a);
        }
        growth.push(g);
    }
    let records_total = total_by_kind.values().sum();
    Ok(Formation {
        section: FormationMass {
            unit: "records".to_owned(),
            total_by_kind,
            by_day: by_day
                .into_iter()
                .map(|(day, kinds)| KindDay {
                    day,
                    total: kinds.values().sum(),
                    kinds,
                })
                .collect(),
            records_total,
            machine_records: machine,
        },
        pairs: growth,
        dreams_total,
        newest_dream_at,
        rows,
    })
}

fn journal_curve(journal: &dyn MemoryJournal, since: &str) -> Result<JournalMass> {
    let since_seq = journal.seq_at(since)?;
    let mut by_day: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut walked = 0usize;
    for r in journal.replay_records(since_seq, None)? {
        walked += 1;
        let when = record_time(&r).trim();
        let day = if when.is_empty() {
            "undated".to_owned()
        } else {
            prefix(when, 10).to_owned()
        };
        *by_day
            .entry(day)
            .or_default()
            .entry(r.family().to_owned())
            .or_default() += 1;
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
    rows: &[TripleAssertion],
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
    // Newest first (a stable sort on the text, as 0.3.2 sorts).
    let mut order: Vec<&TripleAssertion> = rows.iter().collect();
    order.sort_by(|a, b| b.observed_at.cmp(&a.observed_at));
    let sample = if scan_limit == 0 {
        &order[..]
    } else {
        &order[..scan_limit.min(order.len())]
    };
    let (mut vectorless, mut off_dimension) = (0usize, 0usize);
    for a in sample {
        let id = a.assertion_id.as_deref().unwrap_or_default();
        match store.stored_vector(id)? {
            None => vectorless += 1,
            Some(v) => {
                if pinned_dim.is_some_and(|d| d != v.len()) {
                    off_dimension += 1;
                }
            }
        }
    }
    let partial = order.len() > sample.len();
    if partial {
        warnings.push(warning(
            WarningWord::VectorScanPartial,
            format!(
                "the vector scan read the newest {} of {} records; raise vector_scan_limit \
                 (0 reads every one) for the whole count",
                sample.len(),
                order.len()
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
            of: order.len(),
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

        let formation = formation_scan(store, &pairs, &since)?;
        let mut journal_section = journal_curve(journal, &since)?;
        let current_seq = journal.current_seq()?;
        journal_section.current_seq = current_seq;
        journal_section.compaction = compaction(store, current_seq)?;
        let embedding = embedding_health(
            store,
            embedder,
            &formation.rows,
            args.vector_scan_limit,
            &mut warnings,
        )?;
        let excluded: HashSet<String> = journal
            .closures(&ClosureFilter {
                until_seq: Some(current_seq),
                limit: 0,
                ..ClosureFilter::default()
            })?
            .into_iter()
            .map(|c| c.assertion_id)
            .collect();

        let mut unresolved: BTreeSet<String> = BTreeSet::new();
        for (scope, owner) in &pairs {
            let mut q = UnresolvedDreams::new(scope, owner);
            q.limit = 0;
            for row in crate::sleep::unresolved_dreams(store, Some(journal), &q)? {
                unresolved.insert(row.assertion_id.clone().unwrap_or(row.subject));
            }
        }
        let ladder: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(s, o)| (s.as_str(), o.as_str()))
            .collect();
        let health = crate::drives::cognition_health(store, journal, &DriveScopes::new(&ladder))?;
        let review = ReviewBacklog {
            unit: "records".to_owned(),
            unresolved_dreams: unresolved.len(),
            candidates: health.candidates,
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
            crate::sleep::last_maintenance_seq(store, journal, &LastMaintenanceSeq::new(&ladder))?;
        if artifact_seq == 0 {
            warnings.push(warning(
                WarningWord::NeverSlept,
                "no sleep artifact (a dream or a maintenance candidate) has formed in these \
                 scopes: consolidation has never run"
                    .to_owned(),
            ));
        }
        let duplicates = self.duplicate_mass(&pairs, args.wake_cue_kind, &excluded)?;
        Ok(MindMassReport {
            report: "mind_mass_report".to_owned(),
            as_of_seq: current_seq,
            window: MassWindow {
                days: args.days,
                bucket: "day".to_owned(),
                since,
                until: py_isoformat(now),
            },
            formation: formation.section,
            pairs: PairsMass {
                unit: "records".to_owned(),
                by_pair: formation.pairs,
            },
            journal: journal_section,
            duplicates,
            embedding,
            review,
            sleep: SleepRecency {
                last_artifact_seq: artifact_seq,
                newest_dream_at: formation.newest_dream_at,
                dreams: UnitTotal {
                    unit: "records".to_owned(),
                    total: formation.dreams_total,
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

    fn duplicate_mass(
        &self,
        pairs: &[(String, String)],
        wake_cue_kind: Option<RecordKind>,
        excluded: &HashSet<String>,
    ) -> Result<DuplicateMass> {
        let scan = crate::sleep::tending_scan(self.store.as_ref(), pairs)?;
        let mut by_key: BTreeMap<(String, String), usize> = BTreeMap::new();
        for (rid, rec) in &scan.records {
            if excluded.contains(rid) || excluded.contains(&rec.assertion_id) {
                continue;
            }
            let key = am_triples::text::title_key(&rec.title);
            if !key.is_empty() {
                *by_key.entry((rec.kind.clone(), key)).or_default() += 1;
            }
        }
        let clusters: Vec<usize> = by_key.into_values().filter(|n| *n > 1).collect();
        let mut out = DuplicateMass {
            units: strs(&[
                ("title_clusters", "clusters"),
                ("title_cluster_records", "records"),
            ]),
            title_clusters: clusters.len(),
            title_cluster_records: clusters.iter().sum(),
            sources: strs(&[(
                "title_clusters",
                "the maintenance duplicate-title fold (an unbounded count, closures folded, \
                 the same inputs as maintenance_report)",
            )]),
            wake_cue_clusters: None,
            wake_cue_members: None,
        };
        if let Some(kind) = wake_cue_kind {
            let mut sets: BTreeSet<BTreeSet<String>> = BTreeSet::new();
            for (scope, owner) in pairs {
                let mut dry = WakeCueDedup::new(scope, owner, "mind-mass-report");
                dry.kind = kind;
                dry.report_only = true;
                let report = self.wake_cue_dedup_pass(&dry, None)?;
                for c in report.value.clusters {
                    let members: BTreeSet<String> = c.members.into_iter().collect();
                    if !members.is_empty() {
                        sets.insert(members);
                    }
                }
            }
            out.units
                .insert("wake_cue_clusters".to_owned(), "clusters".to_owned());
            out.units
                .insert("wake_cue_members".to_owned(), "records".to_owned());
            out.wake_cue_clusters = Some(sets.len());
            out.wake_cue_members = Some(sets.iter().map(BTreeSet::len).sum());
            out.sources.insert(
                "wake_cue_clusters".to_owned(),
                format!(
                    "wake_cue_dedup_pass(report_only=True, kind='{}')",
                    kind.as_str()
                ),
            );
        }
        Ok(out)
    }
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
