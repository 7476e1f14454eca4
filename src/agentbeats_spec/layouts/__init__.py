"""Run-tree layouts: AgentCompass runs, ABB results and ABV3 repositories.

A folder is checked as the layout it is (detected from what it holds); a folder that is no layout is
walked, every artifact file in it checked on its own, and every layout below it checked as such.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _kinds

if TYPE_CHECKING:
    from concurrent.futures import Executor
from .._core import Collector, Report, examine_file, scan_file
from ._fs import entries, is_folder


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
    cache: Any = None,
) -> Report:
    """Check files and folders; with ``jobs`` > 1, task folders are checked in that many worker processes (once
    the run is big enough to gain); with a ``cache`` (a ``_cache.VerdictCache``), unchanged task folders are not
    checked again.
    """
    with _Pool(jobs) as pool:
        collector = Collector(progress=progress, pool=pool if jobs > 1 else None, cache=cache)
        for path in paths:
            if is_folder(path):
                check_folder(path, kind, collector, path)
            else:
                collector.add(examine_file(path, kind, explicit=True))
        return collector.report()


class _Pool:
    """A process pool started on the first unit sent to it: checking one file starts no process."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.pool: Executor | None = None

    def __enter__(self) -> _Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    def submit(self, *arguments: Any) -> Any:
        if self.pool is None:
            import multiprocessing  # only with workers: a one-file check does not pay for the import
            from concurrent.futures import ProcessPoolExecutor

            # fork starts workers in milliseconds, with the schemas already loaded; spawn where there is no fork
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
            self.pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=multiprocessing.get_context(method))
        return self.pool.submit(*arguments)


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


def check_folder(folder: Path, kind: _kinds.Kind | None, collector: Collector, root: Path) -> None:
    if kind is None:
        matched = [layout for layout in layouts() if layout.detect(folder)]
        if matched:
            for layout in matched:
                layout.check(folder, collector, others=[other for other in matched if other is not layout])
            return
    for entry in entries(folder, collector, root):
        if entry.is_folder:
            check_folder(entry.path, kind, collector, root)
        elif kind is None or entry.path.suffix == "." + kind.syntax:
            collector.add(examine_file(entry.path, kind, explicit=False))
