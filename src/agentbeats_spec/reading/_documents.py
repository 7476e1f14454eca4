"""Bytes -> a parsed document that can place JSON Pointers on its source text."""

from __future__ import annotations

import math
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from pathlib import PurePath
from types import ModuleType
from typing import Any

import attrs

from ..vocabulary._issues import Anchor, Finding, Hidden
from ..vocabulary._kind_data import Syntax
from ..vocabulary._settings import current
from . import _json, _messages, _nativejson
from ._nativejson import IntegralFloats
from ._pointers import TokenPath, to_path, to_pointer

# What a file's name says of its syntax; any other name is read as JSON.
_SUFFIXES: dict[str, Syntax] = {".toml": "toml", ".jsonl": "jsonl"}


def syntax_of(path: PurePath) -> Syntax:
    """The syntax a file's name says: ``.toml`` is TOML, ``.jsonl`` JSON Lines, anything else JSON."""
    return _SUFFIXES.get(path.suffix, "json")


@attrs.frozen
class Document:
    """A document, its source (``None`` for an already parsed mapping) and what reading found.

    ``data`` is meaningful only when ``readable`` is true. The source may be kept as the bytes read: a valid
    document never needs its text, so it is decoded only when an issue needs a line and column.
    """

    data: Any
    source: str | bytes | None
    syntax: Syntax
    findings: tuple[Finding, ...] = ()
    readable: bool = True
    # The native reader's container offsets (see _nativejson): positions without a second pass over the source.
    offsets: bytes | None = attrs.field(default=None, eq=False, repr=False)
    # Findings of the reader past --max-issues, counted by code and severity (never kept).
    unkept: Hidden = ()
    # Where the data may hold an integral float (1.0), as the native reader saw it (_nativejson.IntegralFloats;
    # True: cannot tell), so that schema validation may skip the check that tells 1.0 from 1 (checking._schemas).
    integral_floats: IntegralFloats = attrs.field(default=True, eq=False, repr=False)
    _decoded: list[str] = attrs.field(factory=list, eq=False, repr=False)

    @property
    def text(self) -> str | None:
        if not isinstance(self.source, bytes):
            return self.source
        if not self._decoded:
            self._decoded.append(self.source.decode("utf-8").removeprefix("\ufeff"))
        return self._decoded[0]

    def positions(self, requests: Iterable[tuple[str, Anchor]]) -> dict[tuple[str, Anchor], tuple[int, int]]:
        """Resolve (pointer, anchor) pairs to 1-based (line, column), all in one pass over the text.

        A pointer that cannot be found (a missing member's parents, say) is placed at its nearest
        existing ancestor.
        """
        native = self.offsets is not None and isinstance(self.source, bytes)
        text = None if native else self.text
        if text is None and not native:
            return {}
        targets: dict[tuple[str, Anchor], TokenPath] = {}
        for pointer, anchor in requests:
            path = to_path(pointer)
            targets[(pointer, anchor)] = path[:-1] if anchor is Anchor.PARENT and path else path
        if native:
            assert isinstance(self.source, bytes) and self.offsets is not None
            located = _nativejson.locate(self.source, self.offsets, set(targets.values()))
        else:
            assert text is not None
            locate = _json.locate if self.syntax == "json" else _toml_reader().locate
            try:
                located = locate(text, set(targets.values()))
            except ValueError:  # text that does not parse (its syntax error is reported): findings go to its start
                located = {}
        offsets: dict[tuple[str, Anchor], int] = {}
        for request, path in targets.items():
            for cut in range(len(path), -1, -1):
                place = located.get(path[:cut])
                if place is not None:
                    key_offset, value_offset = place
                    exact = cut == len(path)
                    use_key = request[1] is Anchor.KEY and exact and key_offset is not None
                    offsets[request] = key_offset if use_key and key_offset is not None else value_offset
                    break
            else:  # not even the root was found (text that does not parse): the text's start, where the document is
                offsets[request] = 0
        if native:
            assert isinstance(self.source, bytes)
            lines = _nativejson.line_columns(self.source, offsets.values())
        else:
            assert text is not None
            lines = _json.Lines(text).positions(offsets.values())
        return {request: lines[offset] for request, offset in offsets.items()}


def read(raw: bytes, syntax: Syntax) -> Document:
    if syntax == "json":
        if _nativejson.available:
            clean = _nativejson.read(raw, current().limits.max_depth)
            if clean is not None:
                return from_clean(raw, *clean)
        else:
            data = _json.parse_fast(raw, current().limits.max_depth)
            if data is not _json.UNSURE:
                return Document(data, raw, syntax)
    text, findings = _json.decode(raw, family=syntax)
    if text is None:
        return unread(syntax, tuple(findings))
    return parse_text(text, syntax, prior=findings)


def from_clean(raw: bytes, data: Any, offsets: bytes, integral_floats: int | AbstractSet[str | None]) -> Document:
    """The document of a JSON text the native reader found clean (``_nativejson.read``, ``_folders.read_folder``:
    0 there for no integral float)."""
    return Document(data, raw, "json", offsets=offsets, integral_floats=_nativejson.integral_floats(integral_floats))


def unread(syntax: Syntax, findings: tuple[Finding, ...]) -> Document:
    """A document whose data could not be read: what stopped the reading is all it holds."""
    return Document(None, None, syntax, findings, readable=False)


def parse_text(text: str, syntax: Syntax, *, prior: Iterable[Finding] = ()) -> Document:
    limits = current().limits
    if syntax == "json":
        data, findings = _json.parse(text, max_depth=limits.max_depth, limit=limits.max_issues)
    else:
        data, findings = _toml_reader().parse(text, limits.max_depth)
    unkept: Hidden = ()
    if isinstance(findings, _json.Capped):
        unkept = tuple(sorted((code, severity, count) for (code, severity), count in findings.unkept.items()))
    errors = {code for code, severity, _ in unkept if severity == "error"}
    findings = [*prior, *findings]
    fatal = (
        any(finding.severity == "error" and finding.code not in _RECOVERABLE for finding in findings)
        or (data is None and syntax == "toml")
        or bool(errors - _RECOVERABLE)
    )
    return Document(data, text, syntax, tuple(findings), readable=not fatal, unkept=unkept)


# Reading errors after which the data still means something worth validating.
_RECOVERABLE = frozenset({"json.duplicate-key", "json.non-finite", "toml.type"})


def from_data(data: Any) -> Document:
    """A document for an already parsed value: check that JSON can represent it."""
    findings = list(_non_json(data, (), 0))
    # As for text: after a non-finite number the rest of the document is still checked, so every issue is found.
    readable = all(finding.code in _RECOVERABLE for finding in findings)
    return Document(data, None, "json", tuple(findings), readable=readable)


def _non_json(value: Any, path: TokenPath, depth: int) -> Iterable[Finding]:
    max_depth = current().limits.max_depth
    if depth > max_depth:
        yield Finding(to_pointer(path), "json.too-deep", _messages.too_deep(max_depth))
        return
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            shown = "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
            yield Finding(to_pointer(path), "json.non-finite", _messages.not_a_number(shown))
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                yield Finding(
                    to_pointer(path),
                    "json.type",
                    f"member name {key!r} is a {type(key).__name__}; JSON member names are strings",
                )
                continue
            yield from _non_json(item, (*path, key), depth + 1)
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from _non_json(item, (*path, str(index)), depth + 1)
        return
    yield Finding(to_pointer(path), "json.type", f"a {type(value).__name__} value has no JSON form")


def _toml_reader() -> ModuleType:
    from . import _toml  # lazy: a run of JSON files alone does not pay for the TOML reader (start-up time)

    return _toml


class NotJSON(ValueError):
    """A document that :func:`load_json` refuses: ``finding`` is the first error the reader found (with its line and
    column when it has them), which the message says."""

    def __init__(self, finding: Finding) -> None:
        where = f"{finding.line}:{finding.column}: " if finding.line is not None else ""
        super().__init__(f"{where}{finding.message}")
        self.finding = finding


def why_unreadable(document: Document) -> tuple[str, str]:
    """Where (``:line:column``, or nothing) and why a document that is not readable is not: its first error."""
    first = next((finding for finding in document.findings if finding.severity == "error"), None)
    where = f":{first.line}:{first.column}" if first is not None and first.line else ""
    return where, first.message if first is not None else "not a JSON document"


def load_json(source: bytes | str) -> Any:
    """The data of one JSON document read outside the checking path (a run's ``run_info.json`` while it is watched,
    a task index, the JSON text of a tool call's arguments), or :class:`NotJSON`.

    The one guarded parse: it reads as the checking path does (:func:`read`, the same limits), so that a document
    nested past ``--max-depth``, one of a million duplicate members or an integer of 100,000 digits costs what a
    valid one does and ends in a finding, never in a ``RecursionError``. What the checking path calls an error
    (a duplicate member, NaN, an integer beyond 2**53 included) is refused here too: such data is never taken as
    it happens to parse.
    """
    document = read(source, "json") if isinstance(source, bytes) else parse_text(source, "json")
    first = next((finding for finding in document.findings if finding.severity == "error"), None)
    unkept_errors = [code for code, severity, _ in document.unkept if severity == "error"]
    if first is None and unkept_errors:
        first = Finding("", min(unkept_errors), "an error past --max-issues")
    if first is None and not document.readable:
        first = Finding("", "json.syntax", "not a JSON document")
    if first is not None:
        raise NotJSON(first)
    return document.data
