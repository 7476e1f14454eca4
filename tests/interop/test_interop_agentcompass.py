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
from hypothesis import strategies as st

from agentbeats_spec import Issue, read_task, to_dict, validate, write_task
from agentbeats_spec.layouts.agentcompass import task_folder_name

from ..conftest import ROOT, VALID, collector_evidence
from ..strategies import task_detail, text

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
    write run_info.json (the runner does): an error on the run root, which the readers of a run require."""
    expected = {("layout.retry-count", "info"), ("layout.missing-run-info", "error")}
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
    written = sorted(theirs.parent.rglob("*.json"))
    assert written
    for file in written:
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
                                            "kind": "file", **collector_evidence(artifacts / "out.txt")}]},
    }  # fmt: skip
    data["attempts"]["3"]["issues"] = []
    moved = write_task(tmp_path, data)
    assert moved.parent.parent.name == "normal" and not first.exists()
    assert only_retry_info(validate(tmp_path))
    read = layout.read_result(moved)
    assert read["attempts"]["1"]["artifacts"]["declared_artifacts"]["directory"] == directory.replace(
        "details/error/", "details/normal/"
    )


# What the writer's record builder and redaction normalize, mixed into random records: credential-like names
# (its own, the scanner's, near misses) holding every kind of value, placeholders it keeps and ones it does not,
# containers it masks whole, empty extension values, a category of "", a strategy in capitals, and free text with
# the credential shapes it masks in issue messages and execution_diagnostics.
credential_names = st.sampled_from(
    ["api_key", "OPENAI_API_KEY", "Api-Key", "token", "eos_token", "sort_key", "wrap_api_key", "password",
     "client_secret", "session_jwt", "Authorization", "set-cookie", "token_id", "apikey", "secret", "max_tokens"]
)  # fmt: skip
containers = st.sampled_from(["headers", "auth", "Credentials", "env", "run_env_variables"])
placeholders = st.sampled_from(["", "**", "  ", "********", "${OPENAI_API_KEY}", " ${HOME} ", "${1X}", "$HOME"])
leaves = st.none() | st.booleans() | st.integers(-5, 5) | placeholders | text
credential_values = st.recursive(
    leaves, lambda children: st.lists(children, max_size=2) | st.dictionaries(credential_names, children, max_size=2),
    max_leaves=4,
)  # fmt: skip
with_credentials = st.recursive(
    st.dictionaries(credential_names, credential_values, max_size=2)
    | st.dictionaries(containers, credential_values, max_size=1),
    lambda children: st.dictionaries(text, children | credential_values | placeholders, max_size=2),
    max_leaves=4,
)
diagnostics = st.sampled_from(
    ["Authorization: Bearer abcdef0123456789", "api_key=hunter2-hunter2", "token: 'xyz'", "https://u:p4ss@h.org/x",
     "key sk-abcdefghijklmnop done", "password = secret, next", "plain text"]
)  # fmt: skip


def _with_shapes(data: dict[str, Any], draw: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    if draw(st.booleans()):
        data["category"] = ""
    plan = data["attempt_plan"]
    plan["strategy"] = draw(st.sampled_from([plan["strategy"], plan["strategy"].upper(), plan["strategy"].title()]))
    for payload in data["attempts"].values():
        for namespace in ("benchmark", "harness"):
            payload["meta"][namespace].update(draw(with_credentials))
            payload["meta"][namespace].update(draw(st.dictionaries(text, placeholders | st.just({}) | st.just([]))))
        payload["artifacts"].update(draw(with_credentials))
        if draw(st.booleans()):
            payload["artifacts"]["execution_diagnostics"] = " | ".join(draw(st.lists(diagnostics, max_size=3)))
        for issue in payload["issues"]:
            issue["message"] = draw(diagnostics)
        if payload["trajectory"] and payload["trajectory"]["steps"]:
            payload["trajectory"]["steps"][0]["tools"] = [draw(with_credentials)]
        payload["final_answer"] = draw(st.just(payload["final_answer"]) | with_credentials)
        payload["metrics"] = {**payload["metrics"], **draw(st.dictionaries(credential_names, st.integers(0, 3)))}
    if draw(st.booleans()):
        data["ground_truth"] = draw(with_credentials)
    return data


@st.composite
def writer_shapes(draw: Any) -> dict[str, Any]:
    return _with_shapes(draw(task_detail), draw)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                 HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=writer_shapes())
def test_random_records_cross_both_ways(agentcompass: tuple[ModuleType, ModuleType], data: dict[str, Any]) -> None:
    """write_task writes the writer's files byte for byte, whatever its builder and redaction normalize."""
    layout, detail = agentcompass
    try:
        detail.build_detail_record(copy.deepcopy(data), strict=True)
    except ValueError:
        assume(False)  # a record the writer refuses has no files to compare
    with tempfile.TemporaryDirectory() as folder:
        ours, theirs = Path(folder) / "ours", Path(folder) / "theirs"
        _cross(layout, data, ours, theirs)


def _cross(layout: ModuleType, data: dict[str, Any], ours: Path, theirs: Path) -> None:
    written = write_task(ours, data)
    layout.RunLayout(theirs).write_result(copy.deepcopy(data))
    assert _files(ours) == _files(theirs)
    # write_result writes the task's files only: the run's run_info.json is the runner's, which is not run here
    assert [i for i in validate(theirs) if i.severity == "error" and i.code != "layout.missing-run-info"] == []
    assert to_dict(read_task(written.parent)) == layout.read_result(written)


def _files(root: Path) -> dict[str, bytes]:
    found = {path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*") if path.is_file()}
    assert found, root  # two empty trees are no evidence of the same files
    return found


@pytest.mark.parametrize(
    ("value", "written"),
    [("**", "********"), ("  ", "********"), ("", ""), (None, None), ("${OPENAI_API_KEY}", "${OPENAI_API_KEY}"),
     (" ${OPENAI_API_KEY} ", " ${OPENAI_API_KEY} "), ("$OPENAI_API_KEY", "********"), (0, "********"),
     (False, "********"), ({"type": "string"}, "********"), (["a", ""], "********")],
)  # fmt: skip
def test_the_writers_placeholders(
    agentcompass: tuple[ModuleType, ModuleType], tmp_path: Path, value: Any, written: Any
) -> None:
    layout, _ = agentcompass
    data = record()
    data["attempts"]["1"]["meta"]["harness"]["eos_token"] = value
    data["attempts"]["1"]["meta"]["harness"]["headers"] = {"X-Key": value, "list": [value]}
    path = write_task(tmp_path / "ours", data)
    harness = json.loads((path.parent / "attempt-1" / "result.json").read_text())["meta"]["harness"]
    expected = {} if value is None or value == "" else {"eos_token": written}  # empty values are dropped
    assert {name: item for name, item in harness.items() if name == "eos_token"} == expected
    assert _files(tmp_path / "ours") == _files(layout.RunLayout(tmp_path / "theirs").write_result(data).parents[3])


def test_the_record_builders_normalizations(agentcompass: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    layout, _ = agentcompass
    data = record()
    data["category"] = ""
    data["attempt_plan"]["strategy"] = "AVG"
    data["retry_counts"] = {"3": 0, **data["retry_counts"]}
    first = data["attempts"]["1"]
    first["meta"] = {"harness": {"empty": "", "none": None, "deep": {"empty": {}}, "kept": [""]}, "benchmark": {}}
    first["issues"] = [{"message": "failed", "code": "E1", "phase": "run", "severity": "error"}]
    for payload in data["attempts"].values():
        payload.update({name: payload.pop(name) for name in reversed(list(payload))})
    data["attempts"] = dict(reversed(data["attempts"].items()))
    data = {name: data[name] for name in reversed(list(data))}
    path = write_task(tmp_path / "ours", data)
    index = json.loads(path.read_text())
    assert (index["category"], index["attempt_plan"]["strategy"]) == (None, "avg")
    result = json.loads((path.parent / "attempt-1" / "result.json").read_text())
    assert list(result["meta"].items()) == [("benchmark", {}), ("harness", {"kept": [""]})]
    assert list(result["issues"][0]) == ["severity", "phase", "code", "message"]
    assert list(result) == ["status", "metrics", "final_answer", "trajectory", "issues", "artifacts",
                            "analysis_result", "meta", "retry_count"]  # fmt: skip
    assert list(index) == ["schema_version", "task_id", "attempts", "category", "ground_truth", "attempt_plan"]
    assert _files(tmp_path / "ours") == _files(layout.RunLayout(tmp_path / "theirs").write_result(data).parents[3])
    assert to_dict(read_task(path.parent)) == layout.read_result(path)


def test_free_text_is_masked_as_the_writer_masks_it(
    agentcompass: tuple[ModuleType, ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer also masks the values of its process's credential-named environment variables."""
    layout, _ = agentcompass
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-0123456789")
    monkeypatch.setenv("SHORT_TOKEN", "tok-01")
    data = record()
    first = data["attempts"]["1"]
    first["issues"] = [{"severity": "error", "phase": "run", "code": "E1",
                        "message": "call with tok-0123456789 and tok-01 failed: Bearer abcdefghij"}]  # fmt: skip
    first["artifacts"] = {"execution_diagnostics": "env tok-0123456789; https://me:pw@example.org/"}
    path = write_task(tmp_path / "ours", data)
    result = json.loads((path.parent / "attempt-1" / "result.json").read_text())
    assert result["issues"][0]["message"] == "call with ******** and tok-01 failed: Bearer ********"
    assert result["artifacts"]["execution_diagnostics"] == "env ********; https://********@example.org/"
    assert _files(tmp_path / "ours") == _files(layout.RunLayout(tmp_path / "theirs").write_result(data).parents[3])
