"""AgentCompass rules: task.json, attempt result.json, the task detail record, retry records."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import Any

from .._issues import Anchor, Finding
from .._text import quote
from ..reading._pointers import join
from . import actf
from ._common import is_int, once_per_document, unknown_members

KNOWN_STRATEGIES = ("avg", "pass")


def _attempt_numbers(mapping: Any) -> list[int]:
    if not isinstance(mapping, dict):
        return []
    return [int(key) for key in mapping if isinstance(key, str) and key.isascii() and key.isdigit()]


def task(data: Any) -> Iterator[Finding]:
    if not isinstance(data, dict):
        return
    if data.get("schema_version") == "agentcompass.task.v2":
        yield Finding(
            "/schema_version",
            "legacy.task-v2",
            "written by an older AgentCompass (agentcompass.task.v2); AgentCompass 1.0.1 still reads it, converting "
            "each attempt as it reads, and `agentbeats-spec migrate` rewrites it as agentcompass.task.v3",
            severity="warning",
        )
    attempts = data.get("attempts")
    if isinstance(attempts, dict):
        for key, directory in attempts.items():
            canonical = key.isascii() and key.isdigit() and not key.startswith("0")
            if canonical and isinstance(directory, str) and directory != f"attempt-{key}":
                yield Finding(
                    join("/attempts", key),
                    "rule.attempt-directory",
                    f"attempt {key!r} maps to {quote(directory)}; attempt directory names match their "
                    f"numbers: expected 'attempt-{key}'",
                )
    yield from _plan(data, _attempt_numbers(attempts))


def _plan(data: dict[str, Any], numbers: list[int]) -> Iterator[Finding]:
    plan = data.get("attempt_plan")
    if not isinstance(plan, dict):
        return
    k = plan.get("k")
    if is_int(k) and numbers and max(numbers) > k:
        yield Finding(
            "/attempt_plan/k",
            "rule.attempt-plan-k",
            f"k is {k}, but attempt {max(numbers)} exists; k is at least the largest attempt number",
        )
    strategy = plan.get("strategy")
    if isinstance(strategy, str) and strategy.strip() and strategy.strip().lower() not in KNOWN_STRATEGIES:
        # The reader resolves the strategy in its registry, which holds avg and pass unless a plugin adds more.
        yield Finding(
            "/attempt_plan/strategy",
            "rule.unknown-strategy",
            f"unknown strategy {quote(strategy)}; AgentCompass 1.0.1 reads only {' and '.join(KNOWN_STRATEGIES)} "
            "(a strategy a plugin registers is read only where that plugin is loaded)",
        )
    elif isinstance(strategy, str) and strategy not in KNOWN_STRATEGIES and strategy == strategy.strip():
        yield Finding(
            "/attempt_plan/strategy",
            "rule.unknown-strategy",
            f"strategy {quote(strategy)} is read as {strategy.strip().lower()!r}, which the writer writes",
            severity="warning",
        )


def attempt(data: Any, pointer: str = "") -> Iterator[Finding]:
    """Rules of one attempt payload (attempt result.json, or one attempt of a task detail)."""
    if not isinstance(data, dict):
        return
    trajectory = data.get("trajectory")
    if isinstance(trajectory, dict) and trajectory:
        yield from actf.trajectory_findings(trajectory, join(pointer, "trajectory"))
    artifacts = data.get("artifacts")
    if isinstance(artifacts, dict):
        yield from _declared_artifacts(
            artifacts.get("declared_artifacts"), join(pointer, "artifacts", "declared_artifacts")
        )


def _declared_artifacts(index: Any, pointer: str) -> Iterator[Finding]:
    if not isinstance(index, dict) or not isinstance(index.get("entries"), list):
        return
    claimed: dict[str, int] = {}
    for position, entry in enumerate(index["entries"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("destination"), str):
            continue
        destination = posixpath.normpath(entry["destination"].replace("\\", "/"))
        for other, earlier in claimed.items():
            if destination == other or destination.startswith(other + "/") or other.startswith(destination + "/"):
                yield Finding(
                    join(pointer, "entries", position, "destination"),
                    "rule.artifact-overlap",
                    f"destination {quote(entry['destination'])} overlaps the destination of entry {earlier}; "
                    "each artifact gets a place of its own",
                )
                break
        claimed.setdefault(destination, position)


def result(data: Any) -> Iterator[Finding]:
    yield from once_per_document(attempt(data))


def legacy_result(data: Any) -> Iterator[Finding]:
    """An attempt of an agentcompass.task.v2 task: the v3 rules, and whether the reader can convert it."""
    yield from attempt(data)
    if not isinstance(data, dict) or set(data) <= {"retry_count"}:
        return  # a retry-only attempt is not an observation, and is not converted
    from ..records._legacy import derived_issues

    reason = derived_issues(data)
    if isinstance(reason, str):
        yield Finding(
            "/error" if "error" in data else "/status",
            "legacy.unclassifiable",
            f"AgentCompass 1.0.1 cannot convert this v2 attempt: {reason}. It refuses to read the whole task "
            '("re-execution is required"); `agentbeats-spec migrate` leaves the task as it is',
        )


RUN_INFO_MEMBERS = (
    "schema_version", "run_id", "started_at", "request", "reused_from", "resolved_execution_plans", "status",
    "finished_at", "error", "metric_artifacts",
)  # fmt: skip


def run_info(data: Any) -> Iterator[Finding]:
    if isinstance(data, dict) and data.get("schema_version") == "agentcompass.run_info.v3":
        yield from unknown_members(data, "", RUN_INFO_MEMBERS, where="run_info.json", unknown="member")


def metrics(data: Any) -> Iterator[Finding]:
    """metrics.json: what AgentCompass's MetricReport checks beyond the shape of each member."""
    if not isinstance(data, dict) or not isinstance(data.get("series"), list):
        return
    k = data.get("k")
    headlines: set[str] = set()
    seen: dict[str, int] = {}
    for position, series in enumerate(data["series"]):
        if not isinstance(series, dict):
            continue
        pointer = join("/series", position)
        metric, reducer, series_k = series.get("metric_id"), series.get("reducer"), series.get("k")
        if isinstance(metric, str) and isinstance(reducer, str) and is_int(series_k):
            expected = f"{metric}.{reducer}@{series_k}"
            if series.get("series_id") != expected:
                yield Finding(
                    join(pointer, "series_id"),
                    "rule.series-id",
                    f"series_id is {quote(str(series.get('series_id')))}; a series is named "
                    f"<metric_id>.<reducer>@<k>: expected {expected!r}",
                )
        series_id = series.get("series_id")
        if isinstance(series_id, str):
            if series_id in seen:
                yield Finding(
                    join(pointer, "series_id"),
                    "rule.series-id",
                    f"series {quote(series_id)} also appears at /series/{seen[series_id]}",
                )
            seen.setdefault(series_id, position)
        if is_int(k) and is_int(series_k) and series_k != k:
            yield Finding(join(pointer, "k"), "rule.series-k", f"the series has k = {series_k}, the report k = {k}")
        if series.get("role") == "headline" and isinstance(metric, str):
            headlines.add(metric)
        yield from _series_counts(series.get("counts"), join(pointer, "counts"))
        for group in ("categories", "hierarchy"):
            parts = series.get(group)
            if isinstance(parts, dict):
                for name, part in parts.items():
                    if isinstance(part, dict):
                        yield from _series_counts(part.get("counts"), join(pointer, group, name, "counts"))
    if len(headlines) != 1:
        found = ", ".join(sorted(headlines)) or "none"
        yield Finding("/series", "rule.headline", f"a metric report has exactly one headline metric; found {found}")


def _series_counts(counts: Any, pointer: str) -> Iterator[Finding]:
    if not isinstance(counts, dict) or not all(
        is_int(counts.get(name)) for name in ("total", "evaluated", "unavailable", "invalidated", "error")
    ):
        return
    parts = counts["evaluated"] + counts["unavailable"] + counts["invalidated"]
    if parts != counts["total"]:
        yield Finding(
            join(pointer, "total"),
            "rule.series-counts",
            f"total is {counts['total']}, but evaluated + unavailable + invalidated = {parts}",
        )
    elif counts["error"] > counts["total"]:
        yield Finding(
            join(pointer, "error"),
            "rule.series-counts",
            f"error is {counts['error']}, more than the total of {counts['total']} tasks",
        )


def retry(data: Any) -> Iterator[Finding]:
    if not isinstance(data, dict):
        return
    number, budget = data.get("retry"), data.get("max_retries")
    if is_int(number) and is_int(budget) and number > budget:
        yield Finding(
            "/retry",
            "rule.retry-budget",
            f"retry {number} exceeds max_retries {budget}",
        )


def task_detail(data: Any) -> Iterator[Finding]:
    return once_per_document(_task_detail(data))


def _task_detail(data: Any) -> Iterator[Finding]:
    if not isinstance(data, dict):
        return
    attempts = data.get("attempts")
    counts = data.get("retry_counts")
    numbers = _attempt_numbers(attempts)
    yield from _plan(data, numbers)
    plan = data.get("attempt_plan")
    k = plan.get("k") if isinstance(plan, dict) else None
    if isinstance(counts, dict):
        total = 0
        for key, count in counts.items():
            if not is_int(count):
                continue
            total += count
            if count == 0:
                yield Finding(
                    join("/retry_counts", key),
                    "rule.retry-counts-sparse",
                    "retry_counts is sparse: attempts without retries are left out instead of written as 0",
                    severity="warning",
                    anchor=Anchor.KEY,
                )
            if is_int(k) and key.isascii() and key.isdigit() and int(key) > k:
                yield Finding(
                    join("/retry_counts", key),
                    "rule.retry-counts-attempt",
                    f"retry_counts names attempt {key}, beyond attempt_plan.k = {k}",
                    anchor=Anchor.KEY,
                )
        retry_count = data.get("retry_count")
        if is_int(retry_count) and retry_count != total:
            yield Finding(
                "/retry_count",
                "rule.retry-count",
                f"retry_count is {retry_count}, but the values of retry_counts sum to {total}",
            )
    if isinstance(attempts, dict):
        for key, payload in attempts.items():
            yield from attempt(payload, join("/attempts", key))
