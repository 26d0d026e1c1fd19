"""A script written against AbstractMemory 0.3.2's public API: the spec's
quick examples, layer 1 (the in-memory and SQLite stores) and layer 2 (form,
reconstruct, commit). Run as ``python script_032.py MODULE DIR``: MODULE is
``abstractmemory`` (0.3.2) or ``abstractmemory_rs`` (imported as
``abstractmemory``, the line a 0.3.2 user changes). It prints one JSON object
of what the script saw, for the test to compare."""

import importlib
import json
import os
import sys

abstractmemory = importlib.import_module(sys.argv[1])
workdir = sys.argv[2]
os.chdir(workdir)

from_am = abstractmemory
InMemoryTripleStore = from_am.InMemoryTripleStore
SQLiteTripleStore = from_am.SQLiteTripleStore
SQLiteJournal = from_am.SQLiteJournal
TripleAssertion = from_am.TripleAssertion
TripleQuery = from_am.TripleQuery
MemorySystem = from_am.MemorySystem
MemoryRecordInput = from_am.MemoryRecordInput
Stimulus = from_am.Stimulus

seen = {}

# Layer 1, in memory (the quick example).
store = InMemoryTripleStore()
store.add([
    TripleAssertion(
        subject="Scrooge",
        predicate="related_to",
        object="Christmas",
        scope="session",
        owner_id="sess-1",
        observed_at="2026-01-01T00:00:00+00:00",
        provenance={"span_id": "span_123"},
    )
])
hits = store.query(TripleQuery(subject="scrooge", scope="session", owner_id="sess-1", limit=10))
seen["layer1_memory"] = {
    "count": len(hits),
    "subject": hits[0].subject,
    "predicate": hits[0].predicate,
    "object": hits[0].object,
    "scope": hits[0].scope,
    "owner_id": hits[0].owner_id,
    "observed_at": hits[0].observed_at,
    "provenance": dict(hits[0].provenance),
    "has_assertion_id": hits[0].assertion_id is not None,
}

# Layer 1, SQLite.
store = SQLiteTripleStore("kg.sqlite")
store.add([TripleAssertion(subject="e:scrooge", predicate="is_a", object="person", scope="global")])
out = store.query(TripleQuery(scope="global", limit=10))
seen["layer1_sqlite"] = {
    "count": len(out),
    "triple": [out[0].subject, out[0].predicate, out[0].object, out[0].scope],
}
store.close()

# Layer 2 (the quick example).
store = SQLiteTripleStore("memory.sqlite3")
journal = SQLiteJournal("memory.sqlite3")   # sidecar tables in the same file
system = MemorySystem(store=store, journal=journal)
[record_id] = system.remember_many(
    [MemoryRecordInput(kind="episode", title="Pool outage",
                       digest="The connection pool saturated at noon.",
                       keywords=("pool", "outage"))],
    scope="session", owner_id="s1", idempotency_key="turn-1",
)
again = system.remember_many(
    [MemoryRecordInput(kind="episode", title="Pool outage",
                       digest="The connection pool saturated at noon.",
                       keywords=("pool", "outage"))],
    scope="session", owner_id="s1", idempotency_key="turn-1",
)
result = system.reconstruct(Stimulus(cue_text="pool outage"), scopes=[("session", "s1")])
used = [h.record_id for h in result.handles[:2]]
committed = system.commit_selection(result.trace_id, used)
seen["layer2"] = {
    "record_id_prefix": record_id.split("-", 1)[0],
    "idempotent_replay": again == [record_id],
    "trace_id_is_str": isinstance(result.trace_id, str) and bool(result.trace_id),
    "handle_count": len(result.handles),
    "handle_is_the_record": [h.record_id == record_id for h in result.handles],
    "committed_used": list(committed.used_record_ids) == used,
    "committed_trace": committed.trace_id == result.trace_id,
    "committed_type": type(committed).__name__ if committed is None or isinstance(committed, (bool, int, str, list, dict)) else "object",
}
print(json.dumps(seen, sort_keys=True))
