//! Crash trials (issue 23 §3): a writer process is killed with SIGKILL at a
//! random moment, the home is reopened and checked.
//!
//! This file is its own helper: run with `--helper VERB HOME N` it is the
//! writer (a real child process over a real SQLite home), doing N numbered
//! writes of VERB and printing `begin I` before and `ack I` after each one
//! (flushed), so the parent knows what was acknowledged. The parent runs, per
//! verb, one clean reference run and then the trials: a fresh copy of the
//! starting home, the writer killed after a random delay, then
//!
//! - `PRAGMA integrity_check` is `ok`;
//! - every acknowledged write is present, every write is all there or absent
//!   (its rows, per unit, equal the reference run's or are all missing);
//! - the journal's seq axis is gap-free (every seq from 1 to `memj_seq` names
//!   exactly one record), as are the triples' rowids and the change feed;
//! - a replay of the killed script (the same writes, to completion) leaves
//!   the home equal to the reference, and a second replay writes nothing.
//!
//! Verbs: `add`, `remember_many`, `commit_selection` (with its journaled
//! recall), `apply_revision`, the 0.3.x JSON→BLOB vector `upgrade` at open,
//! `replace_vectors` (a whole-table vector swap: all of one generation),
//! `remember_pending` (a formation with pending titles and summaries whose
//! `title.author` / `digest.author` tasks commit in its transaction: no
//! record without its tasks, no task without its record), `task_queue`
//! (the queue's writes in turn: `enqueue_many`, `claim`, one `ack` per
//! task; the queue's log and rowids gap-free), `task_release` (the queue's
//! other writes, per batch: `enqueue_many`, `claim`, `release` as retry (at
//! its one allowed attempt: failed), defer and skip, `prioritize`,
//! `supersede_target`, a `rewrite_digest` that moves a task's target past
//! its basis, `supersede_stale`; each write's task rows in their new state
//! and their `memq_log` rows), `declare_pending` (a note's summary declared
//! pending: the row's `attributes.pending` marker and `pending_version` 1,
//! the version row of field `pending`, the queued `digest.author` task and
//! its log row), `record_maintenance` (a completed night over two pairs:
//! both `memq_maintenance` rows or neither, the table itself created by the
//! first one's transaction), `seed_ripple` (over notes each summarized
//! once: the ripple row, its gate decision, the summary's
//! `ripple.reconsider` task and its log row, all or none; a replay finds
//! the ripple and writes nothing), `settle_reconsideration` (over ripples
//! whose summary was rewritten: the ripple row settled, its hop-2 decision,
//! the task completed and its `completed` log row, all or none; a replay is
//! refused `not_live`), `form_consolidation` (over ripples that changed two
//! memories: the consolidation record with its three edges and its
//! formation binding, the ripple row `consolidated`, its task completed and
//! the `completed` log row, all or none; a replay is refused `not_live`),
//! `revert_ripple` (over the same ripples: each changed memory restored as
//! its own transaction, the row at digest version 2 and that version row;
//! a replay is refused `stale`), `rearm_pending` (over notes declared pending whose task was
//! superseded: the marker re-armed at `pending_version` 2, version 2 of field
//! `pending`, the new live task and its log row), and the understanding verbs,
//! each a rewrite in place whose row and version rows land together or not
//! at all: `rewrite_digest` (the digest row, the captured original version 0
//! and the new version 1), `retitle` (the row's title and title version, the
//! captured original title as version 0 of field `title`, the new title as
//! version 1), `narrate_dream` (the dream row's narration and its version,
//! version 1 of field `narration`) and `revert_digest` (over notes rewritten
//! once: the row back at its first reading as digest version 2, and that
//! version 2), and the closing acts, each one batch of closures that lands
//! whole or not at all: `close_record` (a record's digest and its two edges
//! closed together; deterministic closure ids, so a replay writes nothing)
//! and `close_assertions` (the same three assertions by id; the spec gives
//! it no closure id, so the script, as a resuming host would, skips a
//! record whose closures are already there), and the night's tending:
//! `wake_cue_dedup_pass` (per write, one owner's three near-identical
//! episodes collapsed: the day summary with its edges, its formation binding,
//! its pending fields' tasks and their log rows, and the three members'
//! supersede closures, all in one transaction; a run again finds the
//! members closed and writes nothing) and `consolidation_pass` (per write,
//! one owner's duplicate-title pair: the candidate with its edges, its
//! formation binding, its pending fields' tasks and their log rows land
//! whole; a run again finds the group covered and writes nothing) and
//! `resolve_dreams_pass` (per write, one owner's dream whose bridge the day
//! joined: its supersede closure lands or not; a run again finds it closed),
//! and `world_model_pass` (over
//! cards formed once whose evidence then grew, one card revised per pass:
//! the revision's rows and its authoring tasks land together, then the prior
//! card's tasks are superseded and its closures land, each whole; a kill
//! between them leaves two standing cards, which the replay's pass repairs),
//! and `author_world_model` (over pending cards: the row's authored words at
//! card version 1, the versions 0 and 1 of field `card`, the summary's
//! `digest.author` task done, all in one transaction; a replay is
//! byte-identical and applies nothing), `rekey_world_model` (the card's row
//! at its new key with the old one an alias, and the versions 0 and 1 of
//! field `target`: one transaction; a replay is `unchanged`),
//! `alias_world_model` and `author_world_model` with `in_place=False` (each
//! revision 2 with its tasks, then revision 1's tasks superseded, then its
//! closures, each whole; a kill between them leaves two standing cards,
//! which the replay's call finishes),
//! and `dream_pass` (per write, one owner's two islands sharing two facets:
//! the dream with its `mentions` edges, its formation binding, its pending
//! fields' tasks and their log rows land whole; a run again rests on the
//! standing dream and writes nothing), and `sleep_pass` (per write, one
//! owner's whole night over its islands, duplicate-title lessons and three
//! episodes with Ada: each sub-phase's transaction, the candidate, the
//! world-model card and the dream, lands whole, the completion row after
//! them; a night killed between phases leaves the
//! completed phases, and the replay completes the night without forming
//! anything twice), and `placement` (per write, one garden record formed on
//! a home with a communities version: its rows, its formation binding and
//! its one `placed` event land together or not at all; a kill between the
//! record and its event is impossible), `communities_pass` (per write, one
//! owner's first version over six garden records: its topic record, its
//! formation binding, its pending fields' tasks and their `enqueued` rows
//! land whole), `communities_in_place` (per write, one owner's pass over a
//! standing topic still pending: the in-place authoring writes the title
//! and summary, their version rows and the completion of the topic's tasks
//! together or not at all), `embed_missing` (per write, one owner's
//! vector-less record given its vector: the whole vector or none), and the disposal verbs over
//! candidates each with two witnesses of other origins: `confirm_relation`
//! (the `supports` edge and its two `cited` audit events in one transaction;
//! a replay writes nothing) and `promote_candidate` (its one `promoted`
//! binding; a resuming host skips a candidate already promoted), and
//! `reembed_store` (per write, the whole home moved to the next of a series
//! of embedding spaces, each its own model and, in turn, its own dimension:
//! after any kill every vector the home holds is of ONE space and the pin
//! names that space's model and dimension, the store opens with that
//! space's embedder and answers a vector query; an acknowledged move is
//! there; the markers are one per landed move, or one fewer when the kill
//! fell between the last swap and its marker, the known gap).
//! `mine_candidates_pass` (per owner, a resolved question whose theme came
//! back in other sessions and a compound keyword across three: its lesson
//! and interest offers, their edges, formation bindings and pending tasks
//! land in one transaction; a replay skips the standing offers).
//! `apply_tend_elections` (per write, one tend block over a note with a
//! summary leaning on it: its `pinned` and `refocus` events, the revisit's
//! trace and its `expanded` event, the revise's ripple row, gate decisions,
//! `ripple.reconsider` tasks and their `enqueued` rows, all in one
//! transaction; the batch's ids derive from the batch and its instant, so
//! a replay writes nothing twice).
//! `journal_cold_cut` (per write, the lived home cut into a new file of its
//! own, each with other cuts: after any kill the source file's bytes are
//! the template's, each destination is absent or a whole cut that passes
//! `verify_cold_cut` and holds what the clean run's holds, and a
//! `<dst>.cold-cut-partial` left behind passes `verify_cold_cut` only when
//! it is that whole cut, killed before its rename; a resuming host cuts the
//! destinations that are absent).
//!
//! `AM_CRASH_TRIALS` (default 50, what CI runs: the issue's "CI runs 50
//! trials per verb"; the 16 verbs before the closing acts took about 60 s
//! in the debug build on 2 shared cores at load 1 to 2; all 18 took 211 s
//! at load 6 to 7),
//! `AM_CRASH_WRITES` (default 30) writes per script, `AM_CRASH_SEED` the seed,
//! arguments after `--` name verbs to run; `cargo xtask soak --trials N` runs
//! more and prints the figures this prints.

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteStoreOptions};
use am_journal::MemoryJournal;
use am_system::RecordKind;
use am_system::{CloseAssertions, CloseRecord};
use am_system::{
    CommitSelection, MemoryRecordInput, MemorySystem, Reconstruct, RememberMany, RewriteDigest,
    Stimulus, SystemOptions,
};
use am_system::{DeclarePending, NarrateDream, RearmPending, Retitle, RevertDigest};
use am_triples::{TripleAssertion, TripleStore};
use rusqlite::Connection;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const VERBS: &[&str] = &[
    "add",
    "remember_many",
    "commit_selection",
    "probe",
    "apply_revision",
    "upgrade",
    "replace_vectors",
    "remember_pending",
    "task_queue",
    "task_release",
    "declare_pending",
    "rearm_pending",
    "record_maintenance",
    "seed_ripple",
    "settle_reconsideration",
    "form_consolidation",
    "revert_ripple",
    "rewrite_digest",
    "retitle",
    "narrate_dream",
    "revert_digest",
    "close_record",
    "close_assertions",
    "wake_cue_dedup_pass",
    "consolidation_pass",
    "resolve_dreams_pass",
    "world_model_pass",
    "author_world_model",
    "rekey_world_model",
    "alias_world_model",
    "author_world_model_revision",
    "dream_pass",
    "sleep_pass",
    "placement",
    "communities_pass",
    "communities_in_place",
    "embed_missing",
    "confirm_relation",
    "promote_candidate",
    "reembed_store",
    "mine_candidates_pass",
    "apply_tend_elections",
    "journal_cold_cut",
];
const SCOPE: &str = "crash";
const OWNER: &str = "w";
const NOW: &str = "2026-03-01T12:00:00.000000+00:00";
/// Trials per verb when `AM_CRASH_TRIALS` is not set: what CI (`cargo xtask
/// test`) runs.
const CI_TRIALS: usize = 50;
/// Writes per helper run (`AM_CRASH_WRITES` overrides); a trial's kill lands
/// at a random moment of a clean run's duration.
const ITERATIONS: usize = 30;
/// Rows of the upgrade and vector-swap homes.
const VECTOR_ROWS: usize = 1500;
const DIM: usize = 8;
/// The upgrade's batch size in the helper (many small transactions).
const UPGRADE_BATCH: usize = 25;

// ---------------------------------------------------------------- the helper

fn open_store(home: &SqliteHome, upgrade: bool) -> Arc<SQLiteTripleStore> {
    let mut o = SqliteStoreOptions::default();
    if upgrade {
        o.upgrade_batch_rows = UPGRADE_BATCH;
    }
    Arc::new(SQLiteTripleStore::with_home(home, None, o).expect("open the store"))
}

fn open_system(home: &SqliteHome) -> (Arc<SQLiteTripleStore>, Arc<SQLiteJournal>, MemorySystem) {
    open_system_queued(home, false)
}

fn open_system_queued(
    home: &SqliteHome,
    task_queue: bool,
) -> (Arc<SQLiteTripleStore>, Arc<SQLiteJournal>, MemorySystem) {
    let store = open_store(home, false);
    let journal = Arc::new(SQLiteJournal::open(home).expect("open the journal"));
    // A host's constructor over the store and journal of one file: it finds
    // their one-transaction home (`am_journal::join::shared_home`, the
    // `SqliteMemoryHome` `am` opens), so a formation's rows and bindings
    // commit together and a kill between them tears nothing. (Before, this
    // path built a two-step `PairHome`: a soak tore 14 formations.)
    let system = MemorySystem::with_options(
        store.clone(),
        journal.clone(),
        SystemOptions {
            clock: Some(am_triples::fixed_clock(
                am_triples::Timestamp::parse(NOW).unwrap(),
            )),
            task_queue,
            ..SystemOptions::default()
        },
    )
    .expect("open the system");
    (store, journal, system)
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").unwrap();
    out.flush().unwrap();
}

fn add_batch(i: usize) -> Vec<TripleAssertion> {
    (0..5)
        .map(|j| {
            TripleAssertion::new(&format!("s{i}"), "says", &format!("word{j} of batch {i}"))
                .with_scope(SCOPE)
                .with_owner(OWNER)
                .with_observed_at(NOW)
                .with_id(&format!("a{i}-{j}"))
        })
        .collect()
}

fn records(i: usize) -> Vec<MemoryRecordInput> {
    vec![
        MemoryRecordInput::new(
            RecordKind::Episode,
            &format!("Outage {i}"),
            "The pool failed at noon.",
        ),
        MemoryRecordInput::new(
            RecordKind::Lesson,
            &format!("Lesson {i}"),
            "Restart the pool first.",
        )
        .with_edge("derived_from", "local:0"),
        MemoryRecordInput::new(
            RecordKind::Decision,
            &format!("Size {i}"),
            "Raise the pool to forty.",
        ),
        MemoryRecordInput::new(
            RecordKind::Memory,
            &format!("Lunch {i}"),
            "Ada had soup for lunch.",
        ),
    ]
}

/// `records(i)` with the episode's and the decision's titles pending and the
/// memory's summary pending: their tasks are queued in the formation.
fn pending_records(i: usize) -> Vec<MemoryRecordInput> {
    let mut r = records(i);
    for k in [0, 2] {
        r[k].title = None;
        r[k].pending = vec!["title".into()];
    }
    r[3].pending = vec!["summary".into()];
    r
}

/// Tasks per `enqueue_many` of the `task_queue` script.
const QUEUE_BATCH: usize = 4;
/// Writes per batch of the `task_queue` script: its enqueue, its claim, one
/// ack per task.
const QUEUE_WRITES: usize = 2 + QUEUE_BATCH;

fn queue_target(batch: usize, t: usize) -> String {
    format!("ex:crash-task-{batch}-{t}")
}

fn queue_task_id(batch: usize, t: usize) -> String {
    am_system::tasks::task_id(
        am_journal::TaskKind::DigestRewrite,
        &queue_target(batch, t),
        &format!("{}@v0", queue_target(batch, t)),
    )
}

/// Write `k` of the `task_queue` script (each one transaction).
fn queue_write(q: &am_system::tasks::TaskQueue<'_>, k: usize) {
    let (batch, step) = (k / QUEUE_WRITES, k % QUEUE_WRITES);
    match step {
        0 => {
            let tasks: Vec<am_system::tasks::Enqueue> = (0..QUEUE_BATCH)
                .map(|t| {
                    am_system::tasks::Enqueue::new(
                        am_journal::TaskKind::DigestRewrite,
                        &queue_target(batch, t),
                        (SCOPE, OWNER),
                        &format!("{}@v0", queue_target(batch, t)),
                        0.9,
                        "backfill",
                    )
                })
                .collect();
            q.enqueue_many(&tasks).expect("enqueue_many");
        }
        1 => {
            let ids: Vec<String> = (0..QUEUE_BATCH).map(|t| queue_task_id(batch, t)).collect();
            q.claim(&am_system::tasks::Claim::new(ids, "crash-drainer"))
                .expect("claim");
        }
        _ => {
            let id = queue_task_id(batch, step - 2);
            q.ack(&am_system::tasks::Ack {
                task_id: id,
                holder: "crash-drainer".into(),
                result: serde_json::json!({"outcome": "done", "seconds": 1.0}),
                now: None,
            })
            .expect("ack");
        }
    }
}

/// Writes per batch of the `task_release` script: its enqueue (tasks 0 to 3
/// on plain targets, task 4 a `digest.rewrite` of note `batch` at its
/// version 0), its claim (tasks 0 to 3), a retry release (task 0, one
/// attempt allowed: failed), a defer release (task 1), a skip release (task
/// 2), a prioritize (tasks 1 and 3), a supersede_target (task 3), a
/// rewrite_digest of note `batch` (its digest at version 1) and a
/// supersede_stale (task 4, its basis now behind).
const RELEASE_WRITES: usize = 9;
/// The priority the `task_release` tasks are enqueued at and moved up to.
const RELEASE_PRIORITY: (i64, i64) = (50, 10);

/// Write `k` of the `task_release` script (each one transaction; a replay of
/// a landed one is refused or finds nothing to move and writes nothing).
fn release_write(
    system: &MemorySystem,
    q: &am_system::tasks::TaskQueue<'_>,
    notes: &[(String, String)],
    k: usize,
) {
    use am_system::tasks::{Release, ReleaseOutcome};
    let (batch, step) = (k / RELEASE_WRITES, k % RELEASE_WRITES);
    let release = |t: usize, outcome: ReleaseOutcome, until: Option<&str>| {
        let mut r = Release::new(&queue_task_id(batch, t), "crash-drainer", outcome, "crash");
        r.until = until.map(|u| u.parse().expect("a timestamp"));
        q.release(&r).expect("release");
    };
    match step {
        0 => {
            let tasks: Vec<am_system::tasks::Enqueue> = (0..QUEUE_BATCH)
                .map(|t| {
                    let mut e = am_system::tasks::Enqueue::new(
                        am_journal::TaskKind::DigestRewrite,
                        &queue_target(batch, t),
                        (SCOPE, OWNER),
                        &format!("{}@v0", queue_target(batch, t)),
                        0.9,
                        "backfill",
                    );
                    e.priority = Some(RELEASE_PRIORITY.0);
                    if t == 0 {
                        e.max_attempts = std::num::NonZeroU32::MIN;
                    }
                    e
                })
                .chain(std::iter::once({
                    let (graph_id, assertion_id) = &notes[batch];
                    let mut e = am_system::tasks::Enqueue::new(
                        am_journal::TaskKind::DigestRewrite,
                        graph_id,
                        (SCOPE, OWNER),
                        &format!("{graph_id}@v0"),
                        0.9,
                        "backfill",
                    );
                    e.assertion_id.clone_from(assertion_id);
                    e
                }))
                .collect();
            q.enqueue_many(&tasks).expect("enqueue_many");
        }
        1 => {
            let ids: Vec<String> = (0..QUEUE_BATCH).map(|t| queue_task_id(batch, t)).collect();
            q.claim(&am_system::tasks::Claim::new(ids, "crash-drainer"))
                .expect("claim");
        }
        2 => release(0, ReleaseOutcome::Retry, None),
        // Past the fixed clock: a replay's claim refuses it `not_before`.
        3 => release(1, ReleaseOutcome::Defer, Some("2026-03-02T12:00:00Z")),
        4 => release(2, ReleaseOutcome::Skip, None),
        5 => {
            q.prioritize(&am_system::tasks::Prioritize {
                target_ids: vec![queue_target(batch, 1), queue_target(batch, 3)],
                kinds: vec![am_journal::TaskKind::DigestRewrite],
                priority: RELEASE_PRIORITY.1,
                reason: "crash".into(),
                dry_run: false,
                now: None,
            })
            .expect("prioritize");
        }
        6 => {
            q.supersede_target(&queue_target(batch, 3), "crash")
                .expect("supersede_target");
        }
        // Applied once; a replay is refused `stale` and writes nothing.
        7 => {
            system
                .rewrite_digest(&RewriteDigest::new(
                    &notes[batch].0,
                    &rewritten(batch),
                    operator(),
                    "operator".into(),
                    0,
                ))
                .expect("rewrite_digest");
        }
        _ => {
            q.supersede_stale().expect("supersede_stale");
        }
    }
}

/// Write `k` of the `record_maintenance` script: a night over two pairs.
fn maintenance(k: usize) -> am_system::tasks::RecordMaintenance {
    let (w, v) = (format!("w{k}"), format!("v{k}"));
    am_system::tasks::RecordMaintenance {
        detail: serde_json::json!({"k": k}),
        ..am_system::tasks::RecordMaintenance::new(&[(SCOPE, &w), (SCOPE, &v)])
    }
}

/// Note `i`'s graph id and digest assertion id, read from the home (the
/// digest row reads its first reading or its rewrite).
fn note_row(c: &Connection, i: usize) -> (String, String) {
    c.query_row(
        "SELECT subject, assertion_id FROM triples WHERE object IN (?1, ?2)",
        [first_reading(i), rewritten(i)],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .expect("the note's digest row")
}

/// Task 4 of `task_release` batch `batch`: note `batch`'s `digest.rewrite`.
fn stale_task_id(c: &Connection, batch: usize) -> String {
    let (graph_id, _) = note_row(c, batch);
    am_system::tasks::task_id(
        am_journal::TaskKind::DigestRewrite,
        &graph_id,
        &format!("{graph_id}@v0"),
    )
}

fn revision(i: usize) -> am_graph::Revision {
    let ops: Vec<serde_json::Value> = (0..3)
        .map(|j| {
            serde_json::json!({"op": "assert", "payload": {
                "assertion_id": format!("g{i}-{j}"), "subject": format!("ex:thing{i}"),
                "predicate": "schema:knows", "object": format!("ex:other{j}")}})
        })
        .collect();
    am_graph::Revision::from_dict(&serde_json::json!({
        "revision_id": format!("rev-{i}"), "scope": SCOPE, "owner_id": OWNER, "cause": "ingest",
        "occurred_at": "2026-01-05T09:00:00Z", "ops": ops,
        "provenance": {"sources": [{"kind": "artifact", "artifact_id": format!("note-{i}")}],
                       "actor": "crash-trials"}}))
    .expect("a valid revision")
}

/// The digest note `i` is formed with, and the one `rewrite_digest` writes.
fn first_reading(i: usize) -> String {
    format!("The first reading of note {i}.")
}
/// Write `i`'s tend block over note `id`: keep it, refocus, revisit it,
/// revise it (each reason names `i`, so its rows can be counted).
fn tend_block(i: usize, id: &str) -> String {
    format!(
        "pin: {id} — reason: keep {i}\nrefocus: — reason: moved {i}\n\
         revisit: {id} — reason: look {i}\nrevise: {id} — reason: changed {i}"
    )
}
fn rewritten(i: usize) -> String {
    format!("Rewritten note {i}: restart the pool first.")
}
/// The title note `i` is formed with, and the one `retitle` writes.
fn first_title(i: usize) -> String {
    format!("Note {i}")
}
fn retitled(i: usize) -> String {
    format!("Retitled note {i}")
}
/// The narration `narrate_dream` stores beside dream `i`'s summary.
fn narration(i: usize) -> String {
    format!("I dreamt of pool {i} overflowing.")
}

/// The author of every understanding write of the script.
/// The authored words of the world-model trial's card `i`.
fn card_words(i: usize) -> String {
    format!("Neighbour {i} is steady and kind.")
}

/// The world-model trial's target `i` (zero-padded: name order is `i`'s).
fn card_target(i: usize) -> String {
    format!("person:p{i:03}")
}

/// The world-model trial's second name for target `i` (the re-key's new
/// key, the alias bound).
fn rekeyed(i: usize) -> String {
    format!("person:q{i:03}")
}

fn operator() -> am_system::AuthorRef {
    am_system::AuthorRef::new(am_system::AuthorKind::Operator, "crash-trials")
}

/// Idempotent setup of the understanding verbs: `n` notes (or dreams) in one
/// formation; a replay returns the same ids and writes nothing.
fn setup_notes(system: &MemorySystem, n: usize, kind: RecordKind) -> Vec<String> {
    let notes: Vec<MemoryRecordInput> = (0..n)
        .map(|i| MemoryRecordInput::new(kind, &first_title(i), &first_reading(i)))
        .collect();
    system
        .remember_many(&RememberMany::new(notes, SCOPE, OWNER, "setup"))
        .expect("setup")
        .value
}

/// The ripple whose seed is `note`.
fn ripple_of(system: &MemorySystem, note: &str) -> am_system::ripple::RippleDetail {
    let r = system
        .ripples(&am_system::ripple::ListRipples {
            limit: 0,
            ..am_system::ripple::ListRipples::default()
        })
        .unwrap()
        .into_iter()
        .find(|r| r.seed_id == note)
        .expect("the note's ripple");
    system.ripple(&r.ripple_id).unwrap().unwrap()
}

/// Note `i`'s consolidation words.
fn consolidation_words(i: usize) -> String {
    format!("Since note {i} changed, its summary and its plan read otherwise.")
}

/// The ripple templates: each note with a summary (`summarizes`) and, for
/// the consolidation and revert trials, a plan (`supports`); a ripple seeded
/// on each note, its reader's rewrites done; with `settled`, both
/// reconsiderations settled (`rewritten`): the ripple consolidating.
fn setup_ripples(system: &MemorySystem, n: usize, settled: bool) {
    let ids = setup_notes(system, n, RecordKind::Memory);
    let mut leaning = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let mut summary = MemoryRecordInput::new(
            RecordKind::Summary,
            &format!("summary {i}"),
            &format!("What note {i} meant."),
        );
        summary.edges = vec![("summarizes".to_owned(), id.clone())];
        leaning.push(summary);
        if settled {
            let mut plan = MemoryRecordInput::new(
                RecordKind::Plan,
                &format!("plan {i}"),
                &format!("What note {i} asked of us."),
            );
            plan.edges = vec![("supports".to_owned(), id.clone())];
            leaning.push(plan);
        }
    }
    system
        .remember_many(&RememberMany::new(leaning, SCOPE, OWNER, "leaning"))
        .expect("the leaning records");
    for id in &ids {
        let mut seed = am_system::ripple::SeedRipple::new(id, "backfill");
        seed.change = am_system::ripple::Change::Overturned;
        system.seed_ripple(&seed).expect("seed_ripple");
        let ripple = ripple_of(system, id);
        for t in &ripple.tasks {
            system
                .rewrite_digest(&RewriteDigest::new(
                    &t.target_id,
                    &format!("{} read again.", t.target_id),
                    operator(),
                    serde_json::json!({"cause": "ripple", "ripple_id": ripple.ripple.ripple_id}),
                    0,
                ))
                .expect("the reader's rewrite");
            if settled {
                system
                    .settle_reconsideration(&am_system::ripple::SettleReconsideration::new(
                        &t.task_id,
                        "reader",
                        am_system::ripple::ReconsiderOutcome::Rewritten,
                    ))
                    .expect("settle_reconsideration");
            }
        }
    }
}

/// Idempotent setup of the closing acts: `n` episodes, each with a digest
/// and two edges to its lesson, in one formation; returns each episode's
/// graph id (a replay returns the same ids and writes nothing).
fn setup_closable(system: &MemorySystem, n: usize) -> Vec<String> {
    let mut records = Vec::with_capacity(2 * n);
    for i in 0..n {
        records.push(MemoryRecordInput::new(
            RecordKind::Lesson,
            &format!("Lesson {i}"),
            "Restart the pool first.",
        ));
        records.push(
            MemoryRecordInput::new(RecordKind::Episode, &first_title(i), &first_reading(i))
                .with_edge("derived_from", &format!("local:{}", 2 * i))
                .with_edge("follows", &format!("local:{}", 2 * i)),
        );
    }
    let ids = system
        .remember_many(&RememberMany::new(records, SCOPE, OWNER, "setup"))
        .expect("setup")
        .value;
    ids.into_iter().skip(1).step_by(2).collect()
}

/// The miner's owner of write `i`.
fn mine_owner(i: usize) -> String {
    format!("miner-{i}")
}

/// Idempotent setup of `mine_candidates_pass`: per write `i`, in its own
/// owner's pair, a question (book id `q-i`) answered in another session and
/// three episodes of three more sessions sharing its words and the compound
/// keyword `wind load` (a lesson offer and an interest offer).
fn setup_mining(system: &MemorySystem, n: usize) {
    for i in 0..n {
        let owner = mine_owner(i);
        let diary = |title: &str, t: &str, session: &str| {
            MemoryRecordInput::new(RecordKind::Diary, title, &format!("{title}?"))
                .with_provenance("source", "owner-direct")
                .with_provenance("session_id", session)
                .with_attribute("diary_type", t)
        };
        let episode = |title: &str, session: &str| {
            MemoryRecordInput::new(RecordKind::Episode, title, &format!("{title}, lived."))
                .with_provenance("session_id", session)
                .with_keywords(&["wind load"])
        };
        let records = vec![
            diary("Why do bridges sway under wind load", "question", "a")
                .with_attribute("entry_id", format!("q-{i}")),
            diary("Bridges sway by resonance", "note", "d")
                .with_attribute("resolves", format!("q-{i}")),
            episode("Bridges sway in the wind", "b"),
            episode("Wind load on bridges that sway", "c"),
            episode("A gusty walk by the bridges", "e"),
        ];
        system
            .remember_many(&RememberMany::new(
                records,
                SCOPE,
                &owner,
                &format!("mine-{i}"),
            ))
            .expect("setup_mining");
    }
}

/// Idempotent setup of the disposal verbs: per write `i`, a candidate lesson
/// of the night's origin (its digest `first_reading(i)`) and two witnesses of
/// two other origins, in one formation; returns `[candidate, w1, w2]` per
/// write (a replay returns the same ids and writes nothing).
fn setup_candidates(system: &MemorySystem, n: usize) -> Vec<[String; 3]> {
    let origin = |r: MemoryRecordInput, source: &str, actor: &str, session: String| {
        let mut r = r;
        r.provenance
            .insert("source".into(), serde_json::json!(source));
        r.provenance
            .insert("actor".into(), serde_json::json!(actor));
        r.provenance
            .insert("session_id".into(), serde_json::json!(session));
        r
    };
    let mut records = Vec::with_capacity(3 * n);
    for i in 0..n {
        records.push(origin(
            MemoryRecordInput::new(RecordKind::Lesson, &first_title(i), &first_reading(i)),
            "dream",
            "system",
            format!("night-{i}"),
        ));
        records.push(origin(
            MemoryRecordInput::new(
                RecordKind::Episode,
                &format!("Ada on {i}"),
                &format!("Ada said {i} holds."),
            ),
            "chat",
            "person:ada",
            format!("s-{i}"),
        ));
        records.push(origin(
            MemoryRecordInput::new(
                RecordKind::Episode,
                &format!("Walked {i}"),
                &format!("Walked it through, {i}."),
            ),
            "diary",
            "entity:castor",
            format!("d-{i}"),
        ));
    }
    let ids = system
        .remember_many(&RememberMany::new(records, SCOPE, OWNER, "setup"))
        .expect("setup")
        .value;
    ids.chunks(3)
        .map(|c| [c[0].clone(), c[1].clone(), c[2].clone()])
        .collect()
}

/// The owner of `wake_cue_dedup_pass`'s write `i`.
fn dedup_owner(i: usize) -> String {
    format!("loop{i}")
}

/// The template of `wake_cue_dedup_pass`: for each write, one owner's three
/// near-identical episodes of one day (and one genuine one).
fn setup_dedup(system: &MemorySystem, n: usize) {
    for i in 0..n {
        let mut records: Vec<MemoryRecordInput> = (0..3)
            .map(|_| {
                MemoryRecordInput::new(
                    RecordKind::Episode,
                    "Frost question",
                    &format!("Woke on the hourly cue and asked about frost on bed {i}"),
                )
            })
            .collect();
        records.push(MemoryRecordInput::new(
            RecordKind::Episode,
            "Tomatoes",
            "Planted six tomato seedlings.",
        ));
        system
            .remember_many(&RememberMany::new(
                records,
                SCOPE,
                &dedup_owner(i),
                &format!("setup-{i}"),
            ))
            .expect("setup");
    }
}

/// The template of `consolidation_pass`: for each write, one owner's two
/// episodes of one normalized title.
fn setup_duplicates(system: &MemorySystem, n: usize) {
    for i in 0..n {
        let records = vec![
            MemoryRecordInput::new(
                RecordKind::Episode,
                "Harbor outage",
                &format!("The harbor signal {i} failed."),
            ),
            MemoryRecordInput::new(
                RecordKind::Episode,
                "harbor  outage!",
                &format!("Signal {i} failed again."),
            ),
        ];
        system
            .remember_many(&RememberMany::new(
                records,
                SCOPE,
                &dedup_owner(i),
                &format!("setup-{i}"),
            ))
            .expect("setup");
    }
}

/// The template of `resolve_dreams_pass`: for each write, one owner's two
/// episodes, a dream proposing to bridge them, then a lived record joining
/// them.
fn setup_joined_dreams(system: &MemorySystem, n: usize) {
    for i in 0..n {
        let owner = dedup_owner(i);
        let ids = system
            .remember_many(&RememberMany::new(
                vec![
                    MemoryRecordInput::new(RecordKind::Episode, "Harbor", &format!("Harbor {i}.")),
                    MemoryRecordInput::new(
                        RecordKind::Episode,
                        "Orchard",
                        &format!("Orchard {i}."),
                    ),
                ],
                SCOPE,
                &owner,
                &format!("setup-{i}"),
            ))
            .expect("setup")
            .value;
        let dream =
            MemoryRecordInput::new(RecordKind::Dream, "A night", "Islands lit up together.")
                .with_attribute("continuation_state", "unresolved")
                .with_attribute(
                    "proposals",
                    serde_json::json!([{"pair": [ids[0], ids[1]], "shared_facets": []}]),
                );
        let join = MemoryRecordInput::new(RecordKind::Episode, "Joined", "The day joined them.")
            .with_edge("supports", &ids[0])
            .with_edge("supports", &ids[1]);
        for (r, key) in [(dream, "dream"), (join, "join")] {
            system
                .remember_many(&RememberMany::new(
                    vec![r],
                    SCOPE,
                    &owner,
                    &format!("{key}-{i}"),
                ))
                .expect("setup");
        }
    }
}

/// The template of `dream_pass`: for each write, one owner's two unlinked
/// episodes sharing two facets (one bridge).
fn setup_islands(system: &MemorySystem, n: usize) {
    for i in 0..n {
        let owner = dedup_owner(i);
        let mut a =
            MemoryRecordInput::new(RecordKind::Episode, "Harbor walk", &format!("Harbor {i}."));
        a.keywords = vec!["harbor".into(), "tide".into()];
        let mut b =
            MemoryRecordInput::new(RecordKind::Episode, "Tide tables", &format!("Tides {i}."));
        b.keywords = vec!["harbor".into(), "tide".into()];
        system
            .remember_many(&RememberMany::new(
                vec![a, b],
                SCOPE,
                &owner,
                &format!("setup-{i}"),
            ))
            .expect("setup");
    }
}

/// The template of `sleep_pass`: the islands of `dream_pass` and, for each
/// write, one owner's two lessons sharing a normalized title and three
/// episodes with Ada (a world-model card).
fn setup_night(system: &MemorySystem, n: usize) {
    setup_islands(system, n);
    for i in 0..n {
        let owner = dedup_owner(i);
        let ada: Vec<MemoryRecordInput> = (0..3)
            .map(|k| {
                let mut r = MemoryRecordInput::new(
                    RecordKind::Episode,
                    &format!("Ada {i} {k}"),
                    &format!("Ada and the garden, {i} {k}."),
                );
                r.participants = vec!["person:ada".into()];
                r
            })
            .collect();
        system
            .remember_many(&RememberMany::new(ada, SCOPE, &owner, &format!("ada-{i}")))
            .expect("setup");
        system
            .remember_many(&RememberMany::new(
                vec![
                    MemoryRecordInput::new(
                        RecordKind::Lesson,
                        "Water early",
                        &format!("Water {i}."),
                    ),
                    MemoryRecordInput::new(
                        RecordKind::Lesson,
                        "water  early!",
                        &format!("Early {i}."),
                    ),
                ],
                SCOPE,
                &owner,
                &format!("lessons-{i}"),
            ))
            .expect("setup");
    }
}

/// The assertions episode `graph_id` owns (its digest and its two edges).
fn owned_assertions(c: &Connection, graph_id: &str) -> Vec<String> {
    let mut s = c
        .prepare("SELECT assertion_id FROM triples WHERE subject = ?1 ORDER BY rowid")
        .unwrap();
    s.query_map([graph_id], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn generation_vector(g: usize, row: usize) -> Vec<f32> {
    (0..DIM)
        .map(|k| 1.0 + (g * 7 + row * 3 + k) as f32 / 1000.0)
        .collect()
}

fn helper(verb: &str, path: &Path, n: usize) {
    if verb == "journal_cold_cut" {
        // The cut only reads its source: the helper never opens it as a home.
        for i in 0..n {
            say(&format!("begin {i}"));
            let dst = cut_path(path, i);
            if !dst.exists() {
                am_backend_sqlite::cold_cut::journal_cold_cut(path, &dst, &cut_args(i), NOW)
                    .expect("journal_cold_cut");
            }
            say(&format!("ack {i}"));
        }
        return;
    }
    let home = SqliteHome::open(path).expect("open the home");
    match verb {
        "add" => {
            let store = open_store(&home, false);
            for i in 0..n {
                say(&format!("begin {i}"));
                store.add(&add_batch(i)).expect("add");
                say(&format!("ack {i}"));
            }
        }
        "remember_many" => {
            let (_, _, system) = open_system(&home);
            for i in 0..n {
                say(&format!("begin {i}"));
                let ids = system
                    .remember_many(&RememberMany::new(
                        records(i),
                        SCOPE,
                        OWNER,
                        &format!("rm-{i}"),
                    ))
                    .expect("remember_many")
                    .value;
                say(&format!("ack {i} {}", ids.join(",")));
            }
        }
        "remember_pending" => {
            let (_, _, system) = open_system_queued(&home, true);
            for i in 0..n {
                say(&format!("begin {i}"));
                let ids = system
                    .remember_many(&RememberMany::new(
                        pending_records(i),
                        SCOPE,
                        OWNER,
                        &format!("rp-{i}"),
                    ))
                    .expect("remember_many with pending fields")
                    .value;
                say(&format!("ack {i} {}", ids.join(",")));
            }
        }
        "task_queue" => {
            let (_, _, system) = open_system_queued(&home, true);
            let q = system.tasks().expect("the task queue");
            for k in 0..n {
                say(&format!("begin {k}"));
                queue_write(&q, k);
                say(&format!("ack {k}"));
            }
        }
        "task_release" => {
            let (_, _, system) = open_system_queued(&home, true);
            let ids = setup_notes(&system, n, RecordKind::Memory);
            let c = Connection::open(path).unwrap();
            let notes: Vec<(String, String)> = (0..n).map(|i| note_row(&c, i)).collect();
            for (id, (graph_id, _)) in ids.iter().zip(&notes) {
                assert_eq!(id, graph_id, "a note's digest row is its record's");
            }
            let q = system.tasks().expect("the task queue");
            for k in 0..n {
                say(&format!("begin {k}"));
                release_write(&system, &q, &notes, k);
                say(&format!("ack {k}"));
            }
        }
        "declare_pending" | "rearm_pending" => {
            // rearm_pending's template holds the notes declared pending with
            // their tasks superseded; the setup replay only returns the ids.
            let (_, _, system) = open_system_queued(&home, true);
            let ids = setup_notes(&system, n, RecordKind::Memory);
            for (i, id) in ids.iter().enumerate() {
                say(&format!("begin {i}"));
                // A replay of a landed one is `already_pending` / `live_task`
                // (unchanged, nothing written).
                if verb == "declare_pending" {
                    let mut d = DeclarePending::new(id);
                    d.fields = vec!["summary".into()];
                    system.declare_pending(&d).expect("declare_pending");
                } else {
                    system
                        .rearm_pending(&RearmPending::new(id))
                        .expect("rearm_pending");
                }
                say(&format!("ack {i}"));
            }
        }
        "record_maintenance" => {
            let (_, _, system) = open_system_queued(&home, true);
            let q = system.tasks().expect("the task queue");
            for k in 0..n {
                say(&format!("begin {k}"));
                // The fixed clock: a replay writes the same rows again.
                q.record_maintenance(&maintenance(k))
                    .expect("record_maintenance");
                say(&format!("ack {k}"));
            }
        }
        "commit_selection" => {
            let (_, _, system) = open_system(&home);
            // Idempotent setup: six records, six formation bindings (seq 6).
            let mut setup = records(0);
            setup.extend(records(1));
            setup.truncate(6);
            system
                .remember_many(&RememberMany::new(setup, SCOPE, OWNER, "setup"))
                .expect("setup");
            for i in 0..n {
                say(&format!("begin {i}"));
                let tid = format!("t{i}");
                // Anchored at the setup, so every replay lists the same handles.
                let r = system
                    .reconstruct(&Reconstruct {
                        trace_id: Some(tid.clone()),
                        ..Reconstruct::new(
                            Stimulus::new("pool outage lunch").with_as_of(6),
                            &[(SCOPE, OWNER)],
                        )
                    })
                    .expect("reconstruct");
                let used: Vec<String> = r
                    .handles
                    .iter()
                    .take(3)
                    .map(|h| h.record_id.clone())
                    .collect();
                system
                    .commit_selection(&CommitSelection::new(&tid, &used))
                    .expect("commit_selection");
                say(&format!("ack {i}"));
            }
        }
        "probe" => {
            let (_, _, system) = open_system(&home);
            // Idempotent setup: six records, six formation bindings (seq 6).
            let mut setup = records(0);
            setup.extend(records(1));
            setup.truncate(6);
            system
                .remember_many(&RememberMany::new(setup, SCOPE, OWNER, "setup"))
                .expect("setup");
            for i in 0..n {
                say(&format!("begin {i}"));
                // Anchored at the setup with a pinned trace id: a replay
                // writes the same trace and listed events, deduplicated.
                system
                    .probe(&am_system::reach::Probe {
                        trace_id: Some(format!("p{i}")),
                        ..am_system::reach::Probe::new(
                            Stimulus::new("pool outage lunch").with_as_of(6),
                            &[(SCOPE, OWNER)],
                            "the crash trial reaches",
                        )
                    })
                    .expect("probe");
                say(&format!("ack {i}"));
            }
        }
        "apply_revision" => {
            let store = open_store(&home, false);
            let journal = Arc::new(SQLiteJournal::open(&home).expect("open the journal"));
            let graph =
                am_backend_sqlite::graph::open_graph(store, Some(journal)).expect("open the graph");
            for i in 0..n {
                say(&format!("begin {i}"));
                graph
                    .apply_revision(&revision(i), false)
                    .expect("apply_revision");
                say(&format!("ack {i}"));
            }
        }
        "upgrade" => {
            say("begin 0");
            let _store = open_store(&home, true);
            say("ack 0");
        }
        "replace_vectors" => {
            let store = open_store(&home, false);
            let ids = row_ids(path);
            let pin = am_triples::pin::build_pin(Some("crash-model"), Some(DIM), "reembed", None)
                .expect("a pin");
            for g in 0..n {
                say(&format!("begin {g}"));
                let vectors: HashMap<String, Vec<f32>> = ids
                    .iter()
                    .enumerate()
                    .map(|(row, id)| (id.clone(), generation_vector(g, row)))
                    .collect();
                store
                    .replace_vectors(&vectors, &pin, ids.len(), None)
                    .expect("replace_vectors");
                say(&format!("ack {g}"));
            }
        }
        "rewrite_digest" => {
            let (_, _, system) = open_system(&home);
            let ids = setup_notes(&system, n, RecordKind::Memory);
            for (i, id) in ids.iter().enumerate() {
                say(&format!("begin {i}"));
                // Applied once; a replay of a landed one is refused `stale`
                // (an answer, not an error) and writes nothing.
                system
                    .rewrite_digest(&RewriteDigest::new(
                        id,
                        &rewritten(i),
                        operator(),
                        "operator".into(),
                        0,
                    ))
                    .expect("rewrite_digest");
                say(&format!("ack {i}"));
            }
        }
        "retitle" => {
            let (_, _, system) = open_system(&home);
            let ids = setup_notes(&system, n, RecordKind::Memory);
            for (i, id) in ids.iter().enumerate() {
                say(&format!("begin {i}"));
                // The first retitle: captures the formed title as version 0.
                system
                    .retitle(&Retitle::new(
                        id,
                        &retitled(i),
                        operator(),
                        "operator".into(),
                        0,
                    ))
                    .expect("retitle");
                say(&format!("ack {i}"));
            }
        }
        "narrate_dream" => {
            let (_, _, system) = open_system(&home);
            let ids = setup_notes(&system, n, RecordKind::Dream);
            for (i, id) in ids.iter().enumerate() {
                say(&format!("begin {i}"));
                system
                    .narrate_dream(&NarrateDream::new(id, &narration(i), operator()))
                    .expect("narrate_dream");
                say(&format!("ack {i}"));
            }
        }
        "apply_tend_elections" => {
            // The seed_ripple template (notes, each with a summary leaning
            // on it); the setup replay only returns their ids.
            let (_, _, system) = open_system_queued(&home, true);
            let ids = setup_notes(&system, n, RecordKind::Memory);
            for (i, id) in ids.iter().enumerate() {
                say(&format!("begin {i}"));
                let block = am_system::candidates::parse_tend_block(
                    &am_system::candidates::ParseTendBlock::new(&tend_block(i, id)),
                )
                .expect("parse_tend_block");
                let r = system
                    .apply_tend_elections(&am_system::candidates::ApplyTendElections::new(
                        block.elections,
                        SCOPE,
                        OWNER,
                        "entity-reflection",
                    ))
                    .expect("apply_tend_elections")
                    .value;
                assert_eq!(r.applied.len(), 4, "{:?}", r.refused);
                say(&format!("ack {i}"));
            }
        }
        "seed_ripple" => {
            // The template holds the notes, each with a summary leaning on
            // it; the setup replay only returns their ids.
            let (_, _, system) = open_system_queued(&home, true);
            let ids = setup_notes(&system, n, RecordKind::Memory);
            for (i, id) in ids.iter().enumerate() {
                say(&format!("begin {i}"));
                // The ripple row, its decision and its task land together;
                // a replay finds the ripple and writes nothing.
                system
                    .seed_ripple(&am_system::ripple::SeedRipple::new(id, "backfill"))
                    .expect("seed_ripple");
                say(&format!("ack {i}"));
            }
        }
        "settle_reconsideration" | "form_consolidation" | "revert_ripple" => {
            // The template holds the notes, each with the ripple it seeded
            // and the memories the ripple's reader rewrote; the setup replay
            // only returns their ids.
            let (_, _, system) = open_system_queued(&home, true);
            let ids = setup_notes(&system, n, RecordKind::Memory);
            for (i, id) in ids.iter().enumerate() {
                let ripple = ripple_of(&system, id);
                say(&format!("begin {i}"));
                match verb {
                    "settle_reconsideration" => {
                        // Replayed: refused `not_live`, nothing written.
                        let t = ripple
                            .tasks
                            .iter()
                            .find(|t| t.kind == am_journal::TaskKind::RippleReconsider)
                            .expect("the summary's task");
                        system
                            .settle_reconsideration(&am_system::ripple::SettleReconsideration::new(
                                &t.task_id,
                                "reader",
                                am_system::ripple::ReconsiderOutcome::Rewritten,
                            ))
                            .expect("settle_reconsideration");
                    }
                    "form_consolidation" => {
                        // Replayed: refused `not_live`, nothing written.
                        let task = ripple
                            .ripple
                            .consolidate_task_id
                            .clone()
                            .expect("the consolidation task");
                        system
                            .form_consolidation(&am_system::ripple::FormConsolidation::new(
                                &task,
                                "night-reader",
                                &consolidation_words(i),
                                &format!("What note {i}'s change changes"),
                                operator(),
                            ))
                            .expect("form_consolidation");
                    }
                    _ => {
                        // One restore per changed memory, each its own
                        // transaction; replayed: `stale`, nothing written.
                        system
                            .revert_ripple(&am_system::ripple::RevertRipple::new(
                                &ripple.ripple.ripple_id,
                            ))
                            .expect("revert_ripple");
                    }
                }
                say(&format!("ack {i}"));
            }
        }
        "revert_digest" => {
            // The template holds the notes, each rewritten once (version 1);
            // the setup replay only returns their ids.
            let (_, _, system) = open_system(&home);
            let ids = setup_notes(&system, n, RecordKind::Memory);
            for (i, id) in ids.iter().enumerate() {
                say(&format!("begin {i}"));
                // Version 0 restored as version 2; a replay is `stale`.
                system
                    .revert_digest(&RevertDigest::new(id, 0, 1))
                    .expect("revert_digest");
                say(&format!("ack {i}"));
            }
        }
        "close_record" => {
            let (_, _, system) = open_system(&home);
            for (i, id) in setup_closable(&system, n).iter().enumerate() {
                say(&format!("begin {i}"));
                // Deterministic closure ids: a replay appends nothing.
                let closed = system
                    .close_record(&CloseRecord::retract(id, "wrong order"))
                    .expect("close_record");
                assert_eq!(closed.len(), 3, "the digest and its two edges");
                say(&format!("ack {i}"));
            }
        }
        "confirm_relation" => {
            // The template holds each candidate and its two witnesses.
            let (_, _, system) = open_system(&home);
            for (i, [cand, w1, w2]) in setup_candidates(&system, n).iter().enumerate() {
                say(&format!("begin {i}"));
                // The edge and its two cited events land together; the ids
                // derive from the edge and the evidence, so a replay writes
                // nothing.
                system
                    .confirm_relation(&am_system::candidates::ConfirmRelation::new(
                        cand,
                        "supports",
                        w1,
                        &[w2],
                        "the day showed it",
                    ))
                    .expect("confirm_relation");
                say(&format!("ack {i}"));
            }
        }
        "promote_candidate" => {
            let (_, journal, system) = open_system(&home);
            for (i, [cand, w1, w2]) in setup_candidates(&system, n).iter().enumerate() {
                say(&format!("begin {i}"));
                // One binding per promotion; a resuming host skips a
                // candidate already promoted (the binding id is the journal's).
                let promoted = journal
                    .bindings(&am_journal::BindingFilter {
                        record_id: Some(cand.clone()),
                        scope: None,
                        owner_id: None,
                        fold: true,
                        until_seq: None,
                    })
                    .expect("bindings")
                    .iter()
                    .any(|b| b.lifecycle == am_journal::Lifecycle::Promoted);
                if !promoted {
                    let r = system
                        .promote_candidate(&am_system::candidates::PromoteCandidate::new(
                            cand,
                            SCOPE,
                            OWNER,
                            &[w1, w2],
                            "two independent witnesses",
                        ))
                        .expect("promote_candidate");
                    assert!(r.done().is_some(), "promoted");
                }
                say(&format!("ack {i}"));
            }
        }
        "mine_candidates_pass" => {
            // The template holds each owner's material; a replay skips the
            // standing offers and writes nothing.
            let (_, _, system) = open_system_queued(&home, true);
            setup_mining(&system, n);
            for i in 0..n {
                say(&format!("begin {i}"));
                let owner = mine_owner(i);
                let r = system
                    .mine_candidates_pass(
                        &am_system::candidates::MineCandidates::new(&[(SCOPE, &owner)], &owner),
                        None,
                    )
                    .expect("mine_candidates_pass")
                    .value;
                say(&format!("ack {i} {}", r.created_count));
            }
        }
        "close_assertions" => {
            let (_, journal, system) = open_system(&home);
            let c = Connection::open(path).unwrap();
            for (i, id) in setup_closable(&system, n).iter().enumerate() {
                say(&format!("begin {i}"));
                let owned = owned_assertions(&c, id);
                assert_eq!(owned.len(), 3, "the digest and its two edges");
                let closed_already = !journal
                    .closures(&am_journal::ClosureFilter {
                        assertion_id: Some(owned[0].clone()),
                        ..am_journal::ClosureFilter::default()
                    })
                    .expect("closures")
                    .is_empty();
                if !closed_already {
                    system
                        .close_assertions(&CloseAssertions::new(
                            &owned,
                            am_journal::ClosureKind::Retract,
                            "wrong",
                        ))
                        .expect("close_assertions");
                }
                say(&format!("ack {i}"));
            }
        }
        "wake_cue_dedup_pass" => {
            // The template holds each owner's loop episodes.
            let (_, _, system) = open_system_queued(&home, true);
            for i in 0..n {
                say(&format!("begin {i}"));
                let r = system
                    .wake_cue_dedup_pass(
                        &am_system::sleep::WakeCueDedup::new(SCOPE, &dedup_owner(i), "crash"),
                        None,
                    )
                    .expect("wake_cue_dedup_pass")
                    .value;
                say(&format!("ack {i} {}", r.cluster_count));
            }
        }
        "consolidation_pass" => {
            // The template holds each owner's duplicate-title pair.
            let (_, _, system) = open_system_queued(&home, true);
            for i in 0..n {
                say(&format!("begin {i}"));
                let owner = dedup_owner(i);
                let r = system
                    .consolidation_pass(
                        &am_system::sleep::ConsolidationPass::new(&[(SCOPE, &owner)], &owner),
                        None,
                    )
                    .expect("consolidation_pass")
                    .value;
                say(&format!("ack {i} {}", r.created.len()));
            }
        }
        "resolve_dreams_pass" => {
            // The template holds each owner's joined dream.
            let (_, _, system) = open_system_queued(&home, true);
            for i in 0..n {
                say(&format!("begin {i}"));
                let owner = dedup_owner(i);
                let r = system
                    .resolve_dreams_pass(&am_system::sleep::ResolveDreams::new(
                        &[(SCOPE, &owner)],
                        &owner,
                    ))
                    .expect("resolve_dreams_pass")
                    .value;
                say(&format!("ack {i} {}", r.resolved_count));
            }
        }
        "world_model_pass" => {
            // One card revised per pass (the busiest target first, ties by
            // name: p00, p01, ...); a replay's passes revise what is left.
            let (_, _, system) = open_system_queued(&home, true);
            let mut pass = am_system::world_models::WorldModelPass::new(&[(SCOPE, OWNER)], OWNER);
            pass.tuning.world_model_max_cards = 1;
            for i in 0..n {
                say(&format!("begin {i}"));
                system
                    .world_model_pass(&pass, None)
                    .expect("world_model_pass");
                say(&format!("ack {i}"));
            }
        }
        "author_world_model" => {
            let (_, _, system) = open_system_queued(&home, true);
            for i in 0..n {
                say(&format!("begin {i}"));
                system
                    .author_world_model(&am_system::world_models::AuthorWorldModel {
                        author: am_system::world_models::CardAuthor::Ref(operator()),
                        ..am_system::world_models::AuthorWorldModel::new(
                            &card_target(i),
                            &card_words(i),
                            SCOPE,
                            OWNER,
                        )
                    })
                    .expect("author_world_model");
                say(&format!("ack {i}"));
            }
        }
        "rekey_world_model" => {
            let (_, _, system) = open_system_queued(&home, true);
            for i in 0..n {
                say(&format!("begin {i}"));
                system
                    .rekey_world_model(&am_system::world_models::RekeyWorldModel::new(
                        &card_target(i),
                        &rekeyed(i),
                        (SCOPE, OWNER),
                        operator(),
                        serde_json::json!("repair"),
                    ))
                    .expect("rekey_world_model");
                say(&format!("ack {i}"));
            }
        }
        "alias_world_model" => {
            let (_, _, system) = open_system_queued(&home, true);
            for i in 0..n {
                say(&format!("begin {i}"));
                system
                    .alias_world_model(&am_system::world_models::AliasWorldModel::new(
                        &card_target(i),
                        &rekeyed(i),
                        (SCOPE, OWNER),
                        "one neighbour, two names",
                    ))
                    .expect("alias_world_model");
                say(&format!("ack {i}"));
            }
        }
        "author_world_model_revision" => {
            let (_, _, system) = open_system_queued(&home, true);
            for i in 0..n {
                say(&format!("begin {i}"));
                system
                    .author_world_model(&am_system::world_models::AuthorWorldModel {
                        author: am_system::world_models::CardAuthor::Ref(operator()),
                        in_place: false,
                        ..am_system::world_models::AuthorWorldModel::new(
                            &card_target(i),
                            &card_words(i),
                            SCOPE,
                            OWNER,
                        )
                    })
                    .expect("author_world_model");
                say(&format!("ack {i}"));
            }
        }
        "dream_pass" => {
            // The template holds each owner's two islands.
            let (_, _, system) = open_system_queued(&home, true);
            for i in 0..n {
                say(&format!("begin {i}"));
                let owner = dedup_owner(i);
                let r = system
                    .dream_pass(
                        &am_system::sleep::DreamPass::new(&[(SCOPE, &owner)], &owner),
                        None,
                    )
                    .expect("dream_pass")
                    .value;
                say(&format!("ack {i} {}", r.created));
            }
        }
        "sleep_pass" => {
            // The template holds each owner's islands and lessons.
            let (_, _, system) = open_system_queued(&home, true);
            for i in 0..n {
                say(&format!("begin {i}"));
                let owner = dedup_owner(i);
                let r = system
                    .sleep_pass(
                        &am_system::sleep::SleepPass::new(&[(SCOPE, &owner)], &owner),
                        None,
                        &am_system::sleep::NightHooks::default(),
                    )
                    .expect("sleep_pass")
                    .value;
                say(&format!("ack {i} {}", r.completion.len()));
            }
        }
        "reembed_store" => {
            let (_, _, system) = open_system_in_space(&home, path);
            for i in 0..n {
                say(&format!("begin {i}"));
                system
                    .reembed_store(
                        &am_system::operator::ReembedStore::new(OWNER),
                        Arc::new(SpaceEmbedder(i + 1)),
                        &mut |_, _| {},
                    )
                    .expect("reembed_store");
                say(&format!("ack {i}"));
            }
        }
        "placement" => {
            // The template holds a communities version: each formation
            // places its record, the `placed` event in the record's own
            // transaction.
            let (_, _, system) = open_system_embedded(&home);
            for i in 0..n {
                say(&format!("begin {i}"));
                let ids = system
                    .remember_many(&RememberMany::new(
                        vec![garden_record(i, "later")],
                        SCOPE,
                        OWNER,
                        &format!("pl-{i}"),
                    ))
                    .expect("remember_many (placed)")
                    .value;
                say(&format!("ack {i} {}", ids.join(",")));
            }
        }
        "communities_pass" => {
            // Each owner's six garden records: the pass forms its first
            // version, the topic pending (no author) with its tasks.
            let (_, _, system) = open_system_embedded(&home);
            for i in 0..n {
                say(&format!("begin {i}"));
                let owner = dedup_owner(i);
                let r = system
                    .communities_pass(
                        &am_system::communities::CommunitiesPass::new(&[(SCOPE, &owner)], &owner),
                        None,
                        &|| false,
                    )
                    .expect("communities_pass");
                say(&format!("ack {i} {}", r.written.len()));
            }
        }
        "communities_in_place" => {
            // Each owner's standing topic is pending: the pass (unchanged
            // home) authors it in place.
            let (_, _, system) = open_system_embedded(&home);
            for i in 0..n {
                say(&format!("begin {i}"));
                let owner = dedup_owner(i);
                let r = system
                    .communities_pass(
                        &am_system::communities::CommunitiesPass::new(&[(SCOPE, &owner)], &owner),
                        Some(&topic_author),
                        &|| false,
                    )
                    .expect("communities_pass (in place)");
                say(&format!("ack {i} {}", r.authored_in_place.len()));
            }
        }
        "embed_missing" => {
            // Each owner's one record was formed without an embedder: the
            // store's embedder now gives it its vector.
            let (_, _, system) = open_system_embedded(&home);
            for i in 0..n {
                say(&format!("begin {i}"));
                let owner = dedup_owner(i);
                let r = system
                    .embed_missing(
                        &am_system::communities::EmbedMissing::new(&[(SCOPE, &owner)], &owner),
                        &|| false,
                    )
                    .expect("embed_missing");
                say(&format!("ack {i} {}", r.embedded));
            }
        }
        other => panic!("unknown verb {other}"),
    }
}

/// The in-place trial's author: every field asked, one fixed answer.
fn topic_author(
    _kind: &str,
    _body: &str,
    ctx: &am_system::formation::authoring::AuthorContext,
) -> Result<am_system::formation::authoring::Authored, am_system::formation::authoring::AuthorError>
{
    let wants = |f: &str| ctx.fields.iter().any(|x| x.as_str() == f);
    let mut author = am_triples::JsonMap::new();
    author.insert("kind".into(), serde_json::json!("operator"));
    author.insert("id".into(), serde_json::json!("op:ada"));
    Ok(am_system::formation::authoring::Authored {
        title: wants("title").then(|| "The garden beds".to_owned()),
        summary: wants("summary").then(|| "Work in the garden beds.".to_owned()),
        author,
        ..am_system::formation::authoring::Authored::default()
    })
}

/// A deterministic embedder for the placement trial: a garden text points
/// along the first axis, with a small text-derived offset.
struct GardenEmbedder;

impl am_triples::TextEmbedder for GardenEmbedder {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let h = t
                    .bytes()
                    .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
                let mut v = vec![0.0f32; DIM];
                v[0] = 1.0;
                for (k, x) in v.iter_mut().enumerate().skip(1) {
                    *x = ((h >> (k * 4)) & 0xf) as f32 / 100.0;
                }
                v
            })
            .collect())
    }
    fn model_id(&self) -> Option<String> {
        Some("garden-embedder-v1".into())
    }
    fn dimension(&self) -> Option<usize> {
        Some(DIM)
    }
}

/// The system over a home whose store embeds with [`GardenEmbedder`], with
/// the task queue.
fn open_system_embedded(
    home: &SqliteHome,
) -> (Arc<SQLiteTripleStore>, Arc<SQLiteJournal>, MemorySystem) {
    let store = Arc::new(
        SQLiteTripleStore::with_home(
            home,
            Some(Arc::new(GardenEmbedder)),
            SqliteStoreOptions::default(),
        )
        .expect("open the store"),
    );
    let journal = Arc::new(SQLiteJournal::open(home).expect("open the journal"));
    let system = MemorySystem::with_options(
        store.clone(),
        journal.clone(),
        SystemOptions {
            clock: Some(am_triples::fixed_clock(
                am_triples::Timestamp::parse(NOW).unwrap(),
            )),
            task_queue: true,
            ..SystemOptions::default()
        },
    )
    .expect("open the system");
    (store, journal, system)
}

/// The `g`-th embedding space of the re-embed trial: its own model
/// (`space-<g>`) and dimension (4, 6 or 8 in turn), every vector a function
/// of the text and the space.
struct SpaceEmbedder(usize);

impl SpaceEmbedder {
    fn dim(&self) -> usize {
        4 + 2 * (self.0 % 3)
    }
    fn vector(&self, t: &str) -> Vec<f32> {
        let h = t
            .bytes()
            .fold(11u64, |h, b| h.wrapping_mul(131).wrapping_add(u64::from(b)));
        (0..self.dim())
            .map(|k| 1.0 + ((h >> (k * 5)) & 0x1f) as f32 / 64.0 + self.0 as f32 / 8.0)
            .collect()
    }
}

impl am_triples::TextEmbedder for SpaceEmbedder {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }
    fn model_id(&self) -> Option<String> {
        Some(format!("space-{}", self.0))
    }
    fn dimension(&self) -> Option<usize> {
        Some(self.dim())
    }
}

/// The space a home is pinned to (`space-<g>`), read off its pin.
fn pinned_space(path: &Path) -> Option<usize> {
    am_backend_sqlite::read_embedding_pin(path, None)
        .expect("read the pin")
        .and_then(|p| p.model_id)
        .and_then(|m| m.strip_prefix("space-").and_then(|g| g.parse().ok()))
}

/// The system over a home, its store opened with the embedder of the space
/// the home is pinned to (space 0 for a new home).
fn open_system_in_space(
    home: &SqliteHome,
    path: &Path,
) -> (Arc<SQLiteTripleStore>, Arc<SQLiteJournal>, MemorySystem) {
    let g = pinned_space(path).unwrap_or(0);
    let store = Arc::new(
        SQLiteTripleStore::with_home(
            home,
            Some(Arc::new(SpaceEmbedder(g))),
            SqliteStoreOptions::default(),
        )
        .expect("open the store in its pinned space"),
    );
    let journal = Arc::new(SQLiteJournal::open(home).expect("open the journal"));
    let system = MemorySystem::with_options(
        store.clone(),
        journal.clone(),
        SystemOptions {
            clock: Some(am_triples::fixed_clock(
                am_triples::Timestamp::parse(NOW).unwrap(),
            )),
            ..SystemOptions::default()
        },
    )
    .expect("open the system");
    (store, journal, system)
}

/// The re-embed trial's check of a home after a kill: the space it is in
/// (`Ok(g)`), or what is wrong with it.
fn reembed_state(path: &Path) -> Result<(usize, usize), String> {
    let g = pinned_space(path).ok_or("the home has no space-<g> pin")?;
    let space = SpaceEmbedder(g);
    let pin = am_backend_sqlite::read_embedding_pin(path, None)
        .map_err(|e| e.to_string())?
        .ok_or("no pin")?;
    if pin.dimension != Some(space.dim()) {
        return Err(format!(
            "the pin names space-{g} with dimension {:?}, the space's is {}",
            pin.dimension,
            space.dim()
        ));
    }
    let home = SqliteHome::open(path).unwrap();
    let (store, _, _system) = open_system_in_space(&home, path);
    let rows = store
        .query(&am_triples::TripleQuery {
            limit: 0,
            ..am_triples::TripleQuery::default()
        })
        .map_err(|e| e.to_string())?;
    let by_id: HashMap<String, &TripleAssertion> = rows
        .iter()
        .filter_map(|a| a.assertion_id.clone().map(|id| (id, a)))
        .collect();
    let c = Connection::open(path).unwrap();
    let mut s = c
        .prepare("SELECT assertion_id, embedding FROM triples WHERE embedding IS NOT NULL")
        .unwrap();
    let cells: Vec<(String, Vec<u8>)> = s
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for (id, blob) in &cells {
        let a = by_id
            .get(id)
            .ok_or(format!("a vector for the unknown row {id}"))?;
        let want: Vec<u8> = space
            .vector(&am_triples::text::canonical_text(a))
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        if *blob != want {
            return Err(format!(
                "row {id} holds a vector of {} bytes that is not space-{g}'s (the pinned one): a mix",
                blob.len()
            ));
        }
    }
    // Every text row but the markers' own holds a vector once a move
    // landed (the move vectors them all; a marker forms after its swap).
    let vectorless = rows
        .iter()
        .filter(|a| !am_triples::text::is_record_edge(a))
        .filter(|a| a.attributes.get("maintenance").and_then(|m| m.as_str()) != Some("reembed"))
        .filter(|a| {
            a.assertion_id
                .as_ref()
                .is_none_or(|id| !cells.iter().any(|(c, _)| c == id))
        })
        .count();
    if g > 0 && vectorless > 0 {
        return Err(format!(
            "space-{g}: {vectorless} text rows of {} hold no vector",
            rows.len()
        ));
    }
    // The home answers: a vector query in the pinned space.
    let hits = store
        .query(&am_triples::TripleQuery {
            query_text: Some("garden bed 3".into()),
            limit: 5,
            ..am_triples::TripleQuery::default()
        })
        .map_err(|e| format!("a vector query in space-{g} failed: {e}"))?;
    if hits.is_empty() {
        return Err(format!("a vector query in space-{g} found nothing"));
    }
    let markers = count(
        &c,
        "SELECT COUNT(DISTINCT subject) FROM triples \
         WHERE json_extract(attributes_json, '$.maintenance') = 'reembed'",
        &[],
    );
    Ok((g, markers))
}

/// Where write `i` of the cold-cut script puts its cut of `home`.
fn cut_path(home: &Path, i: usize) -> PathBuf {
    PathBuf::from(format!("{}.cut-{i}", home.display()))
}

/// Write `i`'s cut: the crash pair cut at its own seq, the diary pair kept
/// whole, every odd cut with a global cut too, every third one cutting
/// traces and snapshots.
fn cut_args(i: usize) -> am_backend_sqlite::cold_cut::ColdCut {
    let mut a = am_backend_sqlite::cold_cut::ColdCut::new(&format!("archive://crash-{i}"));
    let i64_of = |x: usize| i64::try_from(x).unwrap();
    a.pair_cuts = vec![
        (SCOPE.to_owned(), OWNER.to_owned(), i64_of(2 * (i + 1))),
        ("diary".to_owned(), OWNER.to_owned(), 0),
    ];
    if i % 2 == 1 {
        a.cut_seq = i64_of(i + 1);
    }
    a.cut_traces = i.is_multiple_of(3);
    a
}

/// What a cut file holds, for comparing a trial's cut with the clean
/// run's: its events' seqs, the rows holding a vector, the high water, the
/// traces and snapshots, and its compaction records.
fn cut_contents(path: &Path) -> String {
    let c = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let col = |sql: &str| -> String {
        let mut s = c.prepare(sql).unwrap();
        let v: Vec<String> = s
            .query_map([], |r| r.get::<_, rusqlite::types::Value>(0))
            .unwrap()
            .map(|v| format!("{:?}", v.unwrap()))
            .collect();
        v.join(",")
    };
    format!(
        "events=[{}] vectored=[{}] seq=[{}] traces=[{}] snapshots=[{}] compaction=[{}]",
        col("SELECT seq FROM memj_events ORDER BY seq"),
        col("SELECT assertion_id FROM triples WHERE embedding IS NOT NULL ORDER BY assertion_id"),
        col("SELECT value FROM memj_seq"),
        col("SELECT COUNT(*) FROM memj_traces"),
        col("SELECT COUNT(*) FROM memj_snapshots"),
        col("SELECT value FROM triples_meta WHERE key = 'compaction'"),
    )
}

/// A cut file's unit: absent 0; a whole cut of `src` (it passes
/// `verify_cold_cut`) its contents' hash (never 0 or 1); a file that does
/// not pass 1.
fn cut_unit(src: &Path, dst: &Path) -> usize {
    if !dst.exists() {
        return 0;
    }
    match am_backend_sqlite::cold_cut::verify_cold_cut(src, dst) {
        Ok(v) if v.ok => {
            // FNV-1a of the contents.
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for b in cut_contents(dst).bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
            usize::try_from(h >> 8).unwrap_or(usize::MAX) | 2
        }
        _ => 1,
    }
}

fn garden_record(i: usize, tag: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(
        RecordKind::Episode,
        &format!("Garden {tag} {i}"),
        &format!("Work in the garden beds, {tag} {i}."),
    )
}

// ---------------------------------------------------------------- the parent

fn row_ids(path: &Path) -> Vec<String> {
    let c = Connection::open(path).unwrap();
    let mut s = c
        .prepare("SELECT assertion_id FROM triples ORDER BY rowid")
        .unwrap();
    s.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// What one helper run acknowledged.
#[derive(Default, Debug)]
struct Run {
    begun: Option<usize>,
    acked: Option<usize>,
    killed: bool,
    elapsed: Duration,
}

fn spawn_helper(verb: &str, home: &Path, n: usize, kill_after: Option<Duration>) -> Run {
    let exe = std::env::current_exe().unwrap();
    let start = Instant::now();
    let mut child = Command::new(exe)
        .arg("--helper")
        .arg(verb)
        .arg(home)
        .arg(n.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the writer");
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut run = Run::default();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let mut words = line.split_whitespace();
            let (Some(tag), Some(i)) = (words.next(), words.next()) else {
                continue;
            };
            let i: usize = i.parse().unwrap();
            match tag {
                "begin" => run.begun = Some(i),
                "ack" => run.acked = Some(i),
                _ => {}
            }
        }
        run
    });
    let mut killed = false;
    if let Some(after) = kill_after {
        let deadline = start + after;
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if Instant::now() >= deadline {
                child.kill().unwrap(); // SIGKILL on Unix
                killed = true;
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    let status = child.wait().unwrap();
    let mut run = reader.join().unwrap();
    run.killed = killed;
    run.elapsed = start.elapsed();
    if !killed {
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert!(
            status.success(),
            "the {verb} writer failed: {status}\n{err}"
        );
    }
    run
}

/// Rows per unit of work (a unit is all there or absent).
type Units = BTreeMap<String, usize>;

fn count(c: &Connection, sql: &str, p: &[&dyn rusqlite::ToSql]) -> usize {
    c.query_row(sql, p, |r| r.get::<_, i64>(0)).unwrap() as usize
}

/// A formed record's whole unit: the rows of the records `select` names
/// (an SQL select of subjects, `?1` the owner), their formation bindings,
/// their tasks and the tasks' `enqueued` log rows.
fn formed_unit(c: &Connection, select: &str, owner: &str) -> usize {
    let has = |t: &str| {
        count(
            c,
            "SELECT COUNT(*) FROM sqlite_master WHERE name = ?1",
            &[&t],
        ) > 0
    };
    let mut k = count(
        c,
        &format!("SELECT COUNT(*) FROM triples WHERE subject IN ({select})"),
        &[&owner],
    );
    if has("memj_bindings") {
        k += count(
            c,
            &format!(
                "SELECT COUNT(*) FROM memj_bindings WHERE record_id IN ({select}) OR record_id IN \
                 (SELECT assertion_id FROM triples WHERE subject IN ({select}))"
            ),
            &[&owner],
        );
    }
    if has_queue(c) {
        let tasks = format!("SELECT task_id FROM memq_tasks WHERE target_id IN ({select})");
        k += count(c, &format!("SELECT COUNT(*) FROM ({tasks})"), &[&owner])
            + count(
                c,
                &format!(
                    "SELECT COUNT(*) FROM memq_log WHERE event = 'enqueued' AND task_id IN ({tasks})"
                ),
                &[&owner],
            );
    }
    k
}

#[allow(clippy::needless_range_loop)] // `i` names the unit, not only an index.
fn units(verb: &str, path: &Path, reference_ids: &[Vec<String>], n: usize) -> Units {
    let c = Connection::open(path).unwrap();
    let has = |t: &str| {
        count(
            &c,
            "SELECT COUNT(*) FROM sqlite_master WHERE name = ?1",
            &[&t],
        ) > 0
    };
    let mut u = Units::new();
    for i in 0..n {
        match verb {
            "journal_cold_cut" => {
                u.insert(format!("cut {i}"), cut_unit(path, &cut_path(path, i)));
            }
            "add" => {
                let k = count(
                    &c,
                    "SELECT COUNT(*) FROM triples WHERE subject = ?1",
                    &[&format!("s{i}")],
                );
                u.insert(format!("add {i}"), k);
            }
            "remember_many" | "remember_pending" => {
                let mut k = 0;
                for id in &reference_ids[i] {
                    if has_queue(&c) {
                        // The record's tasks and their `enqueued` rows.
                        k += count(
                            &c,
                            "SELECT COUNT(*) FROM memq_tasks WHERE target_id = ?1",
                            &[id],
                        );
                        k += count(
                            &c,
                            "SELECT COUNT(*) FROM memq_log WHERE event = 'enqueued' AND task_id IN \
                             (SELECT task_id FROM memq_tasks WHERE target_id = ?1)",
                            &[id],
                        );
                    }
                    k += count(&c, "SELECT COUNT(*) FROM triples WHERE subject = ?1", &[id]);
                    k += count(
                        &c,
                        "SELECT COUNT(*) FROM memj_bindings WHERE record_id = ?1 OR record_id IN \
                         (SELECT assertion_id FROM triples WHERE subject = ?1)",
                        &[id],
                    );
                }
                u.insert(format!("{verb} {i}"), k);
            }
            "task_queue" => {
                let (batch, step) = (i / QUEUE_WRITES, i % QUEUE_WRITES);
                let ids: Vec<String> = match step {
                    0 | 1 => (0..QUEUE_BATCH).map(|t| queue_task_id(batch, t)).collect(),
                    _ => vec![queue_task_id(batch, step - 2)],
                };
                let mut k = 0;
                for id in ids.iter().filter(|_| has_queue(&c)) {
                    k += match step {
                        // The row and its `enqueued` log row.
                        0 => {
                            count(
                                &c,
                                "SELECT COUNT(*) FROM memq_tasks WHERE task_id = ?1",
                                &[id],
                            ) + count(
                                &c,
                                "SELECT COUNT(*) FROM memq_log WHERE task_id = ?1 AND event = 'enqueued'",
                                &[id],
                            )
                        }
                        // The attempt it spent and its `claimed` log row.
                        1 => {
                            count(
                                &c,
                                "SELECT COUNT(*) FROM memq_tasks WHERE task_id = ?1 AND \
                                 json_extract(task_json, '$.attempts') = 1",
                                &[id],
                            ) + count(
                                &c,
                                "SELECT COUNT(*) FROM memq_log WHERE task_id = ?1 AND event = 'claimed'",
                                &[id],
                            )
                        }
                        // The settled row and its `acked` log row.
                        _ => {
                            count(
                                &c,
                                "SELECT COUNT(*) FROM memq_tasks WHERE task_id = ?1 AND status = 'done'",
                                &[id],
                            ) + count(
                                &c,
                                "SELECT COUNT(*) FROM memq_log WHERE task_id = ?1 AND event = 'acked'",
                                &[id],
                            )
                        }
                    };
                }
                u.insert(format!("task_queue {i}"), k);
            }
            "task_release" => {
                let (batch, step) = (i / RELEASE_WRITES, i % RELEASE_WRITES);
                let ids: Vec<String> = match step {
                    0 => (0..QUEUE_BATCH)
                        .map(|t| queue_task_id(batch, t))
                        .chain([stale_task_id(&c, batch)])
                        .collect(),
                    1 => (0..QUEUE_BATCH).map(|t| queue_task_id(batch, t)).collect(),
                    5 => vec![queue_task_id(batch, 1), queue_task_id(batch, 3)],
                    6 => vec![queue_task_id(batch, 3)],
                    7 => Vec::new(),
                    8 => vec![stale_task_id(&c, batch)],
                    s => vec![queue_task_id(batch, s - 2)],
                };
                let mut k = 0;
                let row = |id: &String, cond: &str| {
                    count(
                        &c,
                        &format!("SELECT COUNT(*) FROM memq_tasks WHERE task_id = ?1 AND {cond}"),
                        &[id],
                    )
                };
                let log = |id: &String, event: &str| {
                    count(
                        &c,
                        "SELECT COUNT(*) FROM memq_log WHERE task_id = ?1 AND event = ?2",
                        &[id, &event],
                    )
                };
                let settled = |id: &String, status: &str| row(id, &format!("status = '{status}'"));
                for id in ids.iter().filter(|_| has_queue(&c)) {
                    k += match step {
                        0 => row(id, "1") + log(id, "enqueued"),
                        // The attempt it spent (given back by a defer) and
                        // its `claimed` log row.
                        1 => {
                            row(
                                id,
                                "(json_extract(task_json, '$.attempts') = 1 OR                                  status = 'deferred')",
                            ) + log(id, "claimed")
                        }
                        // Retry at its one allowed attempt: failed.
                        2 => settled(id, "failed") + log(id, "released"),
                        3 => {
                            row(
                                id,
                                "status = 'deferred' AND json_extract(task_json, '$.attempts') = 0                                  AND json_extract(task_json, '$.not_before') IS NOT NULL",
                            ) + log(id, "released")
                        }
                        4 => settled(id, "skipped") + log(id, "released"),
                        5 => {
                            row(id, &format!("priority = {}", RELEASE_PRIORITY.1))
                                + log(id, "prioritized")
                        }
                        6 => settled(id, "superseded") + log(id, "superseded"),
                        _ => {
                            settled(id, "superseded")
                                + row(
                                    id,
                                    "json_extract(task_json, '$.error.reason') = 'stale_basis'",
                                )
                                + log(id, "superseded")
                        }
                    };
                }
                if step == 7 {
                    // The rewrite: its row and its versions 0 and 1.
                    k += count(
                        &c,
                        "SELECT COUNT(*) FROM triples WHERE object = ?1",
                        &[&rewritten(batch)],
                    ) + if has("memj_versions") {
                        count(
                            &c,
                            "SELECT COUNT(*) FROM memj_versions WHERE (version = 0 AND text = ?1) \
                             OR (version = 1 AND text = ?2)",
                            &[&first_reading(batch), &rewritten(batch)],
                        )
                    } else {
                        0
                    };
                }
                u.insert(format!("task_release {i}"), k);
            }
            "declare_pending" | "rearm_pending" => {
                // The row's marker and pending version, the version row of
                // field `pending`, the queued `digest.author` task and its
                // `enqueued` log row (the rearm's: the live one; the
                // template's superseded one is not its write).
                let version = if verb == "declare_pending" { 1 } else { 2 };
                let rows = "SELECT assertion_id FROM triples WHERE object = ?1";
                let mut k = count(
                    &c,
                    &format!(
                        "SELECT COUNT(*) FROM triples WHERE object = ?1                          AND json_extract(attributes_json, '$.pending.summary') = 1                          AND json_extract(attributes_json, '$.pending_version') = {version}                          AND IFNULL(json_extract(attributes_json, '$.pending.rearmed'), 0) = {}",
                        version - 1
                    ),
                    &[&first_reading(i)],
                );
                if has("memj_versions") {
                    k += count(
                        &c,
                        &format!(
                            "SELECT COUNT(*) FROM memj_versions WHERE field = 'pending'                              AND version = {version} AND assertion_id IN ({rows})"
                        ),
                        &[&first_reading(i)],
                    );
                }
                if has_queue(&c) {
                    let tasks = format!(
                        "SELECT task_id FROM memq_tasks WHERE kind = 'digest.author' AND status = 'pending'                          AND json_extract(task_json, '$.assertion_id') IN ({rows})"
                    );
                    k += count(
                        &c,
                        &format!("SELECT COUNT(*) FROM ({tasks})"),
                        &[&first_reading(i)],
                    ) + count(
                        &c,
                        &format!(
                            "SELECT COUNT(*) FROM memq_log WHERE event = 'enqueued' AND task_id IN ({tasks})"
                        ),
                        &[&first_reading(i)],
                    );
                }
                u.insert(format!("{verb} {i}"), k);
            }
            "record_maintenance" => {
                // Both pairs' rows, with the write's detail.
                let k = if has("memq_maintenance") {
                    count(
                        &c,
                        "SELECT COUNT(*) FROM memq_maintenance WHERE scope = ?1 AND owner_id IN (?2, ?3) \
                         AND kind = 'night' AND json_extract(detail_json, '$.k') = ?4 AND completed_at = ?5",
                        &[
                            &SCOPE,
                            &format!("w{i}"),
                            &format!("v{i}"),
                            &(i as i64),
                            &NOW,
                        ],
                    )
                } else {
                    0
                };
                u.insert(format!("record_maintenance {i}"), k);
            }
            "commit_selection" => {
                let t = format!("t{i}");
                let recall = count(
                    &c,
                    "SELECT COUNT(*) FROM memj_traces WHERE trace_id = ?1",
                    &[&t],
                ) + count(
                    &c,
                    "SELECT COUNT(*) FROM memj_events WHERE trace_id = ?1 AND kind = 'listed'",
                    &[&t],
                );
                let commit = count(
                    &c,
                    "SELECT COUNT(*) FROM memj_events WHERE trace_id = ?1 AND kind != 'listed'",
                    &[&t],
                ) + count(
                    &c,
                    "SELECT COUNT(*) FROM memj_snapshots WHERE trace_id = ?1",
                    &[&t],
                );
                u.insert(format!("recall {i}"), recall);
                u.insert(format!("commit {i}"), commit);
            }
            "probe" => {
                // One unit: the probe trace and its listed events.
                let t = format!("p{i}");
                let k = count(
                    &c,
                    "SELECT COUNT(*) FROM memj_traces WHERE trace_id = ?1",
                    &[&t],
                ) + count(
                    &c,
                    "SELECT COUNT(*) FROM memj_events WHERE trace_id = ?1 AND kind = 'listed'",
                    &[&t],
                );
                u.insert(format!("probe {i}"), k);
            }
            "apply_revision" => {
                let r = format!("rev-{i}");
                let mut k = count(
                    &c,
                    "SELECT COUNT(*) FROM triples WHERE assertion_id LIKE ?1",
                    &[&format!("g{i}-%")],
                );
                for t in ["memg_revisions", "memg_provenance", "memg_history"] {
                    if has(t) {
                        k += count(
                            &c,
                            &format!("SELECT COUNT(*) FROM {t} WHERE revision_id = ?1"),
                            &[&r],
                        );
                    }
                }
                u.insert(format!("apply_revision {i}"), k);
            }
            "rewrite_digest" => {
                // The digest row in place, the captured original (version 0)
                // and the new version (1).
                let k = count(
                    &c,
                    "SELECT COUNT(*) FROM triples WHERE object = ?1",
                    &[&rewritten(i)],
                ) + if has("memj_versions") {
                    count(
                        &c,
                        "SELECT COUNT(*) FROM memj_versions WHERE (version = 0 AND text = ?1) \
                         OR (version = 1 AND text = ?2)",
                        &[&first_reading(i), &rewritten(i)],
                    )
                } else {
                    0
                };
                u.insert(format!("rewrite_digest {i}"), k);
            }
            "retitle" => {
                // The row in place (its title and title version), the
                // captured original title (version 0) and the new one (1).
                let k = count(
                    &c,
                    "SELECT COUNT(*) FROM triples WHERE json_extract(attributes_json, '$.title') = ?1 \
                     AND json_extract(attributes_json, '$.title_version') = 1",
                    &[&retitled(i)],
                ) + if has("memj_versions") {
                    count(
                        &c,
                        "SELECT COUNT(*) FROM memj_versions WHERE field = 'title' AND \
                         ((version = 0 AND text = ?1) OR (version = 1 AND text = ?2))",
                        &[&first_title(i), &retitled(i)],
                    )
                } else {
                    0
                };
                u.insert(format!("retitle {i}"), k);
            }
            "narrate_dream" => {
                // The row in place (narration and its version) and version 1
                // of field `narration` (a first narration captures no
                // version 0: there was none).
                let k = count(
                    &c,
                    "SELECT COUNT(*) FROM triples WHERE json_extract(attributes_json, '$.narration') = ?1 \
                     AND json_extract(attributes_json, '$.narration_version') = 1",
                    &[&narration(i)],
                ) + if has("memj_versions") {
                    count(
                        &c,
                        "SELECT COUNT(*) FROM memj_versions WHERE field = 'narration' AND version = 1 \
                         AND text = ?1",
                        &[&narration(i)],
                    )
                } else {
                    0
                };
                u.insert(format!("narrate_dream {i}"), k);
            }
            "confirm_relation" | "promote_candidate" => {
                // confirm_relation: the edge row and its two cited events;
                // promote_candidate: the promoted binding.
                let cand: Option<String> = c
                    .query_row(
                        "SELECT subject FROM triples WHERE object = ?1",
                        [first_reading(i)],
                        |r| r.get(0),
                    )
                    .ok();
                let k = match cand {
                    Some(g) if verb == "confirm_relation" => {
                        count(
                            &c,
                            "SELECT COUNT(*) FROM triples WHERE subject = ?1 AND predicate = 'supports'",
                            &[&g],
                        ) + if has("memj_events") {
                            // One on the candidate, one on its first witness.
                            count(
                                &c,
                                "SELECT COUNT(*) FROM memj_events WHERE kind = 'cited' \
                                 AND (record_id = ?1 OR record_id IN \
                                 (SELECT subject FROM triples WHERE object = ?2))",
                                &[&g, &format!("Ada said {i} holds.")],
                            )
                        } else {
                            0
                        }
                    }
                    Some(g) if has("memj_bindings") => count(
                        &c,
                        "SELECT COUNT(*) FROM memj_bindings WHERE record_id = ?1 AND lifecycle = 'promoted'",
                        &[&g],
                    ),
                    _ => 0,
                };
                u.insert(format!("{verb} {i}"), k);
            }
            "close_record" | "close_assertions" => {
                // The closures of episode `i`'s three assertions.
                let graph_id: Option<String> = c
                    .query_row(
                        "SELECT subject FROM triples WHERE object = ?1",
                        [first_reading(i)],
                        |r| r.get(0),
                    )
                    .ok();
                let k = match graph_id {
                    Some(g) if has("memj_closures") => count(
                        &c,
                        "SELECT COUNT(*) FROM memj_closures WHERE assertion_id IN \
                         (SELECT assertion_id FROM triples WHERE subject = ?1)",
                        &[&g],
                    ),
                    _ => 0,
                };
                u.insert(format!("{verb} {i}"), k);
            }
            "wake_cue_dedup_pass" => {
                // Owner `i`'s day summary (its digest and three edges), its
                // formation binding, its tasks and their `enqueued` rows, and
                // the three members' closures.
                let owner = dedup_owner(i);
                let summary = "SELECT subject FROM triples WHERE owner_id = ?1 \
                     AND json_extract(provenance_json, '$.source') = 'wake_cue_dedup'";
                let mut k = formed_unit(&c, summary, &owner);
                if has("memj_closures") {
                    k += count(
                        &c,
                        "SELECT COUNT(*) FROM memj_closures WHERE kind = 'supersede' AND assertion_id IN \
                         (SELECT assertion_id FROM triples WHERE owner_id = ?1)",
                        &[&owner],
                    );
                }
                u.insert(format!("wake_cue_dedup_pass {i}"), k);
            }
            "consolidation_pass" => {
                // Owner `i`'s candidate (its digest and two edges), its
                // formation binding, its tasks and their `enqueued` rows.
                let owner = dedup_owner(i);
                let cand = "SELECT subject FROM triples WHERE owner_id = ?1 \
                     AND json_extract(attributes_json, '$.maintenance_candidate') = 1";
                let k = formed_unit(&c, cand, &owner);
                u.insert(format!("consolidation_pass {i}"), k);
            }
            "mine_candidates_pass" => {
                // Owner `i`'s two offers (their digests and edges), their
                // formation bindings, tasks and `enqueued` rows.
                let offers = "SELECT subject FROM triples WHERE owner_id = ?1 \
                     AND json_extract(attributes_json, '$.maintenance_candidate') = 1";
                let k = formed_unit(&c, offers, &mine_owner(i));
                u.insert(format!("mine_candidates_pass {i}"), k);
            }
            "resolve_dreams_pass" => {
                // Owner `i`'s dream's supersede closure.
                let k = if has("memj_closures") {
                    count(
                        &c,
                        "SELECT COUNT(*) FROM memj_closures WHERE kind = 'supersede' AND assertion_id IN \
                         (SELECT assertion_id FROM triples WHERE owner_id = ?1 \
                          AND json_extract(attributes_json, '$.record_kind') = 'dream')",
                        &[&dedup_owner(i)],
                    )
                } else {
                    0
                };
                u.insert(format!("resolve_dreams_pass {i}"), k);
            }
            "world_model_pass" => {
                // Target i's revision 2 (its rows and its authoring tasks
                // with their log rows), then revision 1's tasks superseded,
                // then revision 1's closures: three units, each whole.
                let target = card_target(i);
                let card = |rev: i64| -> Option<String> {
                    c.query_row(
                        "SELECT subject FROM triples WHERE json_extract(attributes_json, '$.target') = ?1 \
                         AND json_extract(attributes_json, '$.revision') = ?2",
                        rusqlite::params![target, rev],
                        |r| r.get(0),
                    )
                    .ok()
                };
                let (rev1, rev2) = (card(1), card(2));
                let queued = has_queue(&c);
                let formed = rev2.as_ref().map_or(0, |g| {
                    count(&c, "SELECT COUNT(*) FROM triples WHERE subject = ?1", &[g])
                        + if queued {
                            count(
                                &c,
                                "SELECT COUNT(*) FROM memq_tasks WHERE target_id = ?1",
                                &[g],
                            ) + count(
                                &c,
                                "SELECT COUNT(*) FROM memq_log WHERE event = 'enqueued' AND task_id IN \
                                 (SELECT task_id FROM memq_tasks WHERE target_id = ?1)",
                                &[g],
                            )
                        } else {
                            0
                        }
                });
                let superseded = match (&rev1, queued) {
                    (Some(g), true) => count(
                        &c,
                        "SELECT COUNT(*) FROM memq_tasks WHERE target_id = ?1 AND status = 'superseded'",
                        &[g],
                    ),
                    _ => 0,
                };
                let closed = match &rev1 {
                    Some(g) if has("memj_closures") => count(
                        &c,
                        "SELECT COUNT(*) FROM memj_closures WHERE assertion_id IN \
                         (SELECT assertion_id FROM triples WHERE subject = ?1)",
                        &[g],
                    ),
                    _ => 0,
                };
                u.insert(format!("world_model_pass form {i}"), formed);
                u.insert(format!("world_model_pass supersede {i}"), superseded);
                u.insert(format!("world_model_pass close {i}"), closed);
            }
            "author_world_model" => {
                // The row at its authored words (card version 1), the two
                // versions of field `card`, the summary's task done.
                let card: Option<String> = c
                    .query_row(
                        "SELECT subject FROM triples WHERE json_extract(attributes_json, '$.target') = ?1",
                        [card_target(i)],
                        |r| r.get(0),
                    )
                    .ok();
                let k = card.as_ref().map_or(0, |g| {
                    count(
                        &c,
                        "SELECT COUNT(*) FROM triples WHERE subject = ?1 AND object = ?2 \
                         AND json_extract(attributes_json, '$.digest_version') = 1",
                        &[g, &card_words(i)],
                    ) + if has("memj_versions") {
                        count(
                            &c,
                            "SELECT COUNT(*) FROM memj_versions WHERE record_id = ?1 AND field = 'card'",
                            &[g],
                        )
                    } else {
                        0
                    } + if has_queue(&c) {
                        count(
                            &c,
                            "SELECT COUNT(*) FROM memq_tasks WHERE target_id = ?1 \
                             AND kind = 'digest.author' AND status = 'done'",
                            &[g],
                        )
                    } else {
                        0
                    }
                });
                u.insert(format!("author_world_model {i}"), k);
            }
            "rekey_world_model" => {
                // The card's row at its new key (target version 1) and the
                // two versions of field `target`: one transaction.
                let card: Option<String> = c
                    .query_row(
                        "SELECT subject FROM triples WHERE json_extract(attributes_json, '$.target') \
                         IN (?1, ?2) AND json_extract(attributes_json, '$.record_kind') = 'world_model'",
                        [card_target(i), rekeyed(i)],
                        |r| r.get(0),
                    )
                    .ok();
                let k = card.as_ref().map_or(0, |g| {
                    count(
                        &c,
                        "SELECT COUNT(*) FROM triples WHERE subject = ?1 \
                         AND json_extract(attributes_json, '$.target') = ?2 \
                         AND json_extract(attributes_json, '$.target_version') = 1 \
                         AND json_extract(attributes_json, '$.aliases[0]') = ?3",
                        &[g, &rekeyed(i), &card_target(i)],
                    ) + if has("memj_versions") {
                        count(
                            &c,
                            "SELECT COUNT(*) FROM memj_versions WHERE record_id = ?1 AND field = 'target'",
                            &[g],
                        )
                    } else {
                        0
                    }
                });
                u.insert(format!("rekey_world_model {i}"), k);
            }
            "alias_world_model" | "author_world_model_revision" => {
                // Revision 2 (its rows, its authoring tasks with their log
                // rows), then revision 1's tasks superseded, then its
                // closures: three units, each whole.
                let target = card_target(i);
                let card = |rev: i64| -> Option<String> {
                    c.query_row(
                        "SELECT subject FROM triples WHERE json_extract(attributes_json, '$.target') = ?1 \
                         AND json_extract(attributes_json, '$.revision') = ?2",
                        rusqlite::params![target, rev],
                        |r| r.get(0),
                    )
                    .ok()
                };
                let (rev1, rev2) = (card(1), card(2));
                let queued = has_queue(&c);
                let formed = rev2.as_ref().map_or(0, |g| {
                    count(&c, "SELECT COUNT(*) FROM triples WHERE subject = ?1", &[g])
                        + if queued {
                            count(
                                &c,
                                "SELECT COUNT(*) FROM memq_tasks WHERE target_id = ?1",
                                &[g],
                            ) + count(
                                &c,
                                "SELECT COUNT(*) FROM memq_log WHERE event = 'enqueued' AND task_id IN \
                                 (SELECT task_id FROM memq_tasks WHERE target_id = ?1)",
                                &[g],
                            )
                        } else {
                            0
                        }
                });
                let superseded = match (&rev1, queued) {
                    (Some(g), true) => count(
                        &c,
                        "SELECT COUNT(*) FROM memq_tasks WHERE target_id = ?1 AND status = 'superseded'",
                        &[g],
                    ),
                    _ => 0,
                };
                let closed = match &rev1 {
                    Some(g) if has("memj_closures") => count(
                        &c,
                        "SELECT COUNT(*) FROM memj_closures WHERE assertion_id IN \
                         (SELECT assertion_id FROM triples WHERE subject = ?1)",
                        &[g],
                    ),
                    _ => 0,
                };
                u.insert(format!("{verb} form {i}"), formed);
                u.insert(format!("{verb} supersede {i}"), superseded);
                u.insert(format!("{verb} close {i}"), closed);
            }
            "placement" => {
                // Record `i` (its rows, its formation binding) and its one
                // `placed` event: one unit, all there or absent.
                let select = format!(
                    "SELECT subject FROM triples WHERE owner_id = ?1 \
                     AND json_extract(attributes_json, '$.title') = 'Garden later {i}'"
                );
                let k = formed_unit(&c, &select, OWNER)
                    + count(
                        &c,
                        &format!(
                            "SELECT COUNT(*) FROM memj_events WHERE kind = 'placed' \
                             AND record_id IN ({select})"
                        ),
                        &[&OWNER],
                    );
                u.insert(format!("placement {i}"), k);
            }
            "communities_pass" => {
                // Owner `i`'s topic record, binding, tasks and their rows.
                let topic = "SELECT subject FROM triples WHERE owner_id = ?1 \
                     AND json_extract(attributes_json, '$.record_kind') = 'community'";
                let k = formed_unit(&c, topic, &dedup_owner(i));
                u.insert(format!("communities_pass {i}"), k);
            }
            "communities_in_place" => {
                // Owner `i`'s topic: its row titled, the version rows of the
                // in-place write, its tasks completed.
                let owner = dedup_owner(i);
                let topic = "SELECT subject FROM triples WHERE owner_id = ?1 \
                     AND json_extract(attributes_json, '$.record_kind') = 'community'";
                let mut k = count(
                    &c,
                    &format!(
                        "SELECT COUNT(*) FROM triples WHERE subject IN ({topic}) \
                         AND json_extract(attributes_json, '$.title') IS NOT NULL"
                    ),
                    &[&owner],
                );
                if has("memj_versions") {
                    k += count(
                        &c,
                        &format!(
                            "SELECT COUNT(*) FROM memj_versions WHERE assertion_id IN \
                             (SELECT assertion_id FROM triples WHERE subject IN ({topic}))"
                        ),
                        &[&owner],
                    );
                }
                if has_queue(&c) {
                    k += count(
                        &c,
                        &format!(
                            "SELECT COUNT(*) FROM memq_tasks WHERE status = 'done' \
                             AND target_id IN ({topic})"
                        ),
                        &[&owner],
                    );
                }
                u.insert(format!("communities_in_place {i}"), k);
            }
            "embed_missing" => {
                // Owner `i`'s record holds its whole vector, or none.
                let whole = count(
                    &c,
                    "SELECT COUNT(*) FROM triples WHERE owner_id = ?1 AND embedding IS NOT NULL \
                     AND length(embedding) = ?2",
                    &[&dedup_owner(i), &((DIM * 4) as i64)],
                );
                let any = count(
                    &c,
                    "SELECT COUNT(*) FROM triples WHERE owner_id = ?1 AND embedding IS NOT NULL",
                    &[&dedup_owner(i)],
                );
                // A cell of another length makes the unit neither 0 nor 1:
                // torn.
                u.insert(format!("embed_missing {i}"), whole + 10 * (any - whole));
            }
            "dream_pass" => {
                // Owner `i`'s dream (its digest and two mentions edges), its
                // formation binding, its tasks and their `enqueued` rows.
                let owner = dedup_owner(i);
                let dream = "SELECT subject FROM triples WHERE owner_id = ?1 \
                     AND json_extract(attributes_json, '$.record_kind') = 'dream'";
                let k = formed_unit(&c, dream, &owner);
                u.insert(format!("dream_pass {i}"), k);
            }
            "sleep_pass" => {
                // Owner `i`'s night, phase by phase: the candidate, the
                // world-model card and the dream (each its rows, binding,
                // tasks and their `enqueued` rows), and the completion row.
                let owner = dedup_owner(i);
                for (unit, select) in [
                    (
                        "candidate",
                        "SELECT subject FROM triples WHERE owner_id = ?1 \
                         AND json_extract(attributes_json, '$.maintenance_candidate') = 1",
                    ),
                    (
                        "card",
                        "SELECT subject FROM triples WHERE owner_id = ?1 \
                         AND json_extract(attributes_json, '$.target') = 'person:ada' \
                         AND json_extract(attributes_json, '$.revision') = 1",
                    ),
                    (
                        "dream",
                        "SELECT subject FROM triples WHERE owner_id = ?1 \
                         AND json_extract(attributes_json, '$.record_kind') = 'dream'",
                    ),
                ] {
                    let k = formed_unit(&c, select, &owner);
                    u.insert(format!("sleep_pass:{unit} {i}"), k);
                }
                let done = if has("memq_maintenance") {
                    count(
                        &c,
                        "SELECT COUNT(*) FROM memq_maintenance WHERE owner_id = ?1 AND kind = 'night'",
                        &[&owner],
                    )
                } else {
                    0
                };
                u.insert(format!("sleep_pass:completion {i}"), done);
            }
            "apply_tend_elections" => {
                // The block's events (pinned, refocus, the revisit's
                // expanded), its trace, and the revise's ripple row,
                // decisions, tasks and their `enqueued` rows.
                let mut k = 0;
                if has("memj_events") {
                    k += count(
                        &c,
                        "SELECT COUNT(*) FROM memj_events WHERE (kind = 'pinned' AND reason = ?1) \
                         OR (kind = 'refocus' AND reason = ?2)",
                        &[&format!("keep {i}"), &format!("moved {i}")],
                    );
                }
                if has("memj_traces") {
                    let traces = "SELECT trace_id FROM memj_traces WHERE escalation_reason = ?1";
                    k += count(
                        &c,
                        &format!("SELECT COUNT(*) FROM ({traces})"),
                        &[&format!("look {i}")],
                    );
                    if has("memj_events") {
                        k += count(
                            &c,
                            &format!(
                                "SELECT COUNT(*) FROM memj_events WHERE kind = 'expanded' AND trace_id IN ({traces})"
                            ),
                            &[&format!("look {i}")],
                        );
                    }
                }
                if has("ripples") {
                    let ripples = "SELECT ripple_id FROM ripples WHERE seed_id IN \
                         (SELECT subject FROM triples WHERE object = ?1)";
                    let p: [&dyn rusqlite::ToSql; 1] = [&first_reading(i)];
                    k += count(&c, &format!("SELECT COUNT(*) FROM ({ripples})"), &p)
                        + count(
                            &c,
                            &format!(
                                "SELECT COUNT(*) FROM ripple_decisions WHERE ripple_id IN ({ripples})"
                            ),
                            &p,
                        );
                    if has_queue(&c) {
                        let tasks = format!(
                            "SELECT task_id FROM memq_tasks WHERE kind = 'ripple.reconsider' \
                             AND ripple_id IN ({ripples})"
                        );
                        k += count(&c, &format!("SELECT COUNT(*) FROM ({tasks})"), &p)
                            + count(
                                &c,
                                &format!(
                                    "SELECT COUNT(*) FROM memq_log WHERE event = 'enqueued' AND task_id IN ({tasks})"
                                ),
                                &p,
                            );
                    }
                }
                u.insert(format!("apply_tend_elections {i}"), k);
            }
            "seed_ripple" => {
                // The note's ripple row, its gate decisions, and its
                // `ripple.reconsider` task with the task's `enqueued` row.
                let ripples = "SELECT ripple_id FROM ripples WHERE seed_id IN \
                     (SELECT subject FROM triples WHERE object = ?1)";
                let k = if has("ripples") {
                    count(
                        &c,
                        &format!("SELECT COUNT(*) FROM ({ripples})"),
                        &[&first_reading(i)],
                    ) + count(
                        &c,
                        &format!(
                            "SELECT COUNT(*) FROM ripple_decisions WHERE ripple_id IN ({ripples})"
                        ),
                        &[&first_reading(i)],
                    )
                } else {
                    0
                } + if has_queue(&c) {
                    let tasks = "SELECT task_id FROM memq_tasks WHERE kind = 'ripple.reconsider' \
                         AND ripple_id IN (SELECT ripple_id FROM ripples WHERE seed_id IN \
                         (SELECT subject FROM triples WHERE object = ?1))";
                    if has("ripples") {
                        count(
                            &c,
                            &format!("SELECT COUNT(*) FROM ({tasks})"),
                            &[&first_reading(i)],
                        ) + count(
                            &c,
                            &format!(
                                "SELECT COUNT(*) FROM memq_log WHERE event = 'enqueued' AND task_id IN ({tasks})"
                            ),
                            &[&first_reading(i)],
                        )
                    } else {
                        0
                    }
                } else {
                    0
                };
                u.insert(format!("seed_ripple {i}"), k);
            }
            "settle_reconsideration" | "form_consolidation" => {
                // The ripple row past its last step, what the step wrote
                // beside it, its task completed with its `completed` log row.
                let ripple = "SELECT ripple_id FROM ripples WHERE seed_id IN \
                     (SELECT subject FROM triples WHERE object = ?1)";
                let (status, kind) = if verb == "settle_reconsideration" {
                    ("settled", "ripple.reconsider")
                } else {
                    ("consolidated", "ripple.consolidate")
                };
                let p: [&dyn rusqlite::ToSql; 1] = [&first_reading(i)];
                let tasks = format!(
                    "SELECT task_id FROM memq_tasks WHERE kind = '{kind}' AND status = 'done' \
                     AND ripple_id IN ({ripple})"
                );
                let mut k = count(
                    &c,
                    &format!(
                        "SELECT COUNT(*) FROM ripples WHERE status = '{status}' AND ripple_id IN ({ripple})"
                    ),
                    &p,
                ) + count(&c, &format!("SELECT COUNT(*) FROM ({tasks})"), &p)
                    + count(
                        &c,
                        &format!(
                            "SELECT COUNT(*) FROM memq_log WHERE event = 'completed' AND task_id IN ({tasks})"
                        ),
                        &p,
                    );
                if verb == "settle_reconsideration" {
                    // The summary's own candidates: the seed, refractory.
                    k += count(
                        &c,
                        &format!(
                            "SELECT COUNT(*) FROM ripple_decisions WHERE hop = 2 AND ripple_id IN ({ripple})"
                        ),
                        &p,
                    );
                } else {
                    // The consolidation record: its digest, its three
                    // edges, its formation binding.
                    let record = "SELECT subject FROM triples WHERE object = ?1";
                    let q: [&dyn rusqlite::ToSql; 1] = [&consolidation_words(i)];
                    k += count(
                        &c,
                        &format!("SELECT COUNT(*) FROM triples WHERE subject IN ({record})"),
                        &q,
                    ) + if has("memj_bindings") {
                        count(
                            &c,
                            &format!(
                                "SELECT COUNT(*) FROM memj_bindings WHERE record_id IN ({record}) \
                                 OR record_id IN (SELECT assertion_id FROM triples WHERE subject IN ({record}))"
                            ),
                            &q,
                        )
                    } else {
                        0
                    };
                }
                u.insert(format!("{verb} {i}"), k);
            }
            "revert_ripple" => {
                // Each changed memory on its own: the row at digest
                // version 2 and that version row.
                for (what, words) in [
                    ("summary", format!("What note {i} meant.")),
                    ("plan", format!("What note {i} asked of us.")),
                ] {
                    let k = count(
                        &c,
                        "SELECT COUNT(*) FROM triples WHERE object = ?1 \
                         AND json_extract(attributes_json, '$.digest_version') = 2",
                        &[&words],
                    ) + if has("memj_versions") {
                        count(
                            &c,
                            "SELECT COUNT(*) FROM memj_versions WHERE field = 'digest' AND version = 2 \
                             AND text = ?1",
                            &[&words],
                        )
                    } else {
                        0
                    };
                    u.insert(format!("revert_ripple {what} {i}"), k);
                }
            }
            "revert_digest" => {
                // The row back at the first reading as version 2, and the
                // new version 2 (version 0, captured by the template's
                // rewrite, is restored, never rewritten).
                let k = count(
                    &c,
                    "SELECT COUNT(*) FROM triples WHERE object = ?1 \
                     AND json_extract(attributes_json, '$.digest_version') = 2",
                    &[&first_reading(i)],
                ) + if has("memj_versions") {
                    count(
                        &c,
                        "SELECT COUNT(*) FROM memj_versions WHERE field = 'digest' AND version = 2 \
                         AND text = ?1",
                        &[&first_reading(i)],
                    )
                } else {
                    0
                };
                u.insert(format!("revert_digest {i}"), k);
            }
            _ => {}
        }
    }
    u
}

/// Every seq from 1 to the high-water mark names exactly one journal record;
/// the triples' rowids and the change feed's seqs run without a gap.
fn gap_free(path: &Path) -> Result<(), String> {
    let c = Connection::open(path).unwrap();
    let tables: Vec<String> = c
        .prepare(
            "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND m.name LIKE 'memj_%' \
             AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'seq')",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut seqs: Vec<i64> = Vec::new();
    for t in &tables {
        if t == "memj_selected_log" || t == "memj_pair_log" {
            continue; // count checkpoints, keyed by a record's seq, not records
        }
        let mut s = c.prepare(&format!("SELECT seq FROM {t}")).unwrap();
        seqs.extend(
            s.query_map([], |r| r.get::<_, i64>(0))
                .unwrap()
                .map(|r| r.unwrap()),
        );
    }
    seqs.sort_unstable();
    let high: i64 = c
        .query_row("SELECT value FROM memj_seq", [], |r| r.get(0))
        .unwrap_or(0);
    if seqs != (1..=high).collect::<Vec<_>>() {
        return Err(format!(
            "journal seq axis: {} records, high-water {high}, not 1..={high} exactly once",
            seqs.len()
        ));
    }
    for (t, col) in [
        ("triples", "rowid"),
        ("memg_revisions", "seq"),
        ("memq_tasks", "rowid"),
        ("memq_log", "seq"),
    ] {
        let exists: i64 = c
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE name = ?1",
                [t],
                |r| r.get(0),
            )
            .unwrap();
        if exists == 0 {
            continue;
        }
        let (n, max): (i64, Option<i64>) = c
            .query_row(&format!("SELECT COUNT(*), MAX({col}) FROM {t}"), [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        if n != max.unwrap_or(0) {
            return Err(format!("{t}.{col}: {n} rows but the highest is {max:?}"));
        }
    }
    Ok(())
}

/// The task queue's tables, as a home gains them: all at once.
const QUEUE_TABLES: &[&str] = &["memq_log", "memq_meta", "memq_tasks", "memq_windows"];

/// The home tables of the table kit beside them, each created by its first
/// write (a table of an older home's queue before the kit).
const KIT_TABLES: &[&str] = &["memq_maintenance"];

fn queue_tables(c: &Connection) -> Vec<String> {
    c.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'memq_%' ORDER BY name",
    )
    .unwrap()
    .query_map([], |r| r.get(0))
    .unwrap()
    .filter_map(|n: rusqlite::Result<String>| n.ok())
    .filter(|n| !KIT_TABLES.contains(&n.as_str()))
    .collect()
}

/// Whether the home holds the whole queue schema (a torn one is reported by
/// [`queue_schema_whole`]; its rows are not counted).
fn has_queue(c: &Connection) -> bool {
    queue_tables(c) == QUEUE_TABLES
}

/// The queue's schema is all there or absent: a home killed while it gains
/// its queue has none of the `memq_*` tables or every one.
fn queue_schema_whole(path: &Path) -> Result<(), String> {
    let have = queue_tables(&Connection::open(path).unwrap());
    if have.is_empty() || have == QUEUE_TABLES {
        Ok(())
    } else {
        Err(format!(
            "a torn task-queue schema: {have:?} of {QUEUE_TABLES:?}"
        ))
    }
}

/// No record without its tasks, no task without its record: every stored
/// digest row marked pending has a `title.author` / `digest.author` task per
/// pending field, and every such task's record row is stored.
fn pending_owned(path: &Path) -> Result<(), String> {
    let c = Connection::open(path).unwrap();
    let has_queue: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE name = 'memq_tasks'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    if has_queue == 0 {
        return Ok(());
    }
    let orphan_records = count(
        &c,
        "SELECT COUNT(*) FROM triples t WHERE json_extract(t.attributes_json, '$.pending.title') = 1 AND NOT EXISTS \
         (SELECT 1 FROM memq_tasks q WHERE json_extract(q.task_json, '$.assertion_id') = t.assertion_id AND q.kind = 'title.author')",
        &[],
    ) + count(
        &c,
        "SELECT COUNT(*) FROM triples t WHERE json_extract(t.attributes_json, '$.pending.summary') = 1 AND NOT EXISTS \
         (SELECT 1 FROM memq_tasks q WHERE json_extract(q.task_json, '$.assertion_id') = t.assertion_id AND q.kind = 'digest.author')",
        &[],
    );
    let orphan_tasks = count(
        &c,
        "SELECT COUNT(*) FROM memq_tasks q WHERE q.kind IN ('title.author', 'digest.author') AND NOT EXISTS \
         (SELECT 1 FROM triples t WHERE t.assertion_id = json_extract(q.task_json, '$.assertion_id'))",
        &[],
    );
    if orphan_records + orphan_tasks > 0 {
        return Err(format!(
            "{orphan_records} pending fields without their task, {orphan_tasks} tasks without their record"
        ));
    }
    Ok(())
}

fn integrity(path: &Path) -> Result<(), String> {
    let c = Connection::open(path).unwrap();
    let ok: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    if ok == "ok" {
        Ok(())
    } else {
        Err(format!("integrity_check: {ok}"))
    }
}

/// Every table's row count, the journal mark and every vector cell: what a
/// no-op replay must leave unchanged.
fn fingerprint(path: &Path) -> String {
    let c = Connection::open(path).unwrap();
    let tables: Vec<String> = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut out = String::new();
    for t in tables {
        if t.starts_with("triples_fts") {
            continue;
        }
        let n: i64 = c
            .query_row(&format!("SELECT COUNT(*) FROM \"{t}\""), [], |r| r.get(0))
            .unwrap();
        out.push_str(&format!("{t}={n};"));
    }
    let h: Option<i64> = c
        .query_row("SELECT value FROM memj_seq", [], |r| r.get(0))
        .ok();
    out.push_str(&format!("seq={h:?};"));
    out
}

fn vector_cells(path: &Path) -> Vec<(String, Option<Vec<u8>>)> {
    let c = Connection::open(path).unwrap();
    let mut s = c
        .prepare("SELECT typeof(embedding), CAST(embedding AS BLOB) FROM triples ORDER BY rowid")
        .unwrap();
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The starting home of a verb.
fn template(verb: &str, dir: &Path, n: usize) -> PathBuf {
    let path = dir.join(format!("{verb}-template.sqlite3"));
    let home = SqliteHome::open(&path).unwrap();
    match verb {
        "upgrade" | "replace_vectors" => {
            let store = open_store(&home, false);
            let rows: Vec<TripleAssertion> = (0..VECTOR_ROWS)
                .map(|i| {
                    TripleAssertion::new(&format!("v{i}"), "says", &format!("text {i}"))
                        .with_scope(SCOPE)
                        .with_owner(OWNER)
                        .with_observed_at(NOW)
                        .with_id(&format!("v{i}"))
                })
                .collect();
            store.add(&rows).unwrap();
            drop(store);
            drop(home);
            if verb == "upgrade" {
                // A 0.3.x home: JSON-text vectors, no upgrade keys.
                let c = Connection::open(&path).unwrap();
                for i in 0..VECTOR_ROWS {
                    let v: Vec<f64> = generation_vector(0, i)
                        .iter()
                        .map(|x| f64::from(*x))
                        .collect();
                    c.execute(
                        "UPDATE triples SET embedding = ?1 WHERE assertion_id = ?2",
                        rusqlite::params![serde_json::to_string(&v).unwrap(), format!("v{i}")],
                    )
                    .unwrap();
                }
                c.execute(
                    "DELETE FROM triples_meta WHERE key IN ('vector_encoding', 'vector_blob_high_water', 'schema_version')",
                    [],
                )
                .unwrap();
                c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
            }
        }
        "seed_ripple" | "apply_tend_elections" => {
            // The notes, and a summary of each (one `summarizes` edge).
            let (_, _, system) = open_system_queued(&home, true);
            let ids = setup_notes(&system, n, RecordKind::Memory);
            let summaries: Vec<MemoryRecordInput> = ids
                .iter()
                .enumerate()
                .map(|(i, id)| {
                    let mut r = MemoryRecordInput::new(
                        RecordKind::Summary,
                        &format!("summary {i}"),
                        &format!("What note {i} meant."),
                    );
                    r.edges = vec![("summarizes".to_owned(), id.clone())];
                    r
                })
                .collect();
            system
                .remember_many(&RememberMany::new(summaries, SCOPE, OWNER, "summaries"))
                .expect("the summaries");
        }
        "settle_reconsideration" => {
            let (_, _, system) = open_system_queued(&home, true);
            setup_ripples(&system, n, false);
        }
        "form_consolidation" | "revert_ripple" => {
            let (_, _, system) = open_system_queued(&home, true);
            setup_ripples(&system, n, true);
        }
        "revert_digest" => {
            // The notes, each rewritten once: version 0 captured, version 1
            // the row's reading.
            let (_, _, system) = open_system(&home);
            for (i, id) in setup_notes(&system, n, RecordKind::Memory)
                .iter()
                .enumerate()
            {
                system
                    .rewrite_digest(&RewriteDigest::new(
                        id,
                        &rewritten(i),
                        operator(),
                        "operator".into(),
                        0,
                    ))
                    .unwrap();
            }
        }
        "confirm_relation" | "promote_candidate" => {
            // The candidates and their witnesses, there before any kill.
            let (_, _, system) = open_system(&home);
            setup_candidates(&system, n);
        }
        "close_record" | "close_assertions" => {
            // The episodes and their edges, there before any kill.
            let (_, _, system) = open_system(&home);
            setup_closable(&system, n);
        }
        "wake_cue_dedup_pass" => {
            let (_, _, system) = open_system_queued(&home, true);
            setup_dedup(&system, n);
        }
        "mine_candidates_pass" => {
            let (_, _, system) = open_system_queued(&home, true);
            setup_mining(&system, n);
        }
        "journal_cold_cut" => {
            // A lived home: two pairs of embedded garden records, five of
            // each reinforced (attention events), one record retracted (its
            // vector nulled by a cut), a recall committed (a trace and a
            // snapshot); checkpointed, so the main file is the whole home
            // and its bytes show any write.
            let (_, _, system) = open_system_embedded(&home);
            for (k, scope) in [SCOPE, "diary"].into_iter().enumerate() {
                let ids = system
                    .remember_many(&RememberMany::new(
                        (0..8).map(|i| garden_record(k * 8 + i, "cut")).collect(),
                        scope,
                        OWNER,
                        &format!("cut-{k}"),
                    ))
                    .unwrap()
                    .value;
                for id in ids.iter().take(5) {
                    system
                        .reinforce(&am_system::Reinforce::new(id, "it mattered", scope, OWNER))
                        .unwrap();
                }
                if k == 0 {
                    system
                        .close_record(&CloseRecord::new(
                            &ids[7],
                            am_journal::ClosureKind::Retract,
                            "a copy",
                        ))
                        .unwrap();
                }
            }
            drop(system);
            drop(home);
            Connection::open(&path)
                .unwrap()
                .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
                .unwrap();
            return path;
        }
        "consolidation_pass" => {
            let (_, _, system) = open_system_queued(&home, true);
            setup_duplicates(&system, n);
        }
        "resolve_dreams_pass" => {
            let (_, _, system) = open_system_queued(&home, true);
            setup_joined_dreams(&system, n);
        }
        "world_model_pass" => {
            // Every target's first card (three episodes each), then one
            // more episode per target: each card's evidence changed.
            let (_, _, system) = open_system_queued(&home, true);
            let episodes = |round: usize| -> Vec<MemoryRecordInput> {
                (0..n)
                    .flat_map(|i| {
                        (0..if round == 0 { 3 } else { 1 }).map(move |k| {
                            let mut r = MemoryRecordInput::new(
                                RecordKind::Episode,
                                &format!("Visit {round}.{k} of {i}"),
                                &format!("Neighbour {i} came by ({round}.{k})."),
                            );
                            r.participants = vec![card_target(i)];
                            r
                        })
                    })
                    .collect()
            };
            system
                .remember_many(&RememberMany::new(episodes(0), SCOPE, OWNER, "wm-0"))
                .unwrap();
            let mut pass = am_system::world_models::WorldModelPass::new(&[(SCOPE, OWNER)], OWNER);
            pass.tuning.world_model_max_cards = n;
            let r = system.world_model_pass(&pass, None).unwrap();
            assert_eq!(r.formed_count, n, "every first card");
            system
                .remember_many(&RememberMany::new(episodes(1), SCOPE, OWNER, "wm-1"))
                .unwrap();
        }
        "author_world_model"
        | "rekey_world_model"
        | "alias_world_model"
        | "author_world_model_revision" => {
            // Every target's card, formed pending (three episodes each).
            let (_, _, system) = open_system_queued(&home, true);
            let episodes: Vec<MemoryRecordInput> = (0..n)
                .flat_map(|i| {
                    (0..3).map(move |k| {
                        let mut r = MemoryRecordInput::new(
                            RecordKind::Episode,
                            &format!("Visit {k} of {i}"),
                            &format!("Neighbour {i} came by ({k})."),
                        );
                        r.participants = vec![card_target(i)];
                        r
                    })
                })
                .collect();
            system
                .remember_many(&RememberMany::new(episodes, SCOPE, OWNER, "wm-0"))
                .unwrap();
            let mut pass = am_system::world_models::WorldModelPass::new(&[(SCOPE, OWNER)], OWNER);
            pass.tuning.world_model_max_cards = n;
            let r = system.world_model_pass(&pass, None).unwrap();
            assert_eq!(r.formed_count, n, "every card");
        }
        "dream_pass" => {
            let (_, _, system) = open_system_queued(&home, true);
            setup_islands(&system, n);
        }
        "sleep_pass" => {
            let (_, _, system) = open_system_queued(&home, true);
            setup_night(&system, n);
        }
        "reembed_store" => {
            // Forty garden records formed in space 0 (the pin written by
            // their first embedded write).
            let (_, _, system) = open_system_in_space(&home, &path);
            for b in 0..4 {
                system
                    .remember_many(&RememberMany::new(
                        (0..10).map(|i| garden_record(b * 10 + i, "bed")).collect(),
                        SCOPE,
                        OWNER,
                        &format!("garden-{b}"),
                    ))
                    .expect("the garden");
            }
        }
        "placement" => {
            // Six garden records and the first communities version over them.
            let (_, _, system) = open_system_embedded(&home);
            system
                .remember_many(&RememberMany::new(
                    (0..6).map(|i| garden_record(i, "seed")).collect(),
                    SCOPE,
                    OWNER,
                    "pl-seed",
                ))
                .unwrap();
            let r = system
                .communities_pass(
                    &am_system::communities::CommunitiesPass::new(&[(SCOPE, OWNER)], OWNER),
                    None,
                    &|| false,
                )
                .unwrap();
            assert_eq!(r.written.len(), 1, "one topic: {r:?}");
        }
        "communities_pass" | "communities_in_place" => {
            // Each owner's six garden records; for the in-place trial also
            // its first version, the topic pending (budget 0) with its tasks.
            let (_, _, system) = open_system_embedded(&home);
            for i in 0..n {
                let owner = dedup_owner(i);
                system
                    .remember_many(&RememberMany::new(
                        (0..6).map(|j| garden_record(j, &owner)).collect(),
                        SCOPE,
                        &owner,
                        &format!("cp-{i}"),
                    ))
                    .unwrap();
                if verb == "communities_in_place" {
                    let mut pass =
                        am_system::communities::CommunitiesPass::new(&[(SCOPE, &owner)], &owner);
                    pass.budget = Some(0);
                    let r = system.communities_pass(&pass, None, &|| false).unwrap();
                    assert_eq!(r.pending.len(), 1, "one pending topic: {r:?}");
                }
            }
        }
        "embed_missing" => {
            // One record per owner, formed by a store without an embedder.
            let (_, _, system) = open_system_queued(&home, true);
            for i in 0..n {
                let owner = dedup_owner(i);
                system
                    .remember_many(&RememberMany::new(
                        vec![garden_record(i, "quiet")],
                        SCOPE,
                        &owner,
                        &format!("em-{i}"),
                    ))
                    .unwrap();
            }
        }
        "task_release" => {
            // The notes (task 4's targets), there before any kill.
            let (_, _, system) = open_system_queued(&home, true);
            setup_notes(&system, n, RecordKind::Memory);
        }
        "rearm_pending" => {
            // The notes declared pending (summary), their authoring tasks
            // superseded: each pending field without a live task.
            let (_, _, system) = open_system_queued(&home, true);
            let q = system.tasks().expect("the task queue");
            for id in setup_notes(&system, n, RecordKind::Memory) {
                let mut d = DeclarePending::new(&id);
                d.fields = vec!["summary".into()];
                system.declare_pending(&d).unwrap();
                let gone = q.supersede_target(&id, "crash-setup").unwrap();
                assert!(!gone.is_empty(), "the declared task was not superseded");
            }
        }
        _ => {
            drop(open_store(&home, false));
            drop(SQLiteJournal::open(&home).unwrap());
        }
    }
    path
}

fn copy_home(from: &Path, to: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let f = PathBuf::from(format!("{}{suffix}", from.display()));
        let t = PathBuf::from(format!("{}{suffix}", to.display()));
        let _ = std::fs::remove_file(&t);
        if f.exists() {
            std::fs::copy(&f, &t).unwrap();
        }
    }
}

#[derive(Default)]
struct Figures {
    trials: usize,
    killed_mid_script: usize,
    acked_checked: usize,
    torn: usize,
    lost: usize,
    failures: Vec<String>,
}

/// A small deterministic generator (splitmix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn trials_of(verb: &str, trials: usize, rng: &mut Rng, dir: &Path) -> Figures {
    let mut f = Figures::default();
    let writes = std::env::var("AM_CRASH_WRITES")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(ITERATIONS);
    let n = match verb {
        "upgrade" => 1,
        // A cut rebuilds the whole file (two VACUUMs): a few per script.
        "journal_cold_cut" => writes.min(6),
        _ => writes,
    };
    let start = template(verb, dir, n);
    // The clean reference run.
    let reference = dir.join(format!("{verb}-reference.sqlite3"));
    copy_home(&start, &reference);
    let clean = spawn_helper(verb, &reference, n, None);
    let reference_ids: Vec<Vec<String>> = if verb == "remember_many" || verb == "remember_pending" {
        // Re-derive each batch's ids: a formation replay returns them.
        let home = SqliteHome::open(&reference).unwrap();
        let pending = verb == "remember_pending";
        let (_, _, system) = open_system_queued(&home, pending);
        (0..n)
            .map(|i| {
                let (records, key) = if pending {
                    (pending_records(i), format!("rp-{i}"))
                } else {
                    (records(i), format!("rm-{i}"))
                };
                system
                    .remember_many(&RememberMany::new(records, SCOPE, OWNER, &key))
                    .unwrap()
                    .value
            })
            .collect()
    } else {
        Vec::new()
    };
    let ref_units = units(verb, &reference, &reference_ids, n);
    let ref_cells = vector_cells(&reference);
    let start_cells = vector_cells(&start);
    let ref_print = fingerprint(&reference);
    for (k, v) in &ref_units {
        assert!(*v > 0, "[{verb}] the reference run wrote nothing for {k}");
    }
    let span = clean.elapsed.as_micros().max(1000) as u64;
    for trial in 0..trials {
        f.trials += 1;
        let home = dir.join(format!("{verb}-{trial}.sqlite3"));
        copy_home(&start, &home);
        let delay = Duration::from_micros(rng.next() % span);
        let run = spawn_helper(verb, &home, n, Some(delay));
        if run.killed && run.begun.is_some() {
            f.killed_mid_script += 1;
        }
        let mut fail = |what: String| f.failures.push(format!("[{verb} trial {trial}] {what}"));
        // Reopening runs recovery (and finishes an interrupted upgrade); check
        // the raw file first.
        if let Err(e) = integrity(&home) {
            fail(e);
        }
        match verb {
            "upgrade" => {
                // Every row is its original JSON cell or its final BLOB, never torn.
                let cells = vector_cells(&home);
                for (i, cell) in cells.iter().enumerate() {
                    if *cell != start_cells[i] && *cell != ref_cells[i] {
                        f.torn += 1;
                        fail(format!("row {i}: a cell neither JSON nor its BLOB"));
                    }
                }
                if run.acked.is_some() {
                    f.acked_checked += 1;
                    if cells != ref_cells {
                        f.lost += 1;
                        fail("acknowledged upgrade not complete".into());
                    }
                }
            }
            "reembed_store" => match reembed_state(&home) {
                Err(e) => {
                    f.torn += 1;
                    fail(e);
                }
                Ok((g, markers)) => {
                    // A kill between a swap and its marker leaves one marker
                    // fewer than moves (the documented gap), never more.
                    if markers != g && markers + 1 != g {
                        f.torn += 1;
                        fail(format!("space-{g} with {markers} markers"));
                    }
                    if let Some(a) = run.acked {
                        f.acked_checked += a + 1;
                        if g < a + 1 {
                            f.lost += 1;
                            fail(format!(
                                "acknowledged move {a} (to space-{}), found space-{g}",
                                a + 1
                            ));
                        }
                    }
                }
            },
            "replace_vectors" => {
                let cells = vector_cells(&home);
                let generation = (0..n).find(|g| {
                    cells.iter().enumerate().all(|(row, (_, b))| {
                        b.as_deref()
                            == Some(
                                &generation_vector(*g, row)
                                    .iter()
                                    .flat_map(|x| x.to_le_bytes())
                                    .collect::<Vec<u8>>()[..],
                            )
                    })
                });
                let untouched = cells == start_cells;
                match (generation, untouched) {
                    (None, false) => {
                        f.torn += 1;
                        fail("vectors of mixed generations".into());
                    }
                    (g, _) => {
                        if let Some(a) = run.acked {
                            f.acked_checked += a + 1;
                            if g.is_none_or(|g| g < a) {
                                f.lost += 1;
                                fail(format!("acknowledged generation {a}, found {g:?}"));
                            }
                        }
                    }
                }
            }
            _ => {
                let got = units(verb, &home, &reference_ids, n);
                for (k, want) in &ref_units {
                    let have = got[k];
                    if have != 0 && have != *want {
                        f.torn += 1;
                        fail(format!("{k}: {have} of {want} rows"));
                    }
                }
                if let Some(a) = run.acked {
                    for i in 0..=a {
                        f.acked_checked += 1;
                        for (k, want) in &ref_units {
                            if k.ends_with(&format!(" {i}")) && got[k] != *want {
                                f.lost += 1;
                                fail(format!("acknowledged {k} missing ({} of {want})", got[k]));
                            }
                        }
                    }
                }
            }
        }
        if verb == "journal_cold_cut" {
            // The source is only read: its bytes are the template's.
            if std::fs::read(&home).unwrap() != std::fs::read(&start).unwrap() {
                f.torn += 1;
                fail("the cut's source file was written".into());
            }
            // A partial file left by the kill passes for a cut only when it
            // is the whole cut, killed between its last write and its rename.
            for i in 0..n {
                let dst = cut_path(&home, i);
                let partial = PathBuf::from(format!(
                    "{}{}",
                    dst.display(),
                    am_backend_sqlite::cold_cut::PARTIAL_SUFFIX
                ));
                if partial.exists() {
                    let k = cut_unit(&home, &partial);
                    if k > 1 && k != ref_units[&format!("cut {i}")] {
                        f.torn += 1;
                        fail(format!(
                            "cut {i}: a partial file passes verify_cold_cut but is not the cut"
                        ));
                    }
                }
            }
        }
        if let Err(e) = gap_free(&home) {
            fail(e);
        }
        if let Err(e) = queue_schema_whole(&home) {
            f.torn += 1;
            fail(e);
        }
        if let Err(e) = pending_owned(&home) {
            f.torn += 1;
            fail(e);
        }
        // Replay the killed script to completion, then once more.
        if verb != "replace_vectors" && verb != "reembed_store" {
            spawn_helper(verb, &home, n, None);
            if let Err(e) = integrity(&home) {
                fail(format!("after the replay: {e}"));
            }
            if verb == "upgrade" {
                if vector_cells(&home) != ref_cells {
                    fail("the reopened home's vectors differ from a clean upgrade".into());
                }
            } else if units(verb, &home, &reference_ids, n) != ref_units {
                fail("the replay did not complete the script as a clean run does".into());
            }
            let once = fingerprint(&home);
            if once != ref_print {
                fail(format!("after the replay: {once}\n reference: {ref_print}"));
            }
            spawn_helper(verb, &home, n, None);
            if fingerprint(&home) != once {
                fail("a second replay wrote something".into());
            }
            if let Err(e) = gap_free(&home) {
                fail(format!("after the replays: {e}"));
            }
            if let Err(e) = pending_owned(&home) {
                fail(format!("after the replays: {e}"));
            }
        }
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", home.display()));
        }
    }
    f
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--helper") {
        helper(&args[2], Path::new(&args[3]), args[4].parse().unwrap());
        return;
    }
    if args.iter().any(|a| a == "--list") {
        for v in VERBS {
            println!("crash_trials::{v}: test");
        }
        return;
    }
    let trials: usize = std::env::var("AM_CRASH_TRIALS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(CI_TRIALS);
    let seed: u64 = std::env::var("AM_CRASH_SEED")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1);
    let wanted: Vec<&str> = args[1..]
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(seed);
    let mut failed = false;
    println!(
        "{:<18} {:>7} {:>13} {:>14} {:>5} {:>5}",
        "verb", "trials", "killed-mid", "acked-checked", "torn", "lost"
    );
    for verb in VERBS {
        if !wanted.is_empty() && !wanted.contains(verb) {
            continue;
        }
        let f = trials_of(verb, trials, &mut rng, dir.path());
        println!(
            "{:<18} {:>7} {:>13} {:>14} {:>5} {:>5}",
            verb, f.trials, f.killed_mid_script, f.acked_checked, f.torn, f.lost
        );
        for e in f.failures.iter().take(10) {
            println!("  FAILED {e}");
        }
        failed |= !f.failures.is_empty();
    }
    if failed {
        eprintln!("crash trials failed");
        std::process::exit(1);
    }
}
