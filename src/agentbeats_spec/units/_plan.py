"""A tree's check as units and a reduce: the one structure behind ``validate``, ``--jobs`` and the Dask path.

Planning a tree reads names only: it detects each folder's layout, reports what the listing alone shows (an
unknown state folder, a missing folder, a link) and cuts the tree into **units**, recorded in a :class:`UnitPlan`.
A unit is a file or folder and the function that checks it (a :class:`UnitCheck`: a task folder, a run-level
file, an ABB case or issue folder, an ABV3 repository, a loose artifact); it reads nothing outside its path, so
it runs the same in this process, in a worker process or on a Dask worker that copied just that path
(``_running``). A unit gives back a :class:`~agentbeats_spec.checking._collect.Part`: its issues, its file counts
and its **facts**, the few values that rules spanning units compare (a ``case_id`` and where it is).
The **reduce** runs those rules over the facts of every unit, in the plan's order, and ``assemble`` makes the
report (``application._tree_check``). Every path to a report goes through ``plan`` and ``assemble``, so the
reports agree by construction.

A new cross-unit rule is a function from the facts of one ``rule`` name to issues, listed in its layout's
``Layout.rules`` (``layouts._layout``), which ``application._tree_check.reduce`` dispatches to; the units that
know the values call ``collector.fact(Fact(rule, scope, value, file, ...))``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

import attrs

from ..checking._collect import Collector
from ..reading._messages import FILE_NOT_FOLDER, FOLDER_NOT_FILE
from ..vocabulary._codes import Severity
from ..vocabulary._issues import Issue
from ._fs import Entry, EntryType, Reporter, entries, exists, is_file, is_folder, require


class Tree(Protocol):
    """The names of a tree, as planning sees them: the machine's own files, or a listing of remote ones."""

    def entries(self, folder: Path, reporter: Reporter, root: Path) -> list[Entry]: ...

    def names(self, folder: Path) -> list[str]: ...

    def is_file(self, path: Path) -> bool: ...

    def is_folder(self, path: Path) -> bool: ...

    def exists(self, path: Path) -> bool: ...

    def require(
        self, path: Path, want: EntryType, reporter: Reporter, at: Path, message: str, severity: Severity = "error"
    ) -> bool: ...


class UnitCheck(Protocol):
    """What checks one unit: ``check(collector, path, *arguments)``, what :meth:`UnitPlan.defer` stores and
    ``_running.run_unit`` calls later (in this process, a worker process or on a Dask worker).

    It reports everything to ``collector`` (issues, file counts, facts); what it returns is not used. It reads
    ``path`` (a file, or a folder and what it holds except the unit's ``exclude`` folders) and nothing else;
    ``arguments`` are plain values that pickle (a kind's name, a state, a run root that only places the unit).
    Settings (limits, the secret scan's allow-list, ``verify_artifacts``) are those ``run_unit`` applied.

    Implemented by, per layout (each defers them from its ``plan``):

    - ``layouts._layout``: ``named_file_unit`` (a file the user named, or one a layout requires),
      ``found_file_unit`` (a file met in a folder that is no layout);
    - ``layouts.agentcompass``: ``task_unit`` (a task folder), ``run_info_unit``, ``metrics_unit``,
      ``browsed_file_unit``, ``run_text_unit`` (the run-level files);
    - ``layouts.abb``: ``case_unit``, ``issue_unit``;
    - ``layouts.abv3``: ``repository_unit``.

    The hop from ``check_paths`` to a file's check: ``plan`` -> ``Layout.plan`` -> :meth:`UnitPlan.defer` (here) ->
    ``run_here`` -> ``run_unit`` -> the unit check -> ``checking._sources.examine_named`` (or ``examine_found``).
    """

    def __call__(self, collector: Collector, path: Path, /, *arguments: Any, **keywords: Any) -> object: ...


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
    """One independent piece of a tree's check: ``check(collector, path, *arguments)`` (a :class:`UnitCheck`).

    The check reads ``path`` (a file, or a folder and what it holds, except the ``exclude`` folders below it,
    which other units own) and nothing else. Paths among ``arguments`` only place it (a task's run root):
    names, never read. ``real`` is where ``path`` really was when the walk listed it (no link in it): while the
    unit runs, a file it opens elsewhere (a folder on the way swapped for a link since) is refused
    (``reading._bounded.confined``); None for a remote tree's units, which run on a copy.
    """

    check: UnitCheck
    path: Path
    arguments: tuple[Any, ...] = ()
    exclude: tuple[str, ...] = ()
    real: str | None = None


@attrs.define
class UnitPlan:
    """What planning a tree found: its units in order, and the issues its listing alone shows."""

    tree: Tree = LOCAL
    units: list[Unit] = attrs.field(factory=list)
    issues: list[Issue] = attrs.field(factory=list)
    skipped: int = 0

    def about(self, path: Path, code: str, message: str, severity: Severity = "error") -> None:
        # The file or folder as a whole: no place in a text, so no line.
        self.issues.append(Issue(file=str(path), severity=severity, code=code, message=message))

    def defer(self, check: UnitCheck, path: Path, *arguments: Any, exclude: tuple[str, ...] = ()) -> None:
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

    def placed(self, named: Path) -> UnitPlan:
        """The same plan, each unit with the real location of its path (the plan of the local path ``named``):
        found once for the named path, whose links are followed only with ``--follow-symlinks`` (a named link
        is refused otherwise), and the planning follows no link below it."""
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
        return UnitPlan(self.tree, units, self.issues, self.skipped)

    def renamed(self, rename: Callable[[str], str]) -> UnitPlan:
        """The same plan with every file and folder name of its issues passed through ``rename``."""
        issues = [attrs.evolve(issue, file=rename(issue.file)) if issue.file else issue for issue in self.issues]
        return UnitPlan(self.tree, self.units, issues, self.skipped)
