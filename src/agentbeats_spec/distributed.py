"""Validation on an existing distributed engine: thousands of runs in object storage, checked on a cluster.

The unit of work is a plain, picklable function of a URL: :func:`check_unit` checks one task folder (with every
rule that ties its files together) or one artifact file. :func:`units` lists the units below a URL, and
:func:`validate_with_dask` maps :func:`check_unit` over a Dask bag. Files are read through fsspec, so any
filesystem it knows works (``s3://``, ``gs://``, ``file://``, plain local paths); a task folder on a remote
filesystem is copied to a temporary folder of the worker, checked there and its issues given back with their
remote URLs.

Needs the ``dask`` extra: ``pip install 'agentbeats-spec[dask]'``. What a single machine checks beyond the units
(a task filed under two states, unknown state folders, the ABV3 and ABB layouts) is left to
``agentbeats-spec validate`` on a local copy.
"""

from __future__ import annotations

import posixpath
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from ._issues import Issue
from ._limits import Limits, using

__all__ = ["check_unit", "units", "validate_with_dask"]

_STATES = ("running", "normal", "error", "fatal")
_ARTIFACT_SUFFIXES = (".json", ".toml", ".jsonl")


def _filesystem(url: str, storage_options: Mapping[str, Any] | None) -> tuple[Any, str]:
    try:
        import fsspec
    except ImportError as error:  # pragma: no cover - the extra is installed in the test environment
        raise ImportError(
            "agentbeats_spec.distributed needs the dask extra: pip install 'agentbeats-spec[dask]'"
        ) from error
    return fsspec.core.url_to_fs(url, **dict(storage_options or {}))  # type: ignore[no-any-return]


def units(url: str, storage_options: Mapping[str, Any] | None = None) -> list[str]:
    """The units of work below ``url``: every task folder of an AgentCompass run, and every other artifact file.

    A task folder is ``…/details/<state>/<task>/`` (or ``…/details/<task>/`` in the v2 layout); files inside one
    belong to it. Units are URLs of the same filesystem, sorted.
    """
    fs, root = _filesystem(url, storage_options)
    protocol = url.split("://", 1)[0] + "://" if "://" in url else ""
    found: set[str] = set()
    for path in fs.find(root):
        parts = path.split("/")
        if "details" in parts:
            at = len(parts) - 1 - parts[::-1].index("details")
            depth = 3 if at + 1 < len(parts) and parts[at + 1] in _STATES else 2
            if len(parts) > at + depth:
                found.add("/".join(parts[: at + depth]))
                continue
        if path.endswith(_ARTIFACT_SUFFIXES):
            found.add(path)
    return sorted(protocol + path if protocol and not path.startswith(protocol) else path for path in found)


def check_unit(url: str, storage_options: Mapping[str, Any] | None = None, limits: Limits | None = None) -> list[Issue]:
    """Every issue of one unit: a task folder (with its layout rules) or one artifact file."""
    from .layouts import check_paths

    fs, path = _filesystem(url, storage_options)
    if _is_local(fs):
        with using(limits):
            return list(check_paths([Path(path)]).issues)
    with tempfile.TemporaryDirectory(prefix="agentbeats-spec-") as folder:
        # Keep the last parts of the path (details/<state>/<task>), so that the task's place in its run is known.
        parts = path.rstrip("/").split("/")
        if len(parts) >= 3 and parts[-2] in _STATES and parts[-3] == "details":
            keep = parts[-3:]
        elif len(parts) >= 2 and parts[-2] == "details":
            keep = parts[-2:]
        else:
            keep = parts[-1:]
        local = Path(folder, *keep)
        local.parent.mkdir(parents=True, exist_ok=True)
        if fs.isdir(path):
            fs.get(path.rstrip("/") + "/", str(local), recursive=True)
        else:
            fs.get(path, str(local))
        # A run-level file copied alone has no run root beside it to tell its kind by: its name does.
        from . import _kinds
        from .layouts.agentcompass import RUN_FILES

        kind = _kinds.KINDS[RUN_FILES[local.name]] if local.name in RUN_FILES else None
        with using(limits):
            found = check_paths([local], kind).issues
        prefix = str(local)
        remote = posixpath.join(*parts) if not path.startswith("/") else path
        return [
            attrs.evolve(issue, file=_remote(issue.file, prefix, url, remote)) if issue.file else issue
            for issue in found
        ]


def _remote(file: str, prefix: str, url: str, remote: str) -> str:
    if not file.startswith(prefix):
        return file
    protocol = url.split("://", 1)[0] + "://" if "://" in url else ""
    tail = file[len(prefix) :].lstrip("/")
    joined = remote.rstrip("/") + ("/" + tail if tail else "")
    return joined if joined.startswith(protocol) else protocol + joined


def _is_local(fs: Any) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
    return "file" in protocol or "local" in protocol


def validate_with_dask(
    url: str,
    storage_options: Mapping[str, Any] | None = None,
    limits: Limits | None = None,
    npartitions: int | None = None,
    **compute: Any,
) -> list[Issue]:
    """Map :func:`check_unit` over the units below ``url`` with a Dask bag and gather the issues, sorted.

    ``compute`` goes to ``dask.compute`` (``scheduler="processes"``, say); with a ``distributed.Client``
    active, the bag runs on its cluster.
    """
    import dask.bag as bag

    found = units(url, storage_options)
    if not found:
        return []
    work = bag.from_sequence(found, npartitions=npartitions or min(len(found), 64))
    issues = work.map(check_unit, storage_options=storage_options, limits=limits).flatten().compute(**compute)
    return sorted(issues, key=Issue.sort_key)
