"""What an AgentCompass run's files must agree on across units, as the 1.0.1 readers compare them.

Each unit of a run gives back facts (``Fact`` of rule :data:`RUN_RULE`, scoped to the run root): run_info.json its
attempt plan and the resolved execution plans reuse cannot read; metrics.json its metric contract; each task
folder its id, its published attempt plan, the attempts that declare artifacts and what kind of value each attempt
metric holds. :func:`agree` compares them once every unit is checked:

- a published task's ``attempt_plan`` is the run's ``request.execution.attempts`` (normalized as reuse does): the
  summary refuses the run otherwise (``report_aggregation._validate_detail_plans``, "attempt_plan does not match")
  and reuse the task ("Details attempt plan mismatch", ``RunStore._load_detail_for_task``);
- a resolved execution plan reuse reads is an object with an ``attempts`` object, and each plan of an attempt that
  declares artifacts is an object (``RunStore._materialize_reused_execution_plans``,
  ``_materialize_attempt_artifacts``); a plan for no task of the run, or null for a task without declared
  artifacts, is never read (only the writer's shape warns of it);
- the settings of params.json the summary merges under run_info.json's request (its execution, and the model's
  api_protocol and wrap_api_key where the request has none) are judged as merged (``agentcompass_run.merged_params``),
  and two benchmark ids in the two files are a warning (reuse requires the one run_info.json names);
- each attempt metric of a published task is one metrics.json declares, of its kind: a boolean for binary_success,
  a number for scalar (``MetricContract.validate_observations``, which the summary runs on every attempt); a
  report above k = 1 need not list every metric of the contract, so there only the kinds are compared.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from typing import Any

from ..checking._collect import Collector
from ..checking._examine import Examined
from ..reading._pointers import join
from ..rules import agentcompass_run
from ..rules._common import is_int
from ..rules.agentcompass import KNOWN_STRATEGIES
from ..scores._compare import mismatches
from ..scores._recompute import Refused
from ..scores._tasks import recompute_run, task_value
from ..vocabulary._issues import Anchor, Fact, Issue
from ..vocabulary._kind_data import TASK_V2
from ..vocabulary._text import quote

RUN_RULE = "agentcompass.run"
_METRIC_ID = r"[A-Za-z][A-Za-z0-9_.-]*"
REUSE = "AgentCompass 1.0.1 cannot reuse this run"
SUMMARY = "AgentCompass 1.0.1 cannot summarize this run"


def _facts(collector: Collector, scope: str, examined: Examined, found: list[tuple[str, dict[str, Any]]]) -> None:
    """Facts about one file (run_info.json, metrics.json, task.json: small), placed in one pass over its text."""
    if not found:
        return
    anchors = [(pointer, Anchor.VALUE) for pointer, _ in found if pointer]
    places = examined.document.positions(anchors) if anchors else {}
    kind = examined.kind.name if examined.kind is not None else None
    for pointer, value in found:
        line, column = places.get((pointer, Anchor.VALUE), (None, None))
        collector.fact(
            Fact(RUN_RULE, scope, json.dumps(value, sort_keys=True), examined.file or "", kind, pointer, line, column)
        )


def normalized_plan(plan: Any) -> dict[str, Any] | None:
    """``RunStore._normalized_attempt_plan``: the plan reuse and the summary compare tasks with, or None."""
    if not isinstance(plan, dict) or set(plan) - {"k", "strategy"}:
        return None
    k, strategy = plan.get("k"), plan.get("strategy")
    if not is_int(k) or k < 1 or not isinstance(strategy, str) or strategy.strip().lower() not in KNOWN_STRATEGIES:
        return None
    return {"k": k, "strategy": strategy.strip().lower()}


def run_info_facts(collector: Collector, scope: str, examined: Examined, data: dict[str, Any]) -> None:
    found: list[tuple[str, dict[str, Any]]] = []
    request = data.get("request")
    execution = request.get("execution") if isinstance(request, dict) else None
    plan = normalized_plan(execution.get("attempts") if isinstance(execution, dict) else None)
    if plan is not None:
        found.append(("/request/execution/attempts", {"of": "plan", **plan}))
    if isinstance(request, dict) and data.get("schema_version") == "agentcompass.run_info.v3":  # as summary reads
        found.append(("/request", {"of": "summarized", **agentcompass_run.summarized(request)}))
        if (benchmark := agentcompass_run.benchmark_id(request)) is not None:
            found.append(("/request/benchmark/id", {"of": "benchmark", "id": benchmark}))
    plans = data.get("resolved_execution_plans")
    for task_id, entry in plans.items() if isinstance(plans, dict) else ():  # else the file's own rule refuses it
        at = join("/resolved_execution_plans", task_id)
        attempts = entry.get("attempts") if isinstance(entry, dict) else None
        if not isinstance(attempts, dict):
            found.append((at, {"of": "resolved", "task": task_id, "null": entry is None}))
            continue
        for key, value in attempts.items():
            if not isinstance(value, dict) and value is not None:
                found.append((join(at, "attempts", key), {"of": "resolved", "task": task_id, "attempt": key}))
    _facts(collector, scope, examined, found)


def params_facts(collector: Collector, scope: str, examined: Examined, data: dict[str, Any]) -> None:
    """params.json's members the summary merges under run_info.json's request, one fact each."""
    found: list[tuple[str, dict[str, Any]]] = [
        (join("/" + section, name), {"of": "params", "section": section, "name": name, "value": value})
        for section, members in agentcompass_run.summarized(data).items()
        for name, value in members.items()
    ]
    if (benchmark := agentcompass_run.benchmark_id(data)) is not None:
        found.append(("/benchmark/id", {"of": "params-benchmark", "id": benchmark}))
    _facts(collector, scope, examined, found)


def metrics_facts(collector: Collector, scope: str, examined: Examined, data: dict[str, Any]) -> None:
    """The report itself (what the recomputed scores are compared with), and the metric contract it declares: each
    series' metric id and kind (when they agree). Only a report of k = 1 has a series of every metric of the
    contract (the native plan, ``AttemptStrategy._native_plan``); above, a metric without an avg or pass reducer has
    none, so the report's metrics are all of the contract only then."""
    found: list[tuple[str, dict[str, Any]]] = [("", {"of": "report", "report": data})]
    contract = _declared(data.get("series"))
    if contract:
        value = {"of": "contract", "metrics": contract, "complete": data.get("k") == 1 and is_int(data.get("k"))}
        found.append(("", value))
    _facts(collector, scope, examined, found)


def _declared(series: Any) -> dict[str, str] | None:
    contract: dict[str, str] = {}
    for item in series if isinstance(series, list) else []:
        if not isinstance(item, dict):
            return None
        metric, kind = item.get("metric_id"), item.get("kind")
        if not isinstance(metric, str) or kind not in ("binary_success", "scalar"):
            return None
        if contract.setdefault(metric.strip(), kind) != kind:
            return None
    return contract


def _value_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    return "number" if isinstance(value, (int, float)) else "other"


def task_facts(
    collector: Collector,
    scope: str,
    index: Examined,
    data: dict[str, Any],
    published: bool,
    results: dict[str, tuple[Examined, dict[str, Any] | None] | None],
) -> None:
    """One fact per task (its attempts' metrics in it, not one fact each): its id, the attempts that declare
    artifacts, and, once published, its plan and what kind of value each attempt metric holds."""
    task_id = data.get("task_id")
    if not isinstance(task_id, str):
        return
    declared, metrics = [], {}
    for key, found in results.items():
        payload = found[1] if found is not None else None
        if found is None or payload is None:
            continue
        artifacts = payload.get("artifacts")
        if isinstance(artifacts, dict) and "declared_artifacts" in artifacts:
            declared.append(key)
        observed = payload.get("metrics")
        if published and isinstance(observed, dict) and observed:
            kind = found[0].kind.name if found[0].kind is not None else None
            kinds = {name: _value_kind(value) for name, value in observed.items()}
            # the attempt folder's name: the fact's file (task.json) is the one name a Dask worker gives back
            metrics[key] = [os.path.basename(os.path.dirname(found[0].file or "")), kind, kinds]
    value: dict[str, Any] = {"of": "task", "task": task_id, "declared": declared, "metrics": metrics}
    plan = data.get("attempt_plan")
    if published and isinstance(plan, dict):
        value["plan"] = plan
    if published:  # what the scores are recomputed from (scores._tasks), so that no task is read twice
        payloads = {key: found[1] for key, found in results.items() if found is not None}
        value["score"] = task_value(data, payloads, data.get("schema_version") == TASK_V2)
    _facts(collector, scope, index, [("/attempt_plan" if "plan" in value else "", value)])


def agree(facts: list[Fact]) -> list[Issue]:
    """The rule over a run's facts: see the module's docstring."""
    runs: dict[str, list[tuple[Fact, dict[str, Any]]]] = {}
    for fact in facts:
        try:
            value = json.loads(fact.value)
        except ValueError:
            continue  # only an edited cache entry holds such a fact
        if isinstance(value, dict):
            runs.setdefault(fact.scope, []).append((fact, value))
    issues: list[Issue] = []
    for found in runs.values():
        issues.extend(_agree(found))
    return issues


def _issue(fact: Fact, code: str, message: str, pointer: str | None = None, anchored: bool = True) -> Issue:
    return Issue(
        file=fact.file, kind=fact.kind, pointer=fact.pointer if pointer is None else pointer,
        line=fact.line if anchored else None, column=fact.column if anchored else None, severity="error", code=code,
        message=message,
    )  # fmt: skip


def _agree(found: Iterable[tuple[Fact, dict[str, Any]]]) -> list[Issue]:
    by_role: dict[str, list[tuple[Fact, dict[str, Any]]]] = {}
    for fact, value in found:
        by_role.setdefault(str(value.get("of")), []).append((fact, value))
    issues: list[Issue] = []
    tasks = {value["task"]: value for _, value in by_role.get("task", [])}
    plans = [value for _, value in by_role.get("plan", [])]
    run_plan = {"k": plans[0]["k"], "strategy": plans[0]["strategy"]} if plans else None
    for fact, value in by_role.get("task", []):
        if run_plan is not None and "plan" in value and value["plan"] != run_plan:
            issues.append(
                _issue(
                    fact,
                    "layout.attempt-plan",
                    f"attempt_plan is {_plan(value['plan'])}, but the run's request.execution.attempts in "
                    f"run_info.json is {_plan(run_plan)}: AgentCompass 1.0.1's summary refuses the run (attempt_plan "
                    "does not match the report plan) and reuse refuses the task (Details attempt plan mismatch)",
                )
            )
    for fact, value in by_role.get("resolved", []):
        task = tasks.get(value.get("task"))
        if task is None:
            continue  # a plan for no task of the run: reuse never reads it
        if "attempt" in value:
            if value["attempt"] in task["declared"]:
                issues.append(
                    _issue(
                        fact,
                        "rule.reuse-refused",
                        f"{REUSE}: the resolved plan of attempt {quote(value['attempt'])} of task "
                        f"{quote(value['task'])} is not an object, and that attempt declares artifacts, whose limits "
                        "reuse reads from it",
                    )
                )
        elif not value.get("null"):
            issues.append(
                _issue(
                    fact,
                    "rule.reuse-refused",
                    f"{REUSE}: the resolved plan of task {quote(value['task'])} is not an object with an attempts "
                    "object (_materialize_reused_execution_plans raises on it)",
                )
            )
        elif task["declared"]:
            issues.append(
                _issue(
                    fact,
                    "rule.reuse-refused",
                    f"{REUSE}: the resolved plan of task {quote(value['task'])} is null, but its attempt(s) "
                    f"{', '.join(task['declared'])} declare artifacts, whose limits reuse reads from it",
                )
            )
    requests = [value for _, value in by_role.get("summarized", [])]
    for fact, value in by_role.get("params", []) if requests else ():  # without a v3 request, no summary at all
        finding = agentcompass_run.merged_params(value["section"], value["name"], value["value"], requests[0])
        if finding is not None:
            issues.append(_issue(fact, finding.code, finding.message))
    recorded = [value["id"] for _, value in by_role.get("params-benchmark", [])]
    for fact, value in by_role.get("benchmark", []) if recorded else ():
        if value["id"] != recorded[0]:
            message = agentcompass_run.benchmark_disagrees(value["id"], recorded[0])
            issues.append(
                Issue(
                    file=fact.file, kind=fact.kind, pointer=fact.pointer, line=fact.line, column=fact.column,
                    severity="warning", code="rule.writer-shape", message=message,
                )
            )  # fmt: skip
    contracts = [value for _, value in by_role.get("contract", [])]
    if contracts:
        issues.extend(_metrics(contracts[0]["metrics"], bool(contracts[0]["complete"]), by_role.get("task", [])))
    reports = by_role.get("report", [])
    if reports:
        issues.extend(_scores(*reports[0], by_role.get("task", []), run_plan))
    return issues


def _scores(
    fact: Fact, value: dict[str, Any], tasks: list[tuple[Fact, dict[str, Any]]], plan: dict[str, Any] | None
) -> list[Issue]:
    """metrics.json against the report its run's published tasks give (``scores``): an issue at each value that
    differs. A run whose tasks the summary refuses has none (the rules above say why it refuses)."""
    report = value.get("report")
    if not isinstance(report, dict) or not tasks or any(_running(each.file) for each, _ in tasks):
        # a run root checked without its task folders has nothing to recompute from; a run with a task in running/
        # is in progress (resumed), and its summary rewrites metrics.json at its end
        return []
    for name in ("k", "strategy"):
        if plan is None:
            break
        said = report.get(name)
        said = said.strip().lower() if isinstance(said, str) else said
        if said != plan[name] or type(said) is not type(plan[name]):
            message = (
                f"metrics.json's {name} is {json.dumps(report.get(name))}, but the run's attempt plan "
                f"(run_info.json's request.execution.attempts) is {_plan(plan)}: its tasks give a report of "
                f"{name} {json.dumps(plan[name])}"
            )
            return [_issue(fact, "layout.score-mismatch", message, "/" + name, anchored=False)]
    published = [(each.file, found["task"], found["score"]) for each, found in tasks if "score" in found]
    try:
        recomputed = recompute_run(published, report, plan)
    except Refused:
        return []
    return [
        _issue(fact, "layout.score-mismatch", each.message, each.pointer, anchored=False)
        for each in mismatches(report, recomputed)
    ]


def _metrics(contract: dict[str, str], complete: bool, tasks: list[tuple[Fact, dict[str, Any]]]) -> list[Issue]:
    identifier = re.compile(_METRIC_ID)
    issues = []
    for fact, task in tasks:
        folder = fact.file[: len(fact.file) - len("task.json")]  # with its separator, "/" or os.sep
        for name, file_kind, kinds in task.get("metrics", {}).values():
            file = folder + name + folder[-1:] + "result.json"
            issues.extend(_attempt_metrics(contract, complete, identifier, file, file_kind, kinds))
    return issues


def _attempt_metrics(
    contract: dict[str, str], complete: bool, identifier: re.Pattern[str], file: str, kind_of_file: str | None,
    kinds: dict[str, str],
) -> list[Issue]:  # fmt: skip
    """The metrics of one attempt's result.json against the contract: the issue is placed by pointer only (its
    line would cost a pass over a file that can be hundreds of MB)."""
    issues = []
    seen: set[str] = set()
    for name, kind in kinds.items():
        metric = name.strip()
        why = None
        if not identifier.fullmatch(metric):
            why = "is not a metric id (a letter, then letters, digits, '.', '_' or '-')"
        elif metric in seen:
            why = f"is {metric!r} again once stripped"
        elif metric not in contract:
            if complete:
                why = "is not a metric the run's metrics.json declares (a k = 1 report has a series of each)"
        elif contract[metric] == "binary_success" and kind != "boolean":
            why = f"is {kind_said(kind)}, but {metric!r} is binary_success and requires a JSON boolean"
        elif contract[metric] == "scalar" and kind != "number":
            why = f"is {kind_said(kind)}, but {metric!r} is scalar and requires a JSON number"
        seen.add(metric)
        if why is not None:
            issues.append(
                Issue(
                    file=file,
                    kind=kind_of_file,
                    pointer=join("/metrics", name),
                    line=None,
                    column=None,
                    severity="error",
                    code="layout.undeclared-metric",
                    message=f"{SUMMARY}: attempt metric {quote(name)} {why} (MetricContract.validate_observations)",
                )
            )
    return issues


def _running(file: str) -> bool:
    """Whether a task.json is in details/running/ (its file named with "/" or os.sep)."""
    parts = re.split(r"[/\\]", file)
    return len(parts) >= 4 and parts[-3] == "running" and parts[-4] == "details"


def kind_said(kind: str) -> str:
    return {"boolean": "a boolean", "number": "a number"}.get(kind, "neither a boolean nor a number")


def _plan(plan: Any) -> str:
    if isinstance(plan, dict):
        return "{" + ", ".join(f"{name}: {json.dumps(value)}" for name, value in plan.items()) + "}"
    return "not an object"
