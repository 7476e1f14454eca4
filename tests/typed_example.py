"""A small typed program that uses the models; the test suite runs mypy --strict on it."""

from __future__ import annotations

from pathlib import Path

import attrs

import agentbeats_spec
from agentbeats_spec.models import ABSENT, AttemptResult, ExecutionIssue, TaskIndex, Trajectory


def warn_about(path: Path) -> AttemptResult:
    result: AttemptResult = agentbeats_spec.load(path, "agentcompass-attempt")
    issues = result.issues if result.issues is not ABSENT else []
    issue = ExecutionIssue(severity="warning", phase="cleanup", code="checked", message="reviewed by a person")
    return attrs.evolve(result, issues=[*issues, issue])


def steps(trajectory: Trajectory) -> list[int]:
    return [step.step_id for step in trajectory.steps]


def category(task: TaskIndex) -> str:
    value = task.category
    return "none" if value is None or value is ABSENT else value
