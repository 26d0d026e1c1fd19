"""Build an AbstractMemory 0.3.2 home for `apply_tend_elections`: the
garden, the orchard, a lesson derived from the garden, two dreams, a record
of another owner, a value in the `self` scope, a standing scar on
person:ada and a standing bond on person:bo. Copies the file to
OUT_DIR/rust.sqlite3, then applies BATCHES of tend blocks (each parsed by
0.3.2's `parse_tend_block`, record names standing for their graph ids) with
0.3.2, recording each report. Then prints the names, the batches, the
reports and the journal records written after the copy, for the
differential test `tests/candidates` (module `tend_oracle`).

Usage: python tend_home.py SEED OUT_DIR
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import oracle_home  # noqa: E402
from abstractmemory.records import MemoryRecordInput as R  # noqa: E402
from abstractmemory.tend import apply_tend_elections, parse_tend_block  # noqa: E402

SCOPE, OWNER, ACTOR = "life", "entity:castor", "entity-reflection"

RECORDS = [
    ("A", R(kind="episode", title="The garden", digest="Worked in the garden.")),
    ("B", R(kind="episode", title="The orchard", digest="Pruned the orchard.")),
    ("E", R(kind="lesson", title="Garden fed orchard", digest="The garden fed the orchard.",
            edges=(("derived_from", "local:0"),))),
    ("D", R(kind="dream", title="Garden and orchard dream", digest="A dream joined them.")),
    ("D2", R(kind="dream", title="A stray dream", digest="A dream that did not hold.")),
]

# Each batch: the block body (names in braces), the keywords beside it.
BATCHES = [
    ("pin: {A} — reason: keep it near\nsilence: {B} — reason: let it recede\n"
     "refocus: — reason: the topic moved\nrevisit: {A} — reason: what grew from it", {}),
    ("heal_scar: person:ada — reason: it changed\nbreak_bond: person:bo — reason: it broke\n"
     "heal_scar: person:cy — reason: nothing stands\nheal_scar: person:ada — reason: again", {}),
    ("dispose: {D} confirm relation=supports source={A} target={B} evidence={E} — reason: the day joined them\n"
     "dispose: {D2} reject — reason: it did not hold\ndispose: {A} reject — reason: not a dream", {}),
    ("pin: ex:nope — reason: unknown\npin: {O} — reason: foreign\npin: diary:3 — reason: a book entry\n"
     "silence: local:0 — reason: a batch local\npin: {V} — reason: my own value", {}),
    ("pin: {E} — reason: identity pair\nrevisit: {E} — reason: identity pair", {"self_pairs": [[SCOPE, OWNER]]}),
    ("pin: {A} — reason: from work\nrefocus: — reason: from work", {"channel": "workplace"}),
    ("revise: {A} — reason: I saw it wrong\npin: {A} — reason: after the revise", {}),
]


def main() -> None:
    seed, out_dir = int(sys.argv[1]), Path(sys.argv[2])
    _rng, home, store, journal, ms = oracle_home.fresh(seed, out_dir)
    names = [n for n, _ in RECORDS]
    got = ms.remember_many([r for _, r in RECORDS], scope=SCOPE, owner_id=OWNER,
                           idempotency_key="tend-home")
    ids = dict(zip(names, got))
    ids["O"] = ms.remember_many([R(kind="episode", title="Not mine", digest="Bo's walk.")],
                                scope=SCOPE, owner_id="person:bo", idempotency_key="tend-other")[0]
    ids["V"] = ms.remember_many([R(kind="value", title="Tending", digest="I tend what grows.",
                                   attributes={"value_class": "revisable"})],
                                scope="self", owner_id=OWNER, idempotency_key="tend-self")[0]
    ms.appraise("person:ada", sign=-1, magnitude=2, reason="it hurt", scope=SCOPE, owner_id=OWNER,
                scar=True)
    ms.appraise("person:bo", sign=1, magnitude=2, reason="it held", scope=SCOPE, owner_id=OWNER,
                bond=True)
    oracle_home.copy(home, out_dir / "rust.sqlite3")
    seq0 = int(journal.current_seq())
    reports = []
    for text, kw in BATCHES:
        parsed = parse_tend_block(text.format(**ids), max_elections=10)
        kw = dict(kw)
        kw.setdefault("channel", ACTOR)
        if "self_pairs" in kw:
            kw["self_pairs"] = [tuple(p) for p in kw["self_pairs"]]
        report = apply_tend_elections(ms, parsed["elections"], scope=SCOPE, owner_id=OWNER,
                                      actor=ACTOR, **kw)
        reports.append({"parsed": parsed, "report": report})
    json.dump({
        "ids": ids, "batches": BATCHES, "reports": reports, "seq0": seq0,
        "journal": [[family, record.to_dict()] for family, record in journal.replay_records(since_seq=seq0)],
    }, sys.stdout, ensure_ascii=False, default=list)


if __name__ == "__main__":
    main()
