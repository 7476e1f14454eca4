"""The check of a tree: plan its units (names only), run them, reduce the facts that span units, assemble the
report; and the secret scan of a tree, and the ABV3-L1 check of one repository.

A folder is checked as the layout it is (detected from what it holds); a folder that is no layout is planned,
every artifact file in it checked on its own, and every layout below it checked as such. Planning only reads
names and cuts the tree into units (``units._plan``); ``units._running`` runs them, and :func:`reduce` the rules
that span them. The settings a unit runs with travel as an argument to :func:`check_paths`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from ..checking import _kinds
from ..checking._collect import Collector, Part, Report, failing_on
from ..checking._sources import scan_file
from ..layouts import layouts
from ..layouts._layout import CrossUnitRule, joined, kind_by_place, named_file_unit, named_folder, plan_folder
from ..reading._bounded import confined
from ..units._fs import Reporter, entries, is_folder, require
from ..units._plan import LOCAL, Tree, UnitPlan
from ..units._running import run_here
from ..vocabulary._issues import Fact, Issue
from ..vocabulary._settings import Settings, current


def check_paths(
    paths: Iterable[Path],
    kind: _kinds.Kind | None = None,
    progress: Callable[[int], None] | None = None,
    jobs: int = 1,
    follow_symlinks: bool = False,
    cache: Any = None,
    *,
    settings: Settings | None = None,
) -> Report:
    """Check files and folders, each unit with ``settings`` (None: those applied around the call); with
    ``jobs`` > 1, their units are checked in that many worker processes (once the tree is big enough to gain);
    with a ``cache`` (a ``units._cache.VerdictCache``), unchanged folder units are not checked again.

    A path named twice is checked once; the report names the folders in which nothing at all was found. A
    symbolic link among ``paths`` is reported and not followed, as below a named folder, unless
    ``follow_symlinks``.
    """
    unique = _unique(paths, follow_symlinks)
    plans = [plan([path], kind, follow_symlinks=follow_symlinks).placed(path) for path in unique]
    whole = joined(plans)
    parts: list[Part] = []

    def kept(found: Iterable[Part]) -> Iterable[Part]:
        for part in found:
            parts.append(part)
            yield part

    report = assemble(whole, kept(run_here(whole.units, settings or current(), jobs, cache)), progress)
    named = [
        (str(path), named_folder(path, LOCAL, follow_symlinks), own) for path, own in zip(unique, plans, strict=True)
    ]
    return attrs.evolve(report, empty=nothing_found(named, parts))


def _unique(paths: Iterable[Path], follow_symlinks: bool) -> list[Path]:
    """The paths, each once: a path named twice (after resolving links and ``..``) is checked once."""
    seen: set[str] = set()
    unique = []
    for path in paths:
        identity = _identity(path, follow_symlinks)
        if identity not in seen:
            seen.add(identity)
            unique.append(path)
    return unique


def _identity(path: Path, follow_symlinks: bool) -> str:
    """What a named path designates: where it leads, or the link itself when links are not followed."""
    if follow_symlinks or not path.is_symlink():
        return os.path.realpath(path)
    return os.path.join(os.path.realpath(path.parent), path.name)


def nothing_found(named: Sequence[tuple[str, bool, UnitPlan]], parts: Sequence[Part]) -> tuple[str, ...]:
    """The named folders below which nothing at all was found: no artifact checked, no issue.

    ``named`` holds each named path (as it is to be shown), whether it is a folder and its own plan; ``parts``
    are the parts of the plans' units, in order. Each folder is judged by its own plan and units, never by
    comparing names, so that ``.``, ``./``, ``dir/.``, ``..`` and URLs are all judged alike.
    """
    empty = []
    start = 0
    for name, folder, own_plan in named:
        own = parts[start : start + len(own_plan.units)]
        start += len(own_plan.units)
        if folder and not own_plan.issues and not any(part.checked or part.issues for part in own):
            empty.append(name)
    return tuple(empty)


def with_nothing_found(report: Report) -> list[Issue]:
    """The report's issues and, for each named folder in which nothing was found, a ``layout.nothing-found``
    error on it: what the Python API returns, so that "nothing found" is never read as "valid"."""
    if not report.empty:
        return list(report.issues)
    found = [
        Issue(
            file=folder,
            severity="error",
            code="layout.nothing-found",
            message="no artifact found in this folder: nothing checked is not a pass (allow_empty=True accepts it)",
        )
        for folder in report.empty
    ]
    return sorted([*report.issues, *found], key=Issue.sort_key)


def plan(
    paths: Iterable[Path], kind: _kinds.Kind | None = None, tree: Tree = LOCAL, *, follow_symlinks: bool = False
) -> UnitPlan:
    """The units of the paths, in order, and what their listing alone shows; no file is read."""
    planned = UnitPlan(tree)
    for path in paths:
        if tree is LOCAL and not follow_symlinks and _named_link(path, planned):
            continue
        if named_folder(path, tree, follow_symlinks):
            plan_folder(path, kind, planned, path, layouts() if kind is None else ())
        else:
            planned.defer(named_file_unit, path, kind.name if kind else None, True)
    return planned


def _named_link(path: Path, reporter: Reporter) -> bool:
    """Report a link named as a path to check: an error, since what it leads to is not checked."""
    if not path.is_symlink():
        return False
    reporter.about(
        path,
        "security.symlink",
        "symbolic link not followed, so nothing was checked (pass --follow-symlinks to check what it leads to)",
    )
    return True


def scan_paths(
    paths: Iterable[Path], progress: Callable[[int], None] | None = None, follow_symlinks: bool = False
) -> Report:
    """Every file below the paths searched for secrets (links are reported, never followed, except links named
    in ``paths`` with ``follow_symlinks``)."""
    collector = Collector(progress=progress)
    for path in paths:
        if not follow_symlinks and _named_link(path, collector):
            continue
        # Each file is read where this path's real location places it (reading._bounded.confined)
        with confined(path, os.path.realpath(path)):
            if is_folder(path) or (follow_symlinks and path.is_dir()):
                _scan_folder(path, collector, path)
            else:
                collector.add(scan_file(path, kind_by_place(path), follow=follow_symlinks), "scanned")
    return collector.report()


def _scan_folder(folder: Path, collector: Collector, root: Path) -> None:
    # A stack, not recursion: a tree may be nested deeper than Python's call stack (PATH_MAX allows 2,000 levels).
    stack = [folder]
    while stack:
        listing = entries(stack.pop(), collector, root)
        for entry in listing:
            if not entry.is_folder:
                collector.add(scan_file(entry.path, kind_by_place(entry.path)), "scanned")
        stack.extend(entry.path for entry in reversed(listing) if entry.is_folder)


def check_repository(folder: Path) -> Report:
    """Exactly the ABV3-L1 check of one repository (what ``check-l1`` runs): the ABV3 layout's units of it, with
    the other layouts the folder also is (whose own units are not checked)."""
    collector = Collector()
    description = folder / "agentbeats.toml"
    if require(description, "file", collector, description, "an ABV3 repository has agentbeats.toml at its root"):
        every = layouts()
        repository = next(layout for layout in every if layout.name == REPOSITORY)
        others = tuple(layout for layout in every if layout is not repository and layout.detect(folder, LOCAL))
        planned = UnitPlan()
        repository.plan(folder, planned, others, every)
        with failing_on(str(folder)):
            for unit in planned.units:
                unit.check(collector, unit.path, *unit.arguments)
    return collector.report()


REPOSITORY = "abv3"  # the layout whose check check-l1 is (the ABV3-L1 levels are its)


def assemble(planned: UnitPlan, parts: Iterable[Part], progress: Callable[[int], None] | None = None) -> Report:
    """The report of a tree: the plan's issues, every unit's part in the plan's order, then the reduce."""
    collector = Collector(progress=progress)
    collector.issues.extend(planned.issues)
    collector.skipped = planned.skipped
    if progress is not None and planned.skipped:
        progress(planned.skipped)
    for part in parts:
        collector.merge(part)
    collector.issues.extend(reduce(collector.facts))
    return collector.report()


def reduce(facts: Iterable[Fact]) -> list[Issue]:
    """The rules that span units (each layout's ``rules``), each over the facts named for it, in the order the
    units gave them."""
    grouped: dict[str, list[Fact]] = {}
    for fact in facts:
        grouped.setdefault(fact.rule, []).append(fact)
    if not grouped:
        return []
    rules: dict[str, CrossUnitRule] = {name: rule for layout in layouts() for name, rule in layout.rules.items()}
    issues: list[Issue] = []
    for name, found in grouped.items():
        if name in rules:  # a fact of no rule comes only from an edited cache entry: it says nothing
            issues.extend(rules[name](found))
    return issues
