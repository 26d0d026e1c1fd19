"""Write a home with AbstractMemory 0.3.2 whose timestamps are stored as given.

Run by tests/legacy_timestamps.rs: python legacy_timestamps.py HOME.
0.3.2 keeps observed_at/valid_from/valid_until as the caller wrote them, so
offsets, `Z` and naive values reach the file unnormalized.
"""
from __future__ import annotations

import sys

from abstractmemory import SQLiteTripleStore, TripleAssertion

ROWS = [
    # (id, observed_at, valid_from, valid_until)
    ("ra", "2026-01-01T03:00:00-02:00", "2026-01-01T02:00:00-02:00", "2026-01-01T04:00:00-02:00"),
    ("rb", "2026-01-01T04:00:00Z", None, None),
    ("rc", "2026-01-01 04:30", "2026-01-01 04:30", ""),
    ("rd", "next tuesday", None, None),
    ("re", "2026-01-01T04:10:00.000000+00:00", None, None),
]


def main() -> None:
    store = SQLiteTripleStore(sys.argv[1])
    store.add([
        TripleAssertion(
            subject="alice",
            predicate="knows",
            object=f"object {rid}",
            scope="session",
            owner_id="owner",
            observed_at=observed,
            valid_from=vf,
            valid_until=vu,
            provenance={"row": rid},
            attributes={"row": rid},
        )
        for rid, observed, vf, vu in ROWS
    ])
    store.close()


if __name__ == "__main__":
    main()
