"""Live two homes with AbstractMemory 0.3.2 and reach into them, for the
differential test `tests/reach/oracle.rs`.

Usage: python reach_home.py SEED OUT_DIR

Copies written to OUT_DIR (each a checkpointed SQLite home):
- fresh.sqlite3: a scripted garden home (four kinds, edges inside and across
  batches, keywords and participants, one hidden and one retracted record);
- lived.sqlite3: lived_home's "small" shape (recalls, commits, binds,
  closures, feelings) after 0.3.2's sleep_pass on every pair.
Printed (stdout, JSON): per home, each call (so the Rust side makes the same
one) and 0.3.2's answer: probe at each effort (journal off, so the home
stays as copied), familiarity, probe_expand from row ids and graph ids at
depths 1 and 2, expand_by_concepts from probe hits, and concept_terms.
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
from abstractmemory.concept_anchor import ConceptAnchorTuning, concept_terms, expand_by_concepts  # noqa: E402
from abstractmemory.maintenance import sleep_pass  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402
from abstractmemory.seam import Stimulus  # noqa: E402
from abstractmemory.store import TripleQuery  # noqa: E402

EID = "entity:castor"
TERMS = ["auto-memory", "auto memory", "autoMemory", "auto_memory", "The GPU tax on AWS",
         "Café déjà-vu: naïve web_search", "a an of", "HTTPServer parseJSONData x86_64", ""]


def copy(home: Path, to: Path) -> None:
    con = sqlite3.connect(home)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    shutil.copyfile(home, to)


def rec(kind, title, digest, *, people=(), keywords=(), edges=(), attrs=None):
    return R(kind=kind, title=title, digest=digest, participants=tuple(people),
             keywords=tuple(keywords), edges=tuple(edges), attributes=attrs or {})


def fresh(ms):
    life = lambda key, items, scope="life": ms.remember_many(  # noqa: E731
        items, scope=scope, owner_id=EID, idempotency_key=key)
    a = life("compost", [
        rec("episode", "Compost turning", "Ada turned the compost heap on plot 14 with a garden fork.",
            people=["person:ada"], keywords=["compost", "allotment"]),
        rec("lesson", "Heap temperature", "A compost heap needs turning when it cools below fifty degrees.",
            keywords=["compost", "thermophilic"], edges=[("derived_from", "local:0")]),
        rec("episode", "Seed library", "Bo catalogued thermophilic bacteria notes in the seed library.",
            people=["person:bo"], keywords=["thermophilic", "seed library"]),
        rec("claim", "Plot rent", "Plot rent is due every March at the allotment office.",
            keywords=["allotment"], edges=[("mentions", "local:0")]),
    ])
    b = life("beds", [
        rec("episode", "Raised beds", "Bo built raised beds from reclaimed wood for plot 14.",
            people=["person:bo"], keywords=["raised beds", "allotment"], edges=[("follows", a[0])]),
        rec("decision", "Share the fork", "We agreed to share the garden fork with Bo on weekends.",
            people=["person:bo", "person:ada"], keywords=["tools"], edges=[("informed_by", a[0]),
                                                                          ("about", "local:0")]),
        rec("memory", "Fork maintenance", "maintenance candidate: oil the garden fork handle",
            keywords=["tools"], attrs={"maintenance_candidate": True}),
        rec("episode", "Hidden note", "A compost note the operator hid from search.",
            keywords=["compost"]),
        rec("episode", "Retracted rumour", "A rumour that the compost heap caught fire; it was wrong.",
            keywords=["compost"]),
    ])
    c = life("notes", [
        rec("lesson", "Thermophilic phase", "The thermophilic phase of compost kills weed seeds.",
            keywords=["thermophilic", "compost"], edges=[("derived_from", a[1])]),
        rec("episode", "Auto memory", "We talked about autoMemory and the auto-memory feature.",
            keywords=["auto_memory"]),
    ], scope="notes")
    ms.bind(b[3], scope="life", owner_id=EID, search_state="hidden", reason="operator hide")
    ms.close_record(b[4], reason="it was wrong", kind="retract")
    return a + b + c


CUES = [
    ("when does the compost heap need turning", []),
    ("garden fork", ["person:bo"]),
    ("thermophilic", []),
    ("allotment plot rent", []),
    ("zorblat quixotic fenwick marmalade", []),
    ("", ["person:ada"]),
    ("auto memory feature", []),
]
LIVED_CUES = [
    ("database pool outage", []),
    ("garden chess river", ["person:ada"]),
    ("coffee review", []),
    ("kernel cache config", []),
    ("zorblat quixotic fenwick marmalade", []),
]


def battery(ms, store, scope_sets, cues):
    out = {"probe": [], "familiarity": [], "expand": [], "concepts": []}
    n = 0
    for scopes in scope_sets:
        for cue, people in cues:
            for effort in ("quick", "standard", "deep"):
                n += 1
                call = {"cue_text": cue, "participants": people, "scopes": scopes, "effort": effort,
                        "trace_id": f"probe-{n}", "reason": f"looking for {cue or people}"}
                r = ms.probe(Stimulus(cue_text=cue, participants=tuple(people)),
                             scopes=[tuple(p) for p in scopes], reason=call["reason"], effort=effort,
                             journal=False, trace_id=call["trace_id"])
                out["probe"].append({"call": call, "result": r.to_dict()})
                if effort == "standard" and r.hits:
                    seeds = {h.record_id: store.query(TripleQuery(assertion_ids=[h.record_id], limit=1))[0]
                             for h in r.hits[:3]}
                    for tuning in (ConceptAnchorTuning(), ConceptAnchorTuning(min_sources=2, max_sources=4,
                                                                               max_admissions=3, bigrams=False)):
                        adm, notes = expand_by_concepts(store, seeds, [tuple(p) for p in scopes],
                                                        tuning=tuning)
                        out["concepts"].append({
                            "seeds": sorted(seeds), "scopes": scopes,
                            "tuning": {"min_sources": tuning.min_sources, "max_sources": tuning.max_sources,
                                       "scan_limit": tuning.scan_limit, "max_admissions": tuning.max_admissions,
                                       "max_seed_concepts": tuning.max_seed_concepts, "bigrams": tuning.bigrams},
                            "admissions": [{"record_id": x["record_id"], "score": x["score"],
                                            "concepts": x["concepts"]} for x in adm],
                            "notes": notes})
                    for i, root in enumerate([r.hits[0].record_id, r.hits[0].graph_id]):
                        for depth in (1, 2):
                            n += 1
                            ecall = {"record_ids": [root], "reason": "what is connected", "depth": depth,
                                     "max_records": 4 + 4 * i, "scopes": scopes if i else None,
                                     "trace_id": f"expand-{n}"}
                            e = ms.probe_expand([root], reason=ecall["reason"], depth=depth,
                                                max_records=ecall["max_records"],
                                                scopes=[tuple(p) for p in scopes] if i else None,
                                                journal=False, trace_id=ecall["trace_id"])
                            out["expand"].append({"call": ecall, "result": e.to_dict()})
            for effort in ("quick", "deep"):
                call = {"cue_text": cue, "participants": people, "scopes": scopes, "effort": effort}
                f = ms.familiarity(Stimulus(cue_text=cue, participants=tuple(people)),
                                   scopes=[tuple(p) for p in scopes], effort=effort)
                out["familiarity"].append({"call": call, "result": f})
    out["terms"] = [{"text": t, "bigrams": b, "terms": concept_terms(t, bigrams=b)}
                    for t in TERMS for b in (True, False)]
    return out


def main() -> None:
    seed, out_dir = int(sys.argv[1]), Path(sys.argv[2])
    warnings.simplefilter("ignore")
    lh.install_determinism(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = {}
    for name in ("fresh", "lived"):
        home = out_dir / f"{name}-oracle.sqlite3"
        for suffix in ("", "-wal", "-shm"):
            Path(str(home) + suffix).unlink(missing_ok=True)
        store = SQLiteTripleStore(home)
        journal = SQLiteJournal(home)
        ms = MemorySystem(store=store, journal=journal, clock=lh.CLOCK.iso)
        if name == "fresh":
            fresh(ms)
            scope_sets = [[["life", EID]], [["life", EID], ["notes", EID]]]
            cues = CUES
        else:
            lh.living(ms, random.Random(seed), "small")
            for pair in lh.PAIRS:
                sleep_pass(ms, scopes=[pair], owner_id=pair[1])
            scope_sets = [[list(p)] for p in lh.PAIRS] + [[list(p) for p in lh.PAIRS]]
            cues = LIVED_CUES
        copy(home, out_dir / f"{name}.sqlite3")
        result[name] = battery(ms, store, scope_sets, cues)
        result[name]["current_seq"] = ms.current_seq()
    json.dump(result, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
