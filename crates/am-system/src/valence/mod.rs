//! Valence: how experience felt. The write verbs (`appraise`, `heal_scar`,
//! `break_bond`), the derived standing (`gradation`, over the pure fold
//! [`compute_gradation`]) and the two feelings reads ([`feelings_about`],
//! [`stimulus_feelings`]).
//!
//! Valence is orthogonal to attention: nothing here is reachable from the
//! recall pipeline (`reconstruct/`), and nothing there names this module
//! (`cargo xtask tidy` checks it). Reads deposit nothing.
//!
//! Spec: api.md "Valence and gradation"; memory-system.md "Valence: how
//! experience felt"; algorithms.md §8.

pub mod feelings;
pub mod gradation;
pub(crate) mod index;

pub use feelings::{
    FeelingEvent, FeelingsAbout, FeelingsAboutResult, StimulusFeeling, StimulusFeelings,
    feelings_about, stimulus_feelings,
};
pub use gradation::{
    AMPLITUDE_TRIGGER_MAX, GradationConfig, GradationScore, MAX_CONTRIBUTIONS, PRIVILEGED_ACTORS,
    compute_gradation, validate_amplitude_authority,
};

use crate::error::{Error, Result};
use crate::seam::OrderedMap;
use crate::system::MemorySystem;
use am_journal::journal::check_anchor;
use am_journal::{ValenceEvent, ValenceKind};
use am_triples::JsonMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

fn runtime() -> String {
    "runtime".to_owned()
}

fn reflection() -> String {
    "entity-reflection".to_owned()
}

/// The arguments of [`MemorySystem::appraise`]: `appraise(target_id, *, sign,
/// magnitude, reason, scope, owner_id, value_refs=(), scar=False, bond=False,
/// event_id=None, actor="runtime", provenance=None, trace_id=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Appraise {
    /// A record id or a free identity string (`person:ada`, `tool:web_search`).
    pub target_id: String,
    /// `+1` or `-1`.
    pub sign: i64,
    /// 1..=10; above 3 needs authority (see [`validate_amplitude_authority`]).
    pub magnitude: f64,
    /// Why it felt so (required).
    pub reason: String,
    /// The stream's scope.
    pub scope: String,
    /// The stream's owner.
    pub owner_id: String,
    /// The value records the appraisal is grounded in.
    #[serde(default)]
    pub value_refs: Vec<String>,
    /// Also write a standing scar (`{event_id}:scar`; needs sign −1).
    #[serde(default)]
    pub scar: bool,
    /// Also write a standing bond (`{event_id}:bond`; needs sign +1).
    #[serde(default)]
    pub bond: bool,
    /// The caller's idempotency key (blank: the journal assigns one).
    #[serde(default)]
    pub event_id: Option<String>,
    /// Who appraised.
    #[serde(default = "runtime")]
    pub actor: String,
    /// `outcome_class`, `run_id`, `turn_id`, ...
    #[serde(default)]
    pub provenance: Option<JsonMap>,
    /// The trace the appraisal belongs to.
    #[serde(default)]
    pub trace_id: Option<String>,
}

impl Appraise {
    /// Appraise `target_id` with `sign` and `magnitude` for `reason` in
    /// `(scope, owner_id)`.
    pub fn new(
        target_id: &str,
        sign: i64,
        magnitude: f64,
        reason: &str,
        scope: &str,
        owner_id: &str,
    ) -> Self {
        Appraise {
            target_id: target_id.to_owned(),
            sign,
            magnitude,
            reason: reason.to_owned(),
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            value_refs: Vec::new(),
            scar: false,
            bond: false,
            event_id: None,
            actor: runtime(),
            provenance: None,
            trace_id: None,
        }
    }
}

/// The arguments of [`MemorySystem::heal_scar`]: `heal_scar(scar_event_id, *,
/// reason, lesson_record_id=None, scope, owner_id, event_id=None,
/// actor="entity-reflection")`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HealScar {
    /// The scar event to resolve.
    pub scar_event_id: String,
    /// Why it healed (required).
    pub reason: String,
    /// The lesson record the healing came with (kept in provenance).
    #[serde(default)]
    pub lesson_record_id: Option<String>,
    /// The stream's scope.
    pub scope: String,
    /// The stream's owner.
    pub owner_id: String,
    /// The healing's id (default `heal:{scar_event_id}`).
    #[serde(default)]
    pub event_id: Option<String>,
    /// Who healed it (a privileged actor).
    #[serde(default = "reflection")]
    pub actor: String,
}

impl HealScar {
    /// Heal `scar_event_id` for `reason` in `(scope, owner_id)`.
    pub fn new(scar_event_id: &str, reason: &str, scope: &str, owner_id: &str) -> Self {
        HealScar {
            scar_event_id: scar_event_id.to_owned(),
            reason: reason.to_owned(),
            lesson_record_id: None,
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            event_id: None,
            actor: reflection(),
        }
    }
}

/// The arguments of [`MemorySystem::break_bond`]: `break_bond(bond_event_id,
/// *, reason, scope, owner_id, event_id=None, actor="entity-reflection")`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BreakBond {
    /// The bond event to dissolve.
    pub bond_event_id: String,
    /// Why it broke (required).
    pub reason: String,
    /// The stream's scope.
    pub scope: String,
    /// The stream's owner.
    pub owner_id: String,
    /// The break's id (default `break:{bond_event_id}`).
    #[serde(default)]
    pub event_id: Option<String>,
    /// Who broke it (a privileged actor).
    #[serde(default = "reflection")]
    pub actor: String,
}

impl BreakBond {
    /// Break `bond_event_id` for `reason` in `(scope, owner_id)`.
    pub fn new(bond_event_id: &str, reason: &str, scope: &str, owner_id: &str) -> Self {
        BreakBond {
            bond_event_id: bond_event_id.to_owned(),
            reason: reason.to_owned(),
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            event_id: None,
            actor: reflection(),
        }
    }
}

/// The arguments of [`MemorySystem::gradation`]: `gradation(target_ids=None,
/// *, scope, owner_id, at_seq=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Gradation {
    /// The targets to read (`None`: every appraised target).
    #[serde(default)]
    pub target_ids: Option<Vec<String>>,
    /// The stream's scope.
    pub scope: String,
    /// The stream's owner.
    pub owner_id: String,
    /// The anchor (inclusive; `None`: the journal's high-water mark).
    #[serde(default)]
    pub at_seq: Option<i64>,
}

impl Gradation {
    /// Every appraised target of `(scope, owner_id)`, now.
    pub fn new(scope: &str, owner_id: &str) -> Self {
        Gradation {
            target_ids: None,
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            at_seq: None,
        }
    }
}

fn blank_to_none(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The scope as the journal keys it (trimmed, lowercased).
fn norm_scope(scope: &str) -> String {
    scope.trim().to_lowercase()
}

/// The inputs of the step `heal_scar` and `break_bond` share: the standing
/// marker (a scar or a bond) and the event that resolves it.
struct Resolution<'a> {
    /// The standing marker, read from the valence index.
    marker: ValenceEvent,
    /// `healing` or `break`.
    kind: ValenceKind,
    /// `+1` for a healing, `-1` for a break.
    sign: i64,
    reason: &'a str,
    actor: &'a str,
    /// `heals` / `breaks` (and `lesson_record_id`), naming the marker.
    provenance: JsonMap,
    /// The caller's id, or the default naming the marker.
    event_id: String,
}

impl MemorySystem {
    /// The gradation tunables this system folds with.
    pub fn gradation_config(&self) -> &GradationConfig {
        &self.gradation
    }

    /// Deposit one signed appraisal of `target_id` (and, with `scar` or
    /// `bond`, the standing marker beside it, id `{event_id}:scar` /
    /// `{event_id}:bond`); returns the written event ids, appraisal first. A
    /// supplied `event_id` makes a replay a no-op (same ids back).
    ///
    /// # Errors
    /// `InvalidInput`, writing nothing, for a magnitude above 3 without
    /// authority, `scar` and `bond` together, a scar with sign +1 or a bond
    /// with sign −1, and every event rule of the journal (sign, magnitude
    /// 1..=10, blank reason, target or scope); the journal's failure.
    pub fn appraise(&self, args: &Appraise) -> Result<Vec<String>> {
        validate_amplitude_authority(
            args.magnitude,
            &args.actor,
            args.provenance.as_ref(),
            &self.gradation,
        )?;
        if args.scar && args.bond {
            return Err(Error::invalid(
                "one appraisal is one peak: scar and bond cannot both be set",
            ));
        }
        if args.scar && args.sign != -1 {
            return Err(Error::invalid(format!(
                "scar=true marks a negative peak and needs sign -1, got {}",
                args.sign
            )));
        }
        if args.bond && args.sign != 1 {
            return Err(Error::invalid(format!(
                "bond=true marks a positive peak and needs sign +1, got {}",
                args.sign
            )));
        }
        let supplied = blank_to_none(args.event_id.as_deref());
        let appraisal = ValenceEvent {
            target_id: args.target_id.clone(),
            sign: args.sign,
            magnitude: args.magnitude,
            kind: ValenceKind::Appraisal,
            value_refs: args.value_refs.clone(),
            scope: args.scope.clone(),
            owner_id: args.owner_id.clone(),
            reason: Some(args.reason.clone()),
            actor: args.actor.clone(),
            trace_id: args.trace_id.clone(),
            observed_at: self.now()?,
            provenance: args.provenance.clone().unwrap_or_default(),
            event_id: supplied.clone().unwrap_or_default(),
            seq: -1,
        };
        let mut events = vec![appraisal];
        if args.scar || args.bond {
            let marker = if args.scar {
                ValenceKind::Scar
            } else {
                ValenceKind::Bond
            };
            let mut e = events[0].clone();
            e.kind = marker;
            e.event_id = supplied
                .map(|id| format!("{id}:{marker}"))
                .unwrap_or_default();
            events.push(e);
        }
        Ok(self
            .journal
            .append_valence(&events)?
            .into_iter()
            .map(|e| e.event_id)
            .collect())
    }

    /// Resolve a standing scar: append a `healing` event naming it
    /// (`provenance.heals`, and `lesson_record_id` when given) on the scar's
    /// target; the scar row is never rewritten. Returns the healing's id
    /// (default `heal:{scar_event_id}`, so a replay is a no-op).
    ///
    /// # Errors
    /// `InvalidInput` for a blank id or reason or an actor that is not
    /// privileged; `NotFound` when `(scope, owner_id)` holds no scar with that
    /// id; nothing is written on any of them.
    pub fn heal_scar(&self, args: &HealScar) -> Result<String> {
        let e = self.plan_heal_scar(args)?;
        self.append_resolution(e)
    }

    /// `heal_scar`'s `healing` event, validated, not written.
    pub(crate) fn plan_heal_scar(&self, args: &HealScar) -> Result<ValenceEvent> {
        let sid = args.scar_event_id.trim();
        if sid.is_empty() {
            return Err(Error::invalid(
                "heal_scar needs a scar_event_id, got a blank one",
            ));
        }
        self.require_privileged(&args.actor, "heal_scar")?;
        let scar = self.marker_event(&args.scope, &args.owner_id, sid, ValenceKind::Scar)?;
        let mut provenance = JsonMap::new();
        provenance.insert("heals".into(), Value::String(sid.to_owned()));
        if let Some(lesson) = blank_to_none(args.lesson_record_id.as_deref()) {
            provenance.insert("lesson_record_id".into(), Value::String(lesson));
        }
        let event_id =
            blank_to_none(args.event_id.as_deref()).unwrap_or_else(|| format!("heal:{sid}"));
        self.resolve_marker(Resolution {
            marker: scar,
            kind: ValenceKind::Healing,
            sign: 1,
            reason: &args.reason,
            actor: &args.actor,
            provenance,
            event_id,
        })
    }

    /// Dissolve a standing bond: append a `break` event naming it
    /// (`provenance.breaks`) on the bond's target; the bond row is never
    /// rewritten. Returns the break's id (default `break:{bond_event_id}`).
    /// A scar of magnitude ≥ `break_magnitude` later than the bond breaks it
    /// without this call (the fold reads it so).
    ///
    /// # Errors
    /// As [`MemorySystem::heal_scar`], for a bond.
    pub fn break_bond(&self, args: &BreakBond) -> Result<String> {
        let e = self.plan_break_bond(args)?;
        self.append_resolution(e)
    }

    /// `break_bond`'s `break` event, validated, not written.
    pub(crate) fn plan_break_bond(&self, args: &BreakBond) -> Result<ValenceEvent> {
        let bid = args.bond_event_id.trim();
        if bid.is_empty() {
            return Err(Error::invalid(
                "break_bond needs a bond_event_id, got a blank one",
            ));
        }
        self.require_privileged(&args.actor, "break_bond")?;
        let bond = self.marker_event(&args.scope, &args.owner_id, bid, ValenceKind::Bond)?;
        let mut provenance = JsonMap::new();
        provenance.insert("breaks".into(), Value::String(bid.to_owned()));
        let event_id =
            blank_to_none(args.event_id.as_deref()).unwrap_or_else(|| format!("break:{bid}"));
        self.resolve_marker(Resolution {
            marker: bond,
            kind: ValenceKind::Break,
            sign: -1,
            reason: &args.reason,
            actor: &args.actor,
            provenance,
            event_id,
        })
    }

    fn require_privileged(&self, actor: &str, verb: &str) -> Result<()> {
        if self.gradation.is_privileged(actor) {
            return Ok(());
        }
        Err(Error::invalid(format!(
            "{verb} is a reflective act and needs an actor in {:?}, got {actor:?}",
            self.gradation.privileged_actors
        )))
    }

    /// The `kind` event `id` of `(scope, owner)`.
    fn marker_event(
        &self,
        scope: &str,
        owner: &str,
        id: &str,
        kind: ValenceKind,
    ) -> Result<ValenceEvent> {
        let (scope, owner) = (norm_scope(scope), owner.trim().to_owned());
        let current = self.journal.current_seq()?;
        let index = self.faculty_state.cache::<index::ValenceIndex>();
        let mut index = index.lock();
        let pair = index.pair(&*self.journal, &scope, &owner, current)?;
        match pair.event(id) {
            Some(e) if e.kind == kind => Ok(e.clone()),
            _ => Err(Error::not_found(format!(
                "no {kind} event {id:?} in ({scope:?}, {owner:?}); a {} must name a standing {kind}",
                if kind == ValenceKind::Scar {
                    "healing"
                } else {
                    "break"
                }
            ))),
        }
    }

    /// Append the event resolving a standing marker (`heal_scar`'s
    /// `healing`, `break_bond`'s `break`) on the marker's target, in its
    /// `(scope, owner)`, with the marker's magnitude.
    fn resolve_marker(&self, step: Resolution<'_>) -> Result<ValenceEvent> {
        let Resolution {
            marker,
            kind,
            sign,
            reason,
            actor,
            provenance,
            event_id,
        } = step;
        let e = ValenceEvent {
            target_id: marker.target_id,
            sign,
            magnitude: marker.magnitude,
            kind,
            value_refs: Vec::new(),
            scope: marker.scope,
            owner_id: marker.owner_id,
            reason: Some(reason.to_owned()),
            actor: actor.to_owned(),
            trace_id: None,
            observed_at: self.now()?,
            provenance,
            event_id,
            seq: -1,
        };
        e.normalized()?;
        Ok(e)
    }

    fn append_resolution(&self, e: ValenceEvent) -> Result<String> {
        let written = self.journal.append_valence(&[e])?;
        written
            .into_iter()
            .next()
            .map(|e| e.event_id)
            .ok_or_else(|| Error::internal("append_valence returned no event"))
    }

    /// The standing (unresolved) `kind` marker (`scar` or `bond`) of
    /// `(scope, owner)` that `target` names: the marker's own event id, or
    /// the one unresolved marker on that appraised target. `Ok(Err(why))`
    /// when none or several match (the tending elections' refusal; the
    /// sentence names the candidates). A read.
    ///
    /// # Errors
    /// The journal's failure.
    pub(crate) fn standing_marker(
        &self,
        scope: &str,
        owner: &str,
        target: &str,
        kind: ValenceKind,
    ) -> Result<std::result::Result<String, String>> {
        let (scope, owner) = (norm_scope(scope), owner.trim().to_owned());
        let current = self.journal.current_seq()?;
        let index = self.faculty_state.cache::<index::ValenceIndex>();
        let mut index = index.lock();
        let pair = index.pair(&*self.journal, &scope, &owner, current)?;
        let events = pair.events_at(current);
        let resolving = if kind == ValenceKind::Scar {
            ("heals", ValenceKind::Healing)
        } else {
            ("breaks", ValenceKind::Break)
        };
        let resolved: std::collections::HashSet<&str> = events
            .iter()
            .filter(|e| e.kind == resolving.1)
            .filter_map(|e| e.provenance.get(resolving.0).and_then(Value::as_str))
            .map(str::trim)
            .collect();
        if let Some(e) = events
            .iter()
            .find(|e| e.kind == kind && e.event_id == target)
        {
            return Ok(Ok(e.event_id.clone()));
        }
        let standing: Vec<&str> = events
            .iter()
            .filter(|e| {
                e.kind == kind && e.target_id == target && !resolved.contains(e.event_id.as_str())
            })
            .map(|e| e.event_id.as_str())
            .collect();
        Ok(match standing.as_slice() {
            [] => Err(format!(
                "no standing {kind} on {target:?} in ({scope:?}, {owner:?}): name a {kind} event id \
                 or an appraised target that carries one unresolved"
            )),
            [one] => Ok((*one).to_owned()),
            many => Err(format!(
                "{} standing {kind}s match {target:?} ({}): name the one meant by its event id",
                many.len(),
                many.join(", ")
            )),
        })
    }

    /// The derived dual-channel standing per target: requested targets in
    /// the order given (one with no events reads neutral), or with
    /// `target_ids: None` every target appraised at the anchor, the most
    /// recently appraised first. Reads only the named targets' events (the
    /// system's valence index, caught up from the journal's tail).
    ///
    /// # Errors
    /// `InvalidInput` for an `at_seq` outside `0..=current_seq` or a blank
    /// scope; the journal's failure.
    pub fn gradation(&self, args: &Gradation) -> Result<OrderedMap<GradationScore>> {
        let scope = norm_scope(&args.scope);
        if scope.is_empty() {
            return Err(Error::invalid(format!(
                "gradation() requires a non-empty scope, got {:?}",
                args.scope
            )));
        }
        let owner = args.owner_id.trim().to_owned();
        let current = self.journal.current_seq()?;
        check_anchor("at_seq", args.at_seq, current)?;
        let anchor = args.at_seq.unwrap_or(current);
        let index = self.faculty_state.cache::<index::ValenceIndex>();
        let mut index = index.lock();
        let pair = index.pair(&*self.journal, &scope, &owner, current)?;
        let cfg = &self.gradation;
        let entries = match &args.target_ids {
            None => pair
                .targets_at(anchor)
                .into_iter()
                .filter_map(|t| Some((t.to_owned(), pair.score(t, anchor, cfg)?)))
                .collect(),
            Some(ids) => {
                let mut seen = std::collections::HashSet::new();
                ids.iter()
                    .filter(|requested| seen.insert(requested.as_str()))
                    .map(|requested| {
                        let score = pair
                            .score(requested.trim(), anchor, cfg)
                            .unwrap_or_else(GradationScore::neutral);
                        (requested.clone(), score)
                    })
                    .collect()
            }
        };
        Ok(OrderedMap(entries))
    }
}
