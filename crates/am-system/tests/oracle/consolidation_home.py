"""Build an AbstractMemory 0.3.2 home (the `sleep_reports.py` generator's:
a lived home, its crafted batch, NIGHTS full nights) and run 0.3.2's
`consolidation_pass` on it, for the differential test `tests/sleep_passes`
(module `oracle`): the dry runs (`report_only=True`) over several scope sets
and arguments, then the writes over each pair of the home, on the same file
the Rust side reads (copied to OUT_DIR/rust.sqlite3 before any of them).

Usage: python consolidation_home.py SEED OUT_DIR SHAPE NIGHTS
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import lived_home as lh  # noqa: E402
import oracle_home  # noqa: E402
from abstractmemory.maintenance import consolidation_pass  # noqa: E402
from abstractmemory.sleep_policy import SleepTuning  # noqa: E402


def main() -> None:
    seed, out_dir, shape, nights = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    _rng, home, store, journal, ms = oracle_home.slept_in(seed, out_dir, shape, nights, life_after=False)
    oracle_home.copy(home, out_dir / "rust.sqlite3")
    hw = journal.current_seq()

    dry = []
    calls = [
        {"scopes": [["session", "s1"]], "owner_id": "s1"},
        {"scopes": [list(p) for p in lh.PAIRS], "owner_id": "s1", "scan_limit": 10},
        {"scopes": [["session", "s1"]], "owner_id": "s1", "as_of": hw // 2},
        {"scopes": [["session", "s1"]], "owner_id": "s1", "tuning": {"list_bound": 2}},
    ]
    for call in calls:
        kw = dict(call)
        kw["scopes"] = [tuple(p) for p in kw["scopes"]]
        if "tuning" in kw:
            kw["tuning"] = SleepTuning(**kw["tuning"])
        dry.append({"args": call, "result": consolidation_pass(ms, report_only=True, **kw)})
    writes = []
    for call in (
        {"scopes": [["session", "s1"]], "owner_id": "s1", "max_candidates": 1},
        {"scopes": [["session", "s1"]], "owner_id": "s1"},
        {"scopes": [["session", "s1"]], "owner_id": "s1"},
        {"scopes": [list(p) for p in lh.PAIRS], "owner_id": "p1", "max_candidates": 6},
    ):
        kw = dict(call)
        kw["scopes"] = [tuple(p) for p in kw["scopes"]]
        r = consolidation_pass(ms, **kw)
        writes.append({"args": call, "created": r["created"], "skipped": r["skipped"],
                       "created_count": r["created_count"]})
    json.dump({"final_seq": hw, "dry": dry, "writes": writes}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
