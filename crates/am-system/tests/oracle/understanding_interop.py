"""AbstractMemory 0.3.2 writes a home, then reads it back after abstractmemory-rs
rewrote one record's digest in place (the understanding interop test).

  python understanding_interop.py write HOME   -> forms records, prints their ids
  python understanding_interop.py read HOME    -> prints every row and a keyword search

Run with the oracle's python: AM_ORACLE_PYTHON=/path/to/python.
"""

import json
import sys

from abstractmemory import MemorySystem, SQLiteJournal, SQLiteTripleStore, TripleQuery
from abstractmemory.records import MemoryRecordInput

PINNED = "2026-03-01T12:00:00.000000+00:00"
mode, path = sys.argv[1], sys.argv[2]
store = SQLiteTripleStore(path)
journal = SQLiteJournal(path)

if mode == "write":
    system = MemorySystem(store=store, journal=journal, clock=lambda: PINNED)
    ids = system.remember_many(
        [
            MemoryRecordInput(kind="episode", title="Pool outage",
                              digest="Connection pools exhausted at noon.", keywords=("pool",)),
            MemoryRecordInput(kind="episode", title="Lunch", digest="We ate noodles by the river.",
                              edges=(("follows", "local:0"),)),
            MemoryRecordInput(kind="memory", title="Walk", digest="A long walk through the orchard."),
        ],
        scope="session", owner_id="s1", idempotency_key="py-1")
    print(json.dumps(ids))
else:
    rows = store.query(TripleQuery(limit=0, order="asc"))
    out = {
        "rows": [{"assertion_id": a.assertion_id, "subject": a.subject, "object": a.object,
                  "attributes": a.attributes} for a in rows],
        "new_words": [a.assertion_id for a in store.query_keywords(["lattices"], scope="session", owner_id="s1", limit=10)],
        "old_words": [a.assertion_id for a in store.query_keywords(["exhausted"], scope="session", owner_id="s1", limit=10)],
        "bindings": len(journal.bindings(fold=False)),
    }
    print(json.dumps(out))
