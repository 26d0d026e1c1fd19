"""Runs the valence steps of `valence_steps.json` through AbstractMemory 0.3.2
and prints one JSON answer per step: `{"ok": result}` or `{"error": class}`.
The am-system test `valence_oracle` runs the same steps through the port.
`$rec0` in a step names the first record the steps formed."""

import json
import pathlib
import sys
import warnings

warnings.simplefilter("ignore")

import abstractmemory.records as records
from abstractmemory import InMemoryTripleStore, MemorySystem, Stimulus, feelings_about, stimulus_feelings
from abstractmemory.journal_memory import InMemoryJournal
from abstractmemory.records import MemoryRecordInput

PINNED = "2026-03-01T12:00:00.000000+00:00"
records.utc_now_iso = lambda: PINNED

store = InMemoryTripleStore()
journal = InMemoryJournal()
system = MemorySystem(store=store, journal=journal, clock=lambda: PINNED)
steps = json.loads((pathlib.Path(__file__).parent / "valence_steps.json").read_text())
formed = []


def subst(v):
    if isinstance(v, str) and v == "$rec0":
        return formed[0]
    if isinstance(v, list):
        return [subst(x) for x in v]
    if isinstance(v, dict):
        return {k: subst(x) for k, x in v.items()}
    return v


def run(step):
    op = step.pop("op")
    if op == "seq":
        return journal.current_seq()
    if op == "remember":
        recs = [MemoryRecordInput(**r) for r in step.pop("records")]
        ids = system.remember_many(recs, **step)
        formed.extend(ids)
        return ids
    if op == "appraise":
        return system.appraise(step.pop("target_id"), **step)
    if op == "heal_scar":
        return system.heal_scar(step.pop("scar_event_id"), **step)
    if op == "break_bond":
        return system.break_bond(step.pop("bond_event_id"), **step)
    if op == "gradation":
        return system.gradation(step.pop("target_ids", None), **step)
    if op == "feelings_about":
        pairs = [tuple(p) for p in step.pop("scope_pairs")]
        return feelings_about(journal, step.pop("target"), scope_pairs=pairs, **step)
    if op == "stimulus_feelings":
        s = step.pop("stimulus")
        stim = Stimulus(cue_text=s["cue_text"], participants=tuple(s.get("participants", ())))
        pairs = [tuple(p) for p in step.pop("scope_pairs")]
        return stimulus_feelings(store, journal, stim, pairs, **step)
    raise SystemExit(f"unknown op {op}")


out = []
for step in steps:
    try:
        out.append({"ok": run(subst(dict(step)))})
    except Exception as e:  # noqa: BLE001 - the class is the answer
        out.append({"error": type(e).__name__})
json.dump({"formed": formed, "answers": out}, sys.stdout, default=str)
