//! An id lookup answers like the in-memory store whatever the number of ids
//! (SQLite caps a statement at 32,766 parameters; a long list must still work).

use am_backend_sqlite::store::{SQLiteTripleStore, SqliteStoreOptions};
use am_triples::{InMemoryTripleStore, TripleAssertion, TripleQuery, TripleStore};

#[test]
fn an_id_lookup_with_more_ids_than_sqlite_parameters_answers_like_the_in_memory_store() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SQLiteTripleStore::open(
        dir.path().join("h.sqlite3"),
        None,
        SqliteStoreOptions::default(),
    )
    .unwrap();
    let memory = InMemoryTripleStore::new(None);
    let rows: Vec<TripleAssertion> = (0..300)
        .map(|i| {
            TripleAssertion::new("s", "p", &format!("o{i}"))
                .with_id(&format!("id-{i}"))
                .with_observed_at(&format!("2026-01-01T00:00:{:02}Z", i % 60))
        })
        .collect();
    sqlite.add(&rows).unwrap();
    memory.add(&rows).unwrap();
    for n in [3usize, 256, 257, 40_000] {
        let mut ids: Vec<String> = (0..n).map(|i| format!("absent-{i}")).collect();
        ids.extend(["id-7".to_owned(), "id-299".to_owned(), "id-150".to_owned()]);
        let q = TripleQuery {
            assertion_ids: Some(ids),
            limit: 0,
            ..TripleQuery::default()
        };
        let got = sqlite.query(&q).unwrap();
        let want = memory.query(&q).unwrap();
        assert_eq!(got, want, "{n} absent ids");
        assert_eq!(got.len(), 3);
    }
}
