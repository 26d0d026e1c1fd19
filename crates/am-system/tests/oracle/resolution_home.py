"""Build an AbstractMemory 0.3.2 home with standing dreams (the
`sleep_reports.py` generator's lived home and crafted batch, NIGHTS full
nights of 0.3.2's own), then let the day answer some of them: for each pair,
the first standing dream's first bridge proposal gets a lived record whose
authored `supports` edges join its two endpoints. Copies the file to
OUT_DIR/rust.sqlite3, then runs 0.3.2's `resolve_dreams_pass` per pair: the
dry run, then the write, then the write again; for the differential test
`tests/sleep_passes` (module `oracle`).

Usage: python resolution_home.py SEED OUT_DIR SHAPE NIGHTS
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import lived_home as lh  # noqa: E402
import oracle_home  # noqa: E402
from abstractmemory.consolidation import unresolved_dreams  # noqa: E402
from abstractmemory.dream_resolution import resolve_dreams_pass  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402
from abstractmemory.sleep_policy import SleepTuning  # noqa: E402


def main() -> None:
    seed, out_dir, shape, nights = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    _rng, home, store, journal, ms = oracle_home.slept_in(seed, out_dir, shape, nights)
    joined = []
    for scope, owner in lh.PAIRS:
        for dream in unresolved_dreams(store, scope=scope, owner_id=owner, journal=journal):
            proposals = (dream.attributes or {}).get("proposals") or []
            if proposals:
                left, right = proposals[0]["pair"]
                ms.remember_many([R(kind="episode", title="The day joined them",
                                    digest="Lived through what joined the two.",
                                    edges=(("supports", left), ("supports", right)))],
                                 scope=scope, owner_id=owner, idempotency_key=f"join-{dream.subject}")
                joined.append([scope, owner, dream.subject])
                break
    oracle_home.copy(home, out_dir / "rust.sqlite3")
    runs = []
    for scope, owner in lh.PAIRS:
        for report_only, tuning in ((True, {}), (False, {}), (True, {"resolution_fraction": 0.04}),
                                    (False, {"resolution_fraction": 0.04}),
                                    (False, {"resolution_fraction": 0.04})):
            r = resolve_dreams_pass(ms, scopes=[(scope, owner)], owner_id=owner, report_only=report_only,
                                    tuning=SleepTuning(**tuning))
            runs.append({"scopes": [[scope, owner]], "owner_id": owner, "report_only": report_only,
                         "tuning": tuning, "result": r})
    json.dump({"joined": joined, "runs": runs}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
