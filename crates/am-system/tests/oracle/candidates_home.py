"""Build an AbstractMemory 0.3.2 home for the disposal verbs and the
identity review: a candidate, witnesses of several origins (one a retelling
of the candidate's own origin), two endpoints, evidence, two dreams, three
realizations (evidence alive, evidence about to be closed, no evidence), one
to reject, and the entity's own enacting record. Copies the file to
OUT_DIR/rust.sqlite3, then runs OPS (each a verb and its keywords; record
names stand for their graph ids) with 0.3.2, recording each answer: the
result, or the error's class. Then prints the names, the ops, the answers
and the journal and store rows written after the copy, for the differential
test `tests/candidates` (module `oracle`).

Usage: python candidates_home.py SEED OUT_DIR
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import oracle_home  # noqa: E402
from abstractmemory import disposal, identity_review  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402
from abstractmemory.store import TripleQuery  # noqa: E402

SCOPE, OWNER = "life", "entity:castor"


def prov(source, actor, session):
    return {"source": source, "actor": actor, "session_id": session}


RECORDS = [
    ("C", R(kind="lesson", title="Bridges need both banks", digest="A lesson the night offered.",
            provenance=prov("dream", "system", "night-1"))),
    ("W1", R(kind="episode", title="Ada on bridges", digest="Ada said both banks matter.",
             provenance=prov("chat", "person:ada", "s2"))),
    ("W2", R(kind="episode", title="The river walk", digest="Walked both banks of the river.",
             provenance=prov("diary", "entity:castor", "s3"))),
    ("W3", R(kind="episode", title="Retelling the lesson", digest="Told the bridge lesson again.",
             provenance=prov("dream", "system", "night-1"))),
    ("W4", R(kind="episode", title="Ada again", digest="Ada repeated it, same chat.",
             provenance=prov("chat", "person:ada", "s2"))),
    ("A", R(kind="episode", title="The garden", digest="Worked in the garden.")),
    ("B", R(kind="episode", title="The orchard", digest="Pruned the orchard.")),
    ("E", R(kind="episode", title="Garden and orchard", digest="The garden fed the orchard.")),
    ("D", R(kind="dream", title="Garden and orchard dream", digest="A dream joined them.")),
    ("D2", R(kind="dream", title="A stray dream", digest="A dream that did not hold.")),
    ("R1", R(kind="realization", title="I care for growing things", digest="Realized it.",
             edges=(("derived_from", "local:7"),), attributes={"session_id": "s3", "phase": "look_back"})),
    ("R2", R(kind="realization", title="I like orchards", digest="Realized that too.",
             edges=(("derived_from", "local:6"),))),
    ("R3", R(kind="realization", title="An unfounded one", digest="No evidence for it.")),
    ("R4", R(kind="realization", title="To be rejected", digest="The entity will say no.",
             edges=(("derived_from", "local:5"),))),
    ("V", R(kind="value", title="Tending what grows", digest="I tend what grows, in my own words.",
            attributes={"value_class": "revisable"})),
]

OPS = [
    ["reject_candidate", {"record_id": "R4", "scope": SCOPE, "owner_id": OWNER, "reason": "  "}],
    ["confirm_relation", {"source_id": "A", "relation": "mentions", "target_id": "B",
                          "evidence_ids": ["E"], "reason": "seen"}],
    ["confirm_relation", {"source_id": "A", "relation": "supports", "target_id": "B",
                          "evidence_ids": [], "reason": "seen"}],
    ["confirm_relation", {"source_id": "A", "relation": "supports", "target_id": "B",
                          "evidence_ids": ["D"], "reason": "seen", "proposed_by": "D"}],
    ["confirm_relation", {"source_id": "A", "relation": "supports", "target_id": "nope",
                          "evidence_ids": ["E"], "reason": "seen"}],
    ["confirm_relation", {"source_id": "A", "relation": "supports", "target_id": "B",
                          "evidence_ids": ["E"], "reason": "the day showed it", "proposed_by": "D"}],
    ["confirm_relation", {"source_id": "A", "relation": "supports", "target_id": "B",
                          "evidence_ids": ["E"], "reason": "the day showed it", "proposed_by": "D"}],
    ["confirm_relation", {"source_id": "A", "relation": "supports", "target_id": "B",
                          "evidence_ids": ["E", "W1"], "reason": "and again"}],
    ["promote_candidate", {"record_id": "C", "scope": SCOPE, "owner_id": OWNER,
                           "corroborating_ids": ["W3"], "reason": "retold"}],
    ["promote_candidate", {"record_id": "C", "scope": SCOPE, "owner_id": OWNER,
                           "corroborating_ids": ["W1", "W4", "W3"], "reason": "one chat"}],
    ["promote_candidate", {"record_id": "C", "scope": SCOPE, "owner_id": OWNER,
                           "corroborating_ids": ["C", "W1"], "reason": "self"}],
    ["promote_candidate", {"record_id": "C", "scope": SCOPE, "owner_id": OWNER,
                           "corroborating_ids": ["W1"], "reason": "zero", "min_origins": 0}],
    ["promote_candidate", {"record_id": "C", "scope": SCOPE, "owner_id": OWNER,
                           "corroborating_ids": ["W1", "W2"], "reason": ""}],
    ["promote_candidate", {"record_id": "C", "scope": SCOPE, "owner_id": OWNER,
                           "corroborating_ids": ["W1", "W2", "W4"], "reason": "two origins"}],
    ["promote_candidate", {"record_id": "W1", "scope": "", "owner_id": "",
                           "corroborating_ids": ["W2"], "reason": "one is enough here",
                           "min_origins": 1, "prompt_state": "Active"}],
    ["reject_candidate", {"record_id": "W3", "scope": SCOPE, "owner_id": OWNER,
                          "reason": "a retelling"}],
    ["reject_candidate", {"record_id": "R4", "scope": SCOPE, "owner_id": OWNER,
                          "reason": "not me", "hide": True}],
    ["identity_review_pass", {"scopes": [[SCOPE, OWNER]], "owner_id": OWNER}],
    ["close_record", {"record_id": "B", "reason": "the orchard was a misremembering"}],
    ["identity_review_pass", {"scopes": [[SCOPE, OWNER]], "owner_id": OWNER}],
    ["enact_realization", {"realization_id": "C", "supersession_record_id": "V", "reason": "x"}],
    ["enact_realization", {"realization_id": "R1", "supersession_record_id": "R1", "reason": "x"}],
    ["enact_realization", {"realization_id": "R1", "supersession_record_id": "V", "reason": ""}],
    ["enact_realization", {"realization_id": "R4", "supersession_record_id": "V", "reason": "x"}],
    ["enact_realization", {"realization_id": "R1", "supersession_record_id": "V",
                           "reason": "I adopt it"}],
    ["enact_realization", {"realization_id": "R1", "supersession_record_id": "V",
                           "reason": "I adopt it"}],
    ["close_record", {"record_id": "R3", "reason": "withdrawn"}],
    ["enact_realization", {"realization_id": "R3", "supersession_record_id": "V", "reason": "x"}],
    ["dispose_dream", {"dream_id": "A", "disposition": "dissolved", "reason": "x"}],
    ["dispose_dream", {"dream_id": "D", "disposition": "confirmed", "reason": "x"}],
    ["dispose_dream", {"dream_id": "D", "disposition": "confirmed", "reason": "the day joined them",
                       "relation": "supports", "source_id": "A", "target_id": "E",
                       "evidence_ids": ["W2"]}],
    ["dispose_dream", {"dream_id": "D2", "disposition": "dissolved", "reason": "it did not hold"}],
    ["identity_review_pass", {"scopes": [[SCOPE, OWNER], [SCOPE, OWNER]], "owner_id": OWNER}],
]

ID_KEYS = ("record_id", "source_id", "target_id", "proposed_by", "realization_id",
           "supersession_record_id", "dream_id")


def resolve(kw, ids):
    out = dict(kw)
    for k in ID_KEYS:
        if isinstance(out.get(k), str) and out[k] in ids:
            out[k] = ids[out[k]]
    for k in ("evidence_ids", "corroborating_ids"):
        if k in out:
            out[k] = [ids.get(x, x) for x in out[k]]
    if "scopes" in out:
        out["scopes"] = [tuple(p) for p in out["scopes"]]
    return out


def run(ms, store, journal, verb, kw):
    if verb == "close_record":
        return ms.close_record(kw["record_id"], reason=kw["reason"])
    if verb in ("identity_review_pass", "dispose_dream"):
        return getattr(identity_review if verb == "identity_review_pass" else disposal, verb)(ms, **kw)
    return getattr(disposal, verb)(store, journal, **kw)


def main() -> None:
    seed, out_dir = int(sys.argv[1]), Path(sys.argv[2])
    _rng, home, store, journal, ms = oracle_home.fresh(seed, out_dir)
    names = [n for n, _ in RECORDS]
    got = ms.remember_many([r for _, r in RECORDS], scope=SCOPE, owner_id=OWNER,
                           idempotency_key="candidates-home")
    ids = dict(zip(names, got))
    oracle_home.copy(home, out_dir / "rust.sqlite3")
    seq0 = int(journal.current_seq())
    rows0 = {a.assertion_id for a in store.query(TripleQuery(limit=0))}
    answers = []
    for verb, kw in OPS:
        try:
            answers.append({"ok": run(ms, store, journal, verb, resolve(kw, ids))})
        except ValueError as e:
            answers.append({"error": type(e).__name__, "message": str(e)})
    added = [a.to_dict() for a in store.query(TripleQuery(limit=0)) if a.assertion_id not in rows0]
    added.sort(key=lambda d: d["assertion_id"])
    json.dump({
        "ids": ids, "ops": OPS, "answers": answers, "seq0": seq0,
        "journal": [[family, record.to_dict()] for family, record in journal.replay_records(since_seq=seq0)],
        "added": added,
    }, sys.stdout, ensure_ascii=False, default=list)


if __name__ == "__main__":
    main()
