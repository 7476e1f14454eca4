"""AgentCompass task.json, agentcompass.task.v3 (kind agentcompass-task)."""

from __future__ import annotations

from typing import Any

import pytest

from ..conftest import TASK_DIR, issues, one, summary, text

IDENTITY = {
    "schema_version": "agentcompass.task.v3",
    "task_id": "example-task",
    "attempts": {"1": "attempt-1"},
}


def test_the_spec_example_is_valid() -> None:
    example = {
        "schema_version": "agentcompass.task.v3",
        "task_id": "example-task",
        "category": "coding",
        "ground_truth": None,
        "attempt_plan": {"k": 3, "strategy": "avg"},
        "attempts": {"1": "attempt-1", "2": "attempt-2", "3": "attempt-3"},
    }
    assert issues(example) == []


def test_the_identity_index_of_a_running_task_is_valid() -> None:
    assert issues(IDENTITY) == []


def test_the_kind_is_told_by_the_file_name() -> None:
    assert issues(TASK_DIR / "task.json") == []


@pytest.mark.parametrize("missing", ["category", "ground_truth", "attempt_plan"])
def test_shared_metadata_is_published_all_together(task_index: dict[str, Any], missing: str) -> None:
    del task_index[missing]
    issue = one(text(task_index))
    assert (issue.code, issue.pointer, issue.line, issue.column) == ("schema.required", f"/{missing}", 1, 1)


def test_an_unknown_schema_version_names_the_known_ones() -> None:
    issue = one({**IDENTITY, "schema_version": "agentcompass.task.v4"}, "agentcompass-task")
    assert (issue.code, issue.pointer, issue.severity) == ("schema.unknown-version", "/schema_version", "error")
    assert "known: agentcompass.task.v2, agentcompass.task.v3" in issue.message
    assert "AgentCompass 1.0.1 reads only agentcompass.task.v3 and agentcompass.task.v2" in issue.message


def test_a_v2_index_is_valid_with_one_warning_that_names_migrate() -> None:
    issue = one(text({**IDENTITY, "schema_version": "agentcompass.task.v2"}), "agentcompass-task")
    assert (issue.code, issue.pointer, issue.line, issue.column, issue.severity) == (
        "legacy.task-v2", "/schema_version", 2, 21, "warning"
    )  # fmt: skip
    assert "`agentbeats-spec migrate` rewrites it as agentcompass.task.v3" in issue.message


def test_a_v2_index_has_the_rules_of_a_v3_one() -> None:
    broken = {**IDENTITY, "schema_version": "agentcompass.task.v2", "attempts": {"1": "attempt-2"}, "extra": 1}
    assert summary(broken) == {
        ("legacy.task-v2", "/schema_version"),
        ("rule.attempt-directory", "/attempts/1"),
        ("schema.unexpected-member", "/extra"),
    }


def test_v1_is_an_error_that_says_the_reader_rejects_it() -> None:
    issue = one(text({**IDENTITY, "schema_version": "agentcompass.task.v1"}))
    assert (issue.code, issue.pointer, issue.line, issue.column, issue.severity) == (
        "legacy.rejected-version", "/schema_version", 2, 21, "error"
    )  # fmt: skip
    assert "AgentCompass 1.0.1 rejects" in issue.message


@pytest.mark.parametrize("task_id", [" example", "example\n", "", "\t"])
def test_task_id_has_no_surrounding_white_space(task_id: str) -> None:
    assert summary({**IDENTITY, "task_id": task_id}) == {("schema.pattern", "/task_id")}


@pytest.mark.parametrize("key", ["01", "0", "-1", "one", "1.0"])
def test_attempt_keys_are_canonical_positive_integers(key: str) -> None:
    issue = one(text({**IDENTITY, "attempts": {key: "attempt-1"}}))
    assert (issue.code, issue.pointer, issue.line, issue.column) == (
        "schema.member-name",
        f"/attempts/{key}",
        5,
        5,
    )


@pytest.mark.parametrize("directory", ["attempt-2", "attempt-01", "attempt_1", "a1"])
def test_attempts_map_n_to_attempt_n(directory: str) -> None:
    codes = {code for code, _ in summary({**IDENTITY, "attempts": {"1": directory}})}
    assert codes <= {"rule.attempt-directory", "schema.pattern"} and codes


def test_k_is_at_least_the_largest_attempt_number(task_index: dict[str, Any]) -> None:
    task_index["attempt_plan"]["k"] = 2
    assert summary(task_index) == {("rule.attempt-plan-k", "/attempt_plan/k")}


def test_a_strategy_the_reader_cannot_resolve_is_an_error(task_index: dict[str, Any]) -> None:
    task_index["attempt_plan"]["strategy"] = "median"
    issue = one(text(task_index))
    assert (issue.code, issue.severity, issue.pointer) == ("rule.unknown-strategy", "error", "/attempt_plan/strategy")
    assert issue.line == text(task_index).splitlines().index('    "strategy": "median"') + 1


def test_a_strategy_in_capitals_is_read_lower_cased_with_a_warning(task_index: dict[str, Any]) -> None:
    task_index["attempt_plan"]["strategy"] = "PASS"
    issue = one(task_index)
    assert (issue.code, issue.severity) == ("rule.unknown-strategy", "warning")
    assert "read as 'pass'" in issue.message


def test_attempts_is_never_empty(task_index: dict[str, Any]) -> None:
    """The writer writes the index when it allocates an attempt; the reader's record needs one."""
    task_index["attempts"] = {}
    issue = one(text(task_index))
    assert (issue.code, issue.pointer, issue.severity) == ("schema.min-properties", "/attempts", "error")
    assert issue.line == text(task_index).splitlines().index('  "attempts": {},') + 1
    assert issue.message == "expected at least 1 member(s), found an empty object"


def test_no_member_beyond_the_spec(task_index: dict[str, Any]) -> None:
    task_index["result"] = {}
    assert summary(task_index) == {("schema.unexpected-member", "/result")}
