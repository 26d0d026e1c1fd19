"""The `apply_redigestion` differential (`tests/operator/redigest.rs`):
build a small AbstractMemory 0.3.2 home of labelled-mechanical debt (with
edges, one edge closed, one record already retracted), copy it to
OUT_DIR/rust.sqlite3, then apply one batch of entries with 0.3.2 and print
the entries, the answer, and what it wrote: each new record's rows and each
old record's closures.

Usage: python redigestion_apply.py SEED OUT_DIR
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
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402
from abstractmemory.redigestion import apply_redigestion  # noqa: E402
from abstractmemory.store import TripleQuery  # noqa: E402


def rows_of(store, gid):
    out = []
    for a in store.query(TripleQuery(subject=gid, limit=0)):
        out.append({"predicate": a.predicate, "object": a.object, "scope": a.scope,
                    "owner_id": a.owner_id, "attributes": a.attributes,
                    "provenance": a.provenance, "assertion_id": a.assertion_id})
    return sorted(out, key=lambda r: r["assertion_id"])


def main() -> None:
    seed, out_dir = int(sys.argv[1]), Path(sys.argv[2])
    warnings.simplefilter("ignore")
    lh.install_determinism(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    home = out_dir / "oracle.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(str(home) + suffix).unlink(missing_ok=True)
    store = SQLiteTripleStore(home)
    journal = SQLiteJournal(home)
    ms = MemorySystem(store=store, journal=journal, clock=lh.CLOCK.iso)
    [anchor] = ms.remember_many([R(kind="memory", title="Kiln", digest="the kiln of the studio")],
                                scope="life", owner_id="ana", idempotency_key="anchor")
    [other] = ms.remember_many([R(kind="memory", title="Bisque", digest="the bisque shelf")],
                               scope="life", owner_id="ana", idempotency_key="other")
    debt = [
        ("episode", "mechanical-v1", "[used tool: read_file]", True),
        ("memory", "mechanical-v2", "[kept in diary - note] the glaze crawled", False),
        ("diary", "mechanical-v1", "[used tool: read_file]", False),
        ("memory", "entity-authored", "[used tool: read_file]", False),
        ("memory", "", "[used tool: read_file]", False),
        ("lesson", "mechanical-flow-v1", "wash the bisque first", False),
        ("episode", "mechanical-floor-v1", "[used tool: grep]", False),
        ("episode", "mechanical-v1", "[used tool: ls]", False),
    ]
    ids = []
    for i, (kind, method, digest, with_edges) in enumerate(debt):
        attrs = {"digest_method": method} if method else {}
        if kind == "diary":
            attrs["diary_type"] = "note"
        edges = (("mentions", anchor), ("about", other)) if with_edges else ()
        [gid] = ms.remember_many(
            [R(kind=kind, title=f"Debt {i}", digest=digest, keywords=("kiln", f"k{i}"),
               participants=("person:ana",), payload_ref=(f"payload/{i}.json" if i % 2 == 0 else None),
               edges=edges, attributes=attrs,
               provenance=({"source": "owner-direct"} if kind == "diary" else {}))],
            scope="life", owner_id="ana", idempotency_key=f"debt-{i}")
        ids.append(gid)
    # One of the first record's edges closed; the last record retracted.
    edge = next(a for a in store.query(TripleQuery(subject=ids[0], limit=0))
                if (a.attributes or {}).get("record_edge") and a.predicate == "about")
    ms.close_assertions([edge.assertion_id], kind="retract", reason="not about that")
    ms.close_record(ids[7], reason="a copy")
    store.close()
    con = sqlite3.connect(home)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    for suffix in ("-wal", "-shm"):
        Path(str(home) + suffix).unlink(missing_ok=True)
    shutil.copyfile(home, out_dir / "rust.sqlite3")

    store = SQLiteTripleStore(home)
    journal = SQLiteJournal(home)
    ms = MemorySystem(store=store, journal=journal, clock=lh.CLOCK.iso)
    entries = [
        {"record_id": ids[0], "digest": "Read the kiln log before the firing."},
        {"record_id": ids[1], "digest": "The glaze crawled on dusty bisque.", "title": "Crawl",
         "keywords": ["glaze", "bisque"]},
        {"record_id": ids[2], "digest": "words for a diary"},
        {"record_id": ids[3], "digest": "words for authored ones"},
        {"record_id": ids[4], "digest": "words for an unlabeled one"},
        {"record_id": ids[5], "digest": "wash the bisque first"},
        {"record_id": ids[6], "digest": "  "},
        {"record_id": "ex:episode-nothing", "digest": "words"},
        {"record_id": ids[7], "digest": "words for a retracted one"},
        {"record_id": ids[6], "digest": "Searched the notes for the cone."},
        {"record_id": ids[6], "digest": "Searched the notes for the cone."},
        {"record_id": ids[6], "digest": "Other words again."},
        {"digest": "no id"},
    ]
    result = apply_redigestion(ms, entries, actor=" entity-reflection ", turn_id="turn-9")
    written = {}
    for o in result["outcomes"]:
        if o.get("new_record_id"):
            written[o["new_record_id"]] = rows_of(store, o["new_record_id"])
    closures = {}
    for gid in ids:
        closures[gid] = sorted(
            ({"assertion_id": c.assertion_id, "kind": c.kind, "reason": c.reason,
              "replacement_ids": list(c.replacement_ids), "actor": c.actor}
             for a in store.query(TripleQuery(subject=gid, limit=0))
             for c in journal.closures(assertion_id=a.assertion_id)),
            key=lambda c: (c["assertion_id"], c["reason"]))
    print(json.dumps({"ids": ids, "entries": entries, "result": result, "written": written,
                      "closures": closures}, default=str))


if __name__ == "__main__":
    main()
