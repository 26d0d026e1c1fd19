"""The package's exceptions: one class per engine error kind, each a
subclass of the builtins an AbstractMemory 0.3.2 caller already catches, and
the spec's named classes (``ProvenanceRequired``, ``InvalidSourceRef``,
``WriteBarrierTimeout``).

Every class derives from :class:`AbstractMemoryError`, whose ``kind`` is the
engine's error kind (the ``kind`` of an ``am exec`` error line).
"""

from __future__ import annotations

from . import _native

__all__ = [
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
]


class AbstractMemoryError(Exception):
    """An engine error; ``kind`` names its kind."""

    kind: str = ""


class InvalidInput(AbstractMemoryError, ValueError):
    """A malformed call: an argument the verb does not take or cannot read."""

    kind = "InvalidInput"


class Refused(AbstractMemoryError, ValueError):
    """The engine refuses by policy (a newer schema, a commit guard)."""

    kind = "Refused"


class ProvenanceRequired(AbstractMemoryError, ValueError):
    """A graph revision lacks the provenance the contract requires."""

    kind = "ProvenanceRequired"


class DimensionMismatch(AbstractMemoryError, ValueError):
    """A vector's dimension contradicts the store's embedding pin."""

    kind = "DimensionMismatch"


class Conflict(AbstractMemoryError, ValueError):
    """The write conflicts with what is stored."""

    kind = "Conflict"


class NotFound(AbstractMemoryError, ValueError, LookupError):
    """A named id does not exist (0.3.2 raises ``ValueError`` for these)."""

    kind = "NotFound"


class Unsupported(AbstractMemoryError, NotImplementedError):
    """The backend does not offer the operation."""

    kind = "Unsupported"


class Timeout(AbstractMemoryError, TimeoutError):
    """An operation exceeded its time bound."""

    kind = "Timeout"


class Storage(AbstractMemoryError, RuntimeError):
    """The storage engine failed (I/O, SQLite, a damaged file)."""

    kind = "Storage"


class Embedder(AbstractMemoryError, RuntimeError):
    """The embedder failed."""

    kind = "Embedder"


class Internal(AbstractMemoryError, RuntimeError):
    """An invariant of the engine broke (a bug)."""

    kind = "Internal"


class InvalidSourceRef(InvalidInput):
    """A malformed ledger ``SourceRef`` (the spec's ``InvalidSourceRef``)."""


class WriteBarrierTimeout(Timeout):
    """The home's write barrier was not taken in time (the spec's name)."""


_native._set_errors(
    {
        cls.__name__: cls
        for cls in (
            InvalidInput,
            Refused,
            ProvenanceRequired,
            DimensionMismatch,
            Conflict,
            NotFound,
            Unsupported,
            Timeout,
            Storage,
            Embedder,
            Internal,
            InvalidSourceRef,
            WriteBarrierTimeout,
        )
    }
)
