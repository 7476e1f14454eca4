"""A run read back as data: its run-level files as models, its tasks one at a time, every problem an issue.

Tasks are found as AgentCompass 1.0.1 files them (``details/<state>/<task>/``, and a v2 task directly in
``details/<task>/``) and listed from their identity index alone: no attempt payload is read until a task is
read, so memory does not grow with the number of tasks.

Every file is read as ``validate`` reads it (``reading._bounded.confined``): where the listing found it. The run
folder's real location is taken once, when it is opened (or listed, below a folder of runs); a folder of it is
opened in its parent's descriptor without following a link, and a task folder (or a folder above it) swapped for a
link after the listing is refused, an issue naming it, never followed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

import attrs

from .. import _api
from ..checking._sources import examine_named, members
from ..layouts import agentcompass as layout
from ..reading._bounded import confined, lstat, real_place
from ..records._states import FINAL_STATES, RUNNING, STATES
from ..tasks._detail import TaskRead, TaskSoFar, read_leniently, read_task_at
from ..units._fs import entries, is_file, is_folder, require
from ..vocabulary._codes import Severity
from ..vocabulary._issues import InvalidDocument, Issue
from ..vocabulary._kind_data import TASK_V2

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
    # Where the folder really was when it was listed (no link in it): it is read only there.
    real: str | None = attrs.field(default=None, repr=False, eq=False)

    @overload
    def read(self) -> TaskDetail | TaskSoFar: ...
    @overload
    def read(self, *, strict: Literal[True]) -> TaskDetail | TaskSoFar: ...
    @overload
    def read(self, *, strict: Literal[False]) -> TaskRead: ...
    @overload
    def read(self, *, strict: bool) -> TaskDetail | TaskSoFar | TaskRead: ...
    def read(self, *, strict: bool = True) -> TaskDetail | TaskSoFar | TaskRead:
        """The task's record: a ``TaskDetail`` (a v2 task converted as the 1.0.1 reader converts it), or, for a
        task that has not published its shared metadata yet, a :class:`TaskSoFar` of what it holds so far.
        Raises :class:`InvalidDocument` when the task folder has an error, or was swapped for a symbolic link
        since it was listed (``security.path-escape``: nothing of where the link leads is read).

        With ``strict=False``: a :class:`TaskRead`, the record as AgentCompass 1.0.1 reads it (plain JSON values)
        with every issue of the folder beside it, errors included; it raises only where that reader refuses the
        task too, or where reading it would follow a link."""
        real = self.real if self.real is not None else real_place(self.folder)
        if not strict:
            return read_leniently(self.folder, real)
        return read_task_at(self.folder, real, partial=True)


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
    # Where ``path`` really was when the run was opened (no link in it): its files are read only there.
    real: str | None = attrs.field(default=None, repr=False, kw_only=True)

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
        real = self.real if self.real is not None else real_place(self.path)
        collector = _Forward(self)
        # Each listing and each task's reads in a confinement of their own, entered and left between two yields:
        # a context variable set in a generator would leak into its caller's code.
        with confined(self.path, real):
            listing = entries(details, collector, self.path)
        states = {entry.name for entry in listing if entry.is_folder}
        for state in FINAL_STATES:
            if state in states:
                yield from self._state_folder(details / state, state, collector, real)
        for entry in listing:
            if entry.name in STATES and entry.is_folder:
                continue
            if entry.is_folder and is_file(entry.path / "task.json"):
                ref = self._ref(entry.path, None, real)
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
            yield from self._state_folder(details / RUNNING, RUNNING, collector, real)

    def task_folders(self) -> int:
        """How many task folders ``details/`` holds, by their names alone (no file read, no link followed)."""
        count = 0
        for entry in _folders_in(self.path / "details"):
            if entry.name in STATES:
                count += len(_folders_in(Path(entry.path)))
            elif os.path.isfile(os.path.join(entry.path, "task.json")):
                count += 1
        return count

    def _state_folder(self, folder: Path, state: str, collector: _Forward, real: str) -> Iterator[TaskRef]:
        with confined(self.path, real):
            listing = entries(folder, collector, self.path)
        for entry in listing:
            if entry.is_folder:
                ref = self._ref(entry.path, state, real)
                if ref is not None:
                    yield ref

    def _ref(self, folder: Path, state: str | None, run_real: str) -> TaskRef | None:
        real = os.path.join(run_real, os.path.relpath(folder, self.path))
        with confined(folder, real):
            return self._listed(folder, state, real)

    def _listed(self, folder: Path, state: str | None, real: str) -> TaskRef | None:
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
        results = all(isinstance(name, str) and _regular(folder / name / "result.json") for name in mapping.values())
        complete = published and placed and results
        return TaskRef(task_id=task_id, state=state, folder=folder, complete=complete, attempts=numbers, real=real)


def _folders_in(folder: Path) -> list[os.DirEntry[str]]:
    """The folders in a folder, links not followed; none when it cannot be listed (a count only: the reading
    reports it)."""
    try:
        with os.scandir(folder) as listing:
            return [entry for entry in listing if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _regular(path: Path) -> bool:
    """A regular file, seen where the listing saw its folder (never through a link)."""
    try:
        return stat.S_ISREG(lstat(path).st_mode)
    except OSError:  # a Refused one too: not a result that can be read
        return False


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
    return _opened(root, real_place(root), on_issue)


def _opened(root: Path, real: str, on_issue: OnIssue | None) -> Run:
    """The run at ``root``, which really was at ``real`` when it was found: every file is read only there."""
    run = Run(root, None, None, None, None, on_issue=on_issue, real=real)
    with confined(root, real):
        for attribute, name, kind in _RUN_FILES:
            file = root / name
            if not is_file(file):
                continue
            try:
                # load follows a link the user names; confined, the file must still be where the run is: a link
                # swapped in since is refused (security.path-escape), never followed
                setattr(run, attribute, _api.load(file, kind))
            except InvalidDocument as error:
                for issue in error.issues:
                    run.report(issue)
    return run


def iter_runs(folder: str | os.PathLike[str], *, on_issue: OnIssue | None = None) -> Iterator[Run]:
    """Every AgentCompass run at or below ``folder`` (a folder with ``details/`` or ``run_info.json``), in name
    order, each opened as :func:`open_run` opens it; a run's own folders are not searched for more runs.

    The folders are listed as ``validate`` lists them: a link among them is reported (``security.symlink``, or
    ``security.path-escape`` when it leads outside ``folder``) and never followed, and each run is read where
    the listing found it. ``folder`` itself a link is reported and nothing is read."""
    top = Path(folder)
    report = _Report(on_issue)
    if os.path.islink(top):
        report.about(top, "security.symlink", "symbolic link not followed, so no run was read")
        return
    top_real = real_place(top)
    pending = [top]
    while pending:
        current = pending.pop()
        real = top_real if current == top else os.path.join(top_real, os.path.relpath(current, top))
        if is_folder(current / "details") or is_file(current / "run_info.json"):
            yield _opened(current, real, on_issue)
            continue
        with confined(current, real):  # the folder itself, checked to be where it was found: no chain from the top
            listing = entries(current, report, top)
        pending.extend(reversed([entry.path for entry in listing if entry.is_folder]))


class _Report:
    """The listing's reports, to ``on_issue`` when given (a ``Reporter``)."""

    def __init__(self, on_issue: OnIssue | None) -> None:
        self.on_issue = on_issue

    def about(self, path: Path, code: str, message: str, severity: Severity = "error") -> None:
        if self.on_issue is not None:
            self.on_issue(Issue(file=str(path), severity=severity, code=code, message=message))
