"""AbstractMemory 0.3.2's side of the `reach` bench (issue 42 "Proof",
speed): build a home of RECORDS formed records with 0.3.2 in the shape of
the Rust bench's 100k home (the `sleep` bench's shape), time 0.3.2's
`probe` (effort standard, journal off) on it, and print the medians as JSON.

The home is OUT_DIR/oracle.sqlite3 (checkpointed, so a copy is the whole
home); the Rust bench times the same call on a copy of that file.

Usage: python reach_oracle.py RECORDS ROUNDS OUT_DIR
Prints: {"records": N, "rounds": R, "build_s": s,
         "figures": {"probe_standard": {"median_ns": ns, "runs_ns": [..]}}}
"""

import json
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from sleep_oracle import BATCH, PAIR, batch, checkpoint, open_system  # noqa: E402
from abstractmemory.seam import Stimulus  # noqa: E402

CUE = "what happened with the harbor signal and the kernel cache"


def main() -> None:
    records, rounds, out_dir = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    warnings.simplefilter("ignore")
    out_dir.mkdir(parents=True, exist_ok=True)
    home = out_dir / "oracle.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(str(home) + suffix).unlink(missing_ok=True)
    t0 = time.perf_counter()
    ms, _store, _journal = open_system(home)
    first = None
    for k in range(records // BATCH):
        ids = ms.remember_many(batch(k, first), scope=PAIR[0], owner_id=PAIR[1],
                               idempotency_key=f"b{k}")
        first = ids[0]
    build_s = time.perf_counter() - t0
    checkpoint(home)
    runs = []
    for _ in range(rounds):
        t = time.perf_counter_ns()
        ms.probe(Stimulus(cue_text=CUE), scopes=[PAIR], reason="the bench reaches",
                 effort="standard", journal=False)
        runs.append(time.perf_counter_ns() - t)
    json.dump({"records": records, "rounds": rounds, "build_s": build_s,
               "figures": {"probe_standard": {"median_ns": statistics.median(runs),
                                              "runs_ns": runs}}}, sys.stdout)


if __name__ == "__main__":
    main()
