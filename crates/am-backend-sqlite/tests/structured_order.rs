//! Structured reads order by `observed_at` then insertion order, in the query's
//! direction, and apply `limit` after ordering (stores.md "Shared behavior",
//! ordering + limit semantics), whichever path runs them: selective queries
//! (ids, subject, object) are ordered in Rust, the others by SQL. Both must
//! answer as the in-memory store and as SQL's `ORDER BY observed_at, rowid`.

use am_backend_sqlite::store::{SQLiteTripleStore, SqliteStoreOptions};
use am_triples::{
    ErrorKind, InMemoryTripleStore, Order, TripleAssertion, TripleQuery, TripleStore,
};

/// Rows of a few subjects whose `observed_at` values collide (ties broken by
/// insertion order), inserted out of time order, with literal and plain objects.
fn corpus() -> Vec<TripleAssertion> {
    let mut rows = Vec::new();
    for i in 0..60u32 {
        // 7 distinct instants, visited out of order: many ties per instant.
        let t = (i * 5) % 7;
        let mut a = TripleAssertion::new(
            &format!("s{}", i % 3),
            "p",
            if i % 4 == 0 { "Mixed Case" } else { "plain" },
        )
        .with_observed_at(&format!("2026-01-0{}T00:00:00+00:00", t + 1))
        .with_id(&format!("row-{i:03}"));
        if i % 8 == 0 {
            a.attributes
                .insert("literal".into(), serde_json::Value::Bool(true));
        }
        rows.push(a);
    }
    rows
}

fn queries() -> Vec<TripleQuery> {
    let mut out = Vec::new();
    for order in [Order::Asc, Order::Desc] {
        for limit in [0, 1, 3, 7, 19, 20, 21, 100] {
            let base = TripleQuery {
                limit,
                order,
                ..TripleQuery::default()
            };
            out.push(TripleQuery {
                subject: Some("s1".into()),
                ..base.clone()
            });
            out.push(TripleQuery {
                object: Some("Mixed Case".into()),
                ..base.clone()
            });
            out.push(TripleQuery {
                object: Some("plain".into()),
                scope: Some("run".into()),
                ..base.clone()
            });
            out.push(TripleQuery {
                assertion_ids: Some((0..60).step_by(4).map(|i| format!("row-{i:03}")).collect()),
                ..base.clone()
            });
            out.push(TripleQuery {
                subject: Some("s2".into()),
                since: Some("2026-01-03T00:00:00+00:00".into()),
                ..base.clone()
            });
            out.push(base);
        }
    }
    out
}

#[test]
fn selective_and_other_reads_order_and_limit_as_the_in_memory_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = SQLiteTripleStore::open(
        dir.path().join("home.sqlite3"),
        None,
        SqliteStoreOptions::default(),
    )
    .unwrap();
    let memory = InMemoryTripleStore::new(None);
    let rows = corpus();
    store.add(&rows).unwrap();
    memory.add(&rows).unwrap();
    for q in queries() {
        let ours = store.query(&q).unwrap();
        let expected = memory.query(&q).unwrap();
        let ids = |v: &[TripleAssertion]| {
            v.iter()
                .map(|a| a.assertion_id.clone().unwrap_or_default())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&ours), ids(&expected), "{q:?}");
        assert_eq!(ours, expected, "{q:?}");
    }
}

#[test]
fn a_row_the_rust_order_cannot_place_gets_the_sql_ordered_answer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let store = SQLiteTripleStore::open(&path, None, SqliteStoreOptions::default()).unwrap();
    store
        .add(&[
            TripleAssertion::new("s", "p", "a")
                .with_observed_at("2026-01-01T00:00:00+00:00")
                .with_id("a"),
            TripleAssertion::new("s", "p", "b")
                .with_observed_at("2026-01-02T00:00:00+00:00")
                .with_id("b"),
            TripleAssertion::new("s", "p", "c")
                .with_observed_at("2026-01-03T00:00:00+00:00")
                .with_id("c"),
        ])
        .unwrap();
    // A foreign writer stored a BLOB where a timestamp belongs: SQLite orders it
    // after every text value (the column's TEXT affinity would turn a number
    // into text).
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "INSERT INTO triples (assertion_id, subject, predicate, object, scope, observed_at) \
             VALUES ('n', 's', 'p', 'n', 'run', X'3132')",
            [],
        )
        .unwrap();
    let q = |order, limit| TripleQuery {
        subject: Some("s".into()),
        order,
        limit,
        ..TripleQuery::default()
    };
    // Oldest two: the BLOB row is cut by the limit, as in SQL.
    let oldest: Vec<_> = store
        .query(&q(Order::Asc, 2))
        .unwrap()
        .into_iter()
        .map(|a| a.assertion_id.unwrap())
        .collect();
    assert_eq!(oldest, ["a", "b"]);
    // Newest first: the BLOB row comes first and cannot be read as text.
    let err = store.query(&q(Order::Desc, 2)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Storage, "{err}");
}
