//! The optional [`ReadAccelerator`]: a store's accelerated reads answer what
//! their fallbacks answer, and a store without one gets the fallbacks.
//!
//! Spec: api.md "TripleStore protocol and the three stores" (the reads a store
//! answers are the same whatever path answers them).

use am_triples::{
    Capabilities, ErrorKind, InMemoryTripleStore, ReadAccelerator, TripleAssertion, TripleQuery,
    TripleStore,
};

/// A store that forwards the minimal contract only: no accelerator.
struct Plain(InMemoryTripleStore);

impl TripleStore for Plain {
    fn capabilities(&self) -> Capabilities {
        self.0.capabilities()
    }
    fn add(&self, a: &[TripleAssertion]) -> am_triples::Result<Vec<String>> {
        self.0.add(a)
    }
    fn query(&self, q: &TripleQuery) -> am_triples::Result<Vec<TripleAssertion>> {
        self.0.query(q)
    }
    fn close(&self) -> am_triples::Result<()> {
        self.0.close()
    }
}

fn rows() -> Vec<TripleAssertion> {
    let mut out = Vec::new();
    for i in 0..6 {
        let predicate = ["knows", "likes"][i % 2];
        out.push(
            TripleAssertion::new(&format!("Subject{i}"), predicate, &format!("ex:o{i}"))
                .with_scope(["session", "global"][i % 2]),
        );
    }
    out
}

fn subjects() -> Vec<String> {
    [
        "Subject0",
        "subject1",
        " SUBJECT2 ",
        "Subject3",
        "nobody",
        "",
        "Subject0",
    ]
    .map(str::to_owned)
    .to_vec()
}

#[test]
fn the_in_memory_accelerator_answers_subjects_with_predicate_as_one_query_per_subject_does() {
    let mem = InMemoryTripleStore::new(None);
    mem.add(&rows()).unwrap();
    let plain = Plain(InMemoryTripleStore::new(None));
    plain.add(&rows()).unwrap();
    let accelerated: &dyn TripleStore = &mem;
    let fallback: &dyn TripleStore = &plain;
    assert!(accelerated.accelerator().is_some());
    assert!(fallback.accelerator().is_none());
    for predicate in ["knows", "LIKES", "owns", ""] {
        let want = fallback
            .subjects_with_predicate(&subjects(), predicate)
            .unwrap();
        assert_eq!(
            mem.subjects_with_predicate(&subjects(), predicate).unwrap(),
            want,
            "predicate {predicate:?}"
        );
        assert_eq!(
            accelerated
                .subjects_with_predicate(&subjects(), predicate)
                .unwrap(),
            want,
            "predicate {predicate:?} through dyn"
        );
        if predicate == "knows" {
            assert!(
                want.contains(" SUBJECT2 ") && !want.contains("subject1"),
                "{want:?}"
            );
        }
    }
}

#[test]
fn a_store_without_an_accelerator_has_no_keyword_index_and_no_ranking_by_position() {
    let plain = Plain(InMemoryTripleStore::new(None));
    plain.add(&rows()).unwrap();
    let s: &dyn TripleStore = &plain;
    let tokens = vec!["subject0".to_owned()];
    let err = s.query_keywords(&tokens, "session", None, 10).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert!(err.to_string().contains("no keyword index"), "{err}");
    assert_eq!(
        s.keyword_positions(&tokens, "session", None, 10, (0, i64::MAX))
            .unwrap(),
        None
    );
    assert_eq!(
        s.keyword_scores(&tokens, "session", None, 10, (0, i64::MAX))
            .unwrap(),
        None
    );
    let q = TripleQuery {
        query_vector: Some(vec![1.0, 0.0]),
        ..TripleQuery::default()
    };
    assert_eq!(s.rank_positions(&q).unwrap(), None);
}
