"""Validation of the files that agent assessments produce.

>>> import pathlib, agentbeats_spec
>>> agentbeats_spec.validate(pathlib.Path("fixtures/valid"))
[]

Every problem is an :class:`Issue` with a JSON Pointer, a line and a column. The names in ``__all__`` are
the public API, with the generated models in :mod:`agentbeats_spec.models`; every module whose name starts
with ``_`` is private.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._api import dump, dumps, from_dict, kinds, load, loads, redact, scan, schema, to_dict, validate
from ._issues import (
    ArtifactsUnavailable,
    InvalidDocument,
    Issue,
    SpecError,
    UnconvertibleAttempt,
    UnknownKind,
    WriteError,
)
from ._kinds import Kind
from ._limits import Limits
from ._version import __version__

if TYPE_CHECKING:
    from ._migrate import migrate_run
    from ._tasks import read_task, write_task


def __getattr__(name: str) -> object:
    # Task records pull in the writers and the layouts; a one-file validation does not need them.
    if name in ("read_task", "write_task"):
        from . import _tasks

        return getattr(_tasks, name)
    if name == "migrate_run":
        from . import _migrate

        return _migrate.migrate_run
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ArtifactsUnavailable",
    "InvalidDocument",
    "Issue",
    "Kind",
    "Limits",
    "SpecError",
    "UnconvertibleAttempt",
    "UnknownKind",
    "WriteError",
    "__version__",
    "dump",
    "dumps",
    "from_dict",
    "kinds",
    "load",
    "loads",
    "migrate_run",
    "read_task",
    "redact",
    "scan",
    "schema",
    "to_dict",
    "validate",
    "write_task",
]
