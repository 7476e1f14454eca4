"""Wording shared by every message: short values, JSON type names, "did you mean"."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ._settings import current


def shorten(text: str, limit: int | None = None) -> str:
    """The text as a message quotes it: every credential shape in it masked (``_secrets.masked``), before it is
    cut to the shown length of the current limits (or ``limit``), so that no cut hides a secret from the mask."""
    from ._secrets import masked  # lazy: its patterns are compiled only once a message quotes a value

    text = masked(text)
    limit = limit or current().limits.shown_length
    return text if len(text) <= limit else text[: max(limit - 1, 1)] + "…"


def quote(text: str, limit: int | None = None) -> str:
    return repr(shorten(text, limit))


def describe(value: Any) -> str:
    """A short description of a JSON value, never longer than a line."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return f"the number {shorten(repr(value), 30)}"
    if isinstance(value, str):
        return f"the string {quote(value)}" if value else "an empty string"
    if isinstance(value, dict):
        return "an empty object" if not value else f"an object with {len(value)} member(s)"
    if isinstance(value, list):
        return "an empty array" if not value else f"an array of {len(value)} item(s)"
    return f"a {type(value).__name__} value"


_ARTICLES = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "a boolean",
    "null": "null",
}


def type_names(types: str | Iterable[str]) -> str:
    names = [types] if isinstance(types, str) else list(types)
    words = [_ARTICLES.get(name, name) for name in names]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def edit_distance(left: str, right: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions)."""
    if len(left) < len(right):
        left, right = right, left
    previous = list(range(len(right) + 1))
    for i, char in enumerate(left, 1):
        current = [i]
        for j, other in enumerate(right, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other)))
        previous = current
    return previous[-1]


_SEPARATORS = re.compile(r"[^a-z0-9]+")


def _folded(name: str) -> str:
    return _SEPARATORS.sub("_", name.lower()).strip("_")


def closest(name: str, known: Iterable[str], *, distance: int = 2) -> str | None:
    """The known name that ``name`` most likely misspells, if any.

    A name that differs only in case or separators (``fault_location`` for ``fault location``), or
    that is within ``distance`` edits, is a likely misspelling.
    """
    best: tuple[int, str] | None = None
    folded = _folded(name)
    for candidate in known:
        if candidate == name:
            continue
        if _folded(candidate) == folded:
            return candidate
        if abs(len(candidate) - len(name)) > distance:
            continue
        edits = edit_distance(name, candidate)
        if edits <= distance and (best is None or edits < best[0]):
            best = (edits, candidate)
    return best[1] if best else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    match = closest(name, known)
    return f"; did you mean {match!r}?" if match else ""


# Characters no output may carry as they are: surrogates have no UTF-8 form (they come from a file name that is
# not UTF-8, or from a lone \uD800 escape in a document); control characters (C0, DEL, C1) would break a
# line-per-issue format or drive the terminal; the line and paragraph separators end a line for many readers; and
# the bidirectional controls (embeddings, overrides, isolates, marks) reorder what a terminal or a web page shows,
# so that a name can read as something it is not.
# JSON escapes the first range itself and leaves the second raw.
_HOSTILE_C0 = "\x00-\x1f"
_HOSTILE_OTHERS = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_SURROGATES = re.compile("[\ud800-\udfff]")
_UNPRINTABLE = re.compile(f"[{_HOSTILE_C0}{_HOSTILE_OTHERS}\ud800-\udfff]")
_RAW_IN_JSON = re.compile(f"[{_HOSTILE_OTHERS}]")


# What a line must not start with: ``::`` is a workflow command to a CI runner (GitHub Actions reads
# ``::warning title=Approved::LGTM`` as an annotation of its own), ``-`` an option to a tool that reads the names.
_LINE_COMMANDS = ("::", "-")


def printable(text: str, *, controls: bool = False, path: bool = False) -> str:
    """The one escaping of every path and value an output shows.

    Every surrogate is written as an escape (a byte of a file name that is not UTF-8, which Python holds as a
    surrogate from U+DC80 to U+DCFF, becomes ``\\xHH`` with the byte's value; any other surrogate ``\\uHHHH``).
    With ``controls`` (text, GitHub output, messages on stderr), so is every hostile character: a control
    character as ``\\xHH``, a separator or bidirectional control as ``\\uHHHH``. JSON output takes the text
    without ``controls`` and passes its serialized form through :func:`json_text`.

    ``path``: the text begins with a path, and may begin a line. A relative path that begins with ``::`` or ``-``
    (a folder named ``::warning title=Approved::LGTM``, checked as ``.`` from the folder above it) is shown as
    ``./`` and the path, the same file; any other path is shown as it is.
    """
    shown = (_UNPRINTABLE if controls else _SURROGATES).sub(_escape, text)
    return "./" + shown if path and shown.startswith(_LINE_COMMANDS) else shown


def json_text(dumped: str) -> str:
    """Serialized JSON with every hostile character JSON leaves raw (C1 controls, separators, bidirectional
    controls) written as a ``\\uHHHH`` escape: the same values, and no byte that drives a terminal."""
    return _RAW_IN_JSON.sub(_json_escape, dumped)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
