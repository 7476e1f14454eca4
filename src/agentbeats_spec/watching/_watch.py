"""``watch_run``: check a run folder as its writer publishes it, then reconcile with ``validate`` on the end.

The watcher never has a checker of its own. It looks at the folder every ``settle`` seconds, with the planning's
own listing (:func:`_signature`: every entry ``lstat``-ed, no link followed or listed below, a folder that cannot
be listed recorded as such); each time the listing has stayed the same for ``settle`` seconds since it last
changed, it plans the folder as ``validate`` does (``application._tree_check.plan``, names only), runs the plan's
units whose files changed (``units._running.run_unit``) and assembles them with the layouts' rules across units
(``application._tree_check.assemble``). No
file-system watcher is used: one (watchfiles, inotify) follows links, so a link in the run to ``/`` or to its own
parent made it list the whole disk, hold a watch per folder there, or stop on a folder it could not read.

What is not yet published is left alone: a task under ``details/running/`` (AgentCompass 1.0.1 writes a task there
and moves it to its final state once its shared metadata is published), a unit holding a ``.tmp.*`` file, a
``progress.jsonl`` whose last line is not complete, and a unit whose files changed while it was read (it is read
again on the next quiet moment). When the run ends (``run_info.json`` records a ``finished_at`` other than the
one it held when the watch began), on ``stop`` or at ``timeout``, the finished tree is checked once more by
``layouts.check_paths``, the path of ``validate``, and what was reported is reconciled with it: an issue no
longer found is reported as fixed, one not yet reported is reported, so that in the end the issues reported and
not fixed are exactly those of ``validate``.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import attrs

from ..application._tree_check import assemble, check_paths, plan
from ..checking._collect import Part, Report
from ..reading._bounded import open_regular, read_file
from ..reading._documents import load_json
from ..records._states import RUNNING
from ..units._plan import Unit, UnitPlan
from ..units._running import run_unit
from ..vocabulary._issues import Issue
from ..vocabulary._settings import current

# The names a writer gives a file before its atomic rename (AgentCompass 1.0.1: ".tmp.<name>.<hex>",
# ".<name>.<hex>.tmp"): never read.
TEMPORARY = re.compile(r"^\.tmp\.|^\..*\.tmp$")
PROGRESS_EVENTS = "progress.jsonl"
SETTLE = 0.2  # seconds without a change before the folder is read
# At most this share of the time goes to listing the folder: a run too big to list every ``settle`` seconds is
# looked at less often (a listing that takes 0.1 s is made every 0.5 s).
LOOKING_SHARE = 0.2

Ending = Literal["finished", "stopped", "timeout"]
IssueKey = tuple[Any, ...]


@attrs.frozen
class Watched:
    """How a watch ended: ``report`` is what ``validate`` gives on the tree as it was then; ``reported`` every issue
    reported while watching (in order), ``fixed`` those a later write fixed."""

    ending: Ending
    report: Report
    reported: tuple[Issue, ...]
    fixed: tuple[Issue, ...]


def key(issue: Issue) -> IssueKey:
    """What makes an issue the same issue when it is found again."""
    return (issue.file, issue.pointer, issue.line, issue.column, issue.severity, issue.code, issue.message)


def watch_run(
    path: str | os.PathLike[str],
    on_issue: Callable[[Issue], None] | None = None,
    *,
    on_fixed: Callable[[Issue], None] | None = None,
    stop: threading.Event | None = None,
    timeout: float | None = None,
    force_polling: bool | None = None,
    settle: float = SETTLE,
) -> Watched:
    """Watch the run folder ``path`` until the run ends (or ``stop`` is set, or ``timeout`` seconds pass), calling
    ``on_issue`` with each issue when it is found and ``on_fixed`` with each reported issue a later write fixed.

    The folder is polled with the planning's own listing, which never follows a link (``force_polling`` is accepted
    for compatibility and changes nothing). Ctrl-C (KeyboardInterrupt) ends the watch as ``stop`` does.
    """
    path = Path(path)
    watcher = _Watcher(path, on_issue or _ignore, on_fixed or _ignore)
    stop = stop or threading.Event()
    deadline = None if timeout is None else time.monotonic() + timeout
    ending: Ending = "stopped"
    begun = _finished_at(path)
    seen: Signature | None = None  # the listing at the last look
    read: Signature | None = None  # the listing when the folder was last read
    try:
        while not stop.is_set():
            if deadline is not None and time.monotonic() >= deadline:  # even while the writer never pauses
                ending = "timeout"
                break
            started = time.monotonic()
            listed = _signature(path)
            took = time.monotonic() - started
            if listed == seen and listed != read:  # quiet for a whole look since it changed: read it
                read = listed
                watcher.tick()
                if _ended(path, begun):
                    ending = "finished"
                    break
            seen = listed
            pause = max(settle, took / LOOKING_SHARE)
            if deadline is not None:
                pause = max(0.0, min(pause, deadline - time.monotonic()))
            stop.wait(pause)
    except KeyboardInterrupt:
        ending = "stopped"
    return watcher.finish(ending)


def _ignore(issue: Issue) -> None:
    pass


def _finished_at(root: Path) -> object:
    """The end of the run run_info.json records (None: none yet, or no readable run_info.json)."""
    try:
        # never through a link, never blocking on a FIFO, never more than the size limit, never deeper than
        # --max-depth: as validate reads it
        data = load_json(read_file(root / "run_info.json"))
    except (OSError, ValueError):
        return None
    return data.get("finished_at") if isinstance(data, dict) else None


def _ended(root: Path, begun: object) -> bool:
    """Whether run_info.json records an end the run had not when the watch began (a resumed run keeps the end of
    its earlier pass until write_terminal_status writes the new one)."""
    found = _finished_at(root)
    return found is not None and found != begun


Signature = tuple[tuple[str, int, int, int], ...]


class _Watcher:
    def __init__(self, root: Path, on_issue: Callable[[Issue], None], on_fixed: Callable[[Issue], None]) -> None:
        self.root = root
        self.on_issue = on_issue
        self.on_fixed = on_fixed
        self.parts: dict[tuple[str, str], tuple[Signature, Part]] = {}
        self.shown: dict[IssueKey, Issue] = {}
        self.reported: list[Issue] = []
        self.fixed: list[Issue] = []

    def tick(self) -> None:
        """Read what changed and is published; report what is new and what was fixed (only from a look at rest)."""
        planned = plan([self.root]).placed(self.root)
        settings = current()
        parts: list[Part] = []
        kept: dict[tuple[str, str], tuple[Signature, Part]] = {}
        settled = True
        for unit in planned.units:
            if self._unpublished(unit):
                continue
            name = (str(unit.path), getattr(unit.check, "__qualname__", ""))
            before = _signature(unit.path)
            if before is None or not _published(unit.path, before):
                settled = settled and before is not None  # a temporary file left by a crash must not stop all
                if name in self.parts:  # what it was when last at rest
                    kept[name] = self.parts[name]
                    parts.append(self.parts[name][1])
                continue
            found = self.parts.get(name)
            if found is None or found[0] != before:
                part = run_unit(unit, settings)
                if _signature(unit.path) != before:  # written while it was read: read again once at rest
                    settled = False
                    if found is not None:
                        kept[name] = found
                        parts.append(found[1])
                    continue
                found = (before, part)
            kept[name] = found
            parts.append(found[1])
        self.parts = kept
        if not settled:
            return
        report = assemble(self._published_plan(planned), parts)
        self._reconcile(report.issues)

    def _unpublished(self, unit: Unit) -> bool:
        """A task folder under details/running/: still being written (1.0.1 moves it once it is published)."""
        return unit.path.parent.name == RUNNING and unit.path.parent.parent.name == "details"

    def _published_plan(self, planned: UnitPlan) -> UnitPlan:
        """The plan without what its listing found on a file in the middle of a write (a temporary file) or on a
        task still running; the final check reports what is left of them."""
        issues = [issue for issue in planned.issues if issue.file is None or _settled_name(Path(issue.file))]
        return UnitPlan(planned.tree, planned.units, issues, planned.skipped)

    def _reconcile(self, issues: tuple[Issue, ...] | list[Issue]) -> None:
        found = {key(issue): issue for issue in issues}
        for name, issue in list(self.shown.items()):
            if name not in found:
                del self.shown[name]
                self.fixed.append(issue)
                self.on_fixed(issue)
        for name, issue in found.items():
            if name not in self.shown:
                self.shown[name] = issue
                self.reported.append(issue)
                self.on_issue(issue)

    def finish(self, ending: Ending) -> Watched:
        """The check of ``validate`` on the tree as it is now, and what was reported reconciled with it."""
        report = check_paths([self.root])
        self._reconcile(report.issues)
        return Watched(ending, report, tuple(self.reported), tuple(self.fixed))


def _settled_name(path: Path) -> bool:
    parts = path.parts
    return not TEMPORARY.match(path.name) and not any(
        parts[index] == "details" and parts[index + 1] == RUNNING for index in range(len(parts) - 1)
    )


def _signature(path: Path) -> Signature | None:
    """Every entry below ``path`` (or ``path`` itself, a file) with its inode, size, change and modification
    times, as planning lists it: ``lstat``, so no link is followed and nothing below a link is listed. A folder
    that cannot be listed is an entry of its own (its error number in place of the size), so that a folder made
    unreadable, or readable again, is a change like any other. None when ``path`` itself is gone."""
    try:
        own = os.lstat(path)
    except OSError:
        return None
    found: list[tuple[str, int, int, int]] = [("", own.st_ino, own.st_size, _changed(own))]
    if not stat.S_ISDIR(own.st_mode):
        return tuple(found)
    stack = [""]
    while stack:
        relative = stack.pop()
        try:
            with os.scandir(os.path.join(path, relative) if relative else path) as listing:
                for entry in listing:
                    name = os.path.join(relative, entry.name) if relative else entry.name
                    try:
                        status = entry.stat(follow_symlinks=False)
                    except OSError as error:  # gone since the listing: the next look sees it gone
                        found.append((name, 0, -(error.errno or 1), 0))
                        continue
                    found.append((name, status.st_ino, status.st_size, _changed(status)))
                    if stat.S_ISDIR(status.st_mode):
                        stack.append(name)
        except OSError as error:
            found.append((relative + os.sep, 0, -(error.errno or 1), 0))
    return tuple(sorted(found))


def _changed(status: os.stat_result) -> int:
    """When an entry last changed: its modification or its status change, whichever is later (an in-place
    rewrite that restored the modification time still moves the change time)."""
    return max(status.st_mtime_ns, status.st_ctime_ns)


def _published(path: Path, signature: Signature) -> bool:
    """Whether what ``path`` holds is all published: no temporary file of a write in progress in it, and a
    progress.jsonl ends with a complete line (the 1.0.1 sink appends each event in more than one write)."""
    if any(TEMPORARY.match(os.path.basename(name)) for name, _, _, _ in signature if name):
        return False
    if path.name == PROGRESS_EVENTS and signature[0][2] > 0:
        try:
            with open_regular(path) as descriptor:  # a link or a FIFO planted there is not waited on
                return os.pread(descriptor, 1, os.fstat(descriptor).st_size - 1) == b"\n"
        except OSError:
            return False
    return True
