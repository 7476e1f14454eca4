"""A tree's check as units and a reduce: the one structure behind ``validate``, ``--jobs`` and the Dask path.

Walking a tree reads names only: it detects each folder's layout, reports what the listing alone shows (an
unknown state folder, a missing folder, a link) and cuts the tree into **units**. A unit is a file or folder and
the function that checks it (a task folder, a run-level file, an ABB case or issue folder, an ABV3 repository, a
loose artifact); it reads nothing outside its path, so it runs the same in this process, in a worker process or
on a Dask worker that copied just that path. A unit gives back a :class:`~agentbeats_spec.checking._collect.Part`: its
issues, its file counts and its **facts**, the few values that rules spanning units compare (a ``case_id`` and
where it is).
The **reduce** runs those rules over the facts of every unit, in the walk's order, and :func:`assemble` makes
the report. Every path to a report goes through :func:`plan` and :func:`assemble`, so the reports agree by
construction.

A new cross-unit rule is a function from the facts of one ``rule`` name to issues, listed in its layout's
``Layout.rules`` (``layouts._walking``), which ``layouts.reduce`` dispatches to; the units that know the values
call ``collector.fact(Fact(rule, scope, value, file, ...))``.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import attrs

from ..checking._collect import Collector, Part, failing_on
from ..reading._bounded import confined
from ..reading._messages import FILE_NOT_FOLDER, FOLDER_NOT_FILE
from ..vocabulary._codes import Severity
from ..vocabulary._issues import Issue
from ..vocabulary._settings import Settings, applied, current
from ._fs import Entry, EntryType, Reporter, entries, exists, is_file, is_folder, require


class Tree(Protocol):
    """The names of a tree, as the walk sees them: the machine's own files, or a listing of remote ones."""

    def entries(self, folder: Path, reporter: Reporter, root: Path) -> list[Entry]: ...

    def names(self, folder: Path) -> list[str]: ...

    def is_file(self, path: Path) -> bool: ...

    def is_folder(self, path: Path) -> bool: ...

    def exists(self, path: Path) -> bool: ...

    def require(
        self, path: Path, want: EntryType, reporter: Reporter, at: Path, message: str, severity: Severity = "error"
    ) -> bool: ...


class LocalTree:
    """Files on this machine: links are reported and never followed, special files never opened."""

    def entries(self, folder: Path, reporter: Reporter, root: Path) -> list[Entry]:
        return entries(folder, reporter, root)

    def names(self, folder: Path) -> list[str]:
        try:
            return sorted(os.listdir(folder))
        except OSError:
            return []

    def is_file(self, path: Path) -> bool:
        return is_file(path)

    def is_folder(self, path: Path) -> bool:
        return is_folder(path)

    def exists(self, path: Path) -> bool:
        return exists(path)

    def require(
        self, path: Path, want: EntryType, reporter: Reporter, at: Path, message: str, severity: Severity = "error"
    ) -> bool:
        return require(path, want, reporter, at, message, severity)


LOCAL = LocalTree()


class Listing:
    """A remote tree listed once (object storage lists a whole prefix in a few requests): names and types only.

    ``found`` maps each path (``/``-separated, as the filesystem names it) to ``"file"`` or ``"folder"``;
    the folders that hold a listed path are implied, as object storage implies them.
    """

    def __init__(self, found: Mapping[str, str]) -> None:
        self.types: dict[str, str] = {}
        self.children: dict[str, set[str]] = {}
        for path, type_ in found.items():
            path = path.rstrip("/") or "/"
            self.types[path] = "folder" if type_ == "folder" else "file"
            child = Path(path)
            for parent in child.parents:
                self.children.setdefault(str(parent), set()).add(child.name)
                self.types.setdefault(str(parent), "folder")
                child = parent

    def entries(self, folder: Path, reporter: Reporter, root: Path) -> list[Entry]:
        return [
            Entry(name, folder, "folder" if self.is_folder(folder / name) else "file") for name in self.names(folder)
        ]

    def names(self, folder: Path) -> list[str]:
        return sorted(self.children.get(str(folder), ()))

    def is_file(self, path: Path) -> bool:
        return self.types.get(str(path)) == "file"

    def is_folder(self, path: Path) -> bool:
        return self.types.get(str(path)) == "folder"

    def exists(self, path: Path) -> bool:
        return str(path) in self.types

    def require(
        self, path: Path, want: EntryType, reporter: Reporter, at: Path, message: str, severity: Severity = "error"
    ) -> bool:
        """As the local check says it: missing, or the other type (object storage has no links or devices)."""
        found = self.types.get(str(path))
        if found == want:
            return True
        if found is None:
            reporter.about(at, f"layout.missing-{want}", message, severity)
        elif found == "folder":
            reporter.about(path, "io.not-a-file", FOLDER_NOT_FILE)
        else:
            reporter.about(path, "io.not-a-file", FILE_NOT_FOLDER)
        return False


@attrs.frozen
class Unit:
    """One independent piece of a tree's check: ``check(collector, path, *arguments)``.

    The check reads ``path`` (a file, or a folder and what it holds, except the ``exclude`` folders below it,
    which other units own) and nothing else. Paths among ``arguments`` only place it (a task's run root):
    names, never read. ``real`` is where ``path`` really was when the walk listed it (no link in it): while the
    unit runs, a file it opens elsewhere (a folder on the way swapped for a link since) is refused
    (``reading._bounded.confined``); None for a remote tree's units, which run on a copy.
    """

    check: Callable[..., object]  # what it returns is not used: a unit reports to its collector
    path: Path
    arguments: tuple[Any, ...] = ()
    exclude: tuple[str, ...] = ()
    real: str | None = None


@attrs.define
class Walk:
    """What walking a tree found: its units in order, and the issues its listing alone shows."""

    tree: Tree = LOCAL
    units: list[Unit] = attrs.field(factory=list)
    issues: list[Issue] = attrs.field(factory=list)
    skipped: int = 0

    def about(self, path: Path, code: str, message: str, severity: Severity = "error") -> None:
        # The file or folder as a whole: no place in a text, so no line.
        self.issues.append(Issue(file=str(path), severity=severity, code=code, message=message))

    def defer(self, check: Callable[..., object], path: Path, *arguments: Any, exclude: tuple[str, ...] = ()) -> None:
        self.units.append(Unit(check, path, arguments, exclude))

    def skip(self) -> None:
        """A file that is no artifact: counted, never read."""
        self.skipped += 1

    def entries(self, folder: Path, root: Path) -> list[Entry]:
        return self.tree.entries(folder, self, root)

    def is_file(self, path: Path) -> bool:
        return self.tree.is_file(path)

    def is_folder(self, path: Path) -> bool:
        return self.tree.is_folder(path)

    def require(self, path: Path, want: EntryType, at: Path, message: str, severity: Severity = "error") -> bool:
        """Whether ``path`` is a ``want``; if not, why (``_fs.require``)."""
        return self.tree.require(path, want, self, at, message, severity)

    def placed(self, named: Path) -> Walk:
        """The same walk, each unit with the real location of its path (the walk of the local path ``named``):
        found once for the named path, whose links are followed only with ``--follow-symlinks`` (a named link
        is refused otherwise), and the walk follows no link below it."""
        real = os.path.realpath(named)
        spelled = str(named)
        prefix = spelled if spelled.endswith(os.sep) else spelled + os.sep
        units = []
        for unit in self.units:
            path = str(unit.path)
            if path == spelled:
                rest = ""
            elif path.startswith(prefix):
                rest = path[len(prefix) :]
            else:  # "." names its files "x", not "./x"
                rest = os.path.relpath(path, spelled)
            place = os.path.normpath(os.path.join(real, rest)) if rest else real
            units.append(Unit(unit.check, unit.path, unit.arguments, unit.exclude, place))
        return Walk(self.tree, units, self.issues, self.skipped)

    def renamed(self, rename: Callable[[str], str]) -> Walk:
        """The same walk with every file and folder name of its issues passed through ``rename``."""
        issues = [attrs.evolve(issue, file=rename(issue.file)) if issue.file else issue for issue in self.issues]
        return Walk(self.tree, self.units, issues, self.skipped)


def run_unit(unit: Unit, settings: Settings) -> Part:
    """One unit, with the settings (limits, secret scanning) of the run that sent it (in any process)."""
    collector = Collector()
    with applied(settings), failing_on(str(unit.path)), confined(unit.path, unit.real):
        unit.check(collector, unit.path, *unit.arguments)
    return collector.part()


# Measured with benchmarks/workers.py on a quiet 2-core machine (docs/performance.md): two workers against one
# process gained 1.01x on 8 MB and on 28 MB of a writer's run, 1.35x on 72 MB; below this, they cost what they gain.
WORKERS_GAIN_BYTES = 32 * 1024 * 1024
# Sizing every unit lists the whole tree once more before any is checked: this many units, evenly spread, are sized
# first, and a tree they put below the threshold is checked here without listing the rest (near the threshold,
# workers and one process cost about the same, so an estimate a little off costs little).
SIZE_SAMPLE = 32
# Units go to workers in batches, so that the cost of moving a unit between processes is paid per batch.
BATCH_BYTES = 4 * 1024 * 1024
BATCH_UNITS = 64


def run_units(units: list[Unit], settings: Settings) -> list[Part]:
    """A batch of units, in a worker process."""
    return [run_unit(unit, settings) for unit in units]


def run_here(units: list[Unit], jobs: int, cache: Any = None) -> Iterator[Part]:
    """The parts of the units, in their order: in this process, or in ``jobs`` worker processes.

    With a ``cache`` (a ``_cache.VerdictCache``), the part of a folder unit whose every entry ``lstat`` the same
    is taken from it. Workers start only when the units left to check hold at least ``WORKERS_GAIN_BYTES``:
    below that, starting them and moving parts between processes costs more than it gains. Without a cache, a
    sample of ``SIZE_SAMPLE`` units is sized first; a tree it puts below that is not sized further.
    """
    settings = current()
    keys: list[str | None] = [None] * len(units)
    sizes = [0] * len(units)
    found: dict[int, Part] = {}
    if cache is not None:
        from ._cache import survey  # lazy: it imports hashlib and tempfile, which a run without a cache never needs

        for index, unit in enumerate(units):
            seen = survey(unit.path)
            if seen is None:  # a file, or a folder that cannot be read: checked, never kept
                with contextlib.suppress(OSError):
                    sizes[index] = os.lstat(unit.path).st_size
                continue
            sizes[index] = seen.size
            keys[index] = cache.key(unit.check, (unit.path, *unit.arguments, unit.exclude), seen)
            cached = cache.get(keys[index]) if keys[index] is not None else None
            if cached is not None:
                found[index] = cached
    elif jobs > 1 and len(units) > 1:  # only a sample's sizes, to tell whether workers would gain
        from ._cache import size_below  # lazy, as survey above

        sample = units[:: max(1, len(units) // SIZE_SAMPLE)]
        estimate = sum(size_below(unit.path) for unit in sample) * len(units) / len(sample)
        if estimate >= WORKERS_GAIN_BYTES:
            # Batched by the sample's mean: sizing every unit would list the whole tree once more before any is
            # checked, and batches of at most BATCH_UNITS keep both workers busy whatever the sizes are.
            sizes = [-int(-estimate // len(units))] * len(units)  # rounded up: they sum to the estimate or more
    todo = [index for index in range(len(units)) if index not in found]
    if jobs > 1 and len(todo) > 1 and sum(sizes[index] for index in todo) >= WORKERS_GAIN_BYTES:
        yield from _in_workers(units, todo, sizes, found, keys, jobs, cache)
        return
    for index, unit in enumerate(units):
        part = found.get(index)
        if part is None:
            part = run_unit(unit, settings)
            _keep(cache, keys[index], part)
        yield part


def _keep(cache: Any, key: str | None, part: Part) -> None:
    if cache is not None and key is not None:
        cache.put(key, part)


def _in_workers(
    units: list[Unit],
    todo: list[int],
    sizes: list[int],
    found: dict[int, Part],
    keys: list[str | None],
    jobs: int,
    cache: Any,
) -> Iterator[Part]:
    import multiprocessing  # only with workers: a one-file check does not pay for the import
    from concurrent.futures import Future, ProcessPoolExecutor

    settings = current()
    batches: list[list[int]] = [[]]
    size = 0
    for index in todo:
        if batches[-1] and (size >= BATCH_BYTES or len(batches[-1]) >= BATCH_UNITS):
            batches.append([])
            size = 0
        batches[-1].append(index)
        size += sizes[index]
    # fork starts workers in milliseconds, with the schemas already loaded; spawn where there is no fork
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    pool = ProcessPoolExecutor(
        max_workers=jobs, mp_context=multiprocessing.get_context(method), initializer=_worker_signals
    )
    try:
        futures: dict[int, tuple[Future[list[Part]], list[int]]] = {}
        for batch in batches:
            future = pool.submit(run_units, [units[index] for index in batch], settings)
            for index in batch:
                futures[index] = (future, batch)
        for index in range(len(units)):
            part = found.get(index)
            if part is None:
                future, batch = futures[index]
                part = future.result()[batch.index(index)]
                _keep(cache, keys[index], part)
            yield part
    except BaseException:  # interrupted (Ctrl-C, SIGTERM, SIGHUP), a bug, or the caller stopped reading
        _stop(pool)
        raise
    pool.shutdown()


def _worker_signals() -> None:
    """In a worker: the parent decides when to stop. Ctrl-C reaches the whole process group, and the parent then
    ends its workers; SIGTERM and SIGHUP (inherited by fork as the parent's handlers) end the worker at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)


def _stop(pool: Any) -> None:
    """End the pool's workers now, busy or not, and wait for them: no process outlives the run."""
    processes = list((pool._processes or {}).values())
    manager = pool._executor_manager_thread
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join()
    if manager is not None:  # it sees the workers gone and closes its pipes: none is left for exit to write to
        manager.join(timeout=30)
