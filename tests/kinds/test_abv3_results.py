"""ABV3-L1 experiment results.json (kind abv3-results)."""

from __future__ import annotations

from typing import Any

import pytest

from ..conftest import issues, one, summary, text


def test_the_spec_example_is_valid() -> None:
    assert issues({"count": 100, "main_metric": "success_rate", "success_rate": 0.85}, "abv3-results") == []


def test_other_metrics_may_follow() -> None:
    data = {"count": 3, "main_metric": "solved", "solved": True, "cost_usd": 1.25, "notes": {"x": 1}}
    assert issues(data, "abv3-results") == []


@pytest.mark.parametrize("count", [-1, 1.5, "100", None, True])
def test_count_is_an_integer_of_zero_or_more(count: Any) -> None:
    data = {"count": count, "main_metric": "m", "m": 1}
    assert {code for code, _ in summary(data, "abv3-results")} in ({"schema.minimum"}, {"schema.type"})
    assert {pointer for _, pointer in summary(data, "abv3-results")} == {"/count"}


def test_a_missing_main_metric_is_reported_at_the_pointer_it_would_have() -> None:
    issue = one(text({"count": 1, "main_metric": "pass@1/avg", "accuracy": 0.8}), "abv3-results")
    assert (issue.code, issue.pointer, issue.line, issue.column) == ("rule.main-metric", "/pass@1~1avg", 1, 1)


@pytest.mark.parametrize("value", ["0.85", None, [0.8], {"mean": 0.8}])
def test_the_main_metric_is_a_number_or_a_boolean(value: Any) -> None:
    issue = one(text({"count": 1, "main_metric": "m", "m": value}), "abv3-results")
    assert (issue.code, issue.pointer, issue.line) == ("rule.main-metric", "/m", 4)


def test_count_and_main_metric_are_required() -> None:
    assert summary({"success_rate": 1}, "abv3-results") == {
        ("schema.required", "/count"),
        ("schema.required", "/main_metric"),
    }


def test_main_metric_cannot_name_count() -> None:
    assert summary({"count": 1, "main_metric": "count"}, "abv3-results") == {("rule.main-metric", "/count")}
