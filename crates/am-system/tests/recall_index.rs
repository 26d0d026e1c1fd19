//! The recall index (reconstruct/index.rs) never changes an answer: writes
//! through another handle on the same SQLite home (records, closures, hidden
//! bindings, use) are seen by the next recall of a system whose index is
//! warm, and a warm system answers exactly as a fresh one on the same data.
//!
//! Spec: api.md "Reconstruction" (every read at the current seq sees the
//! home as it is; `as_of` reproduces a result exactly).

mod common;

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::ClosureKind;
use am_journal::MemoryJournal;
use am_journal::SearchState;
use am_system::RecordKind;
use am_system::{Bind, CloseRecord, CommitSelection, Reconstruct, Remember, RememberMany};
use am_system::{
    MemoryRecordInput as R, MemorySystem, RecallBudget, ReconstructionResult, Stimulus,
    SystemOptions, View,
};
use am_triples::TripleStore;
use std::path::Path;
use std::sync::Arc;

const S1: &[(&str, &str)] = &[("session", "s1")];

/// A system on its own connection to the home at `path`.
fn open(path: &Path) -> MemorySystem {
    open_with(path, am_system::ReconstructConfig::default())
}

/// A system with `reconstruct_config` on its own connection to the home at `path`.
fn open_with(path: &Path, reconstruct_config: am_system::ReconstructConfig) -> MemorySystem {
    let home = SqliteHome::open(path).unwrap();
    let memory_home = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
    MemorySystem::over_home_with_options(
        Arc::new(memory_home),
        SystemOptions {
            clock: Some(common::pinned_clock()),
            reconstruct_config,
            ..SystemOptions::default()
        },
    )
    .unwrap()
}

fn recall(s: &MemorySystem, cue: &str) -> ReconstructionResult {
    s.reconstruct(&Reconstruct {
        view: View::WorkingSet,
        journal: false,
        trace_id: Some("t-index".into()),
        ..Reconstruct::new(Stimulus::new(cue), S1)
    })
    .unwrap()
}

fn titles(r: &ReconstructionResult) -> Vec<String> {
    r.handles
        .iter()
        .map(|h| h.title.clone().unwrap_or_default())
        .collect()
}

fn form(s: &MemorySystem) -> Vec<String> {
    s.remember_many(&RememberMany::new(
        vec![
            R::new(
                RecordKind::Episode,
                "Pool outage",
                "The database pool failed at noon.",
            ),
            R::new(
                RecordKind::Lesson,
                "Restart order",
                "Restart the database pool first.",
            )
            .with_edge("derived_from", "local:0"),
            R::new(RecordKind::Memory, "Lunch", "Ada had soup for lunch."),
        ],
        "session",
        "s1",
        "batch-1",
    ))
    .unwrap()
    .value
}

#[test]
fn a_write_through_a_second_handle_is_seen_by_the_next_recall() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let first = open(&path);
    let second = open(&path);
    form(&first);
    // Two recalls: the first system's index is built and warm.
    recall(&first, "database pool");
    let warm = recall(&first, "database pool");
    assert!(!titles(&warm).contains(&"Pool heater".to_owned()));

    // A record formed through the other handle.
    let new_id = second
        .remember(&Remember::new(
            R::new(
                RecordKind::Episode,
                "Pool heater",
                "The swimming pool heater broke.",
            ),
            "session",
            "s1",
            "batch-2",
        ))
        .unwrap()
        .value;
    let after_write = recall(&first, "swimming pool heater");
    assert!(titles(&after_write).contains(&"Pool heater".to_owned()));

    // A closure through the other handle.
    second
        .close_record(&CloseRecord::new(
            &new_id,
            ClosureKind::Retract,
            "wrong heater",
        ))
        .unwrap();
    let after_close = recall(&first, "swimming pool heater");
    assert!(
        !titles(&after_close).contains(&"Pool heater".to_owned()),
        "{:?}",
        titles(&after_close)
    );

    // A hidden binding through the other handle.
    let lunch = recall(&first, "soup lunch");
    let lunch_id = lunch
        .handles
        .iter()
        .find(|h| h.title.as_deref() == Some("Lunch"))
        .map(|h| h.record_id.clone())
        .unwrap();
    second
        .bind(&Bind::new(&lunch_id, "session", "s1", SearchState::Hidden))
        .unwrap();
    let after_bind = recall(&first, "soup lunch");
    assert!(
        after_bind.handles.iter().all(|h| h.record_id != lunch_id),
        "{:?}",
        titles(&after_bind)
    );

    // Use committed through the other handle reaches the warm system's counts.
    let used = second
        .reconstruct(&Reconstruct {
            trace_id: Some("t-use".into()),
            ..Reconstruct::new(Stimulus::new("database pool"), S1)
        })
        .unwrap();
    let top = used.handles[0].record_id.clone();
    second
        .commit_selection(&CommitSelection::new("t-use", std::slice::from_ref(&top)))
        .unwrap();
    // Every one of these reads equals a fresh system's on the same home.
    let fresh = open(&path);
    for cue in [
        "database pool",
        "swimming pool heater",
        "soup lunch",
        "restart",
    ] {
        assert_eq!(recall(&first, cue), recall(&fresh, cue), "cue {cue:?}");
    }
}

#[test]
fn a_warm_system_answers_exactly_as_a_fresh_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let warm = open(&path);
    form(&warm);
    let cues = ["database pool", "restart order", "soup", "noon outage"];
    for round in 0..3 {
        for (i, cue) in cues.iter().enumerate() {
            // Journaled recalls and use move the seq between reads.
            let tid = format!("r{round}-{i}");
            let r = warm
                .reconstruct(&Reconstruct {
                    trace_id: Some(tid.to_string()),
                    ..Reconstruct::new(Stimulus::new(cue), S1)
                })
                .unwrap();
            if let Some(h) = r.handles.first() {
                warm.commit_selection(&CommitSelection::new(
                    &tid,
                    std::slice::from_ref(&h.record_id),
                ))
                .unwrap();
            }
            let fresh = open(&path);
            assert_eq!(
                recall(&warm, cue),
                recall(&fresh, cue),
                "round {round} cue {cue:?}"
            );
        }
    }
    // An anchored re-read on the warm system reproduces the earlier result.
    let seq = warm.current_seq().unwrap();
    let anchored = |s: &MemorySystem| {
        s.reconstruct(&Reconstruct {
            view: View::WorkingSet,
            journal: false,
            trace_id: Some("t-anchor".into()),
            ..Reconstruct::new(Stimulus::new("database pool").with_as_of(seq), S1)
        })
        .unwrap()
    };
    // (A journaled read moves the seq past the anchor.)
    recall_journaled(&warm, "restart");
    let before = anchored(&warm);
    warm.remember(&Remember::new(
        R::new(
            RecordKind::Episode,
            "Pool again",
            "The database pool failed again.",
        ),
        "session",
        "s1",
        "batch-3",
    ))
    .unwrap();
    let after = anchored(&warm);
    assert_eq!(after.handles, before.handles);
    assert_eq!(after.dropped, before.dropped);
    assert_eq!(after.as_of_seq, before.as_of_seq);
}

fn recall_journaled(s: &MemorySystem, cue: &str) {
    s.reconstruct(&Reconstruct::new(Stimulus::new(cue), S1))
        .unwrap();
}

/// A journal that lets "another writer" append a closure in the middle of a
/// journaled recall's appends (just before its trace): the fault injection
/// for the recall index's skip of its own trace and `listed` events. The
/// closure put in `armed` is appended, once, before the next trace.
fn interleaving(
    inner: Arc<dyn MemoryJournal>,
    armed: Arc<std::sync::Mutex<Option<am_journal::ClosureRecord>>>,
) -> common::GatedJournal {
    let writer = inner.clone();
    common::GatedJournal::new(inner, move |family| {
        if family == "trace"
            && let Some(c) = armed.lock().unwrap().take()
        {
            writer.append_closure(&c)?;
        }
        Ok(())
    })
}

#[test]
fn a_record_closed_between_a_journaled_recall_and_its_trace_is_excluded_by_the_next_recall() {
    for stack in ["memory", "sqlite"] {
        let dir = tempfile::tempdir().unwrap();
        let (store, inner): (Arc<dyn TripleStore>, Arc<dyn MemoryJournal>) = if stack == "sqlite" {
            let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
            (
                Arc::new(
                    SQLiteTripleStore::with_home(&home, None, SqliteStoreOptions::default())
                        .unwrap(),
                ),
                Arc::new(SQLiteJournal::open(&home).unwrap()),
            )
        } else {
            (
                Arc::new(am_triples::InMemoryTripleStore::new(None)),
                Arc::new(am_journal::InMemoryJournal::new()),
            )
        };
        let armed = Arc::new(std::sync::Mutex::new(None));
        let journal = Arc::new(interleaving(inner, armed.clone()));
        let system = MemorySystem::with_options(
            store,
            journal.clone(),
            SystemOptions {
                clock: Some(common::pinned_clock()),
                ..SystemOptions::default()
            },
        )
        .unwrap();
        form(&system);
        // Warm: the index is built and the journal caches follow the seq.
        recall_journaled(&system, "soup lunch");
        recall_journaled(&system, "soup lunch");
        let lunch = recall(&system, "soup lunch");
        let lunch_id = lunch
            .handles
            .iter()
            .find(|h| h.title.as_deref() == Some("Lunch"))
            .map(|h| h.record_id.clone())
            .unwrap();
        let aid = system.resolve_assertion_id(&lunch_id).unwrap();
        // The closure lands between this recall's read and its trace.
        *armed.lock().unwrap() = Some(am_journal::ClosureRecord::new(
            &aid,
            ClosureKind::Retract,
            "wrong lunch",
        ));
        recall_journaled(&system, "soup lunch");
        assert!(
            armed.lock().unwrap().is_none(),
            "{stack}: the closure was appended"
        );
        let after = recall(&system, "soup lunch");
        assert!(
            after.handles.iter().all(|h| h.record_id != lunch_id),
            "{stack}: {:?}",
            titles(&after)
        );
    }
}

#[test]
fn journaled_recalls_leave_the_index_answering_as_a_fresh_system() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let warm = open(&path);
    let second = open(&path);
    form(&warm);
    for i in 0..4 {
        recall_journaled(&warm, "database pool");
        if i == 2 {
            // A closure through another handle right after a journaled recall.
            let top = recall(&warm, "restart order").handles[0].record_id.clone();
            second
                .close_record(&CloseRecord::new(&top, ClosureKind::Retract, "retracted"))
                .unwrap();
        }
        let fresh = open(&path);
        for cue in ["database pool", "restart order", "soup lunch"] {
            assert_eq!(
                recall(&warm, cue),
                recall(&fresh, cue),
                "round {i} cue {cue:?}"
            );
        }
    }
}

/// A system with FTS5 keyword discovery on, on its own connection.
fn open_discovery(path: &Path) -> MemorySystem {
    open_with(
        path,
        am_system::ReconstructConfig {
            keyword_discovery: true,
            ..am_system::ReconstructConfig::default()
        },
    )
}

#[test]
fn keyword_discovery_served_from_the_index_equals_the_stores_discovery() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let warm = open_discovery(&path);
    let words = [
        "pool", "outage", "soup", "garden", "restart", "river", "piano",
    ];
    // Two owners' rows interleaved, so each owner's position range holds the
    // other's rows too; more rows than the candidate window.
    for b in 0..6 {
        for owner in ["s1", "s2"] {
            let recs: Vec<R> = (0..30)
                .map(|i| {
                    let w = words[(b * 30 + i) % words.len()];
                    let v = words[(b + i * 3) % words.len()];
                    R::new(
                        RecordKind::Episode,
                        &format!("{w} {i}"),
                        &format!("The {w} and the {v} at {b}."),
                    )
                })
                .collect();
            warm.remember_many(&RememberMany::new(
                recs.to_vec(),
                "session",
                owner,
                &format!("{owner}-{b}"),
            ))
            .unwrap();
        }
    }
    let budget = RecallBudget {
        max_candidates: 8,
        ..RecallBudget::default()
    };
    let read = |s: &MemorySystem, cue: &str, owner: &str| {
        s.reconstruct(&Reconstruct {
            budget: budget.clone(),
            view: View::WorkingSet,
            journal: false,
            trace_id: Some("t-kd".into()),
            ..Reconstruct::new(Stimulus::new(cue), &[("session", owner)])
        })
        .unwrap()
    };
    read(&warm, "pool", "s1");
    let cues = [
        "pool outage",
        "soup garden",
        "piano river restart",
        "nothing matches",
    ];
    for owner in ["s1", "s2", ""] {
        for cue in cues {
            let fresh = open_discovery(&path);
            assert_eq!(
                read(&warm, cue, owner),
                read(&fresh, cue, owner),
                "{owner} {cue}"
            );
        }
    }
    // A row formed through another handle is discovered by the warm system.
    open_discovery(&path)
        .remember(&Remember::new(
            R::new(RecordKind::Episode, "Zither", "The zither lesson."),
            "session",
            "s1",
            "late",
        ))
        .unwrap();
    let r = read(&warm, "zither", "s1");
    assert!(
        titles(&r).contains(&"Zither".to_owned()),
        "{:?}",
        titles(&r)
    );
    assert_eq!(r, read(&open_discovery(&path), "zither", "s1"));
}

fn rewrite(s: &MemorySystem, id: &str, text: &str) {
    let author = am_system::AuthorRef::new(am_system::AuthorKind::Operator, "ada");
    let r = s
        .rewrite_digest(&am_system::RewriteDigest::new(
            id,
            text,
            author,
            serde_json::json!("operator"),
            0,
        ))
        .unwrap();
    assert_eq!(r.outcome, am_system::Outcome::Applied, "{r:?}");
}

fn found_by_keyword(r: &ReconstructionResult, title: &str) -> bool {
    r.handles.iter().any(|h| {
        h.title.as_deref() == Some(title) && h.relevance.get("keyword").is_some_and(|k| *k > 0.0)
    })
}

/// api.md `rewrite_digest` / memory-system.md "Understanding": "recall finds
/// the new words through the keyword index and the vector, and no longer the
/// old ones", also for a system whose recall index was warm before the
/// rewrite, whichever handle on the home wrote it.
#[test]
fn recall_finds_the_new_words_and_no_longer_the_old_ones_through_a_warm_recall_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let first = open(&path);
    let second = open(&path);
    let ids = form(&first);
    for s in [&first, &second] {
        // Two recalls each: both systems' indexes are built and warm.
        recall(s, "soup lunch");
        assert!(found_by_keyword(&recall(s, "soup lunch"), "Lunch"));
    }
    rewrite(&first, &ids[2], "Ada ate ramen at the quay.");
    for (name, s) in [("writer", &first), ("second handle", &second)] {
        assert!(
            found_by_keyword(&recall(s, "ramen quay"), "Lunch"),
            "[{name}] found by its new words: {:?}",
            titles(&recall(s, "ramen quay"))
        );
        assert!(
            !found_by_keyword(&recall(s, "soup"), "Lunch"),
            "[{name}] no longer found by its old words"
        );
    }
    let fresh = open(&path);
    for cue in ["ramen quay", "soup lunch", "database pool"] {
        assert_eq!(
            recall(&first, cue),
            recall(&fresh, cue),
            "writer, cue {cue:?}"
        );
        assert_eq!(
            recall(&second, cue),
            recall(&fresh, cue),
            "second, cue {cue:?}"
        );
    }
    // The in-memory pair, warm before its rewrite, answers the same way.
    let memory = MemorySystem::with_options(
        Arc::new(am_triples::InMemoryTripleStore::new(None)),
        Arc::new(am_journal::InMemoryJournal::new()),
        SystemOptions {
            clock: Some(common::pinned_clock()),
            ..SystemOptions::default()
        },
    )
    .unwrap();
    let ids = form(&memory);
    recall(&memory, "soup lunch");
    assert!(found_by_keyword(&recall(&memory, "soup lunch"), "Lunch"));
    rewrite(&memory, &ids[2], "Ada ate ramen at the quay.");
    assert!(found_by_keyword(&recall(&memory, "ramen quay"), "Lunch"));
    assert!(!found_by_keyword(&recall(&memory, "soup"), "Lunch"));
}
