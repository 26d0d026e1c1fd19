"""Build an AbstractMemory 0.3.2 home for the dream differential (the
`sleep_reports.py` generator's lived home and crafted batch, then NIGHTS
full nights of 0.3.2's own, a few records lived after each), copy the file
to OUT_DIR/rust.sqlite3, and print 0.3.2's `dream_pass(report_only=True)`
answers per pair and argument variant; for the differential test
`tests/sleep_passes` (module `oracle`).

Usage: python dream_home.py SEED OUT_DIR SHAPE NIGHTS
"""

import json
import random
import shutil
import sqlite3
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import lived_home as lh  # noqa: E402
from sleep_reports import crafted  # noqa: E402
from abstractmemory import MemorySystem, SQLiteJournal, SQLiteTripleStore  # noqa: E402
from abstractmemory.consolidation import dream_pass  # noqa: E402
from abstractmemory.maintenance import sleep_pass  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402

VARIANTS = [
    {},
    {"salience_floor": 1},
    {"salience_floor": 500},
    {"maintenance_ops": 9},
    {"embedder_similarity_floor": 0.9},
]


def main() -> None:
    seed, out_dir, shape, nights = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    warnings.simplefilter("ignore")
    lh.install_determinism(seed)
    rng = random.Random(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    home = out_dir / "oracle.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(str(home) + suffix).unlink(missing_ok=True)
    store = SQLiteTripleStore(home)
    journal = SQLiteJournal(home)
    ms = MemorySystem(store=store, journal=journal, clock=lh.CLOCK.iso)
    lh.living(ms, rng, shape)
    crafted(ms, store)
    for night in range(nights):
        for pair in lh.PAIRS:
            sleep_pass(ms, scopes=[pair], owner_id=pair[1])
        sub = random.Random(seed * 31 + night)
        for b in range(3):
            pair = sub.choice(lh.PAIRS)
            ms.remember_many([R(kind=sub.choice(lh.KINDS), title=lh.sentence(sub, 2)[:-1],
                                digest=lh.sentence(sub, 7),
                                keywords=tuple(sorted({sub.choice(lh.WORDS) for _ in range(2)})))],
                             scope=pair[0], owner_id=pair[1], idempotency_key=f"after-{night}-{b}")
    con = sqlite3.connect(home)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    shutil.copyfile(home, out_dir / "rust.sqlite3")
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
