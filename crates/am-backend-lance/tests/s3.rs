//! The LanceDB connector on object storage (issue 23 §7, feature
//! `object-store`): against a real S3-protocol server on 127.0.0.1, `moto` in
//! server mode, started here and stopped at the end.
//!
//! - The conformance groups the connector declares (`stores`, `vectors` for
//!   `LanceDBTripleStore`, `graph` for the LanceDB graph connector) run on
//!   `s3://` tables, each check on a fresh table of its own, exactly as
//!   `tests/conformance.rs` and `tests/graph_conformance.rs` run them on local
//!   directories (the graph's journal stays a local SQLite file);
//!   `s3::the_same_checks_run_as_on_a_local_directory` pins that the s3 store
//!   declares the capabilities that select the same checks as a local one.
//! - `s3::the_server_honours_conditional_writes` probes the server itself: a
//!   second `PUT` of one key with `If-None-Match: *` must answer 412 and leave
//!   the first object.
//! - `s3::two_writer_processes_lose_no_commit`: two processes (this binary run
//!   with `--writer`) add single rows to ONE `s3://` table at the same time;
//!   every acknowledged `add` is then present (Lance's put-if-absent commit of
//!   the next manifest, the loser rebasing and retrying). If the probe found a
//!   server that ignores conditional writes the trial says so and reports what
//!   was lost instead of failing (docs/stores.md keeps the warning).
//!
//! Needs `AM_MOTO_PYTHON`: a python with `moto[server]` installed (`cargo
//! xtask test` creates the venv under `~/.cache/abstractmemory-rs/moto-venv`
//! and sets it): `AM_MOTO_PYTHON=... cargo test -p am-backend-lance --features
//! object-store --test s3`.

use am_backend_lance::graph::LanceGraphBackend;
use am_backend_lance::{LanceDBTripleStore, LanceStoreOptions};
use am_backend_sqlite::SqliteHome;
use am_backend_sqlite::journal::SQLiteJournal;
use am_conformance::graph::{GraphFactory, OpenGraph};
use am_conformance::{HashEmbedder, StoreFactory};
use am_graph::graph::MemoryGraph;
use am_graph::registry::GraphJournal;
use am_triples::{
    Capabilities, EmbeddingPin, TextEmbedder, TripleAssertion, TripleQuery, TripleStore,
};
use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const BUCKET: &str = "am-conformance";
/// Rows each writer process adds, one `add` (one Lance commit) each.
const WRITER_ADDS: usize = 25;

/// Creates the bucket and probes conditional writes with the server's own
/// client; prints `{"conditional": bool, "moto": version}`.
const PROBE_PY: &str = r#"
import json, sys, boto3, moto
from botocore.exceptions import ClientError
s3 = boto3.client("s3", endpoint_url=sys.argv[1], aws_access_key_id="test",
                  aws_secret_access_key="test", region_name="us-east-1")
s3.create_bucket(Bucket=sys.argv[2])
s3.put_object(Bucket=sys.argv[2], Key="probe/once", Body=b"first", IfNoneMatch="*")
try:
    s3.put_object(Bucket=sys.argv[2], Key="probe/once", Body=b"second", IfNoneMatch="*")
    refused = None
except ClientError as e:
    refused = e.response["ResponseMetadata"]["HTTPStatusCode"]
body = s3.get_object(Bucket=sys.argv[2], Key="probe/once")["Body"].read()
print(json.dumps({"conditional": refused == 412 and body == b"first",
                  "status": refused, "moto": moto.__version__}))
"#;

// ------------------------------------------------------------ the server

/// The moto server child; killed when dropped.
struct Moto {
    child: Child,
    endpoint: String,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn moto_python() -> String {
    std::env::var("AM_MOTO_PYTHON").unwrap_or_else(|_| {
        panic!(
            "AM_MOTO_PYTHON is not set: this test needs the path of a python with moto[server] \
             installed (`cargo xtask test` creates ~/.cache/abstractmemory-rs/moto-venv and sets \
             it; e.g. AM_MOTO_PYTHON=~/.cache/abstractmemory-rs/moto-venv/bin/python cargo test \
             -p am-backend-lance --features object-store --test s3)"
        )
    })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

/// Start `python -m moto.server` on a free port of 127.0.0.1 and wait until it
/// accepts connections.
fn start_moto(python: &str) -> Moto {
    for _attempt in 0..3 {
        let port = free_port();
        let child = Command::new(python)
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run AM_MOTO_PYTHON={python}: {e}"));
        let mut moto = Moto {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if let Ok(Some(_)) = moto.child.try_wait() {
                break; // the port was taken meanwhile: another one
            }
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return moto;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        drop(moto);
    }
    panic!("moto.server did not start on 127.0.0.1")
}

/// What the probe found.
#[derive(Debug, Clone)]
struct Probe {
    conditional: bool,
    status: serde_json::Value,
    version: String,
}

fn probe(python: &str, endpoint: &str) -> Probe {
    let out = Command::new(python)
        .args(["-c", PROBE_PY, endpoint, BUCKET])
        .output()
        .expect("run the probe");
    assert!(
        out.status.success(),
        "the bucket / conditional-write probe failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the probe's JSON");
    Probe {
        conditional: v["conditional"] == true,
        status: v["status"].clone(),
        version: v["moto"].as_str().unwrap_or_default().to_owned(),
    }
}

/// The object-store options that reach the server: static test credentials,
/// the endpoint, plain HTTP.
fn storage_options(endpoint: &str) -> Vec<(String, String)> {
    [
        ("aws_access_key_id", "test"),
        ("aws_secret_access_key", "test"),
        ("aws_region", "us-east-1"),
        ("aws_endpoint", endpoint),
        ("aws_allow_http", "true"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

fn open_s3(
    endpoint: &str,
    uri: &str,
    embedder: Option<Arc<dyn TextEmbedder>>,
    embedding_pin: Option<EmbeddingPin>,
) -> am_triples::Result<LanceDBTripleStore> {
    LanceDBTripleStore::open(
        uri,
        embedder,
        LanceStoreOptions {
            embedding_pin,
            storage_options: storage_options(endpoint),
            ..LanceStoreOptions::default()
        },
    )
}

// ------------------------------------------------------------ factories

/// Every store is a new table under its own prefix of the bucket.
struct S3Stores {
    endpoint: String,
    next: AtomicUsize,
    /// `--list` starts no server: the capabilities that choose the checks are
    /// then read off the same connector on a local directory.
    listing: bool,
}

impl S3Stores {
    fn uri(&self, what: &str) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        format!("s3://{BUCKET}/{what}-{n}/kg")
    }
}

impl StoreFactory for S3Stores {
    fn capabilities(&self) -> Capabilities {
        let embedder: Arc<dyn TextEmbedder> = Arc::new(HashEmbedder::new(8, "conformance-probe"));
        if self.listing {
            let dir = tempfile::tempdir().expect("a temporary directory");
            let uri = dir.path().join("kg");
            return LanceDBTripleStore::open(
                &uri.to_string_lossy(),
                Some(embedder),
                LanceStoreOptions::default(),
            )
            .map(|s| s.capabilities())
            .unwrap_or_default();
        }
        self.open(Some(embedder))
            .map(|s| s.capabilities())
            .unwrap_or_default()
    }

    fn open(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        Ok(Box::new(open_s3(
            &self.endpoint,
            &self.uri("store"),
            embedder,
            None,
        )?))
    }

    fn open_with_pin(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
        pin: EmbeddingPin,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        Ok(Box::new(open_s3(
            &self.endpoint,
            &self.uri("pinned"),
            embedder,
            Some(pin),
        )?))
    }
}

/// Every graph is a fresh mind: its tables under a new prefix of the bucket,
/// its journal a SQLite file in a temporary directory.
struct S3Graphs(S3Stores);

type Handles = (
    Arc<LanceDBTripleStore>,
    Arc<SQLiteJournal>,
    tempfile::TempDir,
);

fn storage(e: impl std::fmt::Display) -> am_graph::Error {
    am_graph::Error::storage(e.to_string())
}

impl GraphFactory for S3Graphs {
    fn open(&self) -> am_graph::Result<OpenGraph> {
        let dir = tempfile::tempdir().map_err(storage)?;
        let store =
            Arc::new(open_s3(&self.0.endpoint, &self.0.uri("mind"), None, None).map_err(storage)?);
        let home = SqliteHome::open(dir.path().join("journal.sqlite3")).map_err(storage)?;
        let journal = Arc::new(SQLiteJournal::open(&home).map_err(storage)?);
        let graph = am_backend_lance::graph::open_graph(
            Arc::clone(&store),
            Some(GraphJournal::new(Arc::clone(&journal))),
        )?;
        Ok(OpenGraph {
            graph,
            store: store.clone(),
            journal: journal.clone(),
            guard: Box::new((store, journal, dir)),
        })
    }

    fn reopen(&self, g: &OpenGraph) -> am_graph::Result<MemoryGraph> {
        let (store, journal, _) = g
            .guard
            .downcast_ref::<Handles>()
            .ok_or_else(|| am_graph::Error::invalid("not a graph this factory opened"))?;
        am_backend_lance::graph::open_graph(
            Arc::clone(store),
            Some(GraphJournal::new(Arc::clone(journal))),
        )
    }
}

// ------------------------------------------------------------ two writers

fn row(tag: &str, i: usize) -> TripleAssertion {
    TripleAssertion::new(
        &format!("{tag}-writer"),
        "wrote",
        &format!("row {i} of {tag}"),
    )
    .with_scope("s3")
    .with_owner("w")
    .with_observed_at("2026-03-01T12:00:00.000000+00:00")
    .with_id(&format!("{tag}-{i}"))
}

/// The writer process: open the table, say `ready`, wait for a line on stdin,
/// then add `n` single rows, printing `ack I MICROS` (the Unix time of the
/// answer) after each acknowledged one and `err I MESSAGE` for a refused one.
fn writer(endpoint: &str, uri: &str, tag: &str, n: usize) {
    let store = open_s3(endpoint, uri, None, None).expect("the writer opens the table");
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready").unwrap();
    out.flush().unwrap();
    let mut go = String::new();
    std::io::stdin().read_line(&mut go).unwrap();
    for i in 0..n {
        match store.add(&[row(tag, i)]) {
            Ok(_) => writeln!(out, "ack {i} {}", unix_micros()).unwrap(),
            Err(e) => writeln!(out, "err {i} {}", e.to_string().replace('\n', " ")).unwrap(),
        }
        out.flush().unwrap();
    }
}

fn unix_micros() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros())
        .unwrap_or_default()
}

fn two_writers(endpoint: &str, probe: &Probe) -> Result<(), Failed> {
    let uri = format!("s3://{BUCKET}/two-writers/kg");
    // The table exists before the writers race (a create is not an append).
    let seed = open_s3(endpoint, &uri, None, None)?;
    seed.add(&[row("seed", 0)])?;
    let exe = std::env::current_exe()?;
    let mut children = Vec::new();
    for tag in ["a", "b"] {
        let mut child = Command::new(&exe)
            .args(["--writer", endpoint, &uri, tag, &WRITER_ADDS.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let mut lines = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
        let first = lines.next().transpose()?.unwrap_or_default();
        if first != "ready" {
            return Err(format!("writer {tag} did not get ready: {first:?}").into());
        }
        children.push((tag, child, lines));
    }
    // Both start at once.
    for (_, child, _) in &mut children {
        writeln!(child.stdin.as_mut().ok_or("no stdin")?, "go")?;
    }
    let mut acked = BTreeSet::new();
    let mut errors = Vec::new();
    // Each writer's first and last acknowledgement (Unix micros).
    let mut windows: Vec<(u128, u128)> = Vec::new();
    for (tag, mut child, lines) in children {
        let mut window: Option<(u128, u128)> = None;
        for line in lines {
            let line = line?;
            if let Some(rest) = line.strip_prefix("ack ") {
                let mut words = rest.split_whitespace();
                let i = words.next().unwrap_or_default();
                let at: u128 = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .unwrap_or_default();
                acked.insert(format!("{tag}-{i}"));
                window = Some(window.map_or((at, at), |(a, b)| (a.min(at), b.max(at))));
            } else {
                errors.push(format!("{tag}: {line}"));
            }
        }
        let status = child.wait()?;
        if !status.success() {
            return Err(format!("writer {tag} exited {status}").into());
        }
        windows.extend(window);
    }
    // The two writers committed at the same time (else nothing raced).
    let overlap_ms = match windows[..] {
        [(a0, a1), (b0, b1)] => a1.min(b1).saturating_sub(a0.max(b0)) / 1000,
        _ => 0,
    };
    let reader = open_s3(endpoint, &uri, None, None)?;
    let rows = reader.query(&TripleQuery {
        scope: Some("s3".to_owned()),
        limit: 0,
        ..TripleQuery::default()
    })?;
    let present: BTreeSet<String> = rows.iter().filter_map(|r| r.assertion_id.clone()).collect();
    let lost: Vec<&String> = acked.difference(&present).collect();
    eprintln!(
        "two writers on {uri}: {} adds, {} acknowledged, {} refused, {} rows present, {} \
         acknowledged adds lost, the writers' commits overlapping for {overlap_ms} ms (moto {}, \
         conditional writes honoured: {})",
        2 * WRITER_ADDS,
        acked.len(),
        errors.len(),
        rows.len(),
        lost.len(),
        probe.version,
        probe.conditional
    );
    if !probe.conditional {
        eprintln!(
            "the server ignores conditional writes: Lance's commit is a plain overwrite there, \
             so lost commits are the documented hazard (docs/stores.md), not a failure here"
        );
        return Ok(());
    }
    if !lost.is_empty() {
        return Err(format!("acknowledged adds lost: {lost:?}").into());
    }
    if !errors.is_empty() {
        return Err(format!("adds refused under contention: {errors:?}").into());
    }
    if overlap_ms == 0 {
        return Err("the two writers' commits did not overlap in time: nothing raced".into());
    }
    if rows.len() != 2 * WRITER_ADDS + 1 {
        return Err(format!("{} rows, expected {}", rows.len(), 2 * WRITER_ADDS + 1).into());
    }
    Ok(())
}

// ------------------------------------------------------------ main

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("--writer") {
        writer(&argv[2], &argv[3], &argv[4], argv[5].parse().unwrap());
        return;
    }
    let args = Arguments::from_args();
    // Listing starts no server.
    let (moto, endpoint, found) = if args.list {
        (None, "http://127.0.0.1:9".to_owned(), None)
    } else {
        let python = moto_python();
        let moto = start_moto(&python);
        let endpoint = moto.endpoint.clone();
        let found = probe(&python, &endpoint);
        eprintln!(
            "s3: moto {} on {endpoint}, bucket {BUCKET}; conditional writes honoured: {} (second \
             If-None-Match PUT answered {})",
            found.version, found.conditional, found.status
        );
        (Some(moto), endpoint, Some(found))
    };
    let stores = Arc::new(S3Stores {
        endpoint: endpoint.clone(),
        next: AtomicUsize::new(0),
        listing: args.list,
    });
    // The same checks as `tests/conformance.rs` selects on a local directory:
    // the s3 store declares the capabilities a local one does.
    let names = |t: &[Trial]| t.iter().map(|t| t.name().to_owned()).collect::<Vec<_>>();
    let local = names(&am_conformance::run_all(
        "lance-s3",
        Arc::new(S3Stores {
            endpoint: endpoint.clone(),
            next: AtomicUsize::new(0),
            listing: true,
        }),
    ));
    let mut trials = am_conformance::run_all("lance-s3", stores);
    let remote = names(&trials);
    let caps = LanceGraphBackend::CAPABILITIES;
    eprintln!(
        "lancedb graph connector declares: cross_process_writers = {}, atomic_commit = {}; no \
         graph check requires either, so none is skipped",
        caps.cross_process_writers, caps.atomic_commit
    );
    trials.extend(am_conformance::graph::run_all(
        "lance-s3",
        Arc::new(S3Graphs(S3Stores {
            endpoint: endpoint.clone(),
            next: AtomicUsize::new(0),
            listing: args.list,
        })),
    ));
    trials.push(
        Trial::test(
            "s3::the_same_checks_run_as_on_a_local_directory",
            move || {
                if remote == local {
                    Ok(())
                } else {
                    Err(format!("on s3: {remote:?}\non a local directory: {local:?}").into())
                }
            },
        )
        .with_kind("lance-s3"),
    );
    let p = found.clone();
    trials.push(
        Trial::test("s3::the_server_honours_conditional_writes", move || {
            let p = p.ok_or("no probe")?;
            if p.conditional {
                Ok(())
            } else {
                eprintln!(
                    "moto {} ignores If-None-Match on PUT (second PUT answered {}): two writers \
                     can lose commits there",
                    p.version, p.status
                );
                Ok(())
            }
        })
        .with_kind("lance-s3"),
    );
    let e = endpoint.clone();
    trials.push(
        Trial::test("s3::two_writer_processes_lose_no_commit", move || {
            two_writers(&e, found.as_ref().ok_or("no probe")?)
        })
        .with_kind("lance-s3"),
    );
    let conclusion = libtest_mimic::run(&args, trials);
    drop(moto);
    conclusion.exit()
}
