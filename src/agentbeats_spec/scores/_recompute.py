"""A run's metric report recomputed from its published tasks with AgentCompass 1.0.1's semantics.

What ``runtime/metrics/report_aggregation.aggregate_metric_report`` does with a benchmark's contract, its k and its
strategy (``reducer.KReducer``, ``reducers``, ``strategies``), done again from the tasks alone: each task reduced into
each series (native, avg or pass over its attempts, its state evaluated, error, unavailable or invalidated), the
tasks' values averaged over the run (micro_weighted), over categories (category_mean) or up a category hierarchy,
and values moved to ``reference_value`` when a fatal issue invalidated a task (``select_value_role``). The result is
the ``model_dump(mode="json")`` of 1.0.1's ``MetricReport``: the metrics.json it would write, member for member.

Where 1.0.1 would refuse the tasks (a plan that differs, a metric outside the contract, an unknown status), the
recomputation raises :class:`Refused`: the rules of the run report those, and no score is compared.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

UNCATEGORIZED = "__uncategorized__"
STATUSES = frozenset(
    {"completed", "run_error", "eval_error", "run_error_or_eval_error", "skipped", "cancelled", "interrupted"}
)
_NOT_COMPLETED = frozenset({"cancelled", "interrupted", "skipped"})  # what pass never stops after
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
REDUCERS = ("native", "avg", "pass")
KINDS = ("binary_success", "scalar")
# How a hierarchy node combines its children, as 1.0.1 has them: metrics.json does not say which a node used.
UNWEIGHTED, BY_COUNT, WEIGHTED = "unweighted", "weighted_by_count", "weighted"


class Refused(Exception):
    """AgentCompass 1.0.1's summary refuses these tasks or this contract: the message says why."""


@attrs.frozen
class Attempt:
    """One attempt as the summary reads it: its status, its metrics object and the severities of its issues."""

    status: Any
    metrics: Any
    severities: tuple[str, ...]


@attrs.frozen
class TaskScore:
    """What the recomputation needs of one published task (retry-only attempts are not among ``attempts``)."""

    task_id: Any
    category: Any
    plan: Any
    attempts: Mapping[str, Attempt]


@attrs.frozen
class Series:
    """One series of the report: a metric reduced by one reducer, and what metrics.json shows of it."""

    metric: str
    kind: str
    reducer: str
    headline: bool
    display: Mapping[str, Any] | None


@attrs.frozen
class Contract:
    """The metrics a report is made of: each metric's kind, the primary one, the series, and whether the tasks may
    record metrics it does not name (a report above k = 1 does not list every metric of the benchmark)."""

    kinds: Mapping[str, str]
    primary: str
    series: tuple[Series, ...]
    complete: bool


@attrs.frozen
class Reduction:
    """One task reduced into one series (``reducer.TaskMetricReduction``)."""

    task: str
    category: str
    value: float | None
    state: str  # evaluated, error, unavailable, invalidated
    has_error: bool


@attrs.frozen
class Recomputation:
    """The report 1.0.1 would write (``report``) and each series' task reductions, in the report's order."""

    report: dict[str, Any]
    reductions: tuple[tuple[Reduction, ...], ...]


def standard_contract(tasks: Sequence[TaskScore], k: int, strategy: str) -> Contract:
    """The contract ``make_metric_contract`` builds from what the tasks record (booleans binary, numbers scalar,
    ``correct`` the primary metric when recorded, else ``score``), and the series 1.0.1's strategy selects."""
    kinds: dict[str, str] = {}
    for task in tasks:
        for attempt in task.attempts.values():
            for name, value in attempt.metrics.items() if isinstance(attempt.metrics, Mapping) else ():
                metric = name.strip() if isinstance(name, str) else name
                kind = "binary_success" if isinstance(value, bool) else "scalar"
                if not isinstance(value, (bool, int, float)):
                    raise Refused(f"attempt metric {metric!r} is neither a boolean nor a number")
                if kinds.setdefault(metric, kind) != kind:
                    raise Refused(f"metric {metric!r} is a boolean in one attempt and a number in another")
    primary = "correct" if "correct" in kinds else "score"
    if primary not in kinds:
        raise Refused("the tasks record neither 'correct' nor 'score', one of which is the primary metric")
    if kinds[primary] != ("binary_success" if primary == "correct" else "scalar"):
        raise Refused(f"the primary metric {primary!r} is of the wrong kind")
    if set(kinds) >= {"correct", "score"}:
        raise Refused("the tasks record both 'correct' and 'score': 'score' can only be a primary metric")
    binary = [name for name, kind in kinds.items() if kind == "binary_success"]
    ordered = [primary, *(name for name in binary if name != primary), *(n for n in kinds if n not in binary)]
    ordered = list(dict.fromkeys(ordered))
    series: list[Series] = []
    for name in ordered:
        display = {"label": name.replace("_", " ").title(), "description": None, "unit": None, "precision": None}
        if k == 1:
            reducers: tuple[str, ...] = ("native",)
        elif strategy == "pass":
            reducers = ("pass",) if name == primary else ()
        else:
            reducers = ("avg", "pass") if kinds[name] == "binary_success" else ("avg",)
        series.extend(Series(name, kinds[name], reducer, name == primary, display) for reducer in reducers)
    if strategy == "pass" and kinds[primary] != "binary_success":
        raise Refused(f"metric {primary!r} is scalar and does not support the pass strategy")
    return Contract({name: kinds[name] for name in ordered}, primary, tuple(series), k == 1)


def declared_contract(report: Mapping[str, Any]) -> Contract:
    """The contract a metrics.json declares: its series (metric, kind, reducer, role, display) in its order."""
    items = report.get("series")
    if not isinstance(items, list) or not items:
        raise Refused("metrics.json has no series")
    kinds: dict[str, str] = {}
    series: list[Series] = []
    for item in items:
        metric, kind, reducer = (item.get(name) if isinstance(item, dict) else None for name in REQUIRED)
        role = item.get("role") if isinstance(item, dict) else None
        if not isinstance(metric, str) or kind not in KINDS or reducer not in REDUCERS or role not in ROLES:
            raise Refused("a series of metrics.json has no metric_id, kind, reducer or role 1.0.1 knows")
        if kinds.setdefault(metric, kind) != kind:
            raise Refused(f"metrics.json gives metric {metric!r} two kinds")
        display = item.get("display")
        series.append(Series(metric, kind, reducer, role == "headline", display if isinstance(display, dict) else None))
    primaries = {each.metric for each in series if each.headline}
    if len(primaries) != 1:
        raise Refused("metrics.json does not have exactly one headline metric")
    k = report.get("k")
    return Contract(kinds, primaries.pop(), tuple(series), type(k) is int and k == 1)


REQUIRED = ("metric_id", "kind", "reducer")
ROLES = ("headline", "auxiliary")


def _category(value: Any) -> str:
    """``report_aggregation._category``: Python's text of the value, stripped, or the uncategorized name."""
    normalized = str(value).strip() if value is not None else ""
    return normalized or UNCATEGORIZED


def _observations(task: TaskScore, contract: Contract, k: int) -> dict[int, tuple[str, dict[str, Any], set[str]]]:
    """The task's attempts by number, each metrics object checked as ``MetricContract.validate_observations``."""
    identifier = _IDENTIFIER
    records: dict[int, tuple[str, dict[str, Any], set[str]]] = {}
    for key, attempt in task.attempts.items():
        if not key.isdigit() or str(int(key)) != key or not 1 <= int(key) <= k:
            raise Refused(f"task {task.task_id!r}: attempt {key!r} is not an attempt number from 1 to {k}")
        if attempt.status not in STATUSES:
            raise Refused(f"task {task.task_id!r}: attempt {key} has an unsupported status {attempt.status!r}")
        if not isinstance(attempt.metrics, Mapping):
            raise Refused(f"task {task.task_id!r}: attempt {key} has no metrics object")
        metrics: dict[str, Any] = {}
        for name, value in attempt.metrics.items():
            metric = name.strip()
            if not identifier.fullmatch(metric) or metric in metrics:
                raise Refused(f"task {task.task_id!r}: attempt {key} has the metric id {name!r} twice or malformed")
            kind = contract.kinds.get(metric)
            if kind is None:
                if contract.complete:
                    raise Refused(f"task {task.task_id!r}: metric {metric!r} is not declared by the report")
                continue  # a metric of the benchmark's contract that this report shows no series of
            if (kind == "binary_success") != isinstance(value, bool) or not isinstance(value, (int, float)):
                raise Refused(f"task {task.task_id!r}: metric {metric!r} is not a {kind} value")
            metrics[metric] = value if isinstance(value, bool) else float(value)
        records[int(key)] = (attempt.status, metrics, set(attempt.severities))
    return records


def reduce_task(task: TaskScore, contract: Contract, k: int, strategy: str) -> list[Reduction]:
    """One task reduced into each series of the contract (``KReducer._reduce_task_with_plans``)."""
    task_id = task.task_id
    if not isinstance(task_id, str) or not task_id.strip() or task_id != task_id.strip():
        raise Refused("a task_id is not a non-empty text without surrounding white space")
    plan = task.plan
    if not isinstance(plan, Mapping) or set(plan) != {"k", "strategy"} or type(plan.get("k")) is not int:
        raise Refused(f"task {task_id!r}: attempt_plan is not the report plan")
    if {"k": plan["k"], "strategy": plan.get("strategy")} != {"k": k, "strategy": strategy}:
        raise Refused(f"task {task_id!r}: attempt_plan does not match the report plan")
    records = _observations(task, contract, k)
    invalidated = any("fatal" in severities for _, _, severities in records.values())
    errors = sum(1 for _, _, severities in records.values() if severities & {"fatal", "error"})
    stopped = False
    if strategy == "pass" and records and set(records) == set(range(1, max(records) + 1)):
        status, metrics, _ = records[max(records)]
        primary_kind = contract.kinds[contract.primary]
        stopped = (
            status not in _NOT_COMPLETED and primary_kind == "binary_success" and metrics.get(contract.primary) is True
        )
    category = _category(task.category)
    return [
        _reduce_one(task_id, category, series, records, k, invalidated, errors, stopped) for series in contract.series
    ]


def _reduce_one(
    task_id: str, category: str, series: Series, records: Mapping[int, tuple[str, dict[str, Any], set[str]]], k: int,
    invalidated: bool, errors: int, stopped: bool,
) -> Reduction:  # fmt: skip
    """``KReducer._metric_observations`` and ``_reduce_one`` for one series."""
    values = [records[number][1][series.metric] for number in sorted(records) if series.metric in records[number][1]]
    missing = 0 if stopped and not invalidated else k - len(records)
    value: float | None
    if series.reducer == "native":
        value = float(values[0]) if len(values) == 1 else None
    elif series.reducer == "avg":
        value = math.fsum(float(each) / k for each in values) if len(values) == k else None
    else:
        value = 1.0 if any(each is True for each in values) else (0.0 if len(values) == k else None)
    if invalidated:
        state, value = "invalidated", None
    elif value is not None:
        state = "evaluated"
    elif missing or errors:
        state = "error"
    else:
        state = "unavailable"
    has_error = state in ("error", "invalidated") or errors > 0 or missing > 0
    return Reduction(task_id, category, value, state, has_error)


def mean(values: Iterable[float]) -> float | None:
    """``report_aggregation._mean``: each value divided by the count, summed exactly."""
    items = tuple(values)
    return math.fsum(item / len(items) for item in items) if items else None


def counts(reductions: Iterable[Reduction]) -> dict[str, int]:
    items = tuple(reductions)
    return {
        "total": len(items),
        "evaluated": sum(item.state == "evaluated" for item in items),
        "error": sum(item.has_error for item in items),
        "unavailable": sum(item.state in ("error", "unavailable") for item in items),
        "invalidated": sum(item.state == "invalidated" for item in items),
    }


def breakdown(value: float | None, counted: dict[str, int], weight: float) -> dict[str, Any]:
    return {"value": value, "reference_value": None, "counts": counted, "aggregation_weight": weight}


def categories(reductions: Sequence[Reduction]) -> dict[str, dict[str, Any]]:
    """``report_aggregation._category_breakdowns``: each category's mean, counts and evaluated tasks."""
    grouped: dict[str, list[Reduction]] = {}
    for item in reductions:
        grouped.setdefault(item.category, []).append(item)
    found = {}
    for name in sorted(grouped):
        items = grouped[name]
        evaluated = [item.value for item in items if item.state == "evaluated" and item.value is not None]
        found[name] = breakdown(mean(evaluated), counts(items), float(len(evaluated)))
    return found
