"""Where worker processes start to pay: ``--jobs 2`` with workers forced against one process, interleaved.

    python benchmarks/workers.py RUN [--tasks 100,300,1000,3000] [--rounds 3]

RUN is an AgentCompass run (benchmarks/agentcompass_writer.py). For each count of tasks, a run holding the first
that many task folders of RUN (hard links, in a temporary folder) is checked with ``--no-cache --jobs 2`` twice
per round: once with ``units/_running.py`` ``WORKERS_GAIN_BYTES`` at 0 (workers whatever the size) and once at
infinity (one process). Each keeps its best wall time; the ratio says where the threshold belongs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = sys.executable
FORCED = """
import sys
from agentbeats_spec.units import _running
_running.WORKERS_GAIN_BYTES = float(sys.argv[1])
from agentbeats_spec.cli import main
sys.exit(main(["validate", "--format", "json", "--no-cache", "--jobs", "2", sys.argv[2]]))
"""


def subset(run: Path, count: int, into: Path) -> tuple[Path, int]:
    tasks = sorted(task for state in sorted((run / "details").iterdir()) for task in state.iterdir())[:count]
    size = 0
    for task in tasks:
        target = into / "details" / task.parent.name / task.name
        shutil.copytree(task, target, copy_function=os.link)
        size += sum(path.stat().st_size for path in target.rglob("*") if path.is_file())
    return into, size


def timed(threshold: str, tree: Path) -> float:
    started = time.perf_counter()
    subprocess.run([PYTHON, "-c", FORCED, threshold, str(tree)], stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--tasks", default="100,300,1000,3000")
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="agentbeats-workers-"))
    trees = [subset(arguments.run, int(count), work / count) for count in arguments.tasks.split(",")]
    load = os.getloadavg()
    print(f"load average at the start: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")
    best: dict[tuple[Path, str], float] = {}
    for _ in range(arguments.rounds):
        for tree, _size in trees:
            for threshold in ("0", "inf"):
                best[tree, threshold] = min(best.get((tree, threshold), float("inf")), timed(threshold, tree))
    for tree, size in trees:
        one, two = best[tree, "inf"], best[tree, "0"]
        print(f"{tree.name:>6} tasks, {size / 1024**2:6.1f} MB: one process {one:6.2f} s, two workers {two:6.2f} s, "
              f"gain {one / two:4.2f}x")  # fmt: skip
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
