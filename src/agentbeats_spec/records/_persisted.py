"""A task detail record as the AgentCompass 1.0.1 writer persists it, and as its reader returns it.

``write_task`` must write what that writer writes for the same record, byte for byte, so it applies what the
writer applies on the way to disk: its record builder's normalizations (``runtime/results/detail.py``: a fixed
member order, ``category: ""`` as ``null``, a lower-case ``strategy``, empty ``meta`` values dropped, zero retry
counts left out) and its redaction (``runtime/config/loader.py`` and ``utils/redaction.py``). ``read_task``
applies the builder's normalizations only, as the reader does.

This redaction is the writer's, kept apart on purpose from the ``redact`` command (``credentials._redact``): it is
decided by member name alone, masks whole values of any type (an ``eos_token``, a ``sort_key`` number, a ``headers``
object), and its names are the writer's entries of the vocabulary (``vocabulary._secrets``), not the scan's.
It reproduces files; it is not a judgement of what is a secret.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from ..vocabulary._secrets import (
    EVALUATION_FACTS,
    PLACEHOLDER,
    WRITER_ENVIRONMENT_NAME,
    WRITER_ENVIRONMENT_SHORTEST,
    WRITER_TEXT_SHAPES,
    is_credential_name_for_writer,
    is_kept_by_writer,
    is_writer_container,
)

_RECORD_ORDER = ("task_id", "category", "ground_truth", "attempt_plan", "retry_count", "retry_counts", "attempts")
_ATTEMPT_ORDER = ("status", "metrics", "final_answer", "trajectory", "issues", "artifacts", "analysis_result")
_ISSUE_ORDER = ("severity", "phase", "code", "message")
# Attempt members the builder writes as {} when they are empty in any way.
_OBJECTS = ("trajectory", "artifacts", "analysis_result")


def persisted(record: dict[str, Any]) -> dict[str, Any]:
    """What the writer persists of a valid task detail record: built, redacted, and built again (as it does)."""
    return shaped(redacted(shaped(record)))


def shaped(record: dict[str, Any]) -> dict[str, Any]:
    """The record builder's normalizations of a task detail record (of its schema-valid parts: what is not is
    left as it is, for the validation that follows to report)."""
    data = {name: record[name] for name in _RECORD_ORDER}
    if data["category"] == "":
        data["category"] = None
    plan = data["attempt_plan"]
    if isinstance(plan, dict) and set(plan) == {"k", "strategy"} and isinstance(plan["strategy"], str):
        data["attempt_plan"] = {"k": plan["k"], "strategy": plan["strategy"].strip().lower()}
    counts = data["retry_counts"]
    data["retry_counts"] = {key: counts[key] for key in sorted(counts, key=int) if counts[key]}
    attempts = data["attempts"]
    data["attempts"] = {key: _attempt(attempts[key]) for key in sorted(attempts, key=int)}
    return data


def _attempt(payload: dict[str, Any]) -> dict[str, Any]:
    result = {name: payload[name] for name in _ATTEMPT_ORDER if name in payload}
    result.update({name: value for name, value in payload.items() if name not in result})
    if isinstance(result.get("status"), str):
        result["status"] = result["status"].strip()
    for name in _OBJECTS:
        if name in result and _empty(result[name]):
            result[name] = {}
    if isinstance(result.get("issues"), list):
        result["issues"] = [_issue(issue) if isinstance(issue, dict) else issue for issue in result["issues"]]
    meta = payload.get("meta")
    if isinstance(meta, dict) and set(meta) <= {"benchmark", "harness"}:
        result["meta"] = {
            name: _sparse(meta[name]) if isinstance(meta.get(name), dict) else meta.get(name) or {}
            for name in ("benchmark", "harness")
        }
    return result


def _issue(issue: dict[str, Any]) -> dict[str, Any]:
    """An issue as the writer builds it: its members in order, its message masked."""
    result = {name: issue[name] for name in _ISSUE_ORDER if name in issue}
    result.update({name: value for name, value in issue.items() if name not in result})
    if isinstance(result.get("message"), str):
        result["message"] = mask_diagnostics(result["message"])
    return result


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (str, dict, list)) and len(value) == 0)


def _sparse(mapping: dict[str, Any]) -> dict[str, Any]:
    """Extension data without its empty values, at any depth of nested objects (lists are kept as they are)."""
    kept: dict[str, Any] = {}
    for key, value in mapping.items():
        if isinstance(value, dict):
            value = _sparse(value)
        if not _empty(value):
            kept[key] = value
    return kept


def redacted(record: dict[str, Any]) -> dict[str, Any]:
    """The writer's redaction of a shaped record: every attempt member but the evaluation facts, by name."""
    attempts = {}
    for key, payload in record["attempts"].items():
        attempt = {name: value if name in EVALUATION_FACTS else _by_name(value) for name, value in payload.items()}
        artifacts = attempt["artifacts"]
        if isinstance(artifacts.get("execution_diagnostics"), str):
            artifacts["execution_diagnostics"] = mask_diagnostics(artifacts["execution_diagnostics"])
        attempts[key] = attempt
    return {**record, "attempts": attempts}


def _by_name(value: Any) -> Any:
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            if is_writer_container(key):
                result[key] = _everything(item)
            elif is_credential_name_for_writer(key):
                result[key] = _masked(item)
            else:
                result[key] = _by_name(item)
        return result
    if isinstance(value, list):
        return [_by_name(item) for item in value]
    return value


def _everything(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _everything(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_everything(item) for item in value]
    return _masked(value)


def _masked(value: Any) -> Any:
    return value if is_kept_by_writer(value) else PLACEHOLDER


def mask_diagnostics(text: str, environ: Mapping[str, str] | None = None) -> str:
    """The writer's masking of free text: the values of the credential-named environment variables of this process
    (or ``environ``), eight characters or more, then the credential shapes of :func:`mask_text`."""
    for secret in _process_secrets() if environ is None else _secrets(environ.items()):
        text = text.replace(secret, PLACEHOLDER)
    return mask_text(text)


def _secrets(variables: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    return tuple(
        secret
        for name, secret in variables
        if len(secret) >= WRITER_ENVIRONMENT_SHORTEST and WRITER_ENVIRONMENT_NAME.search(name)
    )


_known: list[tuple[frozenset[tuple[bytes, bytes]] | None, tuple[str, ...]]] = [(None, ())]


def _process_secrets() -> tuple[str, ...]:
    """The credential-named values of this process's environment, found again only when it changed: a run's every
    issue message is masked on read, and decoding and matching each variable's name each time cost more than the
    read of the message itself."""
    raw = getattr(os.environ, "_data", None)  # CPython's bytes mapping behind os.environ: compared without decoding
    if not isinstance(raw, dict):
        return _secrets(os.environ.items())
    snapshot = frozenset(raw.items())
    seen, found = _known[0]
    if seen != snapshot:
        found = _secrets(os.environ.items())
        _known[0] = (snapshot, found)
    return found


def mask_text(text: str) -> str:
    """Bearer tokens, ``key=value`` secrets, URL passwords and ``sk-`` keys masked, in the writer's order."""
    for pattern, replacement in WRITER_TEXT_SHAPES:
        text = pattern.sub(replacement, text)
    return text
