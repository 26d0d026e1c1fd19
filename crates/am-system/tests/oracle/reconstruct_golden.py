"""The 0.3.2 golden `working_set` scenario (test-catalogue.md, "Golden files"),
rebuilt from its description: an in-memory stack with the clock pinned to
2026-07-06, four plain triples (g-report, g-tea, g-plan literal, g-hot), a
warm-up commit of [g-hot, g-report], then a working_set read of "fusion energy
report" (shelf 3, tokens 200, stm 0.25, journal=False, trace "t-golden-read").
Prints `ReconstructionResult.to_dict()` as `json.dumps(sort_keys=True, indent=1)`.
Run with the oracle's python: AM_ORACLE_PYTHON=/path/to/python.
"""

import json

import abstractmemory.records as records
from abstractmemory import InMemoryTripleStore, MemorySystem, TripleAssertion
from abstractmemory.journal_memory import InMemoryJournal
from abstractmemory.seam import RecallBudget, Stimulus

PINNED = "2026-07-06T00:00:00.000000+00:00"
records.utc_now_iso = lambda: PINNED

store = InMemoryTripleStore()
journal = InMemoryJournal()
system = MemorySystem(store=store, journal=journal, clock=lambda: PINNED)


def triple(aid, s, p, o, **attrs):
    return TripleAssertion(assertion_id=aid, subject=s, predicate=p, object=o,
                           scope="session", owner_id="s1", observed_at=PINNED,
                           attributes=attrs)


store.add([
    triple("g-report", "alice", "wrote", "fusion energy report"),
    triple("g-tea", "bob", "drinks", "green tea"),
    triple("g-plan", "carol", "plans", "Report due Monday", literal=True),
    triple("g-hot", "dave", "reads", "old books"),
])
system.commit_selection("t-golden-warm", ["g-hot", "g-report"])
result = system.reconstruct(
    Stimulus(cue_text="fusion energy report", as_of=journal.current_seq()),
    scopes=[("session", "s1")],
    budget=RecallBudget(shelf_size=3, token_budget=200, stm_fraction=0.25),
    view="working_set", journal=False, trace_id="t-golden-read",
)
print(json.dumps(result.to_dict(), sort_keys=True, indent=1))
