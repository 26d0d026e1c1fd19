//! `am serve` against `am exec` (issue 45's speed targets):
//!
//! - `serve/recall_http` and `serve/recall_pipe`: one `reconstruct` over
//!   HTTP on loopback (a kept-alive connection) and one over the exec pipe,
//!   each on its own copy of the same home (1,000 formed records, no
//!   embedder: what differs is the transport, not the recall). Target: HTTP
//!   ≤ the pipe + 0.3 ms (`cargo xtask bench` prints the difference).
//! - `serve/sse_10_subscribers`: 10 clients read the replay stream (enriched)
//!   at once, each 1,000 envelopes from a cursor, as followers catching up;
//!   one iteration ends when all 10 have every envelope. Throughput in
//!   envelopes per second each subscriber receives; target ≥ 1,000/s. (The
//!   write side is not in it: formation speed is the `formation` bench's.)
//!
//! The servers are the release `am` binary as child processes.
//! `cargo bench -p am-cli --bench serve`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

const AM: &str = env!("CARGO_BIN_EXE_am");
const RECORDS: usize = 1_000;
const SUBSCRIBERS: usize = 10;
const ENVELOPES: u64 = 1_000;

fn records(n: usize, from: usize) -> Vec<Value> {
    (from..from + n)
        .map(|k| {
            json!({"kind": "episode", "title": format!("Harbor note {k}"),
                   "digest": format!("Boats at the harbor, tide {} and wind {}: entry {k}.", k % 7, k % 5)})
        })
        .collect()
}

/// A running `am exec` session: one line in, one line out.
struct Pipe {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Pipe {
    fn open(home: &Path) -> Pipe {
        let mut child = Command::new(AM)
            .args(["--embedder", "none", "exec", "--home"])
            .arg(home)
            .arg("-")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("am exec starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Pipe {
            child,
            stdin,
            stdout,
            line: String::new(),
        }
    }

    fn call(&mut self, line: &str) -> &str {
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
        self.line.clear();
        self.stdout.read_line(&mut self.line).unwrap();
        assert!(self.line.contains("\"ok\""), "{}", self.line);
        &self.line
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Serve {
    child: Child,
    base: String,
}

impl Serve {
    fn open(home: &Path) -> Serve {
        let mut child = Command::new(AM)
            .args([
                "--embedder",
                "none",
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--home",
            ])
            .arg(home)
            .stdout(Stdio::piped())
            .spawn()
            .expect("am serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line
            .trim()
            .strip_prefix("am serve: listening on ")
            .expect("the address line")
            .to_owned();
        Serve { child, base }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn recall_args() -> Value {
    json!({"stimulus": {"cue_text": "boats at the harbor tide"}, "scopes": [["life", "me"]]})
}

fn recall(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let pipe_home = dir.path().join("pipe.sqlite3");
    let http_home = dir.path().join("http.sqlite3");
    let fill = |b: usize| {
        json!({"records": records(100, b * 100), "scope": "life", "owner_id": "me",
               "idempotency_key": format!("b{b}")})
    };
    let mut g = c.benchmark_group("serve");
    // Each home is filled through its own transport with the same batches
    // (a copied SQLite file would leave its write-ahead log behind).
    let pipe_seq = {
        let mut p = Pipe::open(&pipe_home);
        for b in 0..RECORDS / 100 {
            let mut line = fill(b);
            line["op"] = json!("remember_many");
            p.call(&line.to_string());
        }
        let seq: Value = serde_json::from_str(p.call("{\"op\": \"current_seq\"}")).unwrap();
        let mut line = recall_args();
        line["op"] = json!("reconstruct");
        let line = line.to_string();
        g.bench_function("recall_pipe", |b| b.iter(|| p.call(&line).len()));
        seq["ok"].as_i64().unwrap()
    };
    {
        let s = Serve::open(&http_home);
        let client = reqwest::blocking::Client::new();
        let post = |op: &str, body: String| {
            let r = client
                .post(format!("{}/v1/http/ops/{op}", s.base))
                .body(body)
                .send()
                .unwrap();
            assert_eq!(r.status().as_u16(), 200);
            r.bytes().unwrap()
        };
        for b in 0..RECORDS / 100 {
            post("remember_many", fill(b).to_string());
        }
        let seq: Value = serde_json::from_slice(&post("current_seq", "{}".to_owned())).unwrap();
        assert_eq!(
            seq["ok"].as_i64().unwrap(),
            pipe_seq,
            "both homes hold the same journal before their recalls"
        );
        let body = recall_args().to_string();
        g.bench_function("recall_http", |b| {
            b.iter(|| post("reconstruct", body.clone()).len());
        });
    }
    g.finish();
}

/// Read the SSE stream at `url` to its end: the number of envelopes.
fn drain(client: &reqwest::blocking::Client, url: &str) -> u64 {
    let r = client.get(url).send().unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let mut n = 0;
    for line in BufReader::new(r).lines() {
        if line.unwrap().starts_with("id: ") {
            n += 1;
        }
    }
    n
}

fn sse(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("sse.sqlite3");
    let s = Serve::open(&home);
    let client = reqwest::blocking::Client::new();
    let call = |op: &str, args: &Value| -> Value {
        let r = client
            .post(format!("{}/v1/sse/ops/{op}", s.base))
            .body(args.to_string())
            .send()
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        r.json::<Value>().unwrap()["ok"].clone()
    };
    let mut batch = 0usize;
    while call("current_seq", &json!({})).as_i64().unwrap() < ENVELOPES as i64 + 10 {
        batch += 1;
        call(
            "remember_many",
            &json!({"records": records(100, batch * 100), "scope": "life", "owner_id": "me",
                    "idempotency_key": format!("s{batch}")}),
        );
    }
    let hw = call("current_seq", &json!({})).as_i64().unwrap();
    let url = format!(
        "{}/v1/sse/replay?since_seq={}&enrich=true&follow=false",
        s.base,
        hw - ENVELOPES as i64
    );
    let clients: Vec<reqwest::blocking::Client> = (0..SUBSCRIBERS)
        .map(|_| reqwest::blocking::Client::new())
        .collect();
    let mut g = c.benchmark_group("serve");
    g.throughput(Throughput::Elements(ENVELOPES));
    g.sample_size(10);
    g.bench_function("sse_10_subscribers", |b| {
        b.iter(|| {
            std::thread::scope(|scope| {
                let readers: Vec<_> = clients
                    .iter()
                    .map(|c| scope.spawn(|| drain(c, &url)))
                    .collect();
                for r in readers {
                    assert_eq!(r.join().unwrap(), ENVELOPES);
                }
            });
        });
    });
    g.finish();
}

criterion_group!(benches, recall, sse);
criterion_main!(benches);
