"""AgentCompass retry diagnostics, agentcompass.retry.v1 (kind agentcompass-retry)."""

from __future__ import annotations

from typing import Any

import pytest

from ..conftest import TASK_DIR, issues, one, summary

SPEC_EXAMPLE = {
    "schema_version": "agentcompass.retry.v1",
    "task_id": "<task-id>",
    "attempt": 3,
    "retry": 1,
    "max_retries": 2,
    "stage": "evaluate",
    "scope": "evaluate",
    "matched_pattern": "fatal",
    "issues": [{"severity": "fatal", "phase": "evaluate", "code": "judge_failed", "message": "HTTP 503"}],
    "discarded_result": {},
}


def test_the_spec_example_is_valid_and_told_by_its_schema_version() -> None:
    assert issues(SPEC_EXAMPLE) == []


def test_the_written_records_are_valid() -> None:
    records = sorted((TASK_DIR / "attempt-1" / "retries").iterdir())
    assert records
    for path in records:
        assert issues(path) == []


def test_retry_is_at_most_max_retries(retry_record: dict[str, Any]) -> None:
    retry_record["retry"] = 3
    assert summary(retry_record) == {("rule.retry-budget", "/retry")}


@pytest.mark.parametrize(("field", "value"), [("attempt", 0), ("retry", 0), ("max_retries", -1)])
def test_numbers_are_in_range(retry_record: dict[str, Any], field: str, value: int) -> None:
    retry_record[field] = value
    assert ("schema.minimum", f"/{field}") in summary(retry_record)


def test_scope_is_attempt_or_evaluate(retry_record: dict[str, Any]) -> None:
    retry_record["scope"] = "task"
    assert summary(retry_record) == {("schema.enum", "/scope")}


def test_discarded_result_is_loose(retry_record: dict[str, Any]) -> None:
    retry_record["discarded_result"] = {"status": "whatever", "error": "kept for diagnosis"}
    assert issues(retry_record) == []


def test_unknown_retry_version() -> None:
    issue = one({**SPEC_EXAMPLE, "schema_version": "agentcompass.retry.v2"})
    assert (issue.code, issue.pointer) == ("schema.unknown-version", "/schema_version")
    assert "agentcompass.retry.v1" in issue.message
