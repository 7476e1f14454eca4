"""Task records in the agentcompass.task.v3 layout: read one back, write one out the way the spec orders it."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import _api, _legacy, _redact, _write
from ._core import Collector
from ._issues import InvalidDocument, Issue, SpecError, UnconvertibleAttempt
from .layouts import agentcompass as layout

TASK_SCHEMA = "agentcompass.task.v3"
READABLE_SCHEMAS = ("agentcompass.task.v3", "agentcompass.task.v2")


def read_task(task_dir: str | os.PathLike[str]) -> Any:
    """The logical task detail record of one task folder, as a ``TaskDetail`` model.

    Attempt payloads come from each ``attempt-<n>/result.json``; ``retry_counts`` (sparse) and
    ``retry_count`` are derived from each attempt's stored ``retry_count``. An allocated attempt without a
    result is not an observation and is left out. Raises :class:`InvalidDocument` when the task folder has
    an error, or when the task has not published its shared metadata yet.

    A task of the previous layout (``agentcompass.task.v2``) is converted as AgentCompass 1.0.1 converts it on
    read, to the same record; an attempt it cannot convert raises :class:`UnconvertibleAttempt` (an
    :class:`InvalidDocument`), which names the attempt and says why.
    """
    folder = Path(task_dir)
    collector = Collector()
    files = layout.check_task(folder, collector)
    report = collector.report()
    legacy = files is not None and _version(files) == _legacy.TASK_V2
    if files is not None and legacy:
        _refuse_unconvertible(files, report.issues)
    if files is None or not report.valid:
        raise InvalidDocument(report.issues)
    index = files.index.document.data
    missing = [member for member in layout.SHARED if member not in index]
    if missing:
        raise InvalidDocument(
            [
                Issue(
                    str(folder / "task.json"),
                    "agentcompass-task",
                    "",
                    1,
                    1,
                    "error",
                    "layout.incomplete-task",
                    "the task has not finished: task.json has no " + ", ".join(missing),
                )
            ]
        )
    attempts: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for key in sorted(files.results, key=int):
        result = files.results[key]
        if result is None:
            continue
        payload = dict(result.document.data)
        count = payload.pop("retry_count", 0)
        if count:
            counts[key] = count
        if payload:
            attempts[key] = _legacy.convert(payload) if legacy else payload
    shared = _legacy.shape_shared(index) if legacy else index
    record = {
        "task_id": index["task_id"],
        "category": shared["category"],
        "ground_truth": shared["ground_truth"],
        "attempt_plan": shared["attempt_plan"],
        "retry_count": sum(counts.values()),
        "retry_counts": counts,
        "attempts": attempts,
    }
    return _api.from_dict("agentcompass-task-detail", record)


def _version(files: layout.TaskFiles) -> Any:
    data = files.index.document.data
    return data.get("schema_version") if files.index.document.readable and isinstance(data, dict) else None


def _refuse_unconvertible(files: layout.TaskFiles, issues: Sequence[Issue]) -> None:
    """Raise for the first attempt of a v2 task that AgentCompass 1.0.1 cannot convert (it refuses the task)."""
    for key in sorted(files.results, key=int):
        result = files.results[key]
        if result is None or not result.document.readable or not isinstance(result.document.data, dict):
            continue
        payload = {name: value for name, value in result.document.data.items() if name != "retry_count"}
        reason = _legacy.derived_issues(payload) if payload else []
        if isinstance(reason, str):
            raise UnconvertibleAttempt(key, reason, list(issues))


def write_task(run_dir: str | os.PathLike[str], record: Any) -> Path:
    """Write a task detail record into a run folder in the v3 layout; return the path of its ``task.json``.

    The order is the spec's: the attempt folders and the identity index first, then every attempt payload
    (each written atomically and fsynced), then the shared metadata, then the move from ``running`` to the
    state of the most severe issue. Credential fields are redacted, except in ``metrics``, ``ground_truth``
    and ``final_answer``. Each file is replaced atomically, so an interrupted write leaves every file either
    as it was or as it should be. ``record`` is a ``TaskDetail`` model or a mapping of the same shape.
    """
    if not hasattr(type(record), "__kind__"):
        record = _api.from_dict("agentcompass-task-detail", record)
    kind, checked = _api.checked(record)
    if kind.name != "agentcompass-task-detail":
        raise TypeError(f"write_task takes a task detail record, not {kind.name}")
    data = _redact.redact_task_detail(checked)
    root = Path(run_dir)
    details = root / "details"
    name = layout.task_folder_name(data["task_id"])
    task = _existing(details, name) or details / "running" / name
    task.mkdir(parents=True, exist_ok=True)
    index_path = task / "task.json"
    index = _identity(index_path, data["task_id"])

    for number in sorted(set(data["attempts"]) | set(data["retry_counts"]), key=int):
        directory = f"attempt-{number}"
        (task / directory).mkdir(exist_ok=True)
        if index["attempts"].get(number) != directory:
            index["attempts"][number] = directory
            _write.write_atomic(index_path, _write.serialize(index, "json"))
    for number, directory in index["attempts"].items():
        result = dict(data["attempts"].get(number, {}))
        result["retry_count"] = data["retry_counts"].get(number, 0)
        _write.write_atomic(task / directory / "result.json", _write.serialize(result, "json"))
    index.update({member: data[member] for member in layout.SHARED})
    index["schema_version"] = TASK_SCHEMA
    _write.write_atomic(index_path, _write.serialize(index, "json"))

    state = _state(data["attempts"])
    target = details / state / name
    if task != target:
        _move(task, target, root)
    return target / "task.json"


def _existing(details: Path, name: str) -> Path | None:
    for candidate in [*(details / state / name for state in layout.STATES), details / name]:
        if candidate.is_dir() and not candidate.is_symlink():
            return candidate
    return None


def _identity(path: Path, task_id: str) -> dict[str, Any]:
    if not path.exists():
        return {"schema_version": TASK_SCHEMA, "task_id": task_id, "attempts": {}}
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SpecError(f"{path}: the existing task index cannot be read ({error}); nothing was written") from None
    if (
        not isinstance(index, dict)
        or index.get("schema_version") not in READABLE_SCHEMAS
        or index.get("task_id") != task_id
        or not isinstance(index.get("attempts"), dict)
    ):
        raise SpecError(f"{path}: the existing task index is for another task or layout; nothing was written")
    return index


def _state(attempts: dict[str, Any]) -> str:
    severities = {
        issue.get("severity")
        for payload in attempts.values()
        for issue in payload.get("issues", [])
        if isinstance(issue, dict)
    }
    return "fatal" if "fatal" in severities else "error" if "error" in severities else "normal"


def _move(source: Path, target: Path, root: Path) -> None:
    """Move a task folder to another state, rewriting the run-relative artifact directories it stores."""
    if target.exists():
        raise SpecError(f"{target} already exists; the task has two result folders")
    old = Path(os.path.relpath(source, root)).as_posix() + "/"
    new = Path(os.path.relpath(target, root)).as_posix() + "/"
    for pattern in ("attempt-*/*.json", "attempt-*/retries/*.json", "attempt-*/retries/*/*.json"):
        for path in sorted(source.glob(pattern)):
            try:
                value = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue  # not ours to repair; the validator reports it
            moved = _relocate(value, old, new)
            if moved != value:
                _write.write_atomic(path, _write.serialize(moved, "json"))
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)


def _relocate(value: Any, old: str, new: str) -> Any:
    if isinstance(value, dict):
        return {
            key: new + item.removeprefix(old)
            if key == "directory" and isinstance(item, str) and item.startswith(old)
            else _relocate(item, old, new)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_relocate(item, old, new) for item in value]
    return value
