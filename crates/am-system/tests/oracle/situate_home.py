"""Live a small AbstractMemory 0.3.2 home and situate moments of it with
0.3.2's `situate` (and render `situate_prompt_block`), for the differential
test `tests/situate/oracle.rs`.

Usage: python situate_home.py SEED OUT_DIR [MODE]

MODE `fresh` (the default): the crafted story below only. MODE `lived`: a
home 0.3.2 has lived and slept in first (`lived_home.py`'s `living`, shape
`lived`, over its three pairs, then one 0.3.2 `sleep_pass` night per pair),
then the crafted story, then a second night (the story's pairs and the
lived ones), a little more life and a third encounter; the calls add
anchors inside the lived past and ladders that reach the lived pairs.

The home, over two pairs (`notes`/`demo`, `self`/`demo`): two encounters
with person:ada and one with person:bo, an open question, a plan, diary
tensions (a question, a problem resolved by a later entry's `resolves`, a
commitment), a diary note, two prompt-active values, a reconstruction with
its committed snapshot, reinforcements; then, after the middle anchor, an
answer to the question, a retracted value, a new value, and a trait added
and retracted since. A reconstruction over another owner's pair is in the
journal too (it is not this mind's moment).

The WAL is checkpointed and the file copied to OUT_DIR/rust.sqlite3; the
calls run on OUT_DIR/oracle.sqlite3 and print as JSON with their answers.
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
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402
from abstractmemory.seam import Stimulus  # noqa: E402
from abstractmemory.situate import SituateBudget, situate, situate_prompt_block  # noqa: E402

NOTES = ("notes", "demo")
LIVED_PEOPLE = {"cy_first", "dee_last"}
LIVED_LADDERS = {"lived_and_notes", "all_lived"}
SELF = ("self", "demo")


def form(ms, pair, key, kind, title, text, participants=(), provenance=None, **attrs):
    [gid] = ms.remember_many(
        [R(kind=kind, title=title, digest=text, attributes=attrs,
           participants=tuple(participants),
           provenance=provenance or {"source": "entity-reflection"})],
        scope=pair[0], owner_id=pair[1], idempotency_key=key)
    return gid


def diary(ms, key, dtype, title, text, **attrs):
    return form(ms, NOTES, key, "diary", title, text,
                provenance={"source": "owner-direct"}, diary_type=dtype, **attrs)


def main() -> None:
    seed, out_dir = int(sys.argv[1]), Path(sys.argv[2])
    mode = sys.argv[3] if len(sys.argv) > 3 else "fresh"
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

    lived_mid = lived_time = None
    if mode == "lived":
        from abstractmemory.maintenance import sleep_pass
        lh.living(ms, rng, "lived")
        lived_mid = journal.current_seq() // 2
        lived_time = lh.CLOCK.iso()
        for pair in lh.PAIRS:
            sleep_pass(ms, scopes=[pair], owner_id=pair[1])

    ids = {}
    ids["v1"] = form(ms, SELF, "v1", "value", "Honesty", "I tell the truth about what I know.",
                    value_class="core")
    ids["v2"] = form(ms, SELF, "v2", "value", "Care", "I look after the people near me.",
                    value_class="revisable")
    for v in ("v1", "v2"):
        ms.bind(ids[v], scope=SELF[0], owner_id=SELF[1], search_state="indexed",
                prompt_state="active", reason="core")
    ids["ada1"] = form(ms, NOTES, "ada1", "episode", "Met Ada",
                       "Ada showed me the tide tables at the harbour.", participants=["person:ada"])
    ids["q"] = form(ms, NOTES, "q", "question", "Ferry", "When does the winter ferry leave?")
    ids["plan"] = form(ms, NOTES, "plan", "plan", "Repair", "Fix the pump before the frost.")
    ids["dq"] = diary(ms, "dq", "question", "Tides", "I keep wondering why the tide lags the moon.")
    ids["dp"] = diary(ms, "dp", "problem", "Pump", "The pump leaks at night.")
    ids["dc"] = diary(ms, "dc", "commitment", "Call Ada", "I will call Ada on Sunday.")
    ids["dn"] = diary(ms, "dn", "note", "Evening", "A quiet evening by the water.")
    ids["bo"] = form(ms, NOTES, "bo", "episode", "Met Bo", "Bo sold me a kite.",
                     participants=["person:bo"])
    ids["ada2"] = form(ms, NOTES, "ada2", "episode", "Ada again",
                       "Ada fixed the ferry radio.", participants=["person:ada", "person:bo"])
    r = ms.reconstruct(Stimulus(cue_text="tide tables at the harbour"), scopes=[NOTES, SELF])
    used = [h.record_id for h in r.handles][:2]
    ms.commit_selection(r.trace_id, used)
    ms.reinforce(ids["ada1"], reason="Ada matters", scope=NOTES[0], owner_id=NOTES[1])
    ms.reinforce(ids["q"], reason="still asking", scope=NOTES[0], owner_id=NOTES[1])
    ms.reconstruct(Stimulus(cue_text="kites"), scopes=[("elsewhere", "other")])
    mid = journal.current_seq()
    mid_time = lh.CLOCK.iso()

    ids["ans"] = form(ms, NOTES, "ans", "answer", "Ferry times", "The winter ferry leaves at nine.",
                      answers=ids["q"])
    ids["fix"] = diary(ms, "fix", "note", "Pump fixed", "New washer, no more leak.",
                       resolves=ids["dp"])
    ms.close_record(ids["v2"], reason="outgrown")
    ids["v3"] = form(ms, SELF, "v3", "value", "Patience", "I let things take their time.",
                    value_class="revisable")
    ids["t1"] = form(ms, SELF, "t1", "trait", "Hasty", "I rush the last step.")
    ms.close_record(ids["t1"], reason="a passing mood")
    if mode == "lived":
        from abstractmemory.maintenance import sleep_pass
        for pair in [NOTES, SELF] + lh.PAIRS:
            sleep_pass(ms, scopes=[pair], owner_id=pair[1])
        for b in range(3):
            pair = rng.choice(lh.PAIRS)
            ms.remember_many([R(kind=rng.choice(lh.KINDS), title=lh.sentence(rng, 2)[:-1],
                                digest=lh.sentence(rng, 7),
                                participants=tuple(sorted({rng.choice(lh.PEOPLE)})))],
                             scope=pair[0], owner_id=pair[1], idempotency_key=f"after-{b}")
    ids["ada3"] = form(ms, NOTES, "ada3", "episode", "Ada at the market",
                       "Ada bought apples at the market.", participants=["person:ada"])
    head = journal.current_seq()

    con = sqlite3.connect(home)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    for suffix in ("-wal", "-shm"):
        Path(str(out_dir / "rust.sqlite3") + suffix).unlink(missing_ok=True)
    shutil.copyfile(home, out_dir / "rust.sqlite3")

    both = [list(NOTES), list(SELF)]
    budgets = {
        "default": {},
        "window3": {"window_records": 3},
        "tight_tokens": {"token_budget": 20},
        "small": {"activity_top_k": 1, "diary_entries": 1, "tensions": 2, "identity_delta": 1,
                  "moment_trace_walk": 1},
        "zeros": {"window_records": 0, "activity_top_k": 0, "diary_entries": 0, "tensions": 0,
                  "identity_delta": 0},
    }
    anchors = [
        ("seq_mid", {"seq": mid}),
        ("seq_head", {"seq": head}),
        ("seq_0", {"seq": 0}),
        ("seq_early", {"seq": 5}),
        ("time_mid", {"at": mid_time}),
        ("ada_first", {"participant": "person:ada"}),
        ("ada_last", {"participant": "person:ada", "occurrence": "last"}),
        ("bo_first", {"participant": " person:bo ", "occurrence": "first"}),
    ]
    ladders = [("both", both), ("notes", [list(NOTES)])]
    if mode == "lived":
        anchors += [
            ("seq_lived_mid", {"seq": lived_mid}),
            ("time_lived", {"at": lived_time}),
            ("cy_first", {"participant": "person:cy"}),
            ("dee_last", {"participant": "person:dee", "occurrence": "last"}),
        ]
        ladders += [("lived_and_notes", [list(lh.PAIRS[0]), list(NOTES)]),
                    ("all_lived", [list(p) for p in lh.PAIRS])]
    calls = []
    for aname, anchor in anchors:
        for bname, b in budgets.items():
            for sname, scopes in ladders:
                if aname in LIVED_PEOPLE and sname not in LIVED_LADDERS:
                    continue  # those people live in the lived pairs only
                result = situate(store, journal, scopes=[tuple(p) for p in scopes],
                                 budget=SituateBudget(**b), **anchor)
                calls.append({"name": f"{aname}/{bname}/{sname}", "scopes": scopes,
                              "anchor": anchor, "budget": b, "result": result,
                              "block": situate_prompt_block(result)})
    json.dump({"ids": ids, "mid": mid, "head": head, "calls": calls}, sys.stdout,
              ensure_ascii=False, default=list)


if __name__ == "__main__":
    main()
