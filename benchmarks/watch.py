"""What watching a run costs: the released AgentCompass 1.0.1 writer writes N tasks, alone and watched.

    nice python benchmarks/watch.py [--tasks 100 400] [--rounds 3]
    nice python benchmarks/watch.py --pace 0.02 [--tasks 3000] [--rounds 2]

For each N, in interleaved rounds (each keeping its best): the writer's wall time unwatched and watched by
``agentbeats-spec watch --format jsonl`` in a process of its own, the CPU seconds the watch process spent, and
the delay from the writer's last write (the terminal status in run_info.json) to the watch's exit (the final
check included). The writer is tests/watching/writer.py (a retry record, progress events and
``RunLayout.write_result`` per task).

With ``--pace SECONDS``, the writer is ``benchmarks/agentcompass_writer.py --pace`` (the small tree of the export
and validate benchmarks, a task every SECONDS with its progress events) and the figures are each process's own CPU
seconds (``os.wait4``): the writer's, the watch's, and their ratio, the target of issue 37 (at most 10 %).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENVIRONMENT = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}


def writer(root: Path, tasks: int) -> subprocess.Popen[bytes]:
    handshake = root.parent / "handshake"
    return subprocess.Popen(
        [sys.executable, "-m", "tests.watching.writer", str(root), str(handshake), "0", str(tasks - 1), "-1"],
        cwd=ROOT, env=ENVIRONMENT,
    )  # fmt: skip


def unwatched(folder: Path, tasks: int) -> float:
    root = folder / "alone" / "run"
    start = time.perf_counter()
    assert writer(root, tasks).wait() == 0
    return time.perf_counter() - start


def watched(folder: Path, tasks: int) -> tuple[float, float, float]:
    """The writer's wall time, the watch's CPU seconds, the delay from the run's end to the watch's exit."""
    root = folder / "watched" / "run"
    root.mkdir(parents=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    watch = subprocess.Popen(
        [sys.executable, "-m", "agentbeats_spec", "watch", str(root), "--format", "jsonl", "--timeout", "3600"],
        stdout=subprocess.DEVNULL, env=ENVIRONMENT,
    )  # fmt: skip
    start = time.perf_counter()
    assert writer(root, tasks).wait() == 0
    written = time.perf_counter()
    watch.wait()
    ended = time.time()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # the children's CPU: the writer's and the watch's together; the writer's alone is measured unwatched
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    # the end: when write_terminal_status replaced run_info.json, the writer's last write
    return written - start, cpu, ended - os.stat(root / "run_info.json").st_mtime


def writer_cpu(folder: Path, tasks: int) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    unwatched(folder, tasks)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def cpu_of(process: subprocess.Popen[bytes]) -> float:
    """The CPU seconds a child process spent (user and system), once it has ended."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.returncode in (0, 1), process.args
    return usage.ru_utime + usage.ru_stime


def paced(folder: Path, tasks: int, pace: float) -> tuple[float, float, float]:
    """The paced writer's CPU seconds, the watch's, and the delay from the run's end to the watch's exit."""
    root = folder / "run"
    watch = subprocess.Popen(
        [sys.executable, "-m", "agentbeats_spec", "watch", str(root), "--format", "jsonl", "--timeout", "3600"],
        stdout=subprocess.DEVNULL, env=ENVIRONMENT,
    )  # fmt: skip
    writer = subprocess.Popen(
        [sys.executable, str(ROOT / "benchmarks" / "agentcompass_writer.py"), str(root), "--tasks", str(tasks),
         "--pace", str(pace)],
        stdout=subprocess.DEVNULL, env=ENVIRONMENT,
    )  # fmt: skip
    written = cpu_of(writer)
    watched = cpu_of(watch)
    return written, watched, time.time() - os.stat(root / "run_info.json").st_mtime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, nargs="+", default=[100, 400])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pace", type=float, metavar="SECONDS", help="the paced writer of the small tree")
    arguments = parser.parse_args()
    if arguments.pace is not None:
        print("| tasks | pace | writer CPU | watch CPU | watch / writer | end to exit |")
        print("|---|---|---|---|---|---|")
        for tasks in arguments.tasks:
            for _ in range(arguments.rounds):
                with tempfile.TemporaryDirectory() as scratch:
                    written, watched, delay = paced(Path(scratch), tasks, arguments.pace)
                print(f"| {tasks} | {arguments.pace} s | {written:.2f} s | {watched:.2f} s | "
                      f"{100 * watched / written:.1f} % | {delay:.2f} s |", flush=True)  # fmt: skip
        return
    print("| tasks | writer alone | writer watched | watch CPU | end to exit |")
    print("|---|---|---|---|---|")
    for tasks in arguments.tasks:
        alone, alone_cpu, wall, cpu, delay = [], [], [], [], []
        for _ in range(arguments.rounds):
            with tempfile.TemporaryDirectory() as scratch:
                alone_cpu.append(writer_cpu(Path(scratch), tasks))
            with tempfile.TemporaryDirectory() as scratch:
                alone.append(unwatched(Path(scratch), tasks))
            with tempfile.TemporaryDirectory() as scratch:
                seconds, both, end = watched(Path(scratch), tasks)
            wall.append(seconds)
            cpu.append(both - min(alone_cpu))
            delay.append(end)
        print(f"| {tasks} | {min(alone):.2f} s | {min(wall):.2f} s | {min(cpu):.2f} s | {min(delay):.2f} s |")


if __name__ == "__main__":
    main()
