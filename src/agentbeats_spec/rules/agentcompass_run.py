"""AgentCompass run-level files: run_info.json, params.json, metrics.json, analysis_summary.json, progress files.

Severity follows consequence. An error is what an AgentCompass 1.0.1 reader refuses or misreads: resume
(``store._require_current_run_info``), reuse (``RunStore._validate_reuse_source``, ``_normalized_attempt_plan``,
``materialize_reused_details``), summary and analysis (``launcher._summary_request_from_run_dir``,
``launcher._load_run_info``), the metric report model (``MetricReport.model_validate``). A departure from what the
1.0.1 writer writes that every reader tolerates is a warning saying which reader tolerates it and how: the writer's
shape is ``$defs/written`` of each file's schema, which the check validates beside the schema itself
(``checking/_examine.py``), asking the ``tolerated_in_*`` function of the file's kind what to say of a departure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from .._issues import Anchor, Finding
from .._text import closest, quote
from ..reading._pointers import join
from ._common import is_int
from .agentcompass import KNOWN_STRATEGIES

REDUCERS = ("native", "avg", "pass")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
REUSE = "AgentCompass 1.0.1 cannot reuse this run"
SUMMARY = "AgentCompass 1.0.1 cannot summarize this run"
MODEL = "AgentCompass 1.0.1's MetricReport refuses this report"
# Said after each schema error of a run-level file: what the readers of that file will not do with it.
REFUSED = {
    "run_info": "AgentCompass 1.0.1 cannot resume, reuse, summarize or analyze this run",
    "params": "AgentCompass 1.0.1 cannot summarize this run",
    "metrics": MODEL,
    "browsed": "the file holds none of the data the AgentCompass 1.0.1 writer writes in it",
    "events": "the line holds none of the data of a progress event",
}


def _unknown_members(data: dict[str, Any], known: tuple[str, ...], where: str, how: str) -> Iterator[Finding]:
    """Members the writer never writes: every reader ignores them, so a near miss too is only a warning."""
    for name in data:
        if name in known:
            continue
        match = closest(name, [each for each in known if each not in data])
        hint = f"; did you mean {match!r}?" if match is not None else ""
        yield Finding(
            join("", name),
            "rule.unknown-key",
            f"unknown member {quote(name)} in {where}{hint} ({how})",
            severity="warning",
            anchor=Anchor.KEY,
        )


# ---------------------------------------------------------------------------------------------------- run_info.json

RUN_INFO_MEMBERS = (
    "schema_version", "run_id", "started_at", "request", "reused_from", "resolved_execution_plans", "status",
    "finished_at", "error", "metric_artifacts",
)  # fmt: skip
_RUN_INFO_TOLERATED = {
    "/started_at": "the latest-run search (RunStore._run_info_sort_key) reads a started_at it cannot parse as the "
    "oldest run, and every other reader ignores it",
    "/status": "the result browser reads a status that is not text as empty, and no other reader reads it",
}
_RUN_INFO_DEFAULT = "no AgentCompass 1.0.1 reader reads this member back"


def tolerated_in_run_info(pointer: str) -> str:
    return next((note for at, note in _RUN_INFO_TOLERATED.items() if _under(pointer, at)), _RUN_INFO_DEFAULT)


def _under(pointer: str, at: str) -> bool:
    return pointer == at or pointer.startswith(at + "/")


def run_info(data: Any) -> Iterator[Finding]:
    if not isinstance(data, dict):
        return
    version = data.get("schema_version")
    if version == "agentcompass.run_info.v2":
        yield Finding(
            "/schema_version",
            "legacy.run-info-v2",
            "written by an older AgentCompass (agentcompass.run_info.v2): AgentCompass 1.0.1 resumes and reuses the "
            "run, but refuses to summarize or analyze it (both require agentcompass.run_info.v3)",
            severity="warning",
        )
    elif version == "agentcompass.run_info.v3":
        yield from _unknown_members(
            data, RUN_INFO_MEMBERS, "run_info.json", "every AgentCompass 1.0.1 reader ignores it"
        )
    else:
        return
    request = data.get("request")
    if isinstance(request, dict):
        yield from _request(request)
        if version == "agentcompass.run_info.v3":
            yield from _analysis_request(request)
    if "resolved_execution_plans" in data:
        yield from _resolved_plans(data["resolved_execution_plans"])


def _request(request: dict[str, Any]) -> Iterator[Finding]:
    """What reuse (``_validate_reuse_source``) and analysis (``launcher._load_run_info``) read of the request."""
    benchmark = request.get("benchmark")
    if benchmark and not isinstance(benchmark, dict):
        yield Finding(
            "/request/benchmark",
            "rule.reuse-refused",
            f"{REUSE}: request.benchmark is {_what(benchmark)}, but reuse reads the benchmark id from an object "
            '{"id": ...}',
        )
    elif isinstance(benchmark, dict):
        identifier = benchmark.get("id")
        if not isinstance(identifier, str) or not identifier or identifier != identifier.strip():
            yield Finding(
                "/request/benchmark/id",
                "rule.reuse-refused",
                f"{REUSE}: request.benchmark.id is {_found(benchmark, 'id')}; reuse requires the benchmark id, text "
                "without surrounding white space, equal to the one requested",
                anchor=_anchor(benchmark, "id"),
            )
    else:
        yield Finding(
            "/request/benchmark",
            "rule.reuse-refused",
            f"{REUSE}: request.benchmark is {_found(request, 'benchmark')}; reuse requires the benchmark id, and "
            "analysis refuses a request without a benchmark",
            anchor=_anchor(request, "benchmark"),
        )
    execution = request.get("execution")
    if execution and not isinstance(execution, dict):
        yield Finding(
            "/request/execution",
            "rule.reuse-refused",
            f"{REUSE}: request.execution is {_what(execution)}; reuse reads execution.attempts from an object",
        )
        return
    if not isinstance(execution, dict):
        yield Finding(
            "/request/execution",
            "rule.reuse-refused",
            f"{REUSE}: request.execution is {_found(request, 'execution')}; reuse reads the attempt plan "
            "execution.attempts {k, strategy} from run_info.json only (params.json does not count)",
            anchor=_anchor(request, "execution"),
        )
        return
    yield from _summary_execution(execution)
    attempts = execution.get("attempts")
    if not isinstance(attempts, dict):
        yield Finding(
            "/request/execution/attempts",
            "rule.reuse-refused",
            f"{REUSE}: request.execution.attempts is {_found(execution, 'attempts')}; reuse reads the attempt plan "
            "{k, strategy} from run_info.json only (params.json does not count)",
            anchor=_anchor(execution, "attempts"),
        )
        return
    yield from attempt_plan(attempts, "/request/execution/attempts")


# The members of request.execution that RunRequest.from_params takes (ExecutionSpec.validate_fields refuses any
# other): the fields of ExecutionSpec in 1.0.1.
EXECUTION_MEMBERS = (
    "task_concurrency", "attempts", "enabled_recipes", "keep_environment", "enable_analysis", "analysis_params",
    "max_retries", "retry_pattern_list", "retry_min_delay_seconds", "retry_max_delay_seconds", "run_timeout_seconds",
    "run_timer_compensation_seconds", "evaluation_timeout_seconds", "timeout_multiplier", "run_timeout_multiplier",
    "evaluation_timeout_multiplier", "runresult_collect_timeout_seconds", "artifact_collect_timeout_seconds",
    "artifact_limits", "save_artifacts", "artifacts", "artifact_collect",
)  # fmt: skip
ANALYSIS = "AgentCompass 1.0.1 cannot analyze this run"


def _analysis_request(request: dict[str, Any]) -> Iterator[Finding]:
    """What ``RunRequest.from_params``, which analysis (``launcher.analyze``) runs on the request, refuses of the
    model and the execution settings: ``ModelSpec`` requires an id (``str(id or "").strip()``), and
    ``ExecutionSpec.validate_fields`` refuses a member it does not know."""
    model = request.get("model")
    if model and not isinstance(model, dict):
        yield Finding("/request/model", "rule.analysis-refused", f"{ANALYSIS}: request.model is {_what(model)}")
    elif not str((model or {}).get("id") or "").strip():
        where = "/request/model/id" if isinstance(model, dict) else "/request/model"
        found = _found(model, "id") if isinstance(model, dict) else "missing"
        yield Finding(
            where,
            "rule.analysis-refused",
            f"{ANALYSIS}: request.model.id is {found}; analysis rebuilds the request, which requires a model id",
            anchor=Anchor.VALUE if isinstance(model, dict) and "id" in model else Anchor.PARENT,
        )
    execution = request.get("execution")
    execution = execution if isinstance(execution, dict) else {}
    for name in execution:
        if name not in EXECUTION_MEMBERS:
            match = closest(name, [each for each in EXECUTION_MEMBERS if each not in execution])
            hint = f"; did you mean {match!r}?" if match is not None else ""
            yield Finding(
                join("/request/execution", name),
                "rule.analysis-refused",
                f"{ANALYSIS}: request.execution holds {quote(name)}, which ExecutionSpec does not know{hint}",
                anchor=Anchor.KEY,
            )


def artifact_limits(limits: Any, pointer: str) -> Iterator[Finding]:
    """``ArtifactLimits.from_value``, which ExecutionSpec runs on the summary's and analysis' merged settings."""
    if limits is None:
        return
    why = None
    if not isinstance(limits, dict):
        why = f"is {_what(limits)}; expected an object"
    elif unknown := [name for name in limits if name not in ("max_mb", "max_files", "timeout_seconds")]:
        why = f"holds {quote(unknown[0])}; it holds only max_mb, max_files and timeout_seconds"
    else:
        size, files = limits.get("max_mb", 1), limits.get("max_files", 1)
        bytes_ = size * 1024**2 if isinstance(size, (int, float)) and not isinstance(size, bool) else None
        if bytes_ is None or not math.isfinite(bytes_) or bytes_ < 1:
            why = f"max_mb is {_what(size)}; expected a finite number of at least 1/1048576"
        elif not is_int(files) or files < 1:
            why = f"max_files is {_what(files)}; expected an integer of at least 1"
        elif not _positive_number(limits.get("timeout_seconds", 1)):
            why = f"timeout_seconds is {_what(limits['timeout_seconds'])}; expected a finite positive number"
    if why is not None:
        yield Finding(pointer, "rule.summary-refused", f"{SUMMARY} (nor analyze it): execution.artifact_limits {why}")


# The execution settings the summary passes to ExecutionSpec (launcher._summary_request_from_run_dir), and whether
# null is allowed: optional_timeout takes a finite positive number (or null where the setting is optional).
_TIMEOUTS = {
    "run_timeout_seconds": True, "run_timer_compensation_seconds": False, "evaluation_timeout_seconds": True,
    "timeout_multiplier": False, "run_timeout_multiplier": True, "evaluation_timeout_multiplier": True,
    "runresult_collect_timeout_seconds": False, "artifact_collect_timeout_seconds": True,
}  # fmt: skip


def _summary_execution(execution: dict[str, Any]) -> Iterator[Finding]:
    """What ``ExecutionSpec`` refuses of the settings the summary reads from request.execution."""
    for name, nullable in _TIMEOUTS.items():
        if name not in execution:
            continue
        value = execution[name]
        if value is None and nullable:
            continue
        if not _positive_number(value):
            yield Finding(
                join("/request/execution", name),
                "rule.summary-refused",
                f"{SUMMARY}: execution.{name} is {_what(value)}; expected a finite positive number"
                + (" or null" if nullable else ""),
            )
    if "task_concurrency" in execution and not _integral(execution["task_concurrency"]):
        yield Finding(
            "/request/execution/task_concurrency",
            "rule.summary-refused",
            f"{SUMMARY}: execution.task_concurrency is {_what(execution['task_concurrency'])}; expected an integer",
        )
    yield from artifact_limits(execution.get("artifact_limits"), "/request/execution/artifact_limits")
    if execution.get("save_artifacts") is not None and not isinstance(execution["save_artifacts"], bool):
        yield Finding(
            "/request/execution/save_artifacts",
            "rule.summary-refused",
            f"{SUMMARY}: execution.save_artifacts is {_what(execution['save_artifacts'])}; expected true, false or "
            "null",
        )


def _positive_number(value: Any) -> bool:
    """What ``optional_timeout`` takes: not a boolean, ``float()`` of it finite and positive."""
    if isinstance(value, bool):
        return False
    try:
        number = float(value)
    except (TypeError, ValueError):
        return False
    return math.isfinite(number) and number > 0


def _integral(value: Any) -> bool:
    """What ``int()`` takes, as ``ExecutionSpec`` reads task_concurrency."""
    try:
        int(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def _found(parent: dict[str, Any], name: str) -> str:
    return _what(parent[name]) if name in parent else "missing"


def _anchor(parent: dict[str, Any], name: str) -> Anchor:
    return Anchor.VALUE if name in parent else Anchor.PARENT


def attempt_plan(plan: dict[str, Any], pointer: str) -> Iterator[Finding]:
    """``RunStore._normalized_attempt_plan``: exactly k (an integer >= 1) and a known strategy."""
    for name in plan:
        if name not in ("k", "strategy"):
            yield Finding(
                join(pointer, name),
                "rule.reuse-refused",
                f"{REUSE}: execution.attempts holds {quote(name)}; it holds only k and strategy",
                anchor=Anchor.KEY,
            )
    k = plan.get("k")
    if not is_int(k) or k < 1:
        yield Finding(
            join(pointer, "k"),
            "rule.reuse-refused",
            f"{REUSE}: execution.attempts.k is {_found(plan, 'k')}; expected an integer of at least 1",
            anchor=_anchor(plan, "k"),
        )
    strategy = plan.get("strategy")
    if not isinstance(strategy, str) or strategy.strip().lower() not in KNOWN_STRATEGIES:
        yield Finding(
            join(pointer, "strategy"),
            "rule.reuse-refused",
            f"{REUSE}: execution.attempts.strategy is {_found(plan, 'strategy')}; AgentCompass 1.0.1 knows "
            f"{' and '.join(KNOWN_STRATEGIES)} (a strategy a plugin registers is read only where that plugin is "
            "loaded)",
            anchor=_anchor(plan, "strategy"),
        )
    elif strategy not in KNOWN_STRATEGIES:
        yield Finding(
            join(pointer, "strategy"),
            "rule.writer-shape",
            f"strategy {quote(strategy)} is read as {strategy.strip().lower()!r}, which the AgentCompass 1.0.1 "
            "writer writes; reuse and summary strip and lower-case it",
            severity="warning",
        )


def _resolved_plans(plans: Any) -> Iterator[Finding]:
    """``materialize_reused_details`` reads the source run's per-task plans as an object by task id. Whether an
    entry is read at all depends on the run's tasks (reuse looks up only a task it reuses, and needs an object
    only where that task declares artifacts): the run's layout says so (``layouts._run_facts``); the writer's
    shape warns of any other entry."""
    if not isinstance(plans, dict):
        yield Finding(
            "/resolved_execution_plans",
            "rule.reuse-refused",
            f"{REUSE}: resolved_execution_plans is {_what(plans)}; reuse reads it as an object by task id",
        )


def _what(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    return "an array" if isinstance(value, list) else "an object"


# ------------------------------------------------------------------------------------------------------ params.json

_PARAMS_DEFAULT = (
    "the summary (launcher._summary_request_from_run_dir), the one reader of params.json, reads a section that is "
    'not an object as {"id": <its text>} and ignores what it does not use'
)


def tolerated_in_params(pointer: str) -> str:
    return _PARAMS_DEFAULT


def params(data: Any) -> Iterator[Finding]:
    execution = data.get("execution") if isinstance(data, dict) else None
    if isinstance(execution, dict):
        # merged under request.execution of run_info.json, which overrides it member by member (deep_merge)
        yield from artifact_limits(execution.get("artifact_limits"), "/execution/artifact_limits")
    attempts = execution.get("attempts") if isinstance(execution, dict) else None
    if not isinstance(attempts, dict):
        return
    # The summary merges request.execution of run_info.json over these: an extra key stays, k and strategy are
    # overridden by the request's own (which reuse requires).
    for name in attempts:
        if name not in ("k", "strategy"):
            yield Finding(
                join("/execution/attempts", name),
                "rule.summary-refused",
                f"{SUMMARY}: execution.attempts holds {quote(name)}, which the summary merges into the request's "
                "plan; it holds only k and strategy",
                anchor=Anchor.KEY,
            )
    k, strategy = attempts.get("k"), attempts.get("strategy")
    departs = {"k": "k" in attempts and (not is_int(k) or k < 1), "strategy": "strategy" in attempts and (
        strategy not in KNOWN_STRATEGIES)}  # fmt: skip
    for at in (name for name, bad in departs.items() if bad):
        yield Finding(
            join("/execution/attempts", at),
            "rule.writer-shape",
            f"{at} is {_what(attempts[at])}, unlike what the AgentCompass 1.0.1 writer writes (the request's plan); "
            "the summary reads request.execution.attempts of run_info.json over it",
            severity="warning",
        )


# ----------------------------------------------------------------------------------------------------- metrics.json

_DEFAULTS = (
    "MetricReport.model_validate gives a missing member its default (0 for counts.invalidated, null for "
    "reference_value, aggregation_weight, display and its description, unit and precision, false for "
    "evaluation_failed, empty for categories, hierarchy and extra) and strips an "
    "aggregation"
)


def tolerated_in_metrics(pointer: str) -> str:
    if pointer == "/evaluation_failed":
        return (
            "MetricReport.model_validate reads 0, 1 and the text true, yes, on, t, y or 1 as booleans (pydantic's lax "
            "bool), and the result browser reads it as true or false alike"
        )
    if "/display/" in pointer and pointer.rsplit("/", 1)[-1] in ("label", "description", "unit"):
        return "MetricReport.model_validate strips display text and reads a missing one as null (MetricDisplay)"
    return _DEFAULTS


# What pydantic's lax bool reads as true or false (case-insensitive), as MetricReport.evaluation_failed does.
_LAX_BOOL = {
    **dict.fromkeys(("1", "on", "t", "true", "y", "yes"), True),
    **dict.fromkeys(("0", "off", "f", "false", "n", "no"), False),
}
_COUNTS = ("total", "evaluated", "error", "unavailable", "invalidated")
_CANONICAL = {"correct": "binary_success", "score": "scalar"}
_AGGREGATIONS = ("micro_weighted", "category_mean", "category_hierarchy")
_ROLES = ("headline", "auxiliary")
_KINDS = ("binary_success", "scalar")
Counts = tuple[int, int, int, int, int]


def _lax_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        return _LAX_BOOL.get(value.lower())
    return None


def _counts_of(counts: Any) -> Counts | None:
    """A ``SeriesCounts`` as the model reads it (invalidated defaults to 0), or None where it refuses its fields."""
    if not isinstance(counts, dict):
        return None
    values: list[int] = []
    for name in _COUNTS:
        value = counts.get(name, 0 if name == "invalidated" else None)
        if not is_int(value) or value < 0:
            return None
        values.append(value)
    return (values[0], values[1], values[2], values[3], values[4])


def _number(value: Any) -> float | bool | None:
    """``_finite_optional_number``: the float, None for null, False where it refuses the value."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        number = float(value)
    except OverflowError:
        return False
    return number if math.isfinite(number) else False


def _breakdown_of(part: Any) -> tuple[Any, ...] | None:
    """A ``MetricBreakdown`` as the model compares two of them, or None where it refuses its fields."""
    if not isinstance(part, dict) or "value" not in part:
        return None
    numbers = [_number(part.get(name)) for name in ("value", "reference_value", "aggregation_weight")]
    counts = _counts_of(part.get("counts"))
    if counts is None or any(number is False for number in numbers):
        return None
    return (*numbers, counts)


_ZERO = (None, None, 0.0, (0, 0, 0, 0, 0))  # the breakdown of a hierarchy leaf without a category


def _mapping(item: dict[str, Any], name: str) -> dict[str, Any] | None:
    """categories or hierarchy of a series ({} when missing), None where the model refuses it."""
    value = item.get(name, {})
    return value if isinstance(value, dict) else None


def metrics(data: Any) -> Iterator[Finding]:
    """metrics.json: what ``MetricReport.model_validate`` checks beyond the shape of each member."""
    if not isinstance(data, dict):
        return
    strategy = data.get("strategy")
    known_strategy = None
    if isinstance(strategy, str):
        found = list(_identifier(strategy, "/strategy", KNOWN_STRATEGIES, "rule.unknown-strategy", "strategy"))
        yield from found
        if not any(finding.severity == "error" for finding in found):
            known_strategy = strategy.strip().lower()
    raw_failed = data.get("evaluation_failed", False)
    failed = _lax_bool(raw_failed)
    if failed is None and isinstance(raw_failed, (int, float, str)) and not isinstance(raw_failed, bool):
        yield Finding(
            "/evaluation_failed",
            "rule.metric-report",
            f"{MODEL}: evaluation_failed is {_what(raw_failed)}; expected true or false",
        )
    elif failed is False and isinstance(raw_failed, str):
        yield Finding(
            "/evaluation_failed",
            "rule.evaluation-failed",
            f"evaluation_failed is {_what(raw_failed)}, which MetricReport reads as false but the AgentCompass 1.0.1 "
            "result browser shows as a failed evaluation (it reads any non-empty text as true); expected false",
        )
    series = data.get("series")
    if not isinstance(series, list):
        return
    k = data.get("k")
    aggregation = data.get("aggregation")
    first = series[0] if series and isinstance(series[0], dict) else None
    first_counts = _counts_of(first.get("counts")) if first is not None else None
    if failed is not None and first_counts is not None and failed != (first_counts[4] > 0):
        failed = first_counts[4] > 0  # the flag is at fault: the values are judged by what it should say
        yield Finding(
            "/evaluation_failed" if "evaluation_failed" in data else "/series/0/counts/invalidated",
            "rule.evaluation-failed",
            f"{MODEL}: evaluation_failed is {str(not failed).lower()}, but the first series counts {first_counts[4]} "
            "invalidated task(s); evaluation_failed is true exactly when a fatal issue invalidated a task",
        )
    headlines: dict[str, int] = {}
    roles: dict[str, tuple[str, int]] = {}
    seen: dict[str, int] = {}
    planned: list[tuple[str, str, str, bool]] | None = []  # (metric_id, kind, reducer, headline) of each series
    for position, item in enumerate(series):
        if not isinstance(item, dict):
            planned = None
            continue
        pointer = join("/series", position)
        metric, series_k, kind, role = item.get("metric_id"), item.get("k"), item.get("kind"), item.get("role")
        reducer = item.get("reducer")
        known = None
        if isinstance(reducer, str):
            found = list(_identifier(reducer, join(pointer, "reducer"), REDUCERS, "rule.unknown-reducer", "reducer"))
            yield from found
            if not any(finding.severity == "error" for finding in found):
                known = reducer.strip().lower()
        if isinstance(metric, str) and known is not None and is_int(series_k):
            expected = f"{metric}.{known}@{series_k}"
            if item.get("series_id") != expected:
                yield Finding(
                    join(pointer, "series_id"),
                    "rule.series-id",
                    f"{MODEL}: series_id is {quote(str(item.get('series_id')))}; a series is named "
                    f"<metric_id>.<reducer>@<k>: expected {expected!r}",
                )
        if known is not None and is_int(series_k):
            yield from _reducer_fits(known, series_k, kind, pointer)
        series_aggregation = item.get("aggregation")
        if isinstance(series_aggregation, str) and not _IDENTIFIER.fullmatch(series_aggregation.strip()):
            yield Finding(
                join(pointer, "aggregation"),
                "rule.metric-report",
                f"{MODEL}: aggregation {quote(series_aggregation)} is not an identifier (a letter, then letters, "
                "digits, '.', '_' or '-')",
            )
        series_id = item.get("series_id")
        if isinstance(series_id, str):
            if series_id in seen:
                yield Finding(
                    join(pointer, "series_id"),
                    "rule.series-id",
                    f"{MODEL}: series {quote(series_id)} also appears at /series/{seen[series_id]}",
                )
            seen.setdefault(series_id, position)
        if is_int(k) and is_int(series_k) and series_k != k:
            yield Finding(
                join(pointer, "k"), "rule.series-k", f"{MODEL}: the series has k = {series_k}, the report k = {k}"
            )
        if isinstance(metric, str) and role in _ROLES:
            earlier = roles.setdefault(metric, (role, position))
            if earlier[0] != role:
                yield Finding(
                    join(pointer, "role"),
                    "rule.metric-report",
                    f"{MODEL}: metric {quote(metric)} is {role} here but {earlier[0]} at /series/{earlier[1]}; all "
                    "series of a metric have one role",
                )
            if role == "headline":
                headlines.setdefault(metric, position)
        if planned is not None and isinstance(metric, str) and kind in _KINDS and known and role in _ROLES:
            planned.append((metric, kind, known, role == "headline"))
        else:
            planned = None
        yield from _series_counts(item.get("counts"), join(pointer, "counts"))
        for group in ("categories", "hierarchy"):
            parts = item.get(group)
            if isinstance(parts, dict):
                for name, part in parts.items():
                    if isinstance(part, dict):
                        yield from _series_counts(part.get("counts"), join(pointer, group, name, "counts"))
        yield from _category_sums(item, pointer)
        yield from _hierarchy(item, pointer)
        if aggregation in _AGGREGATIONS:
            hierarchy = _mapping(item, "hierarchy")
            if hierarchy is not None and (aggregation == "category_hierarchy") != bool(hierarchy):
                yield Finding(
                    join(pointer, "hierarchy"),
                    "rule.metric-report",
                    f"{MODEL}: "
                    + ("a category_hierarchy report has a hierarchy breakdown in every series; this one has none"
                       if hierarchy == {} else
                       f"a hierarchy breakdown belongs only in a category_hierarchy report, not a {aggregation} one"),
                    anchor=Anchor.VALUE if "hierarchy" in item else Anchor.PARENT,
                )  # fmt: skip
        if first is not None and position > 0:
            yield from _like_the_first(item, first, pointer)
        if failed is not None:
            yield from _values(item, pointer, failed)
    if len(headlines) != 1:
        found_ = ", ".join(sorted(headlines)) or "none"
        yield Finding(
            "/series", "rule.headline", f"{MODEL}: a metric report has exactly one headline metric; found {found_}"
        )
    elif planned is not None and len(planned) == len(series):
        yield from _primary(planned)
        if known_strategy is not None and is_int(k):
            yield from _strategy_holds(known_strategy, k, planned)


def _like_the_first(item: dict[str, Any], first: dict[str, Any], pointer: str) -> Iterator[Finding]:
    """Every series covers the tasks of the first: its category keys, hierarchy paths, total and invalidated."""
    counts, expected = _counts_of(item.get("counts")), _counts_of(first.get("counts"))
    if counts is not None and expected is not None:
        for index, name in ((4, "invalidated"), (0, "total")):
            if counts[index] != expected[index]:
                yield Finding(
                    join(pointer, "counts", name),
                    "rule.metric-report",
                    f"{MODEL}: counts.{name} is {counts[index]}, but {expected[index]} in /series/0; every series "
                    "counts the same " + ("invalidated tasks" if name == "invalidated" else "candidate tasks"),
                    anchor=Anchor.VALUE if name in (item.get("counts") or {}) else Anchor.PARENT,
                )
    for group in ("categories", "hierarchy"):
        parts, others = _mapping(item, group), _mapping(first, group)
        if parts is None or others is None:
            continue
        what = "category" if group == "categories" else "hierarchy path"
        for name in parts:
            if name not in others:
                yield Finding(
                    join(pointer, group, name),
                    "rule.metric-report",
                    f"{MODEL}: {what} {quote(name)} is not in /series/0; every series has the same {group} keys",
                    anchor=Anchor.KEY,
                )
                continue
            own, theirs = _breakdown_of(parts[name]), _breakdown_of(others[name])
            if own is None or theirs is None:
                continue
            for index, field in ((0, "total"), (4, "invalidated")):
                if own[3][index] != theirs[3][index]:
                    yield Finding(
                        join(pointer, group, name, "counts", field),
                        "rule.metric-report",
                        f"{MODEL}: counts.{field} of {what} {quote(name)} is {own[3][index]}, but {theirs[3][index]} "
                        "in /series/0; corresponding breakdowns count the same tasks",
                    )
        missing = [name for name in others if name not in parts]
        if missing:
            yield Finding(
                join(pointer, group),
                "rule.metric-report",
                f"{MODEL}: {what} {', '.join(quote(name) for name in missing)} of /series/0 missing; every series has "
                f"the same {group} keys",
                anchor=Anchor.VALUE if group in item else Anchor.PARENT,
            )


def _category_sums(item: dict[str, Any], pointer: str) -> Iterator[Finding]:
    """The categories partition the series' tasks: each count is the sum of the categories' counts."""
    categories, counts = _mapping(item, "categories"), _counts_of(item.get("counts"))
    if categories is None or counts is None:
        return
    parts = [_counts_of(part.get("counts")) if isinstance(part, dict) else None for part in categories.values()]
    if any(part is None for part in parts):
        return
    for index, name in enumerate(_COUNTS):
        total = sum(part[index] for part in parts if part is not None)
        if total != counts[index]:
            yield Finding(
                join(pointer, "counts", name),
                "rule.metric-report",
                f"{MODEL}: counts.{name} is {counts[index]}, but the categories' counts.{name} sum to {total}; the "
                "categories partition the series' tasks",
                anchor=Anchor.VALUE if name in (item.get("counts") or {}) else Anchor.PARENT,
            )


def _segment(segment: str) -> str | None:
    """``_decode_hierarchy_segment``: the name a canonical path segment escapes (~0, ~1), None if not canonical."""
    if re.search(r"~(?![01])", segment):
        return None
    return segment.replace("~1", "/").replace("~0", "~")


def _hierarchy(item: dict[str, Any], pointer: str) -> Iterator[Finding]:
    """``overall`` and paths below it; a parent counts what its children count; a leaf is its category's copy."""
    hierarchy, categories = _mapping(item, "hierarchy"), _mapping(item, "categories")
    if not hierarchy:
        return
    at = join(pointer, "hierarchy")
    if "overall" not in hierarchy:
        yield Finding(at, "rule.metric-report", f"{MODEL}: a hierarchy breakdown has an 'overall' root; none found")
        return
    children: dict[str, list[str]] = {}
    leaves = set(hierarchy)
    for path in hierarchy:
        segments = path.split("/")
        if segments[0] != "overall" or "" in segments or any(_segment(each) is None for each in segments):
            yield Finding(
                join(at, path),
                "rule.metric-report",
                f"{MODEL}: hierarchy path {quote(path)} is not 'overall' followed by '/'-separated non-empty names "
                "escaped as JSON Pointer segments (~0 for '~', ~1 for '/')",
                anchor=Anchor.KEY,
            )
            return
        if path == "overall":
            continue
        parent = path.rsplit("/", 1)[0]
        if parent not in hierarchy:
            yield Finding(
                join(at, path),
                "rule.metric-report",
                f"{MODEL}: hierarchy path {quote(path)} has no parent breakdown {quote(parent)}",
                anchor=Anchor.KEY,
            )
            return
        children.setdefault(parent, []).append(path)
        leaves.discard(parent)
    parts = {path: _breakdown_of(part) for path, part in hierarchy.items()}
    for parent, paths in children.items():
        own, below = parts[parent], [parts[path] for path in paths]
        if own is None or any(part is None for part in below):
            continue
        total = tuple(sum(part[3][index] for part in below if part is not None) for index in range(5))
        if total != own[3]:
            yield Finding(
                join(at, parent, "counts"),
                "rule.metric-report",
                f"{MODEL}: hierarchy node {quote(parent)} counts {_counted(own[3])}, but its children count "
                f"{_counted(total)}",
            )
    for path in sorted(leaves):
        name = _segment(path.rsplit("/", 1)[-1])
        category = categories.get(name) if categories is not None and name is not None else None
        expected = _ZERO if category is None else _breakdown_of(category)
        if parts[path] is not None and expected is not None and parts[path] != expected:
            where = f"category {quote(name or '')}" if category is not None else "no category (all zero and null)"
            yield Finding(
                join(at, path),
                "rule.metric-report",
                f"{MODEL}: hierarchy leaf {quote(path)} is not a copy of its category: expected the value, "
                f"reference_value, counts and aggregation_weight of {where}",
            )
    root, counts = parts["overall"], _counts_of(item.get("counts"))
    if root is not None and counts is not None:
        for index, name in enumerate(_COUNTS):
            if root[3][index] > counts[index]:
                yield Finding(
                    join(at, "overall", "counts", name),
                    "rule.metric-report",
                    f"{MODEL}: the hierarchy's overall counts.{name} is {root[3][index]}, more than the series' "
                    f"{counts[index]}",
                    anchor=Anchor.VALUE if name in (hierarchy["overall"].get("counts") or {}) else Anchor.PARENT,
                )


def _counted(counts: tuple[int, ...]) -> str:
    return ", ".join(f"{name} {value}" for name, value in zip(_COUNTS, counts, strict=True))


def _primary(planned: list[tuple[str, str, str, bool]]) -> Iterator[Finding]:
    """One kind of headline series; the primary is binary_success 'correct' or scalar 'score', and the other of
    those ids is used by no series."""
    heads = [(position, each) for position, each in enumerate(planned) if each[3]]
    kinds = {each[1] for _, each in heads}
    if len(kinds) != 1:
        first_kind = heads[0][1][1]
        for position, each in heads:
            if each[1] != first_kind:
                yield Finding(
                    join("/series", position, "kind"),
                    "rule.metric-report",
                    f"{MODEL}: the primary metric's series are {first_kind} at /series/{heads[0][0]} but {each[1]} "
                    "here; all primary series use one kind",
                )
        return
    position, (primary, kind, _, _) = heads[0]
    if primary not in _CANONICAL:
        yield Finding(
            join("/series", position, "metric_id"),
            "rule.metric-report",
            f"{MODEL}: the primary metric is {quote(primary)}; the primary metric must be binary_success 'correct' or "
            "scalar 'score'",
        )
        return
    if _CANONICAL[primary] != kind:
        yield Finding(
            join("/series", position, "kind"),
            "rule.metric-report",
            f"{MODEL}: the primary metric {quote(primary)} is {kind}; {primary!r} is {_CANONICAL[primary]}",
        )
        return
    for position, each in enumerate(planned):
        if each[0] in _CANONICAL and each[0] != primary:
            yield Finding(
                join("/series", position, "metric_id"),
                "rule.metric-report",
                f"{MODEL}: metric id {quote(each[0])} is reserved for the primary metric, which is {primary!r}",
            )


def _strategy_holds(strategy: str, k: int, planned: list[tuple[str, str, str, bool]]) -> Iterator[Finding]:
    """``AttemptStrategy.validate_report`` of avg and pass. Its k = 1 rule (only native series) and avg's (only avg
    and pass above k = 1) are the reducers' own bounds, reported at each series (``_reducer_fits``, rule.series-k)."""
    heads = [each for each in planned if each[3]]
    binary = {each[1] for each in heads} == {"binary_success"}
    reducers = {each[2] for each in heads}
    if strategy == "avg" and k > 1:
        for needed in ("avg", "pass") if binary else ("avg",):
            if needed not in reducers:
                yield Finding(
                    "/series",
                    "rule.metric-report",
                    f"{MODEL}: an avg report with k = {k} holds the primary metric's {needed} series; none found",
                )
    elif strategy == "pass":
        if not binary:
            position = next(index for index, each in enumerate(planned) if each[3])
            yield Finding(
                join("/series", position, "kind"),
                "rule.metric-report",
                f"{MODEL}: the pass strategy requires a binary_success primary metric",
            )
        elif k > 1:
            for position, each in enumerate(planned):
                if not each[3] or each[2] != "pass":
                    yield Finding(
                        join("/series", position),
                        "rule.metric-report",
                        f"{MODEL}: a pass report with k = {k} holds only the primary metric's pass series, not "
                        f"{quote(each[0] + '.' + each[2])}",
                    )


def _identifier(value: str, pointer: str, known: tuple[str, ...], code: str, what: str) -> Iterator[Finding]:
    """A strategy or reducer as the registries resolve it: stripped, an identifier, lower-cased, registered."""
    normalized = value.strip().lower()
    if not _IDENTIFIER.fullmatch(value.strip()) or normalized not in known:
        yield Finding(
            pointer,
            code,
            f"{MODEL}: unknown {what} {quote(value)}; AgentCompass 1.0.1 knows {', '.join(known)} (one a plugin "
            "registers is read only where that plugin is loaded)",
        )
    elif value != normalized:
        yield Finding(
            pointer,
            "rule.writer-shape",
            f"{what} {quote(value)} is read as {normalized!r}, which the AgentCompass 1.0.1 writer writes; "
            "MetricReport.model_validate strips and lower-cases it",
            severity="warning",
        )


def _reducer_fits(reducer: str, k: int, kind: Any, pointer: str) -> Iterator[Finding]:
    if (reducer == "native" and k != 1) or (reducer in ("avg", "pass") and k <= 1):
        needs = "k = 1" if reducer == "native" else "k > 1"
        yield Finding(
            join(pointer, "reducer"),
            "rule.metric-report",
            f"{MODEL}: a {reducer} series has k = {k}; {reducer} requires {needs}",
        )
    elif reducer == "pass" and kind == "scalar":
        yield Finding(join(pointer, "reducer"), "rule.metric-report", f"{MODEL}: pass does not reduce a scalar metric")


def _values(item: dict[str, Any], pointer: str, failed: bool) -> Iterator[Finding]:
    """Where the value of each scope goes: ``value``, or ``reference_value`` once evaluation_failed."""
    selected, forbidden = ("reference_value", "value") if failed else ("value", "reference_value")
    hierarchy = item.get("hierarchy")
    overall = hierarchy.get("overall") if isinstance(hierarchy, dict) else None
    overall = overall if isinstance(overall, dict) else None
    scopes: list[tuple[str, dict[str, Any], Any]] = [
        (pointer, item, overall.get("counts") if overall is not None else item.get("counts"))
    ]
    for group in ("categories", "hierarchy"):
        parts = item.get(group)
        for name, part in parts.items() if isinstance(parts, dict) else ():
            if isinstance(part, dict):
                scopes.append((join(pointer, group, name), part, part.get("counts")))
    for at, part, counts in scopes:
        evaluated = counts.get("evaluated") if isinstance(counts, dict) else None
        if part.get(forbidden) is not None:
            yield Finding(
                join(at, forbidden),
                "rule.series-value",
                f"{MODEL}: {forbidden} is set, but evaluation_failed is {str(failed).lower()}: the value belongs in "
                f"{selected}",
            )
        elif is_int(evaluated) and evaluated > 0 and part.get(selected) is None:
            yield Finding(
                join(at, selected),
                "rule.series-value",
                f"{MODEL}: {evaluated} task(s) were evaluated, but {selected} is null",
                anchor=Anchor.VALUE if selected in part else Anchor.PARENT,
            )
        own = part.get("counts")
        if isinstance(own, dict) and own.get("evaluated") == 0:
            for name in ("value", "reference_value"):
                if part.get(name) is not None and name != forbidden:
                    yield Finding(
                        join(at, name), "rule.series-value", f"{MODEL}: no task was evaluated, so {name} is null"
                    )
        for name in ("value", "reference_value", "aggregation_weight"):
            if is_int(part.get(name)) and _number(part[name]) is False:
                yield Finding(
                    join(at, name),
                    "rule.series-value",
                    f"{MODEL}: {name} is an integer too large to read as a finite number",
                )
        if item.get("kind") == "binary_success":
            for name in ("value", "reference_value"):
                value = part.get(name)
                number = _number(value)
                if isinstance(number, float) and not 0 <= number <= 1:
                    yield Finding(
                        join(at, name),
                        "rule.series-value",
                        f"{MODEL}: {name} {value!r} of a binary_success metric is outside [0, 1]",
                    )


def _series_counts(counts: Any, pointer: str) -> Iterator[Finding]:
    if not isinstance(counts, dict):
        return
    values: dict[str, int] = {}
    for name in _COUNTS:
        value = counts.get(name, 0 if name == "invalidated" else None)  # MetricReport's default
        if not is_int(value):
            return
        values[name] = value
    parts = values["evaluated"] + values["unavailable"] + values["invalidated"]
    if parts != values["total"]:
        yield Finding(
            join(pointer, "total"),
            "rule.series-counts",
            f"{MODEL}: total is {values['total']}, but evaluated + unavailable + invalidated = {parts}",
        )
    elif values["error"] > values["total"]:
        yield Finding(
            join(pointer, "error"),
            "rule.series-counts",
            f"{MODEL}: error is {values['error']}, more than the total of {values['total']} tasks",
        )


# -------------------------------------------------------------------------------- analysis and progress: browsed only


def tolerated_in_analysis_summary(pointer: str) -> str:
    return (
        "only the result browser reads analysis_summary.json back (viewer/reader.py), and it skips a row or item it "
        "cannot use"
    )


def tolerated_in_progress(pointer: str) -> str:
    return "only the result browser reads progress.json back, and shows it as it is"


def tolerated_in_progress_events(pointer: str) -> str:
    return "no AgentCompass 1.0.1 reader reads progress.jsonl"


def analysis_summary(data: Any) -> Iterator[Finding]:
    return iter(())


def progress(data: Any) -> Iterator[Finding]:
    return iter(())


def progress_event(data: Any) -> Iterator[Finding]:
    return iter(())
