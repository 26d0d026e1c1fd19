"""Live an entity's home with AbstractMemory 0.3.2 and run 0.3.2's
world-model pass over it, for the differential test
`tests/world_models/oracle.rs`.

Usage: python world_models_home.py SEED OUT_DIR

Copies written to OUT_DIR (each a checkpointed SQLite home):
- a.sqlite3: the lived home, no card yet;
- b_before.sqlite3: after 0.3.2's first pass, an alias bound
  (person:admin -> person:laurent) and one card authored (person:bo);
- b_ready.sqlite3: then new evidence and a hide;
- b_after.sqlite3: after 0.3.2's second pass.
Printed (stdout, JSON): each pass's report, and 0.3.2's card reads over
b_after (standing, current, alias_map; with and without the journal fold),
plus alias_candidates over a fixed grouping.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import lived_home as lh  # noqa: E402
import oracle_home  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402
from abstractmemory.world_model import (  # noqa: E402
    author_world_model, current_world_models, standing_world_models, world_model_pass)
from abstractmemory.world_model_alias import (  # noqa: E402
    alias_candidates, alias_map, alias_world_model)

EID = "entity:castor"
SCOPES = [("life", EID), ("notes", EID)]
# (cue, participants) pairs recalled over the final home (orientation admission).
ORIENTATION_STIMULI = [
    ("what did ada bring", []),
    ("the plot map", ["person:admin"]),
    ("ada and bo and laurent with green tea and soil health", ["person:laurent"]),
    ("soil", []),
    ("", ["person:bo"]),
]


copy = oracle_home.copy


def rec(kind, title, digest, *, people=(), topic=None, topics=None, keywords=(), session=None):
    attrs = {"topics": list(topics)} if topics else {}
    prov = {"session_id": session} if session else {}
    return R(kind=kind, title=title, digest=digest, participants=tuple(people), topic=topic,
             keywords=tuple(keywords), attributes=attrs, provenance=prov)


def main() -> None:
    seed, out_dir = int(sys.argv[1]), Path(sys.argv[2])
    _rng, home, store, journal, ms = oracle_home.fresh(seed, out_dir)

    def life(key, items, scope="life"):
        return ms.remember_many(items, scope=scope, owner_id=EID, idempotency_key=key)

    ada = life("ada", [
        rec("episode", "Ada and the lease", "Ada signed the lease on plot 14 [used tool: lease_lookup].",
            people=[EID, "person:ada"], keywords=["lease", "raised beds"], session="s1"),
        rec("episode", "exchange: ada asks", "Ada asked whether the compost is ready.",
            people=["person:ada"], keywords=["compost"], session="s2"),
        rec("lesson", "Ada waters at dawn", "Watering at dawn keeps the beds cool, Ada showed me.",
            people=["person:ada", "person:bo"], keywords=["watering", "raised beds"], session="s3"),
        rec("decision", "Consolidated: tools", "We agreed to share the tools with Ada " + "and the long list of seeds " * 8,
            people=["person:ada"], keywords=["tools"], session="s3"),
    ])
    bo = life("bo", [
        rec("episode", "Bo builds beds", "Bo builds raised beds for plot 14.",
            people=["person:bo"], keywords=["raised beds", "wood"], session="s4"),
        rec("episode", "Bo and the fence", "Bo mended the fence after the storm.",
            people=["person:bo"], keywords=["fence"], session="s4"),
        rec("memory", "Bo's retracted rumour", "Bo was said to be leaving; it was wrong.",
            people=["person:bo"], session="s5"),
    ])
    laurent = life("laurent", [
        rec("episode", "Laurent visits", "Laurent came by with seedlings.",
            people=["person:laurent"], keywords=["seedlings"], session="s6"),
        rec("episode", "Laurent on soil", "Laurent explained soil tests.",
            people=["person:laurent"], topic="soil health", keywords=["soil tests"], session="s6"),
        rec("episode", "Laurent returns", "Laurent returned the spade.",
            people=["person:laurent"], session="s7"),
        rec("episode", "admin note", "The admin asked for the plot map.",
            people=["person:admin"], session="s7"),
    ])
    soil = life("soil", [
        rec("lesson", "Soil needs rest", "Soil needs a fallow season.", topic="soil health",
            keywords=["soil tests", "fallow"], session="s8"),
        rec("episode", "Mulch", "Mulch kept the soil moist.", topics=["soil health", "mulch"],
            keywords=["mulch"], session="s8"),
    ], scope="notes")
    life("interests", [
        rec("interest", "interest: Decentralized clinical trials and health equity — how removing "
            "travel changes who enrols", "Why access shapes evidence."),
        rec("interest", "The decentralized clinical trials and health equity: a second take",
            "Same subject, other words."),
        rec("interest", "AI?", "Too short a subject."),
    ])
    misc = life("misc", [
        rec("dream", "A dream of Ada", "Ada in a field of glass.", people=["person:ada"]),
        rec("episode", "Hidden Ada", "Something about Ada that was hidden.",
            people=["person:ada"], session="s9"),
        rec("episode", "Tea", "Tea with nobody in particular.", keywords=["green tea"], session="s9"),
        rec("episode", "Tea again", "More tea.", keywords=["green tea"], session="s10"),
        rec("episode", "Tea thrice", "Tea again, third session.", keywords=["green tea", "machine_word"],
            session="s11"),
    ])
    misc_ids = dict(zip(["dream", "hidden", "tea1", "tea2", "tea3"], misc))
    ms.bind(misc_ids["hidden"], scope="life", owner_id=EID, search_state="hidden", reason="operator hide")
    ms.close_record(bo[2], reason="a rumour", kind="retract")
    ms.appraise("person:ada", sign=1, magnitude=2, reason="kind neighbour", scope="life", owner_id=EID)
    ms.appraise("concept:soil health", sign=-1, magnitude=1.5, reason="worry", scope="life",
                owner_id=EID)
    copy(home, out_dir / "a.sqlite3")

    out = {}
    out["pass1"] = world_model_pass(ms, scopes=SCOPES, owner_id=EID)
    out["pass1_again"] = world_model_pass(ms, scopes=SCOPES, owner_id=EID)
    out["alias"] = alias_world_model(ms, primary="person:laurent", alias="person:admin",
                                     scope="life", owner_id=EID, reason="the admin is Laurent")
    out["authored"] = author_world_model(ms, target="person:bo", text="Bo is the neighbour who builds.",
                                         scope="life", owner_id=EID, author="operator")
    copy(home, out_dir / "b_before.sqlite3")

    life("more", [
        rec("episode", "Ada's harvest", "Ada brought the first beans.", people=["person:ada"],
            keywords=["beans"], session="s12"),
        rec("episode", "Bo's shed", "Bo started on the shed roof.", people=["person:bo"],
            keywords=["wood"], session="s12"),
        rec("episode", "Admin map", "The admin sent the plot map.", people=["person:admin"],
            session="s13"),
    ])
    ms.bind(soil[1], scope="notes", owner_id=EID, search_state="hidden", reason="operator hide")
    copy(home, out_dir / "b_ready.sqlite3")
    out["pass2"] = world_model_pass(ms, scopes=SCOPES, owner_id=EID)
    out["pass2_again"] = world_model_pass(ms, scopes=SCOPES, owner_id=EID)
    copy(home, out_dir / "b_after.sqlite3")

    # Orientation admission over the final home (after its copy: a recall
    # journals its trace): which cards each stimulus admits, and why.
    from abstractmemory import Stimulus  # noqa: E402
    orientation = []
    for cue, parts in ORIENTATION_STIMULI:
        r = ms.reconstruct(Stimulus(cue_text=cue, participants=tuple(parts)), scopes=SCOPES)
        orientation.append({
            "cue": cue, "participants": parts,
            "admitted": sorted(
                [h.record_id, h.relevance["orientation"], [c for c in h.cues if "orientation" in c]]
                for h in r.handles if "orientation" in h.relevance),
        })
    out["orientation"] = orientation

    def dicts(m):
        return {t: (v.to_dict() if hasattr(v, "to_dict") else [a.to_dict() for a in v]) for t, v in m.items()}

    reads = {}
    for name, j in (("folded", journal), ("layer1", None)):
        reads[name] = {
            "standing": dicts(standing_world_models(store, scope="life", owner_id=EID, journal=j)),
            "current": dicts(current_world_models(store, scope="life", owner_id=EID, journal=j)),
            "alias_map": alias_map(store, scope="life", owner_id=EID, journal=j),
        }
    out["reads"] = reads
    grouping = {"person:a": ["r1", "r2", "r3"], "person:b": ["r1", "r2", "r3", "r4"],
                "topic:a": ["r1", "r2", "r3"], "person:c": ["r9"], "person:d": ["r1", "r5"],
                "person:e": ["r1", "r2", "r2"]}
    out["alias_candidates"] = {
        "by_target": grouping,
        "default": alias_candidates(grouping),
        "existing": alias_candidates(grouping, existing={"person:b": "person:a"}),
        "floor_0_3": alias_candidates(grouping, overlap_floor=0.3),
    }
    print(json.dumps(out, default=str, sort_keys=True))


if __name__ == "__main__":
    main()
