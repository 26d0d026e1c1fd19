"""Type stubs of abstractmemory_rs._native (the PyO3 module, crates/am-py/src)."""

from os import PathLike
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from typing import final

__all__ = [
    "System",
    "SQLiteTripleStore",
    "SQLiteJournal",
    "InMemoryTripleStore",
    "InMemoryJournal",
    "table",
    "call_function",
    "_set_errors",
]

_Path = Union[str, PathLike[str]]

@final
class SQLiteTripleStore:
    def __new__(cls, path: _Path) -> "SQLiteTripleStore": ...
    @property
    def path(self) -> str: ...

@final
class SQLiteJournal:
    def __new__(cls, path: _Path) -> "SQLiteJournal": ...
    @property
    def path(self) -> str: ...

@final
class InMemoryTripleStore:
    def __new__(cls) -> "InMemoryTripleStore": ...

@final
class InMemoryJournal:
    def __new__(cls) -> "InMemoryJournal": ...

@final
class System:
    def __new__(
        cls,
        store: Any,
        journal: Any,
        *,
        clock: Optional[Callable[[], str]] = None,
        task_queue: bool = False,
    ) -> "System": ...
    def call(
        self,
        op: str,
        kwargs: Optional[Dict[str, Any]] = None,
        author: Optional[Callable[[str, str, Dict[str, Any]], Dict[str, Any]]] = None,
    ) -> Tuple[Any, List[str]]: ...
    def take_warnings(self) -> List[str]: ...
    def close(self) -> None: ...

def table() -> List[Dict[str, Any]]: ...
def call_function(
    op: str,
    kwargs: Optional[Dict[str, Any]] = None,
    author: Optional[Callable[[str, str, Dict[str, Any]], Dict[str, Any]]] = None,
) -> Tuple[Any, List[str]]: ...
def _set_errors(classes: Dict[str, type]) -> None: ...
