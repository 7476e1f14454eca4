"""Secret scanning: credentials left in run files, found by member name and by shape.

Two rules, documented in docs/security.md:

- a member whose name is credential-like (``api_key``, ``token``, ``password``, ``secret_key``, ``authorization``,
  ``cookie``, ``OPENAI_API_KEY``, …, compared after folding case and separators) holding a non-empty string that
  is not a placeholder (``********``) or a reference (``${OPENAI_API_KEY}``);
- any string whose text has the shape of a well-known credential (provider API keys, cloud access keys, bearer
  tokens, private key blocks, JWTs, passwords in URLs).

A finding never shows the secret: messages carry its first characters, its length and a fingerprint (the first
16 hex digits of its SHA-256), which an allow-list file names to silence a finding a person has reviewed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from . import _limits
from ._issues import Finding
from ._pointers import to_pointer
from ._redact import EVALUATION_FACTS, is_placeholder, normalized

# Fewer names than redaction uses: a finding must be worth a person's time. Names such as eos_token or
# sort_key hold no secret; a real token under any name is still found by its shape.
CREDENTIAL_NAMES = frozenset(
    {
        "api_key", "apikey", "access_key", "secret", "secret_key", "client_secret", "token", "access_token",
        "refresh_token", "auth_token", "id_token", "session_token", "password", "passwd", "authorization",
        "proxy_authorization", "cookie", "set_cookie", "private_key", "credential", "aksk", "jwt",
    }
)  # fmt: skip
CREDENTIAL_SUFFIXES = (
    "_api_key", "_apikey", "_access_key", "_secret_key", "_private_key", "_client_secret", "_password", "_passwd",
    "_access_token", "_auth_token", "_refresh_token", "_session_token",
)  # fmt: skip


def is_credential_name(name: str) -> bool:
    key = normalized(name)
    return key in CREDENTIAL_NAMES or key.endswith(CREDENTIAL_SUFFIXES)


SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("an Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("an OpenAI API key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("a GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("an AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("a Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("a Stripe secret key", re.compile(r"\b(?:sk|rk)_live_[A-Za-z0-9]{16,}")),
    ("a Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    ("a bearer token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}")),
    ("a private key block", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----")),
    ("a JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("a URL with a password", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@\"']+:[^\s/@\"']{3,}@")),
)


def fingerprint(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def mask(secret: str) -> str:
    """Enough to recognise a secret, never enough to use it."""
    shown = secret[:4] if len(secret) >= 12 else ""
    return f"{shown}…({len(secret)} characters)"


def shape_of(text: str) -> tuple[str, re.Match[str]] | None:
    for name, pattern in SHAPES:
        match = pattern.search(text)
        if match is not None:
            return name, match
    return None


@attrs.frozen
class AllowList:
    """Fingerprints of findings a person has reviewed and accepted, one per line (``#`` starts a comment)."""

    fingerprints: frozenset[str] = frozenset()

    @classmethod
    def read(cls, path: Path) -> AllowList:
        found = set()
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = line.split("#", 1)[0].strip().lower()
            if entry:
                found.add(entry)
        return cls(frozenset(found))

    def allows(self, secret: str) -> bool:
        return fingerprint(secret) in self.fingerprints


def active() -> AllowList | None:
    """The allow-list of the scan running alongside validation, or None when secrets are not scanned."""
    allow: AllowList | None = _limits.secrets_allow()
    return allow


scanning = _limits.scanning


def scan_data(value: Any, allow: AllowList = AllowList()) -> Iterator[Finding]:
    """Findings in a parsed document, with their pointers."""
    yield from _scan(value, (), allow, in_fact=False)


def _scan(value: Any, path: tuple[str, ...], allow: AllowList, *, in_fact: bool) -> Iterator[Finding]:
    if isinstance(value, dict):
        for key, item in value.items():
            inner = (*path, key)
            fact = in_fact or key in EVALUATION_FACTS
            if isinstance(item, str) and is_credential_name(key) and not is_placeholder(item):
                if not allow.allows(item):
                    yield _finding(inner, f"the credential member {key!r} holds a value", item, fact)
                continue
            yield from _scan(item, inner, allow, in_fact=fact)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _scan(item, (*path, str(index)), allow, in_fact=in_fact)
    elif isinstance(value, str) and len(value) >= 16:
        found = shape_of(value)
        if found is not None and not allow.allows(found[1].group()):
            yield _finding(path, f"the string holds what looks like {found[0]}", found[1].group(), in_fact)


def _finding(path: tuple[str, ...], what: str, secret: str, fact: bool) -> Finding:
    note = "; it is an evaluation fact: review it (redaction leaves facts as they are)" if fact else (
        "; remove it or run agentbeats-spec redact"
    )  # fmt: skip
    return Finding(
        to_pointer(path),
        "security.secret",
        f"{what}: {mask(secret)}, fingerprint {fingerprint(secret)}{note}",
    )


def scan_text(text: str, allow: AllowList = AllowList()) -> Iterator[Finding]:
    """Findings in a text file that is no JSON or TOML document, by line and column."""
    for number, line in enumerate(text.splitlines(), 1):
        if len(line) < 16:
            continue
        for name, pattern in SHAPES:
            for match in pattern.finditer(line):
                if not allow.allows(match.group()):
                    yield Finding(
                        "",
                        "security.secret",
                        f"the line holds what looks like {name}: {mask(match.group())}, "
                        f"fingerprint {fingerprint(match.group())}; remove it",
                        line=number,
                        column=match.start() + 1,
                    )
                break


def mask_shapes(text: str, placeholder: str) -> str:
    for _, pattern in SHAPES:
        text = pattern.sub(placeholder, text)
    return text
