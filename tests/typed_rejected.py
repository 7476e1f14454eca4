"""Mistakes mypy --strict must catch: each line marked ``# rejected`` is an error, and no other line is.

tests/api/test_models.py checks exactly that, so the public API cannot pass its typed test by being ``Any``.
Never run: it is type-checked only.
"""

from __future__ import annotations

from pathlib import Path

from agentbeats_spec import dump, dumps, from_dict, load, loads, read_task, redact, to_atif, to_dict, validate
from agentbeats_spec.models import (
    AttemptResult,
    AttemptResultV2,
    Model,
    ProgressEvent,
    Step,
    TaskDetail,
    TaskIndex,
    Trajectory,
)


def mistakes(path: Path, step: Step, attempt: AttemptResult) -> None:
    task: TaskIndex = load(path, "agentcompass-attempt")  # rejected: an attempt is not a task index
    trajectory: Trajectory = loads("{}", "agentcompass-task")  # rejected: nor a trajectory
    found: AttemptResult = load(path)  # rejected: without a kind, it may be any model
    index: TaskIndex = load(path, "agentcompass-task")  # rejected: a v2 task.json loads as TaskIndexV2
    legacy: AttemptResultV2 = loads("{}", "agentcompass-attempt")  # rejected: a text has no v2 task beside it
    events: list[ProgressEvent] = load(path, "agentcompass-progress")  # rejected: a snapshot, not events
    event: ProgressEvent = loads("", "agentcompass-progress-events")  # rejected: a JSON Lines text is a list
    detail: AttemptResult = read_task(path)  # rejected: a task detail record
    other: TaskDetail = redact(attempt)  # rejected: redact keeps the model's class
    model: Model = from_dict("abb-case", {"x": 1})
    validate(42)  # rejected: not a path, text, bytes or mapping
    validate([{"schema_version": "ACTF_v1.0"}])  # rejected: a list is no document source
    dump(step, path)  # rejected: a step is not a whole artifact
    dumps({"task_id": "t"})  # rejected: a mapping is not a model
    to_dict({"task_id": "t"})  # rejected: nor to to_dict, which takes a model or a part of one
    to_atif("trajectory.json")  # rejected: a str is text to this package, not a path
    print(task, trajectory, found, index, legacy, events, event, detail, other, model)
