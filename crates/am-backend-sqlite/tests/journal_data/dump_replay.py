"""Dump the journal of the 0.3.2 fixture home as the oracle reads it.

Run from the repo root with the oracle's python:
  /tmp/oracle/bin/python crates/am-backend-sqlite/tests/journal_data/dump_replay.py \
      ../shared/fixtures/python-0.3.2-home/home-0.3.2.sqlite3 \
      > crates/am-backend-sqlite/tests/journal_data/python-0.3.2-replay.json
The fixture is copied first; the oracle never writes the original.
"""
import json, shutil, sys, tempfile, warnings
from pathlib import Path

warnings.simplefilter("ignore")
from abstractmemory import SQLiteJournal

src = Path(sys.argv[1])
with tempfile.TemporaryDirectory() as d:
    dst = Path(d) / "home.sqlite3"
    shutil.copy(src, dst)
    j = SQLiteJournal(dst)
    records = [{"family": fam, "record": rec.to_dict()} for fam, rec in j.replay_records(since_seq=0)]
    ids = set()
    pairs = set()
    for r in records:
        if r["family"] == "event":
            e = r["record"]
            if e["record_id"]:
                ids.add(e["record_id"])
            if e["pair_ids"]:
                pairs.add(tuple(e["pair_ids"]))
    out = {
        "current_seq": j.current_seq(),
        "records": records,
        "selected_counts": {i: [j.selected_count(i, until_seq=s) for s in (None, 11, 12, 13, 30)] for i in sorted(ids)},
        "pair_counts": {"|".join(p): [j.pair_selected_count(p, until_seq=s) for s in (None, 13, 14, 30)] for p in sorted(pairs)},
        "seq_at": {ts: j.seq_at(ts) for ts in ("2026-11-29T22:37:31.769310+00:00", "2026-11-29T22:37:31Z", "2026-11-30")},
        "bindings_folded": [b.to_dict() for b in j.bindings()],
        "events_session_s1": [e.to_dict() for e in j.events(scope="session", owner_id="s1", limit=0)],
        "valence_session_s1": [e.to_dict() for e in j.valence_events(scope="session", owner_id="s1")],
    }
    j.close()
print(json.dumps(out, ensure_ascii=False, indent=1))
