//! Many handles on one table, as many hosts would hold them.

use crate::{Test, database, store};
use am_backend_postgres::testing::TempServer;
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use std::collections::BTreeSet;

pub(crate) const TESTS: &[Test] = &[
    (
        "hosts::concurrent_writers_on_four_handles_leave_a_feed_without_gap_or_repeat",
        concurrent_writers_on_four_handles_leave_a_feed_without_gap_or_repeat,
    ),
    (
        "hosts::one_id_written_by_two_handles_at_once_is_stored_once",
        one_id_written_by_two_handles_at_once_is_stored_once,
    ),
    (
        "hosts::a_handle_reads_another_handles_commit_through_the_feed_at_once",
        a_handle_reads_another_handles_commit_through_the_feed_at_once,
    ),
];

fn row(host: usize, n: usize) -> TripleAssertion {
    TripleAssertion::new(&format!("host{host}"), "wrote", &format!("row{n}"))
        .with_id(&format!("h{host}-{n}"))
        .with_scope("session")
        .with_owner("s1")
}

/// Every row of the feed from the start, in pages of 37.
fn whole_feed(s: &dyn TripleStore) -> Vec<(i64, String)> {
    let mut out = Vec::new();
    let mut cursor = 0;
    loop {
        let page = s.assertions_after(cursor, None, None, 37).unwrap();
        if page.rows.is_empty() {
            return out;
        }
        out.extend(
            page.rows
                .into_iter()
                .map(|(p, a)| (p, a.assertion_id.unwrap_or_default())),
        );
        cursor = page.next_cursor;
    }
}

fn concurrent_writers_on_four_handles_leave_a_feed_without_gap_or_repeat(server: &TempServer) {
    let db = database(server);
    let (hosts, batches, per_batch) = (4, 20, 5);
    std::thread::scope(|scope| {
        for host in 0..hosts {
            let db = db.clone();
            scope.spawn(move || {
                let s = store(&db);
                for b in 0..batches {
                    let rows: Vec<_> = (0..per_batch)
                        .map(|i| row(host, b * per_batch + i))
                        .collect();
                    s.add(&rows).unwrap();
                }
            });
        }
    });
    let reader = store(&db);
    let feed = whole_feed(&reader);
    let total = hosts * batches * per_batch;
    let positions: Vec<i64> = feed.iter().map(|(p, _)| *p).collect();
    let expected: Vec<i64> = (1..=i64::try_from(total).unwrap()).collect();
    assert_eq!(positions, expected, "positions 1..=N, each once, in order");
    let ids: BTreeSet<&str> = feed.iter().map(|(_, id)| id.as_str()).collect();
    assert_eq!(ids.len(), total, "every row once");
    // Each host's own rows keep its write order on the feed.
    for host in 0..hosts {
        let mine: Vec<&str> = feed
            .iter()
            .map(|(_, id)| id.as_str())
            .filter(|id| id.starts_with(&format!("h{host}-")))
            .collect();
        let want: Vec<String> = (0..batches * per_batch)
            .map(|n| format!("h{host}-{n}"))
            .collect();
        assert_eq!(mine, want, "host {host}'s rows in its write order");
    }
}

fn one_id_written_by_two_handles_at_once_is_stored_once(server: &TempServer) {
    let db = database(server);
    let rows: Vec<_> = (0..50).map(|n| row(0, n)).collect();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            let (db, rows) = (db.clone(), rows.clone());
            scope.spawn(move || {
                let ids = store(&db).add(&rows).unwrap();
                assert_eq!(ids.len(), 50, "every id answered, stored or not");
            });
        }
    });
    let feed = whole_feed(&store(&db));
    assert_eq!(feed.len(), 50);
    assert_eq!(
        feed.last().map(|(p, _)| *p),
        Some(50),
        "no position spent on a duplicate"
    );
}

fn a_handle_reads_another_handles_commit_through_the_feed_at_once(server: &TempServer) {
    let db = database(server);
    let (writer, reader) = (store(&db), store(&db));
    writer.add(&[row(1, 0)]).unwrap();
    let first = reader.assertions_after(0, None, None, 100).unwrap();
    assert_eq!(first.rows.len(), 1);
    writer.add(&[row(1, 1), row(1, 2)]).unwrap();
    let next = reader
        .assertions_after(first.next_cursor, None, None, 100)
        .unwrap();
    let ids: Vec<_> = next
        .rows
        .iter()
        .map(|(_, a)| a.assertion_id.clone().unwrap_or_default())
        .collect();
    assert_eq!(ids, ["h1-1", "h1-2"]);
    assert_eq!(next.next_cursor, 3);
    let q = TripleQuery {
        subject: Some("host1".into()),
        ..TripleQuery::default()
    };
    assert_eq!(reader.query(&q).unwrap().len(), 3, "a query sees them too");
}
