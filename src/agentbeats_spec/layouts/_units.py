"""A tree's check as units and a reduce: the one structure behind ``validate``, ``--jobs`` and the Dask path.

Walking a tree reads names only: it detects each folder's layout, reports what the listing alone shows (an
unknown state folder, a missing folder, a link) and cuts the tree into **units**. A unit is a file or folder and
the function that checks it (a task folder, a run-level file, an ABB case or issue folder, an ABV3 repository, a
loose artifact); it reads nothing outside its path, so it runs the same in this process, in a worker process or
on a Dask worker that copied just that path. A unit gives back a :class:`~agentbeats_spec._core.Part`: its
issues, its file counts and its **facts**, the few values that rules spanning units compare (a ``case_id`` and
where it is).
The **reduce** runs those rules over the facts of every unit, in the walk's order, and :func:`assemble` makes
the report. Every path to a report goes through :func:`plan` and :func:`assemble`, so the reports agree by
construction.

A new cross-unit rule is a function from the facts of one ``rule`` name to issues, listed in :func:`reduce`;
the units that know the values call ``collector.fact(Fact(rule, scope, value, file, ...))``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import attrs

from .._core import Collector, Part, Report, failing_on, may_be_artifact
from .._issues import Fact, Issue, Severity
from .._limits import Limits, current, scanning, secrets_allow, using
from ._fs import Entry, EntryType, Reporter, entries, exists, is_file, is_folder, present


class Tree(Protocol):
    """The names of a tree, as the walk sees them: the machine's own files, or a listing of remote ones."""

    def entries(self, folder: Path, reporter: Reporter, root: Path) -> list[Entry]: ...

    def names(self, folder: Path) -> list[str]: ...

    def is_file(self, path: Path) -> bool: ...

    def is_folder(self, path: Path) -> bool: ...

    def exists(self, path: Path) -> bool: ...

    def present(
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

    def present(
        self, path: Path, want: EntryType, reporter: Reporter, at: Path, message: str, severity: Severity = "error"
    ) -> bool:
        return present(path, want, reporter, at, message, severity)


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
            Entry(name, folder / name, "folder" if self.is_folder(folder / name) else "file")
            for name in self.names(folder)
        ]

    def names(self, folder: Path) -> list[str]:
        return sorted(self.children.get(str(folder), ()))

    def is_file(self, path: Path) -> bool:
        return self.types.get(str(path)) == "file"

    def is_folder(self, path: Path) -> bool:
        return self.types.get(str(path)) == "folder"

    def exists(self, path: Path) -> bool:
        return str(path) in self.types

    def present(
        self, path: Path, want: EntryType, reporter: Reporter, at: Path, message: str, severity: Severity = "error"
    ) -> bool:
        """As the local check says it: missing, or the other type (object storage has no links or devices)."""
        found = self.types.get(str(path))
        if found == want:
            return True
        if found is None:
            reporter.about(at, f"layout.missing-{want}", message, severity)
        elif found == "folder":
            reporter.about(path, "io.not-a-file", "a folder where a file was expected")
        else:
            reporter.about(path, "io.not-a-file", "a file where a folder was expected")
        return False


@attrs.frozen
class Unit:
    """One independent piece of a tree's check: ``check(collector, path, *arguments)``.

    The check reads ``path`` (a file, or a folder and what it holds, except the ``exclude`` folders below it,
    which other units own) and nothing else. Paths among ``arguments`` only place it (a task's run root):
    names, never read.
    """

    check: Callable[..., None]
    path: Path
    arguments: tuple[Any, ...] = ()
    exclude: tuple[str, ...] = ()


@attrs.define
class Walk:
    """What walking a tree found: its units in order, and the issues its listing alone shows."""

    tree: Tree = LOCAL
    units: list[Unit] = attrs.field(factory=list)
    issues: list[Issue] = attrs.field(factory=list)
    skipped: int = 0

    def about(self, path: Path, code: str, message: str, severity: Severity = "error") -> None:
        self.issues.append(Issue(str(path), None, "", None, None, severity, code, message))

    def defer(self, check: Callable[..., None], path: Path, *arguments: Any, exclude: tuple[str, ...] = ()) -> None:
        self.units.append(Unit(check, path, arguments, exclude))

    def skip(self) -> None:
        """A file that is no artifact: counted, never read."""
        self.skipped += 1

    def loose_file(self, path: Path) -> None:
        """A file met in a folder that is no layout: a unit when it may be an artifact, else counted as skipped."""
        from . import file_unit

        if may_be_artifact(path, None):
            self.defer(file_unit, path, None)
        else:
            self.skip()

    def entries(self, folder: Path, root: Path) -> list[Entry]:
        return self.tree.entries(folder, self, root)

    def is_file(self, path: Path) -> bool:
        return self.tree.is_file(path)

    def is_folder(self, path: Path) -> bool:
        return self.tree.is_folder(path)

    def present(self, path: Path, want: EntryType, at: Path, message: str, severity: Severity = "error") -> bool:
        """Whether ``path`` is a ``want``; if not, why (``_fs.present``)."""
        return self.tree.present(path, want, self, at, message, severity)

    def renamed(self, rename: Callable[[str], str]) -> Walk:
        """The same walk with every file and folder name of its issues passed through ``rename``."""
        issues = [attrs.evolve(issue, file=rename(issue.file)) if issue.file else issue for issue in self.issues]
        return Walk(self.tree, self.units, issues, self.skipped)


def run_unit(unit: Unit, limits: Limits, allow: Any) -> Part:
    """One unit, with the limits and secret scanning of the run that sent it (in any process)."""
    collector = Collector()
    with using(limits), scanning(allow), failing_on(str(unit.path)):
        unit.check(collector, unit.path, *unit.arguments)
    return collector.part()


def run_here(units: list[Unit], jobs: int) -> Iterator[Part]:
    """The parts of the units, in their order: in this process, or in ``jobs`` worker processes."""
    limits, allow = current(), secrets_allow()
    if jobs <= 1 or len(units) <= 1:
        for unit in units:
            yield run_unit(unit, limits, allow)
        return
    import multiprocessing  # only with workers: a one-file check does not pay for the import
    from concurrent.futures import ProcessPoolExecutor

    # fork starts workers in milliseconds, with the schemas already loaded; spawn where there is no fork
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method)) as pool:
        futures = [pool.submit(run_unit, unit, limits, allow) for unit in units]
        for future in futures:
            yield future.result()


def assemble(walk: Walk, parts: Iterable[Part], progress: Callable[[int], None] | None = None) -> Report:
    """The report of a tree: the walk's issues, every unit's part in the walk's order, then the reduce."""
    collector = Collector(progress=progress)
    collector.issues.extend(walk.issues)
    collector.skipped = walk.skipped
    if progress is not None and walk.skipped:
        progress(walk.skipped)
    for part in parts:
        collector.merge(part)
    collector.issues.extend(reduce(collector.facts))
    return collector.report()


def reduce(facts: Iterable[Fact]) -> list[Issue]:
    """The rules that span units, each over the facts named for it, in the order the units gave them."""
    grouped: dict[str, list[Fact]] = {}
    for fact in facts:
        grouped.setdefault(fact.rule, []).append(fact)
    if not grouped:
        return []
    from . import abb

    rules: dict[str, Callable[[list[Fact]], list[Issue]]] = {abb.CASE_ID_RULE: abb.unique_case_ids}
    issues: list[Issue] = []
    for name, found in grouped.items():
        issues.extend(rules[name](found))
    return issues
