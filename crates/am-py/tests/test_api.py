"""The table as Python: every verb reachable by its call shape, keyword and
positional arguments, results presented as the table says, warnings through
the warnings module."""

from __future__ import annotations

import copy
import warnings

import pytest

import abstractmemory_rs as am

EPISODE = {"kind": "episode", "title": "Ada — session 1",
           "digest": "Ada signed the lease on plot 14 behind the library.", "participants": ["person:ada"]}


def test_every_verb_of_the_table_but_the_session_ops_is_reachable_from_python(system: am.MemorySystem) -> None:
    for verb in am.TABLE:
        if verb["shape"] == "engine":
            with pytest.raises(am.Unsupported):
                am.verb_callable(system, verb["name"])
            continue
        fn = am.verb_callable(system, verb["name"])
        assert callable(fn), verb["name"]


def test_module_functions_are_the_table_s_function_shapes() -> None:
    want = {v["name"] for v in am.TABLE
            if v["shape"] in ("pure_function", "path_function", "store_journal_function")}
    assert want == set(am.FUNCTIONS)
    for name in want:
        assert callable(getattr(am, name)) and name in am.__all__


def test_remember_many_returns_the_ids_and_payload_reads_one_back(system: am.MemorySystem) -> None:
    ids = system.remember_many(records=[EPISODE], scope="life", owner_id="demo", idempotency_key="t1")
    assert len(ids) == 1 and ids[0].startswith("ex:episode-")
    assert system.remember_many([EPISODE], "life", "demo", idempotency_key="t1") == ids, "positional, replayed"
    p = system.payload(ids[0])
    assert p["content"] == EPISODE["digest"]


def test_an_object_result_has_attributes_and_to_dict(system: am.MemorySystem) -> None:
    verb = next(v for v in am.TABLE if v["name"] == "record_understanding")
    assert verb["present"] == "object"
    (rid,) = system.remember_many(records=[EPISODE], scope="life", owner_id="demo", idempotency_key="t1")
    r = system.record_understanding(record_id=rid)
    assert isinstance(r, am.VerbResult)
    d = r.to_dict()
    assert isinstance(d, dict) and d
    for key, value in d.items():
        assert getattr(r, key) == value
    d.clear()
    assert r.to_dict(), "to_dict gives a copy"
    with pytest.raises(AttributeError):
        r.no_such_field
    with pytest.raises(AttributeError):
        r.anything = 1
    assert copy.deepcopy(r) == r and copy.copy(r).to_dict() == r.to_dict()


def test_a_pure_function_runs_without_a_system() -> None:
    spark = {"name": "Castor", "origin": "A quiet start.", "values": [], "purposes": [], "traits": [], "honesty": []}
    assert isinstance(am.lint_spark(spark=spark), list)
    h = am.canonical_spark_hash(spark=spark)
    assert isinstance(h, str) and len(h) == 64


def test_a_volatile_in_memory_journal_warns_at_construction_as_a_memory_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        am.MemorySystem(am.InMemoryTripleStore(), am.InMemoryJournal())
    assert any(issubclass(w.category, am.MemoryWarning) and "volatile" in str(w.message) for w in caught)


def test_sqlite_memory_survives_closing_and_reopening_the_home(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "home.sqlite3"
    s = am.MemorySystem(am.SQLiteTripleStore(path), am.SQLiteJournal(path))
    ids = s.remember_many(records=[EPISODE], scope="life", owner_id="demo", idempotency_key="t1")
    seq = s.current_seq()
    s.close()
    s2 = am.MemorySystem(am.SQLiteTripleStore(str(path)), am.SQLiteJournal(str(path)))
    assert s2.current_seq() == seq
    assert s2.payload(record_id=ids[0])["content"] == EPISODE["digest"]


def test_a_clock_that_answers_no_instant_is_refused() -> None:
    with pytest.raises(am.InvalidInput, match="ISO-8601"):
        am.MemorySystem(am.InMemoryTripleStore(), am.InMemoryJournal(), clock=lambda: "yesterday")


def test_a_store_journal_function_over_a_bare_store_reads_that_home(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "home.sqlite3"
    with am.MemorySystem(am.SQLiteTripleStore(path), am.SQLiteJournal(path)) as s:
        s.remember_many(records=[{"kind": "diary", "title": "Q", "digest": "Why do beans fix nitrogen?",
                                  "attributes": {"diary_type": "question", "prev_entry_hash": ""},
                                  "provenance": {"source": "owner-direct"}}],
                        scope="diary", owner_id="entity:castor", idempotency_key="d1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = am.verify_diary_chain(am.SQLiteTripleStore(path), scope="diary", owner_id="entity:castor")
        fresh = am.verify_diary_chain(am.InMemoryTripleStore(), scope="diary", owner_id="entity:castor")
    d = report.to_dict() if isinstance(report, am.VerbResult) else report
    assert d["intact"] is True and d["entries"] == 1, "the home's own entry"
    f = fresh.to_dict() if isinstance(fresh, am.VerbResult) else fresh
    assert f["entries"] == 0


def test_a_card_read_folds_the_journal_when_given_the_journal_object_or_journal_true(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # 0.3.2's shape passes the journal object (fold its closures); am exec's
    # line says ``"journal": true``; without either the read folds nothing.
    path = tmp_path / "home.sqlite3"
    store, journal = am.SQLiteTripleStore(path), am.SQLiteJournal(path)
    with am.MemorySystem(store, journal, task_queue=True) as s:
        for night in ("a", "b"):
            s.remember_many(records=[dict(EPISODE, title=f"Ada {night} {i}", digest=f"Ada and the garden, {night} {i}.")
                                     for i in range(3)],
                            scope="life", owner_id="entity:castor", idempotency_key=night)
            s.world_model_pass(scopes=[["life", "entity:castor"]], owner_id="entity:castor")

        def standing(**how):  # type: ignore[no-untyped-def]
            got = am.standing_world_models(s, scope="life", owner_id="entity:castor", **how)
            d = got.to_dict() if isinstance(got, am.VerbResult) else got
            return len(d["person:ada"])

        assert standing() == 2, "the layer-1 read: revision 1 stands beside revision 2"
        assert standing(journal=True) == 1
        assert standing(journal=journal) == 1
        assert standing(journal=False) == 2
