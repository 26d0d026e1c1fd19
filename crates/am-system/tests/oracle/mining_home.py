"""Build an AbstractMemory 0.3.2 home for the miner: resolved and open
questions and problems across sessions, recurring compound keywords (one a
standing interest declares, one a rejected interest no longer owns), a
record without a session, a retracted record, and two open questions that
group. Copies the file to OUT_DIR/rust.sqlite3, then runs OPS with 0.3.2
(`resolve_questions_pass`, `mine_candidates_pass`), recording each answer,
and prints the names, the ops, the answers and the store rows written after
the copy, for the differential test `tests/candidates` (module
`mining_oracle`).

Usage: python mining_home.py SEED OUT_DIR
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import oracle_home  # noqa: E402
from abstractmemory import candidate_miner  # noqa: E402
from abstractmemory.disposal import reject_candidate  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402
from abstractmemory.store import TripleQuery  # noqa: E402

SCOPE, OWNER = "life", "entity:castor"


def diary(title, diary_type, session, **attrs):
    return R(kind="diary", title=title, digest=f"{title}?",
             provenance={"source": "owner-direct", "session_id": session},
             attributes={"diary_type": diary_type, **attrs})


def episode(title, session, keywords=()):
    prov = {"session_id": session} if session else {}
    return R(kind="episode", title=title, digest=f"{title}, lived.",
             provenance=prov, keywords=tuple(keywords))


# (name, record); a callable gets the ids formed so far.
RECORDS = [
    ("E0", episode("Coastal cliffs and tides", "s0", ["river walk"])),
    ("Q", diary("Why do bridges sway under wind load", "question", "s1")),
    ("Q2", diary("How do tides shape coastal cliffs", "question", "s1")),
    ("P", diary("Sourdough starter keeps dying", "problem", "s2", entry_id="p-1")),
    ("G1", diary("Which telescope mount suits astrophotography", "question", "s2")),
    ("G2", diary("Telescope mount for astrophotography on a budget", "question", "s3")),
    ("E1", episode("Bridges sway in the wind", "s2", ["wind load", "river walk"])),
    ("E2", episode("Wind load on suspension bridges", "s3", ["wind load"])),
    ("E3", episode("A gusty walk", "s4", ["wind load", "river walk"])),
    ("S1", episode("Sourdough starter feeding schedule", "s3", ["bread baking"])),
    ("S2", episode("The sourdough starter revived", "s4", ["bread baking", "river walk"])),
    ("S3", episode("Baking day", "s5", ["bread baking"])),
    ("U", episode("Sourdough starter notes, undated", None, ["bread baking"])),
    ("X", episode("Bridges sway, retracted", "s6", ["wind load"])),
    ("I", R(kind="interest", title="Bread baking", digest="Bread baking, slowly.")),
    ("I2", R(kind="interest", title="River walk — by the water", digest="Walks.")),
    ("A", lambda ids: diary("Bridges sway by resonance", "note", "s5", answers=ids["Q"])),
    ("A2", lambda ids: diary("Starter fixed with warmer water", "note", "s6", resolves="p-1")),
    ("E4", episode("Tides shape the coastal cliffs", "s6")),
    ("E5", episode("Cliffs erode where tides shape them", "s7")),
]

OPS = [
    ["resolve_questions_pass", {"scopes": [[SCOPE, OWNER]]}],
    ["resolve_questions_pass", {"scopes": [[SCOPE, OWNER]], "min_shared_terms": 1,
                                "max_evidence": 1, "limit": 1}],
    ["mine_candidates_pass", {"scopes": [[SCOPE, OWNER]], "owner_id": OWNER,
                              "max_candidates": 1, "report_only": True}],
    ["mine_candidates_pass", {"scopes": [[SCOPE, OWNER]], "owner_id": OWNER}],
    ["mine_candidates_pass", {"scopes": [[SCOPE, OWNER]], "owner_id": OWNER}],
    ["mine_candidates_pass", {"scopes": [[SCOPE, OWNER]], "owner_id": OWNER,
                              "report_only": True}],
]


def main() -> None:
    seed, out_dir = int(sys.argv[1]), Path(sys.argv[2])
    _rng, home, store, journal, ms = oracle_home.fresh(seed, out_dir)
    ids = {}
    for i, (name, r) in enumerate(RECORDS):
        rec = r(ids) if callable(r) else r
        [ids[name]] = ms.remember_many([rec], scope=SCOPE, owner_id=OWNER,
                                       idempotency_key=f"mining-{i}")
    ms.close_record(ids["X"], reason="misremembered")
    reject_candidate(store, journal, record_id=ids["I2"], scope=SCOPE, owner_id=OWNER,
                     reason="not mine after all")
    oracle_home.copy(home, out_dir / "rust.sqlite3")
    rows0 = {a.assertion_id for a in store.query(TripleQuery(limit=0))}
    answers = []
    for verb, kw in OPS:
        kw = dict(kw, scopes=[tuple(p) for p in kw["scopes"]])
        if verb == "resolve_questions_pass":
            answers.append(candidate_miner.resolve_questions_pass(store, journal, **kw))
        else:
            answers.append(candidate_miner.mine_candidates_pass(ms, **kw))
    added = [a.to_dict() for a in store.query(TripleQuery(limit=0)) if a.assertion_id not in rows0]
    added.sort(key=lambda d: d["assertion_id"])
    json.dump({"ids": ids, "ops": OPS, "answers": answers, "added": added},
              sys.stdout, ensure_ascii=False, default=list)


if __name__ == "__main__":
    main()
