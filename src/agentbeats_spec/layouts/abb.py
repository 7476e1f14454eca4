"""The ABB layout: agent run outputs under ``results/agents/`` and issue data under ``resources/agents/``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .. import _documents, _kinds
from .._core import Collector, Examined, examine_file, read_bounded
from .._issues import Finding
from ._fs import entries, is_folder, present

CASE = _kinds.KINDS["abb-case"]
ATTEMPT_FILES = ("trajectory.json", "run.json", "manifest.json", "process.json")
STEP_FILES = ("input.json", "request.json", "result.json")
_ISSUE_FOLDER = re.compile(r"^issue_([1-9][0-9]*)$")


def detect(folder: Path) -> bool:
    return is_folder(folder / "results" / "agents") or is_folder(folder / "resources" / "agents")


def check(folder: Path, collector: Collector, others: list[Any] | None = None) -> None:
    if is_folder(folder / "results" / "agents"):
        _check_results(folder / "results" / "agents", folder, collector)
    if is_folder(folder / "resources" / "agents"):
        _check_resources(folder / "resources" / "agents", folder, collector)


def _folders(folder: Path, collector: Collector, root: Path, what: str) -> list[Path]:
    found = []
    for entry in entries(folder, collector, root):
        if entry.is_folder:
            found.append(entry.path)
        else:
            collector.about(entry.path, "layout.unexpected-entry", f"expected only {what} folders here", "warning")
    return found


def _check_results(agents: Path, root: Path, collector: Collector) -> None:
    for agent in _folders(agents, collector, root, "agent"):
        cases = agent / "cases"
        if not present(cases, "folder", collector, agent, "an agent's results folder holds cases/"):
            continue
        for case in _folders(cases, collector, root, "case"):
            attempts = case / "attempts"
            if not present(attempts, "folder", collector, case, "a case folder holds attempts/"):
                continue
            for attempt in _folders(attempts, collector, root, "attempt"):
                _check_attempt(attempt, root, collector)


def _check_attempt(attempt: Path, root: Path, collector: Collector) -> None:
    case_missing = "an attempt folder holds case.json, the exact test case used"
    if present(attempt / "case.json", "file", collector, attempt, case_missing):
        collector.add(examine_file(attempt / "case.json", CASE, explicit=True))
    for name in ATTEMPT_FILES:
        if present(attempt / name, "file", collector, attempt, f"an attempt folder holds {name}"):
            json_object(attempt / name, collector, "abb-run-record")
    steps = attempt / "steps"
    if not present(steps, "folder", collector, attempt, "an attempt folder holds steps/<step>/"):
        return
    for step in _folders(steps, collector, root, "step"):
        for name in STEP_FILES:
            present(step / name, "file", collector, step, f"a step folder holds {name}")
        no_submission = "no submission.json: this step committed no submission"
        present(step / "submission.json", "file", collector, step, no_submission, "warning")
        for entry in entries(step, collector, root):
            if not entry.is_folder and entry.name.endswith(".json"):
                json_object(entry.path, collector, "abb-step-record", require_object=False)


def _check_resources(agents: Path, root: Path, collector: Collector) -> None:
    for agent in _folders(agents, collector, root, "agent"):
        truth = agent / "ground_truth"
        if not present(truth, "folder", collector, agent, "an agent's issue data is under ground_truth/"):
            continue
        for entry in entries(truth, collector, root):
            match = _ISSUE_FOLDER.match(entry.name)
            if not entry.is_folder or match is None:
                collector.about(entry.path, "layout.unexpected-entry", "expected issue_<number> folders", "warning")
                continue
            _check_issue(entry.path, int(match.group(1)), collector)


def _check_issue(folder: Path, number: int, collector: Collector) -> None:
    case_path = folder / "verify.case.json"
    if present(case_path, "file", collector, folder, "an issue folder holds verify.case.json"):
        case = examine_file(case_path, CASE, explicit=True)
        assert case is not None  # a named file always gets a verdict
        data = case.document.data if case.document.readable else None
        issue = data.get("issue") if isinstance(data, dict) else None
        found = issue.get("number") if isinstance(issue, dict) else None
        findings = []
        if isinstance(found, int) and not isinstance(found, bool) and found != number:
            message = f"the case is for issue {found}, but it is filed under issue_{number}/"
            findings.append(Finding("/issue/number", "layout.issue-number", message))
        collector.add(case.with_findings(findings))
    present(folder / "runs", "folder", collector, folder, "an issue folder holds runs/, the saved reference executions")


def json_object(path: Path, collector: Collector, label: str, *, require_object: bool = True) -> Examined | None:
    """A JSON file the spec gives no schema: it must be well-formed (and an object, where asked)."""
    raw, problem = read_bounded(path)
    if problem is not None:
        collector.about(path, problem.code, problem.message)
        return None
    document = _documents.read(raw, "json")
    findings = list(document.findings)
    if require_object and document.readable and not isinstance(document.data, dict):
        findings.append(Finding("", "layout.not-an-object", "expected a JSON object"))
    return collector.add(Examined(document, None, tuple(findings), str(path)), label)
