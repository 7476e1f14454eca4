"""A run read back as data: its run-level files as models, its tasks one at a time, every problem an issue.

Tasks are found as AgentCompass 1.0.1 files them (``details/<state>/<task>/``, and a v2 task directly in
``details/<task>/``) and listed from their identity index alone: no attempt payload is read until a task is
read, so memory does not grow with the number of tasks.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from .. import _api
from .._codes import Severity
from .._issues import InvalidDocument, Issue
from ..checking._sources import examine_named, members
from ..layouts import agentcompass as layout
from ..records._states import FINAL_STATES, RUNNING, STATES
from ..records._versions import TASK_V2
from ..tasks._detail import TaskSoFar, read_task
from ..walk._fs import entries, is_file, is_folder, require

if TYPE_CHECKING:
    from ..models import MetricReport, ProgressSnapshot, RunInfo, RunInfoV2, RunParams, TaskDetail

OnIssue = Callable[[Issue], None]


@attrs.frozen(kw_only=True)
class TaskRef:
    """One task of a run, as its folder and identity index tell it; :meth:`read` reads its attempts.

    ``state`` is its state folder (``None`` for a v2 task filed directly in ``details/``); ``complete`` is
    whether AgentCompass 1.0.1 reads it as a published result (a final state or the v2 place, its shared
    metadata published, every mapped attempt with a ``result.json``); ``attempts`` the attempt numbers its index
    maps, in order.
    """

    task_id: str
    state: str | None
    folder: Path
    complete: bool
    attempts: tuple[int, ...]

    def read(self) -> TaskDetail | TaskSoFar:
        """The task's record: a ``TaskDetail`` (a v2 task converted as the 1.0.1 reader converts it), or, for a
        task that has not published its shared metadata yet, a :class:`TaskSoFar` of what it holds so far.
        Raises :class:`InvalidDocument` when the task folder has an error."""
        return read_task(self.folder, partial=True)


@attrs.define
class Run:
    """One AgentCompass run folder. The run-level files are read when the run is opened (each ``None`` when it
    is absent or invalid: an invalid one is reported); the tasks when :meth:`tasks` is iterated."""

    path: Path
    info: RunInfo | RunInfoV2 | None
    params: RunParams | None
    metrics: MetricReport | None
    progress: ProgressSnapshot | None
    issues: list[Issue] = attrs.field(factory=list)
    on_issue: OnIssue | None = attrs.field(default=None, repr=False)

    @property
    def run_id(self) -> str | None:
        return self.info.run_id if self.info is not None else None

    def report(self, issue: Issue) -> None:
        """An issue met while reading: to ``on_issue`` when the run was opened with one, else kept in ``issues``."""
        if self.on_issue is not None:
            self.on_issue(issue)
        else:
            self.issues.append(issue)

    def tasks(self) -> Iterator[TaskRef]:
        """The run's tasks in a stable order: those of ``normal/``, ``error/`` and ``fatal/`` (the order the
        1.0.1 reader lists results in), then v2 tasks directly in ``details/``, then ``running/``; each state
        folder sorted by name. A task folder whose index cannot be read is reported and left out."""
        details = self.path / "details"
        if not is_folder(details):
            return
        collector = _Forward(self)
        listing = entries(details, collector, self.path)
        states = {entry.name for entry in listing if entry.is_folder}
        for state in FINAL_STATES:
            if state in states:
                yield from self._state_folder(details / state, state, collector)
        for entry in listing:
            if entry.name in STATES and entry.is_folder:
                continue
            if entry.is_folder and is_file(entry.path / "task.json"):
                ref = self._ref(entry.path, None)
                if ref is not None:
                    yield ref
            elif entry.is_folder:  # said as the layout says it; its tasks, if any, are not where a reader looks
                message = f"{entry.name!r} is not a task state; expected one of {', '.join(STATES)}"
                collector.about(entry.path, "layout.unknown-state", message)
            else:
                collector.about(
                    entry.path, "layout.unexpected-entry", "only state folders belong in details/", "warning"
                )
        if RUNNING in states:
            yield from self._state_folder(details / RUNNING, RUNNING, collector)

    def _state_folder(self, folder: Path, state: str, collector: _Forward) -> Iterator[TaskRef]:
        for entry in entries(folder, collector, self.path):
            if entry.is_folder:
                ref = self._ref(entry.path, state)
                if ref is not None:
                    yield ref

    def _ref(self, folder: Path, state: str | None) -> TaskRef | None:
        index_path = folder / "task.json"
        if not require(index_path, "file", _Forward(self), folder, "a task folder holds task.json; this one has none"):
            return None
        examined = examine_named(index_path, layout.TASK)
        data = members(examined) or {}
        mapping = data.get("attempts")
        task_id = data.get("task_id")
        if not examined.valid or not isinstance(task_id, str) or not isinstance(mapping, dict):
            for issue in examined.issues:
                self.report(issue)
            return None
        numbers = tuple(sorted(int(key) for key in mapping if isinstance(key, str) and key.isdigit()))
        published = all(member in data for member in layout.SHARED)
        placed = state in FINAL_STATES or (state is None and data.get("schema_version") == TASK_V2)
        results = all(isinstance(name, str) and is_file(folder / name / "result.json") for name in mapping.values())
        return TaskRef(
            task_id=task_id, state=state, folder=folder, complete=published and placed and results, attempts=numbers
        )


class _Forward:
    """The listing's reports (links, unreadable folders), passed on to the run as they come (a ``Reporter``)."""

    def __init__(self, run: Run) -> None:
        self.run = run

    def about(self, path: Path, code: str, message: str, severity: Severity = "error") -> None:
        self.run.report(Issue(file=str(path), severity=severity, code=code, message=message))


_RUN_FILES = (
    ("info", "run_info.json", "agentcompass-run-info"),
    ("params", "params.json", "agentcompass-params"),
    ("metrics", "metrics.json", "agentcompass-metrics"),
    ("progress", "progress.json", "agentcompass-progress"),
)


def open_run(path: str | os.PathLike[str], *, on_issue: OnIssue | None = None) -> Run:
    """Open one AgentCompass run folder: its run-level files read and checked, its tasks listed on demand.

    ``run.info``, ``run.params``, ``run.metrics`` and ``run.progress`` are the models of ``run_info.json``,
    ``params.json``, ``metrics.json`` and ``progress.json``, ``None`` when the file is absent; a file with an
    error is ``None`` too, and its issues are reported. Every problem met, then and while iterating
    :meth:`Run.tasks`, goes to ``on_issue`` when given, else into ``run.issues``; nothing is skipped silently.
    Raises :class:`NotADirectoryError` when ``path`` is not a folder.
    """
    root = Path(path)
    if not is_folder(root):
        raise NotADirectoryError(f"not a run folder: {root}")
    run = Run(root, None, None, None, None, on_issue=on_issue)
    for attribute, name, kind in _RUN_FILES:
        file = root / name
        if not is_file(file):
            continue
        try:
            setattr(run, attribute, _api.load(file, kind))
        except InvalidDocument as error:
            for issue in error.issues:
                run.report(issue)
    return run


def iter_runs(folder: str | os.PathLike[str], *, on_issue: OnIssue | None = None) -> Iterator[Run]:
    """Every AgentCompass run at or below ``folder`` (a folder with ``details/`` or ``run_info.json``), in name
    order, each opened as :func:`open_run` opens it; a run's own folders are not searched for more runs."""
    pending = [Path(folder)]
    while pending:
        current = pending.pop()
        if is_folder(current / "details") or is_file(current / "run_info.json"):
            yield open_run(current, on_issue=on_issue)
            continue
        try:
            names = sorted(os.listdir(current))
        except OSError as error:
            reason = f"cannot read: {error.strerror or error}"
            issue = Issue(file=str(current), severity="error", code="io.unreadable", message=reason)
            if on_issue is not None:
                on_issue(issue)
            continue
        pending.extend(reversed([current / name for name in names if is_folder(current / name)]))
