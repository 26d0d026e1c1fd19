"""The exec scripts (crates/am-cli/tests/exec/*.jsonl) through the Python
API: each line's op called as the table's call shape says (a method, a part's
method or a module function) with the line's keyword arguments gives the
answer ``am exec`` gave, as checked in (crates/am-cli/tests/snapshots).

Left out: the session's own ops (``reopen``, ``write_barrier``: lines
skipped; ``clock``: the test's clock moves instead), the protocol-only
script (malformed lines). A script run with ``--embedder offline`` runs with
``am.OfflineEmbedder()`` on the store.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

import abstractmemory_rs as am
from conftest import REPO, SteppedClock

SCRIPTS = REPO / "crates/am-cli/tests/exec"
SNAPSHOTS = REPO / "crates/am-cli/tests/snapshots"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
SKIPPED_SCRIPTS = {
    "malformed": "protocol-level lines (not JSON, no op)",
    "reopen": "a session's restarts",
}
SESSION_OPS = {"reopen", "write_barrier"}


def header(script: str, key: str) -> Optional[str]:
    for line in script.splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    return None


def plain(value: Any) -> Any:
    if isinstance(value, am.VerbResult):
        return plain(value.to_dict())
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def redact(v: Any, directory: Optional[Path] = None) -> Any:
    """As the exec snapshots are redacted (crates/am-cli/tests/exec.rs): the
    UUIDs, a pass's per-step wall times (``timings_ms``), the manifest's
    list of the table's ops (``ops``: every new verb would change it), a
    file's bytes (the cold cut's ``bytes_before`` / ``bytes_after``) and
    the script's directory where an answer names it (``{dir}``)."""
    text = UUID.sub("[uuid]", json.dumps(v))
    if directory is not None:
        text = text.replace(str(directory), "{dir}")
    out = json.loads(text)

    def one(k: str, t: Any) -> Any:
        if k == "timings_ms" and isinstance(t, dict):
            return {s: "[ms]" for s in t}
        if k in ("bytes_before", "bytes_after") and isinstance(t, int):
            return "[bytes]"
        if k == "ops" and isinstance(t, list) and t and isinstance(t[0], dict) and "name" in t[0]:
            return "[the table's ops]"
        return times(t)

    def times(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: one(k, t) for k, t in x.items()}
        if isinstance(x, list):
            return [times(y) for y in x]
        return x

    return times(out)


def open_system(args: str, home: Path, clock: SteppedClock) -> am.MemorySystem:
    task_queue = "--task-queue" in args
    embedder = am.OfflineEmbedder() if "--embedder offline" in args else None
    if "--home" in args:
        return am.MemorySystem(am.SQLiteTripleStore(home, embedder=embedder), am.SQLiteJournal(home),
                               clock=clock, task_queue=task_queue)
    return am.MemorySystem(am.InMemoryTripleStore(embedder=embedder), am.InMemoryJournal(),
                           clock=clock, task_queue=task_queue)


def answer(system: am.MemorySystem, clock: SteppedClock, line: Dict[str, Any]) -> Dict[str, Any]:
    """The line's answer as am exec writes it (without ``id`` and ``op``)."""
    op = line.pop("op")
    line.pop("id", None)
    if op == "clock":
        if "now" in line:
            clock.set(line["now"])
        if "advance_s" in line:
            step = line["advance_s"]
            if not isinstance(step, (int, float)) or step < 0:
                # am exec's own refusal (the session's clock, not a verb)
                return {"error": {"kind": "InvalidInput",
                                  "message": f"advance_s must be a finite number of seconds >= 0, got {step}"}}
            clock.advance(step)
        return {"ok": {"now": clock.iso()}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out: Dict[str, Any] = {"ok": plain(am.verb_callable(system, op)(**line))}
        except am.AbstractMemoryError as e:
            out = {"error": {"kind": e.kind, "message": str(e)}}
    found = [str(w.message) for w in caught if issubclass(w.category, am.MemoryWarning)]
    if found:
        out["warnings"] = found
    return out


def cases() -> List[Tuple[str, Path]]:
    return [(p.stem, p) for p in sorted(SCRIPTS.glob("*.jsonl"))]


@pytest.mark.parametrize("name,path", cases(), ids=[c[0] for c in cases()])
def test_an_exec_script_through_the_python_api_answers_what_am_exec_answered(
    name: str, path: Path, tmp_path: Path
) -> None:
    if name in SKIPPED_SCRIPTS:
        pytest.skip(SKIPPED_SCRIPTS[name])
    script = path.read_text().replace("{dir}", str(tmp_path))
    args = header(script, "exec-args") or "--memory"
    lines = [l for l in script.splitlines() if l.strip() and not l.strip().startswith("#")]
    expected = [json.loads(l) for l in (SNAPSHOTS / f"exec__{name}.snap").read_text().split("---\n", 2)[2].splitlines() if l.strip()]
    assert len(expected) == len(lines), f"{name}: the snapshot has one answer per line"
    clock = SteppedClock()
    system = open_system(args, tmp_path / "home.sqlite3", clock)
    compared = 0
    for raw, want in zip(lines, expected):
        line = json.loads(raw)
        if line.get("op") in SESSION_OPS:
            continue
        got = redact(answer(system, clock, dict(line)), tmp_path)
        want = {k: v for k, v in want.items() if k not in ("id", "op")}
        assert got == want, f"{name}: {raw}"
        compared += 1
    assert compared >= len(lines) // 2, f"{name}: most lines compared"
