"""The exception mapping: one class per engine error kind, each catchable as
the builtin a 0.3.2 caller catches, and the spec's named classes."""

from __future__ import annotations

import pytest

import abstractmemory_rs as am

BUILTINS = {
    "InvalidInput": (ValueError,),
    "Refused": (ValueError,),
    "ProvenanceRequired": (ValueError,),
    "DimensionMismatch": (ValueError,),
    "Conflict": (ValueError,),
    "NotFound": (ValueError, LookupError),
    "Unsupported": (NotImplementedError,),
    "Timeout": (TimeoutError,),
    "Storage": (RuntimeError,),
    "Embedder": (RuntimeError,),
    "Internal": (RuntimeError,),
}


@pytest.mark.parametrize("kind", sorted(BUILTINS))
def test_each_error_kind_is_a_class_of_its_name_subclassing_the_builtins_0_3_2_callers_catch(kind: str) -> None:
    cls = getattr(am, kind)
    assert cls.kind == kind
    assert issubclass(cls, am.AbstractMemoryError)
    for builtin in BUILTINS[kind]:
        assert issubclass(cls, builtin), f"{kind} is a {builtin.__name__}"


def test_the_spec_named_classes_are_exported_under_their_names() -> None:
    assert issubclass(am.InvalidSourceRef, am.InvalidInput)
    assert issubclass(am.InvalidSourceRef, ValueError)
    assert issubclass(am.WriteBarrierTimeout, am.Timeout)
    assert issubclass(am.WriteBarrierTimeout, TimeoutError)
    assert issubclass(am.ProvenanceRequired, ValueError)


def test_an_unknown_record_id_raises_not_found_caught_as_value_error_and_lookup_error(system: am.MemorySystem) -> None:
    with pytest.raises(am.NotFound) as e:
        system.payload(record_id="ex:nothing-here")
    assert isinstance(e.value, ValueError) and isinstance(e.value, LookupError)
    assert "ex:nothing-here" in str(e.value)


def test_an_argument_the_verb_does_not_take_raises_invalid_input_naming_it(system: am.MemorySystem) -> None:
    with pytest.raises(am.InvalidInput) as e:
        system.remember(
            record={"kind": "episode", "title": "x", "digest": "y", "mood": "calm"},
            scope="life", owner_id="demo", idempotency_key="k",
        )
    assert isinstance(e.value, ValueError)
    assert "mood" in str(e.value)


def test_a_value_of_the_wrong_type_raises_invalid_input_naming_the_argument(system: am.MemorySystem) -> None:
    with pytest.raises(ValueError, match="used_record_ids"):
        system.commit_selection(trace_id="t", used_record_ids="not-a-list")


def test_an_unknown_keyword_is_refused_as_invalid_input(system: am.MemorySystem) -> None:
    with pytest.raises(am.InvalidInput, match="bogus"):
        system.current_seq(bogus=1)


def test_a_queue_verb_without_the_task_queue_raises_an_engine_error_and_writes_nothing(system: am.MemorySystem) -> None:
    before = system.current_seq()
    with pytest.raises(am.AbstractMemoryError):
        system.tasks.counts()
    assert system.current_seq() == before


def test_arguments_that_are_not_plain_data_are_refused_as_invalid_input(system: am.MemorySystem) -> None:
    with pytest.raises(am.InvalidInput, match="plain data"):
        system.payload(record_id=object())


def test_a_store_and_journal_of_two_homes_are_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(am.InvalidInput, match="one home"):
        am.MemorySystem(am.SQLiteTripleStore(tmp_path / "a.sqlite3"), am.SQLiteJournal(tmp_path / "b.sqlite3"))
    with pytest.raises(am.InvalidInput, match="one kind"):
        am.MemorySystem(am.InMemoryTripleStore(), am.SQLiteJournal(tmp_path / "b.sqlite3"))
