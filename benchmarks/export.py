"""Speed and peak memory of ``agentbeats-spec export`` on whole runs, against reading the same files with orjson.

    python benchmarks/export.py RUN [RUN ...] [--rounds 3] [--table attempts] [--to parquet] [--before SRC]

For each run (make them with ``benchmarks/generate.py OUT --size-mb 182`` (its ``OUT/run``) and
``benchmarks/agentcompass_writer.py OUT --tasks 3000``), after warming the page cache, in processes of their own
and in interleaved rounds (each measure keeps its best time, so that a load that comes and goes skews them alike):

- the floor: ``orjson.loads`` of every JSON file of the run, in a Python that imports nothing else;
- ``validate RUN --no-cache`` with the default jobs and with ``--jobs 1``: issue 37 asks export for half of
  validate's MB/s on the same tree;
- ours: the whole command, ``export RUN --table T --to F -o FILE`` (one pass over the runs), for each format
  asked; with ``--before SRC`` (the ``src`` folder of another checkout, its native modules built), the same
  command of that checkout too.

It prints MB/s of the run's JSON bytes, of the wall time and of the CPU time (user and system: steadier than the
wall time on a shared machine), and the peak resident memory of each, as docs/performance.md states them.
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
    "import os, resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "env = {**os.environ, 'PYTHONPATH': sys.argv[1]} if sys.argv[1] else None\n"
    "subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, check=True, env=env)\n"
    "used = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(time.perf_counter() - t, used.ru_maxrss, used.ru_utime + used.ru_stime)\n"
)
FLOOR = (
    "import orjson, os, sys\n"
    "for folder, _, names in os.walk(sys.argv[1]):\n"
    "    for name in names:\n"
    "        if name.endswith('.json'):\n"
    "            with open(os.path.join(folder, name), 'rb') as f: orjson.loads(f.read())\n"
)


def measure(command: list[str], source: str = "") -> tuple[float, int, float]:
    """Wall time (s), peak resident memory (KiB) and CPU time (s) of a command, from a fresh Python that waits for
    it; ``source``: the package's folder to import it from (else the installed one)."""
    output = subprocess.run([PYTHON, "-c", PROBE, source, *command], capture_output=True, text=True, check=True).stdout
    elapsed, peak, cpu = output.split()
    return float(elapsed), int(peak), float(cpu)


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
    parser.add_argument("--before", default="", help="the src folder of another checkout, measured beside")
    arguments = parser.parse_args()
    cli = [PYTHON, "-m", "agentbeats_spec"]
    with tempfile.TemporaryDirectory() as folder:
        for run in arguments.runs:
            count, size = json_bytes(run)
            commands = {
                "orjson.loads of every file (floor)": ("", [PYTHON, "-c", FLOOR, str(run)]),
                "validate --no-cache": ("", [*cli, "validate", str(run), "--no-cache", "-q"]),
                "validate --no-cache --jobs 1": ("", [*cli, "validate", str(run), "--no-cache", "-q", "--jobs", "1"]),
            }
            for to in arguments.to:
                output = str(Path(folder) / f"out.{to}")
                export = ["export", str(run), "--table", arguments.table, "--to", to, "-o", output]
                commands[f"export --table {arguments.table} --to {to}"] = ("", [*cli, *export])
                if arguments.before:
                    commands[f"(before) export --table {arguments.table} --to {to}"] = (
                        arguments.before,
                        [*cli, *export],
                    )
            measures: dict[str, list[tuple[float, int, float]]] = {}
            for _ in range(arguments.rounds):
                for name, (source, command) in commands.items():
                    measures.setdefault(name, []).append(measure(command, source))
            print(f"{run}: {count} JSON files, {size / 1e6:.0f} MB")
            print("| measurement | best time | MB/s | best CPU time | MB/s of CPU | peak memory |")
            print("|---|---|---|---|---|---|")
            for name, found in measures.items():
                best = min(elapsed for elapsed, _, _ in found)
                cpu = min(used for _, _, used in found)
                peak = max(memory for _, memory, _ in found)
                mb = size / 1e6
                times = f"{best:.2f} s | {mb / best:.0f} | {cpu:.2f} s | {mb / cpu:.0f}"
                print(f"| {name} | {times} | {peak / 1024:.0f} MiB |")
            rows = Path(folder) / "out.parquet"
            if rows.exists():
                print(f"(the Parquet file: {rows.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
