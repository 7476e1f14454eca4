"""The generated models: lossless round trips, atomic writes, codegen drift, ergonomics."""

from __future__ import annotations

import ast
import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentbeats_spec
from agentbeats_spec import (
    InvalidDocument,
    dump,
    dumps,
    from_dict,
    kinds,
    load,
    loads,
    models,
    redact,
    to_dict,
    validate,
)
from agentbeats_spec.models import (
    ABSENT,
    MODELS,
    AnalysisEntry,
    AttemptResult,
    AttemptResultV2,
    RunInfoV2,
    Step,
    TaskIndex,
    TaskIndexV2,
    Trajectory,
)
from agentbeats_spec.writing import _atomic

from ..conftest import ROOT, TASK_DIR, text
from ..strategies import DOCUMENTS

KINDS = sorted(DOCUMENTS)


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_has_a_root_model(kind: str) -> None:
    assert MODELS[kind].__kind__ == kind


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), kind=st.sampled_from(KINDS))
def test_documents_survive_from_dict_and_to_dict_exactly(data: st.DataObject, kind: str) -> None:
    document = data.draw(DOCUMENTS[kind])
    assert [i for i in validate(document, kind) if i.severity == "error"] == []
    model = from_dict(kind, document)
    back = to_dict(model)
    assert back == document
    assert json.dumps(back) == json.dumps(document)  # the same member order, everywhere


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), kind=st.sampled_from(KINDS))
def test_dump_then_load_gives_the_same_model(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject,
                                             kind: str) -> None:  # fmt: skip
    model = from_dict(kind, data.draw(DOCUMENTS[kind]))
    path = tmp_path_factory.mktemp("dump") / ("agentbeats.toml" if kind == "abv3-repo" else "document.json")
    dump(model, path)
    assert load(path, kind) == model
    assert loads(dumps(model), kind) == model


def test_absent_and_null_stay_apart() -> None:
    identity = {"schema_version": "agentcompass.task.v3", "task_id": "t", "attempts": {"1": "attempt-1"}}
    published = {**identity, "category": None, "ground_truth": None, "attempt_plan": {"k": 1, "strategy": "avg"}}
    assert from_dict("agentcompass-task", identity).category is ABSENT
    assert from_dict("agentcompass-task", published).category is None
    assert to_dict(from_dict("agentcompass-task", identity)) == identity
    assert to_dict(from_dict("agentcompass-task", published)) == published


def test_unknown_members_are_kept_in_place() -> None:
    source = '{"schema_version": "ACTF_v1.0", "x_first": 1, "steps": [{"zz": [1, {"a": null}], "step_id": 1}]}'
    trajectory = loads(source)
    assert isinstance(trajectory, Trajectory)
    assert trajectory.unknown_members == {"x_first": 1}
    assert trajectory.steps[0].unknown_members == {"zz": [1, {"a": None}]}
    assert json.dumps(to_dict(trajectory)) == json.dumps(json.loads(source))


def test_new_models_are_written_in_schema_order() -> None:
    step = Step(step_id=2, finished_at="2026-08-01T10:00:01Z", started_at="2026-08-01T10:00:00Z")
    assert list(to_dict(step)) == ["step_id", "started_at", "finished_at"]


def test_names_that_are_not_identifiers_are_mapped_back() -> None:
    path = next((ROOT / "fixtures" / "valid" / "abb").rglob("verify.case.json"))
    case = load(path)
    assert case.root_cause.startswith("An off-by-one")
    assert case.fault_location[0].line_start == 40
    data = to_dict(case)
    assert "Root cause" in data and "fault location" in data and "root_cause" not in data
    assert data == json.loads(path.read_text(encoding="utf-8"))


def test_load_raises_with_every_issue(tmp_path: Path) -> None:
    path = tmp_path / "task.json"
    path.write_text('{"schema_version": "agentcompass.task.v3", "task_id": " t", "attempts": {"01": "x"}}')
    with pytest.raises(InvalidDocument) as info:
        load(path)
    assert {(i.code, i.pointer) for i in info.value.issues} == {
        ("schema.pattern", "/task_id"),
        ("schema.member-name", "/attempts/01"),
        ("schema.pattern", "/attempts/01"),
    }
    assert all(i.line == 1 for i in info.value.issues)
    assert isinstance(info.value, agentbeats_spec.SpecError)


def test_warnings_do_not_stop_a_load() -> None:
    trajectory = loads('{"schema_version": "ACTF_v1.0", "steps": [], "started_at": "2026-08-01 10:00:00"}')
    assert trajectory.started_at == "2026-08-01 10:00:00"


def test_evolve_equality_and_a_short_repr() -> None:
    attempt = load(TASK_DIR / "attempt-1" / "result.json")
    assert isinstance(attempt, AttemptResult)
    changed = attrs.evolve(attempt, retry_count=3)
    assert changed != attempt and attrs.evolve(changed, retry_count=attempt.retry_count) == attempt
    assert json.dumps(to_dict(changed))[:40] == json.dumps(to_dict(attempt))[:40]  # order kept by evolve
    huge = attrs.evolve(attempt, final_answer="x" * 5_000_000)
    assert len(repr(huge)) < 3000


def test_dump_refuses_an_invalid_model_and_writes_nothing(tmp_path: Path) -> None:
    identity = {"schema_version": "agentcompass.task.v3", "task_id": "t", "attempts": {"1": "attempt-1"}}
    task = from_dict("agentcompass-task", identity)
    path = tmp_path / "task.json"
    bad = attrs.evolve(task, task_id=" t ")
    with pytest.raises(InvalidDocument) as info:
        dump(bad, path)
    assert [(i.code, i.pointer, i.line) for i in info.value.issues] == [("schema.pattern", "/task_id", None)]
    assert not path.exists() and os.listdir(tmp_path) == []
    plan = from_dict("agentcompass-task", {**to_dict(task), "category": None, "ground_truth": None,
                                           "attempt_plan": {"k": 1, "strategy": "avg"}}).attempt_plan  # fmt: skip
    with pytest.raises(InvalidDocument) as info:
        dump(attrs.evolve(task, category=None, ground_truth=float("nan"), attempt_plan=plan), path)
    assert [(i.code, i.pointer) for i in info.value.issues] == [("json.non-finite", "/ground_truth")]
    assert os.listdir(tmp_path) == []


def test_json_is_written_like_the_agentcompass_writer(tmp_path: Path) -> None:
    source = TASK_DIR / "task.json"
    target = tmp_path / "task.json"
    dump(load(source), target)
    assert target.read_bytes() == source.read_bytes()


@pytest.mark.parametrize("failing", ["serialize", "write", "fsync", "replace"])
def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    path = tmp_path / "task.json"
    shutil.copy(TASK_DIR / "task.json", path)
    before = path.read_bytes()
    model: TaskIndex = load(path)
    changed = attrs.evolve(model, task_id="another-task")

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    if failing == "serialize":
        monkeypatch.setattr(_atomic, "serialize", boom)
    elif failing == "write":
        monkeypatch.setattr(_atomic.os, "fdopen", lambda *a, **k: _FailingStream())
    elif failing == "fsync":
        monkeypatch.setattr(_atomic.os, "fsync", boom)
    else:
        monkeypatch.setattr(_atomic.os, "replace", boom)
    with pytest.raises(OSError):
        dump(changed, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["task.json"]


class _FailingStream:
    def __enter__(self) -> _FailingStream:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def write(self, data: bytes) -> int:
        raise OSError(5, "I/O error")


def test_a_dump_keeps_the_permissions_of_the_file_it_replaces(tmp_path: Path) -> None:
    path = tmp_path / "task.json"
    shutil.copy(TASK_DIR / "task.json", path)
    path.chmod(0o640)
    dump(load(path), path)
    assert path.stat().st_mode & 0o777 == 0o640


def test_only_whole_artifacts_can_be_dumped() -> None:
    with pytest.raises(TypeError):
        dumps(Step(step_id=1))


def test_the_committed_models_are_what_the_generator_makes() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "codegen.py"), "--check"],
                            capture_output=True, text=True, check=False)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_drift_check_catches_a_hand_edit(tmp_path: Path) -> None:
    models = tmp_path / "models"
    shutil.copytree(ROOT / "src" / "agentbeats_spec" / "models", models)
    edited = models / "actf.py"
    edited.write_text(edited.read_text().replace("step_id: int", "step_id: int | str"))
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "codegen.py"), "--check", "--models", str(models)],
                            capture_output=True, text=True, check=False)  # fmt: skip
    assert result.returncode == 1
    assert "-    step_id: int | str" in result.stdout and "+    step_id: int" in result.stdout


def _mypy_strict(script: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary", str(script)],
                          capture_output=True, text=True, check=False, cwd=ROOT)  # fmt: skip


def test_models_and_a_typed_example_pass_mypy_strict() -> None:
    result = _mypy_strict(ROOT / "tests" / "typed_example.py")
    assert result.returncode == 0, result.stdout


def test_the_typed_example_uses_every_public_name_and_no_any_or_cast() -> None:
    tree = ast.parse((ROOT / "tests" / "typed_example.py").read_text(encoding="utf-8"))
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    used |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert set(agentbeats_spec.__all__) - used == set()
    assert {"Any", "cast"} & used == set()


def test_mypy_strict_rejects_exactly_the_mistakes_of_the_rejected_script() -> None:
    """Assigning a result to a wrongly typed variable, or passing a wrong type, fails: the API is not ``Any``."""
    script = ROOT / "tests" / "typed_rejected.py"
    lines = script.read_text(encoding="utf-8").splitlines()
    marked = {number for number, line in enumerate(lines, 1) if "  # rejected: " in line}
    result = _mypy_strict(script)
    reported = {int(line.split(":")[1]) for line in result.stdout.splitlines() if ": error: " in line}
    assert len(marked) >= 10 and reported == marked, result.stdout


def _overloads(function: str) -> dict[str, str]:
    """Kind -> return annotation of each ``Literal`` overload of a function in _api.py."""
    tree = ast.parse((ROOT / "src" / "agentbeats_spec" / "_api.py").read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function and node.decorator_list:
            for argument in node.args.args:
                annotation = argument.annotation
                if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) == "Literal":
                    assert isinstance(annotation.slice, ast.Constant) and node.returns is not None
                    found[annotation.slice.value] = ast.unparse(node.returns)
    return found


def _returned(kind: agentbeats_spec.Kind, function: str) -> str:
    """The models a function gives for a kind: those of every version that the source can tell, newest first.

    A file's version is told by its content or by its task (an attempt); a text's or a mapping's by its content.
    """
    told = function == "load" or kind.version_field is not None
    union = " | ".join(reversed(kind.models.values())) if told else kind.model_name
    return f"list[{union}]" if kind.syntax == "jsonl" and function != "from_dict" else union


@pytest.mark.parametrize("function", ["load", "loads", "from_dict"])
def test_there_is_one_typed_overload_per_kind_and_it_names_the_models_of_its_versions(function: str) -> None:
    assert _overloads(function) == {kind.name: _returned(kind, function) for kind in kinds()}
    assert {name: model.__name__ for name, model in MODELS.items()} == {k.name: k.model_name for k in kinds()}


def test_from_dict_gives_one_progress_event_and_loads_the_lines_of_a_file() -> None:
    text = (ROOT / "fixtures" / "valid" / "agentcompass-run" / "progress.jsonl").read_text(encoding="utf-8")
    events = loads(text, "agentcompass-progress-events")
    assert isinstance(events, list) and len(events) == len(text.splitlines())
    first = from_dict("agentcompass-progress-events", json.loads(text.splitlines()[0]))
    assert first == events[0]


def test_an_unknown_member_cannot_shadow_a_declared_one_when_the_model_is_built() -> None:
    with pytest.raises(InvalidDocument) as raised:
        Step(step_id=0, unknown_members={"step_id": 3, "harness_note": "kept"})
    (issue,) = raised.value.issues
    assert (issue.code, issue.pointer, issue.severity) == ("rule.shadowed-member", "/step_id", "error")
    assert issue.message.startswith("unknown_members holds 'step_id', a declared member of Step")
    trajectory = from_dict("actf-trajectory", {"schema_version": "ACTF_v1.0", "steps": []})
    with pytest.raises(InvalidDocument):
        trajectory.unknown_members = {"steps": [{"step_id": 1}]}


def test_an_unknown_member_cannot_shadow_a_declared_one_when_the_model_is_dumped(tmp_path: Path) -> None:
    trajectory = from_dict("actf-trajectory", {"schema_version": "ACTF_v1.0", "steps": [{"step_id": 0, "x": 1}]})
    trajectory.steps[0].unknown_members["step_id"] = 5  # changed in place, after the model was built
    path = tmp_path / "trajectory.json"
    for write in (lambda: dump(trajectory, path), lambda: dumps(trajectory), lambda: to_dict(trajectory)):
        with pytest.raises(InvalidDocument) as raised:
            write()
        assert [(i.code, i.pointer) for i in raised.value.issues] == [("rule.shadowed-member", "/steps/0/step_id")]
    assert not path.exists()


V2_INDEX = '{\n  "schema_version": "agentcompass.task.v2",\n  "task_id": "t",\n  "attempts": {}\n}\n'


def test_a_v2_task_index_loads_as_its_own_model_and_is_written_back_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "task.json"
    path.write_text(V2_INDEX)
    for index in (load(path), load(path, "agentcompass-task"), loads(V2_INDEX), from_dict("agentcompass-task",
                  json.loads(V2_INDEX))):  # fmt: skip
        assert isinstance(index, TaskIndexV2) and index.attempts == {}  # no attempt yet: v3 refuses that, v2 not
        assert dumps(index) == V2_INDEX
    dump(load(path), path)
    assert path.read_text() == V2_INDEX


def test_an_attempt_of_a_v2_task_loads_as_a_v2_attempt_with_or_without_its_kind(tmp_path: Path) -> None:
    task = tmp_path / "details" / "t--0"
    (task / "attempt-1").mkdir(parents=True)
    (task / "task.json").write_text(V2_INDEX.replace("{}", '{"1": "attempt-1"}'))
    result = task / "attempt-1" / "result.json"
    document = {"status": "completed", "metrics": {}, "final_answer": None, "trajectory": None,
                "analysis_result": {"judge": {"score": 1}}, "meta": {"benchmark": [], "harness": {}},
                "retry_count": 0, "error": ""}  # fmt: skip
    result.write_text(text(document) + "\n")
    for attempt in (load(result), load(result, "agentcompass-attempt")):
        assert isinstance(attempt, AttemptResultV2)
        assert attempt.analysis_result == {"judge": AnalysisEntry(score=1)} and attempt.meta.benchmark == []
        assert attempt.error == "" and dumps(attempt) == result.read_text()
        assert redact(attempt) == attempt  # checked against the v2 schema, as it was loaded
    with pytest.raises(InvalidDocument) as raised:  # a text has no task beside it: it is checked as v3
        loads(result.read_text(), "agentcompass-attempt")
    assert ("schema.not-allowed", "/error") in {(i.code, i.pointer) for i in raised.value.issues}


def test_a_v2_run_record_loads_as_its_own_model() -> None:
    request = '{"benchmark": {"id": "b"}, "execution": {"attempts": {"k": 1, "strategy": "avg"}}}'  # reused as is
    source = f'{{"schema_version": "agentcompass.run_info.v2", "run_id": "r", "request": {request}, "zz_old": 1}}'
    info = loads(source)
    assert isinstance(info, RunInfoV2) and info.unknown_members == {"zz_old": 1}
    assert json.dumps(to_dict(info)) == source


def test_a_model_is_written_only_if_it_is_valid_in_its_own_version(tmp_path: Path) -> None:
    v3 = from_dict("agentcompass-task", {"schema_version": "agentcompass.task.v3", "task_id": "t",
                                         "attempts": {"1": "attempt-1"}})  # fmt: skip
    with pytest.raises(InvalidDocument) as raised:  # an empty attempt map: valid in v2, not in v3
        dumps(attrs.evolve(v3, attempts={}))
    assert [(i.code, i.pointer) for i in raised.value.issues] == [("schema.min-properties", "/attempts")]
    assert dumps(TaskIndexV2(schema_version="agentcompass.task.v2", task_id="t", attempts={})) == V2_INDEX


@attrs.define(kw_only=True)
class _DisagreeingTaskIndex:
    """A task index model whose attempts hold numbers: it disagrees with the schema, as a faulty generator might."""

    __kind__: ClassVar[str] = "agentcompass-task"
    __kind_version__: ClassVar[str] = "agentcompass.task.v3"

    schema_version: str
    task_id: str
    attempts: dict[str, int]
    _order: tuple[str, ...] = attrs.field(default=(), eq=False, alias="_order")


@contextlib.contextmanager
def a_model_that_disagrees_with_its_schema() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(models, "TaskIndex", _DisagreeingTaskIndex)
        yield


def test_a_value_the_model_cannot_hold_is_a_located_issue_not_a_converters_traceback(tmp_path: Path) -> None:
    path = tmp_path / "task.json"
    shutil.copy(TASK_DIR / "task.json", path)
    with a_model_that_disagrees_with_its_schema(), pytest.raises(InvalidDocument) as raised:
        load(path)
    (issue,) = raised.value.issues
    line = next(n for n, each in enumerate(path.read_text().splitlines(), 1) if '"1": "attempt-1"' in each)
    assert (issue.code, issue.severity, issue.pointer, issue.line) == ("model.unrepresentable", "error",
                                                                       "/attempts/1", line)  # fmt: skip
    assert issue.message.startswith(
        "_DisagreeingTaskIndex cannot hold the string 'attempt-1' here, where it expects int"
    )


def test_a_document_nested_as_deep_as_the_reader_allows_is_written_back_as_it_was() -> None:
    """Values of any JSON shape are copied without recursion: to_dict and dumps never hit Python's stack limit."""
    depth = agentbeats_spec.Limits().max_depth - 5  # the root, steps, a step and the innermost object and list
    nested = json.loads("[" * depth + '{"a": [1, null]}' + "]" * depth)
    source = text({"schema_version": "ACTF_v1.0", "steps": [{"step_id": 0, "user_content": nested, "zz_x": nested}]})
    assert validate(source, "actf-trajectory") == []
    trajectory = loads(source + "\n", "actf-trajectory")
    assert dumps(trajectory) == source + "\n"
    built = Trajectory(schema_version="ACTF_v1.0", steps=[Step(step_id=0, user_content=nested)])
    assert to_dict(built)["steps"][0]["user_content"] == nested  # a model built, not loaded, is copied the same way
