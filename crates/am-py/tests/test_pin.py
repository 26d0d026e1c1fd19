"""The embedding pin's two module functions from Python: ``read_embedding_pin``
(a pure peek at a store file's pin, 0.3.2's ``sqlite_store`` function) and
``build_pin`` (the normalized pin of model facts, 0.3.2's ``embedding_pin``
function), run by the verb table (spec api.md "Maintenance, health, and
operator tools")."""

from __future__ import annotations

from pathlib import Path

import pytest

import abstractmemory_rs as am


def test_read_embedding_pin_peeks_at_a_home_file_without_opening_it(tmp_path: Path) -> None:
    path = tmp_path / "home.sqlite3"
    assert am.read_embedding_pin(str(path)) is None, "a missing file reads None"
    assert not path.exists(), "the peek never creates the file"
    system = am.MemorySystem(am.SQLiteTripleStore(path, embedder=am.OfflineEmbedder()), am.SQLiteJournal(path))
    system.remember_many(records=[{"kind": "episode", "title": "Kiln", "digest": "fired the kiln"}],
                         scope="life", owner_id="ada", idempotency_key="k")
    system.close()
    before = path.read_bytes()
    pin = am.read_embedding_pin(str(path))
    assert pin is not None
    assert (pin["model_id"], pin["dimension"]) == ("minishlab/potion-base-2M", 64)
    assert am.read_embedding_pin(str(path), table_name="triples") == pin
    assert am.read_embedding_pin(str(tmp_path)) is None, "a directory is no store file"
    assert path.read_bytes() == before, "the peek writes nothing"
    with pytest.raises(am.InvalidInput, match="table_name"):
        am.read_embedding_pin(str(path), table_name="triples; DROP TABLE triples")


def test_build_pin_normalizes_model_facts_and_refuses_an_empty_pin() -> None:
    pin = am.build_pin("  bge-small ", 384, source="reembed")
    assert {k: pin[k] for k in ("model_id", "dimension", "source")} == {
        "model_id": "bge-small", "dimension": 384, "source": "reembed"}
    assert pin["pinned_at"].endswith("+00:00")
    alone = am.build_pin(None, 64, source="first-write", claimed_by="embedder-attribute")
    assert alone["model_id"] is None and "claimed_by" not in alone, "a claim without a label marks nothing"
    claimed = am.build_pin("bge-small", None, source="first-write", claimed_by="embedder-attribute")
    assert claimed["claimed_by"] == "embedder-attribute"
    with pytest.raises(am.InvalidInput, match="model_id and/or a dimension"):
        am.build_pin(None, None, source="creation")
    with pytest.raises(am.InvalidInput, match="dimension"):
        am.build_pin("bge-small", 0, source="creation")
