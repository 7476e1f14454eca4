"""Hypothesis strategies for valid documents of every kind (our own: the schemas use ECMA regexes)."""

from __future__ import annotations

import copy
import datetime
import json
from typing import Any

from hypothesis import strategies as st

text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
# Text without surrounding white space: no spaces, separators or control characters at all.
trimmed = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1, max_size=12
)
names = st.text("abcdefghij_", min_size=1, max_size=8)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False) | text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(text, children, max_size=3),
    max_leaves=8,
)
# Unknown members whose names are far from every known name (a near miss is an error by design).
unknown = st.dictionaries(names.map(lambda name: "zz_unknown_" + name), json_values, max_size=2)
numbers = st.integers(-1000, 10**6) | st.floats(-1e6, 1e6, allow_nan=False)


def with_unknown(strategy: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.tuples(strategy, unknown).map(lambda pair: {**pair[0], **pair[1]})


def shuffled(strategy: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """The same members in any order: order must survive a round trip."""
    return strategy.flatmap(lambda data: st.permutations(list(data.items())).map(dict))


moments = st.datetimes(
    min_value=datetime.datetime(2000, 1, 1), max_value=datetime.datetime(2100, 1, 1),
    timezones=st.none() | st.just(datetime.timezone.utc) | st.just(datetime.timezone(datetime.timedelta(hours=2))),
)  # fmt: skip
timestamps = st.one_of(
    moments.map(str),
    moments.map(lambda moment: moment.isoformat()),
    moments.map(lambda moment: moment.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"),
    st.none(),
    st.just(""),
)
lists = st.lists(json_values, max_size=3) | st.none() | st.just({})
metric = with_unknown(
    st.fixed_dictionaries(
        {},
        optional={
            "prompt_tokens_len": st.integers(0, 10**6) | st.none(),
            "completion_tokens_len": st.integers(0, 10**6) | st.none(),
            "llm_infer_ms": numbers | st.none() | st.just(-1),
            "env_action_ms": numbers | st.none() | st.just(-1),
            "stop_reason": text | st.none(),
        },
    )
)
assistant = with_unknown(
    st.fixed_dictionaries(
        {}, optional={"content": text | st.none(), "reasoning_content": text | st.none(), "tool_calls": lists}
    )
)
step = with_unknown(
    st.fixed_dictionaries(
        {},
        optional={
            "system_prompt": json_values,
            "user_content": json_values,
            "tools": lists,
            "assistant_content": assistant | st.none(),
            "observation": lists,
            "metric": metric | st.none(),
            "started_at": timestamps,
            "finished_at": timestamps,
        },
    )
)


def _numbered(steps: list[dict[str, Any]], gaps: list[int]) -> list[dict[str, Any]]:
    number, result = -1, []  # the first step_id is 0, 1 or 2: harnesses number from 0 or from 1
    for each, gap in zip(steps, gaps, strict=True):
        number += gap
        result.append({"step_id": number, **each})
    return result


trajectory = shuffled(
    with_unknown(
        st.fixed_dictionaries(
            {
                "schema_version": st.just("ACTF_v1.0"),
                "steps": st.lists(step, max_size=3).flatmap(
                    lambda steps: st.lists(st.integers(1, 3), min_size=len(steps), max_size=len(steps)).map(
                        lambda gaps: _numbered(steps, gaps)
                    )
                ),
            },
            optional={"started_at": timestamps, "finished_at": timestamps},
        )
    )
)
issue = st.fixed_dictionaries(
    {
        "severity": st.sampled_from(["fatal", "error", "warning"]),
        "phase": st.sampled_from(["setup", "run", "collect", "evaluate", "cleanup"]),
        "code": trimmed,
        "message": trimmed,
    }
)
analysis = st.dictionaries(
    names,
    with_unknown(
        st.fixed_dictionaries(
            {},
            optional={
                "is_badcase": st.booleans(),
                "score": numbers,
                "details": json_values,
                "error": text | st.none(),
                "extra": st.dictionaries(text, json_values, max_size=2),
            },
        )
    ),
    max_size=2,
)
payload_members = {
    "status": st.sampled_from(
        ["completed", "skipped", "run_error", "eval_error", "run_error_or_eval_error", "cancelled", "interrupted"]
    ),
    "metrics": st.dictionaries(trimmed, st.booleans() | numbers, max_size=3),
    "final_answer": json_values,
    "trajectory": st.just({}) | trajectory,
    "issues": st.lists(issue, max_size=2),
    "artifacts": st.dictionaries(names.map("zz_".__add__), json_values, max_size=2),
    "analysis_result": analysis,
    "meta": st.fixed_dictionaries(
        {
            "benchmark": st.dictionaries(text, json_values, max_size=2),
            "harness": st.dictionaries(text, json_values, max_size=2),
        }
    ),
}
payload = shuffled(st.fixed_dictionaries(payload_members))
attempt_result = shuffled(st.fixed_dictionaries({**payload_members, "retry_count": st.integers(0, 5)})) | st.builds(
    lambda count: {"retry_count": count}, st.integers(0, 5)
)
plan = st.fixed_dictionaries({"k": st.integers(3, 6), "strategy": st.sampled_from(["avg", "pass"])})
task_ids = trimmed
categories = text | st.none()


def _task(identity: dict[str, Any], shared: dict[str, Any] | None) -> dict[str, Any]:
    return {**identity, **(shared or {})}


task_index = shuffled(
    st.builds(
        _task,
        st.fixed_dictionaries(
            {
                "schema_version": st.just("agentcompass.task.v3"),
                "task_id": task_ids,
                "attempts": st.sets(st.integers(1, 3), min_size=1, max_size=3).map(
                    lambda numbers: {str(n): f"attempt-{n}" for n in sorted(numbers)}
                ),
            }
        ),
        st.none() | st.fixed_dictionaries({"category": categories, "ground_truth": json_values, "attempt_plan": plan}),
    )
)


def _detail(base: dict[str, Any], counts: dict[str, int]) -> dict[str, Any]:
    return {**base, "retry_counts": counts, "retry_count": sum(counts.values())}


task_detail = shuffled(
    st.builds(
        _detail,
        st.fixed_dictionaries(
            {
                "task_id": task_ids,
                "category": categories,
                "ground_truth": json_values,
                "attempt_plan": plan,
                "attempts": st.dictionaries(st.sampled_from(["1", "2", "3"]), payload, min_size=1, max_size=2),
            }
        ),
        st.dictionaries(st.sampled_from(["1", "2", "3"]), st.integers(1, 4), max_size=3),
    )
)
retry = shuffled(
    st.integers(1, 3).flatmap(
        lambda budget: st.fixed_dictionaries(
            {
                "schema_version": st.just("agentcompass.retry.v1"),
                "task_id": task_ids,
                "attempt": st.integers(1, 5),
                "retry": st.integers(1, budget),
                "max_retries": st.just(budget),
                "stage": trimmed,
                "scope": st.sampled_from(["attempt", "evaluate"]),
                "matched_pattern": text,
                "issues": st.lists(issue, max_size=2),
                "discarded_result": st.dictionaries(text, json_values, max_size=3),
            },
            optional={"category": categories, "retry_delay_seconds": st.floats(0, 100)},
        )
    )
)
results = st.builds(
    lambda count, name, value, more: {**more, "count": count, "main_metric": name, name: value},
    st.integers(0, 10**6),
    names.map("metric_".__add__),
    st.booleans() | numbers,
    st.dictionaries(names.map("other_".__add__), json_values, max_size=2),
)
location = with_unknown(
    st.fixed_dictionaries(
        {"file": trimmed},
        optional={name: text for name in ("function", "commit", "url", "role", "verification", "explanation")},
    )
)
case = with_unknown(
    st.integers(1, 10**5).flatmap(
        lambda number: st.fixed_dictionaries(
            {
                "case_id": trimmed,
                "issue": st.fixed_dictionaries(
                    {
                        "repository": st.just("octo-org/octo-cli"),
                        "number": st.just(number),
                        "url": st.just(f"https://github.com/octo-org/octo-cli/issues/{number}"),
                        "state": st.sampled_from(["open", "closed"]),
                        "title": text,
                        "body": text,
                    }
                ),
                "version_choice": trimmed,
                "commit_version": trimmed,
                "steps": st.lists(text, min_size=1, max_size=3),
                "expected": text,
                "defect": text,
            },
            optional={
                "reported_version": text,
                "fixed_in": text,
                "pinned_contains_fix": st.booleans(),
                "fault location": st.lists(location, max_size=2),
                "Root cause": text,
            },
        )
    )
)
repo = st.fixed_dictionaries(
    {
        "abv3_repo": st.fixed_dictionaries(
            {
                "name": trimmed,
                "role": st.sampled_from(["judge", "subject"]),
                "author": trimmed,
            },
            optional={
                "version": st.sampled_from(["0.1.0", "1.0.0-rc.1", "2.3.4+build.7"]),
                "logo_file": st.sampled_from(["./logo.svg", "https://example.org/logo.png"]),
                "tags": st.lists(trimmed, max_size=3, unique=True),
            },
        ),
        "run": st.fixed_dictionaries({"command": st.just("python main.py $RUN_CONFIG_FILE")}),
    },
    optional={
        "install": st.fixed_dictionaries({"command": st.just("uv sync")}),
        "run_configs": st.fixed_dictionaries({}, optional={"folder": st.just("./run_configs"), "default_exp": names}),
        "results": st.fixed_dictionaries({"folder": st.just("results")}),
        "dependency": st.dictionaries(
            st.sampled_from(["openai_api_key", "docker_sock"]),
            st.fixed_dictionaries({"required": st.booleans()}),
            max_size=2,
        ),
    },
)

# agentcompass.task.v2: the index of the previous layout (attempts may be empty), and its attempt payloads, which
# keep the old error text and take empty values (null, "" or []) where v3 writes {}. A v2 attempt is convertible,
# as the 1.0.1 reader converts it, when it records no error and a status that completes without an issue.
task_index_v2 = shuffled(
    st.builds(
        _task,
        st.fixed_dictionaries(
            {
                "schema_version": st.just("agentcompass.task.v2"),
                "task_id": task_ids,
                "attempts": st.sets(st.integers(1, 3), max_size=3).map(
                    lambda numbers: {str(n): f"attempt-{n}" for n in sorted(numbers)}
                ),
            }
        ),
        st.none() | st.fixed_dictionaries({"category": categories, "ground_truth": json_values, "attempt_plan": plan}),
    )
)
empty_values = st.sampled_from([None, "", []])
attempt_result_v2 = shuffled(
    st.fixed_dictionaries(
        {
            "status": st.sampled_from(["completed", "skipped", "cancelled", "interrupted"]),
            "metrics": payload_members["metrics"],
            "final_answer": json_values,
            "trajectory": st.just({}) | trajectory | empty_values,
            "analysis_result": analysis | empty_values,
            "meta": st.fixed_dictionaries(
                {
                    "benchmark": st.dictionaries(names, json_values, max_size=2) | empty_values,
                    "harness": st.dictionaries(text, json_values, max_size=2) | empty_values,
                }
            ),
            "retry_count": st.integers(0, 5),
        },
        optional={
            "issues": json_values,
            "artifacts": payload_members["artifacts"],
            "error": st.sampled_from([None, ""]),
        },
    )
) | st.builds(lambda count: {"retry_count": count}, st.integers(0, 5))

# Run-level files, as the AgentCompass 1.0.1 writer writes them (its request: a benchmark, harness, environment and
# model id and an attempt plan, which reuse and analysis read back).
utc_moments = moments.map(lambda moment: moment.replace(tzinfo=datetime.timezone.utc).isoformat())
run_ids = trimmed
attempt_plans = st.fixed_dictionaries({"k": st.integers(1, 5), "strategy": st.sampled_from(["avg", "pass"])})
request = st.fixed_dictionaries(
    {
        "benchmark": st.fixed_dictionaries({"id": trimmed}, optional={"params": st.dictionaries(names, json_values)}),
        "execution": st.fixed_dictionaries({"attempts": attempt_plans}),
        "model": st.fixed_dictionaries({"id": trimmed}),  # analysis rebuilds the request, which requires it
        "harness": st.fixed_dictionaries({"id": trimmed}),
        "environment": st.fixed_dictionaries({"id": trimmed}),
    },
    optional={"output": st.fixed_dictionaries({"run_id": trimmed})},
)
_report = st.fixed_dictionaries(
    {"k": st.integers(1, 5), "strategy": st.sampled_from(["avg", "pass"]), "aggregation": st.just("micro_weighted")}
)
metric_artifacts = st.one_of(
    st.fixed_dictionaries({"generated_at": utc_moments, "source": st.just("evaluation"), "report": _report}),
    st.fixed_dictionaries(
        {
            "generated_at": utc_moments,
            "source": st.just("summary"),
            "report": _report,
            "benchmark_params_override": st.dictionaries(names, json_values, max_size=2),
        }
    ),
)
run_info = shuffled(
    st.fixed_dictionaries(
        {"schema_version": st.just("agentcompass.run_info.v3"), "run_id": run_ids, "request": request},
        optional={
            "started_at": utc_moments,
            "reused_from": st.fixed_dictionaries({"run_id": trimmed}, optional={"path": trimmed}),
            "resolved_execution_plans": st.dictionaries(
                task_ids,
                st.fixed_dictionaries(
                    {"attempts": st.dictionaries(st.sampled_from(["1", "2"]), st.dictionaries(names, json_values))}
                ),
                max_size=2,
            ),
            "status": st.sampled_from(["completed", "failed", "cancelled"]),
            "finished_at": utc_moments,
            "metric_artifacts": metric_artifacts,
        },
    )
)
run_info_v2 = shuffled(
    with_unknown(
        st.fixed_dictionaries(
            {"schema_version": st.just("agentcompass.run_info.v2"), "run_id": run_ids, "request": request}
        )
    )
)
params = st.fixed_dictionaries(
    {},
    optional={
        "benchmark": st.fixed_dictionaries(
            {"id": trimmed}, optional={"params": st.dictionaries(names, json_values, min_size=1, max_size=2)}
        ),
        "model": st.fixed_dictionaries({"id": trimmed}),
        "execution": st.fixed_dictionaries({"attempts": attempt_plans}),
        "output": st.fixed_dictionaries({"run_id": trimmed}, optional={"run_name": trimmed}),
    },
).map(lambda data: dict(sorted(data.items())))  # the writer sorts the keys


# The metric report (metrics.json) as the AgentCompass 1.0.1 writer writes it, one that MetricReport.model_validate
# accepts: the series the strategy selects (k = 1: native series of every metric; avg: avg and pass of each binary
# metric, avg of each scalar one; pass: only the primary's pass series), the primary binary 'correct' or scalar
# 'score', categories partitioning every series' tasks (the same totals and invalidated tasks in each), a
# hierarchy exactly for category_hierarchy reports whose leaves copy their categories, values only where a task was
# evaluated, in reference_value once a task was invalidated (evaluation_failed).
_REPORT_AGGREGATIONS = ("micro_weighted", "category_mean", "category_hierarchy")
_GROUP, _EMPTY = "zz_group", "zz_empty"  # hierarchy nodes that are no category
category_names = (trimmed | st.sampled_from(["__uncategorized__", "a/b", "x~y", "overall"])).filter(
    lambda name: name not in (_GROUP, _EMPTY)
)
display = st.none() | st.fixed_dictionaries(
    {
        "label": trimmed,
        "description": trimmed | st.none(),
        "unit": trimmed | st.none(),
        "precision": st.integers(0, 6) | st.none(),
    }
)
_ZERO_COUNTS = {"total": 0, "evaluated": 0, "error": 0, "unavailable": 0, "invalidated": 0}


def _escaped(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _summed(parts: list[dict[str, Any]]) -> dict[str, int]:
    return {name: sum(part["counts"][name] for part in parts) for name in _ZERO_COUNTS}


def _valued(draw: Any, kind: str, counts: dict[str, int], failed: bool) -> dict[str, Any]:
    """value and reference_value of a scope: a value only where a task was evaluated, in its role."""
    values = st.floats(0, 1) if kind == "binary_success" else st.floats(-1e6, 1e6, allow_nan=False)
    value = None if counts["evaluated"] == 0 else draw(values)
    return {"value": None if failed else value, "reference_value": value if failed else None}


def _breakdown(draw: Any, kind: str, counts: dict[str, int], failed: bool) -> dict[str, Any]:
    weight = draw(st.just(float(counts["evaluated"])) | st.floats(0, 10))
    return {**_valued(draw, kind, counts, failed), "counts": counts, "aggregation_weight": weight}


def _hierarchy(
    draw: Any, kind: str, categories: dict[str, dict[str, Any]], grouped: list[str], empty: bool, failed: bool
) -> dict[str, Any]:
    leaves = {f"overall/{_escaped(name)}": name for name in categories if name not in grouped}
    below = {f"overall/{_GROUP}/{_escaped(name)}": name for name in grouped}
    nodes = {path: copy.deepcopy(categories[name]) for path, name in {**leaves, **below}.items()}
    if empty or not categories:
        nodes[f"overall/{_EMPTY}"] = {"value": None, "reference_value": None, "counts": dict(_ZERO_COUNTS),
                                      "aggregation_weight": 0.0}  # fmt: skip
    hierarchy: dict[str, Any] = {}
    top = [part for path, part in nodes.items() if path.count("/") == 1]
    if grouped:
        group = _summed([nodes[path] for path in below])
        group_node = _breakdown(draw, kind, group, failed)
        top.append(group_node)
        hierarchy[f"overall/{_GROUP}"] = group_node
    hierarchy["overall"] = _breakdown(draw, kind, _summed(top), failed)
    return {"overall": hierarchy.pop("overall"), **hierarchy, **nodes}


@st.composite
def metric_report(draw: Any) -> dict[str, Any]:
    k = draw(st.integers(1, 5))
    strategy = draw(st.sampled_from(["avg", "pass"]))
    primary_kind = "binary_success" if strategy == "pass" else draw(st.sampled_from(["binary_success", "scalar"]))
    primary = "correct" if primary_kind == "binary_success" else "score"
    others = draw(st.lists(st.tuples(names, st.sampled_from(["binary_success", "scalar"])), max_size=2,
                           unique_by=lambda pair: pair[0]))  # fmt: skip
    metrics = [(primary, primary_kind, "headline"), *((metric, kind, "auxiliary") for metric, kind in others)]
    if k == 1:
        plan = [(metric, kind, "native", role) for metric, kind, role in metrics]
    elif strategy == "pass":
        plan = [(primary, primary_kind, "pass", "headline")]
    else:
        plan = [(metric, kind, reducer, role) for metric, kind, role in metrics
                for reducer in (("avg", "pass") if kind == "binary_success" else ("avg",))]  # fmt: skip
    aggregation = draw(st.sampled_from(_REPORT_AGGREGATIONS))
    names_ = draw(st.lists(category_names, max_size=3, unique=True))
    shares = {name: (draw(st.integers(0, 6)), draw(st.integers(0, 2) | st.just(0))) for name in names_}
    failed = any(invalidated for _, invalidated in shares.values())
    grouped = draw(st.lists(st.sampled_from(names_), unique=True)) if names_ else []
    empty = draw(st.booleans())
    series = []
    for metric, kind, reducer, role in plan:
        categories = {}
        for name, (rest, invalidated) in shares.items():
            evaluated = draw(st.integers(0, rest))
            total = rest + invalidated
            counts = {"total": total, "evaluated": evaluated, "error": draw(st.integers(invalidated, total)),
                      "unavailable": rest - evaluated, "invalidated": invalidated}  # fmt: skip
            categories[name] = _breakdown(draw, kind, counts, failed)
        counts = _summed(list(categories.values()))
        hierarchy = (
            _hierarchy(draw, kind, categories, grouped, empty, failed) if aggregation == "category_hierarchy" else {}
        )
        series.append({
            "series_id": f"{metric}.{reducer}@{k}", "metric_id": metric, "kind": kind, "reducer": reducer,
            "role": role, "aggregation": aggregation, "display": draw(display), "k": k,
            **_valued(draw, kind, counts, failed), "counts": counts, "categories": categories,
            "hierarchy": hierarchy, "extra": draw(st.dictionaries(names, json_values, max_size=2)),
        })  # fmt: skip
    return {"k": k, "strategy": strategy, "aggregation": aggregation, "series": series, "evaluation_failed": failed,
            "extra": draw(st.just({}) | st.dictionaries(names, json_values, max_size=2))}  # fmt: skip


def _row(category: str, analyzer: str, total: int, bad: int, score: float | None) -> dict[str, Any]:
    bad = min(bad, total)
    return {"category": category, "analyzer": analyzer, "total": total, "badcase_count": bad, "error_count": 0,
            "badcase_ratio": bad / total if total else 0.0, "avg_score": score}  # fmt: skip


row = st.builds(_row, names | st.just("__overall__"), names, st.integers(0, 9), st.integers(0, 9),
                st.floats(-1e3, 1e3) | st.none())  # fmt: skip
distribution = st.fixed_dictionaries(
    {"total": st.integers(0, 9), "distribution": st.dictionaries(names, st.integers(0, 9), max_size=2)}
) | st.builds(
    lambda values: {"count": len(values), "min": min(values), "mean": sum(values) / len(values),
                    "p50": values[len(values) // 2], "p90": max(values), "p95": max(values), "max": max(values)},
    st.lists(st.integers(0, 100), min_size=1, max_size=4).map(sorted),
)  # fmt: skip
analysis_summary = st.fixed_dictionaries(
    {
        "per_category_per_analyzer": st.lists(row, max_size=2),
        "per_category_overall": st.lists(row, max_size=2),
        "overall_per_analyzer": st.lists(row, max_size=2),
        "overall": st.lists(row, max_size=1),
        "distributions": st.dictionaries(
            names, st.dictionaries(names, st.dictionaries(names, distribution, max_size=2), max_size=2), max_size=2
        ),
    }
)
_PROGRESS_COUNTS = (
    "total_tasks", "reused_tasks", "pending_tasks", "running_tasks", "finished_tasks", "completed_tasks",
    "failed_tasks", "error_tasks", "warning_tasks", "skipped_tasks", "attempts_started", "attempts_finished",
    "partials_saved",
)  # fmt: skip
seconds = st.floats(0, 2e9)
progress = st.fixed_dictionaries(
    {
        "run_id": run_ids,
        "benchmark": trimmed | st.none(),
        "harness": trimmed | st.none(),
        "environment": trimmed | st.none(),
        "model": trimmed | st.none(),
        "status": st.sampled_from(["created", "running", "summarizing", "completed"]),
        **{name: st.integers(0, 50) for name in _PROGRESS_COUNTS},
        "current_phase_counts": st.dictionaries(names, st.integers(0, 5), max_size=2),
        "active_tasks": st.dictionaries(
            task_ids,
            st.fixed_dictionaries(
                {},
                optional={
                    "category": text | st.none(),
                    "phase": names | st.none(),
                    "attempt": st.integers(1, 5) | st.none(),
                    "updated_at": seconds,
                    "details": st.dictionaries(names, json_values, max_size=2),
                },
            ),
            max_size=2,
        ),
        "elapsed_seconds": seconds,
        "updated_at": seconds,
    }
)
progress_event = st.fixed_dictionaries(
    {
        "run_id": run_ids,
        "event": st.sampled_from(["run_started", "tasks_loaded", "task_started", "attempt_finished", "run_finished"]),
        "timestamp": seconds,
        "task_id": task_ids | st.none(),
        "category": text | st.none(),
        "attempt": st.integers(1, 5) | st.none(),
        "phase": names | st.none(),
        "status": names | st.none(),
        "payload": st.dictionaries(names, json_values, max_size=2),
        "orchestration_id": text | st.none(),
        "request_key": text | st.none(),
        "request_name": text | st.none(),
        "request_index": st.integers(0, 5) | st.none(),
    }
)

# Valid documents of every kind, by kind and then by version (the version names of the kind table).
VERSIONS: dict[str, dict[str, st.SearchStrategy[dict[str, Any]]]] = {
    "abv3-repo": {"v1": repo},
    "abv3-results": {"v1": results},
    "abb-case": {"v1": case},
    "agentcompass-task": {"agentcompass.task.v2": task_index_v2, "agentcompass.task.v3": task_index},
    "agentcompass-attempt": {"agentcompass.task.v2": attempt_result_v2, "agentcompass.task.v3": attempt_result},
    "agentcompass-task-detail": {"agentcompass.task.v3": task_detail},
    "agentcompass-retry": {"agentcompass.retry.v1": retry},
    "agentcompass-run-info": {"agentcompass.run_info.v2": run_info_v2, "agentcompass.run_info.v3": run_info},
    "agentcompass-params": {"v1": params},
    "agentcompass-metrics": {"v1": metric_report()},
    "agentcompass-analysis-summary": {"v1": analysis_summary},
    "agentcompass-progress": {"v1": progress},
    "agentcompass-progress-events": {"v1": progress_event},
    "actf-trajectory": {"ACTF_v1.0": trajectory},
}
# The newest version's documents of the kinds whose documents are whole JSON or TOML objects (not JSON Lines).
DOCUMENTS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    kind: list(versions.values())[-1] for kind, versions in VERSIONS.items() if kind != "agentcompass-progress-events"
}


def json_texts(max_leaves: int, text_size: int, container_size: int) -> st.SearchStrategy[bytes]:
    """JSON texts as writers produce them (indented or not, ASCII-escaped or not), with the characters and numbers
    that need care: NaN and infinities, integers beyond 2**53, lone surrogates in strings."""
    values = st.recursive(
        st.none()
        | st.booleans()
        | st.integers(-(2**60), 2**60)
        | st.floats(allow_nan=True, allow_infinity=True)
        | st.text(max_size=text_size),
        lambda children: (
            st.lists(children, max_size=text_size // 2 - 1)
            | st.dictionaries(st.text(max_size=text_size // 2 - 1), children, max_size=text_size // 2 - 1)
        ),
        max_leaves=max_leaves,
    )
    return st.tuples(values, st.sampled_from([None, 2]), st.booleans()).map(
        lambda t: json.dumps(t[0], indent=t[1], ensure_ascii=t[2]).encode("utf-8", "surrogatepass")
    )
