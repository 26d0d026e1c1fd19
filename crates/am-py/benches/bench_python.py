"""Speed of the Python package on the LoCoMo dev conversations (issue 44,
docs/benchmarks.md "The Python package"). No pytest-benchmark: it prints
its figures.

    python crates/am-py/benches/bench_python.py [--module abstractmemory_rs]
        [--embedder offline|none] [--questions N] [--data PATH] [--rust-bin BIN]

Each conversation of the split becomes a SQLite home: its turns formed as
episodes with ``remember_many`` in batches of 100 (records/s), then each
question recalled with ``reconstruct`` (the median per call). Under
``--module abstractmemory`` (0.3.2, in the oracle's venv) the same script
times 0.3.2 on the same data (0.3.2 has no offline embedder: compare with
``--embedder none`` on both sides). The data is read from the fixtures,
never copied into the repository.

``--rust-bin BIN`` names the release build of the Rust side
(``cargo build --release -p am-system --example locomo_timing``): after the
Python run it runs the same work through the Rust API and prints a second
line judging issue 44's bound, Python's median ``reconstruct`` within
1.2x the Rust API's plus 20 us.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Dict, List

DATA = "/work/shared/fixtures/locomo/locomo-dev.json"


def turns(sample: Dict[str, Any]) -> List[Dict[str, Any]]:
    conv = sample["conversation"]
    out = []
    n = 1
    while f"session_{n}" in conv:
        for t in conv[f"session_{n}"]:
            out.append({"kind": "episode", "title": f"{t['speaker']} {t['dia_id']}",
                        "digest": t["text"], "participants": [f"person:{t['speaker'].lower()}"]})
        n += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--module", default="abstractmemory_rs")
    ap.add_argument("--embedder", default="offline", choices=["offline", "none"])
    ap.add_argument("--questions", type=int, default=0, help="questions per conversation (0: all)")
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--rust-bin", default=None, help="the locomo_timing example's binary")
    a = ap.parse_args()
    am: Any = importlib.import_module(a.module)
    warnings.simplefilter("ignore")
    samples = json.loads(Path(a.data).read_text())
    formed, form_s, recall_us = 0, 0.0, []
    with tempfile.TemporaryDirectory() as d:
        for i, sample in enumerate(samples):
            path = Path(d) / f"h{i}.sqlite3"
            embedder = am.OfflineEmbedder() if a.embedder == "offline" else None
            store = am.SQLiteTripleStore(path, embedder=embedder) if embedder else am.SQLiteTripleStore(path)
            system = am.MemorySystem(store=store, journal=am.SQLiteJournal(path))
            recs = turns(sample)
            owner = sample["sample_id"]
            t0 = time.perf_counter()
            for b in range(0, len(recs), 100):
                if a.module == "abstractmemory":
                    batch: Any = [am.MemoryRecordInput(**r) for r in recs[b:b + 100]]
                else:
                    batch = recs[b:b + 100]
                system.remember_many(batch, scope="locomo", owner_id=owner, idempotency_key=f"{owner}-{b}")
            form_s += time.perf_counter() - t0
            formed += len(recs)
            qs = sample["qa"][: a.questions or None]
            for q in qs:
                cue = am.Stimulus(cue_text=q["question"]) if a.module == "abstractmemory" else {"cue_text": q["question"]}
                t0 = time.perf_counter()
                system.reconstruct(cue, scopes=[("locomo", owner)])
                recall_us.append((time.perf_counter() - t0) * 1e6)
    ours = {
        "module": a.module, "embedder": a.embedder, "records": formed,
        "remember_many_records_per_s": round(formed / form_s),
        "reconstructs": len(recall_us),
        "reconstruct_median_us": round(statistics.median(recall_us), 1),
        "reconstruct_p90_us": round(sorted(recall_us)[int(len(recall_us) * 0.9)], 1),
    }
    print(json.dumps(ours))
    if a.rust_bin:
        out = subprocess.run(
            [a.rust_bin, "--data", a.data, "--embedder", a.embedder, "--questions", str(a.questions)],
            check=True, capture_output=True, text=True).stdout
        rust = json.loads(out.strip().splitlines()[-1])
        print(json.dumps(rust))
        bound = 1.2 * rust["reconstruct_median_us"] + 20.0
        print(json.dumps({
            "python_over_rust": round(ours["reconstruct_median_us"] / rust["reconstruct_median_us"], 3),
            "bound_us": round(bound, 1),
            "within_1_2x_plus_20us": ours["reconstruct_median_us"] <= bound,
        }))


if __name__ == "__main__":
    sys.exit(main())
