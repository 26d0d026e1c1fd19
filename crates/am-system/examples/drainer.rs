//! A host's drainer loop over a SQLite home with its memory task queue:
//! form records pending, then, window after window, select what fits the
//! budget, claim it, read each task's packet, author the words with the
//! host's `Author` (here a trivial deterministic one standing in for a
//! model), settle through `retitle` / `rewrite_digest` with `task_id` (the
//! version, the row and the task's completion in one transaction), `ack`
//! (a task a verb settled answers `already_done`), and release what could
//! not be settled. Then it drains a ripple end to end on a second home
//! (`examples/ripple_drainer.rs`, included here: seed → reconsider tasks →
//! rewrites by a scripted reader → the consolidation in a night window).
//!
//! Run it: `cargo run -p am-system --example drainer [HOME.sqlite3]` (a
//! temporary home when no path is given; the ripple's home is
//! `HOME.ripple.sqlite3` beside it). `tests/examples.rs` runs both parts,
//! so they cannot rot.
//!
//! Spec: api.md "The memory task queue: understanding in the background",
//! "Authored with the record: the `author` callable"; docs/tasks.md.

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{AuthorRef, TaskKind, Window};
use am_system::RecordKind;
use am_system::tasks::{
    Ack, Claim, ClaimTasks, PendingRecords, Release, ReleaseOutcome, SelectForWindow, TaskPacket,
};
use am_system::{
    Author, AuthorContext, AuthorError, AuthorField, Authored, MemoryRecordInput, MemorySystem,
    RememberMany, Retitle, RewriteDigest, SystemOptions,
};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// The ripple's end-to-end drain, also run alone as
/// `cargo run -p am-system --example ripple_drainer`.
#[allow(dead_code)]
#[path = "ripple_drainer.rs"]
pub(crate) mod ripple_drainer;

/// Drain a ripple end to end on the SQLite home at `home` with the scripted
/// reader (it rewrites what summarizes the overturned memory, keeps the
/// rest).
///
/// # Errors
/// The home's or the engine's failure.
pub(crate) fn drain_a_ripple(
    home: &Path,
) -> Result<ripple_drainer::Drained, Box<dyn std::error::Error>> {
    ripple_drainer::run(home, &ripple_drainer::scripted_reader)
}

/// The host's author: deterministic words from the body (a model in a real
/// host): the title is the body's first five words, the summary the body's
/// first sentence.
struct FirstWords;

impl Author for FirstWords {
    fn author(
        &self,
        _kind: &str,
        body: &str,
        context: &AuthorContext,
    ) -> Result<Authored, AuthorError> {
        let wants = |f: AuthorField| context.fields.contains(&f);
        let title = wants(AuthorField::Title).then(|| {
            body.split_whitespace()
                .take(5)
                .collect::<Vec<_>>()
                .join(" ")
        });
        let summary = wants(AuthorField::Summary).then(|| {
            let first = body.split_inclusive('.').next().unwrap_or(body);
            first.trim().to_owned()
        });
        Ok(Authored {
            title,
            summary,
            author: json!({"kind": "operator", "id": "example-drainer"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            reader: None,
            sources: Vec::new(),
        })
    }
}

/// What one drain did.
#[derive(Debug, Default)]
pub(crate) struct Drained {
    /// Windows opened.
    pub(crate) windows: usize,
    /// Tasks settled through a verb.
    pub(crate) settled: usize,
    /// Tasks released.
    pub(crate) released: usize,
    /// Records still pending at the end.
    pub(crate) still_pending: usize,
}

/// Open `home` with its queue, form pending records, and drain.
///
/// # Errors
/// The home's or the engine's failure.
pub(crate) fn run(home: &Path) -> Result<Drained, Box<dyn std::error::Error>> {
    let sqlite = SqliteHome::open(home)?;
    let memory_home = Arc::new(SqliteMemoryHome::open(
        &sqlite,
        None,
        SqliteStoreOptions::default(),
    )?);
    let system = MemorySystem::over_home_with_options(
        memory_home,
        SystemOptions {
            task_queue: true,
            ..SystemOptions::default()
        },
    )?;
    // Records the host formed pending: their words are not written yet.
    let pending = |digest: &str| {
        let mut r = MemoryRecordInput::new(RecordKind::Episode, "", digest)
            .with_pending(&["title", "summary"]);
        r.title = None;
        r
    };
    system.remember_many(&RememberMany::new(
        vec![
            pending("Ada signed the lease on plot 14. The soil was tested first."),
            pending("The pool ran dry at noon. Sizing it from the peak fixed it."),
        ],
        "life",
        "demo",
        "drainer-example-1",
    ))?;
    let q = system.tasks()?;
    let holder = "drainer-1";
    let mut out = Drained::default();
    loop {
        // 1. What this window should run (a pure read).
        let sel = q.select_for_window(&SelectForWindow {
            window: Window::Turn,
            ..SelectForWindow::new(600.0)
        })?;
        if sel.tasks.is_empty() {
            break;
        }
        out.windows += 1;
        // 2. Lease it.
        let claimed = q.claim(&Claim::new(ClaimTasks::from(&sel), holder))?;
        for task in claimed.claimed {
            // 3. Everything the reader needs: the target, its version.
            let packet = system.task_packet(&TaskPacket::new(&task.task_id))?;
            let target = &packet["target"];
            let body = target["digest"].as_str().unwrap_or_default().to_owned();
            let expected = packet["expected_version"].as_i64().unwrap_or(0);
            let field = match task.kind {
                TaskKind::TitleAuthor => AuthorField::Title,
                _ => AuthorField::Summary,
            };
            let context = AuthorContext {
                pass: "drainer".into(),
                record_kind: target["kind"].as_str().unwrap_or_default().to_owned(),
                scope: task.scope.clone(),
                owner_id: task.owner_id.clone(),
                fields: vec![field],
                title: target["title"].as_str().map(str::to_owned),
                source_ids: Vec::new(),
                attributes: am_triples::JsonMap::new(),
            };
            // 4. The model (here the stub) writes the words.
            let words = match FirstWords.author(&context.record_kind, &body, &context) {
                Ok(a) => a,
                Err(e) => {
                    q.release(&Release {
                        detail: Some(json!({"error": e.message})),
                        ..Release::new(
                            &task.task_id,
                            holder,
                            ReleaseOutcome::Retry,
                            "author_raised",
                        )
                    })?;
                    out.released += 1;
                    continue;
                }
            };
            // 5. Settle through the understanding verb with task_id (the
            // author's `{kind, id}` read as the verbs' typed author).
            let author: AuthorRef = serde_json::from_value(Value::Object(words.author.clone()))?;
            let settled = match field {
                AuthorField::Title => system.retitle(&Retitle {
                    task_id: Some(task.task_id.clone()),
                    ..Retitle::new(
                        &task.target_id,
                        words.title.as_deref().unwrap_or_default(),
                        author.clone(),
                        json!("formation"),
                        expected,
                    )
                })?,
                _ => system.rewrite_digest(&RewriteDigest {
                    task_id: Some(task.task_id.clone()),
                    ..RewriteDigest::new(
                        &task.target_id,
                        words.summary.as_deref().unwrap_or_default(),
                        author.clone(),
                        json!("formation"),
                        expected,
                    )
                })?,
            };
            if settled.outcome.applied() {
                // The verb settled it: ack answers `already_done`.
                let ack = q.ack(&Ack {
                    task_id: task.task_id.clone(),
                    holder: holder.into(),
                    result: json!({"outcome": "applied", "seconds": 0.0}),
                    now: None,
                })?;
                debug_assert_eq!(ack.reason.as_deref(), Some("already_done"));
                out.settled += 1;
            } else {
                // A refusal (stale, closed, ...): the task is still leased.
                let reason = serde_json::to_value(&settled)?
                    .get("reason")
                    .cloned()
                    .unwrap_or(Value::Null);
                q.release(&Release {
                    detail: Some(json!({"refused": reason})),
                    ..Release::new(&task.task_id, holder, ReleaseOutcome::Skip, "refused")
                })?;
                out.released += 1;
            }
        }
    }
    out.still_pending = system
        .pending_records(&PendingRecords {
            live_task: None,
            ..PendingRecords::default()
        })?
        .len();
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let given = std::env::args().nth(1);
    let dir = tempfile::tempdir()?;
    let home = match &given {
        Some(p) => std::path::PathBuf::from(p),
        None => dir.path().join("home.sqlite3"),
    };
    let d = run(&home)?;
    println!(
        "{} window(s), {} task(s) settled, {} released, {} record(s) still pending",
        d.windows, d.settled, d.released, d.still_pending
    );
    let r = drain_a_ripple(&home.with_extension("ripple.sqlite3"))?;
    println!(
        "ripple: {} day window(s): {} rewritten, {} kept; {} consolidation(s) at night; ripple {:?}",
        r.windows, r.rewritten, r.kept, r.consolidated, r.status
    );
    Ok(())
}
