"""Build an AbstractMemory 0.3.2 home and read the night's reports on it
(`structural_report`, `maintenance_report`, `maintenance_due`,
`last_maintenance_seq`), for the differential test
`tests/sleep_reports/oracle.rs`.

Usage: python sleep_reports.py SEED OUT_DIR SHAPE NIGHTS

The home is lived by `lived_home.py`'s `living` (shape SHAPE), then a
crafted batch that reaches every branch of the reports (a lesson with and
without sources, same-kind duplicate titles, near-duplicate digests, two
records summarizing one source, a `mentions` edge beside a `supports` edge,
a duplicate edge written through layer 1, records without facets), then
NIGHTS full `sleep_pass` nights by 0.3.2 itself (each followed by a few more
lived batches), so the home holds dreams, consolidation candidates and
world-model cards. The WAL is checkpointed and the file copied to
OUT_DIR/rust.sqlite3; the reads run on OUT_DIR/oracle.sqlite3 and are
printed as JSON with the calls that made them.
"""

import json
import shutil
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import lived_home as lh  # noqa: E402
import oracle_home  # noqa: E402
from abstractmemory.consolidation import structural_report  # noqa: E402
from abstractmemory.maintenance import maintenance_report, sleep_pass  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402
from abstractmemory.sleep_cadence import last_maintenance_seq, maintenance_due  # noqa: E402
from abstractmemory.sleep_policy import SleepTuning  # noqa: E402
from abstractmemory.store import TripleAssertion  # noqa: E402


def crafted(ms, store):
    s, o = "session", "s1"
    ids = ms.remember_many([
        R(kind="episode", title="Harbor outage", digest="The harbor signal failed during the deploy review.",
          keywords=("harbor", "outage", "signal"), intents=("fix",), outcomes=("restarted",),
          participants=("person:ada",)),
        R(kind="episode", title="Harbor  outage!", digest="The harbor signal failed during the deploy review again.",
          keywords=("harbor", "outage"), participants=("person:ada",)),
        R(kind="lesson", title="Restart the harbor signal", digest="Restart the signal before the review.",
          keywords=("harbor", "signal"), edges=(("derived_from", "local:0"),)),
        R(kind="lesson", title="Tea helps", digest="Tea helps the review.", keywords=("tea",)),
        R(kind="summary", title="Harbor week", digest="A week of harbor trouble.",
          edges=(("summarizes", "local:0"), ("mentions", "local:1"), ("summarizes", "local:1"))),
        R(kind="summary", title="Signal notes", digest="Notes on the signal.",
          edges=(("summarizes", "local:0"),)),
        R(kind="memory", title="Quiet evening", digest="Nothing much happened.",
          edges=(("mentions", "local:0"), ("supports", "local:0"))),
        R(kind="instruction", title="Always restart", digest="Always restart the harbor signal first.",
          attributes={"seeded_from": "handbook"}),
        R(kind="value", title="Harbor outage", digest="I value a working harbor.",
          attributes={"value_class": "revisable"}),
        R(kind="memory", title="Fusion report", digest="fusion report fusion report kernel cache",
          keywords=("fusion", "kernel", "cache"), participants=("person:bo",)),
        R(kind="memory", title="Fusion report copy", digest="fusion report kernel cache fusion",
          keywords=("fusion", "kernel", "cache"), participants=("person:bo",)),
    ], scope=s, owner_id=o, idempotency_key="crafted")
    # A duplicate logical edge, written through layer 1 beside the formed one.
    edge = [a for a in store.query_by_subject(ids[6]) if a.predicate == "supports"] if hasattr(store, "query_by_subject") else []
    if not edge:
        from abstractmemory.store import TripleQuery
        edge = [a for a in store.query(TripleQuery(subject=ids[6], predicate="supports", limit=0))]
    if edge:
        e = edge[0]
        store.add([TripleAssertion(subject=e.subject, predicate=e.predicate, object=e.object,
                                   scope=e.scope, owner_id=e.owner_id,
                                   attributes={"record_edge": True, "duplicate_probe": True})])
    return ids


def main() -> None:
    seed, out_dir, shape, nights = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    rng, home, store, journal, ms = oracle_home.fresh(seed, out_dir)
    lh.living(ms, rng, shape)
    crafted(ms, store)
    slept = []
    for night in range(nights):
        for pair in lh.PAIRS:
            result = sleep_pass(ms, scopes=[pair], owner_id=pair[1])
            slept.append({"night": night, "pair": list(pair), "phases": list(result.get("phases", ()))})
        # A little more life after each night.
        oracle_home.life_after_night(ms, seed, night)
    con = sqlite3.connect(home)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    for suffix in ("-wal", "-shm"):  # a previous run's, beside the copy
        Path(str(out_dir / "rust.sqlite3") + suffix).unlink(missing_ok=True)
    shutil.copyfile(home, out_dir / "rust.sqlite3")
    hw = journal.current_seq()

    scope_sets = {
        "all": [list(p) for p in lh.PAIRS],
        "s1": [["session", "s1"]],
        "p1": [["project", "p1"]],
        "session_any": [["session", ""]],
    }
    structural = []
    for name, scopes in scope_sets.items():
        for call in ({}, {"as_of": hw // 2}, {"evidence_grade": True}):
            args = {"scopes": scopes, **call}
            structural.append({"name": name, "args": args,
                               "result": structural_report(store, journal, scopes=[tuple(p) for p in scopes],
                                                           **call)})
    tunings = [
        {},
        {"list_bound": 3},
        {"near_dup_jaccard_floor": 0.3, "min_shared_facets": 1, "shared_facets_shown": 2},
        {"list_bound": 2, "operations_factor": 1, "metadata_gaps_factor": 1, "suppressions_factor": 1,
         "preserved_digests": 1},
    ]
    maintenance = []
    for name, scopes in scope_sets.items():
        for tuning in tunings:
            for extra in ({}, {"scan_limit": 10}, {"as_of": hw // 2}):
                args = {"scopes": scopes, "tuning": tuning, **extra}
                maintenance.append({"name": name, "args": args, "result": maintenance_report(
                    store, journal, scopes=[tuple(p) for p in scopes], tuning=SleepTuning(**tuning), **extra)})
    due = []
    for name, scopes in scope_sets.items():
        for call in ({}, {"since_seq": 0}, {"since_seq": hw // 2}, {"min_new_records": 1000},
                     {"min_new_records": 1000, "min_signal": 1}, {"since_seq": hw}):
            args = {"scopes": scopes, **call}
            due.append({"name": name, "args": args, "result": maintenance_due(
                store, journal, scopes=[tuple(p) for p in scopes], **call)})
    last = [{"name": name, "scopes": scopes,
             "result": last_maintenance_seq(store, journal, scopes=[tuple(p) for p in scopes])}
            for name, scopes in scope_sets.items()]

    json.dump({"seed": seed, "final_seq": hw, "slept": slept, "structural": structural,
               "maintenance": maintenance, "due": due, "last": last},
              sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
