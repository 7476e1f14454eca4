"""The ABB layout: agent run outputs under ``results/agents/`` and issue data under ``resources/agents/``."""

from __future__ import annotations

import re
from pathlib import Path

from ..checking import _kinds
from ..checking._collect import Collector
from ..checking._examine import Examined
from ..checking._sources import examine_named, members, read_schemaless
from ..rules._common import is_int
from ..units._fs import Entry, Reporter, entries, require
from ..units._plan import LOCAL, Tree, UnitPlan
from ..vocabulary._codes import Severity
from ..vocabulary._issues import Anchor, Fact, Finding, Issue
from ..vocabulary._text import describe, quote
from ._layout import Layout

CASE = _kinds.KINDS["abb-case"]
ATTEMPT_FILES = ("trajectory.json", "run.json", "manifest.json", "process.json")
STEP_FILES = ("input.json", "request.json", "result.json")
_ISSUE_FOLDER = re.compile(r"^issue_([1-9][0-9]*)$")
CASE_ID_RULE = "abb.case-id"


def detect(folder: Path, tree: Tree = LOCAL) -> bool:
    return tree.is_folder(folder / "results" / "agents") or tree.is_folder(folder / "resources" / "agents")


def plan_results(folder: Path, plan: UnitPlan, others: tuple[Layout, ...], layouts: tuple[Layout, ...]) -> None:
    """Units: each case folder of the agents' results, and each issue folder of their issue data."""
    if plan.is_folder(folder / "results" / "agents"):
        _plan_results(folder / "results" / "agents", folder, plan)
    if plan.is_folder(folder / "resources" / "agents"):
        _plan_resources(folder / "resources" / "agents", folder, plan)


def _folders(listing: list[Entry], reporter: Reporter, what: str) -> list[Path]:
    found = []
    for entry in listing:
        if entry.is_folder:
            found.append(entry.path)
        else:
            reporter.about(entry.path, "layout.unexpected-entry", f"expected only {what} folders here", "warning")
    return found


def _plan_results(agents: Path, root: Path, plan: UnitPlan) -> None:
    for agent in _folders(plan.entries(agents, root), plan, "agent"):
        cases = agent / "cases"
        if not plan.require(cases, "folder", agent, "an agent's results folder holds cases/"):
            continue
        for case in _folders(plan.entries(cases, root), plan, "case"):
            plan.defer(case_unit, case, root)


def case_unit(collector: Collector, case: Path, root: Path) -> None:
    """One case folder of an agent's results, with all its attempts: a unit (a ``units._plan.UnitCheck``)."""
    attempts = case / "attempts"
    if not require(attempts, "folder", collector, case, "a case folder holds attempts/"):
        return
    for attempt in _folders(entries(attempts, collector, root), collector, "attempt"):
        _check_attempt(attempt, root, collector)


def _check_attempt(attempt: Path, root: Path, collector: Collector) -> None:
    case_missing = "an attempt folder holds case.json, the exact test case used"
    if require(attempt / "case.json", "file", collector, attempt, case_missing):
        collector.add(examine_named(attempt / "case.json", CASE))
    for name in ATTEMPT_FILES:
        if require(attempt / name, "file", collector, attempt, f"an attempt folder holds {name}"):
            # A trajectory is derived from the steps: one that is not an object still leaves the run's evidence.
            severity: Severity = "warning" if name == "trajectory.json" else "error"
            json_object(attempt / name, collector, "abb-run-record", severity=severity)
    steps = attempt / "steps"
    no_steps = "an attempt folder without steps/: the execution stopped before its first step"
    if not require(steps, "folder", collector, attempt, no_steps, "warning"):
        return
    for step in _folders(entries(steps, collector, root), collector, "step"):
        for name in STEP_FILES:
            require(step / name, "file", collector, step, f"a step folder holds {name}")
        no_submission = "no submission.json: this step committed no submission"
        require(step / "submission.json", "file", collector, step, no_submission, "warning")
        for entry in entries(step, collector, root):
            if not entry.is_folder and entry.name.endswith(".json"):
                json_object(entry.path, collector, "abb-step-record", require_object=False)


def _plan_resources(agents: Path, root: Path, plan: UnitPlan) -> None:
    for agent in _folders(plan.entries(agents, root), plan, "agent"):
        truth = agent / "ground_truth"
        if not plan.require(truth, "folder", agent, "an agent's issue data is under ground_truth/"):
            continue
        for entry in plan.entries(truth, root):
            match = _ISSUE_FOLDER.match(entry.name)
            if not entry.is_folder or match is None:
                plan.about(entry.path, "layout.unexpected-entry", "expected issue_<number> folders", "warning")
                continue
            plan.defer(issue_unit, entry.path, int(match.group(1)), root)


def issue_unit(collector: Collector, folder: Path, number: int, root: Path) -> None:
    """One issue folder (``verify.case.json`` and ``runs/``): a unit; its ``case_id`` is a fact for the reduce."""
    case_path = folder / "verify.case.json"
    if require(case_path, "file", collector, folder, "an issue folder holds verify.case.json"):
        case = examine_named(case_path, CASE)
        data = members(case) or {}
        issue = data.get("issue")
        found = issue.get("number") if isinstance(issue, dict) else None
        findings = []
        if is_int(found) and found != number:
            message = f"the case is for issue {found}, but it is filed under issue_{number}/"
            findings.append(Finding("/issue/number", "layout.issue-number", message))
        collector.add(case.with_findings(findings))
        case_id = data.get("case_id")
        if isinstance(case_id, str):
            line, column = case.document.positions([("/case_id", Anchor.VALUE)]).get(
                ("/case_id", Anchor.VALUE), (None, None)
            )
            collector.fact(Fact(CASE_ID_RULE, str(root), case_id, str(case_path), CASE.name, "/case_id", line, column))
    require(folder / "runs", "folder", collector, folder, "an issue folder holds runs/, the saved reference executions")


def unique_case_ids(facts: list[Fact]) -> list[Issue]:
    """A case ID names one case in an ABB tree: every later case definition with the same one is an error."""
    first: dict[tuple[str, str], Fact] = {}
    issues = []
    for fact in facts:
        earlier = first.setdefault((fact.scope, fact.value), fact)
        if earlier is not fact:
            issues.append(
                Issue(
                    file=fact.file,
                    kind=fact.kind,
                    pointer=fact.pointer,
                    line=fact.line,
                    column=fact.column,
                    severity="error",
                    code="layout.duplicate-case-id",
                    message=f"case_id {quote(fact.value)} is already the case_id of "
                    f"{_inside(earlier.file, fact.scope)}; a case ID names one case of an ABB tree",
                )
            )
    return issues


def _inside(file: str, root: str) -> str:
    """A file's name from its tree's root (the same for a local copy and the remote original)."""
    for separator in ("/", "\\"):
        if file.startswith(root.rstrip(separator) + separator):
            return file[len(root.rstrip(separator)) + 1 :]
    return file


def json_object(
    path: Path, collector: Collector, label: str, *, require_object: bool = True, severity: Severity = "error"
) -> Examined | None:
    """A JSON file the spec gives no schema: it must be well-formed (and an object, where asked: ``severity``
    says how much it matters when it is not)."""
    read = read_schemaless(path)
    if isinstance(read, Finding):
        collector.about(path, read.code, read.message)
        return None
    if require_object and read.document.readable and not isinstance(read.document.data, dict):
        found = f"expected a JSON object, found {describe(read.document.data)}"
        read = read.with_findings([Finding("", "layout.not-an-object", found, severity=severity)])
    return collector.add(read, label)


LAYOUT = Layout("abb", detect, plan_results, {CASE_ID_RULE: unique_case_ids})
