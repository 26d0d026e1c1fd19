"""Build an AbstractMemory 0.3.2 home for the dream differential (the
`sleep_reports.py` generator's lived home and crafted batch, then NIGHTS
full nights of 0.3.2's own, a few records lived after each), copy the file
to OUT_DIR/rust.sqlite3, and print 0.3.2's `dream_pass(report_only=True)`
answers per pair and argument variant; for the differential test
`tests/sleep_passes` (module `oracle`).

Usage: python dream_home.py SEED OUT_DIR SHAPE NIGHTS
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import lived_home as lh  # noqa: E402
import oracle_home  # noqa: E402
from abstractmemory.consolidation import dream_pass  # noqa: E402

VARIANTS = [
    {},
    {"salience_floor": 1},
    {"salience_floor": 500},
    {"maintenance_ops": 9},
    {"embedder_similarity_floor": 0.9},
]


def main() -> None:
    seed, out_dir, shape, nights = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    _rng, home, store, journal, ms = oracle_home.slept_in(seed, out_dir, shape, nights)
    oracle_home.copy(home, out_dir / "rust.sqlite3")
    runs = []
    pairs = [[list(p)] for p in lh.PAIRS] + [[list(p) for p in lh.PAIRS]]
    for scopes in pairs:
        owner = scopes[0][1]
        for variant in VARIANTS:
            r = dream_pass(ms, scopes=[tuple(p) for p in scopes], owner_id=owner,
                           report_only=True, **variant)
            runs.append({"scopes": scopes, "owner_id": owner, "variant": variant, "result": r})
    json.dump({"runs": runs}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
