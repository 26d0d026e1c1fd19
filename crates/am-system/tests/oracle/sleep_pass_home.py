"""Build an AbstractMemory 0.3.2 home for the `sleep_pass` differential
(`oracle_home.slept_in`: a lived home, the crafted batch, NIGHTS of 0.3.2's
own nights), copy it to OUT_DIR/rust.sqlite3, then run 0.3.2's `sleep_pass`
over each pair of the home: a dry night (`report_only=True`), a night, and
the same night again. Prints each night's call and answer, for the test
`tests/sleep_passes` (module `night_oracle`).

Usage: python sleep_pass_home.py SEED OUT_DIR SHAPE NIGHTS
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import lived_home as lh  # noqa: E402
import oracle_home  # noqa: E402
from abstractmemory.maintenance import sleep_pass  # noqa: E402


def main() -> None:
    seed, out_dir, shape, nights = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    _rng, home, _store, _journal, ms = oracle_home.slept_in(seed, out_dir, shape, nights)
    oracle_home.copy(home, out_dir / "rust.sqlite3")
    runs = []
    for scope, owner in lh.PAIRS:
        for report_only in (True, False, False):
            r = sleep_pass(ms, scopes=[(scope, owner)], owner_id=owner, report_only=report_only)
            runs.append({"scopes": [[scope, owner]], "owner_id": owner,
                         "report_only": report_only, "result": r})
    json.dump({"runs": runs}, sys.stdout, ensure_ascii=False, default=list)


if __name__ == "__main__":
    main()
