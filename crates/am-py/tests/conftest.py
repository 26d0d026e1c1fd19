"""Shared fixtures of the abstractmemory_rs pytest suite."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

import abstractmemory_rs as am

REPO = Path(__file__).resolve().parents[3]


class SteppedClock:
    """A pinned engine clock that moves only when told (``am exec --clock``)."""

    def __init__(self, iso: str = "2026-01-01T00:00:00Z") -> None:
        self._lock = threading.Lock()
        self.now = dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))

    def __call__(self) -> str:
        with self._lock:
            return self.now.isoformat()

    def set(self, iso: str) -> None:
        with self._lock:
            self.now = dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += dt.timedelta(seconds=seconds)

    def iso(self) -> str:
        """As am exec's clock op answers it."""
        with self._lock:
            return self.now.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock()


@pytest.fixture(params=["memory", "sqlite"])
def stack(request: Any, tmp_path: Path) -> Callable[..., am.MemorySystem]:
    """A factory of memory systems on both stacks (in memory, a SQLite file)."""

    def make(**kw: Any) -> am.MemorySystem:
        if request.param == "memory":
            return am.MemorySystem(am.InMemoryTripleStore(), am.InMemoryJournal(), **kw)
        path = tmp_path / "home.sqlite3"
        return am.MemorySystem(am.SQLiteTripleStore(path), am.SQLiteJournal(path), **kw)

    make.kind = request.param  # type: ignore[attr-defined]
    return make


@pytest.fixture
def system(stack: Callable[..., am.MemorySystem], clock: SteppedClock) -> Iterator[am.MemorySystem]:
    s = stack(clock=clock)
    yield s
    s.close()
