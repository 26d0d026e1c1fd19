"""What the oracle generators share: a fresh, deterministic AbstractMemory
0.3.2 home in OUT_DIR, the checkpointed copy the Rust side opens, and the
slept-in home the sleep generators build (a lived home, the crafted batch,
NIGHTS of 0.3.2's own full nights with a little life after each).

Imported by the `*_home.py` generators; not run on its own.
"""

import random
import shutil
import sqlite3
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import lived_home as lh  # noqa: E402
from abstractmemory import MemorySystem, SQLiteJournal, SQLiteTripleStore  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402


def fresh(seed: int, out_dir: Path):
    """Deterministic ids and clock for SEED, and an empty home
    OUT_DIR/oracle.sqlite3 (any earlier one removed): (rng, home path, store,
    journal, system)."""
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
    return rng, home, store, journal, ms


def copy(home: Path, to: Path) -> None:
    """Checkpoint the WAL into HOME and copy the file to TO."""
    con = sqlite3.connect(home)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    shutil.copyfile(home, to)


def life_after_night(ms, seed: int, night: int) -> None:
    """Three records lived after NIGHT, drawn from SEED."""
    sub = random.Random(seed * 31 + night)
    for b in range(3):
        pair = sub.choice(lh.PAIRS)
        ms.remember_many([R(kind=sub.choice(lh.KINDS), title=lh.sentence(sub, 2)[:-1],
                            digest=lh.sentence(sub, 7),
                            keywords=tuple(sorted({sub.choice(lh.WORDS) for _ in range(2)})))],
                         scope=pair[0], owner_id=pair[1], idempotency_key=f"after-{night}-{b}")


def slept_in(seed: int, out_dir: Path, shape: str, nights: int, *, life_after: bool = True):
    """The sleep generators' home: lived (SHAPE), the crafted batch, then
    NIGHTS full nights of 0.3.2's `sleep_pass` per pair, with a little life
    after each (LIFE_AFTER). Returns (rng, home path, store, journal,
    system)."""
    from abstractmemory.maintenance import sleep_pass
    from sleep_reports import crafted

    rng, home, store, journal, ms = fresh(seed, out_dir)
    lh.living(ms, rng, shape)
    crafted(ms, store)
    for night in range(nights):
        for pair in lh.PAIRS:
            sleep_pass(ms, scopes=[pair], owner_id=pair[1])
        if life_after:
            life_after_night(ms, seed, night)
    return rng, home, store, journal, ms
