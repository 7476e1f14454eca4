"""Hostile inputs at full size: each must finish with a clear result and bounded memory.

    python benchmarks/hostile.py [WORK_FOLDER]

Makes, in WORK_FOLDER (default: a temporary folder), a 2 GB file holding one string, a billion-laughs-like deep
nesting, 100,000 tiny files and a file that grows while it is read, then runs ``agentbeats-spec validate`` on
each in a process of its own and prints its exit code, the codes it reported, its time and its peak memory.
The test suite runs the same cases with the limits lowered (tests/reading/test_limits.py); this is the full-size check
of docs/security.md.
"""

from __future__ import annotations

import json
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


def main() -> int:
    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="agentbeats-hostile-"))
    work.mkdir(parents=True, exist_ok=True)

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


if __name__ == "__main__":
    sys.exit(main())
