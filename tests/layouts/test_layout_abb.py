"""The ABB layout: results/agents/<agent>/cases/<case>/attempts/<id>/ and resources/agents/<agent>/ground_truth/."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agentbeats_spec import validate

from ..conftest import VALID

ATTEMPT = Path("results/agents/demo-agent/cases/issue_123/attempts/1")
ISSUE = Path("resources/agents/demo-agent/ground_truth/issue_123")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    target = tmp_path / "abb"
    shutil.copytree(VALID / "abb", target)
    return target


def found(tree: Path) -> set[tuple[str, str, str, str]]:
    return {(i.code, os.path.relpath(i.file or "", tree), i.pointer, i.severity) for i in validate(tree)}


def test_the_valid_tree_is_clean(tree: Path) -> None:
    assert validate(tree) == []


@pytest.mark.parametrize("name", ["case.json", "trajectory.json", "run.json", "manifest.json", "process.json"])
def test_an_attempt_holds_every_required_file(tree: Path, name: str) -> None:
    (tree / ATTEMPT / name).unlink()
    assert found(tree) == {("layout.missing-file", str(ATTEMPT), "", "error")}


def test_an_attempt_without_steps_stopped_before_its_first_step_a_warning(tree: Path) -> None:
    shutil.rmtree(tree / ATTEMPT / "steps")
    (issue,) = validate(tree)
    assert (issue.code, issue.file, issue.pointer, issue.line, issue.severity) == (
        "layout.missing-folder", str(tree / ATTEMPT), "", None, "warning"
    )  # fmt: skip
    assert issue.message == "an attempt folder without steps/: the execution stopped before its first step"


def test_logs_are_optional(tree: Path) -> None:
    shutil.rmtree(tree / ATTEMPT / "logs")
    assert validate(tree) == []


@pytest.mark.parametrize("name", ["input.json", "request.json", "result.json"])
def test_a_step_holds_its_files(tree: Path, name: str) -> None:
    (tree / ATTEMPT / "steps" / "2" / name).unlink()
    assert found(tree) == {("layout.missing-file", str(ATTEMPT / "steps" / "2"), "", "error")}


def test_a_step_without_a_submission_is_a_warning(tree: Path) -> None:
    (tree / ATTEMPT / "steps" / "2" / "submission.json").unlink()
    assert found(tree) == {("layout.missing-file", str(ATTEMPT / "steps" / "2"), "", "warning")}


def test_run_records_are_well_formed_json_objects(tree: Path) -> None:
    (tree / ATTEMPT / "run.json").write_text("[1, 2]")
    (tree / ATTEMPT / "process.json").write_text('{"a": 1,}')
    assert found(tree) == {
        ("layout.not-an-object", str(ATTEMPT / "run.json"), "", "error"),
        ("json.syntax", str(ATTEMPT / "process.json"), "", "error"),
    }


@pytest.mark.parametrize(
    ("text", "found"), [("[1, 2]", "an array of 2 item(s)"), ("null", "null"), ('"x"', "the string 'x'")]
)
def test_a_trajectory_that_is_json_but_no_object_is_a_warning(tree: Path, text: str, found: str) -> None:
    """The trajectory is derived from the steps, which still hold the execution's evidence."""
    (tree / ATTEMPT / "trajectory.json").write_text(text)
    (issue,) = validate(tree)
    assert (issue.code, issue.file, issue.pointer, issue.line, issue.column, issue.severity) == (
        "layout.not-an-object", str(tree / ATTEMPT / "trajectory.json"), "", 1, 1, "warning"
    )  # fmt: skip
    assert issue.message == f"expected a JSON object, found {found}"


def test_a_trajectory_that_is_not_json_stays_an_error(tree: Path) -> None:
    (tree / ATTEMPT / "trajectory.json").write_text('{"steps": [}')
    assert {(code, severity) for code, _, _, severity in found(tree)} == {("json.syntax", "error")}


def test_the_attempt_case_is_validated_as_a_case(tree: Path) -> None:
    path = tree / ATTEMPT / "case.json"
    data = json.loads(path.read_text())
    data["steps"] = []
    path.write_text(json.dumps(data))
    assert found(tree) == {("schema.min-items", str(ATTEMPT / "case.json"), "/steps", "error")}


def test_the_issue_number_matches_its_folder(tree: Path) -> None:
    (tree / ISSUE).rename(tree / ISSUE.with_name("issue_124"))
    assert found(tree) == {
        ("layout.issue-number", str(ISSUE.with_name("issue_124") / "verify.case.json"), "/issue/number", "error")
    }


def test_an_issue_folder_holds_its_case_and_runs(tree: Path) -> None:
    shutil.rmtree(tree / ISSUE / "runs")
    (tree / ISSUE / "verify.case.json").unlink()
    assert found(tree) == {
        ("layout.missing-folder", str(ISSUE), "", "error"),
        ("layout.missing-file", str(ISSUE), "", "error"),
    }


def _file_issue(tree: Path, agent: str, number: int, case_id: str) -> Path:
    """A copy of the fixture's issue folder as issue <number> of <agent>, with the given case_id."""
    folder = tree / "resources" / "agents" / agent / "ground_truth" / f"issue_{number}"
    shutil.copytree(tree / ISSUE, folder, dirs_exist_ok=True)
    data = json.loads((folder / "verify.case.json").read_text())
    data["case_id"] = case_id
    data["issue"]["number"] = number
    data["issue"]["url"] = f"https://github.com/{data['issue']['repository']}/issues/{number}"
    (folder / "verify.case.json").write_text(json.dumps(data, indent=2))
    return folder / "verify.case.json"


def test_a_case_id_names_one_case_of_the_tree(tree: Path) -> None:
    first = json.loads((tree / ISSUE / "verify.case.json").read_text())["case_id"]
    _file_issue(tree, "demo-agent", 200, "another-case")
    second = _file_issue(tree, "other-agent", 300, first)
    issues = validate(tree)
    assert [(i.file, i.pointer, i.line, i.column, i.severity, i.code, i.message) for i in issues] == [
        (str(second), "/case_id", 2, 14, "error", "layout.duplicate-case-id",
         f"case_id {first!r} is already the case_id of {(ISSUE / 'verify.case.json').as_posix()}; "
         "a case ID names one case of an ABB tree"),
    ]  # fmt: skip


def test_an_attempts_case_json_repeats_its_case_id_and_two_abb_trees_are_not_compared(tmp_path: Path) -> None:
    for name in ("one", "two"):
        shutil.copytree(VALID / "abb", tmp_path / name)
    assert validate(tmp_path) == []
