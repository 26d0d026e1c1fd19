//! `dream_pass`: the night's dream sub-phase. The structural report, then
//! cross-component bridge proposals and single-facet questions, then at most
//! ONE `kind="dream"` record.
//!
//! - **Bridges.** Every pair of substrate records in different components is
//!   weighed, ids in order. A pair already associated by a co-use trail
//!   (`trail_associated`) or a context edge (`context_associated`) is
//!   excluded and counted. A pair bridges on two shared facets, on a shared
//!   *discriminative* participant (never the owner, never a companion on more
//!   than `person_bridge_max_fraction` of the records) with or without a
//!   shared facet, or, when neither holds, on the cosine of both stored
//!   vectors at or above `embedder_similarity_floor`. That vector-only path is
//!   refused when both records' digests are machine-written (a shared
//!   template is similarity without relatedness: `template_suppressed`); a
//!   pair missing a vector is counted (`vectorless_pairs`), never guessed. A
//!   pair with exactly one shared facet and no discriminative participant is
//!   a question instead. Both lists keep `tuning.list_bound` entries.
//! - **Salience.** Proposals, questions, underlinked facets, the standing
//!   unresolved dreams of the first pair (each presses again) and the
//!   night's maintenance operations (capped) add up. Below
//!   `salience_floor`, or with fewer than two sources, the night is quiet:
//!   nothing forms and `skipped_reason` says why. A night whose only
//!   pressure is standing dreams forms a continuation dream sourced from
//!   them.
//! - **Novelty.** A dream forms only when the night carries a tension no
//!   standing dream already carries (nor a dream a waking verdict retracted:
//!   rejection sticks); the tensions already carried stay with their dream
//!   and are counted (`carried_suppressed`).
//! - **The record.** `kind="dream"` in the first pair's scope under
//!   `owner_id`, with weak `mentions` edges to at most `max_sources` sources,
//!   `interpretation_required`, `continuation_state` (`unresolved`, or
//!   `continued` for a continuation), `parent_dream_ids` (the standing dreams
//!   it chains to), its proposals, questions, salience, the report's
//!   fingerprint and the night's `signals`. Its id derives from the
//!   fingerprint, so the same graph state forms nothing new. Its title and
//!   summary are authored by the host's `author` from the night's composed
//!   text, or form pending with the failure recorded (a home without its
//!   task queue refuses before writing anything); on a home with its queue
//!   the dream's `dream.narrate` task is queued with it.
//!
//! Sleep proposes, waking evidence disposes: the dream writes only weak
//! `mentions` edges and deposits nothing; the feelings that colour the
//! signals are read, never written.
//!
//! Spec: api.md "Consolidation (sleep and dreams)" (`dream_pass`),
//! "Authored with the record"; memory-system.md "Sleep and dreams". Where
//! the spec is silent this follows 0.3.2 (`consolidation.dream_pass`): the
//! result's keys, the bridge and question rules and their order, the
//! salience terms, the novelty gate, the continuation dream, the
//! `maintenance_ops` keyword (threaded by `sleep_pass`), and `as_of` with a
//! write refused. Where they differ the spec wins: the title and summary are
//! authored or pending (0.3.2 composes them), and the result carries
//! `signals`, `signals_omitted` and the `authoring` receipt. Ours: the
//! fingerprint hashes the night's structure (components, pairs, facets,
//! vector scores, underlinked facets, continuation anchors), never prose.

use std::collections::{BTreeSet, HashMap, HashSet};

use am_journal::{ClosureFilter, ClosureKind};
use am_triples::TripleQuery;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::args::{StructuralReport, sleep_pairs};
use super::dreams::{UnresolvedDreams, unresolved_dreams};
use super::resolution::tension_entries;
use super::signals::{
    NightPhases, Signal, TOP_K_SIGNALS, Tension, compose_signals, night_feelings, tension_phrase,
};
use super::structural::{Atom, Structure, structural_report};
use super::tuning::SleepTuning;
use crate::error::{Error, Result};
use crate::formation::authoring::{
    Author, AuthorField, AuthoredRecord, AuthoringReceipt, FormAuthored,
};
use crate::formation::records::MemoryRecordInput;
use crate::kinds::RecordKind;
use crate::outcome::Warned;
use crate::record::DigestRow;
use crate::system::MemorySystem;
use crate::tasks::MECHANICAL_DIGEST_METHODS;

/// The digest methods that say a machine wrote the words: the mechanical
/// methods, the dedup summary's, and the close notes' (0.3.2's
/// `MACHINE_AUTHORED_METHODS`). Two such records never bridge on their
/// vectors alone.
pub const MACHINE_AUTHORED_METHODS: [&str; 6] = [
    MECHANICAL_DIGEST_METHODS[0],
    MECHANICAL_DIGEST_METHODS[1],
    MECHANICAL_DIGEST_METHODS[2],
    MECHANICAL_DIGEST_METHODS[3],
    "mechanical-dedup-v1",
    "mechanical-close-v1",
];

fn two() -> i64 {
    2
}
fn eight() -> usize {
    8
}
fn floor_035() -> f64 {
    0.35
}

/// `dream_pass(system, *, scopes, owner_id, salience_floor=2, max_sources=8,
/// embedder_similarity_floor=0.35, report_only=False, as_of=None,
/// author=None)`'s arguments (the `author` is the host's hook).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DreamPass {
    /// `(scope, owner_id)` pairs the night reads; the dream forms in the
    /// first pair's scope.
    pub scopes: Vec<(String, String)>,
    /// The dreamer (the dream's owner; never a bridging participant).
    pub owner_id: String,
    /// Salience below this is a quiet night.
    #[serde(default = "two")]
    pub salience_floor: i64,
    /// At most this many `mentions` edges.
    #[serde(default = "eight")]
    pub max_sources: usize,
    /// Stored-vector cosine at or above which a pair bridges on meaning.
    #[serde(default = "floor_035")]
    pub embedder_similarity_floor: f64,
    /// Compute the night and write nothing.
    #[serde(default)]
    pub report_only: bool,
    /// The journal seq the report's trails are read up to (an audit read:
    /// only with `report_only`).
    #[serde(default)]
    pub as_of: Option<i64>,
    /// The night's maintenance operations (0.3.2's keyword, which
    /// `sleep_pass` threads; they add at most `salience_ops_cap`).
    #[serde(default)]
    pub maintenance_ops: u64,
    /// Every policy number of the pass.
    #[serde(default)]
    pub tuning: SleepTuning,
}

impl DreamPass {
    /// The dream of `scopes` for `owner_id`, with the spec's defaults.
    pub fn new(scopes: &[(&str, &str)], owner_id: &str) -> Self {
        DreamPass {
            scopes: scopes
                .iter()
                .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
                .collect(),
            owner_id: owner_id.to_owned(),
            salience_floor: two(),
            max_sources: eight(),
            embedder_similarity_floor: floor_035(),
            report_only: false,
            as_of: None,
            maintenance_ops: 0,
            tuning: SleepTuning::default(),
        }
    }
}

/// A cross-component bridge the night proposes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BridgeProposal {
    /// The two records, ids in order.
    pub pair: (String, String),
    /// The lexical facets they share, sorted.
    pub shared_facets: Vec<String>,
    /// The discriminative participants they share, sorted.
    pub shared_participants: Vec<String>,
    /// The stored-vector cosine (rounded to six places), when only meaning
    /// joined them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector_score: Option<f64>,
}

/// A single-facet question: connection, or lexical residue?
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FacetQuestion {
    /// The two records, ids in order.
    pub pair: (String, String),
    /// The one facet they share.
    pub facet: String,
    /// The question, in words.
    pub question: String,
}

/// What `dream_pass` did: 0.3.2's dict key for key, with the spec's
/// `signals`, `signals_omitted` and `authoring`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DreamResult {
    /// `"dream_pass"`.
    pub pass_name: String,
    /// The structural report the night read.
    pub report: Structure,
    /// Bridge proposals (the novel ones when standing dreams carry some).
    pub proposals: Vec<BridgeProposal>,
    /// Single-facet questions (likewise).
    pub questions: Vec<FacetQuestion>,
    /// The night's salience.
    pub salience: usize,
    /// Pairs that could bridge only on meaning but lack a stored vector.
    pub vectorless_pairs: usize,
    /// Cross-component pairs excluded because a co-use trail joins them.
    pub trail_associated: usize,
    /// Cross-component pairs excluded because a context edge joins them.
    pub context_associated: usize,
    /// Pairs refused the vector-only path: both digests machine-written.
    pub template_suppressed: usize,
    /// Tonight's tensions a standing (or rejected) dream already carries.
    pub carried_suppressed: usize,
    /// The dream's graph id (`None`: none formed).
    pub dream_record_id: Option<String>,
    /// Whether this run formed it (`false` when it already stood).
    pub created: bool,
    /// Why no dream formed (`None` when one did).
    pub skipped_reason: Option<String>,
    /// The night's signal stream (the one the dream rests with; empty when
    /// none formed).
    pub signals: Vec<Signal>,
    /// Signals the stream's bound left out.
    pub signals_omitted: usize,
    /// The dream authored, or its recorded failure.
    pub authoring: AuthoringReceipt,
}

/// What a dream's stored `proposals` / `questions` carry: its pairs.
fn carried_pairs_of(row: &am_triples::TripleAssertion) -> Vec<BTreeSet<String>> {
    let view = DigestRow::of(row);
    let mut out = Vec::new();
    for key in ["proposals", "questions"] {
        for (pair, _) in tension_entries(view.get(key)) {
            if let Some((a, b)) = pair {
                out.push([a, b].into_iter().collect());
            }
        }
    }
    out
}

fn set_of(pair: &(String, String)) -> BTreeSet<String> {
    [pair.0.clone(), pair.1.clone()].into_iter().collect()
}

/// The tally of the bridge scan.
#[derive(Default)]
struct Bridges {
    proposals: Vec<BridgeProposal>,
    questions: Vec<FacetQuestion>,
    vectorless: usize,
    trail: usize,
    context: usize,
    template: usize,
}

/// The sorted intersection of two sorted lists of distinct numbers, into
/// `out`.
fn intersect(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

impl MemorySystem {
    /// The night's dream (see the module doc): at most one dream record,
    /// authored by `author` or pending, in one transaction.
    ///
    /// # Errors
    /// `InvalidInput` for `as_of` with a write, no scope pair or a blank
    /// scope, a blank owner, an invalid tuning or similarity floor, or
    /// (before anything is written) a dream that would form pending on a
    /// home opened without its task queue; the store's or journal's failure.
    pub fn dream_pass(
        &self,
        args: &DreamPass,
        author: Option<&dyn Author>,
    ) -> Result<Warned<DreamResult>> {
        self.dream_pass_in_night(args, author, NightPhases::default())
    }

    /// [`MemorySystem::dream_pass`] with the results of the night's earlier
    /// sub-phases, which become the stream's signals (`sleep_pass`).
    ///
    /// # Errors
    /// As [`MemorySystem::dream_pass`].
    pub fn dream_pass_in_night(
        &self,
        args: &DreamPass,
        author: Option<&dyn Author>,
        phases: NightPhases<'_>,
    ) -> Result<Warned<DreamResult>> {
        if args.as_of.is_some() && !args.report_only {
            return Err(Error::invalid(
                "dream_pass: as_of anchors an audit read; a dream formed against a past anchor would \
                 forge the timeline: pass report_only=true with as_of",
            ));
        }
        args.tuning.validate()?;
        if !(args.embedder_similarity_floor.is_finite()
            && (-1.0..=1.0).contains(&args.embedder_similarity_floor))
        {
            return Err(Error::invalid(format!(
                "dream_pass: embedder_similarity_floor must be a cosine in [-1, 1], got {}",
                args.embedder_similarity_floor
            )));
        }
        let owner = am_triples::assertion::py_strip(&args.owner_id).to_owned();
        if owner.is_empty() {
            return Err(Error::invalid(
                "dream_pass needs an owner_id (the dreamer), got a blank one",
            ));
        }
        let pairs = sleep_pairs("dream_pass", &args.scopes)?;
        let store = self.store.as_ref();
        let journal = self.journal.as_ref();
        let report = structural_report(
            store,
            journal,
            &StructuralReport {
                scopes: pairs.clone(),
                as_of: args.as_of,
                evidence_grade: false,
            },
        )?;
        let tuning = &args.tuning;
        let bridges = self.bridges(&report, &owner, args.embedder_similarity_floor, tuning)?;
        let (home_scope, home_owner) = pairs[0].clone();
        let prior = unresolved_dreams(
            store,
            Some(journal),
            &UnresolvedDreams {
                scope: home_scope.clone(),
                owner_id: home_owner.clone(),
                limit: hundred_standing(),
            },
        )?;
        let ops = usize::try_from(args.maintenance_ops)
            .unwrap_or(usize::MAX)
            .min(tuning.salience_ops_cap);
        let underlinked = report.underlinked_facets.len();
        let salience_of = |p: usize, q: usize| {
            tuning.salience_proposal_weight * p
                + tuning.salience_question_weight * q
                + underlinked
                + tuning.salience_anchor_weight * prior.len()
                + ops
        };
        let Bridges {
            mut proposals,
            mut questions,
            vectorless,
            trail,
            context,
            template,
        } = bridges;
        let mut salience = salience_of(proposals.len(), questions.len());
        let sources_of = |p: &[BridgeProposal], q: &[FacetQuestion]| {
            let mut out: Vec<String> = Vec::new();
            for pair in p.iter().map(|e| &e.pair).chain(q.iter().map(|e| &e.pair)) {
                for id in [&pair.0, &pair.1] {
                    if !out.contains(id) {
                        out.push(id.clone());
                    }
                }
            }
            out
        };
        let mut sources = sources_of(&proposals, &questions);
        let continuation_only = sources.is_empty() && !prior.is_empty();
        if continuation_only {
            sources = prior.iter().map(|a| a.subject.clone()).collect();
        }
        let mut result = DreamResult {
            pass_name: "dream_pass".to_owned(),
            report,
            proposals: Vec::new(),
            questions: Vec::new(),
            salience,
            vectorless_pairs: vectorless,
            trail_associated: trail,
            context_associated: context,
            template_suppressed: template,
            carried_suppressed: 0,
            dream_record_id: None,
            created: false,
            skipped_reason: None,
            signals: Vec::new(),
            signals_omitted: 0,
            authoring: AuthoringReceipt::default(),
        };
        let floor = args.salience_floor;
        let min_sources = if continuation_only { 1 } else { 2 };
        let salience_i = i64::try_from(salience).unwrap_or(i64::MAX);
        if salience_i < floor || sources.len() < min_sources {
            result.skipped_reason = Some(if salience_i < floor {
                format!("quiet night: salience {salience} is below the floor of {floor}")
            } else {
                format!(
                    "quiet night: {} distinct source record(s); a dream needs two",
                    sources.len()
                )
            });
            result.proposals = proposals;
            result.questions = questions;
            return Ok(Warned::new(result, Vec::new()));
        }

        // The novelty gate: what standing dreams carry, and what waking
        // verdicts rejected (pairs of retracted dreams).
        let mut carried: HashSet<BTreeSet<String>> = HashSet::new();
        let mut carried_anchors: HashSet<String> = HashSet::new();
        for a in &prior {
            carried.extend(carried_pairs_of(a));
            let view = DigestRow::of(a);
            if let Some(Value::Array(ids)) = view.get("parent_dream_ids") {
                carried_anchors.extend(ids.iter().map(am_triples::text::py_str));
            }
            if view.as_stored("continuation_state") == Some("continued") {
                carried_anchors.insert(a.subject.clone());
            }
        }
        let retracted: HashSet<String> = journal
            .closures(&ClosureFilter {
                limit: 0,
                ..ClosureFilter::default()
            })?
            .into_iter()
            .filter(|c| c.kind == ClosureKind::Retract)
            .map(|c| c.assertion_id)
            .collect();
        let mut rejected: HashSet<BTreeSet<String>> = HashSet::new();
        if !retracted.is_empty() {
            for a in store.query(&TripleQuery {
                scope: Some(home_scope.clone()),
                owner_id: (!home_owner.is_empty()).then(|| home_owner.clone()),
                limit: 0,
                ..TripleQuery::default()
            })? {
                let is_dream = DigestRow::of(&a).kind() == Some(RecordKind::Dream);
                if is_dream
                    && a.assertion_id
                        .as_deref()
                        .is_some_and(|id| retracted.contains(id))
                {
                    rejected.extend(carried_pairs_of(&a));
                }
            }
        }
        carried.extend(rejected.iter().cloned());
        let novel = if continuation_only {
            prior.iter().any(|a| !carried_anchors.contains(&a.subject))
        } else {
            proposals
                .iter()
                .map(|e| &e.pair)
                .chain(questions.iter().map(|e| &e.pair))
                .any(|p| !carried.contains(&set_of(p)))
        };
        if (!prior.is_empty() || !rejected.is_empty()) && !novel {
            let why = if prior.is_empty() {
                "waking verdicts already rejected every tension of tonight".to_owned()
            } else {
                format!(
                    "{} standing dream(s) already carry every tension of tonight",
                    prior.len()
                )
            };
            result.skipped_reason = Some(format!(
                "restful night: {why}; nothing new to dream (a standing dream is the tension's \
                 record until waking evidence settles it)"
            ));
            result.proposals = proposals;
            result.questions = questions;
            return Ok(Warned::new(result, Vec::new()));
        }
        if !carried.is_empty() && !continuation_only {
            let before = proposals.len() + questions.len();
            proposals.retain(|e| !carried.contains(&set_of(&e.pair)));
            questions.retain(|e| !carried.contains(&set_of(&e.pair)));
            result.carried_suppressed = before - proposals.len() - questions.len();
            salience = salience_of(proposals.len(), questions.len());
            result.salience = salience;
            sources = sources_of(&proposals, &questions);
        }
        if args.report_only {
            result.skipped_reason = Some("report_only requested".to_owned());
            result.proposals = proposals;
            result.questions = questions;
            return Ok(Warned::new(result, Vec::new()));
        }

        let anchors: Vec<String> = if continuation_only {
            let mut a: Vec<String> = prior.iter().map(|a| a.subject.clone()).collect();
            a.sort();
            a
        } else {
            Vec::new()
        };
        let fingerprint = fingerprint(&result.report, &proposals, &questions, &anchors)?;

        // The signals: the night's acts, coloured by one read of feelings.
        let feelings = night_feelings(journal, &pairs, self.gradation_config())?;
        let tensions: Vec<Tension<'_>> = if continuation_only {
            Vec::new()
        } else {
            proposals
                .iter()
                .map(|e| Tension {
                    pair: (e.pair.0.as_str(), e.pair.1.as_str()),
                    shared: e.shared_facets.iter().map(String::as_str).collect(),
                    by_meaning: e.vector_score.is_some(),
                })
                .chain(questions.iter().map(|e| Tension {
                    pair: (e.pair.0.as_str(), e.pair.1.as_str()),
                    shared: vec![e.facet.as_str()],
                    by_meaning: false,
                }))
                .collect()
        };
        let (signals, omitted) = compose_signals(
            phases,
            &tensions,
            &result.report.records,
            &feelings,
            TOP_K_SIGNALS,
        );

        let record = self.compose_dream(
            &result.report,
            &owner,
            &prior,
            &proposals,
            &questions,
            &tensions,
            &sources,
            &signals,
            DreamShape {
                continuation_only,
                salience,
                omitted,
                fingerprint: &fingerprint,
                max_sources: args.max_sources,
                tuning,
            },
        );
        let key = format!("dream|{owner}|{fingerprint}");
        let dream_id = crate::ids::record_id_for(RecordKind::Dream, &key, 0);
        let existed = !store
            .query(&TripleQuery {
                subject: Some(dream_id.clone()),
                limit: 1,
                ..TripleQuery::default()
            })?
            .is_empty();
        let form = FormAuthored {
            pass: "dream_pass".to_owned(),
            records: vec![AuthoredRecord {
                record,
                fields: vec![AuthorField::Title, AuthorField::Summary],
                source_ids: sources.iter().take(args.max_sources).cloned().collect(),
            }],
            scope: home_scope,
            owner_id: owner.clone(),
            idempotency_key: key,
            turn_id: None,
        };
        let prepared = self.prepare_authored(&form, author)?;
        if prepared.pends() && !self.home.has_task_queue() {
            let why = prepared.first_failure().map_or_else(String::new, |f| {
                format!(" ({}: {})", f.reason.as_str(), f.message)
            });
            return Err(Error::invalid(format!(
                "dream_pass refused before writing anything: the dream was not authored{why}, and a \
                 pending title or summary needs the home's task queue (MemorySystem(task_queue=True)), \
                 which this home was not opened with"
            )));
        }
        // A formed dream owes its narration (`dream.narrate`, night and nap
        // windows), queued with it.
        let narrate = if existed || !self.home.has_task_queue() {
            Vec::new()
        } else {
            let aid = crate::ids::digest_assertion_id(&form.idempotency_key, 0);
            let mut e = crate::tasks::Enqueue::new(
                am_journal::TaskKind::DreamNarrate,
                &dream_id,
                (&form.scope, &owner),
                &format!("{aid}@narration-v0"),
                1.0,
                "formation",
            );
            e.assertion_id = aid;
            self.tasks()?.plan_enqueues(&[e])?
        };
        let written =
            self.form_batches_queueing(std::slice::from_ref(&prepared.batch), &[], &narrate)?;
        let ids = written.value.into_iter().next().unwrap_or_default();
        result.authoring = prepared.receipt(&ids);
        result.dream_record_id = Some(ids.into_iter().next().unwrap_or(dream_id));
        result.created = !existed;
        result.signals = signals;
        result.signals_omitted = omitted;
        result.proposals = proposals;
        result.questions = questions;
        Ok(Warned::new(result, written.warnings))
    }

    /// The bridge scan (see the module doc): every pair of records in
    /// different components, ids in order.
    ///
    /// Every pair is weighed, so the per-pair work is kept to integer
    /// compares: each record's facets and participants are numbered in
    /// text order (so a merge of two numbered lists is the sorted
    /// intersection of the texts), its component and machine flag are
    /// looked up once, its vector is read once, and an entry is built only
    /// while its list is under `tuning.list_bound` (the lists are cut
    /// there; the counts run over every pair).
    fn bridges(
        &self,
        report: &Structure,
        owner: &str,
        similarity_floor: f64,
        tuning: &SleepTuning,
    ) -> Result<Bridges> {
        let records = &report.records;
        let ids: Vec<&str> = records.keys().map(Atom::as_str).collect();
        let position: HashMap<&str, u32> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (*id, u32::try_from(i).unwrap_or(u32::MAX)))
            .collect();
        let pairs_of = |pairs: &[(Atom, Atom)]| -> HashSet<(u32, u32)> {
            pairs
                .iter()
                .filter_map(|(a, b)| Some((*position.get(a.as_str())?, *position.get(b.as_str())?)))
                .collect()
        };
        let trail = pairs_of(&report.trail_pairs);
        let context = pairs_of(&report.context_pairs);

        // Facets and participants numbered in text order.
        fn number(texts: BTreeSet<&str>) -> HashMap<&str, u32> {
            texts
                .into_iter()
                .enumerate()
                .map(|(i, t)| (t, u32::try_from(i).unwrap_or(u32::MAX)))
                .collect()
        }
        let facet_no = number(
            records
                .values()
                .flat_map(|r| r.facets.iter().map(Atom::as_str))
                .collect(),
        );
        let person_no = number(
            records
                .values()
                .flat_map(|r| r.participants.iter().map(Atom::as_str))
                .collect(),
        );
        let mut facet_text = vec![""; facet_no.len()];
        for (t, i) in &facet_no {
            facet_text[*i as usize] = t;
        }
        let mut person_text = vec![""; person_no.len()];
        for (t, i) in &person_no {
            person_text[*i as usize] = t;
        }
        let mut counts = vec![0usize; person_no.len()];
        for r in records.values() {
            for p in &r.participants {
                counts[person_no[p.as_str()] as usize] += 1;
            }
        }
        #[allow(clippy::cast_precision_loss)]
        let total = records.len().max(1) as f64;
        #[allow(clippy::cast_precision_loss)]
        let discriminative: Vec<bool> = person_text
            .iter()
            .zip(&counts)
            .map(|(p, n)| *p != owner && (*n as f64 / total) <= tuning.person_bridge_max_fraction)
            .collect();
        // Per record: component, machine flag, facet and discriminative
        // participant numbers (sorted: the records' lists are sorted texts).
        let mut comp: Vec<usize> = Vec::with_capacity(ids.len());
        let mut machine: Vec<bool> = Vec::with_capacity(ids.len());
        let mut facet_at: Vec<(u32, u32)> = Vec::with_capacity(ids.len());
        let mut person_at: Vec<(u32, u32)> = Vec::with_capacity(ids.len());
        let (mut facets, mut people): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
        let span = |v: &Vec<u32>, from: usize| {
            (
                u32::try_from(from).unwrap_or(u32::MAX),
                u32::try_from(v.len()).unwrap_or(u32::MAX),
            )
        };
        for (id, r) in records {
            comp.push(report.component_of.get(id).copied().unwrap_or(usize::MAX));
            machine.push(MACHINE_AUTHORED_METHODS.contains(&r.digest_method.as_str()));
            let from = facets.len();
            facets.extend(r.facets.iter().map(|f| facet_no[f.as_str()]));
            facet_at.push(span(&facets, from));
            let from = people.len();
            people.extend(
                r.participants
                    .iter()
                    .map(|p| person_no[p.as_str()])
                    .filter(|p| discriminative[*p as usize]),
            );
            person_at.push(span(&people, from));
        }
        let facets_of = |i: usize| &facets[facet_at[i].0 as usize..facet_at[i].1 as usize];
        let people_of = |i: usize| &people[person_at[i].0 as usize..person_at[i].1 as usize];
        // One read per record, not per pair.
        let mut vectors: Vec<Option<Option<Vec<f32>>>> = vec![None; ids.len()];
        let bound = tuning.list_bound;
        let mut out = Bridges::default();
        let (mut shared_lex, mut shared_signal): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
        for left in 0..ids.len() {
            for right in left + 1..ids.len() {
                if comp[left] == comp[right] {
                    continue;
                }
                #[allow(clippy::cast_possible_truncation)]
                let key = (left as u32, right as u32);
                if !trail.is_empty() && trail.contains(&key) {
                    out.trail += 1;
                    continue;
                }
                if !context.is_empty() && context.contains(&key) {
                    out.context += 1;
                    continue;
                }
                intersect(facets_of(left), facets_of(right), &mut shared_lex);
                intersect(people_of(left), people_of(right), &mut shared_signal);
                let lexical =
                    shared_lex.len() >= 2 || (!shared_signal.is_empty() && !shared_lex.is_empty());
                let person = !shared_signal.is_empty();
                let mut score = None;
                if !lexical && !person {
                    if machine[left] && machine[right] {
                        out.template += 1;
                    } else {
                        for i in [left, right] {
                            if vectors[i].is_none() {
                                let aid = records[ids[i]].assertion_id.as_str();
                                vectors[i] = Some(if aid.is_empty() {
                                    None
                                } else {
                                    self.store.stored_vector(aid)?
                                });
                            }
                        }
                        match (&vectors[left], &vectors[right]) {
                            (Some(Some(va)), Some(Some(vb))) => {
                                score = Some(am_triples::vector::cosine(va, vb));
                            }
                            _ => out.vectorless += 1,
                        }
                    }
                }
                let texts = |numbers: &[u32], text: &[&str]| -> Vec<String> {
                    numbers
                        .iter()
                        .map(|n| text[*n as usize].to_owned())
                        .collect()
                };
                let pair = || (ids[left].to_owned(), ids[right].to_owned());
                if lexical || person {
                    if out.proposals.len() < bound {
                        out.proposals.push(BridgeProposal {
                            pair: pair(),
                            shared_facets: texts(&shared_lex, &facet_text),
                            shared_participants: texts(&shared_signal, &person_text),
                            vector_score: None,
                        });
                    }
                } else if let Some(s) = score.filter(|s| *s >= similarity_floor) {
                    if out.proposals.len() < bound {
                        out.proposals.push(BridgeProposal {
                            pair: pair(),
                            shared_facets: texts(&shared_lex, &facet_text),
                            shared_participants: texts(&shared_signal, &person_text),
                            vector_score: Some(round6(s)),
                        });
                    }
                } else if shared_lex.len() == 1
                    && shared_signal.is_empty()
                    && out.questions.len() < bound
                {
                    let facet = facet_text[shared_lex[0] as usize].to_owned();
                    let (l, r) = (ids[left], ids[right]);
                    let question = format!(
                        "{l} and {r} share only {facet:?}: a connection, or the same word by chance?"
                    );
                    out.questions.push(FacetQuestion {
                        pair: pair(),
                        facet,
                        question,
                    });
                }
            }
        }
        Ok(out)
    }

    /// The dream record as the night composes it: the composed text is the
    /// provisional body the author writes the title and summary from.
    #[allow(clippy::too_many_arguments)]
    fn compose_dream(
        &self,
        report: &Structure,
        owner: &str,
        prior: &[am_triples::TripleAssertion],
        proposals: &[BridgeProposal],
        questions: &[FacetQuestion],
        tensions: &[Tension<'_>],
        sources: &[String],
        signals: &[Signal],
        shape: DreamShape<'_>,
    ) -> MemoryRecordInput {
        let tuning = shape.tuning;
        let (mut body, state) = if shape.continuation_only {
            (
                format!(
                    "No new bridge tonight; {} standing dream(s) pressed again. The same islands are \
                     still apart and the night returned to them with no new evidence. Nothing is \
                     decided asleep: waking attention may settle it.",
                    prior.len()
                ),
                "continued",
            )
        } else {
            let named: Vec<String> = tensions
                .iter()
                .take(3)
                .map(|t| tension_phrase(&report.records, t))
                .collect();
            (
                format!(
                    "Tonight, records from separate islands of memory lit up together: {}. {} possible \
                     bridge(s) and {} open question(s) across {} islands. Nothing is decided asleep; \
                     these are connections for waking evidence to confirm or dissolve.",
                    named.join("; "),
                    proposals.len(),
                    questions.len(),
                    report.counts.components
                ),
                "unresolved",
            )
        };
        let other: Vec<&str> = signals
            .iter()
            .filter(|s| s.phase != "dream")
            .take(3)
            .map(|s| s.fragment.as_str())
            .collect();
        if !other.is_empty() {
            body.push_str(&format!(" The night also moved: {}.", other.join("; ")));
        }
        let tones: BTreeSet<&str> = signals
            .iter()
            .filter_map(|s| s.felt.as_ref())
            .map(|f| f.tone.as_str())
            .filter(|t| *t != "neutral")
            .collect();
        if !tones.is_empty() {
            let tone = if tones.len() > 1 {
                "mixed"
            } else {
                tones.iter().next().copied().unwrap_or("mixed")
            };
            body.push_str(&format!(" Tonight feels {tone}."));
        }

        let mut keywords: Vec<String> = Vec::new();
        let mut participants: Vec<String> = Vec::new();
        let add = |v: &mut Vec<String>, s: &str| {
            if !s.is_empty() && s != owner && !v.iter().any(|x| x == s) {
                v.push(s.to_owned());
            }
        };
        if shape.continuation_only {
            for a in prior {
                let view = DigestRow::of(a);
                for (field, into) in [
                    ("keywords", &mut keywords),
                    ("participants", &mut participants),
                ] {
                    if let Some(Value::Array(items)) = view.get(field) {
                        for s in items.iter().filter_map(Value::as_str) {
                            add(into, s);
                        }
                    }
                }
            }
        } else {
            for e in proposals {
                for f in &e.shared_facets {
                    add(&mut keywords, f);
                }
                for p in &e.shared_participants {
                    add(&mut participants, p);
                }
            }
            for e in questions {
                add(&mut keywords, &e.facet);
            }
        }
        keywords.sort();
        keywords.truncate(tuning.list_bound);
        participants.sort();
        participants.truncate(tuning.list_bound);

        let mut record = MemoryRecordInput::new(RecordKind::Dream, "", &body);
        record.title = None;
        record.keywords = keywords;
        record.participants = participants;
        record.edges = sources
            .iter()
            .take(shape.max_sources)
            .map(|id| ("mentions".to_owned(), id.clone()))
            .collect();
        let parents: Vec<String> = prior
            .iter()
            .take(tuning.list_bound)
            .map(|a| a.subject.clone())
            .collect();
        let attrs = &mut record.attributes;
        attrs.insert("report_fingerprint".into(), json!(shape.fingerprint));
        attrs.insert("salience".into(), json!(shape.salience));
        attrs.insert(
            "salience_label".into(),
            json!(if shape.salience >= tuning.salience_high {
                "high"
            } else {
                "medium"
            }),
        );
        attrs.insert("parent_dream_ids".into(), json!(parents));
        attrs.insert("continuation_state".into(), json!(state));
        attrs.insert("interpretation_required".into(), json!(true));
        attrs.insert("proposals".into(), json!(proposals));
        attrs.insert("questions".into(), json!(questions));
        attrs.insert("signals".into(), json!(signals));
        attrs.insert("signals_omitted".into(), json!(shape.omitted));
        record
    }
}

/// The numbers `compose_dream` shapes the record with.
struct DreamShape<'a> {
    continuation_only: bool,
    salience: usize,
    omitted: usize,
    fingerprint: &'a str,
    max_sources: usize,
    tuning: &'a SleepTuning,
}

/// The standing dreams a night reads (`unresolved_dreams`' default, as
/// 0.3.2 reads them).
fn hundred_standing() -> usize {
    100
}

/// The night's fingerprint: the structure it saw, never its prose.
fn fingerprint(
    report: &Structure,
    proposals: &[BridgeProposal],
    questions: &[FacetQuestion],
    anchors: &[String],
) -> Result<String> {
    let doc = json!({
        "components": report.components,
        "proposals": proposals,
        "questions": questions.iter().map(|q| json!({"pair": q.pair, "facet": q.facet})).collect::<Vec<_>>(),
        "underlinked": report.underlinked_facets,
        "anchors": anchors,
    });
    let text = serde_json::to_string(&doc)
        .map_err(|e| Error::internal(format!("dream_pass: cannot encode the fingerprint: {e}")))?;
    Ok(hex::encode(Sha256::digest(text.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_authored_methods_extend_the_mechanical_ones() {
        for m in MECHANICAL_DIGEST_METHODS {
            assert!(MACHINE_AUTHORED_METHODS.contains(&m));
        }
        assert!(MACHINE_AUTHORED_METHODS.contains(&"mechanical-dedup-v1"));
    }
}
