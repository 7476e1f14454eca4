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

DOCUMENTS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "abv3-repo": repo,
    "abv3-results": results,
    "abb-case": case,
    "agentcompass-task": task_index,
    "agentcompass-attempt": attempt_result,
    "agentcompass-task-detail": task_detail,
    "agentcompass-retry": retry,
    "actf-trajectory": trajectory,
}
