"""Lives a small home of dreams with AbstractMemory 0.3.2 for the am-system
test `sleep_passes` (module `oracle`): dreams in every continuation state,
formed out of time order, across two owners and two scopes, one closed, one
hidden, one dream-shaped row of another kind. Copies the checkpointed file to
`rust.sqlite3` and prints 0.3.2's `unresolved_dreams` over it for each
variant of the arguments (graph id and assertion id per row, in order).

Usage: dreams_home.py OUT_DIR"""

import json
import shutil
import sqlite3
import sys
import warnings
from pathlib import Path

import abstractmemory.records as records
from abstractmemory import MemorySystem, SQLiteJournal, SQLiteTripleStore
from abstractmemory.consolidation import unresolved_dreams
from abstractmemory.records import MemoryRecordInput as R

warnings.simplefilter("ignore")
out_dir = Path(sys.argv[1])
out_dir.mkdir(parents=True, exist_ok=True)
home = out_dir / "oracle.sqlite3"
now = ["2026-03-01T00:00:00.000000+00:00"]
records.utc_now_iso = lambda: now[0]
store = SQLiteTripleStore(home)
journal = SQLiteJournal(home)
ms = MemorySystem(store=store, journal=journal, clock=lambda: now[0])

ids = {}
PLAN = [
    # name, day, scope, owner, kind, continuation_state
    ("late", "05", "life", "castor", "dream", "unresolved"),
    ("early", "01", "life", "castor", "dream", "continued"),
    ("mid", "03", "life", "castor", "dream", "unresolved"),
    ("settled", "02", "life", "castor", "dream", "resolved"),
    ("stateless", "02", "life", "castor", "dream", None),
    ("closed", "02", "life", "castor", "dream", "unresolved"),
    ("hidden", "04", "life", "castor", "dream", "unresolved"),
    ("other_owner", "03", "life", "pollux", "dream", "unresolved"),
    ("other_scope", "03", "work", "castor", "dream", "unresolved"),
    ("episode", "03", "life", "castor", "episode", "unresolved"),
    ("same_time_b", "06", "life", "castor", "dream", "unresolved"),
    ("same_time_a", "06", "life", "castor", "dream", "continued"),
]
for name, day, scope, owner, kind, state in PLAN:
    now[0] = f"2026-03-{day}T01:00:00.000000+00:00"
    attrs = {} if state is None else {"continuation_state": state}
    [gid] = ms.remember_many(
        [R(kind=kind, title=f"Dream {name}", digest=f"The night of {name}: rivers and archives",
           attributes=attrs)],
        scope=scope, owner_id=owner, idempotency_key=f"dream-{name}")
    ids[name] = gid
now[0] = "2026-03-07T00:00:00.000000+00:00"
ms.close_record(ids["closed"], reason="the dream was a misreading")
ms.bind(ids["hidden"], scope="life", owner_id="castor", search_state="hidden")

con = sqlite3.connect(home)
con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
con.close()
shutil.copyfile(home, out_dir / "rust.sqlite3")

VARIANTS = {
    "journal": ({"scope": "life", "owner_id": "castor"}, True),
    "no_journal": ({"scope": "life", "owner_id": "castor"}, False),
    "limit_2": ({"scope": "life", "owner_id": "castor", "limit": 2}, True),
    "limit_0": ({"scope": "life", "owner_id": "castor", "limit": 0}, True),
    "any_owner": ({"scope": "life", "owner_id": ""}, True),
    "work": ({"scope": "work", "owner_id": "castor"}, True),
    "pollux": ({"scope": "life", "owner_id": "pollux"}, False),
}
out = {}
for name, (kw, with_journal) in VARIANTS.items():
    rows = unresolved_dreams(store, journal=journal if with_journal else None, **kw)
    out[name] = [[a.subject, a.assertion_id] for a in rows]
json.dump({"ids": ids, "variants": out}, sys.stdout)
