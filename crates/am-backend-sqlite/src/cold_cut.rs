//! `journal_cold_cut` / `verify_cold_cut`: the operator's footprint repair of
//! a long-lived home. The attention-event mass below a cut moves out of the
//! hot home into the archive the operator keeps beside it; the hot home is
//! REBUILT as a new file, never thinned in place (the engine has no delete
//! surface: the source file is only read).
//!
//! The rebuilt file is the source's one read snapshot (`VACUUM INTO`: every
//! table, index and row as it stands, the store's truth, every binding,
//! closure, valence row, version, task and count checkpoint), then, in one
//! transaction over the copy:
//!
//! - `memj_events` at or below `cut_seq` (every pair), and per pair at or
//!   below that pair's own cut (`pair_cuts`), are removed;
//! - vectors on closure-retired rows are nulled (`null_retired_embeddings`:
//!   they are outside ranked retrieval already);
//! - with `cut_traces`, reconstruction traces and commit snapshots at or
//!   below the highest cut are removed;
//! - `memj_seq` keeps the source's high water (the seq axis stays sparse,
//!   every surviving row keeps its seq, the next append continues above);
//! - a compaction record is APPENDED to `triples_meta` key `compaction` (a
//!   JSON list, the newest last: an earlier cut's `archive_ref` is kept),
//!   marked `building` while the file is not whole.
//!
//! Then the copy is vacuumed, its record's `building` mark removed (the
//! last write), and the file renamed to `dst` in one step: a cut killed at
//! any point leaves no file at `dst` (only `<dst>.cold-cut-partial`, which
//! the next cut replaces), and until that file is whole it does not pass
//! `verify_cold_cut` (its record is missing or still marked `building`).
//! The count checkpoints (`memj_selected_log`, `memj_pair_log`) are kept
//! whole, so anchored counts above the cut stay exact; what degrades is the
//! activation fold's fidelity for moments below the cut, which the archive
//! serves.
//!
//! A global `cut_seq` is refused unless every pair with events at or below it
//! is named in `pair_cuts` (0 keeps a pair whole): no pair loses history by
//! omission.
//!
//! Spec: api.md "Maintenance, health, and operator tools" (`journal_cold_cut`,
//! `verify_cold_cut`). The report keys and the checks' names and numbers
//! follow AbstractMemory 0.3.2, which copies only the tables it knows; this
//! port copies every table and checks the row parity of the ones 0.3.2 does
//! not know as well.

use crate::error::{Result, sqlite};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use am_journal::cold_cut::{ColdCut, ColdCutCheck, ColdCutReport, ColdCutVerification};

/// The suffix of the file a cut builds before it renames it to `dst`.
pub const PARTIAL_SUFFIX: &str = ".cold-cut-partial";

/// The tables 0.3.2's verify checks for row parity, in its order.
const PARITY_TABLES: &[&str] = &[
    "triples",
    "memj_bindings",
    "memj_closures",
    "memj_valence",
    "memj_traces",
    "memj_snapshots",
    "memj_selected_counts",
];

fn invalid(m: impl Into<String>) -> crate::Error {
    am_triples::Error::invalid(m).into()
}

fn bytes_of(path: &Path) -> u64 {
    ["", "-wal", "-shm"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", path.display())).ok())
        .map(|m| m.len())
        .sum()
}

/// Remove a file and its SQLite side files (`-wal`, `-shm`, `-journal`).
fn remove_with_side_files(path: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

fn open_read_only(path: &Path, what: &str) -> Result<Connection> {
    if !path.is_file() {
        return Err(invalid(format!(
            "{what}: no home file at {}",
            path.display()
        )));
    }
    let c = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sqlite)?;
    for t in ["triples", "triples_meta", "memj_events", "memj_seq"] {
        let n: i64 = c
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [t],
                |r| r.get(0),
            )
            .map_err(sqlite)?;
        if n == 0 {
            return Err(invalid(format!(
                "{what}: {} is not a home file with a journal (no table {t})",
                path.display()
            )));
        }
    }
    Ok(c)
}

fn count(c: &Connection, sql: &str, p: impl rusqlite::Params) -> Result<i64> {
    c.query_row(sql, p, |r| r.get(0))
        .map_err(|e| sqlite(e).into())
}

fn pair_key(scope: &str, owner: &str) -> String {
    format!("{scope}|{owner}")
}

/// Rebuild the home file at `src` as a new file at `dst` with the
/// attention-event mass cut (see the module doc); `at` is the instant the
/// compaction record carries.
///
/// # Errors
/// `InvalidInput` for an existing `dst`, a negative cut, a blank
/// `archive_ref`, a `src` that is not a home file, or a global cut that would
/// erase history of a pair `pair_cuts` does not name; SQLite's failure.
/// Nothing is written at `dst` on any of them.
pub fn journal_cold_cut(src: &Path, dst: &Path, args: &ColdCut, at: &str) -> Result<ColdCutReport> {
    if dst.exists() {
        return Err(invalid(format!(
            "journal_cold_cut: the destination already exists: {} (a cut never overwrites a file)",
            dst.display()
        )));
    }
    if args.cut_seq < 0 || args.pair_cuts.iter().any(|(_, _, c)| *c < 0) {
        return Err(invalid(format!(
            "journal_cold_cut: a cut is a seq at least 0 (got cut_seq {} and pair cuts {:?})",
            args.cut_seq,
            args.pair_cuts.iter().map(|p| p.2).collect::<Vec<_>>()
        )));
    }
    if args.archive_ref.trim().is_empty() {
        return Err(invalid(
            "journal_cold_cut needs archive_ref: the cut is legal only with the lossless archive recorded beside it",
        ));
    }
    let mut named: BTreeMap<(String, String), i64> = BTreeMap::new();
    for (s, o, c) in &args.pair_cuts {
        named.insert((s.clone(), o.clone()), *c);
    }
    let source = open_read_only(src, "journal_cold_cut")?;
    if args.cut_seq > 0 {
        let mut s = source
            .prepare("SELECT DISTINCT scope, owner_id FROM memj_events WHERE seq <= ?1")
            .map_err(sqlite)?;
        let affected: BTreeSet<(String, String)> = s
            .query_map([args.cut_seq], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(sqlite)?
            .collect::<rusqlite::Result<_>>()
            .map_err(sqlite)?;
        let unlisted: Vec<String> = affected
            .iter()
            .filter(|p| !named.contains_key(*p))
            .map(|(s, o)| pair_key(s, o))
            .collect();
        if !unlisted.is_empty() {
            return Err(invalid(format!(
                "journal_cold_cut: the global cut_seq {} would erase history of pairs pair_cuts does not name: {}; name every pair (0 keeps it whole)",
                args.cut_seq,
                unlisted.join(", ")
            )));
        }
    }
    let bytes_before = bytes_of(src);
    let partial = PathBuf::from(format!("{}{PARTIAL_SUFFIX}", dst.display()));
    // A killed cut's leftovers go first, its side files with it: a stale
    // WAL or journal beside the new copy would be read as the copy's own.
    remove_with_side_files(&partial);
    let target = partial
        .to_str()
        .ok_or_else(|| invalid("journal_cold_cut: the destination path is not UTF-8"))?;
    // One read snapshot of the whole source, every table and index as it is.
    source.execute("VACUUM INTO ?1", [target]).map_err(sqlite)?;
    drop(source);
    let report = cut_copy(&partial, args, &named, at);
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            remove_with_side_files(&partial);
            return Err(e);
        }
    };
    std::fs::File::open(&partial)
        .and_then(|f| f.sync_all())
        .map_err(|e| am_triples::Error::storage(format!("journal_cold_cut: sync: {e}")))?;
    std::fs::rename(&partial, dst).map_err(|e| {
        am_triples::Error::storage(format!(
            "journal_cold_cut: cannot move the rebuilt file to {}: {e}",
            dst.display()
        ))
    })?;
    if let Some(dir) = dst.parent().filter(|d| !d.as_os_str().is_empty())
        && let Ok(d) = std::fs::File::open(dir)
    {
        let _ = d.sync_all();
    }
    Ok(ColdCutReport {
        pass_name: "journal_cold_cut".to_owned(),
        cut_seq: args.cut_seq,
        events_before: report.0,
        events_after: report.1,
        embeddings_nulled: report.2,
        bytes_before,
        bytes_after: std::fs::metadata(dst).map(|m| m.len()).unwrap_or(0),
        archive_ref: args.archive_ref.clone(),
        exported_stream_ref: args.exported_stream_ref.clone(),
    })
}

/// The cut over the copy, in one transaction; then VACUUM. Answers
/// `(events_before, events_after, embeddings_nulled)`.
fn cut_copy(
    partial: &Path,
    args: &ColdCut,
    named: &BTreeMap<(String, String), i64>,
    at: &str,
) -> Result<(i64, i64, i64)> {
    let mut c = Connection::open(partial).map_err(sqlite)?;
    let tx = c.transaction().map_err(sqlite)?;
    let events_before = count(&tx, "SELECT COUNT(*) FROM memj_events", [])?;
    let embeddings_nulled = if args.null_retired_embeddings {
        i64::try_from(
            tx.execute(
                "UPDATE triples SET embedding = NULL WHERE embedding IS NOT NULL \
                 AND assertion_id IN (SELECT assertion_id FROM memj_closures)",
                [],
            )
            .map_err(sqlite)?,
        )
        .unwrap_or(i64::MAX)
    } else {
        0
    };
    tx.execute("DELETE FROM memj_events WHERE seq <= ?1", [args.cut_seq])
        .map_err(sqlite)?;
    for ((s, o), cut) in named {
        if *cut > 0 {
            tx.execute(
                "DELETE FROM memj_events WHERE scope = ?1 AND owner_id = ?2 AND seq <= ?3",
                params![s, o, cut],
            )
            .map_err(sqlite)?;
        }
    }
    let events_after = count(&tx, "SELECT COUNT(*) FROM memj_events", [])?;
    let (mut traces_dropped, mut snapshots_dropped) = (0usize, 0usize);
    let highest = named
        .values()
        .copied()
        .chain([args.cut_seq])
        .max()
        .unwrap_or(0);
    if args.cut_traces && highest > 0 {
        traces_dropped = tx
            .execute("DELETE FROM memj_traces WHERE seq <= ?1", [highest])
            .map_err(sqlite)?;
        snapshots_dropped = tx
            .execute("DELETE FROM memj_snapshots WHERE seq <= ?1", [highest])
            .map_err(sqlite)?;
    }
    // The counter is at least the highest surviving seq (a snapshot copy
    // keeps it so already; the belt keeps the invariant explicit).
    let max_row_seq = count(
        &tx,
        "SELECT COALESCE(MAX(m), 0) FROM (SELECT MAX(seq) AS m FROM memj_events \
         UNION ALL SELECT MAX(seq) FROM memj_bindings UNION ALL SELECT MAX(seq) FROM memj_closures \
         UNION ALL SELECT MAX(seq) FROM memj_traces UNION ALL SELECT MAX(seq) FROM memj_snapshots \
         UNION ALL SELECT MAX(seq) FROM memj_valence)",
        [],
    )?;
    tx.execute(
        "UPDATE memj_seq SET value = ?1 WHERE value < ?1",
        [max_row_seq],
    )
    .map_err(sqlite)?;
    let pair_cuts: Map<String, Value> = named
        .iter()
        .map(|((s, o), c)| (pair_key(s, o), json!(c)))
        .collect();
    let entry = json!({
        "archive_ref": args.archive_ref,
        "at": at,
        "cut_seq": args.cut_seq,
        "embeddings_nulled": embeddings_nulled,
        "events_dropped": events_before - events_after,
        "exported_stream_ref": args.exported_stream_ref,
        "pair_cuts": pair_cuts,
        "snapshots_dropped": snapshots_dropped,
        "traces_dropped": traces_dropped,
        // Until the rebuilt file is whole (vacuumed, its record final) it
        // says so: an unfinished file does not pass `verify_cold_cut`.
        "building": true,
    });
    let mut history = compaction_history(&tx)?;
    history.push(entry);
    tx.execute(
        "INSERT OR REPLACE INTO triples_meta (key, value) VALUES ('compaction', ?1)",
        [Value::Array(history).to_string()],
    )
    .map_err(sqlite)?;
    tx.commit().map_err(sqlite)?;
    c.execute_batch("VACUUM").map_err(sqlite)?;
    // The file is whole: its record loses the building mark, last.
    let tx = c.transaction().map_err(sqlite)?;
    let mut history = compaction_history(&tx)?;
    if let Some(Value::Object(newest)) = history.last_mut() {
        newest.remove(BUILDING);
    }
    tx.execute(
        "UPDATE triples_meta SET value = ?1 WHERE key = 'compaction'",
        [Value::Array(history).to_string()],
    )
    .map_err(sqlite)?;
    tx.commit().map_err(sqlite)?;
    c.close().map_err(|(_, e)| sqlite(e))?;
    Ok((events_before, events_after, embeddings_nulled))
}

/// The key a compaction record carries while its file is being built.
const BUILDING: &str = "building";

/// The file's compaction records, oldest first (an older single record
/// read as a list of one).
fn compaction_history(c: &Connection) -> Result<Vec<Value>> {
    let prior: Option<String> = c
        .query_row(
            "SELECT value FROM triples_meta WHERE key = 'compaction'",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(sqlite)?;
    Ok(
        match prior.and_then(|p| serde_json::from_str::<Value>(&p).ok()) {
            Some(Value::Array(a)) => a,
            Some(v @ Value::Object(_)) => vec![v],
            _ => Vec::new(),
        },
    )
}

fn newest_compaction(c: &Connection) -> Result<Map<String, Value>> {
    let row: Option<String> = c
        .query_row(
            "SELECT value FROM triples_meta WHERE key = 'compaction'",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(sqlite)?;
    Ok(
        match row.and_then(|r| serde_json::from_str::<Value>(&r).ok()) {
            Some(Value::Array(mut a)) => match a.pop() {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            },
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        },
    )
}

fn tables(c: &Connection) -> Result<Vec<String>> {
    let mut s = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .map_err(sqlite)?;
    let names = s
        .query_map([], |r| r.get(0))
        .map_err(sqlite)?
        .collect::<rusqlite::Result<Vec<String>>>()
        .map_err(sqlite)?;
    Ok(names)
}

fn ids(c: &Connection, sql: &str) -> Result<BTreeSet<String>> {
    let mut s = c.prepare(sql).map_err(sqlite)?;
    let out = s
        .query_map([], |r| r.get(0))
        .map_err(sqlite)?
        .collect::<rusqlite::Result<BTreeSet<String>>>()
        .map_err(sqlite)?;
    Ok(out)
}

/// The parity checks between the source home file and its rebuilt cut, each
/// named with its own numbers (0.3.2's checks in its order, then the row
/// parity of every other table of the source).
///
/// # Errors
/// `InvalidInput` for a path that is not a home file; SQLite's failure.
pub fn verify_cold_cut(src: &Path, dst: &Path) -> Result<ColdCutVerification> {
    let s = open_read_only(src, "verify_cold_cut")?;
    let d = open_read_only(dst, "verify_cold_cut")?;
    let mut checks: Vec<ColdCutCheck> = Vec::new();
    let mut check = |name: &str, ok: bool, detail: Value| {
        let detail = match detail {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        checks.push(ColdCutCheck {
            check: name.to_owned(),
            ok,
            detail,
        });
    };
    let comp = newest_compaction(&d)?;
    let dropped = |k: &str| comp.get(k).and_then(Value::as_i64).unwrap_or(0);
    for t in PARITY_TABLES {
        let a = count(&s, &format!("SELECT COUNT(*) FROM \"{t}\""), [])?;
        let b = count(&d, &format!("SELECT COUNT(*) FROM \"{t}\""), [])?;
        let drop = match *t {
            "memj_traces" => dropped("traces_dropped"),
            "memj_snapshots" => dropped("snapshots_dropped"),
            _ => 0,
        };
        check(
            &format!("{t}_row_parity"),
            a - drop == b,
            json!({"src": a, "dst": b, "expected_drop": drop}),
        );
    }
    let counts = |c: &Connection| -> Result<BTreeMap<String, i64>> {
        let mut st = c
            .prepare("SELECT record_id, n FROM memj_selected_counts")
            .map_err(sqlite)?;
        let m = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(sqlite)?
            .collect::<rusqlite::Result<BTreeMap<String, i64>>>()
            .map_err(sqlite)?;
        Ok(m)
    };
    let (a, b) = (counts(&s)?, counts(&d)?);
    let diverging = a.iter().filter(|(k, v)| b.get(*k) != Some(*v)).count()
        + b.iter().filter(|(k, v)| a.get(*k) != Some(*v)).count();
    check(
        "selected_counts_equal",
        a == b,
        json!({"diverging": diverging}),
    );
    if comp.is_empty() || comp.contains_key(BUILDING) {
        // No record, or the record of a cut whose file was never finished
        // (a `<dst>.cold-cut-partial` left by a killed cut): not a cut.
        check("compaction_record", false, Value::Object(comp.clone()));
    } else {
        let ev_src = count(&s, "SELECT COUNT(*) FROM memj_events", [])?;
        let ev_dst = count(&d, "SELECT COUNT(*) FROM memj_events", [])?;
        let recorded = comp.get("events_dropped").cloned().unwrap_or(Value::Null);
        check("compaction_record", true, Value::Object(comp.clone()));
        check(
            "events_accounting",
            recorded.as_i64() == Some(ev_src - ev_dst),
            json!({"src": ev_src, "dst": ev_dst, "recorded_drop": recorded}),
        );
        let cut = comp.get("cut_seq").and_then(Value::as_i64).unwrap_or(0);
        let low = count(
            &d,
            "SELECT COUNT(*) FROM memj_events WHERE seq <= ?1",
            [cut],
        )?;
        check("no_events_below_cut", low == 0, json!({"below_cut": low}));
        if let Some(Value::Object(pairs)) = comp.get("pair_cuts") {
            for (key, p_cut) in pairs {
                let (scope, owner) = key.split_once('|').unwrap_or((key.as_str(), ""));
                let p = p_cut.as_i64().unwrap_or(0);
                let low = count(
                    &d,
                    "SELECT COUNT(*) FROM memj_events WHERE scope = ?1 AND owner_id = ?2 AND seq <= ?3",
                    params![scope, owner, p],
                )?;
                check(
                    &format!("no_events_below_pair_cut[{key}]"),
                    low == 0,
                    json!({"below_cut": low, "pair_cut": p_cut}),
                );
            }
        }
    }
    let high = |c: &Connection| -> Result<Option<i64>> {
        c.query_row("SELECT value FROM memj_seq", [], |r| r.get(0))
            .optional()
            .map_err(|e| sqlite(e).into())
    };
    let (a, b) = (high(&s)?, high(&d)?);
    check("seq_high_water", a == b, json!({"src": a, "dst": b}));
    let retired = ids(&s, "SELECT assertion_id FROM memj_closures")?;
    let src_embedded = ids(
        &s,
        "SELECT assertion_id FROM triples WHERE embedding IS NOT NULL",
    )?;
    let dst_embedded = ids(
        &d,
        "SELECT assertion_id FROM triples WHERE embedding IS NOT NULL",
    )?;
    let lost: Vec<&String> = src_embedded.difference(&dst_embedded).collect();
    let unexpected = lost.iter().filter(|id| !retired.contains(**id)).count();
    check(
        "nulls_only_on_retired_rows",
        unexpected == 0,
        json!({"nulled_total": lost.len(), "unexpected": unexpected}),
    );
    // This port's own: every table 0.3.2 does not check keeps its rows (the
    // versions, the count checkpoints, the task queue, the graph, ...).
    let known: BTreeSet<&str> = PARITY_TABLES
        .iter()
        .copied()
        .chain(["memj_events", "triples_meta"])
        .collect();
    let dst_tables: BTreeSet<String> = tables(&d)?.into_iter().collect();
    for t in tables(&s)? {
        if known.contains(t.as_str()) || t.starts_with("sqlite_") {
            continue;
        }
        let a = count(&s, &format!("SELECT COUNT(*) FROM \"{t}\""), [])?;
        let b = if dst_tables.contains(&t) {
            Some(count(&d, &format!("SELECT COUNT(*) FROM \"{t}\""), [])?)
        } else {
            None
        };
        check(
            &format!("{t}_row_parity"),
            b == Some(a),
            json!({"src": a, "dst": b, "expected_drop": 0}),
        );
    }
    let ok = checks.iter().all(|c| c.ok);
    Ok(ColdCutVerification {
        pass_name: "verify_cold_cut".to_owned(),
        ok,
        checks,
    })
}
