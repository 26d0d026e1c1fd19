"""Build a small lived-in AbstractMemory 0.3.2 home, then run the observability
reads on it (the replay stream and the recall diagnostics), for the
differential test `tests/observe_oracle.rs`.

Usage: python observe_home.py SEED OUT_DIR

The home is lived by `lived_home.py`'s `living` (shape `small`), plus a diary
entry and a commit that uses it. The WAL is checkpointed and the file copied
to OUT_DIR/rust.sqlite3, which the Rust side opens; the reads below run on
OUT_DIR/oracle.sqlite3 with a pinned clock and are printed as JSON.
"""

import json
import sys
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import lived_home as lh  # noqa: E402
import oracle_home  # noqa: E402
from abstractmemory import MemorySystem  # noqa: E402
from abstractmemory.origin_diversity import origin_diversity  # noqa: E402
from abstractmemory.recall_reads import absence_diagnosis, explain_recall, recall_history  # noqa: E402
from abstractmemory.recent_records import recent_records  # noqa: E402
from abstractmemory.render_order import stable_render_order  # noqa: E402
from abstractmemory.replay import export_replay  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402
from abstractmemory.seam import RecallBudget, Stimulus  # noqa: E402


def main() -> None:
    seed, out_dir = int(sys.argv[1]), Path(sys.argv[2])
    rng, home, store, journal, ms = oracle_home.fresh(seed, out_dir)
    formed, _recalls, _counts = lh.living(ms, rng, "small")
    diary = ms.remember_many(
        [R(kind="diary", title="Quiet pool", digest="I sat by the pool.",
           attributes={"diary_type": "question"}, provenance={"source": "owner-direct"})],
        scope="session", owner_id="s1", idempotency_key="diary-1")
    r = ms.reconstruct(Stimulus(cue_text="quiet pool"), scopes=[("session", "s1")],
                       trace_id="diary-recall")
    used = [h.record_id for h in r.handles][:3]
    if used:
        ms.commit_selection("diary-recall", used)
    oracle_home.copy(home, out_dir / "rust.sqlite3")
    lh.CLOCK.pinned = datetime.fromisoformat(lh.PINNED)
    ms = MemorySystem(store=store, journal=journal, clock=lambda: lh.PINNED)
    hw = journal.current_seq()

    variants = {
        "default": {},
        "plain": {"enrich": False},
        "traces": {"families": ["trace", "snapshot"]},
        "session_s1": {"scope": "Session", "owner_id": "s1"},
        "window": {"since_seq": 10, "until_seq": min(40, hw)},
        "host": {"families": ["host"]},
    }
    replay = {name: list(export_replay(store, journal, **kw)) for name, kw in variants.items()}

    probes = []
    for pair in lh.PAIRS:
        probes.extend(formed[pair][:3])
    probes.extend(diary)
    # Closed and hidden records, so every mechanism of the diagnosis is read.
    probes.extend(c.assertion_id for c in journal.closures(limit=3))
    probes.extend(b.record_id for b in journal.bindings(fold=True) if b.search_state == "hidden")
    probes = list(dict.fromkeys(probes))[:24]
    probes.append("ex:memory-never-formed")
    traces = [t.trace_id for t in journal.traces(limit=0)]
    named = [traces[-1], traces[len(traces) // 2]] if traces else []
    history = {rid: recall_history(journal, rid, store=store) for rid in probes}
    history_window = {rid: recall_history(journal, rid, limit_traces=5, until_seq=hw // 2, store=store)
                      for rid in probes[:4]}
    explain = {}
    for rid in probes:
        explain[rid] = {"newest": explain_recall(store, journal, rid)}
        for tid in named:
            explain[rid][tid] = explain_recall(store, journal, rid, trace_id=tid)
    absence = {f"{rid}|{s}|{o}": absence_diagnosis(store, journal, rid, scope=s, owner_id=o)
               for rid in probes for (s, o) in lh.PAIRS}

    since = "2026-01-05T09:00:00.000000+00:00"
    recent = {
        "all": recent_records(store, journal, scopes=lh.PAIRS, since=since, limit=10),
        "kinds": recent_records(store, journal, scopes=lh.PAIRS, since=since, kinds=["lesson", "Episode"]),
        "as_of": recent_records(store, journal, scopes=lh.PAIRS[:1], since=since, limit=5, as_of=hw // 2),
        "wide": recent_records(store, journal, scopes=lh.PAIRS, since=since, limit=500),
    }

    shelves = []
    for pair in lh.PAIRS:
        for cue in ("pool outage", "garden tea"):
            res = ms.reconstruct(Stimulus(cue_text=cue), scopes=[pair],
                                 budget=RecallBudget(self_fraction=0.2), journal=False)
            handles = [h.to_dict() for h in res.handles]
            shelves.append({
                "pair": list(pair), "cue": cue,
                "handles": [h["record_id"] for h in handles],
                "origin": origin_diversity(handles),
                "origin_tight": origin_diversity(handles, min_counted=1, dominance_floor=0.3,
                                                 labels={"remember": "formation"}),
                "render": [[h["record_id"], rank] for h, rank in stable_render_order(handles)],
            })

    json.dump({"seed": seed, "final_seq": hw, "diary": diary, "replay": replay, "history": history,
               "history_window": history_window, "explain": explain, "absence": absence,
               "recent": recent, "shelves": shelves, "named_traces": named, "probes": probes},
              sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
