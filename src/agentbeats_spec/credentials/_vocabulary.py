"""The one vocabulary of credentials: names, shapes, placeholders, references and environment variables.

Two readers decide by it. The scan (``_scan``, and ``redact``, which removes exactly what the scan finds) is ours:
a finding must be worth a person's time. The AgentCompass 1.0.1 writer's redaction (``records._persisted``, which
``write_task`` reproduces byte for byte) is not ours: its rules are those of ``runtime/config/loader.py`` and
``utils/redaction.py`` in that release, and change only with it. Each fact is stated here once; where the two
decide differently on purpose, the vocabulary has two entries, named for their reader (``SCAN_…``, ``WRITER_…``),
with the reason beside them.
"""

from __future__ import annotations

import re
from typing import Any

# What a secret becomes, in the writer's files and in a redacted copy alike.
PLACEHOLDER = "********"

# Members named so hold what was measured: the writer copies them verbatim, the scan reports what they hold and
# redaction leaves it as it is.
EVALUATION_FACTS = frozenset({"metrics", "ground_truth", "final_answer"})

_SEPARATORS = re.compile(r"[^a-z0-9]+")


def normalized(name: str) -> str:
    """A member name as credential names are compared (by both, as the writer does): lower case, every run of
    other characters one ``_``."""
    return _SEPARATORS.sub("_", name.strip().lower()).strip("_")


# --- names ---------------------------------------------------------------------------------------------------------

# The scan's names: fewer than the writer masks. Names such as eos_token or sort_key hold no secret (the writer
# masks them for their _token and _key suffixes); a real token under any name is still found by its shape.
SCAN_NAMES = frozenset(
    {
        "api_key", "apikey", "access_key", "secret", "secret_key", "client_secret", "token", "access_token",
        "refresh_token", "auth_token", "id_token", "session_token", "password", "passwd", "authorization",
        "proxy_authorization", "cookie", "set_cookie", "private_key", "credential", "aksk", "jwt",
    }
)  # fmt: skip
SCAN_SUFFIXES = (
    "_api_key", "_apikey", "_access_key", "_secret_key", "_private_key", "_client_secret", "_password", "_passwd",
    "_access_token", "_auth_token", "_refresh_token", "_session_token",
)  # fmt: skip

# The writer's names (loader.py: _SENSITIVE_EXACT_KEYS, _SENSITIVE_SUFFIXES, _NON_SENSITIVE_EXACT_KEYS). Broader by
# suffix (_key, _token: eos_token, sort_key), narrower by name (no secret, no credential): the writer's choice.
WRITER_NAMES = frozenset(
    {"aksk", "token_id", "authorization", "cookie", "jwt", "password", "proxy_authorization", "set_cookie", "token"}
)
WRITER_SUFFIXES = ("_key", "_secret", "_token", "_jwt", "_password")
# wrap_api_key is one of the writer's model settings (a boolean), not a key; the scan needs no such exception, as it
# reports strings only.
WRITER_NOT_NAMES = frozenset({"wrap_api_key"})
# Members whose every value the writer masks, whatever their names (loader.py: _SENSITIVE_CONTAINER_KEYS): the scan
# reports what is in them by name and shape only, as a header or an environment may hold ordinary values.
WRITER_CONTAINERS = frozenset(
    {
        "auth", "authentication", "credentials", "headers", "env", "env_variables", "run_env_variables",
        "evaluation_env_variables", "evaluation_environment_env_variables",
    }
)  # fmt: skip


def is_credential_name_for_scan(name: str) -> bool:
    """Whether a string under this name is reported (and so redacted by ``redact``) unless it is a placeholder."""
    key = normalized(name)
    return key in SCAN_NAMES or key.endswith(SCAN_SUFFIXES)


def is_credential_name_for_writer(name: str) -> bool:
    """Whether the AgentCompass writer masks the value of a member of this name (``eos_token`` included)."""
    key = normalized(name)
    return key not in WRITER_NOT_NAMES and (key in WRITER_NAMES or key.endswith(WRITER_SUFFIXES))


def is_writer_container(name: str) -> bool:
    """Whether the AgentCompass writer masks every value inside a member of this name."""
    return normalized(name) in WRITER_CONTAINERS


# --- values that are no secret -------------------------------------------------------------------------------------

# A value naming where a secret comes from ("${OPENAI_API_KEY}") is not the secret; both compare it with the value
# stripped of white space (loader.py: _ENV_REF_RE).
REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def is_reference(value: str) -> bool:
    return REFERENCE.fullmatch(value.strip()) is not None


def is_placeholder(value: Any) -> bool:
    """For the scan, nothing to hide: empty, already masked (only ``*``), or a reference."""
    if value is None or value == "":
        return True
    if not isinstance(value, str):
        return False
    return set(value.strip()) <= {"*"} or is_reference(value)


def is_kept_by_writer(value: Any) -> bool:
    """For the writer, only ``null``, ``""`` and a reference stay (loader.py: redact_secret_value).

    It masks ``"**"`` and ``"  "`` anew, which the scan takes for placeholders: masking a mask changes nothing a
    person could use, so the scan does not report one.
    """
    return value is None or value == "" or (isinstance(value, str) and is_reference(value))


# --- shapes --------------------------------------------------------------------------------------------------------

# An sk- key, as the writer masks it in free text (utils/redaction.py) and as the scan reports it. One entry: the
# scan once asked for 20 characters without the closing boundary, for no reason but a guess; a key the writer
# hides in what it writes is one the scan must report in a file the writer never touched (a log, a v2 error).
SK_KEY = re.compile(r"\bsk-[A-Za-z0-9_-]{12,}\b")

# The scan's shapes, each with the group that is the secret itself (a bearer token without "Bearer", a URL's
# password alone). On the same start, the shape listed first wins (sk-ant- before sk-).
SCAN_SHAPES: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("an Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), 0),
    ("an OpenAI API key", SK_KEY, 0),
    ("a GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"), 0),
    ("an AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), 0),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), 0),
    ("a Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), 0),
    ("a Stripe secret key", re.compile(r"\b(?:sk|rk)_live_[A-Za-z0-9]{16,}"), 0),
    ("a Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}"), 0),
    # The writer masks whatever follows "Bearer"; the scan wants a token's length, so prose ("Bearer short") is
    # no finding.
    ("a bearer token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{16,})"), 1),
    ("a private key block", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"), 0),
    ("a JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0),
    # Any scheme, a password of three characters or more, one already masked (only "*") not one; the writer
    # masks http(s) URLs only, user name included.
    ("a URL with a password", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@\"']+:(?!\*+@)([^\s/@\"']{3,})@"), 1),
)
# Shorter strings and lines are not searched by the scan: every shape but a URL with a short password needs this
# many characters at least (an sk- key of 12).
SCAN_SHORTEST = 15

# The writer's masking of free text (issue messages, execution_diagnostics; utils/redaction.py), in its order:
# broader than the scan (any "key=value" secret, any bearer token), as a writer may hide more than is reported.
WRITER_TEXT_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?i)(bearer\s+)[^\s\"'<>]+"), r"\1" + PLACEHOLDER),
    (
        re.compile(r"(?i)((?:api[_-]?key|token|secret|password|credential)[\"']?\s*[:=]\s*[\"']?)[^\s\"'&,}]+"),
        r"\1" + PLACEHOLDER,
    ),
    (re.compile(r"(https?://)[^\s/@:]+:[^\s/@]+@"), r"\1" + PLACEHOLDER + "@"),
    (SK_KEY, PLACEHOLDER),
)

# --- environment variables -----------------------------------------------------------------------------------------

# The environment variables whose values the writer (and the v2 reader) masks in free text: named like a
# credential, their value WRITER_ENVIRONMENT_SHORTEST characters or more (utils/redaction.py). The scan never reads
# the environment: it judges files, wherever they were written.
WRITER_ENVIRONMENT_NAME = re.compile(r"(?:API_?KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
WRITER_ENVIRONMENT_SHORTEST = 8
