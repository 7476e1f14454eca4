"""What the walk keeps of each published task for the recomputation, and a run's report recomputed from that.

The walk reads each task once; its fact (``layouts._run_facts.task_facts``) carries :func:`task_value`: the task's
category, its attempt plan and, per attempt the summary reads, the status, the metrics and the severities of the
issues. :func:`recompute_run` turns the facts of one run into the report, in the order 1.0.1 loads the tasks
(``layout.result_files``: normal, error, fatal, then the older ``details/<task>/`` folders, each sorted by name).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ._recompute import Attempt, Recomputation, Refused, TaskScore, declared_contract, standard_contract
from ._report import recompute

_ORDER = ("normal", "error", "fatal")
_LEGACY_DONE = frozenset({"completed", "skipped", "cancelled", "interrupted"})


def task_value(data: Mapping[str, Any], payloads: Mapping[str, Any], legacy: bool) -> dict[str, Any]:
    """One published task as the recomputation needs it (JSON, for its fact): ``payloads`` are its attempts'
    result.json objects by attempt key. An attempt whose result holds only ``retry_count`` is no attempt to the
    summary (``layout.read_result`` drops it); an agentcompass.task.v2 attempt's issues are the ones 1.0.1's
    conversion gives it (``legacy.convert_legacy_attempt``)."""
    attempts: dict[str, Any] = {}
    for key, payload in payloads.items():
        if not isinstance(payload, Mapping) or not set(payload) - {"retry_count"}:
            continue
        if legacy:
            severities = legacy_severities(payload)
            if severities is None:
                attempts[key] = {"refused": "a v2 attempt 1.0.1 cannot classify (LegacyClassificationUnknown)"}
                continue
        else:
            issues = payload.get("issues")
            listed = issues if isinstance(issues, list) else []
            severities = [
                issue["severity"]
                for issue in listed
                if isinstance(issue, Mapping) and isinstance(issue.get("severity"), str)
            ]
        attempts[key] = {"status": payload.get("status"), "metrics": payload.get("metrics"), "severities": severities}
    return {"category": data.get("category"), "plan": data.get("attempt_plan"), "attempts": attempts}


def legacy_severities(payload: Mapping[str, Any]) -> list[str] | None:
    """The severities ``convert_legacy_attempt`` gives a v2 attempt from its historical evidence (None: it
    raises): a failed artifact transfer or a judge failure is fatal; a finished attempt without error has none."""
    try:
        error = payload.get("error", "")
        artifacts = payload.get("artifacts") or {}
        extra = payload.get("extra") or (payload.get("meta") or {}).get("benchmark") or {}
        manifest = artifacts.get("declared_artifacts") or {}
        scoring = extra.get("scoring") or {}
        entries = manifest.get("entries", []) if isinstance(manifest, dict) else []
        failed = any(isinstance(entry, dict) and entry.get("status") == "failed" for entry in entries)
        if isinstance(manifest, dict) and manifest.get("complete") is False and failed:
            return ["fatal"]
        if (
            isinstance(scoring, dict) and scoring.get("error") and type(scoring.get("correct")) is bool
            and not any(key in scoring for key in ("score", "grading", "race", "fact"))
        ):  # fmt: skip
            return ["fatal"]
        if not error and payload.get("status") in _LEGACY_DONE:
            return []
    except (AttributeError, TypeError):
        return None  # the conversion raises on such a payload as well
    return None


def _place(file: str) -> tuple[int, str]:
    """Where ``result_files`` puts a task: by its state folder, then its folder's name."""
    parts = re.split(r"[/\\]", file)
    state = parts[-3] if len(parts) >= 3 else ""
    rank = _ORDER.index(state) if state in _ORDER and len(parts) >= 4 and parts[-4] == "details" else len(_ORDER)
    return rank, parts[-2] if len(parts) >= 2 else ""


def task_scores(tasks: Sequence[tuple[str, str, Mapping[str, Any]]]) -> list[TaskScore]:
    """The tasks ``(file of task.json, task id, task_value)`` in the order 1.0.1 loads them."""
    found: list[TaskScore] = []
    seen: set[str] = set()
    for _, task_id, value in sorted(tasks, key=lambda each: _place(each[0])):
        if task_id in seen:
            raise Refused(f"task {task_id!r} has more than one result folder")
        seen.add(task_id)
        attempts = {}
        for key, attempt in value.get("attempts", {}).items():
            if "refused" in attempt:
                raise Refused(f"task {task_id!r}, attempt {key}: {attempt['refused']}")
            attempts[key] = Attempt(attempt.get("status"), attempt.get("metrics"), tuple(attempt.get("severities", ())))
        if not attempts:
            raise Refused(f"task {task_id!r} has no attempt with a result (attempts must be a non-empty mapping)")
        found.append(TaskScore(task_id, value.get("category"), value.get("plan"), attempts))
    return found


def recompute_run(
    tasks: Sequence[tuple[str, str, Mapping[str, Any]]],
    report: Mapping[str, Any] | None,
    plan: Mapping[str, Any] | None,
) -> Recomputation:
    """The report 1.0.1's summary writes for a run: with ``report`` (its metrics.json), of the contract, series and
    aggregation it declares; without, of the standard contract of what the tasks record, aggregated over the run.
    ``plan``: run_info.json's ``request.execution.attempts``, normalized (k and strategy)."""
    if plan is None:
        raise Refused("run_info.json gives no attempt plan (request.execution.attempts), which the summary uses")
    k, strategy = plan["k"], plan["strategy"]
    scores = task_scores(tasks)
    if report is None:
        return recompute(scores, standard_contract(scores, k, strategy), k, strategy, "micro_weighted")
    series = report.get("series")
    listed = series if isinstance(series, list) else []
    hierarchy = [item.get("hierarchy") or {} for item in listed if isinstance(item, Mapping)]
    aggregation = report.get("aggregation")
    return recompute(scores, declared_contract(report), k, strategy, str(aggregation), hierarchy)
