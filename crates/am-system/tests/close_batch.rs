//! `close_record` and `close_assertions` append their closures as ONE batch
//! (`MemoryJournal::append_closures`): on a SQLite home one transaction, so
//! a journal that refuses a later closure of the act leaves none of them
//! written (no closure row, the seq axis and the store rows unchanged), and
//! the same act, once the journal accepts it, lands every closure on
//! consecutive seqs. On the in-memory journal a batch is one append under
//! its lock (its refusal of a later closure is the conformance check
//! `journal::append_closures_is_ordered_idempotent_and_all_or_nothing`; one
//! commit point per act is pinned in `commit_guard.rs` on both stacks).
//!
//! Spec: api.md "Bindings and closures" (`close_record`: "one
//! belief-revision act"); architecture.md "A write is one transaction or
//! nothing".

mod common;

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteStoreOptions};
use am_journal::{ClosureFilter, MemoryJournal};
use am_system::{
    CloseAssertions, CloseRecord, MemoryRecordInput, MemorySystem, RememberMany, SystemOptions,
};
use am_triples::text::is_record_edge;
use am_triples::{TripleQuery, TripleStore};
use std::sync::Arc;

struct Home {
    _dir: tempfile::TempDir,
    store: Arc<SQLiteTripleStore>,
    journal: Arc<SQLiteJournal>,
    system: MemorySystem,
}

/// A store and a journal of one SQLite file, as a host passes them.
fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let store =
        Arc::new(SQLiteTripleStore::with_home(&home, None, SqliteStoreOptions::default()).unwrap());
    let journal = Arc::new(SQLiteJournal::open(&home).unwrap());
    let system = MemorySystem::with_options(
        store.clone(),
        journal.clone(),
        SystemOptions {
            clock: Some(common::pinned_clock()),
            ..SystemOptions::default()
        },
    )
    .unwrap();
    Home {
        _dir: dir,
        store,
        journal,
        system,
    }
}

fn execute(h: &Home, sql: &str) {
    h.store
        .home()
        .conn()
        .lock()
        .unwrap()
        .execute_batch(sql)
        .unwrap();
}

fn closure_rows(h: &Home) -> i64 {
    let conn = h.store.home().conn();
    let c = conn.lock().unwrap();
    c.query_row("SELECT COUNT(*) FROM memj_closures", [], |r| r.get(0))
        .unwrap()
}

fn row_count(h: &Home) -> usize {
    h.store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .len()
}

/// A record with a digest and two edges: its graph id and the three
/// assertion ids to close, the digest first.
fn formed(h: &Home) -> (String, Vec<String>) {
    let ids = h
        .system
        .remember_many(&RememberMany::new(
            vec![
                MemoryRecordInput::new(
                    am_system::RecordKind::Lesson,
                    "Pools",
                    "Connection pools exhaust under load.",
                ),
                MemoryRecordInput::new(
                    am_system::RecordKind::Episode,
                    "Outage",
                    "The outage followed the exhaustion.",
                )
                .with_edge("follows", "local:0")
                .with_edge("derived_from", "local:0"),
            ],
            "session",
            "s1",
            "k1",
        ))
        .unwrap()
        .value;
    let rows = h
        .store
        .query(&TripleQuery {
            subject: Some(ids[1].clone()),
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap();
    assert_eq!(rows.len(), 3, "the episode's digest and its two edges");
    // The digest first (close_record's order), then the edges.
    let mut owned: Vec<(bool, String)> = rows
        .into_iter()
        .map(|a| (is_record_edge(&a), a.assertion_id.unwrap()))
        .collect();
    owned.sort();
    assert_eq!(owned.iter().filter(|(edge, _)| !edge).count(), 1);
    (
        ids[1].clone(),
        owned.into_iter().map(|(_, id)| id).collect(),
    )
}

/// A real SQLite refusal of the closure of `assertion_id` (not a mock).
fn refuse_closing(h: &Home, assertion_id: &str) {
    execute(
        h,
        &format!(
            "CREATE TRIGGER refuse_closure BEFORE INSERT ON memj_closures \
             WHEN NEW.assertion_id = '{assertion_id}' \
             BEGIN SELECT RAISE(ABORT, 'closure refused by the test trigger'); END;"
        ),
    );
}

fn consecutive(seqs: &[i64]) -> bool {
    seqs.windows(2).all(|w| w[1] == w[0] + 1)
}

#[test]
fn close_record_whose_later_closure_the_journal_refuses_writes_no_closure() {
    let h = home();
    let (record, owned) = formed(&h);
    let (rows, seq, closures) = (
        row_count(&h),
        h.journal.current_seq().unwrap(),
        closure_rows(&h),
    );
    // The digest's closure is appended first; an edge's is refused.
    refuse_closing(&h, &owned[2]);
    let err = h
        .system
        .close_record(&CloseRecord::retract(&record, "wrong order"))
        .unwrap_err();
    assert!(
        err.to_string().contains("refused by the test trigger"),
        "{err}"
    );
    assert_eq!(
        closure_rows(&h),
        closures,
        "no closure of the act was written"
    );
    assert_eq!(h.journal.current_seq().unwrap(), seq);
    assert_eq!(row_count(&h), rows);
    // Accepted, the same act closes all three on consecutive seqs.
    execute(&h, "DROP TRIGGER refuse_closure;");
    let ids = h
        .system
        .close_record(&CloseRecord::retract(&record, "wrong order"))
        .unwrap();
    assert_eq!(ids.len(), 3);
    let mut seqs: Vec<i64> = owned
        .iter()
        .flat_map(|a| {
            h.journal
                .closures(&ClosureFilter {
                    assertion_id: Some(a.clone()),
                    ..ClosureFilter::default()
                })
                .unwrap()
        })
        .map(|c| c.seq)
        .collect();
    seqs.sort_unstable();
    assert_eq!(seqs.len(), 3);
    assert!(consecutive(&seqs), "{seqs:?}");
    assert_eq!(h.journal.current_seq().unwrap(), seq + 3);
    // A replay (deterministic closure ids) writes nothing.
    h.system
        .close_record(&CloseRecord::retract(&record, "wrong order"))
        .unwrap();
    assert_eq!(h.journal.current_seq().unwrap(), seq + 3);
}

#[test]
fn close_assertions_whose_later_closure_the_journal_refuses_writes_no_closure() {
    let h = home();
    let (_, owned) = formed(&h);
    let (rows, seq, closures) = (
        row_count(&h),
        h.journal.current_seq().unwrap(),
        closure_rows(&h),
    );
    refuse_closing(&h, &owned[2]);
    let err = h
        .system
        .close_assertions(&CloseAssertions::new(
            &owned,
            am_journal::ClosureKind::Retract,
            "wrong",
        ))
        .unwrap_err();
    assert!(
        err.to_string().contains("refused by the test trigger"),
        "{err}"
    );
    assert_eq!(
        closure_rows(&h),
        closures,
        "no closure of the act was written"
    );
    assert_eq!(h.journal.current_seq().unwrap(), seq);
    assert_eq!(row_count(&h), rows);
    execute(&h, "DROP TRIGGER refuse_closure;");
    let ids = h
        .system
        .close_assertions(&CloseAssertions::new(
            &owned,
            am_journal::ClosureKind::Retract,
            "wrong",
        ))
        .unwrap();
    assert_eq!(ids.len(), 3);
    assert_eq!(closure_rows(&h), closures + 3);
    assert_eq!(h.journal.current_seq().unwrap(), seq + 3);
}
