//! `apply_tend_elections`: parsed tending elections applied through the
//! existing verbs, every election planned first, then one transaction of
//! the home for all their writes.
//!
//! Spec: api.md "Tending elections" (`apply_tend_elections(system,
//! elections, *, scope, owner_id, actor, channel=None, now=None,
//! self_pairs=(), revisit_depth=1, revisit_max_records=12,
//! revisit_token_budget=1600)`). 0.3.2's `tend.py` settles the mapping and
//! the gates: `pin` → `reinforce`, `silence` → `attenuate`, `refocus` →
//! `refocus`, `heal_scar` / `break_bond` (the target a marker's event id or
//! an appraised target with one standing marker), `revisit` → the seed's
//! digest (`payload`) and one `probe_expand` step, `dispose` →
//! `dispose_dream`. 0.5.2 adds `revise` → `seed_ripple` with the cause
//! `evidence` (the election and its evidence in the cause mapping), which
//! re-reads the seed at hop 0.
//!
//! How it works. Each election passes the gates (a known verb and a reason;
//! a record target resolved, not a diary entry or batch local, not an edge,
//! owned by the tending owner, not of the identity scope:
//! [`IDENTITY_SCOPE_PENDING_RULING`]) and is planned by the verb it maps
//! to (`plan_deliberate`, `plan_refocus`, `plan_heal_scar`,
//! `plan_break_bond`, `plan_expand`, `plan_dispose_dream`,
//! `plan_seed_ripple`: the same code those verbs run), writing nothing.
//! What a verb refuses (its `InvalidInput` or `NotFound`) is that
//! election's refusal, data beside the others; the batch never aborts.
//! Then every planned write lands in ONE transaction of the home: the
//! confirmed edges, the attention and audit events, the closures, the
//! valence resolutions, the revisit traces, the ripple rows and their
//! tasks. The ids derive from the batch (actor, pair, time, the election's
//! place and line), so with the same `now` a replay writes nothing twice.

use super::args::{DisposeDream, DreamDisposed, DreamDisposition};
use super::disposal::DisposePlan;
use super::tend::{IDENTITY_SCOPE_PENDING_RULING, TEND_VERBS, TendElection};
use crate::error::{Error, Result};
use crate::outcome::Warned;
use crate::reach::{ProbeExpand, ProbeHit};
use crate::recall::args::{Refocus, Reinforce};
use crate::record::DigestRow;
use crate::ripple::{Change, LeftOutMemory, SeedRipple, SeedWrite};
use crate::seam::PayloadTier;
use crate::system::MemorySystem;
use crate::valence::{BreakBond, HealScar};
use am_journal::{
    ClosureRecord, EventKind, MemoryEvent, ReconstructionTrace, ValenceEvent, ValenceKind,
};
use am_triples::{CommitPoint, ErrorKind, Timestamp, TripleAssertion};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::num::NonZeroUsize;

/// The one channel that may tend.
pub const REFLECTION_CHANNEL: &str = "entity-reflection";

/// Targets that can never be graph records: diary book entry ids and
/// formation-batch locals (0.3.2's spoof prefixes).
const SPOOF_PREFIXES: [&str; 3] = ["diary_", "diary:", "local:"];

fn one() -> NonZeroUsize {
    NonZeroUsize::MIN
}
fn twelve() -> usize {
    12
}
fn sixteen_hundred() -> usize {
    1600
}

/// `apply_tend_elections(system, elections, *, scope, owner_id, actor,
/// channel=None, now=None, self_pairs=(), revisit_depth=1,
/// revisit_max_records=12, revisit_token_budget=1600)`, and `dry_run`
/// (ours: plan every election, write nothing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyTendElections {
    /// The elections, as `parse_tend_block` returns them.
    pub elections: Vec<TendElection>,
    /// The batch's scope: `refocus` marks this stream, `heal_scar` and
    /// `break_bond` resolve in it (a record target acts in its own pair).
    pub scope: String,
    /// The tending owner: record targets must be theirs.
    pub owner_id: String,
    /// Who tends (required, never blank).
    pub actor: String,
    /// The channel the elections came through, stated by the caller:
    /// only `entity-reflection` may tend. Absent or any other channel
    /// refuses every election (the spec's `channel=None`: a caller that
    /// states no channel never tends as the entity's own reflection).
    #[serde(default)]
    pub channel: Option<String>,
    /// The batch's instant (report and events; default: the engine clock).
    /// With the same `now` a replay writes nothing twice.
    #[serde(default)]
    pub now: Option<Timestamp>,
    /// Pairs treated as identity scope besides any `self` scope.
    #[serde(default)]
    pub self_pairs: Vec<(String, String)>,
    /// `revisit`'s walk depth (at least 1).
    #[serde(default = "one")]
    pub revisit_depth: NonZeroUsize,
    /// `revisit`'s hits per election.
    #[serde(default = "twelve")]
    pub revisit_max_records: usize,
    /// `revisit`'s digest tokens per election.
    #[serde(default = "sixteen_hundred")]
    pub revisit_token_budget: usize,
    /// Plan every election and write nothing (ours; `am tend --dry-run`).
    #[serde(default)]
    pub dry_run: bool,
}

impl ApplyTendElections {
    /// Apply `elections` in `(scope, owner_id)` as `actor` through the
    /// `entity-reflection` channel, every other default.
    pub fn new(elections: Vec<TendElection>, scope: &str, owner_id: &str, actor: &str) -> Self {
        ApplyTendElections {
            elections,
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            actor: actor.to_owned(),
            channel: Some(REFLECTION_CHANNEL.to_owned()),
            now: None,
            self_pairs: Vec::new(),
            revisit_depth: one(),
            revisit_max_records: twelve(),
            revisit_token_budget: sixteen_hundred(),
            dry_run: false,
        }
    }
}

/// One event an election wrote (`pin`, `silence`, `refocus`, `heal_scar`,
/// `break_bond`), 0.3.2's keys.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TendEvent {
    /// The event's id.
    pub event_id: String,
    /// `pinned`, `silenced`, `refocus`, `heal_scar`, `break_bond`.
    pub kind: String,
    /// The stream it landed in (attention events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The stream's owner (attention events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_id: Option<String>,
    /// The scar a healing resolves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scar_event_id: Option<String>,
    /// The bond a break resolves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bond_event_id: Option<String>,
}

/// A `revisit` election's act.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RevisitAct {
    /// `revisit`.
    pub kind: String,
    /// The expansion's trace.
    pub trace_id: String,
    /// How many neighbours it reached.
    pub paths_found: usize,
}

/// A `revise` election's act: the ripple it seeded.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ReviseAct {
    /// `revise`.
    pub kind: String,
    /// The ripple's id.
    pub ripple_id: String,
    /// Whether this batch opened it (false: it stood already, or a dry run).
    pub opened: bool,
    /// The impact at the seed.
    pub magnitude: f64,
    /// The queued `ripple.reconsider` tasks (the seed's own first).
    pub reconsider_task_ids: Vec<String>,
    /// The candidates left out.
    pub left_out: Vec<LeftOutMemory>,
}

/// What one applied election did.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum TendAct {
    /// `pin`, `silence`, `refocus`, `heal_scar`, `break_bond`.
    Event(TendEvent),
    /// `revisit`.
    Revisit(RevisitAct),
    /// `revise`.
    Revise(ReviseAct),
    /// `dispose`: `dispose_dream`'s answer.
    Dispose(DreamDisposed),
}

/// An applied election and what it did.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TendApplied {
    /// The election as given.
    pub election: TendElection,
    /// What it did.
    pub result: TendAct,
}

/// A refused election and why (our sentence, or the verb's own refusal).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TendRefused {
    /// The election as given.
    pub election: TendElection,
    /// Why.
    pub reason: String,
}

/// A revisit's seed: the record and its digest.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RevisitSeed {
    /// Its digest row id.
    pub record_id: String,
    /// Its graph id.
    pub graph_id: String,
    /// Its title (`""` when pending).
    pub title: String,
    /// Its digest.
    pub digest: Option<String>,
    /// Its record kind.
    pub kind: String,
    /// Its pair.
    pub scope: String,
    /// Its pair's owner.
    pub owner_id: String,
    /// The digest's token estimate.
    pub token_estimate: Option<usize>,
    /// A diary projection's pointer into the book.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
}

/// One revisit step: the seed and the neighbours it reached.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RevisitPath {
    /// The seed.
    pub seed: RevisitSeed,
    /// The neighbours, as `probe_expand`'s hits (cues name the relation).
    pub paths: Vec<ProbeHit>,
    /// Always 1: to go further, elect `revisit` on a neighbour.
    pub iterations: usize,
    /// The expansion's trace.
    pub trace_id: String,
}

/// `apply_tend_elections`' answer (0.3.2's keys, and `dry_run`).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TendReport {
    /// The applied elections, in order.
    pub applied: Vec<TendApplied>,
    /// The refused elections, in order.
    pub refused: Vec<TendRefused>,
    /// Each revisit's seed and neighbours.
    pub revisit_paths: Vec<RevisitPath>,
    /// The batch's instant.
    pub applied_at: String,
    /// Whether nothing was written (a dry run).
    pub dry_run: bool,
}

/// One planned write.
enum Write {
    Event(MemoryEvent),
    Valence(ValenceEvent),
    Recall(Box<(ReconstructionTrace, Vec<MemoryEvent>)>),
    Dispose(Box<DisposePlan>),
    Ripple(Box<SeedWrite>),
}

impl Write {
    /// The id that makes it one act (two elections planning the same act
    /// in one block: the second is refused).
    fn key(&self) -> String {
        match self {
            Write::Event(e) => format!("event|{}", e.event_id),
            Write::Valence(e) => format!("valence|{}", e.event_id),
            Write::Recall(r) => format!("trace|{}", r.0.trace_id),
            Write::Dispose(p) => format!("dispose|{}", p.result.dream_id),
            Write::Ripple(w) => format!("ripple|{}", w.ripple_id()),
        }
    }
}

/// One election planned: what it did, its writes and its revisit path.
type Planned = (TendAct, Vec<Write>, Option<RevisitPath>);

/// The batch's fixed context.
struct Batch<'a> {
    args: &'a ApplyTendElections,
    scope: String,
    owner: String,
    actor: String,
    at: Timestamp,
    applied_at: String,
    pairs: Vec<(String, String)>,
}

impl Batch<'_> {
    /// The id stem of election `i`: the batch and the line.
    fn stem(&self, i: usize, e: &TendElection) -> String {
        am_journal::common::hash_hex(
            &format!(
                "tend|{}|{}|{}|{}|{i}|{}|{}|{}|{}",
                self.actor,
                self.scope,
                self.owner,
                self.applied_at,
                e.verb,
                e.target.as_deref().unwrap_or(""),
                e.reason,
                e.line
            ),
            24,
        )
    }
}

/// A verb's refusal of a malformed call (0.3.2: its `ValueError`) is the
/// election's refusal; any other failure stops the batch.
fn refusal_of<T>(r: Result<T>) -> Result<std::result::Result<T, String>> {
    match r {
        Ok(v) => Ok(Ok(v)),
        Err(e) if matches!(e.kind(), ErrorKind::InvalidInput | ErrorKind::NotFound) => {
            Ok(Err(e.to_string()))
        }
        Err(e) => Err(e),
    }
}

impl MemorySystem {
    /// `apply_tend_elections`: apply parsed elections through the existing
    /// verbs (see the module docs). Refused elections are data in
    /// `refused`, nothing of theirs written; the applied ones' writes land
    /// in one transaction (none with `dry_run`). A `revise` seed's
    /// truncation warning comes back with the report.
    ///
    /// # Errors
    /// `InvalidInput` for a blank actor or scope (words without an author
    /// are not elections); the home's failure (nothing written).
    pub fn apply_tend_elections(&self, args: &ApplyTendElections) -> Result<Warned<TendReport>> {
        let actor = args.actor.trim();
        if actor.is_empty() {
            return Err(Error::invalid(
                "apply_tend_elections needs an actor, got a blank one: tending elections are audited \
                 acts, and words without an author are not elections",
            ));
        }
        let scope = args.scope.trim().to_lowercase();
        if scope.is_empty() {
            return Err(Error::invalid(
                "apply_tend_elections needs the batch's scope, got a blank one",
            ));
        }
        let at = args.now.unwrap_or_else(|| self.now_timestamp());
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (s, o) in &args.self_pairs {
            let pair = (s.trim().to_lowercase(), o.trim().to_owned());
            if !pair.0.is_empty() && !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
        let batch = Batch {
            args,
            scope,
            owner: args.owner_id.trim().to_owned(),
            actor: actor.to_owned(),
            applied_at: at.canonical(),
            at,
            pairs,
        };
        let mut report = TendReport {
            applied: Vec::new(),
            refused: Vec::new(),
            revisit_paths: Vec::new(),
            applied_at: batch.applied_at.clone(),
            dry_run: args.dry_run,
        };
        let channel = args.channel.as_deref().map(str::trim);
        if channel != Some(REFLECTION_CHANNEL) {
            let said = match channel {
                None => "no channel was stated".to_owned(),
                Some(c) => format!("channel {c:?} may not tend"),
            };
            for e in &args.elections {
                report.refused.push(TendRefused {
                    election: e.clone(),
                    reason: format!(
                        "tending is an {REFLECTION_CHANNEL} act and {said} (every election refused)"
                    ),
                });
            }
            return Ok(Warned::new(report, Vec::new()));
        }
        let mut writes: Vec<Write> = Vec::new();
        let mut keys: HashSet<String> = HashSet::new();
        let mut warnings = Vec::new();
        for (i, e) in args.elections.iter().enumerate() {
            match self.plan_election(&batch, i, e, &mut warnings)? {
                Err(reason) => report.refused.push(TendRefused {
                    election: e.clone(),
                    reason,
                }),
                Ok((act, planned, path)) => {
                    let fresh: Vec<String> = planned.iter().map(Write::key).collect();
                    if fresh.iter().any(|k| keys.contains(k)) {
                        report.refused.push(TendRefused {
                            election: e.clone(),
                            reason:
                                "an election of this block already does this act: one line, one act"
                                    .to_owned(),
                        });
                        continue;
                    }
                    keys.extend(fresh);
                    writes.extend(planned);
                    report.applied.push(TendApplied {
                        election: e.clone(),
                        result: act,
                    });
                    report.revisit_paths.extend(path);
                }
            }
        }
        if !args.dry_run && !writes.is_empty() {
            self.write_tending(writes)?;
        }
        if args.dry_run {
            for a in &mut report.applied {
                if let TendAct::Revise(r) = &mut a.result {
                    r.opened = false;
                }
            }
        }
        Ok(Warned::new(report, warnings))
    }

    /// Gate and plan election `i`: what it does and writes, or why not.
    fn plan_election(
        &self,
        b: &Batch<'_>,
        i: usize,
        e: &TendElection,
        warnings: &mut Vec<String>,
    ) -> Result<std::result::Result<Planned, String>> {
        let verb = e.verb.trim().to_lowercase();
        let reason = e.reason.trim();
        let target = e.target.as_deref().map(str::trim).filter(|t| !t.is_empty());
        if !TEND_VERBS.contains(&verb.as_str()) {
            return Ok(Err(format!(
                "{:?} is not a tending verb (the verbs: {})",
                e.verb,
                TEND_VERBS.join(", ")
            )));
        }
        if reason.is_empty() {
            return Ok(Err(
                "every tending election needs its reason: tending is an audited act".to_owned(),
            ));
        }
        let stem = b.stem(i, e);
        if verb == "refocus" {
            let mut act =
                Refocus::new(reason, &b.scope, &b.owner).with_event_id(&format!("tend-{stem}"));
            act.actor.clone_from(&b.actor);
            let mut event = match refusal_of(self.plan_refocus(&act))? {
                Ok(ev) => ev,
                Err(why) => return Ok(Err(why)),
            };
            event.observed_at.clone_from(&b.applied_at);
            let done = TendEvent {
                event_id: event.event_id.clone(),
                kind: "refocus".into(),
                scope: Some(event.scope.clone()),
                owner_id: Some(event.owner_id.clone()),
                scar_event_id: None,
                bond_event_id: None,
            };
            return Ok(Ok((TendAct::Event(done), vec![Write::Event(event)], None)));
        }
        let Some(target) = target else {
            return Ok(Err(format!("{verb} needs a target")));
        };
        if verb == "heal_scar" || verb == "break_bond" {
            return self.plan_valence(b, &verb, target, reason);
        }
        let digest = match self.record_gate(b, target)? {
            Ok(d) => d,
            Err(why) => return Ok(Err(why)),
        };
        let row = DigestRow::of(&digest);
        let record_scope = digest.scope.clone();
        let record_owner = digest.owner_id.clone().unwrap_or_default();
        match verb.as_str() {
            "pin" | "silence" => {
                let (kind, name) = if verb == "pin" {
                    (EventKind::Pinned, "pinned")
                } else {
                    (EventKind::Silenced, "silenced")
                };
                let mut act = Reinforce::new(target, reason, &record_scope, &record_owner);
                act.actor.clone_from(&b.actor);
                act.event_id = Some(format!("tend-{stem}"));
                let mut event = match refusal_of(self.plan_deliberate(kind, &act))? {
                    Ok(ev) => ev,
                    Err(why) => return Ok(Err(why)),
                };
                event.observed_at.clone_from(&b.applied_at);
                let done = TendEvent {
                    event_id: event.event_id.clone(),
                    kind: name.into(),
                    scope: Some(record_scope),
                    owner_id: Some(record_owner),
                    scar_event_id: None,
                    bond_event_id: None,
                };
                Ok(Ok((TendAct::Event(done), vec![Write::Event(event)], None)))
            }
            "revisit" => {
                let payload = self.payload(target, PayloadTier::Digest)?;
                let seed = RevisitSeed {
                    record_id: digest
                        .assertion_id
                        .clone()
                        .unwrap_or_else(|| target.to_owned()),
                    graph_id: if digest.subject.is_empty() {
                        target.to_owned()
                    } else {
                        digest.subject.clone()
                    },
                    title: row.title().unwrap_or("").to_owned(),
                    digest: payload.content,
                    kind: row.kind_text().unwrap_or("").to_owned(),
                    scope: record_scope,
                    owner_id: record_owner,
                    token_estimate: payload.token_estimate,
                    entry_id: payload.entry_id,
                };
                let mut probe = ProbeExpand::new(&[target], reason);
                probe.depth = b.args.revisit_depth.get();
                probe.max_records = b.args.revisit_max_records;
                probe.token_budget = b.args.revisit_token_budget;
                probe.trace_id = Some(format!("tend-{stem}"));
                let (reach, journaled) = match refusal_of(self.plan_expand(&probe))? {
                    Ok(r) => r,
                    Err(why) => return Ok(Err(why)),
                };
                let act = RevisitAct {
                    kind: "revisit".into(),
                    trace_id: reach.trace_id.clone(),
                    paths_found: reach.hits.len(),
                };
                let path = RevisitPath {
                    seed,
                    paths: reach.hits,
                    iterations: 1,
                    trace_id: reach.trace_id,
                };
                let writes = journaled
                    .map(|r| Write::Recall(Box::new(r)))
                    .into_iter()
                    .collect();
                Ok(Ok((TendAct::Revisit(act), writes, Some(path))))
            }
            "dispose" => {
                let disposition = match e.disposition.as_deref().map(str::to_lowercase).as_deref() {
                    Some("confirm") => DreamDisposition::Confirmed,
                    Some("reject") => DreamDisposition::Dissolved,
                    _ => {
                        return Ok(Err(
                            "dispose needs a disposition: confirm or reject".to_owned()
                        ));
                    }
                };
                let extras = e.args.clone().unwrap_or_default();
                let text = |k: &str| extras.get(k).and_then(Value::as_str).map(str::to_owned);
                let mut act = DisposeDream::new(target, disposition, reason);
                act.relation = text("relation");
                act.source_id = text("source_id");
                act.target_id = text("target_id");
                act.evidence_ids = string_list(extras.get("evidence_ids"));
                act.actor.clone_from(&b.actor);
                let plan = match refusal_of(self.plan_dispose_dream(&act))? {
                    Ok(p) => p,
                    Err(why) => return Ok(Err(why)),
                };
                Ok(Ok((
                    TendAct::Dispose(plan.result.clone()),
                    vec![Write::Dispose(Box::new(plan))],
                    None,
                )))
            }
            "revise" => {
                if !self.home.has_task_queue() {
                    return Ok(Err(
                        "revise seeds a ripple, which runs over the home's task queue: this home \
                         was opened without one"
                            .to_owned(),
                    ));
                }
                let extras = e.args.clone().unwrap_or_default();
                let change = match extras.get("change").and_then(Value::as_str) {
                    None | Some("revised") => Change::Revised,
                    Some("overturned") => Change::Overturned,
                    Some(other) => {
                        return Ok(Err(format!(
                            "{other:?} is not a change: revised or overturned"
                        )));
                    }
                };
                let ids = string_list(extras.get("evidence_ids"));
                let evidence = if ids.is_empty() {
                    json!([reason])
                } else {
                    json!(ids)
                };
                let cause = json!({
                    "cause": "evidence",
                    "election": {"verb": "revise", "target": target, "reason": reason, "line": e.line},
                    "evidence": evidence,
                    "actor": b.actor,
                });
                let mut seed = SeedRipple::new(target, cause);
                seed.change = change;
                seed.now = Some(b.at);
                let plan = match refusal_of(self.plan_seed_ripple(&seed))? {
                    Ok(p) => p,
                    Err(why) => return Ok(Err(why)),
                };
                let r = plan.result.value;
                if let Some(why) = r.reason {
                    return Ok(Err(format!("the ripple did not open: {why}")));
                }
                warnings.extend(plan.result.warnings);
                let act = ReviseAct {
                    kind: "revise".into(),
                    opened: plan.write.is_some(),
                    ripple_id: r.ripple_id,
                    magnitude: r.magnitude,
                    reconsider_task_ids: r.reconsider_task_ids,
                    left_out: r.left_out,
                };
                let writes = plan
                    .write
                    .map(|w| Write::Ripple(Box::new(w)))
                    .into_iter()
                    .collect();
                Ok(Ok((TendAct::Revise(act), writes, None)))
            }
            _ => Err(Error::internal(format!(
                "tending verb {verb:?} has no plan"
            ))),
        }
    }

    /// `heal_scar` / `break_bond`: the target's identity gate when it names
    /// a record, the standing marker it resolves to, then the verb's plan.
    fn plan_valence(
        &self,
        b: &Batch<'_>,
        verb: &str,
        target: &str,
        reason: &str,
    ) -> Result<std::result::Result<Planned, String>> {
        if let Some(record) = self.resolve_digest_assertion(target)?
            && b.identity_pair(&record)
        {
            return Ok(Err(IDENTITY_SCOPE_PENDING_RULING.to_owned()));
        }
        let kind = if verb == "heal_scar" {
            ValenceKind::Scar
        } else {
            ValenceKind::Bond
        };
        let marker = match self.standing_marker(&b.scope, &b.owner, target, kind)? {
            Ok(m) => m,
            Err(why) => return Ok(Err(why)),
        };
        let planned = if kind == ValenceKind::Scar {
            let mut act = HealScar::new(&marker, reason, &b.scope, &b.owner);
            act.actor.clone_from(&b.actor);
            self.plan_heal_scar(&act)
        } else {
            let mut act = BreakBond::new(&marker, reason, &b.scope, &b.owner);
            act.actor.clone_from(&b.actor);
            self.plan_break_bond(&act)
        };
        let mut event = match refusal_of(planned)? {
            Ok(ev) => ev,
            Err(why) => return Ok(Err(why)),
        };
        event.observed_at.clone_from(&b.applied_at);
        let (scar, bond) = if kind == ValenceKind::Scar {
            (Some(marker), None)
        } else {
            (None, Some(marker))
        };
        let done = TendEvent {
            event_id: event.event_id.clone(),
            kind: verb.to_owned(),
            scope: None,
            owner_id: None,
            scar_event_id: scar,
            bond_event_id: bond,
        };
        Ok(Ok((
            TendAct::Event(done),
            vec![Write::Valence(event)],
            None,
        )))
    }

    /// The record a target names, or why it may not be tended.
    fn record_gate(
        &self,
        b: &Batch<'_>,
        target: &str,
    ) -> Result<std::result::Result<TripleAssertion, String>> {
        if SPOOF_PREFIXES.iter().any(|p| target.starts_with(p)) {
            return Ok(Err(format!(
                "{target:?} is a diary entry or batch-local id, not a graph record: tend the \
                 record the entry formed, by its record id"
            )));
        }
        let Some(digest) = self.resolve_digest_assertion(target)? else {
            return Ok(Err(format!(
                "{target:?} names no record (neither a graph id nor a digest row id): tending needs \
                 a formed record"
            )));
        };
        let row = DigestRow::of(&digest);
        if row.flag("record_edge") || row.flag("bookkeeping") {
            return Ok(Err(format!(
                "{target:?} is an edge or a bookkeeping row, not a record: tend the records it joins"
            )));
        }
        let owner = digest.owner_id.clone().unwrap_or_default();
        if owner != b.owner {
            return Ok(Err(format!(
                "{target:?} belongs to {owner:?}, not to the tending owner {:?}: tending reaches \
                 only one's own memory",
                b.owner
            )));
        }
        if b.identity_pair(&digest) {
            return Ok(Err(IDENTITY_SCOPE_PENDING_RULING.to_owned()));
        }
        Ok(Ok(digest))
    }

    /// Every planned write in one transaction of the home.
    fn write_tending(&self, writes: Vec<Write>) -> Result<()> {
        let mut rows: Vec<TripleAssertion> = Vec::new();
        let mut events: Vec<MemoryEvent> = Vec::new();
        let mut closures: Vec<ClosureRecord> = Vec::new();
        let mut valence: Vec<ValenceEvent> = Vec::new();
        let mut recalls: Vec<(ReconstructionTrace, Vec<MemoryEvent>)> = Vec::new();
        let mut ripples: Vec<SeedWrite> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for w in writes {
            match w {
                Write::Event(e) => events.push(e),
                Write::Valence(e) => valence.push(e),
                Write::Recall(r) => recalls.push(*r),
                Write::Ripple(r) => ripples.push(*r),
                Write::Dispose(p) => {
                    let p = *p;
                    for r in p.rows {
                        if seen.insert(format!(
                            "row|{}",
                            r.assertion_id.clone().unwrap_or_default()
                        )) {
                            rows.push(r);
                        }
                    }
                    for e in p.events {
                        if seen.insert(format!("event|{}", e.event_id)) {
                            events.push(e);
                        }
                    }
                    for c in p.closures {
                        if seen.insert(format!("closure|{}", c.closure_id)) {
                            closures.push(c);
                        }
                    }
                }
            }
        }
        let prepared = if rows.is_empty() {
            None
        } else {
            Some(self.home.prepare_rows(&rows)?)
        };
        let mut planned_tasks = Vec::with_capacity(ripples.len());
        if !ripples.is_empty() {
            let queue = self.tasks()?;
            for r in &ripples {
                planned_tasks.push(queue.plan_enqueues(&r.enqueues)?);
            }
        }
        let point = if prepared.is_some() {
            CommitPoint::StoreAdd
        } else if ripples.is_empty() {
            CommitPoint::Journal
        } else {
            CommitPoint::RippleSeed
        };
        self.home.transaction(point, &mut |tx| {
            if let Some(p) = &prepared {
                tx.store().add(p)?;
            }
            if !events.is_empty() {
                tx.journal().append_events(&events)?;
            }
            if !closures.is_empty() {
                tx.journal().append_closures(&closures)?;
            }
            if !valence.is_empty() {
                tx.journal().append_valence(&valence)?;
            }
            for (trace, listed) in &recalls {
                tx.journal().append_recall(trace, listed)?;
            }
            for (r, plans) in ripples.iter().zip(&planned_tasks) {
                r.apply(tx, plans)?;
            }
            Ok(())
        })?;
        Ok(())
    }
}

impl Batch<'_> {
    /// Whether `record` is an identity record the pending ruling covers: it
    /// lives in an identity pair (a `self` scope or one of `self_pairs`)
    /// and is not a dream (0.3.2: a dream the night wrote into `self` is
    /// machine output awaiting waking disposal, not identity).
    fn identity_pair(&self, record: &TripleAssertion) -> bool {
        let pair = (
            record.scope.trim().to_lowercase(),
            record.owner_id.clone().unwrap_or_default(),
        );
        (pair.0 == "self" || self.pairs.contains(&pair))
            && DigestRow::of(record).as_stored("record_kind") != Some("dream")
    }
}

/// A JSON list (or one string) of ids, blanks dropped.
fn string_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        Some(Value::String(s)) if !s.trim().is_empty() => vec![s.trim().to_owned()],
        _ => Vec::new(),
    }
}
