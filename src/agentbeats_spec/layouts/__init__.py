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
from .._core import Collector, Report, examine_file, failing_on, scan_file
from ._fs import entries, is_folder, present


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
    follow_symlinks: bool = False,
    cache: Any = None,
) -> Report:
    """Check files and folders; with ``jobs`` > 1, task folders are checked in that many worker processes (once
    the run is big enough to gain); with a ``cache`` (a ``_cache.VerdictCache``), unchanged task folders are not
    checked again.

    A symbolic link among ``paths`` is reported and not followed, as in a walk, unless ``follow_symlinks``.
    """
    with _Pool(jobs) as pool:
        collector = Collector(progress=progress, pool=pool if jobs > 1 else None, cache=cache)
        for path in paths:
            if not follow_symlinks and _named_link(path, collector):
                continue
            if is_folder(path) or (follow_symlinks and path.is_dir()):
                check_folder(path, kind, collector, path)
            else:
                collector.add(examine_file(path, kind, explicit=True))
        return collector.report()


def _named_link(path: Path, collector: Collector) -> bool:
    """Report a link named as a path to check: an error, since what it leads to is not checked."""
    if not path.is_symlink():
        return False
    collector.about(
        path,
        "security.symlink",
        "symbolic link not followed, so nothing was checked (pass --follow-symlinks to check what it leads to)",
    )
    return True


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


def scan_paths(
    paths: Iterable[Path], progress: Callable[[int], None] | None = None, follow_symlinks: bool = False
) -> Report:
    """Every file below the paths searched for secrets (links are reported, never followed, except links named
    in ``paths`` with ``follow_symlinks``)."""
    collector = Collector(progress=progress)
    for path in paths:
        if not follow_symlinks and _named_link(path, collector):
            continue
        if is_folder(path) or (follow_symlinks and path.is_dir()):
            _scan_folder(path, collector, path)
        else:
            collector.add(scan_file(path), "scanned")
    return collector.report()


def _scan_folder(folder: Path, collector: Collector, root: Path) -> None:
    # A stack, not recursion: a tree may be nested deeper than Python's call stack (PATH_MAX allows 2,000 levels).
    stack = [folder]
    while stack:
        listing = entries(stack.pop(), collector, root)
        for entry in listing:
            if not entry.is_folder:
                collector.add(scan_file(entry.path), "scanned")
        stack.extend(entry.path for entry in reversed(listing) if entry.is_folder)


def check_repository(folder: Path) -> Report:
    """Exactly the ABV3-L1 check of one repository (what ``check-l1`` runs)."""
    from . import abb, abv3

    collector = Collector()
    description = folder / "agentbeats.toml"
    if present(description, "file", collector, description, "an ABV3 repository has agentbeats.toml at its root"):
        with failing_on(str(folder)):
            abv3.check(folder, collector, others=[abb] if abb.detect(folder) else [])
    return collector.report()


def check_folder(folder: Path, kind: _kinds.Kind | None, collector: Collector, root: Path) -> None:
    # A stack, not recursion: a tree may be nested deeper than Python's call stack (PATH_MAX allows 2,000 levels).
    stack = [folder]
    while stack:
        current = stack.pop()
        if kind is None:
            matched = [layout for layout in layouts() if layout.detect(current)]
            if matched:
                with failing_on(str(current)):
                    for layout in matched:
                        layout.check(current, collector, others=[other for other in matched if other is not layout])
                continue
        listing = entries(current, collector, root)
        for entry in listing:
            if not entry.is_folder and (kind is None or entry.path.suffix == "." + kind.syntax):
                collector.add(examine_file(entry.path, kind, explicit=False))
        stack.extend(entry.path for entry in reversed(listing) if entry.is_folder)
