//! Contract tests of `SQLiteTripleStore`: schema, writes and their refusals,
//! structured reads (parity with `InMemoryTripleStore`, index use), windows and
//! the change feed. Spec: stores.md "SQLiteTripleStore" and "Shared behavior".

mod common;

use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_triples::{
    ErrorKind, InMemoryTripleStore, Order, ReadAccelerator, TextEmbedder, TripleAssertion,
    TripleQuery, TripleStore,
};
use common::*;
use serde_json::json;
use std::collections::BTreeSet;

fn row(s: &str, p: &str, o: &str, scope: &str, owner: Option<&str>, at: &str) -> TripleAssertion {
    let mut a = TripleAssertion::new(s, p, o)
        .with_scope(scope)
        .with_observed_at(at);
    if let Some(o) = owner {
        a = a.with_owner(o);
    }
    a
}

/// A varied, deterministic batch: ties on observed_at, owners and none, literal
/// objects with capitals, windows, mixed offsets.
fn corpus() -> Vec<TripleAssertion> {
    let mut out = Vec::new();
    for i in 0..60u32 {
        let at = format!("2026-01-{:02}T{:02}:00:00+00:00", 1 + i % 7, i % 3);
        let owner = match i % 4 {
            0 => None,
            1 => Some("alice"),
            2 => Some("bob"),
            _ => Some("Alice "),
        };
        let scope = if i % 5 == 0 { "Session" } else { "run" };
        let mut a = row(
            &format!("Subject{}", i % 6),
            if i % 2 == 0 { "knows" } else { "likes" },
            &format!("Object{}", i % 9),
            scope,
            owner,
            &at,
        )
        .with_id(&format!("id-{i:03}"));
        if i % 7 == 0 {
            a = TripleAssertion::new_literal(&a.subject, &a.predicate, &format!("Object{}", i % 9))
                .with_scope(scope)
                .with_observed_at(&at)
                .with_id(&format!("id-{i:03}"));
        }
        if i % 11 == 0 {
            a = a.with_validity(
                Some("2026-01-02T00:00:00Z"),
                Some("2026-01-05T00:00:00+02:00"),
            );
        }
        if i % 13 == 0 {
            a = a.with_confidence(0.25 + f64::from(i) / 100.0);
        }
        out.push(a);
    }
    out
}

fn battery() -> Vec<TripleQuery> {
    let base = TripleQuery::default;
    let mut qs = vec![
        base(),
        TripleQuery {
            limit: 0,
            order: Order::Asc,
            ..base()
        },
        TripleQuery { limit: 7, ..base() },
        TripleQuery {
            subject: Some(" SUBJECT1 ".into()),
            ..base()
        },
        TripleQuery {
            predicate: Some("likes".into()),
            limit: -1,
            ..base()
        },
        TripleQuery {
            object: Some("Object0".into()),
            limit: 0,
            ..base()
        },
        TripleQuery {
            object: Some("object0".into()),
            limit: 0,
            ..base()
        },
        TripleQuery {
            object: Some("Object3".into()),
            limit: 2,
            order: Order::Asc,
            ..base()
        },
        TripleQuery {
            scope: Some("SESSION".into()),
            ..base()
        },
        TripleQuery {
            scope: Some("run".into()),
            owner_id: Some("alice".into()),
            limit: 5,
            ..base()
        },
        TripleQuery {
            owner_id: Some("Alice".into()),
            limit: 0,
            ..base()
        },
        TripleQuery {
            owner_id: Some("bob".into()),
            order: Order::Asc,
            limit: 0,
            ..base()
        },
        TripleQuery {
            since: Some("2026-01-03T00:00:00Z".into()),
            until: Some("2026-01-05T01:00:00+00:00".into()),
            limit: 0,
            ..base()
        },
        TripleQuery {
            active_at: Some("2026-01-03T00:00:00Z".into()),
            limit: 0,
            ..base()
        },
        TripleQuery {
            active_at: Some("2026-01-04T23:00:00+00:00".into()),
            limit: 0,
            ..base()
        },
        TripleQuery {
            assertion_ids: Some(vec!["id-001".into(), "id-014".into(), "nope".into()]),
            ..base()
        },
        TripleQuery {
            assertion_ids: Some(vec!["id-001".into(), "id-014".into()]),
            predicate: Some("likes".into()),
            ..base()
        },
    ];
    for s in 0..6 {
        qs.push(TripleQuery {
            subject: Some(format!("subject{s}")),
            order: Order::Asc,
            limit: 3,
            ..base()
        });
    }
    qs
}

#[test]
fn structured_reads_return_exactly_what_the_in_memory_store_returns() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), None);
    let mem = InMemoryTripleStore::new(None);
    let rows = corpus();
    assert_eq!(store.add(&rows).unwrap(), mem.add(&rows).unwrap());
    for q in battery() {
        let got = store.query(&q).unwrap();
        let want = mem.query(&q).unwrap();
        assert_eq!(got, want, "query {q:?}");
    }
    // And again from a fresh handle on the same file (persistence).
    drop(store);
    let store = open(&home_path(&dir), None);
    for q in battery() {
        assert_eq!(
            store.query(&q).unwrap(),
            mem.query(&q).unwrap(),
            "reopened, {q:?}"
        );
    }
}

#[test]
fn subjects_with_predicate_answers_as_a_query_per_subject() {
    // The batched read (one statement) against the trait's default, which
    // asks `query` once per subject, on the in-memory store: the same
    // subjects, as given (case, padding, unknown and blank ones included).
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), None);
    let mem = InMemoryTripleStore::new(None);
    let rows = corpus();
    store.add(&rows).unwrap();
    mem.add(&rows).unwrap();
    let subjects: Vec<String> = [
        "Subject0",
        "subject1",
        " SUBJECT2 ",
        "Subject3",
        "Subject5",
        "nobody",
        "",
        "Subject0",
    ]
    .map(str::to_owned)
    .to_vec();
    for predicate in ["knows", "LIKES", "owns", ""] {
        let got = store.subjects_with_predicate(&subjects, predicate).unwrap();
        let want = mem.subjects_with_predicate(&subjects, predicate).unwrap();
        assert_eq!(got, want, "predicate {predicate:?}");
        if predicate == "knows" {
            assert!(
                got.contains(" SUBJECT2 ") && !got.contains("nobody"),
                "{got:?}"
            );
        }
    }
}

#[test]
fn schema_has_abstractmemory_names_and_creating_it_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    drop(open(&path, None));
    drop(open(&path, None));
    let c = rusqlite::Connection::open(&path).unwrap();
    let names: Vec<String> = c
        .prepare("SELECT name FROM sqlite_master WHERE name LIKE '%triples%' AND name NOT LIKE 'triples_fts_%' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        names,
        [
            "idx_triples_object",
            "idx_triples_observed",
            "idx_triples_scope_owner",
            "idx_triples_scope_owner_observed",
            "idx_triples_spo",
            "triples",
            "triples_fts",
            "triples_meta",
        ]
    );
    let cols: Vec<String> = c
        .prepare("PRAGMA table_info(triples)")
        .unwrap()
        .query_map([], |r| r.get(1))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        cols,
        [
            "assertion_id",
            "subject",
            "predicate",
            "object",
            "scope",
            "owner_id",
            "observed_at",
            "valid_from",
            "valid_until",
            "confidence",
            "provenance_json",
            "attributes_json",
            "text",
            "embedding"
        ]
    );
    let wal: String = c
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(wal, "wal");
}

#[test]
fn custom_table_name_prefixes_every_object() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let opts = SqliteStoreOptions {
        table_name: Some("mem_2".into()),
        ..Default::default()
    };
    let s = SQLiteTripleStore::open(&path, None, opts).unwrap();
    s.add(&[TripleAssertion::new("a", "b", "c")]).unwrap();
    assert_eq!(raw_i64(&path, "SELECT COUNT(*) FROM mem_2"), 1);
    assert_eq!(
        raw_i64(
            &path,
            "SELECT COUNT(*) FROM sqlite_master WHERE name = 'idx_mem_2_scope_owner_observed'"
        ),
        1
    );
    assert_eq!(
        raw_i64(
            &path,
            "SELECT COUNT(*) FROM sqlite_master WHERE name = 'mem_2_fts'"
        ),
        1
    );
}

#[test]
fn table_name_outside_identifier_pattern_is_invalid_input_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    for bad in ["1abc", "a-b", "x; DROP TABLE y", "tri ples", "é"] {
        let opts = SqliteStoreOptions {
            table_name: Some(bad.into()),
            ..Default::default()
        };
        let err = SQLiteTripleStore::open(&path, None, opts).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{bad}");
        assert!(err.to_string().contains("[A-Za-z_][A-Za-z0-9_]*"), "{err}");
    }
    assert!(!path.exists());
}

#[test]
fn add_with_an_existing_id_is_ignored_and_returns_the_id() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), None);
    let a = TripleAssertion::new("a", "b", "c").with_id("fixed");
    let b = TripleAssertion::new("x", "y", "z").with_id("fixed");
    assert_eq!(store.add(std::slice::from_ref(&a)).unwrap(), ["fixed"]);
    assert_eq!(store.add(&[b, a]).unwrap(), ["fixed", "fixed"]);
    let rows = store.query(&TripleQuery::default()).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].subject, "a");
}

#[test]
fn a_bad_timestamp_refuses_the_whole_batch_and_writes_zero_rows() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), Some(tiny()));
    let good = TripleAssertion::new("a", "b", "c");
    let bad = TripleAssertion::new("a", "b", "d").with_observed_at("next tuesday");
    let err = store.add(&[good, bad]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("next tuesday"), "{err}");
    assert_eq!(store.row_count().unwrap(), 0);
    assert!(
        store.embedding_pin().unwrap().is_none(),
        "no pin written either"
    );
}

#[test]
fn a_zero_vector_from_the_embedder_stores_the_row_without_a_vector_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(
        &path,
        Some(std::sync::Arc::new(ConstEmbedder(vec![0.0, 0.0]))),
    );
    let ids = store
        .add(&[
            TripleAssertion::new("a", "b", "c"),
            TripleAssertion::new("a", "b", "d"),
        ])
        .unwrap();
    assert_eq!(store.row_count().unwrap(), 2);
    for id in &ids {
        assert!(store.stored_vector(id).unwrap().is_none());
    }
    assert_eq!(
        raw_i64(
            &path,
            "SELECT COUNT(*) FROM triples WHERE embedding IS NULL"
        ),
        2
    );
    // No vector was written, so no pin either.
    assert!(store.embedding_pin().unwrap().is_none());
    let w = store.take_warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("#FALLBACK") && w[0].contains("2 of 2"),
        "{w:?}"
    );
}

#[test]
fn non_finite_vectors_are_refused_with_zero_rows() {
    for v in [vec![f32::NAN, 1.0], vec![f32::INFINITY, 0.0]] {
        let dir = tempfile::tempdir().unwrap();
        let store = open(
            &home_path(&dir),
            Some(std::sync::Arc::new(ConstEmbedder(v.clone()))),
        );
        let err = store
            .add(&[TripleAssertion::new("a", "b", "c")])
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{v:?}");
        assert_eq!(store.row_count().unwrap(), 0);
        assert!(store.embedding_pin().unwrap().is_none());
    }
}

#[test]
fn an_embedder_failure_aborts_the_add_with_zero_rows_and_names_the_pin() {
    let dir = tempfile::tempdir().unwrap();
    let flaky = std::sync::Arc::new(FlakyEmbedder::default());
    let store = open(&home_path(&dir), Some(flaky.clone()));
    store.add(&[TripleAssertion::new("a", "b", "c")]).unwrap();
    flaky
        .failing
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let err = store
        .add(&[TripleAssertion::new("d", "e", "f")])
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Embedder);
    assert!(
        err.to_string().contains(
            "[store pin: tiny-hash-bow-16@16d (first-write, claimed by embedder-attribute)]"
        ),
        "{err}"
    );
    assert_eq!(store.row_count().unwrap(), 1);
    let q = TripleQuery {
        query_text: Some("a b c".into()),
        ..Default::default()
    };
    let err = store.query(&q).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Embedder);
    assert!(
        err.to_string().contains("[store pin: tiny-hash-bow-16@16d"),
        "{err}"
    );
}

#[test]
fn record_edges_never_embed() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), Some(tiny()));
    let mut attrs = serde_json::Map::new();
    attrs.insert("record_edge".into(), json!(true));
    let edge = TripleAssertion::new("r1", "summarizes", "r0")
        .with_attributes(attrs)
        .with_id("edge");
    let plain = TripleAssertion::new("r1", "is", "thing").with_id("plain");
    store.add(&[edge, plain]).unwrap();
    assert!(store.stored_vector("edge").unwrap().is_none());
    let v = store.stored_vector("plain").unwrap().unwrap();
    assert_eq!(
        v,
        TinyEmbedder::default()
            .embed_texts(&["r1 is thing".into()])
            .unwrap()[0]
    );
}

#[test]
fn vectors_are_float32_little_endian_blobs() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, Some(tiny()));
    store
        .add(&[TripleAssertion::new("a", "b", "c").with_id("x")])
        .unwrap();
    let c = rusqlite::Connection::open(&path).unwrap();
    let blob: Vec<u8> = c
        .query_row("SELECT embedding FROM triples", [], |r| r.get(0))
        .unwrap();
    assert_eq!(blob.len(), 16 * 4);
    let want = TinyEmbedder::default()
        .embed_texts(&["a b c".into()])
        .unwrap()
        .remove(0);
    let got: Vec<f32> = blob
        .chunks(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(got, want);
    let ty: String = c
        .query_row("SELECT typeof(embedding) FROM triples", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ty, "blob");
}

#[test]
fn keyword_index_excludes_record_edges_and_bookkeeping_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    let mk = |id: &str, key: Option<&str>| {
        let mut attrs = serde_json::Map::new();
        if let Some(k) = key {
            attrs.insert(k.into(), json!(false));
        }
        TripleAssertion::new("zebra", "is", id)
            .with_attributes(attrs)
            .with_id(id)
    };
    store
        .add(&[
            mk("one", None),
            mk("two", Some("record_edge")),
            mk("three", Some("bookkeeping")),
        ])
        .unwrap();
    store.add(&[mk("four", None)]).unwrap();
    let c = rusqlite::Connection::open(&path).unwrap();
    let hits: Vec<String> = c
        .prepare("SELECT t.assertion_id FROM triples_fts f JOIN triples t ON t.rowid = f.rowid WHERE triples_fts MATCH 'zebra' ORDER BY t.rowid")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(hits, ["one", "four"]);
    assert_eq!(
        raw_opt_text(
            &path,
            "SELECT value FROM triples_meta WHERE key = 'fts_high_water'"
        )
        .as_deref(),
        Some("4")
    );
}

#[test]
fn structured_reads_never_select_embedding_or_text() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), None);
    for q in battery() {
        for line in store.query_plan(&q).unwrap() {
            assert!(!line.contains("embedding"), "{line}");
        }
    }
    // The compiled SQL is observable through the plan of a covering read; the
    // column list itself is pinned in the codec (ASSERTION_COLUMNS).
    assert!(!am_backend_sqlite::store::codec::ASSERTION_COLUMNS.contains("embedding"));
    assert!(!am_backend_sqlite::store::codec::ASSERTION_COLUMNS.contains(" text"));
}

#[test]
fn owner_filtered_reads_use_the_scope_owner_observed_index() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), None);
    store.add(&corpus()).unwrap();
    for order in [Order::Desc, Order::Asc] {
        let q = TripleQuery {
            scope: Some("run".into()),
            owner_id: Some("alice".into()),
            limit: 50,
            order,
            ..Default::default()
        };
        let plan = store.query_plan(&q).unwrap();
        assert!(
            plan.iter()
                .any(|l| l.contains("idx_triples_scope_owner_observed")),
            "{plan:?}"
        );
        assert!(
            !plan.iter().any(|l| l.contains("TEMP B-TREE")),
            "no sort step: {plan:?}"
        );
        let since = TripleQuery {
            since: Some("2026-01-02T00:00:00Z".into()),
            ..q
        };
        let plan = store.query_plan(&since).unwrap();
        assert!(
            plan.iter()
                .any(|l| l.contains("idx_triples_scope_owner_observed")),
            "{plan:?}"
        );
    }
}

#[test]
fn subject_reads_use_the_spo_index() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), None);
    let q = TripleQuery {
        subject: Some("x".into()),
        ..Default::default()
    };
    let plan = store.query_plan(&q).unwrap();
    assert!(
        plan.iter().any(|l| l.contains("idx_triples_spo")),
        "{plan:?}"
    );
}

#[test]
fn close_and_narrow_answer_as_the_in_memory_store_and_touch_only_valid_until() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, Some(tiny()));
    let mem = InMemoryTripleStore::new(Some(tiny()));
    let rows = corpus();
    store.add(&rows).unwrap();
    mem.add(&rows).unwrap();
    let v_before = store.stored_vector("id-001").unwrap();
    let calls: Vec<(&str, &str, &str)> = vec![
        ("close", "id-001", "2026-02-01T00:00:00Z"),
        ("close", "id-001", "2026-03-01T00:00:00Z"),
        ("close", "unknown", "2026-03-01T00:00:00Z"),
        ("narrow", "id-001", "2026-01-20T00:00:00+01:00"),
        ("narrow", "id-001", "2026-01-25T00:00:00Z"),
        ("narrow", "id-011", "2026-01-04T00:00:00Z"),
        ("narrow", "missing", "2026-01-04T00:00:00Z"),
    ];
    for (op, id, at) in calls {
        let (a, b) = if op == "close" {
            (
                store.close_assertion(id, at).unwrap(),
                mem.close_assertion(id, at).unwrap(),
            )
        } else {
            (
                store.narrow_assertion(id, at).unwrap(),
                mem.narrow_assertion(id, at).unwrap(),
            )
        };
        assert_eq!(a, b, "{op} {id} {at}");
    }
    for (id, at) in [
        ("id-002", "later"),
        ("", "2026-01-01T00:00:00Z"),
        ("id-002", " "),
    ] {
        assert_eq!(
            store.close_assertion(id, at).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
    }
    assert_eq!(
        store
            .narrow_assertion("id-002", "2026-01-01T00:00:00Z")
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
    let all = TripleQuery {
        limit: 0,
        ..Default::default()
    };
    assert_eq!(store.query(&all).unwrap(), mem.query(&all).unwrap());
    assert_eq!(store.stored_vector("id-001").unwrap(), v_before);
    // The keyword row stays as written.
    assert_eq!(
        raw_i64(
            &path,
            "SELECT COUNT(*) FROM triples_fts WHERE triples_fts MATCH 'subject1'"
        ),
        10
    );
}

#[test]
fn change_feed_pages_like_the_in_memory_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), None);
    let mem = InMemoryTripleStore::new(None);
    let rows = corpus();
    store.add(&rows).unwrap();
    mem.add(&rows).unwrap();
    for (scope, owner, limit) in [
        (None, None, 7usize),
        (Some("session"), None, 3),
        (Some("run"), Some("alice"), 4),
        (None, Some(" bob "), 1000),
        (Some(" "), None, 5),
    ] {
        let (mut c1, mut c2) = (-3i64, -3i64);
        loop {
            let a = store.assertions_after(c1, scope, owner, limit).unwrap();
            let b = mem.assertions_after(c2, scope, owner, limit).unwrap();
            assert_eq!(a, b, "{scope:?} {owner:?} {limit}");
            if a.rows.is_empty() {
                break;
            }
            (c1, c2) = (a.next_cursor, b.next_cursor);
        }
    }
    assert_eq!(
        store.assertions_after(0, None, None, 0).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}

#[test]
fn two_handles_on_one_file_see_each_others_writes_and_writers_wait() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let a = open(&path, None);
    let b = open(&path, None);
    std::thread::scope(|s| {
        for (n, store) in [(0, &a), (1, &b)] {
            s.spawn(move || {
                for i in 0..40 {
                    store
                        .add(&[TripleAssertion::new("w", "n", &format!("{n}-{i}"))])
                        .unwrap();
                    store
                        .query(&TripleQuery {
                            limit: 5,
                            ..Default::default()
                        })
                        .unwrap();
                }
            });
        }
    });
    assert_eq!(a.row_count().unwrap(), 80);
    assert_eq!(
        b.query(&TripleQuery {
            limit: 0,
            ..Default::default()
        })
        .unwrap()
        .len(),
        80
    );
}

#[test]
fn keyword_discovery_matches_any_token_within_scope_and_owner_none_is_any_owner() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), None);
    let mut edge_attrs = serde_json::Map::new();
    edge_attrs.insert("record_edge".into(), json!(true));
    store
        .add(&[
            row(
                "zebra",
                "eats",
                "grass",
                "session",
                Some("s1"),
                "2026-01-01T00:00:00Z",
            )
            .with_id("k1"),
            row(
                "lion",
                "eats",
                "zebra",
                "session",
                Some("s2"),
                "2026-01-02T00:00:00Z",
            )
            .with_id("k2"),
            row(
                "zebra",
                "lives",
                "savanna",
                "run",
                Some("s1"),
                "2026-01-03T00:00:00Z",
            )
            .with_id("k3"),
            row(
                "zebra",
                "links",
                "k1",
                "session",
                Some("s1"),
                "2026-01-04T00:00:00Z",
            )
            .with_attributes(edge_attrs)
            .with_id("k4"),
            row(
                "giraffe",
                "eats",
                "leaves",
                "session",
                Some("s1"),
                "2026-01-05T00:00:00Z",
            )
            .with_id("k5"),
        ])
        .unwrap();
    let ids = |rows: Vec<TripleAssertion>| -> BTreeSet<String> {
        rows.into_iter().map(|a| a.assertion_id.unwrap()).collect()
    };
    let any = store
        .query_keywords(&["Zebra".into()], "SESSION", None, 10)
        .unwrap();
    assert_eq!(ids(any), BTreeSet::from(["k1".to_owned(), "k2".to_owned()]));
    let s1 = store
        .query_keywords(
            &["zebra".into(), "leaves".into()],
            "session",
            Some("s1"),
            10,
        )
        .unwrap();
    assert_eq!(ids(s1), BTreeSet::from(["k1".to_owned(), "k5".to_owned()]));
    assert!(
        store
            .query_keywords(&["\"".into(), " ".into()], "session", None, 10)
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .query_keywords(&["zebra".into()], "session", None, 0)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store
            .query_keywords(&["zebra".into()], "session", None, 1)
            .unwrap()
            .len(),
        1
    );
}

/// The child half of the cross-process test: when `AM_WRITER_CHILD_HOME` is set,
/// append 100 rows one transaction at a time under the tag `AM_WRITER_CHILD_TAG`.
#[test]
fn writer_child_process() {
    if let (Ok(home), Ok(tag)) = (
        std::env::var("AM_WRITER_CHILD_HOME"),
        std::env::var("AM_WRITER_CHILD_TAG"),
    ) {
        let store = open(std::path::Path::new(&home), None);
        for i in 0..100 {
            store
                .add(&[TripleAssertion::new(&tag, "wrote", &format!("row {i}"))])
                .unwrap();
        }
    }
}

#[test]
fn two_processes_write_one_home_and_a_reader_never_fails_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let reader = open(&path, None);
    let children: Vec<std::process::Child> = ["p1", "p2"]
        .iter()
        .map(|tag| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "writer_child_process", "--test-threads=1"])
                .env("AM_WRITER_CHILD_HOME", &path)
                .env("AM_WRITER_CHILD_TAG", tag)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let all = TripleQuery {
        limit: 0,
        ..Default::default()
    };
    let mut seen = 0;
    let mut children = children;
    while children.iter_mut().any(|c| c.try_wait().unwrap().is_none()) {
        // Reads succeed while the writers write, and never go backwards.
        let n = reader.query(&all).unwrap().len();
        assert!(n >= seen, "{n} < {seen}");
        seen = n;
    }
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a writer lost its write");
    }
    for tag in ["p1", "p2"] {
        let q = TripleQuery {
            subject: Some(tag.into()),
            limit: 0,
            ..Default::default()
        };
        assert_eq!(reader.query(&q).unwrap().len(), 100, "{tag}");
    }
    let feed = reader.assertions_after(0, None, None, 1000).unwrap();
    assert_eq!(feed.rows.len(), 200);
    assert!(feed.rows.windows(2).all(|w| w[0].0 < w[1].0));
}
