//! Layer 1 end to end on the in-memory store: write assertions with provenance,
//! read them back with structured and time filters, supersede a fact by closing
//! its validity window, page the change feed, and rank by meaning.
//!
//! Run: `cargo run -p am-triples --example quickstart`.
//! The semantic part uses the conformance suite's deterministic hashing embedder;
//! a real deployment binds an embedder from `am-embed` instead.

use am_conformance::HashEmbedder;
use am_triples::{
    InMemoryTripleStore, JsonMap, Order, TextEmbedder, TripleAssertion, TripleQuery, TripleStore,
};
use serde_json::json;
use std::sync::Arc;

fn provenance(source: &str) -> JsonMap {
    let mut p = JsonMap::new();
    p.insert("source".into(), json!(source));
    p
}

fn show(title: &str, rows: &[TripleAssertion]) {
    println!("{title}");
    for r in rows {
        let score = am_triples::store::retrieval_score(r)
            .map_or(String::new(), |s| format!("  (cosine {s:.3})"));
        println!(
            "  {} {} {}  [{} / {}] observed {}{}",
            r.subject,
            r.predicate,
            r.object,
            r.scope,
            r.owner_id.as_deref().unwrap_or("-"),
            r.observed_at,
            score
        );
    }
}

fn main() -> am_triples::Result<()> {
    let embedder: Arc<dyn TextEmbedder> = Arc::new(HashEmbedder::new(64, "quickstart-hash-64"));
    let store = InMemoryTripleStore::new(Some(embedder));

    // 1. Write: terms are canonicalized (trimmed, lowercased), timestamps normalized
    //    to canonical UTC; `add` returns the ids in input order.
    let ids = store.add(&[
        TripleAssertion::new("Scrooge", "works_at", "Counting House")
            .with_scope("session")
            .with_owner("christmas-carol")
            .with_observed_at("1843-12-24T09:00:00+00:00")
            .with_validity(Some("1843-01-01"), None)
            .with_provenance(provenance("chapter 1")),
        TripleAssertion::new("Scrooge", "is", "a miser")
            .with_scope("session")
            .with_owner("christmas-carol")
            .with_observed_at("1843-12-24T10:00:00+01:00")
            .with_confidence(0.9)
            .with_provenance(provenance("chapter 1")),
        TripleAssertion::new_literal("Marley", "said", "You will be haunted by Three Spirits")
            .with_scope("session")
            .with_owner("christmas-carol")
            .with_observed_at("1843-12-24T23:00:00Z")
            .with_provenance(provenance("chapter 1")),
    ])?;
    println!("wrote {} assertions: {ids:?}\n", ids.len());
    println!(
        "pin after the first embedded write: {:?}",
        store.embedding_pin()?
    );
    println!("warnings: {:?}\n", store.take_warnings());

    // 2. Structured reads: exact terms, scope, owner, time filters, order, limit.
    let about_scrooge = store.query(&TripleQuery {
        subject: Some("SCROOGE".into()),
        scope: Some("session".into()),
        owner_id: Some("christmas-carol".into()),
        order: Order::Asc,
        ..TripleQuery::default()
    })?;
    show("Scrooge, oldest first:", &about_scrooge);
    let since = store.query(&TripleQuery {
        since: Some("1843-12-24T09:30:00Z".into()),
        limit: 0,
        ..TripleQuery::default()
    })?;
    show("\nobserved since 09:30 UTC (newest first):", &since);

    // 3. Supersede: a new fact, and the old window closed in place.
    store.add(&[TripleAssertion::new("Scrooge", "is", "generous")
        .with_scope("session")
        .with_owner("christmas-carol")
        .with_observed_at("1843-12-25T08:00:00Z")
        .with_validity(Some("1843-12-25T08:00:00Z"), None)
        .with_provenance(provenance("stave 5"))])?;
    let miser = about_scrooge
        .iter()
        .find(|a| a.object == "a miser")
        .and_then(|a| a.assertion_id.clone())
        .unwrap_or_default();
    let closed = store.close_assertion(&miser, "1843-12-25T08:00:00Z")?;
    println!("\nclosed the miser window: {closed}");
    let christmas = store.query(&TripleQuery {
        subject: Some("scrooge".into()),
        predicate: Some("is".into()),
        active_at: Some("1843-12-25T12:00:00Z".into()),
        ..TripleQuery::default()
    })?;
    show("what Scrooge is on Christmas Day:", &christmas);

    // 4. The change feed: everything after a cursor, in insertion order.
    let page = store.assertions_after(0, Some("session"), None, 2)?;
    println!(
        "\nchange feed page: {} rows, next cursor {}",
        page.rows.len(),
        page.next_cursor
    );

    // 5. Semantic search: rank by cosine; results carry `_retrieval`.
    let ranked = store.query(&TripleQuery {
        query_text: Some("three spirits haunted".into()),
        limit: 2,
        ..TripleQuery::default()
    })?;
    show("\nclosest to 'three spirits haunted':", &ranked);

    // 6. Works-or-loud: a bad timestamp is an error and writes nothing.
    let before = store.len();
    let err = store
        .add(&[TripleAssertion::new("a", "b", "c").with_observed_at("yesterday")])
        .unwrap_err();
    assert_eq!(store.len(), before, "a refusal writes nothing");
    println!(
        "\nrefused ({}): {err}; rows still {}",
        err.kind(),
        store.len()
    );
    store.close()
}
