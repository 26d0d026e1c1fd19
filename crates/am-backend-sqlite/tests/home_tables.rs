//! The table kit (`am_journal::table`) on both stacks: the in-memory pair's
//! tables beside its task queue and the SQLite home's tables created from
//! their definitions. One test per sentence of the kit's `# Contract`, each
//! on both homes with the same answers.
//!
//! Spec: none (the kit is this port's); what it stores for the spec is
//! `memq_maintenance` (am-system/tests/maintenance.rs).

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_conformance::RecordingGuard;
use am_journal::SearchState;
use am_journal::{
    Cell, CellRow, Column, HomeRow, InMemoryJournal, InMemoryTaskQueue, Index, MemoryHome,
    MemoryJournal, PairHome, ScopeBinding, TableDef, get_row, put_cell_row, put_cell_rows, put_row,
    rows,
};
use am_triples::{
    CommitPoint, ErrorKind, InMemoryTripleStore, TextEmbedder, TripleAssertion, TripleQuery,
    TripleStore,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

const NIGHTS: TableDef = TableDef {
    name: "memq_kit_nights",
    columns: &[
        Column::text("scope"),
        Column::integer("n"),
        Column::text("note").nullable(),
        Column::real("weight"),
        Column::json("detail"),
    ],
    key: 2,
    indexes: &[Index {
        name: "idx_memq_kit_nights_note",
        columns: &["note"],
    }],
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Night {
    scope: String,
    n: i64,
    note: Option<String>,
    weight: f64,
    detail: Value,
}

impl HomeRow for Night {
    const TABLE: &'static TableDef = &NIGHTS;
}

impl CellRow for Night {
    fn cells(&self) -> Vec<Cell<'_>> {
        vec![
            Cell::Text(&self.scope),
            Cell::Integer(self.n),
            Cell::text_or_null(self.note.as_deref()),
            Cell::Real(self.weight),
            Cell::Json(&self.detail),
        ]
    }
}

fn night(scope: &str, n: i64, note: Option<&str>) -> Night {
    Night {
        scope: scope.to_owned(),
        n,
        note: note.map(str::to_owned),
        weight: 0.5,
        detail: json!({"n": n, "nested": {"b": [1, 2.5, null], "a": "x"}}),
    }
}

/// An embedder that always fails (an unreachable endpoint): a store add
/// that embeds fails.
struct Unreachable;

impl TextEmbedder for Unreachable {
    fn embed_texts(&self, _: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        Err(am_triples::Error::embedder("the endpoint is unreachable"))
    }
}

struct Stack {
    name: &'static str,
    home: Arc<dyn MemoryHome>,
    store: Arc<dyn TripleStore>,
    journal: Arc<dyn MemoryJournal>,
    path: Option<PathBuf>,
    _dir: tempfile::TempDir,
}

fn memory_stack(embedder: Option<Arc<dyn TextEmbedder>>) -> Stack {
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(embedder));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    Stack {
        name: "memory",
        home: Arc::new(PairHome::with_task_queue(
            store.clone(),
            journal.clone(),
            Arc::new(InMemoryTaskQueue::new()),
        )),
        store,
        journal,
        path: None,
        _dir: tempfile::tempdir().unwrap(),
    }
}

fn sqlite_stack() -> Stack {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let home = SqliteHome::open(&path).unwrap();
    let memory_home = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
    memory_home.open_task_queue().unwrap();
    Stack {
        name: "sqlite",
        store: memory_home.sqlite_store().clone(),
        journal: memory_home.sqlite_journal().clone(),
        home: Arc::new(memory_home),
        path: Some(path),
        _dir: dir,
    }
}

fn stacks() -> Vec<Stack> {
    vec![memory_stack(None), sqlite_stack()]
}

/// One transaction putting `rows` (the kit writes at whatever point its
/// caller names).
fn put(s: &Stack, rows: &[Night]) -> am_triples::Result<Vec<String>> {
    s.home.transaction(CommitPoint::TasksEnqueue, &mut |tx| {
        for r in rows {
            put_row(tx.tables()?, r)?;
        }
        Ok(())
    })
}

fn scan(s: &Stack, filter: &[(&str, Value)]) -> am_triples::Result<Vec<Night>> {
    let mut out = Vec::new();
    s.home.read_tables(&mut |r| {
        out = rows(r, filter)?;
        Ok(())
    })?;
    Ok(out)
}

fn get(s: &Stack, key: &[Value]) -> Option<Night> {
    let mut out = None;
    s.home
        .read_tables(&mut |r| {
            out = get_row(r, key)?;
            Ok(())
        })
        .unwrap();
    out
}

/// What a write that lands nothing must leave: the table's rows, the
/// journal's seq, the store's rows, and on SQLite the file's and WAL's bytes.
type State = (Vec<Night>, i64, usize, Option<(Vec<u8>, Vec<u8>)>);

fn state(s: &Stack) -> State {
    let bytes = s.path.as_ref().map(|p| {
        (
            std::fs::read(p).unwrap(),
            std::fs::read(format!("{}-wal", p.display())).unwrap_or_default(),
        )
    });
    (
        scan(s, &[]).unwrap(),
        s.journal.current_seq().unwrap(),
        s.store
            .query(&TripleQuery {
                limit: 0,
                ..TripleQuery::default()
            })
            .unwrap()
            .len(),
        bytes,
    )
}

fn binding(id: &str) -> ScopeBinding {
    ScopeBinding::new(&format!("ex:{id}"), "session", "s1", SearchState::Indexed)
}

#[test]
fn a_row_put_in_a_transaction_whose_body_fails_lands_nothing() {
    for s in stacks() {
        put(&s, &[night("life", 1, None)]).unwrap();
        let before = state(&s);
        let err = s
            .home
            .transaction(CommitPoint::TasksEnqueue, &mut |tx| {
                tx.journal().append_bindings(&[binding("b1")])?;
                let t = tx.tables()?;
                put_row(t, &night("life", 2, Some("new")))?;
                put_row(t, &night("life", 1, Some("replaced")))?;
                // The transaction's reads see its own writes.
                assert_eq!(
                    get_row::<Night>(t, &[json!("life"), json!(1)])?.and_then(|n| n.note),
                    Some("replaced".into())
                );
                Err(am_triples::Error::invalid("the body fails after its puts"))
            })
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{}", s.name);
        assert_eq!(state(&s), before, "{}: the failed body wrote", s.name);
    }
}

#[test]
fn a_row_put_in_a_transaction_the_guard_refuses_lands_nothing() {
    for s in stacks() {
        let guard = RecordingGuard::default();
        guard.install(s.store.as_ref(), s.journal.as_ref());
        put(&s, &[night("life", 1, None)]).unwrap();
        assert_eq!(guard.take(), ["tasks.enqueue"], "{}", s.name);
        let before = state(&s);
        guard.refuse(true);
        let err = s
            .home
            .transaction(CommitPoint::TasksEnqueue, &mut |tx| {
                tx.journal().append_bindings(&[binding("b1")])?;
                put_row(tx.tables()?, &night("life", 2, None))?;
                put_row(tx.tables()?, &night("life", 1, Some("replaced")))
            })
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Refused, "{}", s.name);
        assert_eq!(state(&s), before, "{}: the refused write wrote", s.name);
        guard.refuse(false);
        put(&s, &[night("life", 2, None)]).unwrap();
        assert_eq!(scan(&s, &[]).unwrap().len(), 2, "{}", s.name);
    }
}

#[test]
fn a_row_put_beside_a_failing_store_add_lands_nothing() {
    // The in-memory pair adds its staged rows after the body (the add fails
    // at its embedder); the SQLite home adds them inside it (a trigger
    // aborts the insert).
    let sqlite = sqlite_stack();
    rusqlite::Connection::open(sqlite.path.as_ref().unwrap())
        .unwrap()
        .execute_batch(
            "CREATE TRIGGER fault BEFORE INSERT ON triples BEGIN SELECT RAISE(ABORT, 'injected'); END",
        )
        .unwrap();
    for s in [memory_stack(Some(Arc::new(Unreachable))), sqlite] {
        put(&s, &[night("life", 1, None)]).unwrap();
        let before = state(&s);
        let rows = s
            .home
            .prepare_rows(&[TripleAssertion::new("ex:pool", "ex:state", "dry").with_id("a1")])
            .unwrap();
        let err = s
            .home
            .transaction(CommitPoint::TasksEnqueue, &mut |tx| {
                put_row(tx.tables()?, &night("life", 2, None))?;
                put_row(tx.tables()?, &night("life", 1, Some("replaced")))?;
                tx.store().add(&rows)?;
                tx.journal().append_bindings(&[binding("b1")])
            })
            .unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Embedder | ErrorKind::Storage),
            "{}: {err}",
            s.name
        );
        assert_eq!(
            state(&s),
            before,
            "{}: the failed add's rows landed",
            s.name
        );
    }
}

#[test]
fn put_stores_the_row_under_its_key_replacing_the_one_stored_there() {
    let mut answers = Vec::new();
    for s in stacks() {
        put(
            &s,
            &[night("life", 1, Some("first")), night("life", 2, None)],
        )
        .unwrap();
        let mut again = night("life", 1, Some("second"));
        again.weight = 2.0;
        again.detail = json!({"replaced": true});
        put(&s, &[again.clone()]).unwrap();
        assert_eq!(
            get(&s, &[json!("life"), json!(1)]),
            Some(again),
            "{}",
            s.name
        );
        let all = scan(&s, &[]).unwrap();
        assert_eq!(all.len(), 2, "{}", s.name);
        assert_eq!(get(&s, &[json!("life"), json!(3)]), None, "{}", s.name);
        answers.push(all);
    }
    assert_eq!(answers[0], answers[1], "the two homes answered differently");
}

#[test]
fn scan_answers_the_rows_whose_filtered_columns_equal_the_filters_in_key_order() {
    let mut answers = Vec::new();
    for s in stacks() {
        // Out of order: integers by value (9 before 10), text by its bytes
        // ("B" before "a" before "é").
        put(
            &s,
            &[
                night("é", 1, Some("x")),
                night("a", 10, None),
                night("a", 9, Some("x")),
                night("B", 5, Some("y")),
            ],
        )
        .unwrap();
        let keys = |v: Vec<Night>| -> Vec<(String, i64)> {
            v.into_iter().map(|n| (n.scope, n.n)).collect()
        };
        let all = keys(scan(&s, &[]).unwrap());
        assert_eq!(
            all,
            [
                ("B".to_owned(), 5),
                ("a".to_owned(), 9),
                ("a".to_owned(), 10),
                ("é".to_owned(), 1)
            ],
            "{}",
            s.name
        );
        let x = keys(scan(&s, &[("note", json!("x"))]).unwrap());
        assert_eq!(x, [("a".to_owned(), 9), ("é".to_owned(), 1)], "{}", s.name);
        let none = keys(scan(&s, &[("note", Value::Null)]).unwrap());
        assert_eq!(none, [("a".to_owned(), 10)], "{}", s.name);
        let two = keys(scan(&s, &[("scope", json!("a")), ("note", json!("x"))]).unwrap());
        assert_eq!(two, [("a".to_owned(), 9)], "{}", s.name);
        let by_real = scan(&s, &[("weight", json!(0.5))]).unwrap().len();
        assert_eq!(by_real, 4, "{}", s.name);
        assert!(scan(&s, &[("n", json!(7))]).unwrap().is_empty());
        answers.push(scan(&s, &[]).unwrap());
    }
    assert_eq!(answers[0], answers[1], "the two homes answered differently");
}

#[test]
fn a_row_or_a_read_that_is_not_the_tables_is_refused_invalid_input_and_writes_nothing() {
    for s in stacks() {
        put(&s, &[night("life", 1, None)]).unwrap();
        let before = state(&s);
        for bad in [
            json!({"scope": "life", "n": 2, "weight": 1.0, "detail": {}, "colour": "red"}),
            json!({"scope": "life", "n": 2.5, "weight": 1.0, "detail": {}}),
            json!({"scope": 5, "n": 2, "weight": 1.0, "detail": {}}),
            json!({"scope": "life", "n": 2, "weight": "heavy", "detail": {}}),
            json!({"scope": "life", "n": 2, "weight": 1.0}),
        ] {
            let row = bad.as_object().unwrap().clone();
            let err = s
                .home
                .transaction(CommitPoint::TasksEnqueue, &mut |tx| {
                    tx.tables()?.put(&NIGHTS, &row)
                })
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{} {bad}", s.name);
        }
        assert_eq!(state(&s), before, "{}: a refused row wrote", s.name);
        for filter in [
            vec![("detail", json!({}))],
            vec![("colour", json!("red"))],
            vec![("n", json!("one"))],
        ] {
            let err = scan(&s, &filter).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{} {filter:?}", s.name);
        }
        let mut err = None;
        s.home
            .read_tables(&mut |r| {
                err = r.get(&NIGHTS, &[json!("life")]).err();
                Ok(())
            })
            .unwrap();
        assert_eq!(err.map(|e| e.kind()), Some(ErrorKind::InvalidInput));
    }
}

#[test]
fn a_table_never_written_reads_empty_and_the_read_creates_nothing() {
    for s in stacks() {
        let before = state(&s);
        assert!(scan(&s, &[]).unwrap().is_empty(), "{}", s.name);
        assert!(scan(&s, &[("note", json!("x"))]).unwrap().is_empty());
        assert_eq!(get(&s, &[json!("life"), json!(1)]), None);
        assert_eq!(state(&s), before, "{}: a read wrote", s.name);
    }
    let s = sqlite_stack();
    let c = rusqlite::Connection::open(s.path.as_ref().unwrap()).unwrap();
    let tables = |c: &rusqlite::Connection| -> i64 {
        c.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('memq_kit_nights', 'idx_memq_kit_nights_note')",
            [],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(scan(&s, &[]).unwrap(), Vec::new());
    assert_eq!(tables(&c), 0, "a read created the table");
    put(&s, &[night("life", 1, None)]).unwrap();
    assert_eq!(
        tables(&c),
        2,
        "the first write creates the table and its index"
    );
}

#[test]
fn a_home_without_a_task_queue_has_no_tables() {
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let pair = PairHome::new(store, journal);
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let sqlite = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
    for h in [&pair as &dyn MemoryHome, &sqlite] {
        let err = h.read_tables(&mut |_| Ok(())).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported);
        let err = h
            .transaction(CommitPoint::TasksEnqueue, &mut |tx| {
                put_row(tx.tables()?, &night("life", 1, None))
            })
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported);
    }
}

#[test]
fn a_row_put_by_its_cells_is_the_row_put_by_its_object_and_bad_cells_are_refused() {
    let mut answers = Vec::new();
    for s in stacks() {
        let rows = [
            night("life", 1, Some("first")),
            night("life", 2, None),
            Night {
                weight: 3.0,
                detail: json!(["a", {"b": null}]),
                ..night("work", 7, Some(""))
            },
        ];
        s.home
            .transaction(CommitPoint::TasksEnqueue, &mut |tx| {
                put_cell_row(tx.tables()?, &rows[0])?;
                put_cell_rows(tx.tables()?, &rows[1..])
            })
            .unwrap();
        let by_cells = scan(&s, &[]).unwrap();
        put(&s, &rows).unwrap();
        assert_eq!(scan(&s, &[]).unwrap(), by_cells, "{}", s.name);
        let mut sorted = rows.to_vec();
        sorted.sort_by(|a, b| (&a.scope, a.n).cmp(&(&b.scope, b.n)));
        assert_eq!(by_cells, sorted, "{}", s.name);
        // An integer in a real column reads back a float.
        s.home
            .transaction(CommitPoint::TasksEnqueue, &mut |tx| {
                tx.tables()?.put_cells(
                    &NIGHTS,
                    &[
                        Cell::Text("life"),
                        Cell::Integer(9),
                        Cell::Null,
                        Cell::Integer(2),
                        Cell::Json(&Value::Null),
                    ],
                )
            })
            .unwrap_err();
        let detail = json!({});
        s.home
            .transaction(CommitPoint::TasksEnqueue, &mut |tx| {
                tx.tables()?.put_cells(
                    &NIGHTS,
                    &[
                        Cell::Text("life"),
                        Cell::Integer(9),
                        Cell::Null,
                        Cell::Integer(2),
                        Cell::Json(&detail),
                    ],
                )
            })
            .unwrap();
        assert_eq!(
            get(&s, &[json!("life"), json!(9)]).map(|n| n.weight),
            Some(2.0)
        );
        // A JSON cell given as a value to serialize stores its JSON.
        let list = vec![Night::clone(&rows[0])];
        s.home
            .transaction(CommitPoint::TasksEnqueue, &mut |tx| {
                tx.tables()?.put_cells(
                    &NIGHTS,
                    &[
                        Cell::Text("life"),
                        Cell::Integer(10),
                        Cell::Null,
                        Cell::Real(1.0),
                        Cell::Serialized(&list),
                    ],
                )
            })
            .unwrap();
        assert_eq!(
            get(&s, &[json!("life"), json!(10)]).map(|n| n.detail),
            Some(serde_json::to_value(&list).unwrap()),
            "{}",
            s.name
        );
        let before = state(&s);
        let text = json!("x");
        for bad in [
            // Too few cells, a null key, a text in an integer column, a
            // real in an integer column, a null in a column not nullable
            // (a JSON null, a non-finite real).
            vec![Cell::Text("life"), Cell::Integer(2)],
            vec![
                Cell::Null,
                Cell::Integer(2),
                Cell::Null,
                Cell::Real(1.0),
                Cell::Json(&text),
            ],
            vec![
                Cell::Text("life"),
                Cell::Text("2"),
                Cell::Null,
                Cell::Real(1.0),
                Cell::Json(&text),
            ],
            vec![
                Cell::Text("life"),
                Cell::Real(2.0),
                Cell::Null,
                Cell::Real(1.0),
                Cell::Json(&text),
            ],
            vec![
                Cell::Text("life"),
                Cell::Integer(2),
                Cell::Null,
                Cell::Real(1.0),
                Cell::Json(&Value::Null),
            ],
            vec![
                Cell::Text("life"),
                Cell::Integer(2),
                Cell::Null,
                Cell::Real(f64::NAN),
                Cell::Json(&text),
            ],
            vec![
                Cell::Text("life"),
                Cell::Integer(2),
                Cell::Null,
                Cell::Real(1.0),
                Cell::Serialized(&None::<i64>),
            ],
        ] {
            let err = s
                .home
                .transaction(CommitPoint::TasksEnqueue, &mut |tx| {
                    tx.tables()?.put_cells(&NIGHTS, &bad)
                })
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{} {bad:?}", s.name);
        }
        assert_eq!(state(&s), before, "{}: refused cells wrote", s.name);
        answers.push(scan(&s, &[]).unwrap());
    }
    assert_eq!(answers[0], answers[1], "the two homes answered differently");
}
