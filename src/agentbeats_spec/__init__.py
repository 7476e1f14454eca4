"""Validation of the files that agent assessments produce.

>>> import agentbeats_spec
>>> issues = agentbeats_spec.validate(pathlib.Path("run/details/normal/t--1f0e.../task.json"))

Every problem is an :class:`Issue` with a JSON Pointer, a line and a column. The names in
``__all__`` are the public API; everything in a module whose name starts with ``_`` is private.
"""

from __future__ import annotations

import copy
from typing import Any

from ._core import check_source
from ._issues import InvalidDocument, Issue, SpecError, UnknownKind
from ._kinds import KINDS, Kind
from ._kinds import get as _get_kind
from ._schemas import documents as _documents
from ._version import __version__

__all__ = [
    "InvalidDocument",
    "Issue",
    "Kind",
    "SpecError",
    "UnknownKind",
    "__version__",
    "kinds",
    "schema",
    "validate",
]


def validate(source: Any, kind: str | None = None) -> list[Issue]:
    """Every issue of ``source``, sorted by file and position; an empty list means valid.

    ``source`` is a path (``pathlib.Path`` or any ``os.PathLike``: a file, or a folder whose
    artifacts are all checked), the text or bytes of one document, or an already parsed mapping.
    ``kind`` names the artifact kind (see :func:`kinds`) when its name or content cannot tell.
    Warnings are issues too: check ``issue.severity``.
    """
    return list(check_source(source, kind).issues)


def schema(kind: str, version: str | None = None) -> dict[str, Any]:
    """The JSON Schema of a kind (its newest version unless ``version`` is given), as a new dict."""
    found = _get_kind(kind)
    if version is None:
        schema_id = found.latest
    elif version in found.versions:
        schema_id = found.versions[version]
    else:
        raise UnknownKind(f"{kind} {version}", [f"{kind} {known}" for known in found.versions])
    return copy.deepcopy(_documents()[schema_id])


def kinds() -> tuple[Kind, ...]:
    """Every artifact kind the package knows, with its file patterns and schema versions."""
    return tuple(KINDS.values())
