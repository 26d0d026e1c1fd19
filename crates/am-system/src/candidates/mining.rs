//! `mine_candidates_pass` and `resolve_questions_pass`: the machine's
//! offers. Lesson offers (a resolved question or problem whose theme lived
//! across two or more known sessions), interest offers (a compound theme
//! recurring across sessions that no standing interest declares) and
//! question-resolution proposals (an open question or problem that later
//! records share words with). Machines propose: an offer is a `summary`
//! record marked `maintenance_candidate` + `review_required` with
//! `proposed_kind` `lesson` | `interest`, never the kind itself, so it
//! stays outside every kind-keyed fold until the entity adopts it; a
//! proposal is only a report (zero writes): only a diary entry with
//! `answers=` / `resolves=` discharges a drive.
//!
//! Spec: api.md "Candidates, disposal, and deliberate acts"
//! (`mine_candidates_pass`, `resolve_questions_pass`) and "Authored with the
//! record" (each offer's title and summary authored by the host's `author`,
//! or pending with the failure recorded). 0.3.2's `candidate_miner.py`
//! settles the rest: the matching lane's terms
//! ([`crate::concepts::matching_terms`]) less the corpus's boilerplate (a
//! term on more than an eighth of the evidence, floor 8), the keys, the
//! order (oldest tension first; most-recurrent theme first), the idempotency
//! key and the bound (`max_candidates` mints per pass; a standing offer is
//! skipped without a write and takes no slot; `report_only` counts slots the
//! same way so its report predicts the write). docs/candidates.md lists
//! where we differ (0.3.2's group offers are not built; the labels and
//! bodies are our words).
//!
//! How it works: one evidence scan (the world models' own,
//! [`crate::world_models::evidence`]) and one diary fold feed both the
//! proposals and the offers; every offer is planned first, then asked of the
//! author through the one authored-or-pending step
//! (`MemorySystem::prepare_authored`), then all form in ONE transaction.

use crate::concepts::matching_terms;
use crate::config::SleepTuning;
use crate::error::{Error, Result};
use crate::formation::authoring::{
    Author, AuthorField, AuthoredRecord, AuthoringReceipt, FormAuthored,
    maintenance_candidate_record,
};
use crate::kinds::{DIGEST_PREDICATE, RecordKind};
use crate::outcome::Warned;
use crate::pair_folds::PairFolds;
use crate::record::DigestRow;
use crate::sleep::args::sleep_pairs;
use crate::system::MemorySystem;
use crate::world_models::evidence::{Evidence, discovery_keyword_ok, evidence_scan, subject_head};
use am_journal::{Lifecycle, MemoryJournal};
use am_triples::{TripleQuery, TripleStore};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

const UNKNOWN_SESSION: &str = "(unknown-session)";
/// At most this many sources (and `summarizes` edges) per offer.
const MAX_OFFER_SOURCES: usize = 6;
/// The cap of an offer's report label, in characters.
const LABEL_CHARS: usize = 120;
/// The cap of a lesson label drawn from the question's text, in characters.
const TEXT_HEAD_CHARS: usize = 90;

fn two() -> i64 {
    2
}
fn three() -> i64 {
    3
}
fn twenty() -> i64 {
    20
}

fn owned_pairs(scopes: &[(&str, &str)]) -> Vec<(String, String)> {
    scopes
        .iter()
        .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
        .collect()
}

/// `resolve_questions_pass(store, journal, *, scopes, scan_limit=0,
/// min_shared_terms=2, max_evidence=3, limit=20)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveQuestions {
    /// `(scope, owner_id)` pairs read.
    pub scopes: Vec<(String, String)>,
    /// Evidence rows read per pair, newest first; 0 reads every row.
    #[serde(default)]
    pub scan_limit: usize,
    /// Discriminative terms a later record must share with the question.
    #[serde(default = "two")]
    pub min_shared_terms: i64,
    /// Evidence records named per proposal (at least one).
    #[serde(default = "three")]
    pub max_evidence: i64,
    /// Proposals returned (`proposal_count` counts them all).
    #[serde(default = "twenty")]
    pub limit: i64,
}

impl ResolveQuestions {
    /// The proposals of `scopes`, with the spec's defaults.
    pub fn new(scopes: &[(&str, &str)]) -> Self {
        ResolveQuestions {
            scopes: owned_pairs(scopes),
            scan_limit: 0,
            min_shared_terms: 2,
            max_evidence: 3,
            limit: 20,
        }
    }
}

/// One later record that shares a question's words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProposalEvidence {
    /// Its graph id.
    pub record_id: String,
    /// Its title (trimmed; empty when it has none).
    pub title: String,
    /// The discriminative terms it shares with the question, sorted.
    pub shared_terms: Vec<String>,
    /// When it formed.
    pub observed_at: String,
}

/// "This may already be answered: look" (never a discharge).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QuestionProposal {
    /// The open question's or problem's graph id.
    pub question_id: String,
    /// `question` | `problem`.
    pub diary_type: String,
    /// Its title.
    pub title: String,
    /// When it was asked.
    pub asked_at: String,
    /// The later records, most shared terms first, then oldest.
    pub evidence: Vec<ProposalEvidence>,
    /// What the proposal is and is not (our sentence).
    pub note: String,
}

/// `resolve_questions_pass`'s report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QuestionProposals {
    /// `resolve_questions_pass`.
    pub pass_name: String,
    /// Open questions and problems examined.
    pub examined: usize,
    /// The proposals, oldest question first, at most `limit`.
    pub proposals: Vec<QuestionProposal>,
    /// Every proposal found.
    pub proposal_count: usize,
}

/// `mine_candidates_pass(system, *, scopes, owner_id, max_candidates=2,
/// report_only=False, as_of=None, scan_limit=0, tuning=SleepTuning(),
/// author=None)` (the author is the host's hook).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MineCandidates {
    /// `(scope, owner_id)` pairs read; offers form in the first pair's scope.
    pub scopes: Vec<(String, String)>,
    /// The owner the offers are for (their owner).
    pub owner_id: String,
    /// Offers minted per pass (within `tuning.candidate_cap_band`).
    #[serde(default = "two")]
    pub max_candidates: i64,
    /// Compute the offers and write nothing (the report predicts the write).
    #[serde(default)]
    pub report_only: bool,
    /// Refused when given: the miner reads the current state only.
    #[serde(default)]
    pub as_of: Option<i64>,
    /// Evidence rows read per pair, newest first; 0 reads every row.
    #[serde(default)]
    pub scan_limit: usize,
    /// The sleep policy numbers (discovery sessions and ubiquity fraction).
    #[serde(default)]
    pub tuning: SleepTuning,
}

impl MineCandidates {
    /// One mining pass over `scopes` for `owner_id`, with the spec's defaults.
    pub fn new(scopes: &[(&str, &str)], owner_id: &str) -> Self {
        MineCandidates {
            scopes: owned_pairs(scopes),
            owner_id: owner_id.to_owned(),
            max_candidates: 2,
            report_only: false,
            as_of: None,
            scan_limit: 0,
            tuning: SleepTuning::default(),
        }
    }
}

/// A lesson offer found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LessonOffer {
    /// `lesson`.
    pub proposed_kind: String,
    /// The resolved question's or problem's graph id.
    pub question_id: String,
    /// The report's label (never stored: the record's title is authored).
    pub title: String,
    /// Distinct known sessions the theme lived across.
    pub sessions: usize,
}

/// An interest offer found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InterestOffer {
    /// `interest`.
    pub proposed_kind: String,
    /// The recurring compound keyword (lowercased).
    pub theme: String,
    /// The report's label (never stored).
    pub title: String,
    /// Distinct known sessions it recurred across.
    pub sessions: usize,
}

/// One drive group the open families read as (a report; no offer is formed
/// for it here).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MinedDriveGroup {
    /// `interest` | `problem` | `question`.
    pub family: String,
    /// The members' graph ids.
    pub members: Vec<String>,
    /// How many.
    pub size: usize,
    /// The oldest member.
    pub exemplar: String,
    /// Terms two or more members share.
    pub shared_terms: Vec<String>,
}

/// An offer formed (or, under `report_only`, that would form).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MintedOffer {
    /// The offer's graph id; `None` under `report_only`.
    pub candidate_id: Option<String>,
    /// `lesson` | `interest`.
    pub proposed_kind: String,
    /// The report's label.
    pub title: String,
    /// What it summarizes (at most six).
    pub source_ids: Vec<String>,
    /// Whether this pass formed it.
    pub created: bool,
    /// `report_only`: it would form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub would_mint: Option<bool>,
}

/// An offer not formed, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkippedOffer {
    /// `lesson` | `interest`.
    pub proposed_kind: String,
    /// Its label (an interest's theme when a standing interest covers it).
    pub title: String,
    /// Why (our words).
    pub reason: String,
}

/// `mine_candidates_pass`'s report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MinedCandidates {
    /// `mine_candidates_pass`.
    pub pass_name: String,
    /// Lesson offers found, oldest question first.
    pub lesson_candidates: Vec<LessonOffer>,
    /// Interest offers found, most sessions first.
    pub interest_candidates: Vec<InterestOffer>,
    /// `resolve_questions_pass`'s proposals over the same reads.
    pub question_proposals: Vec<QuestionProposal>,
    /// The open families' drive groups (a report).
    pub drive_groups: Vec<MinedDriveGroup>,
    /// Offers formed (or that would form).
    pub created: Vec<MintedOffer>,
    /// Offers not formed.
    pub skipped: Vec<SkippedOffer>,
    /// Offers this pass formed.
    pub created_count: usize,
    /// Which offers were authored and which formed pending, and why.
    pub authoring: AuthoringReceipt,
}

/// One believed diary row as the miner reads it.
#[derive(Debug, Clone)]
struct DiaryEntry {
    record_id: String,
    entry_id: String,
    diary_type: String,
    title: String,
    text: String,
    observed_at: String,
    pair: usize,
    session: String,
}

/// The diary fold: believed entries (each graph id once), the references
/// each pair's entries discharge, and for each discharged reference the
/// oldest believed entry that discharged it (by `(observed_at, id)`).
struct DiaryFold {
    entries: Vec<DiaryEntry>,
    refs: Vec<HashSet<String>>,
    answering: HashMap<String, DiaryEntry>,
}

impl DiaryFold {
    fn discharged(&self, e: &DiaryEntry) -> bool {
        let r = &self.refs[e.pair];
        r.contains(&e.record_id) || (!e.entry_id.is_empty() && r.contains(&e.entry_id))
    }

    fn answer_of(&self, e: &DiaryEntry) -> Option<&DiaryEntry> {
        self.answering.get(&e.record_id).or_else(|| {
            (!e.entry_id.is_empty())
                .then(|| self.answering.get(&e.entry_id))
                .flatten()
        })
    }
}

/// An entry's book id: a string trimmed, a number its decimal text.
fn book_id(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(true)) => "True".to_owned(),
        _ => String::new(),
    }
}

fn diary_fold(
    store: &dyn TripleStore,
    folds: &PairFolds,
    pairs: &[(String, String)],
) -> Result<DiaryFold> {
    let mut out = DiaryFold {
        entries: Vec::new(),
        refs: vec![HashSet::new(); pairs.len()],
        answering: HashMap::new(),
    };
    let mut seen: HashSet<String> = HashSet::new();
    for (p, (scope, owner)) in pairs.iter().enumerate() {
        for a in store.query(&TripleQuery {
            scope: Some(scope.clone()),
            owner_id: (!owner.is_empty()).then(|| owner.clone()),
            limit: 0,
            ..TripleQuery::default()
        })? {
            let row = DigestRow::of(&a);
            if row.as_stored("record_kind") != Some("diary")
                || a.assertion_id.as_deref().is_some_and(|i| folds.excludes(i))
                || folds.excludes(&a.subject)
                || !seen.insert(a.subject.clone())
            {
                continue;
            }
            let prov = |k: &str| {
                a.provenance
                    .get(k)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
            };
            let entry = DiaryEntry {
                record_id: a.subject.clone(),
                entry_id: book_id(row.get("entry_id")),
                diary_type: row.as_stored("diary_type").unwrap_or("").to_owned(),
                title: row.as_stored("title").unwrap_or("").trim().to_owned(),
                text: a.object.clone(),
                observed_at: a.observed_at.clone(),
                pair: p,
                session: prov("session_id")
                    .or_else(|| prov("run_id"))
                    .unwrap_or("")
                    .to_owned(),
            };
            for key in ["answers", "resolves"] {
                if let Some(r) = row.text(key) {
                    out.refs[p].insert(r.to_owned());
                    let older = out.answering.get(r).is_none_or(|prior| {
                        (&entry.observed_at, &entry.record_id)
                            < (&prior.observed_at, &prior.record_id)
                    });
                    if older {
                        out.answering.insert(r.to_owned(), entry.clone());
                    }
                }
            }
            out.entries.push(entry);
        }
    }
    Ok(out)
}

/// The matching terms of an evidence record: its title's and its keywords'.
fn evidence_terms(e: &Evidence) -> BTreeSet<String> {
    let mut t = matching_terms(&e.title);
    for k in &e.keywords {
        t.extend(matching_terms(k));
    }
    t
}

/// The corpus's boilerplate: a term on more than an eighth of the term sets
/// (floor 8; a small corpus cannot measure ubiquity).
fn boilerplate(sets: &[&BTreeSet<String>]) -> HashSet<String> {
    let mut df: HashMap<&str, usize> = HashMap::new();
    for s in sets {
        for t in *s {
            *df.entry(t.as_str()).or_default() += 1;
        }
    }
    let cap = 8usize.max(sets.len() / 8);
    df.into_iter()
        .filter(|(_, n)| *n > cap)
        .map(|(t, _)| t.to_owned())
        .collect()
}

/// The evidence's terms, boilerplate removed, and the boilerplate.
fn screened_terms(
    evidence: &BTreeMap<String, Evidence>,
) -> (BTreeMap<String, BTreeSet<String>>, HashSet<String>) {
    let mut terms: BTreeMap<String, BTreeSet<String>> = evidence
        .iter()
        .map(|(id, e)| (id.clone(), evidence_terms(e)))
        .collect();
    let screen = boilerplate(&terms.values().collect::<Vec<_>>());
    for t in terms.values_mut() {
        t.retain(|w| !screen.contains(w));
    }
    (terms, screen)
}

fn question_terms(e: &DiaryEntry, screen: &HashSet<String>) -> BTreeSet<String> {
    let mut t = matching_terms(&e.title);
    t.extend(matching_terms(&e.text));
    t.retain(|w| !screen.contains(w));
    t
}

/// `text` cut to `cap` characters, a cut shown by a closing `…`.
fn bounded_label(text: &str, cap: usize) -> String {
    if text.chars().count() <= cap {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(cap.saturating_sub(1)).collect();
    out.push('…');
    out
}

const PROPOSAL_NOTE: &str = "later records use this question's own words, so it may be answered \
     already; only you can settle it, with a diary entry that answers= or resolves= it";

fn proposals_of(
    fold: &DiaryFold,
    evidence: &BTreeMap<String, Evidence>,
    terms: &BTreeMap<String, BTreeSet<String>>,
    screen: &HashSet<String>,
    min_shared_terms: i64,
    max_evidence: i64,
) -> (usize, Vec<QuestionProposal>) {
    let asking: HashSet<&str> = fold
        .entries
        .iter()
        .filter(|e| matches!(e.diary_type.as_str(), "question" | "problem"))
        .map(|e| e.record_id.as_str())
        .collect();
    let mut open: Vec<&DiaryEntry> = fold
        .entries
        .iter()
        .filter(|e| matches!(e.diary_type.as_str(), "question" | "problem") && !fold.discharged(e))
        .collect();
    open.sort_by(|a, b| (&a.observed_at, &a.record_id).cmp(&(&b.observed_at, &b.record_id)));
    let min_shared = usize::try_from(min_shared_terms.max(0)).unwrap_or(usize::MAX);
    let keep = usize::try_from(max_evidence.max(1)).unwrap_or(usize::MAX);
    let mut proposals = Vec::new();
    for q in &open {
        let q_terms = question_terms(q, screen);
        if q_terms.is_empty() {
            continue;
        }
        let mut matched: Vec<ProposalEvidence> = Vec::new();
        for (rid, r) in evidence {
            if asking.contains(rid.as_str()) || *rid == q.record_id {
                continue;
            }
            if r.observed_at <= q.observed_at {
                continue;
            }
            let shared: Vec<String> = q_terms.intersection(&terms[rid]).cloned().collect();
            if shared.len() >= min_shared {
                matched.push(ProposalEvidence {
                    record_id: rid.clone(),
                    title: r.title.trim().to_owned(),
                    shared_terms: shared,
                    observed_at: r.observed_at.clone(),
                });
            }
        }
        if matched.is_empty() {
            continue;
        }
        // Stable: equal keys keep graph-id order.
        matched.sort_by(|a, b| {
            b.shared_terms
                .len()
                .cmp(&a.shared_terms.len())
                .then_with(|| a.observed_at.cmp(&b.observed_at))
        });
        matched.truncate(keep);
        proposals.push(QuestionProposal {
            question_id: q.record_id.clone(),
            diary_type: q.diary_type.clone(),
            title: q.title.clone(),
            asked_at: q.observed_at.clone(),
            evidence: matched,
            note: PROPOSAL_NOTE.to_owned(),
        });
    }
    (open.len(), proposals)
}

/// The pairs of a pass, normalized as the night's are.
fn pass_pairs(verb: &str, scopes: &[(String, String)]) -> Result<Vec<(String, String)>> {
    sleep_pairs(verb, scopes)
}

struct Reads {
    pairs: Vec<(String, String)>,
    folds: PairFolds,
    fold: DiaryFold,
    evidence: BTreeMap<String, Evidence>,
    terms: BTreeMap<String, BTreeSet<String>>,
    screen: HashSet<String>,
}

fn reads(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    verb: &str,
    scopes: &[(String, String)],
    scan_limit: usize,
) -> Result<Reads> {
    let pairs = pass_pairs(verb, scopes)?;
    let head = journal.current_seq()?;
    let folds = PairFolds::load_pairs(store, journal, &pairs, head)?;
    let fold = diary_fold(store, &folds, &pairs)?;
    let evidence = evidence_scan(store, journal, &pairs, scan_limit)?.evidence;
    let (terms, screen) = screened_terms(&evidence);
    Ok(Reads {
        pairs,
        folds,
        fold,
        evidence,
        terms,
        screen,
    })
}

/// `resolve_questions_pass`: open questions and problems (no believed diary
/// entry of their pair `answers` or `resolves` them) matched against LATER
/// evidence sharing at least `min_shared_terms` of their discriminative
/// terms (a question or problem is never evidence). Proposals only: writes
/// nothing.
///
/// # Errors
/// `InvalidInput` for no scope pair or a blank scope; the store's or
/// journal's failure.
pub fn resolve_questions_pass(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &ResolveQuestions,
) -> Result<QuestionProposals> {
    let r = reads(
        store,
        journal,
        "resolve_questions_pass",
        &args.scopes,
        args.scan_limit,
    )?;
    let (examined, proposals) = proposals_of(
        &r.fold,
        &r.evidence,
        &r.terms,
        &r.screen,
        args.min_shared_terms,
        args.max_evidence,
    );
    let count = proposals.len();
    let limit = usize::try_from(args.limit.max(0)).unwrap_or(usize::MAX);
    Ok(QuestionProposals {
        pass_name: "resolve_questions_pass".to_owned(),
        examined,
        proposals: proposals.into_iter().take(limit).collect(),
        proposal_count: count,
    })
}

/// One offer planned.
struct Planned {
    kind: &'static str,
    key_seed: String,
    title: String,
    body: String,
    sources: Vec<String>,
    extra: Vec<(&'static str, Value)>,
    /// A theme a standing interest covers: reported as skipped, in its
    /// place among the offers.
    covered: Option<String>,
}

impl MemorySystem {
    /// `resolve_questions_pass` on this system's home (see
    /// [`resolve_questions_pass`]).
    ///
    /// # Errors
    /// As [`resolve_questions_pass`].
    pub fn resolve_questions_pass(&self, args: &ResolveQuestions) -> Result<QuestionProposals> {
        resolve_questions_pass(self.store.as_ref(), self.journal.as_ref(), args)
    }

    /// One mining pass (see the module doc): lesson and interest offers,
    /// each authored by `author` or formed pending with the failure
    /// recorded, at most `max_candidates` formed; the question proposals
    /// beside them. A standing offer (same key) is skipped without a write.
    /// All offers form in one transaction.
    ///
    /// # Errors
    /// `InvalidInput` for `as_of` given, a blank owner, no scope pair, a
    /// `max_candidates` outside the tuning's band, an invalid tuning, or
    /// (unless `report_only`) a home without a task queue; the store's or
    /// journal's failure. Nothing is written on an error.
    pub fn mine_candidates_pass(
        &self,
        args: &MineCandidates,
        author: Option<&dyn Author>,
    ) -> Result<Warned<MinedCandidates>> {
        if args.as_of.is_some() {
            return Err(Error::invalid(
                "mine_candidates_pass reads the current state only: as_of must be absent (an \
                 anchored audit has no mining read; sleep_pass skips mining under an anchor)",
            ));
        }
        let owner = am_triples::assertion::py_strip(&args.owner_id).to_owned();
        if owner.is_empty() {
            return Err(Error::invalid(
                "mine_candidates_pass needs an owner_id: the offers are someone's to adopt or \
                 reject",
            ));
        }
        args.tuning.validate()?;
        let cap = args.tuning.validated_candidate_cap(args.max_candidates)?;
        if !args.report_only {
            // Offers form with their title and summary pending unless the
            // author delivers: refused before anything is read or written.
            self.tasks()?;
        }
        let store = self.store.as_ref();
        let journal = self.journal.as_ref();
        let r = reads(
            store,
            journal,
            "mine_candidates_pass",
            &args.scopes,
            args.scan_limit,
        )?;
        let (_, question_proposals) = proposals_of(&r.fold, &r.evidence, &r.terms, &r.screen, 2, 3);
        let mut out = MinedCandidates {
            pass_name: "mine_candidates_pass".to_owned(),
            lesson_candidates: Vec::new(),
            interest_candidates: Vec::new(),
            question_proposals: question_proposals.into_iter().take(20).collect(),
            drive_groups: Vec::new(),
            created: Vec::new(),
            skipped: Vec::new(),
            created_count: 0,
            authoring: AuthoringReceipt::default(),
        };

        // Standing lessons and interests (believed; a rejected interest
        // owns no theme).
        let mut lifecycle_of: HashMap<&str, Lifecycle> = HashMap::new();
        for b in &r.folds.bindings {
            lifecycle_of.insert(&b.record_id, b.lifecycle);
        }
        let mut interest_heads: BTreeSet<String> = BTreeSet::new();
        let mut lesson_terms: Vec<BTreeSet<String>> = Vec::new();
        for (scope, owner_p) in &r.pairs {
            for a in store.query(&TripleQuery {
                scope: Some(scope.clone()),
                owner_id: (!owner_p.is_empty()).then(|| owner_p.clone()),
                predicate: Some(DIGEST_PREDICATE.to_owned()),
                limit: 0,
                ..TripleQuery::default()
            })? {
                if a.assertion_id
                    .as_deref()
                    .is_some_and(|i| r.folds.excludes(i))
                    || r.folds.excludes(&a.subject)
                {
                    continue;
                }
                let row = DigestRow::of(&a);
                match row.as_stored("record_kind") {
                    Some("interest") => {
                        if lifecycle_of.get(a.subject.as_str()) == Some(&Lifecycle::Rejected) {
                            continue;
                        }
                        let words = row
                            .as_stored("title")
                            .filter(|t| !t.is_empty())
                            .unwrap_or(&a.object);
                        let head = subject_head(words);
                        if !head.is_empty() {
                            interest_heads.insert(head);
                        }
                    }
                    Some("lesson") => {
                        lesson_terms.push(matching_terms(row.as_stored("title").unwrap_or("")));
                    }
                    _ => {}
                }
            }
        }

        let mut planned: Vec<Planned> = Vec::new();
        self.plan_lessons(&r, &lesson_terms, &mut out, &mut planned);
        self.plan_interests(&r, &interest_heads, &args.tuning, &mut out, &mut planned);

        // The drive groups (a report).
        let partition = crate::drives::open_drive_partition(
            store,
            journal,
            &crate::drives::DriveScopes {
                scopes: r.pairs.clone(),
            },
        )?;
        for (family, groups) in partition.families() {
            for g in groups {
                out.drive_groups.push(MinedDriveGroup {
                    family: family.to_owned(),
                    members: g.members.clone(),
                    size: g.size,
                    exemplar: g.exemplar.clone(),
                    shared_terms: g.shared_terms.clone(),
                });
            }
        }

        // Mint: standing offers skipped (no slot), then the cap.
        let home_scope = r.pairs[0].0.clone();
        let mut minted = 0usize;
        let mut prepared_all = Vec::new();
        let mut batches = Vec::new();
        for p in planned {
            if let Some(reason) = p.covered {
                out.skipped.push(SkippedOffer {
                    proposed_kind: p.kind.to_owned(),
                    title: p.title,
                    reason,
                });
                continue;
            }
            let sources: Vec<String> = {
                let mut seen = HashSet::new();
                p.sources
                    .into_iter()
                    .filter(|s| !s.is_empty() && seen.insert(s.clone()))
                    .take(MAX_OFFER_SOURCES)
                    .collect()
            };
            if sources.is_empty() {
                continue;
            }
            let fingerprint = hex::encode(Sha256::digest(p.key_seed.as_bytes()));
            let key = format!("candidate-miner|{}|{owner}|{fingerprint}", p.kind);
            let expected = crate::ids::record_id_for(RecordKind::Summary, &key, 0);
            let standing = !store
                .query(&TripleQuery {
                    subject: Some(expected.clone()),
                    limit: 1,
                    ..TripleQuery::default()
                })?
                .is_empty();
            if standing {
                out.skipped.push(SkippedOffer {
                    proposed_kind: p.kind.to_owned(),
                    title: p.title,
                    reason: "a standing offer already stands for this (minted by an earlier pass)"
                        .to_owned(),
                });
                continue;
            }
            if minted >= cap {
                out.skipped.push(SkippedOffer {
                    proposed_kind: p.kind.to_owned(),
                    title: p.title,
                    reason: format!("this pass's cap of {cap} offers is reached"),
                });
                continue;
            }
            minted += 1;
            if args.report_only {
                out.created.push(MintedOffer {
                    candidate_id: None,
                    proposed_kind: p.kind.to_owned(),
                    title: p.title,
                    source_ids: sources,
                    created: false,
                    would_mint: Some(true),
                });
                continue;
            }
            let mut record = maintenance_candidate_record(
                &p.body,
                &sources,
                vec![("proposed_kind", json!(p.kind))],
            );
            for (k, v) in p.extra {
                record.attributes.insert(k.into(), v);
            }
            let prepared = self.prepare_authored(
                &FormAuthored {
                    pass: "mine_candidates_pass".to_owned(),
                    records: vec![AuthoredRecord {
                        record,
                        fields: vec![AuthorField::Title, AuthorField::Summary],
                        source_ids: sources.clone(),
                    }],
                    scope: home_scope.clone(),
                    owner_id: owner.clone(),
                    idempotency_key: key,
                    turn_id: None,
                },
                author,
            )?;
            batches.push(prepared.batch.clone());
            prepared_all.push(prepared);
            out.created.push(MintedOffer {
                candidate_id: Some(expected),
                proposed_kind: p.kind.to_owned(),
                title: p.title,
                source_ids: sources,
                created: true,
                would_mint: None,
            });
        }
        let mut warnings = Vec::new();
        if !batches.is_empty() {
            let written = self.form_batches(&batches, &[])?;
            let mut ids = written.value.iter();
            for (prepared, offer) in prepared_all
                .iter()
                .zip(out.created.iter_mut().filter(|c| c.created))
            {
                if let Some(ids) = ids.next() {
                    out.authoring.absorb(prepared.receipt(ids));
                    if let Some(id) = ids.first() {
                        offer.candidate_id = Some(id.clone());
                    }
                }
            }
            warnings = written.warnings;
        }
        out.created_count = out.created.iter().filter(|c| c.created).count();
        Ok(Warned::new(out, warnings))
    }

    /// Lesson offers: a resolved question or problem whose theme (two or
    /// more shared terms with later-or-earlier evidence, the discharging
    /// entries not counted) lived across two or more KNOWN sessions, and no
    /// standing lesson shares two of its terms. Oldest question first.
    fn plan_lessons(
        &self,
        r: &Reads,
        lesson_terms: &[BTreeSet<String>],
        out: &mut MinedCandidates,
        planned: &mut Vec<Planned>,
    ) {
        let dischargers: HashSet<&str> = r
            .fold
            .answering
            .values()
            .map(|e| e.record_id.as_str())
            .collect();
        let mut rows: Vec<(&DiaryEntry, Vec<String>, usize)> = Vec::new();
        for q in &r.fold.entries {
            if !matches!(q.diary_type.as_str(), "question" | "problem") || !r.fold.discharged(q) {
                continue;
            }
            let q_terms = question_terms(q, &r.screen);
            if q_terms.is_empty() {
                continue;
            }
            if lesson_terms
                .iter()
                .any(|lt| !lt.is_empty() && lt.intersection(&q_terms).count() >= 2)
            {
                continue;
            }
            let mut sessions: BTreeSet<&str> = BTreeSet::new();
            if !q.session.is_empty() {
                sessions.insert(&q.session);
            }
            let mut theme = Vec::new();
            for (rid, e) in &r.evidence {
                if dischargers.contains(rid.as_str()) || *rid == q.record_id {
                    continue;
                }
                if q_terms.intersection(&r.terms[rid]).count() >= 2 {
                    if !e.session.is_empty() && e.session != UNKNOWN_SESSION {
                        sessions.insert(&e.session);
                    }
                    theme.push(rid.clone());
                }
            }
            sessions.remove(UNKNOWN_SESSION);
            if sessions.len() < 2 {
                continue;
            }
            rows.push((q, theme, sessions.len()));
        }
        rows.sort_by(|a, b| {
            (&a.0.observed_at, &a.0.record_id).cmp(&(&b.0.observed_at, &b.0.record_id))
        });
        for (q, theme, sessions) in rows {
            let answer = r.fold.answer_of(q);
            let screened_title = matching_terms(&q.title)
                .into_iter()
                .any(|t| !r.screen.contains(&t));
            let label = if screened_title {
                q.title.clone()
            } else {
                let flat = q.text.split_whitespace().collect::<Vec<_>>().join(" ");
                let head = bounded_label(&flat, TEXT_HEAD_CHARS).trim().to_owned();
                if head.is_empty() {
                    q.title.clone()
                } else {
                    head
                }
            };
            let title = bounded_label(&format!("Lesson offer: {label}"), LABEL_CHARS);
            out.lesson_candidates.push(LessonOffer {
                proposed_kind: "lesson".to_owned(),
                question_id: q.record_id.clone(),
                title: title.clone(),
                sessions,
            });
            let asked = if q.diary_type == "question" {
                "You asked"
            } else {
                "You ran into"
            };
            let settled = match answer.filter(|a| !a.title.is_empty()) {
                Some(a) => format!(" Your answer was {:?}.", a.title),
                None => " Your diary records the answer.".to_owned(),
            };
            let body = format!(
                "{asked} {label:?} and settled it.{settled} The same theme came back in \
                 {sessions} sessions. If it is worth keeping, adopt this offer and write the \
                 lesson in your own words; if not, reject it."
            );
            let mut sources = vec![q.record_id.clone()];
            if let Some(a) = answer {
                sources.push(a.record_id.clone());
            }
            sources.extend(theme);
            planned.push(Planned {
                kind: "lesson",
                key_seed: format!("lesson|{}", q.record_id),
                title,
                body,
                sources,
                extra: vec![
                    ("question_id", json!(q.record_id)),
                    ("sessions", json!(sessions)),
                ],
                covered: None,
            });
        }
    }

    /// Interest offers: a compound keyword (the world models' discovery
    /// rule) on records of at least `max(2, world_model_discovery_sessions)`
    /// known sessions, on no more records than the ubiquity cap, that no
    /// standing interest declares (its subject head contains or is
    /// contained in the theme, or one's terms contain the other's). Most
    /// sessions first, then by theme.
    fn plan_interests(
        &self,
        r: &Reads,
        heads: &BTreeSet<String>,
        tuning: &SleepTuning,
        out: &mut MinedCandidates,
        planned: &mut Vec<Planned>,
    ) {
        let floor = tuning.world_model_discovery_sessions.max(2);
        let mut sessions: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
        let mut records: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for (rid, e) in &r.evidence {
            if e.session.is_empty() || e.session == UNKNOWN_SESSION {
                continue;
            }
            for kw in &e.keywords {
                let k = kw.trim().to_lowercase();
                if !discovery_keyword_ok(&k) {
                    continue;
                }
                sessions.entry(k.clone()).or_default().insert(&e.session);
                records.entry(k).or_default().push(rid);
            }
        }
        #[allow(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )] // a count times a fraction in [0, 1], floored as 0.3.2 does
        let by_fraction =
            (r.evidence.len() as f64 * tuning.world_model_discovery_max_fraction).floor() as usize;
        let ubiquity = (2 * floor).max(by_fraction);
        let mut rows: Vec<(&String, usize, &Vec<&str>)> = Vec::new();
        for (theme, s) in &sessions {
            let ids = &records[theme];
            if s.len() < floor || ids.len() > ubiquity {
                continue;
            }
            let theme_t = matching_terms(theme);
            let covered = heads.iter().any(|head| {
                let head_t = matching_terms(head);
                !head.is_empty()
                    && (head.contains(theme.as_str())
                        || theme.contains(head.as_str())
                        || (!theme_t.is_empty()
                            && !head_t.is_empty()
                            && (theme_t.is_subset(&head_t) || head_t.is_subset(&theme_t))))
            });
            if covered {
                planned.push(Planned {
                    kind: "interest",
                    key_seed: String::new(),
                    title: theme.clone(),
                    body: String::new(),
                    sources: Vec::new(),
                    extra: Vec::new(),
                    covered: Some(
                        "a standing interest of yours already names this theme".to_owned(),
                    ),
                });
                continue;
            }
            rows.push((theme, s.len(), ids));
        }
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        for (theme, n, ids) in rows {
            let title = bounded_label(&format!("Interest offer: {theme}"), LABEL_CHARS);
            out.interest_candidates.push(InterestOffer {
                proposed_kind: "interest".to_owned(),
                theme: theme.clone(),
                title: title.clone(),
                sessions: n,
            });
            let example = ids
                .first()
                .and_then(|id| r.evidence.get(*id))
                .map_or("", |e| e.title.as_str());
            let body = format!(
                "{theme:?} came up in {n} separate sessions (for one, {example:?}), and you have \
                 not taken it up as an interest. Adopt this offer to name the interest in your own \
                 words, or reject it."
            );
            planned.push(Planned {
                kind: "interest",
                key_seed: format!("interest|{theme}"),
                title,
                body,
                sources: ids.iter().map(|s| (*s).to_owned()).collect(),
                extra: vec![("theme", json!(theme)), ("sessions", json!(n))],
                covered: None,
            });
        }
    }
}
