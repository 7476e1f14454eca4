"""Hostile inputs at full size: each must finish with a clear result, in linear time and bounded memory.

    python benchmarks/hostile.py shapes [--sizes 8,16,32] [WORK_FOLDER]
    python benchmarks/hostile.py limits [WORK_FOLDER]
    python benchmarks/hostile.py settings [--sizes 1,2,4] [WORK_FOLDER]
    python benchmarks/hostile.py unique [--sizes 16000,32000,64000] [WORK_FOLDER]
    python benchmarks/hostile.py export [--sizes 250,500,1000] [WORK_FOLDER]

``shapes`` writes, at each size (MB), one file of each hostile shape (many empty steps, one finding per array
item, wide objects, deep nesting, long strings, JSON Lines with a bad value on every line) next to a valid file of
the same size and kind, runs ``agentbeats-spec validate`` on each in a process of its own, and prints a table of
MB/s and peak memory beside the peak of ``orjson.loads`` of the same file (each line of a JSON Lines file, kept
in a list), with the time ratio to the half size and the speed ratio to the valid file. Times are CPU
seconds less the start-up of the command (a validate of an empty trajectory, measured first). What
docs/performance.md shows.

``limits`` makes, in WORK_FOLDER (default: a temporary folder), a 2 GB file holding one string, a
billion-laughs-like deep nesting, 100,000 tiny files and a file that grows while it is read, then runs
``agentbeats-spec validate`` on each and prints its exit code, the codes it reported, its time and its peak memory.
The test suite runs the same cases with the limits lowered (tests/reading/test_limits.py); this is the full-size
check of docs/security.md.

``settings`` writes, at each size (MB), a ``pyproject.toml`` above the working folder in the shapes that made the
configuration search quadratic (blank lines; blank lines then the ``[tool.agentbeats-spec]`` table; one line of
brackets) and times ``agentbeats-spec validate --allow-empty`` of an empty folder below it: every command pays the
search, so each shape must stay linear (the time at twice the size at most twice the time).

``unique`` writes an ``agentbeats.toml`` whose ``tags`` (``uniqueItems``) hold N distinct strings, N strings each
written twice, or N small tables each written twice, and prints the CPU time of ``agentbeats-spec validate`` on it
(with the compiled engines and with ``AGENTBEATS_SPEC_PURE=1``, start-up taken off) and of the npm package's
``validate()`` on the same value (js/, in Node), with the ratio to the time at half the size: linear is about 2.

``export`` makes a run whose run-level strings (``run_info.json``'s benchmark, harness and model ids) are each
250 kB long, with each number of tasks of ``--sizes`` (three attempts each), and runs ``agentbeats-spec export`` of
its attempts and steps tables to Parquet and CSV, printing the peak memory: the run-level columns are
dictionary-encoded and the batches bounded by bytes, so doubling the tasks must not double the peak.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

PYTHON = sys.executable
PROBE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "print(r.returncode, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    "sys.stderr.write(r.stdout)\n"
)


def run(name: str, *arguments: str) -> None:
    command = [PYTHON, "-m", "agentbeats_spec", "validate", "--format", "json", *arguments]
    result = subprocess.run([PYTHON, "-c", PROBE, *command], capture_output=True, text=True, check=True)
    code, elapsed, peak = result.stdout.split()
    report = json.loads(result.stderr) if result.stderr.strip().startswith("{") else {"issues": []}
    codes = Counter(issue["code"] for issue in report["issues"])
    shown = ", ".join(f"{code} {count}" for code, count in codes.most_common(3)) or "no issue"
    print(f"{name:<44} exit {code}  {float(elapsed):7.2f} s  {int(peak) / 1024:8.0f} MiB  {shown}", flush=True)


def limits(work: Path) -> int:

    big = work / "one-string.actf.json"
    with big.open("wb") as stream:
        stream.write(b'{"schema_version": "ACTF_v1.0", "steps": [], "x": "')
        block = b"a" * (64 * 1024 * 1024)
        for _ in range(32):  # 2 GiB
            stream.write(block)
        stream.write(b'"}')
    run("2 GiB file of one string (default limits)", str(big))
    run("2 GiB file of one string, --max-file-size 1G", "--max-file-size", "1G", str(big))
    big.unlink()

    deep = work / "deep.actf.json"
    deep.write_bytes(
        b'{"schema_version": "ACTF_v1.0", "steps": [], "x": ' + b"[" * 10_000_000 + b"]" * 10_000_000 + b"}"
    )
    run("nesting 10,000,000 levels deep", str(deep))
    deep.unlink()

    tiny = work / "tiny"
    for number in range(100_000):
        folder = tiny / f"{number // 1000:03d}"
        if number % 1000 == 0:
            folder.mkdir(parents=True)
        (folder / f"{number}.json").write_text('{"schema_version": "ACTF_v1.0", "steps": []}')
    run("100,000 tiny files", "--jobs", "1", str(tiny))
    run("100,000 tiny files, --jobs 2", "--jobs", "2", str(tiny))

    growing = work / "growing.actf.json"
    growing.write_text('{"schema_version": "ACTF_v1.0", "steps": []}')
    stop = threading.Event()

    def grow() -> None:
        with growing.open("a") as stream:
            while not stop.is_set():
                stream.write(" " * 1_048_576)
                stream.flush()
                time.sleep(0.001)

    writer = threading.Thread(target=grow)
    writer.start()
    try:
        run("a file growing while it is read, 64 MiB limit", "--max-file-size", "64M", str(growing))
    finally:
        stop.set()
        writer.join()
    growing.unlink()
    return 0


# ---------------------------------------------------------------------------------------------------- shapes

VERSION = b'{"schema_version": "ACTF_v1.0", '


def repeated(head: bytes, item: bytes, tail: bytes, size: int, separator: bytes = b",") -> bytes:
    count = max(1, (size - len(head) - len(tail)) // (len(item) + len(separator)))
    return head + separator.join([item] * count) + tail


def valid_trajectory(size: int) -> bytes:
    """A valid ACTF trajectory of about ``size`` bytes, of the steps benchmarks/generate.py writes."""
    sys.path.insert(0, str(Path(__file__).parent))
    import random

    import generate

    rng = random.Random(7)
    made = generate.trajectory(rng, generate.Text(rng), 40, huge=False)
    templates = made["steps"]
    for item in templates:  # no times (they must increase) and no {} tool calls (the rules warn about them)
        item["assistant_content"]["tool_calls"] = []
        item["started_at"] = item["finished_at"] = None
    average = sum(len(json.dumps(item)) + 2 for item in templates) / len(templates)
    count = max(1, round(size / average))
    steps = [dict(templates[index % len(templates)], step_id=index + 1) for index in range(count)]
    return json.dumps({"schema_version": "ACTF_v1.0", "steps": steps}).encode()


PROGRESS = {
    "run_id": "2026-08-01_10-00-00", "event": "run_started", "timestamp": 1796013931.422793, "task_id": None,
    "category": None, "attempt": None, "phase": None, "status": None,
    "payload": {"benchmark": "swe-utils", "model": "gpt-x"}, "orchestration_id": None, "request_key": None,
    "request_name": None, "request_index": None,
}  # fmt: skip


def shapes_of(size: int) -> dict[str, tuple[str, bytes]]:
    """name -> (file name, bytes) of every shape at about ``size`` bytes."""
    deep = b"[" * 500 + b"]" * 500
    line = json.dumps(PROGRESS).encode() + b"\n"
    bad = json.dumps({**PROGRESS, "status": 5}).encode() + b"\n"
    return {
        "valid trajectory": ("valid.actf.json", valid_trajectory(size)),
        "many empty steps": ("empty.actf.json", repeated(VERSION + b'"steps": [', b"{}", b"]}", size)),
        "one finding per array item": (
            "finding.actf.json", repeated(VERSION + b'"steps": [', b'{"step_id": "x"}', b"]}", size)
        ),
        "wide object": (
            "wide.actf.json",
            VERSION + b'"steps": [], "x": {' + b",".join(b'"k%d": 0' % n for n in range(size // 12)) + b"}}",
        ),
        "deep nesting (500 levels, repeated)": (
            "deep.actf.json", repeated(VERSION + b'"steps": [], "x": [', deep, b"]}", size)
        ),
        "long strings": ("long.actf.json", VERSION + b'"steps": [], "x": "' + b"a" * size + b'"}'),
        "valid JSON Lines": ("valid/progress.jsonl", line * max(1, size // len(line))),
        "JSON Lines, a bad value on every line": ("bad/progress.jsonl", bad * max(1, size // len(bad))),
    }  # fmt: skip


MEASURE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "r = subprocess.run(sys.argv[1:], capture_output=True)\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(r.returncode, u.ru_utime + u.ru_stime, u.ru_maxrss,\n"
    "      r.stdout.decode() if len(r.stdout) < 100 else '')\n"
)
FLOOR = (
    "import sys, time, orjson\n"
    "raw = open(sys.argv[1], 'rb').read()\n"
    "t = time.process_time()\n"
    "data = [orjson.loads(line) for line in raw.splitlines()] if sys.argv[1].endswith('.jsonl') "
    "else orjson.loads(raw)\n"
    "print(time.process_time() - t)\n"
)


def measured(*command: str) -> tuple[int, float, float, str]:
    """(exit code, CPU seconds, peak MiB, what it printed) of a command run in a process of its own.

    CPU time (user and system), not wall time: the machine these figures come from is shared, and CPU time is what
    the check itself costs."""
    result = subprocess.run([PYTHON, "-c", MEASURE, *command], capture_output=True, text=True, check=True)
    code, elapsed, peak = result.stdout.split()[:3]
    return int(code), float(elapsed), int(peak) / 1024, " ".join(result.stdout.split()[3:])


def validate(path: Path, rounds: int = 2) -> tuple[int, float, float, str]:
    command = (PYTHON, "-m", "agentbeats_spec", "validate", "--no-cache", "--format", "json", str(path))
    return min((measured(*command) for _ in range(rounds)), key=lambda m: m[1])


def shapes(work: Path, sizes: list[int]) -> int:
    tiny = work / "start-up" / "t.actf.json"
    tiny.parent.mkdir(parents=True, exist_ok=True)
    tiny.write_bytes(b'{"schema_version": "ACTF_v1.0", "steps": []}')
    start = validate(tiny, rounds=5)[1]
    print(f"start-up (validate of an empty trajectory): {start:.2f} s", flush=True)
    rows = []
    for size in sizes:
        for name, (file, content) in shapes_of(size * 1_000_000).items():
            path = work / f"{size}MB" / file
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
            megabytes = len(content) / 1e6
            code, seconds, peak, _ = validate(path)
            floor = measured(PYTHON, "-c", FLOOR, str(path))
            net = max(seconds - start, 1e-3)
            rows.append((name, size, megabytes, code, net, peak, floor[2], float(floor[3].split()[0])))
            print(f"{name:<40} {megabytes:7.1f} MB exit {code} {net:7.2f} s {megabytes / net:7.1f} MB/s "
                  f"{peak:7.0f} MiB (orjson {floor[2]:6.0f} MiB, {peak / floor[2]:4.2f})", flush=True)  # fmt: skip
            path.unlink()
    print()
    print(
        "| shape | size | exit | CPU time | MB/s | of the valid file's MB/s | time / time at half the size "
        "| orjson.loads CPU time | time / orjson.loads time | peak memory | orjson.loads peak | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    by = {(row[0], row[1]): row for row in rows}
    for name, size, megabytes, code, net, peak, floor, floor_time in rows:
        valid = by[("valid JSON Lines" if "JSON Lines" in name else "valid trajectory", size)]
        speed = (megabytes / net) / (valid[2] / valid[4])
        half = by.get((name, size // 2))
        grows = f"{net / half[4]:.2f}" if half else ""
        print(f"| {name} | {megabytes:.1f} MB | {code} | {net:.2f} s | {megabytes / net:.1f} | {speed:.2f} | "
              f"{grows} | {floor_time:.2f} s | {net / max(floor_time, 1e-3):.1f} | {peak:,.0f} MiB | "
              f"{floor:,.0f} MiB | {peak / floor:.2f} |")  # fmt: skip
    return 0


# ---------------------------------------------------------------------------------------------------- settings


def settings_shapes(size: int) -> dict[str, bytes]:
    """name -> a pyproject.toml of about ``size`` bytes that the configuration search reads."""
    return {
        "blank lines": b"\n" * size,
        "blank lines, then the table": b"\n" * size + b"[tool.agentbeats-spec]\nstrict = true\n",
        "spaces and tabs on blank lines": b" \t\n" * (size // 3),
        "one line of brackets": b"[" * size + b"\n",
    }


def settings(work: Path, sizes: list[int]) -> int:
    empty = work / "start-up"
    empty.mkdir(parents=True, exist_ok=True)
    base = (PYTHON, "-m", "agentbeats_spec", "validate", "--no-cache", "--allow-empty", "--format", "json")
    start = min(measured(*base, "--no-config", str(empty))[1] for _ in range(5))
    print(f"start-up (validate of an empty folder, --no-config): {start:.2f} s", flush=True)
    print("| shape | size | exit | CPU time | time / time at half the size |\n|---|---|---|---|---|")
    seen: dict[tuple[str, int], float] = {}
    for size in sizes:
        for name, content in settings_shapes(size * 1_000_000).items():
            project = work / f"{size}MB"
            (project / "below").mkdir(parents=True, exist_ok=True)
            (project / "pyproject.toml").write_bytes(content)
            runs = [measured(PYTHON, "-c", f"import os, runpy, sys; os.chdir({str(project / 'below')!r}); "
                             "sys.argv = sys.argv[1:]; runpy.run_module('agentbeats_spec', run_name='__main__')",
                             "agentbeats-spec", *base[3:], ".") for _ in range(2)]  # fmt: skip
            code, seconds = min(runs, key=lambda m: m[1])[:2]
            net = max(seconds - start, 1e-3)
            seen[(name, size)] = net
            half = seen.get((name, size // 2))
            grows = f"{net / half:.2f}" if half else ""
            print(f"| {name} | {size} MB | {code} | {net:.2f} s | {grows} |", flush=True)
    return 0


# ---------------------------------------------------------------------------------------------------- unique


def tags_of(shape: str, count: int) -> list[object]:
    if shape == "distinct strings":
        return [f"tag-{index}" for index in range(count)]
    if shape == "strings, each twice":
        return [f"tag-{index % (count // 2)}" for index in range(count)]
    return [{"name": f"tag-{index % (count // 2)}", "weights": [index % 7, 1.0]} for index in range(count)]


UNIQUE_SHAPES = ["distinct strings", "strings, each twice", "tables, each twice"]
NODE_TIMER = """
import { validate } from "%s";
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
// CPU time of one call: the least of five batches of calls lasting at least 0.2 s each (milliseconds are noise).
let best = Infinity, found = 0;
for (let batch = 0; batch < 5; batch++) {
  const started = performance.now(), used = process.cpuUsage();
  let calls = 0;
  while (calls < 3 || performance.now() - started < 200) {
    found = validate("abv3-repo", value).length;
    calls++;
  }
  const spent = process.cpuUsage(used);
  best = Math.min(best, (spent.user + spent.system) / 1e6 / calls);
}
console.log(best, found);
"""


def toml_of(tags: list[object]) -> str:
    def item(tag: object) -> str:
        if isinstance(tag, dict):
            return "{" + ", ".join(f"{key} = {json.dumps(value)}" for key, value in tag.items()) + "}"
        return json.dumps(tag)

    head = '[abv3_repo]\nname = "r"\nrole = "subject"\nauthor = "a"\n'
    return head + "tags = [" + ", ".join(item(tag) for tag in tags) + ']\n\n[run]\ncommand = "python main.py"\n'


def unique(work: Path, sizes: list[int]) -> int:
    """uniqueItems at growing sizes, in Python (both engines) and in the npm package."""
    import os

    js = Path(__file__).resolve().parents[1] / "js" / "index.js"
    timer = work / "timer.mjs"
    timer.write_text(NODE_TIMER % js.as_uri())
    empty = work / "empty" / "agentbeats.toml"
    empty.parent.mkdir(parents=True, exist_ok=True)
    empty.write_text(toml_of([]))
    engines = {"compiled engines": {}, "pure Python": {"AGENTBEATS_SPEC_PURE": "1"}}
    rows: dict[tuple[str, str, int], float] = {}
    for engine, extra in engines.items():
        os.environ.pop("AGENTBEATS_SPEC_PURE", None)
        os.environ.update(extra)
        start = validate(empty, rounds=3)[1]
        for shape in UNIQUE_SHAPES:
            for size in sizes:
                path = work / f"{size}" / "agentbeats.toml"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(toml_of(tags_of(shape, size)))
                code, seconds, peak, _ = validate(path)
                rows[(f"Python, {engine}", shape, size)] = max(seconds - start, 1e-3)
                print(f"Python {engine:<17} {shape:<22} {size:>7} tags  exit {code}  {seconds - start:6.2f} s  "
                      f"{peak:5.0f} MiB", flush=True)  # fmt: skip
    os.environ.pop("AGENTBEATS_SPEC_PURE", None)
    for shape in UNIQUE_SHAPES:
        for size in sizes:
            value = {"abv3_repo": {"name": "r", "role": "subject", "author": "a", "tags": tags_of(shape, size)},
                     "run": {"command": "python main.py"}}  # fmt: skip
            ran = subprocess.run(
                ["node", str(timer)], input=json.dumps(value), capture_output=True, text=True, check=True
            )
            seconds, found = ran.stdout.split()
            rows[("npm validate()", shape, size)] = max(float(seconds), 1e-4)
            print(f"npm validate()           {shape:<22} {size:>7} tags  {float(seconds):6.3f} s  {found} issues")
    print()
    print("| reader | tags | " + " | ".join(f"{size:,} tags" for size in sizes) + " | time / time at half the size |")
    print("|---|---|" + "---|" * len(sizes) + "---|")
    for reader in [f"Python, {engine}" for engine in engines] + ["npm validate()"]:
        for shape in UNIQUE_SHAPES:
            times = [rows[(reader, shape, size)] for size in sizes]
            ratios = ", ".join(f"{later / earlier:.2f}" for earlier, later in itertools.pairwise(times))
            print(f"| {reader} | {shape} | " + " | ".join(f"{t:.3f} s" for t in times) + f" | {ratios} |")
    return 0


# ---------------------------------------------------------------------------------------------------- export


EXPORT_STRING_MB = 0.25  # each run-level string: CSV writes it in every row, 2.25 GB for 1,000 tasks


def export_run(root: Path, tasks: int, string_mb: float) -> float:
    """A run of ``tasks`` copies of the valid fixture's finished task (its artifacts left out), its run-level ids
    ``string_mb`` MB long; the size of the run in MB."""
    from agentbeats_spec import read_task, to_dict, write_task
    from agentbeats_spec.layouts.agentcompass import task_folder_name

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "valid" / "agentcompass-run"
    shutil.copytree(fixture, root, ignore=shutil.ignore_patterns("details"))
    info = json.loads((root / "run_info.json").read_text(encoding="utf-8"))
    long = "x" * int(string_mb * 1_000_000)
    for part in ("benchmark", "harness", "model"):
        info["request"][part]["id"] = part + long
    (root / "run_info.json").write_text(json.dumps(info), encoding="utf-8")
    template = fixture / "details" / "error" / task_folder_name("swe/utils: off-by-one #17")
    record = to_dict(read_task(template))
    for payload in record["attempts"].values():
        payload["artifacts"] = {}
    written = write_task(root, record).parent
    for number in range(1, tasks):
        task_id = f"task {number}"
        copy = written.parent / task_folder_name(task_id)
        shutil.copytree(written, copy)
        index = json.loads((copy / "task.json").read_text(encoding="utf-8"))
        (copy / "task.json").write_text(json.dumps({**index, "task_id": task_id}), encoding="utf-8")
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file()) / 1e6


def export(work: Path, tasks: list[int], string_mb: float) -> int:
    print("| tasks | run | table | to | exit | CPU time | peak memory | peak / peak at half the tasks |")
    print("|---|---|---|---|---|---|---|---|")
    peaks: dict[tuple[str, str, int], float] = {}
    for count in tasks:
        root = work / f"run-{count}"
        megabytes = export_run(root, count, string_mb)
        for table in ("attempts", "steps"):
            for to in ("parquet", "csv"):
                output = work / f"out.{to}"
                command = (PYTHON, "-m", "agentbeats_spec", "export", str(root), "--table", table, "--to", to,
                           "-o", str(output))  # fmt: skip
                code, seconds, peak, _ = measured(*command)
                peaks[(table, to, count)] = peak
                half = peaks.get((table, to, count // 2))
                grows = f"{peak / half:.2f}" if half else ""
                print(f"| {count} | {megabytes:.1f} MB | {table} | {to} | {code} | {seconds:.2f} s | "
                      f"{peak:,.0f} MiB | {grows} |", flush=True)  # fmt: skip
                output.unlink(missing_ok=True)
        shutil.rmtree(root)
    return 0


def main() -> int:
    arguments = sys.argv[1:]
    kinds = ("shapes", "limits", "settings", "unique", "export")
    which = arguments.pop(0) if arguments and arguments[0] in kinds else "limits"
    sizes = {"unique": [16_000, 32_000, 64_000], "export": [250, 500, 1000]}.get(which, [8, 16, 32])
    if arguments[:1] == ["--sizes"]:
        sizes = [int(size) for size in arguments[1].split(",")]
        del arguments[:2]
    work = Path(arguments[0]) if arguments else Path(tempfile.mkdtemp(prefix="agentbeats-hostile-"))
    work.mkdir(parents=True, exist_ok=True)
    if which == "settings":
        return settings(work, sizes if sizes != [8, 16, 32] else [1, 2, 4])
    if which == "unique":
        return unique(work, sizes)
    if which == "export":
        return export(work, sizes, EXPORT_STRING_MB)
    return shapes(work, sizes) if which == "shapes" else limits(work)


if __name__ == "__main__":
    sys.exit(main())
