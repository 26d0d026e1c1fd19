"""A scripted AbstractMemory 0.3.2 recall session for the am-system
reconstruction differential test (tests/reconstruct_oracle.rs).

Forms records in two scopes with fixed idempotency keys and a pinned clock,
then alternates recalls (both views, participants, patterns, anchors,
self seats, min_activation, tight budgets) with commits, a pin, hidden and
prompt-active bindings, a record closure, later formation and anchored
re-reads. Prints, per recall, `result.to_dict()` and (journaled recalls) the
trace's channels, candidates, dropped rows and admission labels, as JSON.
Run with the oracle's python: AM_ORACLE_PYTHON=/path/to/python.
"""

import json
import sys

import abstractmemory.records as records
from abstractmemory import InMemoryTripleStore, MemorySystem
from abstractmemory.journal_memory import InMemoryJournal
from abstractmemory.records import MemoryRecordInput as R
from abstractmemory.records import ReconstructConfig
from abstractmemory.seam import RecallBudget, Stimulus

PINNED = "2026-03-01T12:00:00.000000+00:00"
records.utc_now_iso = lambda: PINNED

store = InMemoryTripleStore()
journal = InMemoryJournal()
system = MemorySystem(store=store, journal=journal, clock=lambda: PINNED)
S1 = [("session", "s1")]
LADDER = [("session", "s1"), ("global", "")]

ids = system.remember_many([
    R(kind="episode", title="Pool outage", digest="The database pool failed at noon during the deploy.",
      keywords=("pool", "outage"), participants=("person:ada",)),
    R(kind="lesson", title="Restart order", digest="Restart the database pool before the application servers.",
      edges=(("derived_from", "local:0"),)),
    R(kind="decision", title="Pool size", digest="We decided to raise the pool size to forty connections."),
    R(kind="value", title="Care", digest="I act with care.", attributes={"value_class": "core"}),
    R(kind="memory", title="Lunch", digest="Ada had soup for lunch.", participants=("person:ada", "person:bo")),
    R(kind="trait", title="Curious", digest="I am curious about systems."),
    R(kind="memory", title="Lunch again", digest="Ada had soup for lunch."),
], scope="session", owner_id="s1", idempotency_key="k1", turn_id="turn-1")
gids = system.remember_many([
    R(kind="memory", title="Office", digest="The office pool table is broken."),
], scope="global", owner_id="", idempotency_key="k2")

out = {"ids": ids, "global_ids": gids, "recalls": []}


def recall(name, stimulus, scopes=S1, budget=RecallBudget(), view="shelf", reason=None,
           journal_on=True):
    r = system.reconstruct(stimulus, scopes=scopes, budget=budget, view=view,
                           escalation_reason=reason, journal=journal_on, trace_id=name)
    row = {"name": name, "result": r.to_dict()}
    if journal_on:
        t = journal.traces(trace_id=name, limit=1)[0]
        row["trace"] = {"channels": list(t.channels), "candidates": [dict(c) for c in t.candidates],
                        "dropped": [dict(d) for d in t.dropped], "admissions": dict(t.admissions),
                        "selected": list(t.selected), "query_fingerprint": t.query_fingerprint,
                        "escalation_reason": t.escalation_reason, "cues": list(t.cues)}
        row["listed"] = [[e.record_id, e.weight, e.event_id, e.query_fingerprint, e.actor]
                         for e in journal.events(scope="session", owner_id="s1", kinds=("listed",), limit=0)
                         if e.trace_id == name]
    out["recalls"].append(row)
    return r


r1 = recall("t1", Stimulus(cue_text="database pool outage"))
system.commit_selection("t1", [h.record_id for h in r1.handles[:2]])
r2 = recall("t2", Stimulus(cue_text="pool restart", participants=("person:ada",)), view="working_set")
system.commit_selection("t2", [h.record_id for h in r2.handles[:3]])
system.reinforce(ids[4], reason="matters", scope="session", owner_id="s1")
system.bind(ids[2], scope="session", owner_id="s1", search_state="hidden")
system.bind(ids[3], scope="session", owner_id="s1", search_state="indexed", prompt_state="active")
system.bind(ids[5], scope="session", owner_id="s1", search_state="indexed", prompt_state="active")
r3 = recall("t3", Stimulus(cue_text="pool size decision"), scopes=LADDER,
            budget=RecallBudget(self_fraction=0.25), reason="cross-session check")
system.close_record(ids[1], reason="wrong order", kind="retract")
r4 = recall("t4", Stimulus(cue_text="restart the pool"), view="working_set",
            budget=RecallBudget(min_activation=1.0))
later = system.remember_many([R(kind="memory", title="Later outage", digest="Another pool outage happened later.")],
                             scope="session", owner_id="s1", idempotency_key="k3")
out["later_ids"] = later
r5 = recall("t5", Stimulus(cue_text="database pool outage", as_of=r1.as_of_seq), journal_on=False)
r6 = recall("t6", Stimulus(cue_text="pool", patterns=({"subject": ids[0]}, {"scope": "x"}, {}),
                           anchor_record_ids=(r2.handles[-1].record_id, "nope")),
            budget=RecallBudget(shelf_size=3, token_budget=40))
r7 = recall("t7", Stimulus(cue_text="soup lunch", participants=("person:ada", "person:cy")),
            budget=RecallBudget(shelf_size=4, stm_fraction=0.5), view="working_set")
r8 = recall("t8", Stimulus(cue_text="Пул база"), budget=RecallBudget(max_candidates=0))
r9 = recall("t9", Stimulus(cue_text="pool", as_of=r4.as_of_seq), journal_on=False)
# The newest-seat guarantee (off by default) through a second system on the same home.
system = MemorySystem(store=store, journal=journal, clock=lambda: PINNED,
                      reconstruct_config=ReconstructConfig(newest_seat_guarantee=2))
r10 = recall("t10", Stimulus(cue_text="pool"), budget=RecallBudget(shelf_size=3, stm_fraction=0.0))
out["current_seq"] = system.current_seq()
json.dump(out, sys.stdout, ensure_ascii=False)
