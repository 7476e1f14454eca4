"""Run-tree layouts: AgentCompass runs, ABB results and ABV3 repositories.

A folder is checked as the layout it is (detected from what it holds); a folder that is no layout is
walked, every artifact file in it checked on its own, and every layout below it checked as such. Walking only
reads names and cuts the tree into units; ``_units`` runs them and the rules that span them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .. import _kinds
from .._core import Collector, Report, examine_file, may_be_artifact, scan_file
from ._fs import entries, is_folder
from ._units import LOCAL, Tree, Walk, assemble, run_here


def layouts() -> tuple[Any, ...]:
    """The layouts, in the order they are tried; a folder may be more than one (ABB with an agentbeats.toml).

    Imported on the first folder: checking one file does not need them.
    """
    from . import abb, abv3, agentcompass

    return (agentcompass, abv3, abb)


def check_paths(
    paths: Iterable[Path],
    kind: _kinds.Kind | None = None,
    progress: Callable[[int], None] | None = None,
    jobs: int = 1,
) -> Report:
    """Check files and folders; with ``jobs`` > 1, their units are checked in that many worker processes."""
    walk = plan(paths, kind)
    return assemble(walk, run_here(walk.units, jobs), progress)


def plan(paths: Iterable[Path], kind: _kinds.Kind | None = None, tree: Tree = LOCAL) -> Walk:
    """The units of the paths, in order, and what their listing alone shows; no file is read."""
    walk = Walk(tree)
    for path in paths:
        if tree.is_folder(path):
            plan_folder(path, kind, walk, path)
        else:
            walk.defer(file_unit, path, kind.name if kind else None, True)
    return walk


def file_unit(collector: Collector, path: Path, kind: str | None, explicit: bool = False) -> None:
    """One artifact file on its own (named, or met in a folder that is no layout)."""
    collector.add(examine_file(path, _kinds.get(kind) if kind else None, explicit=explicit))


def scan_paths(paths: Iterable[Path], progress: Callable[[int], None] | None = None) -> Report:
    """Every file below the paths searched for secrets (links are reported, never followed)."""
    collector = Collector(progress=progress)
    for path in paths:
        if is_folder(path):
            _scan_folder(path, collector, path)
        else:
            collector.add(scan_file(path), "scanned")
    return collector.report()


def _scan_folder(folder: Path, collector: Collector, root: Path) -> None:
    for entry in entries(folder, collector, root):
        if entry.is_folder:
            _scan_folder(entry.path, collector, root)
        else:
            collector.add(scan_file(entry.path), "scanned")


def check_repository(folder: Path) -> Report:
    """Exactly the ABV3-L1 check of one repository (what ``check-l1`` runs)."""
    from . import abb, abv3

    collector = Collector()
    if abv3.detect(folder):
        abv3.check(folder, collector, others=[abb] if abb.detect(folder) else [])
    else:
        collector.about(
            folder / "agentbeats.toml", "layout.missing-file", "an ABV3 repository has agentbeats.toml at its root"
        )
    return collector.report()


def plan_folder(folder: Path, kind: _kinds.Kind | None, walk: Walk, root: Path) -> None:
    if kind is None:
        matched = [layout for layout in layouts() if layout.detect(folder, walk.tree)]
        if matched:
            for layout in matched:
                layout.plan(folder, walk, others=[other for other in matched if other is not layout])
            return
    for entry in walk.entries(folder, root):
        if entry.is_folder:
            plan_folder(entry.path, kind, walk, root)
        elif kind is not None:
            if entry.path.suffix == "." + kind.syntax:
                walk.defer(file_unit, entry.path, kind.name)
        elif may_be_artifact(entry.path, None):
            walk.defer(file_unit, entry.path, None)
        else:
            walk.skip()
