"""The cold cut from Python: ``journal_cold_cut`` and ``verify_cold_cut``
are module functions over home files (0.3.2's ``abstractmemory.doctoring``
call shape), run by the verb table (spec api.md "Maintenance, health, and
operator tools")."""

from __future__ import annotations

from pathlib import Path

import pytest

import abstractmemory_rs as am

RECORDS = [
    {"kind": "episode", "title": f"Kiln day {i}", "digest": f"fired the kiln on day {i} and the glaze held"}
    for i in range(4)
]


def lived(path: Path) -> None:
    system = am.MemorySystem(am.SQLiteTripleStore(path), am.SQLiteJournal(path))
    ids = system.remember_many(records=RECORDS, scope="life", owner_id="ada", idempotency_key="k")
    for gid in ids[:2]:
        system.reinforce(record_id=gid, reason="it mattered", scope="life", owner_id="ada")
    system.close()


def test_a_cold_cut_from_python_rebuilds_the_file_and_verifies(tmp_path: Path) -> None:
    src, dst = tmp_path / "home.sqlite3", tmp_path / "cut.sqlite3"
    lived(src)
    before = src.read_bytes()
    out = am.journal_cold_cut(str(src), str(dst), archive_ref="archive://ada",
                              cut_seq=10_000, pair_cuts=[("life", "ada", 10_000)])
    assert out["pass_name"] == "journal_cold_cut"
    assert out["events_before"] >= 2 and out["events_after"] == 0
    assert out["archive_ref"] == "archive://ada"
    assert dst.exists() and not Path(str(dst) + ".cold-cut-partial").exists()
    checked = am.verify_cold_cut(str(src), str(dst))
    assert checked["ok"] is True, checked
    assert any(c["check"] == "events_accounting" and c["ok"] for c in checked["checks"])
    assert src.read_bytes() == before, "the source is only read"


def test_a_refused_cold_cut_writes_nothing(tmp_path: Path) -> None:
    src, dst = tmp_path / "home.sqlite3", tmp_path / "cut.sqlite3"
    lived(src)
    before = src.read_bytes()
    dst.write_bytes(b"someone's file")
    with pytest.raises(am.InvalidInput, match="already exists"):
        am.journal_cold_cut(str(src), str(dst), archive_ref="archive://ada")
    assert dst.read_bytes() == b"someone's file"
    other = tmp_path / "other.sqlite3"
    with pytest.raises(am.InvalidInput, match="archive_ref"):
        am.journal_cold_cut(str(src), str(other), archive_ref="  ")
    with pytest.raises(am.InvalidInput, match=r"life\|ada"):
        am.journal_cold_cut(str(src), str(other), archive_ref="archive://ada", cut_seq=10_000)
    assert not other.exists()
    assert src.read_bytes() == before
