"""AgentCompass attempt-<n>/result.json (kind agentcompass-attempt)."""

from __future__ import annotations

from typing import Any

import pytest

from ..conftest import TASK_DIR, issues, one, summary, text

FIELDS = [
    "status",
    "metrics",
    "final_answer",
    "trajectory",
    "issues",
    "artifacts",
    "analysis_result",
    "meta",
    "retry_count",
]


def test_the_fixture_attempts_are_valid() -> None:
    for number in (1, 2, 3):
        assert issues(TASK_DIR / f"attempt-{number}" / "result.json") == []


def test_a_retry_only_attempt_holds_retry_count_alone() -> None:
    assert issues({"retry_count": 2}, "agentcompass-attempt") == []


@pytest.mark.parametrize("field", FIELDS)
def test_every_standard_field_is_present(attempt: dict[str, Any], field: str) -> None:
    del attempt[field]
    issue = one(text(attempt), "agentcompass-attempt")
    assert (issue.code, issue.pointer, issue.line, issue.column) == ("schema.required", f"/{field}", 1, 1)


def test_error_and_ground_truth_are_rejected_with_a_reason(attempt: dict[str, Any]) -> None:
    attempt["error"] = "boom"
    attempt["ground_truth"] = 42
    found = issues(text(attempt), "agentcompass-attempt")
    assert {(i.code, i.pointer) for i in found} == {
        ("schema.not-allowed", "/error"),
        ("schema.not-allowed", "/ground_truth"),
    }
    assert any("task level" in i.message for i in found)


def test_an_unexpected_member_gets_its_own_pointer(attempt: dict[str, Any]) -> None:
    attempt["score"] = 1
    issue = one(text(attempt), "agentcompass-attempt")
    assert (issue.code, issue.pointer) == ("schema.unexpected-member", "/score")


@pytest.mark.parametrize("status", ["done", "success", "", None])
def test_status_is_one_of_the_spec_values(attempt: dict[str, Any], status: Any) -> None:
    attempt["status"] = status
    assert {pointer for _, pointer in summary(attempt, "agentcompass-attempt")} == {"/status"}


@pytest.mark.parametrize("value", ["1", None, [1], {"a": 1}])
def test_metric_values_are_booleans_or_numbers(attempt: dict[str, Any], value: Any) -> None:
    attempt["metrics"]["reward"] = value
    assert summary(attempt, "agentcompass-attempt") == {("schema.type", "/metrics/reward")}


@pytest.mark.parametrize("key", ["", " reward", "reward "])
def test_metric_keys_are_non_empty_without_surrounding_white_space(attempt: dict[str, Any], key: str) -> None:
    attempt["metrics"][key] = 1
    assert summary(attempt, "agentcompass-attempt") == {("schema.member-name", "/metrics/" + key)}


def test_nan_in_metrics_is_rejected_at_the_value(attempt: dict[str, Any]) -> None:
    source = text(attempt).replace('"reward": 0.82', '"reward": NaN')
    issue = one(source, "agentcompass-attempt")
    assert (issue.code, issue.pointer) == ("json.non-finite", "/metrics/reward")


def test_meta_holds_exactly_benchmark_and_harness(attempt: dict[str, Any]) -> None:
    del attempt["meta"]["harness"]
    attempt["meta"]["plan"] = {}
    assert summary(attempt, "agentcompass-attempt") == {
        ("schema.required", "/meta/harness"),
        ("schema.unexpected-member", "/meta/plan"),
    }


def test_meta_namespaces_are_open(attempt: dict[str, Any]) -> None:
    attempt["meta"]["harness"] = {"anything": {"goes": [1, 2]}}
    assert issues(attempt, "agentcompass-attempt") == []


@pytest.mark.parametrize(
    ("issue", "pointer"),
    [
        ({"severity": "critical", "phase": "run", "code": "x", "message": "m"}, "/issues/0/severity"),
        ({"severity": "error", "phase": "teardown", "code": "x", "message": "m"}, "/issues/0/phase"),
        ({"severity": "error", "phase": "run", "code": " x", "message": "m"}, "/issues/0/code"),
        ({"severity": "error", "phase": "run", "code": "x", "message": "  "}, "/issues/0/message"),
        ({"severity": "error", "phase": "run", "code": "x"}, "/issues/0/message"),
    ],
)
def test_issues_have_the_spec_shape(attempt: dict[str, Any], issue: dict[str, Any], pointer: str) -> None:
    attempt["issues"] = [issue]
    assert {p for _, p in summary(attempt, "agentcompass-attempt")} == {pointer}


def test_analysis_result_entries_have_typed_known_members(attempt: dict[str, Any]) -> None:
    attempt["analysis_result"] = {
        "judge": {"is_badcase": "no", "score": "high", "error": 3, "extra": [], "custom": {"any": True}},
        "other": "text",
    }
    assert summary(attempt, "agentcompass-attempt") == {
        ("schema.type", "/analysis_result/judge/is_badcase"),
        ("schema.type", "/analysis_result/judge/score"),
        ("schema.type", "/analysis_result/judge/error"),
        ("schema.type", "/analysis_result/judge/extra"),
        ("schema.type", "/analysis_result/other"),
    }


def test_trajectory_is_actf_or_empty(attempt: dict[str, Any]) -> None:
    attempt["trajectory"]["steps"][1]["metric"]["llm_infer_ms"] = "slow"
    assert summary(attempt, "agentcompass-attempt") == {("schema.type", "/trajectory/steps/1/metric/llm_infer_ms")}
    attempt["trajectory"] = {"steps": []}
    assert summary(attempt, "agentcompass-attempt") == {("schema.required", "/trajectory/schema_version")}


@pytest.mark.parametrize("dropped", [("sha256",), ("size_bytes", "file_count"), ("sha256", "size_bytes", "file_count")])
def test_a_collected_artifact_records_its_evidence(attempt: dict[str, Any], dropped: tuple[str, ...]) -> None:
    """Reuse measures the stored copy against sha256, size_bytes and file_count; one that is missing fails it."""
    collected = attempt["artifacts"]["declared_artifacts"]["entries"][0]
    assert collected["status"] == "collected"
    for name in dropped:
        del collected[name]
    issue = one(attempt, "agentcompass-attempt")
    assert (issue.code, issue.pointer, issue.severity) == (
        "rule.reuse-refused", "/artifacts/declared_artifacts/entries/0", "error"
    )  # fmt: skip
    assert issue.message.startswith(f"AgentCompass 1.0.1 cannot reuse this run: this collected artifact records no "
                                    f"{' and no '.join(dropped)};")  # fmt: skip
    attempt["artifacts"]["declared_artifacts"]["entries"][0]["status"] = "missing"  # only what was collected
    for name in ("kind", "sha256", "size_bytes", "file_count"):
        attempt["artifacts"]["declared_artifacts"]["entries"][0].pop(name, None)
    assert issues(attempt, "agentcompass-attempt") == []


def test_declared_artifact_destinations_stay_inside_and_do_not_overlap(attempt: dict[str, Any]) -> None:
    entries = attempt["artifacts"]["declared_artifacts"]["entries"]
    evidence = {"sha256": "0" * 64, "size_bytes": 0, "file_count": 1}
    entries.append({"source": "/w/a", "destination": "patches", "status": "collected", "kind": "directory", **evidence})
    entries.append({"source": "/w/b", "destination": "../../escape", "status": "missing"})
    entries.append({"source": "/w/c", "destination": "c", "status": "collected", **evidence})
    assert summary(attempt, "agentcompass-attempt") == {
        ("rule.artifact-overlap", "/artifacts/declared_artifacts/entries/2/destination"),
        ("security.path-escape", "/artifacts/declared_artifacts/entries/3/destination"),
        ("schema.required", "/artifacts/declared_artifacts/entries/4/kind"),
    }
