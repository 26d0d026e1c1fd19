"""Runs the diary steps of `diary_steps.json` through AbstractMemory 0.3.2 and
prints one answer per step for the am-system test `diary_oracle`: entries
formed with an advancing clock, closures and lifecycle bindings, the open-set
reads with and without the journal, triggered commitments, and the chain
verified, extended and tampered. `$id:<name>` names a formed entry's graph id."""

import json
import pathlib
import sys
import warnings

import abstractmemory.records as records
from abstractmemory import (InMemoryTripleStore, MemorySystem, Stimulus, TripleAssertion, open_commitments,
                            open_ideas, open_problems, open_questions, triggered_commitments,
                            verify_diary_chain)
from abstractmemory.journal_memory import InMemoryJournal
from abstractmemory.records import MemoryRecordInput

now = ["2026-03-01T00:00:00.000000+00:00"]
records.utc_now_iso = lambda: now[0]
store = InMemoryTripleStore()
journal = InMemoryJournal()
system = MemorySystem(store=store, journal=journal, clock=lambda: now[0])
steps = json.loads((pathlib.Path(__file__).parent / "diary_steps.json").read_text())
ids = {}
READS = {"open_questions": open_questions, "open_problems": open_problems,
         "open_ideas": open_ideas, "open_commitments": open_commitments}


def subst(v):
    if isinstance(v, str) and v.startswith("$id:"):
        return ids[v[4:]]
    if isinstance(v, list):
        return [subst(x) for x in v]
    if isinstance(v, dict):
        return {k: subst(x) for k, x in v.items()}
    return v


def run(step):
    op = step.pop("op")
    if op == "clock":
        now[0] = step["now"]
        return None
    if op == "remember":
        name = step.pop("name")
        [gid] = system.remember_many([MemoryRecordInput(**step.pop("record"))], idempotency_key=name, **step)
        ids[name] = gid
        return gid
    if op == "close":
        return system.close_record(ids[step["name"]], reason="no longer held")
    if op == "bind":
        return system.bind(ids[step["name"]], scope="diary", owner_id="entity:castor", search_state="indexed",
                           lifecycle=step["lifecycle"]).binding_id
    if op in READS:
        j = journal if step.pop("journal") else None
        return [a.subject for a in READS[op](store, journal=j, **step)]
    if op == "triggered_commitments":
        s = step.pop("stimulus")
        stim = Stimulus(cue_text=s["cue_text"], participants=tuple(s.get("participants", ())))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = triggered_commitments(store, journal, stimulus=stim, **step)
        return {"items": [[g["entry"].subject if g["entry"] is not None else None, g["matched"]] for g in got],
                "warned": any("#FALLBACK" in str(w.message) for w in caught)}
    if op == "verify":
        return verify_diary_chain(store, **step)
    if op == "raw_add":
        store.add([TripleAssertion.from_dict(step["row"])])
        return None
    raise SystemExit(f"unknown op {op}")


out = []
for step in steps:
    try:
        out.append({"ok": run(subst(dict(step)))})
    except Exception as e:  # noqa: BLE001
        out.append({"error": type(e).__name__})
json.dump({"ids": ids, "answers": out}, sys.stdout, default=str)
