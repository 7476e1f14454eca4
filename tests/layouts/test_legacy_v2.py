"""agentcompass.task.v2 runs, built from the shapes AgentCompass 1.0.1 converts (runtime/results/legacy.py), checked
against the released reader: our verdict is its verdict, read_task returns its record, and after `migrate` it reads
every migrated task to the same record as before."""

from __future__ import annotations

import copy
import hashlib
import io
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbeats_spec import UnconvertibleAttempt, migrate_run, read_task, to_dict, validate
from agentbeats_spec.checking._kinds import KINDS, pinned
from agentbeats_spec.checking._sources import examine_source
from agentbeats_spec.cli import main
from agentbeats_spec.layouts.agentcompass import task_folder_name
from agentbeats_spec.records import _legacy
from agentbeats_spec.tasks import _migrate as migrate_module

from ..agentcompass_writer import released, run_files
from ..conftest import TASK_DIR, text

V2 = "agentcompass.task.v2"
V2_ATTEMPT = pinned(KINDS["agentcompass-attempt"], V2)  # as the layout checks an attempt of a v2 task


@pytest.fixture(scope="module")
def reader() -> ModuleType:
    if released() is None:
        pytest.skip("the released agentcompass package is not installed (make test installs it)")
    from agentcompass.runtime.results import layout

    return layout


def payload(**changes: Any) -> dict[str, Any]:
    """A v2 attempt payload: the v3 members without issues, and an error text where there was one."""
    base: dict[str, Any] = {
        "status": "completed",
        "metrics": {"correct": True, "tokens": 5120},
        "final_answer": "diff --git a/utils.py b/utils.py",
        "trajectory": {},
        "artifacts": {},
        "analysis_result": {},
        "meta": {"benchmark": {"scoring": {"correct": True, "score": 1.0}}, "harness": {"telemetry": {"turns": 7}}},
        "retry_count": 0,
    }
    base.update(changes)
    return base


RUN_LOG = b"started\n"  # the artifact the failed transfer collected, written with mode 0644
# Its evidence as the collector records it (runtime/artifacts.py, _fingerprint): reuse measures the copy against it.
RUN_LOG_EVIDENCE = {
    "sha256": hashlib.sha256(
        json.dumps(["run.log", 0o644, len(RUN_LOG)], separators=(",", ":")).encode() + b"file:" + RUN_LOG
    ).hexdigest(),
    "size_bytes": len(RUN_LOG),
    "file_count": 1,
}


def failed_transfer(name: str) -> dict[str, Any]:
    return {
        "declared_artifacts": {
            "schema_version": 1,
            "directory": f"details/{name}/attempt-1/artifacts",
            "complete": False,
            "error_type": "OSError",
            "failed_operation": "download",
            "entries": [
                {
                    "source": "/work/run.log",
                    "destination": "run.log",
                    "status": "collected",
                    "kind": "file",
                    **RUN_LOG_EVIDENCE,
                },
                {"source": "/work/out.bin", "destination": "out.bin", "status": "failed", "error_type": "OSError"},
            ],
        },
        "execution_diagnostics": "collector: 1 of 2 files",
    }


# task id -> (category, attempt plan k, attempts); which attempt of which task the reader cannot convert is the test.
# Every k is the run's (3, run_files): the summary and reuse refuse a task of another plan (_validate_detail_plans).
TASKS: dict[str, tuple[str | None, int, dict[str, dict[str, Any]]]] = {
    "clean #1": ("coding", 3, {
        "1": payload(),
        "2": payload(status="cancelled", metrics={}, meta={"benchmark": {}, "harness": {}}),
        "3": {"retry_count": 2},
    }),
    "transfer #2": ("coding", 3, {
        "1": payload(status="run_error", error="Traceback (most recent call last):\nOSError: download failed "
                     "(Authorization: Bearer abcdef0123456789)", retry_count=1),
    }),
    "judge #3": (None, 3, {
        "1": payload(status="eval_error", error="judge timed out",
                     meta={"benchmark": {"scoring": {"error": "timeout", "correct": False}}, "harness": {}}),
    }),
    "empties #4": ("", 3, {
        "1": payload(trajectory=None, analysis_result=None, artifacts={},
                     meta={"benchmark": {"scoring": {"correct": True, "score": 1.0, "note": ""}, "empty": {}},
                           "harness": None}),
        "2": payload(status="skipped", metrics={}, final_answer=None),
    }),
    "unclassifiable #5": ("coding", 3, {
        "1": payload(),
        "2": payload(status="run_error", error="RuntimeError: container exited with 137"),
    }),
}  # fmt: skip
UNCONVERTIBLE = {"unclassifiable #5": "2"}


def build_v2_run(root: Path) -> Path:
    """A run whose tasks are all agentcompass.task.v2, directly in details/, with the real writer's run files."""
    run_files(root)
    for task_id, (category, k, attempts) in TASKS.items():
        name = task_folder_name(task_id)
        folder = root / "details" / name
        index = {
            "schema_version": V2, "task_id": task_id, "attempts": {n: f"attempt-{n}" for n in attempts},
            "category": category, "ground_truth": {"answer": 42}, "attempt_plan": {"k": k, "strategy": "avg"},
        }  # fmt: skip
        write(folder / "task.json", index)
        for number, data in attempts.items():
            data = copy.deepcopy(data)
            if task_id == "transfer #2":
                data["artifacts"] = failed_transfer(name)
            write(folder / f"attempt-{number}" / "result.json", data)
            (folder / f"attempt-{number}" / "checkpoint.json").write_text(
                '{"schema_version": "agentcompass.attempt_checkpoint.v1", "phase": "evaluate"}\n'
            )
        if task_id == "clean #1":  # the retry-only attempt kept its two retry records
            record = json.loads(next((TASK_DIR / "attempt-1" / "retries").iterdir()).read_text())
            for retry in (1, 2):
                record.update(task_id=task_id, attempt=3, retry=retry)
                write(folder / "attempt-3" / "retries" / f"{name}.attempt3.retry{retry}.evaluate.json", record)
        if task_id == "transfer #2":
            attempt = folder / "attempt-1"
            (attempt / "artifacts").mkdir()
            (attempt / "artifacts" / "run.log").write_bytes(RUN_LOG)
            (attempt / "artifacts" / "run.log").chmod(0o644)
            record = json.loads(next((TASK_DIR / "attempt-1" / "retries").iterdir()).read_text())
            record.update(task_id=task_id, attempt=1, retry=1, stage="run", scope="attempt")
            directory = f"details/{name}/attempt-1/artifacts"
            record["discarded_result"]["artifacts"] = {"declared_artifacts": {"directory": directory}}
            write(attempt / "retries" / f"{name}.attempt1.retry1.run.json", record)
            archive = attempt / "retries" / ("ab" * 16)
            write(
                archive / "result.json",
                {
                    "status": "run_error",
                    "artifacts": {
                        "declared_artifacts": {"directory": f"details/{name}/attempt-1/retries/{'ab' * 16}/artifacts"}
                    },
                },
            )
            (archive / "artifacts").mkdir()
            (archive / "artifacts" / "old.log").write_bytes(b"\x00binary evidence\xff")
    return root


def write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def task_json(run: Path, task_id: str) -> Path:
    return next(run.glob(f"details/**/{task_folder_name(task_id)}/task.json"))


def read_or_refusal(reader: ModuleType, path: Path) -> dict[str, Any] | str:
    try:
        return reader.read_result(path)  # type: ignore[no-any-return]
    except ValueError as error:
        return f"{type(error).__name__}: {error}"


def moving(record: Any, old: str, new: str) -> Any:
    """A record whose task folder moved: its run-relative artifact directories move with it (and nothing else)."""
    if isinstance(record, dict):
        return {key: new + value.removeprefix(old) if key == "directory" and isinstance(value, str)
                and value.startswith(old) else moving(value, old, new) for key, value in record.items()}  # fmt: skip
    if isinstance(record, list):
        return [moving(item, old, new) for item in record]
    return record


def files(root: Path) -> dict[str, bytes]:
    found = {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}
    assert found, root  # two empty trees are no evidence of the same files
    return found


@pytest.fixture
def run(tmp_path: Path, reader: ModuleType) -> Path:
    return build_v2_run(tmp_path / "run")


def test_the_released_reader_reads_all_but_the_unclassifiable_task(reader: ModuleType, run: Path) -> None:
    outcome = {task_id: read_or_refusal(reader, task_json(run, task_id)) for task_id in TASKS}
    assert {task_id for task_id, read in outcome.items() if isinstance(read, str)} == set(UNCONVERTIBLE)
    assert "re-execution is required" in str(outcome["unclassifiable #5"])
    issues = {task_id: read["attempts"]["1"]["issues"] for task_id, read in outcome.items() if isinstance(read, dict)}
    assert [issue["code"] for issue in issues["transfer #2"]] == ["artifact_transfer_failed"]
    assert [issue["code"] for issue in issues["judge #3"]] == ["judge_failed"]
    assert issues["clean #1"] == issues["empties #4"] == []


def test_our_verdict_is_the_readers_for_every_task(reader: ModuleType, run: Path) -> None:
    for task_id in TASKS:
        path = task_json(run, task_id)
        errors = [issue for issue in validate(path.parent) if issue.severity == "error"]
        assert (errors == []) == isinstance(read_or_refusal(reader, path), dict), (task_id, errors)


def test_an_unclassifiable_attempt_is_one_error_on_that_attempt(run: Path) -> None:
    folder = task_json(run, "unclassifiable #5").parent
    found = [(i.code, Path(i.file or "").relative_to(folder).as_posix(), i.pointer, i.line, i.severity)
             for i in validate(folder)]  # fmt: skip
    assert found == [
        ("legacy.unclassifiable", "attempt-2/result.json", "/error", 25, "error"),
        ("legacy.task-v2", "task.json", "/schema_version", 2, "warning"),
    ]
    message = next(i.message for i in validate(folder) if i.code == "legacy.unclassifiable")
    assert "no structured evidence" in message and "re-execution is required" in message


def test_a_v2_run_has_one_legacy_warning_per_task_and_no_other_warning(run: Path) -> None:
    found = validate(run)
    warnings = [issue for issue in found if issue.severity == "warning"]
    assert sorted(Path(i.file or "").parent.name for i in warnings) == sorted(task_folder_name(t) for t in TASKS)
    assert {issue.code for issue in warnings} == {"legacy.task-v2"}
    assert [issue.code for issue in found if issue.severity == "error"] == ["legacy.unclassifiable"]


def test_read_task_returns_the_readers_record(reader: ModuleType, run: Path) -> None:
    for task_id in TASKS:
        if task_id in UNCONVERTIBLE:
            continue
        path = task_json(run, task_id)
        assert to_dict(read_task(path.parent)) == reader.read_result(path), task_id


def test_read_task_names_the_attempt_the_reader_cannot_convert(run: Path) -> None:
    with pytest.raises(UnconvertibleAttempt) as raised:
        read_task(task_json(run, "unclassifiable #5").parent)
    assert raised.value.attempt == "2"
    assert "no structured evidence" in raised.value.reason
    assert str(raised.value).startswith("attempt 2 cannot be converted from agentcompass.task.v2: ")
    result = task_json(run, "unclassifiable #5").parent / "attempt-2" / "result.json"
    assert (raised.value.task, raised.value.file) == ("unclassifiable #5", str(result))
    assert str(raised.value).endswith(f" (task 'unclassifiable #5', {result})")  # which task, which file
    assert any(issue.code == "legacy.unclassifiable" for issue in raised.value.issues)


def test_conversion_masks_secret_environment_values_as_the_reader_does(
    reader: ModuleType, run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_API_KEY", "download")  # 8 characters: masked wherever it appears in the error text
    path = task_json(run, "transfer #2")
    ours = to_dict(read_task(path.parent))
    assert ours == reader.read_result(path)
    diagnostics = ours["attempts"]["1"]["artifacts"]["execution_diagnostics"]
    assert diagnostics == (
        "collector: 1 of 2 files\nTraceback (most recent call last):\nOSError: ******** failed "
        "(Authorization: Bearer ********"  # the token pattern takes the parenthesis too
    )


def test_migrate_rewrites_every_convertible_task_as_the_released_writer_does(
    reader: ModuleType, run: Path, tmp_path: Path
) -> None:
    before = {task_id: read_or_refusal(reader, task_json(run, task_id)) for task_id in TASKS}
    source = files(run)
    theirs = tmp_path / "theirs"
    shutil.copytree(run, theirs)
    for task_id in TASKS:  # the 1.0.1 writer rewrites a v2 task in place when it next writes it
        if task_id not in UNCONVERTIBLE:
            reader.RunLayout(theirs).write_result(reader.read_result(task_json(theirs, task_id)))

    done = migrate_run(run, tmp_path / "new")

    assert files(run) == source  # the original run is untouched
    assert (len(done.converted), len(done.already_v3), [r.task.name for r in done.refused]) == (
        4, 0, [task_folder_name("unclassifiable #5")]
    )  # fmt: skip
    assert "attempt 2 cannot be converted" in done.refused[0].reason
    new = tmp_path / "new"
    assert files(new) == files(theirs)  # byte for byte, artifacts, checkpoints and retry archives included
    for task_id in TASKS:
        path = task_json(new, task_id)
        moved = moving(before[task_id], f"details/{path.parent.name}/", f"{path.parent.relative_to(new).as_posix()}/")
        assert read_or_refusal(reader, path) == moved, task_id
        if task_id not in UNCONVERTIBLE:
            assert path.parent.parent.name in ("normal", "fatal") and reader.has_task_result(path)
    assert [(i.code, i.severity) for i in validate(new)] == [
        ("legacy.unclassifiable", "error"), ("legacy.task-v2", "warning")
    ]  # fmt: skip


def test_migrating_twice_changes_nothing(run: Path, tmp_path: Path) -> None:
    migrate_run(run, tmp_path / "new")
    before = {path: path.stat().st_mtime_ns for path in (tmp_path / "new").rglob("*")}
    again = migrate_run(tmp_path / "new", in_place=True)
    assert (len(again.converted), len(again.already_v3), len(again.refused)) == (0, 4, 1)
    assert {path: path.stat().st_mtime_ns for path in (tmp_path / "new").rglob("*")} == before


def test_in_place_gives_the_same_files_as_a_copy(run: Path, tmp_path: Path) -> None:
    copied = tmp_path / "copied"
    migrate_run(run, copied)
    done = migrate_run(run, in_place=True)
    assert done.run == run and len(done.converted) == 4
    assert files(run) == files(copied)


def interrupt_after(count: int) -> Callable[..., None]:
    calls = [0]
    rename = os.rename

    def renaming(source: Any, target: Any, **folders: Any) -> None:
        calls[0] += 1
        if calls[0] > count:
            raise KeyboardInterrupt
        rename(source, target, **folders)

    return renaming


@pytest.mark.parametrize("renames", range(0, 8))  # two renames per task: the new folder in, the old one out
def test_an_interrupted_in_place_migration_loses_nothing_and_the_next_one_finishes_it(
    reader: ModuleType, run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, renames: int
) -> None:
    before = {task_id: read_or_refusal(reader, task_json(run, task_id)) for task_id in TASKS}
    expected = tmp_path / "expected"
    migrate_run(run, expected)
    with monkeypatch.context() as patch:
        patch.setattr(migrate_module.os, "rename", interrupt_after(renames))
        with pytest.raises(KeyboardInterrupt):
            migrate_run(run, in_place=True)
    for task_id in TASKS:  # AgentCompass still reads every task as it did, from the place it looks first
        path = reader.RunLayout(run).task_dir(task_id) / "task.json"
        moved = moving(before[task_id], f"details/{path.parent.name}/", f"{path.parent.relative_to(run).as_posix()}/")
        assert read_or_refusal(reader, path) == moved, task_id
    migrate_run(run, in_place=True)
    assert files(run) == files(expected)


def test_a_migration_stopped_while_deleting_the_old_folder_is_finished_by_the_next(
    reader: ModuleType, run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = tmp_path / "expected"
    migrate_run(run, expected)
    with monkeypatch.context() as patch:
        patch.setattr(migrate_module.shutil, "rmtree", lambda *args, **kwargs: (_ for _ in ()).throw(KeyboardInterrupt))
        with pytest.raises(KeyboardInterrupt):
            migrate_run(run, in_place=True)
    assert (run / ".agentbeats-spec-migrate").is_dir()
    assert any(i.code == "layout.temporary-file" and i.file == str(run / ".agentbeats-spec-migrate")
               for i in validate(run))  # fmt: skip
    migrate_run(run, in_place=True)
    assert files(run) == files(expected)


@pytest.mark.parametrize("renames", [1, 2])
def test_a_v2_task_already_in_a_state_folder_survives_an_interruption(
    reader: ModuleType, run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, renames: int
) -> None:
    folder = task_json(run, "clean #1").parent
    (run / "details" / "normal").mkdir()
    folder.rename(run / "details" / "normal" / folder.name)
    before = reader.read_result(task_json(run, "clean #1"))
    with monkeypatch.context() as patch:
        patch.setattr(migrate_module.os, "rename", interrupt_after(renames))
        with pytest.raises(KeyboardInterrupt):
            migrate_run(run, in_place=True)
    assert reader.read_result(task_json(run, "clean #1")) == before
    migrate_run(run, in_place=True)
    path = task_json(run, "clean #1")
    assert json.loads(path.read_text())["schema_version"] == "agentcompass.task.v3"
    assert reader.read_result(path) == before


def test_a_different_v3_twin_is_refused_and_both_are_kept(run: Path) -> None:
    folder = task_json(run, "judge #3").parent
    twin = run / "details" / "fatal" / folder.name
    shutil.copytree(folder, twin)
    index = json.loads((folder / "task.json").read_text())
    write(twin / "task.json", {**index, "schema_version": "agentcompass.task.v3"})
    done = migrate_run(run, in_place=True)
    refused = [f"details/{folder.name}", f"details/{task_folder_name('unclassifiable #5')}"]
    assert [r.task.as_posix() for r in done.refused] == refused
    assert "also exists and differs" in done.refused[0].reason
    assert folder.is_dir() and twin.is_dir()
    assert not (run / ".agentbeats-spec-migrate").exists()


def test_the_command_needs_a_destination_and_exits_1_when_a_task_is_refused(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["migrate", str(run)]) == 2
    assert "-o NEW writes a migrated copy" in capsys.readouterr().err
    source = files(run)
    assert main(["migrate", "--dry-run", str(run)]) == 1
    out = capsys.readouterr().out
    assert files(run) == source
    assert out.count("would convert") == 4 and "(dry run, nothing written)" in out
    assert main(["migrate", str(run), "-o", str(tmp_path / "new")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"4 converted, 0 already v3, 1 refused in {tmp_path / 'new'}"
    judge = task_folder_name("judge #3")
    assert f"converted      details/{judge} -> details/fatal/{judge}" in out
    assert main(["migrate", str(run), "-o", str(tmp_path / "new")]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["migrate", str(tmp_path / "new"), "--in-place"]) == 1
    assert capsys.readouterr().out.splitlines()[-1].startswith("0 converted, 4 already v3, 1 refused")


def test_a_v2_attempt_named_alone_is_checked_as_its_task_says(run: Path) -> None:
    attempt = task_json(run, "unclassifiable #5").parent / "attempt-2" / "result.json"
    assert [(i.code, i.pointer, i.line) for i in validate(attempt)] == [("legacy.unclassifiable", "/error", 25)]
    clean = task_json(run, "transfer #2").parent / "attempt-1" / "result.json"
    assert validate(clean) == []  # its error member is the v2 shape, not an error


def test_a_v2_folder_not_named_as_agentcompass_names_it_is_refused(reader: ModuleType, run: Path) -> None:
    folder = task_json(run, "judge #3").parent
    renamed = folder.with_name("judge--" + folder.name.split("--")[1])
    folder.rename(renamed)
    assert isinstance(read_or_refusal(reader, renamed / "task.json"), str)  # the reader refuses it too
    before = files(renamed)
    done = migrate_run(run, in_place=True)
    assert [r.task.name for r in done.refused] == [renamed.name, task_folder_name("unclassifiable #5")]
    assert "rename it first" in done.refused[0].reason
    assert files(renamed) == before


def test_unfinished_and_retired_tasks_are_refused_with_their_reason(run: Path) -> None:
    unfinished = run / "details" / task_folder_name("unfinished #6")
    write(unfinished / "task.json", {"schema_version": V2, "task_id": "unfinished #6", "attempts": {"1": "attempt-1"}})
    write(unfinished / "attempt-1" / "result.json", payload())
    retired = run / "details" / task_folder_name("retired #7")
    write(retired / "task.json", {"schema_version": "agentcompass.task.v1", "task_id": "retired #7", "attempts": {}})
    done = migrate_run(run, in_place=True)
    reasons = {refused.task.name: refused.reason for refused in done.refused}
    unfinished_reason = "the task has not finished: task.json has no category, ground_truth, attempt_plan"
    assert unfinished_reason in reasons[unfinished.name]
    assert reasons[retired.name] == "task.json has schema_version 'agentcompass.task.v1', which is not v2"
    assert (unfinished / "task.json").is_file() and (retired / "task.json").is_file()


def test_a_failed_copy_is_one_line_and_leaves_nothing(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device", str(tmp_path / "new"))

    monkeypatch.setattr(migrate_module.shutil, "copytree", full)
    assert main(["migrate", str(run), "-o", str(tmp_path / "new")]) == 2
    assert capsys.readouterr().err.strip().endswith(f"cannot write {tmp_path / 'new'}: No space left on device")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run"]


def test_migrate_refuses_a_folder_that_is_no_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", str(tmp_path), "--in-place"]) == 2
    assert "is not an AgentCompass run folder" in capsys.readouterr().err


STATUSES = ["completed", "skipped", "cancelled", "interrupted", "run_error", "eval_error", "run_error_or_eval_error"]


def entries(statuses: list[str]) -> st.SearchStrategy[list[dict[str, str]]]:
    entry = st.fixed_dictionaries(
        {"source": st.just("/w/f"), "destination": st.sampled_from(["a", "b/c"]), "kind": st.just("file"),
         "status": st.sampled_from(statuses)}
    )  # fmt: skip
    return st.lists(entry, max_size=2, unique_by=lambda item: item["destination"])


# A complete manifest holds only settled entries; an incomplete one may hold a failed transfer.
MANIFEST = st.one_of(
    st.fixed_dictionaries({"schema_version": st.just(1), "directory": st.just("details/t--0/attempt-1/artifacts"),
                           "complete": st.just(True), "entries": entries(["collected", "missing"])}),
    st.fixed_dictionaries({"schema_version": st.just(1), "directory": st.just("details/t--0/attempt-1/artifacts"),
                           "complete": st.just(False),
                           "entries": entries(["collected", "missing", "failed", "cancelled", "not_collected"])}),
)  # fmt: skip
SCORING = st.dictionaries(
    st.sampled_from(["error", "correct", "score", "grading", "note"]),
    st.one_of(st.booleans(), st.sampled_from(["", "timeout", None]), st.floats(0, 1)),
    max_size=4,
)
V2_PAYLOADS = st.builds(
    lambda status, error, manifest, diagnostics, scoring, harness: {
        **payload(status=status, meta={"benchmark": {"scoring": scoring}, "harness": harness}),
        **({"error": error} if error is not None else {}),
        "artifacts": {
            **({"declared_artifacts": manifest} if manifest else {}),
            **({"execution_diagnostics": diagnostics} if diagnostics is not None else {}),
        },
    },
    st.sampled_from(STATUSES),
    st.one_of(st.none(), st.sampled_from(["", "boom", "token=abc123 failed", 0, 1, ["x"]])),
    st.one_of(st.none(), MANIFEST),
    st.one_of(st.none(), st.sampled_from(["", "earlier trace"])),
    SCORING,
    st.one_of(st.none(), st.just({}), st.just({"telemetry": {"turns": 3, "empty": {}, "none": None}})),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=V2_PAYLOADS)
def test_random_v2_attempts_convert_as_the_released_reader_converts_them(
    reader: ModuleType, data: dict[str, Any]
) -> None:
    from agentcompass.runtime.results.detail import build_detail_record
    from agentcompass.runtime.results.legacy import convert_legacy_attempt

    attempt = {key: value for key, value in data.items() if key != "retry_count"}
    try:
        converted = convert_legacy_attempt(copy.deepcopy(attempt))
        task = {"task_id": "t", "category": None, "ground_truth": None, "attempt_plan": {"k": 1, "strategy": "avg"},
                "attempts": {"1": converted}, "retry_counts": {}, "retry_count": 0}  # fmt: skip
        theirs: Any = build_detail_record(task, strict=True)["attempts"]["1"]
    except ValueError as error:
        theirs = type(error).__name__
    found = examine_source(text(data), V2_ATTEMPT).issues
    errors = [(issue.code, issue.pointer) for issue in found if issue.severity == "error"]
    if isinstance(theirs, str):
        assert errors, theirs
        if theirs == "LegacyClassificationUnknown":
            assert ("legacy.unclassifiable", "/error" if "error" in data else "/status") in errors
        return
    assert errors == []
    assert _legacy.convert(attempt) == theirs


@pytest.mark.parametrize("how", ["missing", "a folder"])
def test_a_finished_v2_task_whose_attempt_has_no_result_is_an_error_as_the_reader_drops_it(
    reader: ModuleType, run: Path, how: str
) -> None:
    """Issue 34: has_task_result is false, so the task silently leaves the summary, reuse and the browser."""
    path = task_json(run, "clean #1")
    result = path.parent / "attempt-1" / "result.json"
    assert path in reader.result_files(run)
    result.unlink()
    if how == "a folder":
        result.mkdir()
    assert path not in reader.result_files(run)  # and no exception: the reader says nothing
    found = [(i.code, i.file, i.severity) for i in validate(run) if i.severity == "error"]
    assert ("layout.missing-result", str(result.parent), "error") in found


def test_a_v2_attempts_checkpoint_json_that_is_a_folder_is_an_error_as_the_checkpoint_repository_cannot_load_it(
    reader: ModuleType, run: Path
) -> None:
    """Issue 34: RunAttemptCheckpointRepository.load finds it (exists()) and opens it: IsADirectoryError."""
    import asyncio

    from agentcompass.runtime.attempts import AttemptKey
    from agentcompass.runtime.attempts.repository import RunAttemptCheckpointRepository

    checkpoint = task_json(run, "clean #1").parent / "attempt-2" / "checkpoint.json"
    load = lambda: asyncio.run(RunAttemptCheckpointRepository(run).load(AttemptKey("clean #1", 2)))  # noqa: E731
    assert load() is None  # the v2 checkpoint holds no scheduler section
    checkpoint.unlink()
    checkpoint.mkdir()
    with pytest.raises(IsADirectoryError):
        load()
    found = [(i.code, i.severity) for i in validate(run) if i.file == str(checkpoint)]
    assert found == [("io.not-a-file", "error")]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "log"])
def test_migrate_says_each_task_as_it_is_done_with_a_bar_on_a_terminal(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    """Each task's line is printed when the task is done, not all at the end: a line is on stdout before the next
    task is written; on a terminal, a bar of the phase under way (reading, then writing) is drawn on stderr."""
    stderr = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    written: list[tuple[int, str]] = []  # (steps seen, the stdout so far) at each step
    steps: list[migrate_module.Step] = []
    real = migrate_module.migrating

    def spied(*arguments: Any, on_step: Callable[[migrate_module.Step], None], **options: Any) -> Any:
        def step(seen: migrate_module.Step) -> None:
            written.append((len(steps), capsys.readouterr().out))
            steps.append(seen)
            on_step(seen)

        return real(*arguments, on_step=step, **options)

    monkeypatch.setattr(migrate_module, "migrating", spied)
    assert main(["migrate", str(run), "-o", str(tmp_path / "new")]) == 1
    rest = capsys.readouterr().out
    out = "".join(text for _, text in written) + rest
    assert rest.splitlines()[-1] == f"4 converted, 0 already v3, 1 refused in {tmp_path / 'new'}"
    assert [(step.phase, step.done) for step in steps if step.phase == "writing"] == [
        ("writing", n) for n in range(1, 5)
    ]
    assert {step.total for step in steps if step.phase == "reading"} == {5}
    converted = [index for index, step in enumerate(steps) if step.converted is not None]
    assert len(converted) == 4 and "converted      details/" in "".join(text for _, text in written[converted[0] + 1 :])
    assert out.count("converted      details/") == 4 and out.count("refused        details/") == 1
    if terminal:
        assert "tasks reading" in stderr.getvalue() and "tasks writing" in stderr.getvalue()
    else:
        assert stderr.getvalue() == ""
