//! `am tasks`: the operator's view of a home's memory task queue: counts by
//! kind and status, the live tasks, the next window's selection for a budget
//! and a sensitivity (and what it leaves out, and why), and, per `--scope`,
//! the understanding debt. Readable text, or the JSON of the same reads
//! (`--json`). It reads only (a home without the queue's tables gains them
//! empty, as `am exec --task-queue` does).
//!
//! Spec: api.md "The memory task queue" (`counts`, `tasks`,
//! `select_for_window`, `understanding_debt`); operator.md.

use crate::ctx::{Ctx, require_existing_home};
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use crate::ingest;
use crate::text::escape;
use am_journal::Window;
use am_system::MemorySystem;
use am_system::tasks::{ListTasks, SelectForWindow, UnderstandingDebt};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The memory task queue: counts by kind and status, the live tasks, the
/// next window's selection (and what it leaves out, and why) and, per
/// --scope, the understanding debt. Reads only.
#[derive(Debug, clap::Args)]
pub struct TasksCmd {
    /// The SQLite home (must exist).
    #[arg(long)]
    home: PathBuf,
    /// The window's budget in seconds.
    #[arg(long, default_value_t = 120.0)]
    budget_s: f64,
    /// The Mind's sensitivity (the gate's input, with each task's strength).
    #[arg(long, default_value_t = 1.0)]
    sensitivity: f64,
    /// The window: turn | visit | nap | cycle | night | idle.
    #[arg(long, default_value = "turn")]
    window: String,
    /// A stream whose debt is read, as SCOPE:OWNER (repeatable).
    #[arg(long)]
    scope: Vec<String>,
}

impl TasksCmd {
    /// Read the queue and print the report.
    ///
    /// # Errors
    /// Bad input for a missing home, a bad window or scope; the engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let TasksCmd {
            home,
            budget_s,
            sensitivity,
            window,
            scope,
        } = self;
        require_existing_home(&home)?;
        ctx.embedder_spec("none")?;
        let window: Window = serde_json::from_value(json!(window.trim()))
            .map_err(|e| CliError::invalid(format!("--window: {e}")))?;
        let scopes = scope
            .iter()
            .map(|s| ingest::parse_scope(s))
            .collect::<CliResult<Vec<_>>>()?;
        let clock = PinnedClock::wall();
        let engine = home::open_queued(&HomeSpec::Sqlite(home), None, &clock, true)?;
        let v = report(
            &engine.system,
            &TasksArgs {
                budget_s,
                sensitivity,
                window,
                scopes,
            },
        )?;
        ctx.emit(&v, &render(&v))?;
        Ok(0)
    }
}

/// What `am tasks` was asked.
pub struct TasksArgs {
    /// The window's budget in seconds.
    pub budget_s: f64,
    /// The Mind's sensitivity.
    pub sensitivity: f64,
    /// The window.
    pub window: Window,
    /// The streams whose debt is read.
    pub scopes: Vec<(String, String)>,
}

/// The reads, as one JSON document: `{counts, live, selection, debt}`.
///
/// # Errors
/// The queue's or the store's read failure.
pub fn report(sys: &MemorySystem, a: &TasksArgs) -> CliResult<Value> {
    let q = sys.tasks()?;
    let counts = q.counts()?;
    let live: Vec<_> = q
        .tasks(&ListTasks::default())?
        .into_iter()
        .filter(|t| t.status.is_live())
        .collect();
    let selection = q.select_for_window(&SelectForWindow {
        sensitivity: a.sensitivity,
        window: a.window,
        ..SelectForWindow::new(a.budget_s)
    })?;
    let debt = if a.scopes.is_empty() {
        Value::Null
    } else {
        serde_json::to_value(sys.understanding_debt(&UnderstandingDebt {
            scopes: a.scopes.clone(),
            methods: None,
        })?)
        .unwrap_or(Value::Null)
    };
    Ok(json!({
        "counts": counts,
        "live": live,
        "selection": selection,
        "debt": debt,
    }))
}

/// A value as the text shows it (stored text escaped, as every human output).
fn s(v: &Value) -> String {
    match v {
        Value::String(s) => escape(s),
        Value::Null => "-".into(),
        other => escape(&other.to_string()),
    }
}

/// The readable form of [`report`].
pub fn render(v: &Value) -> String {
    let mut out = String::new();
    let c = &v["counts"];
    let _ = writeln!(
        out,
        "tasks: {} total, {} live",
        s(&c["total"]),
        s(&c["live"])
    );
    if let Some(by_kind) = c["by_kind"].as_object() {
        for (kind, statuses) in by_kind {
            let parts: Vec<String> = statuses
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, n)| format!("{} {n}", escape(k)))
                        .collect()
                })
                .unwrap_or_default();
            let _ = writeln!(out, "  {}: {}", escape(kind), parts.join(", "));
        }
    }
    let live = v["live"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(out, "live tasks: {}", live.len());
    for t in &live {
        let _ = writeln!(
            out,
            "  {} {} {} {} priority {} attempts {}/{}",
            s(&t["task_id"]),
            s(&t["kind"]),
            s(&t["status"]),
            s(&t["target_id"]),
            s(&t["priority"]),
            s(&t["attempts"]),
            s(&t["max_attempts"]),
        );
    }
    let sel = &v["selection"];
    let picked = sel["tasks"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(
        out,
        "next {} window (budget {} s, sensitivity {}): {} selected, {} s planned",
        s(&sel["window"]),
        s(&sel["budget_seconds"]),
        s(&sel["sensitivity"]),
        picked.len(),
        s(&sel["planned_seconds"]),
    );
    for t in &picked {
        let _ = writeln!(
            out,
            "  + {} {} {} activation {:.3} cost {} s",
            s(&t["task_id"]),
            s(&t["kind"]),
            s(&t["target_id"]),
            t["activation"].as_f64().unwrap_or(0.0),
            s(&t["cost"]),
        );
    }
    let left = sel["left_out"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(out, "left out: {}", left.len());
    for t in &left {
        let _ = writeln!(
            out,
            "  - {} {} {}: {}",
            s(&t["task_id"]),
            s(&t["kind"]),
            s(&t["target_id"]),
            s(&t["reason"]),
        );
    }
    let d = &v["debt"];
    if !d.is_null() {
        let _ = writeln!(
            out,
            "debt: {} total, {} unqueued",
            s(&d["total"]),
            s(&d["unqueued"])
        );
        if let Some(by) = d["debt"].as_object() {
            for (kind, records) in by {
                let parts: Vec<String> = records
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(k, n)| format!("{} {n}", escape(k)))
                            .collect()
                    })
                    .unwrap_or_default();
                let _ = writeln!(out, "  {}: {}", escape(kind), parts.join(", "));
            }
        }
    }
    out
}
