"""The example host (examples/python/chat_loop.py) runs: every turn's
pending title is written by the drain, recall finds earlier turns, and the
night's pass runs with the author stub."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import REPO


def test_the_chat_loop_example_forms_recalls_commits_and_drains_its_tasks(tmp_path: Path) -> None:
    home = tmp_path / "chat.sqlite3"
    out = subprocess.run([sys.executable, str(REPO / "examples/python/chat_loop.py"), str(home)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 6 and lines[-1].startswith("summary: 5 turns")
    assert "0 record(s) still pending" in lines[-1]
    assert lines[0].startswith("turn 1: recalled 0"), "nothing to recall on the first turn"
    assert all("recalled 0" not in l for l in lines[1:5]), "later turns recall earlier ones"
    assert home.is_file()
