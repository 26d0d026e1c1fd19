"""Embedders from Python (an object with ``embed_texts``, the bundled
``OfflineEmbedder``), the ``should_continue`` / ``cancelled`` hooks of a
long pass, and the commit guard (spec api.md "Embedders", "Commit guard")."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, List, Sequence

import pytest

import abstractmemory_rs as am

RECORDS = [
    {"kind": "episode", "title": "Ada — session 1",
     "digest": "Ada signed the lease on allotment plot 14 behind the library.",
     "participants": ["person:ada"]},
    {"kind": "episode", "title": "Chiara — session 1",
     "digest": "Chiara brings San Marzano tomato seedlings from her balcony.",
     "participants": ["person:chiara"]},
]


class HashEmbedder:
    """A deterministic 8-dimensional embedder that counts its calls."""

    model_id = "test/hash-8"
    dimension = 8

    def __init__(self) -> None:
        self.texts: List[str] = []

    def embed_texts(self, texts: Sequence[str]) -> List[List[float]]:
        self.texts.extend(texts)
        out = []
        for t in texts:
            h = hashlib.sha256(t.encode()).digest()
            out.append([b / 255.0 + 0.01 for b in h[:8]])
        return out


class Raising:
    def embed_texts(self, texts: Sequence[str]) -> List[List[float]]:
        raise ConnectionError("the embedding server is down")


class Short:
    def embed_texts(self, texts: Sequence[str]) -> List[List[float]]:
        return [[0.5, 0.5]]


def pair(kind: str, tmp_path: Path, embedder: Any) -> Any:
    if kind == "memory":
        return am.InMemoryTripleStore(embedder=embedder), am.InMemoryJournal()
    path = tmp_path / "home.sqlite3"
    return am.SQLiteTripleStore(path, embedder=embedder), am.SQLiteJournal(path)


def quiet(store: Any, journal: Any, **kw: Any) -> am.MemorySystem:
    with pytest.warns() if isinstance(journal, am.InMemoryJournal) else _nothing():
        return am.MemorySystem(store, journal, **kw)


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: Any) -> None:
        return None


STACKS = ["memory", "sqlite"]


@pytest.mark.parametrize("kind", STACKS)
def test_a_store_s_embedder_object_embeds_the_formed_records_and_the_recall_cue(kind: str, tmp_path: Path) -> None:
    e = HashEmbedder()
    system = quiet(*pair(kind, tmp_path, e))
    system.remember_many(records=RECORDS, scope="life", owner_id="demo", idempotency_key="k1")
    formed = len(e.texts)
    assert formed >= 2, "each record's text went through embed_texts"
    assert any("tomato seedlings" in t for t in e.texts)
    system.reconstruct(stimulus={"cue_text": "who brings the seedlings?"}, scopes=[["life", "demo"]])
    assert any("who brings the seedlings?" in t for t in e.texts[formed:]), "the cue is embedded by the same object"


@pytest.mark.parametrize("kind", STACKS)
def test_memory_system_s_embedder_keyword_embeds_the_cue(kind: str, tmp_path: Path) -> None:
    store_e, system_e = HashEmbedder(), HashEmbedder()
    store, journal = pair(kind, tmp_path, store_e)
    system = quiet(store, journal, embedder=system_e)
    system.remember_many(records=RECORDS, scope="life", owner_id="demo", idempotency_key="k1")
    system.reconstruct(stimulus={"cue_text": "the lease on plot 14"}, scopes=[["life", "demo"]])
    assert any("the lease on plot 14" in t for t in system_e.texts)


@pytest.mark.parametrize("kind", STACKS)
def test_an_embedder_that_raises_gives_an_embedder_error_and_writes_nothing(kind: str, tmp_path: Path) -> None:
    system = quiet(*pair(kind, tmp_path, Raising()))
    seq = system.current_seq()
    with pytest.raises(am.Embedder) as caught:
        system.remember_many(records=RECORDS, scope="life", owner_id="demo", idempotency_key="k1")
    assert isinstance(caught.value, RuntimeError)
    assert "ConnectionError" in str(caught.value) and "the embedding server is down" in str(caught.value)
    assert system.current_seq() == seq


@pytest.mark.parametrize("kind", STACKS)
def test_an_embedder_answering_fewer_vectors_than_texts_is_an_embedder_error(kind: str, tmp_path: Path) -> None:
    system = quiet(*pair(kind, tmp_path, Short()))
    seq = system.current_seq()
    with pytest.raises(am.Embedder):
        system.remember_many(records=RECORDS, scope="life", owner_id="demo", idempotency_key="k1")
    assert system.current_seq() == seq


def test_an_object_without_embed_texts_is_not_an_embedder() -> None:
    with pytest.raises(TypeError, match="embed_texts"):
        am.InMemoryTripleStore(embedder=object())


def test_the_offline_embedder_answers_64_normalized_floats_per_text_and_names_its_model() -> None:
    e = am.OfflineEmbedder()
    assert e.model_id == "minishlab/potion-base-2M"
    assert e.dimension == 64
    v = e.embed_texts(["a puppy", "tomato seedlings"])
    assert len(v) == 2 and all(len(x) == 64 for x in v)
    assert abs(sum(x * x for x in v[0]) - 1.0) < 1e-3
    assert v == e.embed_texts(["a puppy", "tomato seedlings"]), "deterministic"


def test_the_offline_embedder_serves_a_store_and_recall_finds_by_meaning(tmp_path: Path) -> None:
    path = tmp_path / "home.sqlite3"
    system = am.MemorySystem(am.SQLiteTripleStore(path, embedder=am.OfflineEmbedder()), am.SQLiteJournal(path))
    system.remember_many(records=RECORDS, scope="life", owner_id="demo", idempotency_key="k1")
    shelf = system.reconstruct(stimulus={"cue_text": "who brings the tomato seedlings?"},
                               scopes=[["life", "demo"]], budget={"shelf_size": 1})
    assert "Chiara" in str(shelf.to_dict())


SLEEP = {"scopes": [["garden", "demo"]], "owner_id": "demo"}
GARDEN = [{"kind": "episode", "title": "Pruning the roses", "digest": "Pruned the roses by the gate.", "keywords": ["roses"]},
          {"kind": "episode", "title": "A book on roses", "digest": "Read a chapter on pruning roses.", "keywords": ["roses"]}]


def test_a_sleep_pass_whose_should_continue_turns_false_stops_at_that_boundary(stack: Any) -> None:
    system = stack(task_queue=True)
    system.remember_many(records=GARDEN, scope="garden", owner_id="demo", idempotency_key="g1")
    asked: List[int] = []

    def should_continue() -> bool:
        asked.append(1)
        return len(asked) < 2  # go on at the first boundary, stop at the second

    out = system.sleep_pass(should_continue=should_continue, **SLEEP)
    assert len(asked) == 2, "asked at each boundary until it says stop"
    assert out["cancelled_after"] is not None
    full = system.sleep_pass(**SLEEP)
    assert "cancelled_after" not in full, "a pass that ran every phase names no stop"


def test_a_sleep_pass_whose_cancelled_is_true_stops_before_its_first_phase(stack: Any) -> None:
    system = stack(task_queue=True)
    system.remember_many(records=GARDEN, scope="garden", owner_id="demo", idempotency_key="g1")
    out = system.sleep_pass(cancelled=lambda: True, **SLEEP)
    assert out["cancelled_after"] == "start (no phase ran)"
    assert out["completion"] == []


def test_a_hook_that_is_not_callable_is_a_type_error(stack: Any) -> None:
    system = stack(task_queue=True)
    with pytest.raises(TypeError, match="should_continue"):
        system.sleep_pass(should_continue=True, **SLEEP)


class Stop(Exception):
    """The host's own exception."""


@pytest.mark.parametrize("kind", STACKS)
def test_a_commit_guard_that_raises_refuses_the_write_its_exception_reaches_the_caller_unchanged(kind: str, tmp_path: Path) -> None:
    stopped = {"now": False}
    raised = Stop("operator pressed Stop")
    points: List[str] = []

    def guard(where: str) -> None:
        points.append(where)
        if stopped["now"]:
            raise raised

    system = quiet(*pair(kind, tmp_path, None), commit_guard=guard)
    system.remember_many(records=RECORDS[:1], scope="life", owner_id="demo", idempotency_key="k1")
    assert points, "the guard is called before the commit"
    assert all(isinstance(p, str) and p for p in points)
    seq = system.current_seq()
    count = len(system.query(q={"limit": 10000}))
    stopped["now"] = True
    with pytest.raises(Stop) as caught:
        system.remember_many(records=RECORDS[1:], scope="life", owner_id="demo", idempotency_key="k2")
    assert caught.value is raised, "the guard's own exception object"
    assert system.current_seq() == seq
    assert len(system.query(q={"limit": 10000})) == count, "nothing of the write landed"
    stopped["now"] = False
    system.remember_many(records=RECORDS[1:], scope="life", owner_id="demo", idempotency_key="k2")
    assert system.current_seq() > seq


def test_a_python_embedder_serves_8_threads_sharing_one_system(tmp_path: Path) -> None:
    import threading

    e = HashEmbedder()
    path = tmp_path / "home.sqlite3"
    system = am.MemorySystem(store=am.SQLiteTripleStore(path, embedder=e), journal=am.SQLiteJournal(path))
    errors: List[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(5):
                system.remember_many(records=[{"kind": "episode", "title": f"t{n}-{i}", "digest": f"thread {n} note {i}"}],
                                     scope="life", owner_id="demo", idempotency_key=f"{n}-{i}")
                system.reconstruct(stimulus={"cue_text": f"note {i}"}, scopes=[["life", "demo"]], journal=False)
        except BaseException as x:  # noqa: BLE001 - reported below
            errors.append(x)

    with warnings_ignored():
        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "no thread is stuck (the embedder takes the GIL only for its call)"
    assert errors == []
    assert sum(1 for t in e.texts if t.startswith("thread ") or "thread " in t) >= 40


def test_memory_system_takes_store_and_journal_as_keywords_as_0_3_2_does(tmp_path: Path) -> None:
    path = tmp_path / "home.sqlite3"
    system = am.MemorySystem(store=am.SQLiteTripleStore(path), journal=am.SQLiteJournal(path))
    [rid] = system.remember_many([am.MemoryRecordInput(kind="episode", title="Pool outage",
                                                       digest="The pool saturated at noon.")],
                                 scope="session", owner_id="s1", idempotency_key="k")
    assert system.payload(record_id=rid)["content"] == "The pool saturated at noon."
    with pytest.raises(am.InvalidInput):
        am.MemorySystem(store=am.SQLiteTripleStore(path))


def test_an_input_object_with_an_unknown_field_is_refused_by_the_verb(stack: Any) -> None:
    system = stack()
    with pytest.raises(am.InvalidInput, match="colour"):
        system.remember_many([am.MemoryRecordInput(kind="episode", title="x", digest="y", colour="red")],
                             scope="life", owner_id="demo", idempotency_key="k")


class warnings_ignored:
    def __enter__(self) -> None:
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *a: Any) -> None:
        self._w.__exit__(*a)


@pytest.mark.parametrize("kind", STACKS)
def test_a_second_different_commit_guard_on_a_guarded_store_is_a_value_error(kind: str, tmp_path: Path) -> None:
    store, journal = pair(kind, tmp_path, None)
    quiet(store, journal, commit_guard=lambda where: None)
    with pytest.raises(ValueError, match="commit guard"):
        with warnings_ignored():
            am.MemorySystem(store, journal, commit_guard=lambda where: None)


class WrongDimension(HashEmbedder):
    """Declares 16 dimensions and embeds 8: a re-embed must refuse it."""

    dimension = 16


@pytest.mark.parametrize("kind", STACKS)
def test_reembed_store_takes_an_embedder_object_and_moves_the_home_into_its_space(kind: str, tmp_path: Path) -> None:
    system = quiet(*pair(kind, tmp_path, None))
    system.remember_many(records=RECORDS, scope="life", owner_id="demo", idempotency_key="k1")
    e = HashEmbedder()
    out = system.reembed_store(embedder=e, owner_id="demo", batch_size=1)
    assert out["new_pin"]["model_id"] == "test/hash-8"
    assert out["new_pin"]["dimension"] == 8
    assert out["vectored"] >= 2 and out["vectored"] == out["rows"] - out["skipped_edges"]
    assert any("tomato seedlings" in t for t in e.texts), "the records' texts went through the object"
    assert out["marker_record_id"]
    # The home answers in the object's space from now on: the cue is
    # embedded by the same object.
    before = len(e.texts)
    system.reconstruct(stimulus={"cue_text": "who brings the seedlings?"}, scopes=[["life", "demo"]])
    assert any("who brings the seedlings?" in t for t in e.texts[before:])
    # reembed_home is the same call; the spec string still works beside the object.
    again = system.reembed_home(embedder="offline", owner_id="demo")
    assert again["old_pin"]["model_id"] == "test/hash-8"
    assert again["new_pin"]["dimension"] == 64


@pytest.mark.parametrize("kind", STACKS)
def test_reembed_store_refuses_an_embedder_object_that_disagrees_with_its_dimension_and_writes_nothing(
    kind: str, tmp_path: Path
) -> None:
    system = quiet(*pair(kind, tmp_path, None))
    system.remember_many(records=RECORDS, scope="life", owner_id="demo", idempotency_key="k1")
    seq = system.current_seq()
    with pytest.raises(am.InvalidInput, match="declares dimension 16"):
        system.reembed_store(embedder=WrongDimension(), owner_id="demo")
    with pytest.raises(am.Embedder, match="the embedding server is down"):
        system.reembed_store(embedder=Raising(), owner_id="demo")
    with pytest.raises(TypeError, match="embed_texts"):
        system.reembed_store(embedder=object(), owner_id="demo")
    with pytest.raises(am.InvalidInput, match="needs embedder"):
        system.reembed_store(embedder=None, owner_id="demo")
    assert system.current_seq() == seq, "no marker, nothing written"
    # Still unpinned: a move that lands afterwards has no old pin.
    out = system.reembed_store(embedder=HashEmbedder(), owner_id="demo")
    assert out["old_pin"] is None
