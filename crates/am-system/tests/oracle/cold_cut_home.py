"""Build an AbstractMemory 0.3.2 home for the cold-cut differential
(`tests/operator/cold_cut.rs`) and cut it with 0.3.2's `journal_cold_cut`.

Usage:
  python cold_cut_home.py build SEED OUT_DIR
  python cold_cut_home.py verify SRC DST

`build` lives `lived_home.py`'s `living` with a deterministic four-number
hash embedder (so rows carry vectors), retracts two records (their rows'
vectors are what a cut nulls), checkpoints the WAL and copies the file to
OUT_DIR/rust.sqlite3, then cuts OUT_DIR/src.sqlite3 once per call into
OUT_DIR/oracle-<i>.sqlite3, verifying each; it prints the calls, the
reports (or the error's class), the verify answers and what each rebuilt
file holds (its events' seqs, the rows holding a vector, the high water).
`verify` prints 0.3.2's `verify_cold_cut(SRC, DST)` (run on a file this
port cut).
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
from abstractmemory.doctoring import journal_cold_cut, verify_cold_cut  # noqa: E402


class HashEmbedder:
    """Four numbers a text, a function of its bytes."""

    model_id = "cut-hash-v1"
    dimension = 4

    def embed_texts(self, texts):
        out = []
        for t in texts:
            h = 7
            for b in t.encode("utf-8"):
                h = (h * 31 + b) & 0xFFFFFFFF
            out.append([1.0] + [((h >> (k * 4)) & 0xF) / 16.0 for k in range(1, 4)])
        return out


def contents(path):
    con = sqlite3.connect(path)
    try:
        events = [r[0] for r in con.execute("SELECT seq FROM memj_events ORDER BY seq")]
        vectored = sorted(r[0] for r in con.execute(
            "SELECT assertion_id FROM triples WHERE embedding IS NOT NULL"))
        high = con.execute("SELECT value FROM memj_seq").fetchone()[0]
        traces = con.execute("SELECT COUNT(*) FROM memj_traces").fetchone()[0]
        snapshots = con.execute("SELECT COUNT(*) FROM memj_snapshots").fetchone()[0]
    finally:
        con.close()
    return {"event_seqs": events, "vectored": vectored, "high_water": high,
            "traces": traces, "snapshots": snapshots}


def build(seed, out_dir):
    warnings.simplefilter("ignore")
    lh.install_determinism(seed)
    rng = random.Random(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    home = out_dir / "src.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(str(home) + suffix).unlink(missing_ok=True)
    store = SQLiteTripleStore(home, embedder=HashEmbedder())
    journal = SQLiteJournal(home)
    ms = MemorySystem(store=store, journal=journal, clock=lh.CLOCK.iso)
    lh.living(ms, rng, "lived")
    retired = []
    for i in range(2):
        [gid] = ms.remember_many(
            [lh.R(kind="lesson", title=f"A lesson to retract {i}",
                  digest=f"the glaze cracks when the kiln cools too fast, take {i}")],
            scope="project", owner_id="p1", idempotency_key=f"retract-{i}")
        retired.append(gid)
    for gid in retired:
        ms.close_record(gid, reason="a copy")
    store.close()
    con = sqlite3.connect(home)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pairs = [list(p) for p in con.execute(
        "SELECT DISTINCT scope, owner_id FROM memj_events ORDER BY scope, owner_id")]
    seqs = [r[0] for r in con.execute("SELECT seq FROM memj_events ORDER BY seq")]
    con.close()
    for suffix in ("-wal", "-shm"):
        Path(str(home) + suffix).unlink(missing_ok=True)
    shutil.copyfile(home, out_dir / "rust.sqlite3")
    mid = seqs[len(seqs) // 2]
    quarter = seqs[len(seqs) // 4]
    calls = [
        {"archive_ref": "archive://whole-life"},
        {"cut_seq": mid, "pair_cuts": [[s, o, 0] for s, o in pairs[:1]]
            + [[s, o, mid] for s, o in pairs[1:]],
         "archive_ref": "archive://a", "exported_stream_ref": "stream://a", "cut_traces": True},
        {"pair_cuts": [[pairs[0][0], pairs[0][1], quarter], [pairs[-1][0], pairs[-1][1], mid]],
         "archive_ref": "archive://b", "null_retired_embeddings": False},
        {"cut_seq": mid, "pair_cuts": [[s, o, mid] for s, o in pairs[1:]], "archive_ref": "archive://c"},
        {"archive_ref": "   "},
        {"cut_seq": -1, "archive_ref": "archive://d"},
    ]
    out = {"pairs": pairs, "event_seqs": seqs, "calls": []}
    for i, call in enumerate(calls):
        dst = out_dir / f"oracle-{i}.sqlite3"
        dst.unlink(missing_ok=True)
        kw = dict(call)
        if "pair_cuts" in kw:
            kw["pair_cuts"] = {(s, o): c for s, o, c in kw["pair_cuts"]}
        entry = {"call": call}
        try:
            entry["result"] = journal_cold_cut(str(home), str(dst), **kw)
        except ValueError as e:
            entry["error"] = type(e).__name__
            entry["dst_exists"] = dst.exists()
            out["calls"].append(entry)
            continue
        entry["verify"] = verify_cold_cut(str(home), str(dst))
        entry["contents"] = contents(dst)
        out["calls"].append(entry)
    out["source"] = contents(home)
    print(json.dumps(out, default=str))


def main() -> None:
    if sys.argv[1] == "build":
        build(int(sys.argv[2]), Path(sys.argv[3]))
    else:
        print(json.dumps(verify_cold_cut(sys.argv[2], sys.argv[3]), default=str))


if __name__ == "__main__":
    main()
