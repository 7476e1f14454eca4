"""Ours against Ajv and the floor, side by side, in interleaved rounds of one run (issue 24).

    python benchmarks/side_by_side.py TREE [TREE ...] [--rounds 3] [--before SRC]

Each of the measures walks the tree itself, on files the page cache already holds, one process each:

- floor: ``os.walk`` + read + ``orjson.loads`` of every ``*.json`` file, one core;
- ours ``validate --jobs 1 --no-cache`` and ours with the default jobs (``--no-cache``);
- ours warm: ``--jobs 1`` with a verdict cache filled by a first run on the unchanged tree;
- Ajv: benchmarks/ajv_walk.mjs in Node, Ajv2020 compiled from our schemas (needs tests/node set up: make test);
- start-up: ours on one small file against ``python -c "import jsonschema"`` (medians).

The package's sources are compiled to bytecode first (``compileall``), as an install does: this machine's
environment sets ``PYTHONDONTWRITEBYTECODE``, and without bytecode every run of ours compiles its modules again
(0.1 to 0.2 s), which python-jsonschema, installed with its bytecode, never pays.

Every round runs every measure of every tree once, in turn; each keeps its best wall time, so that a load that
comes and goes skews them alike; the best CPU time of each (user and system, its worker processes included) is
printed beside it, which a loaded machine distorts less. The load average is printed at the start and the end.
With ``--before SRC`` (the ``src`` folder of an older checkout, its native reader built in place), ours is
measured for both, interleaved.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
CLI = [PYTHON, "-m", "agentbeats_spec", "validate", "--format", "json"]

FLOOR = """
import os, sys, orjson
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        if name.endswith(".json"):
            with open(os.path.join(folder, name), "rb") as file:
                orjson.loads(file.read())
"""


def catalog(path: Path) -> None:
    """Our schemas and, per kind, what tells it by its path: for ajv_walk.mjs."""
    sys.path.insert(0, str(ROOT / "src"))
    from agentbeats_spec.checking import _kinds, _schemas

    kinds = [
        {"globs": list(kind.file_match), "run_root_file": kind.run_root_file, "schema": kind.latest}
        for kind in _kinds.KINDS.values()
    ]
    schemas = [_schemas.contents(schema_id) for schema_id in _schemas.documents()]
    path.write_text(json.dumps({"schemas": schemas, "kinds": kinds}), encoding="utf-8")


def tree_size(tree: Path) -> tuple[int, int]:
    files = size = 0
    for folder, _, names in os.walk(tree):
        for name in names:
            if name.endswith(".json"):
                files += 1
                with open(os.path.join(folder, name), "rb") as file:  # warms the page cache too
                    size += len(file.read())
    return files, size


CPU: dict[tuple[str, ...], float] = {}  # the best CPU time (user + system, children included) of each command


def timed(command: list[str], source: str | None = None) -> float:
    """Wall time of one run; its CPU time goes to ``CPU`` (what a loaded machine distorts least)."""
    environment = {**os.environ, "PYTHONPATH": source} if source else None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False, env=environment)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    key = (source or "", *command)
    CPU[key] = min(CPU.get(key, float("inf")), cpu)
    if done.returncode not in (0, 1):  # 1: a tree with findings, still a measurement
        raise SystemExit(f"{' '.join(command)}: exit {done.returncode}\n{done.stderr.decode(errors='replace')[-2000:]}")
    return took


def compiled(source: Path) -> None:
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(source)], stdout=subprocess.DEVNULL, check=True)


SMALL = ROOT / "fixtures" / "valid" / "abv3-repo" / "results" / "default" / "results.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", type=Path, nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", help="the src folder of an older checkout: ours measured for it too")
    arguments = parser.parse_args()
    node = shutil.which("node")
    work = Path(tempfile.mkdtemp(prefix="agentbeats-side-"))
    catalog(work / "catalog.json")
    here = next((Path(part) for part in os.environ.get("PYTHONPATH", "").split(os.pathsep) if part), ROOT / "src")
    for source in (here, *([Path(arguments.before)] if arguments.before else [])):
        compiled(source)
    ajv = [node, str(ROOT / "benchmarks" / "ajv_walk.mjs"), str(work / "catalog.json")] if node else None
    load = os.getloadavg()
    print(f"load average at the start: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")
    measures: dict[Path, list[tuple[str, list[str], str | None]]] = {}
    sources = [("", None), *([("before: ", arguments.before)] if arguments.before else [])]
    sizes = {}
    for tree in arguments.trees:
        sizes[tree] = tree_size(tree)
        measures[tree] = [("floor", [PYTHON, "-c", FLOOR, str(tree)], None)]
        for label, source in sources:
            cache = work / f"cache-{len(measures)}-{label.strip(': ')}"
            fill = [*CLI, "--cache", str(cache), "--jobs", "1", str(tree)]
            timed(fill, source)
            measures[tree] += [
                (f"{label}ours --jobs 1", [*CLI, "--no-cache", "--jobs", "1", str(tree)], source),
                (f"{label}ours default jobs", [*CLI, "--no-cache", str(tree)], source),
                (f"{label}ours warm (--jobs 1)", fill, source),
            ]
        if ajv is not None:
            measures[tree].append(("Ajv", [*ajv, str(tree)], None))
            print(f"{tree}: Ajv counts {subprocess.run([*ajv, str(tree)], capture_output=True, text=True).stdout}",
                  end="")  # fmt: skip
    best: dict[tuple[Path, str], float] = {}
    cpu: dict[tuple[Path, str], float] = {}
    starts: dict[str, list[float]] = {}
    for _ in range(arguments.rounds):
        for _ in range(5):
            for label, source in sources:
                one = [*CLI, "--no-cache", str(SMALL)]
                starts.setdefault(f"{label}ours, one small file", []).append(timed(one, source))
            starts.setdefault("python -c 'import jsonschema'", []).append(timed([PYTHON, "-c", "import jsonschema"]))
        for tree, rows in measures.items():
            for name, command, source in rows:
                best[tree, name] = min(best.get((tree, name), float("inf")), timed(command, source))
                cpu[tree, name] = CPU[(source or "", *command)]
    for tree, rows in measures.items():
        files, size = sizes[tree]
        megabytes = size / 1024**2
        print(f"\n{tree}: {files} JSON files, {megabytes:.0f} MB (best of {arguments.rounds})")
        for name, _, _ in rows:
            elapsed = best[tree, name]
            print(f"  {name:<30} {elapsed:7.2f} s {megabytes / elapsed:7.1f} MB/s {files / elapsed:8.0f} files/s"
                  f"   CPU {cpu[tree, name]:6.2f} s")  # fmt: skip
        floor = best[tree, "floor"]
        for label, _ in sources:
            one, default = best[tree, f"{label}ours --jobs 1"], best[tree, f"{label}ours default jobs"]
            print(f"  {label}ours --jobs 1 / floor       {floor / one:5.2f}  (target >= 0.5, aim 0.8)"
                  f"   by CPU time {cpu[tree, 'floor'] / cpu[tree, f'{label}ours --jobs 1']:5.2f}")  # fmt: skip
            print(f"  {label}ours warm / floor           {floor / best[tree, f'{label}ours warm (--jobs 1)']:5.2f}"
                  "  (target >= 1.0)")  # fmt: skip
            if ajv is not None:
                peer = best[tree, "Ajv"]
                by_cpu = cpu[tree, "Ajv"] / cpu[tree, f"{label}ours --jobs 1"]
                print(f"  {label}ours --jobs 1 against Ajv   {peer / one:5.2f}x (target >= 1.0, aim 1.5)"
                      f"   by CPU time {by_cpu:5.2f}x")  # fmt: skip
                print(f"  {label}ours default jobs against Ajv {peer / default:4.2f}x (target >= 1.6)")
    print()
    baseline = statistics.median(starts["python -c 'import jsonschema'"])
    for name, times in starts.items():
        median = statistics.median(times)
        print(f"  {name:<30} {median * 1000:5.0f} ms  ({median / baseline:4.2f} of import jsonschema; target <= 1.0)")
    load = os.getloadavg()
    print(f"\nload average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
