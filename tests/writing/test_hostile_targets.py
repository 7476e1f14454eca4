"""No write leaves its tree: what a writer finds in its target (an old task.json, a staged migration, a link planted
or swapped in) is input, and never decides where anything is written.

Every test builds its tree here, runs a writer at it, and checks that a sentinel folder outside the tree is, byte
for byte, what it was: the same names, the same modes, the same contents.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec import (
    ArtifactsUnavailable,
    InvalidDocument,
    SpecError,
    WriteError,
    dump,
    load,
    migrate_run,
    read_task,
    to_dict,
    write_task,
)
from agentbeats_spec.cli import main
from agentbeats_spec.layouts.agentcompass import MIGRATION_STAGING, task_folder_name
from agentbeats_spec.vocabulary._text import quote
from agentbeats_spec.writing import _atomic

from ..conftest import TASK_DIR, VALID, collector_evidence

RECORD = json.loads((VALID / "task-detail" / "swe-utils.task-detail.json").read_text(encoding="utf-8"))
NAME = task_folder_name(RECORD["task_id"])
LINK = "it is a symbolic link, and writers never follow a link in the tree they write"
SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
BY_DESCRIPTOR = pytest.mark.skipif(
    not _atomic._BY_DESCRIPTOR, reason="folders cannot be held open here: names go by path, checked just before use"
)


def picture(root: Path) -> dict[str, tuple[str, int, bytes]]:
    """Everything below ``root`` (itself included), by relative name: its type, mode and content (a link's target)."""
    found: dict[str, tuple[str, int, bytes]] = {}
    pending = [root]
    while pending:
        path = pending.pop()
        info = path.lstat()
        name = path.relative_to(root).as_posix()
        if stat.S_ISLNK(info.st_mode):
            found[name] = ("link", info.st_mode, os.readlink(path).encode())
        elif stat.S_ISDIR(info.st_mode):
            found[name] = ("folder", info.st_mode, b"")
            pending.extend(path.iterdir())
        else:
            found[name] = ("file", info.st_mode, path.read_bytes())
    return found


@pytest.fixture
def sentinel(tmp_path: Path) -> Callable[[], None]:
    """A folder outside every tree a test writes; the returned check says it is exactly as it was."""
    folder = tmp_path / "sentinel"
    (folder / "inner").mkdir(parents=True)
    (folder / "keep.txt").write_bytes(b"nothing may change here\n")
    (folder / "keep.txt").chmod(0o640)
    (folder / "inner" / "private.key").write_bytes(b"-----BEGIN PRIVATE KEY-----\nMIIB\n")
    (folder / "inner" / "private.key").chmod(0o600)
    before = picture(folder)
    return lambda: _same(picture(folder), before)


def _same(after: dict[str, tuple[str, int, bytes]], before: dict[str, tuple[str, int, bytes]]) -> None:
    assert after == before, "the sentinel folder outside the tree changed"


def outside(tmp_path: Path) -> Path:
    return tmp_path / "sentinel"


# -- write_task: an existing task.json is checked before anything of it is used -----------------------------------


def _task_with_index(run: Path, attempts: dict[str, Any]) -> Path:
    task = run / "details" / "running" / NAME
    task.mkdir(parents=True)
    index = {"schema_version": "agentcompass.task.v3", "task_id": RECORD["task_id"], "attempts": attempts}
    (task / "task.json").write_text(json.dumps(index, indent=2) + "\n")
    return task


@pytest.mark.parametrize("kind", ["relative", "absolute", "not canonical", "another number"])
def test_an_existing_task_index_cannot_name_where_a_result_is_written(
    tmp_path: Path, sentinel: Callable[[], None], kind: str
) -> None:
    run = tmp_path / "run"
    task = run / "details" / "running" / NAME
    key, directory = {
        "relative": ("9", os.path.relpath(outside(tmp_path), task)),  # ../../../../sentinel
        "absolute": ("8", str(outside(tmp_path))),
        "not canonical": ("01", "attempt-01"),
        "another number": ("1", "attempt-2"),
    }[kind]
    _task_with_index(run, {key: directory})
    before = picture(run)
    with pytest.raises(WriteError) as raised:
        write_task(run, RECORD)
    assert str(raised.value) == (
        f"cannot write {task / 'task.json'}: the task index there maps attempt {key!r} to the string "
        f"{quote(directory)}, not to attempt-<n> with its own canonical number; nothing was written"
    )
    assert raised.value.filename == str(task / "task.json")
    sentinel()
    assert picture(run) == before  # refused before a folder was made


def test_an_index_of_another_task_is_refused_as_a_write_error(tmp_path: Path) -> None:
    run = tmp_path / "run"
    task = _task_with_index(run, {})
    (task / "task.json").write_text('{"schema_version": "agentcompass.task.v3", "task_id": "other", "attempts": {}}')
    with pytest.raises(WriteError, match="the task index there is for another task or layout; nothing was written"):
        write_task(run, RECORD)


def test_a_task_index_that_is_a_link_is_not_read(tmp_path: Path, sentinel: Callable[[], None]) -> None:
    run = tmp_path / "run"
    task = run / "details" / "running" / NAME
    task.mkdir(parents=True)
    (task / "task.json").symlink_to(outside(tmp_path) / "keep.txt")
    with pytest.raises(WriteError) as raised:
        write_task(run, RECORD)
    assert str(raised.value) == f"cannot write {task / 'task.json'}: {LINK}"
    sentinel()


def test_a_task_index_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    run = tmp_path / "run"
    task = run / "details" / "running" / NAME
    task.mkdir(parents=True)
    os.mkfifo(task / "task.json")
    with pytest.raises(WriteError) as raised:
        write_task(run, RECORD)
    assert str(raised.value) == f"cannot write {task / 'task.json'}: it is not a regular file"


# -- write_task: a link planted in the target run is refused, never followed -----------------------------------


@pytest.mark.parametrize(
    "where", ["details", "details/running", "details/running/TASK", "details/running/TASK/attempt-2", "details/error"]
)
def test_write_task_never_writes_through_a_link_in_the_run(
    tmp_path: Path, sentinel: Callable[[], None], where: str
) -> None:
    run = tmp_path / "run"
    link = run / where.replace("TASK", NAME)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside(tmp_path), target_is_directory=True)
    with pytest.raises(WriteError) as raised:
        write_task(run, RECORD)
    assert str(raised.value) == f"cannot write {link}: {LINK}"
    assert raised.value.filename == str(link)
    sentinel()
    assert link.is_symlink()  # refused, not replaced either


@BY_DESCRIPTOR
def test_a_link_swapped_in_for_an_attempt_folder_between_two_steps_is_refused(
    tmp_path: Path, sentinel: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "run"
    attempt = run / "details" / "running" / NAME / "attempt-3"
    real = _atomic.Folder.write

    def swapping(folder: _atomic.Folder, name: str, content: bytes) -> None:
        if name == "result.json" and not attempt.is_symlink():  # the folders are made: now plant the link
            attempt.rename(attempt.with_name("moved-away"))
            attempt.symlink_to(outside(tmp_path), target_is_directory=True)
        real(folder, name, content)

    monkeypatch.setattr(_atomic.Folder, "write", swapping)
    with pytest.raises(WriteError) as raised:
        write_task(run, RECORD)
    assert str(raised.value) == f"cannot write {attempt}: {LINK}"
    sentinel()


@BY_DESCRIPTOR
def test_a_task_folder_swapped_for_a_link_while_written_is_not_followed(
    tmp_path: Path, sentinel: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What is written goes into the folder held open, wherever its name now leads; the move then refuses."""
    run = tmp_path / "run"
    task = run / "details" / "running" / NAME
    real = _atomic.Folder.write

    def swapping(folder: _atomic.Folder, name: str, content: bytes) -> None:
        if not task.is_symlink():
            task.rename(task.with_name("moved-away"))
            task.symlink_to(outside(tmp_path), target_is_directory=True)
        real(folder, name, content)

    monkeypatch.setattr(_atomic.Folder, "write", swapping)
    with pytest.raises(WriteError) as raised:
        write_task(run, RECORD)
    assert str(raised.value) == (
        f"cannot write {task}: the task folder was replaced while it was written; it is not moved"
    )
    sentinel()
    moved = task.with_name("moved-away")
    assert json.loads((moved / "task.json").read_text())["category"] == RECORD["category"]  # written where it was
    assert sorted(path.name for path in moved.iterdir()) == ["attempt-1", "attempt-2", "attempt-3", "task.json"]


ROUNDS = 40


@BY_DESCRIPTOR
def test_a_link_swapped_in_and_out_in_a_loop_never_redirects_a_write(
    tmp_path: Path, sentinel: Callable[[], None]
) -> None:
    """A race, bounded in count: one thread swaps an attempt folder for a link and back while the task is written
    again and again. Each write either succeeds or is refused; none reaches the sentinel."""
    run = tmp_path / "run"
    written = write_task(run, RECORD).parent
    attempt, aside = written / "attempt-2", written / "aside"
    done = threading.Event()

    def swap() -> None:
        for _ in range(20_000):
            if done.is_set():
                break
            with contextlib.suppress(OSError):  # the writer may make the folder again in between
                attempt.rename(aside)
                attempt.symlink_to(outside(tmp_path), target_is_directory=True)
            with contextlib.suppress(OSError):
                attempt.unlink()
                aside.rename(attempt)

    swapper = threading.Thread(target=swap)
    swapper.start()
    try:
        for _ in range(ROUNDS):
            try:
                write_task(run, RECORD)
            except SpecError as error:  # refused: the link was there when a folder was opened
                assert isinstance(error, WriteError), error
    finally:
        done.set()
        swapper.join()
    sentinel()
    assert not (outside(tmp_path) / "result.json").exists()


# -- write_task(artifacts_from=...): only what stays inside the source run, no link followed ----------------------


def _source_run(tmp_path: Path) -> tuple[Path, Path]:
    run = tmp_path / "a"
    shutil.copytree(VALID / "agentcompass-run", run)
    return run, next((run / "details" / "error").iterdir())


def _private_copy_of(folder: Path, tmp_path: Path) -> Path:
    """A folder outside the run, shaped like ``folder`` and holding a private file where the artifact is."""
    private = tmp_path / "sentinel" / "private-copy"
    shutil.copytree(folder, private)
    for path in private.rglob("fix.diff"):
        path.write_text("PRIVATE: never to be copied\n")
    return private


@pytest.mark.parametrize("linked", ["attempt-1", "attempt-1/artifacts", "attempt-1/artifacts/patches"])
def test_artifacts_are_never_copied_through_a_link_in_the_source_run(tmp_path: Path, linked: str) -> None:
    run_a, task_a = _source_run(tmp_path)
    record = read_task(task_a)
    folder = task_a / linked
    private = _private_copy_of(folder, tmp_path)
    shutil.rmtree(folder)
    folder.symlink_to(private, target_is_directory=True)
    before = picture(tmp_path / "sentinel")
    with pytest.raises(ArtifactsUnavailable) as raised:
        write_task(tmp_path / "b", record, artifacts_from=run_a)
    reached = task_a / "attempt-1" / "artifacts"
    what = "the artifacts folder of its manifest" if linked != "attempt-1/artifacts/patches" else "a collected artifact"
    shown = reached if what != "a collected artifact" else reached / "patches" / "fix.diff"
    assert str(raised.value) == (
        f"attempt 1: {shown}: {what} is reached through a symbolic link, which is never followed; nothing was written"
    )
    assert not (tmp_path / "b").exists()
    assert picture(tmp_path / "sentinel") == before


def test_a_link_inside_a_collected_folder_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    run_a, task_a = _source_run(tmp_path)
    artifacts = task_a / "attempt-1" / "artifacts"
    (artifacts / "logs").mkdir()
    (artifacts / "logs" / "run.log").write_text("ran\n")
    result = json.loads((task_a / "attempt-1" / "result.json").read_text())
    result["artifacts"]["declared_artifacts"]["entries"].append(
        {
            "source": "/work/logs",
            "destination": "logs",
            "status": "collected",
            "kind": "directory",
            **collector_evidence(artifacts / "logs"),
        }
    )
    (task_a / "attempt-1" / "result.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    record = read_task(task_a)  # read while the tree was clean; the link comes after
    (tmp_path / "private.txt").write_text("PRIVATE\n")
    (artifacts / "logs" / "private.txt").symlink_to(tmp_path / "private.txt")
    with pytest.raises(ArtifactsUnavailable) as raised:
        write_task(tmp_path / "b", record, artifacts_from=run_a)
    assert str(raised.value) == (
        f"attempt 1: {artifacts / 'logs' / 'private.txt'}: a collected folder holds a symbolic link or special file, "
        "which is never copied; nothing was written"
    )
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("directory", ["../sentinel", "/etc", "details/../../sentinel"])
def test_a_manifest_directory_that_leaves_the_source_run_is_refused(tmp_path: Path, directory: str) -> None:
    run_a, task_a = _source_run(tmp_path)
    data = to_dict(read_task(task_a))
    data["attempts"]["1"]["artifacts"]["declared_artifacts"]["directory"] = directory
    with pytest.raises(InvalidDocument) as raised:
        write_task(tmp_path / "b", data, artifacts_from=run_a)
    assert [(issue.code, issue.pointer) for issue in raised.value.issues] == [
        ("security.path-escape", "/attempts/1/artifacts/declared_artifacts/directory")
    ]
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize(
    ("path", "parts"),
    [("a/b", ["a", "b"]), ("./a//b/", ["a", "b"]), ("..", None), ("a/../b", None), ("/a", None), ("", None),
     (".", None), ("a\\b", None), ("a\0b", None)],
)  # fmt: skip
def test_the_copy_itself_takes_only_paths_that_stay_inside(path: str, parts: list[str] | None) -> None:
    """Behind the schema's check, the copy's own: a manifest path is split into plain names or refused."""
    from agentbeats_spec.tasks._detail import _parts

    assert _parts(path) == parts


# -- migrate: a staged migration is recovered only from state the recovery can verify -------------------------


def _v2_run(root: Path, task_id: str = "clean #1") -> Path:
    """A run with one agentcompass.task.v2 task directly in details/."""
    folder = root / "details" / task_folder_name(task_id)
    (folder / "attempt-1").mkdir(parents=True)
    index = {
        "schema_version": "agentcompass.task.v2", "task_id": task_id, "attempts": {"1": "attempt-1"},
        "category": "coding", "ground_truth": {"answer": 42}, "attempt_plan": {"k": 1, "strategy": "avg"},
    }  # fmt: skip
    (folder / "task.json").write_text(json.dumps(index, indent=2) + "\n")
    result = {
        "status": "completed", "metrics": {"correct": True}, "final_answer": "42", "trajectory": {}, "artifacts": {},
        "analysis_result": {}, "meta": {"benchmark": {}, "harness": {}}, "retry_count": 0,
    }  # fmt: skip
    (folder / "attempt-1" / "result.json").write_text(json.dumps(result, indent=2) + "\n")
    return root


NO_LINK = "migrate never follows a link in the run it reads or writes"


@pytest.mark.parametrize("how", [["--in-place"], ["--dry-run"], ["-o", "NEW"]])
@pytest.mark.parametrize("linked", ["task", "state"])
def test_migrate_refuses_a_task_folder_or_state_folder_that_is_a_link_and_exits_1(
    tmp_path: Path, sentinel: Callable[[], None], capsys: pytest.CaptureFixture[str], how: list[str], linked: str
) -> None:
    """docs/security.md: a link planted where a task is listed as refused, exit 1 (it was skipped: "0 refused")."""
    run = _v2_run(tmp_path / "run")
    name = task_folder_name("clean #1")
    elsewhere = tmp_path / "sentinel" / "elsewhere"
    if linked == "task":
        shutil.move(run / "details" / name, elsewhere)
        (run / "details" / name).symlink_to(elsewhere, target_is_directory=True)
        listed = f"details/{name}"
    else:
        elsewhere.mkdir()
        shutil.move(run / "details" / name, elsewhere / name)
        (run / "details" / "normal").symlink_to(elsewhere, target_is_directory=True)
        listed = "details/normal"
    before = picture(tmp_path / "sentinel")
    how = [str(tmp_path / "new") if part == "NEW" else part for part in how]
    assert main(["migrate", str(run), *how]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"refused        {listed}: a symbolic link where a task folder may be; {NO_LINK}"
    assert out[-1].startswith("0 converted, 0 already v3, 1 refused")
    assert picture(tmp_path / "sentinel") == before


@pytest.mark.parametrize(
    ("index", "reason"),
    [
        ("[" * 100_000, "task.json:1:513: nesting deeper than 512 levels; rejected to bound memory and time"),
        ("LINK", f"task.json cannot be read: {LINK}"),
    ],
)
def test_migrate_refuses_a_task_whose_index_cannot_be_read_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], index: str, reason: str
) -> None:
    """A task.json nested too deep was a RecursionError (exit 3); one that is a link was skipped (exit 0)."""
    run = _v2_run(tmp_path / "run")
    task = run / "details" / task_folder_name("clean #1")
    if index == "LINK":
        (tmp_path / "index.json").write_bytes((task / "task.json").read_bytes())
        (task / "task.json").unlink()
        (task / "task.json").symlink_to(tmp_path / "index.json")
    else:
        (task / "task.json").write_text(index, encoding="utf-8")
    before = picture(run)
    assert main(["migrate", str(run), "--in-place"]) == 1
    out, err = capsys.readouterr()
    assert (out.splitlines()[0], err) == (f"refused        details/{task.name}: {reason}", "")
    assert picture(run) == before


def test_a_task_moved_to_another_state_with_a_checkpoint_nested_deep_is_moved(tmp_path: Path) -> None:
    """A move rewrites the run-relative directories its stored files hold: a checkpoint nested as deep as the reader
    allows was a RecursionError there."""
    data = to_dict(read_task(TASK_DIR))
    for attempt in data["attempts"].values():
        attempt["artifacts"] = {}
    first = write_task(tmp_path / "run", data)
    deep = "[" * 510 + "]" * 510
    (first.parent / "attempt-1" / "checkpoint.json").write_text(deep, encoding="utf-8")
    for attempt in data["attempts"].values():
        attempt["issues"] = []
    moved = write_task(tmp_path / "run", data)
    assert (first.parent.parent.name, moved.parent.parent.name) == ("error", "normal")
    assert (moved.parent / "attempt-1" / "checkpoint.json").read_text(encoding="utf-8") == deep


def _staged(run: Path, origin: str | None, *, task_id: str = "clean #1") -> Path:
    """What an interrupted migrate leaves: a stage with an origin and the replaced (old) folder."""
    stage = run / MIGRATION_STAGING / "0"
    replaced = stage / "replaced"
    (replaced / "attempt-1").mkdir(parents=True)
    (replaced / "task.json").write_text(json.dumps({"schema_version": "agentcompass.task.v2", "task_id": task_id}))
    if origin is not None:
        (stage / "origin").write_text(origin)
    return stage


def _refuses_recovery(run: Path, capsys: pytest.CaptureFixture[str], why: str) -> None:
    before = picture(run)
    assert main(["migrate", str(run), "--in-place"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"agentbeats-spec: error: {run / MIGRATION_STAGING} holds an interrupted migration that cannot be verified "
        f"(0: {why}); nothing was changed: move back by hand what belongs in details/, then remove "
        f"{MIGRATION_STAGING}/\n"
    )
    assert picture(run) == before  # left untouched, the staged state included


@pytest.mark.parametrize("origin", ["../escaped", "details/../../escaped", "ABSOLUTE", "details", "details/normal",
                                    "details/./x", "details/bogus-state/x", ""])  # fmt: skip
def test_a_staged_origin_outside_details_is_refused_and_left_untouched(
    tmp_path: Path, sentinel: Callable[[], None], capsys: pytest.CaptureFixture[str], origin: str
) -> None:
    run = _v2_run(tmp_path / "run")
    origin = str(outside(tmp_path) / "planted") if origin == "ABSOLUTE" else origin
    _staged(run, origin)
    _refuses_recovery(run, capsys, f"origin {quote(origin)} is not a task folder of this run's details/")
    sentinel()
    assert not (tmp_path / "escaped").exists()


def test_a_staged_origin_that_names_another_task_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _v2_run(tmp_path / "run")
    origin = f"details/{task_folder_name('another task')}"
    _staged(run, origin)
    _refuses_recovery(run, capsys, f"origin {quote(origin)} is not the folder of the task replaced/task.json holds")


@pytest.mark.parametrize("linked", ["origin", "replaced", "stage", "details", "details/normal"])
def test_staged_state_reached_through_a_link_is_refused(
    tmp_path: Path, sentinel: Callable[[], None], capsys: pytest.CaptureFixture[str], linked: str
) -> None:
    run = _v2_run(tmp_path / "run")
    name = task_folder_name("clean #1")
    target = outside(tmp_path)
    if linked == "details":  # the task goes back to details/normal/<name>, details/ leads out
        shutil.rmtree(run / "details")
        (run / "run_info.json").write_text("{}")
    stage = _staged(run, f"details/normal/{name}")
    if linked == "origin":
        (target / "origin").write_text(f"details/normal/{name}")
        (stage / "origin").unlink()
        (stage / "origin").symlink_to(target / "origin")
        why = "origin cannot be read as a file"
    elif linked == "replaced":
        shutil.copytree(stage / "replaced", target / "replaced")
        shutil.rmtree(stage / "replaced")
        (stage / "replaced").symlink_to(target / "replaced", target_is_directory=True)
        why = "replaced is not a folder"
    elif linked == "stage":
        shutil.move(stage, target / "stage")
        stage.symlink_to(target / "stage", target_is_directory=True)
        why = "a symbolic link where a stage folder belongs"
    else:
        (run / linked).symlink_to(target, target_is_directory=True)
        why = f"details/normal/{name} is reached through a symbolic link"
    before = picture(target)
    if linked == "details":
        assert main(["migrate", str(run), "--in-place"]) == 2
        assert capsys.readouterr().err == (
            f"agentbeats-spec: error: {run / 'details'} is a symbolic link; migrate never follows a link in the run "
            "it reads or writes\n"
        )
    else:
        _refuses_recovery(run, capsys, why)
    assert picture(target) == before


def test_a_staging_folder_that_is_a_link_is_refused(
    tmp_path: Path, sentinel: Callable[[], None], capsys: pytest.CaptureFixture[str]
) -> None:
    run = _v2_run(tmp_path / "run")
    (run / MIGRATION_STAGING).symlink_to(outside(tmp_path), target_is_directory=True)
    assert main(["migrate", str(run), "--in-place"]) == 2
    assert capsys.readouterr().err == (
        f"agentbeats-spec: error: {run / MIGRATION_STAGING} is not a folder (a link or a file where migrate stages "
        "its work); nothing was changed: remove it first\n"
    )
    sentinel()


def test_a_verifiable_stage_is_recovered(tmp_path: Path) -> None:
    """The positive case: a replaced folder whose origin checks out goes back, and the next pass converts it."""
    run = _v2_run(tmp_path / "run")
    name = task_folder_name("clean #1")
    old = run / "details" / name
    stage = run / MIGRATION_STAGING / "0"
    stage.mkdir(parents=True)
    (stage / "origin").write_text(f"details/{name}")
    old.rename(stage / "replaced")
    done = migrate_run(run, in_place=True)
    assert [(str(a), str(b)) for a, b in done.converted] == [(f"details/{name}", f"details/normal/{name}")]
    assert not (run / MIGRATION_STAGING).exists()


# -- migrate: a link planted in the run is never followed -------------------------------------------------------


@pytest.mark.parametrize("mode", ["--in-place", "-o"])
def test_migrate_never_files_a_task_through_a_linked_state_folder(
    tmp_path: Path, sentinel: Callable[[], None], capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    run = _v2_run(tmp_path / "run")
    (run / "details" / "normal").symlink_to(outside(tmp_path), target_is_directory=True)
    arguments = ["--in-place"] if mode == "--in-place" else ["-o", str(tmp_path / "new")]
    assert main(["migrate", str(run), *arguments]) == 1
    where = run if mode == "--in-place" else tmp_path / "new"
    out = capsys.readouterr().out
    assert f"refused        details/{task_folder_name('clean #1')}: cannot write " in out
    assert f"/details/normal: {LINK}\n" in out
    sentinel()
    assert (where / "details" / task_folder_name("clean #1") / "task.json").is_file()  # left as it was
    assert not (where / MIGRATION_STAGING).exists()


def test_migrate_never_takes_a_linked_v3_twin_for_the_task(
    tmp_path: Path, sentinel: Callable[[], None], capsys: pytest.CaptureFixture[str]
) -> None:
    """A link where the converted task belongs (details/normal/<task>) is not a twin to compare with: refused."""
    run = _v2_run(tmp_path / "run")
    name = task_folder_name("clean #1")
    (run / "details" / "normal").mkdir()
    (run / "details" / "normal" / name).symlink_to(outside(tmp_path), target_is_directory=True)
    assert main(["migrate", str(run), "--in-place"]) == 1
    assert f"refused        details/{name}: cannot write {run / 'details' / 'normal' / name}: {LINK}\n" in (
        capsys.readouterr().out
    )
    sentinel()
    assert (run / "details" / name / "task.json").is_file()


def test_migrate_never_writes_through_a_linked_attempt_folder(
    tmp_path: Path, sentinel: Callable[[], None], capsys: pytest.CaptureFixture[str]
) -> None:
    run = _v2_run(tmp_path / "run")
    attempt = run / "details" / task_folder_name("clean #1") / "attempt-1"
    shutil.copytree(attempt, outside(tmp_path) / "attempt-1")
    shutil.rmtree(attempt)
    attempt.symlink_to(outside(tmp_path) / "attempt-1", target_is_directory=True)
    before = picture(outside(tmp_path))
    assert main(["migrate", str(run), "--in-place"]) == 1
    assert "refused" in capsys.readouterr().out
    assert picture(outside(tmp_path)) == before
    assert attempt.is_symlink()


# -- the file writers: dump, redact, convert --------------------------------------------------------------------


def test_dump_redact_and_convert_replace_a_link_at_their_target_never_follow_it(
    tmp_path: Path, sentinel: Callable[[], None]
) -> None:
    kept = outside(tmp_path) / "keep.txt"
    for name in ("dumped.json", "redacted.json", "attempt-1.atif.json"):
        (tmp_path / name).symlink_to(kept)
    model = load(TASK_DIR / "attempt-1" / "result.json", "agentcompass-attempt")
    dump(model, tmp_path / "dumped.json")
    source = tmp_path / "source.json"
    source.write_text(json.dumps({"token": SECRET}) + "\n")
    assert main(["redact", str(source), "-o", str(tmp_path / "redacted.json")]) == 0
    assert main(["convert", "--to", "atif", str(TASK_DIR), "-o", str(tmp_path)]) == 0
    for name in ("dumped.json", "redacted.json", "attempt-1.atif.json"):
        assert not (tmp_path / name).is_symlink() and (tmp_path / name).is_file()
    assert json.loads((tmp_path / "redacted.json").read_text()) == {"token": "********"}
    sentinel()


def test_redact_in_place_says_that_other_hard_links_keep_the_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run" / "result.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"token": SECRET}) + "\n")
    other = tmp_path / "backup.json"
    os.link(path, other)
    assert main(["redact", str(path), "--in-place"]) == 0
    assert capsys.readouterr().err == (
        f"agentbeats-spec: warning: {path} has 1 other hard link(s); they still hold the secrets: redact or remove "
        "them too\n"
    )
    assert json.loads(path.read_text()) == {"token": "********"}
    assert SECRET in other.read_text()  # what the warning says


def test_a_hard_link_warning_escapes_the_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "evil\x1b[31m\n::error file=x::.json"
    path.write_text(json.dumps({"token": SECRET}) + "\n")
    os.link(path, tmp_path / "other.json")
    assert main(["redact", str(path), "--in-place"]) == 0
    err = capsys.readouterr().err
    assert "evil\\x1b[31m\\x0a::error" in err and "\x1b" not in err and err.count("\n") == 1


def test_redact_in_place_without_other_links_says_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"token": SECRET}) + "\n")
    assert main(["redact", str(path), "--in-place"]) == 0
    assert capsys.readouterr().err == ""


# -- the one home: writing/_atomic.Folder ----------------------------------------------------------------------


@BY_DESCRIPTOR
def test_a_folder_opened_before_a_swap_keeps_receiving_the_write(tmp_path: Path, sentinel: Callable[[], None]) -> None:
    (tmp_path / "run" / "sub").mkdir(parents=True)
    with _atomic.Folder.root(tmp_path / "run") as root, root.child("sub") as sub:
        (tmp_path / "run" / "sub").rename(tmp_path / "run" / "elsewhere")
        (tmp_path / "run" / "sub").symlink_to(outside(tmp_path), target_is_directory=True)
        sub.write("file.json", b"{}\n")
        with pytest.raises(WriteError, match=LINK):
            root.child("sub")
    assert (tmp_path / "run" / "elsewhere" / "file.json").read_bytes() == b"{}\n"
    sentinel()


@pytest.mark.parametrize("name", ["..", ".", "", "a/b", "x\0y"])
def test_a_folder_takes_plain_names_only(tmp_path: Path, name: str) -> None:
    with _atomic.Folder.root(tmp_path) as root, pytest.raises(WriteError, match="it is not a plain name"):
        root.write(name, b"x")


def test_a_write_keeps_the_mode_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "f.json").write_text("old\n")
    (tmp_path / "f.json").chmod(0o604)
    with _atomic.Folder.root(tmp_path) as root:
        root.write("f.json", b"new\n")
    assert (tmp_path / "f.json").read_text() == "new\n"
    assert stat.S_IMODE((tmp_path / "f.json").stat().st_mode) == 0o604
    assert os.listdir(tmp_path) == ["f.json"]


def test_a_toml_dump_onto_a_link_keeps_nothing_of_what_it_named(tmp_path: Path, sentinel: Callable[[], None]) -> None:
    """The style of the file a dump replaces is kept; a link is replaced, so its target lends it nothing."""
    private = outside(tmp_path) / "private.toml"
    private.write_text(PRIVATE_TOML)
    before = picture(outside(tmp_path))
    path = tmp_path / "repo" / "agentbeats.toml"
    path.parent.mkdir()
    path.write_text(PRIVATE_TOML)
    model = load(path)
    path.unlink()
    path.symlink_to(private)
    dump(model, path)
    assert not path.is_symlink() and "do-not-copy" not in path.read_text()
    assert load(path) == model
    assert picture(outside(tmp_path)) == before


PRIVATE_TOML = """\
# do-not-copy: a comment of a file outside the tree
[abv3_repo]
name = "my-bench"
role = "judge"
author = "someone"
version = "0.1.0"

[run]
command = "python run.py"
"""


def test_redact_in_place_of_a_link_is_refused(
    tmp_path: Path, sentinel: Callable[[], None], capsys: pytest.CaptureFixture[str]
) -> None:
    secret = outside(tmp_path) / "secret.json"
    secret.write_text(json.dumps({"token": SECRET}) + "\n")
    before = picture(outside(tmp_path))
    link = tmp_path / "result.json"
    link.symlink_to(secret)
    assert main(["redact", str(link), "--in-place"]) == 2
    assert "symbolic link" in capsys.readouterr().err
    assert link.is_symlink()
    assert picture(outside(tmp_path)) == before


def test_where_folders_cannot_be_held_open_the_same_files_are_written_and_links_refused(
    tmp_path: Path, sentinel: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows has no descriptor for a folder and no flock: names go by path, each checked not to be a link."""
    from agentbeats_spec.tasks import _detail

    by_descriptor = write_task(tmp_path / "fd", RECORD)
    monkeypatch.setattr(_atomic, "_BY_DESCRIPTOR", False)
    monkeypatch.setattr(_detail, "fcntl", None)
    by_path = write_task(tmp_path / "path", RECORD)
    assert picture(by_path.parent) == picture(by_descriptor.parent)
    run = tmp_path / "linked"
    (run / "details").mkdir(parents=True)
    (run / "details" / "running").symlink_to(outside(tmp_path), target_is_directory=True)
    with pytest.raises(WriteError, match=LINK):
        write_task(run, RECORD)
    migrated = _v2_run(tmp_path / "v2")
    assert len(migrate_run(migrated, in_place=True).converted) == 1
    sentinel()


def test_a_write_keeps_no_special_bit_and_no_mode_of_a_file_someone_else_owns(tmp_path: Path) -> None:
    """An own file keeps its read, write and execute bits, never set-user-ID, set-group-ID nor sticky; a file
    another user owns (planted in a folder both may write) lends its mode to nothing."""
    own = tmp_path / "own.json"
    own.write_text("old\n")
    own.chmod(0o6755)
    with _atomic.Folder.root(tmp_path) as root:
        root.write("own.json", b"new\n")
    assert stat.S_IMODE(own.stat().st_mode) == 0o755
    if os.geteuid() != 0:
        pytest.skip("making a file another user owns takes root")
    planted = tmp_path / "planted.json"
    planted.write_text("old\n")
    os.chown(planted, 65534, 65534)
    planted.chmod(0o6777)
    with _atomic.Folder.root(tmp_path) as root:
        root.write("planted.json", b"new\n")
    assert stat.S_IMODE(planted.stat().st_mode) == 0o666 & ~_atomic.umask()
    assert planted.stat().st_uid == os.geteuid()
