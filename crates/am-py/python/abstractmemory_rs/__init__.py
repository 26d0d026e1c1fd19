"""abstractmemory_rs: AbstractMemory's engine (the Rust port) for Python.

Every verb of the engine's verb table is here with no code of its own: a
``MemorySystem`` method (``system.remember_many(...)``), a method of one of
its parts (``system.store.close_assertion(...)``, ``system.tasks.claim(...)``)
or a module function (``lint_spark(...)``), as the table's call shape says.
Keyword arguments are the spec's, read by the engine's own arguments structs;
results are plain values or, where the table presents an object, a
:class:`VerbResult` with attributes and ``to_dict()``. Warnings the engine
raises come as :class:`MemoryWarning` through :mod:`warnings`.

The hand-written parts (constructors, the error classes, the presentation)
are listed in docs/python.md.
"""

from __future__ import annotations

import copy
import warnings
import weakref
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from . import _native
from .errors import (
    AbstractMemoryError,
    Conflict,
    DimensionMismatch,
    Embedder,
    Internal,
    InvalidInput,
    InvalidSourceRef,
    NotFound,
    ProvenanceRequired,
    Refused,
    Storage,
    Timeout,
    Unsupported,
    WriteBarrierTimeout,
)

SQLiteJournal = _native.SQLiteJournal
InMemoryJournal = _native.InMemoryJournal
OfflineEmbedder = _native.OfflineEmbedder


class _Input:
    """A 0.3.2 input value (``TripleAssertion(...)``, ``TripleQuery(...)``,
    ``MemoryRecordInput(...)``, ``Stimulus(...)``): its keywords, passed to a
    verb as the dict the verb's arguments struct reads (unknown keys are
    refused there, not here)."""

    __slots__ = ("_fields",)

    def __init__(self, **fields: Any) -> None:
        object.__setattr__(self, "_fields", {k: v for k, v in fields.items() if v is not None})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_fields":
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def to_dict(self) -> Dict[str, Any]:
        return _plain_input(self._fields)  # type: ignore[no-any-return]

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._fields == other._fields  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._fields.items())
        return f"{type(self).__name__}({inner})"


class TripleAssertion(_Input):
    """A layer-1 assertion to add (0.3.2's dataclass, as keywords)."""


class TripleQuery(_Input):
    """A layer-1 query (0.3.2's dataclass, as keywords)."""


class MemoryRecordInput(_Input):
    """A record to form (0.3.2's dataclass, as keywords)."""


class Stimulus(_Input):
    """A recall cue (0.3.2's dataclass, as keywords)."""


class RecallBudget(_Input):
    """A recall budget (0.3.2's dataclass, as keywords)."""


def _plain_input(value: Any) -> Any:
    """A call's argument with the 0.3.2 input objects as their dicts and
    tuples as lists (what the engine's structs read)."""
    if isinstance(value, _Input):
        return _plain_input(value._fields)
    if isinstance(value, VerbResult):
        return _plain_input(value._data)
    if isinstance(value, dict):
        return {k: _plain_input(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_input(v) for v in value]
    return value


def _store_verb(op: str) -> Callable[..., Any]:
    """A layer-1 verb as a method of a bare store (0.3.2's ``store.add([...])``,
    ``store.query(TripleQuery(...))``): run over the store's open system, or
    one opened over it; a result row is a :class:`VerbResult` (its fields as
    attributes, as 0.3.2's ``TripleAssertion``)."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        verb = next(v for v in TABLE if v["name"] == op)
        _positional(verb, args, kwargs)
        value, found = _system_of(self, None).call(op, _plain_input(kwargs))
        _warn(found)
        if isinstance(value, list):
            return [VerbResult("TripleAssertion", v) if isinstance(v, dict) else v for v in value]
        return value

    method.__name__ = op
    method.__qualname__ = op
    method.__doc__ = f"The verb table's {op!r} over this store (layer 1)."
    return method


class SQLiteTripleStore(_native.SQLiteTripleStore):
    """``SQLiteTripleStore(path, *, embedder=None)``: the store of the SQLite
    home at ``path``; ``add`` / ``query`` / ``close_assertion`` /
    ``narrow_assertion`` are layer 1's verbs."""


class InMemoryTripleStore(_native.InMemoryTripleStore):
    """``InMemoryTripleStore(*, embedder=None)``: a volatile store; ``add`` /
    ``query`` / ``close_assertion`` / ``narrow_assertion`` are layer 1's
    verbs."""


class MemoryWarning(UserWarning):
    """A warning the engine raised with a result (``#FALLBACK: ...`` and notes)."""


class VerbResult:
    """The spec's result object: its dict's keys as attributes, ``to_dict()``
    giving the dict (a copy)."""

    __slots__ = ("_op", "_data")

    def __init__(self, op: str, data: Dict[str, Any]) -> None:
        object.__setattr__(self, "_op", op)
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_op", "_data"):
            raise AttributeError(name)  # copy/pickle probes, an unset slot
        try:
            value = self._data[name]
        except KeyError:
            raise AttributeError(f"{self._op} result has no field {name!r}") from None
        # A nested object reads by attribute too (0.3.2's result.handles[0].record_id).
        if isinstance(value, dict):
            return VerbResult(f"{self._op}.{name}", value)
        if isinstance(value, list) and any(isinstance(v, dict) for v in value):
            return [VerbResult(f"{self._op}.{name}", v) if isinstance(v, dict) else v for v in value]
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{self._op} result is read-only")

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def keys(self) -> Any:
        return self._data.keys()

    def __reduce__(self) -> Tuple[Any, ...]:
        return (VerbResult, (self._op, self._data))

    def __deepcopy__(self, memo: Dict[int, Any]) -> "VerbResult":
        return VerbResult(self._op, copy.deepcopy(self._data, memo))

    def to_dict(self) -> Dict[str, Any]:
        return copy.deepcopy(self._data)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, VerbResult):
            return self._data == other._data
        if isinstance(other, dict):
            return self._data == other
        return NotImplemented

    def __repr__(self) -> str:
        return f"<{self._op} result {self._data!r}>"

    def __dir__(self) -> List[str]:
        return sorted(set(self._data) | {"to_dict"})


def _present(op: str, present: str, value: Any) -> Any:
    if present != "object":
        return value
    if isinstance(value, dict):
        return VerbResult(op, value)
    if isinstance(value, list):
        return [VerbResult(op, v) if isinstance(v, dict) else v for v in value]
    return value


def _warn(found: List[str]) -> None:
    for w in found:
        warnings.warn(w, MemoryWarning, stacklevel=3)


def _positional(verb: Dict[str, Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> None:
    """Bind positional arguments to the verb's keywords in declaration order."""
    if not args:
        return
    props = list((verb["arguments"].get("properties") or {}).keys())
    if len(args) > len(props):
        raise TypeError(
            f"{verb['name']}() takes at most {len(props)} positional argument(s) "
            f"({', '.join(props) or 'none'}), got {len(args)}"
        )
    for name, value in zip(props, args):
        if name in kwargs:
            raise TypeError(f"{verb['name']}() got multiple values for argument {name!r}")
        kwargs[name] = value


def _split_hooks(verb: Dict[str, Any], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """The call's hooks, taken out of the keywords: the ``author`` callable
    (a non-callable ``author``, the exec protocol's scripted answers, stays a
    keyword), for a verb that takes them, ``should_continue`` and
    ``cancelled`` (callables answering a bool), and for a verb with the
    ``embedder`` hook (``reembed_store``) an embedder object (an
    ``embed_texts`` object or ``OfflineEmbedder()``; a string stays a
    keyword: an embedder spec such as ``"offline"``)."""
    hooks: Dict[str, Any] = {}
    if "author" in verb["hooks"] and callable(kwargs.get("author")):
        hooks["author"] = kwargs.pop("author")
    if "embedder" in verb["hooks"] and not isinstance(kwargs.get("embedder", ""), str):
        hooks["embedder"] = kwargs.pop("embedder")
    if "cancel_after" in verb["hooks"]:
        for name in ("should_continue", "cancelled"):
            if name in kwargs:
                hook = kwargs.pop(name)
                if hook is not None and not callable(hook):
                    raise TypeError(f"{verb['name']}(): {name} is a callable answering a bool, got {type(hook).__name__}")
                hooks[name] = hook
    return hooks


def _doc(verb: Dict[str, Any]) -> str:
    props = verb["arguments"].get("properties") or {}
    required = set(verb["arguments"].get("required") or [])
    lines = [verb["summary"], ""]
    if props:
        lines.append("Keyword arguments (the spec's):")
        for name in props:
            lines.append(f"  {name}{'' if name in required else ' (optional)'}")
    if verb["hooks"]:
        lines.append(f"Hooks: {', '.join(verb['hooks'])}")
    lines.append(f"Verb table: {verb['name']} ({verb['family']}, {verb['shape']}, "
                 f"{'writes' if verb['writes'] else 'reads'}).")
    return "\n".join(lines)


def _system_method(verb: Dict[str, Any]) -> Callable[..., Any]:
    op, present = verb["name"], verb["present"]

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        _positional(verb, args, kwargs)
        hooks = _split_hooks(verb, kwargs)
        value, found = self._system.call(op, _plain_input(kwargs), **hooks)
        _warn(found)
        return _present(op, present, value)

    method.__name__ = op.rsplit(".", 1)[-1]
    method.__qualname__ = method.__name__
    method.__doc__ = _doc(verb)
    return method


def _function(verb: Dict[str, Any]) -> Callable[..., Any]:
    op, present = verb["name"], verb["present"]

    def function(*args: Any, system: Optional["MemorySystem"] = None, **kwargs: Any) -> Any:
        # `system`: the home to read where the table's arguments name a
        # record instead of carrying it (reading_provenance(record_id=...)).
        _positional(verb, args, kwargs)
        hooks = _split_hooks(verb, kwargs)
        if system is not None:
            value, found = system._system.call(op, _plain_input(kwargs), **hooks)
        else:
            value, found = _native.call_function(op, _plain_input(kwargs), **hooks)
        _warn(found)
        return _present(op, present, value)

    function.__name__ = op
    function.__qualname__ = op
    function.__doc__ = _doc(verb)
    return function


def _store_journal_function(verb: Dict[str, Any]) -> Callable[..., Any]:
    op, present = verb["name"], verb["present"]

    folds = "journal" in (verb["arguments"].get("properties") or {})

    def function(store: Any, *args: Any, journal: Any = None, **kwargs: Any) -> Any:
        _positional(verb, args, kwargs)
        hooks = _split_hooks(verb, kwargs)
        if folds:
            # The verb's own ``journal`` argument says whether the read folds
            # the journal (am exec's ``"journal": true``); 0.3.2's call shape
            # passes the journal object instead, which means the same.
            if isinstance(journal, bool):
                kwargs["journal"], journal = journal, None
            elif journal is not None:
                kwargs["journal"] = True
        native = _system_of(store, journal)
        value, found = native.call(op, _plain_input(kwargs), **hooks)
        _warn(found)
        return _present(op, present, value)

    function.__name__ = op
    function.__qualname__ = op
    function.__doc__ = _doc(verb)
    return function


_SYSTEMS: "weakref.WeakSet[MemorySystem]" = weakref.WeakSet()


def _system_of(store: Any, journal: Any) -> Any:
    """The native system a module function over ``store`` (and ``journal``)
    runs on: a ``MemorySystem``'s own; the open system over that store (its
    caches see what it wrote); else a system opened over the pair (the
    store's home's journal when none is given)."""
    if isinstance(store, MemorySystem):
        return store._system
    for s in list(_SYSTEMS):
        if s._store_obj is store and (journal is None or s._journal_obj is journal):
            return s._system
    bare = journal is None
    if bare:
        kept = getattr(store, "__dict__", {}).get("_am_bare")
        if kept is not None:
            return kept
        journal = SQLiteJournal(store.path) if isinstance(store, _native.SQLiteTripleStore) else InMemoryJournal()
    native = _native.System(store, journal)
    native.take_warnings()  # what opening said (a volatile journal) is no call's
    if bare and hasattr(store, "__dict__"):
        store.__dict__["_am_bare"] = native  # a bare store's layer-1 calls share one
    return native


class _Part:
    """A part of a memory system (its store, journal, task queue, graph)
    whose methods are verbs of the table."""

    def __init__(self, system: "MemorySystem", name: str) -> None:
        self._system = system._system
        self._name = name

    def __repr__(self) -> str:
        return f"<MemorySystem.{self._name}>"


def _part_class(name: str) -> type:
    return type(f"_{name.capitalize()}Part", (_Part,), {"__doc__": f"The memory system's {name}: its verbs."})


_PART_OF_SHAPE = {
    "store_method": "store",
    "journal_method": "journal",
    "queue_method": "tasks",
    "graph_method": "graph",
}


class MemorySystem:
    """Layer-2 memory over a store and a journal of one home:
    ``SQLiteTripleStore(path)`` with ``SQLiteJournal(path)``, or
    ``InMemoryTripleStore()`` with ``InMemoryJournal()``.

    ``store`` and ``journal`` come positionally or as keywords (0.3.2's
    form). ``embedder`` is an object with ``embed_texts(texts) ->
    list[list[float]]`` (or ``OfflineEmbedder()``), the store's own when
    None; a system with no embedder anywhere has none, as in the spec.
    ``clock`` is a ``clock() -> str`` answering an ISO-8601 instant (the
    engine's record time; the wall clock without one); ``task_queue=True``
    opens the home's memory task queue (``system.tasks``);
    ``commit_guard(where: str) -> None`` is called before every write's
    COMMIT, and its exception refuses the write and reaches the caller
    unchanged.
    """

    def __init__(
        self,
        store: Any = None,
        journal: Any = None,
        *,
        embedder: Any = None,
        clock: Optional[Callable[[], str]] = None,
        task_queue: bool = False,
        commit_guard: Optional[Callable[[str], None]] = None,
    ) -> None:
        if store is None or journal is None:
            raise InvalidInput("MemorySystem needs both a store and a journal")
        self._store_obj = store
        self._journal_obj = journal
        self._system = _native.System(store, journal, clock=clock, task_queue=task_queue,
                                      embedder=embedder, commit_guard=commit_guard)
        self._parts: Dict[str, _Part] = {}
        _warn(self._system.take_warnings())
        _SYSTEMS.add(self)

    def _part(self, name: str) -> Any:
        part = self._parts.get(name)
        if part is None:
            part = _PART_CLASSES[name](self, name)
            self._parts[name] = part
        return part

    @property
    def store(self) -> Any:
        """The store's verbs (``system.store.close_assertion(...)``)."""
        return self._part("store")

    @property
    def journal(self) -> Any:
        """The journal's verbs."""
        return self._part("journal")

    @property
    def tasks(self) -> Any:
        """The memory task queue's verbs (``system.tasks.claim(...)``)."""
        return self._part("tasks")

    @property
    def graph(self) -> Any:
        """The memory graph's verbs."""
        return self._part("graph")

    def close(self) -> None:
        """Release the journal (the store is the caller's)."""
        self._system.close()

    def __enter__(self) -> "MemorySystem":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


_PART_CLASSES: Dict[str, type] = {name: _part_class(name) for name in ("store", "journal", "tasks", "graph")}

TABLE: List[Dict[str, Any]] = list(_native.table())
"""The verb table as the engine declares it (name, family, shape, present,
hooks, the JSON Schema of its arguments)."""

FUNCTIONS: List[str] = []


def _install() -> None:
    for verb in TABLE:
        name, shape = verb["name"], verb["shape"]
        if shape == "engine":
            continue  # the session's own ops (am exec): not a Python verb
        if shape in ("pure_function", "path_function"):
            globals()[name] = _function(verb)
            FUNCTIONS.append(name)
        elif shape == "store_journal_function":
            globals()[name] = _store_journal_function(verb)
            FUNCTIONS.append(name)
        elif "." in name:
            part, short = name.split(".", 1)
            setattr(_PART_CLASSES[part], short, _system_method(verb))
        elif shape in _PART_OF_SHAPE:
            setattr(_PART_CLASSES[_PART_OF_SHAPE[shape]], name, _system_method(verb))
        else:
            setattr(MemorySystem, name, _system_method(verb))


_install()

for _op in ("add", "query", "close_assertion", "narrow_assertion"):
    if any(v["name"] == _op for v in TABLE):
        setattr(SQLiteTripleStore, _op, _store_verb(_op))
        setattr(InMemoryTripleStore, _op, _store_verb(_op))


def verb_callable(system: MemorySystem, op: str) -> Callable[..., Any]:
    """The Python callable of the table's ``op`` (bound to ``system`` where it
    is a method): what ``am exec``'s line ``{"op": op, ...}`` calls."""
    verb = next((v for v in TABLE if v["name"] == op), None)
    if verb is None:
        raise InvalidInput(f"unknown op {op!r}")
    shape = verb["shape"]
    if shape == "engine":
        raise Unsupported(f"{op} is an op of an am exec session, not a Python verb")
    if shape in ("pure_function", "path_function"):
        pure = globals()[op]
        return lambda **kw: pure(system=system, **kw)
    if shape == "store_journal_function":
        fn = globals()[op]
        return lambda **kw: fn(system, **kw)
    if "." in op:
        part, short = op.split(".", 1)
        return getattr(getattr(system, part), short)  # type: ignore[no-any-return]
    if shape in _PART_OF_SHAPE:
        return getattr(getattr(system, _PART_OF_SHAPE[shape]), op)  # type: ignore[no-any-return]
    return getattr(system, op)  # type: ignore[no-any-return]


__all__ = [
    "MemorySystem",
    "SQLiteTripleStore",
    "SQLiteJournal",
    "InMemoryTripleStore",
    "InMemoryJournal",
    "OfflineEmbedder",
    "TripleAssertion",
    "TripleQuery",
    "MemoryRecordInput",
    "Stimulus",
    "RecallBudget",
    "VerbResult",
    "MemoryWarning",
    "TABLE",
    "verb_callable",
    "AbstractMemoryError",
    "InvalidInput",
    "Refused",
    "ProvenanceRequired",
    "DimensionMismatch",
    "Conflict",
    "NotFound",
    "Unsupported",
    "Timeout",
    "Storage",
    "Embedder",
    "Internal",
    "InvalidSourceRef",
    "WriteBarrierTimeout",
    *FUNCTIONS,
]
