"""Measure throughput and peak memory, all in one run, and print the ratios of docs/performance.md.

    python benchmarks/run.py TREE [--huge FILE] [--broken TREE] [--skip-check-jsonschema]

TREE is made by benchmarks/generate.py. Every measurement runs in a process of its own (so that peak memory is
its own), reading files the page cache already holds (a warm-up pass reads them first):

- floor: orjson parse of every JSON file, 1 process and 2 processes;
- ours: ``agentbeats-spec validate --no-cache`` with ``--jobs 1`` and ``--jobs 2``, with the native reader and
  with the pure-Python path (``AGENTBEATS_SPEC_PURE=1``) side by side;
- warm: ours again on the unchanged tree with a verdict cache filled by a first run;
- python-jsonschema: the reference validator with our schemas on the same files (stdlib json);
- check-jsonschema: its CLI with our bundled schemas, one call per kind;
- with --broken: ours on a tree with planted errors, against the valid one;
- with --huge: peak memory of ours and of orjson on one large trajectory;
- start-up: ours on one small file against ``python -c "import jsonschema"``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
CLI = [PYTHON, "-m", "agentbeats_spec"]


def json_files(tree: Path) -> list[Path]:
    return sorted(path for path in tree.rglob("*.json") if path.is_file())


def measure_isolated(command: list[str], *, pure: bool = False) -> tuple[float, int]:
    """Wall time and peak memory measured by GNU time-like wrapping: a fresh Python that reports its child."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    environment = {**os.environ, "AGENTBEATS_SPEC_PURE": "1"} if pure else {**os.environ}
    if not pure:
        environment.pop("AGENTBEATS_SPEC_PURE", None)
    output = subprocess.run(
        [PYTHON, "-c", probe, *command], capture_output=True, text=True, check=True, env=environment
    ).stdout
    elapsed, peak = output.split()
    return float(elapsed), int(peak)


FLOOR = """
import sys, orjson, multiprocessing
from pathlib import Path
files = [line for line in open(sys.argv[1]).read().splitlines()]
def parse(chunk):
    for name in chunk:
        orjson.loads(Path(name).read_bytes())
jobs = int(sys.argv[2])
if jobs == 1:
    parse(files)
else:
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        pool.map(parse, [files[i::jobs] for i in range(jobs)])
"""

REFERENCE = """
import json, sys
from pathlib import Path
from jsonschema import Draft202012Validator
from agentbeats_spec.checking._kinds import from_content
from agentbeats_spec.checking._schemas import contents, registry
from agentbeats_spec.layouts._layout import kind_by_place
validators = {}
for name in open(sys.argv[1]).read().splitlines():
    path = Path(name)
    data = json.loads(path.read_text(encoding="utf-8"))
    kind = kind_by_place(path) or from_content(data)
    if kind is None:
        continue
    schema_id = kind.schema_id(data)
    if schema_id not in validators:
        validators[schema_id] = Draft202012Validator(contents(schema_id), registry=registry())
    for _ in validators[schema_id].iter_errors(data):
        pass
"""


def check_jsonschema(files: list[Path], work: Path) -> tuple[float, int]:
    """check-jsonschema with our bundled schemas (no network), one call per kind, times added up."""
    sys.path.insert(0, str(ROOT / "src"))
    from agentbeats_spec.checking._kinds import from_content
    from agentbeats_spec.layouts._layout import kind_by_place

    groups: dict[str, list[str]] = {}
    for path in files:
        data = json.loads(path.read_bytes())
        kind = kind_by_place(path) or from_content(data)
        if kind is not None:
            groups.setdefault(kind.latest, []).append(str(path))
    total, peak = 0.0, 0
    for schema_id, names in groups.items():
        schema = ROOT / "schemas" / "bundled" / schema_id.split("/schemas/", 1)[1]
        listing = work / "group.txt"
        listing.write_text("\n".join(names))
        for start in range(0, len(names), 2000):
            elapsed, used = measure_isolated(
                [
                    str(Path(PYTHON).parent / "check-jsonschema"),
                    "--schemafile",
                    str(schema),
                    *names[start : start + 2000],
                ]
            )
            total += elapsed
            peak = max(peak, used)
    return total, peak


def startup(small: Path, repeats: int = 15) -> tuple[float, float]:
    ours, baseline = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([*CLI, "validate", "--no-cache", str(small)], stdout=subprocess.DEVNULL, check=False)
        ours.append(time.perf_counter() - started)
        started = time.perf_counter()
        subprocess.run([PYTHON, "-c", "import jsonschema"], check=True)
        baseline.append(time.perf_counter() - started)
    return statistics.median(ours), statistics.median(baseline)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--broken", type=Path, help="the same tree with planted errors (generate --broken-percent 1)")
    parser.add_argument("--huge", type=Path, help="one large trajectory file (generate --huge-trajectory-mb 200)")
    parser.add_argument("--skip-check-jsonschema", action="store_true")
    parser.add_argument("--skip-reference", action="store_true", help="skip python-jsonschema (slow on big trees)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the measures against the floor")
    arguments = parser.parse_args()
    work = Path(os.environ.get("TMPDIR", "/tmp")) / "agentbeats-bench"
    work.mkdir(exist_ok=True)
    # Bytecode as an install has it: with PYTHONDONTWRITEBYTECODE set, each run would compile the package again.
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(ROOT / "src")], stdout=subprocess.DEVNULL, check=True)

    files = json_files(arguments.tree)
    size = sum(path.stat().st_size for path in files)
    listing = work / "files.txt"
    listing.write_text("\n".join(str(path) for path in files))
    for path in files:  # warm the page cache, so that every measurement reads from memory
        path.read_bytes()
    megabytes = size / 1024**2
    rows: list[tuple[str, float, int]] = []

    def row(name: str, elapsed: float, peak: int) -> None:
        rows.append((name, elapsed, peak))
        print(f"{name:<34} {elapsed:8.2f} s {megabytes / elapsed:8.1f} MB/s {len(files) / elapsed:9.0f} files/s "
              f"{peak / 1024:8.0f} MiB", flush=True)  # fmt: skip

    load = os.getloadavg()
    print(f"tree: {arguments.tree} ({len(files)} JSON files, {megabytes:.0f} MB); load average "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores\n", flush=True)  # fmt: skip
    validate = [*CLI, "validate", "--format", "json"]
    tree = str(arguments.tree)
    cache = work / "cache"
    if cache.exists():
        shutil.rmtree(cache)
    row("native, cold cache (filling it)", *measure_isolated([*validate, "--cache", str(cache), "--jobs", "1", tree]))
    # The measures compared with the floor run in interleaved rounds, each keeping its best time: a load that comes
    # and goes (other processes on the machine) then skews them alike.
    fast = [
        ("orjson parse, 1 process (floor)", [PYTHON, "-c", FLOOR, str(listing), "1"], False),
        ("orjson parse, 2 processes", [PYTHON, "-c", FLOOR, str(listing), "2"], False),
        ("native --jobs 1", [*validate, "--no-cache", "--jobs", "1", tree], False),
        ("native --jobs 2", [*validate, "--no-cache", "--jobs", "2", tree], False),
        ("native, warm cache", [*validate, "--cache", str(cache), "--jobs", "1", tree], False),
    ]
    best: dict[str, tuple[float, int]] = {}
    for _ in range(arguments.rounds):
        for name, command, pure in fast:
            elapsed, peak = measure_isolated(command, pure=pure)
            previous = best.get(name, (float("inf"), 0))
            best[name] = (min(previous[0], elapsed), max(previous[1], peak))
    for name, _, _ in fast:
        row(f"{name} (best of {arguments.rounds})", *best[name])
        rows.append((name, *best[name]))
    row("pure --jobs 1", *measure_isolated([*validate, "--no-cache", "--jobs", "1", tree], pure=True))
    row("pure --jobs 2", *measure_isolated([*validate, "--no-cache", "--jobs", "2", tree], pure=True))
    row("pure, warm cache", *measure_isolated([*validate, "--cache", str(cache), "--jobs", "1", tree], pure=True))
    if not arguments.skip_reference:
        row("python-jsonschema (reference)", *measure_isolated([PYTHON, "-c", REFERENCE, str(listing)]))
    if not arguments.skip_check_jsonschema:
        row("check-jsonschema CLI", *check_jsonschema(files, work))
    results = {name: (elapsed, peak) for name, elapsed, peak in rows}
    floor, floor2 = results["orjson parse, 1 process (floor)"][0], results["orjson parse, 2 processes"][0]

    def ratio(label: str, value: float, target: str, note: str = "") -> None:
        print(f"  {label:<52} {value:7.2f}   (target {target}){note}")

    print("\nratios (throughput: the floor's time over ours), native and pure:")
    for engine in ("native", "pure"):
        ratio(f"{engine} --jobs 1 / orjson 1 process", floor / results[f"{engine} --jobs 1"][0], ">= 0.5, aim 0.8")
        ratio(f"{engine} --jobs 2 / orjson 2 processes", floor2 / results[f"{engine} --jobs 2"][0], ">= 0.6, aim 0.9")
        ratio(f"{engine} warm re-run / orjson 1 process", floor / results[f"{engine}, warm cache"][0],
              ">= 1.0, aim 2.0")  # fmt: skip
    if "python-jsonschema (reference)" in results:
        reference = results["python-jsonschema (reference)"][0]
        for engine in ("native", "pure"):
            ratio(f"{engine} --jobs 1 against python-jsonschema (times faster)",
                  reference / results[f"{engine} --jobs 1"][0], ">= 20, aim 50")  # fmt: skip
    if "check-jsonschema CLI" in results:
        ratio("native --jobs 1 against check-jsonschema (times faster)",
              results["check-jsonschema CLI"][0] / results["native --jobs 1"][0], "none")  # fmt: skip
    if arguments.broken:
        for path in json_files(arguments.broken):  # warm the cache for this tree too
            path.read_bytes()
        # Back to back, twice each, best of two: the two trees differ only by their planted faults.
        for engine in ("native", "pure"):
            valid_runs, broken_runs = [], []
            for _ in range(2):
                command = [*validate, "--no-cache", "--jobs", "1"]
                valid_runs.append(measure_isolated([*command, tree], pure=engine == "pure")[0])
                broken_runs.append(measure_isolated([*command, str(arguments.broken)], pure=engine == "pure")[0])
            ratio(f"{engine}: tree with 1% broken files / valid tree (time)", min(broken_runs) / min(valid_runs),
                  "<= 1.2, aim 1.1", f" {min(broken_runs):.2f} s / {min(valid_runs):.2f} s")  # fmt: skip
    if arguments.huge:
        orjson_peak = measure_isolated(
            [PYTHON, "-c", f"import orjson; orjson.loads(open({str(arguments.huge)!r}, 'rb').read())"]
        )[1]
        for engine in ("native", "pure"):
            peak = measure_isolated([*validate, "--no-cache", str(arguments.huge)], pure=engine == "pure")[1]
            ratio(f"{engine}: huge trajectory peak memory / orjson's", peak / orjson_peak, "<= 0.8, aim 0.5",
                  f" {peak / 1024:.0f} MiB / {orjson_peak / 1024:.0f} MiB")  # fmt: skip
    small = ROOT / "fixtures" / "valid" / "abv3-repo" / "results" / "default" / "results.json"
    ours_start, baseline_start = startup(small)
    ratio("one small file / python -c 'import jsonschema' (wall)", ours_start / baseline_start, "<= 1.0, aim 0.7",
          f" {ours_start * 1000:.0f} ms / {baseline_start * 1000:.0f} ms, medians of 15")  # fmt: skip
    load = os.getloadavg()
    print(f"\nload average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
