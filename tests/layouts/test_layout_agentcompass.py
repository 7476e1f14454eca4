"""The AgentCompass run layout: details/<state>/<readable>--<sha256>/ with attempts, artifacts and retries."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec import validate

from ..conftest import VALID

TASK_NAME = "swe_utils_off-by-one_17--dfa418fc068f00e417743b806200f1b051f0086015b104eb0f4cb76f19d6b879"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(VALID / "agentcompass-run", target, symlinks=True)
    return target


def task(run: Path, state: str = "error") -> Path:
    return run / "details" / state / TASK_NAME


def edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def found(path: Path) -> set[tuple[str, str, str]]:
    """(code, file relative to the run, pointer) of every issue."""
    root = path if path.name == "run" else next(parent for parent in path.parents if parent.name == "run")
    return {(i.code, os.path.relpath(i.file or "", root), i.pointer) for i in validate(path)}


def test_the_valid_run_is_clean_from_every_entry_point(run: Path) -> None:
    assert validate(run) == []
    assert validate(run / "details") == []
    assert validate(task(run)) == []


def test_the_hash_is_the_sha256_of_the_exact_task_id(run: Path) -> None:
    edit(task(run) / "task.json", lambda data: data.update(task_id="swe/utils: off-by-one #18"))
    codes = {code for code, _, _ in found(run)}
    assert "layout.task-hash" in codes


def test_a_readable_prefix_other_than_the_writers_is_an_error(run: Path) -> None:
    """AgentCompass 1.0.1's read_result refuses it: 'task directory does not match task identity'."""
    _rename(run, "other-prefix--" + TASK_NAME.split("--")[1])
    issues = validate(run)
    assert [(i.code, i.severity, i.pointer, i.line) for i in issues] == [("layout.readable-name", "error", "", None)]


def test_a_task_folder_without_the_hash_is_an_error(run: Path) -> None:
    _rename(run, "swe_utils")
    assert {code for code, _, _ in found(run)} == {"layout.task-folder-name"}


def _rename(run: Path, name: str) -> Path:
    """Rename the task folder the way a writer would: retry records and artifact directories follow."""
    renamed = task(run).with_name(name)
    task(run).rename(renamed)
    for record in (renamed / "attempt-1" / "retries").iterdir():
        record.rename(record.with_name(record.name.replace(TASK_NAME, name)))
    _fix_directories(run, renamed)
    return renamed


def _fix_directories(run: Path, task_folder: Path) -> None:
    relative = Path(os.path.relpath(task_folder / "attempt-1" / "artifacts", run)).as_posix()
    edit(task_folder / "attempt-1" / "result.json",
         lambda data: data["artifacts"]["declared_artifacts"].update(directory=relative))  # fmt: skip


def test_mapped_attempt_folders_exist_and_unmapped_ones_are_errors(run: Path) -> None:
    shutil.rmtree(task(run) / "attempt-3")
    (task(run) / "attempt-4").mkdir()
    (task(run) / "attempt-02").mkdir()
    assert found(run) >= {
        ("layout.missing-attempt", f"details/error/{TASK_NAME}/task.json", "/attempts/3"),
        ("layout.unmapped-attempt", f"details/error/{TASK_NAME}/attempt-4", ""),
        ("layout.attempt-folder-name", f"details/error/{TASK_NAME}/attempt-02", ""),
    }


def test_a_final_task_has_a_result_for_every_attempt(run: Path) -> None:
    (task(run) / "attempt-2" / "result.json").unlink()
    assert ("layout.missing-result", f"details/error/{TASK_NAME}/attempt-2", "") in found(run)


def test_a_final_task_has_its_shared_metadata(run: Path) -> None:
    edit(task(run) / "task.json", lambda data: [data.pop(key) for key in ("category", "ground_truth", "attempt_plan")])
    assert ("layout.incomplete-task", f"details/error/{TASK_NAME}/task.json", "") in found(run)


def test_a_running_task_may_be_incomplete(run: Path) -> None:
    (task(run) / "attempt-2" / "result.json").unlink()
    target = run / "details" / "running" / TASK_NAME
    task(run).rename(target)
    _fix_directories(run, target)
    assert validate(run) == []


@pytest.mark.parametrize("state", ["normal", "fatal"])
def test_the_state_is_the_most_severe_issue(run: Path, state: str) -> None:
    target = run / "details" / state / TASK_NAME
    target.parent.mkdir(exist_ok=True)
    task(run).rename(target)
    _fix_directories(run, target)
    issues = validate(run)
    assert [(i.code, i.file) for i in issues] == [("layout.wrong-state", str(target))]
    assert "details/error/" in issues[0].message


def test_warning_only_tasks_are_normal(run: Path) -> None:
    edit(task(run) / "attempt-3" / "result.json", lambda data: data.update(issues=[]))
    target = run / "details" / "normal" / TASK_NAME
    target.parent.mkdir()
    task(run).rename(target)
    _fix_directories(run, target)
    # the task's error count changed with its issues: metrics.json, written before, counted the error
    assert [issue for issue in validate(run) if issue.code != "layout.score-mismatch"] == []


def test_an_unknown_state_folder_and_the_v2_layout(run: Path) -> None:
    (run / "details" / "failed").mkdir()
    shutil.copytree(
        run / "details" / "running" / os.listdir(run / "details" / "running")[0], run / "details" / "v2task"
    )
    codes = {(i.code, i.severity) for i in validate(run)}
    assert ("layout.unknown-state", "error") in codes
    assert ("layout.v2-layout", "error") in codes


V3_WITHOUT_STATE = (
    "an agentcompass.task.v3 task filed directly in details/, without a state folder: each task owns "
    "details/<state>/<task>/ (running, then normal, error or fatal); AgentCompass 1.0.1 would still read it there "
    "(it lists details/*/task.json) and move it to its state on its next write"
)


def test_a_v3_task_without_a_state_folder_is_an_error(run: Path) -> None:
    """Seed: "Each task owns details/<state>/<readable-task-id>--<sha256>/"."""
    running = next((run / "details" / "running").iterdir())
    running.rename(run / "details" / running.name)
    (run / "details" / "running").rmdir()
    (issue,) = validate(run)
    assert (issue.code, issue.severity, issue.file, issue.pointer, issue.line) == (
        "layout.v2-layout", "error", str(run / "details" / running.name), "", None
    )  # fmt: skip
    assert issue.message == V3_WITHOUT_STATE


def test_the_released_reader_still_reads_a_v3_task_without_a_state_folder(run: Path) -> None:
    """What the message says: result_files lists details/*/task.json, and read_result reads it from there."""
    from ..agentcompass_runs import writer_modules

    modules = writer_modules()
    if modules is None:
        pytest.skip("AgentCompass 1.0.1 is not installed (make test does it)")
    moved = run / "details" / TASK_NAME
    task(run).rename(moved)
    assert modules.layout.result_files(run) == [moved / "task.json"]
    assert modules.layout.read_result(moved / "task.json")["task_id"] == "swe/utils: off-by-one #17"
    assert ("layout.v2-layout", "error", "") in {(i.code, i.severity, i.pointer) for i in validate(run)}


def test_the_artifacts_directory_is_this_attempts_folder(run: Path) -> None:
    elsewhere = "details/running/x/attempt-1/artifacts"
    edit(task(run) / "attempt-1" / "result.json",
         lambda data: data["artifacts"]["declared_artifacts"].update(directory=elsewhere))  # fmt: skip
    assert found(run) == {
        ("layout.artifacts-directory", f"details/error/{TASK_NAME}/attempt-1/result.json",
         "/artifacts/declared_artifacts/directory")
    }  # fmt: skip


def test_collected_artifacts_exist_on_disk(run: Path) -> None:
    (task(run) / "attempt-1" / "artifacts" / "patches" / "fix.diff").unlink()
    assert found(run) == {
        ("layout.missing-artifact", f"details/error/{TASK_NAME}/attempt-1/result.json",
         "/artifacts/declared_artifacts/entries/0/destination")
    }  # fmt: skip


def test_an_artifact_behind_a_link_out_of_the_tree_is_an_escape(run: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "fix.diff").write_text("x")
    patches = task(run) / "attempt-1" / "artifacts" / "patches"
    shutil.rmtree(patches)
    patches.symlink_to(outside, target_is_directory=True)
    codes = {(code, pointer) for code, _, pointer in found(run)}
    assert ("security.path-escape", "/artifacts/declared_artifacts/entries/0/destination") in codes
    assert ("security.path-escape", "") in codes  # the link itself, reported and not followed


def test_a_checkpoint_has_its_version_and_bound(run: Path) -> None:
    checkpoint = task(run) / "attempt-1" / "checkpoint.json"
    edit(checkpoint, lambda data: data.update(schema_version="agentcompass.attempt_checkpoint.v0"))
    assert found(run) == {("layout.checkpoint-version", f"details/error/{TASK_NAME}/attempt-1/checkpoint.json",
                           "/schema_version")}  # fmt: skip
    with checkpoint.open("wb") as stream:
        stream.truncate(32 * 1024**2 + 1)
    assert {code for code, _, _ in found(run)} == {"layout.checkpoint-size"}


def test_retry_records_match_their_folder(run: Path) -> None:
    retries = task(run) / "attempt-1" / "retries"
    first = sorted(retries.iterdir())[0]
    edit(first, lambda data: data.update(task_id="another-task", attempt=2))
    assert {(code, pointer) for code, _, pointer in found(run)} == {
        ("layout.retry-task", "/task_id"),
        ("layout.retry-attempt", "/attempt"),
    }


def test_retry_file_names_follow_the_pattern(run: Path) -> None:
    retries = task(run) / "attempt-1" / "retries"
    first = sorted(retries.iterdir())[0]
    first.rename(retries / "retry1.json")
    issues = validate(run)
    assert [(i.code, i.severity) for i in issues] == [("layout.retry-file-name", "warning")]


def test_fewer_retry_records_than_retry_count_is_info(run: Path) -> None:
    """write_result stores the counts; the records are the runner's, so a run written by it alone has none."""
    retries = task(run) / "attempt-1" / "retries"
    sorted(retries.iterdir())[0].unlink()
    issues = validate(run)
    assert [(i.code, i.severity, i.pointer) for i in issues] == [("layout.retry-count", "info", "/retry_count")]


def test_more_retry_records_than_retry_count_is_a_warning(run: Path) -> None:
    retries = task(run) / "attempt-1" / "retries"
    first = sorted(path for path in retries.iterdir() if path.is_file())[0]
    record = json.loads(first.read_text(encoding="utf-8"))
    record["retry"] = 9
    record["max_retries"] = 9
    (retries / first.name.replace(".retry1.", ".retry9.")).write_text(json.dumps(record, indent=2))
    issues = validate(run)
    assert [(i.code, i.severity, i.pointer) for i in issues] == [("layout.retry-count", "warning", "/retry_count")]


def test_archived_evidence_is_accepted_and_parsed_leniently(run: Path) -> None:
    archive = task(run) / "attempt-1" / "retries" / ("0123456789abcdef" * 2)
    (archive / "artifacts").mkdir(parents=True)
    (archive / "result.json").write_text('{"status": "eval_error", "anything": NaN}')
    (archive / "checkpoint.json").write_text('{"schema_version": "agentcompass.attempt_checkpoint.v1"}')
    issues = validate(run)
    assert [(i.code, i.severity) for i in issues] == [("json.non-finite", "warning")]


def test_symlinks_fifos_and_leftover_temporaries_are_reported_never_opened(run: Path, tmp_path: Path) -> None:
    attempt = task(run) / "attempt-2"
    (attempt / "link.json").symlink_to(tmp_path / "elsewhere.json")
    os.mkfifo(attempt / "pipe")
    (attempt / ".result.json.0f3a.tmp").write_text("{")
    found_issues = {(i.code, Path(i.file or "").name, i.severity) for i in validate(run)}
    assert found_issues == {
        ("security.path-escape", "link.json", "error"),
        ("io.not-a-file", "pipe", "warning"),
        ("layout.temporary-file", ".result.json.0f3a.tmp", "warning"),
    }


def test_a_task_filed_twice_is_an_error(run: Path) -> None:
    shutil.copytree(task(run), run / "details" / "normal" / TASK_NAME)
    assert "layout.duplicate-task" in {code for code, _, _ in found(run)}


def test_each_file_is_also_checked_as_its_kind(run: Path) -> None:
    edit(task(run) / "attempt-2" / "result.json", lambda data: data.update(status="done"))
    assert found(run) == {("schema.enum", f"details/error/{TASK_NAME}/attempt-2/result.json", "/status")}


def test_a_truncated_task_index_is_a_syntax_error_and_nothing_else(run: Path) -> None:
    index = task(run) / "task.json"
    index.write_text(index.read_text(encoding="utf-8")[:30], encoding="utf-8")
    issues = validate(run)
    assert [(i.code, i.pointer, i.line, i.severity) for i in issues if i.file == str(index)] == [
        ("json.syntax", "", 2, "error")
    ]
