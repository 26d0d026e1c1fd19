//! Recall diagnostics and rendering: "why did (or didn't) this surface?"
//! answered from what the journal recorded, without changing what surfaces
//! next. Every read here is pure: no trace, no event, no deposit.
//!
//! - [`recall_history`]: a record's part in recent traces, newest first.
//! - [`explain_recall`]: one recall (a named trace, or the newest) explained
//!   for one record, reporting only what the trace recorded.
//! - [`absence_diagnosis`]: the structural reasons a record may be
//!   unreachable in a pair, in plain sentences; an unformed id reads as
//!   honestly absent.
//! - [`origin_diversity`]: a rendered shelf folded into its voices
//!   (`(provenance source, actor)`), `None` when too little to judge.
//! - [`stable_render_order`]: shelf handles in formation order, rank annotated.
//! - [`recent_records`]: formed records in a time window, newest first, folds
//!   applied.
//!
//! Spec: api.md "Recall diagnostics and rendering"; operator.md §3.

use crate::error::{Error, Result};
use crate::kinds::DEFAULT_KIND;
use crate::kinds::DIGEST_PREDICATE;
use crate::lookup::{resolve_digest_assertion, truthy};
use crate::record::DigestRow;
use crate::seam::{Admission, MemoryHandle, OrderedMap};
use crate::system::MemorySystem;
use am_journal::SearchState;
use am_journal::{ClosureFilter, MemoryJournal, ReconstructionTrace, TraceFilter};
use am_triples::text::{RECALL_MIN_TOKEN_LEN, handle_digest, tokenize};
use am_triples::{JsonMap, Timestamp, TripleAssertion, TripleQuery, TripleStore};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::num::NonZeroUsize;

/// The traces `recall_history` walks by default (`limit_traces`).
pub const DEFAULT_TRACE_WALK: usize = 200;
/// Below this many counted (non-self) handles `origin_diversity` abstains.
pub const ORIGIN_MIN_COUNTED: NonZeroUsize = NonZeroUsize::new(3).unwrap();
/// The dominant voice's share at or above which the note names one voice.
pub const ORIGIN_DOMINANCE_FLOOR: f64 = 0.6;
/// The default page of `recent_records`.
pub const RECENT_RECORDS_DEFAULT_LIMIT: NonZeroUsize = NonZeroUsize::new(24).unwrap();

am_triples::vocabulary! {
    /// A record's part in one recall.
    pub enum RecallStatus("recall status") {
        /// On the shelf (or in the working set).
        Selected = "selected",
        /// A candidate dropped, with the recorded reason.
        Dropped = "dropped",
        /// Scored in the trace's bounded candidate list, never placed.
        CandidateOnly = "candidate_only",
        /// Not in the trace at all.
        Absent = "absent",
        /// No recall has been journaled.
        NoRecallRecorded = "no_recall_recorded",
    }
}

fn default_walk() -> usize {
    DEFAULT_TRACE_WALK
}

fn default_recent_limit() -> NonZeroUsize {
    RECENT_RECORDS_DEFAULT_LIMIT
}

fn default_min_counted() -> NonZeroUsize {
    ORIGIN_MIN_COUNTED
}

fn default_floor() -> f64 {
    ORIGIN_DOMINANCE_FLOOR
}

// -- recall_history ------------------------------------------------------------

/// The arguments of [`recall_history`]: `recall_history(journal, record_id, *,
/// limit_traces=200, until_seq=None, store=None)`, with the facade's `scope`
/// and `owner_id` (`system.recall_history(record_id, *, scope=None,
/// owner_id="", limit_traces=200)`: with a scope, the structural diagnosis in
/// that pair comes back as `diagnosis`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallHistory {
    /// The record (either id namespace when a store is given).
    pub record_id: String,
    /// How many traces to walk, newest first (0 = all).
    #[serde(default = "default_walk")]
    pub limit_traces: usize,
    /// Walk traces at or before this seq.
    #[serde(default)]
    pub until_seq: Option<i64>,
    /// With a store: diagnose the record's absence in `(scope, owner_id)`.
    #[serde(default)]
    pub scope: Option<String>,
    /// The owner of the diagnosed pair (default `""`).
    #[serde(default)]
    pub owner_id: String,
}

impl RecallHistory {
    /// The history of `record_id` over the newest 200 traces.
    pub fn new(record_id: &str) -> Self {
        RecallHistory {
            record_id: record_id.to_owned(),
            limit_traces: DEFAULT_TRACE_WALK,
            until_seq: None,
            scope: None,
            owner_id: String::new(),
        }
    }
}

/// One trace the record appeared in.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct HistoryEvent {
    /// The trace.
    pub trace_id: String,
    /// Its seq.
    pub seq: i64,
    /// Its time.
    pub observed_at: String,
    /// `reconstruct` | `probe` | ...
    pub trace_kind: String,
    /// `selected`, `dropped` or `candidate_only`.
    pub status: RecallStatus,
    /// The admission label (selected only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admission: Option<Value>,
    /// The recorded drop reason (dropped only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The recorded drop score (dropped only, when recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<Value>,
    /// The recorded per-channel scores (candidate_only only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<JsonMap>,
}

/// How many walked traces gave each status.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, schemars::JsonSchema)]
pub struct HistoryCounts {
    /// Selected.
    pub selected: usize,
    /// Dropped.
    pub dropped: usize,
    /// Candidate only.
    pub candidate_only: usize,
    /// Absent.
    pub absent: usize,
}

/// The answer of [`recall_history`]: `{record_id, events, counts,
/// traces_walked}` (the facade adds `diagnosis` when given a scope).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RecallHistoryReport {
    /// The id asked about (trimmed).
    pub record_id: String,
    /// The traces it appeared in, newest first.
    pub events: Vec<HistoryEvent>,
    /// Per status.
    pub counts: HistoryCounts,
    /// Traces walked.
    pub traces_walked: usize,
    /// The structural diagnosis (the facade, with a scope).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<AbsenceDiagnosis>,
}

/// The record's recorded part in one trace.
#[derive(Default)]
struct Part {
    status: Option<RecallStatus>,
    admission: Option<Value>,
    reason: Option<String>,
    score: Option<Value>,
    scores: Option<JsonMap>,
    candidate_rank: Option<usize>,
}

/// Both ids of a record (row and graph), or just the id when it resolves to nothing.
fn identity_set(store: Option<&dyn TripleStore>, rid: &str) -> Result<HashSet<String>> {
    let mut ids = HashSet::from([rid.to_owned()]);
    if let Some(store) = store
        && let Some(a) = resolve_digest_assertion(store, rid)?
    {
        ids.insert(a.subject.clone());
        if let Some(id) = a.assertion_id {
            ids.insert(id);
        }
    }
    Ok(ids)
}

fn id_in(v: Option<&Value>, ids: &HashSet<String>) -> bool {
    v.and_then(Value::as_str).is_some_and(|s| ids.contains(s))
}

/// The one classifier `recall_history` and `explain_recall` share: selected
/// (with its admission), else dropped (first matching row, by record or
/// graph id), and the candidate rank and scores when listed.
fn trace_part(trace: &ReconstructionTrace, ids: &HashSet<String>) -> Part {
    let mut part = Part::default();
    if let Some(hit) = trace.selected.iter().find(|s| ids.contains(*s)) {
        part.status = Some(RecallStatus::Selected);
        part.admission = trace
            .admissions
            .get(hit)
            .filter(|a| truthy(Some(a)))
            .cloned();
    } else if let Some(d) = trace
        .dropped
        .iter()
        .find(|d| id_in(d.get("record_id"), ids) || id_in(d.get("graph_id"), ids))
    {
        part.status = Some(RecallStatus::Dropped);
        part.reason = Some(match d.get("reason") {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(other) => other.to_string(),
        });
        part.score = d.get("score").filter(|s| !s.is_null()).cloned();
    }
    if let Some((rank, c)) = trace
        .candidates
        .iter()
        .enumerate()
        .find(|(_, c)| id_in(c.get("record_id"), ids))
    {
        part.candidate_rank = Some(rank + 1);
        part.scores = Some(match c.get("scores") {
            Some(Value::Object(m)) => m.clone(),
            _ => JsonMap::new(),
        });
        if part.status.is_none() {
            part.status = Some(RecallStatus::CandidateOnly);
        }
    }
    part
}

fn required_id(what: &str, id: &str) -> Result<String> {
    let rid = id.trim();
    if rid.is_empty() {
        return Err(Error::invalid(format!(
            "{what} requires a non-empty record id, got {id:?}"
        )));
    }
    Ok(rid.to_owned())
}

/// The record's part in the newest `limit_traces` traces (at or before
/// `until_seq`), newest first. With a store, the id matches through both
/// namespaces (row and graph). Traces it never appeared in are counted as
/// absent, not itemized. With a store and `args.scope`, the
/// [`absence_diagnosis`] in that pair rides as `diagnosis`.
///
/// # Errors
/// `InvalidInput` for a blank id or an invalid anchor; the journal's failure.
pub fn recall_history(
    journal: &dyn MemoryJournal,
    store: Option<&dyn TripleStore>,
    args: &RecallHistory,
) -> Result<RecallHistoryReport> {
    let rid = required_id("recall_history", &args.record_id)?;
    let ids = identity_set(store, &rid)?;
    let traces = journal.traces(&TraceFilter {
        trace_id: None,
        until_seq: args.until_seq,
        limit: args.limit_traces,
    })?;
    let mut events = Vec::new();
    let mut counts = HistoryCounts::default();
    for t in &traces {
        let part = trace_part(t, &ids);
        let Some(status) = part.status else {
            counts.absent += 1;
            continue;
        };
        match status {
            RecallStatus::Selected => counts.selected += 1,
            RecallStatus::Dropped => counts.dropped += 1,
            _ => counts.candidate_only += 1,
        }
        events.push(HistoryEvent {
            trace_id: t.trace_id.clone(),
            seq: t.seq,
            observed_at: t.observed_at.clone(),
            trace_kind: t.trace_kind.clone(),
            status,
            admission: if status == RecallStatus::Selected {
                part.admission
            } else {
                None
            },
            reason: (status == RecallStatus::Dropped).then(|| part.reason.unwrap_or_default()),
            score: if status == RecallStatus::Dropped {
                part.score
            } else {
                None
            },
            scores: if status == RecallStatus::CandidateOnly {
                Some(part.scores.unwrap_or_default())
            } else {
                None
            },
        });
    }
    let diagnosis = match (store, &args.scope) {
        (Some(store), Some(scope)) => Some(absence_diagnosis(
            store,
            journal,
            &rid,
            (scope, &args.owner_id),
        )?),
        _ => None,
    };
    Ok(RecallHistoryReport {
        record_id: rid,
        events,
        counts,
        traces_walked: traces.len(),
        diagnosis,
    })
}

// -- absence_diagnosis ---------------------------------------------------------

/// The answer of [`absence_diagnosis`]: `{record_id, reasons,
/// channels_reachable}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct AbsenceDiagnosis {
    /// The id asked about (trimmed).
    pub record_id: String,
    /// Plain sentences, in mechanism order.
    pub reasons: Vec<String>,
    /// The recall channels that can surface the record at all.
    pub channels_reachable: Vec<String>,
}

/// The closed ids and the hidden rows (materialized: a latest-hidden binding
/// in a pair excludes the rows of that pair whose id or subject is the bound
/// id) at an anchor: the pair folds' one reader.
pub(crate) use crate::pair_folds::PairFolds as Exclusions;

/// The structural reasons `record_id` may be unreachable in `(scope,
/// owner_id)`, checked in mechanism order: existence, closure, a hidden
/// binding, the pair it lives in, keyword reachability, vector reachability
/// (plus the participants channel). An id that resolves to no record reads
/// as honestly absent (one reason, no channel), not as an error.
///
/// # Errors
/// `InvalidInput` for a blank id or scope; the store's or journal's failure.
pub fn absence_diagnosis(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    record_id: &str,
    pair: (&str, &str),
) -> Result<AbsenceDiagnosis> {
    let rid = required_id("absence_diagnosis", record_id)?;
    let scope = pair.0.trim().to_lowercase();
    let owner = pair.1.trim().to_owned();
    if scope.is_empty() {
        return Err(Error::invalid(format!(
            "absence_diagnosis requires a non-empty scope, got {:?}",
            pair.0
        )));
    }
    let Some(a) = resolve_digest_assertion(store, &rid)? else {
        return Ok(AbsenceDiagnosis {
            reasons: vec![format!(
                "{rid:?} names no record in this store: it was never formed here, or it is an id \
                 of the other namespace (digest row ids and graph ids differ)"
            )],
            record_id: rid,
            channels_reachable: Vec::new(),
        });
    };
    let graph_id = a.subject.clone();
    let aid = a.assertion_id.clone().unwrap_or_default();
    // The record's own folds only (bounded by its two ids, never a read of
    // the pair's every binding): closed when either id has a closure; hidden
    // when a latest binding in this pair on either id is hidden and the row
    // lives in the pair (0.3.2's materialization of a hidden binding).
    let mut closed = false;
    for id in [&aid, &graph_id] {
        if !id.is_empty()
            && !journal
                .closures(&ClosureFilter {
                    assertion_id: Some(id.clone()),
                    until_seq: None,
                    limit: 1,
                })?
                .is_empty()
        {
            closed = true;
        }
    }
    let ids: Vec<String> = [aid.clone(), graph_id.clone()]
        .into_iter()
        .filter(|i| !i.is_empty())
        .collect();
    let folded = journal.fold_bindings_for(&ids, None)?;
    let in_pair = |b: &am_journal::ScopeBinding| b.scope == scope && b.owner_id == owner;
    let lives_here = a.scope == scope
        && (owner.is_empty() || a.owner_id.as_deref().unwrap_or_default() == owner);
    let hidden = lives_here
        && folded
            .values()
            .flatten()
            .any(|b| in_pair(b) && b.search_state == SearchState::Hidden);
    let bound = folded
        .get(&graph_id)
        .is_some_and(|bs| bs.iter().any(in_pair));
    let mut reasons = Vec::new();
    let mut channels = Vec::new();
    if closed {
        reasons.push(
            "it is closed (retracted or superseded): the closure fold keeps it out of recall"
                .to_owned(),
        );
    }
    if hidden {
        reasons.push(
            "a hidden binding in this pair keeps it out of ranked retrieval (bind it with \
             search_state \"indexed\" to bring it back)"
                .to_owned(),
        );
    }
    if !bound && a.scope != scope {
        reasons.push(format!(
            "it lives in scope {:?}, not {scope:?}: a recall whose ladder lacks its pair cannot reach it",
            a.scope
        ));
    }
    if reasons.is_empty() {
        channels.push("exact (an anchor id or a matching pattern reaches it)".to_owned());
    }
    let window = "; keyword scans read the newest candidate window of each pair, so an old record may lie beyond it";
    let row = DigestRow::of(&a);
    let keywords = matches!(row.get("keywords"), Some(Value::Array(k)) if !k.is_empty());
    let title = row.title().unwrap_or_default();
    if keywords {
        channels.push(format!("keyword (it has formation keywords{window})"));
    } else if !tokenize(&format!("{title} {}", a.object), RECALL_MIN_TOKEN_LEN).is_empty() {
        channels.push(format!(
            "keyword (its title and digest words only: it has no formation keywords{window})"
        ));
    } else {
        reasons.push(
            "the keyword channel cannot match it: it has no formation keywords and its title and \
             digest give no recall tokens (short words or a non-Latin script)"
                .to_owned(),
        );
    }
    if store.stored_vector(&aid)?.is_some() {
        channels.push("vector (it has a stored embedding)".to_owned());
    } else {
        reasons.push(
            "it has no stored vector, so the vector channel cannot rank it (formed without an \
             embedder, or the store is vectorless; re-embedding backfills it)"
                .to_owned(),
        );
    }
    if matches!(row.get("participants"), Some(Value::Array(p)) if !p.is_empty()) {
        channels.push("participants (a shared participant reaches it)".to_owned());
    }
    if reasons.is_empty() {
        reasons.push(
            "nothing structural stands in its way: when absent, it lost the shelf race on \
             relevance or budget (recall_history shows the drops; a probe reaches on purpose)"
                .to_owned(),
        );
    }
    Ok(AbsenceDiagnosis {
        record_id: rid,
        reasons,
        channels_reachable: channels,
    })
}

// -- explain_recall ------------------------------------------------------------

/// The record's formation identity, as `explain_recall` serves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RecordOrigin {
    /// A formed record.
    Formed {
        /// Always true.
        formed: bool,
        /// The graph id.
        graph_id: String,
        /// The record kind (`memory` for a plain triple).
        kind: String,
        /// The title (`None` while pending or missing).
        title: Option<String>,
        /// The row's `observed_at`.
        formed_at: String,
        /// `provenance.source`.
        source: String,
        /// `provenance.actor`.
        actor: String,
        /// `session_id`, else `run_id`, else `turn_id` of the provenance.
        session_id: String,
    },
    /// No row for the id.
    Unformed {
        /// Always false.
        formed: bool,
        /// Why.
        note: String,
    },
}

/// The explained trace.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ExplainedTrace {
    /// Its id.
    pub trace_id: String,
    /// Its seq.
    pub seq: i64,
    /// Its time.
    pub observed_at: String,
    /// Its kind.
    pub trace_kind: String,
    /// The channels that ran.
    pub channels: Vec<String>,
    /// The pairs searched.
    pub searched_scopes: Vec<JsonMap>,
    /// Why the read stopped.
    pub stop_reason: String,
    /// Its warnings.
    pub warnings: Vec<String>,
}

/// Whether something was recorded, with the recorded parts or a note.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Recorded {
    /// Whether the trace recorded it.
    pub recorded: bool,
    /// The recorded per-channel parts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parts: Option<JsonMap>,
    /// Why nothing is served.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The record's place on the shelf of the trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ShelfPlace {
    /// How many records the trace selected.
    pub selected_count: usize,
    /// The record's 1-based position on the shelf.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<usize>,
    /// Its 1-based rank in the bounded candidate list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate_rank: Option<usize>,
    /// The candidate list's length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate_cap: Option<usize>,
    /// What the rank is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_note: Option<String>,
}

/// One searched pair's structural diagnosis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PairDiagnosis {
    /// The pair's scope.
    pub scope: String,
    /// The pair's owner.
    pub owner_id: String,
    /// As [`AbsenceDiagnosis::reasons`].
    pub reasons: Vec<String>,
    /// As [`AbsenceDiagnosis::channels_reachable`].
    pub channels_reachable: Vec<String>,
}

/// Why an absent record was absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct AbsentDiagnosis {
    /// Timing and trace notes.
    pub note: Vec<String>,
    /// The diagnosis per searched pair (empty when it was formed after the recall).
    pub by_scope: Vec<PairDiagnosis>,
}

/// The answer of [`explain_recall`].
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RecallExplanation {
    /// The id asked about (trimmed).
    pub record_id: String,
    /// The record's formation identity.
    pub origin: RecordOrigin,
    /// The explained trace (absent when no recall was recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<ExplainedTrace>,
    /// The trace's budgets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budgets: Option<JsonMap>,
    /// The trace's budget spent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_spent: Option<JsonMap>,
    /// Activation: never journaled per candidate, so always not recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activation: Option<Recorded>,
    /// The record's part.
    pub status: RecallStatus,
    /// Why there is nothing to explain (`no_recall_recorded`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The admission label (selected).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admission: Option<Value>,
    /// The drop reason (dropped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The drop score (dropped, when recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<Value>,
    /// The recorded relevance parts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relevance: Option<Recorded>,
    /// The shelf place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shelf: Option<ShelfPlace>,
    /// The structural diagnosis (absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<AbsentDiagnosis>,
}

fn origin_of(store: &dyn TripleStore, ids: &HashSet<String>) -> Result<RecordOrigin> {
    let mut sorted: Vec<&String> = ids.iter().collect();
    sorted.sort();
    for id in sorted {
        if let Some(a) = resolve_digest_assertion(store, id)? {
            let prov = |k: &str| {
                a.provenance
                    .get(k)
                    .filter(|v| truthy(Some(v)))
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            };
            return Ok(RecordOrigin::Formed {
                formed: true,
                graph_id: a.subject.clone(),
                kind: DigestRow::of(&a)
                    .kind_text()
                    .unwrap_or(DEFAULT_KIND)
                    .to_owned(),
                title: DigestRow::of(&a).served_title(),
                formed_at: a.observed_at.clone(),
                source: prov("source").unwrap_or_default(),
                actor: prov("actor").unwrap_or_default(),
                session_id: prov("session_id")
                    .or_else(|| prov("run_id"))
                    .or_else(|| prov("turn_id"))
                    .unwrap_or_default(),
            });
        }
    }
    Ok(RecordOrigin::Unformed {
        formed: false,
        note: "no row in this store has this id in either namespace".to_owned(),
    })
}

/// "Why did or didn't `record_id` surface in this recall?": the named trace
/// (or the newest), the record's recorded part in it, the relevance parts it
/// recorded, its shelf place, the budgets, its origin, and, when absent, the
/// structural diagnosis per searched pair (skipped for a record formed after
/// the recall). Activation was never journaled per candidate: it reads
/// `{"recorded": false}`, never a fresh number.
///
/// # Errors
/// `InvalidInput` for a blank id; `NotFound` for a named trace that does not
/// exist (explaining a recall that never ran would be invention); the
/// store's or journal's failure.
pub fn explain_recall(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    record_id: &str,
    trace_id: Option<&str>,
) -> Result<RecallExplanation> {
    let rid = required_id("explain_recall", record_id)?;
    let ids = identity_set(Some(store), &rid)?;
    let trace = match trace_id {
        Some(t) => {
            let wanted = t.trim();
            let found = journal.traces(&TraceFilter {
                trace_id: Some(wanted.to_owned()),
                until_seq: None,
                limit: 1,
            })?;
            Some(found.into_iter().next().ok_or_else(|| {
                Error::not_found(format!(
                    "explain_recall: the journal holds no trace {wanted:?}; only a recall that ran can be explained"
                ))
            })?)
        }
        None => journal.traces(&TraceFilter::default())?.into_iter().next(),
    };
    let origin = origin_of(store, &ids)?;
    let mut out = RecallExplanation {
        record_id: rid.clone(),
        origin,
        trace: None,
        budgets: None,
        budget_spent: None,
        activation: None,
        status: RecallStatus::NoRecallRecorded,
        note: None,
        admission: None,
        reason: None,
        score: None,
        relevance: None,
        shelf: None,
        diagnosis: None,
    };
    let Some(trace) = trace else {
        out.note = Some("no reconstruction or probe trace is journaled: no recall has run".into());
        return Ok(out);
    };
    let searched: Vec<(String, String)> = trace
        .searched_scopes
        .iter()
        .filter_map(|s| {
            let scope = s.get("scope").and_then(Value::as_str).unwrap_or_default();
            (!scope.trim().is_empty()).then(|| {
                (
                    scope.to_owned(),
                    s.get("owner_id")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                )
            })
        })
        .collect();
    out.trace = Some(ExplainedTrace {
        trace_id: trace.trace_id.clone(),
        seq: trace.seq,
        observed_at: trace.observed_at.clone(),
        trace_kind: trace.trace_kind.clone(),
        channels: trace.channels.clone(),
        searched_scopes: searched
            .iter()
            .map(crate::recall::reconstruct::trace::searched_scope)
            .collect(),
        stop_reason: trace.stop_reason.clone(),
        warnings: trace.warnings.clone(),
    });
    out.budgets = Some(trace.budgets.clone());
    out.budget_spent = Some(trace.budget_spent.clone());
    out.activation = Some(Recorded {
        recorded: false,
        parts: None,
        note: Some(
            "not in this trace: a trace keeps per-channel relevance and drop reasons; activation \
             shaped the order at recall time but is not journaled per candidate"
                .into(),
        ),
    });
    let part = trace_part(&trace, &ids);
    let Some(status) = part.status else {
        out.status = RecallStatus::Absent;
        let mut notes = Vec::new();
        let mut formed_after = false;
        if let RecordOrigin::Formed { formed_at, .. } = &out.origin
            && !formed_at.is_empty()
            && !trace.observed_at.is_empty()
            && formed_at.as_str() > trace.observed_at.as_str()
        {
            formed_after = true;
            notes.push(format!(
                "it was formed after this recall ran (formed {formed_at}, recall {}): no recall \
                 surfaces a memory that did not exist yet, so no structural diagnosis applies",
                trace.observed_at
            ));
        }
        if searched.is_empty() {
            notes.push("this trace records no searched pair to diagnose against".into());
        }
        let mut by_scope = Vec::new();
        if !formed_after {
            for (scope, owner) in &searched {
                let d = absence_diagnosis(store, journal, &rid, (scope, owner))?;
                by_scope.push(PairDiagnosis {
                    scope: scope.clone(),
                    owner_id: owner.clone(),
                    reasons: d.reasons,
                    channels_reachable: d.channels_reachable,
                });
            }
        }
        out.diagnosis = Some(AbsentDiagnosis {
            note: notes,
            by_scope,
        });
        return Ok(out);
    };
    out.status = status;
    out.admission = part.admission;
    if status == RecallStatus::Dropped {
        out.reason = Some(part.reason.unwrap_or_default());
        out.score = part.score;
    }
    out.relevance = Some(match &part.scores {
        Some(parts) if !parts.is_empty() => Recorded {
            recorded: true,
            parts: Some(parts.clone()),
            note: None,
        },
        Some(_) => Recorded {
            recorded: false,
            parts: None,
            note: Some(
                "the trace kept it in its candidate list with no per-channel parts (an expand \
                 trace records none): nothing to serve"
                    .into(),
            ),
        },
        None => Recorded {
            recorded: false,
            parts: None,
            note: Some(format!(
                "not in the trace's bounded candidate list (the {} strongest are kept): it came \
                 through a reserved lane (self or short-term) or ranked below the bound",
                trace.candidates.len()
            )),
        },
    });
    let position = trace
        .selected
        .iter()
        .position(|s| ids.contains(s))
        .map(|p| p + 1);
    out.shelf = Some(ShelfPlace {
        selected_count: trace.selected.len(),
        position,
        candidate_rank: part.candidate_rank,
        candidate_cap: part.candidate_rank.map(|_| trace.candidates.len()),
        rank_note: part.candidate_rank.map(|_| {
            "its place in the trace's bounded candidate list, strongest fused score first; not a \
             replay of the shelf fill (the self and short-term lanes fill by state)"
                .to_owned()
        }),
    });
    Ok(out)
}

// -- origin_diversity ----------------------------------------------------------

/// The arguments of [`origin_diversity`]: `origin_diversity(handles, *,
/// labels=None, min_counted=3, dominance_floor=0.6)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OriginDiversity {
    /// The rendered shelf, in presentation order.
    pub handles: Vec<MemoryHandle>,
    /// The host's labels: `"source|actor"` or `"source"` → label.
    #[serde(default)]
    pub labels: Option<BTreeMap<String, String>>,
    /// Abstain below this many counted (non-self) handles (≥ 1).
    #[serde(default = "default_min_counted")]
    pub min_counted: NonZeroUsize,
    /// The share naming one voice, in `(0, 1]`.
    #[serde(default = "default_floor")]
    pub dominance_floor: f64,
}

impl OriginDiversity {
    /// The fold of `handles` with the default thresholds.
    pub fn new(handles: Vec<MemoryHandle>) -> Self {
        OriginDiversity {
            handles,
            labels: None,
            min_counted: ORIGIN_MIN_COUNTED,
            dominance_floor: ORIGIN_DOMINANCE_FLOOR,
        }
    }
}

/// The dominant voice of a shelf.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DominantVoice {
    /// `provenance.source` as engraved (or `kind:<kind>` when none).
    pub source: String,
    /// `provenance.actor` (`""` when none).
    pub actor: String,
    /// The host's label, else the raw source (a kind voice: the kind).
    pub label: String,
    /// Handles of this voice.
    pub count: usize,
    /// `count / counted`, rounded to 4 places.
    pub share: f64,
    /// Distinct sessions inside the voice.
    pub sessions: usize,
}

/// The answer of [`origin_diversity`].
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OriginDiversityReport {
    /// Handles measured (non-self).
    pub counted: usize,
    /// Identity handles (admission `self`) left out.
    pub excluded_self: usize,
    /// Distinct `(source, actor)` voices.
    pub voices: usize,
    /// The dominant voice (ties: the first seen).
    pub dominant: DominantVoice,
    /// One sentence a host may render.
    pub note: String,
}

fn nonblank(m: &JsonMap, k: &str) -> String {
    match m.get(k) {
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(Value::Null) | None => String::new(),
        Some(v) if !truthy(Some(v)) => String::new(),
        Some(v) => v.to_string(),
    }
}

/// Fold a rendered shelf into its voices (`(provenance source, actor)` of
/// each handle's assertion provenance; a handle without a source speaks as
/// `kind:<kind>`); identity handles (admission `self`) are left out.
/// `Ok(None)` = abstain: fewer than `min_counted` handles counted.
/// Presentation only: nothing here changes ordering, admission or budgets.
///
/// # Errors
/// `InvalidInput` for a `dominance_floor` outside `(0, 1]` (`min_counted` is
/// positive by its type: a 0 is refused where the arguments are read).
pub fn origin_diversity(args: &OriginDiversity) -> Result<Option<OriginDiversityReport>> {
    let floor = args.dominance_floor;
    if !(floor > 0.0 && floor <= 1.0) {
        return Err(Error::invalid(format!(
            "dominance_floor must be within (0, 1], got {floor}"
        )));
    }
    let mut excluded_self = 0;
    let mut folds: Vec<((String, String), usize, HashSet<String>)> = Vec::new();
    for h in &args.handles {
        if h.admission == Admission::SelfCore {
            excluded_self += 1;
            continue;
        }
        let ap = match h.provenance.get("assertion_provenance") {
            Some(Value::Object(m)) => m.clone(),
            _ => JsonMap::new(),
        };
        let mut source = nonblank(&ap, "source");
        let actor = nonblank(&ap, "actor");
        if source.is_empty() {
            let kind = h.kind.trim();
            source = format!("kind:{}", if kind.is_empty() { DEFAULT_KIND } else { kind });
        }
        let session = [
            nonblank(&ap, "session_id"),
            nonblank(&ap, "run_id"),
            nonblank(&ap, "turn_id"),
        ]
        .into_iter()
        .find(|s| !s.is_empty())
        .unwrap_or_default();
        let key = (source, actor);
        let cell = match folds.iter().position(|(k, _, _)| *k == key) {
            Some(i) => &mut folds[i],
            None => {
                folds.push((key, 0, HashSet::new()));
                folds.last_mut().expect("just pushed")
            }
        };
        cell.1 += 1;
        if !session.is_empty() {
            cell.2.insert(session);
        }
    }
    let counted: usize = folds.iter().map(|f| f.1).sum();
    if counted < args.min_counted.get() {
        return Ok(None);
    }
    let mut dom = 0;
    for (i, f) in folds.iter().enumerate() {
        if f.1 > folds[dom].1 {
            dom = i;
        }
    }
    let ((source, actor), count, sessions) = folds[dom].clone();
    let sessions = sessions.len();
    let share = count as f64 / counted as f64;
    let label = voice_label(&source, &actor, args.labels.as_ref());
    let voices = folds.len();
    let note = if share >= floor && voices > 1 {
        let across = if sessions > 1 {
            format!(" over {sessions} sessions")
        } else {
            String::new()
        };
        format!(
            "{count} of these {counted} memories share one voice ({label}{across}): repetition \
             is not corroboration."
        )
    } else if voices == 1 {
        let across = if sessions > 1 {
            format!(" over {sessions} sessions")
        } else {
            String::new()
        };
        format!(
            "all {counted} memories share one voice ({label}){across}: one origin told again, \
             not {counted} witnesses."
        )
    } else {
        format!("{counted} memories from {voices} voices: no single origin dominates.")
    };
    Ok(Some(OriginDiversityReport {
        counted,
        excluded_self,
        voices,
        dominant: DominantVoice {
            source,
            actor,
            label,
            count,
            share: (share * 10_000.0).round() / 10_000.0,
            sessions,
        },
        note,
    }))
}

fn voice_label(source: &str, actor: &str, labels: Option<&BTreeMap<String, String>>) -> String {
    if let Some(labels) = labels {
        for key in [format!("{source}|{actor}"), source.to_owned()] {
            if let Some(l) = labels.get(&key).map(|l| l.trim()).filter(|l| !l.is_empty()) {
                return l.to_owned();
            }
        }
    }
    if let Some(kind) = source.strip_prefix("kind:") {
        return if kind.is_empty() { DEFAULT_KIND } else { kind }.to_owned();
    }
    if source.is_empty() {
        "unlabeled origin".to_owned()
    } else {
        source.to_owned()
    }
}

// -- stable_render_order -------------------------------------------------------

/// Reorder ranked shelf handles (position = rank) into formation order
/// (`(provenance.observed_at, record_id)`), each paired with its 1-based rank
/// in the input: records that persist across turns keep their places and new
/// ones join at the tail, so a rendered prefix stays reusable. Every handle
/// comes back exactly once; the selection is untouched.
pub fn stable_render_order(handles: &[MemoryHandle]) -> Vec<(&MemoryHandle, usize)> {
    let mut ranked: Vec<(&MemoryHandle, usize)> = handles
        .iter()
        .enumerate()
        .map(|(i, h)| (h, i + 1))
        .collect();
    ranked.sort_by(|(a, _), (b, _)| {
        let key = |h: &MemoryHandle| {
            (
                h.provenance
                    .get("observed_at")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                h.record_id.clone(),
            )
        };
        key(a).cmp(&key(b))
    });
    ranked
}

// -- recent_records ------------------------------------------------------------

/// The arguments of [`recent_records`]: `recent_records(store, journal, *,
/// scopes, since, until=None, kinds=None, limit=24, as_of=None)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecentRecords {
    /// `(scope, owner_id)` pairs (JSON `[[scope, owner_id], ...]`).
    pub scopes: Vec<(String, String)>,
    /// The window's start (required: a trail, not a dump).
    pub since: Timestamp,
    /// The window's end (inclusive).
    #[serde(default)]
    pub until: Option<Timestamp>,
    /// Record kinds to keep (empty or none = all).
    #[serde(default)]
    pub kinds: Option<Vec<String>>,
    /// The page (positive by its type).
    #[serde(default = "default_recent_limit")]
    pub limit: NonZeroUsize,
    /// The seq the folds are anchored at (`None` = the head).
    #[serde(default)]
    pub as_of: Option<i64>,
}

impl RecentRecords {
    /// Records of `scopes` observed at or after `since`, default page.
    pub fn new(scopes: &[(&str, &str)], since: Timestamp) -> Self {
        RecentRecords {
            scopes: scopes
                .iter()
                .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
                .collect(),
            since,
            until: None,
            kinds: None,
            limit: RECENT_RECORDS_DEFAULT_LIMIT,
            as_of: None,
        }
    }
}

/// One formed record of [`recent_records`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RecentRecord {
    /// The digest row id.
    pub record_id: String,
    /// The graph id.
    pub graph_id: String,
    /// The record kind.
    pub kind: String,
    /// The title (`None` while pending: `pending` names it).
    pub title: Option<String>,
    /// The fields still pending, when any (never a placeholder title).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
    /// The digest.
    pub digest: String,
    /// When it was observed.
    pub observed_at: String,
    /// Its scope.
    pub scope: String,
    /// Its owner.
    pub owner_id: String,
    /// The book's entry id (a diary projection).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
    /// The diary type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diary_type: Option<String>,
    /// The phase the record carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
}

/// The window [`recent_records`] read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RecentWindow {
    /// Its start.
    pub since: String,
    /// Its end.
    pub until: Option<String>,
    /// The seq the folds were anchored at.
    pub as_of_seq: i64,
    /// The pairs read.
    pub scopes: Vec<(String, String)>,
}

/// The answer of [`recent_records`].
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RecentRecordsReport {
    /// Newest first (ties: the larger record id first).
    pub records: Vec<RecentRecord>,
    /// Records per kind, in the page.
    pub counts: OrderedMap<usize>,
    /// The window read.
    pub window: RecentWindow,
    /// More records are in the window than the page shows.
    pub truncated: bool,
}

/// Formed records across `scopes` observed in the window, newest first,
/// with the closure and hidden-binding folds (anchored at `as_of`) applied and
/// machine rows (bookkeeping, edges, maintenance candidates) left out. Pure.
///
/// # Errors
/// `InvalidInput` for no scope pair or an invalid anchor (a bound that is not
/// a timestamp, or a `limit` of 0, is refused where the arguments are read); the store's or journal's failure.
pub fn recent_records(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &RecentRecords,
) -> Result<RecentRecordsReport> {
    let since = args.since.canonical();
    let until = args.until.map(Timestamp::canonical);
    let pairs: Vec<(String, String)> = args
        .scopes
        .iter()
        .filter(|(s, _)| !s.trim().is_empty())
        .map(|(s, o)| (s.trim().to_lowercase(), o.trim().to_owned()))
        .collect();
    if pairs.is_empty() {
        return Err(Error::invalid(
            "recent_records requires at least one (scope, owner_id) pair, got none",
        ));
    }
    let kinds: HashSet<String> = args
        .kinds
        .iter()
        .flatten()
        .map(|k| k.trim().to_lowercase())
        .filter(|k| !k.is_empty())
        .collect();
    let seq = match args.as_of {
        Some(s) => {
            am_journal::journal::check_anchor("as_of", Some(s), journal.current_seq()?)?;
            s
        }
        None => journal.current_seq()?,
    };
    let ex = Exclusions::load_exclusions(store, journal, &pairs, seq)?;
    let excluded_len = ex.closed.union(&ex.hidden).count();
    let limit = args.limit.get();
    let fetch = limit + excluded_len.min(200) + 1;
    let mut rows = Vec::new();
    for (scope, owner) in &pairs {
        for a in store.query(&TripleQuery {
            scope: Some(scope.clone()),
            owner_id: (!owner.is_empty()).then(|| owner.clone()),
            predicate: Some(DIGEST_PREDICATE.to_owned()),
            since: Some(since.clone()),
            until: until.clone(),
            limit: i64::try_from(fetch).unwrap_or(i64::MAX),
            ..TripleQuery::default()
        })? {
            if let Some(r) = recent_row(&a, &ex, &kinds) {
                rows.push(r);
            }
        }
    }
    rows.sort_by(|a, b| (&b.observed_at, &b.record_id).cmp(&(&a.observed_at, &a.record_id)));
    let truncated = rows.len() > limit;
    rows.truncate(limit);
    let mut counts: OrderedMap<usize> = OrderedMap::new();
    for r in &rows {
        match counts.0.iter_mut().find(|(k, _)| *k == r.kind) {
            Some((_, n)) => *n += 1,
            None => counts.0.push((r.kind.clone(), 1)),
        }
    }
    Ok(RecentRecordsReport {
        records: rows,
        counts,
        window: RecentWindow {
            since,
            until,
            as_of_seq: seq,
            scopes: pairs,
        },
        truncated,
    })
}

fn recent_row(
    a: &TripleAssertion,
    ex: &Exclusions,
    kinds: &HashSet<String>,
) -> Option<RecentRecord> {
    let rid = a.assertion_id.as_deref().filter(|r| !r.is_empty())?;
    let row = DigestRow::of(a);
    let kind = row.kind_text()?.to_lowercase();
    if ex.excludes(rid) || ex.excludes(&a.subject) {
        return None;
    }
    if ["bookkeeping", "record_edge", "maintenance_candidate"]
        .iter()
        .any(|k| row.flag(k))
    {
        return None;
    }
    if !kinds.is_empty() && !kinds.contains(&kind) {
        return None;
    }
    let key = |k: &str| row.text(k).map(str::to_owned);
    Some(RecentRecord {
        record_id: rid.to_owned(),
        graph_id: a.subject.clone(),
        kind,
        title: row.served_title(),
        pending: row.pending(),
        digest: handle_digest(a),
        observed_at: a.observed_at.clone(),
        scope: a.scope.clone(),
        owner_id: a.owner_id.clone().unwrap_or_default(),
        entry_id: row.entry_id().map(str::to_owned),
        diary_type: key("diary_type"),
        phase: key("phase"),
    })
}

// -- the facade ----------------------------------------------------------------

impl MemorySystem {
    /// [`recall_history`] over this system's journal, both id namespaces
    /// matched (with `args.scope`, the [`absence_diagnosis`] in that pair).
    ///
    /// # Errors
    /// As [`recall_history`].
    pub fn recall_history(&self, args: &RecallHistory) -> Result<RecallHistoryReport> {
        recall_history(self.journal().as_ref(), Some(self.store().as_ref()), args)
    }

    /// [`explain_recall`] over this system's store and journal.
    ///
    /// # Errors
    /// As [`explain_recall`].
    pub fn explain_recall(
        &self,
        record_id: &str,
        trace_id: Option<&str>,
    ) -> Result<RecallExplanation> {
        explain_recall(
            self.store().as_ref(),
            self.journal().as_ref(),
            record_id,
            trace_id,
        )
    }

    /// [`recent_records`] over this system's store and journal.
    ///
    /// # Errors
    /// As [`recent_records`].
    pub fn recent_records(&self, args: &RecentRecords) -> Result<RecentRecordsReport> {
        recent_records(self.store().as_ref(), self.journal().as_ref(), args)
    }
}
