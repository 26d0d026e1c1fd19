//! Many writers, one home (issue 23 §4): several real processes write one
//! SQLite home at once while reader processes poll its change feeds.
//!
//! This file is its own helper. Run with `--writer K HOME N` it is writer K:
//! N mixed writes, in turn a formation (`remember_many`), a journaled recall
//! with its commit (`reconstruct` + `commit_selection`), a graph revision
//! (`apply_revision`) and a layer-1 `add`, printing `ack I OP MICROS` after
//! each acknowledged one and `fail I OP KIND MESSAGE` for any error (it goes
//! on, so every error is counted). Run with `--reader HOME STOP OUT` it polls
//! the store's change feed (`assertions_after`), the journal's replay
//! (`replay_records`) and the graph's change feed (`revisions`) until the
//! file STOP exists, then once more, checking on every page that positions
//! follow on from the last without a gap or repeat, and writes what it was
//! delivered to OUT. The parent then checks:
//!
//! - no writer saw an error (no "database is locked" surfaces: the home's
//!   busy timeout, `am_backend_sqlite::BUSY_TIMEOUT`, absorbs the contention);
//! - `PRAGMA integrity_check` is `ok`; every acknowledged write is there,
//!   whole (its rows, bindings, trace, events, snapshot or revision);
//! - the journal's seq axis, the triples' rowids and the revision log's seqs
//!   are gap-free;
//! - each reader was delivered every rowid, every journal seq and every
//!   revision exactly once, in order, and nothing else.
//!
//! `AM_MANY_WRITERS` (default 4) writers, `AM_MANY_WRITES` (default 40)
//! writes each, `AM_MANY_READERS` (default 2) readers. It prints writes/s and
//! the p50/p99 latency of each verb under contention; `cargo xtask soak`
//! runs it with 10,000 writes per writer.

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::MemoryJournal;
use am_system::RecordKind;
use am_system::{
    CommitSelection, MemoryRecordInput, MemorySystem, Reconstruct, RememberMany, Stimulus,
};
use am_triples::{TripleAssertion, TripleStore};
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const SCOPE: &str = "many";
const OWNER: &str = "w";
const OPS: [&str; 4] = ["remember_many", "recall+commit", "apply_revision", "add"];

// ---------------------------------------------------------------- helpers

struct Opened {
    store: Arc<SQLiteTripleStore>,
    journal: Arc<SQLiteJournal>,
    system: MemorySystem,
    graph: am_graph::MemoryGraph,
}

fn open(path: &Path) -> Opened {
    let home = SqliteHome::open(path).expect("open the home");
    let store = Arc::new(
        SQLiteTripleStore::with_home(&home, None, SqliteStoreOptions::default())
            .expect("open the store"),
    );
    let journal = Arc::new(SQLiteJournal::open(&home).expect("open the journal"));
    let memory_home =
        SqliteMemoryHome::new(store.clone(), journal.clone()).expect("open the memory home");
    let system = MemorySystem::over_home(Arc::new(memory_home));
    let graph = am_backend_sqlite::graph::open_graph(store.clone(), Some(journal.clone()))
        .expect("open the graph");
    Opened {
        store,
        journal,
        system,
        graph,
    }
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").unwrap();
    out.flush().unwrap();
}

fn records(k: usize, i: usize) -> Vec<MemoryRecordInput> {
    vec![
        MemoryRecordInput::new(
            RecordKind::Episode,
            &format!("Outage {k}-{i}"),
            &format!("Writer {k} saw the pool fail at step {i}."),
        ),
        MemoryRecordInput::new(
            RecordKind::Lesson,
            &format!("Lesson {k}-{i}"),
            "Restart the pool first.",
        )
        .with_edge("derived_from", "local:0"),
        MemoryRecordInput::new(
            RecordKind::Memory,
            &format!("Lunch {k}-{i}"),
            "Ada had soup for lunch.",
        ),
    ]
}

fn add_batch(k: usize, i: usize) -> Vec<TripleAssertion> {
    (0..4)
        .map(|j| {
            TripleAssertion::new(
                &format!("w{k}-s{i}"),
                "says",
                &format!("word{j} of batch {i} by writer {k}"),
            )
            .with_scope(SCOPE)
            .with_owner(OWNER)
            .with_id(&format!("w{k}-a{i}-{j}"))
        })
        .collect()
}

fn revision(k: usize, i: usize) -> am_graph::Revision {
    let ops: Vec<serde_json::Value> = (0..2)
        .map(|j| {
            serde_json::json!({"op": "assert", "payload": {
                "assertion_id": format!("w{k}-g{i}-{j}"), "subject": format!("ex:thing{k}-{i}"),
                "predicate": "schema:knows", "object": format!("ex:other{j}")}})
        })
        .collect();
    am_graph::Revision::from_dict(&serde_json::json!({
        "revision_id": format!("w{k}-rev-{i}"), "scope": SCOPE, "owner_id": OWNER,
        "cause": "ingest", "occurred_at": "2026-01-05T09:00:00Z", "ops": ops,
        "provenance": {"sources": [{"kind": "artifact", "artifact_id": format!("note-{k}-{i}")}],
                       "actor": "many-writers"}}))
    .expect("a valid revision")
}

fn writer(k: usize, path: &Path, n: usize) {
    let o = open(path);
    for i in 0..n {
        let op = i % OPS.len();
        let start = Instant::now();
        let done: Result<String, am_triples::Error> = match op {
            0 => o
                .system
                .remember_many(&RememberMany::new(
                    records(k, i),
                    SCOPE,
                    OWNER,
                    &format!("w{k}-rm-{i}"),
                ))
                .map(|w| w.value.join(",")),
            1 => {
                let tid = format!("w{k}-t{i}");
                o.system
                    .reconstruct(&Reconstruct {
                        trace_id: Some(tid.clone()),
                        ..Reconstruct::new(
                            Stimulus::new(&format!("pool outage lunch writer {k}")),
                            &[(SCOPE, OWNER)],
                        )
                    })
                    .and_then(|r| {
                        let used: Vec<_> = r.handles.iter().take(3).collect();
                        // A `selected` event of weight 8 per used record
                        // whose admission deposits (not stm, self, historical).
                        let deposits = used
                            .iter()
                            .filter(|h| {
                                let label = serde_json::to_value(h.admission).unwrap();
                                am_system::seam::label_deposits(label.as_str())
                            })
                            .count();
                        let ids: Vec<String> = used.iter().map(|h| h.record_id.clone()).collect();
                        o.system
                            .commit_selection(&CommitSelection::new(&tid, &ids))
                            .map(|_| deposits.to_string())
                    })
            }
            2 => o
                .graph
                .apply_revision(&revision(k, i), false)
                .map(|r| r.seq.to_string()),
            _ => o.store.add(&add_batch(k, i)).map(|ids| ids.join(",")),
        };
        let micros = start.elapsed().as_micros();
        match done {
            Ok(detail) => say(&format!("ack {i} {op} {micros} {detail}")),
            Err(e) => say(&format!(
                "fail {i} {op} {:?} {}",
                e.kind(),
                e.to_string().replace('\n', " ")
            )),
        }
    }
}

/// What one reader was delivered.
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct Delivered {
    rowids: Vec<i64>,
    seqs: Vec<i64>,
    revisions: Vec<String>,
    polls: usize,
    /// A page that did not follow on from the last one (a gap, a repeat, a
    /// reordering), or a read that failed.
    violations: Vec<String>,
}

fn poll(o: &Opened, d: &mut Delivered, cursor: &mut Option<String>) {
    d.polls += 1;
    loop {
        let after = d.rowids.last().copied().unwrap_or(0);
        match o.store.assertions_after(after, None, None, 500) {
            Ok(page) => {
                for (pos, _) in &page.rows {
                    let want = d.rowids.last().copied().unwrap_or(0) + 1;
                    if *pos != want {
                        d.violations
                            .push(format!("change feed: rowid {pos} after {}", want - 1));
                    }
                    d.rowids.push(*pos);
                }
                if page.rows.len() < 500 {
                    break;
                }
            }
            Err(e) => {
                d.violations.push(format!("assertions_after: {e}"));
                break;
            }
        }
    }
    let since = d.seqs.last().copied().unwrap_or(0);
    match o.journal.replay_records(since, None) {
        Ok(records) => {
            for r in records {
                let want = d.seqs.last().copied().unwrap_or(0) + 1;
                if r.seq() != want {
                    d.violations
                        .push(format!("journal: seq {} after {}", r.seq(), want - 1));
                }
                d.seqs.push(r.seq());
            }
        }
        Err(e) => d.violations.push(format!("replay_records: {e}")),
    }
    loop {
        match o.graph.revisions(cursor.as_deref(), 200) {
            Ok((page, next)) => {
                let more = page.len() == 200;
                d.revisions
                    .extend(page.into_iter().map(|r| r.revision_id().to_owned()));
                *cursor = Some(next);
                if !more {
                    break;
                }
            }
            Err(e) => {
                d.violations.push(format!("revisions: {e}"));
                break;
            }
        }
    }
}

fn reader(path: &Path, stop: &Path, out: &Path) {
    let o = open(path);
    let mut d = Delivered::default();
    let mut cursor = None;
    while !stop.exists() {
        poll(&o, &mut d, &mut cursor);
        std::thread::sleep(Duration::from_millis(2));
    }
    poll(&o, &mut d, &mut cursor);
    std::fs::write(out, serde_json::to_vec(&d).unwrap()).unwrap();
}

// ---------------------------------------------------------------- the parent

fn spawn(args: &[&str]) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn a helper")
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn count(c: &Connection, sql: &str, p: &[&dyn rusqlite::ToSql]) -> usize {
    c.query_row(sql, p, |r| r.get::<_, i64>(0)).unwrap() as usize
}

fn column(c: &Connection, sql: &str) -> Vec<rusqlite::types::Value> {
    let mut s = c.prepare(sql).unwrap();
    s.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// One acknowledged write, as the writer reported it.
struct Ack {
    writer: usize,
    i: usize,
    op: usize,
    micros: u64,
    detail: String,
}

/// The failures of an acknowledged write that is not all there.
fn check_ack(c: &Connection, a: &Ack) -> Vec<String> {
    let (k, i) = (a.writer, a.i);
    let mut bad = Vec::new();
    let mut need = |what: String, have: usize, want: usize| {
        if have != want {
            bad.push(format!(
                "writer {k} write {i} ({}): {what}: {have}, want {want}",
                OPS[a.op]
            ));
        }
    };
    match a.op {
        0 => {
            for id in a.detail.split(',') {
                need(
                    format!("rows of {id}"),
                    count(
                        c,
                        "SELECT MIN(COUNT(*), 1) FROM triples WHERE subject = ?1",
                        &[&id],
                    ),
                    1,
                );
                need(
                    format!("formation binding of {id}"),
                    count(
                        c,
                        "SELECT MIN(COUNT(*), 1) FROM memj_bindings WHERE record_id = ?1 OR \
                         record_id IN (SELECT assertion_id FROM triples WHERE subject = ?1)",
                        &[&id],
                    ),
                    1,
                );
            }
        }
        1 => {
            let t = format!("w{k}-t{i}");
            need(
                "trace".into(),
                count(
                    c,
                    "SELECT COUNT(*) FROM memj_traces WHERE trace_id = ?1",
                    &[&t],
                ),
                1,
            );
            need(
                "snapshot".into(),
                count(
                    c,
                    "SELECT COUNT(*) FROM memj_snapshots WHERE trace_id = ?1",
                    &[&t],
                ),
                1,
            );
            need(
                "selected events of weight 8".into(),
                count(
                    c,
                    "SELECT COUNT(*) FROM memj_events WHERE trace_id = ?1 AND kind = 'selected' \
                     AND weight = 8",
                    &[&t],
                ),
                a.detail.trim().parse().unwrap(),
            );
        }
        2 => {
            need(
                "revision".into(),
                count(
                    c,
                    "SELECT COUNT(*) FROM memg_revisions WHERE revision_id = ?1",
                    &[&format!("w{k}-rev-{i}")],
                ),
                1,
            );
            need(
                "asserted rows".into(),
                count(
                    c,
                    "SELECT COUNT(*) FROM triples WHERE assertion_id LIKE ?1",
                    &[&format!("w{k}-g{i}-%")],
                ),
                2,
            );
        }
        _ => need(
            "rows".into(),
            count(
                c,
                "SELECT COUNT(*) FROM triples WHERE subject = ?1",
                &[&format!("w{k}-s{i}")],
            ),
            4,
        ),
    }
    bad
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i] as f64 / 1000.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--writer") => {
            writer(
                args[2].parse().unwrap(),
                Path::new(&args[3]),
                args[4].parse().unwrap(),
            );
            return;
        }
        Some("--reader") => {
            reader(
                Path::new(&args[2]),
                Path::new(&args[3]),
                Path::new(&args[4]),
            );
            return;
        }
        _ => {}
    }
    if args.iter().any(|a| a == "--list") {
        println!("many_writers::one_home: test");
        return;
    }
    let writers = env_or("AM_MANY_WRITERS", 4);
    let writes = env_or("AM_MANY_WRITES", 40);
    let readers = env_or("AM_MANY_READERS", 2);
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("shared.sqlite3");
    // No starting home: the readers and writers all open (and so create) it
    // at once. Each writer's first write is a formation, so its recalls list
    // something.
    let stop = dir.path().join("stop");
    let home_arg = home.to_str().unwrap();
    let reader_outs: Vec<PathBuf> = (0..readers)
        .map(|r| dir.path().join(format!("reader-{r}.json")))
        .collect();
    let mut reader_children: Vec<Child> = reader_outs
        .iter()
        .map(|out| {
            spawn(&[
                "--reader",
                home_arg,
                stop.to_str().unwrap(),
                out.to_str().unwrap(),
            ])
        })
        .collect();
    let started = Instant::now();
    let writer_children: Vec<Child> = (0..writers)
        .map(|k| spawn(&["--writer", &k.to_string(), home_arg, &writes.to_string()]))
        .collect();
    let mut acks: Vec<Ack> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let collectors: Vec<_> = writer_children
        .into_iter()
        .enumerate()
        .map(|(k, mut child)| {
            std::thread::spawn(move || {
                let mut acks = Vec::new();
                let mut fails = Vec::new();
                for line in BufReader::new(child.stdout.take().unwrap()).lines() {
                    let line = line.unwrap();
                    let mut w = line.splitn(5, ' ');
                    match w.next() {
                        Some("ack") => {
                            let i = w.next().unwrap().parse().unwrap();
                            let op = w.next().unwrap().parse().unwrap();
                            let micros = w.next().unwrap().parse().unwrap();
                            let detail = w.next().unwrap_or("").to_owned();
                            acks.push(Ack {
                                writer: k,
                                i,
                                op,
                                micros,
                                detail,
                            });
                        }
                        Some("fail") => fails.push(format!("writer {k}: {line}")),
                        _ => {}
                    }
                }
                let status = child.wait().unwrap();
                if !status.success() {
                    let mut err = String::new();
                    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err)
                        .unwrap();
                    fails.push(format!("writer {k} exited {status}: {err}"));
                }
                (acks, fails)
            })
        })
        .collect();
    for c in collectors {
        let (a, f) = c.join().unwrap();
        acks.extend(a);
        failures.extend(f);
    }
    let wall = started.elapsed();
    std::fs::write(&stop, b"").unwrap();
    for child in &mut reader_children {
        let status = child.wait().unwrap();
        if !status.success() {
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            failures.push(format!("a reader exited {status}: {err}"));
        }
    }

    // What the home holds.
    let c = Connection::open(&home).unwrap();
    let ok: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    if ok != "ok" {
        failures.push(format!("integrity_check: {ok}"));
    }
    let mut lost = 0usize;
    for a in &acks {
        let bad = check_ack(&c, a);
        if !bad.is_empty() {
            lost += 1;
        }
        failures.extend(bad);
    }
    let rowids: Vec<i64> = column(&c, "SELECT rowid FROM triples ORDER BY rowid")
        .into_iter()
        .map(|v| match v {
            rusqlite::types::Value::Integer(i) => i,
            other => panic!("a rowid {other:?}"),
        })
        .collect();
    if rowids != (1..=rowids.len() as i64).collect::<Vec<_>>() {
        failures.push("the triples' rowids have a gap".into());
    }
    let high: i64 = c
        .query_row("SELECT value FROM memj_seq", [], |r| r.get(0))
        .unwrap();
    let mut seqs: Vec<i64> = Vec::new();
    for t in [
        "memj_events",
        "memj_bindings",
        "memj_closures",
        "memj_traces",
        "memj_snapshots",
        "memj_valence",
    ] {
        let has = count(
            &c,
            "SELECT COUNT(*) FROM sqlite_master WHERE name = ?1",
            &[&t],
        );
        if has == 0 {
            continue;
        }
        seqs.extend(
            column(&c, &format!("SELECT seq FROM {t}"))
                .into_iter()
                .map(|v| match v {
                    rusqlite::types::Value::Integer(i) => i,
                    other => panic!("a seq {other:?}"),
                }),
        );
    }
    seqs.sort_unstable();
    if seqs != (1..=high).collect::<Vec<_>>() {
        failures.push(format!(
            "journal seq axis: {} records under high-water {high}, not 1..={high} once each",
            seqs.len()
        ));
    }
    let revisions: Vec<String> = column(&c, "SELECT revision_id FROM memg_revisions ORDER BY seq")
        .into_iter()
        .map(|v| match v {
            rusqlite::types::Value::Text(t) => t,
            other => panic!("a revision id {other:?}"),
        })
        .collect();
    let mut polls = 0;
    for (r, out) in reader_outs.iter().enumerate() {
        let Ok(bytes) = std::fs::read(out) else {
            failures.push(format!("reader {r} wrote no report"));
            continue;
        };
        let d: Delivered = serde_json::from_slice(&bytes).unwrap();
        polls += d.polls;
        failures.extend(d.violations.iter().map(|v| format!("reader {r}: {v}")));
        if d.rowids != rowids {
            failures.push(format!(
                "reader {r}: the change feed delivered {} rowids, the home holds {}",
                d.rowids.len(),
                rowids.len()
            ));
        }
        if d.seqs != (1..=high).collect::<Vec<_>>() {
            failures.push(format!(
                "reader {r}: the journal replay delivered {} seqs, the home's mark is {high}",
                d.seqs.len()
            ));
        }
        if d.revisions != revisions {
            failures.push(format!(
                "reader {r}: the revision feed delivered {} revisions, the log holds {}",
                d.revisions.len(),
                revisions.len()
            ));
        }
    }

    // The figures. A recall+commit is two write transactions (the trace with
    // its listed events, then the commit).
    let transactions: usize = acks.iter().map(|a| if a.op == 1 { 2 } else { 1 }).sum();
    println!(
        "many writers: {writers} processes x {writes} writes, {readers} readers ({polls} polls), {:.1} s",
        wall.as_secs_f64()
    );
    println!(
        "  acknowledged {} of {} writes ({transactions} write transactions): {:.0} writes/s, {:.0} transactions/s",
        acks.len(),
        writers * writes,
        acks.len() as f64 / wall.as_secs_f64(),
        transactions as f64 / wall.as_secs_f64()
    );
    let mut by_op: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
    for a in &acks {
        by_op.entry(a.op).or_default().push(a.micros);
    }
    let mut all: Vec<u64> = acks.iter().map(|a| a.micros).collect();
    all.sort_unstable();
    println!(
        "  {:<16} {:>7} {:>10} {:>10} {:>10}",
        "verb", "count", "p50 ms", "p99 ms", "max ms"
    );
    let row = |name: &str, v: &[u64]| {
        println!(
            "  {:<16} {:>7} {:>10.2} {:>10.2} {:>10.2}",
            name,
            v.len(),
            percentile(v, 0.5),
            percentile(v, 0.99),
            percentile(v, 1.0)
        );
    };
    for (op, mut v) in by_op {
        v.sort_unstable();
        row(OPS[op], &v);
    }
    row("every write", &all);
    println!(
        "  errors {}, lost acknowledged writes {lost}, rowids {}, journal seq {high}, revisions {}",
        failures.len(),
        rowids.len(),
        revisions.len()
    );
    if acks.len() != writers * writes && failures.is_empty() {
        failures.push(format!(
            "{} of {} writes acknowledged",
            acks.len(),
            writers * writes
        ));
    }
    if !failures.is_empty() {
        for f in failures.iter().take(20) {
            println!("  FAILED {f}");
        }
        eprintln!("many writers failed ({} problems)", failures.len());
        std::process::exit(1);
    }
}
