"""A run written task by task by the released AgentCompass 1.0.1 writer, in a process of its own (the watch tests).

``python -m tests.watching.writer ROOT HANDSHAKE FIRST LAST BROKEN``: tasks ``task-FIRST`` .. ``task-LAST`` (each
with a retry record, its progress events and ``RunLayout.write_result``), then the run-level files and the
terminal status (``write_terminal_status``). Task ``BROKEN`` gets a broken attempt, planted with the writer's own
atomic write; the writer then waits for the file HANDSHAKE (the watcher saw the broken attempt) before the next
task, and exits 3 if it never comes. The run's earlier pass, for a resumed run, is ``FIRST`` > 0.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from tests.agentcompass_runs import (
    Attempt,
    Task,
    finish_run,
    progress_reporter,
    write_run,
    writer_modules,
)

HANDSHAKE_LIMIT = 120.0  # seconds: a watcher that never answers fails the test instead of hanging it
EXIT_NO_HANDSHAKE = 3


def task(number: int) -> Task:
    attempt = Attempt(number=1, status="completed", severities=(), first_step=0, steps=2, aware=True,
                      empty_tool_calls=False, transfer=None, files=0, missing=False, retries=1,
                      archive=False)  # fmt: skip
    return Task(task_id=f"task-{number}", category="coding", ground_truth="42", k=1, strategy="avg",
                attempts=(attempt,), published=True)  # fmt: skip


def plant_broken_attempt(modules: SimpleNamespace, root: Path, number: int) -> Path:
    """Attempt 1 of the task, rewritten (atomically, as 1.0.1 writes) with two steps of one number."""
    layout = modules.layout.RunLayout(root)
    result = layout.task_dir(f"task-{number}") / "attempt-1" / "result.json"
    value = json.loads(result.read_text(encoding="utf-8"))
    value["trajectory"]["steps"][1]["step_id"] = 0  # the first step's number again
    modules.layout.atomic_json(result, value)
    return result


def main(root: Path, handshake: Path, first: int, last: int, broken: int) -> int:
    modules = writer_modules()
    assert modules is not None, "the released agentcompass package is not installed"
    root.mkdir(parents=True, exist_ok=True)
    plan = tuple(task(number) for number in range(0, last + 1))
    reporter = progress_reporter(root, len(plan))
    sandbox = root.parent / "sandbox"
    for number in range(first, last + 1):
        reporter.emit("task_started", task_id=f"task-{number}", category="coding", attempt=1, phase="setup")
        write_run(modules, root, (plan[number],), sandbox)
        if number == broken:
            plant_broken_attempt(modules, root, number)
        reporter.emit("task_finished", task_id=f"task-{number}", category="coding", status="completed")
        if number == broken and not _handshake(handshake):
            return EXIT_NO_HANDSHAKE
    finish_run(modules, root, plan, reporter)
    return 0


def _handshake(path: Path) -> bool:
    limit = time.monotonic() + HANDSHAKE_LIMIT
    while not os.path.exists(path):
        if time.monotonic() > limit:
            return False
        time.sleep(0.02)
    return True


if __name__ == "__main__":
    root, handshake, first, last, broken = sys.argv[1:6]
    sys.exit(main(Path(root), Path(handshake), int(first), int(last), int(broken)))
