"""The author hook as a real callable (authored, raising, an unusable
result) and one MemorySystem shared by 8 threads."""

from __future__ import annotations

import threading
from typing import Any, Dict, List, Tuple

import pytest

import abstractmemory_rs as am

SPARK = {"name": "Castor", "origin": "A quiet start.",
         "values": [{"name": "shared_vulnerability", "class": "core", "statement": "Protect the shared substrate."},
                    {"name": "curiosity", "class": "revisable", "statement": "Ask about what you do not know."}],
         "purposes": [{"statement": "Help the gardeners."}], "traits": [], "honesty": []}


def test_an_author_callable_is_asked_with_kind_body_context_and_its_title_is_stored(system: am.MemorySystem) -> None:
    calls: List[Tuple[str, str, Dict[str, Any]]] = []

    def author(kind: str, body: str, context: Dict[str, Any]) -> Dict[str, Any]:
        calls.append((kind, body, context))
        return {"title": "helper", "author": {"kind": "operator", "id": "ada"}}

    r = system.engram(owner_id="entity:castor", spark=SPARK, author=author)
    assert len(calls) == 1
    kind, body, context = calls[0]
    assert kind == "purpose" and body == "Help the gardeners."
    assert context["pass"] == "engram" and context["fields"] == ["title"]
    d = r.to_dict() if isinstance(r, am.VerbResult) else r
    (pid,) = d["record_ids"]["purposes"]
    assert d["authoring"]["authored"] == [
        {"record_id": pid, "record_kind": "purpose", "pass": "engram", "fields": ["title"]}]


def test_an_author_that_raises_gives_author_raised_with_its_class_and_message(system: am.MemorySystem) -> None:
    def author(kind: str, body: str, context: Dict[str, Any]) -> Dict[str, Any]:
        raise KeyError("no model loaded")

    before = system.current_seq()
    with pytest.raises(am.InvalidInput) as e:
        system.engram(owner_id="entity:castor", spark=SPARK, author=author)
    msg = str(e.value)
    assert "author_raised" in msg and "KeyError" in msg and "no model loaded" in msg, msg
    assert system.current_seq() == before, "refused before writing anything"


@pytest.mark.parametrize("result", ["a title", None, {"title": "x"}, {"title": "x", "author": {"kind": "mechanical", "id": "m"}}])
def test_an_author_s_unusable_result_gives_invalid_result(system: am.MemorySystem, result: Any) -> None:
    before = system.current_seq()
    with pytest.raises(am.InvalidInput, match="invalid_result"):
        system.engram(owner_id="entity:castor", spark=SPARK, author=lambda k, b, c: result)
    assert system.current_seq() == before


def test_an_author_that_raises_with_the_task_queue_forms_the_record_pending(stack: Any, clock: Any) -> None:
    system = stack(clock=clock, task_queue=True)

    def author(kind: str, body: str, context: Dict[str, Any]) -> Dict[str, Any]:
        raise RuntimeError("model offline")

    r = system.engram(owner_id="entity:castor", spark=SPARK, author=author)
    d = r.to_dict() if isinstance(r, am.VerbResult) else r
    (failure,) = d["authoring"]["failures"]
    assert failure["reason"] == "author_raised"
    assert failure["error_class"] == "RuntimeError" and failure["message"] == "model offline"


def test_one_memory_system_shared_by_8_threads_forms_and_reads_every_record(system: am.MemorySystem) -> None:
    n_threads, per_thread = 8, 25
    errors: List[BaseException] = []
    ids: Dict[int, List[str]] = {}
    barrier = threading.Barrier(n_threads)

    def work(t: int) -> None:
        try:
            barrier.wait()
            mine = []
            for i in range(per_thread):
                rec = {"kind": "episode", "title": f"t{t} r{i}", "digest": f"thread {t} wrote record {i}."}
                (rid,) = system.remember_many(records=[rec], scope="life", owner_id="demo",
                                              idempotency_key=f"t{t}-{i}")
                assert system.payload(record_id=rid)["content"] == rec["digest"]
                system.current_seq()
                mine.append(rid)
            ids[t] = mine
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    every = [r for t in range(n_threads) for r in ids[t]]
    assert len(set(every)) == n_threads * per_thread
    assert system.current_seq() >= n_threads * per_thread


def test_engine_calls_release_the_gil(system: am.MemorySystem) -> None:
    """A Python thread keeps running while another thread is inside the engine."""
    stop = threading.Event()
    ticks = [0]

    def spin() -> None:
        while not stop.is_set():
            ticks[0] += 1

    th = threading.Thread(target=spin)
    th.start()
    try:
        for i in range(40):
            system.remember_many(records=[{"kind": "episode", "title": f"r{i}", "digest": f"record {i}."}],
                                 scope="life", owner_id="demo", idempotency_key=f"k{i}")
    finally:
        stop.set()
        th.join()
    assert ticks[0] > 0
