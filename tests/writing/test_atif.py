"""ACTF <-> ATIF: the mapping, the loss report, exact round trips, and ATIF's own validator on every file written."""

from __future__ import annotations

import ast
import copy
import dataclasses
import datetime
import importlib.metadata
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentbeats_spec
from agentbeats_spec import InvalidDocument, from_atif, to_atif
from agentbeats_spec.atif._conversion import CARRY, NOTES, Loss, same
from agentbeats_spec.cli import main

from .. import strategies
from ..conftest import ROOT, TASK_DIR

try:
    import atif
except ImportError:  # the atif package needs Python 3.11+; on 3.10 the converter's own properties are still tested
    atif = None
needs_atif = pytest.mark.skipif(atif is None, reason="the atif package needs Python 3.11+")

FIXTURE = ROOT / "fixtures" / "valid" / "actf" / "trajectory.json"


def atif_valid(document: dict[str, Any]) -> None:
    """The other side's own validator: pydantic models of ATIF v1.8 (sequential ids, agent-only fields, ...)."""
    if atif is not None:
        atif.Trajectory.model_validate(document)


def resolve(document: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        document = document[int(token)] if isinstance(document, list) else document[token]
    return document


def differences(left: Any, right: Any, pointer: str = "") -> set[str]:
    """Pointers of the members where two documents differ (a member on one side only counts)."""
    if isinstance(left, dict) and isinstance(right, dict):
        found: set[str] = set()
        for key in left.keys() | right.keys():
            child = f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
            if key not in left or key not in right:
                found.add(child)
            else:
                found |= differences(left[key], right[key], child)
        return found
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        pairs = enumerate(zip(left, right, strict=True))
        return set().union(*(differences(a, b, f"{pointer}/{i}") for i, (a, b) in pairs))
    return set() if same(left, right) else {pointer}


def as_an_atif_reader_sees_it(document: dict[str, Any]) -> dict[str, Any]:
    """The document without the values kept for the way back (extra.actf and the absent lists)."""
    seen = copy.deepcopy(document)

    def strip(node: Any) -> None:
        if isinstance(node, dict):
            extra = node.get("extra")
            if isinstance(extra, dict):
                extra.pop(CARRY, None)
                if isinstance(extra.get(NOTES), dict):
                    extra[NOTES].pop("absent", None)
            for value in node.values():
                strip(value)
        elif isinstance(node, list):
            for value in node:
                strip(value)

    strip(seen)
    return seen


def check_conversion(trajectory: dict[str, Any]) -> None:
    """Every property the issue asks of ACTF -> ATIF -> ACTF, on one trajectory."""
    conversion = to_atif(trajectory)
    atif_valid(json.loads(json.dumps(conversion.document)))
    back = from_atif(conversion.document)
    assert same(back.document, trajectory)
    assert back.lost == () and back.invented == ()
    # The loss report is exact: what an ATIF reader cannot see is precisely what it lists.
    lost = {entry.pointer for entry in conversion.lost}
    seen_back = from_atif(as_an_atif_reader_sees_it(conversion.document)).document
    for pointer in differences(trajectory, seen_back):
        assert any(pointer == entry or pointer.startswith(entry + "/") for entry in lost), pointer
    for entry in lost:
        assert any(
            pointer == entry or pointer.startswith(entry + "/") for pointer in differences(trajectory, seen_back)
        )
    for entry in conversion.invented:
        member = entry.pointer.rsplit("/", 1)[1]
        holder = resolve(conversion.document, entry.pointer.rsplit("/", 1)[0])
        assert member in holder["extra"][NOTES]["invented"]


def test_the_fixture_converts_with_exactly_these_losses() -> None:
    trajectory = json.loads(FIXTURE.read_text(encoding="utf-8"))
    conversion = to_atif(FIXTURE)
    document = conversion.document
    atif_valid(document)
    assert [(step["step_id"], step["source"]) for step in document["steps"]] == [
        (1, "system"), (2, "user"), (3, "agent"), (4, "agent"),
    ]  # fmt: skip
    call = document["steps"][2]["tool_calls"][0]
    assert (call["tool_call_id"], call["function_name"], call["arguments"]) == ("call_1", "bash", {"cmd": "pytest -q"})
    assert document["steps"][2]["observation"]["results"][0]["content"] == "1 failed, 12 passed"
    assert document["steps"][2]["metrics"] == {"prompt_tokens": 812, "completion_tokens": 64}
    assert document["steps"][0]["timestamp"] == "2026-08-01 10:00:00+00:00"  # the step's start
    assert document["steps"][2]["timestamp"] == "2026-08-01 10:00:03.585000+00:00"  # the model call's end
    assert document["agent"]["tool_definitions"] == trajectory["steps"][0]["tools"]
    assert [(entry.pointer, entry.file) for entry in conversion.lost] == [
        ("/started_at", str(FIXTURE)),
        ("/finished_at", str(FIXTURE)),
        ("/steps/0/metric/llm_infer_ms", str(FIXTURE)),
        ("/steps/0/metric/env_action_ms", str(FIXTURE)),
        ("/steps/0/metric/stop_reason", str(FIXTURE)),
        ("/steps/1/system_prompt", str(FIXTURE)),
        ("/steps/1/user_content", str(FIXTURE)),
        ("/steps/1/tools", str(FIXTURE)),
        ("/steps/1/assistant_content/reasoning_content", str(FIXTURE)),
        ("/steps/1/metric/llm_infer_ms", str(FIXTURE)),
        ("/steps/1/metric/env_action_ms", str(FIXTURE)),
        ("/steps/1/metric/stop_reason", str(FIXTURE)),
        ("/steps/1/started_at", str(FIXTURE)),
    ]
    assert conversion.lost[2].reason == "ATIF metrics have no model inference time"
    assert [(entry.pointer, entry.reason) for entry in conversion.invented] == [
        ("/agent/name", "ATIF requires an agent name; the source names none"),
        ("/agent/version", "ATIF requires an agent version; the source gives none"),
    ]
    # Recorded inside the output: invented values are marked where they are, lost ones kept under extra.actf.
    assert document["agent"]["extra"][NOTES]["invented"] == ["name", "version"]
    assert document["steps"][2]["extra"][CARRY] == {
        "metric": {"llm_infer_ms": 1375.2, "env_action_ms": 2210.0, "stop_reason": "tool_calls"}
    }
    assert document["extra"][NOTES] == {
        "converter": f"agentbeats-spec {agentbeats_spec.__version__}", "from": "ACTF_v1.0", "lost": 13, "invented": 2,
    }  # fmt: skip
    assert "13 ACTF member(s) have no ATIF counterpart" in document["notes"]
    check_conversion(trajectory)


def test_an_assistant_without_text_gets_a_marked_empty_message() -> None:
    trajectory = {"schema_version": "ACTF_v1.0", "steps": [{"step_id": 1, "assistant_content": {"tool_calls": [
        {"function": {"name": "ls", "arguments": "not json"}}]}}]}  # fmt: skip
    conversion = to_atif(trajectory)
    step = conversion.document["steps"][0]
    assert step["message"] == ""
    assert step["tool_calls"][0]["tool_call_id"] == "call-1-1"
    assert step["tool_calls"][0]["arguments"] == {}
    assert [entry.pointer for entry in conversion.invented] == [
        "/agent/name", "/agent/version", "/steps/0/message", "/steps/0/tool_calls/0/tool_call_id",
        "/steps/0/tool_calls/0/arguments",
    ]  # fmt: skip
    # Invented values are marked, so the way back leaves them out: only the unparsable arguments are lost, and
    # the missing type (every ATIF tool call is a function call) is listed as absent.
    assert [(entry.pointer, entry.reason) for entry in conversion.lost] == [
        ("/steps/0/assistant_content/tool_calls/0/function/arguments",
         "ATIF holds the arguments as a JSON object; this spelling of them is not kept by it"),
        ("/steps/0/assistant_content/tool_calls/0/type",
         "absent from the tool call; ATIF cannot say that it is absent"),
    ]  # fmt: skip
    check_conversion(trajectory)


def test_an_attempt_gives_agent_model_and_run_metadata(tmp_path: Path) -> None:
    run = tmp_path / "run"
    task = run / "details" / "error" / TASK_DIR.name
    import shutil

    shutil.copytree(TASK_DIR, task)
    (run / "run_info.json").write_text(json.dumps({
        "schema_version": "agentcompass.run_info.v3", "run_id": "r-7",
        "request": {"harness": {"id": "mini_swe_agent"}, "model": {"id": "gpt-5"}},
    }))  # fmt: skip
    conversion = to_atif(task / "attempt-1" / "result.json")
    document = conversion.document
    atif_valid(document)
    assert document["session_id"] == "r-7"
    assert {key: document["agent"][key] for key in ("name", "model_name")} == {
        "name": "mini_swe_agent", "model_name": "gpt-5"
    }  # fmt: skip
    assert [entry.pointer for entry in conversion.invented] == ["/agent/version"]
    result = json.loads((task / "attempt-1" / "result.json").read_text())
    assert document["extra"]["agentcompass"] == {
        "task_id": "swe/utils: off-by-one #17", "attempt": 1, "status": result["status"], "metrics": result["metrics"],
        "final_answer": result["final_answer"], "issues": result["issues"],
    }  # fmt: skip
    assert [entry.pointer for entry in conversion.lost][:5] == [
        "/artifacts", "/analysis_result", "/meta/benchmark", "/meta/harness/telemetry", "/retry_count",
    ]  # fmt: skip
    assert all(entry.pointer.startswith("/trajectory/") for entry in conversion.lost[5:])
    back = from_atif(document)
    assert same(back.document, result["trajectory"])
    assert [entry.pointer for entry in back.lost] == [
        "/agent/model_name", "/agent/name", "/extra/agentcompass", "/session_id"
    ]  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.trajectory)
def test_generated_trajectories_come_back_member_for_member(trajectory: dict[str, Any]) -> None:
    check_conversion(trajectory)


# Trajectories as the AgentCompass 1.0.1 harness models make them: StepInfo dataclasses, written with the
# writer's json.dump(default=str), so datetimes are str(datetime).
moments = st.datetimes(
    min_value=datetime.datetime(2020, 1, 1), max_value=datetime.datetime(2030, 1, 1),
    timezones=st.none() | st.just(datetime.timezone.utc),
)  # fmt: skip
arguments = st.dictionaries(strategies.names, strategies.json_values, max_size=2)
tool_call = st.fixed_dictionaries(
    {
        "id": st.text("abc123_", min_size=1, max_size=6),
        "type": st.just("function"),
        "function": st.fixed_dictionaries(
            {"name": strategies.names, "arguments": arguments | arguments.map(json.dumps) | st.just("{bad")}
        ),
    }
)


def harness_models() -> Any:
    interop = ROOT / ".venv" / "interop"
    if interop.is_dir() and str(interop) not in sys.path:
        sys.path.append(str(interop))
    return pytest.importorskip("agentcompass.runtime.models.trajectory")


@st.composite
def harness_trajectory(draw: st.DrawFn, models: Any) -> dict[str, Any]:
    prompt = draw(strategies.text)
    steps = []
    for number in range(1, draw(st.integers(0, 4)) + 1):
        started = draw(moments)
        steps.append(
            models.StepInfo(
                step_id=number,
                system_prompt=prompt,
                user_content=draw(strategies.text) if number == 1 else "",
                tools=draw(
                    st.lists(
                        st.fixed_dictionaries(
                            {"type": st.just("function"), "function": st.fixed_dictionaries({"name": strategies.names})}
                        ),
                        max_size=2,
                    )
                ),
                assistant_content=models.AssistantContent(
                    content=draw(strategies.text),
                    reasoning_content=draw(strategies.text),
                    tool_calls=draw(st.lists(tool_call, max_size=2) | st.just({})),
                ),
                observation=draw(
                    st.lists(st.fixed_dictionaries({"content": strategies.text}) | strategies.text, max_size=2)
                ),
                metric=models.TrajMetric(
                    prompt_tokens_len=draw(st.none() | st.integers(0, 10**6)),
                    completion_tokens_len=draw(st.none() | st.integers(0, 10**6)),
                    llm_infer_ms=draw(st.none() | st.just(-1) | st.floats(0, 1e6)),
                    env_action_ms=draw(st.none() | st.just(-1) | st.floats(0, 1e6)),
                    stop_reason=draw(st.none() | st.sampled_from(["stop", "tool_calls", "length"])),
                ),
                started_at=started,
                finished_at=started + datetime.timedelta(seconds=draw(st.integers(0, 100))),
            )
        )
    written = models.Trajectory(steps=steps)
    return json.loads(json.dumps(dataclasses.asdict(written), ensure_ascii=False, default=str))  # type: ignore[no-any-return]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_trajectories_of_the_agentcompass_harness_models_come_back_exactly(data: st.DataObject) -> None:
    trajectory = data.draw(harness_trajectory(harness_models()))
    assert not [issue for issue in agentbeats_spec.validate(trajectory, "actf-trajectory") if issue.severity == "error"]
    check_conversion(trajectory)


# ATIF documents built with the atif package's own models (it ships no example files).
@st.composite
def atif_document(draw: st.DrawFn) -> dict[str, Any]:
    clock = datetime.datetime(2025, 10, 11, 10, 30, tzinfo=datetime.timezone.utc)
    steps: list[Any] = []

    def stamp() -> str:
        nonlocal clock
        clock += datetime.timedelta(seconds=draw(st.integers(0, 90)))
        return clock.isoformat().replace("+00:00", "Z")

    if draw(st.booleans()):
        steps.append(atif.Step(step_id=1, timestamp=stamp(), source="system", message=draw(strategies.text)))
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            steps.append(atif.Step(step_id=len(steps) + 1, timestamp=stamp(), source="user",
                                   message=draw(strategies.text)))  # fmt: skip
        calls = [
            atif.ToolCall(
                tool_call_id=f"c{len(steps)}-{n}", function_name=draw(strategies.names), arguments=draw(arguments)
            )
            for n in range(draw(st.integers(0, 2)))
        ]
        results = [atif.ObservationResult(source_call_id=call.tool_call_id, content=draw(strategies.text))
                   for call in calls]  # fmt: skip
        steps.append(
            atif.Step(
                step_id=len(steps) + 1,
                timestamp=stamp(),
                source="agent",
                model_name=draw(st.none() | st.just("gpt-5")),
                message=draw(strategies.text),
                reasoning_content=draw(st.none() | strategies.text),
                tool_calls=calls or None,
                observation=atif.Observation(results=results) if results else None,
                metrics=draw(st.none() | st.builds(
                    atif.Metrics, prompt_tokens=st.integers(0, 10**5), completion_tokens=st.integers(0, 10**4),
                    cached_tokens=st.none() | st.integers(0, 10), cost_usd=st.none() | st.floats(0, 1))),
            )
        )  # fmt: skip
    trajectory = atif.Trajectory(
        schema_version="ATIF-v1.8",
        session_id=draw(st.none() | st.just("s-1")),
        agent=atif.Agent(name="harbor-agent", version="1.0.0", model_name="gpt-5"),
        steps=steps,
    )
    return trajectory.to_json_dict()  # type: ignore[no-any-return]


@needs_atif
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_atif_built_with_its_own_models_converts_to_actf_that_validates_clean(data: st.DataObject) -> None:
    document = data.draw(atif_document())
    conversion = from_atif(document)
    assert agentbeats_spec.validate(conversion.document, "actf-trajectory") == []
    # Nothing silently dropped: every member of the ATIF document is either mapped or listed (and kept).
    for entry in conversion.lost:
        resolve(document, entry.pointer)
    again = to_atif(conversion.document)
    atif_valid(again.document)


@needs_atif
def test_the_atif_packages_own_example_converts_to_actf_that_validates_clean() -> None:
    """The one example the atif package ships (in its description): the `data` of its usage snippet."""
    description = (
        importlib.metadata.metadata("atif")["Description"] or importlib.metadata.metadata("atif").get_payload()
    )
    snippet = re.search(r"```python\n(.*?)```", str(description), re.DOTALL)
    assert snippet is not None
    [data] = [ast.literal_eval(node.value) for node in ast.parse(snippet.group(1)).body
              if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "data"]  # fmt: skip
    atif_valid(data)
    conversion = from_atif(data)
    assert agentbeats_spec.validate(conversion.document, "actf-trajectory") == []
    assert conversion.document["steps"] == [
        {"step_id": 1, "user_content": "What time is it?",
         "assistant_content": {"content": "Let me check.", "tool_calls": [
             {"id": "c1", "type": "function", "function": {"name": "now", "arguments": {}}}]},
         "observation": [{"source_call_id": "c1", "content": "2026-05-16T12:00:00Z"}],
         "metric": {"prompt_tokens_len": 120, "completion_tokens_len": 18}},
    ]  # fmt: skip
    assert [entry.pointer for entry in conversion.lost] == ["/agent/model_name", "/agent/name", "/agent/version"]
    again = to_atif(conversion.document)
    atif_valid(again.document)
    assert again.document["steps"][1]["tool_calls"] == data["steps"][1]["tool_calls"]


def test_foreign_atif_members_are_kept_and_listed() -> None:
    document = {
        "schema_version": "ATIF-v1.8", "session_id": "s", "agent": {"name": "a", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "hi", "timestamp": "2025-10-11T10:30:00Z"},
            {"step_id": 2, "source": "agent", "message": "hello", "model_name": "m",
             "metrics": {"prompt_tokens": 3, "cost_usd": 0.5}, "timestamp": "2025-10-11T10:30:02Z"},
        ],
    }  # fmt: skip
    conversion = from_atif(document)
    assert conversion.document == {
        "schema_version": "ACTF_v1.0",
        "steps": [{
            "step_id": 1, "user_content": "hi", "assistant_content": {"content": "hello"},
            "metric": {"prompt_tokens_len": 3}, "started_at": "2025-10-11T10:30:00Z",
            "finished_at": "2025-10-11T10:30:02Z",
            "atif": [{"step_id": 2, "source": "agent", "model_name": "m", "metrics": {"cost_usd": 0.5}}],
        }],
        "atif": {"session_id": "s", "agent": {"name": "a", "version": "1"}},
    }  # fmt: skip
    assert [(entry.pointer, entry.reason) for entry in conversion.lost] == [
        ("/agent/name", "an ACTF trajectory does not name its agent; kept in the ACTF trajectory's atif member"),
        ("/agent/version",
         "an ACTF trajectory does not name its agent's version; kept in the ACTF trajectory's atif member"),
        ("/session_id", "an ACTF trajectory has no session id; kept in the ACTF trajectory's atif member"),
        ("/steps/1/metrics/cost_usd", "ACTF metrics have no cost; kept in the ACTF step's atif member"),
        ("/steps/1/model_name", "ACTF steps name no model; kept in the ACTF step's atif member"),
    ]  # fmt: skip


def test_a_file_that_is_not_atif_is_refused_with_its_location(tmp_path: Path) -> None:
    path = tmp_path / "bad.atif.json"
    path.write_text('{\n  "schema_version": "ATIF-v1.8",\n  "agent": {"name": "a", "version": "1"},\n'
                    '  "steps": [\n    {"step_id": 2, "source": "agent", "message": "x"}\n  ]\n}\n')  # fmt: skip
    with pytest.raises(InvalidDocument) as raised:
        from_atif(path)
    [issue] = raised.value.issues
    assert (issue.code, issue.pointer, issue.line, issue.column, issue.severity) == (
        "atif.invalid", "/steps/0/step_id", 5, 17, "error"
    )  # fmt: skip
    assert issue.message == "step ids are 1, 2, 3, ... in order: this one must be 1, found 2"


def test_an_invalid_trajectory_is_not_converted() -> None:
    with pytest.raises(InvalidDocument) as raised:
        to_atif({"schema_version": "ACTF_v1.0", "steps": [{"step_id": "one"}]})
    assert [(issue.code, issue.pointer) for issue in raised.value.issues] == [("schema.type", "/steps/0/step_id")]


# ---------------------------------------------------------------------------------------------- the command


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_a_task_folder_converts_to_one_atif_file_per_attempt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, printed = run(capsys, "convert", "--to", "atif", str(TASK_DIR), "-o", str(out), "--format", "json")
    assert code == 0
    report = json.loads(printed)
    assert printed == json.dumps(report, ensure_ascii=False, indent=2) + "\n"  # written entry by entry, same text
    assert report["written"] == [str(out / f"attempt-{n}.atif.json") for n in (1, 2, 3)]
    assert set(report) == {"written", "lost", "invented"}
    # The run's run_info.json names the harness, the model and the run; only the agent's version is unknown.
    assert report["invented"][0] == {"pointer": "/agent/version", "reason": "ATIF requires an agent version; the "
                                     "source gives none", "file": str(out / "attempt-1.atif.json")}  # fmt: skip
    assert report["lost"][0] == {"pointer": "/artifacts", "file": str(TASK_DIR / "attempt-1" / "result.json"),
                                 "reason": "a member of the attempt, not of its trajectory: ATIF has no place for it "
                                 "(not copied)"}  # fmt: skip
    written = sorted(out.iterdir())
    assert [path.name for path in written] == [f"attempt-{n}.atif.json" for n in (1, 2, 3)]
    for path in written:
        document = json.loads(path.read_text(encoding="utf-8"))
        atif_valid(document)
        assert (document["session_id"], document["agent"]["name"], document["agent"]["model_name"]) == (
            "2026-08-01_10-00-00", "mini-swe-agent", "gpt-x"
        )  # fmt: skip
        assert path.read_bytes().endswith(b"}\n")
    back = tmp_path / "back.json"
    code, printed = run(capsys, "convert", "--from", "atif", str(out / "attempt-1.atif.json"), "-o", str(back))
    assert code == 0
    original = json.loads((TASK_DIR / "attempt-1" / "result.json").read_text())["trajectory"]
    assert same(json.loads(back.read_text()), original)
    # The run metadata (task, attempt, status, ...), the harness, the model and the run id are the attempt's.
    assert printed.splitlines()[0].endswith("(ATIF -> ACTF, written): 4 lost, 0 invented")


def test_strict_writes_nothing_when_something_is_lost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.atif.json"
    code, printed = run(capsys, "convert", "--to", "atif", str(FIXTURE), "-o", str(out), "--strict")
    assert code == 1 and not out.exists()
    assert printed.splitlines()[-1] == "nothing written: --strict refuses a conversion that loses or invents anything"
    assert "    /steps/*/metric/llm_infer_ms (2x): ATIF metrics have no model inference time" in printed.splitlines()


def test_never_over_the_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "t.json"
    source.write_bytes(FIXTURE.read_bytes())
    code = main(["convert", "--to", "atif", str(source), "-o", str(source)])
    assert code == 2 and source.read_bytes() == FIXTURE.read_bytes()
    assert "is the input file" in capsys.readouterr().err


def test_an_invalid_input_shows_its_issues_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "t.json"
    source.write_text('{"schema_version": "ACTF_v1.0", "steps": [{"step_id": -1}]}')
    out = tmp_path / "o.json"
    code, printed = run(capsys, "convert", "--to", "atif", str(source), "-o", str(out), "--format", "json")
    assert code == 1 and not out.exists()
    report = json.loads(printed)
    assert [(issue["code"], issue["pointer"], issue["line"], issue["column"]) for issue in report["issues"]] == [
        ("schema.minimum", "/steps/0/step_id", 1, 55)
    ]


def test_the_readme_example_is_what_the_command_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```text\n\$ (agentbeats-spec convert [^\n]*)\n(.*?)```", readme, re.DOTALL)
    assert match is not None
    command, shown = shlex.split(match.group(1)), match.group(2)
    (tmp_path / "fixtures" / "valid" / "actf").mkdir(parents=True)
    shutil.copy(FIXTURE, tmp_path / "fixtures" / "valid" / "actf" / "trajectory.json")
    done = subprocess.run([sys.executable, "-m", "agentbeats_spec", *command[1:]], cwd=tmp_path, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert (done.returncode, done.stdout) == (0, shown)
    python = re.search(r"```python\n(import json\nfrom pathlib import Path\nfrom agentbeats_spec import to_atif.*?)```",
                       readme, re.DOTALL)  # fmt: skip
    assert python is not None
    monkeypatch.chdir(ROOT)
    exec(compile(python.group(1), "README.md", "exec"), {"__name__": "readme"})


def test_an_output_that_cannot_be_written_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["convert", "--to", "atif", str(FIXTURE), "-o", str(tmp_path / "no" / "such" / "t.atif.json")])
    assert code == 2
    error = capsys.readouterr().err
    assert (
        error == f"agentbeats-spec: error: cannot write {tmp_path / 'no' / 'such' / 't.atif.json'}: the folder "
        f"{tmp_path / 'no' / 'such'} does not exist\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_structured_prompts_become_content_parts_or_marked_json_text() -> None:
    parts = [
        {"type": "text", "text": "look"},
        {"type": "image", "source": {"media_type": "image/png", "path": "a.png"}},
    ]
    trajectory = {"schema_version": "ACTF_v1.0", "steps": [
        {"step_id": 1, "system_prompt": {"role": "system", "content": "be brief"}, "user_content": parts,
         "assistant_content": {"content": "ok"}, "started_at": "2026-08-01T10:00:00z",
         "finished_at": "2026-08-01T10:00:01+0200"},
    ]}  # fmt: skip
    conversion = to_atif(trajectory)
    system, user, agent = conversion.document["steps"]
    assert system["message"] == '{"role": "system", "content": "be brief"}'
    assert system["extra"][NOTES] == {"json_text": ["message"]}
    assert "timestamp" not in system  # a lower-case z is not ISO 8601 as Python reads it
    assert user["message"] == parts and "extra" not in user
    assert agent["timestamp"] == "2026-08-01T10:00:01+0200"
    assert [(entry.pointer, entry.reason) for entry in conversion.lost] == [
        ("/steps/0/started_at", "not a time ATIF reads as ISO 8601")
    ]  # fmt: skip
    check_conversion(trajectory)


def test_flat_tool_calls_and_attempt_mappings() -> None:
    call_ = {"id": "t1", "name": "grep", "arguments": {"pattern": "x"}}
    step = {"step_id": 1, "assistant_content": {"content": "", "tool_calls": [call_]},
            "observation": [{"source_call_id": "t1", "content": "x"}]}  # fmt: skip
    trajectory = {"schema_version": "ACTF_v1.0", "steps": [step]}
    conversion = to_atif(trajectory)
    [call] = conversion.document["steps"][0]["tool_calls"]
    assert {key: call[key] for key in ("tool_call_id", "function_name", "arguments")} == {
        "tool_call_id": "t1", "function_name": "grep", "arguments": {"pattern": "x"}
    }  # fmt: skip
    assert conversion.document["steps"][0]["observation"]["results"][0]["source_call_id"] == "t1"
    assert conversion.lost == ()
    check_conversion(trajectory)
    attempt = json.loads((TASK_DIR / "attempt-1" / "result.json").read_text(encoding="utf-8"))
    from_mapping = to_atif(attempt)
    assert from_mapping.document["extra"]["agentcompass"]["status"] == attempt["status"]
    assert from_mapping.lost[0] == Loss(
        "/artifacts", "a member of the attempt, not of its trajectory: ATIF has no place for it (not copied)"
    )  # fmt: skip


def test_the_wrong_direction_says_which_one_is_right(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    atif_file = tmp_path / "t.atif.json"
    assert main(["convert", "--to", "atif", str(FIXTURE), "-o", str(atif_file)]) == 0
    capsys.readouterr()
    assert main(["convert", "--to", "atif", str(atif_file), "-o", str(tmp_path / "again.json")]) == 2
    assert (
        capsys.readouterr().err == f"agentbeats-spec: error: {atif_file} is an ATIF file; convert it with --from atif\n"
    )
    code, printed = run(capsys, "convert", "--from", "atif", str(FIXTURE), "-o", str(tmp_path / "x.json"))
    assert code == 1 and not (tmp_path / "x.json").exists()
    assert f"{FIXTURE}:2:21: error atif.invalid schema_version must be ATIF-v1.<n>, found 'ACTF_v1.0' (an ACTF " \
        "trajectory: convert it with --to atif)\n" in printed  # fmt: skip


def test_the_caller_can_name_the_agent_so_that_nothing_is_invented(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conversion = to_atif(FIXTURE, agent_name="mini-swe-agent", agent_version="1.2.0", model_name="gpt-5")
    assert conversion.invented == ()
    assert {key: conversion.document["agent"][key] for key in ("name", "version", "model_name")} == {
        "name": "mini-swe-agent", "version": "1.2.0", "model_name": "gpt-5"
    }  # fmt: skip
    assert conversion.document["extra"][NOTES]["context"] == ["agent/name", "agent/version", "agent/model_name"]
    back = from_atif(conversion.document)
    assert same(back.document, json.loads(FIXTURE.read_text(encoding="utf-8")))
    assert {entry.reason for entry in back.lost} == {
        "run metadata from the attempt and its run, not from the trajectory: an ACTF trajectory has no place for it"
    }  # fmt: skip
    out = tmp_path / "t.atif.json"
    argv = ["convert", "--to", "atif", str(TASK_DIR / "attempt-2" / "result.json"), "-o", str(out), "--strict",
            "--agent-name", "a", "--agent-version", "1"]  # fmt: skip
    code, printed = run(capsys, *argv)
    assert code == 1  # the attempt's issues and retry_count have no place in ATIF
    assert "/issues" not in printed and "/retry_count: a member of the attempt" in printed
    assert "invented" not in printed.split("\n", 1)[1]


@pytest.mark.parametrize("arguments", ["[" * 100_000 + "]" * 100_000, '{"a": 1, "a": 2}'])
def test_tool_arguments_the_reader_refuses_are_kept_as_text_both_ways(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: str
) -> None:
    """A valid trajectory whose tool call's arguments are JSON text nested past the depth limit (a RecursionError
    in convert, exit 3) or holding a member twice: the text is not taken as an object, it is kept and marked."""
    trajectory = json.loads(FIXTURE.read_text(encoding="utf-8"))
    trajectory["steps"][0]["assistant_content"]["tool_calls"][0]["function"]["arguments"] = arguments
    source = tmp_path / "trajectory.json"
    source.write_text(json.dumps(trajectory), encoding="utf-8")
    assert agentbeats_spec.validate(source, "actf-trajectory") == []
    atif_file, back_file = tmp_path / "t.atif.json", tmp_path / "back.json"
    code, printed = run(capsys, "convert", "--to", "atif", str(source), "-o", str(atif_file), "--agent-name", "a",
                        "--agent-version", "1")  # fmt: skip
    assert code == 0, printed
    assert "ATIF requires the arguments as an object; the ACTF ones are not a JSON object" in printed
    assert run(capsys, "convert", "--from", "atif", str(atif_file), "-o", str(back_file))[0] == 0
    back = json.loads(back_file.read_text(encoding="utf-8"))
    assert back["steps"][0]["assistant_content"]["tool_calls"][0]["function"]["arguments"] == arguments
