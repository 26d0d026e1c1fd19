"""The 0.3.2-compatibility check: a script written against AbstractMemory
0.3.2's public API (the spec's quick examples, layer 1 and layer 2:
tests/compat/script_032.py) runs under both packages, as two child
processes: ``import abstractmemory`` in the oracle's venv (0.3.2) and
``import abstractmemory_rs as abstractmemory`` here. Where the specs agree
the answers are the same; the differences are named below."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest

SCRIPT = Path(__file__).parent / "compat" / "script_032.py"
ORACLE = os.environ.get("AM_ORACLE_PYTHON", "/root/.cache/abstractmemory-rs/oracle-venv/bin/python")

# Where 0.5.2 (the spec, which this package follows) and 0.3.2 differ.
DIFFERENCES = {
    # 0.3.2 keeps a timestamp as the caller wrote it; the engine stores its
    # canonical form (microseconds, +00:00), the same instant.
    ("layer1_memory", "observed_at"): ("2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00.000000+00:00"),
}


def run(python: str, module: str, workdir: Path) -> Dict[str, Any]:
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    out = subprocess.run([python, str(SCRIPT), module, str(workdir)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, f"{module}: {out.stderr}"
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.skipif(not Path(ORACLE).is_file(), reason="the 0.3.2 oracle venv is not installed (cargo xtask oracle)")
def test_a_0_3_2_script_answers_the_same_under_both_packages_where_the_specs_agree(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old = run(ORACLE, "abstractmemory", tmp_path / "old")
    new = run(sys.executable, "abstractmemory_rs", tmp_path / "new")
    assert old.keys() == new.keys()
    for section in old:
        assert old[section].keys() == new[section].keys(), section
        for key in old[section]:
            named = DIFFERENCES.get((section, key))
            if named is not None:
                assert (old[section][key], new[section][key]) == named, f"{section}.{key}: the named difference"
            else:
                assert old[section][key] == new[section][key], f"{section}.{key}"
