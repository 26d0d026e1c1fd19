//! Ripple (ADR 0001, v1): when a memory's meaning changes, the memories
//! that lean on it are reconsidered, hop by hop, while the impact clears
//! the activation gate.
//!
//! `seed_ripple` opens a ripple: it validates the cause, measures the
//! magnitude (`measured_change`), reads the seed owner's graph once
//! ([`graph::OwnerGraph`], kept between calls and caught up from the
//! change feed and the journal's tail: [`graph::GraphIndex`]) and runs the
//! gate over the seed's candidates: each receives `impact × reliance ×
//! DECAY`, accumulated over every source of the ripple, and is
//! reconsidered when `logistic(potential)` reaches `GATE_FLOOR` (potential
//! ≥ 0.1338), at most `MAX_HOPS` out, at most `budget` per ripple, once per
//! ripple. Every decision is a row of
//! `ripple_decisions` with its potential; the ripple is a row of `ripples`;
//! a `reconsider` decision is a `ripple.reconsider` task carrying
//! `ripple_id` and `hop`. Plan purely, then one transaction
//! (`ripple.seed`). `settle_reconsideration` settles one task: `unchanged`
//! acks it; `rewritten` (after the host's `rewrite_digest(...,
//! task_id=)`) hands `min(received, measured)` one hop further through the
//! same gate (`ripple.settle`). When no reconsideration is live the ripple
//! settles; two or more changes queue one `ripple.consolidate` task (night
//! windows only). The ripple writes no memory and closes nothing.
//!
//! Choices the spec leaves open are ours, each in docs/ripple.md (with the
//! decision table) and named in the tests.
//!
//! Spec: api.md "Ripple: a change reconsidered through connected memories";
//! memory-system.md "The ripple: what a change does to what leaned on it".

pub mod args;
pub mod consolidate;
pub(crate) mod graph;

pub use args::{
    Change, Decision, GateDecision, LeftOutMemory, ListRipples, ReconsiderOutcome, RefreshRipples,
    RippleStatus, SeedResult, SeedRipple, SettleReconsideration, SettleResult,
};

use crate::config::{RIPPLE_MOVED_DISTANCE, RIPPLE_SIMILARITY_FLOOR};
use crate::error::{Error, Result};
use crate::outcome::Warned;
use crate::record::DigestRow;
use crate::system::MemorySystem;
use crate::tasks::{CHANGE_MAGNITUDE, DECAY, Enqueue, GATE_FLOOR, MAX_HOPS, activation};
use am_journal::{
    Cell, CellRow, Column, HomeRow, TableDef, TaskKind, TaskRow, TaskStatus, get_row, put_cell_row,
    put_cell_rows, rows,
};
use am_triples::{CommitPoint, Timestamp};
pub use consolidate::{ConsolidationResult, FormConsolidation, RevertRipple};
use graph::OwnerGraph;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;

/// `ripples`: one row per ripple, keyed by its id.
pub const RIPPLES_TABLE: TableDef = TableDef {
    name: "ripples",
    columns: &[
        Column::text("ripple_id"),
        Column::text("scope"),
        Column::text("owner_id"),
        Column::text("seed_id"),
        Column::text("seed_assertion_id"),
        Column::integer("seed_version"),
        Column::json("cause"),
        Column::text("change"),
        Column::real("magnitude"),
        Column::text("surprise").nullable(),
        Column::integer("budget"),
        Column::text("status"),
        Column::json("changed"),
        Column::json("left_out"),
        Column::text("consolidate_task_id").nullable(),
        Column::text("opened_at"),
        Column::text("settled_at").nullable(),
    ],
    key: 1,
    indexes: &[],
};

/// `ripple_decisions`: every gate decision, `(ripple_id, n)` in the order
/// made.
pub const DECISIONS_TABLE: TableDef = TableDef {
    name: "ripple_decisions",
    columns: &[
        Column::text("ripple_id"),
        Column::integer("n"),
        Column::text("record_id"),
        Column::integer("hop"),
        Column::text("from_id").nullable(),
        Column::text("via"),
        Column::real("reliance"),
        Column::real("received"),
        Column::real("contribution"),
        Column::real("potential"),
        Column::real("activation"),
        Column::text("decision"),
        Column::text("task_id").nullable(),
        Column::text("decided_at"),
    ],
    key: 2,
    indexes: &[],
};

/// A memory a ripple changed: its versions before and after, and what it
/// handed on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChangedMemory {
    /// The memory.
    pub record_id: String,
    /// Its hop.
    pub hop: i64,
    /// The digest version the reconsideration read.
    pub before_version: i64,
    /// The digest version the rewrite made.
    pub after_version: i64,
    /// The impact it received.
    pub received: f64,
    /// The impact it handed on.
    pub onward: f64,
    /// Its task.
    pub task_id: String,
}

/// One ripple (a `ripples` row): its cause, magnitude, surprise, budget,
/// changed members and `left_out`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RippleRow {
    /// `H(ripple|seed|cause|seed version)[:32]`.
    pub ripple_id: String,
    /// The seed's scope.
    pub scope: String,
    /// The seed's owner: only their memories are candidates.
    pub owner_id: String,
    /// The changed memory.
    pub seed_id: String,
    /// Its digest assertion.
    pub seed_assertion_id: String,
    /// Its digest version when the ripple opened.
    pub seed_version: i64,
    /// The cause as given.
    pub cause: Value,
    /// The reader's change.
    pub change: Change,
    /// The impact at the seed.
    pub magnitude: f64,
    /// The entity's own words, as given.
    pub surprise: Option<String>,
    /// Reconsiderations allowed.
    pub budget: i64,
    /// Where it stands.
    pub status: RippleStatus,
    /// The memories it changed, in settlement order.
    pub changed: Vec<ChangedMemory>,
    /// The candidates left out (protected, past `MAX_HOPS`, over budget).
    pub left_out: Vec<LeftOutMemory>,
    /// Its `ripple.consolidate` task, once queued.
    pub consolidate_task_id: Option<String>,
    /// When it opened.
    pub opened_at: String,
    /// When it settled.
    pub settled_at: Option<String>,
}

impl HomeRow for RippleRow {
    const TABLE: &'static TableDef = &RIPPLES_TABLE;
}

/// A seed's row holds every left-out candidate (a thousand at a budget
/// stop): its lists are written as JSON text, not built as JSON values.
impl CellRow for RippleRow {
    fn cells(&self) -> Vec<Cell<'_>> {
        vec![
            Cell::Text(&self.ripple_id),
            Cell::Text(&self.scope),
            Cell::Text(&self.owner_id),
            Cell::Text(&self.seed_id),
            Cell::Text(&self.seed_assertion_id),
            Cell::Integer(self.seed_version),
            Cell::Json(&self.cause),
            Cell::Text(self.change.as_str()),
            Cell::Real(self.magnitude),
            Cell::text_or_null(self.surprise.as_deref()),
            Cell::Integer(self.budget),
            Cell::Text(self.status.as_str()),
            Cell::Serialized(&self.changed),
            Cell::Serialized(&self.left_out),
            Cell::text_or_null(self.consolidate_task_id.as_deref()),
            Cell::Text(&self.opened_at),
            Cell::text_or_null(self.settled_at.as_deref()),
        ]
    }
}

/// One stored decision (a `ripple_decisions` row).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionRow {
    /// The ripple.
    pub ripple_id: String,
    /// Its ordinal in the ripple.
    pub n: i64,
    /// The memory decided on.
    pub record_id: String,
    /// Its hop.
    pub hop: i64,
    /// The source.
    pub from_id: Option<String>,
    /// How it was reached.
    pub via: String,
    /// Reliance on the source.
    pub reliance: f64,
    /// The impact the source handed on.
    pub received: f64,
    /// What this source added.
    pub contribution: f64,
    /// Accumulated potential.
    pub potential: f64,
    /// `logistic(potential)`.
    pub activation: f64,
    /// The gate's word.
    pub decision: Decision,
    /// Its task, for `reconsider`.
    pub task_id: Option<String>,
    /// When.
    pub decided_at: String,
}

impl HomeRow for DecisionRow {
    const TABLE: &'static TableDef = &DECISIONS_TABLE;
}

/// A ripple writes a thousand of these in one call: stored by its cells,
/// not through a row object.
impl CellRow for DecisionRow {
    fn cells(&self) -> Vec<Cell<'_>> {
        vec![
            Cell::Text(&self.ripple_id),
            Cell::Integer(self.n),
            Cell::Text(&self.record_id),
            Cell::Integer(self.hop),
            Cell::text_or_null(self.from_id.as_deref()),
            Cell::Text(&self.via),
            Cell::Real(self.reliance),
            Cell::Real(self.received),
            Cell::Real(self.contribution),
            Cell::Real(self.potential),
            Cell::Real(self.activation),
            Cell::Text(self.decision.as_str()),
            Cell::text_or_null(self.task_id.as_deref()),
            Cell::Text(&self.decided_at),
        ]
    }
}

impl DecisionRow {
    fn view(&self) -> GateDecision {
        GateDecision {
            record_id: self.record_id.clone(),
            hop: self.hop,
            from: self.from_id.clone(),
            via: self.via.clone(),
            reliance: self.reliance,
            received: self.received,
            contribution: self.contribution,
            potential: self.potential,
            activation: self.activation,
            decision: self.decision,
            task_id: self.task_id.clone(),
        }
    }
}

/// `ripple(ripple_id)`: the ripple with its member tasks and every gate
/// decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RippleDetail {
    /// The ripple.
    #[serde(flatten)]
    pub ripple: RippleRow,
    /// Its `ripple.reconsider` / `ripple.consolidate` tasks.
    pub tasks: Vec<TaskRow>,
    /// Every gate decision, in the order made.
    pub decisions: Vec<GateDecision>,
}

/// `measured_change(change, cosine_distance)`: the reader's magnitude
/// (`CHANGE_MAGNITUDE`), scaled down by `d / RIPPLE_MOVED_DISTANCE` when
/// the vectors show the text barely moved, never up.
///
/// # Errors
/// `InvalidInput` for a distance outside [0, 2] or not finite.
pub fn measured_change(change: Change, cosine_distance: Option<f64>) -> Result<f64> {
    let base = CHANGE_MAGNITUDE
        .iter()
        .find(|(c, _)| *c == change.as_str())
        .map_or(0.0, |(_, m)| *m);
    let Some(d) = cosine_distance else {
        return Ok(base);
    };
    if !d.is_finite() || !(0.0..=2.0).contains(&d) {
        return Err(Error::invalid(format!(
            "cosine_distance is a distance in [0, 2], got {d}"
        )));
    }
    Ok(base * (d / RIPPLE_MOVED_DISTANCE).min(1.0))
}

/// `similarity_weight(cosine)`: how much a neighbour by meaning relies on a
/// source, `(cos − RIPPLE_SIMILARITY_FLOOR) / (1 − RIPPLE_SIMILARITY_FLOOR)`
/// clamped to [0, 1].
pub fn similarity_weight(cosine: f64) -> f64 {
    ((cosine - RIPPLE_SIMILARITY_FLOOR) / (1.0 - RIPPLE_SIMILARITY_FLOOR)).clamp(0.0, 1.0)
}

/// The cause's name, validated: a `REWRITE_CAUSES` name or a mapping whose
/// `cause` is one; `evidence` needs a mapping holding its `evidence`.
fn cause_name(cause: &Value) -> Result<String> {
    let (name, map) = match cause {
        Value::String(s) => (s.trim().to_owned(), None),
        Value::Object(m) => (
            m.get("cause")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim()
                .to_owned(),
            Some(m),
        ),
        other => {
            return Err(Error::invalid(format!(
                "a ripple's cause is a cause name or a mapping with `cause`, got {other}"
            )));
        }
    };
    if !am_journal::version::REWRITE_CAUSES.contains(&name.as_str()) {
        return Err(Error::invalid(format!(
            "a ripple's cause must be one of {:?}, got {name:?}",
            am_journal::version::REWRITE_CAUSES
        )));
    }
    if name == "evidence" {
        let has = map
            .and_then(|m| m.get("evidence"))
            .is_some_and(|e| match e {
                Value::Array(a) => !a.is_empty(),
                Value::Null => false,
                Value::String(s) => !s.trim().is_empty(),
                _ => true,
            });
        if !has {
            return Err(Error::invalid(
                "an `evidence` ripple is the entity's revise election: pass the election and its \
                 evidence in the cause mapping ({\"cause\": \"evidence\", \"election\": ..., \"evidence\": [...]})",
            ));
        }
    }
    Ok(name)
}

fn canonical(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// The gate over one source's candidates, in memory: the decisions made and
/// the tasks to queue.
struct Gate<'a> {
    ripple_id: &'a str,
    seed_id: &'a str,
    budget: usize,
    now: &'a str,
    /// Accumulated potential by record.
    potential: HashMap<String, f64>,
    /// Records already reconsidered in the ripple.
    reconsidered: Vec<String>,
    /// How many reconsiderations count against the budget.
    spent: usize,
    next_n: i64,
    made: Vec<DecisionRow>,
}

impl<'a> Gate<'a> {
    fn over(
        ripple_id: &'a str,
        seed_id: &'a str,
        budget: usize,
        now: &'a str,
        prior: &[DecisionRow],
    ) -> Self {
        let mut g = Gate {
            ripple_id,
            seed_id,
            budget,
            now,
            potential: HashMap::new(),
            reconsidered: Vec::new(),
            spent: 0,
            next_n: prior.iter().map(|d| d.n + 1).max().unwrap_or(0),
            made: Vec::new(),
        };
        for d in prior {
            g.potential.insert(d.record_id.clone(), d.potential);
            if d.decision == Decision::Reconsider {
                g.reconsidered.push(d.record_id.clone());
                if d.hop > 0 {
                    g.spent += 1;
                }
            }
        }
        g
    }

    /// Decide on `source`'s candidates at `hop` with the impact `received`:
    /// strongest contribution first (then id), so a budget stop keeps the
    /// strongest.
    fn run(
        &mut self,
        graph: &OwnerGraph,
        source: &str,
        hop: i64,
        received: f64,
        mut cands: Vec<(String, f64, String)>,
    ) {
        cands.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        for (id, reliance, via) in cands {
            let contribution = received * reliance * DECAY;
            let potential = self.potential.get(&id).copied().unwrap_or(0.0) + contribution;
            let act = activation(potential, 1.0);
            let rec = graph.records.get(&id);
            let decision = if id == self.seed_id || self.reconsidered.contains(&id) {
                Decision::Refractory
            } else if rec.is_none_or(|r| r.closed) {
                Decision::Closed
            } else if rec.is_some_and(|r| r.protected) {
                Decision::Protected
            } else if act < GATE_FLOOR {
                Decision::BelowFloor
            } else if hop > i64::from(MAX_HOPS) {
                Decision::MaxHops
            } else if self.spent >= self.budget {
                Decision::Budget
            } else {
                Decision::Reconsider
            };
            if decision != Decision::Refractory {
                self.potential.insert(id.clone(), potential);
            }
            if decision == Decision::Reconsider {
                self.reconsidered.push(id.clone());
                self.spent += 1;
            }
            self.push(DecisionRow {
                ripple_id: self.ripple_id.to_owned(),
                n: 0,
                record_id: id,
                hop,
                from_id: Some(source.to_owned()),
                via,
                reliance,
                received,
                contribution,
                potential,
                activation: act,
                decision,
                task_id: None,
                decided_at: self.now.to_owned(),
            });
        }
    }

    fn push(&mut self, mut d: DecisionRow) {
        d.n = self.next_n;
        self.next_n += 1;
        self.made.push(d);
    }
}

/// The `ripple.reconsider` task of a decision (its id is filled in).
fn reconsider_enqueue(
    ripple: &RippleRow,
    d: &DecisionRow,
    rec: &graph::Rec,
    depends_on: &[String],
) -> Enqueue {
    let mut e = Enqueue::new(
        TaskKind::RippleReconsider,
        &d.record_id,
        (&rec.scope, &rec.owner_id),
        &format!("{}@ripple:{}", rec.assertion_id, ripple.ripple_id),
        d.potential.clamp(0.0, 1.0),
        json!({"cause": "ripple", "ripple_id": ripple.ripple_id, "seed_id": ripple.seed_id,
               "hops": d.hop, "from": d.from_id, "via": d.via}),
    );
    e.assertion_id = rec.assertion_id.clone();
    e.basis_version = rec.version;
    e.ripple_id = Some(ripple.ripple_id.clone());
    e.hop = Some(d.hop);
    e.depends_on = depends_on.to_vec();
    e
}

fn left_out_of(decisions: &[DecisionRow]) -> Vec<LeftOutMemory> {
    decisions
        .iter()
        .filter(|d| d.decision.is_left_out())
        .map(|d| LeftOutMemory {
            record_id: d.record_id.clone(),
            decision: d.decision,
            potential: d.potential,
            hop: d.hop,
        })
        .collect()
}

fn truncation_warning(ripple_id: &str, n: usize, budget: usize) -> String {
    format!(
        "#[WARNING:TRUNCATION] ripple {ripple_id}: {n} candidate(s) over the budget of {budget} \
         reconsiderations were left out (listed in left_out)"
    )
}

/// A planned `seed_ripple`: its answer and, when it opens a ripple, what
/// it writes.
pub(crate) struct SeedPlan {
    pub(crate) result: Warned<SeedResult>,
    pub(crate) write: Option<SeedWrite>,
}

impl SeedPlan {
    fn answer(result: Warned<SeedResult>) -> Self {
        SeedPlan {
            result,
            write: None,
        }
    }
}

/// The rows and tasks a new ripple writes.
pub(crate) struct SeedWrite {
    ripple: RippleRow,
    decisions: Vec<DecisionRow>,
    pub(crate) enqueues: Vec<Enqueue>,
}

impl SeedWrite {
    /// The ripple it opens.
    pub(crate) fn ripple_id(&self) -> &str {
        &self.ripple.ripple_id
    }

    /// Write the ripple's row, its decisions and its tasks (`plans`, the
    /// queue's plan of `enqueues`) in the caller's transaction.
    pub(crate) fn apply(
        &self,
        tx: &mut dyn am_journal::home::HomeTx,
        plans: &[crate::tasks::PlannedEnqueue],
    ) -> am_triples::Result<()> {
        {
            let tables = tx.tables()?;
            put_cell_row(tables, &self.ripple)?;
            put_cell_rows(tables, &self.decisions)?;
        }
        let tasks = tx.tasks()?;
        for p in plans {
            crate::tasks::enqueue_in(tasks, p)?;
        }
        Ok(())
    }
}

impl MemorySystem {
    fn ripple_now(&self, over: Option<Timestamp>) -> String {
        over.unwrap_or_else(|| (self.clock)()).canonical()
    }

    fn ripple_reads(&self, ripple_id: &str) -> Result<(Option<RippleRow>, Vec<DecisionRow>)> {
        let mut out = (None, Vec::new());
        self.home.read_tables(&mut |r| {
            out.0 = get_row::<RippleRow>(r, &[json!(ripple_id)])?;
            out.1 = rows::<DecisionRow>(r, &[("ripple_id", json!(ripple_id))])?;
            Ok(())
        })?;
        out.1.sort_by_key(|d| d.n);
        Ok(out)
    }

    /// `seed_ripple`: open a ripple on a changed memory (see the module
    /// docs). A refusal (`unknown_record`, `closed`) is an `Ok` result with
    /// its `reason`, nothing written; a repeat on the same (seed, cause, seed
    /// version) returns the stored ripple (`opened: false`).
    ///
    /// # Errors
    /// `InvalidInput` for a home without a task queue, a cause outside
    /// `REWRITE_CAUSES` (or an `evidence` cause without its evidence), a
    /// change other than `revised` / `overturned`, a magnitude outside
    /// [0, 1], a distance outside [0, 2]; the guard's refusal; the home's
    /// failure.
    pub fn seed_ripple(&self, args: &SeedRipple) -> Result<Warned<SeedResult>> {
        let queue = self.tasks()?;
        let plan = self.plan_seed_ripple(args)?;
        let Some(write) = plan.write else {
            return Ok(plan.result);
        };
        let plans = queue.plan_enqueues(&write.enqueues)?;
        self.home.transaction(CommitPoint::RippleSeed, &mut |tx| {
            write.apply(tx, &plans)?;
            Ok(())
        })?;
        Ok(plan.result)
    }

    /// `seed_ripple` planned, nothing written: its answer and, when it
    /// opens a ripple, the rows and tasks to write (the tending elections
    /// write them in their one transaction).
    pub(crate) fn plan_seed_ripple(&self, args: &SeedRipple) -> Result<SeedPlan> {
        self.tasks()?;
        let cause = cause_name(&args.cause)?;
        if !matches!(args.change, Change::Revised | Change::Overturned) {
            return Err(Error::invalid(format!(
                "a ripple opens on a `revised` or `overturned` reading, got {:?}",
                args.change.as_str()
            )));
        }
        let measured = measured_change(args.change, args.cosine_distance)?;
        let magnitude = match args.magnitude {
            Some(m) if !m.is_finite() || !(0.0..=1.0).contains(&m) => {
                return Err(Error::invalid(format!(
                    "magnitude is an impact in [0, 1], got {m}"
                )));
            }
            Some(m) => m,
            None => measured,
        };
        let refused = |reason: &str| {
            Ok(SeedPlan::answer(Warned::new(
                SeedResult {
                    ripple_id: String::new(),
                    opened: false,
                    magnitude,
                    decisions: Vec::new(),
                    reconsider_task_ids: Vec::new(),
                    left_out: Vec::new(),
                    reason: Some(reason.to_owned()),
                },
                Vec::new(),
            )))
        };
        let Some(seed_row) = self.resolve_digest_assertion(args.seed_id.trim())? else {
            return refused("unknown_record");
        };
        if DigestRow::of(&seed_row).kind_text().is_none() {
            return refused("unknown_record");
        }
        let seed_id = seed_row.subject.clone();
        let owner = seed_row.owner_id.clone().unwrap_or_default();
        let mut graph = self.ripple_graph(&owner)?;
        let Some(seed) = graph.records.get(&seed_id).cloned() else {
            return refused("unknown_record");
        };
        if seed.closed {
            return refused("closed");
        }
        let ripple_id = am_journal::common::hash_hex(
            &format!(
                "ripple|{seed_id}|{}|{}",
                canonical(&args.cause),
                seed.version
            ),
            32,
        );
        // Idempotent on (seed, cause, seed version).
        let (stored, stored_decisions) = self.ripple_reads(&ripple_id)?;
        if let Some(r) = stored {
            return Ok(SeedPlan::answer(Warned::new(
                SeedResult {
                    ripple_id,
                    opened: false,
                    magnitude: r.magnitude,
                    reconsider_task_ids: stored_decisions
                        .iter()
                        .filter_map(|d| d.task_id.clone())
                        .collect(),
                    decisions: stored_decisions.iter().map(DecisionRow::view).collect(),
                    left_out: r.left_out,
                    reason: None,
                },
                Vec::new(),
            )));
        }
        let now = self.ripple_now(args.now);
        let reconsider_seed = args.reconsider_seed.unwrap_or(cause == "evidence");
        let mut gate = Gate::over(&ripple_id, &seed_id, args.budget, &now, &[]);
        if reconsider_seed {
            gate.reconsidered.push(seed_id.clone());
            gate.push(DecisionRow {
                ripple_id: ripple_id.clone(),
                n: 0,
                record_id: seed_id.clone(),
                hop: 0,
                from_id: None,
                via: "seed".to_owned(),
                reliance: 1.0,
                received: magnitude,
                contribution: magnitude,
                potential: magnitude,
                activation: activation(magnitude, 1.0),
                decision: Decision::Reconsider,
                task_id: None,
                decided_at: now.clone(),
            });
        }
        let cands = graph.candidates(self.store.as_ref(), &seed_id)?;
        gate.run(&graph, &seed_id, 1, magnitude, cands);
        let mut decisions = gate.made;
        let mut ripple = RippleRow {
            ripple_id: ripple_id.clone(),
            scope: seed.scope.clone(),
            owner_id: owner.clone(),
            seed_id: seed_id.clone(),
            seed_assertion_id: seed.assertion_id.clone(),
            seed_version: seed.version,
            cause: args.cause.clone(),
            change: args.change,
            magnitude,
            surprise: args.surprise.clone(),
            budget: i64::try_from(args.budget).unwrap_or(i64::MAX),
            status: RippleStatus::Open,
            changed: Vec::new(),
            left_out: left_out_of(&decisions),
            consolidate_task_id: None,
            opened_at: now.clone(),
            settled_at: None,
        };
        // The tasks: the seed's first, its neighbours waiting for it.
        let mut enqueues = Vec::new();
        let mut seed_task: Vec<String> = Vec::new();
        for d in &decisions {
            if d.decision != Decision::Reconsider {
                continue;
            }
            let rec = &graph.records[&d.record_id];
            let e = reconsider_enqueue(&ripple, d, rec, &seed_task);
            if d.hop == 0 {
                seed_task.push(crate::tasks::task_id(e.kind, &e.target_id, &e.basis));
            }
            enqueues.push(e);
        }
        let mut i = 0;
        for d in &mut decisions {
            if d.decision == Decision::Reconsider {
                let e = &enqueues[i];
                d.task_id = Some(crate::tasks::task_id(e.kind, &e.target_id, &e.basis));
                i += 1;
            }
        }
        if enqueues.is_empty() {
            ripple.status = RippleStatus::Settled;
            ripple.settled_at = Some(now.clone());
        }
        let over_budget = decisions
            .iter()
            .filter(|d| d.decision == Decision::Budget)
            .count();
        let warnings = if over_budget > 0 {
            vec![truncation_warning(&ripple_id, over_budget, args.budget)]
        } else {
            Vec::new()
        };
        let result = SeedResult {
            ripple_id: ripple_id.clone(),
            opened: !args.dry_run,
            magnitude,
            decisions: decisions.iter().map(DecisionRow::view).collect(),
            reconsider_task_ids: decisions.iter().filter_map(|d| d.task_id.clone()).collect(),
            left_out: ripple.left_out.clone(),
            reason: None,
        };
        if args.dry_run {
            // Nothing is queued: no task ids.
            let mut result = result;
            result.reconsider_task_ids.clear();
            for d in &mut result.decisions {
                d.task_id = None;
            }
            return Ok(SeedPlan::answer(Warned::new(result, warnings)));
        }
        Ok(SeedPlan {
            result: Warned::new(result, warnings),
            write: Some(SeedWrite {
                ripple,
                decisions,
                enqueues,
            }),
        })
    }

    /// `settle_reconsideration`: settle one `ripple.reconsider` task (see
    /// the module docs). A refusal (`not_holder`: leased by another holder;
    /// `not_live`: an `unchanged` for a task already settled, or a second
    /// settlement; `not_rewritten`: a `rewritten` whose record still reads
    /// the version the task read) is an `Ok` result, nothing written.
    ///
    /// # Errors
    /// `InvalidInput` for an unknown task, a task of another kind, a task
    /// of no stored ripple, a distance outside [0, 2]; the guard's refusal;
    /// the home's failure.
    pub fn settle_reconsideration(
        &self,
        args: &SettleReconsideration,
    ) -> Result<Warned<SettleResult>> {
        let queue = self.tasks()?;
        let Some(task) = queue.task(args.task_id.trim())? else {
            return Err(Error::invalid(format!(
                "no task {:?} in this home's queue",
                args.task_id
            )));
        };
        if task.kind != TaskKind::RippleReconsider {
            return Err(Error::invalid(format!(
                "settle_reconsideration settles a ripple.reconsider task, {} is a {}",
                task.task_id,
                task.kind.as_str()
            )));
        }
        let ripple_id = task.ripple_id.clone().unwrap_or_default();
        let (Some(mut ripple), prior) = self.ripple_reads(&ripple_id)? else {
            return Err(Error::invalid(format!(
                "task {} names no stored ripple ({ripple_id:?})",
                task.task_id
            )));
        };
        let now = self.ripple_now(args.now);
        let measured = measured_change(args.change.unwrap_or_default(), args.cosine_distance)?;
        let refused = |reason: &str| {
            Ok(Warned::new(
                SettleResult {
                    ripple_id: ripple_id.clone(),
                    outcome: "refused".to_owned(),
                    onward: 0.0,
                    decisions: Vec::new(),
                    status: Some(ripple.status),
                    reason: Some(reason.to_owned()),
                },
                Vec::new(),
            ))
        };
        let status = crate::tasks::effective(&task, &now);
        if status == TaskStatus::Leased && task.holder.as_deref() != Some(args.holder.as_str()) {
            return refused("not_holder");
        }
        if ripple.changed.iter().any(|c| c.task_id == task.task_id) {
            return refused("not_live");
        }
        let hop = task.hop.unwrap_or(0);
        let mut made: Vec<DecisionRow> = Vec::new();
        let mut plans = Vec::new();
        let mut onward = 0.0;
        let mut result = json!({"outcome": "unchanged", "ripple_id": ripple_id});
        match args.outcome {
            ReconsiderOutcome::Unchanged => {
                if !status.is_live() {
                    return refused("not_live");
                }
                if let Some(r) = &args.result {
                    result["result"] = r.clone();
                }
            }
            ReconsiderOutcome::Rewritten => {
                let mut graph = self.ripple_graph(&ripple.owner_id)?;
                let Some(rec) = graph.records.get(&task.target_id).cloned() else {
                    return refused("not_rewritten");
                };
                if rec.version <= task.basis_version {
                    return refused("not_rewritten");
                }
                let received = prior
                    .iter()
                    .rfind(|d| d.task_id.as_deref() == Some(task.task_id.as_str()))
                    .map_or(0.0, |d| d.potential);
                onward = received.min(measured);
                let mut gate = Gate::over(
                    &ripple.ripple_id,
                    &ripple.seed_id,
                    usize::try_from(ripple.budget).unwrap_or(0),
                    &now,
                    &prior,
                );
                // The seed's own re-read hands nothing further: its
                // neighbours were decided when the ripple opened.
                if hop > 0 {
                    let cands = graph.candidates(self.store.as_ref(), &task.target_id)?;
                    gate.run(&graph, &task.target_id, hop + 1, onward, cands);
                }
                made = gate.made;
                let mut enqueues = Vec::new();
                for d in &mut made {
                    if d.decision == Decision::Reconsider {
                        let e = reconsider_enqueue(&ripple, d, &graph.records[&d.record_id], &[]);
                        d.task_id = Some(crate::tasks::task_id(e.kind, &e.target_id, &e.basis));
                        enqueues.push(e);
                    }
                }
                plans = queue.plan_enqueues(&enqueues)?;
                ripple.changed.push(ChangedMemory {
                    record_id: task.target_id.clone(),
                    hop,
                    before_version: task.basis_version,
                    after_version: rec.version,
                    received,
                    onward,
                    task_id: task.task_id.clone(),
                });
                ripple.left_out.extend(left_out_of(&made));
                result = json!({"outcome": "rewritten", "ripple_id": ripple_id, "onward": onward,
                                "after_version": rec.version});
                if let Some(r) = &args.result {
                    result["result"] = r.clone();
                }
            }
        }
        // Still live after this settlement: the ripple's other tasks and
        // the ones just queued.
        let others_live = queue
            .tasks(&crate::tasks::ListTasks {
                ripple_id: Some(ripple_id.clone()),
                ..crate::tasks::ListTasks::default()
            })?
            .iter()
            .any(|t| {
                t.task_id != task.task_id
                    && t.kind == TaskKind::RippleReconsider
                    && crate::tasks::effective(t, &now).is_live()
            });
        let consolidate = if !others_live && plans.is_empty() {
            self.settle_row(&mut ripple, &now)?
        } else {
            None
        };
        let over_budget = made
            .iter()
            .filter(|d| d.decision == Decision::Budget)
            .count();
        self.home
            .transaction(CommitPoint::RippleSettle, &mut |tx| {
                {
                    let tables = tx.tables()?;
                    put_cell_row(tables, &ripple)?;
                    put_cell_rows(tables, &made)?;
                }
                let tasks = tx.tasks()?;
                crate::tasks::complete_in(
                    tasks,
                    std::slice::from_ref(&task.task_id),
                    &now,
                    &result,
                )?;
                for p in plans.iter().chain(consolidate.iter()) {
                    crate::tasks::enqueue_in(tasks, p)?;
                }
                Ok(())
            })?;
        let warnings = if over_budget > 0 {
            vec![truncation_warning(
                &ripple_id,
                over_budget,
                usize::try_from(ripple.budget).unwrap_or(0),
            )]
        } else {
            Vec::new()
        };
        Ok(Warned::new(
            SettleResult {
                ripple_id: ripple_id.clone(),
                outcome: match args.outcome {
                    ReconsiderOutcome::Unchanged => "unchanged",
                    ReconsiderOutcome::Rewritten => "rewritten",
                }
                .to_owned(),
                onward,
                decisions: made.iter().map(DecisionRow::view).collect(),
                status: Some(ripple.status),
                reason: None,
            },
            warnings,
        ))
    }

    /// Mark `ripple` settled (at `now`); with two or more changes, plan its
    /// `ripple.consolidate` task (night windows only) and mark it
    /// `consolidating`.
    fn settle_row(
        &self,
        ripple: &mut RippleRow,
        now: &str,
    ) -> Result<Option<crate::tasks::PlannedEnqueue>> {
        ripple.status = RippleStatus::Settled;
        ripple.settled_at = Some(now.to_owned());
        if ripple.changed.len() < 2 {
            return Ok(None);
        }
        let mut e = Enqueue::new(
            TaskKind::RippleConsolidate,
            &ripple.ripple_id,
            (&ripple.scope, &ripple.owner_id),
            &format!("{}@changed:{}", ripple.ripple_id, ripple.changed.len()),
            1.0,
            json!({"cause": "ripple", "ripple_id": ripple.ripple_id, "seed_id": ripple.seed_id}),
        );
        e.ripple_id = Some(ripple.ripple_id.clone());
        e.now = Timestamp::parse(now).ok();
        let plan = self
            .tasks()?
            .plan_enqueues(std::slice::from_ref(&e))?
            .pop()
            .ok_or_else(|| Error::internal("a consolidation plan returned nothing"))?;
        ripple.consolidate_task_id = Some(plan.row.task_id.clone());
        ripple.status = RippleStatus::Consolidating;
        Ok(Some(plan))
    }

    /// `refresh_ripples`: settle the open ripples none of whose
    /// reconsiderations is live (settled, skipped or failed), queueing a
    /// consolidation where two or more memories changed. Returns the
    /// ripples it settled.
    ///
    /// # Errors
    /// `InvalidInput` for a home without a task queue; the guard's refusal;
    /// the home's failure.
    pub fn refresh_ripples(&self, args: &RefreshRipples) -> Result<Vec<RippleRow>> {
        let queue = self.tasks()?;
        let now = self.ripple_now(args.now);
        let mut open: Vec<RippleRow> = Vec::new();
        self.home.read_tables(&mut |r| {
            open = rows(r, &[("status", json!("open"))])?;
            Ok(())
        })?;
        open.sort_by(|a, b| a.ripple_id.cmp(&b.ripple_id));
        let mut settled = Vec::new();
        let mut plans = Vec::new();
        for mut r in open {
            let live = queue
                .tasks(&crate::tasks::ListTasks {
                    ripple_id: Some(r.ripple_id.clone()),
                    ..crate::tasks::ListTasks::default()
                })?
                .iter()
                .any(|t| {
                    t.kind == TaskKind::RippleReconsider
                        && crate::tasks::effective(t, &now).is_live()
                });
            if live {
                continue;
            }
            plans.extend(self.settle_row(&mut r, &now)?);
            settled.push(r);
        }
        if settled.is_empty() {
            return Ok(settled);
        }
        self.home
            .transaction(CommitPoint::RippleSettle, &mut |tx| {
                {
                    let tables = tx.tables()?;
                    for r in &settled {
                        put_cell_row(tables, r)?;
                    }
                }
                let tasks = tx.tasks()?;
                for p in &plans {
                    crate::tasks::enqueue_in(tasks, p)?;
                }
                Ok(())
            })?;
        Ok(settled)
    }

    /// `ripples(*, scope=None, owner_id=None, status=None, limit=50)`: the
    /// ripples, newest first (then by id). A pure read.
    ///
    /// # Errors
    /// The home's read failure.
    pub fn ripples(&self, args: &ListRipples) -> Result<Vec<RippleRow>> {
        let mut filter: Vec<(&str, Value)> = Vec::new();
        if let Some(s) = &args.scope {
            filter.push(("scope", json!(am_triples::canonicalize_term(s))));
        }
        if let Some(o) = &args.owner_id {
            filter.push(("owner_id", json!(o.trim())));
        }
        if let Some(st) = args.status {
            filter.push(("status", json!(st.as_str())));
        }
        let mut out: Vec<RippleRow> = Vec::new();
        self.home.read_tables(&mut |r| {
            out = rows(r, &filter)?;
            Ok(())
        })?;
        out.sort_by(|a, b| {
            b.opened_at
                .cmp(&a.opened_at)
                .then(a.ripple_id.cmp(&b.ripple_id))
        });
        if args.limit > 0 {
            out.truncate(args.limit);
        }
        Ok(out)
    }

    /// `ripple(ripple_id)`: one ripple with its member tasks and every gate
    /// decision, or `None`. A pure read.
    ///
    /// # Errors
    /// The home's read failure.
    pub fn ripple(&self, ripple_id: &str) -> Result<Option<RippleDetail>> {
        let (Some(ripple), decisions) = self.ripple_reads(ripple_id.trim())? else {
            return Ok(None);
        };
        let tasks = if self.has_task_queue() {
            let mut t = self.tasks()?.tasks(&crate::tasks::ListTasks {
                ripple_id: Some(ripple.ripple_id.clone()),
                ..crate::tasks::ListTasks::default()
            })?;
            t.sort_by(|a, b| {
                (a.hop, &a.created_at, &a.task_id).cmp(&(b.hop, &b.created_at, &b.task_id))
            });
            t
        } else {
            Vec::new()
        };
        Ok(Some(RippleDetail {
            ripple,
            tasks,
            decisions: decisions.iter().map(DecisionRow::view).collect(),
        }))
    }
}
