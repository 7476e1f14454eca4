"""What one mistake in every attempt costs: ``validate`` of a valid run against the same run with every trajectory's
``"schema_version": "ACTF_v1.0"`` removed (issue 38's harness), in interleaved rounds.

    python benchmarks/invalid_tree.py RUN [--rounds 5] [--formats text,json] [--jobs N]

RUN is an AgentCompass run (``benchmarks/agentcompass_writer.py RUN --tasks 3000``). Its invalid twin is made in a
temporary folder: hard links to RUN's files, but each ``result.json`` rewritten without the trajectory's
schema_version. Each round checks both trees with ``validate --no-cache`` in each format (output to a file, which
is then counted), alternately; each measure keeps its best and median wall time and the CPU time of its process
(workers included). The ratio invalid / valid is the figure issue 38 bounds at 2.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VERSION = '"schema_version": "ACTF_v1.0",\n    '


def invalid_twin(run: Path, into: Path) -> int:
    """A copy of ``run`` (hard links) whose attempts' trajectories lack their schema_version: how many."""
    changed = 0
    for source in sorted(run.rglob("*")):
        target = into / source.relative_to(run)
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        text = source.read_text(encoding="utf-8") if source.name == "result.json" else ""
        if VERSION in text:
            target.write_text(text.replace(VERSION, "", 1), encoding="utf-8")
            shutil.copystat(source, target)
            changed += 1
        else:
            os.link(source, target)
    return changed


def timed(tree: Path, expected: int, format_: str, jobs: str, out: Path) -> Measure:
    """Wall time, CPU time (the command and its workers), exit code and lines written of one validate."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "agentbeats_spec", "validate", "--no-cache", "--no-config", "--jobs", jobs]
    with out.open("wb") as sink:
        status = subprocess.run([*command, "--format", format_, str(tree)], stdout=sink, check=False).returncode
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    with out.open("rb") as written:
        lines = sum(1 for _ in written)
    if status != expected:  # a run that failed otherwise (exit 2 or 3) measures nothing
        raise SystemExit(f"validate of {tree} exited {status}")
    return wall, cpu, status, lines


Measure = tuple[float, float, int, int]


def summary(format_: str, measures: list[list[Measure]]) -> None:
    """The figures of one format: each tree's (valid, then invalid), then their ratio."""
    figures = []
    for name, runs in zip(("valid", "invalid"), measures, strict=True):
        walls, cpus = [run[0] for run in runs], [run[1] for run in runs]
        figures.append((min(walls), statistics.median(walls), statistics.median(cpus)))
        best, median, cpu = figures[-1]
        print(f"{format_:>5} {name:>7}: exit {runs[0][2]}, {runs[0][3]:>6} lines; wall best {best:6.2f} s, "
              f"median {median:6.2f} s; CPU median {cpu:6.2f} s")  # fmt: skip
    ratios = [invalid / valid for valid, invalid in zip(*figures, strict=True)]
    print(f"{format_:>5} invalid / valid: wall best {ratios[0]:.2f}x, median {ratios[1]:.2f}x; "
          f"CPU median {ratios[2]:.2f}x")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--formats", default="text,json")
    parser.add_argument("--jobs", default=str(os.cpu_count() or 1))
    arguments = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="agentbeats-invalid-"))
    try:
        changed = invalid_twin(arguments.run, work / "invalid")
        print(f"{changed} trajectories without their schema_version; --jobs {arguments.jobs}")
        trees = {"valid": (arguments.run, 0), "invalid": (work / "invalid", 1)}  # and their exit codes
        load = os.getloadavg()
        print(f"load average at the start: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")
        found: dict[tuple[str, str], list[Measure]] = {}
        for _ in range(arguments.rounds):
            for format_ in arguments.formats.split(","):
                for name, (tree, expected) in trees.items():
                    measure = timed(tree, expected, format_, arguments.jobs, work / "out")
                    found.setdefault((format_, name), []).append(measure)
        for format_ in arguments.formats.split(","):
            summary(format_, [found[format_, name] for name in trees])
        load = os.getloadavg()
        print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    finally:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
