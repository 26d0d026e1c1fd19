//! `LanceDBTripleStore` beyond the conformance suite: literal matching of hostile
//! filter values, the declared gaps (`close_assertion`, `narrow_assertion`), the
//! private runtime called from plain threads and from inside callers' tokio
//! runtimes, persistence across reopen, the stored pin, and `_retrieval`.

use am_backend_lance::{LanceDBTripleStore, LanceStoreOptions};
use am_conformance::HashEmbedder;
use am_triples::vector::cosine;
use am_triples::{
    ErrorKind, Order, TextEmbedder, TripleAssertion, TripleQuery, TripleStore, build_pin,
};
use serde_json::Value;
use std::sync::Arc;

fn uri(dir: &tempfile::TempDir) -> String {
    dir.path().join("kg").to_string_lossy().into_owned()
}

fn open(dir: &tempfile::TempDir, embedder: Option<Arc<dyn TextEmbedder>>) -> LanceDBTripleStore {
    LanceDBTripleStore::open(&uri(dir), embedder, LanceStoreOptions::default()).unwrap()
}

fn all(s: &dyn TripleStore) -> Vec<TripleAssertion> {
    s.query(&TripleQuery {
        limit: 0,
        order: Order::Asc,
        ..TripleQuery::default()
    })
    .unwrap()
}

fn ids(rows: &[TripleAssertion]) -> Vec<String> {
    rows.iter()
        .map(|r| r.assertion_id.clone().unwrap_or_default())
        .collect()
}

const T0: &str = "2026-01-01T00:00:00.000000+00:00";

/// Values that would change a naively built clause's structure.
const HOSTILE: &[&str] = &[
    "o'brien",
    "x' or '1'='1",
    "' or 1=1 --",
    r"back\slash",
    r"ends with \",
    r"\'",
    "''",
    "a'; drop table triple_assertions; --",
    "null",
    "and",
    "select * from t",
    "%_ like",
    "quote\"double",
    "line\nbreak",
];

#[test]
fn hostile_terms_match_literally_in_every_filter() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir, None);
    let mut rows = vec![
        TripleAssertion::new("decoy", "decoy", "decoy")
            .with_owner("decoy")
            .with_observed_at(T0)
            .with_id("decoy"),
    ];
    for (i, h) in HOSTILE.iter().enumerate() {
        rows.push(
            TripleAssertion::new(h, h, h)
                .with_scope(h)
                .with_owner(h)
                .with_observed_at(T0)
                .with_id(&format!("row-{i}")),
        );
    }
    s.add(&rows).unwrap();
    for (i, h) in HOSTILE.iter().enumerate() {
        let want = vec![format!("row-{i}")];
        let by = |q: TripleQuery| ids(&s.query(&TripleQuery { limit: 0, ..q }).unwrap());
        let h = Some((*h).to_owned());
        assert_eq!(
            by(TripleQuery {
                subject: h.clone(),
                ..TripleQuery::default()
            }),
            want,
            "subject {h:?}"
        );
        assert_eq!(
            by(TripleQuery {
                predicate: h.clone(),
                ..TripleQuery::default()
            }),
            want,
            "predicate {h:?}"
        );
        assert_eq!(
            by(TripleQuery {
                object: h.clone(),
                ..TripleQuery::default()
            }),
            want,
            "object {h:?}"
        );
        assert_eq!(
            by(TripleQuery {
                scope: h.clone(),
                ..TripleQuery::default()
            }),
            want,
            "scope {h:?}"
        );
        assert_eq!(
            by(TripleQuery {
                owner_id: h.clone(),
                ..TripleQuery::default()
            }),
            want,
            "owner {h:?}"
        );
    }
    // Nothing was dropped or added by any of those reads.
    assert_eq!(all(&s).len(), HOSTILE.len() + 1);
}

#[test]
fn hostile_assertion_ids_match_literally() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir, None);
    let rows: Vec<TripleAssertion> = HOSTILE
        .iter()
        .map(|h| TripleAssertion::new("a", "b", "c").with_id(h))
        .collect();
    s.add(&rows).unwrap();
    for h in HOSTILE {
        let got = s
            .query(&TripleQuery {
                assertion_ids: Some(vec![(*h).to_owned()]),
                ..TripleQuery::default()
            })
            .unwrap();
        assert_eq!(ids(&got), vec![(*h).to_owned()]);
        // Re-adding a hostile id is a no-op (the existence check quotes it too).
        s.add(&[TripleAssertion::new("z", "z", "z").with_id(h)])
            .unwrap();
    }
    assert_eq!(all(&s).len(), HOSTILE.len());
}

#[test]
fn hostile_timestamps_are_refused_before_any_clause() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir, None);
    s.add(&[TripleAssertion::new("a", "b", "c")]).unwrap();
    let err = s
        .query(&TripleQuery {
            since: Some("2026' OR '1'='1".into()),
            ..TripleQuery::default()
        })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
}

#[test]
fn capabilities_declare_what_the_store_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let c = open(&dir, None).capabilities();
    assert!(!c.close_assertion);
    assert!(!c.narrow_assertion);
    assert!(!c.digest_rewrite);
    assert!(!c.cross_process_writers);
    assert!(c.vector_search && c.persistent && c.change_feed);
}

#[test]
fn narrow_assertion_is_unsupported_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir, None);
    s.add(&[TripleAssertion::new("a", "b", "c")
        .with_validity(Some(T0), Some("2026-06-01T00:00:00+00:00"))
        .with_id("x")])
        .unwrap();
    let before = all(&s);
    let err = s
        .narrow_assertion("x", "2026-02-01T00:00:00+00:00")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert!(err.to_string().contains("narrow_assertion"), "{err}");
    assert_eq!(all(&s), before);
}

#[test]
fn close_assertion_is_unsupported_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir, None);
    s.add(&[TripleAssertion::new("a", "b", "c").with_id("x")])
        .unwrap();
    let before = all(&s);
    let err = s
        .close_assertion("x", "2026-02-01T00:00:00+00:00")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert_eq!(all(&s), before);
}

#[test]
fn rows_and_insertion_order_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = open(&dir, None);
        s.add(&[
            TripleAssertion::new("a", "b", "1")
                .with_observed_at(T0)
                .with_id("1"),
            TripleAssertion::new("a", "b", "2")
                .with_observed_at(T0)
                .with_id("2"),
        ])
        .unwrap();
        s.close().unwrap();
    }
    let s = open(&dir, None);
    s.add(&[TripleAssertion::new("a", "b", "3")
        .with_observed_at(T0)
        .with_id("3")])
        .unwrap();
    // Ties on observed_at follow insertion order, across the reopen.
    assert_eq!(ids(&all(&s)), ["1", "2", "3"]);
    let desc = s.query(&TripleQuery::default()).unwrap();
    assert_eq!(ids(&desc), ["3", "2", "1"]);
    let page = s.assertions_after(0, None, None, 10).unwrap();
    assert_eq!(
        page.rows.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
        [1, 2, 3]
    );
}

#[test]
fn pin_persists_and_a_contradicting_embedder_is_refused_at_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let e: Arc<dyn TextEmbedder> = Arc::new(HashEmbedder::new(8, "model-a"));
    {
        let s = open(&dir, Some(e));
        s.add(&[TripleAssertion::new("a", "b", "c")]).unwrap();
        let pin = s.embedding_pin().unwrap().unwrap();
        assert_eq!(pin.model_id.as_deref(), Some("model-a"));
        assert_eq!(pin.dimension, Some(8));
        assert!(s.take_warnings()[0].starts_with("#FALLBACK"));
    }
    let other: Arc<dyn TextEmbedder> = Arc::new(HashEmbedder::new(8, "model-b"));
    let err = LanceDBTripleStore::open(&uri(&dir), Some(other), LanceStoreOptions::default())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused);
    let declared = build_pin(Some("model-c"), Some(8), "creation", None).unwrap();
    let err = LanceDBTripleStore::open(
        &uri(&dir),
        None,
        LanceStoreOptions {
            embedding_pin: Some(declared),
            ..LanceStoreOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused);
    // The refusals wrote nothing: the pin and the rows are as they were.
    let s = open(&dir, None);
    assert_eq!(
        s.embedding_pin().unwrap().unwrap().model_id.as_deref(),
        Some("model-a")
    );
    assert_eq!(all(&s).len(), 1);
}

#[test]
fn retrieval_carries_the_reference_score_metric_and_distance() {
    let dir = tempfile::tempdir().unwrap();
    let e = HashEmbedder::new(16, "hash");
    let s = open(&dir, Some(Arc::new(e.clone())));
    s.add(&[
        TripleAssertion::new("alpha", "is", "first"),
        TripleAssertion::new("beta", "is", "second"),
        TripleAssertion::new("alpha beta", "is", "both"),
    ])
    .unwrap();
    let got = s
        .query(&TripleQuery {
            query_text: Some("alpha".into()),
            ..TripleQuery::default()
        })
        .unwrap();
    assert_eq!(got.len(), 3);
    let qv = e.embed_one("alpha");
    for r in &got {
        let ret = r.attributes.get("_retrieval").unwrap();
        let want = cosine(
            &qv,
            &s.stored_vector(r.assertion_id.as_deref().unwrap())
                .unwrap()
                .unwrap(),
        );
        assert_eq!(ret["score"].as_f64().unwrap().to_bits(), want.to_bits());
        assert_eq!(
            ret["distance"].as_f64().unwrap().to_bits(),
            (1.0 - want).to_bits()
        );
        assert_eq!(ret["metric"], Value::String("cosine".into()));
    }
}

#[test]
fn a_vector_column_is_added_when_vectors_first_arrive() {
    let dir = tempfile::tempdir().unwrap();
    {
        // No embedder: the table is created without a vector column.
        let s = open(&dir, None);
        s.add(&[TripleAssertion::new("old", "row", "plain").with_id("old")])
            .unwrap();
    }
    let e = HashEmbedder::new(8, "hash").anonymous();
    let s = open(&dir, Some(Arc::new(e)));
    s.add(&[TripleAssertion::new("new", "row", "embedded").with_id("new")])
        .unwrap();
    assert_eq!(s.stored_vector("old").unwrap(), None);
    assert_eq!(s.stored_vector("new").unwrap().map(|v| v.len()), Some(8));
    let got = s
        .query(&TripleQuery {
            query_text: Some("new row".into()),
            ..TripleQuery::default()
        })
        .unwrap();
    assert_eq!(ids(&got), ["new"]);
    assert_eq!(all(&s).len(), 2);
}

#[test]
fn record_edges_are_stored_without_a_vector() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir, Some(Arc::new(HashEmbedder::new(8, "hash"))));
    let mut attrs = am_triples::JsonMap::new();
    attrs.insert("record_edge".into(), Value::Bool(true));
    let mut edge = TripleAssertion::new("rec:a", "supports", "rec:b").with_id("edge");
    edge.attributes = attrs;
    let is_edge = am_triples::text::is_record_edge(&edge.canonicalized().unwrap());
    assert!(is_edge);
    s.add(&[edge, TripleAssertion::new("a", "b", "c").with_id("fact")])
        .unwrap();
    assert_eq!(s.stored_vector("edge").unwrap().is_none(), is_edge);
    assert!(s.stored_vector("fact").unwrap().is_some());
}

#[test]
fn bad_table_or_vector_column_names_are_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    for (table, column) in [
        (Some("bad name"), None),
        (None, Some("v'x")),
        (None, Some("subject")),
    ] {
        let err = LanceDBTripleStore::open(
            &uri(&dir),
            None,
            LanceStoreOptions {
                table_name: table.map(str::to_owned),
                vector_column: column.map(str::to_owned),
                ..LanceStoreOptions::default()
            },
        )
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{table:?} {column:?}");
    }
    assert!(
        !dir.path()
            .join("kg")
            .join("triple_assertions.lance")
            .exists()
    );
}

fn round_trip(tag: &str) {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir, None);
    s.add(&[TripleAssertion::new(tag, "runs", "inside")])
        .unwrap();
    let got = s
        .query(&TripleQuery {
            subject: Some(tag.into()),
            ..TripleQuery::default()
        })
        .unwrap();
    assert_eq!(got.len(), 1);
    // Dropped here, inside the caller's runtime: the private runtime shuts down
    // on its own thread.
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn works_from_inside_a_multi_thread_runtime() {
    round_trip("multi");
}

#[tokio::test(flavor = "current_thread")]
async fn works_from_inside_a_current_thread_runtime() {
    round_trip("current");
}

#[test]
fn works_from_inside_tokio_main() {
    // What `#[tokio::main]` expands to: a runtime built and blocked on.
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            round_trip("main");
            // And from a task spawned on the caller's runtime.
            tokio::spawn(async { round_trip("spawned") }).await.unwrap();
        });
}

#[test]
fn one_store_serves_plain_threads_concurrently() {
    let dir = tempfile::tempdir().unwrap();
    let s = Arc::new(open(&dir, None));
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let s = Arc::clone(&s);
            std::thread::spawn(move || {
                for i in 0..5 {
                    s.add(&[TripleAssertion::new(&format!("t{t}"), "n", &i.to_string())])
                        .unwrap();
                    s.query(&TripleQuery::default()).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let page = s.assertions_after(0, None, None, 100).unwrap();
    // Every add got its own gap-free position.
    assert_eq!(
        page.rows.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
        (1..=20).collect::<Vec<i64>>()
    );
}

#[test]
fn a_digest_rewrite_in_place_is_refused_unsupported_and_writes_nothing() {
    // Spec (api.md "Understanding", "Backends"): LanceDB offers no in-place
    // digest-row rewrite; the understanding verbs refuse it as not implemented.
    let dir = tempfile::tempdir().unwrap();
    let e = HashEmbedder::new(8, "hash").anonymous();
    let s = open(&dir, Some(Arc::new(e)));
    assert!(!s.capabilities().digest_rewrite);
    let mut row = TripleAssertion::new("ex:r1", "digest", "Old words.").with_id("d1");
    row.attributes
        .insert("kind".into(), Value::String("episode".into()));
    s.add(&[row]).unwrap();
    let before = all(&s);
    let vector_before = s.stored_vector("d1").unwrap();
    let stored = &before[0];
    let rewrite = am_triples::DigestRewrite {
        assertion_id: "d1".into(),
        expected_object: stored.object.clone(),
        expected_attributes: stored.attributes.clone(),
        object: "New words.".into(),
        attributes: stored.attributes.clone(),
    };
    let err = s.prepare_digest_rewrite(&rewrite).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
    assert_eq!(all(&s), before, "nothing written");
    assert_eq!(s.stored_vector("d1").unwrap(), vector_before);
}

/// The LanceDB accelerator's `subjects_with_predicate` (one filtered scan
/// per 512 subjects) answers what one query per subject answers, for
/// canonicalized, blank, hostile and chunked subject lists.
#[test]
fn subjects_with_predicate_answers_as_one_query_per_subject_does() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir, None);
    let mem = am_triples::InMemoryTripleStore::new(None);
    let mut rows = Vec::new();
    for (i, subject) in HOSTILE.iter().chain(&["Subject0", "subject1"]).enumerate() {
        let predicate = ["knows", "likes"][i % 2];
        rows.push(TripleAssertion::new(subject, predicate, "ex:o").with_scope("session"));
    }
    for i in 0..600 {
        rows.push(TripleAssertion::new(
            &format!("ex:many-{i}"),
            "knows",
            "ex:o",
        ));
    }
    s.add(&rows).unwrap();
    mem.add(&rows).unwrap();
    let mut subjects: Vec<String> = HOSTILE.iter().map(|h| (*h).to_owned()).collect();
    subjects.extend([" SUBJECT0 ", "Subject1", "nobody", ""].map(str::to_owned));
    subjects.extend((0..700).step_by(3).map(|i| format!("ex:many-{i}")));
    let fallback = |predicate: &str| -> std::collections::HashSet<String> {
        subjects
            .iter()
            .filter(|subject| {
                !mem.query(&TripleQuery {
                    subject: Some((*subject).clone()),
                    predicate: Some(predicate.to_owned()),
                    limit: 1,
                    ..TripleQuery::default()
                })
                .unwrap()
                .is_empty()
            })
            .cloned()
            .collect()
    };
    let accelerated: &dyn TripleStore = &s;
    assert!(accelerated.accelerator().is_some());
    for predicate in ["knows", "LIKES", "owns", ""] {
        let got = accelerated
            .subjects_with_predicate(&subjects, predicate)
            .unwrap();
        assert_eq!(got, fallback(predicate), "predicate {predicate:?}");
    }
}
