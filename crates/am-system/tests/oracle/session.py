"""A scripted AbstractMemory 0.3.2 session for the am-system differential test.

Forms records with fixed idempotency keys and a pinned clock, commits with
fixed trace ids (one trace carrying admission labels), acts deliberately,
closes a record, and prints everything the Rust side must reproduce as JSON.
Run with the oracle's python: AM_ORACLE_PYTHON=/path/to/python.
"""

import json
import sys

import abstractmemory.records as records
from abstractmemory import InMemoryTripleStore, MemorySystem, TripleQuery
from abstractmemory.journal import ReconstructionTrace
from abstractmemory.journal_memory import InMemoryJournal
from abstractmemory.records import MemoryRecordInput

PINNED = "2026-03-01T12:00:00.000000+00:00"
records.utc_now_iso = lambda: PINNED

store = InMemoryTripleStore()
journal = InMemoryJournal()
system = MemorySystem(store=store, journal=journal, clock=lambda: PINNED)

batch = [
    MemoryRecordInput(kind="episode", title="Pool outage", digest="The Pool failed at noon.",
                      keywords=("pool", "outage"), participants=("person:ada",),
                      payload_ref="artifact:7", topic="ops", confidence=0.9,
                      attributes={"title": "host title loses", "extra": 1},
                      provenance={"source": "chat"}),
    MemoryRecordInput(kind="lesson", title="Restart order", digest="Restart the pool before the app.",
                      edges=(("derived_from", "local:0"),),
                      attributes={"applies_when": ["pool restarts", "large outages"],
                                  "evidence_class": " Proposed "}),
    MemoryRecordInput(kind="summary", title="Outage summary", digest="The pool failed; restart it first.",
                      edges=(("summarizes", "local:0"), ("summarizes", "local:1"))),
    MemoryRecordInput(kind="value", title="Care", digest="I act with care.",
                      attributes={"value_class": " Core "}),
    MemoryRecordInput(kind="diary", title="Day one", digest="It began.",
                      attributes={"prev_entry_hash": ""}, provenance={"source": "owner-direct"}),
]
ids = system.remember_many(batch, scope="Session", owner_id="s1", idempotency_key="turn-1",
                           turn_id="turn-1")
second = system.remember_many(
    [MemoryRecordInput(kind="memory", title="Note", digest="A plain note.",
                       edges=(("about", ids[0]),))],
    scope="session", owner_id="s1", idempotency_key="turn-2")

rows = store.query(TripleQuery(limit=0, order="asc"))
assertions = [
    {"assertion_id": a.assertion_id, "subject": a.subject, "predicate": a.predicate,
     "object": a.object, "scope": a.scope, "owner_id": a.owner_id,
     "confidence": a.confidence, "attributes": a.attributes, "provenance": a.provenance,
     "observed_at": a.observed_at if a.predicate == "dcterms:abstract" else None}
    for a in rows
]
bindings = [
    {k: b.to_dict()[k] for k in ("binding_id", "record_id", "scope", "owner_id", "search_state",
                                  "prompt_state", "lifecycle", "source", "provenance")}
    for b in journal.bindings(fold=False)
]

digest_ids = [a.assertion_id for a in rows if a.predicate == "dcterms:abstract"]
trace = ReconstructionTrace(trace_id="t-adm", trace_kind="reconstruct", query_fingerprint="fp",
                            need={}, searched_scopes=(),
                            admissions={digest_ids[0]: "stm", digest_ids[1]: "self",
                                        digest_ids[2]: "both", digest_ids[3]: "stimulus"})
journal.append_trace(trace)
snap_adm = system.commit_selection("t-adm", [ids[0], digest_ids[1], ids[2], digest_ids[3], second[0], ids[4]],
                                   prompt_token_estimate=321)
snap_plain = system.commit_selection("t-plain", [ids[1], ids[0]])
replay = system.commit_selection("t-plain", [ids[0], ids[1]])

pin_id = system.reinforce(ids[2], reason="matters", weight=100, scope="session", owner_id="s1")
sil_id = system.attenuate(digest_ids[3], reason="noise", weight=0.2, scope="session", owner_id="s1",
                          event_id="sil-1")
ref_id = system.refocus(reason="topic shift", scope="session", owner_id="s1", event_id="rf-1")

events = [
    {k: e.to_dict()[k] for k in ("kind", "scope", "owner_id", "record_id", "pair_ids", "weight",
                                  "trace_id", "actor", "reason", "provenance", "seq")}
    | {"event_id": e.event_id if e.kind in ("selected", "co_selected") or e.event_id in ("sil-1", "rf-1") else None}
    for e in reversed(journal.events(scope="session", owner_id="s1", limit=0))
]

closures = system.close_record(ids[1], reason="superseded reading", kind="retract")
activation = system.activation(None, scope="session", owner_id="s1")
named_activation = system.activation(list(ids), scope="session", owner_id="s1")
counts = system.access_counts(list(ids), pairs=[(ids[2], ids[4])])

out = {
    "record_ids": ids,
    "second_ids": second,
    "assertions": assertions,
    "bindings": bindings,
    "snapshots": [snap_adm.to_dict(), snap_plain.to_dict()],
    "replay_is_original": replay.to_dict() == snap_plain.to_dict(),
    "events": events,
    "deliberate_ids": [sil_id, ref_id],
    "closures": closures,
    "activation": activation,
    "named_activation": named_activation,
    "counts": {"records": counts["records"],
               "pairs": [[list(k), v] for k, v in counts["pairs"].items()]},
    "current_seq": system.current_seq(),
}
json.dump(out, sys.stdout, ensure_ascii=False)
