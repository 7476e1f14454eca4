"""Writers never lose data: interrupted at any step, every file is the old one or the new one, whole."""

from __future__ import annotations

import copy
import json
import multiprocessing
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

from agentbeats_spec import dump, load, validate, write_task
from agentbeats_spec.writing import _atomic

from ..conftest import TASK_DIR, VALID

RECORD = json.loads((VALID / "task-detail" / "swe-utils.task-detail.json").read_text(encoding="utf-8"))


class Interrupted(Exception):
    pass


def snapshot(root: Path) -> dict[str, bytes]:
    found = {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}
    assert found, root  # two empty trees are no evidence of the same files
    return found


def failing_at(step: int, real: Callable[..., Any]) -> Callable[..., Any]:
    calls = {"n": 0}

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == step:
            raise Interrupted(f"step {step}")
        return real(*args, **kwargs)

    return wrapper


def count_calls(monkeypatch: pytest.MonkeyPatch, target: Any, name: str, action: Callable[[], Any]) -> int:
    real = getattr(target, name)
    calls = {"n": 0}

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        return real(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(target, name, counting)
        action()
    return calls["n"]


def second_version() -> dict[str, Any]:
    record = copy.deepcopy(RECORD)
    record["category"] = "coding-v2"
    record["attempts"]["2"]["metrics"]["reward"] = 0.5
    record["attempts"]["3"]["issues"] = []  # the task now moves from error/ to normal/
    return record


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_write_task_interrupted_at_every_step_leaves_whole_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    base = tmp_path / "base"
    write_task(base, RECORD)
    before = snapshot(base)
    target, name = {
        "write": (_atomic.Folder, "write"), "fsync": (_atomic.os, "fsync"), "replace": (os, "replace"),
    }[where]  # fmt: skip
    probe = tmp_path / "probe"
    shutil.copytree(base, probe)
    steps = count_calls(monkeypatch, target, name, lambda: write_task(probe, second_version()))
    after = snapshot(probe)
    assert steps >= 4
    for step in range(1, steps + 1):
        run = tmp_path / f"run-{where}-{step}"
        shutil.copytree(base, run)
        with monkeypatch.context() as patch:
            patch.setattr(target, name, failing_at(step, getattr(target, name)))
            with pytest.raises(Interrupted):
                write_task(run, second_version())
        files = snapshot(run)
        assert not [name for name in files if name.endswith(".tmp")], f"a temporary file is left at step {step}"
        for relative, content in files.items():
            json.loads(content)  # no partial file is visible
            # moved files differ only by their state folder
            old = before.get(relative) or before.get(relative.replace("/normal/", "/error/"))
            new = after.get(relative) or after.get(relative.replace("/error/", "/normal/"))
            assert content in (old, new), (step, relative)
        # what was there before is still there, or has been replaced as a whole
        assert len(files) >= len(before)


@pytest.mark.parametrize("where", ["serialize", "write", "fsync", "replace"])
def test_dump_interrupted_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    path = tmp_path / "result.json"
    shutil.copy(TASK_DIR / "attempt-1" / "result.json", path)
    before = path.read_bytes()
    model = attrs.evolve(load(path, "agentcompass-attempt"), retry_count=7)
    target, name = {
        "serialize": (_atomic, "serialize"), "write": (_atomic.os, "fdopen"), "fsync": (_atomic.os, "fsync"),
        "replace": (_atomic.os, "replace"),
    }[where]  # fmt: skip
    monkeypatch.setattr(target, name, failing_at(1, getattr(target, name)))
    with pytest.raises(Interrupted):
        dump(model, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["result.json"]


def _write_one(run: str, number: int) -> str:
    record = copy.deepcopy(RECORD)
    record["task_id"] = f"task-{number}"
    return str(write_task(run, record))


def test_two_processes_write_different_tasks_of_one_run(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        written = pool.starmap(_write_one, [(str(tmp_path), number) for number in range(8)])
    assert len(set(written)) == 8 and all(Path(path).is_file() for path in written)
    # the tasks, not the run: write_task writes no run_info.json (the runner does)
    assert [issue for issue in validate(tmp_path / "details") if issue.severity == "error"] == []


def test_validation_never_writes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(VALID, run)
    before = {path: (path.stat().st_mtime_ns, path.read_bytes()) for path in run.rglob("*") if path.is_file()}
    folders = sorted(path for path in run.rglob("*") if path.is_dir())
    validate(run, secrets=True)
    assert {path: (path.stat().st_mtime_ns, path.read_bytes()) for path in run.rglob("*") if path.is_file()} == before
    assert sorted(path for path in run.rglob("*") if path.is_dir()) == folders
