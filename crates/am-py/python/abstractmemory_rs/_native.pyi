"""Type stubs of abstractmemory_rs._native (the PyO3 module, crates/am-py/src)."""

from os import PathLike
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from typing import final

from typing_extensions import disjoint_base

__all__ = [
    "System",
    "SQLiteTripleStore",
    "SQLiteJournal",
    "InMemoryTripleStore",
    "InMemoryJournal",
    "OfflineEmbedder",
    "table",
    "call_function",
    "_set_errors",
]

_Path = Union[str, PathLike[str]]

@disjoint_base
class SQLiteTripleStore:
    def __new__(cls, path: _Path, *, embedder: Any = None) -> "SQLiteTripleStore": ...
    @property
    def path(self) -> str: ...
    def close(self) -> None: ...

@final
class SQLiteJournal:
    def __new__(cls, path: _Path) -> "SQLiteJournal": ...
    @property
    def path(self) -> str: ...

@disjoint_base
class InMemoryTripleStore:
    def __new__(cls, *, embedder: Any = None) -> "InMemoryTripleStore": ...
    def close(self) -> None: ...

@final
class InMemoryJournal:
    def __new__(cls) -> "InMemoryJournal": ...

@final
class OfflineEmbedder:
    def __new__(cls) -> "OfflineEmbedder": ...
    def embed_texts(self, texts: List[str]) -> List[List[float]]: ...
    @property
    def model_id(self) -> Optional[str]: ...
    @property
    def dimension(self) -> int: ...

@final
class System:
    def __new__(
        cls,
        store: Any,
        journal: Any,
        *,
        clock: Optional[Callable[[], str]] = None,
        task_queue: bool = False,
        embedder: Any = None,
        commit_guard: Optional[Callable[[str], Any]] = None,
    ) -> "System": ...
    def call(
        self,
        op: str,
        kwargs: Optional[Dict[str, Any]] = None,
        author: Optional[Callable[[str, str, Dict[str, Any]], Dict[str, Any]]] = None,
        should_continue: Optional[Callable[[], bool]] = None,
        cancelled: Optional[Callable[[], bool]] = None,
        embedder: Any = None,
    ) -> Tuple[Any, List[str]]: ...
    def take_warnings(self) -> List[str]: ...
    def close(self) -> None: ...

def table() -> List[Dict[str, Any]]: ...
def call_function(
    op: str,
    kwargs: Optional[Dict[str, Any]] = None,
    author: Optional[Callable[[str, str, Dict[str, Any]], Dict[str, Any]]] = None,
    should_continue: Optional[Callable[[], bool]] = None,
    cancelled: Optional[Callable[[], bool]] = None,
) -> Tuple[Any, List[str]]: ...
def _set_errors(classes: Dict[str, type]) -> None: ...
