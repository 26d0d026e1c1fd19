//! Vector search and the embedding pin of `SQLiteTripleStore`: ranking identical
//! to the reference `rank_by_cosine` (rows, order, bit-identical scores), the
//! matrix cache across handles and generations, the labelled scan fallback, and
//! the pin's creation, first-write and refusals.
//! Spec: stores.md "SQLiteTripleStore" (vectors, pin); operator.md §6b.

mod common;

use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions, read_embedding_pin};
use am_triples::{
    ErrorKind, InMemoryTripleStore, TextEmbedder, TripleAssertion, TripleQuery, TripleStore,
    build_pin,
};
use common::*;
use std::collections::HashMap;
use std::sync::Arc;

const WORDS: [&str; 12] = [
    "fusion", "energy", "report", "tea", "books", "alice", "dave", "units", "honesty", "week",
    "river", "stone",
];

fn texts() -> Vec<TripleAssertion> {
    (0..150u32)
        .map(|i| {
            let w = |k: u32| WORDS[((i * 7 + k * 5) % 12) as usize];
            // Every 10th row repeats an earlier text: exact score ties.
            let j = if i % 10 == 9 { i - 9 } else { i };
            let wj = |k: u32| WORDS[((j * 7 + k * 5) % 12) as usize];
            let (s, o) = if i % 10 == 9 {
                (wj(0), format!("{} {}", wj(1), wj(2)))
            } else {
                (w(0), format!("{} {}", w(1), w(2)))
            };
            TripleAssertion::new(s, "about", &o)
                .with_scope(if i % 3 == 0 { "session" } else { "run" })
                .with_owner(if i % 2 == 0 { "s1" } else { "s2" })
                .with_observed_at(&format!("2026-02-01T00:00:{:02}Z", i % 60))
                .with_id(&format!("v{i:03}"))
        })
        .collect()
}

fn semantic_battery() -> Vec<TripleQuery> {
    let base = TripleQuery::default;
    vec![
        TripleQuery {
            query_text: Some("fusion energy report".into()),
            limit: 10,
            ..base()
        },
        TripleQuery {
            query_text: Some("tea books".into()),
            limit: 0,
            ..base()
        },
        TripleQuery {
            query_text: Some("alice".into()),
            limit: 3,
            ..base()
        },
        TripleQuery {
            query_text: Some("river stone".into()),
            min_score: Some(0.3),
            limit: 0,
            ..base()
        },
        TripleQuery {
            query_text: Some("units honesty".into()),
            scope: Some("session".into()),
            owner_id: Some("s1".into()),
            ..base()
        },
        TripleQuery {
            query_text: Some("week".into()),
            object: Some("ENERGY report".into()),
            ..base()
        },
        TripleQuery {
            query_vector: Some(vec![1.0; 16]),
            limit: 25,
            ..base()
        },
        TripleQuery {
            query_vector: Some((0..16).map(|i| i as f32 - 7.5).collect()),
            since: Some("2026-02-01T00:00:30Z".into()),
            ..base()
        },
    ]
}

fn scores(rows: &[TripleAssertion]) -> Vec<(String, u64)> {
    rows.iter()
        .map(|a| {
            let s = a.attributes["_retrieval"]["score"].as_f64().unwrap();
            assert_eq!(a.attributes["_retrieval"]["metric"], "cosine");
            (a.assertion_id.clone().unwrap(), s.to_bits())
        })
        .collect()
}

#[test]
fn semantic_queries_rank_exactly_like_the_reference_with_ties_by_insertion_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), Some(tiny()));
    let mem = InMemoryTripleStore::new(Some(tiny()));
    let rows = texts();
    store.add(&rows[..100]).unwrap();
    mem.add(&rows[..100]).unwrap();
    for q in semantic_battery() {
        assert_eq!(
            scores(&store.query(&q).unwrap()),
            scores(&mem.query(&q).unwrap()),
            "{q:?}"
        );
    }
    // Rows written after the cache was built are appended to it.
    store.add(&rows[100..]).unwrap();
    mem.add(&rows[100..]).unwrap();
    for q in semantic_battery() {
        let got = store.query(&q).unwrap();
        assert_eq!(got, mem.query(&q).unwrap(), "{q:?}");
    }
    assert_eq!(store.vector_engine(), "simd-matrix-cache");
    assert!(
        store
            .take_warnings()
            .iter()
            .all(|w| !w.contains("linear scan"))
    );
}

#[test]
fn matrix_cache_fits_in_four_bytes_per_dimension_per_row_plus_ten_percent() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), Some(tiny()));
    store.add(&texts()).unwrap();
    assert_eq!(
        store.vector_cache_bytes(),
        0,
        "built at the first semantic query"
    );
    store
        .query(&TripleQuery {
            query_text: Some("tea".into()),
            ..Default::default()
        })
        .unwrap();
    let floor = 4 * 16 * 150;
    let bytes = store.vector_cache_bytes();
    // 16-d rows carry proportionally more bookkeeping (24 bytes/row) than 384-d
    // ones; the 10 % budget is for the matrix rows of realistic dimensions, and
    // here the bound is the matrix plus the per-row rowid, squared norm and
    // interned scope and owner ids.
    assert!(
        bytes >= floor && bytes <= floor + 24 * 150 + floor / 10,
        "{bytes}"
    );
}

#[test]
fn cache_sees_rows_written_by_another_handle_and_rebuilds_after_replace_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let reader = open(&path, Some(tiny()));
    let writer = open(&path, Some(tiny()));
    let rows = texts();
    writer.add(&rows[..50]).unwrap();
    let q = TripleQuery {
        query_text: Some("fusion tea".into()),
        limit: 0,
        ..Default::default()
    };
    assert_eq!(reader.query(&q).unwrap().len(), 50);
    writer.add(&rows[50..]).unwrap();
    assert_eq!(reader.query(&q).unwrap().len(), 150);
    // Another handle swaps every vector: the reader's cache rebuilds.
    let e = TinyEmbedder {
        model: Some("tiny-v2".into()),
        dim: 16,
    };
    let vectors: HashMap<String, Vec<f32>> = rows
        .iter()
        .take(20)
        .map(|a| {
            (
                a.assertion_id.clone().unwrap(),
                e.embed_texts(&[format!("x {}", a.object)])
                    .unwrap()
                    .remove(0),
            )
        })
        .collect();
    let pin = build_pin(Some("tiny-v2"), Some(16), "reembed", None).unwrap();
    assert_eq!(
        writer.replace_vectors(&vectors, &pin, 150, None).unwrap(),
        20
    );
    let got = reader.query(&q).unwrap();
    assert_eq!(got.len(), 20);
    let mem = InMemoryTripleStore::new(None);
    mem.add(&rows).unwrap();
    let qv = TinyEmbedder::default()
        .embed_texts(&["fusion tea".into()])
        .unwrap()
        .remove(0);
    let items: Vec<Option<Vec<f32>>> = rows
        .iter()
        .take(20)
        .map(|a| vectors.get(a.assertion_id.as_deref().unwrap()).cloned())
        .collect();
    let want = am_triples::vector::rank_by_cosine(&qv, items.iter(), |v| v.as_deref(), None, None);
    let got_ids: Vec<String> = got
        .iter()
        .map(|a| a.assertion_id.clone().unwrap())
        .collect();
    let want_ids: Vec<String> = want
        .iter()
        .map(|(i, _)| rows[*i].assertion_id.clone().unwrap())
        .collect();
    assert_eq!(got_ids, want_ids);
    assert_eq!(reader.embedding_pin().unwrap(), Some(pin));
}

#[test]
fn replace_vectors_leaves_a_zero_vector_row_vectorless_with_one_fallback_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, Some(tiny()));
    store.add(&texts()[..3]).unwrap();
    store.take_warnings();
    let pin = build_pin(Some("m2"), Some(16), "reembed", None).unwrap();
    let mut vectors: HashMap<String, Vec<f32>> = HashMap::new();
    vectors.insert("v000".into(), vec![1.0; 16]);
    vectors.insert("v001".into(), vec![0.0; 16]);
    vectors.insert("v002".into(), vec![0.5; 16]);
    assert_eq!(store.replace_vectors(&vectors, &pin, 3, None).unwrap(), 2);
    assert_eq!(store.stored_vector("v001").unwrap(), None);
    assert_eq!(store.stored_vector("v000").unwrap(), Some(vec![1.0; 16]));
    let warnings = store.take_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("#FALLBACK"), "{warnings:?}");
    assert!(warnings[0].contains("1 of 3"), "{warnings:?}");
}

#[test]
fn replace_vectors_is_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, Some(tiny()));
    store.add(&texts()[..10]).unwrap();
    let before_pin = store.embedding_pin().unwrap();
    let before: Vec<_> = (0..10)
        .map(|i| store.stored_vector(&format!("v{i:03}")).unwrap())
        .collect();
    let pin = build_pin(Some("m2"), Some(16), "reembed", None).unwrap();
    let mut vectors: HashMap<String, Vec<f32>> = HashMap::new();
    vectors.insert("v000".into(), vec![1.0; 16]);
    // A stale row count (another writer) is a Conflict.
    assert_eq!(
        store
            .replace_vectors(&vectors, &pin, 9, None)
            .unwrap_err()
            .kind(),
        ErrorKind::Conflict
    );
    // A NaN, a wrong dimension, or mixed dimensions write nothing either.
    for bad in [vec![f32::NAN; 16], vec![1.0; 8]] {
        let mut v = vectors.clone();
        v.insert("v001".into(), bad);
        let err = store.replace_vectors(&v, &pin, 10, None).unwrap_err();
        assert!(
            matches!(
                err.kind(),
                ErrorKind::InvalidInput | ErrorKind::DimensionMismatch
            ),
            "{err}"
        );
    }
    let wrong_pin = build_pin(Some("m2"), Some(8), "reembed", None).unwrap();
    assert_eq!(
        store
            .replace_vectors(&vectors, &wrong_pin, 10, None)
            .unwrap_err()
            .kind(),
        ErrorKind::DimensionMismatch
    );
    let after: Vec<_> = (0..10)
        .map(|i| store.stored_vector(&format!("v{i:03}")).unwrap())
        .collect();
    assert_eq!(before, after);
    assert_eq!(store.embedding_pin().unwrap(), before_pin);
}

#[test]
fn query_text_without_an_embedder_is_invalid_input_naming_the_embedder() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), None);
    let err = store
        .query(&TripleQuery {
            query_text: Some("x".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("embedder"), "{err}");
}

#[test]
fn scan_serves_mixed_dimensions_with_one_fallback_warning_and_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    store.add(&texts()[..30]).unwrap();
    // A legacy home whose rows hold vectors of two dimensions (written by
    // earlier processes): 16-d BLOBs, one 8-d BLOB, one 0.3.x JSON value f32
    // cannot hold.
    let c = rusqlite::Connection::open(&path).unwrap();
    let e = TinyEmbedder::default();
    let mut stored: Vec<Option<Vec<f64>>> = Vec::new();
    for i in 0..30 {
        let v: Vec<f64> = match i {
            7 => e.embed_f64("odd one")[..8].to_vec(),
            _ => e.embed_f64(&format!("row {i} tea")),
        };
        let cell: rusqlite::types::Value = if i == 11 {
            let mut w = v.clone();
            w[0] = 1e300;
            stored.push(Some(w.clone()));
            serde_json::to_string(&w).unwrap().into()
        } else {
            stored.push(Some(v.iter().map(|x| f64::from(*x as f32)).collect()));
            v.iter()
                .flat_map(|x| (*x as f32).to_le_bytes())
                .collect::<Vec<u8>>()
                .into()
        };
        c.execute(
            "UPDATE triples SET embedding = ?1 WHERE assertion_id = ?2",
            rusqlite::params![cell, format!("v{i:03}")],
        )
        .unwrap();
    }
    let qv = e.embed_texts(&["row 3 tea".into()]).unwrap().remove(0);
    let q = TripleQuery {
        query_vector: Some(qv.clone()),
        limit: 12,
        ..Default::default()
    };
    let got = store.query(&q).unwrap();
    assert_eq!(store.vector_engine(), "reference-linear-scan");
    let w = store.take_warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("#FALLBACK: SQLite vector search uses the reference linear scan"),
        "{w:?}"
    );
    store.query(&q).unwrap();
    assert!(store.take_warnings().is_empty(), "once per handle");
    // The reference: f64 cosine over the overlapping prefix, ties by insertion.
    let q64: Vec<f64> = qv.iter().map(|x| f64::from(*x)).collect();
    let mut want: Vec<(usize, f64)> = stored
        .iter()
        .enumerate()
        .map(|(i, v)| (i, am_triples::vector::cosine_of(&q64, v.as_ref().unwrap())))
        .collect();
    want.sort_by(|a, b| b.1.total_cmp(&a.1));
    want.truncate(12);
    let want: Vec<(String, u64)> = want
        .iter()
        .map(|(i, s)| (format!("v{i:03}"), s.to_bits()))
        .collect();
    assert_eq!(scores(&got), want);
}

#[test]
fn a_creation_pin_is_written_at_open_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let pin = build_pin(Some("tiny-hash-bow-16"), Some(16), "creation", None).unwrap();
    let opts = SqliteStoreOptions {
        embedding_pin: Some(pin.clone()),
        ..Default::default()
    };
    let store = SQLiteTripleStore::open(&path, Some(tiny()), opts).unwrap();
    assert_eq!(store.embedding_pin().unwrap(), Some(pin.clone()));
    store.add(&texts()[..3]).unwrap();
    assert!(
        store.take_warnings().is_empty(),
        "no first-write warning on a pinned home"
    );
    let raw = raw_opt_text(
        &path,
        "SELECT value FROM triples_meta WHERE key = 'embedding_pin'",
    )
    .unwrap();
    assert_eq!(
        raw,
        format!(
            "{{\"model_id\":\"tiny-hash-bow-16\",\"dimension\":16,\"source\":\"creation\",\"pinned_at\":\"{}\"}}",
            pin.pinned_at
        )
    );
}

#[test]
fn a_pinless_store_pins_at_its_first_embedded_write_with_a_fallback_warning() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), Some(tiny()));
    store.add(&[TripleAssertion::new("a", "b", "c")]).unwrap();
    let pin = store.embedding_pin().unwrap().unwrap();
    assert_eq!(pin.source, "first-write");
    assert_eq!(pin.claimed_by.as_deref(), Some("embedder-attribute"));
    assert_eq!(
        (pin.model_id.as_deref(), pin.dimension),
        (Some("tiny-hash-bow-16"), Some(16))
    );
    let w = store.take_warnings();
    assert_eq!(w.len(), 1);
    assert!(
        w[0].starts_with("#FALLBACK: embedding pin created at FIRST WRITE"),
        "{w:?}"
    );
}

#[test]
fn an_embedder_contradicting_the_pin_is_refused_at_open_and_the_file_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    drop(
        SQLiteTripleStore::open(
            &path,
            Some(tiny()),
            SqliteStoreOptions {
                embedding_pin: Some(
                    build_pin(Some("tiny-hash-bow-16"), Some(16), "creation", None).unwrap(),
                ),
                ..Default::default()
            },
        )
        .unwrap(),
    );
    checkpoint(&path);
    let before = bytes(&path);
    let other: Arc<dyn TextEmbedder> = Arc::new(TinyEmbedder {
        model: Some("other-model".into()),
        dim: 16,
    });
    let err =
        SQLiteTripleStore::open(&path, Some(other), SqliteStoreOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused);
    assert!(
        err.to_string().contains("other-model") && err.to_string().contains("tiny-hash-bow-16"),
        "{err}"
    );
    let wider: Arc<dyn TextEmbedder> = Arc::new(TinyEmbedder {
        model: Some("tiny-hash-bow-16".into()),
        dim: 32,
    });
    assert_eq!(
        SQLiteTripleStore::open(&path, Some(wider), SqliteStoreOptions::default())
            .unwrap_err()
            .kind(),
        ErrorKind::Refused
    );
    let declared = build_pin(Some("another"), None, "creation", None).unwrap();
    let err = SQLiteTripleStore::open(
        &path,
        None,
        SqliteStoreOptions {
            embedding_pin: Some(declared),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused);
    checkpoint(&path);
    assert_eq!(bytes(&path), before);
}

#[test]
fn a_wrong_dimension_write_is_refused_with_zero_rows_and_a_wrong_dimension_query_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, Some(tiny()));
    store.add(&[TripleAssertion::new("a", "b", "c")]).unwrap();
    drop(store);
    // The same home opened with an anonymous 8-d embedder (identity unknown at open).
    let eight: Arc<dyn TextEmbedder> = Arc::new(ConstEmbedder(vec![1.0; 8]));
    let store = open(&path, Some(eight));
    let err = store
        .add(&[
            TripleAssertion::new("d", "e", "f"),
            TripleAssertion::new("g", "h", "i"),
        ])
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DimensionMismatch);
    assert_eq!(store.row_count().unwrap(), 1);
    let err = store
        .query(&TripleQuery {
            query_vector: Some(vec![1.0; 8]),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DimensionMismatch);
    let err = store
        .query(&TripleQuery {
            query_text: Some("x".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DimensionMismatch);
}

#[test]
fn read_embedding_pin_peeks_without_writing_to_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    assert_eq!(read_embedding_pin(&path, None).unwrap(), None);
    assert!(!path.exists(), "peeking never creates the file");
    let store = open(&path, Some(tiny()));
    store.add(&[TripleAssertion::new("a", "b", "c")]).unwrap();
    let pin = store.embedding_pin().unwrap();
    drop(store);
    checkpoint(&path);
    let before = bytes(&path);
    assert_eq!(read_embedding_pin(&path, None).unwrap(), pin);
    assert_eq!(
        read_embedding_pin(&path, Some("other_table")).unwrap(),
        None
    );
    assert_eq!(
        read_embedding_pin(&path, Some("bad-name"))
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(bytes(&path), before);
    let not_sqlite = dir.path().join("notes.txt");
    std::fs::write(&not_sqlite, b"hello, not a database at all").unwrap();
    assert_eq!(read_embedding_pin(&not_sqlite, None).unwrap(), None);
    assert_eq!(bytes(&not_sqlite), b"hello, not a database at all");
}

/// Vectors on a small integer grid (many exact ties and near-ties), from the
/// sha256 of the text.
struct GridEmbedder;

impl TextEmbedder for GridEmbedder {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        use sha2::{Digest, Sha256};
        Ok(texts
            .iter()
            .map(|t| {
                let h = Sha256::digest(t.as_bytes());
                let mut v: Vec<f32> = h[..8].iter().map(|b| f32::from(b % 5) - 2.0).collect();
                if v.iter().all(|x| *x == 0.0) {
                    v[0] = 1.0;
                }
                v
            })
            .collect())
    }
}

#[test]
fn the_matrix_path_equals_the_reference_ranking_under_many_ties() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), Some(Arc::new(GridEmbedder)));
    let rows: Vec<TripleAssertion> = (0..600u32)
        .map(|i| {
            TripleAssertion::new(&format!("n{}", i % 97), "p", &format!("o{i}"))
                .with_id(&format!("g{i:04}"))
        })
        .collect();
    store.add(&rows).unwrap();
    let e = GridEmbedder;
    let stored: Vec<Vec<f32>> = rows
        .iter()
        .map(|a| {
            e.embed_texts(&[am_triples::canonical_text(a)])
                .unwrap()
                .remove(0)
        })
        .collect();
    for (qi, limit) in (0..40u32).zip([1i64, 3, 10, 50, 0].into_iter().cycle()) {
        let qv = e.embed_texts(&[format!("query {qi}")]).unwrap().remove(0);
        for min in [None, Some(0.0), Some(0.5)] {
            let q = TripleQuery {
                query_vector: Some(qv.clone()),
                limit,
                min_score: min,
                ..Default::default()
            };
            let got = scores(&store.query(&q).unwrap());
            let lim = usize::try_from(limit).ok().filter(|n| *n > 0);
            let want: Vec<(String, u64)> = am_triples::vector::rank_by_cosine(
                &qv,
                stored.iter(),
                |v| Some(v.as_slice()),
                min,
                lim,
            )
            .into_iter()
            .map(|(i, s)| (format!("g{i:04}"), s.to_bits()))
            .collect();
            assert_eq!(got, want, "query {qi} limit {limit} min {min:?}");
        }
    }
    assert_eq!(store.vector_engine(), "simd-matrix-cache");
}

#[test]
fn replace_vectors_swaps_the_live_embedder_with_the_pin() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&home_path(&dir), Some(tiny()));
    store.add(&texts()[..5]).unwrap();
    let wide = TinyEmbedder {
        model: Some("tiny-32".into()),
        dim: 32,
    };
    let vectors: HashMap<String, Vec<f32>> = (0..5)
        .map(|i| {
            (
                format!("v{i:03}"),
                wide.embed_texts(&[format!("row {i}")]).unwrap().remove(0),
            )
        })
        .collect();
    let pin = build_pin(Some("tiny-32"), Some(32), "reembed", None).unwrap();
    // An embedder contradicting the new pin is refused, nothing written.
    let err = store
        .replace_vectors(&vectors, &pin, 5, Some(tiny()))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused);
    assert_eq!(
        store.stored_vector("v000").unwrap().map(|v| v.len()),
        Some(16)
    );
    assert_eq!(
        store
            .replace_vectors(&vectors, &pin, 5, Some(Arc::new(wide.clone())))
            .unwrap(),
        5
    );
    // Later writes and queries use the new space.
    store
        .add(&[TripleAssertion::new("new", "row", "here").with_id("n1")])
        .unwrap();
    assert_eq!(
        store.stored_vector("n1").unwrap().map(|v| v.len()),
        Some(32)
    );
    let q = TripleQuery {
        query_text: Some("row 3".into()),
        limit: 1,
        ..Default::default()
    };
    assert_eq!(
        store.query(&q).unwrap()[0].assertion_id.as_deref(),
        Some("v003")
    );
}

#[test]
fn scope_and_owner_filters_served_from_the_matrix_cache_rank_exactly_like_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let reader = open(&path, Some(tiny()));
    let writer = open(&path, Some(tiny()));
    let mem = InMemoryTripleStore::new(Some(tiny()));
    // texts() plus ownerless rows (a NULL owner_id never equals a queried owner).
    let mut rows = texts();
    rows.extend((0..30u32).map(|i| {
        TripleAssertion::new(WORDS[(i % 12) as usize], "about", "tea river")
            .with_scope(if i % 2 == 0 { "session" } else { "run" })
            .with_id(&format!("n{i:03}"))
    }));
    let battery = || {
        let mut qs = Vec::new();
        for scope in [None, Some("session"), Some("run"), Some("elsewhere")] {
            for owner in [None, Some("s1"), Some("s2"), Some("nobody")] {
                for (limit, min) in [(0i64, None), (5, None), (10, Some(0.2))] {
                    qs.push(TripleQuery {
                        query_text: Some("tea river fusion".into()),
                        scope: scope.map(Into::into),
                        owner_id: owner.map(Into::into),
                        limit,
                        min_score: min,
                        ..Default::default()
                    });
                }
            }
        }
        qs
    };
    writer.add(&rows[..90]).unwrap();
    mem.add(&rows[..90]).unwrap();
    for q in battery() {
        assert_eq!(
            scores(&reader.query(&q).unwrap()),
            scores(&mem.query(&q).unwrap()),
            "{q:?}"
        );
    }
    // Rows another handle writes after the reader's cache was built carry their
    // scope and owner into the cache too.
    writer.add(&rows[90..]).unwrap();
    mem.add(&rows[90..]).unwrap();
    for q in battery() {
        let got = reader.query(&q).unwrap();
        assert_eq!(scores(&got), scores(&mem.query(&q).unwrap()), "{q:?}");
        for a in &got {
            if let Some(s) = &q.scope {
                assert_eq!(&a.scope, s);
            }
            if let Some(o) = &q.owner_id {
                assert_eq!(a.owner_id.as_ref(), Some(o));
            }
        }
    }
    assert_eq!(reader.vector_engine(), "simd-matrix-cache");
}
