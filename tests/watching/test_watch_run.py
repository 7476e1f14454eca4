"""`agentbeats-spec watch`: a run checked while the released AgentCompass 1.0.1 writer writes it, task by task.

The writer (tests/watching/writer.py) runs in a process of its own; it plants a broken attempt in one task and
then waits for a handshake file, which this test makes only once watch has printed that attempt's issue: so the
issue is reported before the writer's next task is published, with no clock involved. At the end, what watch
printed is exactly what `validate` says of the finished run, with its exit code.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agentcompass_runs import writer_modules
from tests.watching.writer import EXIT_NO_HANDSHAKE

ROOT = Path(__file__).resolve().parents[2]
MODULES = writer_modules()
pytestmark = pytest.mark.skipif(MODULES is None, reason="AgentCompass 1.0.1 is not installed (make test does it)")
ENVIRONMENT = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
LIMIT = 300  # seconds: --timeout, so that a watch that never sees the end fails the test instead of hanging it


def task_folder(number: int) -> str:
    task_id = f"task-{number}"
    return f"{task_id}--{hashlib.sha256(task_id.encode()).hexdigest()}"


def write(root: Path, handshake: Path, first: int, last: int, broken: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.watching.writer", str(root), str(handshake), str(first), str(last), str(broken)],
        cwd=ROOT, env=ENVIRONMENT,
    )  # fmt: skip


def validate(root: Path) -> tuple[int, list[dict[str, Any]]]:
    done = subprocess.run(
        [sys.executable, "-m", "agentbeats_spec", "validate", str(root), "--format", "json", "--no-cache"],
        capture_output=True, text=True, env=ENVIRONMENT, check=False,
    )  # fmt: skip
    return done.returncode, json.loads(done.stdout)["issues"]


def published(root: Path, number: int) -> bool:
    """Whether the task's folder is in a final state (the writer published it)."""
    return any((root / "details" / state / task_folder(number)).exists() for state in ("normal", "error", "fatal"))


def watch_while_written(
    root: Path, handshake: Path, first: int, last: int, broken: int, poll: bool = False
) -> list[dict[str, Any]]:
    """Watch the writer write tasks first..last; the lines watch printed. Asserts the handshake's order."""
    polling = ["--poll"] if poll else []
    watch = subprocess.Popen(
        [sys.executable, "-m", "agentbeats_spec", "watch", str(root), "--format", "jsonl", "--timeout", str(LIMIT),
         *polling],
        stdout=subprocess.PIPE, text=True, env=ENVIRONMENT,
    )  # fmt: skip
    writer = write(root, handshake, first, last, broken)
    printed = []
    assert watch.stdout is not None
    for line in watch.stdout:
        record = json.loads(line)
        printed.append(record)
        if task_folder(broken) in record["file"] and not handshake.exists():
            # the writer waits for this file: its next task cannot have been published yet
            assert not published(root, broken + 1)
            assert record["code"] == "rule.step-order"
            handshake.touch()
    assert writer.wait() == 0, "the writer never got its handshake" if writer.returncode == EXIT_NO_HANDSHAKE else ""
    printed.append({"exit": watch.wait()})
    return printed


def assert_same_as_validate(root: Path, printed: list[dict[str, Any]], broken: int) -> None:
    status, issues = validate(root)
    *lines, end = printed
    # nothing reported that a later write fixed, but the metrics.json of an earlier pass while a resumed pass adds
    # tasks: stale until the summary writes it anew at the end (layout.score-mismatch, then fixed)
    fixed = [line for line in lines if line.get("fixed") and line.get("code") != "layout.score-mismatch"]
    assert fixed == []
    lines = [line for line in lines if line.get("code") != "layout.score-mismatch"]
    assert sorted(lines, key=json.dumps) == sorted(issues, key=json.dumps)
    assert end == {"exit": status} == {"exit": 1}
    assert [(issue["code"], Path(issue["file"]).relative_to(root).as_posix()) for issue in issues] == [
        ("rule.step-order", f"details/normal/{task_folder(broken)}/attempt-1/result.json")
    ]
    assert not any(".tmp" in line["file"] or "/running/" in line["file"] for line in lines)


@pytest.mark.parametrize("poll", [False, True], ids=["events", "polling"])
def test_a_run_watched_from_an_empty_folder(tmp_path: Path, poll: bool) -> None:
    root = tmp_path / "run"
    root.mkdir()
    printed = watch_while_written(root, tmp_path / "handshake", 0, 3, 1, poll)
    assert_same_as_validate(root, printed, 1)


def test_a_resumed_run_with_tasks_already_there(tmp_path: Path) -> None:
    """Tasks 0 and 1 were written by an earlier pass that ended; the resumed pass writes 2 to 5."""
    root = tmp_path / "run"
    assert write(root, tmp_path / "unused", 0, 1, -1).wait() == 0
    info = json.loads((root / "run_info.json").read_text(encoding="utf-8"))
    info["finished_at"] = "2026-08-01T09:00:00+00:00"  # the earlier pass ended an hour before this one
    (root / "run_info.json").write_text(json.dumps(info), encoding="utf-8")
    printed = watch_while_written(root, tmp_path / "handshake", 2, 5, 3)
    assert_same_as_validate(root, printed, 3)
