//! Where the time of the store bench's "scope+owner latest 50" read goes: the
//! same read through `SQLiteTripleStore::query`, then the same SQL stepped with
//! rusqlite alone (every column borrowed with `get_ref`, nothing decoded), one
//! column with the table seek, and the index walk alone. The gap between the
//! first two is this crate's decoding (owned `TripleAssertion`s); the second is
//! the floor of any decoder built on rusqlite's safe API.
//!
//! `cargo run --release -p am-backend-sqlite --example read_floor [HOME]`: builds
//! the bench's 50,000-row home (384-d vectors, `am_conformance::workload`) at
//! `HOME` (default: a temporary directory) unless it exists, then prints the
//! mean of each read over 20,000 runs, three rounds.

#![allow(clippy::print_stdout, reason = "a measurement tool prints its figures")]

use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_conformance::workload::{ROWS, embedder_for, fill, latest_query};
use am_triples::TripleStore;
use rusqlite::types::ValueRef;
use std::time::Instant;

const RUNS: u32 = 20_000;
const FILTER: &str = "FROM triples WHERE scope = ?1 AND owner_id = ?2 \
                      ORDER BY observed_at DESC, rowid DESC LIMIT 50";

fn mean_us(f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..RUNS {
        f();
    }
    t.elapsed().as_secs_f64() * 1e6 / f64::from(RUNS)
}

/// Step `sql` (bound to the bench's scope and owner) and borrow every column of
/// every row; returns the bytes seen, so nothing is optimized away.
fn step_all(conn: &rusqlite::Connection, sql: &str) -> usize {
    let mut stmt = conn.prepare_cached(sql).expect("prepare");
    let mut rows = stmt.query(["session", "owner4"]).expect("query");
    let mut seen = 0;
    while let Some(r) = rows.next().expect("step") {
        for i in 0..r.as_ref().column_count() {
            match r.get_ref(i).expect("column") {
                ValueRef::Text(t) | ValueRef::Blob(t) => seen += t.len(),
                _ => seen += 1,
            }
        }
    }
    seen
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = std::env::args_os()
        .nth(1)
        .map_or_else(|| dir.path().join("home.sqlite3"), std::path::PathBuf::from);
    if !path.exists() {
        let store = SQLiteTripleStore::open(
            &path,
            Some(embedder_for(0..ROWS)),
            SqliteStoreOptions::default(),
        )
        .expect("open");
        fill(&store);
    }
    let store = SQLiteTripleStore::open(&path, None, SqliteStoreOptions::default()).expect("open");
    let latest = latest_query();
    println!("plan: {:?}", store.query_plan(&latest).expect("plan"));
    let conn = rusqlite::Connection::open(&path).expect("open");
    let all = format!(
        "SELECT {} {FILTER}",
        am_backend_sqlite::store::codec::ASSERTION_COLUMNS_WITHOUT_ROWID
    );
    let one = format!("SELECT object {FILTER}");
    let index_only = format!("SELECT rowid {FILTER}");
    for round in 1..=3 {
        let q = mean_us(&mut || {
            std::hint::black_box(store.query(&latest).expect("query"));
        });
        let a = mean_us(&mut || {
            std::hint::black_box(step_all(&conn, &all));
        });
        let o = mean_us(&mut || {
            std::hint::black_box(step_all(&conn, &one));
        });
        let i = mean_us(&mut || {
            std::hint::black_box(step_all(&conn, &index_only));
        });
        println!(
            "round {round}: store.query {q:.1} us | rusqlite, 12 columns borrowed {a:.1} us | \
             1 column {o:.1} us | index only {i:.1} us"
        );
    }
}
