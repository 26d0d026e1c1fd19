"""Build an AbstractMemory 0.3.2 home holding drives of every family, then
read them with 0.3.2 (`drive_pressure`, `alive_drives`, `open_drive_partition`,
`drive_groups`, `cognition_health`), for the differential test
`tests/drives/oracle.rs`.

Usage: python drives_home.py SEED OUT_DIR MODE

MODE `fresh`: only the crafted drives (every one recent). MODE `lived`: the
crafted drives, then `lived_home.py`'s `living` (shape `lived`, so the
oldest drives fall out of the binding axis's recency window), then one
0.3.2 `sleep_pass` night per pair (dreams, candidates), then a few
reinforcements of drives (trails). The crafted drives, per pair: templated
questions that group (three about kilns, two about harbours), a lone
question, a long-digest question, a loom group told only by the first
batch (dormant once lived past, so it presses by its size alone), a closed and a hidden one, problems (one
resolved by graph id, one by book id), commitments (one fulfilled), ideas
(one rejected), interests (one explored, one "explored" by a machine row,
one rejected, one hidden), standing and resolved dreams, review candidates
and a bookkeeping row.

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

import lived_home as lh  # noqa: E402
from abstractmemory import MemorySystem, SQLiteJournal, SQLiteTripleStore  # noqa: E402
from abstractmemory.alive_drives import alive_drives  # noqa: E402
from abstractmemory.cognition_health import cognition_health  # noqa: E402
from abstractmemory.drive_grouping import drive_groups, open_drive_partition  # noqa: E402
from abstractmemory.drive_pressure import drive_pressure  # noqa: E402
from abstractmemory.maintenance import sleep_pass  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402

DRIVE_PAIRS = [("session", "s1"), ("project", "p1")]


def diary(ms, pair, key, dtype, title, text, **attrs):
    [gid] = ms.remember_many(
        [R(kind="diary", title=title, digest=text,
           attributes={"diary_type": dtype, **attrs}, provenance={"source": "owner-direct"})],
        scope=pair[0], owner_id=pair[1], idempotency_key=key)
    return gid


def record(ms, pair, key, kind, title, text, edges=(), **attrs):
    [gid] = ms.remember_many(
        [R(kind=kind, title=title, digest=text, attributes=attrs, edges=tuple(edges),
           provenance={"source": "entity-reflection"})],
        scope=pair[0], owner_id=pair[1], idempotency_key=key)
    return gid


def crafted(ms, tag):
    ids = {}
    for n, pair in enumerate(DRIVE_PAIRS):
        k = f"{tag}-{n}"
        day = f"2026-01-0{n + 1}"
        q = lambda name, text, **a: ids.__setitem__(  # noqa: E731
            f"{k}-{name}", diary(ms, pair, f"{k}-{name}", "question",
                                 f"Diary entry (question) — {day}", text, **a))
        q("kiln1", "Why does the kiln glaze crawl at cone six firing?")
        q("kiln2", "Does slower kiln cooling stop the glaze crawling?")
        q("kiln3", "Is the glaze crawling from dust before kiln firing?")
        q("harbor1", "When does the harbour ferry timetable change for winter?")
        q("harbor2", "Which harbour ferry leaves before the winter timetable?")
        q("lone", "What is the name of the blue flower by the gate?")
        q("long", "Why " + " ".join(["memory keeps folding the same evening back"] * 9) + "?")
        q("closed", "Was the closed question ever open?")
        q("hidden", "Does the hidden question press?")
        q("book", "Which book holds the recipe?", entry_id=f"book:{k}-q")
        if tag == "a":  # a group only the first batch tells: dormant once lived past
            q("loom1", "How tight should the loom warp be for linen weaving?")
            q("loom2", "Does linen weaving need a looser loom warp?")
            q("loom3", "Which loom warp suits linen weaving best?")
        ms.close_record(ids[f"{k}-closed"], reason="asked by mistake")
        ms.bind(ids[f"{k}-hidden"], scope=pair[0], owner_id=pair[1], search_state="hidden",
                reason="operator hide")
        p = lambda name, text, **a: ids.__setitem__(  # noqa: E731
            f"{k}-{name}", diary(ms, pair, f"{k}-{name}", "problem", f"Problem {name}", text, **a))
        p("pump1", "The pump leaks pressure at night")
        p("pump2", "The pump pressure drops when the leak widens")
        p("pump3", "Pressure in the pump leak valve keeps falling")
        p("roof", "The roof gutter overflows", entry_id=f"book:{k}-roof")
        diary(ms, pair, f"{k}-fix1", "note", "Fixed", "Replaced the pump seal.",
              resolves=ids[f"{k}-pump3"])
        diary(ms, pair, f"{k}-fix2", "note", "Gutter", "Cleared the gutter.",
              answers=f"book:{k}-roof")
        diary(ms, pair, f"{k}-ans", "note", "Answer", "The book is the green one.",
              answers=f"book:{k}-q")
        c1 = diary(ms, pair, f"{k}-c1", "commitment", "Call Ada", "I will call Ada on Sunday.")
        diary(ms, pair, f"{k}-c2", "commitment", "Water plants", "I will water the plants.")
        diary(ms, pair, f"{k}-done", "note", "Called", "Called Ada.", fulfills=c1)
        diary(ms, pair, f"{k}-i1", "idea", "Clay tiles", "Tiles from leftover clay.")
        i2 = diary(ms, pair, f"{k}-i2", "idea", "Boat", "A boat of paper.")
        ms.bind(i2, scope=pair[0], owner_id=pair[1], search_state="indexed", lifecycle="rejected",
                reason="not now")
        ints = {}
        for name, title, text in [
            ("tides", "Tides and moon", "How tides follow the moon and lag it"),
            ("tides2", "Moon tides lag", "The lag of moon tides behind the moon"),
            ("tides3", "Tide tables moon", "Reading tide tables against the moon lag"),
            ("glaze", "Glaze chemistry", "Why glazes crawl"),
            ("machine", "Knots", "Sailing knots"),
            ("parked", "Chess", "Chess openings"),
            ("hidden", "Opera", "Opera staging"),
        ]:
            ints[name] = record(ms, pair, f"{k}-int-{name}", "interest", title, text)
            ids[f"{k}-int-{name}"] = ints[name]
        record(ms, pair, f"{k}-explore", "episode", "Glaze session", "Tested three glazes.",
               explores=ints["glaze"])
        record(ms, pair, f"{k}-mexplore", "summary", "Knot offer", "Knots again.",
               edges=[("summarizes", ints["machine"])], explores=ints["machine"], maintenance_candidate=True, review_required=True,
               proposed_kind="interest")
        record(ms, pair, f"{k}-cand", "summary", "Lesson offer", "A lesson to keep.",
               edges=[("summarizes", ints["glaze"])], maintenance_candidate=True, review_required=True)
        record(ms, pair, f"{k}-book", "memory", "Ledger", "Bookkeeping row.", bookkeeping=True)
        ms.bind(ints["parked"], scope=pair[0], owner_id=pair[1], search_state="indexed",
                lifecycle="rejected", reason="parked")
        ms.bind(ints["hidden"], scope=pair[0], owner_id=pair[1], search_state="hidden",
                reason="operator hide")
        for name, state in [("d1", "unresolved"), ("d2", "continued"), ("d3", "resolved")]:
            ids[f"{k}-{name}"] = record(ms, pair, f"{k}-{name}", "dream", f"Dream {name}",
                                        f"The night of {name}: rivers and archives",
                                        continuation_state=state)
    return ids


def trails(ms, ids, rng):
    names = sorted(n for n in ids if "loom" not in n)
    for i, name in enumerate(rng.sample(names, 6)):
        pair = DRIVE_PAIRS[0] if "-0-" in name else DRIVE_PAIRS[1]
        for _ in range(1 + i % 3):
            ms.reinforce(ids[name], reason="keeps coming back", scope=pair[0], owner_id=pair[1])


def main() -> None:
    seed, out_dir, mode = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
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
    ids = crafted(ms, "a")
    if mode == "lived":
        lh.living(ms, rng, "lived")
        for pair in lh.PAIRS:
            sleep_pass(ms, scopes=[pair], owner_id=pair[1])
        ids.update(crafted(ms, "b"))
    trails(ms, ids, rng)
    con = sqlite3.connect(home)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    for suffix in ("-wal", "-shm"):
        Path(str(out_dir / "rust.sqlite3") + suffix).unlink(missing_ok=True)
    shutil.copyfile(home, out_dir / "rust.sqlite3")

    ladders = {
        "both": [list(p) for p in DRIVE_PAIRS],
        "s1": [["session", "s1"]],
        "p1_messy": [[" Project ", " p1 "], ["project", "p1"], ["", "x"]],
        "all": [list(p) for p in lh.PAIRS],
        "empty_pair": [["elsewhere", "nobody"]],
    }
    out = {"ids": ids, "pressure": [], "alive": [], "partition": [], "health": [], "groups": []}
    for name, ladder in ladders.items():
        scopes = [tuple(p) for p in ladder]
        out["pressure"].append({"name": name, "scopes": ladder,
                                "result": drive_pressure(store, journal, scopes=scopes)})
        out["partition"].append({"name": name, "scopes": ladder,
                                 "result": open_drive_partition(store, journal, scopes=scopes)})
        out["health"].append({"name": name, "scopes": ladder,
                              "result": cognition_health(store, journal, scopes=scopes)})
        for k in (0, 3, 5, 50):
            out["alive"].append({"name": name, "scopes": ladder, "k": k,
                                 "result": alive_drives(ms, scopes=scopes, k=k)})
    item_sets = {
        "alive_items": alive_drives(ms, scopes=DRIVE_PAIRS, k=50),
        "templated": [
            {"record_id": f"t{i}", "title": "Diary entry (question) — 2026-07-17",
             "text": text, "observed_at": f"2026-07-{10 + i}T00:00:00"}
            for i, text in enumerate([
                "kiln glaze crawling again", "glaze crawling in the kiln", "kiln shelves crawling glaze",
                "harbour ferry winter", "winter ferry harbour", "lonely question here"])
        ] + [{"record_id": "t0", "title": "dup", "text": "kiln glaze crawling"},
             {"record_id": "", "title": "blank", "text": "kiln glaze"},
             {"record_id": "d1", "title": None, "digest": "kiln glaze crawling digest only"}],
    }
    for name, items in item_sets.items():
        for m in (1, 2, 3):
            out["groups"].append({"name": name, "items": items, "min_shared_terms": m,
                                  "result": drive_groups(items, min_shared_terms=m)})
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
