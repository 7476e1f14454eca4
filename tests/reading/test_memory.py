"""A file whose check runs out of memory is an issue on that file, and the other files are still checked.

The memory is really exhausted: the command runs in a child process whose address space is held to what it has
after its imports plus a little, so that one file of many empty steps cannot be read, and a small one can.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HELD = """
import resource, runpy, sys
import agentbeats_spec.cli, agentbeats_spec.layouts, agentbeats_spec.checking._schemas
for line in open("/proc/self/status"):
    if line.startswith("VmSize:"):
        limit = int(line.split()[1]) * 1024 + int(sys.argv.pop(1)) * 2**20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.argv[0] = "agentbeats-spec"
runpy.run_module("agentbeats_spec", run_name="__main__")
"""


def held(megabytes: int, *arguments: str) -> subprocess.CompletedProcess[str]:
    """The command with ``megabytes`` of address space more than its imports took."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-c", HELD, str(megabytes), *arguments]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, check=False)


def tree_with_a_huge_file(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    huge = folder / "a.actf.json"
    huge.write_bytes(b'{"schema_version": "ACTF_v1.0", "steps": [' + b",".join([b"{}"] * 5_000_000) + b"]}")
    small = folder / "b.actf.json"
    small.write_text('{"schema_version": "ACTF_v1.0", "steps": 3}')
    return huge, small


def test_running_out_of_memory_is_an_issue_on_that_file(tmp_path: Path) -> None:
    huge, small = tree_with_a_huge_file(tmp_path / "tree")
    done = held(300, "validate", "--no-cache", "--jobs", "1", "--format", "json", str(huge.parent))
    assert done.returncode == 1, done.stderr
    issues = [(issue["file"], issue["code"]) for issue in json.loads(done.stdout)["issues"]]
    assert issues == [(str(huge), "io.out-of-memory"), (str(small), "schema.type")]
    (message,) = [issue["message"] for issue in json.loads(done.stdout)["issues"] if issue["file"] == str(huge)]
    assert message == (
        "ran out of memory while checking this file (15,000,043 bytes); give the process more memory, or lower "
        "--max-file-size so that files this large are reported and not read"
    )


def test_running_out_of_memory_while_scanning(tmp_path: Path) -> None:
    huge, _ = tree_with_a_huge_file(tmp_path / "tree")
    done = held(300, "scan", "--format", "json", str(huge.parent))
    assert done.returncode == 1, done.stderr
    issues = [(issue["file"], issue["code"]) for issue in json.loads(done.stdout)["issues"]]
    assert issues == [(str(huge), "io.out-of-memory")]
