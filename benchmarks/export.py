"""Speed and peak memory of ``agentbeats-spec export`` on whole runs, against reading the same files with orjson.

    python benchmarks/export.py RUN [RUN ...] [--rounds 3] [--table attempts] [--to parquet]

For each run (make them with ``benchmarks/generate.py OUT --size-mb 182`` (its ``OUT/run``) and
``benchmarks/agentcompass_writer.py OUT --tasks 3000``), after warming the page cache, in processes of their own
and in interleaved rounds (each measure keeps its best time, so that a load that comes and goes skews them alike):

- the floor: ``orjson.loads`` of every JSON file of the run, in a Python that imports nothing else;
- ours: the whole command, ``export RUN --table T --to F -o FILE`` (two passes over the attempts for the tasks
  and attempts tables: the metric columns first, then the rows), for each format asked.

It prints MB/s of the run's JSON bytes and the peak resident memory of each, as docs/performance.md states them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

PYTHON = sys.executable
PROBE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)\n"
    "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)
FLOOR = (
    "import orjson, os, sys\n"
    "for folder, _, names in os.walk(sys.argv[1]):\n"
    "    for name in names:\n"
    "        if name.endswith('.json'):\n"
    "            with open(os.path.join(folder, name), 'rb') as f: orjson.loads(f.read())\n"
)


def measure(command: list[str]) -> tuple[float, int]:
    """Wall time (s) and peak resident memory (KiB) of a command, from a fresh Python that waits for it."""
    output = subprocess.run([PYTHON, "-c", PROBE, *command], capture_output=True, text=True, check=True).stdout
    elapsed, peak = output.split()
    return float(elapsed), int(peak)


def json_bytes(run: Path) -> tuple[int, int]:
    files = [Path(folder) / name for folder, _, names in os.walk(run) for name in names if name.endswith(".json")]
    for file in files:  # warm the page cache
        file.read_bytes()
    return len(files), sum(file.stat().st_size for file in files)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--table", default="attempts")
    parser.add_argument("--to", nargs="+", default=["parquet", "csv", "jsonl"])
    arguments = parser.parse_args()
    cli = [PYTHON, "-m", "agentbeats_spec"]
    with tempfile.TemporaryDirectory() as folder:
        for run in arguments.runs:
            count, size = json_bytes(run)
            measures: dict[str, list[tuple[float, int]]] = {}
            commands = {"orjson.loads of every file (floor)": [PYTHON, "-c", FLOOR, str(run)]}
            for to in arguments.to:
                output = str(Path(folder) / f"out.{to}")
                commands[f"export --table {arguments.table} --to {to}"] = [
                    *cli, "export", str(run), "--table", arguments.table, "--to", to, "-o", output,
                ]  # fmt: skip
            for _ in range(arguments.rounds):
                for name, command in commands.items():
                    measures.setdefault(name, []).append(measure(command))
            print(f"{run}: {count} JSON files, {size / 1e6:.0f} MB")
            print("| measurement | best time | MB/s | peak memory |\n|---|---|---|---|")
            for name, found in measures.items():
                best = min(elapsed for elapsed, _ in found)
                peak = max(memory for _, memory in found)
                print(f"| {name} | {best:.2f} s | {size / 1e6 / best:.0f} | {peak / 1024:.0f} MiB |")
            rows = Path(folder) / "out.parquet"
            if rows.exists():
                print(f"(the Parquet file: {rows.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
