"""AbstractMemory 0.3.2's side of the `operator` bench (issue 43 "Proof",
speed): build a home of RECORDS formed records with 0.3.2 in the shape the
Rust bench's 100k home has (one row a record, two keywords and a
participant), embedded at formation, time 0.3.2's `mind_mass_report` and
`reembed_store` on it, and print their medians as JSON for the bench to
copy beside its own rows.

0.3.2 ships no offline model (its embedders call an HTTP endpoint), so the
home is embedded, and re-embedded, with a pure-Python 64-dimension hashing
embedder (a blake2b digest of the text): cheaper per text than the offline
model the Rust side runs with, so the re-embed figure favours 0.3.2.

The home is OUT_DIR/oracle.sqlite3 (checkpointed, so a copy is the whole
home); the Rust bench times the same calls on copies of that file. The
re-embed runs on a fresh copy each round (the copy is not timed).

Usage: python operator_oracle.py RECORDS ROUNDS OUT_DIR
Prints: {"records": N, "rows": R, "rounds": K, "build_s": s,
         "figures": {"<call>": {"median_ns": ns, "runs_ns": [..]}}}
"""

import hashlib
import json
import shutil
import sqlite3
import statistics
import sys
import time
import warnings
from pathlib import Path

from abstractmemory import MemorySystem, SQLiteJournal, SQLiteTripleStore
from abstractmemory.mind_mass import mind_mass_report
from abstractmemory.records import MemoryRecordInput as R
from abstractmemory.reembed import reembed_store

BATCH = 1000
PAIR = ("life", "e1")
WORDS = ["pool", "outage", "harbor", "signal", "tea", "garden", "piano", "kernel",
         "cache", "river", "ticket", "review"]


class HashEmbedder:
    """64 floats a text from its blake2b digest (0.3.2's TextEmbedder protocol)."""

    model_id = "bench/hash-64"
    dimension = 64

    def embed_texts(self, texts):
        out = []
        for t in texts:
            d = hashlib.blake2b(t.encode("utf-8"), digest_size=64).digest()
            out.append([b / 255.0 + 0.001 for b in d])
        return out


def batch(k):
    """The Rust bench's `batch(k)`, record for record."""
    items = []
    for i in range(BATCH):
        n = k * BATCH + i
        w1, w2 = WORDS[n % len(WORDS)], WORDS[(n // 7) % len(WORDS)]
        items.append(R(
            kind="lesson" if i % 3 == 0 else "episode",
            title=f"Record {n}",
            digest=f"Record {n} says something about {w1} and the {w2}.",
            keywords=(w1, w2),
            participants=(f"person:{n % 50}",),
        ))
    return items


def open_system(path, embedder):
    store = SQLiteTripleStore(path, embedder=embedder)
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
    ms, store, journal = open_system(home, HashEmbedder())
    for k in range(records // BATCH):
        ms.remember_many(batch(k), scope=PAIR[0], owner_id=PAIR[1], idempotency_key=f"b{k}")
    build_s = time.perf_counter() - t0
    checkpoint(home)
    con = sqlite3.connect(home)
    rows = con.execute("SELECT COUNT(*) FROM triples").fetchone()[0]
    con.close()
    scopes = [PAIR]
    figures = {}

    def timed(name, call, fresh=False):
        runs = []
        for r in range(rounds):
            if fresh:
                copy = out_dir / f"python-copy-{r}.sqlite3"
                fresh_copy(home, copy)
                system, st, jn = open_system(copy, None)
            else:
                system, st, jn = ms, store, journal
            t = time.perf_counter_ns()
            call(system, st, jn)
            runs.append(time.perf_counter_ns() - t)
            if fresh:
                for suffix in ("", "-wal", "-shm"):
                    Path(str(copy) + suffix).unlink(missing_ok=True)
        figures[name] = {"median_ns": statistics.median(runs), "runs_ns": runs}

    timed("mind_mass_report", lambda s, st, jn: mind_mass_report(st, jn, scopes=scopes))
    timed("reembed_store",
          lambda s, st, jn: reembed_store(s, embedder=HashEmbedder(), owner_id=PAIR[1],
                                          model_id="bench/hash-64-b"),
          fresh=True)
    json.dump({"records": records, "rows": rows, "rounds": rounds, "build_s": build_s,
               "figures": figures}, sys.stdout)


if __name__ == "__main__":
    main()
