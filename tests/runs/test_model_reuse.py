"""``read_task`` makes its model of the documents ``validate`` checked, without checking the assembled record again
(issue 37): the model is the one ``from_dict`` makes of the same record, and no record it gives is one ``from_dict``
refuses."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from agentbeats_spec import InvalidDocument, TaskSoFar, from_dict, read_task, to_dict, write_task

from ..conftest import ROOT
from ..strategies import task_detail


def same_as_checked(task: Path) -> None:
    model = read_task(task, partial=True)
    if isinstance(model, TaskSoFar):
        assert all(
            from_dict("agentcompass-attempt", {**to_dict(payload), "retry_count": 0})
            for payload in model.attempts.values()
        )
        return
    assert from_dict("agentcompass-task-detail", to_dict(model)) == model
    assert read_task(task, strict=False).record == to_dict(model)


def test_the_fixtures_tasks_are_the_models_from_dict_makes() -> None:
    read = 0
    for index in sorted((ROOT / "fixtures").rglob("task.json")):
        try:
            same_as_checked(index.parent)
        except InvalidDocument:
            continue
        read += 1
    assert read >= 2


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(record=task_detail)
def test_a_written_record_reads_back_as_the_model_from_dict_makes(record: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        try:
            written = write_task(folder, record)
        except InvalidDocument:
            return  # a record the writer refuses has no folder to read
        same_as_checked(written.parent)
