"""Which formation inputs AbstractMemory 0.3.2 refuses: prints, per named case,
the exception class raised by MemoryRecordInput / remember_many (or null when
the record forms). The am-system differential test refuses the same cases."""

import json
import sys
import warnings

warnings.simplefilter("ignore")

from abstractmemory import InMemoryTripleStore, MemorySystem
from abstractmemory.journal_memory import InMemoryJournal
from abstractmemory.records import MemoryRecordInput

CASES = {
    "unknown_kind": dict(kind="musing", title="t", digest="d"),
    "blank_title": dict(kind="memory", title="  ", digest="d"),
    "blank_digest": dict(kind="memory", title="t", digest=""),
    "summary_without_edge": dict(kind="summary", title="t", digest="d"),
    "value_without_class": dict(kind="value", title="t", digest="d"),
    "value_bad_class": dict(kind="value", title="t", digest="d", attributes={"value_class": "soft"}),
    "diary_without_source": dict(kind="diary", title="t", digest="d"),
    "diary_bad_type": dict(kind="diary", title="t", digest="d", attributes={"diary_type": "rant"},
                           provenance={"source": "owner-direct"}),
    "diary_blank_answers": dict(kind="diary", title="t", digest="d", attributes={"answers": " "},
                                provenance={"source": "owner-direct"}),
    "projection_without_entry": dict(kind="diary", title="t", digest="d",
                                     provenance={"source": "diary-projection"}),
    "lesson_bad_applies_when": dict(kind="lesson", title="t", digest="d", attributes={"applies_when": [1]}),
    "lesson_bad_evidence": dict(kind="lesson", title="t", digest="d", attributes={"evidence_class": "gut"}),
    "instruction_bad_category": dict(kind="instruction", title="t", digest="d", attributes={"category": "tip"}),
    "blank_edge_relation": dict(kind="memory", title="t", digest="d", edges=((" ", "ex:x"),)),
    "self_local_edge": dict(kind="memory", title="t", digest="d", edges=(("rel", "local:0"),)),
    "out_of_range_local_edge": dict(kind="memory", title="t", digest="d", edges=(("rel", "local:3"),)),
    "owner_direct_diary": dict(kind="diary", title="t", digest="d", provenance={"source": "owner-direct"}),
    "plain_episode": dict(kind="episode", title="t", digest="d"),
}

system = MemorySystem(store=InMemoryTripleStore(), journal=InMemoryJournal())
out = {}
for name, kwargs in CASES.items():
    try:
        record = MemoryRecordInput(**kwargs)
        system.remember_many([record], scope="s", owner_id="o", idempotency_key=name)
        out[name] = None
    except Exception as e:  # noqa: BLE001 - the class is the answer
        out[name] = type(e).__name__
json.dump(out, sys.stdout)
