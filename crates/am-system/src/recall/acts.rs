//! Bindings and closures on `MemorySystem`: `bind` (a visibility binding),
//! `close_assertions` and `close_record` (closures instead of deletes).
//!
//! Spec: api.md "Bindings and closures".

use crate::error::{Error, Result};
use crate::ids;
use crate::recall::args::{Bind, CloseAssertions, CloseRecord};
use crate::system::{MemorySystem, unknown_id};
use am_journal::{ClosureRecord, ScopeBinding};
use am_triples::JsonMap;
use am_triples::text::is_record_edge;

impl MemorySystem {
    // -- bindings and closures --------------------------------------------------

    /// Append one visibility binding (latest per `(record_id, scope, owner_id)`
    /// wins). The id may be either namespace and is stored as passed: a graph id
    /// binds the whole record (digest and edges), an assertion id that
    /// assertion. A supplied `binding_id` makes replays no-ops returning the original.
    ///
    /// # Errors
    /// `NotFound` for an id in neither namespace; the journal's
    /// refusal of an invalid binding (unknown state, `hidden` + `active`, ...).
    pub fn bind(&self, args: &Bind) -> Result<ScopeBinding> {
        self.resolve_assertion_id(&args.record_id)?;
        let binding = ScopeBinding {
            record_id: args.record_id.trim().to_owned(),
            scope: args.scope.clone(),
            owner_id: args.owner_id.clone(),
            search_state: args.search_state,
            prompt_state: args.prompt_state,
            lifecycle: args.lifecycle,
            source: args.source,
            reason: args.reason.clone(),
            observed_at: self.now()?,
            provenance: JsonMap::new(),
            binding_id: args.binding_id.clone().unwrap_or_default(),
            seq: -1,
        };
        self.journal.append_binding(&binding)
    }

    /// Append one closure per assertion (`retract` | `supersede` |
    /// `reinterpreted` | `merged`), all validated before any is appended and
    /// appended in one batch (`MemoryJournal::append_closures`: all or none).
    /// Returns the closure ids.
    ///
    /// # Errors
    /// `InvalidInput` for no ids, an unknown kind, an empty reason, a
    /// supersede or merge without replacements; `NotFound` for an id
    /// in neither namespace.
    pub fn close_assertions(&self, args: &CloseAssertions) -> Result<Vec<String>> {
        let CloseAssertions {
            assertion_ids,
            kind,
            reason,
            replacement_ids,
        } = args;
        if assertion_ids.iter().all(|s| s.trim().is_empty()) {
            return Err(Error::invalid(
                "close_assertions requires at least one assertion_id, got none",
            ));
        }
        let mut resolved: Vec<String> = Vec::new();
        for (_, aid) in self.resolve_assertion_ids(assertion_ids)? {
            if !resolved.contains(&aid) {
                resolved.push(aid);
            }
        }
        let observed_at = self.now()?;
        let records = resolved
            .iter()
            .map(|aid| {
                ClosureRecord {
                    assertion_id: aid.clone(),
                    kind: *kind,
                    reason: reason.to_owned(),
                    replacement_ids: replacement_ids.to_vec(),
                    observed_at: observed_at.clone(),
                    ..ClosureRecord::default()
                }
                .normalized()
            })
            .collect::<Result<Vec<_>>>()?;
        // One append (one transaction on SQLite): all the closures or none.
        Ok(self
            .journal
            .append_closures(&records)?
            .into_iter()
            .map(|c| c.closure_id)
            .collect())
    }

    /// Close a whole record (its digest and every edge assertion it owns) as one
    /// belief-revision act: one batch append of its closures
    /// (`MemoryJournal::append_closures`: all or none). Closure ids are `H(graph_id|kind|assertion_id|closure)[:32]`,
    /// so replays dedupe. Returns the closure ids, digest first.
    ///
    /// # Errors
    /// `NotFound` for an id in neither namespace; `InvalidInput`
    /// for an unknown kind, an empty reason, a supersede without replacements.
    pub fn close_record(&self, args: &CloseRecord) -> Result<Vec<String>> {
        let records = self.plan_close_record(args)?;
        // One append (one transaction on SQLite): all the closures or none.
        Ok(self
            .journal
            .append_closures(&records)?
            .into_iter()
            .map(|c| c.closure_id)
            .collect())
    }

    /// The closures `close_record` appends, planned and validated without
    /// writing (a sleep pass appends them inside its own transaction, beside
    /// the record that replaces them): the digest's first, then each edge
    /// assertion the record owns, with deterministic closure ids.
    ///
    /// # Errors
    /// As [`MemorySystem::close_record`].
    pub(crate) fn plan_close_record(&self, args: &CloseRecord) -> Result<Vec<ClosureRecord>> {
        let CloseRecord {
            record_id,
            kind,
            reason,
            replacement_ids,
        } = args;
        let rid = record_id.trim();
        let digest = self
            .resolve_digest_assertion(rid)?
            .filter(|d| d.assertion_id.is_some())
            .ok_or_else(|| unknown_id(rid))?;
        let graph_id = digest.subject.clone();
        let digest_id = digest.assertion_id.clone().unwrap_or_default();
        let mut targets = vec![digest_id];
        for a in crate::recall::selection::subject_rows(
            self.store.as_ref(),
            &graph_id,
            &digest.scope,
            digest.owner_id.as_deref(),
            0,
        )? {
            if is_record_edge(&a)
                && let Some(id) = a.assertion_id
                && !targets.contains(&id)
            {
                targets.push(id);
            }
        }
        let observed_at = self.now()?;
        targets
            .iter()
            .map(|aid| {
                ClosureRecord {
                    assertion_id: aid.clone(),
                    kind: *kind,
                    reason: reason.to_owned(),
                    replacement_ids: replacement_ids.to_vec(),
                    observed_at: observed_at.clone(),
                    closure_id: ids::closure_id(&graph_id, *kind, aid),
                    ..ClosureRecord::default()
                }
                .normalized()
            })
            .collect::<Result<Vec<_>>>()
    }
}
