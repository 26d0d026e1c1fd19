//! The cost of keyword discovery alone on a LoCoMo home: for every question of
//! the dev split, the `keyword_positions` read `reconstruct` makes with
//! `keyword_discovery = true` (the question's recall tokens, scope `life`, the
//! sample's owner, its rowid range, limit 64 = `RecallBudget::max_candidates`),
//! timed per question through the store (the in-process mirror of the FTS5
//! index) and as the FTS5 query itself on a second connection; prints each
//! path's median and p95, checks that both answered the same rowids, and the
//! median number of rows the MATCH scores (BM25 is computed for every match
//! before the limit).
//!
//! `am ingest --home H --format locomo FILE`, then
//! `cargo run --release -p am-backend-sqlite --example keyword_floor -- H FILE`.

#![allow(clippy::print_stdout, reason = "a measurement tool prints its figures")]

use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_triples::ReadAccelerator;
use am_triples::text::{RECALL_MIN_TOKEN_LEN, tokenize};
use std::time::Instant;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "an index into a short list"
    )]
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

/// The discovery SQL of the store, run directly.
fn fts5(
    conn: &rusqlite::Connection,
    tokens: &[String],
    owner: &str,
    range: (i64, i64),
) -> Vec<i64> {
    let matcher = tokens
        .iter()
        .map(|t| format!("\"{}\"", t.trim().replace('"', "")))
        .collect::<Vec<_>>()
        .join(" OR ");
    let mut stmt = conn
        .prepare_cached(
            "SELECT t.rowid FROM triples_fts f CROSS JOIN triples t ON t.rowid = f.rowid \
             WHERE triples_fts MATCH ?1 AND f.rowid >= ?2 AND f.rowid <= ?3 \
             AND t.scope = 'life' AND t.owner_id = ?4 \
             ORDER BY bm25(triples_fts), t.rowid DESC LIMIT 64",
        )
        .expect("prepare");
    stmt.query_map(rusqlite::params![matcher, range.0, range.1, owner], |r| {
        r.get(0)
    })
    .expect("query")
    .collect::<rusqlite::Result<Vec<i64>>>()
    .expect("rows")
}

fn main() {
    let mut args = std::env::args_os().skip(1);
    let (Some(home), Some(data)) = (args.next(), args.next()) else {
        eprintln!(
            "usage: keyword_floor HOME LOCOMO_JSON (a home written by `am ingest --format locomo`)"
        );
        std::process::exit(2);
    };
    let store = SQLiteTripleStore::open(&home, None, SqliteStoreOptions::default()).expect("open");
    let conn = rusqlite::Connection::open(&home).expect("open");
    let samples: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&data).expect("read data")).expect("json");
    // The first discovery builds the store's keyword mirror.
    let t = Instant::now();
    store
        .keyword_positions(&["what".to_owned()], "life", None, 64, (0, i64::MAX))
        .expect("keyword_positions");
    println!(
        "first discovery (builds the keyword mirror, {} KiB): {:.1} ms",
        store.keyword_cache_bytes() / 1024,
        t.elapsed().as_secs_f64() * 1e3
    );
    let mut times = Vec::new();
    let mut sql_times = Vec::new();
    let mut matches = Vec::new();
    for round in 0..2 {
        times.clear();
        sql_times.clear();
        matches.clear();
        for s in samples.as_array().expect("a list of samples") {
            let owner = s["sample_id"].as_str().expect("sample_id");
            let range: (i64, i64) = conn
                .query_row(
                    "SELECT min(rowid), max(rowid) FROM triples WHERE scope = 'life' AND owner_id = ?1",
                    [owner],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .expect("range");
            for qa in s["qa"].as_array().expect("qa") {
                let question = match &qa["question"] {
                    serde_json::Value::String(q) => q.clone(),
                    other => other.to_string(),
                };
                let tokens = tokenize(&question, RECALL_MIN_TOKEN_LEN);
                if tokens.is_empty() {
                    continue;
                }
                let t = Instant::now();
                let found = store
                    .keyword_positions(&tokens, "life", Some(owner), 64, range)
                    .expect("keyword_positions");
                times.push(t.elapsed().as_secs_f64() * 1e3);
                let t = Instant::now();
                let by_sql = fts5(&conn, &tokens, owner, range);
                sql_times.push(t.elapsed().as_secs_f64() * 1e3);
                assert_eq!(found, Some(by_sql), "{question}");
                if round == 0 {
                    let all = store
                        .keyword_positions(&tokens, "life", Some(owner), usize::MAX >> 1, range)
                        .expect("keyword_positions")
                        .map_or(0, |v| v.len());
                    matches.push(all);
                }
            }
        }
        times.sort_by(f64::total_cmp);
        sql_times.sort_by(f64::total_cmp);
        println!(
            "round {}: {} questions, same rowids; discovery through the store ({}) median {:.3} ms, \
             p95 {:.3} ms; the FTS5 query median {:.3} ms, p95 {:.3} ms",
            round + 1,
            times.len(),
            store.keyword_engine(),
            percentile(&times, 0.5),
            percentile(&times, 0.95),
            percentile(&sql_times, 0.5),
            percentile(&sql_times, 0.95)
        );
        if round == 0 {
            matches.sort_unstable();
            println!(
                "rows each MATCH scores: median {}, p95 {}",
                matches[matches.len() / 2],
                matches[matches.len() * 95 / 100]
            );
        }
    }
}
