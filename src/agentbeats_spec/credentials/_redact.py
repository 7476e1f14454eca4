"""The ``redact`` command and function: a copy fit to share, with exactly what ``scan`` finds removed.

Every secret the scan reports (``_scan.secrets_in``, ``_scan.text_secrets``) becomes ``********`` and nothing
else changes: a credential member's string as a whole, a credential shape where it sits inside any other string.
A member whose name holds a credential shape is renamed, the shape replaced as in a string, and keeps its value
(which is redacted as any other); where the new name is already taken in its object, ``-2``, ``-3``… is added, so
that the copy holds unique members and reads as the original did. TOML keys are not renamed: a TOML file with a
secret in a key is refused (its keys may be spelled in many places: table headers, dotted keys).
Whatever the scan does not report stays, whatever its name: a table, an object, a list, a number or a boolean
under a credential-like name, an ``eos_token``, a ``max_tokens``. Evaluation facts are reported by the scan and
left as they are (redaction must not change what was measured).

A file is edited at the characters of its secrets, so everything else (comments, order, spacing, escapes, a byte
order mark, bytes that are not UTF-8 in a text file) comes out byte for byte; a file with nothing to redact comes
out identical. The AgentCompass writer's own redaction, which ``write_task`` reproduces, is another thing with
other names (``records._persisted``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..reading import _documents, _json, _toml
from ..reading._pointers import to_pointer
from ..vocabulary._issues import SpecError
from ..vocabulary._secrets import PLACEHOLDER, masked
from ..vocabulary._settings import AllowList
from ._scan import NOTHING_ALLOWED, Secret, secrets_in, text_secrets

_BOM = b"\xef\xbb\xbf"


# What a parsed document is made of; anything else (bytes, a path, an open file) would come back unchanged, secrets
# and all, so it is refused.
_PARSED = (dict, list, str, int, float, bool, type(None))


def redact_data(value: Any, allow: AllowList = NOTHING_ALLOWED) -> Any:
    """A copy of a parsed document with every secret the scan reports outside evaluation facts replaced."""
    if not isinstance(value, _PARSED):
        raise TypeError(
            f"cannot redact a {type(value).__name__}: pass a model of an artifact or a parsed document (a dict, a "
            "list or a str); parse bytes or a file's text first (json.loads)"
        )
    secrets = [secret for secret in secrets_in(value, allow) if not secret.fact]
    edits = _by_path(secret for secret in secrets if not secret.in_name)
    return _copy(value, (), edits, new_names(value, secrets))


def _by_path(secrets: Iterable[Secret]) -> dict[tuple[str, ...], list[Secret]]:
    edits: dict[tuple[str, ...], list[Secret]] = {}
    for secret in secrets:
        edits.setdefault(secret.path, []).append(secret)
    return edits


def new_names(data: Any, secrets: Iterable[Secret]) -> dict[tuple[str, ...], str]:
    """The new name of each member whose name holds a secret: the secrets replaced, made unique in its object."""
    named = _by_path(secret for secret in secrets if secret.in_name)
    parents: dict[tuple[str, ...], None] = dict.fromkeys(path[:-1] for path in named)
    renamed: dict[tuple[str, ...], str] = {}
    for parent in parents:
        members = _value_at(data, parent)
        taken = {key for key in members if (*parent, key) not in named}
        for key in members:
            path = (*parent, key)
            if path in named:
                name = candidate = _masked(key, named[path])
                number = 1
                while candidate in taken:
                    number += 1
                    candidate = f"{name}-{number}"
                taken.add(candidate)
                renamed[path] = candidate
    return renamed


def _copy(
    value: Any,
    path: tuple[str, ...],
    edits: dict[tuple[str, ...], list[Secret]],
    names: dict[tuple[str, ...], str],
) -> Any:
    if path in edits:
        return _masked(value, edits[path])
    if isinstance(value, dict):
        return {names.get((*path, key), key): _copy(item, (*path, key), edits, names) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item, (*path, str(index)), edits, names) for index, item in enumerate(value)]
    return value


def _masked(value: str, secrets: list[Secret]) -> str:
    spans = [secret.span for secret in secrets]
    if any(span is None for span in spans):
        return PLACEHOLDER
    result, last = [], 0
    for start, end in _merged(span for span in spans if span is not None):
        result += [value[last:start], PLACEHOLDER]
        last = end
    return "".join([*result, value[last:]])


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def redact_file(path: Path, raw: bytes, allow: AllowList = NOTHING_ALLOWED) -> tuple[bytes, str | None, int]:
    """The redacted bytes of a file the scan searches, a note for the user when there is one, and how many
    secrets were left in place because they sit in evaluation facts (the scan still reports those).

    A ``.json`` or ``.toml`` file is redacted as a document when it can be read, otherwise as text, as ``scan``
    searches it. Raises :class:`SpecError` for a file it must not touch: binary, or a JSON document with a
    duplicate member (the value it hides is seen by no scan).
    """
    if path.suffix in (".json", ".toml"):
        syntax = _documents.syntax_of(path)
        document = _documents.read(raw, syntax)
        duplicate = next((finding for finding in document.findings if finding.code == "json.duplicate-key"), None)
        if document.readable and duplicate is None:
            secrets = list(secrets_in(document.data, allow))
            kept = [secret for secret in secrets if secret.fact]
            return redact_document(document, raw, secrets), _kept_note(path, kept), len(kept)
        first = duplicate or next((finding for finding in document.findings if finding.severity == "error"), None)
        where = f":{first.line}:{first.column}" if first is not None and first.line else ""
        reason = first.message if first is not None else "unreadable"
        if duplicate is not None:
            raise SpecError(f"{path}{where}: {reason}; the value it hides cannot be checked: not redacted")
        note: str | None = f"{path}{where}: not a readable {syntax.upper()} document ({reason}); redacted as text"
    else:
        note = None
    if b"\x00" in raw[:8192]:
        raise SpecError(f"{path}: a binary file, which scan does not search: not redacted")
    return redact_text_bytes(raw, allow), note, 0


def _kept_note(path: Path, kept: list[Secret]) -> str | None:
    # Redaction never alters what was measured, so a secret inside a fact stays: the user must be told, since the
    # copy is then not fit to share as it is.
    if not kept:
        return None
    where = ", ".join(to_pointer(secret.path) or "/" for secret in kept[:3]) + (", ..." if len(kept) > 3 else "")
    return (
        f"{path}: {len(kept)} secret(s) left in evaluation facts, which redaction never alters ({where}); "
        "review them with agentbeats-spec scan before sharing"
    )


def redact_text_bytes(raw: bytes, allow: AllowList = NOTHING_ALLOWED) -> bytes:
    """A text file with every credential shape the scan finds replaced; every other byte as it was."""
    text = raw.decode("utf-8", "surrogateescape")
    edits = [(offset, offset + len(secret)) for _, _, offset, _, secret in text_secrets(text, allow)]
    return _edited(text, [(start, end, PLACEHOLDER) for start, end in _merged(edits)]).encode(
        "utf-8", "surrogateescape"
    )


def redact_document(document: _documents.Document, raw: bytes, secrets: Iterable[Secret]) -> bytes:
    """A JSON or TOML document's bytes with the given secrets (those outside facts) replaced in place, and the
    members whose names hold one renamed (JSON only: see the module's note)."""
    outside = [secret for secret in secrets if not secret.fact]
    edits = _by_path(secret for secret in outside if not secret.in_name)
    names = new_names(document.data, outside)
    if not edits and not names:
        return raw
    if names and document.syntax != "json":
        where = to_pointer(next(iter(names))) or "/"
        raise SpecError(
            f"the member name at {masked(where)} holds a secret, and TOML keys are not renamed; not redacted"
        )
    text = document.text
    assert text is not None  # a document read from bytes keeps its source
    wanted = set(edits) | set(names)
    located = _json.locate(text, wanted) if document.syntax == "json" else _toml.locate(text, wanted)
    replacements = []
    for path, found in edits.items():
        place = located.get(path)
        if place is None:
            raise SpecError(
                f"the secret at {masked(to_pointer(path)) or '/'} cannot be placed in the source; not redacted"
            )
        start = place[1]
        end = _token_end(text, start, document.syntax)
        value = _value_at(document.data, path)
        replacements.append((start, end, _token(text[start:end], value, found, document.syntax)))
    for path, name in names.items():
        key_at = located.get(path, (None, 0))[0]
        if key_at is None:
            raise SpecError(
                f"the member name at {masked(to_pointer(path))} cannot be placed in the source; not redacted"
            )
        replacements.append((key_at, _token_end(text, key_at, "json"), _basic_string(name, "json")))
    edited = _edited(text, sorted(replacements)).encode("utf-8")
    return _BOM + edited if raw.startswith(_BOM) else edited


def _value_at(data: Any, path: tuple[str, ...]) -> Any:
    for token in path:
        data = data[int(token)] if isinstance(data, list) else data[token]
    return data


def _edited(text: str, replacements: list[tuple[int, int, str]]) -> str:
    parts, last = [], 0
    for start, end, replacement in replacements:
        parts += [text[last:start], replacement]
        last = end
    return "".join([*parts, text[last:]])


def _token_end(text: str, start: int, syntax: str) -> int:
    if syntax == "json":
        end: int = _json.scanstring(text, start + 1, True)[1]
        return end
    return _toml.value_end(text, start)  # a string, or a date or time read as one (toml.type)


def _token(token: str, value: str, secrets: list[Secret], syntax: str) -> str:
    """The replacement of a string token: the secrets' characters replaced, every escape elsewhere kept."""
    if any(secret.span is None for secret in secrets):
        return f'"{PLACEHOLDER}"'
    spans = _merged(secret.span for secret in secrets if secret.span is not None)
    offsets = _offsets(token, syntax)
    if offsets is None or len(offsets) != len(value) + 1:
        return _basic_string(_masked(value, secrets), syntax)
    parts, last = [], 0
    for start, end in spans:
        parts += [token[last : offsets[start]], PLACEHOLDER]
        last = offsets[end]
    return "".join([*parts, token[last:]])


_ESCAPE_LENGTH = {"u": 6, "U": 10, "x": 4}


def _offsets(token: str, syntax: str) -> list[int] | None:
    """The offset in the token of each character of the string it stands for, and of its closing quote.

    None for what is not worth mapping (TOML multi-line strings: line-ending backslashes and trimmed first
    newlines); such a token is written anew as a basic string.
    """
    if token.startswith(('"""', "'''")):
        return None
    offsets, index, end = [], 1, len(token) - 1
    literal = token.startswith("'")
    while index < end:
        offsets.append(index)
        if literal or token[index] != "\\":
            index += 1
            continue
        letter = token[index + 1]
        step = _ESCAPE_LENGTH.get(letter, 2)
        if syntax == "json" and letter == "u" and _pair(token, index):
            step = 12
        index += step
    return [*offsets, end]


def _pair(token: str, index: int) -> bool:
    """A JSON surrogate pair written as two escapes, which stands for one character."""
    high = int(token[index + 2 : index + 6], 16)
    if not 0xD800 <= high < 0xDC00 or token[index + 6 : index + 8] != "\\u":
        return False
    low = token[index + 8 : index + 12]
    return len(low) == 4 and 0xDC00 <= int(low, 16) < 0xE000


_UNWRITABLE = re.compile("[\x7f\ud800-\udfff]")


def _basic_string(value: str, syntax: str) -> str:
    """A string written anew: JSON's escapes, which TOML basic strings share (DEL and surrogates escaped)."""
    text = json.dumps(value, ensure_ascii=False)
    if syntax == "toml":
        return _UNWRITABLE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
    return re.sub("[\ud800-\udfff]", lambda match: f"\\u{ord(match.group()):04x}", text)
