//! What evidences a card: the lived records of the scanned pairs, the
//! targets each contributes to, an interest's key, and the compound
//! keywords the sleep pass discovers as topics.

use crate::config::SleepTuning;
use crate::error::Result;
use crate::pair_folds::PairFolds;
use crate::record::DigestRow;
use am_journal::MemoryJournal;
use am_triples::{Lent, Narrow, NarrowRow, TripleAssertion, TripleQuery, TripleStore};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Kinds that never evidence a card (a derived artifact must not feed
/// another).
const NON_EVIDENCE_KINDS: [&str; 2] = ["dream", "world_model"];

/// One lived record as card evidence.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Evidence {
    pub record_id: String,
    pub kind: String,
    pub title: String,
    pub title_pending: bool,
    pub digest: String,
    pub observed_at: String,
    pub keywords: Vec<String>,
    pub participants: Vec<String>,
    /// `attributes.topic` then `attributes.topics`, trimmed, deduplicated.
    pub topics: Vec<String>,
    /// `provenance.session_id`, else `run_id`, else empty.
    pub session: String,
}

/// The string items of an array attribute (others left out).
fn strings(v: Option<&Lent<'_>>) -> Vec<String> {
    match v.and_then(Lent::as_array) {
        Some(a) => a
            .iter()
            .filter_map(Lent::as_str)
            .map(str::to_owned)
            .collect(),
        None => Vec::new(),
    }
}

/// The attribute keys [`Evidence`] reads of a row, in [`EvidenceRow`]'s
/// index order.
const EVIDENCE_ATTRIBUTES: [&str; 10] = [
    "record_kind",
    "bookkeeping",
    "record_edge",
    "maintenance_candidate",
    "topic",
    "topics",
    "title",
    "pending",
    "keywords",
    "participants",
];
const KIND: usize = 0;
const BOOKKEEPING: usize = 1;
const EDGE: usize = 2;
const CANDIDATE: usize = 3;
const TOPIC: usize = 4;
const TOPICS: usize = 5;
const TITLE: usize = 6;
const PENDING: usize = 7;
const KEYWORDS: usize = 8;
const PARTICIPANTS: usize = 9;

/// A row's [`EVIDENCE_ATTRIBUTES`], read by index (the values a
/// `DigestRow` over its attributes gives for the same keys).
struct EvidenceRow<'t>([Option<Lent<'t>>; 10]);

impl<'t> EvidenceRow<'t> {
    fn of(a: &NarrowRow<'t>) -> EvidenceRow<'t> {
        EvidenceRow(a.lend_attributes(&EVIDENCE_ATTRIBUTES))
    }
    fn get(&self, i: usize) -> Option<&Lent<'t>> {
        self.0[i].as_ref()
    }
    fn str(&self, i: usize) -> Option<&str> {
        self.get(i).and_then(Lent::as_str)
    }
    fn flag(&self, i: usize) -> bool {
        am_triples::lent::truthy(self.get(i))
    }
}

/// Whether the row may evidence a card: a kind, not a non-evidence kind,
/// not bookkeeping, an edge or a maintenance candidate.
fn may_evidence(row: &EvidenceRow<'_>) -> bool {
    row.str(KIND)
        .is_some_and(|k| !k.is_empty() && !NON_EVIDENCE_KINDS.contains(&k))
        && !row.flag(BOOKKEEPING)
        && !row.flag(EDGE)
        && !row.flag(CANDIDATE)
}

impl Evidence {
    /// The row as evidence, or `None` when it may not evidence a card (no
    /// kind, a non-evidence kind, bookkeeping, an edge, a maintenance
    /// candidate).
    fn of(a: &TripleAssertion) -> Option<Evidence> {
        let a = NarrowRow::of(a);
        let row = EvidenceRow::of(&a);
        may_evidence(&row).then(|| Evidence::from_row(&a, &row))
    }

    /// A row [`may_evidence`] admits (`row` its attributes), as evidence
    /// (the texts it keeps copied from the lent row).
    fn from_row(a: &NarrowRow<'_>, row: &EvidenceRow<'_>) -> Evidence {
        let kind = row.str(KIND).unwrap_or("").to_owned();
        // `DigestRow::title`: the string trimmed, `None` when blank.
        let title = row.str(TITLE).map(str::trim).unwrap_or("").to_owned();
        // `DigestRow::is_marked_pending("title")`: a JSON `true`.
        let title_pending = match row.get(PENDING) {
            Some(Lent::Other(p)) => p.get("title").and_then(Value::as_bool).unwrap_or(false),
            _ => false,
        };
        let mut topics: Vec<String> = Vec::new();
        let single = row.str(TOPIC).map(str::to_owned);
        for t in single.into_iter().chain(strings(row.get(TOPICS))) {
            let t = t.trim().to_owned();
            if !t.is_empty() && !topics.contains(&t) {
                topics.push(t);
            }
        }
        let prov = |k: &str| {
            a.provenance
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let session = prov("session_id")
            .or_else(|| prov("run_id"))
            .unwrap_or("")
            .to_owned();
        let keywords = strings(row.get(KEYWORDS));
        let participants = strings(row.get(PARTICIPANTS));
        Evidence {
            record_id: a.subject.to_owned(),
            kind,
            title,
            title_pending,
            digest: a.object.to_owned(),
            observed_at: a.observed_at.to_owned(),
            keywords,
            participants,
            topics,
            session,
        }
    }

    /// The targets this record evidences: its participants other than the
    /// owner, then `topic:<t>` for each of its topics.
    pub(crate) fn targets(&self, owner_id: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .participants
            .iter()
            .filter(|p| !p.is_empty() && p.as_str() != owner_id)
            .cloned()
            .collect();
        out.extend(self.topics.iter().map(|t| format!("topic:{t}")));
        out
    }
}

/// The attribute and provenance keys [`Evidence::of`] reads: the scan reads
/// only these of each row ([`TripleStore::visit_narrow`]), the same rows in
/// the same order, so the evidence is the whole read's.
const EVIDENCE_KEYS: Narrow<'static> = Narrow {
    attributes: &EVIDENCE_ATTRIBUTES,
    provenance: &["session_id", "run_id"],
};

/// What one evidence scan read: the evidence by graph id, and, for a whole
/// scan (`scan_limit` 0), the assertion ids of the card rows of the first
/// pair (every card row of the pair, standing or not: the rows
/// [`standing_world_models`](crate::world_models::standing_world_models)
/// folds), with the closed ids the scan folded.
pub(crate) struct Scan {
    pub evidence: BTreeMap<String, Evidence>,
    /// `Some` for a whole scan.
    pub card_ids: Option<Vec<String>>,
    /// Every assertion id closed at the scan's journal head.
    pub closed: HashSet<String>,
}

/// The records of `pairs` that may evidence a card, by graph id: closure and
/// hidden folded at the journal's head. `scan_limit` 0 reads every row (the
/// sleep pass); a positive one the newest `scan_limit` rows of each pair.
///
/// # Errors
/// The store's or journal's failure.
pub(crate) fn evidence_scan(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    pairs: &[(String, String)],
    scan_limit: usize,
) -> Result<Scan> {
    let head = journal.current_seq()?;
    let folds = PairFolds::load_exclusions(store, journal, pairs, head)?;
    let excluded = |id: &str| folds.closed.contains(id) || folds.hidden.contains(id);
    let mut out = BTreeMap::new();
    let mut card_ids = (scan_limit == 0).then(Vec::new);
    for (i, (scope, owner)) in pairs.iter().enumerate() {
        let query = TripleQuery {
            scope: Some(scope.clone()),
            owner_id: (!owner.is_empty()).then(|| owner.clone()),
            limit: i64::try_from(scan_limit).unwrap_or(i64::MAX),
            ..TripleQuery::default()
        };
        store.visit_narrow_text(&query, EVIDENCE_KEYS, &mut |a| {
            let row = EvidenceRow::of(&a);
            // `DigestRow::kind_text`: the kind trimmed.
            if i == 0
                && let Some(ids) = card_ids.as_mut()
                && row.str(KIND).map(str::trim) == Some("world_model")
                && let Some(id) = a.assertion_id
            {
                ids.push(id.to_owned());
            }
            if !may_evidence(&row) || a.assertion_id.is_some_and(excluded) || excluded(a.subject) {
                return;
            }
            let e = Evidence::from_row(&a, &row);
            out.insert(e.record_id.clone(), e);
        })?;
    }
    Ok(Scan {
        evidence: out,
        card_ids,
        closed: folds.closed,
    })
}

/// The separators an interest's subject head ends before.
const HEAD_SEPARATORS: [&str; 5] = [" — ", " – ", " - ", ": ", "?"];
/// Words a head never ends on (a cut mid-phrase).
const DANGLING: [&str; 17] = [
    "and", "or", "of", "in", "on", "for", "with", "between", "during", "the", "a", "an", "to",
    "that", "—", "–", "-",
];
const HEAD_PUNCT: [char; 7] = ['.', ',', ';', ':', '—', '–', '-'];

fn strip_head_punct(w: &str) -> &str {
    w.trim_matches(|c: char| HEAD_PUNCT.contains(&c) || c == '?')
}

/// The subject an interest's words declare: without an `interest:` prefix,
/// the text before the first qualifier (a dash, `: `, `?`), lowercased, one
/// leading article dropped, at most 8 words, no dangling connective at the
/// end; empty when shorter than 4 characters.
pub(crate) fn subject_head(text: &str) -> String {
    let mut t = text.trim();
    if let Some(prefix) = t.get(..9)
        && prefix.eq_ignore_ascii_case("interest:")
    {
        t = t[9..].trim();
    }
    for sep in HEAD_SEPARATORS {
        if let Some(i) = t.find(sep)
            && i > 0
        {
            t = &t[..i];
        }
    }
    let lower = t.to_lowercase();
    let mut words: Vec<&str> = lower.split_whitespace().collect();
    if words
        .first()
        .is_some_and(|w| ["the", "a", "an"].contains(w))
    {
        words.remove(0);
    }
    words.truncate(8);
    while words
        .last()
        .is_some_and(|w| DANGLING.contains(&strip_head_punct(w)))
    {
        words.pop();
    }
    let head = words
        .iter()
        .map(|w| strip_head_punct(w))
        .collect::<Vec<_>>()
        .join(" ");
    let head = head.trim().to_owned();
    if head.chars().count() >= 4 {
        head
    } else {
        String::new()
    }
}

/// The card key of an interest record (`world_model.interest_target`):
/// `topic:<subject head of its title>`; an interest whose title is pending
/// keys on its own graph id, `topic:<graph id>`, never on its body. `None`
/// for a row that is not an interest, or whose words declare no subject.
pub fn interest_target(row: &TripleAssertion) -> Option<String> {
    let view = DigestRow::of(row);
    if view.kind_text() != Some("interest") {
        return None;
    }
    Evidence::of(row).and_then(|e| interest_key(&e))
}

pub(crate) fn interest_key(e: &Evidence) -> Option<String> {
    if e.title_pending {
        return Some(format!("topic:{}", e.record_id));
    }
    // A legacy interest with no title at all keys on its words, as 0.3.2 did.
    let words = if e.title.is_empty() {
        &e.digest
    } else {
        &e.title
    };
    let head = subject_head(words);
    (!head.is_empty()).then(|| format!("topic:{head}"))
}

/// Whether a keyword may become a discovered topic: a compound (a space or
/// a hyphen inside), at least 4 characters, no `_` (machine vocabulary).
pub(crate) fn discovery_keyword_ok(k: &str) -> bool {
    let k = k.trim().to_lowercase();
    k.chars().count() >= 4 && !k.contains('_') && (k.contains(' ') || k.contains('-'))
}

/// The topics the evidence discovers: compound keywords recurring across at
/// least `world_model_discovery_sessions` (floored at 2) distinct sessions
/// and carried by no more than the ubiquity cap of records, most sessions
/// first, at most `world_model_discovery_max_targets`: keyword → its record
/// ids.
pub(crate) fn discovered_topics(
    evidence: &BTreeMap<String, Evidence>,
    tuning: &SleepTuning,
) -> Vec<(String, Vec<String>)> {
    let floor = tuning.world_model_discovery_sessions.max(2);
    let mut records: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut sessions: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (gid, e) in evidence {
        let session = match e.session.trim() {
            "" => "(unknown-session)",
            s => s,
        };
        for kw in &e.keywords {
            // A compound holds a space or a hyphen, which lowercasing never
            // makes: a keyword with neither is no candidate.
            if !kw.contains([' ', '-']) {
                continue;
            }
            let k = kw.trim().to_lowercase();
            if !discovery_keyword_ok(&k) {
                continue;
            }
            records.entry(k.clone()).or_default().push(gid.clone());
            sessions.entry(k).or_default().insert(session.to_owned());
        }
    }
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )] // a count times a fraction in [0, 1], floored as 0.3.2 does
    let by_fraction =
        (evidence.len() as f64 * tuning.world_model_discovery_max_fraction).floor() as usize;
    let cap = (2 * floor).max(by_fraction);
    let mut found: Vec<(String, Vec<String>)> = records
        .into_iter()
        .filter(|(k, ids)| sessions[k].len() >= floor && ids.len() <= cap)
        .collect();
    found.sort_by(|(a, _), (b, _)| sessions[b].len().cmp(&sessions[a].len()).then(a.cmp(b)));
    found.truncate(tuning.world_model_discovery_max_targets);
    found
}
