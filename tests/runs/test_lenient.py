"""Tools read what AgentCompass 1.0.1 reads: ``read_task(strict=False)``, ``TaskRef.read(strict=False)``, the tables
and ``export --skip-invalid`` read every task its reader reads, errors or not, with the issues beside the record.

The released reader is the oracle: a task written by its own writer is edited one way at a time, and our lenient
read gives a record exactly when ``read_result`` does, the same record.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agentbeats_spec import InvalidDocument, TaskRead, attempts_table, open_run, read_task, to_dict
from agentbeats_spec.cli import main

from ..agentcompass_runs import writer_modules
from ..conftest import VALID

pa = pytest.importorskip("pyarrow")
parquet = pytest.importorskip("pyarrow.parquet")
MODULES = writer_modules()
pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(MODULES is None, reason="AgentCompass 1.0.1 is not installed (make test does it)"),
]
Edit = Callable[[dict[str, Any]], None]


def modules() -> SimpleNamespace:
    assert MODULES is not None
    return MODULES


def record(task_id: str = "swe/utils: off-by-one #17") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VALID / "task-detail" / "swe-utils.task-detail.json").read_text("utf-8"))
    data["task_id"] = task_id
    return data


def _set(place: str, value: Any) -> Edit:
    """An edit of attempt 1's result.json (``/...``) or of task.json (``task:/...``): a member set, or removed."""

    def edit(data: dict[str, Any]) -> None:
        *parents, last = place.removeprefix("task:").strip("/").split("/")
        holder = data
        for token in parents:
            holder = holder[int(token)] if isinstance(holder, list) else holder[token]
        if value is _REMOVED:
            del holder[last]
        elif isinstance(holder, list):
            holder[int(last)] = value
        else:
            holder[last] = value

    return edit


_REMOVED = object()

# Each: (what is edited, the edit). Some the reader reads past, some it refuses: the oracle says which.
EDITS: list[tuple[str, Edit]] = [
    ("/trajectory/schema_version", _set("/trajectory/schema_version", _REMOVED)),  # the harness of issue 38
    ("/trajectory/steps/0/step_id", _set("/trajectory/steps/0/step_id", "one")),
    ("/trajectory/steps", _set("/trajectory/steps", "none")),
    ("/trajectory", _set("/trajectory", ["not", "a", "mapping"])),
    ("/trajectory null", _set("/trajectory", None)),
    ("/final_answer", _set("/final_answer", {"nested": [1, 2, {"deep": None}]})),
    ("/meta/harness/api_key", _set("/meta/harness/api_key", "sk-live-0123456789abcdefghijklmnop")),
    ("/meta/benchmark", _set("/meta/benchmark", "not a mapping")),
    ("/meta/extra", _set("/meta/extra", 1)),
    ("/analysis_result", _set("/analysis_result", {"judge": "not an entry"})),
    ("/artifacts", _set("/artifacts", {"declared_artifacts": {"schema_version": 7}})),
    ("/status", _set("/status", "finished")),
    ("/metrics", _set("/metrics/reward", "high")),
    ("/issues", _set("/issues", [{"severity": "loud", "phase": "run", "code": "x", "message": "m"}])),
    ("/error", _set("/error", "boom")),
    ("/unknown", _set("/colour", "blue")),
    ("/retry_count", _set("/retry_count", -1)),
    ("task:/category", _set("task:/category", 5)),
    ("task:/ground_truth", _set("task:/ground_truth", {"any": ["value"]})),
    ("task:/attempt_plan/k", _set("task:/attempt_plan/k", 0)),
    ("task:/attempt_plan/strategy", _set("task:/attempt_plan/strategy", 7)),
]


def written(root: Path) -> Path:
    """A task written by the released writer; its task.json."""
    path: Path = modules().layout.RunLayout(root).write_result(record())
    return path


def edited(task_json: Path, edit: Edit, where: str) -> None:
    target = task_json if where.startswith("task:") else task_json.parent / "attempt-1" / "result.json"
    data = json.loads(target.read_text("utf-8"))
    edit(data)
    target.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def theirs(task_json: Path) -> dict[str, Any] | None:
    try:
        return dict(modules().layout.read_result(task_json))
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


@pytest.mark.parametrize(("where", "edit"), EDITS, ids=[where for where, _ in EDITS])
def test_a_lenient_read_reads_what_the_released_reader_reads_the_same(where: str, edit: Edit, tmp_path: Path) -> None:
    task_json = written(tmp_path)
    edited(task_json, edit, where)
    expected = theirs(task_json)
    try:
        read = read_task(task_json.parent, strict=False)
    except InvalidDocument as refused:
        assert expected is None, f"AgentCompass 1.0.1 reads it; we refused: {refused.issues}"
        assert any(issue.severity == "error" for issue in refused.issues)
        return
    assert expected is not None, "AgentCompass 1.0.1 refuses it; we read it"
    assert read.record == expected
    errors = [issue for issue in read.issues if issue.severity == "error"]
    if errors:  # carried beside the record; strict refuses it
        assert not read.valid
        with pytest.raises(InvalidDocument):
            read_task(task_json.parent)
        with pytest.raises(InvalidDocument):
            read.model()


def test_a_valid_task_reads_the_same_strict_or_not(tmp_path: Path) -> None:
    task_json = written(tmp_path)
    read = read_task(task_json.parent, strict=False)
    assert isinstance(read, TaskRead) and read.valid and read.missing == ()
    assert read.record == theirs(task_json) == to_dict(read_task(task_json.parent)) == to_dict(read.model())


def harness_run(root: Path, tasks: int) -> None:
    """The harness of issue 38: trajectories without their schema_version, written through the released writer."""
    root.mkdir(parents=True)
    modules().store.RunStore(None).write_run_info(root, _request(), {"output": {"run_id": "harness"}})
    layout = modules().layout.RunLayout(root)
    for number in range(tasks):
        data = record(f"harness task #{number}")
        for payload in data["attempts"].values():
            payload["trajectory"] = {**payload["trajectory"], "steps": []} if payload["trajectory"] else {"steps": []}
            payload["trajectory"].pop("schema_version", None)
        layout.write_result(copy.deepcopy(data))


def _request() -> dict[str, Any]:
    from agentcompass.runtime.models.request import RunRequest

    params = {"benchmark": {"id": "bench"}, "model": {"id": "m"}, "harness": {"id": "h"},
              "environment": {"id": "host_process"}, "execution": {"attempts": {"k": 3, "strategy": "avg"}},
              "runtime": {}}  # fmt: skip
    request: dict[str, Any] = RunRequest.from_params(params).to_task_payload()
    return request


def test_the_harness_run_exports_every_task_with_its_issues(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    harness_run(run, 4)
    refs = list(open_run(run).tasks())
    assert len(refs) == 4 and all(ref.complete for ref in refs)
    for ref in refs:
        read = ref.read(strict=False)
        assert read.record == theirs(ref.folder / "task.json")
        assert {issue.pointer for issue in read.issues if issue.severity == "error"} == {"/trajectory/schema_version"}

    output = tmp_path / "attempts.parquet"
    assert main(["export", str(run), "-o", str(output)]) == 1  # strict: the first task stops it, nothing written
    assert not output.exists()
    error = capsys.readouterr().err
    assert "--skip-invalid writes every task AgentCompass 1.0.1 reads" in error

    assert main(["export", str(run), "--skip-invalid", "-o", str(output)]) == 1
    captured = capsys.readouterr()
    assert "12 attempts row(s) of 4 task(s)" in captured.out
    assert "4 of them with errors that AgentCompass 1.0.1 reads past" in captured.err
    assert parquet.read_table(output).equals(attempts_table(run, strict=False)[0])
    issues = tmp_path / "issues.parquet"
    assert main(["export", str(run), "--table", "issues", "-o", str(issues)]) == 0  # the issues are its rows
    codes = parquet.read_table(issues).column("code").to_pylist()
    assert codes.count("schema.required") == 12  # one per attempt, beside the rows


def test_a_strict_table_refuses_at_the_first_task_with_an_error(tmp_path: Path) -> None:
    run = tmp_path / "run"
    harness_run(run, 3)
    seen: list[int] = []
    from agentbeats_spec.runs._export import export

    with pytest.raises(InvalidDocument):
        export(run, "attempts", "parquet", tmp_path / "out.parquet", on_task=seen.append)
    assert seen == []  # refused before any task was counted as read, and nothing was written
    assert not (tmp_path / "out.parquet").exists()


def test_files_the_released_reader_never_opens_and_a_wrong_state_leave_the_task_readable(tmp_path: Path) -> None:
    task_json = written(tmp_path)
    attempt = task_json.parent / "attempt-1"
    (attempt / "checkpoint.json").write_text('{"schema_version": "agentcompass.attempt_checkpoint.v9"}\n', "utf-8")
    (attempt / "retries").mkdir(exist_ok=True)
    (attempt / "retries" / "garbage.attempt1.retry1.run.json").write_text("{not json", encoding="utf-8")
    state = task_json.parent.parent
    other = state.parent / ("normal" if state.name != "normal" else "error")
    other.mkdir(exist_ok=True)
    moved = other / task_json.parent.name / "task.json"
    task_json.parent.rename(moved.parent)
    expected = theirs(moved)
    assert expected is not None  # the oracle reads it: what follows is no vacuous agreement
    read = read_task(moved.parent, strict=False)
    assert read.record == expected
    codes = {issue.code for issue in read.issues if issue.severity == "error"}
    assert "layout.wrong-state" in codes and "json.syntax" in codes and not read.valid
    with pytest.raises(InvalidDocument):
        read_task(moved.parent)


def test_a_missing_folder_is_said_not_to_exist(tmp_path: Path) -> None:
    for strict in (True, False):
        with pytest.raises(InvalidDocument) as raised:
            read_task(tmp_path / "gone", strict=strict)
        assert [(issue.code, issue.message) for issue in raised.value.issues] == [
            ("io.not-found", "no such task folder: it does not exist")
        ]
