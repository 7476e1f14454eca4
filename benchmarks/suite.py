"""Issue 37's measures in interleaved rounds of one run: the floor, ours, Ajv, export and watch, on three trees.

    python benchmarks/suite.py [WORK] [--rounds 3] [--size-mb 512] [--tasks 3000] [--watch-tasks 3000]
                               [--no-watch] [--all]                                                 (make bench)

WORK (default /tmp/agentbeats-bench) gets, when missing: ``writer/``, 3,000 small tasks written by the released
AgentCompass 1.0.1 writer (``benchmarks/agentcompass_writer.py``); ``writer-long/``, 400 tasks of 100 to 400 steps by
the same writer; ``generated/valid``, ``benchmarks/generate.py --size-mb 512 --seed 7``. Then, in each round, every
measure of every tree runs once, in turn, in a process of its own (files in the page cache, the package compiled to
bytecode first, as an install has it); each keeps its best wall time and its best CPU time (user and system of the
process and its workers, from ``wait4``), so that a load that comes and goes skews all alike:

- **floor**: ``os.walk`` + read + ``orjson.loads`` of every ``*.json`` file, one core;
- **ours**: ``validate --no-cache --format json`` with ``--jobs 1`` and with the default jobs;
- **Ajv**: ``benchmarks/ajv_walk.mjs`` in Node, Ajv2020 compiled from our schemas (needs tests/node set up);
- **export**: ``export RUN --table attempts --to parquet``, its MB/s over the run's JSON bytes and its peak memory;
- **watch** (once per round, on the small tree's shape): the released writer writes the 3,000 small tasks
  (``agentcompass_writer.py``, at its full speed: the densest a run is written) while ``watch --format jsonl``
  looks at the run; when the writer is done the suite records the run's end (``finished_at`` in run_info.json,
  as ``write_terminal_status`` does) and the watch ends. Its CPU is compared with the writer's;
- **one small file**: ``validate`` of one file against ``python -c "import jsonschema"`` (medians).

It prints one table per tree and the targets of issue 37, met or not, and keeps everything in WORK/results.txt.
With ``--all`` it also runs benchmarks/run.py (the older tables of docs/performance.md: pure path, python-jsonschema,
the broken tree and the huge trajectory, made when missing). The load average is printed at the start and the end:
read the ratios, and on a loaded machine the CPU times.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PYTHON = sys.executable
CLI = [PYTHON, "-m", "agentbeats_spec"]
SMALL = ROOT / "fixtures" / "valid" / "abv3-repo" / "results" / "default" / "results.json"
FLOOR = """
import os, sys, orjson
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        if name.endswith(".json"):
            with open(os.path.join(folder, name), "rb") as file:
                orjson.loads(file.read())
"""


class Measured:
    """One command's best wall and CPU seconds and its largest peak memory over the rounds."""

    def __init__(self) -> None:
        self.wall = self.cpu = float("inf")
        self.peak_mib = 0.0

    def add(self, wall: float, cpu: float, peak_kib: int) -> None:
        self.wall, self.cpu = min(self.wall, wall), min(self.cpu, cpu)
        self.peak_mib = max(self.peak_mib, peak_kib / 1024)


def run(command: list[str], environment: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (the process and the children it waited for) and peak KiB of one command."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment)
    assert process.stderr is not None
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    took = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):  # 1: a tree with findings, still a measurement
        raise SystemExit(f"{' '.join(command)}: exit {process.returncode}\n{errors.decode(errors='replace')[-2000:]}")
    return took, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def json_bytes(tree: Path) -> tuple[int, int]:
    """The number and bytes of the tree's JSON files, read once (which warms the page cache)."""
    files = size = 0
    for folder, _, names in os.walk(tree):
        for name in names:
            if name.endswith(".json"):
                files += 1
                with open(os.path.join(folder, name), "rb") as file:
                    size += len(file.read())
    return files, size


def generated(work: Path, size_mb: int, tasks: int) -> dict[str, tuple[Path, Path]]:
    """The three trees (made when missing), each with the run that export reads in it."""
    small, long, valid = work / "writer", work / "writer-long", work / "generated" / "valid"
    writer = [PYTHON, str(HERE / "agentcompass_writer.py")]
    if not small.exists():
        subprocess.run([*writer, str(small), "--tasks", str(tasks)], check=True)
    if not long.exists():
        subprocess.run([*writer, str(long), "--tasks", "400", "--steps", "100:400"], check=True)
    if not valid.exists():
        subprocess.run([PYTHON, str(HERE / "generate.py"), str(valid), "--size-mb", str(size_mb), "--seed", "7"],
                       check=True)  # fmt: skip
    return {"small (writer, 3,000 tasks)": (small, small), "long (writer, 400 tasks)": (long, long),
            "generated": (valid, valid / "run")}  # fmt: skip


def finish(run_root: Path) -> None:
    """Record the run's end in run_info.json as ``write_terminal_status`` does (a new file renamed over it)."""
    info = json.loads((run_root / "run_info.json").read_text(encoding="utf-8"))
    info["status"], info["finished_at"] = "completed", "2026-12-02T00:00:00+00:00"
    staged = run_root / ".tmp.run_info.json.suite"
    staged.write_text(json.dumps(info, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(staged, run_root / "run_info.json")


def watched(scratch: Path, tasks: int) -> tuple[float, float, float]:
    """The writer's CPU, the watch's CPU and the writer's wall time, for one run written while watched."""
    root = scratch / "run"
    root.mkdir(parents=True)
    # the writer's run_info.json comes first, as a runner's prepare writes it; the watch starts on that
    watch = subprocess.Popen([*CLI, "watch", str(root), "--format", "jsonl", "--timeout", "3600"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    started = time.perf_counter()
    writer = subprocess.Popen([PYTHON, str(HERE / "agentcompass_writer.py"), str(root), "--tasks", str(tasks)],
                              stdout=subprocess.DEVNULL)  # fmt: skip
    _, status, writer_usage = os.wait4(writer.pid, 0)
    took = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("the writer failed")
    finish(root)
    _, _, watch_usage = os.wait4(watch.pid, 0)
    watch.returncode = 0
    writer.returncode = 0
    cpu = lambda usage: usage.ru_utime + usage.ru_stime  # noqa: E731
    return cpu(writer_usage), cpu(watch_usage), took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path, nargs="?", default=Path("/tmp/agentbeats-bench"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--size-mb", type=int, default=512)
    parser.add_argument("--tasks", type=int, default=3000)
    parser.add_argument("--watch-tasks", type=int, default=3000, help="tasks the writer writes while watched")
    parser.add_argument("--no-watch", action="store_true", help="leave out the watch (minutes a round)")
    parser.add_argument("--all", action="store_true", help="also the older tables (benchmarks/run.py)")
    arguments = parser.parse_args()
    work: Path = arguments.work
    work.mkdir(parents=True, exist_ok=True)
    trees = generated(work, arguments.size_mb, arguments.tasks)
    lines: list[str] = []

    def say(line: str = "") -> None:
        print(line, flush=True)
        lines.append(line)

    scratch = Path(tempfile.mkdtemp(prefix="agentbeats-suite-"))
    try:
        measure(arguments, trees, scratch, say)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    (work / "results.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if arguments.all:
        older(work, trees, arguments.size_mb)
    return 0


def older(work: Path, trees: dict[str, tuple[Path, Path]], size_mb: int) -> None:
    """The older tables of docs/performance.md (benchmarks/run.py): the generated tree with its twin of 1% broken
    files and a 200 MB trajectory (made when missing), and the writer's small run."""
    valid, broken, huge = trees["generated"][0], work / "generated" / "broken", work / "huge.actf.json"
    if not broken.exists():
        subprocess.run([PYTHON, str(HERE / "generate.py"), str(broken), "--size-mb", str(size_mb), "--seed", "7",
                        "--broken-percent", "1", "--huge-trajectory-mb", "200"], check=True)  # fmt: skip
        (broken / "huge.actf.json").rename(huge)
    run = [PYTHON, str(HERE / "run.py")]
    subprocess.run([*run, str(valid), "--broken", str(broken), "--huge", str(huge), "--skip-check-jsonschema"],
                   check=True)  # fmt: skip
    subprocess.run([*run, str(trees["small (writer, 3,000 tasks)"][0]), "--skip-check-jsonschema"], check=True)


def commands(
    trees: dict[str, tuple[Path, Path]], scratch: Path, ajv: list[str] | None
) -> dict[str, dict[str, list[str]]]:
    """Per tree, the commands of the measures, by name."""
    measures: dict[str, dict[str, list[str]]] = {}
    validate = [*CLI, "validate", "--format", "json", "--no-cache"]
    export = [*CLI, "export", "--table", "attempts", "--to", "parquet", "-o", str(scratch / "attempts.parquet")]
    for name, (tree, run_root) in trees.items():
        measures[name] = {
            "floor": [PYTHON, "-c", FLOOR, str(tree)],
            "ours --jobs 1": [*validate, "--jobs", "1", str(tree)],
            "ours default jobs": [*validate, str(tree)],
            **({"Ajv": [*ajv, str(tree)]} if ajv else {}),
            "export (Parquet)": [*export, str(run_root)],
        }
    return measures


def measure(arguments: argparse.Namespace, trees: dict[str, tuple[Path, Path]], scratch: Path,
            say: Callable[[str], None]) -> None:  # fmt: skip
    sys.path.insert(0, str(HERE))
    from side_by_side import catalog

    # the package the commands import (PYTHONPATH may name another checkout's src), compiled as an install has it
    package = subprocess.run([PYTHON, "-c", "import agentbeats_spec; print(agentbeats_spec.__path__[0])"],
                             capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    subprocess.run([PYTHON, "-m", "compileall", "-q", package], stdout=subprocess.DEVNULL, check=True)
    node = shutil.which("node")
    ajv = None
    if node and (ROOT / "tests" / "node" / "node_modules").is_dir():
        catalog(scratch / "catalog.json")
        ajv = [node, str(HERE / "ajv_walk.mjs"), str(scratch / "catalog.json")]
    load = os.getloadavg()
    say(f"package: {package}")
    say(f"load average at the start: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")  # fmt: skip
    sizes = {name: (json_bytes(tree), json_bytes(run_root)) for name, (tree, run_root) in trees.items()}
    measures = commands(trees, scratch, ajv)
    found = {(tree, name): Measured() for tree, named in measures.items() for name in named}
    starts: dict[str, list[float]] = {"ours, one small file": [], "python -c 'import jsonschema'": []}
    watching: list[tuple[float, float, float]] = []
    for round_number in range(arguments.rounds):
        for _ in range(5):
            starts["ours, one small file"].append(run([*CLI, "validate", "--no-cache", str(SMALL)])[0])
            starts["python -c 'import jsonschema'"].append(run([PYTHON, "-c", "import jsonschema"])[0])
        for tree, named in measures.items():
            for name, command in named.items():
                found[tree, name].add(*run(command))
        if not arguments.no_watch:
            folder = scratch / f"watch-{round_number}"
            watching.append(watched(folder, arguments.watch_tasks))
            shutil.rmtree(folder, ignore_errors=True)
        say(f"round {round_number + 1} of {arguments.rounds} done, load {os.getloadavg()[0]:.1f}")
    report(measures, found, sizes, starts, watching, arguments, say)


def report(
    measures: dict[str, dict[str, list[str]]],
    found: dict[tuple[str, str], Measured],
    sizes: dict[str, tuple[tuple[int, int], tuple[int, int]]],
    starts: dict[str, list[float]],
    watching: list[tuple[float, float, float]],
    arguments: argparse.Namespace,
    say: Callable[[str], None],
) -> None:
    say(f"\nbest of {arguments.rounds} interleaved rounds; wall (CPU); MB/s by wall time")
    say("\n| tree | measure | wall | CPU | MB/s | peak memory |\n|---|---|---|---|---|---|")
    for tree, named in measures.items():
        (files, size), (_, run_size) = sizes[tree]
        for name in named:
            got = found[tree, name]
            megabytes = (run_size if name.startswith("export") else size) / 1e6
            say(f"| {tree}: {files:,} files, {size / 1e6:.0f} MB | {name} | {got.wall:.2f} s | {got.cpu:.2f} s | "
                f"{megabytes / got.wall:.0f} | {got.peak_mib:.0f} MiB |")  # fmt: skip
    say("\n| tree | ours one core / floor | ours one core / Ajv | ours default jobs / Ajv | export MB/s / validate's |")
    say("|---|---|---|---|---|")
    for tree in measures:
        (_, size), (_, run_size) = sizes[tree]
        one, default, floor = found[tree, "ours --jobs 1"], found[tree, "ours default jobs"], found[tree, "floor"]
        peer = found.get((tree, "Ajv"))
        ajv_one = f"{peer.wall / one.wall:.2f}x (CPU {peer.cpu / one.cpu:.2f}x)" if peer else "-"
        ajv_default = f"{peer.wall / default.wall:.2f}x" if peer else "-"
        export = (run_size / found[tree, "export (Parquet)"].wall) / (size / one.wall)
        say(f"| {tree} | {floor.wall / one.wall:.2f} (CPU {floor.cpu / one.cpu:.2f}) | {ajv_one} | {ajv_default} | "
            f"{export:.2f} |")  # fmt: skip
    say("\ntargets: one core >= 1.0x Ajv and >= 0.6 of the floor on the small tree (aim 1.5x, 0.8); default jobs")
    say("on two cores >= 1.6x Ajv on both writer's trees; the long tree >= 1.21x Ajv; export >= 0.5 of validate's MB/s")
    if watching:
        writer_cpu, watch_cpu, wall = min(watching, key=lambda each: each[1])
        say(f"\nwatch beside the released writer writing {arguments.watch_tasks} tasks (best of {len(watching)}): "
            f"writer {wall:.1f} s wall, {writer_cpu:.2f} s CPU; watch {watch_cpu:.2f} s CPU = "
            f"{watch_cpu / writer_cpu:.2f} of the writer's (target <= 0.10)")  # fmt: skip
    baseline = statistics.median(starts["python -c 'import jsonschema'"])
    for name, times in starts.items():
        median = statistics.median(times)
        say(f"{name}: {median * 1000:.0f} ms, {median / baseline:.2f} of import jsonschema (target <= 1.0)")
    load = os.getloadavg()
    say(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    sys.exit(main())
