"""Build a lived-in AbstractMemory 0.3.2 home, then run a battery of recalls
on it, for the differential test `tests/lived_home_oracle.rs`.

Usage: python lived_home.py SHAPE SEED OUT_DIR

The home is written by 0.3.2 itself (SQLiteTripleStore + SQLiteJournal
sharing one file): records of four kinds across three (scope, owner) pairs,
edges inside and across batches, journaled recalls followed by commits,
reinforce / attenuate / refocus, valence appraisals (one a scar), operator
bindings (hidden, prompt-active, cross-pair, restored) and closures.

Everything is deterministic for one (SHAPE, SEED): ids come from a seeded
uuid4, the clock ticks one millisecond per read (so every timestamp is
distinct), and every choice is drawn from `random.Random(SEED)`.

When the living phase ends the WAL is checkpointed and the file is copied
to OUT_DIR/rust.sqlite3 (the copy the Rust side opens). The battery then
runs on OUT_DIR/oracle.sqlite3 with a pinned clock: for each pair and cue,
a journaled shelf and working_set recall, anchored (`as_of`) re-reads of
both views, a two-pair ladder and a broad-scope escalation, under several
budgets. Printed (stdout, JSON): the shape's figures and, per recall, the
call (so the Rust side makes exactly the same one), `result.to_dict()`,
the trace's `to_dict()` and its `listed` events.
"""

import json
import random
import shutil
import sqlite3
import sys
import uuid
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path

import abstractmemory.embedding_pin as embedding_pin_mod
import abstractmemory.journal as journal_mod
import abstractmemory.models as models_mod
from abstractmemory import MemorySystem, SQLiteJournal, SQLiteTripleStore
from abstractmemory.records import MemoryRecordInput as R
from abstractmemory.seam import RecallBudget, Stimulus

SHAPES = {
    # records, pairs used, batch size range, recall every N batches,
    # hidden / prompt-active / closure rates per batch.
    "small": dict(records=60, batch=(1, 4), recall_p=0.5, hide_p=0.15, active_p=0.1, close_p=0.1),
    "lived": dict(records=300, batch=(1, 6), recall_p=0.45, hide_p=0.12, active_p=0.08, close_p=0.08),
    "hidden_heavy": dict(records=160, batch=(2, 6), recall_p=0.4, hide_p=0.6, active_p=0.15, close_p=0.3),
    "dense_edges": dict(records=200, batch=(3, 8), recall_p=0.35, hide_p=0.1, active_p=0.05, close_p=0.05,
                        edges=4),
}
PAIRS = [("session", "s1"), ("session", "s2"), ("project", "p1")]
KINDS = ["memory", "episode", "lesson", "decision"]
RELATIONS = ["derived_from", "decided_after", "informed_by", "about", "follows"]
WORDS = ["pool", "database", "deploy", "outage", "lunch", "soup", "report", "fusion", "tea", "books",
         "restart", "config", "alert", "budget", "travel", "garden", "piano", "chess", "kernel",
         "cache", "river", "window", "ticket", "review", "coffee", "league", "harbor", "signal"]
PEOPLE = ["person:ada", "person:bo", "person:cy", "person:dee", "person:eli"]
PINNED = "2026-06-01T12:00:00.000000+00:00"


class TickingClock:
    """One millisecond later at every read."""

    def __init__(self) -> None:
        self.t = datetime(2026, 1, 5, 9, 0, 0, tzinfo=timezone.utc)
        self.pinned = None

    def now(self) -> datetime:
        if self.pinned is not None:
            return self.pinned
        self.t += timedelta(milliseconds=1)
        return self.t

    def iso(self) -> str:
        return self.now().isoformat(timespec="microseconds")


CLOCK = TickingClock()


class _ClockDatetime(datetime):
    @classmethod
    def now(cls, tz=None):  # noqa: D102 - the patched clock
        return CLOCK.now()


def install_determinism(seed: int) -> None:
    rng = random.Random(seed ^ 0x5EED)
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)
    for mod in (journal_mod, models_mod, embedding_pin_mod):
        mod.datetime = _ClockDatetime


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def living(ms, rng, shape):
    cfg = SHAPES[shape]
    n_edges = cfg.get("edges", 2)
    formed = {p: [] for p in PAIRS}  # pair -> record ids
    recalls = []  # (pair, as_of_seq)
    batch_no = 0
    total = 0
    hidden = []  # (record_id, scope, owner)
    counts = {"recalls": 0, "commits": 0, "binds": 0, "closures": 0, "appraisals": 0}
    while total < cfg["records"]:
        pair = rng.choice(PAIRS)
        size = min(rng.randint(*cfg["batch"]), cfg["records"] - total)
        items = []
        for i in range(size):
            kind = rng.choice(KINDS)
            edges = []
            if i > 0 and rng.random() < 0.4:
                edges.append((rng.choice(RELATIONS), f"local:{rng.randrange(i)}"))
            for _ in range(rng.randint(0, n_edges)):
                if formed[pair] and rng.random() < 0.6:
                    edges.append((rng.choice(RELATIONS), rng.choice(formed[pair])))
            if rng.random() < 0.05:
                other = rng.choice([p for p in PAIRS if p != pair])
                if formed[other]:
                    edges.append(("about", rng.choice(formed[other])))
            edges = list(dict.fromkeys(edges))
            items.append(R(
                kind=kind,
                title=" ".join(rng.choice(WORDS) for _ in range(2)).title(),
                digest=sentence(rng, rng.randint(5, 11)),
                keywords=tuple(sorted({rng.choice(WORDS) for _ in range(rng.randint(0, 3))})),
                participants=tuple(sorted({rng.choice(PEOPLE) for _ in range(rng.randint(0, 2))})),
                edges=tuple(edges),
            ))
        ids = ms.remember_many(items, scope=pair[0], owner_id=pair[1],
                               idempotency_key=f"{shape}-b{batch_no}", turn_id=f"turn-{batch_no}")
        formed[pair].extend(ids)
        total += size
        batch_no += 1
        # A journaled recall, then a commit of some of what it listed.
        if rng.random() < cfg["recall_p"]:
            view = rng.choice(["shelf", "working_set"])
            cue = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
            parts = tuple(rng.sample(PEOPLE, rng.randint(0, 1)))
            budget = RecallBudget(shelf_size=rng.choice([6, 12]), stm_fraction=rng.choice([0.0, 0.25]),
                                  self_fraction=rng.choice([0.0, 0.2]))
            tid = f"live-{counts['recalls']}"
            r = ms.reconstruct(Stimulus(cue_text=cue, participants=parts), scopes=[pair], budget=budget,
                               view=view, trace_id=tid)
            counts["recalls"] += 1
            recalls.append((pair, r.as_of_seq))
            used = [h.record_id for h in r.handles if rng.random() < 0.5]
            if used:
                ms.commit_selection(tid, used)
                counts["commits"] += 1
        rid = rng.choice(formed[pair])
        roll = rng.random()
        if roll < 0.1:
            ms.reinforce(rid, reason="matters", scope=pair[0], owner_id=pair[1])
        elif roll < 0.16:
            ms.attenuate(rid, reason="noise", scope=pair[0], owner_id=pair[1])
        elif roll < 0.2:
            ms.refocus(reason="topic shift", scope=pair[0], owner_id=pair[1])
        elif roll < 0.27:
            ms.appraise(rid, sign=rng.choice([1, -1]), magnitude=rng.choice([1.0, 2.0, 3.0]),
                        reason="felt", scope=pair[0], owner_id=pair[1])
            counts["appraisals"] += 1
        if batch_no == 3:
            ms.appraise("tool:web_search", sign=-1, magnitude=3.0, reason="fabricated citations",
                        scope=pair[0], owner_id=pair[1], scar=True)
            counts["appraisals"] += 1
        # Operator bindings: hidden, prompt-active, cross-pair, restored.
        if rng.random() < cfg["hide_p"]:
            target = rng.choice(formed[pair])
            ms.bind(target, scope=pair[0], owner_id=pair[1], search_state="hidden", reason="operator hide")
            hidden.append((target, pair[0], pair[1]))
            counts["binds"] += 1
        if rng.random() < cfg["active_p"]:
            ms.bind(rng.choice(formed[pair]), scope=pair[0], owner_id=pair[1], search_state="indexed",
                    prompt_state="active", lifecycle="promoted", reason="identity")
            counts["binds"] += 1
        if rng.random() < cfg["active_p"]:
            other = rng.choice([p for p in PAIRS if p != pair])
            state = rng.choice(["indexed+active", "indexed+inactive", "hidden+inactive"]).split("+")
            ms.bind(rng.choice(formed[pair]), scope=other[0], owner_id=other[1],
                    search_state=state[0], prompt_state=state[1], reason="cross-pair")
            counts["binds"] += 1
        if hidden and rng.random() < 0.2:
            target, s, o = hidden.pop(rng.randrange(len(hidden)))
            ms.bind(target, scope=s, owner_id=o, search_state="indexed", reason="restored")
            counts["binds"] += 1
        if rng.random() < cfg["close_p"] and len(formed[pair]) > 2:
            victim = rng.choice(formed[pair])
            if rng.random() < 0.5:
                ms.close_record(victim, reason="wrong", kind="retract")
            else:
                repl = rng.choice([x for x in formed[pair] if x != victim])
                ms.close_record(victim, reason="newer", kind="supersede", replacement_ids=[repl])
            counts["closures"] += 1
    counts["records"] = total
    counts["batches"] = batch_no
    return formed, recalls, counts


def battery(ms, journal, rng, recalls, current_seq):
    out = []

    def run(name, cue, scopes, view, journal_on, budget=None, as_of=None, reason=None,
            participants=()):
        call = {"name": name, "cue": cue, "scopes": [list(p) for p in scopes], "view": view,
                "journal": journal_on, "budget": budget or {}, "as_of": as_of, "reason": reason,
                "participants": list(participants)}
        r = ms.reconstruct(Stimulus(cue_text=cue, as_of=as_of, participants=tuple(participants)),
                           scopes=scopes, budget=RecallBudget(**(budget or {})), view=view,
                           escalation_reason=reason, journal=journal_on, trace_id=name)
        row = {"call": call, "result": r.to_dict()}
        if journal_on:
            t = journal.traces(trace_id=name, limit=1)[0]
            row["trace"] = t.to_dict()
            row["listed"] = [e.to_dict() for s, o in scopes
                             for e in journal.events(scope=s, owner_id=o, kinds=("listed",), limit=0)
                             if e.trace_id == name]
        out.append(row)

    budgets = [None, {"max_candidates": 16, "shelf_size": 6}, {"self_fraction": 0.25, "stm_fraction": 0.5},
               {"min_activation": 0.5, "max_edges": 12}, {"max_candidates": 8, "max_hops": 3, "token_budget": 120}]
    anchors = sorted({seq for _, seq in recalls}) or [current_seq]
    n = 0
    for pair in PAIRS:
        for k in range(4):
            cue = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
            budget = budgets[(n + k) % len(budgets)]
            parts = rng.sample(PEOPLE, rng.randint(0, 1))
            run(f"b{n}-shelf", cue, [pair], "shelf", True, budget, participants=parts)
            run(f"b{n}-ws", cue, [pair], "working_set", True, budget, participants=parts)
            anchor = rng.choice(anchors)
            run(f"b{n}-asof-shelf", cue, [pair], "shelf", False, budget, as_of=anchor)
            run(f"b{n}-asof-ws", cue, [pair], "working_set", True, budget, as_of=anchor, participants=parts)
            n += 1
    cue = " ".join(rng.choice(WORDS) for _ in range(2))
    run("ladder-shelf", cue, PAIRS[:2], "shelf", True, {"self_fraction": 0.2})
    run("ladder-ws", cue, PAIRS, "working_set", True)
    run("broad", cue, [PAIRS[0], ("global", "")], "shelf", True, reason="cross-session check")
    return out


def main() -> None:
    shape, seed, out_dir = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    if shape not in SHAPES:
        raise SystemExit(f"unknown shape {shape!r} (known: {sorted(SHAPES)})")
    warnings.simplefilter("ignore")
    install_determinism(seed)
    rng = random.Random(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    home = out_dir / "oracle.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(str(home) + suffix).unlink(missing_ok=True)
    store = SQLiteTripleStore(home)
    journal = SQLiteJournal(home)
    ms = MemorySystem(store=store, journal=journal, clock=CLOCK.iso)
    formed, recalls, counts = living(ms, rng, shape)
    counts["current_seq"] = ms.current_seq()
    con = sqlite3.connect(home)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    shutil.copyfile(home, out_dir / "rust.sqlite3")
    CLOCK.pinned = datetime.fromisoformat(PINNED)
    ms = MemorySystem(store=store, journal=journal, clock=lambda: PINNED)
    rows = battery(ms, journal, rng, recalls, counts["current_seq"])
    json.dump({"shape": shape, "seed": seed, "figures": counts, "pinned": PINNED, "recalls": rows,
               "final_seq": ms.current_seq()},
              sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
