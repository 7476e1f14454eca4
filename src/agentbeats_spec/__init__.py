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

import importlib
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

# The names imported on first use, each with the module that defines it (relative to this package): the one list
# of them. Task records pull in the writers and the layouts, watching the layouts, the run reader the task
# records, the tables pyarrow (when a table is made), the ATIF conversion its own modules: a one-file validation
# needs none of them. The imports below tell a type checker the same names (a test holds them to this map).
_LAZY = {
    "read_task": ".tasks._detail",
    "write_task": ".tasks._detail",
    "TaskSoFar": ".tasks._detail",
    "TaskRead": ".tasks._detail",
    "migrate_run": ".tasks._migrate",
    "to_atif": ".atif._files",
    "from_atif": ".atif._files",
    "watch_run": ".watching._watch",
    "Watched": ".watching._watch",
    "open_run": ".runs._reader",
    "iter_runs": ".runs._reader",
    "Run": ".runs._reader",
    "TaskRef": ".runs._reader",
    "score_run": ".runs._scores",
    "tasks_table": ".runs._tables",
    "attempts_table": ".runs._tables",
    "steps_table": ".runs._tables",
    "issues_table": ".runs._tables",
}

if TYPE_CHECKING:
    from .atif._files import from_atif, to_atif
    from .runs._reader import Run, TaskRef, iter_runs, open_run
    from .runs._scores import score_run
    from .runs._tables import attempts_table, issues_table, steps_table, tasks_table
    from .tasks._detail import TaskRead, TaskSoFar, read_task, write_task
    from .tasks._migrate import migrate_run
    from .watching._watch import Watched, watch_run


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)


__all__ = [
    "ArtifactsUnavailable",
    "InvalidDocument",
    "Issue",
    "Kind",
    "Limits",
    "Run",
    "SpecError",
    "TaskRead",
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
    "score_run",
    "steps_table",
    "tasks_table",
    "to_atif",
    "to_dict",
    "validate",
    "watch_run",
    "write_task",
]
