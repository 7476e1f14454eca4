"""Peak memory of ``agentbeats-spec convert --to atif`` on one large ACTF trajectory, against ``orjson.loads``.

    python benchmarks/convert.py [--size-mb 200] [--seed 7] [--trajectory FILE]

Writes a trajectory of that size (the steps of benchmarks/generate.py: realistic string sizes, a megabyte
observation every 50 steps, tool calls with JSON text arguments, str(datetime) times) unless one is given, warms
the page cache, then measures in processes of their own:

- the floor: ``orjson.loads`` of the file's bytes, in a Python that imports nothing else;
- ours: the whole command (read, validate, convert, write the ATIF file atomically), and ``convert --from atif``
  of what it wrote.

It prints the peak resident memory of each and the ratio that docs/performance.md states (the goal: at most 2).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import Text, trajectory

PYTHON = sys.executable
PROBE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)\n"
)
FLOOR = "import sys, orjson\nfrom pathlib import Path\ndata = orjson.loads(Path(sys.argv[1]).read_bytes())\n"


def measure(command: list[str]) -> tuple[float, int]:
    """Wall time and peak memory (KiB) of a command, reported by a fresh Python that waits for it."""
    output = subprocess.run([PYTHON, "-c", PROBE, *command], capture_output=True, text=True, check=True).stdout
    elapsed, peak, code = output.split()
    if code != "0":
        raise SystemExit(f"{' '.join(command)} exited with {code}")
    return float(elapsed), int(peak)


def write_trajectory(path: Path, size_mb: float, seed: int) -> None:
    rng = random.Random(seed)
    text = Text(rng)
    steps: list[dict[str, object]] = []
    size = 0
    while size < size_mb * 1024**2:
        part = trajectory(rng, text, 50, huge=True)["steps"]
        for step in part:
            step["step_id"] = len(steps) + 1
            steps.append(step)
        size += len(json.dumps(part))
    document = {"schema_version": "ACTF_v1.0", "steps": steps, "started_at": steps[0]["started_at"],
                "finished_at": steps[-1]["finished_at"]}  # fmt: skip
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--trajectory", type=Path, help="an existing ACTF trajectory to convert instead")
    arguments = parser.parse_args()
    work = Path(os.environ.get("TMPDIR", "/tmp")) / "agentbeats-bench"
    work.mkdir(parents=True, exist_ok=True)
    source = arguments.trajectory or work / f"convert-{arguments.size_mb:g}mb.actf.json"
    if not source.exists():
        started = time.perf_counter()
        write_trajectory(source, arguments.size_mb, arguments.seed)
        print(f"wrote {source} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    size = source.stat().st_size
    source.read_bytes()  # warm the page cache
    output = work / "converted.atif.json"
    back = work / "back.actf.json"
    cli = [PYTHON, "-m", "agentbeats_spec", "convert"]
    floor_time, floor = measure([PYTHON, "-c", FLOOR, str(source)])
    ours_time, ours = measure([*cli, "--to", "atif", str(source), "-o", str(output)])
    back_time, back_peak = measure([*cli, "--from", "atif", str(output), "-o", str(back)])
    steps = json.loads(source.read_bytes())["steps"]
    written = output.stat().st_size / 1024**2
    print(f"trajectory: {size / 1024**2:.0f} MB, {len(steps):,} steps; ATIF file {written:.0f} MB")
    print("| measurement | time | peak memory | ratio to orjson.loads |")
    print("|---|---|---|---|")
    for name, elapsed, peak in (
        ("orjson.loads of the file (the floor)", floor_time, floor),
        ("**convert --to atif** (read, validate, convert, write)", ours_time, ours),
        ("convert --from atif of that file", back_time, back_peak),
    ):
        print(f"| {name} | {elapsed:.1f} s | {peak / 1024:,.0f} MiB | {peak / floor:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
