//! `probe_expand`: the second disclosure step, a bounded walk over record
//! edges from chosen records.
//!
//! Spec: api.md "Deliberate reach: probe, expansion, familiarity". 0.3.2's
//! `probe.probe_expand` settles what the text leaves open: the per-node edge
//! limit, the discovery cap (`max(4 × max_records, max_records + roots)`),
//! the order (more distinct connections first, then graph id), the cues
//! (`via P from X` / `cited by P from X`) and the trace (`trace_kind =
//! "expand"`, with inert `expanded` events).

use super::args::ProbeExpand;
use super::probe::{ProbeResult, audit_events, hit, require_reason, trace_identity};
use crate::config::ReconstructConfig;
use crate::error::{Error, Result};
use crate::kinds::DIGEST_PREDICATE;
use crate::lookup::resolve_digest_assertion;
use crate::recall::reconstruct::folds::in_pair;
use crate::recall::reconstruct::normalize_scopes;
use crate::recall::reconstruct::read::RecallRead;
use crate::recall::reconstruct::trace::searched_scope;
use crate::record::DigestRow;
use crate::seam::OrderedMap;
use crate::system::MemorySystem;
use am_journal::{EventKind, MemoryEvent, ReconstructionTrace};
use am_triples::text::handle_digest;
use am_triples::{JsonMap, TripleAssertion, TripleQuery, token_estimate};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};

impl MemorySystem {
    /// Bounded source expansion (api.md `probe_expand`): from the roots (row
    /// ids or graph ids, each resolved through both namespaces), a
    /// breadth-first walk over record edges in both directions (what a
    /// record points at, what points at it), `depth` levels, at most
    /// `edge_limit_per_node` edges per node and direction, closed and hidden
    /// rows left out, reached records kept to `scopes` (by default the roots'
    /// own pairs). Hits: more distinct connections first, then graph id,
    /// bounded by `max_records` and `token_budget` (the first always fits).
    /// Deposits nothing; with `write_journal` one trace (`trace_kind =
    /// "expand"`) and one inert `expanded` event per hit.
    ///
    /// # Errors
    /// `InvalidInput` (nothing written) for a blank reason, no roots, a
    /// root that resolves to no record, or `depth < 1`; the store's or
    /// journal's failure.
    pub fn probe_expand(&self, args: &ProbeExpand) -> Result<ProbeResult> {
        let (result, journaled) = self.plan_expand(args)?;
        if let Some((trace, events)) = journaled {
            let appended = self.journal.append_recall(&trace, &events)?;
            self.past_own_audit(result.as_of_seq, &appended);
        }
        Ok(result)
    }

    /// `probe_expand` planned: its answer and, with `write_journal`, the
    /// trace and the `expanded` events to append (the tending elections'
    /// `revisit` appends them in their one transaction). A read.
    pub(crate) fn plan_expand(
        &self,
        args: &ProbeExpand,
    ) -> Result<(ProbeResult, Option<JournaledExpansion>)> {
        let reason = require_reason("probe_expand", &args.reason)?;
        let raw: Vec<&str> = args
            .record_ids
            .iter()
            .map(|r| r.trim())
            .filter(|r| !r.is_empty())
            .collect();
        if raw.is_empty() {
            return Err(Error::invalid(
                "probe_expand requires at least one record id to expand from, got none",
            ));
        }
        if args.depth < 1 {
            return Err(Error::invalid(format!(
                "probe_expand depth must be >= 1, got {}",
                args.depth
            )));
        }
        let mut roots: Vec<String> = Vec::new();
        let mut root_pairs: Vec<(String, String)> = Vec::new();
        for rid in raw {
            let Some(digest) = resolve_digest_assertion(self.store.as_ref(), rid)? else {
                return Err(Error::invalid(format!(
                    "probe_expand: {rid:?} resolves to no record in either id namespace (row id or graph \
                     id); expansion roots must be formed records"
                )));
            };
            let gid = if digest.subject.is_empty() {
                rid.to_owned()
            } else {
                digest.subject.clone()
            };
            if !roots.contains(&gid) {
                roots.push(gid);
            }
            let pair = (
                digest.scope.clone(),
                digest.owner_id.clone().unwrap_or_default(),
            );
            if !root_pairs.contains(&pair) {
                root_pairs.push(pair);
            }
        }
        let pairs = if args.scopes.is_empty() {
            root_pairs
        } else {
            let borrowed: Vec<(&str, &str)> = args
                .scopes
                .iter()
                .map(|(s, o)| (s.as_str(), o.as_str()))
                .collect();
            normalize_scopes(&borrowed)
        };
        let as_of = self.journal.current_seq()?;
        let (tid, supplied) = trace_identity(args.trace_id.as_deref());
        let per_node = args.edge_limit_per_node.max(1);
        let discovery_cap = (args.max_records * 4).max(args.max_records + roots.len());
        let walked = self.with_recall_view(&pairs, as_of, |view| {
            let mut walk = Walk {
                seen: roots.iter().cloned().collect(),
                found: BTreeMap::new(),
                connections: BTreeMap::new(),
                edges_walked: 0,
            };
            let mut frontier: Vec<String> = roots.clone();
            for _ in 0..args.depth {
                let mut next: Vec<String> = Vec::new();
                frontier.sort();
                for rid in &frontier {
                    for outward in [true, false] {
                        let q = TripleQuery {
                            subject: outward.then(|| rid.clone()),
                            object: (!outward).then(|| rid.clone()),
                            limit: per_node as i64,
                            ..TripleQuery::default()
                        };
                        let rows = view.store.rows(&q)?;
                        view.folds.prime(&rows)?;
                        for a in rows {
                            if !DigestRow::of(&a).is_edge() || view.folds.excluded(&a)? {
                                continue;
                            }
                            let (other, cue) = if outward {
                                (a.object.clone(), format!("via {} from {rid}", a.predicate))
                            } else {
                                (
                                    a.subject.clone(),
                                    format!("cited by {} from {rid}", a.predicate),
                                )
                            };
                            if other.is_empty() {
                                continue;
                            }
                            walk.edges_walked += 1;
                            let bucket = walk.connections.entry(other.clone()).or_default();
                            if !bucket.contains(&cue) {
                                bucket.push(cue);
                            }
                            if !walk.seen.contains(&other) && walk.seen.len() < discovery_cap {
                                walk.seen.insert(other.clone());
                                next.push(other);
                            }
                        }
                    }
                }
                if next.is_empty() {
                    break;
                }
                for target in &next {
                    if walk.found.contains_key(target) || roots.contains(target) {
                        continue;
                    }
                    let rows = view.store.rows(&TripleQuery {
                        subject: Some(target.clone()),
                        predicate: Some(DIGEST_PREDICATE.to_owned()),
                        limit: 1,
                        ..TripleQuery::default()
                    })?;
                    let Some(row) = rows.into_iter().next() else {
                        continue;
                    };
                    view.folds.prime(std::iter::once(&row))?;
                    if view.folds.excluded(&row)? || !pairs.iter().any(|(s, o)| in_pair(&row, s, o))
                    {
                        continue;
                    }
                    walk.found.insert(target.clone(), row);
                }
                frontier = next;
            }
            Ok(walk)
        })?;
        let config = ReconstructConfig::default();
        let connections = |gid: &str| walked.connections.get(gid).map_or(0, Vec::len);
        let mut ordered: Vec<&String> = walked.found.keys().collect();
        ordered.sort_by(|a, b| connections(b).cmp(&connections(a)).then(a.cmp(b)));
        let mut hits = Vec::new();
        let mut dropped: Vec<JsonMap> = Vec::new();
        let mut tokens_used = 0usize;
        for gid in &ordered {
            let a = &walked.found[*gid];
            let row_id = a.assertion_id.clone().unwrap_or_else(|| (*gid).clone());
            let score = connections(gid) as f64;
            if hits.len() >= args.max_records {
                dropped.push(drop_entry(&row_id, gid, score, "over_max_records"));
                continue;
            }
            let digest = handle_digest(a);
            let cost = token_estimate(&digest);
            if tokens_used + cost > args.token_budget && !hits.is_empty() {
                dropped.push(drop_entry(&row_id, gid, score, "token_budget"));
                continue;
            }
            tokens_used += cost;
            hits.push(hit(
                row_id,
                a,
                digest,
                cost,
                &config,
                OrderedMap(vec![("connections".to_owned(), score)]),
                walked.connections.get(*gid).cloned().unwrap_or_default(),
            ));
        }
        let mut budget_spent = JsonMap::new();
        budget_spent.insert("roots".into(), json!(roots.len()));
        budget_spent.insert("depth".into(), json!(args.depth));
        budget_spent.insert("edges_walked".into(), json!(walked.edges_walked));
        budget_spent.insert("hits".into(), json!(hits.len()));
        budget_spent.insert("tokens_used".into(), json!(tokens_used));
        budget_spent.insert("token_budget".into(), json!(args.token_budget));
        let mut journaled = None;
        if args.write_journal {
            let mut sorted_pairs = pairs.clone();
            sorted_pairs.sort();
            let mut need = JsonMap::new();
            need.insert("expand_from".into(), json!(roots));
            need.insert("parent_trace_id".into(), json!(args.parent_trace_id));
            need.insert("probe_reason".into(), json!(reason));
            let mut budgets = JsonMap::new();
            budgets.insert("depth".into(), json!(args.depth));
            budgets.insert("max_records".into(), json!(args.max_records));
            budgets.insert("token_budget".into(), json!(args.token_budget));
            budgets.insert("edge_limit_per_node".into(), json!(per_node));
            budgets.insert("discovery_cap".into(), json!(discovery_cap));
            let now = self.now()?;
            let trace = ReconstructionTrace {
                trace_id: tid.clone(),
                trace_kind: "expand".into(),
                query_fingerprint: "expand".into(),
                need,
                searched_scopes: sorted_pairs.iter().map(searched_scope).collect(),
                escalation_reason: Some(reason.clone()),
                channels: vec!["expand".into()],
                candidates: ordered
                    .iter()
                    .take(64)
                    .map(|gid| {
                        let rid = walked.found[*gid]
                            .assertion_id
                            .clone()
                            .unwrap_or_else(|| (*gid).clone());
                        let mut m = JsonMap::new();
                        m.insert("record_id".into(), json!(rid));
                        m.insert("scores".into(), Value::Object(JsonMap::new()));
                        m
                    })
                    .collect(),
                selected: hits.iter().map(|h| h.record_id.clone()).collect(),
                dropped: dropped.clone(),
                cues: hits.iter().flat_map(|h| h.cues.iter().cloned()).collect(),
                budgets,
                budget_spent: budget_spent.clone(),
                stop_reason: if hits.is_empty() {
                    "no_candidates"
                } else {
                    "enough"
                }
                .into(),
                admissions: hits
                    .iter()
                    .map(|h| (h.record_id.clone(), json!("stimulus")))
                    .collect(),
                observed_at: now.clone(),
                ..ReconstructionTrace::default()
            };
            let mut prov = JsonMap::new();
            prov.insert("expand".into(), json!(true));
            prov.insert(
                "parent_trace_id".into(),
                json!(args.parent_trace_id.clone().unwrap_or_default()),
            );
            let events = audit_events(&hits, &tid, supplied, EventKind::Expanded, &prov, &now);
            journaled = Some((trace, events));
        }
        Ok((
            ProbeResult {
                trace_id: tid,
                as_of_seq: as_of,
                hits,
                dropped,
                channels: vec!["expand".into()],
                warnings: Vec::new(),
                budget_spent,
            },
            journaled,
        ))
    }
}

/// A journaled expansion's trace and its `expanded` events.
pub(crate) type JournaledExpansion = (ReconstructionTrace, Vec<MemoryEvent>);

/// What one walk reached.
struct Walk {
    seen: HashSet<String>,
    /// Graph id → its digest row.
    found: BTreeMap<String, TripleAssertion>,
    /// Graph id → the distinct edges that reached it.
    connections: BTreeMap<String, Vec<String>>,
    edges_walked: usize,
}

fn drop_entry(record_id: &str, graph_id: &str, score: f64, reason: &str) -> JsonMap {
    let mut m = JsonMap::new();
    m.insert("record_id".into(), json!(record_id));
    m.insert("graph_id".into(), json!(graph_id));
    m.insert("score".into(), json!(score));
    m.insert("reason".into(), json!(reason));
    m
}
