"""ACTF_v1.0 trajectories (kind actf-trajectory)."""

from __future__ import annotations

from typing import Any

import pytest

from ..conftest import issues, one, summary, text


def test_the_fixture_trajectory_is_valid(trajectory: dict[str, Any]) -> None:
    assert issues(trajectory) == []


def test_unknown_members_survive_everywhere(trajectory: dict[str, Any]) -> None:
    trajectory["harness"] = "x"
    trajectory["steps"][0]["images"] = []
    trajectory["steps"][0]["metric"]["cache_tokens"] = 3
    trajectory["steps"][0]["assistant_content"]["refusal"] = None
    assert issues(trajectory) == []


def test_strings_may_be_null_or_empty(trajectory: dict[str, Any]) -> None:
    step = trajectory["steps"][0]
    step["assistant_content"] = {"content": None, "reasoning_content": "", "tool_calls": None}
    step["metric"] = {"prompt_tokens_len": None, "stop_reason": None}
    step["started_at"] = ""
    step["finished_at"] = None
    step["observation"] = [{"type": "image"}, "text", 3, None]
    assert issues(trajectory) == []


@pytest.mark.parametrize("field", ["tools", "observation"])
def test_an_empty_object_for_a_list_is_info(trajectory: dict[str, Any], field: str) -> None:
    trajectory["steps"][0][field] = {}
    issue = one(text(trajectory))
    assert (issue.code, issue.pointer, issue.severity) == ("rule.empty-object-list", f"/steps/0/{field}", "info")
    assert issue.line == text(trajectory).splitlines().index(f'      "{field}": {{}},') + 1


def test_what_the_writer_does_on_every_step_is_reported_once_with_its_count(trajectory: dict[str, Any]) -> None:
    for step in trajectory["steps"]:
        step["assistant_content"] = {"content": "ok", "tool_calls": {}}
        step["started_at"] = "2026-08-01 10:00:00.123456"
        step["finished_at"] = "2026-08-01 10:00:01"
    trajectory.pop("started_at"), trajectory.pop("finished_at")
    source = text(trajectory)
    found = issues(source)
    assert [(i.code, i.pointer, i.severity) for i in found] == [
        ("rule.empty-object-list", "/steps/0/assistant_content/tool_calls", "info"),
        ("rule.timestamp-offset", "/steps/0/started_at", "info"),
    ]
    assert found[0].message.endswith(f"({len(trajectory['steps'])} places in this document; the first)")
    count = 2 * len(trajectory["steps"])
    assert found[1].message.endswith(f"({count} places in this document; the first)")
    assert found[1].line == source.splitlines().index('      "started_at": "2026-08-01 10:00:00.123456",') + 1


def test_a_non_empty_object_for_a_list_is_an_error(trajectory: dict[str, Any]) -> None:
    trajectory["steps"][0]["tools"] = {"bash": {}}
    assert summary(trajectory) == {("schema.max-properties", "/steps/0/tools")}


def test_step_ids_are_strictly_increasing(trajectory: dict[str, Any]) -> None:
    trajectory["steps"][1]["step_id"] = 1
    issue = one(text(trajectory))
    assert (issue.code, issue.pointer) == ("rule.step-order", "/steps/1/step_id")


def test_step_ids_may_start_at_zero_as_the_openai_chat_harness_numbers_them(trajectory: dict[str, Any]) -> None:
    for index, step in enumerate(trajectory["steps"]):
        step["step_id"] = index
    assert issues(text(trajectory)) == []
    trajectory["steps"][0]["step_id"] = -1
    issue = one(text(trajectory))
    assert (issue.code, issue.pointer, issue.line) == ("schema.minimum", "/steps/0/step_id", 5)
    assert issue.message == "expected a number >= 0, found the number -1"


def test_a_step_id_written_as_a_float_is_not_an_integer(trajectory: dict[str, Any]) -> None:
    source = text(trajectory).replace('"step_id": 2', '"step_id": 2.0', 1)
    issue = one(source)
    assert (issue.code, issue.pointer, issue.severity) == ("schema.type", "/steps/1/step_id", "error")
    assert issue.message == "expected an integer, found the number 2.0"
    line = source[: source.index('"step_id": 2.0')].count("\n") + 1
    assert (issue.line, issue.column) == (line, source.splitlines()[line - 1].index("2.0") + 1)


@pytest.mark.parametrize(
    "value",
    [
        "2026-08-01 10:00:00+00:00",
        "2026-08-01T10:00:00Z",
        "2026-08-01 10:00:00.123456+02:00",
        "2026-08-01T10:00:00.5Z",
    ],
)
def test_timestamps_come_in_both_styles(trajectory: dict[str, Any], value: str) -> None:
    trajectory["started_at"] = value
    trajectory["finished_at"] = "2026-08-01T12:00:00Z"
    assert issues(trajectory) == []


def test_a_timestamp_without_offset_is_info(trajectory: dict[str, Any]) -> None:
    trajectory["started_at"] = "2026-08-01 10:00:00"
    trajectory["finished_at"] = "2026-08-01 10:00:05.250000"
    found = issues(trajectory)
    assert [(i.code, i.pointer, i.severity) for i in found] == [("rule.timestamp-offset", "/started_at", "info")]
    assert "(2 places in this document; the first)" in found[0].message


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("2026-02-30T10:00:00Z", "rule.timestamp"),
        ("01/08/2026", "schema.pattern"),
        ("2026-08-01", "schema.pattern"),
    ],
)
def test_a_timestamp_must_be_a_real_date_time(trajectory: dict[str, Any], value: str, code: str) -> None:
    trajectory["steps"][0]["started_at"] = value
    assert summary(trajectory) == {(code, "/steps/0/started_at")}


def test_finishing_before_starting_is_a_warning(trajectory: dict[str, Any]) -> None:
    trajectory["steps"][0]["finished_at"] = "2026-08-01T09:59:59Z"
    issue = one(trajectory)
    assert (issue.code, issue.pointer, issue.severity) == (
        "rule.finished-before-started",
        "/steps/0/finished_at",
        "warning",
    )


@pytest.mark.parametrize(("field", "value"), [("prompt_tokens_len", "12"), ("stop_reason", 3), ("llm_infer_ms", [])])
def test_metric_values_are_typed(trajectory: dict[str, Any], field: str, value: Any) -> None:
    trajectory["steps"][0]["metric"][field] = value
    assert summary(trajectory) == {("schema.type", f"/steps/0/metric/{field}")}


def test_timing_of_minus_one_means_unknown(trajectory: dict[str, Any]) -> None:
    trajectory["steps"][0]["metric"]["env_action_ms"] = -1
    assert issues(trajectory) == []


def test_an_unknown_actf_version_names_the_known_one(trajectory: dict[str, Any]) -> None:
    trajectory["schema_version"] = "ACTF_v2.0"
    issue = one(trajectory)
    assert issue.code == "schema.unknown-version" and "ACTF_v1.0" in issue.message
