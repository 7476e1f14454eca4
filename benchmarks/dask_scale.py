"""Measure the Dask path beside --jobs, and the per-unit figures of the 100-worker model in docs/performance.md.

    python benchmarks/dask_scale.py TREE [--repeat 2] [--sample 400]

TREE is made by benchmarks/generate.py. All in one run, on files already in the page cache (a warm-up pass
reads them first), best of ``--repeat`` each:

- wall time of one tree's check: ``--jobs 1`` and ``--jobs 2`` (``check_paths``, what ``validate`` runs), and
  ``validate_with_dask`` on a ``distributed.LocalCluster`` of 1 and of 2 worker processes (one thread each;
  cluster start-up measured apart), with the default batching and with one unit per Dask task;
- per unit: bytes read, check time in one process, the cost of the copy a worker makes of a remote unit (fsspec's
  local filesystem standing in for object storage: the copy without the network), and the pickled size of what a
  unit sends back;
- the scheduler's overhead per task: no-op tasks through the 2-worker cluster;
- the walk (planning) on the client, and the reduce.
"""

from __future__ import annotations

import argparse
import logging
import os
import pickle
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentbeats_spec.application._tree_check import check_paths, plan, reduce
from agentbeats_spec.distributed import _check_copy, _Source, validate_with_dask
from agentbeats_spec.units._plan import Unit
from agentbeats_spec.units._running import run_unit
from agentbeats_spec.vocabulary._settings import current


def best(repeat: int, action: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def unit_bytes(unit: Unit) -> int:
    if unit.path.is_file():
        return unit.path.stat().st_size
    total = 0
    for folder, _, files in os.walk(unit.path):
        total += sum((Path(folder) / name).stat().st_size for name in files)
    return total


def noop(value: int) -> int:
    return value


def percentiles(values: list[float]) -> str:
    ordered = sorted(values)
    return (
        f"mean {statistics.fmean(ordered):,.1f}, median {ordered[len(ordered) // 2]:,.1f}, "
        f"95th {ordered[int(len(ordered) * 0.95)]:,.1f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--sample", type=int, default=400, help="units timed one by one for the per-unit figures")
    arguments = parser.parse_args()
    tree: Path = arguments.tree.resolve()
    import fsspec
    from distributed import Client, LocalCluster

    size = sum(path.stat().st_size for path in tree.rglob("*") if path.is_file())
    print(f"tree: {tree} ({size / 1e6:,.0f} MB)")
    check_paths([tree])  # warm-up: the page cache holds the tree

    plan_time = best(arguments.repeat, lambda: plan([tree]))
    planned = plan([tree])
    units = planned.units
    by_check = Counter(unit.check.__name__ for unit in units)
    print(f"units: {len(units):,} ({', '.join(f'{count} {name}' for name, count in by_check.items())})")
    print(f"planning (names only): {plan_time:.2f} s, {plan_time / len(units) * 1e3:.3f} ms per unit")

    step = max(1, len(units) // arguments.sample)
    sample = units[::step]
    settings = current()
    sizes = [unit_bytes(unit) / 1e3 for unit in sample]
    checked, copied, back = [], [], []
    local_fs = _Source(tree, fsspec.filesystem("file"))
    for unit in sample:
        started = time.perf_counter()
        part = run_unit(unit, settings)
        checked.append((time.perf_counter() - started) * 1e3)
        started = time.perf_counter()
        _check_copy(local_fs, unit, settings)
        copied.append((time.perf_counter() - started) * 1e3)
        back.append(len(pickle.dumps(part, protocol=5)) / 1e3)
    print(f"per unit, {len(sample)} units sampled evenly:")
    print(f"  bytes read (kB): {percentiles(sizes)}")
    print(f"  check time, one process (ms): {percentiles(checked)}")
    print(f"  check from a worker's copy, copy included (ms): {percentiles(copied)}")
    print(f"  sent back, pickled (kB): {percentiles(back)}")
    facts = [fact for unit in units for fact in run_unit(unit, settings).facts]
    reduce_time = best(arguments.repeat, lambda: reduce(facts))
    print(f"reduce over {len(facts):,} facts: {reduce_time * 1e3:.1f} ms")

    clients = {}
    for workers in (1, 2):
        started = time.perf_counter()
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.ERROR)  # fmt: skip
        clients[workers] = Client(cluster, set_as_default=False)
        print(f"LocalCluster of {workers} worker(s) started in {time.perf_counter() - started:.1f} s")
        validate_with_dask(tree, client=clients[workers])  # warm-up: workers import the package
    count = 4000

    def noops(client: Any = clients[2], count: int = count) -> None:
        client.gather(client.map(noop, range(count), pure=False))

    overhead = best(arguments.repeat, noops) / count
    print(f"scheduler overhead: {overhead * 1e3:.3f} ms per task ({count} no-op tasks, 2 workers)")

    measurements: dict[str, Callable[[], Any]] = {
        "--jobs 1": lambda: check_paths([tree], jobs=1),
        "--jobs 2": lambda: check_paths([tree], jobs=2),
    }
    for workers, client in clients.items():
        measurements[f"Dask, {workers} worker(s), default batching"] = lambda client=client: validate_with_dask(
            tree, client=client
        )
        measurements[f"Dask, {workers} worker(s), 1 unit per task"] = lambda client=client: validate_with_dask(
            tree, client=client, npartitions=len(units)
        )
    # Rounds of every measurement in turn, best of the rounds: a shared machine's load drifts.
    times: dict[str, float] = {}
    for _ in range(arguments.repeat):
        for label, action in measurements.items():
            times[label] = min(times.get(label, float("inf")), best(1, action))
    rows = list(times.items())
    for client in clients.values():
        cluster = client.cluster
        client.close()
        cluster.close()

    print()
    print("| measurement | time | MB/s | units/s |")
    print("|---|---|---|---|")
    for label, seconds in rows:
        print(f"| {label} | {seconds:.2f} s | {size / 1e6 / seconds:,.0f} | {len(units) / seconds:,.0f} |")
    base = dict(rows)
    print()
    print(f"2 workers / 1 worker (Dask, time): {base[rows[4][0]] / base[rows[2][0]]:.2f}")
    print(f"--jobs 2 / --jobs 1 (time): {base['--jobs 2'] / base['--jobs 1']:.2f}")
    print(f"Dask 2 workers / --jobs 2 (time): {base[rows[4][0]] / base['--jobs 2']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
