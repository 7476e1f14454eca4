"""Credential redaction: what a writer removes before a run folder is shared.

Values of credential-named members are replaced by a fixed placeholder, and credential shapes inside
diagnostic text (bearer tokens, ``user:password@`` in URLs, ``sk-…`` keys) are masked. Evaluation facts
(``metrics``, ``ground_truth``, ``final_answer``) and task identity are never altered: redaction must not
change what was measured, nor turn a valid value into an invalid one.
"""

from __future__ import annotations

import re
from typing import Any

PLACEHOLDER = "********"
EVALUATION_FACTS = frozenset({"metrics", "ground_truth", "final_answer"})

_SEPARATORS = re.compile(r"[^a-z0-9]+")
# Member names compare after lower-casing and turning every run of other characters into "_". These are the
# reference writer's names: write_task must write what the AgentCompass writer writes.
CREDENTIAL_NAMES = frozenset(
    {"aksk", "token_id", "authorization", "cookie", "jwt", "password", "proxy_authorization", "set_cookie", "token"}
)
CREDENTIAL_SUFFIXES = ("_key", "_secret", "_token", "_jwt", "_password")
# A few more that hold credentials just as often, redacted when a run is prepared for sharing.
SHARING_NAMES = frozenset({"apikey", "secret", "passwd", "credential"})
SHARING_SUFFIXES = ("_passwd", "_apikey", "_credential")
NOT_CREDENTIAL_NAMES = frozenset({"wrap_api_key"})
# Members whose every value is a credential (authentication, headers, environments handed to a task).
CREDENTIAL_CONTAINERS = frozenset(
    {
        "auth", "authentication", "credentials", "headers", "env", "env_variables", "run_env_variables",
        "evaluation_env_variables", "evaluation_environment_env_variables",
    }
)  # fmt: skip
# A value that names where a secret comes from ("${OPENAI_API_KEY}") is not the secret.
_REFERENCE = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$")
_IN_TEXT = (
    (re.compile(r"(?i)(bearer\s+)[^\s\"'<>]+"), r"\1" + PLACEHOLDER),
    (
        re.compile(r"(?i)((?:api[_-]?key|token|secret|password|credential)[\"']?\s*[:=]\s*[\"']?)[^\s\"'&,}]+"),
        r"\1" + PLACEHOLDER,
    ),
    (re.compile(r"(https?://)[^\s/@:]+:[^\s/@]+@"), r"\1" + PLACEHOLDER + "@"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{12,}\b"), PLACEHOLDER),
)


def normalized(name: str) -> str:
    return _SEPARATORS.sub("_", name.strip().lower()).strip("_")


def is_credential_name(name: str, *, sharing: bool = False) -> bool:
    key = normalized(name)
    if key in NOT_CREDENTIAL_NAMES:
        return False
    if key in CREDENTIAL_NAMES or key.endswith(CREDENTIAL_SUFFIXES):
        return True
    return sharing and (key in SHARING_NAMES or key.endswith(SHARING_SUFFIXES))


def is_placeholder(value: Any) -> bool:
    """Nothing to hide: empty, already masked, or a reference to where the secret is kept."""
    if value is None or value == "":
        return True
    if not isinstance(value, str):
        return False
    stripped = value.strip()
    return set(stripped) <= {"*"} or bool(_REFERENCE.match(stripped))


def redact(value: Any, *, sharing: bool = False) -> Any:
    """A redacted copy of a JSON value: every credential member's value becomes the placeholder.

    By default exactly as the reference writer redacts (``write_task`` must write what it writes). With
    ``sharing``, for a copy fit to share: a few more credential names, credential shapes masked in every string,
    and members named ``metrics``, ``ground_truth`` or ``final_answer`` copied as they are at any depth (they are
    evaluation facts: a secret in one is reported by the scan, never changed).
    """
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            if sharing and key in EVALUATION_FACTS:
                result[key] = item
            elif normalized(key) in CREDENTIAL_CONTAINERS:
                result[key] = _redact_all(item)
            elif is_credential_name(key, sharing=sharing):
                result[key] = _secret(item)
            else:
                result[key] = redact(item, sharing=sharing)
        return result
    if isinstance(value, list):
        return [redact(item, sharing=sharing) for item in value]
    if sharing and isinstance(value, str):
        from ._secrets import mask_shapes

        return mask_shapes(value, PLACEHOLDER)
    return value


def mask_text(text: str) -> str:
    for pattern, replacement in _IN_TEXT:
        text = pattern.sub(replacement, text)
    return text


def _secret(value: Any) -> Any:
    return value if is_placeholder(value) else PLACEHOLDER


def _redact_all(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _redact_all(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact_all(item) for item in value]
    return _secret(value)


def redact_attempt(payload: dict[str, Any]) -> dict[str, Any]:
    """An attempt payload with everything but its evaluation facts redacted.

    Free text is masked only where it is diagnostics (issue messages, ``execution_diagnostics``); a
    trajectory's text is what the agent saw and said, and is left as it was.
    """
    result = {key: item if key in EVALUATION_FACTS else redact(item) for key, item in payload.items()}
    issues = result.get("issues")
    if isinstance(issues, list):
        result["issues"] = [
            {**issue, "message": mask_text(issue["message"])}
            if isinstance(issue, dict) and isinstance(issue.get("message"), str)
            else issue
            for issue in issues
        ]
    artifacts = result.get("artifacts")
    if isinstance(artifacts, dict) and isinstance(artifacts.get("execution_diagnostics"), str):
        result["artifacts"] = {**artifacts, "execution_diagnostics": mask_text(artifacts["execution_diagnostics"])}
    return result


def redact_task_detail(record: dict[str, Any]) -> dict[str, Any]:
    """A task detail record redacted the way the AgentCompass writer persists it."""
    result = dict(record)
    attempts = record.get("attempts")
    if isinstance(attempts, dict):
        result["attempts"] = {
            number: redact_attempt(payload) if isinstance(payload, dict) else payload
            for number, payload in attempts.items()
        }
    return result
