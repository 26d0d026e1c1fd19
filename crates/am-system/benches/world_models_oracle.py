"""AbstractMemory 0.3.2's side of the `world_models` bench (issue 39
"Proof", speed): build a home of RECORDS formed records with 0.3.2 in the
shape the Rust bench's 100k home has (RECORDS is 10,000 by default: 0.3.2
takes minutes for 100,000), form every person's card with
`world_model_update`, add 1,000 episodes about the target (the newest
rows), then time 0.3.2's `world_model_update` of one target (revising: one
new episode added untimed before each run) and `current_world_models`
(folded with the journal), and print their
medians as JSON for the bench to copy beside its own rows.

Usage: python world_models_oracle.py RECORDS ROUNDS OUT_DIR
Prints: {"records": N, "rounds": R, "build_s": s,
         "figures": {"<call>": {"median_ns": ns, "runs_ns": [..]}}}
"""

import json
import statistics
import sys
import time
import warnings
from pathlib import Path

from abstractmemory import MemorySystem, SQLiteJournal, SQLiteTripleStore
from abstractmemory.records import MemoryRecordInput as R
from abstractmemory.sleep_policy import SleepTuning
from abstractmemory.world_model import current_world_models, world_model_update

BATCH = 1000
PAIR = ("life", "e1")
PEOPLE = 50
TARGET = "person:7"
RECENT = 1000
WORDS = ["pool", "outage", "harbor", "signal", "tea", "garden", "piano", "kernel",
         "cache", "river", "ticket", "review"]


def batch(k):
    """The Rust bench's `batch(k)`, record for record."""
    items = []
    for i in range(BATCH):
        n = k * BATCH + i
        items.append(R(
            kind="lesson" if i % 3 == 0 else "episode",
            title=f"Record {n}",
            digest=f"Record {n} says something about {WORDS[n % len(WORDS)]}.",
            keywords=(WORDS[n % len(WORDS)], WORDS[(n // 7) % len(WORDS)]),
            participants=(f"person:{n % PEOPLE}",),
        ))
    return items


def visit(n):
    """An episode about the target (the Rust bench's `visit`)."""
    return R(kind="episode", title=f"Visit {n}", digest=f"Seven came by again ({n}).",
             participants=(TARGET,))


def main() -> None:
    records, rounds, out_dir = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    warnings.simplefilter("ignore")
    out_dir.mkdir(parents=True, exist_ok=True)
    home = out_dir / "oracle-wm.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(str(home) + suffix).unlink(missing_ok=True)
    t0 = time.perf_counter()
    store = SQLiteTripleStore(home)
    journal = SQLiteJournal(home)
    ms = MemorySystem(store=store, journal=journal)
    for k in range(records // BATCH):
        ms.remember_many(batch(k), scope=PAIR[0], owner_id=PAIR[1],
                         idempotency_key=f"b{k}")
    build_s = time.perf_counter() - t0
    scopes = [PAIR]
    every = SleepTuning(world_model_max_cards=PEOPLE)
    world_model_update(ms, scopes=scopes, owner_id=PAIR[1],
                       targets=[f"person:{p}" for p in range(PEOPLE)], tuning=every)
    ms.remember_many([visit(f"r{n}") for n in range(RECENT)], scope=PAIR[0],
                     owner_id=PAIR[1], idempotency_key="recent")
    world_model_update(ms, scopes=scopes, owner_id=PAIR[1], targets=[TARGET])

    figures = {}

    def timed(name, call, setup=None):
        runs = []
        for r in range(rounds):
            if setup is not None:
                setup(r)
            t = time.perf_counter_ns()
            call()
            runs.append(time.perf_counter_ns() - t)
        figures[name] = {"median_ns": statistics.median(runs), "runs_ns": runs}

    def one_more(r):
        ms.remember_many([visit(str(r))], scope=PAIR[0], owner_id=PAIR[1],
                         idempotency_key=f"more-{r}")

    def revise():
        out = world_model_update(ms, scopes=scopes, owner_id=PAIR[1], targets=[TARGET])
        assert len(out["formed"]) == 1, out

    timed("world_model_update_revising", revise, setup=one_more)
    timed("current_world_models",
          lambda: current_world_models(store, scope=PAIR[0], owner_id=PAIR[1],
                                       journal=journal))
    json.dump({"records": records, "rounds": rounds, "build_s": build_s,
               "figures": figures}, sys.stdout)


if __name__ == "__main__":
    main()
