//! Batched event appends: events are written in multi-row statements, and a
//! supplied `event_id` still returns the original event whether it was appended
//! in an earlier batch or earlier in the same batch (stores.md "SQLiteJournal":
//! supplied ids are idempotent; seqs are one gap-free axis).

use am_backend_sqlite::SqliteHome;
use am_backend_sqlite::journal::SQLiteJournal;
use am_journal::EventKind;
use am_journal::{MemoryEvent, MemoryJournal};

#[test]
fn a_supplied_event_id_repeated_within_one_batch_returns_the_first_and_writes_one_row() {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let j = SQLiteJournal::open(&home).unwrap();
    let earlier = j
        .append_events(&[
            MemoryEvent::on_record(EventKind::Selected, "r0", "session", "s1").with_event_id("old"),
        ])
        .unwrap();
    let mut batch: Vec<MemoryEvent> = (0..150)
        .map(|i| {
            MemoryEvent::on_record(EventKind::Selected, &format!("r{}", i % 7), "session", "s1")
        })
        .collect();
    batch[3] =
        MemoryEvent::on_record(EventKind::Listed, "r3", "session", "s1").with_event_id("dup");
    batch[100] =
        MemoryEvent::on_record(EventKind::Selected, "r9", "session", "s1").with_event_id("dup");
    batch[120] =
        MemoryEvent::on_record(EventKind::Selected, "r9", "session", "s1").with_event_id("old");
    let out = j.append_events(&batch).unwrap();
    assert_eq!(out.len(), 150);
    assert_eq!(
        out[100].kind,
        EventKind::Listed,
        "the same-batch original is returned"
    );
    assert_eq!(out[100].seq, out[3].seq);
    assert_eq!(
        out[120].seq, earlier[0].seq,
        "the earlier batch's original is returned"
    );
    let conn = home.conn();
    let conn = conn.lock().unwrap();
    let (rows, distinct, max): (i64, i64, i64) = conn
        .query_row(
            "SELECT COUNT(*), COUNT(DISTINCT event_id), MAX(seq) FROM memj_events",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((rows, distinct), (149, 149), "1 + 148 new rows");
    assert_eq!(max, 149, "seqs stay gap-free");
    let stored: Vec<(i64, String)> = conn
        .prepare("SELECT seq, event_id FROM memj_events ORDER BY seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let returned_new: Vec<(i64, String)> = out
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 100 && *i != 120)
        .map(|(_, e)| (e.seq, e.event_id.clone()))
        .collect();
    assert_eq!(
        stored[1..],
        returned_new[..],
        "rows as returned, in seq order"
    );
}
