//! A host draining a ripple end to end over a SQLite home with its task
//! queue: a memory's reading is overturned, `seed_ripple` queues the
//! memories that lean on it, and window after window the host selects and
//! leases the `ripple.reconsider` tasks, reads each one's packet (the
//! `ripple` key: the seed's readings, how the memory was reached, the impact
//! it received), lets its reader decide (here a scripted one standing in for
//! a model: it rewrites what summarizes the seed, keeps everything else),
//! rewrites with `task_id` and settles `rewritten`, or settles `unchanged`.
//! When the ripple has settled with two or more changes, the night window
//! leases its `ripple.consolidate` task and the host forms the first-person
//! "what this changes" record with `form_consolidation`.
//!
//! Run it: `cargo run -p am-system --example ripple_drainer [HOME.sqlite3]`
//! (a temporary home when no path is given). The ripple tests run it
//! (`tests/ripple/main.rs`), so it cannot rot.
//!
//! Spec: api.md "Ripple: a change reconsidered through connected memories",
//! "The memory task queue"; docs/ripple.md.

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{AuthorKind, AuthorRef, TaskKind, Window};
use am_system::ripple::{
    Change, FormConsolidation, ListRipples, ReconsiderOutcome, RippleStatus, SeedRipple,
    SettleReconsideration,
};
use am_system::tasks::{Claim, ClaimTasks, SelectForWindow, TaskPacket};
use am_system::{
    MemoryRecordInput, MemorySystem, RecordKind, RememberMany, RewriteDigest, SystemOptions,
};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// What the scripted reader decided about one reconsideration.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reading {
    /// The memory still reads the same.
    Keep,
    /// The memory now reads these words, changed this much.
    Rewrite(String, Change),
}

/// The host's reader: given a `ripple.reconsider` packet, decide. A model
/// in a real host; here a script: a memory reached through `summarizes`
/// is rewritten in the light of the seed's new reading, anything else is
/// kept.
pub(crate) fn scripted_reader(packet: &Value) -> Reading {
    let ripple = &packet["ripple"];
    if ripple["via"] == json!("summarizes") {
        let now = ripple["seed"]["current"]["text"].as_str().unwrap_or("");
        Reading::Rewrite(format!("Read again: {now}"), Change::Revised)
    } else {
        Reading::Keep
    }
}

/// What one drain did.
#[derive(Debug, Default)]
pub(crate) struct Drained {
    /// Day windows that ran reconsiderations.
    pub(crate) windows: usize,
    /// Reconsiderations settled `rewritten`.
    pub(crate) rewritten: usize,
    /// Reconsiderations settled `unchanged`.
    pub(crate) kept: usize,
    /// Consolidation records formed (in a night window).
    pub(crate) consolidated: usize,
    /// The ripple's status at the end.
    pub(crate) status: Option<RippleStatus>,
}

fn operator(id: &str) -> AuthorRef {
    AuthorRef::new(AuthorKind::Operator, id)
}

/// Open `home` with its queue, form a seed and what leans on it, overturn
/// the seed, and drain the ripple with `reader`.
///
/// # Errors
/// The home's or the engine's failure.
pub(crate) fn run(
    home: &Path,
    reader: &dyn Fn(&Value) -> Reading,
) -> Result<Drained, Box<dyn std::error::Error>> {
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
    let (scope, owner) = ("life", "entity:castor");
    let mut records = vec![MemoryRecordInput::new(
        RecordKind::Episode,
        "Ada and plot 14",
        "Ada said she keeps plot 14 for another year.",
    )];
    for (kind, title, digest, relation) in [
        (
            RecordKind::Summary,
            "The allotment this year",
            "Ada keeps plot 14; the beds stay hers.",
            "summarizes",
        ),
        (
            RecordKind::Summary,
            "Who gardens where",
            "Plot 14 is Ada's; plot 15 is ours.",
            "summarizes",
        ),
        (
            RecordKind::Plan,
            "Share the tools",
            "Lend Ada the fork each weekend.",
            "supports",
        ),
    ] {
        let mut r = MemoryRecordInput::new(kind, title, digest);
        r.edges = vec![(relation.to_owned(), "local:0".to_owned())];
        records.push(r);
    }
    let ids = system
        .remember_many(&RememberMany::new(
            records,
            scope,
            owner,
            "ripple-drainer-1",
        ))?
        .value;
    let seed_id = &ids[0];
    // The host's reader overturned the seed: its new reading, then the
    // ripple (idempotent on seed, cause and seed version: a second run
    // finds it).
    let seed_version = system
        .record_understanding(seed_id)?
        .understanding
        .digest_version;
    if seed_version == 0 {
        system.rewrite_digest(&RewriteDigest::new(
            seed_id,
            "Ada gives up plot 14 this autumn.",
            operator("op:reader"),
            json!("backfill"),
            0,
        ))?;
    }
    let mut seed = SeedRipple::new(seed_id, json!({"cause": "backfill", "reader": "drainer"}));
    seed.change = Change::Overturned;
    seed.surprise = Some("I thought Ada would stay.".into());
    let ripple_id = system.seed_ripple(&seed)?.value.ripple_id;
    let q = system.tasks()?;
    let holder = "ripple-drainer";
    let mut out = Drained::default();
    // The day: reconsiderations, window after window, until none is left.
    loop {
        let sel = q.select_for_window(&SelectForWindow {
            window: Window::Turn,
            kinds: Some(vec![TaskKind::RippleReconsider]),
            ..SelectForWindow::new(600.0)
        })?;
        if sel.tasks.is_empty() {
            break;
        }
        out.windows += 1;
        let claimed = q.claim(&Claim::new(ClaimTasks::from(&sel), holder))?;
        for task in claimed.claimed {
            let packet = system.task_packet(&TaskPacket::new(&task.task_id))?;
            let settle = match reader(&packet) {
                Reading::Keep => {
                    out.kept += 1;
                    SettleReconsideration::new(&task.task_id, holder, ReconsiderOutcome::Unchanged)
                }
                Reading::Rewrite(words, change) => {
                    let expected = packet["expected_version"].as_i64().unwrap_or(0);
                    system.rewrite_digest(&RewriteDigest {
                        task_id: Some(task.task_id.clone()),
                        ..RewriteDigest::new(
                            &task.target_id,
                            &words,
                            operator("op:reader"),
                            json!({"cause": "ripple", "ripple_id": ripple_id,
                                   "task_id": task.task_id}),
                            expected,
                        )
                    })?;
                    out.rewritten += 1;
                    let mut s = SettleReconsideration::new(
                        &task.task_id,
                        holder,
                        ReconsiderOutcome::Rewritten,
                    );
                    s.change = Some(change);
                    s
                }
            };
            system.settle_reconsideration(&settle)?;
        }
    }
    // Anything settled some other way closes here too.
    system.refresh_ripples(&am_system::ripple::RefreshRipples::default())?;
    // The night: the consolidation is leased only now.
    let sel = q.select_for_window(&SelectForWindow {
        window: Window::Night,
        kinds: Some(vec![TaskKind::RippleConsolidate]),
        ..SelectForWindow::new(600.0)
    })?;
    if !sel.tasks.is_empty() {
        let claimed = q.claim(&Claim::new(ClaimTasks::from(&sel), holder))?;
        for task in claimed.claimed {
            let packet = system.task_packet(&TaskPacket::new(&task.task_id))?;
            let changes = packet["ripple"]["changes"].as_array().map_or(0, Vec::len);
            let formed = system.form_consolidation(&FormConsolidation::new(
                &task.task_id,
                holder,
                &format!(
                    "I had Ada staying on plot 14; she is leaving, and {changes} things I held \
                     read differently now."
                ),
                "What Ada leaving changes",
                operator("entity:castor"),
            ))?;
            if formed.outcome == "formed" {
                out.consolidated += 1;
            }
        }
    }
    out.status = system
        .ripples(&ListRipples {
            owner_id: Some(owner.into()),
            ..ListRipples::default()
        })?
        .into_iter()
        .find(|r| r.ripple_id == ripple_id)
        .map(|r| r.status);
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let given = std::env::args().nth(1);
    let dir = tempfile::tempdir()?;
    let home = match &given {
        Some(p) => std::path::PathBuf::from(p),
        None => dir.path().join("home.sqlite3"),
    };
    let d = run(&home, &scripted_reader)?;
    println!(
        "{} day window(s): {} rewritten, {} kept; {} consolidation(s) at night; ripple {:?}",
        d.windows, d.rewritten, d.kept, d.consolidated, d.status
    );
    Ok(())
}
