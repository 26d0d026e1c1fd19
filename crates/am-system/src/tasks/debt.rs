//! The drainer's other reads on `MemorySystem`: `understanding_debt` (what
//! is still mechanical or pending), `enqueue_debt` (the backfill: one task
//! per debt record that has none, strength from lived use) and
//! `task_packet` (everything a reader needs for one task, whole items
//! only).
//!
//! Choices the spec leaves open (ours): a record owes `title.author` /
//! `digest.author` per pending field, else `card.author` (a world-model
//! card) or `digest.rewrite` (any other kind outside
//! `UNDERSTANDING_PROTECTED_KINDS`) while its `digest_method` is in
//! `MECHANICAL_DIGEST_METHODS` (plus `methods`); closed records owe
//! nothing. `oldest_pending` is the oldest live task (`{task_id, kind,
//! target_id, created_at}`). The backfill's basis is formation's
//! (`<assertion id>@pending-<field>`, the next free `@<k>` once used) for a
//! pending field and `<assertion id>@v<version>` (`basis_version` the
//! record's version) for a rewrite. A packet counts tokens with
//! `token_estimate` (the target's title and digest first, then each item's
//! title and digest); `sources` are the records a summary `summarizes`,
//! `evidence` a card's record edges, `mentions` a dream's.
//!
//! Spec: api.md "The memory task queue" ("On `MemorySystem`":
//! `understanding_debt`, `enqueue_debt`, `task_packet`).

use super::formation::{MECHANICAL_DIGEST_METHODS, row};
use super::gate::pending_priority;
use super::{PlannedEnqueue, task_id};
use crate::error::{Error, Result};
use crate::kinds::DIGEST_PREDICATE;
use crate::kinds::RecordKind;
use crate::record::DigestRow;
use crate::system::MemorySystem;
use am_journal::{TaskKind, TaskRow};
use am_triples::{CommitPoint, TripleAssertion, TripleQuery};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// `understanding_debt(*, scopes, methods=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnderstandingDebt {
    /// `[(scope, owner_id)]`.
    pub scopes: Vec<(String, String)>,
    /// More digest methods counted as mechanical words.
    #[serde(default)]
    pub methods: Option<Vec<String>>,
}

/// `understanding_debt`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DebtReport {
    /// `{task kind: {record kind: n}}`.
    pub debt: BTreeMap<String, BTreeMap<String, usize>>,
    /// Every debt item.
    pub total: usize,
    /// The debt items no live task owns.
    pub unqueued: usize,
    /// The queue: `{kind: {status: n}}`.
    pub queue: BTreeMap<String, BTreeMap<String, usize>>,
    /// `{capability: n}` over the debt.
    pub by_capability: BTreeMap<String, usize>,
    /// The oldest live task, if any.
    pub oldest_pending: Option<Value>,
    /// The digest methods counted as mechanical.
    pub methods: Vec<String>,
}

fn backfill() -> String {
    "backfill".into()
}

fn ninety() -> i64 {
    90
}

fn yes() -> bool {
    true
}

/// `enqueue_debt(*, scopes, cause="backfill", priority=90, dry_run=True,
/// methods=None, kinds=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnqueueDebt {
    /// `[(scope, owner_id)]`.
    pub scopes: Vec<(String, String)>,
    /// The tasks' cause (default `backfill`).
    #[serde(default = "backfill")]
    pub cause: String,
    /// The tasks' priority (default 90).
    #[serde(default = "ninety")]
    pub priority: i64,
    /// Report without writing (the default).
    #[serde(default = "yes")]
    pub dry_run: bool,
    /// More digest methods counted as mechanical words.
    #[serde(default)]
    pub methods: Option<Vec<String>>,
    /// Only these task kinds.
    #[serde(default)]
    pub kinds: Option<Vec<TaskKind>>,
}

impl EnqueueDebt {
    /// A dry run over `scopes` with the spec's defaults.
    pub fn new(scopes: Vec<(String, String)>) -> Self {
        EnqueueDebt {
            scopes,
            cause: backfill(),
            priority: ninety(),
            dry_run: true,
            methods: None,
            kinds: None,
        }
    }
}

/// One task `enqueue_debt` queues (or would).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DebtTask {
    /// Its id.
    pub task_id: String,
    /// Its kind.
    pub kind: TaskKind,
    /// The record (graph id).
    pub target_id: String,
    /// Its record kind.
    pub record_kind: String,
    /// The record's selected count.
    pub selected: u64,
    /// `0.1 + 0.9 · ln(1 + n) / ln(1 + n_max)`.
    pub strength: f64,
}

/// `enqueue_debt`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EnqueueDebtReport {
    /// Whether nothing was written.
    pub dry_run: bool,
    /// The tasks queued (or that would be), strongest first.
    pub tasks: Vec<DebtTask>,
    /// How many were queued (0 on a dry run).
    pub enqueued: usize,
    /// Debt items that already have a live task.
    pub already_queued: usize,
    /// `{kind: n}` over `tasks`.
    pub by_kind: BTreeMap<String, usize>,
    /// The highest selected count among them (the strength's scale).
    pub n_max: u64,
}

fn default_budget() -> usize {
    56_000
}

/// `task_packet(task_id, *, token_budget=56000)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskPacket {
    /// The task.
    pub task_id: String,
    /// Tokens the packet may hold (default 56,000).
    #[serde(default = "default_budget")]
    pub token_budget: usize,
}

impl TaskPacket {
    /// The packet of `task_id` with the default budget.
    pub fn new(task_id: &str) -> Self {
        TaskPacket {
            task_id: task_id.to_owned(),
            token_budget: default_budget(),
        }
    }
}

/// The live tasks' `(kind, target)` pairs.
type LivePairs = HashSet<(TaskKind, String)>;

/// One debt item: a record and the task kind it owes.
struct Item {
    kind: TaskKind,
    field: Option<&'static str>,
    row: TripleAssertion,
    aid: String,
    record_kind: String,
}

fn methods_of(extra: Option<&Vec<String>>) -> Vec<String> {
    let mut m: BTreeSet<String> = MECHANICAL_DIGEST_METHODS
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    for s in extra.into_iter().flatten() {
        let s = s.trim();
        if !s.is_empty() {
            m.insert(s.to_owned());
        }
    }
    m.into_iter().collect()
}

impl MemorySystem {
    /// The debt items of `scopes`: every live record's owed kinds.
    fn debt_items(&self, scopes: &[(String, String)], methods: &[String]) -> Result<Vec<Item>> {
        if scopes.is_empty() {
            return Err(Error::invalid(
                "the debt reads need scopes: a non-empty list of (scope, owner_id)",
            ));
        }
        let mut out = Vec::new();
        for (scope, owner) in scopes {
            let rows = self.store.query(&TripleQuery {
                predicate: Some(DIGEST_PREDICATE.to_owned()),
                scope: Some(scope.trim().to_lowercase()),
                owner_id: Some(owner.trim().to_owned()),
                limit: 0,
                ..TripleQuery::default()
            })?;
            for r in rows {
                if !am_triples::text::is_record_digest(&r) {
                    continue;
                }
                let aid = r.assertion_id.clone().unwrap_or_default();
                if self.standing_closure(&aid)?.is_some() {
                    continue;
                }
                let view = DigestRow::of(&r);
                let record_kind = view.as_stored("record_kind").unwrap_or("").to_owned();
                let kind = view.kind();
                let mut owed: Vec<(TaskKind, Option<&'static str>)> = Vec::new();
                if view.is_marked_pending("title") {
                    owed.push((TaskKind::TitleAuthor, Some("title")));
                }
                if view.is_marked_pending("summary") {
                    owed.push((TaskKind::DigestAuthor, Some("summary")));
                } else if methods
                    .iter()
                    .any(|m| m == view.as_stored("digest_method").unwrap_or(""))
                    && !kind.is_some_and(RecordKind::is_understanding_protected)
                {
                    owed.push(if kind == Some(RecordKind::WorldModel) {
                        (TaskKind::CardAuthor, None)
                    } else {
                        (TaskKind::DigestRewrite, None)
                    });
                }
                for (kind, field) in owed {
                    out.push(Item {
                        kind,
                        field,
                        row: r.clone(),
                        aid: aid.clone(),
                        record_kind: record_kind.clone(),
                    });
                }
            }
        }
        Ok(out)
    }

    /// The live tasks as `(kind, target)` pairs (either id namespace).
    fn live_pairs(&self) -> Result<(LivePairs, Vec<TaskRow>)> {
        let all = self.tasks()?.tasks(&super::ListTasks::default())?;
        let mut live = HashSet::new();
        for t in &all {
            if t.status.is_live() {
                live.insert((t.kind, t.target_id.clone()));
                if !t.assertion_id.is_empty() {
                    live.insert((t.kind, t.assertion_id.clone()));
                }
            }
        }
        Ok((live, all))
    }

    /// `understanding_debt`: a pure read of what is still mechanical or
    /// pending in `scopes`, and the queue beside it.
    ///
    /// # Errors
    /// `InvalidInput` without a task queue or without scopes; the store's,
    /// journal's or queue's read failure.
    pub fn understanding_debt(&self, args: &UnderstandingDebt) -> Result<DebtReport> {
        let q = self.tasks()?;
        let methods = methods_of(args.methods.as_ref());
        let items = self.debt_items(&args.scopes, &methods)?;
        let (live, all) = self.live_pairs()?;
        let mut debt: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        let mut by_capability: BTreeMap<String, usize> = BTreeMap::new();
        let mut unqueued = 0;
        for i in &items {
            *debt
                .entry(i.kind.as_str().to_owned())
                .or_default()
                .entry(i.record_kind.clone())
                .or_default() += 1;
            *by_capability
                .entry(i.kind.capability().to_owned())
                .or_default() += 1;
            if !live.contains(&(i.kind, i.row.subject.clone()))
                && !live.contains(&(i.kind, i.aid.clone()))
            {
                unqueued += 1;
            }
        }
        let oldest_pending = all
            .iter()
            .filter(|t| t.status.is_live())
            .min_by(|a, b| {
                a.created_at
                    .cmp(&b.created_at)
                    .then(a.task_id.cmp(&b.task_id))
            })
            .map(|t| {
                json!({"task_id": t.task_id, "kind": t.kind.as_str(),
                       "target_id": t.target_id, "created_at": t.created_at})
            });
        Ok(DebtReport {
            debt,
            total: items.len(),
            unqueued,
            queue: q.counts()?.by_kind,
            by_capability,
            oldest_pending,
            methods,
        })
    }

    /// `enqueue_debt`: the backfill, one task per debt record that has none,
    /// strength from lived use (`0.1 + 0.9 · ln(1 + n) / ln(1 + n_max)` over
    /// the records' selected counts), strongest first; a dry run (the
    /// default) writes nothing. One transaction.
    ///
    /// # Errors
    /// `InvalidInput` without a task queue or without scopes, or for a cause
    /// outside `REWRITE_CAUSES`; the home's failure.
    pub fn enqueue_debt(&self, args: &EnqueueDebt) -> Result<EnqueueDebtReport> {
        self.tasks()?;
        let cause = args.cause.trim().to_lowercase();
        if !am_journal::version::REWRITE_CAUSES.contains(&cause.as_str()) {
            return Err(Error::invalid(format!(
                "enqueue_debt cause must be one of {:?}, got {:?}",
                am_journal::version::REWRITE_CAUSES,
                args.cause
            )));
        }
        let methods = methods_of(args.methods.as_ref());
        let items = self.debt_items(&args.scopes, &methods)?;
        let (live, all) = self.live_pairs()?;
        let known: HashSet<&str> = all.iter().map(|t| t.task_id.as_str()).collect();
        let mut already = 0;
        let mut wanted: Vec<(Item, u64)> = Vec::new();
        for i in items {
            if args.kinds.as_ref().is_some_and(|k| !k.contains(&i.kind)) {
                continue;
            }
            if live.contains(&(i.kind, i.row.subject.clone()))
                || live.contains(&(i.kind, i.aid.clone()))
            {
                already += 1;
                continue;
            }
            // Usage is journaled on the digest assertion id.
            let n = self.journal.selected_count(&i.aid, None)?;
            wanted.push((i, n));
        }
        let n_max = wanted.iter().map(|(_, n)| *n).max().unwrap_or(0);
        let now = self.now()?;
        let mut plans: Vec<(DebtTask, PlannedEnqueue)> = Vec::new();
        for (i, n) in wanted {
            let strength = if n_max == 0 {
                0.1
            } else {
                #[allow(clippy::cast_precision_loss)]
                let (n, m) = (n as f64, n_max as f64);
                0.1 + 0.9 * (1.0 + n).ln() / (1.0 + m).ln()
            };
            let (basis, version) = match i.field {
                Some(f) => {
                    let first = format!("{}@pending-{f}", i.aid);
                    let basis = if known.contains(task_id(i.kind, &i.row.subject, &first).as_str())
                    {
                        (1..)
                            .map(|k| format!("{first}@{k}"))
                            .find(|b| !known.contains(task_id(i.kind, &i.row.subject, b).as_str()))
                            .unwrap_or(first)
                    } else {
                        first
                    };
                    (basis, 0)
                }
                None => {
                    let v = i
                        .row
                        .attributes
                        .get("digest_version")
                        .and_then(Value::as_i64)
                        .unwrap_or(0);
                    (format!("{}@v{v}", i.aid), v)
                }
            };
            let priority = if i.field.is_some() {
                pending_priority(&i.record_kind).min(args.priority)
            } else {
                args.priority
            };
            let mut r = row(&i.row, &i.aid, i.kind, basis, priority, &now);
            r.strength = strength;
            r.basis_version = version;
            r.cause = json!({"cause": cause, "backfill": true});
            plans.push((
                DebtTask {
                    task_id: r.task_id.clone(),
                    kind: i.kind,
                    target_id: i.row.subject.clone(),
                    record_kind: i.record_kind.clone(),
                    selected: n,
                    strength,
                },
                PlannedEnqueue {
                    row: r,
                    current_version: None,
                },
            ));
        }
        plans.sort_by(|a, b| {
            b.0.strength
                .total_cmp(&a.0.strength)
                .then_with(|| a.0.task_id.cmp(&b.0.task_id))
        });
        let mut enqueued = 0;
        if !args.dry_run && !plans.is_empty() {
            let mut n = 0;
            self.home
                .transaction(CommitPoint::TasksEnqueue, &mut |tx| {
                    n = 0;
                    let t = tx.tasks()?;
                    for (_, p) in &plans {
                        if super::enqueue_in(t, p)?.enqueued {
                            n += 1;
                        }
                    }
                    Ok(())
                })?;
            enqueued = n;
        }
        let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
        for (d, _) in &plans {
            *by_kind.entry(d.kind.as_str().to_owned()).or_default() += 1;
        }
        Ok(EnqueueDebtReport {
            dry_run: args.dry_run,
            tasks: plans.into_iter().map(|(d, _)| d).collect(),
            enqueued,
            already_queued: already,
            by_kind,
            n_max,
        })
    }

    /// `task_packet`: everything a reader needs for one task: the task, the
    /// target's `record_understanding` (a diary target redacted: its words
    /// come through the book by `entry_id`), `expected_version` for the
    /// compare-and-set, the `verbatim` reference, and its `sources`
    /// (summary), `evidence` (card: its fingerprinted source set,
    /// `known_source_ids`) or `mentions` (dream), newest first. An
    /// item that does not fit `token_budget` is left out whole (`left_out`);
    /// no text is cut. `target_state`: `live`, `closed` or `gone`.
    ///
    /// # Errors
    /// `InvalidInput` without a task queue; `NotFound` for an unknown task;
    /// the store's, journal's or queue's read failure.
    pub fn task_packet(&self, args: &TaskPacket) -> Result<Value> {
        let q = self.tasks()?;
        let task = q.task(args.task_id.trim())?.ok_or_else(|| {
            Error::not_found(format!("task_packet: no task {:?}", args.task_id.trim()))
        })?;
        let mut out = serde_json::Map::new();
        out.insert("task_id".into(), json!(task.task_id));
        out.insert("kind".into(), json!(task.kind.as_str()));
        out.insert("token_budget".into(), json!(args.token_budget));
        let target = if task.assertion_id.is_empty() {
            self.resolve_digest_assertion(&task.target_id)?
        } else {
            self.resolve_digest_assertion(&task.assertion_id)?
                .or(self.resolve_digest_assertion(&task.target_id)?)
        };
        // A ripple task carries `ripple` (api.md "Ripple"): a
        // reconsideration's cause, surprise, seed readings and how it was
        // reached; a consolidation's every change with before and after.
        let ripple = if matches!(
            task.kind,
            TaskKind::RippleReconsider | TaskKind::RippleConsolidate
        ) {
            crate::hooks::ripple_packet().packet(self, &task)?
        } else {
            None
        };
        let Some(row) = target.filter(am_triples::text::is_record_digest) else {
            out.insert(
                "task".into(),
                serde_json::to_value(&task)
                    .map_err(|e| Error::internal(format!("task_packet: cannot encode: {e}")))?,
            );
            out.insert("target".into(), Value::Null);
            // A consolidation's target is its ripple, not a record: live
            // while the ripple stands.
            let state = if task.kind == TaskKind::RippleConsolidate && ripple.is_some() {
                "live"
            } else {
                "gone"
            };
            out.insert("target_state".into(), json!(state));
            out.insert("left_out".into(), json!([]));
            if let Some(r) = ripple {
                out.insert("ripple".into(), r);
            }
            return Ok(Value::Object(out));
        };
        let aid = row.assertion_id.clone().unwrap_or_default();
        let closed = self.standing_closure(&aid)?;
        let view = DigestRow::of(&row);
        let kind = view.as_stored("record_kind").unwrap_or("");
        let version_key = match task.kind {
            TaskKind::TitleAuthor => "title_version",
            TaskKind::DreamNarrate => "narration_version",
            _ => "digest_version",
        };
        let expected = view.version(version_key);
        let mut used = 0usize;
        let target_value = if view.kind() == Some(RecordKind::Diary) {
            json!({"record_id": row.subject, "graph_id": row.subject, "assertion_id": aid,
                   "kind": kind, "entry_id": view.get("entry_id"),
                   "redacted": "diary"})
        } else {
            let u = self.record_understanding(&row.subject)?;
            used += am_triples::text::token_estimate(&u.digest)
                + u.title
                    .as_deref()
                    .map_or(0, am_triples::text::token_estimate);
            serde_json::to_value(&u)
                .map_err(|e| Error::internal(format!("task_packet: cannot encode: {e}")))?
        };
        out.insert(
            "task".into(),
            serde_json::to_value(&task)
                .map_err(|e| Error::internal(format!("task_packet: cannot encode: {e}")))?,
        );
        out.insert("target".into(), target_value);
        out.insert(
            "target_state".into(),
            json!(if closed.is_some() { "closed" } else { "live" }),
        );
        out.insert("expected_version".into(), json!(expected));
        out.insert(
            "verbatim".into(),
            json!({"payload_ref": view.get("payload_ref"),
                   "entry_id": view.get("entry_id")}),
        );
        let key = match view.kind() {
            Some(RecordKind::WorldModel) => "evidence",
            Some(RecordKind::Dream) => "mentions",
            _ => "sources",
        };
        // A card's evidence is its fingerprinted source set
        // (`known_source_ids`: every record the fingerprint hashed, not
        // only the ones its capped `derived_from` edges name, and never the
        // prior revision it `refines`); a card row without that set falls
        // back to its edges. A summary's sources are its `summarizes` edges,
        // a dream's mentions every edge.
        let fingerprinted: Option<Vec<String>> = match view.get("known_source_ids") {
            Some(Value::Array(ids)) if key == "evidence" => Some(
                ids.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            ),
            _ => None,
        };
        let referenced: Vec<String> = match fingerprinted {
            Some(ids) => ids,
            None => self
                .store
                .query(&TripleQuery {
                    subject: Some(row.subject.clone()),
                    limit: 0,
                    ..TripleQuery::default()
                })?
                .into_iter()
                .filter(|e| {
                    am_triples::text::is_record_edge(e)
                        && match key {
                            "sources" => e.predicate == "summarizes",
                            "evidence" => e.predicate != "refines",
                            _ => true,
                        }
                })
                .map(|e| e.object)
                .collect(),
        };
        let mut items: Vec<TripleAssertion> = Vec::new();
        for id in referenced {
            if let Some(r) = self.resolve_digest_assertion(&id)?
                && DigestRow::of(&r).kind() != Some(RecordKind::Diary)
                && !items.iter().any(|i| i.subject == r.subject)
            {
                items.push(r);
            }
        }
        items.sort_by(|a, b| {
            b.observed_at
                .cmp(&a.observed_at)
                .then_with(|| a.subject.cmp(&b.subject))
        });
        let mut kept = Vec::new();
        let mut left_out = Vec::new();
        for r in items {
            let view = DigestRow::of(&r);
            let title = view.as_stored("title");
            let tokens = am_triples::text::token_estimate(&r.object)
                + title.map_or(0, am_triples::text::token_estimate);
            let item = json!({"record_id": r.subject, "assertion_id": r.assertion_id,
                              "kind": view.as_stored("record_kind").unwrap_or(""), "title": title,
                              "digest": r.object, "observed_at": r.observed_at,
                              "tokens": tokens});
            if used + tokens <= args.token_budget {
                used += tokens;
                kept.push(item);
            } else {
                left_out.push(json!({"record_id": r.subject, "tokens": tokens,
                                     "reason": "over_budget"}));
            }
        }
        out.insert(key.into(), Value::Array(kept));
        out.insert("left_out".into(), Value::Array(left_out));
        out.insert("tokens".into(), json!(used));
        if let Some(r) = ripple {
            out.insert("ripple".into(), r);
        }
        Ok(Value::Object(out))
    }
}
