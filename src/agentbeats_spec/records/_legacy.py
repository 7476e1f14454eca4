"""agentcompass.task.v2 attempts, converted to v3 the way the AgentCompass 1.0.1 reader converts them on read.

The old ``error`` text moves (redacted) into ``artifacts.execution_diagnostics``; the issue list is derived only
from structured evidence: an incomplete artifact manifest with a failed transfer is a fatal ``collect`` issue, a
judge error beside a boolean ``correct`` (and no score) is a fatal ``evaluate`` issue, and an attempt without an
error that completed, was skipped, cancelled or interrupted has no issue. Any other attempt cannot be classified:
the reader refuses it ("re-execution is required"), and so do :func:`read_task` and ``migrate``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ._persisted import mask_diagnostics

QUIET_STATUSES = ("completed", "skipped", "cancelled", "interrupted")
# Keys whose presence in meta.benchmark.scoring means a score was recorded despite a judge error.
SCORE_KEYS = ("score", "grading", "race", "fact")


def _issue(severity: str, phase: str, code: str, message: str) -> dict[str, str]:
    return {"severity": severity, "phase": phase, "code": code, "message": message}


def derived_issues(payload: Mapping[str, Any]) -> list[dict[str, str]] | str:
    """The issues the reader derives for a v2 payload, or (a string) why it cannot derive any."""
    error = payload.get("error")
    artifacts = payload.get("artifacts")
    manifest = (artifacts.get("declared_artifacts") if isinstance(artifacts, dict) else None) or {}
    meta = payload.get("meta")
    benchmark = payload.get("extra") or (meta.get("benchmark") if isinstance(meta, dict) else None) or {}
    scoring = (benchmark.get("scoring") if isinstance(benchmark, dict) else None) or {}
    if isinstance(manifest, dict) and manifest.get("complete") is False and _has_failed_entry(manifest):
        return [_issue("fatal", "collect", "artifact_transfer_failed", "Historical artifact transfer failure")]
    if (
        isinstance(scoring, dict)
        and scoring.get("error")
        and type(scoring.get("correct")) is bool
        and not any(key in scoring for key in SCORE_KEYS)
    ):
        return [_issue("fatal", "evaluate", "judge_failed", "Historical judge failure")]
    status = payload.get("status")
    if not error and status in QUIET_STATUSES:
        return []
    if error:
        return (
            "it records an error but no structured evidence of how severe it was (an incomplete artifact manifest "
            "with a failed transfer, or a judge error beside a boolean meta.benchmark.scoring.correct and no "
            "score); its error text alone cannot establish a severity"
        )
    return (
        f"its status {status!r} is not one that completes without an issue ({', '.join(QUIET_STATUSES)}), and it "
        "holds no structured evidence of a failure (a failed artifact transfer or a judge failure)"
    )


def _has_failed_entry(manifest: Mapping[str, Any]) -> bool:
    entries = manifest.get("entries", [])
    return isinstance(entries, list) and any(
        isinstance(entry, dict) and entry.get("status") == "failed" for entry in entries
    )


def convert(payload: Mapping[str, Any], *, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The v3 attempt payload a v2 payload (without ``retry_count``) reads as; ValueError when it cannot be.

    The result is shaped as the reader keeps it: the standard fields in their order, empty trajectory, artifacts
    and analysis results as ``{}``, the meta namespaces without empty values.
    """
    issues = derived_issues(payload)
    if isinstance(issues, str):
        raise ValueError(issues)
    result = copy.deepcopy(dict(payload))
    error = result.pop("error", "")
    artifacts = result.get("artifacts")
    artifacts = dict(artifacts) if isinstance(artifacts, dict) else {}
    if error:
        text = "\n".join(part for part in (artifacts.get("execution_diagnostics"), str(error)) if part)
        # the reader masks it with the writer's own function (utils/redaction.py: redact_diagnostic)
        artifacts["execution_diagnostics"] = mask_diagnostics(text, environ)
    meta = result["meta"] if isinstance(result.get("meta"), dict) else {}
    return {
        "status": result.get("status"),
        "metrics": result.get("metrics"),
        "final_answer": result.get("final_answer"),
        "trajectory": _or_empty(result.get("trajectory")),
        "issues": issues,
        "artifacts": artifacts,
        "analysis_result": _or_empty(result.get("analysis_result")),
        "meta": {name: _sparse(meta.get(name)) for name in ("benchmark", "harness")},
    }


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or (isinstance(value, (dict, list)) and not value)


def _or_empty(value: Any) -> Any:
    return {} if _is_empty(value) else value


def _sparse(value: Any) -> dict[str, Any]:
    """A namespace without empty values at any depth of its objects (arrays are kept as they are)."""
    if not isinstance(value, dict):
        return {}
    kept: dict[str, Any] = {}
    for key, item in value.items():
        if isinstance(item, dict):
            nested = _sparse(item)
            if nested:
                kept[key] = nested
        elif not _is_empty(item):
            kept[key] = item
    return kept


def shape_shared(index: Mapping[str, Any]) -> dict[str, Any]:
    """category, ground_truth and attempt_plan as the reader keeps them (no category is null; strategies are
    compared lower-case)."""
    plan = dict(index["attempt_plan"])
    strategy = plan.get("strategy")
    if isinstance(strategy, str):
        plan["strategy"] = strategy.strip().lower()
    category = index.get("category")
    return {
        "category": None if _is_empty(category) else category,
        "ground_truth": copy.deepcopy(index["ground_truth"]),
        "attempt_plan": {"k": plan.get("k"), "strategy": plan.get("strategy")},
    }
