//! The graph's bounded reads: `history`, `sources_of` (transitive, labelled),
//! `names_ref`, `derived_from_source`, the change feed `revisions`, and
//! `replay_into`. Every read takes a `limit` checked by `check_read_limit`
//! (positive, clamped to `MAX_READ_LIMIT`) and is a keyed connector read.
//!
//! Spec: api.md "The memory graph: revisions and provenance" / `MemoryGraph`
//! (the reads).

use crate::backend::{MAX_BACKEND_LIMIT, RefMatch};
use crate::error::{Error, Result};
use crate::graph::{MemoryGraph, revision_from_row};
use crate::limits::{MAX_LINEAGE_VISITS, MAX_READ_LIMIT, check_read_limit};
use crate::revision::Revision;
use crate::source::{SourceKind, SourceRef};
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashSet, VecDeque};

/// A source as `sources_of(..., labelled = true)` reports it: the ref, whether it
/// came from the memory's own provenance or a revision's, the memory it was
/// recorded on (the memory itself or an ancestor), and the revision that
/// recorded it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LabelledSource {
    /// The ledger reference.
    #[serde(rename = "ref")]
    pub source: SourceRef,
    /// `memory` or `revision`.
    pub via: String,
    /// The memory whose provenance names it.
    pub memory_id: String,
    /// The revision that recorded it.
    pub revision_id: String,
}

/// One event of a memory's lifecycle as [`MemoryGraph::history`] reports it;
/// its serde JSON is the spec's dict `{event, at, revision_id, cause, detail}`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct HistoryEntry {
    /// `asserted`, `re-observed`, `closed` or `narrowed`
    /// ([`events`](crate::graph::events)).
    pub event: String,
    /// Record time of the revision that caused the event (canonical UTC).
    pub at: String,
    /// The revision that caused it.
    pub revision_id: String,
    /// That revision's cause (`ingest`, `correction`, ...).
    pub cause: String,
    /// The event's detail: open-ended per event (see [`MemoryGraph::history`]).
    pub detail: Value,
}

fn ref_match(r: &SourceRef) -> RefMatch {
    match (r.kind(), r.run_id()) {
        (SourceKind::Run, Some(run)) => RefMatch::Run(run.to_owned()),
        _ => RefMatch::Key(r.key()),
    }
}

impl MemoryGraph {
    /// The memory's lifecycle in record order, at most `limit` events
    /// ([`HistoryEntry`]: `{event: "asserted" | "re-observed" | "closed" |
    /// "narrowed", at, revision_id, cause, detail}`). `detail` holds the terms, window and sources of an
    /// assertion (`adopted` and `previous_provenance` for an adoption), the close
    /// payload with `closure_id`, `window_closed`, `previous_valid_until` and
    /// `row_valid_until`, or `valid_until`, `previous_valid_until` and `reason` of
    /// a narrow. Accepts an assertion id or a record's graph id (resolved to its
    /// digest assertion). An unknown id: `[]`.
    ///
    /// # Errors
    /// `InvalidInput` for a limit below 1; `Storage`.
    pub fn history(&self, memory_id: &str, limit: i64) -> Result<Vec<HistoryEntry>> {
        let limit = check_read_limit(limit)?;
        let Some(id) = self.backend().resolve(memory_id.trim())? else {
            return Ok(Vec::new());
        };
        Ok(self
            .backend()
            .history(&id, limit)?
            .into_iter()
            .map(|(h, cause)| HistoryEntry {
                event: h.event,
                at: h.at,
                revision_id: h.revision_id,
                cause,
                detail: h.detail,
            })
            .collect())
    }

    /// The memory's ledger sources: the refs of its own provenance and of every
    /// revision that asserted or re-observed it; with `transitive`, breadth-first
    /// through what it was derived from (deduplicated by key, at most
    /// `MAX_LINEAGE_VISITS` memories visited), at most `limit` refs.
    ///
    /// # Errors
    /// `InvalidInput` for a limit below 1; `Storage`.
    pub fn sources_of(
        &self,
        memory_id: &str,
        transitive: bool,
        limit: i64,
    ) -> Result<Vec<SourceRef>> {
        Ok(self
            .sources_of_labelled(memory_id, transitive, limit)?
            .into_iter()
            .map(|l| l.source)
            .collect())
    }

    /// [`MemoryGraph::sources_of`] with each ref labelled (`labelled = true`).
    ///
    /// # Errors
    /// As [`MemoryGraph::sources_of`].
    pub fn sources_of_labelled(
        &self,
        memory_id: &str,
        transitive: bool,
        limit: i64,
    ) -> Result<Vec<LabelledSource>> {
        let limit = check_read_limit(limit)?;
        let Some(start) = self.backend().resolve(memory_id.trim())? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        let mut keys = HashSet::new();
        let mut visited = HashSet::new();
        let mut queue = VecDeque::from([start]);
        while let Some(m) = queue.pop_front() {
            if out.len() >= limit || visited.len() >= MAX_LINEAGE_VISITS {
                break;
            }
            if !visited.insert(m.clone()) {
                continue;
            }
            for row in self.backend().sources(&m, MAX_BACKEND_LIMIT)? {
                if out.len() >= limit {
                    break;
                }
                if !keys.insert(row.ref_key.clone()) {
                    continue;
                }
                out.push(LabelledSource {
                    source: SourceRef::from_dict(&row.ref_json)?,
                    via: row.via,
                    memory_id: row.memory_id,
                    revision_id: row.revision_id,
                });
            }
            if transitive {
                for p in self.backend().parents(&m, MAX_BACKEND_LIMIT)? {
                    if !visited.contains(&p) {
                        queue.push_back(p);
                    }
                }
            }
        }
        Ok(out)
    }

    /// The owner gate in one covering-index probe: does a memory owned by one of
    /// `owner_ids` name `source` (a `run` ref by its `run_id`)? `None` or `""` is
    /// the no-owner partition; no owners is `false`.
    ///
    /// # Errors
    /// `InvalidInput` for more than `MAX_READ_LIMIT` owners; `Storage`.
    pub fn names_ref(&self, source: &SourceRef, owner_ids: &[Option<&str>]) -> Result<bool> {
        if owner_ids.len() > MAX_READ_LIMIT {
            return Err(Error::invalid(format!(
                "names_ref takes at most {MAX_READ_LIMIT} owner ids, got {}",
                owner_ids.len()
            )));
        }
        if owner_ids.is_empty() {
            return Ok(false);
        }
        let owners: Vec<String> = owner_ids
            .iter()
            .map(|o| o.map(str::trim).unwrap_or_default().to_owned())
            .collect();
        self.backend().names_ref(&ref_match(source), &owners)
    }

    /// Memory ids grounded in `source`: those that name it, then everything
    /// derived from them (breadth-first), each once, at most `limit`. A `run` ref
    /// matches every ref stamped with that run (its own `run` ref and the steps,
    /// artifacts, messages and diary entries carrying its `run_id`).
    ///
    /// # Errors
    /// `InvalidInput` for a limit below 1; `Storage`.
    pub fn derived_from_source(&self, source: &SourceRef, limit: i64) -> Result<Vec<String>> {
        let limit = check_read_limit(limit)?;
        let direct = self.backend().with_ref(&ref_match(source), limit)?;
        let mut seen: HashSet<String> = direct.iter().cloned().collect();
        let mut out = direct.clone();
        let mut queue: VecDeque<String> = direct.into();
        let mut visits = 0usize;
        while let Some(m) = queue.pop_front() {
            if out.len() >= limit || visits >= MAX_LINEAGE_VISITS {
                break;
            }
            visits += 1;
            for c in self.backend().children(&m, limit)? {
                if out.len() >= limit {
                    break;
                }
                if seen.insert(c.clone()) {
                    out.push(c.clone());
                    queue.push_back(c);
                }
            }
        }
        out.truncate(limit);
        Ok(out)
    }

    /// The change feed: logged revisions strictly after `after` (a cursor
    /// returned by an earlier call; `None` is the start), in log order, at most
    /// `limit`; and the new cursor, `str(seq)` of the last revision returned
    /// (unchanged when nothing is new; `"0"` for an empty log read from the
    /// start). Lossless: positions are allocated inside serialized write
    /// transactions.
    ///
    /// # Errors
    /// `InvalidInput` for a limit below 1, a cursor that is not a non-negative
    /// integer, or one beyond the log's head (it would silently skip every
    /// revision below it); `Storage`.
    pub fn revisions(&self, after: Option<&str>, limit: i64) -> Result<(Vec<Revision>, String)> {
        let limit = check_read_limit(limit)?;
        let after_seq = match after {
            None => 0,
            Some(c) => {
                let t = c.trim();
                let n = if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                    t.parse::<i64>().ok()
                } else {
                    None
                };
                n.ok_or_else(|| {
                    Error::invalid(format!(
                        "cursor must be a revision seq returned by revisions() (a non-negative \
                         integer), got {c:?}"
                    ))
                })?
            }
        };
        let head = self.backend().log_head()?;
        if after_seq > head {
            return Err(Error::invalid(format!(
                "cursor {after_seq} lies beyond the log's head {head} (another graph's cursor, \
                 or invented: it would skip every revision below it)"
            )));
        }
        let rows = self.backend().revisions_page(after_seq, limit)?;
        let cursor = rows.last().map_or(after_seq, |r| r.seq).to_string();
        let revs = rows
            .iter()
            .map(|r| revision_from_row(r).map(|(rev, _)| rev))
            .collect::<Result<Vec<_>>>()?;
        Ok((revs, cursor))
    }

    /// Re-apply this graph's log, in order, into `target` (each with
    /// `replay = true`, so record times are kept, and with its logged adoptions);
    /// returns how many revisions it applied (ids already there are no-ops, so a
    /// replay resumes). Into an empty SQLite home this reproduces the original
    /// file's triples, keyword index, graph tables and closures.
    ///
    /// # Errors
    /// The target's refusals (nothing of the failing revision is written; the
    /// revisions before it stay applied).
    pub fn replay_into(&self, target: &MemoryGraph) -> Result<usize> {
        let mut after = 0i64;
        let mut applied = 0usize;
        loop {
            let rows = self.backend().revisions_page(after, MAX_BACKEND_LIMIT)?;
            let Some(last) = rows.last() else {
                break;
            };
            after = last.seq;
            for row in &rows {
                let (rev, adoptions) = revision_from_row(row)?;
                if target.apply_with_adoptions(&rev, true, &adoptions)?.applied {
                    applied += 1;
                }
            }
        }
        Ok(applied)
    }
}
