"""Running a plan's units: here, in worker processes, or from the verdict cache; in the plan's order.

``run_unit`` is where a unit's settings are applied (``vocabulary._settings.applied``): inside a unit's run,
``current()`` is the one carrier of them, in any process. Whoever runs units passes the settings of the run.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from typing import Any

from ..checking._collect import Collector, Part, failing_on
from ..reading._bounded import confined
from ..vocabulary._settings import Settings, applied
from ._plan import Unit


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


def run_here(units: list[Unit], settings: Settings, jobs: int = 1, cache: Any = None) -> Iterator[Part]:
    """The parts of the units, in their order, checked with ``settings``: in this process, or in ``jobs`` worker
    processes.

    With a ``cache`` (a ``_cache.VerdictCache``), the part of a folder unit whose every entry ``lstat`` the same
    is taken from it. Workers start only when the units left to check hold at least ``WORKERS_GAIN_BYTES``:
    below that, starting them and moving parts between processes costs more than it gains. Without a cache, a
    sample of ``SIZE_SAMPLE`` units is sized first; a tree it puts below that is not sized further.
    """
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
        yield from _in_workers(units, settings, todo, sizes, found, keys, jobs, cache)
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
    settings: Settings,
    todo: list[int],
    sizes: list[int],
    found: dict[int, Part],
    keys: list[str | None],
    jobs: int,
    cache: Any,
) -> Iterator[Part]:
    import multiprocessing  # only with workers: a one-file check does not pay for the import
    from concurrent.futures import Future, ProcessPoolExecutor

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
