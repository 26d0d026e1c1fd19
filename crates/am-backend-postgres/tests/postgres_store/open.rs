//! Opening: what outlives a handle, and what is refused at open.

use crate::{Test, database, store};
use am_backend_postgres::testing::TempServer;
use am_backend_postgres::{PostgresStoreOptions, PostgresTripleStore};
use am_conformance::HashEmbedder;
use am_triples::pin::{PIN_SOURCE_CREATION, build_pin};
use am_triples::{ErrorKind, TextEmbedder, TripleAssertion, TripleQuery, TripleStore};
use std::sync::Arc;

pub(crate) const TESTS: &[Test] = &[
    (
        "open::rows_vectors_and_the_pin_outlive_the_handle",
        rows_vectors_and_the_pin_outlive_the_handle,
    ),
    (
        "open::a_malformed_connection_string_is_invalid_input_and_not_echoed",
        a_malformed_connection_string_is_invalid_input_and_not_echoed,
    ),
    (
        "open::a_table_name_outside_the_identifier_rule_is_invalid_input",
        a_table_name_outside_the_identifier_rule_is_invalid_input,
    ),
    (
        "open::two_tables_in_one_database_are_two_stores",
        two_tables_in_one_database_are_two_stores,
    ),
    (
        "open::an_unreachable_server_is_a_storage_error",
        an_unreachable_server_is_a_storage_error,
    ),
];

fn embedder() -> Arc<dyn TextEmbedder> {
    Arc::new(HashEmbedder::new(8, "pg-open"))
}

fn rows_vectors_and_the_pin_outlive_the_handle(server: &TempServer) {
    let db = database(server);
    let pin = build_pin(Some("pg-open"), Some(8), PIN_SOURCE_CREATION, None).unwrap();
    let first = PostgresTripleStore::open(
        &db,
        Some(embedder()),
        PostgresStoreOptions {
            embedding_pin: Some(pin.clone()),
            ..PostgresStoreOptions::default()
        },
    )
    .unwrap();
    let mut a = TripleAssertion::new("pools", "exhaust", "under load").with_id("a1");
    a.attributes.insert("k".into(), "v".into());
    first.add(&[a]).unwrap();
    let before = first.query(&TripleQuery::default()).unwrap();
    let vector = first.stored_vector("a1").unwrap();
    assert!(vector.is_some());
    first.close().unwrap();
    drop(first);
    let again =
        PostgresTripleStore::open(&db, Some(embedder()), PostgresStoreOptions::default()).unwrap();
    assert_eq!(again.query(&TripleQuery::default()).unwrap(), before);
    assert_eq!(again.stored_vector("a1").unwrap(), vector);
    let stored = again.embedding_pin().unwrap().unwrap();
    assert_eq!(
        (stored.model_id, stored.dimension, stored.source),
        (pin.model_id, pin.dimension, pin.source)
    );
    // The stored pin refuses a contradicting embedder at open.
    let other: Arc<dyn TextEmbedder> = Arc::new(HashEmbedder::new(4, "other-model"));
    let err =
        PostgresTripleStore::open(&db, Some(other), PostgresStoreOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused, "{err}");
}

fn a_malformed_connection_string_is_invalid_input_and_not_echoed(_: &TempServer) {
    let err = PostgresTripleStore::open(
        "host=/nowhere password=s3cret bogus_key=1",
        None,
        PostgresStoreOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    assert!(!err.to_string().contains("s3cret"), "{err}");
}

fn a_table_name_outside_the_identifier_rule_is_invalid_input(server: &TempServer) {
    let db = database(server);
    for table in ["", "Triples", "1t", "t; DROP TABLE x", "t-x"] {
        let err = PostgresTripleStore::open(
            &db,
            None,
            PostgresStoreOptions {
                table: table.into(),
                ..PostgresStoreOptions::default()
            },
        )
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{table:?}: {err}");
    }
}

fn two_tables_in_one_database_are_two_stores(server: &TempServer) {
    let db = database(server);
    let a = store(&db);
    let b = PostgresTripleStore::open(
        &db,
        None,
        PostgresStoreOptions {
            table: "other".into(),
            ..PostgresStoreOptions::default()
        },
    )
    .unwrap();
    a.add(&[TripleAssertion::new("x", "y", "z")]).unwrap();
    assert_eq!(a.query(&TripleQuery::default()).unwrap().len(), 1);
    assert!(b.query(&TripleQuery::default()).unwrap().is_empty());
    assert_eq!(b.table(), "other");
}

fn an_unreachable_server_is_a_storage_error(server: &TempServer) {
    let _ = server;
    let dir = tempfile::tempdir().unwrap();
    let err = PostgresTripleStore::open(
        &format!(
            "host={} port=5432 user=postgres dbname=x",
            dir.path().display()
        ),
        None,
        PostgresStoreOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Storage, "{err}");
}
