//! `sleep_pass`: ONE night, its sub-phases in the spec's canonical order
//! `resolution → maintenance → world_models → dream`:
//!
//! 1. `resolution`: `resolve_dreams_pass`, the day answers the night;
//! 2. `maintenance`: `consolidation_pass`, the tending write;
//! 3. `world_models`: `world_model_pass`, the cards refined from the
//!    evidence (skipped under `as_of`, see [`WORLD_MODELS_AS_OF`]);
//! 4. `dream`: `dream_pass` over the tended graph, the earlier phases'
//!    acts its signals and the tending's operations part of its salience.
//!
//! Each sub-phase is its own pass, idempotent and committed in its own
//! transaction, so a night killed at any point leaves whole phases and the
//! next night finishes the work. The result carries each sub-phase's dict,
//! the summed `authoring` receipt, and the completion rows.
//!
//! **Cancellation.** `should_continue` (false stops) and `cancelled` (true
//! stops) are asked at every sub-phase boundary, the start included: the
//! running sub-phase completes, every later one is skipped with
//! `skipped_reason = "cancelled: ..."` in its own shape (the real pass's
//! keys, empty), and the night carries `cancelled_after`, the last stage
//! that ran. `cancelled` is asked once more immediately before the
//! completion marker: a night stopped there records nothing.
//!
//! **Completion.** A whole night (`include_dream = true`) run to its end
//! records `night` in the queue's `memq_maintenance`, one row per pair
//! (`records_since_maintenance` counts from it); a cycle window
//! (`include_dream = false`) records `cycle`, which moves no cadence. A
//! cancelled, `report_only` or `as_of` night records nothing.
//!
//! Sleep proposes, waking evidence disposes: no sub-phase writes a
//! load-bearing edge or deposits activation.
//!
//! Spec: api.md "Consolidation (sleep and dreams)" (`sleep_pass`,
//! `records_since_maintenance`), memory-system.md "Sleep". The spec's
//! keywords are `scopes`, `owner_id`, `should_continue`, `author`,
//! `cancelled` and `include_dream`; the rest (`max_candidates`,
//! `salience_floor`, `max_sources`, `embedder_similarity_floor`,
//! `report_only`, `as_of`, `scan_limit`, `tuning`), the cancelled shapes and
//! `cancelled_after`'s values follow 0.3.2 (`maintenance.sleep_pass`).
//! 0.3.2's night also runs `mining` and `identity` phases: here those are
//! the candidates' own verbs, run by the host after the night (docs/exec.md
//! "Sleep"). Ours: the refusals come before any phase runs (a malformed
//! night never half-runs), and the result's `completion` lists the rows
//! written.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::args::sleep_pairs;
use super::consolidation::{ConsolidationPass, ConsolidationResult};
use super::dream::{DreamPass, DreamResult};
use super::resolution::{ResolveDreams, ResolveDreamsResult};
use super::signals::NightPhases;
use super::structural::Structure;
use super::tuning::SleepTuning;
use crate::error::{Error, Result};
use crate::formation::authoring::{Author, AuthoringReceipt};
use crate::outcome::Warned;
use crate::system::MemorySystem;
use crate::tasks::args::{MaintenanceKind, RecordMaintenance};
use crate::tasks::maintenance::MaintenanceRow;
use crate::world_models::{WorldModelPass, WorldModelReport};

/// The night's sub-phases, in order.
pub const NIGHT_PHASES: [&str; 4] = ["resolution", "maintenance", "world_models", "dream"];

/// Why the `world_models` sub-phase does not run under an `as_of` anchor.
pub const WORLD_MODELS_AS_OF: &str = "as_of anchor: world models read the current evidence \
     only, so an anchored night skips them rather than mix two moments in one result";

/// What a night reports of its first stage when it was stopped before
/// anything ran (0.3.2's value).
pub const CANCELLED_AT_START: &str = "start (no phase ran)";

fn two() -> i64 {
    2
}
fn eight() -> usize {
    8
}
fn floor_035() -> f64 {
    0.35
}
fn yes() -> bool {
    true
}

/// `sleep_pass(system, *, scopes, owner_id, ..., should_continue=None,
/// author=None, cancelled=None)`'s keywords (the hooks are the method's
/// other arguments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SleepPass {
    /// `(scope, owner_id)` pairs the night reads; its records form in the
    /// first pair's scope.
    pub scopes: Vec<(String, String)>,
    /// The sleeper.
    pub owner_id: String,
    /// The tending's candidate cap (inside `tuning.candidate_cap_band`).
    #[serde(default = "two")]
    pub max_candidates: i64,
    /// The dream's salience floor.
    #[serde(default = "two")]
    pub salience_floor: i64,
    /// The dream's most `mentions` edges.
    #[serde(default = "eight")]
    pub max_sources: usize,
    /// The dream's vector floor.
    #[serde(default = "floor_035")]
    pub embedder_similarity_floor: f64,
    /// Run every sub-phase as a dry run: nothing written, nothing recorded.
    #[serde(default)]
    pub report_only: bool,
    /// An audit anchor (only with `report_only`).
    #[serde(default)]
    pub as_of: Option<i64>,
    /// The tending's near-duplicate scan bound.
    #[serde(default)]
    pub scan_limit: Option<usize>,
    /// Every policy number of the night.
    #[serde(default)]
    pub tuning: SleepTuning,
    /// A whole night (`true`) or a cycle window (`false`: the dream keeps
    /// its nightly cadence and is skipped; recorded as `cycle`).
    #[serde(default = "yes")]
    pub include_dream: bool,
}

impl SleepPass {
    /// One night over `scopes` for `owner_id`, every default.
    pub fn new(scopes: &[(&str, &str)], owner_id: &str) -> Self {
        SleepPass {
            scopes: scopes
                .iter()
                .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
                .collect(),
            owner_id: owner_id.to_owned(),
            max_candidates: two(),
            salience_floor: two(),
            max_sources: eight(),
            embedder_similarity_floor: floor_035(),
            report_only: false,
            as_of: None,
            scan_limit: None,
            tuning: SleepTuning::default(),
            include_dream: true,
        }
    }
}

/// A sink told `(phase, account)` as each sub-phase ends.
pub type PhaseSink<'a> = &'a dyn Fn(&str, &str);

/// The host's hooks for one night: `should_continue` and `cancelled`
/// (asked at every boundary) and a sink told each sub-phase as it ends,
/// with a one-line account.
#[derive(Default, Clone, Copy)]
pub struct NightHooks<'a> {
    /// `should_continue()`: false ends the night at the next boundary.
    pub should_continue: Option<&'a dyn Fn() -> bool>,
    /// `cancelled()`: true ends the night at the next boundary, and before
    /// the completion marker.
    pub cancelled: Option<&'a dyn Fn() -> bool>,
    /// Told `(phase, account)` as each sub-phase ends (skipped ones too).
    pub phase_done: Option<PhaseSink<'a>>,
}

impl NightHooks<'_> {
    fn goes_on(&self) -> bool {
        self.should_continue.is_none_or(|f| f()) && !self.cancelled.is_some_and(|f| f())
    }
    fn done(&self, phase: &str, account: &str) {
        if let Some(f) = self.phase_done {
            f(phase, account);
        }
    }
}

/// A sub-phase's dict: the pass's own keys, and `skipped_reason` when it
/// did not run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Phase<T> {
    /// The pass's result (its real keys, empty when skipped).
    #[serde(flatten)]
    pub result: T,
    /// Why it did not run (absent when it ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_reason: Option<String>,
}

/// The `world_models` sub-phase's dict when it did not run: the real
/// pass's keys, empty, and why.
fn world_models_skipped(why: String) -> Phase<WorldModelReport> {
    Phase {
        result: WorldModelReport {
            pass_name: "world_model_pass".to_owned(),
            targets_seen: 0,
            eligible: Vec::new(),
            formed: Vec::new(),
            unchanged: Vec::new(),
            skipped: Vec::new(),
            repaired: Vec::new(),
            alias_proposals: Some(Vec::new()),
            formed_count: 0,
            authoring: AuthoringReceipt::default(),
        },
        skipped_reason: Some(why),
    }
}

/// What one night did.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SleepResult {
    /// `"sleep_pass"`.
    pub pass_name: String,
    /// The sub-phases, in order.
    pub phases: Vec<String>,
    /// `resolve_dreams_pass`'s dict.
    pub resolution: Phase<ResolveDreamsResult>,
    /// `consolidation_pass`'s dict.
    pub maintenance: Phase<ConsolidationResult>,
    /// `world_model_pass`'s dict.
    pub world_models: Phase<WorldModelReport>,
    /// `dream_pass`'s dict.
    pub dream: DreamResult,
    /// Every sub-phase's `authoring` receipt, summed.
    pub authoring: AuthoringReceipt,
    /// The last stage that ran, when the host ended the night early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancelled_after: Option<String>,
    /// The completion rows written (`memq_maintenance`; none for a
    /// cancelled, `report_only` or `as_of` night).
    pub completion: Vec<MaintenanceRow>,
}

fn cancelled_reason(after: &str) -> String {
    format!("cancelled: the host ended the night after {after}, before this sub-phase began")
}

impl MemorySystem {
    /// ONE night (see the module doc).
    ///
    /// # Errors
    /// `InvalidInput`, before any sub-phase runs, for `as_of` with a write,
    /// a write on a home opened without its task queue, no scope pair or a
    /// blank scope, a blank owner, a `max_candidates` outside the band, an
    /// invalid tuning or vector floor; a sub-phase's failure (the phases
    /// before it stay written, each whole).
    pub fn sleep_pass(
        &self,
        args: &SleepPass,
        author: Option<&dyn Author>,
        hooks: &NightHooks<'_>,
    ) -> Result<Warned<SleepResult>> {
        if args.as_of.is_some() && !args.report_only {
            return Err(Error::invalid(
                "sleep_pass: as_of anchors an audit read; a night written against a past anchor would \
                 forge the timeline: pass report_only=true with as_of",
            ));
        }
        if !args.report_only && !self.home.has_task_queue() {
            return Err(Error::invalid(
                "sleep_pass refused before writing anything: a night forms pending titles and \
                 summaries and records its completion in the home's task queue \
                 (MemorySystem(task_queue=True)), which this home was not opened with",
            ));
        }
        args.tuning.validate()?;
        args.tuning.validated_candidate_cap(args.max_candidates)?;
        let pairs = sleep_pairs("sleep_pass", &args.scopes)?;
        if am_triples::assertion::py_strip(&args.owner_id).is_empty() {
            return Err(Error::invalid(
                "sleep_pass needs an owner_id (the sleeper), got a blank one",
            ));
        }
        if !(args.embedder_similarity_floor.is_finite()
            && (-1.0..=1.0).contains(&args.embedder_similarity_floor))
        {
            return Err(Error::invalid(format!(
                "sleep_pass: embedder_similarity_floor must be a cosine in [-1, 1], got {}",
                args.embedder_similarity_floor
            )));
        }
        let mut warnings = Vec::new();
        let mut result = SleepResult {
            pass_name: "sleep_pass".to_owned(),
            phases: NIGHT_PHASES.iter().map(|p| (*p).to_owned()).collect(),
            resolution: Phase::default(),
            maintenance: Phase::default(),
            world_models: world_models_skipped(WORLD_MODELS_AS_OF.to_owned()),
            dream: DreamResult::default(),
            authoring: AuthoringReceipt::default(),
            cancelled_after: None,
            completion: Vec::new(),
        };
        let mut last = CANCELLED_AT_START;

        // 1. resolution
        if hooks.goes_on() {
            let mut r = ResolveDreams::new(&[], &args.owner_id);
            r.scopes.clone_from(&pairs);
            r.report_only = args.report_only;
            r.as_of = args.as_of;
            r.tuning = args.tuning.clone();
            let done = self.resolve_dreams_pass(&r)?;
            warnings.extend(done.warnings);
            result.resolution.result = done.value;
            last = "resolution";
            hooks.done(
                "resolution",
                &format!(
                    "{} standing dream(s) examined, {} settled by the day",
                    result.resolution.result.examined,
                    result.resolution.result.resolved.len()
                ),
            );
        } else {
            return Ok(Warned::new(
                self.cancelled_night(result, last, hooks),
                warnings,
            ));
        }

        // 2. maintenance (the tending)
        if hooks.goes_on() {
            let mut c = ConsolidationPass::new(&[], &args.owner_id);
            c.scopes.clone_from(&pairs);
            c.max_candidates = args.max_candidates;
            c.report_only = args.report_only;
            c.as_of = args.as_of;
            c.scan_limit = args.scan_limit;
            c.tuning = args.tuning.clone();
            let done = self.consolidation_pass(&c, author)?;
            warnings.extend(done.warnings);
            result.authoring.absorb(done.value.authoring.clone());
            result.maintenance.result = done.value;
            last = "maintenance";
            hooks.done(
                "maintenance",
                &format!(
                    "{} operation(s) proposed, {} candidate(s) formed",
                    result.maintenance.result.report.operations.len(),
                    result.maintenance.result.created_count
                ),
            );
        } else {
            return Ok(Warned::new(
                self.cancelled_night(result, last, hooks),
                warnings,
            ));
        }

        // 3. world_models
        if !hooks.goes_on() {
            return Ok(Warned::new(
                self.cancelled_night(result, last, hooks),
                warnings,
            ));
        }
        if args.as_of.is_some() {
            // 0.3.2's rule: the cards read current state only, so an
            // anchored night skips them; `last` stays `maintenance`.
            result.world_models = world_models_skipped(WORLD_MODELS_AS_OF.to_owned());
            hooks.done("world_models", &format!("skipped: {WORLD_MODELS_AS_OF}"));
        } else {
            let mut w = WorldModelPass::new(&[], &args.owner_id);
            w.scopes.clone_from(&pairs);
            w.report_only = args.report_only;
            w.tuning = args.tuning.clone();
            let done = self.world_model_pass(&w, author)?;
            result.authoring.absorb(done.authoring.clone());
            result.world_models = Phase {
                result: done,
                skipped_reason: None,
            };
            last = "world_models";
            hooks.done(
                "world_models",
                &format!(
                    "{} target(s) seen, {} card(s) formed, {} unchanged",
                    result.world_models.result.targets_seen,
                    result.world_models.result.formed_count,
                    result.world_models.result.unchanged.len()
                ),
            );
        }

        // 4. dream
        if !hooks.goes_on() {
            return Ok(Warned::new(
                self.cancelled_night(result, last, hooks),
                warnings,
            ));
        }
        if args.include_dream {
            let mut d = DreamPass::new(&[], &args.owner_id);
            d.scopes.clone_from(&pairs);
            d.salience_floor = args.salience_floor;
            d.max_sources = args.max_sources;
            d.embedder_similarity_floor = args.embedder_similarity_floor;
            d.report_only = args.report_only;
            d.as_of = args.as_of;
            d.maintenance_ops = result.maintenance.result.report.operations.len() as u64;
            d.tuning = args.tuning.clone();
            let phases = NightPhases {
                resolution: Some(&result.resolution.result),
                maintenance: Some(&result.maintenance.result),
                world_models: result
                    .world_models
                    .skipped_reason
                    .is_none()
                    .then_some(&result.world_models.result),
            };
            let done = self.dream_pass_in_night(&d, author, phases)?;
            warnings.extend(done.warnings);
            result.authoring.absorb(done.value.authoring.clone());
            result.dream = done.value;
            let account = match (&result.dream.dream_record_id, &result.dream.skipped_reason) {
                (Some(id), _) if result.dream.created => format!("dreamed {id}"),
                (Some(id), _) => format!("the dream {id} already stood"),
                (None, Some(why)) => why.clone(),
                (None, None) => "no dream".to_owned(),
            };
            hooks.done("dream", &account);
        } else {
            result.dream = DreamResult {
                pass_name: "dream_pass".to_owned(),
                skipped_reason: Some(
                    "cycle window: the dream keeps its nightly cadence (include_dream=false)"
                        .to_owned(),
                ),
                ..DreamResult::default()
            };
            hooks.done("dream", "skipped: cycle window (include_dream=false)");
        }

        // The completion marker, the cancellation asked once more first.
        if hooks.cancelled.is_some_and(|f| f()) {
            result.cancelled_after = Some("dream".to_owned());
            return Ok(Warned::new(result, warnings));
        }
        if !args.report_only && args.as_of.is_none() {
            let record = RecordMaintenance {
                scopes: pairs,
                kind: if args.include_dream {
                    MaintenanceKind::Night
                } else {
                    MaintenanceKind::Cycle
                },
                detail: json!({
                    "pass": "sleep_pass",
                    "dream_record_id": result.dream.dream_record_id,
                    "resolved": result.resolution.result.resolved_count,
                    "candidates_formed": result.maintenance.result.created_count,
                }),
                now: None,
            };
            result.completion = self.tasks()?.record_maintenance(&record)?;
        }
        Ok(Warned::new(result, warnings))
    }

    /// The night ended at a boundary after `after`: every sub-phase not run
    /// skipped in its own shape, saying so.
    fn cancelled_night(
        &self,
        mut result: SleepResult,
        after: &str,
        hooks: &NightHooks<'_>,
    ) -> SleepResult {
        let why = cancelled_reason(after);
        let ran = |p: &str| match after {
            CANCELLED_AT_START => false,
            "resolution" => p == "resolution",
            "maintenance" => p == "resolution" || p == "maintenance",
            _ => p != "dream",
        };
        if !ran("resolution") {
            result.resolution = Phase {
                result: ResolveDreamsResult {
                    pass_name: "resolve_dreams_pass".to_owned(),
                    ..ResolveDreamsResult::default()
                },
                skipped_reason: Some(why.clone()),
            };
            hooks.done("resolution", &why);
        }
        if !ran("maintenance") {
            result.maintenance = Phase {
                result: ConsolidationResult {
                    pass_name: "consolidation_pass".to_owned(),
                    report: super::maintenance::Maintenance {
                        pass_name: "maintenance_report".to_owned(),
                        ..super::maintenance::Maintenance::default()
                    },
                    ..ConsolidationResult::default()
                },
                skipped_reason: Some(why.clone()),
            };
            hooks.done("maintenance", &why);
        }
        if !ran("world_models") {
            result.world_models = world_models_skipped(why.clone());
            hooks.done("world_models", &why);
        }
        result.dream = DreamResult {
            pass_name: "dream_pass".to_owned(),
            report: Structure::default(),
            skipped_reason: Some(why.clone()),
            ..DreamResult::default()
        };
        hooks.done("dream", &why);
        result.cancelled_after = Some(after.to_owned());
        result
    }
}
