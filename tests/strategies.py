"""Hypothesis strategies for valid documents of every kind (our own: the schemas use ECMA regexes)."""

from __future__ import annotations

import datetime
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

# Run-level files, as the AgentCompass 1.0.1 writer writes them (its request: a benchmark id and an attempt plan).
utc_moments = moments.map(lambda moment: moment.replace(tzinfo=datetime.timezone.utc).isoformat())
run_ids = trimmed
attempt_plans = st.fixed_dictionaries({"k": st.integers(1, 5), "strategy": st.sampled_from(["avg", "pass"])})
request = st.fixed_dictionaries(
    {
        "benchmark": st.fixed_dictionaries({"id": trimmed}, optional={"params": st.dictionaries(names, json_values)}),
        "execution": st.fixed_dictionaries({"attempts": attempt_plans}),
    },
    optional={"model": st.fixed_dictionaries({"id": trimmed}), "output": st.fixed_dictionaries({"run_id": trimmed})},
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


def _counts(evaluated: int, unavailable: int, error: int) -> dict[str, int]:
    total = evaluated + unavailable
    return {"total": total, "evaluated": evaluated, "error": min(error, total), "unavailable": unavailable,
            "invalidated": 0}  # fmt: skip


counts = st.builds(_counts, st.integers(0, 20), st.integers(0, 5), st.integers(0, 5))


def _measured(part: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A value only where a task was evaluated, as MetricReport.model_validate requires (and null where none was)."""
    value = st.none() if part["counts"]["evaluated"] == 0 else st.floats(0, 1)
    return value.map(lambda drawn: {**part, "value": drawn})


breakdown = st.fixed_dictionaries(
    {"reference_value": st.none(), "counts": counts, "aggregation_weight": st.floats(0, 10)}
).flatmap(_measured)
display = st.none() | st.fixed_dictionaries(
    {"label": trimmed, "description": text | st.none(), "unit": text | st.none(), "precision": st.integers(0, 6)}
)


def _series(metric: str, reducer: str, k: int, kind: str, role: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "series_id": st.just(f"{metric}.{reducer}@{k}"),
            "metric_id": st.just(metric),
            "kind": st.just(kind),
            "reducer": st.just(reducer),
            "role": st.just(role),
            "aggregation": st.just("micro_weighted"),
            "display": display,
            "k": st.just(k),
            "reference_value": st.none(),
            "counts": counts,
            "categories": st.dictionaries(trimmed, breakdown, max_size=2),
            "hierarchy": st.dictionaries(trimmed, breakdown, max_size=1),
            "extra": st.dictionaries(names, json_values, max_size=2),
        }
    ).flatmap(_measured)


def _report_of(k: int, strategy: str, headline: str, others: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    reducer = "native" if k == 1 else strategy  # the reducers' own bounds: native at k = 1, avg and pass above it
    series = [_series(headline, reducer, k, "binary_success", "headline")]
    series += [_series(metric, reducer, k, "scalar", "auxiliary") for metric in others if metric != headline]
    return st.fixed_dictionaries(
        {
            "aggregation": st.just("micro_weighted"),
            "evaluation_failed": st.just(False),
            "extra": st.just({}),
            "k": st.just(k),
            "series": st.tuples(*series).map(list),
            "strategy": st.just(strategy),
        }
    )


metric_report = st.tuples(
    st.integers(1, 5), st.sampled_from(["avg", "pass"]), names, st.lists(names, max_size=2, unique=True)
).flatmap(lambda drawn: _report_of(*drawn))


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
    "agentcompass-metrics": {"v1": metric_report},
    "agentcompass-analysis-summary": {"v1": analysis_summary},
    "agentcompass-progress": {"v1": progress},
    "agentcompass-progress-events": {"v1": progress_event},
    "actf-trajectory": {"ACTF_v1.0": trajectory},
}
# The newest version's documents of the kinds whose documents are whole JSON or TOML objects (not JSON Lines).
DOCUMENTS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    kind: list(versions.values())[-1] for kind, versions in VERSIONS.items() if kind != "agentcompass-progress-events"
}
