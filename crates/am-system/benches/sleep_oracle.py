"""AbstractMemory 0.3.2's side of the `sleep` bench (issue 38 "Proof",
speed): build a home of RECORDS formed records with 0.3.2 in the shape the
Rust bench's 100k home has, time 0.3.2's sleep calls on it, and print their
medians as JSON for the bench to copy beside its own rows.

The home is OUT_DIR/oracle.sqlite3 (checkpointed, so a copy is the whole
home); the Rust bench times the same calls on copies of that file. The
writing passes run on a fresh copy each round (the copy is not timed).

The night: 0.3.2's `sleep_pass` runs six phases (resolution, maintenance,
world_models, mining, identity, dream). Its dream phase weighs every pair
of records, so one night on 10,000 records takes many minutes; the night
is run ONCE (NIGHT_ROUNDS, default 1), phase by phase as `sleep_pass`
runs them, on one fresh copy, each phase timed: `night_<phase>` for each
of the six, `night_four_phases` (the spec's four: resolution, maintenance,
world_models, dream) and `night_six_phases` (all six, 0.3.2's whole
`sleep_pass` less its boundary checks). `world_model_pass` is the
world_models phase alone on a fresh copy. With
AM_SLEEP_ORACLE_NIGHT_UNTIL=world_models each night ends after its
world_models phase (no dream: minutes saved; the combined rows are left
out).

Usage: python sleep_oracle.py RECORDS ROUNDS OUT_DIR [NIGHT_ROUNDS]
Prints: {"records": N, "rounds": R, "build_s": s,
         "figures": {"<call>": {"median_ns": ns, "runs_ns": [..], "cpu_ns": ns}}}
(`cpu_ns`: the median of the process's CPU time per call, which waiting for
a core on a shared machine does not inflate).
"""

import json
import os
import shutil
import sqlite3
import statistics
import sys
import time
import warnings
from pathlib import Path

from abstractmemory import MemorySystem, SQLiteJournal, SQLiteTripleStore
from abstractmemory.candidate_miner import mine_candidates_pass
from abstractmemory.consolidation import dream_pass, structural_report
from abstractmemory.identity_review import identity_review_pass
from abstractmemory.world_model import world_model_pass
from abstractmemory.dream_resolution import resolve_dreams_pass
from abstractmemory.maintenance import consolidation_pass, maintenance_report
from abstractmemory.records import MemoryRecordInput as R
from abstractmemory.sleep_cadence import maintenance_due

BATCH = 1000
PAIR = ("life", "e1")
WORDS = ["pool", "outage", "harbor", "signal", "tea", "garden", "piano", "kernel",
         "cache", "river", "ticket", "review"]


def batch(k, previous_first):
    """The Rust bench's `batch(k, previous_first)`, record for record."""
    items = []
    for i in range(BATCH):
        n = k * BATCH + i
        title = f"Record {n - 9}" if n % 10 == 9 else f"Record {n}"
        edges = []
        if i > 0 and i % 4 != 0:
            edges.append(("supports", f"local:{i - 1}"))
        if i == 0 and previous_first is not None:
            edges.append(("mentions", previous_first))
        items.append(R(
            kind="lesson" if i % 3 == 0 else "episode",
            title=title,
            digest=f"Record {n} says something about {WORDS[n % len(WORDS)]}.",
            keywords=(WORDS[n % len(WORDS)], WORDS[(n // 7) % len(WORDS)]),
            participants=(f"person:{n % 50}",),
            edges=tuple(edges),
        ))
    return items


def open_system(path):
    store = SQLiteTripleStore(path)
    journal = SQLiteJournal(path)
    return MemorySystem(store=store, journal=journal), store, journal


def checkpoint(path):
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


def fresh_copy(src, dst):
    for suffix in ("", "-wal", "-shm"):
        Path(str(dst) + suffix).unlink(missing_ok=True)
    shutil.copyfile(src, dst)


def main() -> None:
    records, rounds, out_dir = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    warnings.simplefilter("ignore")
    out_dir.mkdir(parents=True, exist_ok=True)
    home = out_dir / "oracle.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(str(home) + suffix).unlink(missing_ok=True)
    t0 = time.perf_counter()
    ms, store, journal = open_system(home)
    first = None
    for k in range(records // BATCH):
        ids = ms.remember_many(batch(k, first), scope=PAIR[0], owner_id=PAIR[1],
                               idempotency_key=f"b{k}")
        first = ids[0]
    build_s = time.perf_counter() - t0
    checkpoint(home)
    scopes = [PAIR]

    figures = {}

    def timed(name, call, fresh=False):
        runs, cpu = [], []
        for r in range(rounds):
            if fresh:
                copy = out_dir / f"python-copy-{r}.sqlite3"
                fresh_copy(home, copy)
                system, st, jn = open_system(copy)
            else:
                system, st, jn = ms, store, journal
            t, c = time.perf_counter_ns(), time.process_time_ns()
            call(system, st, jn)
            runs.append(time.perf_counter_ns() - t)
            cpu.append(time.process_time_ns() - c)
            if fresh:
                for suffix in ("", "-wal", "-shm"):
                    Path(str(copy) + suffix).unlink(missing_ok=True)
        figures[name] = {"median_ns": statistics.median(runs), "runs_ns": runs,
                         "cpu_ns": statistics.median(cpu)}

    timed("structural_report", lambda s, st, jn: structural_report(st, jn, scopes=scopes))
    timed("maintenance_report", lambda s, st, jn: maintenance_report(st, jn, scopes=scopes))
    # A first check: a fresh process reading the home it finds (0.3.2 keeps
    # no cursor between calls, so every call is a first check).
    timed("maintenance_due", lambda s, st, jn: maintenance_due(st, jn, scopes=scopes),
          fresh=True)
    timed("resolve_dreams_pass_report_only",
          lambda s, st, jn: resolve_dreams_pass(s, scopes=scopes, owner_id=PAIR[1],
                                                report_only=True))
    timed("resolve_dreams_pass",
          lambda s, st, jn: resolve_dreams_pass(s, scopes=scopes, owner_id=PAIR[1]),
          fresh=True)
    timed("consolidation_pass_report_only",
          lambda s, st, jn: consolidation_pass(s, scopes=scopes, owner_id=PAIR[1],
                                               report_only=True))
    timed("consolidation_pass",
          lambda s, st, jn: consolidation_pass(s, scopes=scopes, owner_id=PAIR[1]),
          fresh=True)
    # The world_models phase on its own (issue 39's pass), writing, on a
    # fresh copy each round.
    timed("world_model_pass",
          lambda s, st, jn: world_model_pass(s, scopes=scopes, owner_id=PAIR[1]),
          fresh=True)
    # The night, phase by phase on one fresh copy, as 0.3.2's sleep_pass
    # runs them (the dream given the tending's operation count and the
    # earlier phases' results).
    night_rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    phases = ("resolution", "maintenance", "world_models", "mining", "identity", "dream")
    night_runs = {name: [] for name in phases}
    night_cpu = {name: [] for name in phases}
    # AM_SLEEP_ORACLE_NIGHT_UNTIL=world_models ends each night after its
    # world_models phase (the dream phase alone takes minutes): only the
    # first three phases' rows are written.
    until = os.environ.get("AM_SLEEP_ORACLE_NIGHT_UNTIL", "")
    for r in range(night_rounds):
        copy = out_dir / f"python-night-{r}.sqlite3"
        fresh_copy(home, copy)
        system, st, jn = open_system(copy)
        kw = dict(scopes=scopes, owner_id=PAIR[1])
        done = {}

        def phase(name, call):
            t, c = time.perf_counter_ns(), time.process_time_ns()
            done[name] = call()
            night_runs[name].append(time.perf_counter_ns() - t)
            night_cpu[name].append(time.process_time_ns() - c)

        phase("resolution", lambda: resolve_dreams_pass(system, **kw))
        phase("maintenance", lambda: consolidation_pass(system, **kw))
        phase("world_models", lambda: world_model_pass(system, **kw))
        if until != "world_models":
            phase("mining", lambda: mine_candidates_pass(system, **kw))
            phase("identity", lambda: identity_review_pass(system, **kw))
            ops = len((done["maintenance"].get("report") or {}).get("operations") or ())
            phase("dream", lambda: dream_pass(
                system, maintenance_ops=ops,
                phase_results={k: done[k] for k in ("resolution", "maintenance",
                                                     "world_models", "mining")},
                **kw))
        for suffix in ("", "-wal", "-shm"):
            Path(str(copy) + suffix).unlink(missing_ok=True)
    for name in phases:
        runs = night_runs[name]
        if runs:
            figures[f"night_{name}"] = {"median_ns": statistics.median(runs), "runs_ns": runs,
                                        "cpu_ns": statistics.median(night_cpu[name])}
    for label, names in (("night_four_phases", ("resolution", "maintenance",
                                                "world_models", "dream")),
                         ("night_six_phases", phases)):
        if night_rounds == 0 or any(not night_runs[n] for n in names):
            continue
        runs = [sum(night_runs[n][r] for n in names) for r in range(night_rounds)]
        figures[label] = {"median_ns": statistics.median(runs), "runs_ns": runs}
    json.dump({"records": records, "rounds": rounds, "build_s": build_s,
               "night_rounds": night_rounds,
               "figures": figures}, sys.stdout)


if __name__ == "__main__":
    main()
