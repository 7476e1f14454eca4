"""What comparing collected artifacts with their manifest costs, as docs/performance.md reports it.

    python benchmarks/artifacts.py [OUT] [--tasks 8] [--file-mb 8] [--small-files 200] [--rounds 5]

Writes a run with the released AgentCompass 1.0.1 writer (``RunLayout.write_result``, installed for the tests in
``.venv/interop`` by ``make test``): ``--tasks`` tasks whose first attempt collected a file of ``--file-mb`` MiB and
a folder of ``--small-files`` files of 4 KiB, recorded with the released collector's own measure
(``artifacts._fingerprint``). Then, on a warm page cache, the median of ``--rounds`` runs of each:

- hashed: ``agentbeats-spec validate --no-cache --jobs 1`` (the default: file count, size and sha256 compared);
- sized: the same with ``--no-verify-artifacts`` (file count and size from ``lstat``, no byte read);
- unrecorded: the same run with the evidence members taken out of every manifest (nothing to compare);
- floor: ``hashlib.sha256`` over every artifact file in one Python process, the bytes alone.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
INTEROP = ROOT / ".venv" / "interop"
RECORD = ROOT / "fixtures" / "valid" / "task-detail" / "swe-utils.task-detail.json"
CLI = [sys.executable, "-m", "agentbeats_spec", "validate", "--no-cache", "--jobs", "1"]
EVIDENCE = ("sha256", "size_bytes", "file_count")


def write(root: Path, tasks: int, file_mb: int, small_files: int, seed: int = 7) -> int:
    """The run; the bytes of its collected artifacts."""
    sys.path.append(str(INTEROP))
    from agentcompass.runtime import artifacts
    from agentcompass.runtime.results.layout import RunLayout

    rng = random.Random(seed)
    layout = RunLayout(root)
    template = json.loads(RECORD.read_text(encoding="utf-8"))
    total = 0
    for number in range(tasks):
        data = copy.deepcopy(template)
        data["task_id"] = f"bench/artifacts: task #{number}"
        data["retry_count"], data["retry_counts"] = 0, {}
        for payload in data["attempts"].values():
            payload["issues"] = []
            payload["artifacts"] = {}
        task = layout.write_result(data).parent
        store = task / "attempt-1" / "artifacts"
        (store / "logs").mkdir(parents=True)
        (store / "model.bin").write_bytes(rng.randbytes(file_mb * 1024**2))
        for index in range(small_files):
            (store / "logs" / f"step-{index:04d}.log").write_bytes(rng.randbytes(4096))
        total += file_mb * 1024**2 + small_files * 4096
        entries = []
        for name in ("model.bin", "logs"):
            measured = artifacts._fingerprint(store / name, artifacts.ArtifactLimits())
            kind = "directory" if (store / name).is_dir() else "file"
            entries.append({"source": f"/workspace/{name}", "destination": name, "exclude": [], "service": None,
                            "status": "collected", "kind": kind, **measured})  # fmt: skip
        result = task / "attempt-1" / "result.json"
        document = json.loads(result.read_text(encoding="utf-8"))
        document["artifacts"] = {"declared_artifacts": {
            "schema_version": 1, "directory": store.relative_to(root).as_posix(), "complete": True,
            "entries": entries,
        }}  # fmt: skip
        result.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return total


def unrecorded(source: Path, target: Path) -> None:
    shutil.copytree(source, target)
    for result in target.glob("details/*/*/attempt-1/result.json"):
        document = json.loads(result.read_text(encoding="utf-8"))
        for entry in document["artifacts"]["declared_artifacts"]["entries"]:
            for name in EVIDENCE:
                entry.pop(name)
        result.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def timed(command: list[str], rounds: int) -> float:
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    subprocess.run(command, env=environment, stdout=subprocess.DEVNULL, check=False)  # warm the page cache
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        done = subprocess.run(command, env=environment, stdout=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} exited {done.returncode}: the run is not valid")
    return statistics.median(times)


def floor(root: Path, rounds: int) -> float:
    files = sorted(path for path in root.glob("details/*/*/attempt-1/artifacts/**/*") if path.is_file())

    def once() -> float:
        start = time.perf_counter()
        for path in files:
            digest = hashlib.sha256()
            with path.open("rb") as stream:
                while block := stream.read(1 << 20):
                    digest.update(block)
        return time.perf_counter() - start

    once()
    return statistics.median(once() for _ in range(rounds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", type=Path, help="where to write the runs (default: a temporary folder)")
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--file-mb", type=int, default=8)
    parser.add_argument("--small-files", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        out: Path = arguments.out or Path(scratch)
        run, bare = out / "artifacts-run", out / "artifacts-unrecorded"
        for folder in (run, bare):
            shutil.rmtree(folder, ignore_errors=True)
        run.mkdir(parents=True)
        total = write(run, arguments.tasks, arguments.file_mb, arguments.small_files)
        unrecorded(run, bare)
        files = arguments.tasks * (arguments.small_files + 1)
        results: dict[str, Any] = {
            "artifact_bytes": total,
            "artifact_files": files,
            "hashed_s": timed([*CLI, str(run)], arguments.rounds),
            "sized_s": timed([*CLI, "--no-verify-artifacts", str(run)], arguments.rounds),
            "unrecorded_s": timed([*CLI, str(bare)], arguments.rounds),
            "floor_s": floor(run, arguments.rounds),
        }
    mib = total / 1024**2
    hashing = results["hashed_s"] - results["sized_s"]
    results["hashing_mib_per_s"] = round(mib / hashing, 1) if hashing > 0 else None
    results["floor_mib_per_s"] = round(mib / results["floor_s"], 1)
    results["sizing_ms"] = round(1000 * (results["sized_s"] - results["unrecorded_s"]), 1)
    print(json.dumps({key: round(value, 3) if isinstance(value, float) else value for key, value in results.items()},
                     indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
