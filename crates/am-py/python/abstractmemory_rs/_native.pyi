"""Type stubs of abstractmemory_rs._native (the PyO3 module, crates/am-py/src)."""

from os import PathLike
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

_Path = Union[str, PathLike[str]]

class SQLiteTripleStore:
    def __new__(cls, path: _Path) -> "SQLiteTripleStore": ...
    @property
    def path(self) -> str: ...

class SQLiteJournal:
    def __new__(cls, path: _Path) -> "SQLiteJournal": ...
    @property
    def path(self) -> str: ...

class InMemoryTripleStore:
    def __new__(cls) -> "InMemoryTripleStore": ...

class InMemoryJournal:
    def __new__(cls) -> "InMemoryJournal": ...

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
