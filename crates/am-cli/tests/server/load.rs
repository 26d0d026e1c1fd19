//! Many clients on one home: 16 × 50 formations and recalls, 0 lost, 0
//! duplicated, latencies printed. `AM_SERVER_LOAD_EACH` sets the count per
//! client (`cargo xtask soak` runs 500).

use crate::{Server, remember};
use serde_json::json;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

#[test]
fn sixteen_clients_times_fifty_formations_and_recalls_lose_and_duplicate_nothing() {
    const CLIENTS: usize = 16;
    let each: usize = std::env::var("AM_SERVER_LOAD_EACH")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let dir = tempfile::tempdir().unwrap();
    let s = Server::home(&dir.path().join("load.sqlite3"));
    let base = s.base.clone();
    let t0 = Instant::now();
    let workers: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let base = base.clone();
            std::thread::spawn(move || {
                let client = reqwest::blocking::Client::new();
                let mut ids = Vec::new();
                let mut writes = Vec::new();
                let mut reads = Vec::new();
                for i in 0..each {
                    let t = Instant::now();
                    let r = client
                        .post(format!("{base}/v1/load/ops/remember"))
                        .body(remember(&format!("Client {c} note {i}"), &format!("c{c}-{i}")).to_string())
                        .send()
                        .unwrap();
                    assert_eq!(r.status().as_u16(), 200);
                    let v: serde_json::Value = r.json().unwrap();
                    ids.push(v["ok"].as_str().unwrap().to_owned());
                    writes.push(t.elapsed());
                    let t = Instant::now();
                    let r = client
                        .post(format!("{base}/v1/load/ops/reconstruct"))
                        .body(
                            json!({"stimulus": {"cue_text": format!("client {c} note")}, "scopes": [["life", "me"]]})
                                .to_string(),
                        )
                        .send()
                        .unwrap();
                    assert_eq!(r.status().as_u16(), 200);
                    reads.push(t.elapsed());
                }
                (ids, writes, reads)
            })
        })
        .collect();
    let mut ids = Vec::new();
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    for w in workers {
        let (i, wr, rd) = w.join().unwrap();
        ids.extend(i);
        writes.extend(wr);
        reads.extend(rd);
    }
    let wall = t0.elapsed();
    let distinct: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(ids.len(), CLIENTS * each);
    assert_eq!(distinct.len(), CLIENTS * each, "0 duplicated ids");
    // What the home holds: every formed record once.
    let (st, v) = s.op(
        "load",
        "recent_records",
        &json!({"scopes": [["life", "me"]], "since": "1970-01-01T00:00:00+00:00", "limit": 100000}),
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["ok"]["truncated"], false, "{v}");
    let held: Vec<String> = v["ok"]["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["graph_id"].as_str().unwrap().to_owned())
        .collect();
    let held_set: BTreeSet<&String> = held.iter().collect();
    assert_eq!(held.len(), CLIENTS * each, "0 lost, 0 duplicated rows");
    assert_eq!(
        held_set, distinct,
        "the home holds exactly the records the clients were answered"
    );
    writes.sort();
    reads.sort();
    println!(
        "server load: {CLIENTS} clients x {each} (remember + reconstruct) in {:.2} s; remember p50 {:.2} ms p99 {:.2} ms; \
         reconstruct p50 {:.2} ms p99 {:.2} ms",
        wall.as_secs_f64(),
        percentile(&writes, 0.5).as_secs_f64() * 1e3,
        percentile(&writes, 0.99).as_secs_f64() * 1e3,
        percentile(&reads, 0.5).as_secs_f64() * 1e3,
        percentile(&reads, 0.99).as_secs_f64() * 1e3,
    );
}
