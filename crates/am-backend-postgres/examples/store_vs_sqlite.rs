//! A rough side-by-side of the PostgreSQL store and the SQLite store in one
//! run (a throwaway local server on a unix socket, `fsync = off`; the SQLite
//! home in a temporary directory): `cargo run --release -p
//! am-backend-postgres --example store_vs_sqlite [ROWS]`. Prints the time of
//! each phase on both stores and their ratio. No embedder: it times the
//! storage path, not embedding.

use am_backend_postgres::testing::TempServer;
use am_backend_postgres::{PostgresStoreOptions, PostgresTripleStore};
use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use std::time::{Duration, Instant};

fn rows(batch: usize, n: usize) -> Vec<TripleAssertion> {
    (0..n)
        .map(|i| {
            TripleAssertion::new(
                &format!("subject{}", (batch * n + i) % 500),
                "observed",
                &format!("a fact number {batch}-{i} about pools and queues"),
            )
            .with_scope("session")
            .with_owner("s1")
        })
        .collect()
}

fn phases(s: &dyn TripleStore, total: usize) -> Vec<(&'static str, Duration)> {
    let mut out = Vec::new();
    let t = Instant::now();
    for b in 0..total / 100 {
        s.add(&rows(b, 100)).expect("add");
    }
    out.push(("add (batches of 100)", t.elapsed()));
    let t = Instant::now();
    for i in 0..200 {
        let q = TripleQuery {
            subject: Some(format!("subject{i}")),
            limit: 10,
            ..TripleQuery::default()
        };
        s.query(&q).expect("query");
    }
    out.push(("200 subject queries (limit 10)", t.elapsed()));
    let t = Instant::now();
    let mut cursor = 0;
    let mut seen = 0;
    loop {
        let page = s.assertions_after(cursor, None, None, 1000).expect("feed");
        if page.rows.is_empty() {
            break;
        }
        seen += page.rows.len();
        cursor = page.next_cursor;
    }
    assert_eq!(seen, total);
    out.push(("whole change feed (pages of 1000)", t.elapsed()));
    out
}

fn main() {
    let total: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let server = TempServer::start().expect("start a throwaway server");
    let db = server.create_database().expect("create a database");
    let pg = PostgresTripleStore::open(&db, None, PostgresStoreOptions::default()).expect("open");
    let dir = tempfile::tempdir().expect("tempdir");
    let sqlite = SQLiteTripleStore::open(
        dir.path().join("home.sqlite3"),
        None,
        SqliteStoreOptions::default(),
    )
    .expect("open sqlite");
    let p = phases(&pg, total);
    let s = phases(&sqlite, total);
    println!("{total} rows; phase: postgres / sqlite = ratio");
    for ((name, a), (_, b)) in p.iter().zip(&s) {
        println!(
            "{name}: {:.1} ms / {:.1} ms = {:.2}x",
            a.as_secs_f64() * 1e3,
            b.as_secs_f64() * 1e3,
            a.as_secs_f64() / b.as_secs_f64()
        );
    }
}
