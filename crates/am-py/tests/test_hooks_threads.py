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


HOLD_LOCK = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
c.execute("ROLLBACK")
"""


def test_an_engine_call_waiting_on_the_home_lets_other_python_threads_run(tmp_path: Any) -> None:
    """The GIL is released inside the engine: a write waiting on the home's
    write lock, held by another process (SQLite's busy wait, 5 s), completes
    once this thread, which needs the GIL to wake and tell that process to
    let go, has done so. Were the GIL held through the engine call, this
    thread could not run until the busy wait gave up, and the write would
    fail."""
    import subprocess
    import sys
    import time

    path = tmp_path / "home.sqlite3"
    system = am.MemorySystem(am.SQLiteTripleStore(path), am.SQLiteJournal(path))
    system.current_seq()
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdin is not None
    assert holder.stdout.readline().strip() == "locked"
    outcome: List[Any] = []

    def write() -> None:
        try:
            outcome.append(system.remember_many(
                records=[{"kind": "episode", "title": "t", "digest": "waited for the lock."}],
                scope="life", owner_id="demo", idempotency_key="k"))
        except BaseException as e:  # noqa: BLE001 - reported below
            outcome.append(e)
        outcome.append(time.monotonic())

    writer = threading.Thread(target=write)
    started = time.monotonic()
    writer.start()
    time.sleep(0.5)
    released = time.monotonic()
    holder.stdin.write("\n")
    holder.stdin.flush()
    writer.join()
    holder.wait(timeout=10)
    assert isinstance(outcome[0], list), outcome
    assert released - started < 2.0, "this thread woke while the writer waited"
    assert outcome[1] >= released, "the write waited for the lock"
