"""write_task with others around: writers racing on one task, and records moving from one run to another."""

from __future__ import annotations

import copy
import errno
import json
import multiprocessing
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentbeats_spec import ArtifactsUnavailable, WriteError, read_task, to_dict, validate, write_task
from agentbeats_spec.layouts.agentcompass import task_folder_name
from agentbeats_spec.writing import _atomic

from ..conftest import VALID, collector_evidence
from ..interop.test_interop_agentcompass import agentcompass  # noqa: F401 (a fixture)

RECORD = json.loads((VALID / "task-detail" / "swe-utils.task-detail.json").read_text(encoding="utf-8"))
NAME = task_folder_name(RECORD["task_id"])
ROUNDS = 20


def _versions() -> list[dict[str, Any]]:
    """Two records of one task that end in different states, with different content in every file."""
    second = copy.deepcopy(RECORD)
    second["category"] = "coding-v2"
    for payload in second["attempts"].values():
        payload["metrics"] = {"reward": 0.25}
        payload["issues"] = []
    return [RECORD, second]


def _racer(which: int, runs: list[str], barrier: Any) -> None:
    record = _versions()[which]
    for run in runs:
        barrier.wait(timeout=60)
        write_task(run, record)


def _tree(root: Path) -> dict[str, bytes]:
    found = {path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*") if path.is_file()}
    assert found, root  # two empty trees are no evidence of the same files
    return found


def test_two_processes_racing_on_one_task_leave_one_writers_whole_task(
    agentcompass: tuple[ModuleType, ModuleType],  # noqa: F811
    tmp_path: Path,
) -> None:
    layout, _ = agentcompass
    references = []
    for which, record in enumerate(_versions()):
        written = write_task(tmp_path / f"reference-{which}", record)
        references.append((written.parent.parent.name, _tree(written.parent)))
    runs = [tmp_path / f"run-{number}" for number in range(ROUNDS)]
    for run in runs[1::2]:  # half of the rounds race on a task that is already there, in its other state
        write_task(run, _versions()[1])
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    racers = [context.Process(target=_racer, args=(which, [str(run) for run in runs], barrier)) for which in (0, 1)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(timeout=300)
    assert [racer.exitcode for racer in racers] == [0, 0]  # neither raised (no FileNotFoundError, nothing else)
    for run in runs:
        (task,) = (run / "details").glob(f"*/{NAME}")
        assert (task.parent.name, _tree(task)) in references, run  # exactly one writer's whole task, in its state
        assert [path.name for path in run.rglob("*") if path.name.startswith(".")] == []
        assert [issue for issue in validate(task) if issue.severity == "error"] == []  # the run has no run_info.json
        assert layout.read_result(task / "task.json") == to_dict(read_task(task))


def test_writers_of_different_tasks_do_not_wait_for_each_other(tmp_path: Path) -> None:
    """A writer holding one task's lock does not stop a writer of another task of the same run."""
    from agentbeats_spec.tasks._detail import _TaskLock
    from agentbeats_spec.writing._atomic import Folder

    (tmp_path / "details").mkdir()
    with Folder.root(tmp_path) as root, root.child("details") as details, _TaskLock(root, details, NAME):
        other = copy.deepcopy(RECORD)
        other["task_id"] = "another task"
        assert write_task(tmp_path, other).is_file()  # would block forever if the run were locked
        with pytest.raises(BlockingIOError):
            import fcntl
            import os

            descriptor = os.open(tmp_path / "details" / "running" / NAME, os.O_RDONLY)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            finally:
                os.close(descriptor)


def _run_a(tmp_path: Path) -> tuple[Path, Path]:
    run = tmp_path / "a"
    shutil.copytree(VALID / "agentcompass-run", run)
    return run, next((run / "details" / "error").iterdir())


def test_a_record_read_from_run_a_and_written_into_run_b_brings_its_artifacts(
    agentcompass: tuple[ModuleType, ModuleType],  # noqa: F811
    tmp_path: Path,
) -> None:
    layout, _ = agentcompass
    run_a, task_a = _run_a(tmp_path)
    (task_a / "attempt-1" / "artifacts" / "logs").mkdir()
    (task_a / "attempt-1" / "artifacts" / "logs" / "run.log").write_text("ran\n")
    result = json.loads((task_a / "attempt-1" / "result.json").read_text())
    result["artifacts"]["declared_artifacts"]["entries"].append(
        {
            "source": "/work/logs",
            "destination": "logs",
            "status": "collected",
            "kind": "directory",
            **collector_evidence(task_a / "attempt-1" / "artifacts" / "logs"),
        }
    )
    (task_a / "attempt-1" / "result.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    before = _tree(run_a)
    run_b = tmp_path / "b"

    written = write_task(run_b, read_task(task_a))

    assert _tree(run_a) == before  # the source is left as it was
    task_b = written.parent
    assert _tree(task_b / "attempt-1" / "artifacts") == _tree(task_a / "attempt-1" / "artifacts")
    manifest = json.loads((task_b / "attempt-1" / "result.json").read_text())["artifacts"]["declared_artifacts"]
    assert manifest["directory"] == f"details/error/{task_b.name}/attempt-1/artifacts"
    assert [issue for issue in validate(task_b) if issue.severity == "error"] == []  # run_b has no run_info.json
    theirs = layout.read_result(written)
    assert theirs == to_dict(read_task(task_b))
    assert theirs["attempts"]["1"]["artifacts"]["declared_artifacts"] == manifest
    # written again, from the same artifacts: nothing to copy, nothing changes
    again = _tree(run_b)
    write_task(run_b, read_task(task_a))
    assert _tree(run_b) == again


def test_a_mapping_names_the_run_its_artifacts_are_in(tmp_path: Path) -> None:
    run_a, task_a = _run_a(tmp_path)
    data = to_dict(read_task(task_a))
    with pytest.raises(ArtifactsUnavailable) as info:
        write_task(tmp_path / "b", data)
    assert info.value.attempt == "1" and "the artifacts folder of its manifest is not there" in str(info.value)
    assert not (tmp_path / "b").exists()
    written = write_task(tmp_path / "b", data, artifacts_from=run_a)
    assert (written.parent / "attempt-1" / "artifacts" / "patches" / "fix.diff").is_file()


@pytest.mark.parametrize("damage", ["missing", "link", "kind"])
def test_what_cannot_be_copied_is_refused_before_anything_is_written(tmp_path: Path, damage: str) -> None:
    _, task_a = _run_a(tmp_path)
    record = read_task(task_a)
    artifact = task_a / "attempt-1" / "artifacts" / "patches" / "fix.diff"
    artifact.unlink()
    if damage == "link":
        (tmp_path / "secret.txt").write_text("outside")
        artifact.symlink_to(tmp_path / "secret.txt")
    elif damage == "kind":
        artifact.mkdir()
    with pytest.raises(ArtifactsUnavailable) as info:
        write_task(tmp_path / "b", record)
    reason = {"missing": "is missing", "link": "is a symbolic link, which is never followed", "kind": "is not a file"}[
        damage
    ]
    assert reason in str(info.value) and str(artifact) in str(info.value)
    assert not (tmp_path / "b").exists()


def test_a_task_that_already_has_other_artifacts_is_not_overwritten(tmp_path: Path) -> None:
    _, task_a = _run_a(tmp_path)
    run_b = tmp_path / "b"
    written = write_task(run_b, read_task(task_a))
    (written.parent / "attempt-1" / "artifacts" / "patches" / "fix.diff").write_text("another patch, longer\n")
    before = _tree(run_b)
    with pytest.raises(ArtifactsUnavailable, match="the task already has other artifacts there"):
        write_task(run_b, read_task(task_a))
    assert _tree(run_b) == before


def test_a_copy_that_fails_half_way_leaves_no_partial_artifacts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, task_a = _run_a(tmp_path)
    record = read_task(task_a)

    def full_disk(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_atomic, "copy_file", full_disk)
    with pytest.raises(WriteError, match=r"cannot write .*attempt-1/artifacts: No space left on device"):
        write_task(tmp_path / "b", record)
    attempt = next((tmp_path / "b" / "details").glob("*/*/attempt-1"))
    assert list(attempt.iterdir()) == []  # neither the staging folder nor a partial artifacts/


def test_without_flock_writers_still_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the platform has no flock (Windows), write_task writes as before, unserialized."""
    from agentbeats_spec.tasks import _detail

    monkeypatch.setattr(_detail, "fcntl", None)
    first = write_task(tmp_path, _versions()[0])
    second = write_task(tmp_path, _versions()[1])
    assert not first.exists() and second.parent.parent.name == "normal"
    assert to_dict(read_task(second.parent))["category"] == "coding-v2"


def test_a_run_folder_that_cannot_be_made_is_a_write_error_naming_it(tmp_path: Path) -> None:
    blocker = tmp_path / "runs"
    blocker.write_text("a file where the run's parent folder should be\n")
    with pytest.raises(WriteError) as info:
        write_task(blocker / "r1", RECORD)
    assert info.value.errno == errno.ENOTDIR
    assert str(info.value) == f"cannot write {blocker / 'r1'}: Not a directory"
    assert blocker.read_text() == "a file where the run's parent folder should be\n"
