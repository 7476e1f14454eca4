"""The run reader on runs the released AgentCompass 1.0.1 writer writes: the tasks its reader reads, the records it
reads, what a running task holds so far, run-level files as models, and every problem met as an issue."""

from __future__ import annotations

import gc
import json
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

import attrs
import pytest
from hypothesis import HealthCheck, given, settings

from agentbeats_spec import (
    InvalidDocument,
    Issue,
    TaskRef,
    TaskSoFar,
    iter_runs,
    open_run,
    read_task,
    to_dict,
    validate,
)
from agentbeats_spec.layouts.agentcompass import task_folder_name
from agentbeats_spec.models import RunInfo, TaskDetail

from ..agentcompass_runs import Attempt, Task, runs, uniform, write_run, write_run_files, writer_modules
from ..layouts.test_legacy_v2 import TASKS as V2_TASKS
from ..layouts.test_legacy_v2 import UNCONVERTIBLE, build_v2_run

MODULES = writer_modules()
pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(MODULES is None, reason="AgentCompass 1.0.1 is not installed (make test does it)"),
]
SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def modules() -> SimpleNamespace:
    assert MODULES is not None
    return MODULES


@SETTINGS
@given(plan=runs)
def test_the_complete_tasks_are_those_the_released_reader_reads_and_read_the_same(plan: tuple[Task, ...]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = (Path(folder) / "run").resolve()
        root.mkdir()
        write_run(modules(), root, plan, Path(folder) / "sandbox")
        run = open_run(root)
        refs = list(run.tasks())
        theirs = modules().layout.result_files(root)
        assert [ref.folder / "task.json" for ref in refs if ref.complete] == theirs
        assert sorted(ref.task_id for ref in refs) == sorted(task.task_id for task in plan)
        for ref in refs:
            read = ref.read()
            if ref.complete:
                assert isinstance(read, TaskDetail)
                assert to_dict(read) == modules().layout.read_result(ref.folder / "task.json")
            else:  # not published: still running, what it holds so far
                assert ref.state == "running"
                assert isinstance(read, TaskSoFar)
                assert read.missing == ("category", "ground_truth", "attempt_plan")
                assert read.attempt_plan is None and read.category is None
            task = next(task for task in plan if task.task_id == ref.task_id)
            assert ref.attempts == tuple(attempt.number for attempt in task.attempts)
        assert run.issues == []
        assert run.info is not None and run.info.run_id == "run-1"


def test_a_running_task_reads_what_it_has_so_far_where_read_task_alone_refuses(tmp_path: Path) -> None:
    plan = uniform(next_plan())
    plan = (attrs.evolve(plan[0], published=False),)
    write_run(modules(), tmp_path, plan, tmp_path.parent / "sandbox")
    (ref,) = open_run(tmp_path).tasks()
    assert (ref.state, ref.complete) == ("running", False)
    with pytest.raises(InvalidDocument) as refused:
        read_task(ref.folder)
    assert [issue.code for issue in refused.value.issues] == ["layout.incomplete-task"]
    so_far = ref.read()
    assert isinstance(so_far, TaskSoFar)
    assert so_far.task_id == plan[0].task_id and so_far.attempts == {}
    assert so_far.retry_counts == {}  # the retry records are there, but no attempt has published its count


def test_the_run_level_files_are_models(tmp_path: Path) -> None:
    plan = uniform(next_plan())
    write_run(modules(), tmp_path, plan, tmp_path.parent / "sandbox")
    write_run_files(modules(), tmp_path, plan)
    run = open_run(tmp_path)
    assert isinstance(run.info, RunInfo) and run.run_id == "run-1"
    assert run.params is not None and run.params.execution["attempts"]["k"] == plan[0].k
    assert run.metrics is not None and run.progress is not None
    assert run.issues == []


def test_a_broken_file_is_reported_and_read_as_none(tmp_path: Path) -> None:
    plan = uniform(next_plan())
    write_run(modules(), tmp_path, plan, tmp_path.parent / "sandbox")
    (tmp_path / "run_info.json").write_text('{"schema_version": "agentcompass.run_info.v3"}\n')
    task = next(tmp_path.glob(f"details/*/{task_folder_name(plan[0].task_id)}/task.json"))
    task.write_text("{not json\n")
    seen: list[Issue] = []
    run = open_run(tmp_path, on_issue=seen.append)
    assert run.info is None
    assert [ref.task_id for ref in run.tasks()] == [plan[1].task_id]  # the other is reported
    assert run.issues == []
    assert [(Path(i.file or "").name, i.code, i.line) for i in seen] == [
        ("run_info.json", "schema.required", 1),
        ("run_info.json", "schema.required", 1),
        ("task.json", "json.syntax", 1),
    ]


def test_a_v2_run_reads_converted_as_the_released_reader_reads_it(tmp_path: Path) -> None:
    root = build_v2_run(tmp_path / "run")
    refs = list(open_run(root).tasks())
    assert sorted(ref.task_id for ref in refs) == sorted(V2_TASKS)
    assert all(ref.state is None and ref.complete for ref in refs)
    assert [ref.folder / "task.json" for ref in refs] == modules().layout.result_files(root)
    for ref in refs:
        if ref.task_id in UNCONVERTIBLE:
            with pytest.raises(InvalidDocument):
                ref.read()
            continue
        assert to_dict(ref.read()) == modules().layout.read_result(ref.folder / "task.json")


def test_iter_runs_finds_every_run_below_a_folder_in_name_order(tmp_path: Path) -> None:
    plan = uniform(next_plan())
    for name in ("b", "a/nested", "c"):
        write_run(modules(), tmp_path / name, plan, tmp_path / "sandbox")
    (tmp_path / "not-a-run").mkdir()
    assert [run.path.relative_to(tmp_path).as_posix() for run in iter_runs(tmp_path)] == ["a/nested", "b", "c"]


def test_listing_tasks_keeps_no_task_alive(tmp_path: Path) -> None:
    """Memory does not grow with the number of tasks: the refs of a listing are not kept by the run."""
    plan = uniform(next_plan())
    write_run(modules(), tmp_path, plan, tmp_path.parent / "sandbox")
    task = next(tmp_path.glob("details/*/*"))
    for copy in range(60):
        target = task.parent / f"{task.name[:-2]}{copy:02d}"
        shutil.copytree(task, target)
    run = open_run(tmp_path)
    peaks = []
    for ref in run.tasks():
        gc.collect()
        peaks.append(
            sum(1 for thing in gc.get_objects() if isinstance(thing, TaskRef) and tmp_path in thing.folder.parents)
        )
        del ref
    assert len(peaks) == 62
    assert max(peaks) == 1  # one at a time, whatever the number of tasks


def next_plan() -> tuple[Task, ...]:
    """A fixed plan: two tasks, one with two attempts, retries, a collected transfer and an error."""
    first = Attempt(
        number=1,
        status="completed",
        severities=(),
        first_step=0,
        steps=2,
        aware=True,
        empty_tool_calls=False,
        transfer="complete",
        files=2,
        missing=False,
        retries=1,
        archive=True,
    )
    second = attrs.evolve(first, number=2, status="eval_error", severities=("error",), transfer=None, retries=0)
    return (
        Task("swe/utils: off-by-one #17", "math", "42", 2, "avg", (first, second), True),
        Task("ünïcode 任务", "math", None, 2, "avg", (attrs.evolve(first, transfer=None, retries=0),), True),
    )


def test_json_of_the_listed_index_is_all_that_is_read(tmp_path: Path) -> None:
    """Listing reads task.json alone: an attempt payload that is not JSON does not stop the listing."""
    plan = uniform(next_plan())
    write_run(modules(), tmp_path, plan, tmp_path.parent / "sandbox")
    for result in tmp_path.glob("details/*/*/attempt-*/result.json"):
        result.write_text("{broken")
    refs = list(open_run(tmp_path).tasks())
    assert len(refs) == len(plan) and all(ref.complete for ref in refs)
    with pytest.raises(InvalidDocument):
        refs[0].read()
    assert json.loads((refs[0].folder / "task.json").read_text())["task_id"] == refs[0].task_id


def test_what_is_not_a_task_in_details_is_reported_not_passed_by(tmp_path: Path) -> None:
    write_run(modules(), tmp_path, uniform(next_plan()), tmp_path.parent / "sandbox")
    (tmp_path / "details" / "done").mkdir()
    (tmp_path / "details" / "notes.txt").write_text("x")
    run = open_run(tmp_path)
    assert len(list(run.tasks())) == 2
    assert [(Path(i.file or "").name, i.code, i.severity) for i in run.issues] == [
        ("done", "layout.unknown-state", "error"),
        ("notes.txt", "layout.unexpected-entry", "warning"),
    ]
    assert {(i.code, i.message) for i in run.issues} <= {(i.code, i.message) for i in validate(tmp_path)}
