"""AbstractMemory 0.3.2's side of the `drives` bench (issue 42 "Proof",
speed): build a home of RECORDS formed records with 0.3.2 in the shape of
the Rust bench's 100k home (`life` in batches of 1,000, every third a
lesson, one `follows` edge each after the first; in `diary` 200
owner-direct questions, every fifth an answering note, 20 commitments and
20 interests; 50 reinforcements of diary drives), time 0.3.2's
`alive_drives` and `drive_pressure` on the ladder (`diary`, `life`), and
print the medians as JSON.

The home is OUT_DIR/oracle.sqlite3 (checkpointed, so a copy is the whole
home); the Rust bench times the same calls on a copy of that file.

Usage: python drives_oracle.py RECORDS ROUNDS OUT_DIR
Prints: {"records": N, "rounds": R, "build_s": s,
         "figures": {"alive_drives": {"median_ns": ns, "runs_ns": [..]},
                     "drive_pressure": {...}}}
"""

import json
import sqlite3
import statistics
import sys
import time
import warnings
from pathlib import Path

from abstractmemory import MemorySystem, SQLiteJournal, SQLiteTripleStore
from abstractmemory.alive_drives import alive_drives
from abstractmemory.drive_pressure import drive_pressure
from abstractmemory.records import MemoryRecordInput as R

EID = "entity:bench"
LADDER = [("diary", EID), ("life", EID)]


def batch(n, salt):
    """The Rust bench's `records::batch(n, salt)`, record for record."""
    items = []
    for i in range(n):
        items.append(R(
            kind="lesson" if i % 3 == 0 else "episode",
            title=f"Record {salt}-{i}",
            digest=f"Record {i} of batch {salt} says something about pools and outages.",
            keywords=("pool", "outage"),
            edges=(("follows", f"local:{i - 1}"),) if i > 0 else (),
        ))
    return items


def drives():
    """The Rust bench's diary drives, record for record."""
    items = []
    for i in range(200):
        attributes = {"entry_id": f"q-{i}"}
        if i % 5 == 4:
            attributes.update(diary_type="note", answers=f"q-{i - 1}")
        else:
            attributes["diary_type"] = "question"
        items.append(R(kind="diary", title=f"Question {i}",
                       digest=f"Why does kiln {i % 13} crawl at cone {i % 7}?",
                       attributes=attributes, provenance={"source": "owner-direct"}))
    for i in range(20):
        items.append(R(kind="diary", title=f"Promise {i}", digest="I will call.",
                       attributes={"diary_type": "commitment"},
                       provenance={"source": "owner-direct"}))
        items.append(R(kind="interest", title=f"Interest {i}", digest=f"Tides and harbour {i}"))
    return items


def main() -> None:
    records, rounds, out_dir = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    warnings.simplefilter("ignore")
    out_dir.mkdir(parents=True, exist_ok=True)
    home = out_dir / "oracle.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(str(home) + suffix).unlink(missing_ok=True)
    t0 = time.perf_counter()
    store, journal = SQLiteTripleStore(home), SQLiteJournal(home)
    ms = MemorySystem(store=store, journal=journal)
    for k in range(records // 1000):
        ms.remember_many(batch(1000, k), scope="life", owner_id=EID, idempotency_key=f"b{k}")
    ids = ms.remember_many(drives(), scope="diary", owner_id=EID, idempotency_key="drives")
    for rid in ids[::5][:50]:
        ms.reinforce(rid, reason="keeps coming back", scope="diary", owner_id=EID)
    build_s = time.perf_counter() - t0
    con = sqlite3.connect(home)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    figures = {}
    for name, call in (
        ("alive_drives", lambda: alive_drives(ms, scopes=LADDER, k=5)),
        ("drive_pressure", lambda: drive_pressure(store, journal, scopes=LADDER)),
    ):
        assert call(), f"0.3.2's {name} answered nothing"
        runs = []
        for _ in range(rounds):
            t = time.perf_counter_ns()
            call()
            runs.append(time.perf_counter_ns() - t)
        figures[name] = {"median_ns": statistics.median(runs), "runs_ns": runs}
    json.dump({"records": records, "rounds": rounds, "build_s": build_s, "figures": figures},
              sys.stdout)


if __name__ == "__main__":
    main()
