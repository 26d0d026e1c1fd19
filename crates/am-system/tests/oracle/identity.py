"""Lints, hashes and engrams the sparks of `sparks.json` through AbstractMemory
0.3.2 and prints what the am-system test `identity_oracle` compares: per spark
its hash and lint issues (severity and location only; the wording is each
implementation's own), then a scripted engram session (ids, bindings, the
self_records order, refusals by exception class)."""

import json
import pathlib
import sys
import warnings

warnings.simplefilter("ignore")

import abstractmemory.records as records
from abstractmemory import (InMemoryTripleStore, MemorySystem, TripleQuery, canonical_spark_hash,
                            engram, lint_spark)
from abstractmemory.journal_memory import InMemoryJournal

PINNED = "2026-03-01T12:00:00.000000+00:00"
records.utc_now_iso = lambda: PINNED
sparks = json.loads((pathlib.Path(__file__).parent / "sparks.json").read_text())


def where(issues):
    return sorted(i.split(":", 1)[0] for i in issues)


out = {"sparks": {}}
for name, spark in sparks.items():
    out["sparks"][name] = {
        "hash": canonical_spark_hash(spark),
        "lint": where(lint_spark(spark)),
        "lint_nonframework": where(lint_spark(spark, framework=False)),
    }

system = MemorySystem(store=InMemoryTripleStore(), journal=InMemoryJournal(), clock=lambda: PINNED)
steps = []
for name, owner in [("named", "entity:castor"), ("named", "entity:castor"), ("key_order", "entity:castor"),
                    ("modified_v1", "entity:castor"), ("named_v2", "entity:castor"),
                    ("too_many", "entity:castor"), ("unicode", "entity:pollux")]:
    try:
        steps.append({"ok": engram(system, sparks[name], owner_id=owner).to_dict()})
    except Exception as e:  # noqa: BLE001
        steps.append({"error": type(e).__name__})
out["engram"] = steps
out["self_records"] = {
    owner: [[a.assertion_id, a.subject, a.attributes.get("record_kind"), a.attributes.get("title")]
            for a in system.self_records(scope="self", owner_id=owner)]
    for owner in ["entity:castor", "entity:pollux"]
}
out["self_records_v2"] = len(system.self_records(scope="self", owner_id="entity:castor", spark_version=2))
rows = system.query(TripleQuery(scope="self", owner_id="entity:castor", limit=0))
out["rows"] = sorted([[a.assertion_id, a.subject, a.predicate, a.object,
                       {k: v for k, v in a.attributes.items()}] for a in rows], key=lambda r: r[0])
out["bindings"] = [[b.binding_id, b.record_id, b.search_state, b.prompt_state, b.lifecycle, b.source, b.reason]
                   for b in system.journal.bindings(scope="self", owner_id="entity:castor", fold=False)]
# Birth strictness: a pinned store without an embedder stores the core
# vectorless; 0.3.2 forms the records, then refuses (ValueError).
pinned = InMemoryTripleStore(embedding_pin={"model_id": "minishlab/potion-base-2M", "dimension": 64})
strict = MemorySystem(store=pinned, journal=InMemoryJournal(), clock=lambda: PINNED)
try:
    engram(strict, sparks["named"], owner_id="entity:castor")
    out["vectorless_birth"] = {"ok": True}
except Exception as e:  # noqa: BLE001
    out["vectorless_birth"] = {"error": type(e).__name__, "vectorless": "VECTORLESS" in str(e),
                               "rows_written": len(pinned.query(TripleQuery(limit=0)))}
json.dump(out, sys.stdout, default=str, ensure_ascii=False)
