"""ABB bug case: verify.case.json and an attempt's case.json (kind abb-case)."""

from __future__ import annotations

from typing import Any

import pytest

from ..conftest import errors, issues, one, summary, text


def test_the_fixture_case_is_valid(case: dict[str, Any]) -> None:
    assert issues(case, "abb-case") == []


def test_annotation_details_may_be_absent(case: dict[str, Any]) -> None:
    for optional in ("fault location", "Root cause", "reported_version", "fixed_in", "pinned_contains_fix"):
        del case[optional]
    assert issues(case, "abb-case") == []


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("fault_location", "fault location"),
        ("root_cause", "Root cause"),
        ("Fault Location", "fault location"),
        ("root cause", "Root cause"),
    ],
)
def test_spaced_field_names_must_be_spelled_as_the_spec_does(case: dict[str, Any], wrong: str, right: str) -> None:
    case[wrong] = case.pop(right)
    issue = one(text(case), "abb-case")
    assert (issue.code, issue.pointer, issue.severity) == ("rule.misspelled-key", f"/{wrong}", "error")
    assert f"did you mean {right!r}?" in issue.message
    assert issue.column == 3  # on the key


def test_unknown_members_are_warnings(case: dict[str, Any]) -> None:
    case["difficulty"] = "hard"
    issue = one(case, "abb-case")
    assert (issue.code, issue.severity) == ("rule.unknown-key", "warning")


@pytest.mark.parametrize("number", [0, -3, "123", 1.5])
def test_issue_number_is_an_integer_of_one_or_more(case: dict[str, Any], number: Any) -> None:
    case["issue"]["number"] = number
    assert "/issue/number" in {pointer for _, pointer in errors(case, "abb-case")}


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/octo-org/octo-cli/issues/124",
        "https://github.com/octo-org/other/issues/123",
        "https://github.com/octo-org/octo-cli",
    ],
)
def test_issue_url_matches_repository_and_number(case: dict[str, Any], url: str) -> None:
    case["issue"]["url"] = url
    assert summary(case, "abb-case") == {("rule.issue-url", "/issue/url")}


def test_issue_url_may_use_the_pull_address_or_other_case(case: dict[str, Any]) -> None:
    case["issue"]["url"] = "https://github.com/Octo-Org/octo-cli/pull/123"
    assert issues(case, "abb-case") == []


def test_line_end_is_not_before_line_start(case: dict[str, Any]) -> None:
    case["fault location"][0].update(line_start=52, line_end=40)
    assert summary(case, "abb-case") == {("rule.line-range", "/fault location/0/line_end")}


@pytest.mark.parametrize(("steps", "code"), [([], "schema.min-items"), ("run it", "schema.type"), ([1], "schema.type")])
def test_steps_is_a_non_empty_array_of_strings(case: dict[str, Any], steps: Any, code: str) -> None:
    case["steps"] = steps
    assert {c for c, _ in summary(case, "abb-case")} == {code}


def test_pinned_contains_fix_is_a_boolean(case: dict[str, Any]) -> None:
    case["pinned_contains_fix"] = "false"
    assert summary(case, "abb-case") == {("schema.type", "/pinned_contains_fix")}


def test_required_fields(case: dict[str, Any]) -> None:
    del case["case_id"], case["issue"]["title"]
    assert summary(case, "abb-case") == {("schema.required", "/case_id"), ("schema.required", "/issue/title")}
