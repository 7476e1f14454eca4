"""The reconstructed AgentCompass task detail record (kind agentcompass-task-detail)."""

from __future__ import annotations

from typing import Any

import pytest

from ..conftest import VALID, issues, one, summary, text

KIND = "agentcompass-task-detail"


def test_the_record_read_back_by_agentcompass_is_valid() -> None:
    assert issues(VALID / "task-detail" / "swe-utils.task-detail.json") == []


def test_the_spec_example_is_valid() -> None:
    example = {
        "task_id": "<task-id>",
        "category": "<category>",
        "ground_truth": "<reference-answer>",
        "attempt_plan": {"k": 3, "strategy": "avg"},
        "retry_count": 2,
        "retry_counts": {"1": 2},
        "attempts": {
            "1": {
                "status": "completed",
                "metrics": {"correct": True, "reward": 0.82},
                "final_answer": "<answer>",
                "trajectory": {},
                "issues": [],
                "artifacts": {},
                "analysis_result": {},
                "meta": {"benchmark": {"...": "..."}, "harness": {"...": "..."}},
            }
        },
    }
    assert issues(example, KIND) == []


@pytest.mark.parametrize(
    "field",
    ["task_id", "category", "ground_truth", "attempt_plan", "retry_count", "retry_counts", "attempts"],
)
def test_the_fixed_shell_has_every_task_field(detail: dict[str, Any], field: str) -> None:
    del detail[field]
    assert summary(detail, KIND) == {("schema.required", f"/{field}")}


def test_attempts_is_not_empty(detail: dict[str, Any]) -> None:
    detail["attempts"] = {}
    assert ("schema.min-properties", "/attempts") in summary(detail, KIND)


def test_retry_count_is_the_sum_of_retry_counts(detail: dict[str, Any]) -> None:
    detail["retry_count"] = 5
    issue = one(text(detail), KIND)
    assert (issue.code, issue.pointer) == ("rule.retry-count", "/retry_count")
    assert "sum to 2" in issue.message


def test_retry_counts_name_attempts_up_to_k(detail: dict[str, Any]) -> None:
    detail["retry_counts"] = {"1": 1, "4": 1}
    issue = one(text(detail), KIND)
    assert (issue.code, issue.pointer) == ("rule.retry-counts-attempt", "/retry_counts/4")


def test_a_retry_only_attempt_may_appear_in_retry_counts_alone(detail: dict[str, Any]) -> None:
    detail["retry_counts"] = {"1": 1, "3": 1}
    del detail["attempts"]["3"]
    assert issues(detail, KIND) == []


def test_zero_retry_counts_are_left_out(detail: dict[str, Any]) -> None:
    detail["retry_counts"]["2"] = 0
    issue = one(detail, KIND)
    assert (issue.code, issue.severity) == ("rule.retry-counts-sparse", "warning")


def test_attempts_in_a_detail_carry_no_retry_count(detail: dict[str, Any]) -> None:
    detail["attempts"]["1"]["retry_count"] = 2
    assert summary(detail, KIND) == {("schema.unexpected-member", "/attempts/1/retry_count")}


def test_ground_truth_is_never_inside_an_attempt(detail: dict[str, Any]) -> None:
    detail["attempts"]["2"]["ground_truth"] = "x"
    assert summary(detail, KIND) == {("schema.not-allowed", "/attempts/2/ground_truth")}


def test_k_covers_every_attempt(detail: dict[str, Any]) -> None:
    detail["attempt_plan"]["k"] = 2
    assert summary(detail, KIND) == {("rule.attempt-plan-k", "/attempt_plan/k")}


def test_trajectory_rules_apply_inside_attempts(detail: dict[str, Any]) -> None:
    detail["attempts"]["1"]["trajectory"]["steps"][1]["step_id"] = 1
    assert summary(detail, KIND) == {("rule.step-order", "/attempts/1/trajectory/steps/1/step_id")}
