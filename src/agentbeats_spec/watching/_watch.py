"""``watch_run``: check a run folder as its writer publishes it, then reconcile with ``validate`` on the end.

The watcher never has a checker of its own. It looks at the folder every ``settle`` seconds with the planning's
own kind of listing (``lstat`` only, no link followed or listed below, a folder that cannot be listed recorded as
such), and keeps what it saw (:class:`_Listing`): a look ``lstat``s the entries near the root (where a writer
publishes: the run-level files, ``details/`` and its state folders), lists again only the folders whose own
``lstat`` changed, and ``lstat``s a bounded share of the rest in turn (``SWEEP`` entries a look), so that a look
costs what changed, not the size of the run. What changed is mapped to the units of the plan it keeps: the folder
is planned again (``application._tree_check.plan``, names only) only when a change lies outside every unit, and
only the units whose files changed, and then stayed the same for a look, are run (``units._running.run_unit``)
and assembled with the layouts' rules across units (``application._tree_check.assemble``), at most as often as
keeps that work within ``WORKING_SHARE`` of the time. No file-system watcher is used: one (watchfiles, inotify)
follows links, so a link in the run to ``/`` or to its own parent made it list the whole disk, hold a watch per
folder there, or stop on a folder it could not read.

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
from typing import TYPE_CHECKING, Any, Literal

import attrs

from ..application._tree_check import assemble, check_paths, plan
from ..checking._collect import Part, Report
from ..layouts.agentcompass import task_unit
from ..reading._bounded import open_regular, read_file
from ..reading._documents import load_json
from ..records._states import RUNNING
from ..units._plan import Unit, UnitPlan
from ..units._running import run_unit
from ..vocabulary._issues import Issue
from ..vocabulary._settings import current

if TYPE_CHECKING:
    from ..units._cache import Survey

# The names a writer gives a file before its atomic rename (AgentCompass 1.0.1: ".tmp.<name>.<hex>",
# ".<name>.<hex>.tmp"): never read.
TEMPORARY = re.compile(r"^\.tmp\.|^\..*\.tmp$")
PROGRESS_EVENTS = "progress.jsonl"
SETTLE = 0.2  # seconds between looks, and without a change before a unit is read
# At most this share of the time goes to reading what changed and assembling the report: a run whose report takes
# 50 ms to assemble is assembled at most once a second (its looks stay every ``settle`` seconds).
WORKING_SHARE = 0.05
# The entries a look lstat's besides those near the root, in turn: a change deep in a published task folder (which
# AgentCompass 1.0.1 never makes: it publishes a task by a rename into its state folder) is seen within
# entries / SWEEP looks, and the check at the end sees every change.
SWEEP = 100

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


@attrs.frozen
class Looked:
    """What the watch has seen so far, for a status line: the task folders of the run (in any state), those whose
    files as they are now were checked, and whether the run folder exists yet."""

    tasks: int
    checked: int
    exists: bool


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
    A folder that does not exist yet is waited for (AgentCompass creates the run folder itself).

    The folder is polled with the planning's own listing, which never follows a link (``force_polling`` is accepted
    for compatibility and changes nothing). Ctrl-C (KeyboardInterrupt) ends the watch as ``stop`` does.
    """
    return watching(path, on_issue, on_fixed=on_fixed, stop=stop, timeout=timeout, settle=settle)


def watching(
    path: str | os.PathLike[str],
    on_issue: Callable[[Issue], None] | None = None,
    *,
    on_fixed: Callable[[Issue], None] | None = None,
    on_look: Callable[[Looked], None] | None = None,
    stop: threading.Event | None = None,
    timeout: float | None = None,
    settle: float = SETTLE,
    patient: bool = False,
) -> Watched:
    """:func:`watch_run`, with ``on_look`` called after each look (the command's status line); ``patient``: a task
    folder is read only once its files are old enough for its verdict to be kept (``units._cache``: not racy,
    three seconds), so that the check at the end reads it again only if it changed (the command's choice: a
    report a few seconds later, and each task read once)."""
    path = Path(path)
    watcher = _Watcher(path, on_issue or _ignore, on_fixed or _ignore, patient)
    stop = stop or threading.Event()
    deadline = None if timeout is None else time.monotonic() + timeout
    ending: Ending = "stopped"
    begun = _finished_at(path)
    listing = _Listing(path)
    due = 0.0  # the monotonic time before which the watcher does not work again (WORKING_SHARE)
    try:
        while not stop.is_set():
            if deadline is not None and time.monotonic() >= deadline:  # even while the writer never pauses
                ending = "timeout"
                break
            watcher.changed(*listing.look())
            if watcher.run_info_changed and _ended(path, begun):
                ending = "finished"
                break
            if watcher.waiting() and time.monotonic() >= due:
                started = time.monotonic()
                watcher.tick()
                due = time.monotonic() + (time.monotonic() - started) / WORKING_SHARE
            if on_look is not None:
                on_look(watcher.looked(listing.exists()))
            pause = settle if deadline is None else max(0.0, min(settle, deadline - time.monotonic()))
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
Stat = tuple[bool, int, int, int]  # a folder?, inode, size, change time
UnitKey = tuple[str, str]  # a unit's path and its check's name


class _Listing:
    """The run's entries as the previous look left them (``lstat``, no link followed), and what changed since.

    A look ``lstat``s the entries near the root (the root, what it holds, and the folders its folders hold: where
    AgentCompass publishes), lists again a folder whose own ``lstat`` changed (an entry made, removed or renamed in
    it) and checks each entry whose inode the new listing shows different, and ``lstat``s ``SWEEP`` of the other
    entries in turn, so that an in-place change anywhere is seen within a bounded number of looks.
    """

    def __init__(self, root: Path) -> None:
        self.root = os.fspath(root)
        self.stats: dict[str, Stat] = {}  # by path relative to the root ("": the root)
        self.names: dict[str, dict[str, int]] = {}  # a folder's entries, each with its inode
        self.turn: list[str] = []  # what the sweep has still to lstat this round

    def exists(self) -> bool:
        return "" in self.stats

    def look(self) -> tuple[set[str], set[str]]:
        """The entries made or removed (or turned from file to folder), and those otherwise changed, since the
        previous look (relative paths)."""
        moved: set[str] = set()
        modified: set[str] = set()
        near = [""]
        for name in self.names.get("", {}):
            near.append(name)
            near.extend(
                below for child in self.names.get(name, {}) if (below := os.path.join(name, child)) in self.names
            )
        self._update(near, moved, modified)
        if not self.turn:
            self.turn = list(self.stats)
        sweep = self.turn[-SWEEP:]
        del self.turn[-SWEEP:]
        self._update([relative for relative in sweep if relative in self.stats], moved, modified)
        return moved, modified

    def _update(self, relatives: list[str], moved: set[str], modified: set[str]) -> None:
        stack = list(relatives)  # a stack, not recursion: a tree may be nested deeper than Python's call stack
        while stack:
            relative = stack.pop()
            try:
                status = os.lstat(os.path.join(self.root, relative) if relative else self.root)
            except OSError:
                if relative in self.stats:
                    self._forget(relative, moved)
                continue
            new = (stat.S_ISDIR(status.st_mode), status.st_ino, status.st_size, _changed(status))
            old = self.stats.get(relative)
            if new == old:
                continue
            self.stats[relative] = new
            (moved if old is None or old[0] != new[0] else modified).add(relative)
            if new[0]:
                stack.extend(self._listed(relative, moved))
            elif relative in self.names:
                self._forget_below(relative, moved)

    def _listed(self, folder: str, moved: set[str]) -> list[str]:
        """List ``folder`` again: forget what left it, and return the entries new to it or replaced in it."""
        found: dict[str, int] = {}
        try:
            with os.scandir(os.path.join(self.root, folder) if folder else self.root) as listing:
                for entry in listing:
                    found[entry.name] = entry.inode()
        except OSError:
            found = {}  # a folder that cannot be listed holds nothing the watch can see; its lstat says when it can
        before = self.names.get(folder, {})
        self.names[folder] = found
        for name in before.keys() - found.keys():
            self._forget(os.path.join(folder, name) if folder else name, moved)
        return [os.path.join(folder, name) if folder else name for name, inode in found.items()
                if before.get(name) != inode]  # fmt: skip

    def _forget(self, relative: str, moved: set[str]) -> None:
        self.stats.pop(relative, None)
        moved.add(relative)
        self._forget_below(relative, moved)

    def _forget_below(self, relative: str, moved: set[str]) -> None:
        stack = [relative]
        while stack:
            folder = stack.pop()
            for name in self.names.pop(folder, {}):
                below = os.path.join(folder, name) if folder else name
                self.stats.pop(below, None)
                moved.add(below)
                stack.append(below)


class _Remembered:
    """The parts the watch read, kept for the check at the end as validate's verdict cache keeps them (the same
    interface, ``units._running.run_here``): under the unit, its arguments and the ``lstat`` of everything below its
    folder, never for a racy folder (one changed in the last seconds, which may change again unseen)."""

    def __init__(self) -> None:
        self.parts: dict[str, Part] = {}

    def key(self, unit: Callable[..., object], arguments: tuple[object, ...], seen: Survey | None) -> str | None:
        if seen is None or seen.racy:
            return None
        return f"{unit.__module__}.{unit.__qualname__}\0{arguments!r}\0{seen.signature.hex()}"

    def get(self, key: str) -> Part | None:
        return self.parts.get(key)

    def put(self, key: str, part: Part) -> None:
        self.parts[key] = part


class _Watcher:
    def __init__(
        self, root: Path, on_issue: Callable[[Issue], None], on_fixed: Callable[[Issue], None], patient: bool
    ) -> None:
        self.root = root
        self.on_issue = on_issue
        self.on_fixed = on_fixed
        self.patient = patient
        self.planned: UnitPlan | None = None
        self.units: dict[UnitKey, Unit] = {}  # the plan's units, in its order
        self.by_path: dict[str, list[UnitKey]] = {}  # the units of each path relative to the root
        self.replan = True
        self.dirty: set[UnitKey] = set()  # the units whose files changed since they were last read
        self.seen: dict[UnitKey, object] = {}  # each dirty unit's signature when last looked at
        self.ready: dict[UnitKey, int] = {}  # patient: when a dirty unit is old enough to be read (ns since 1970)
        self.parts: dict[UnitKey, tuple[object, Part]] = {}
        self.remembered = _Remembered()
        self.run_info_changed = False
        self.shown: dict[IssueKey, Issue] = {}
        self.reported: list[Issue] = []
        self.fixed: list[Issue] = []

    def changed(self, moved: set[str], modified: set[str]) -> None:
        """Mark the units that hold what changed; a change outside every unit, or of a unit itself made or
        removed, plans the folder again."""
        self.run_info_changed = "run_info.json" in moved or "run_info.json" in modified
        for relative in moved:
            owner = self._owner(relative, strictly=True)
            if owner is None:
                self.replan = True
            else:
                self.dirty.update(self.by_path[owner])
        for relative in modified:
            owner = self._owner(relative, strictly=False)
            if owner is not None:
                self.dirty.update(self.by_path[owner])

    def _owner(self, relative: str, strictly: bool) -> str | None:
        """The path of the unit ``relative`` lies in (``strictly``: below it, not the unit itself; the root, made or
        removed, lies in none: the folder is planned again)."""
        if strictly and not relative:
            return None
        here = os.path.dirname(relative) if strictly else relative
        while True:
            if here in self.by_path:
                return here
            if not here:
                return None
            here = os.path.dirname(here)

    def waiting(self) -> bool:
        """Whether something changed that the watch has not read yet."""
        return self.replan or bool(self.dirty)

    def looked(self, exists: bool) -> Looked:
        tasks = [key for key, unit in self.units.items() if unit.check is task_unit]
        return Looked(len(tasks), sum(key in self.parts for key in tasks), exists)

    def _plan(self) -> None:
        planned = plan([self.root]).placed(self.root)
        units = {(str(unit.path), getattr(unit.check, "__qualname__", "")): unit for unit in planned.units}
        spelled = str(self.root)
        self.by_path = {}
        for key in units:
            relative = "" if key[0] == spelled else key[0][len(spelled) + 1 :]
            self.by_path.setdefault(relative, []).append(key)
        self.dirty = {key for key in self.dirty if key in units} | (units.keys() - self.units.keys())
        self.parts = {key: found for key, found in self.parts.items() if key in units}
        self.units, self.planned, self.replan = units, planned, False

    def tick(self) -> None:
        """Read what changed, is published and stayed the same for a look; report what is new and what was fixed
        (only when nothing read was caught in the middle of a write)."""
        from ..units._cache import RACY_NANOSECONDS, survey  # lazy: hashlib and tempfile, for watch alone

        changed = self.replan
        if self.replan:
            self._plan()
        settings = current()
        settled = True
        now = time.time_ns()
        for key in [key for key in self.units if key in self.dirty]:  # in the plan's order
            unit = self.units[key]
            if self.ready.get(key, 0) > now:  # patient: not old enough to be read yet, nothing to look at
                continue
            if self._unpublished(unit):
                self.dirty.discard(key)  # read once it has moved to its final state (a new unit then)
                continue
            before = _signature(unit.path)
            if before is None or not _published(unit.path, before):
                settled = settled and before is not None  # a temporary file left by a crash must not stop all
                continue
            newest = max(entry[3] for entry in before)
            if self.seen.get(key) != before or (self.patient and newest >= now - RACY_NANOSECONDS):
                self.seen[key] = before  # read once it stays the same for a look (and, patient, is not racy)
                if self.patient:
                    self.ready[key] = newest + RACY_NANOSECONDS
                continue
            surveyed = survey(unit.path)  # None for a file
            found = self.parts.get(key)
            if found is None or found[0] != before:
                part = run_unit(unit, settings)
                if not _unchanged(unit.path, before, surveyed):  # written while it was read: read again once at rest
                    settled = False
                    continue
                self.parts[key] = (before, part)
                # kept for the check at the end under the survey made before the read, as run_here keeps a part
                remembered = self.remembered.key(unit.check, (unit.path, *unit.arguments, unit.exclude), surveyed)
                if remembered is not None:
                    self.remembered.put(remembered, part)
                changed = True
            self.dirty.discard(key)
            self.seen.pop(key, None)
            self.ready.pop(key, None)
        if settled and changed and self.planned is not None:
            parts = [self.parts[key][1] for key in self.units if key in self.parts]
            self._reconcile(assemble(self._published_plan(self.planned), parts).issues)

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
        """The check of ``validate`` on the tree as it is now (the parts read while watching taken back as its
        verdict cache gives them: only where every entry below a folder ``lstat``s the same and is not racy), and
        what was reported reconciled with it."""
        report = check_paths([self.root], cache=self.remembered)
        self._reconcile(report.issues)
        return Watched(ending, report, tuple(self.reported), tuple(self.fixed))


def _unchanged(path: Path, before: Signature, surveyed: Survey | None) -> bool:
    """Whether ``path`` is still what it was before it was read: a folder surveyed then (every entry below it
    ``lstat``s the same, natively), else every entry's ``_signature``."""
    if surveyed is not None:
        from ..units._cache import survey  # lazy, as in tick

        again = survey(path)
        return again is not None and again.signature == surveyed.signature
    return _signature(path) == before


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
