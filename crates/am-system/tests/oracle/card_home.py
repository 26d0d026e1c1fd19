"""Live an entity's home with AbstractMemory 0.3.2 (an engrammed identity
core, a life with interests, lessons, a dream and a supersession, a diary
with questions and problems some later entry resolves, feelings strong and
weak with a scar and a bond, hidden and rejected records), then print 0.3.2's
`entity_card` over it at several anchors, for the differential test
`tests/card_oracle.rs`.

Usage: python card_home.py SEED OUT_DIR

The WAL is checkpointed and the file copied to OUT_DIR/rust.sqlite3 (the copy
the Rust side opens); the cards are read from OUT_DIR/oracle.sqlite3.
Printed (stdout, JSON): the anchors, each card call's arguments and its
answer.
"""

import json
import pathlib
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import lived_home as lh  # noqa: E402
import oracle_home  # noqa: E402
from abstractmemory import engram  # noqa: E402
from abstractmemory.entity_card import entity_card, identity_card  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402

EID = "entity:castor"
LADDER = [("self", EID), ("diary", EID), ("life", EID)]


def main() -> None:
    seed, out_dir = int(sys.argv[1]), Path(sys.argv[2])
    rng, home, store, journal, ms = oracle_home.fresh(seed, out_dir)
    sparks = json.loads((pathlib.Path(__file__).parent / "sparks.json").read_text())
    anchors = {"empty": journal.current_seq()}
    core = engram(ms, sparks["named"], owner_id=EID)
    anchors["born"] = journal.current_seq()

    def life(batch, items):
        return ms.remember_many(items, scope="life", owner_id=EID, idempotency_key=f"life-{batch}")

    def diary(batch, items):
        return ms.remember_many(items, scope="diary", owner_id=EID, idempotency_key=f"diary-{batch}")

    def feel(target, sign, magnitude, reason, **kw):
        ms.appraise(target, sign=sign, magnitude=magnitude, reason=reason, scope="life",
                    owner_id=EID, **kw)

    first = life(0, [
        R(kind="episode", title="Garden", digest="We planted beans by the river."),
        R(kind="interest", title="Beans", digest="How do beans climb?"),
        R(kind="interest", title="Tides", digest="Why do the tides turn?"),
        R(kind="lesson", title="Water", digest="Water the beans at dawn."),
    ])
    questions = diary(0, [
        R(kind="diary", title="Why beans", digest="Why do the beans lean east?",
          attributes={"diary_type": "question", "entry_id": "entry-1"},
          provenance={"source": "diary-projection"}),
        R(kind="diary", title="Broken fence", digest="The fence is broken.",
          attributes={"diary_type": "problem", "entry_id": "entry-2"},
          provenance={"source": "diary-projection"}),
        R(kind="diary", title="Where tides", digest="Where do the tides go?",
          attributes={"diary_type": "question", "entry_id": "entry-3"},
          provenance={"source": "diary-projection"}),
    ])
    for i in range(12):
        target = rng.choice(first + ["person:ada", "tool:web_search", "topic:rain"])
        feel(target, rng.choice([1, -1]), rng.choice([1.0, 2.0, 3.0]), f"felt {i}")
    feel(first[0], 1, 9.0, "the first harvest", actor="operator")
    feel("tool:web_search", -1, 3.0, "fabricated citations", scar=True)
    feel("person:ada", 1, 3.0, "kept her word", bond=True)
    anchors["young"] = journal.current_seq()

    second = life(1, [
        R(kind="episode", title="Rain", digest="The rain came and flooded the rows."),
        R(kind="lesson", title="Stakes", digest="Beans need stakes.",
          attributes={"explores": first[1]}),
        R(kind="dream", title="Tide dream", digest="The river ran backwards.",
          attributes={"continuation_state": "unresolved",
                      "signals": [{"kind": "image", "felt": {"tone": "uneasy"}},
                                  {"kind": "motif"}]}),
        R(kind="interest", title="Stars", digest="What are the stars made of?"),
    ])
    answers = diary(1, [
        R(kind="diary", title="Beans lean", digest="They lean to the morning sun.",
          attributes={"diary_type": "reflection", "answers": questions[0], "entry_id": "entry-4"},
          provenance={"source": "diary-projection"}),
        R(kind="diary", title="Fence mended", digest="I mended the fence.",
          attributes={"diary_type": "reflection", "resolves": "entry-2", "entry_id": "entry-5"},
          provenance={"source": "diary-projection"}),
        R(kind="diary", title="Lost fence", digest="A second problem.",
          attributes={"diary_type": "problem", "entry_id": "entry-6"}, provenance={"source": "diary-projection"}),
    ])
    feel(second[0], -1, 8.0, "the flood", actor="operator")
    for i in range(8):
        target = rng.choice(first + second + ["person:ada", "topic:rain"])
        feel(target, rng.choice([1, -1]), rng.choice([1.0, 2.0]), f"later {i}")
    anchors["grown"] = journal.current_seq()

    ms.close_record(first[3], reason="newer", kind="supersede", replacement_ids=[second[1]])
    ms.close_record(answers[2], reason="not a problem", kind="retract")
    ms.bind(first[2], scope="life", owner_id=EID, search_state="indexed",
            lifecycle="rejected", reason="review")
    ms.bind(second[3], scope="life", owner_id=EID, search_state="hidden", reason="operator hide")
    ms.close_record(core.record_ids["values"][2], reason="outgrown", kind="retract")
    anchors["head"] = journal.current_seq()

    oracle_home.copy(home, out_dir / "rust.sqlite3")

    calls = []
    for name, seq in anchors.items():
        calls.append({"name": f"as_of_{name}", "args": {"as_of": seq}})
    calls.append({"name": "head", "args": {}})
    calls.append({"name": "narrow", "args": {"current_window_events": 3, "top_n": 1}})
    calls.append({"name": "top0", "args": {"top_n": 0, "as_of": anchors["grown"]}})
    calls.append({"name": "life_only", "args": {"scope_pairs": [["Life", f" {EID} "]]}})
    calls.append({"name": "messy_ladder",
                  "args": {"scope_pairs": [["diary", EID], ["", EID], ["DIARY", EID], ["self", EID]]}})
    out = []
    for call in calls:
        kw = {"scope_pairs": LADDER, "owner_id": EID, **call["args"]}
        card = entity_card(store, journal, **kw)
        assert card == identity_card(store, journal, **kw)
        out.append({"name": call["name"], "args": {**kw, "scope_pairs": [list(p) for p in kw["scope_pairs"]]},
                    "card": card})
    refusals = {}
    for name, kw in {
        "no_pairs": {"scope_pairs": [], "owner_id": EID},
        "blank_scope": {"scope_pairs": [[" ", EID]], "owner_id": EID},
        "blank_owner": {"scope_pairs": LADDER, "owner_id": "  "},
        "window_0": {"scope_pairs": LADDER, "owner_id": EID, "current_window_events": 0},
        "future": {"scope_pairs": LADDER, "owner_id": EID, "as_of": journal.current_seq() + 1},
        "negative": {"scope_pairs": LADDER, "owner_id": EID, "as_of": -1},
    }.items():
        try:
            entity_card(store, journal, **kw)
            refusals[name] = None
        except Exception as e:  # noqa: BLE001
            refusals[name] = type(e).__name__
    json.dump({"anchors": anchors, "cards": out, "refusals": refusals}, sys.stdout,
              default=str, ensure_ascii=False)


if __name__ == "__main__":
    main()
