"""Interoperability with the released AgentCompass 1.0.1 results writer and reader.

What it writes, we validate clean and read to the same record; what we write, it reads back unchanged.
"""

from __future__ import annotations

import copy
import json
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings

from agentbeats_spec import Issue, read_task, to_dict, validate, write_task
from agentbeats_spec.layouts.agentcompass import task_folder_name

from .conftest import ROOT, VALID
from .strategies import task_detail

INTEROP = ROOT / ".venv" / "interop"


@pytest.fixture(scope="module")
def agentcompass() -> tuple[ModuleType, ModuleType]:
    if INTEROP.is_dir() and str(INTEROP) not in sys.path:
        sys.path.append(str(INTEROP))
    layout = pytest.importorskip("agentcompass.runtime.results.layout")
    detail = pytest.importorskip("agentcompass.runtime.results.detail")
    return layout, detail


def record() -> dict[str, Any]:
    return json.loads((VALID / "task-detail" / "swe-utils.task-detail.json").read_text(encoding="utf-8"))


def test_the_folder_name_is_the_writers(agentcompass: tuple[ModuleType, ModuleType]) -> None:
    layout, _ = agentcompass
    for task_id in ["swe/utils: off-by-one #17", "ünïcode id", "...", "a" * 200, "x--y", "._-lead"]:
        assert task_folder_name(task_id) == layout.task_directory_name(task_id)


def test_what_agentcompass_writes_we_validate_clean_and_read_the_same(
    agentcompass: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    layout, _ = agentcompass
    path = layout.RunLayout(tmp_path).write_result(record())
    assert only_retry_info(validate(tmp_path))
    assert to_dict(read_task(path.parent)) == layout.read_result(path) == record()


def only_retry_info(issues: list[Issue]) -> bool:
    """write_result stores retry counts but not the retry records (the runner writes those): info. Nor does it
    write run_info.json (the runner does): a warning on the run root."""
    expected = {("layout.retry-count", "info"), ("layout.missing-run-info", "warning")}
    return all((issue.code, issue.severity) in expected for issue in issues)


def test_what_we_write_agentcompass_reads_back_unchanged(
    agentcompass: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    layout, _ = agentcompass
    path = write_task(tmp_path, record())
    assert layout.read_result(path) == record()
    assert layout.has_task_result(path)
    assert only_retry_info(validate(tmp_path))


def test_both_writers_make_the_same_files(agentcompass: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    layout, _ = agentcompass
    theirs = layout.RunLayout(tmp_path / "theirs").write_result(record())
    ours = write_task(tmp_path / "ours", record())
    for file in sorted(theirs.parent.rglob("*.json")):
        relative = file.relative_to(theirs.parent)
        assert (ours.parent / relative).read_bytes() == file.read_bytes(), relative
    assert ours.relative_to(tmp_path / "ours") == theirs.relative_to(tmp_path / "theirs")


def test_credentials_are_redacted_but_evaluation_facts_are_not(
    agentcompass: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    layout, _ = agentcompass
    data = record()
    data["ground_truth"] = {"api_key": "sk-ground-truth-0123456789"}
    data["attempts"]["1"]["final_answer"] = {"token": "abc-final-answer"}
    data["attempts"]["1"]["meta"]["harness"]["openai_api_key"] = "sk-live-0123456789abcdef"
    data["attempts"]["1"]["meta"]["harness"]["headers"] = {"Authorization": "Bearer abcdefghijklmnop"}
    theirs = layout.read_result(layout.RunLayout(tmp_path / "theirs").write_result(copy.deepcopy(data)))
    ours = layout.read_result(write_task(tmp_path / "ours", data))
    assert ours == theirs
    assert ours["ground_truth"] == {"api_key": "sk-ground-truth-0123456789"}
    assert ours["attempts"]["1"]["final_answer"] == {"token": "abc-final-answer"}
    assert ours["attempts"]["1"]["meta"]["harness"]["openai_api_key"] == "********"
    assert ours["attempts"]["1"]["meta"]["harness"]["headers"] == {"Authorization": "********"}


def test_a_rewrite_moves_the_task_and_its_artifact_directories(
    agentcompass: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    layout, _ = agentcompass
    data = record()
    first = write_task(tmp_path, data)
    assert first.parent.parent.name == "error"
    directory = f"details/error/{first.parent.name}/attempt-1/artifacts"
    artifacts = first.parent / "attempt-1" / "artifacts"
    artifacts.mkdir()
    (artifacts / "out.txt").write_text("x")
    data["attempts"]["1"]["artifacts"] = {
        "declared_artifacts": {"schema_version": 1, "directory": directory, "complete": True,
                               "entries": [{"source": "/w/out.txt", "destination": "out.txt", "status": "collected",
                                            "kind": "file"}]},
    }  # fmt: skip
    data["attempts"]["3"]["issues"] = []
    moved = write_task(tmp_path, data)
    assert moved.parent.parent.name == "normal" and not first.exists()
    assert only_retry_info(validate(tmp_path))
    read = layout.read_result(moved)
    assert read["attempts"]["1"]["artifacts"]["declared_artifacts"]["directory"] == directory.replace(
        "details/error/", "details/normal/"
    )


def _sparse(value: Any) -> Any:
    """What the writer keeps of a meta namespace: no empty values, at any depth."""
    if isinstance(value, dict):
        kept = {key: _sparse(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if item not in (None, "", {}, [])}
    return value


def _as_the_writer_keeps_it(data: dict[str, Any]) -> dict[str, Any]:
    data = {**data, "category": data["category"] or None}
    for payload in data["attempts"].values():
        payload["meta"] = {name: _sparse(space) for name, space in payload["meta"].items()}
    return data


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                 HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=task_detail.map(_as_the_writer_keeps_it))
def test_random_records_cross_both_ways(agentcompass: tuple[ModuleType, ModuleType], data: dict[str, Any]) -> None:
    layout, detail = agentcompass
    try:
        shaped = detail.build_detail_record(copy.deepcopy(data), strict=True)
    except ValueError:
        shaped = None
    assume(shaped == data)  # a record the writer itself keeps as it is
    with tempfile.TemporaryDirectory() as folder:
        ours, theirs = Path(folder) / "ours", Path(folder) / "theirs"
        _cross(layout, data, ours, theirs)


def _cross(layout: ModuleType, data: dict[str, Any], ours: Path, theirs: Path) -> None:
    written = write_task(ours, data)
    assert layout.read_result(written) == layout.read_result(layout.RunLayout(theirs).write_result(copy.deepcopy(data)))
    assert [i for i in validate(theirs) if i.severity == "error"] == []
    assert to_dict(read_task(written.parent)) == layout.read_result(written)
