"""The distributed path: units of work mapped over a Dask bag, reading through fsspec."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentbeats_spec import validate
from agentbeats_spec.distributed import check_unit, units, validate_with_dask

from .conftest import VALID

fsspec = pytest.importorskip("fsspec")
pytest.importorskip("dask.bag")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    for number in range(3):
        shutil.copytree(VALID / "agentcompass-run", root / f"run{number}")
    shutil.copytree(VALID / "actf", root / "loose")
    task = next((root / "run1" / "details" / "error").iterdir())
    result = task / "attempt-2" / "result.json"
    data = json.loads(result.read_text())
    data["status"] = "done"
    result.write_text(json.dumps(data, indent=2))
    return root


def test_units_are_task_folders_and_loose_files(tree: Path) -> None:
    found = units(str(tree))
    assert len([unit for unit in found if "/details/" in unit]) == 6
    run_files = ("metrics.json", "params.json", "progress.json", "progress.jsonl", "run_info.json")
    assert [unit for unit in found if "/details/" not in unit and not unit.endswith(run_files)] == [
        str(tree / "loose" / "trajectory.json")
    ]
    assert len([unit for unit in found if unit.endswith(run_files)]) == 3 * len(run_files)


def test_dask_with_processes_finds_what_the_local_walk_finds(tree: Path) -> None:
    issues = validate_with_dask(str(tree), scheduler="processes", num_workers=2)
    assert [(i.code, i.pointer, i.file) for i in issues] == [(i.code, i.pointer, i.file) for i in validate(tree)]
    assert {i.code for i in issues} == {"schema.enum"}


def test_a_remote_filesystem_is_read_through_fsspec(tree: Path) -> None:
    memory = fsspec.filesystem("memory")
    memory.put(str(tree / "run1"), "/bucket/run1", recursive=True)
    found = units("memory:///bucket/run1")
    task = next(unit for unit in found if "/details/error/" in unit)
    issues = check_unit(task)
    assert [(i.code, i.pointer) for i in issues] == [("schema.enum", "/status")]
    assert (
        issues[0].file is not None
        and issues[0].file.startswith("memory://")
        and issues[0].file.endswith("/attempt-2/result.json")
    )
    clean = next(unit for unit in found if "/details/running/" in unit)
    assert check_unit(clean) == []


def test_run_level_files_read_remotely_are_checked_as_their_kind(tree: Path) -> None:
    memory = fsspec.filesystem("memory")
    memory.put(str(tree / "run2"), "/bucket/run2", recursive=True)
    found = [unit for unit in units("memory:///bucket/run2") if "/details/" not in unit]
    assert sorted(unit.rsplit("/", 1)[1] for unit in found) == [
        "metrics.json", "params.json", "progress.json", "progress.jsonl", "run_info.json"
    ]  # fmt: skip
    assert [issue for unit in found for issue in check_unit(unit)] == []
