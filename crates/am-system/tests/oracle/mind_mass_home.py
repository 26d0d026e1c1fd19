"""Build an AbstractMemory 0.3.2 home for the mind-mass differential
(`tests/operator/oracle.rs`): `drives_home.py`'s crafted drives, then
`lived_home.py`'s `living`, one 0.3.2 `sleep_pass` night on the first pair
(dreams, candidates; the other pairs never sleep), then a wake-cue loop
(five near-identical episodes of one day), two records sharing a title and
a third that is retracted, then read `mind_mass_report` with 0.3.2 over
several ladders, windows and bounds.

Usage: python mind_mass_home.py SEED OUT_DIR

The WAL is checkpointed and the file copied to OUT_DIR/rust.sqlite3; the
reads run on OUT_DIR/oracle.sqlite3 and print as JSON with their calls.
"""

import json
import random
import shutil
import sqlite3
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import drives_home as dh  # noqa: E402
import lived_home as lh  # noqa: E402
from abstractmemory import MemorySystem, SQLiteJournal, SQLiteTripleStore  # noqa: E402
from abstractmemory.maintenance import sleep_pass  # noqa: E402
from abstractmemory.mind_mass import mind_mass_report  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402


def main() -> None:
    seed, out_dir = int(sys.argv[1]), Path(sys.argv[2])
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
    dh.crafted(ms, "a")
    lh.living(ms, rng, "lived")
    first = lh.PAIRS[0]
    sleep_pass(ms, scopes=[first], owner_id=first[1])
    # A wake-cue loop: near-identical episodes of one day.
    for i in range(5):
        ms.remember_many(
            [R(kind="episode", title=f"Woke to the kiln cue {i}",
               digest="woke up and checked the kiln glaze crawling status again today")],
            scope="session", owner_id="s2", idempotency_key=f"loop-{i}")
    # Duplicate titles; the third copy is retracted and stops counting.
    dup = []
    for i in range(3):
        [gid] = ms.remember_many(
            [R(kind="lesson", title="Glaze needs a slower cool",
               digest=f"the glaze cracks when the kiln cools too fast, take {i}")],
            scope="project", owner_id="p1", idempotency_key=f"dup-{i}")
        dup.append(gid)
    ms.close_record(dup[2], reason="a copy")
    # Mechanical-digest debt: poor marker-only digests, rich ones, a
    # protected kind, an authored one, an unlabeled one, another pair.
    debt = [
        ("episode", "mechanical-v1", "[used tool: read_file]", ("session", "s1")),
        ("episode", "mechanical-v2", "[used tool: read_file] [kept in diary - note] ok", ("session", "s1")),
        ("memory", "mechanical-floor-v1", "the kiln glaze crawled because the bisque was dusty", ("session", "s1")),
        ("lesson", "mechanical-flow-v1", "  [kept a private diary entry]  wash   the bisque before glazing  ", ("project", "p1")),
        ("decision", "mechanical-dedup-v1", "[used tool: x] a dedup decision", ("project", "p1")),
        ("diary", "mechanical-v1", "[used tool: read_file]", ("session", "s1")),
        ("memory", "entity-authored", "[used tool: read_file]", ("session", "s1")),
        ("memory", "", "[used tool: read_file]", ("session", "s1")),
        ("episode", " mechanical-v1 ", "[" + "x" * 121 + "] long bracket", ("session", "s2")),
        ("episode", "mechanical-v1", "[" + "y" * 120 + "] and [] and [a[b]c]", ("session", "s2")),
    ]
    for i, (kind, method, digest, pair) in enumerate(debt):
        attrs = {"digest_method": method} if method else {}
        if kind == "diary":
            attrs["diary_type"] = "note"
        ms.remember_many(
            [R(kind=kind, title=f"Debt {i}", digest=digest, keywords=("kiln", f"k{i}"),
               participants=("person:ana",), payload_ref=(f"payload/{i}.json" if i % 2 else None),
               attributes=attrs,
               provenance=({"source": "owner-direct"} if kind == "diary" else {}))],
            scope=pair[0], owner_id=pair[1], idempotency_key=f"debt-{i}")
    con = sqlite3.connect(home)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    for suffix in ("-wal", "-shm"):
        Path(str(out_dir / "rust.sqlite3") + suffix).unlink(missing_ok=True)
    shutil.copyfile(home, out_dir / "rust.sqlite3")

    calls = [
        {"scopes": [list(p) for p in lh.PAIRS], "now": "2026-01-06T09:00:00+00:00"},
        {"scopes": [list(p) for p in lh.PAIRS], "now": "2026-01-05T12:30:00.250000+00:00", "days": 1},
        {"scopes": [list(p) for p in lh.PAIRS], "now": "2026-01-06T09:00:01.500000+00:00", "days": 1},
        {"scopes": [["session", "s1"]], "now": "2026-02-01T00:00:00Z", "days": 3650},
        {"scopes": [[" Session ", " s2 "], ["session", "s2"]], "now": "2026-01-06T09:00:00+02:00",
         "vector_scan_limit": 5},
        {"scopes": [["session", ""], ["session", "s1"]], "now": "2026-01-06T09:00:00",
         "wake_cue_kind": None},
        {"scopes": [["elsewhere", "nobody"]], "now": "2026-01-06T09:00:00+00:00"},
    ]
    out = {"calls": []}
    for call in calls:
        kw = {k: v for k, v in call.items() if k != "scopes"}
        result = mind_mass_report(store, journal, scopes=[tuple(p) for p in call["scopes"]], **kw)
        out["calls"].append({"call": call, "result": result})
    from dataclasses import asdict
    from abstractmemory.redigestion import redigestion_candidates
    out["redigestion"] = []
    for call in [
        {"scopes": [list(p) for p in lh.PAIRS]},
        {"scopes": [list(p) for p in lh.PAIRS], "limit": 3},
        {"scopes": [["session", "s1"]], "min_residue_chars": 5},
        {"scopes": [["session", "s1"], ["session", ""]], "methods": ["mechanical-dedup-v1", "mechanical-v1"]},
    ]:
        kw = {k: v for k, v in call.items() if k != "scopes"}
        if "methods" in kw:
            kw["methods"] = frozenset(kw["methods"])
        r = redigestion_candidates(ms, scopes=[tuple(p) for p in call["scopes"]], **kw)
        r["candidates"] = [asdict(c) for c in r["candidates"]]
        out["redigestion"].append({"call": call, "result": r})
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
