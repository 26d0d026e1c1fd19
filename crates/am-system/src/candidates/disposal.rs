//! The disposer: `confirm_relation`, `promote_candidate`,
//! `reject_candidate`, `enact_realization` and `dispose_dream`. Each plans
//! purely (every check before any write) and writes once, in one
//! transaction of the home.
//!
//! Spec: api.md "Candidates, disposal, and deliberate acts"; 0.3.2's
//! `disposal.py` settles the messages' mechanisms, the ids and the keys.

use crate::candidates::DISPOSAL_RELATIONS;
use crate::candidates::args::{
    ConfirmRelation, ConfirmedEdge, Disposal, DisposalRefusal, DisposeDream, DreamDisposed,
    DreamDisposition, EnactRealization, Enacted, Origin, PromoteCandidate, Promoted, Refused,
    RejectCandidate, Rejected,
};
use crate::error::{Error, Result};
use crate::ids::derived_hex;
use crate::kinds::RecordKind;
use crate::recall::args::CloseRecord;
use crate::record::DigestRow;
use crate::system::MemorySystem;
use am_journal::{
    BindingFilter, BindingSource, ClosureFilter, ClosureKind, ClosureRecord, EventKind, Lifecycle,
    MemoryEvent, PromptState, ScopeBinding, SearchState,
};
use am_triples::{CommitPoint, JsonMap, TripleAssertion, TripleQuery};
use serde_json::{Value, json};

/// A mandatory, non-blank reason (trimmed).
fn require_reason(reason: &str, verb: &str) -> Result<String> {
    let r = reason.trim();
    if r.is_empty() {
        return Err(Error::invalid(format!(
            "{verb} needs a non-blank reason: every disposal is an audited act"
        )));
    }
    Ok(r.to_owned())
}

/// A record's origin for the independence test: `(provenance.source,
/// provenance.actor, provenance.session_id or turn_id)`; absent parts are
/// `""`.
pub fn origin_of(a: &TripleAssertion) -> Origin {
    let text = |key: &str| -> String {
        match a.provenance.get(key) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(v) if !crate::lookup::truthy(Some(v)) => String::new(),
            Some(v) => v.to_string(),
        }
    };
    let session = match text("session_id") {
        s if s.is_empty() => text("turn_id"),
        s => s,
    };
    (text("source"), text("actor"), session)
}

/// Distinct origins across `rows`, first seen first: repetition is not
/// corroboration.
pub fn independent_origins(rows: &[TripleAssertion]) -> Vec<Origin> {
    let mut seen: Vec<Origin> = Vec::new();
    for a in rows {
        let o = origin_of(a);
        if !seen.contains(&o) {
            seen.push(o);
        }
    }
    seen
}

/// A planned confirmation: the edge row to add (none on a replay), the two
/// audit events, the result.
struct ConfirmPlan {
    row: Option<TripleAssertion>,
    events: Vec<MemoryEvent>,
    result: ConfirmedEdge,
}

impl MemorySystem {
    /// The digest row of a formed record from either id namespace, or
    /// `InvalidInput` naming it (0.3.2 raises `ValueError`).
    fn disposal_row(&self, id: &str, what: &str) -> Result<TripleAssertion> {
        self.resolve_digest_assertion(id)?
            .ok_or_else(|| Error::invalid(format!("{what}: no formed record {:?}", id.trim())))
    }

    fn plan_confirm(&self, args: &ConfirmRelation, reason: &str) -> Result<ConfirmPlan> {
        let rel = args.relation.trim();
        if !DISPOSAL_RELATIONS.contains(&rel) {
            return Err(Error::invalid(format!(
                "relation {rel:?} is not one confirm_relation may write ({}); a new predicate is \
                 declared in the semantics registry before it is ever written",
                DISPOSAL_RELATIONS.join(", ")
            )));
        }
        let src = self.disposal_row(&args.source_id, "confirm_relation source")?;
        let tgt = self.disposal_row(&args.target_id, "confirm_relation target")?;
        let evidence: Vec<String> = args
            .evidence_ids
            .iter()
            .map(|e| e.trim().to_owned())
            .filter(|e| !e.is_empty())
            .collect();
        if evidence.is_empty() {
            return Err(Error::invalid(
                "confirm_relation needs evidence_ids: waking evidence is what confirms, and a \
                 confirmation without it is still a proposal",
            ));
        }
        let proposed_by = args
            .proposed_by
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty());
        if let Some(p) = proposed_by
            && evidence.iter().any(|e| e == p)
        {
            return Err(Error::invalid(format!(
                "the proposing record {p:?} cannot be its own evidence: a dream is a hint, not a proof"
            )));
        }
        for e in &evidence {
            self.disposal_row(e, "confirm_relation evidence")?;
        }
        let actor = match args.actor.trim() {
            "" => "operator",
            a => a,
        };
        let edge_id = derived_hex(
            &format!("confirm|{}|{rel}|{}", src.subject, tgt.subject),
            32,
        );
        let exists = !self
            .store
            .query(&TripleQuery {
                assertion_ids: Some(vec![edge_id.clone()]),
                limit: 1,
                ..TripleQuery::default()
            })?
            .is_empty();
        let now = self.now()?;
        let row = (!exists).then(|| {
            let mut attributes = JsonMap::new();
            attributes.insert("record_edge".into(), json!(true));
            attributes.insert("confirmed".into(), json!(true));
            attributes.insert("confirmed_from".into(), json!(proposed_by));
            attributes.insert("evidence".into(), json!(evidence));
            attributes.insert("reason".into(), json!(reason));
            let mut provenance = JsonMap::new();
            provenance.insert("source".into(), json!("disposal"));
            provenance.insert("actor".into(), json!(actor));
            let mut a = TripleAssertion::new(&src.subject, rel, &tgt.subject)
                .with_scope(&src.scope)
                .with_observed_at(&now)
                .with_provenance(provenance)
                .with_attributes(attributes)
                .with_id(&edge_id);
            a.owner_id = src.owner_id.clone();
            a
        });
        let mut sorted = evidence.clone();
        sorted.sort();
        let evidence_hash = derived_hex(&serde_json::to_string(&sorted).unwrap_or_default(), 16);
        let events = [&src, &tgt]
            .iter()
            .map(|end| {
                let mut provenance = JsonMap::new();
                provenance.insert("confirmed_relation".into(), json!(rel));
                provenance.insert("edge_id".into(), json!(edge_id));
                provenance.insert("evidence".into(), json!(evidence));
                provenance.insert("proposed_by".into(), json!(proposed_by.unwrap_or("")));
                MemoryEvent {
                    kind: EventKind::Cited,
                    scope: end.scope.clone(),
                    owner_id: end.owner_id.clone().unwrap_or_default(),
                    record_id: Some(end.subject.clone()),
                    observed_at: now.clone(),
                    actor: actor.to_owned(),
                    reason: Some(reason.to_owned()),
                    provenance,
                    event_id: format!(
                        "confirm-{edge_id}-{evidence_hash}-{}",
                        derived_hex(&end.subject, 16)
                    ),
                    ..MemoryEvent::default()
                }
            })
            .collect();
        Ok(ConfirmPlan {
            row,
            events,
            result: ConfirmedEdge {
                edge_id: edge_id.clone(),
                created: !exists,
                evidence_recorded: true,
                source_id: src.subject.clone(),
                relation: rel.to_owned(),
                target_id: tgt.subject.clone(),
            },
        })
    }

    /// Turn a proposed association into a real typed edge between two formed
    /// records, on waking evidence. Idempotent by (source, relation,
    /// target): the edge id derives from them, so a replay finds the edge
    /// (`created: false`). Journals one inert `cited` audit event per
    /// endpoint (keyed by the edge and the evidence set, so a replay with
    /// the same evidence writes nothing more): confirming is judging, not
    /// using, and never moves activation. Edge and events are one
    /// transaction.
    ///
    /// # Errors
    /// `InvalidInput` for a blank reason, a relation outside
    /// `DISPOSAL_RELATIONS`, an endpoint or evidence record that is not
    /// formed, no evidence, the proposer as its own evidence; the home's
    /// failure.
    pub fn confirm_relation(&self, args: &ConfirmRelation) -> Result<ConfirmedEdge> {
        let reason = require_reason(&args.reason, "confirm_relation")?;
        let plan = self.plan_confirm(args, &reason)?;
        self.write_disposal(plan.row.as_slice(), &plan.events, &[], &[])?;
        Ok(plan.result)
    }

    /// Append rows, events, closures and bindings as one transaction.
    fn write_disposal(
        &self,
        rows: &[TripleAssertion],
        events: &[MemoryEvent],
        closures: &[ClosureRecord],
        bindings: &[ScopeBinding],
    ) -> Result<()> {
        let prepared = if rows.is_empty() {
            None
        } else {
            Some(self.home.prepare_rows(rows)?)
        };
        let point = if rows.is_empty() {
            CommitPoint::Journal
        } else {
            CommitPoint::StoreAdd
        };
        self.home.transaction(point, &mut |tx| {
            if let Some(p) = &prepared {
                tx.store().add(p)?;
            }
            if !bindings.is_empty() {
                tx.journal().append_bindings(bindings)?;
            }
            if !events.is_empty() {
                tx.journal().append_events(events)?;
            }
            if !closures.is_empty() {
                tx.journal().append_closures(closures)?;
            }
            Ok(())
        })?;
        Ok(())
    }

    /// The seq of the binding `binding_id` on `record_id` (just appended).
    fn binding_seq(&self, record_id: &str, binding_id: &str) -> Result<i64> {
        Ok(self
            .journal
            .bindings(&BindingFilter {
                record_id: Some(record_id.to_owned()),
                scope: None,
                owner_id: None,
                fold: false,
                until_seq: None,
            })?
            .into_iter()
            .rev()
            .find(|b| b.binding_id == binding_id)
            .map_or(-1, |b| b.seq))
    }

    /// Promote an inactive candidate, with the independence test: at least
    /// `min_origins` corroborating records whose origins (`origin_of`) are
    /// distinct from each other and from the candidate's own. Appends a
    /// `promoted` binding (indexed; the prompt state only changes when
    /// `prompt_state` says so). Fewer independent origins is a refusal
    /// naming the origins it counted, with nothing written.
    ///
    /// # Errors
    /// `InvalidInput` for a blank reason, `min_origins < 1`, a candidate or
    /// witness that is not formed, the candidate as its own witness, an
    /// unknown prompt state; the journal's failure.
    pub fn promote_candidate(&self, args: &PromoteCandidate) -> Result<Disposal<Promoted>> {
        let reason = require_reason(&args.reason, "promote_candidate")?;
        if args.min_origins < 1 {
            return Err(Error::invalid(format!(
                "min_origins must be at least 1, got {}: promotion is corroboration (bind \
                 directly for an unguarded operator binding)",
                args.min_origins
            )));
        }
        let prompt_state = match args
            .prompt_state
            .as_deref()
            .map(|p| p.trim().to_lowercase())
        {
            None => PromptState::Inactive,
            Some(p) => PromptState::parse(&p).map_err(|_| {
                Error::invalid(format!("prompt_state {p:?} is not active or inactive"))
            })?,
        };
        let candidate = self.disposal_row(&args.record_id, "promote_candidate")?;
        let mut witnesses: Vec<TripleAssertion> = Vec::new();
        for id in &args.corroborating_ids {
            let id = id.trim();
            if id.is_empty() {
                continue;
            }
            if id == candidate.subject {
                return Err(Error::invalid(
                    "promote_candidate: a candidate cannot corroborate itself",
                ));
            }
            witnesses.push(self.disposal_row(id, "promote_candidate witness")?);
        }
        let own = origin_of(&candidate);
        let independent = independent_origins(&witnesses)
            .into_iter()
            .filter(|o| *o != own)
            .count();
        let need = usize::try_from(args.min_origins).unwrap_or(usize::MAX);
        if independent < need {
            let mut r = Refused::new(
                DisposalRefusal::NotIndependent,
                format!(
                    "promotion refused: {independent} independent origin(s), {need} needed; \
                     witnesses sharing the candidate's origin (its own retellings) and repeated \
                     origins count once or not at all"
                ),
            );
            r.independent_origins = Some(independent);
            r.candidate_origin = Some(own);
            r.witness_origins = Some(witnesses.iter().map(origin_of).collect());
            return Ok(Disposal::Refused(r));
        }
        let scope = match args.scope.trim() {
            "" => candidate.scope.clone(),
            s => s.to_lowercase(),
        };
        let owner = match args.owner_id.trim() {
            "" => candidate.owner_id.clone().unwrap_or_default(),
            o => o.to_owned(),
        };
        let mut provenance = JsonMap::new();
        provenance.insert("actor".into(), json!(actor_or(&args.actor, "operator")));
        provenance.insert(
            "corroborating_ids".into(),
            json!(
                witnesses
                    .iter()
                    .map(|w| w.subject.clone())
                    .collect::<Vec<_>>()
            ),
        );
        provenance.insert("independent_origins".into(), json!(independent));
        let binding = ScopeBinding {
            record_id: candidate.subject.clone(),
            scope,
            owner_id: owner,
            search_state: SearchState::Indexed,
            prompt_state,
            lifecycle: Lifecycle::Promoted,
            source: BindingSource::Revision,
            reason: Some(reason),
            observed_at: self.now()?,
            provenance,
            binding_id: String::new(),
            seq: -1,
        };
        let written = self.journal.append_binding(&binding)?;
        Ok(Disposal::Done(Promoted {
            record_id: candidate.subject,
            lifecycle: "promoted".into(),
            binding_seq: written.seq,
            independent_origins: independent,
        }))
    }

    /// The honest no: a `rejected` binding with a mandatory reason. The
    /// record stays indexed unless `hide` (hiding is a separate, stated act).
    ///
    /// # Errors
    /// `InvalidInput` for a blank reason or a record that is not formed; the
    /// journal's failure.
    pub fn reject_candidate(&self, args: &RejectCandidate) -> Result<Rejected> {
        let reason = require_reason(&args.reason, "reject_candidate")?;
        let candidate = self.disposal_row(&args.record_id, "reject_candidate")?;
        let mut provenance = JsonMap::new();
        provenance.insert("actor".into(), json!(actor_or(&args.actor, "operator")));
        let binding = ScopeBinding {
            record_id: candidate.subject.clone(),
            scope: match args.scope.trim() {
                "" => candidate.scope.clone(),
                s => s.to_lowercase(),
            },
            owner_id: match args.owner_id.trim() {
                "" => candidate.owner_id.clone().unwrap_or_default(),
                o => o.to_owned(),
            },
            search_state: if args.hide {
                SearchState::Hidden
            } else {
                SearchState::Indexed
            },
            prompt_state: PromptState::Inactive,
            lifecycle: Lifecycle::Rejected,
            source: BindingSource::Revision,
            reason: Some(reason),
            observed_at: self.now()?,
            provenance,
            binding_id: String::new(),
            seq: -1,
        };
        let written = self.journal.append_binding(&binding)?;
        Ok(Rejected {
            record_id: candidate.subject,
            lifecycle: "rejected".into(),
            hidden: args.hide,
            binding_seq: written.seq,
        })
    }

    /// The entity's adoption of a held identity-amendment proposal (a
    /// `realization` record), after the entity formed its own record
    /// carrying the change: one `derived_from` edge from the enacting record
    /// to the proposal (idempotent by the pair; in the enacting record's
    /// scope) and a `promoted` binding on the proposal, in one transaction.
    /// A closed or rejected proposal is refused, nothing written.
    ///
    /// # Errors
    /// `InvalidInput` for a blank reason, a proposal that is not a formed
    /// realization, an enacting record that is not formed or is the
    /// proposal itself; the home's failure.
    pub fn enact_realization(&self, args: &EnactRealization) -> Result<Disposal<Enacted>> {
        let reason = require_reason(&args.reason, "enact_realization")?;
        let proposal = self.disposal_row(&args.realization_id, "enact_realization")?;
        let kind = DigestRow::of(&proposal).kind_text();
        if DigestRow::of(&proposal).kind() != Some(RecordKind::Realization) {
            return Err(Error::invalid(format!(
                "enact_realization: {:?} is of kind {:?}, not a realization (other candidates \
                 go through promote_candidate)",
                args.realization_id.trim(),
                kind.unwrap_or("")
            )));
        }
        let enacting = self.disposal_row(
            &args.supersession_record_id,
            "enact_realization enacting record (the entity forms it first)",
        )?;
        if enacting.subject == proposal.subject {
            return Err(Error::invalid(
                "a realization cannot enact itself: the adoption is a separate record in the \
                 entity's own words",
            ));
        }
        let closed = self
            .journal
            .closures(&ClosureFilter {
                assertion_id: None,
                until_seq: None,
                limit: 0,
            })?
            .into_iter()
            .any(|c| {
                c.assertion_id == proposal.subject
                    || proposal.assertion_id.as_deref() == Some(c.assertion_id.as_str())
            });
        if closed {
            return Ok(Disposal::Refused(Refused::new(
                DisposalRefusal::Closed,
                format!(
                    "enact_realization: proposal {} is retracted or superseded; if the \
                     realization still holds, form it anew in the entity's words",
                    proposal.subject
                ),
            )));
        }
        let prior = self
            .journal
            .bindings(&BindingFilter {
                record_id: Some(proposal.subject.clone()),
                scope: None,
                owner_id: None,
                fold: true,
                until_seq: None,
            })?
            .last()
            .map(|b| b.lifecycle);
        if prior == Some(Lifecycle::Rejected) {
            return Ok(Disposal::Refused(Refused::new(
                DisposalRefusal::Rejected,
                format!(
                    "enact_realization: proposal {} was rejected with a reason; a change of mind \
                     forms a new realization",
                    proposal.subject
                ),
            )));
        }
        let actor = actor_or(&args.actor, "entity-reflection");
        let enacted_at = self.now()?;
        let edge_id = derived_hex(
            &format!(
                "enact|{}|derived_from|{}",
                enacting.subject, proposal.subject
            ),
            32,
        );
        let exists = !self
            .store
            .query(&TripleQuery {
                assertion_ids: Some(vec![edge_id.clone()]),
                limit: 1,
                ..TripleQuery::default()
            })?
            .is_empty();
        let row = (!exists).then(|| {
            let mut provenance = JsonMap::new();
            provenance.insert("source".into(), json!("enactment"));
            provenance.insert("actor".into(), json!(actor));
            let mut attributes = JsonMap::new();
            attributes.insert("record_edge".into(), json!(true));
            attributes.insert("enacted_at".into(), json!(enacted_at));
            attributes.insert("reason".into(), json!(reason));
            let mut a = TripleAssertion::new(&enacting.subject, "derived_from", &proposal.subject)
                .with_scope(&enacting.scope)
                .with_observed_at(&enacted_at)
                .with_provenance(provenance)
                .with_attributes(attributes)
                .with_id(&edge_id);
            a.owner_id = enacting.owner_id.clone();
            a
        });
        let mut provenance = JsonMap::new();
        provenance.insert("actor".into(), json!(actor));
        provenance.insert("enacted_at".into(), json!(enacted_at));
        provenance.insert("enacted_by".into(), json!(enacting.subject));
        if let Some(p) = prior
            && !matches!(p, Lifecycle::None | Lifecycle::InactiveCandidate)
        {
            provenance.insert("prior_lifecycle".into(), json!(p.as_str()));
        }
        // Each enactment is its own act (0.3.2 appends a binding per call):
        // a fresh id, so its seq can be read back after the transaction.
        let binding_id = uuid::Uuid::new_v4().to_string();
        let binding = ScopeBinding {
            record_id: proposal.subject.clone(),
            scope: proposal.scope.clone(),
            owner_id: proposal.owner_id.clone().unwrap_or_default(),
            search_state: SearchState::Indexed,
            prompt_state: PromptState::Inactive,
            lifecycle: Lifecycle::Promoted,
            source: BindingSource::Revision,
            reason: Some(reason),
            observed_at: enacted_at.clone(),
            provenance,
            binding_id: binding_id.clone(),
            seq: -1,
        };
        self.write_disposal(row.as_slice(), &[], &[], std::slice::from_ref(&binding))?;
        let binding_seq = self.binding_seq(&proposal.subject, &binding_id)?;
        Ok(Disposal::Done(Enacted {
            realization_id: proposal.subject,
            lifecycle: "promoted".into(),
            enacted_by: enacting.subject,
            edge_id,
            edge_created: !exists,
            binding_seq,
            enacted_at,
        }))
    }

    /// One call for a dream's verdict. `confirmed`: `confirm_relation`
    /// (the dream as proposer) and the dream closed `supersede` with the
    /// edge's endpoints as replacements; `dissolved`: the dream closed
    /// `retract`. Edge, audit events and closures are one transaction
    /// (0.3.2 wrote them as two acts).
    ///
    /// # Errors
    /// `InvalidInput` for a blank reason or dream id, a record that is not a
    /// formed dream, a confirmation without relation, source and target, and
    /// every refusal of `confirm_relation`; the home's failure.
    pub fn dispose_dream(&self, args: &DisposeDream) -> Result<DreamDisposed> {
        let plan = self.plan_dispose_dream(args)?;
        self.write_disposal(&plan.rows, &plan.events, &plan.closures, &[])?;
        Ok(plan.result)
    }

    /// `dispose_dream`'s writes and answer, planned, nothing written (the
    /// tending elections write them in their one transaction).
    pub(crate) fn plan_dispose_dream(&self, args: &DisposeDream) -> Result<DisposePlan> {
        let reason = require_reason(&args.reason, "dispose_dream")?;
        if args.dream_id.trim().is_empty() {
            return Err(Error::invalid("dispose_dream needs the dream's record id"));
        }
        let dream = self.disposal_row(&args.dream_id, "dispose_dream")?;
        if DigestRow::of(&dream).kind() != Some(RecordKind::Dream) {
            return Err(Error::invalid(format!(
                "dispose_dream: {:?} is of kind {:?}, not a dream",
                args.dream_id.trim(),
                DigestRow::of(&dream).kind_text().unwrap_or("")
            )));
        }
        match args.disposition {
            DreamDisposition::Confirmed => {
                let (Some(relation), Some(source), Some(target)) = (
                    args.relation.as_deref().filter(|s| !s.trim().is_empty()),
                    args.source_id.as_deref().filter(|s| !s.trim().is_empty()),
                    args.target_id.as_deref().filter(|s| !s.trim().is_empty()),
                ) else {
                    return Err(Error::invalid(
                        "confirming a dream needs relation, source_id and target_id: the \
                         confirmed association is a real edge",
                    ));
                };
                let confirm = ConfirmRelation {
                    source_id: source.to_owned(),
                    relation: relation.to_owned(),
                    target_id: target.to_owned(),
                    evidence_ids: args.evidence_ids.clone(),
                    reason: reason.clone(),
                    proposed_by: Some(dream.subject.clone()),
                    actor: args.actor.clone(),
                };
                let plan = self.plan_confirm(&confirm, &reason)?;
                let closures = self.plan_close_record(&CloseRecord {
                    record_id: dream.subject.clone(),
                    kind: ClosureKind::Supersede,
                    reason: format!("dream confirmed: {reason}"),
                    replacement_ids: vec![
                        plan.result.source_id.clone(),
                        plan.result.target_id.clone(),
                    ],
                })?;
                Ok(DisposePlan {
                    result: DreamDisposed {
                        dream_id: dream.subject,
                        disposition: DreamDisposition::Confirmed,
                        edge: Some(plan.result),
                        closure_ids: closures.iter().map(|c| c.closure_id.clone()).collect(),
                    },
                    rows: plan.row.into_iter().collect(),
                    events: plan.events,
                    closures,
                })
            }
            DreamDisposition::Dissolved => {
                let closures = self.plan_close_record(&CloseRecord::new(
                    &dream.subject,
                    ClosureKind::Retract,
                    &format!("dream dissolved: {reason}"),
                ))?;
                Ok(DisposePlan {
                    result: DreamDisposed {
                        dream_id: dream.subject,
                        disposition: DreamDisposition::Dissolved,
                        edge: None,
                        closure_ids: closures.iter().map(|c| c.closure_id.clone()).collect(),
                    },
                    rows: Vec::new(),
                    events: Vec::new(),
                    closures,
                })
            }
        }
    }
}

/// A planned `dispose_dream`: its answer and what it writes.
pub(crate) struct DisposePlan {
    pub(crate) result: DreamDisposed,
    pub(crate) rows: Vec<TripleAssertion>,
    pub(crate) events: Vec<MemoryEvent>,
    pub(crate) closures: Vec<ClosureRecord>,
}

fn actor_or<'a>(actor: &'a str, default: &'a str) -> &'a str {
    match actor.trim() {
        "" => default,
        a => a,
    }
}
