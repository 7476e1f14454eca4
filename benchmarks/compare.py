"""Two checkouts of the package side by side: wall and CPU time of one validate command, in interleaved runs.

    python benchmarks/compare.py BEFORE_SRC AFTER_SRC PATH [--rounds N] [--jobs N]

BEFORE_SRC and AFTER_SRC are the ``src`` folders of two checkouts (a ``git worktree`` of an older commit, with its
native reader built in place by ``python setup.py build_ext --inplace``); both run with this interpreter, so they
share every dependency. PATH is what ``agentbeats-spec validate --no-cache`` checks: a generated tree
(benchmarks/generate.py) for throughput, one small file for start-up. The first round only warms the page cache.
Runs alternate, so a machine that gets busier slows both sides alike; the ratio is what to read. On a shared
machine, read the CPU time (user and system of the command and its workers): wall times move with the load.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _one_run(source: Path, target: Path, jobs: int) -> tuple[float, float]:
    """Wall and CPU time of one run."""
    environment = {**os.environ, "PYTHONPATH": str(source)}
    command = [sys.executable, "-m", "agentbeats_spec", "validate", "--no-cache", "--jobs", str(jobs), str(target)]
    cpu = _cpu()
    start = time.perf_counter()
    result = subprocess.run(command, env=environment, capture_output=True, check=False)
    took = time.perf_counter() - start
    cpu = _cpu() - cpu
    if result.returncode not in (0, 1):  # 1 is an invalid tree, which is still a measurement
        raise SystemExit(f"{source}: exit {result.returncode}\n{result.stderr.decode(errors='replace')[-2000:]}")
    return took, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("path", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1)
    arguments = parser.parse_args()
    sides = {"before": arguments.before, "after": arguments.after}
    times: dict[str, list[float]] = {name: [] for name in sides}
    cpus: dict[str, list[float]] = {name: [] for name in sides}
    for round_number in range(arguments.rounds + 1):
        for name, source in sides.items():
            took, cpu = _one_run(source, arguments.path, arguments.jobs)
            if round_number:
                times[name].append(took)
                cpus[name].append(cpu)
    for name, values in times.items():
        print(
            f"{name}: median {statistics.median(values):.3f} s, min {min(values):.3f} s over {len(values)} runs; "
            f"CPU median {statistics.median(cpus[name]):.3f} s, min {min(cpus[name]):.3f} s"
        )
    for label, measured in (("wall", times), ("CPU", cpus)):
        median = statistics.median(measured["after"]) / statistics.median(measured["before"])
        fastest = min(measured["after"]) / min(measured["before"])
        print(f"after/before ({label}): median {median:.3f}, min {fastest:.3f}")
    print(f"load average at the end: {' '.join(f'{load:.1f}' for load in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
