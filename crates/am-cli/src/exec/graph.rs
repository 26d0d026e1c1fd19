//! The memory graph's exec verbs: `apply_revision`, `history`, `sources_of`,
//! `names_ref`, `derived_from_source`, `revisions`, `repair` and `replay_into`,
//! with the spec's argument names and `to_dict()` answers. The graph is opened
//! per op over the session's home (opening a complete SQLite home is a read; the
//! in-memory connector's state is shared per store object, so it persists across
//! ops of one session), with the session's journal and the engine clock as its
//! record-time clock.
//!
//! Spec: api.md "The memory graph: revisions and provenance"; design
//! EXEC-PROTOCOL.md.

use super::{Args, Session};
use crate::error::{CliError, CliResult};
use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_graph::graph::MemoryGraph;
use am_graph::registry::GraphJournal;
use am_graph::{
    DEFAULT_READ_LIMIT, DEFAULT_REVISION_PAGE, MAX_READ_LIMIT, Revision, SourceRef,
    check_read_limit_json,
};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;

/// The graph's ops, in the order docs/exec.md lists them.
pub const GRAPH_OPS: &[&str] = &[
    "apply_revision",
    "history",
    "sources_of",
    "names_ref",
    "derived_from_source",
    "revisions",
    "repair",
    "replay_into",
];

fn graph_err(e: am_graph::Error) -> CliError {
    CliError::engine(e.kind(), e.to_string()).with_source(e)
}

fn open(s: &Session) -> CliResult<MemoryGraph> {
    let engine = s.engine()?;
    let journal = GraphJournal::from_dyn(Arc::clone(engine.system.journal()));
    let graph = match (&engine.sqlite, &engine.memory) {
        (Some(store), _) => {
            am_backend_sqlite::graph::register();
            MemoryGraph::new(Arc::clone(store), Some(journal))
        }
        (None, Some(store)) => MemoryGraph::new(Arc::clone(store), Some(journal)),
        (None, None) => {
            return Err(CliError::engine(
                am_triples::ErrorKind::Unsupported,
                "the session's home has no graph connector",
            ));
        }
    };
    Ok(graph.map_err(graph_err)?.with_clock(s.clock().as_clock()))
}

fn limit(v: Option<Value>, default: usize) -> CliResult<i64> {
    match v {
        None | Some(Value::Null) => Ok(i64::try_from(default).unwrap_or(1)),
        Some(v) => check_read_limit_json(&v)
            .map(|n| i64::try_from(n).unwrap_or(1))
            .map_err(|e| graph_err(e).context("limit")),
    }
}

fn source(v: &Value, op: &str) -> CliResult<SourceRef> {
    SourceRef::from_dict(v).map_err(|e| graph_err(e).context(&format!("{op}: ref")))
}

fn yes() -> bool {
    true
}

// The graph verbs' arguments, read through the one adapter (`Args::parse`).
// A `limit` stays JSON so the graph's own rule (`check_read_limit_json`:
// a positive int, never a bool or a float) refuses it; a `Revision` and a
// `SourceRef` are read by their `from_dict`, which refuse unknown keys.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApplyRevisionArgs {
    revision: Value,
    #[serde(default)]
    replay: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HistoryArgs {
    memory_id: String,
    #[serde(default)]
    limit: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SourcesOfArgs {
    memory_id: String,
    #[serde(default = "yes")]
    transitive: bool,
    #[serde(default)]
    limit: Option<Value>,
    #[serde(default)]
    labelled: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NamesRefArgs {
    #[serde(rename = "ref")]
    source: Value,
    owner_ids: Vec<Option<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DerivedFromSourceArgs {
    #[serde(rename = "ref")]
    source: Value,
    #[serde(default)]
    limit: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RevisionsArgs {
    #[serde(default)]
    after: Option<String>,
    #[serde(default)]
    limit: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RepairArgs {
    #[serde(default)]
    limit: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayIntoArgs {
    target_home: String,
}

/// Run one graph op.
pub fn dispatch(s: &mut Session, op: &str, a: Args) -> CliResult<Value> {
    match op {
        "apply_revision" => {
            let ApplyRevisionArgs { revision, replay } = a.parse()?;
            let rev = Revision::from_dict(&revision)
                .map_err(|e| graph_err(e).context("apply_revision: revision"))?;
            let g = open(s)?;
            Ok(g.apply_revision(&rev, replay).map_err(graph_err)?.to_dict())
        }
        "history" => {
            let HistoryArgs {
                memory_id,
                limit: l,
            } = a.parse()?;
            let n = limit(l, DEFAULT_READ_LIMIT)?;
            super::to_json(&open(s)?.history(&memory_id, n).map_err(graph_err)?)
        }
        "sources_of" => {
            let SourcesOfArgs {
                memory_id,
                transitive,
                limit: l,
                labelled,
            } = a.parse()?;
            let n = limit(l, DEFAULT_READ_LIMIT)?;
            let g = open(s)?;
            if labelled {
                let items = g
                    .sources_of_labelled(&memory_id, transitive, n)
                    .map_err(graph_err)?;
                serde_json::to_value(items)
                    .map_err(|e| CliError::failure(format!("cannot encode the answer: {e}")))
            } else {
                let refs = g.sources_of(&memory_id, transitive, n).map_err(graph_err)?;
                Ok(Value::Array(refs.iter().map(SourceRef::to_dict).collect()))
            }
        }
        "names_ref" => {
            let NamesRefArgs {
                source: r,
                owner_ids,
            } = a.parse()?;
            let r = source(&r, op)?;
            if owner_ids.len() > MAX_READ_LIMIT {
                return Err(CliError::invalid(format!(
                    "names_ref takes at most {MAX_READ_LIMIT} owner ids, got {}",
                    owner_ids.len()
                )));
            }
            let borrowed: Vec<Option<&str>> = owner_ids.iter().map(Option::as_deref).collect();
            Ok(json!(open(s)?.names_ref(&r, &borrowed).map_err(graph_err)?))
        }
        "derived_from_source" => {
            let DerivedFromSourceArgs {
                source: r,
                limit: l,
            } = a.parse()?;
            let r = source(&r, op)?;
            let n = limit(l, DEFAULT_READ_LIMIT)?;
            Ok(json!(
                open(s)?.derived_from_source(&r, n).map_err(graph_err)?
            ))
        }
        "revisions" => {
            let RevisionsArgs { after, limit: l } = a.parse()?;
            let n = limit(l, DEFAULT_REVISION_PAGE)?;
            let (revs, cursor) = open(s)?.revisions(after.as_deref(), n).map_err(graph_err)?;
            Ok(json!([
                revs.iter().map(Revision::to_dict).collect::<Vec<_>>(),
                cursor
            ]))
        }
        "repair" => {
            let RepairArgs { limit: l } = a.parse()?;
            let n = limit(l, MAX_READ_LIMIT)?;
            Ok(json!(open(s)?.repair(n).map_err(graph_err)?))
        }
        "replay_into" => {
            let ReplayIntoArgs {
                target_home: target,
            } = a.parse()?;
            let g = open(s)?;
            let store = Arc::new(
                SQLiteTripleStore::open(&target, s.embedder.clone(), SqliteStoreOptions::default())
                    .map_err(|e| CliError::from(e).context(&format!("replay_into: {target}")))?,
            );
            let journal = Arc::new(SQLiteJournal::open(store.home())?);
            let t = am_backend_sqlite::graph::open_graph(store, Some(journal))
                .map_err(graph_err)?
                .with_clock(s.clock().as_clock());
            Ok(json!(g.replay_into(&t).map_err(graph_err)?))
        }
        other => Err(CliError::invalid(format!("unknown op {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::GRAPH_OPS;
    use crate::exec::Session;
    use crate::home::{HomeSpec, PinnedClock};
    use serde_json::Value;

    fn answer(s: &mut Session, line: &str) -> Value {
        s.answer(line).expect("an answer").0
    }

    const REVISION: &str = r#"{"op": "apply_revision", "revision": {"revision_id": "r1", "scope": "global", "owner_id": "person:ada", "cause": "ingest", "occurred_at": "2026-01-05T09:00:00Z", "ops": [{"op": "assert", "payload": {"assertion_id": "c1", "subject": "ex:dana", "predicate": "schema:worksFor", "object": "ex:acme"}}], "provenance": {"sources": [{"kind": "step", "run_id": "run-42", "seq": 3}], "actor": "abstractnote"}}}"#;

    #[test]
    fn replay_into_a_new_home_applies_the_log_and_then_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let clock = PinnedClock::pinned_at("2026-01-01T00:00:00Z").unwrap();
        let mut s =
            Session::open(HomeSpec::Sqlite(dir.path().join("a.sqlite3")), None, clock).unwrap();
        assert_eq!(answer(&mut s, REVISION)["ok"]["applied"], true);
        let target = dir.path().join("b.sqlite3");
        let line = serde_json::json!({"op": "replay_into", "target_home": target}).to_string();
        assert_eq!(answer(&mut s, &line)["ok"], 1);
        assert_eq!(answer(&mut s, &line)["ok"], 0);
        let clock = PinnedClock::pinned_at("2027-01-01T00:00:00Z").unwrap();
        let mut t = Session::open(HomeSpec::Sqlite(target), None, clock).unwrap();
        let h = answer(&mut t, r#"{"op": "history", "memory_id": "c1"}"#);
        assert_eq!(h["ok"][0]["at"], "2026-01-01T00:00:00.000000+00:00");
    }

    #[test]
    fn the_graph_verbs_work_on_the_in_memory_home_across_ops() {
        let clock = PinnedClock::pinned_at("2026-01-01T00:00:00Z").unwrap();
        let mut s = Session::open(HomeSpec::Memory, None, clock).unwrap();
        assert_eq!(answer(&mut s, REVISION)["ok"]["applied"], true);
        assert_eq!(answer(&mut s, REVISION)["ok"]["applied"], false);
        let h = answer(&mut s, r#"{"op": "history", "memory_id": "c1"}"#);
        assert_eq!(h["ok"][0]["event"], "asserted");
        assert_eq!(h["ok"][0]["revision_id"], "r1");
    }

    #[test]
    fn docs_exec_md_lists_every_graph_op() {
        let doc =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/exec.md"))
                .expect("docs/exec.md exists");
        for op in GRAPH_OPS {
            assert!(
                doc.contains(&format!("| `{op}` |")),
                "docs/exec.md lacks a row for {op}"
            );
        }
    }
}
