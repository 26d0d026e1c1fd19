//! `SQLiteJournal::fold_bindings_for` (the batched per-record binding fold on
//! `idx_memj_bindings_fold`) answers, for every id asked, exactly what the
//! per-record `bindings(record_id, fold = true, until_seq)` answers, across
//! id chunks, anchors, superseded states, unbound and padded ids.

use am_backend_sqlite::SqliteHome;
use am_backend_sqlite::journal::SQLiteJournal;
use am_journal::EventKind;
use am_journal::SearchState;
use am_journal::{BindingFilter, MemoryEvent, MemoryJournal, ScopeBinding};
use am_triples::ErrorKind;

fn open() -> (tempfile::TempDir, SQLiteJournal) {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let j = SQLiteJournal::open(&home).unwrap();
    (dir, j)
}

fn bind(j: &SQLiteJournal, rid: &str, scope: &str, owner: &str, search: &str, prompt: &str) {
    let mut x = ScopeBinding::new(rid, scope, owner, search.parse().unwrap());
    x.prompt_state = prompt.parse().unwrap();
    j.append_binding(&x).unwrap();
}

fn per_record(j: &SQLiteJournal, id: &str, until: Option<i64>) -> Vec<ScopeBinding> {
    j.bindings(&BindingFilter {
        record_id: Some(id.to_owned()),
        until_seq: until,
        ..BindingFilter::default()
    })
    .unwrap()
}

#[test]
fn fold_bindings_for_equals_the_per_record_fold_at_every_anchor() {
    let (_dir, j) = open();
    bind(&j, "r1", "session", "s1", "indexed", "inactive");
    bind(&j, "r1", "session", "s2", "indexed", "active");
    bind(&j, "r2", "session", "s1", "indexed", "active");
    j.append_events(&[MemoryEvent::on_record(
        EventKind::Selected,
        "r1",
        "session",
        "s1",
    )])
    .unwrap();
    bind(&j, "r1", "session", "s1", "hidden", "inactive");
    let mut with_detail = ScopeBinding::new("r3", "global", "", SearchState::Indexed);
    with_detail.reason = Some("operator pinned it".into());
    with_detail
        .provenance
        .insert("turn_id".into(), serde_json::json!("t-7"));
    j.append_binding(&with_detail).unwrap();
    bind(&j, "r2", "session", "s1", "indexed", "inactive");
    bind(&j, "r1", "session", "s2", "indexed", "inactive");
    let ids: Vec<String> = ["r1", "r2", "r3", "unbound", "r1", " r2 "]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let hw = j.current_seq().unwrap();
    for until in (0..=hw).map(Some).chain([None]) {
        let batch = j.fold_bindings_for(&ids, until).unwrap();
        assert_eq!(batch.len(), 5, "one entry per distinct id as given");
        for id in &ids {
            assert_eq!(batch[id], per_record(&j, id, until), "{id:?} at {until:?}");
        }
    }
    let latest = j.fold_bindings_for(&ids, None).unwrap();
    assert!(latest["unbound"].is_empty());
    assert_eq!(latest["r1"].len(), 2);
    assert_eq!(latest["r1"][0].search_state, SearchState::Hidden);
    assert_eq!(latest[" r2 "], latest["r2"], "ids are matched trimmed");
    assert_eq!(
        latest["r3"][0].reason.as_deref(),
        Some("operator pinned it")
    );
    assert_eq!(latest["r3"][0].provenance["turn_id"], "t-7");
}

#[test]
fn fold_bindings_for_more_ids_than_one_statement_holds_answers_every_id() {
    let (_dir, j) = open();
    for i in 0..700 {
        let state = if i % 3 == 0 { "hidden" } else { "indexed" };
        bind(&j, &format!("r{i}"), "session", "s1", "indexed", "active");
        bind(&j, &format!("r{i}"), "session", "s1", state, "inactive");
    }
    let ids: Vec<String> = (0..720).map(|i| format!("r{i}")).collect();
    let batch = j.fold_bindings_for(&ids, None).unwrap();
    assert_eq!(batch.len(), 720);
    for id in &ids {
        assert_eq!(batch[id], per_record(&j, id, None), "{id}");
    }
    assert_eq!(batch["r699"].len(), 1);
    assert!(batch["r719"].is_empty());
}

#[test]
fn fold_bindings_for_an_anchor_beyond_the_high_water_mark_is_invalid_input() {
    let (_dir, j) = open();
    bind(&j, "r1", "session", "s1", "indexed", "active");
    let hw = j.current_seq().unwrap();
    let err = j
        .fold_bindings_for(&["r1".to_owned()], Some(hw + 1))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    assert!(err.to_string().contains(&hw.to_string()), "{err}");
    assert_eq!(j.current_seq().unwrap(), hw, "nothing written");
}

/// What the pair fold filtered to `hidden` answers (the trait's default).
fn hidden_by_fold(
    j: &SQLiteJournal,
    scope: &str,
    owner: &str,
    until: Option<i64>,
) -> Vec<ScopeBinding> {
    j.bindings(&BindingFilter {
        scope: Some(scope.to_owned()),
        owner_id: Some(owner.to_owned()),
        until_seq: until,
        ..BindingFilter::default()
    })
    .unwrap()
    .into_iter()
    .filter(|b| b.search_state == SearchState::Hidden)
    .collect()
}

#[test]
fn hidden_bindings_equals_the_pair_fold_filtered_to_hidden_at_every_anchor() {
    let (_dir, j) = open();
    bind(&j, "r1", "session", "s1", "indexed", "inactive");
    bind(&j, "r1", "session", "s1", "hidden", "inactive");
    bind(&j, "r2", "session", "s1", "hidden", "inactive");
    bind(&j, "r1", "session", "s2", "hidden", "inactive");
    bind(&j, "r3", "session", "s1", "indexed", "active");
    bind(&j, "r2", "session", "s1", "indexed", "inactive");
    bind(&j, "r3", "session", "s1", "hidden", "inactive");
    bind(&j, "r1", "session", "s1", "indexed", "inactive");
    bind(&j, "r4", "global", "", "hidden", "inactive");
    let hw = j.current_seq().unwrap();
    for until in (0..=hw).map(Some).chain([None]) {
        for (scope, owner) in [
            ("session", "s1"),
            ("session", "s2"),
            ("global", ""),
            ("other", "x"),
        ] {
            assert_eq!(
                j.hidden_bindings(scope, owner, until).unwrap(),
                hidden_by_fold(&j, scope, owner, until),
                "{scope}/{owner} at {until:?}"
            );
        }
    }
    let now = j.hidden_bindings(" Session ", " s1 ", None).unwrap();
    assert_eq!(
        now.iter().map(|b| b.record_id.as_str()).collect::<Vec<_>>(),
        ["r3"],
        "scope and owner are normalized; a restored record is not hidden"
    );
    assert_eq!(
        j.hidden_bindings("session", "s1", Some(hw + 1))
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
}
