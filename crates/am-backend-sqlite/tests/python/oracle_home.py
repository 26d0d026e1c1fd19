"""Write a fresh home with AbstractMemory 0.3.2 and record its answers.

Run by tests/interop_python.rs: python oracle_home.py HOME OUT_JSON.
Rows are deterministic (random.Random(32)); the embedder is the fixture's 16-d
hashed bag of words (tests/common/mod.rs has the same algorithm in Rust).
"""
from __future__ import annotations

import hashlib
import json
import math
import random
import sys
import warnings

from abstractmemory import SQLiteTripleStore, TripleAssertion, TripleQuery


class TinyEmbedder:
    model = "tiny-hash-bow-16"
    dim = 16

    def embed_texts(self, texts):
        out = []
        for t in texts:
            v = [0.0] * self.dim
            for tok in str(t).lower().split():
                h = hashlib.sha256(tok.encode()).digest()
                v[h[0] % self.dim] += 1.0 if h[1] & 1 else -1.0
            n = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append([x / n for x in v])
        return out


WORDS = ["fusion", "energy", "report", "tea", "books", "alice", "dave", "units",
         "honesty", "week", "river", "stone", "lamp", "garden", "winter", "salt"]
SUBJECTS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]
PREDICATES = ["knows", "likes", "wrote", "visited", "dcterms:abstract"]


def ts(minute: int, second: int = 0) -> str:
    return f"2026-04-01T{minute // 60:02d}:{minute % 60:02d}:{second:02d}.000000+00:00"


def rows():
    rnd = random.Random(32)
    out = []
    for i in range(320):
        subject = rnd.choice(SUBJECTS)
        predicate = rnd.choice(PREDICATES)
        words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 4)))
        attrs = {}
        obj = words
        if i % 9 == 0:
            # A literal digest keeps its capitals.
            obj = words.capitalize() + "."
            attrs = {"literal": True, "record_kind": "memory", "title": words.title(),
                     "keywords": words.split()[:2]}
        elif i % 13 == 0:
            attrs = {"record_edge": True}
        scope = rnd.choice(["run", "session", "diary"])
        owner = rnd.choice([None, "s1", "s2"])
        # Ties: every 10th row shares the previous row's instant.
        minute = i if i % 10 != 0 else max(i - 1, 0)
        valid_from = ts(rnd.randint(0, 300)) if i % 7 == 0 else None
        valid_until = ts(rnd.randint(301, 400)) if i % 11 == 0 else None
        out.append(TripleAssertion(
            subject=subject, predicate=predicate, object=obj, scope=scope, owner_id=owner,
            observed_at=ts(minute), valid_from=valid_from, valid_until=valid_until,
            confidence=(round(rnd.random(), 3) if i % 5 == 0 else None),
            provenance={"turn": i}, attributes=attrs,
            # Tie rows get ids that sort BEFORE their tie partner's, so 0.3.2's
            # assertion_id tie-break and our insertion-order rule disagree.
            assertion_id=(f"a-{i:04d}" if i % 10 == 0 else f"py-{i:04d}")))
    return out


QUERIES = [
    {"limit": 0, "order": "asc"},
    {"limit": 0},
    {"limit": 25},
    {"subject": "alice", "limit": 0},
    {"subject": " BOB ", "predicate": "likes", "limit": 0},
    {"scope": "session", "owner_id": "s1", "limit": 50},
    {"scope": "diary", "owner_id": "s2", "limit": 0, "order": "asc"},
    {"scope": "run", "limit": 10},
    {"owner_id": "s1", "limit": 0},
    {"predicate": "wrote", "since": ts(100), "until": ts(200), "limit": 0},
    {"active_at": ts(320), "limit": 0},
    {"active_at": ts(150), "scope": "session", "limit": 0},
    {"object": "tea", "limit": 0},
    {"object": "river stone", "limit": 0},
    {"assertion_ids": ["py-0001", "a-0010", "a-0200", "missing"], "limit": 0},
    {"query_text": "fusion energy report", "limit": 10},
    {"query_text": "tea books river", "limit": 0},
    {"query_text": "alice garden", "scope": "session", "limit": 5},
    {"query_text": "winter salt lamp", "owner_id": "s2", "min_score": 0.2, "limit": 0},
    {"query_vector": [1.0] * 16, "limit": 20},
    {"query_vector": [float(i) - 7.5 for i in range(16)], "since": ts(160), "limit": 15},
]
# Literal objects with capitals: our rule (trimmed equality for literal rows)
# differs from 0.3.2's (lowercased equality); the Rust test checks the difference.
LITERAL_QUERIES = []


def main() -> None:
    home, out_path = sys.argv[1], sys.argv[2]
    warnings.simplefilter("ignore")
    store = SQLiteTripleStore(home, embedder=TinyEmbedder())
    data = rows()
    for k in range(0, len(data), 50):
        store.add(data[k:k + 50])
    for a in data:
        if a.attributes.get("literal") and len(LITERAL_QUERIES) < 4:
            LITERAL_QUERIES.append({"object": a.object, "limit": 0})
    results = []
    for q in QUERIES + LITERAL_QUERIES:
        kw = dict(q)
        if "assertion_ids" in kw:
            kw["assertion_ids"] = tuple(kw["assertion_ids"])
        got = store.query(TripleQuery(**kw))
        results.append({
            "query": q,
            "ids": [a.assertion_id for a in got],
            "observed_at": [a.observed_at for a in got],
            "scores": [a.attributes.get("_retrieval", {}).get("score") for a in got],
        })
    store.close()
    with open(out_path, "w") as fh:
        json.dump({"results": results, "literal_queries": len(LITERAL_QUERIES)}, fh)


if __name__ == "__main__":
    main()
