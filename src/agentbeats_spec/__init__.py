"""Validation of the files that agent assessments produce.

>>> import pathlib, agentbeats_spec
>>> agentbeats_spec.validate(pathlib.Path("fixtures/valid"))
[]

Every problem is an :class:`Issue` with a JSON Pointer, a line and a column. The names in ``__all__`` are
the public API (docs/api.md lists them with their signatures), with the generated models in
:mod:`agentbeats_spec.models`; every other folder, and every module whose name starts with ``_``, is private.
A kind named as a literal gives a type checker its model: ``load(path, "agentcompass-attempt")`` is an
``AttemptResult``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._api import dump, dumps, from_dict, kinds, load, loads, redact, scan, schema, to_dict, validate
from .checking._kinds import Kind
from .vocabulary._issues import (
    ArtifactsUnavailable,
    InvalidDocument,
    Issue,
    SpecError,
    UnconvertibleAttempt,
    UnknownKind,
    WriteError,
)
from .vocabulary._settings import Limits
from .vocabulary._version import __version__

if TYPE_CHECKING:
    from .atif._files import from_atif, to_atif
    from .runs._reader import Run, TaskRef, iter_runs, open_run
    from .runs._tables import attempts_table, issues_table, steps_table, tasks_table
    from .tasks._detail import TaskSoFar, read_task, write_task
    from .tasks._migrate import migrate_run
    from .watching._watch import Watched, watch_run


def __getattr__(name: str) -> object:
    # Task records pull in the writers and the layouts; a one-file validation does not need them.
    if name in ("read_task", "write_task", "TaskSoFar"):
        from .tasks import _detail

        return getattr(_detail, name)
    if name in ("to_atif", "from_atif"):
        from .atif import _files

        return getattr(_files, name)
    if name in ("watch_run", "Watched"):
        from .watching import _watch

        return getattr(_watch, name)
    if name in ("open_run", "iter_runs", "Run", "TaskRef"):
        from .runs import _reader

        return getattr(_reader, name)
    if name in ("tasks_table", "attempts_table", "steps_table", "issues_table"):
        from .runs import _tables  # pyarrow is imported when a table is made, not here

        return getattr(_tables, name)
    if name == "migrate_run":
        from .tasks import _migrate

        return _migrate.migrate_run
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ArtifactsUnavailable",
    "InvalidDocument",
    "Issue",
    "Kind",
    "Limits",
    "Run",
    "SpecError",
    "TaskRef",
    "TaskSoFar",
    "UnconvertibleAttempt",
    "UnknownKind",
    "Watched",
    "WriteError",
    "__version__",
    "attempts_table",
    "dump",
    "dumps",
    "from_atif",
    "from_dict",
    "issues_table",
    "iter_runs",
    "kinds",
    "load",
    "loads",
    "migrate_run",
    "open_run",
    "read_task",
    "redact",
    "scan",
    "schema",
    "steps_table",
    "tasks_table",
    "to_atif",
    "to_dict",
    "validate",
    "watch_run",
    "write_task",
]
