"""Secret scanning: credentials left in run files, found by member name and by shape.

Two rules, documented in docs/security.md:

- a member whose name is credential-like (``api_key``, ``token``, ``password``, ``secret_key``, ``authorization``,
  ``cookie``, ``OPENAI_API_KEY``, …, compared after folding case and separators) holding a non-empty string that
  is not a placeholder (``********``) or a reference (``${OPENAI_API_KEY}``);
- any string whose text has the shape of a well-known credential (provider API keys and tokens, cloud keys and
  signatures, webhook URLs, bearer tokens and Basic credentials, private keys, JWTs, passwords in URLs and
  ``.netrc`` files, credentials assigned in a shell), each secret of a string a finding of its own.

Each finding carries the secret's ``secret_id`` (its baseline type and SHA-1), by which ``scan --baseline``
(``_baseline``) knows the findings a team reviewed.

The names and shapes are the scan's entries of the one vocabulary (``vocabulary._secrets``). One search (``secrets_in``,
``text_secrets``) serves the scan and the ``redact`` command, so that redact removes exactly what the scan finds.
The AgentCompass writer's redaction, which ``write_task`` reproduces, decides by the writer's entries
(``records._persisted``).

A finding never shows the secret: messages carry its mask (``vocabulary._secrets.mask``: its first characters, and its
length only when it is long) and a fingerprint keyed with the allow-list's key (``_keys``), which an allow-list file
names to silence a finding a person has reviewed. A member name is searched by shape as a string is: a key that is
itself a token is a finding at that member.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Iterator
from typing import Any

import attrs

from ..reading._pointers import to_pointer
from ..reading._trusted import read_trusted
from ..vocabulary._issues import Anchor, Finding, SpecError
from ..vocabulary._secrets import (
    EVALUATION_FACTS,
    SCAN_SHAPES,
    Shape,
    is_basic_credentials_member,
    is_credential_name_for_scan,
    is_placeholder,
    mask,
    shape_matches,
)
from ..vocabulary._settings import AllowList
from ..vocabulary._text import printable
from . import _keys

# The baseline type of a secret found by a member's name (detect-secrets' name for a secret found by keyword).
BY_NAME = "Secret Keyword"


NOTHING_ALLOWED = AllowList()


@attrs.frozen
class Secret:
    """One credential in a document or a line: where it is and what it looks like (never shown as it is)."""

    path: tuple[str, ...]
    what: str
    text: str
    # Where the secret is inside the string value (or the line); None when the whole value is the secret.
    span: tuple[int, int] | None
    fact: bool = False
    # What a .secrets.baseline entry calls it (``type``), detect-secrets' name where it has one.
    baseline_type: str = BY_NAME
    # Whether the secret is in the name of the member at ``path`` (its span inside the name), not in its value.
    in_name: bool = False


def shape_spans(text: str, allow: AllowList = NOTHING_ALLOWED) -> list[tuple[int, int, str]]:
    """Every credential shape in a string, as (start, end, what), the secret alone in each span."""
    return [(start, end, SCAN_SHAPES[rank].what) for start, end, rank in _shape_spans(text, allow)]


def _shape_spans(text: str, allow: AllowList, only: int | None = None) -> list[tuple[int, int, int]]:
    """Every credential shape in a string that ``allow`` does not allow (see ``vocabulary._secrets.shape_matches``)."""
    return shape_matches(text, allow.allows if allow.fingerprints else None, only)


def secrets_in(value: Any, allow: AllowList = NOTHING_ALLOWED) -> Iterator[Secret]:
    """Every credential in a parsed document: by member name (the whole string), by shape (in any string), and by
    shape in member names (a key that is itself a token)."""
    yield from _walk(value, (), allow, fact=False, names={})


# How many member names a scan remembers the search of: a document's names are few and repeat in every item.
_NAMES_KEPT = 4096


def _walk(
    value: Any, path: tuple[str, ...], allow: AllowList, *, fact: bool, names: dict[str, list[tuple[int, int, int]]]
) -> Iterator[Secret]:
    """``names``: the shapes found in each member name so far (names repeat in every item of a list: searched once)."""
    if isinstance(value, dict):
        for key, item in value.items():
            inner = (*path, key)
            in_fact = fact or key in EVALUATION_FACTS
            spans = names.get(key)
            if spans is None:
                spans = _shape_spans(key, allow)
                if len(names) < _NAMES_KEPT:  # a document of a million distinct names keeps no million entries
                    names[key] = spans
            for start, end, rank in spans:
                shape = SCAN_SHAPES[rank]
                what = f"the member's name holds what looks like {shape.what}"
                yield Secret(inner, what, key[start:end], (start, end), in_fact, shape.baseline_type, in_name=True)
            if isinstance(item, str) and is_credential_name_for_scan(key) and not is_placeholder(item):
                if not allow.allows(item):
                    yield Secret(inner, f"the credential member {key!r} holds a value", item, None, in_fact)
                continue
            if isinstance(item, str) and is_basic_credentials_member(key, item):
                if not allow.allows(item):
                    what = f"the member {key!r} holds base64 credentials (user:password)"
                    yield Secret(inner, what, item, None, in_fact, "Basic Auth Credentials")
                continue
            yield from _walk(item, inner, allow, fact=in_fact, names=names)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, (*path, str(index)), allow, fact=fact, names=names)
    elif isinstance(value, str):
        for start, end, rank in _shape_spans(value, allow):
            shape = SCAN_SHAPES[rank]
            what = f"the string holds what looks like {shape.what}"
            yield Secret(path, what, value[start:end], (start, end), fact, shape.baseline_type)


def secret_id(kind: str, secret: str) -> tuple[str, str]:
    """What a ``.secrets.baseline`` names a secret by: its type and the SHA-1 of its text (detect-secrets' hash)."""
    import hashlib  # only a secret scan needs it (see _settings.fingerprint)

    return kind, hashlib.sha1(secret.encode("utf-8", "surrogatepass")).hexdigest()


def scan_data(value: Any, allow: AllowList = NOTHING_ALLOWED) -> Iterator[Finding]:
    """Findings in a parsed document, with their pointers."""
    for secret in secrets_in(value, allow):
        note = "; it is an evaluation fact: review it (redaction leaves facts as they are)" if secret.fact else (
            "; remove it or run agentbeats-spec redact"
        )  # fmt: skip
        yield Finding(
            to_pointer(secret.path),
            "security.secret",
            f"{secret.what}: {mask(secret.text)}, fingerprint {allow.fingerprint(secret.text)}{note}",
            anchor=Anchor.KEY if secret.in_name else Anchor.VALUE,
            secret_id=secret_id(secret.baseline_type, secret.text),
        )


def lines_of(text: str) -> Iterator[tuple[int, int, str]]:
    """(number, offset, line) of every line, split where ``str.splitlines`` splits."""
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        content = line.splitlines()[0] if line else line
        yield number, offset, content
        offset += len(line)


def text_secrets(text: str, allow: AllowList = NOTHING_ALLOWED) -> Iterator[tuple[int, int, int, str, str]]:
    """Credential shapes in a text file that is no JSON or TOML document: (line, column, offset, what, secret)."""
    for number, column, offset, shape, secret in _line_secrets(text, allow):
        yield number, column, offset, shape.what, secret


# A private key in a text file runs over many lines: it is found in the whole text, body and end line with it, so
# that a redacted copy holds none of it; every other shape is found line by line.
_PRIVATE_KEY = next(rank for rank, shape in enumerate(SCAN_SHAPES) if shape.baseline_type == "Private Key")


def _line_secrets(text: str, allow: AllowList) -> Iterator[tuple[int, int, int, Shape, str]]:
    blocks = [
        (start, end)
        for start, end, _ in _shape_spans(text, allow, only=_PRIVATE_KEY)
        if "\n" in text[start:end] or "\r" in text[start:end]
    ]
    starts = [start for start, _ in blocks]
    pending = 0
    for number, offset, line in lines_of(text):
        while pending < len(blocks) and blocks[pending][0] <= offset + len(line):
            start, end = blocks[pending]
            yield number, start - offset + 1, start, SCAN_SHAPES[_PRIVATE_KEY], text[start:end]
            pending += 1
        for start, end, rank in _shape_spans(line, allow):
            if blocks and _inside(blocks, starts, offset + start, offset + end):
                continue  # part of a key already found whole
            yield number, start + 1, offset + start, SCAN_SHAPES[rank], line[start:end]


def _inside(blocks: list[tuple[int, int]], starts: list[int], start: int, end: int) -> bool:
    """Whether a span overlaps one of the blocks (sorted, apart)."""
    index = bisect.bisect_right(starts, start) - 1
    if index >= 0 and blocks[index][1] > start:
        return True
    return index + 1 < len(blocks) and blocks[index + 1][0] < end


def scan_text(text: str, allow: AllowList = NOTHING_ALLOWED) -> Iterator[Finding]:
    """Findings in a text file that is no JSON or TOML document, by line and column."""
    for line, column, _, shape, secret in _line_secrets(text, allow):
        yield Finding(
            "",
            "security.secret",
            f"the line holds what looks like {shape.what}: {mask(secret)}, fingerprint {allow.fingerprint(secret)}; "
            "remove it or run agentbeats-spec redact",
            line=line,
            column=column,
            secret_id=secret_id(shape.baseline_type, secret),
        )


def read_allow_list(path: os.PathLike[str] | str) -> AllowList:
    """An allow-list file, read through the one opener: a link, a FIFO or a device is refused (``OSError``), never
    followed or waited on (the default ``./agentbeats-secrets.allow`` lies in whatever folder the command runs in);
    one that another user owns or others may write is refused (``reading._trusted.Untrusted``). Its fingerprints
    are keyed with the key beside it (``_keys``), made there when missing. An entry that is no fingerprint, or a key
    that is no key: :class:`SpecError`, naming the file."""
    text = read_trusted(path, "allow-list").decode("utf-8")
    try:
        entries = AllowList.parse(text).fingerprints
    except ValueError as error:  # refused before a key is made beside it
        raise SpecError(f"{printable(os.fspath(path), controls=True)}: not an allow-list: {error}") from None
    return AllowList(entries, _keys.read_or_make(_keys.beside(path)), lasting=True)
