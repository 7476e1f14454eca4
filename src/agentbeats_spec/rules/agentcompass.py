"""AgentCompass rules: task.json, attempt result.json, the task detail record, retry records (the run-level files
are agentcompass_run's)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import Any

from ..reading._pointers import join
from ..vocabulary._issues import Anchor, Finding
from ..vocabulary._kind_data import TASK_V2
from ..vocabulary._text import quote
from . import actf
from ._common import is_int, once_per_document

KNOWN_STRATEGIES = ("avg", "pass")


def _attempt_numbers(mapping: Any) -> list[int]:
    if not isinstance(mapping, dict):
        return []
    return [int(key) for key in mapping if isinstance(key, str) and key.isascii() and key.isdigit()]


def task(data: Any) -> Iterator[Finding]:
    if not isinstance(data, dict):
        return
    if data.get("schema_version") == TASK_V2:
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
    artifacts = data.get("artifacts") if isinstance(data, dict) else None
    if isinstance(artifacts, dict):
        yield from _evidence_recorded(artifacts.get("declared_artifacts"), "/artifacts/declared_artifacts")


EVIDENCE = ("sha256", "size_bytes", "file_count")


def _evidence_recorded(index: Any, pointer: str) -> Iterator[Finding]:
    """The collector records the evidence of every artifact it collects, and reuse measures the stored copy
    against it (``artifacts._validated_collected_artifacts`` reads each member: one that is missing fails it)."""
    entries = index.get("entries") if isinstance(index, dict) else None
    for position, entry in enumerate(entries if isinstance(entries, list) else []):
        if not isinstance(entry, dict):
            continue
        service = entry.get("service")
        if service is not None and service != "main":
            # normalize_artifacts, which reuse runs on every entry of the manifest (materialize_collected_artifacts)
            yield Finding(
                join(pointer, "entries", position, "service"),
                "rule.reuse-refused",
                f"AgentCompass 1.0.1 cannot reuse this run: the entry's service is {quote(str(service))}, but reuse "
                "rebuilds each entry's artifact spec, which refuses any service but main (sidecar collection is not "
                "supported), and leaves the task out",
            )
        if entry.get("status") != "collected":
            continue
        missing = [name for name in EVIDENCE if name not in entry]
        if missing:
            yield Finding(
                join(pointer, "entries", position),
                "rule.reuse-refused",
                f"AgentCompass 1.0.1 cannot reuse this run: this collected artifact records no "
                f"{' and no '.join(missing)}; its collector records {', '.join(EVIDENCE)} of every artifact it "
                "collects, and reuse measures the stored copy against them",
            )


def legacy_result(data: Any) -> Iterator[Finding]:
    """An attempt of an agentcompass.task.v2 task: the v3 rules, and whether the reader can convert it."""
    yield from attempt(data)
    if not isinstance(data, dict) or set(data) <= {"retry_count"}:
        return  # a retry-only attempt is not an observation, and is not converted
    from ..records._legacy import derived_issues  # lazy: it imports the credential vocabulary (start-up time)

    reason = derived_issues(data)
    if isinstance(reason, str):
        yield Finding(
            "/error" if "error" in data else "/status",
            "legacy.unclassifiable",
            f"AgentCompass 1.0.1 cannot convert this v2 attempt: {reason}. It refuses to read the whole task "
            '("re-execution is required"); `agentbeats-spec migrate` leaves the task as it is',
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
