"""Strict JSON reading and source positions.

The fast path is one pass of the standard library's C parser plus a few whole-text checks that
cost next to nothing. Only a document that trips one of them is scanned again, token by token, to
say exactly where the problem is; a valid document never pays for positions.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..vocabulary._codes import CODES, Severity
from ..vocabulary._issues import Anchor, Finding
from ..vocabulary._settings import Limits
from ..vocabulary._text import shorten
from . import _messages
from ._pointers import TokenPath, to_pointer

# The C string scanner the standard parser uses; typeshed does not declare it.
scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

MAX_DEPTH = Limits().max_depth  # the default limit, stated once in _settings
UNSURE: Any = object()  # what parse_fast returns when only the strict reader can tell
_UNSET: Any = object()


def __getattr__(name: str) -> Any:
    """``orjson``, imported when first used: with the native reader built, a run never needs it."""
    if name != "orjson":
        raise AttributeError(name)
    module: Any = None
    if not os.environ.get("AGENTBEATS_SPEC_PURE"):
        try:  # orjson carries the fast path without the native reader; without both, the strict reader reads all
            import orjson as module
        except ImportError:  # pragma: no cover - exercised by the pure-Python test run
            module = None
    globals()["orjson"] = module
    return module


# Digits become "0", the characters that may stand before digits inside a number stay, all else is " ": an
# integer literal of 16 digits or more is then a " " followed by sixteen "0".
_DIGIT_RUNS = bytes(
    ord("0") if chr(byte).isdigit() and byte < 128 else byte if chr(byte) in ".eE" else ord(" ") for byte in range(256)
)
_LONG_INTEGER = b" " + b"0" * 16
_CHUNK = 8 * 1024 * 1024
MAX_EXACT_INTEGER = 2**53
# Python converts no longer integer literal (its default int_max_str_digits; conversion time grows with the
# square of the length): json.loads refuses such a document, so it is an error, and it is never converted here.
MAX_INTEGER_DIGITS = 4300
# A lone surrogate can only come from a \uD800-\uDFFF escape (the text is valid UTF-8).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_BOM = "\ufeff"
# RFC 8259 (8.1) lets a parser ignore a BOM, but Python's json.loads refuses one ("Unexpected UTF-8 BOM"), and so
# does every AgentCompass 1.0.1 reader, which opens with encoding="utf-8": in JSON it is an error.
_BOM_SAID = {
    "json": "the file starts with a byte order mark: Python's json (every AgentCompass 1.0.1 reader opens with "
    'encoding="utf-8") and JavaScript\'s JSON.parse refuse it; save the file as UTF-8 without a BOM',
}

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_TOKEN = re.compile(
    r"[ \t\n\r]*(?:([{\[])|([}\]])|(,)|(:)|(\")|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"
    r"|(true|false|null)|(NaN|Infinity|-Infinity))"
)
# Skipping a value only needs strings (which may hold brackets) and brackets.
_SKIP = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def _after_ws(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    assert match is not None  # the pattern matches the empty string
    return match.end()


class Lines:
    """Maps character offsets of a text to 1-based (line, column).

    ``position`` counts on from the offset it was last asked (a scan that places its findings as it goes costs
    one pass over the text, however many it finds); an earlier offset is counted from the start.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._cursor, self._line, self._line_start = 0, 1, 0

    def positions(self, offsets: Iterable[int]) -> dict[int, tuple[int, int]]:
        result: dict[int, tuple[int, int]] = {}
        line, line_start, cursor = 1, 0, 0
        text = self.text
        for offset in sorted(set(offsets)):
            line += text.count("\n", cursor, offset)
            newline = text.rfind("\n", cursor, offset)
            if newline != -1:
                line_start = newline + 1
            cursor = offset
            result[offset] = (line, offset - line_start + 1)
        return result

    def position(self, offset: int) -> tuple[int, int]:
        if offset < self._cursor:
            return self.positions([offset])[offset]
        text = self.text
        self._line += text.count("\n", self._cursor, offset)
        newline = text.rfind("\n", self._cursor, offset)
        if newline != -1:
            self._line_start = newline + 1
        self._cursor = offset
        return self._line, offset - self._line_start + 1


def decode(raw: bytes, *, family: str) -> tuple[str | None, list[Finding]]:
    """Decode UTF-8 strictly; a BOM is a warning and is dropped."""
    findings: list[Finding] = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        start = error.start
        line = raw.count(b"\n", 0, start) + 1
        line_start = raw.rfind(b"\n", 0, start) + 1
        column = len(raw[line_start:start].decode("utf-8", "replace")) + 1
        byte = raw[start : start + 1].hex()
        findings.append(
            Finding(
                "",
                f"{family}.encoding",
                f"invalid UTF-8: byte 0x{byte} at offset {start} cannot be decoded; save the file as UTF-8",
                line=line,
                column=column,
            )
        )
        return None, findings
    if text.startswith(_BOM):
        findings.append(
            Finding(
                "",
                f"{family}.bom",
                _BOM_SAID.get(family, "the file starts with a byte order mark; UTF-8 files should not have one"),
                severity=CODES[f"{family}.bom"].severity,
                line=1,  # real: the mark is the file's first character
                column=1,
            )
        )
        text = text[1:]
    nul = text.find("\x00")
    if nul != -1:
        line, column = Lines(text).position(nul)
        findings.append(
            Finding("", f"{family}.nul-byte", "a NUL byte is not allowed in a text file", line=line, column=column)
        )
        return None, findings
    return text, findings


def parse_fast(raw: bytes, max_depth: int) -> Any:
    """The data of a document that is certainly valid JSON with nothing to report, or ``UNSURE``.

    orjson parses; then whole-buffer checks at C speed vouch for what orjson does not check: no duplicate
    member (re-serialized, the document has as many colons as its source: each dropped duplicate takes its
    colon with it; an escaped colon, which would blind this count, sends the document to the strict reader), no
    integer beyond 2**53 (no run of 16 digits outside a fraction, and orjson's strict dump refuses one) and no
    nesting past the limit (orjson's dump refuses more than 254 levels; a lower limit is checked on the indented
    dump). Anything else (a syntax error, NaN, a BOM) is UNSURE, and the strict reader says what it is.
    """
    orjson = globals().get("orjson", _UNSET)
    if orjson is _UNSET:
        orjson = __getattr__("orjson")
    if orjson is None or b"\\u003" in raw:
        return UNSURE
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return UNSURE
    if _has_long_integer(raw):
        return UNSURE
    shallow = max_depth < _DUMP_DEPTH
    try:
        dumped = orjson.dumps(data, option=orjson.OPT_STRICT_INTEGER | (orjson.OPT_INDENT_2 if shallow else 0))
    except TypeError:
        return UNSURE
    if dumped.count(b":") != raw.count(b":"):
        return UNSURE
    if shallow and dumped.find(b"\n" + b" " * (2 * max_depth)) != -1:
        return UNSURE
    return data


# orjson.dumps refuses to go deeper than this, so a document it dumps is never deeper.
_DUMP_DEPTH = 254


def _has_long_integer(raw: bytes) -> bool:
    if len(raw) <= _CHUNK:
        return _long_run(raw.translate(_DIGIT_RUNS))
    view = memoryview(raw)
    # Chunks overlap by the needle's length, so that no run is cut in two; memory stays bounded.
    return any(
        _long_run(bytes(view[max(0, start - 17) : start + _CHUNK]).translate(_DIGIT_RUNS))
        for start in range(0, len(raw), _CHUNK)
    )


def _long_run(translated: bytes) -> bool:
    return translated.find(_LONG_INTEGER) != -1 or translated.startswith(_LONG_INTEGER[1:])


class Capped(list[Finding]):
    """The findings of the reader, at most ``limit`` of them (None: all); the rest counted by code and severity
    (a document that holds a million NaNs costs a count, not a million findings)."""

    def __init__(self, limit: int | None = None) -> None:
        super().__init__()
        self.limit = limit
        self.unkept: Counter[tuple[str, Severity]] = Counter()

    def collect(self, found: Iterable[Finding]) -> Capped:
        for finding in found:
            if self.limit is None or len(self) < self.limit:
                self.append(finding)
            else:
                self.unkept[finding.code, finding.severity] += 1
        return self


def parse(text: str, *, max_depth: int = MAX_DEPTH, limit: int | None = None) -> tuple[Any, list[Finding]]:
    """Parse JSON text strictly. Returns (data, findings); data is meaningful only without errors. With ``limit``,
    the findings are a :class:`Capped` of at most that many.

    The standard library's C parser reads the document once, its hooks noting what JSON forbids or cannot hold
    exactly (duplicate members, NaN and infinities, integers beyond 2**53); only then are those places looked
    for, by their text, and placed.
    """
    if not text.strip(" \t\n\r"):
        # Real: where the document should begin, the file's first character (the same for a file of blanks).
        return None, [Finding("", "json.empty", "the file is empty; expected a JSON document", line=1, column=1)]
    noted = _Noted()
    decoder = json.JSONDecoder(
        object_pairs_hook=noted.pairs, parse_constant=noted.constant, parse_int=noted.integer, parse_float=noted.number
    )
    start = _after_ws(text, 0)
    try:
        data, end = decoder.raw_decode(text, start)
    except json.JSONDecodeError as error:
        return None, [_syntax_finding(text, error)]
    except RecursionError:
        deep = Capped(limit).collect(_strict_scan(text, max_depth))
        if deep:
            return None, deep
        line, column = Lines(text).position(start)  # real: the document (pointer "") starts here, not at 1:1
        return None, [Finding("", "json.too-deep", _messages.too_deep(None), line=line, column=column)]
    end = _after_ws(text, end)
    if end != len(text):
        line, column = Lines(text).position(end)
        return None, [
            Finding(
                "",
                "json.trailing-data",
                f"unexpected content after the end of the JSON document: {shorten(text[end : end + 20])!r}",
                line=line,
                column=column,
            )
        ]
    if text.count("[") + text.count("{") > max_depth and _depth_exceeds(data, max_depth):
        return data, Capped(limit).collect(_strict_scan(text, max_depth))
    if _SURROGATE_ESCAPE.search(text) is not None:
        lone = Capped(limit).collect(_lone_surrogates(data))
        if lone:
            return data, lone
    if noted.anything():
        placed = _place(text, noted)
        return data, placed if placed is not None else Capped(limit).collect(_strict_scan(text, max_depth))
    return data, []


class _Noted:
    """What the parser's hooks saw: duplicated member names and the text of suspicious numbers."""

    def __init__(self) -> None:
        self.duplicates: set[str] = set()
        self.constants: set[str] = set()
        self.numbers: set[str] = set()

    def anything(self) -> bool:
        return bool(self.duplicates or self.constants or self.numbers)

    def pairs(self, items: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(items)
        if len(result) != len(items):
            seen: set[str] = set()
            for name, _ in items:
                if name in seen:
                    self.duplicates.add(name)
                seen.add(name)
        return result

    def constant(self, name: str) -> float:
        self.constants.add(name)
        return float(name.replace("Infinity", "inf"))

    def integer(self, token: str) -> int:
        if _digits(token) > MAX_INTEGER_DIGITS:
            self.numbers.add(token)
            return 0  # never converted: the document is refused (see _number_finding)
        value = int(token)
        if abs(value) > MAX_EXACT_INTEGER:
            self.numbers.add(token)
        return value

    def number(self, token: str) -> float:
        value = float(token)
        if value in (float("inf"), float("-inf")):
            self.numbers.add(token)
        return value


def _digits(token: str) -> int:
    return len(token) - token.startswith("-")


def _lone_surrogates(data: Any) -> Iterator[Finding]:
    """A string holding half of a surrogate pair has no UTF-8 form: no writer can save it, nothing can print it.

    Each is reported where it is (its member name or its value); the positions are found later, by pointer.
    """
    stack: list[tuple[Any, TokenPath]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            found = _SURROGATE.search(value)
            if found is not None:
                yield _surrogate_finding(path, found.group(), "string")
        elif isinstance(value, dict):
            for name, item in value.items():
                found = _SURROGATE.search(name)
                if found is not None:
                    yield _surrogate_finding((*path, name), found.group(), "member name", Anchor.KEY)
                stack.append((item, (*path, name)))
        elif isinstance(value, list):
            stack.extend((item, (*path, str(index))) for index, item in enumerate(value))


def _surrogate_finding(path: TokenPath, char: str, where: str, anchor: Anchor = Anchor.VALUE) -> Finding:
    return Finding(
        to_pointer(path),
        "json.encoding",
        f"a {where} holds the lone surrogate \\u{ord(char):04x} (half of a UTF-16 pair), which has no UTF-8 "
        "form: no reader can store it as text; escape a whole pair or remove it",
        anchor=anchor,
    )


def _place(text: str, noted: _Noted) -> list[Finding] | None:
    """Findings for what the hooks noted, found by searching their text; None when the search is not sure.

    Each place found is checked by a walk from the start of the text, so only a few are searched this way
    (``_FEW_PLACES``); more go to the token scan, one pass whatever their number.
    """
    if len(noted.duplicates) + len(noted.constants | noted.numbers) > _FEW_PLACES:
        return None
    lines = Lines(text)
    findings: list[Finding] = []
    for name in sorted(noted.duplicates):
        pattern = re.escape(json.dumps(name, ensure_ascii=False)) + r"\s*:"
        keys = [match.start() for match in itertools.islice(re.finditer(pattern, text), _FEW_PLACES + 1)]
        if len(keys) > _FEW_PLACES:
            return None
        places = [(at, path_at(text, at)) for at in keys]
        members: dict[TokenPath, list[int]] = {}
        for at, place in places:
            if place is not None and place[1] == "key":
                members.setdefault(place[0][:-1], []).append(at)
        repeats = [(parent, offsets) for parent, offsets in members.items() if len(offsets) > 1]
        if not repeats:
            return None  # written with escapes, say: only the token scan can tell
        for parent, offsets in repeats:
            first_line = lines.position(offsets[0])[0]
            for at in offsets[1:]:
                line, column = lines.position(at)
                findings.append(
                    Finding(
                        to_pointer([*parent, name]),
                        "json.duplicate-key",
                        _messages.duplicate_member(name, first_line),
                        line=line,
                        column=column,
                    )
                )
    for token in sorted(noted.constants | noted.numbers):
        pattern = re.escape(token) + r"(?![0-9A-Za-z.])"
        found = False
        matches = itertools.islice(re.finditer(r"(?<![0-9A-Za-z.+\-])" + pattern, text), _FEW_PLACES + 1)
        for seen, match in enumerate(matches):
            if seen == _FEW_PLACES:
                return None
            place = path_at(text, match.start())
            if place is None or place[1] != "value":
                continue  # the same characters inside a string
            found = True
            line, column = lines.position(match.start())
            findings.extend(_number_finding(token, to_pointer(place[0]), line, column))
        if not found:
            return None
    return findings


_FEW_PLACES = 16


def _number_finding(token: str, pointer: str, line: int, column: int) -> list[Finding]:
    if token in ("NaN", "Infinity", "-Infinity"):
        return [Finding(pointer, "json.non-finite", _messages.not_a_number(token), line=line, column=column)]
    if "." in token or "e" in token or "E" in token:
        return [Finding(pointer, "json.non-finite", _messages.overflows(token), line=line, column=column)]
    if _digits(token) > MAX_INTEGER_DIGITS:
        return [_huge_integer(token, pointer, line, column)]
    message = _messages.inexact_integer(token)
    return [Finding(pointer, "json.large-integer", message, severity="warning", line=line, column=column)]


def _huge_integer(token: str, pointer: str, line: int, column: int) -> Finding:
    message = _messages.unreadable_integer(token, _digits(token), MAX_INTEGER_DIGITS, "json")
    return Finding(pointer, "json.large-integer", message, line=line, column=column)


def path_at(text: str, target: int) -> tuple[TokenPath, str] | None:
    """The path of the member name ("key") or value ("value") that starts at offset ``target``, if one does."""
    pos = _after_ws(text, 0)
    path: list[str] = []
    while True:
        if pos == target:
            return tuple(path), "value"
        char = text[pos : pos + 1]
        if char not in ("{", "["):
            return None
        pos = _after_ws(text, pos + 1)
        index = 0
        while True:
            if text.startswith(("}", "]"), pos):
                return None
            if char == "{":
                if pos == target:
                    name, _ = scanstring(text, pos + 1, True)
                    return (*path, name), "key"
                name, pos = scanstring(text, pos + 1, True)
                pos = _after_ws(text, _after_ws(text, pos) + 1)
                token = name
            else:
                token = str(index)
                index += 1
            end = _skip_value(text, pos)
            if pos <= target < end:
                path.append(token)
                break
            pos = _after_ws(text, end)
            if text.startswith(("}", "]"), pos) or pos >= len(text):
                return None
            pos = _after_ws(text, pos + 1)
        if pos > target:
            return None


def _syntax_finding(text: str, error: json.JSONDecodeError) -> Finding:
    position = min(error.pos, len(text))
    line, column = Lines(text).position(position)
    if position >= len(text):
        message = f"the document ends too early ({error.msg.lower()}); is the file truncated?"
    else:
        found = text[position]
        message = f"{error.msg}; found {shorten(text[position : position + 20])!r}" if found.strip() else error.msg
        if error.msg.startswith("Unterminated string"):
            message = "a string is not closed before the end of the file; is the file truncated?"
    return Finding("", "json.syntax", message, line=line, column=column)


def _depth_exceeds(data: Any, max_depth: int) -> bool:
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > max_depth:
            return True
        if isinstance(value, dict):
            stack.extend((item, depth + 1) for item in value.values() if isinstance(item, (dict, list)))
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value if isinstance(item, (dict, list)))
    return False


class _Frame:
    """An open container of the scan below: an object's member names so far, or an array's next index."""

    __slots__ = ("index", "is_object", "names", "wants_key")

    def __init__(self, is_object: bool) -> None:
        self.is_object = is_object
        self.names: dict[str, int] = {}  # an object's member names -> the line of each name
        self.wants_key = is_object  # in an object: the next string is a member name
        self.index = 0  # in an array: the index of the next item


def _strict_scan(text: str, max_depth: int) -> Iterator[Finding]:
    """Walk the tokens of a document that the C parser accepted (or that was too deep for it).

    Reports duplicate members, non-finite numbers, integers beyond 2**53 and excessive nesting, each
    with its exact position.
    """
    lines = Lines(text)
    frames: list[_Frame] = []  # one per open container, the innermost last
    path: list[str] = []
    pending_key: str | None = None
    pos = 0
    length = len(text)

    def value_path() -> TokenPath:
        return tuple(path)

    def before_value() -> None:
        nonlocal pending_key
        if frames:
            frame = frames[-1]
            if not frame.is_object:
                path.append(str(frame.index))
                frame.index += 1
            else:
                path.append(pending_key if pending_key is not None else "")
                pending_key = None

    def after_value() -> None:
        if frames:
            path.pop()

    while pos < length:
        match = _TOKEN.match(text, pos)
        if match is None:
            return  # the C parser has reported (or will report) the syntax error
        pos = match.end()
        opening, closing, comma, colon, quote, number, literal, constant = match.groups()
        if opening:
            before_value()
            if len(frames) + 1 > max_depth:
                line, column = lines.position(match.start(1))
                yield Finding(
                    to_pointer(path),
                    "json.too-deep",
                    _messages.too_deep(max_depth),
                    line=line,
                    column=column,
                )
                return
            frames.append(_Frame(opening == "{"))
        elif closing:
            frames.pop()
            after_value()
        elif comma:
            if frames and frames[-1].is_object:
                frames[-1].wants_key = True
        elif colon:
            continue
        elif quote:
            value, pos = scanstring(text, pos, True)
            frame = frames[-1] if frames else None
            if frame is not None and frame.wants_key:
                key_offset = match.start(5)
                seen = frame.names
                if value in seen:
                    first_line = seen[value]
                    line, column = lines.position(key_offset)
                    yield Finding(
                        to_pointer([*path, value]),
                        "json.duplicate-key",
                        _messages.duplicate_member(value, first_line),
                        line=line,
                        column=column,
                    )
                else:
                    seen[value] = lines.position(key_offset)[0]
                frame.wants_key = False
                pending_key = value
            else:
                before_value()
                after_value()
        elif number:
            before_value()
            yield from _check_number(number, match.start(6), value_path(), lines)
            after_value()
        elif constant:
            before_value()
            line, column = lines.position(match.start(8))
            yield Finding(
                to_pointer(path),
                "json.non-finite",
                _messages.not_a_number(constant),
                line=line,
                column=column,
            )
            after_value()
        elif literal:  # true, false, null
            before_value()
            after_value()


def _check_number(token: str, offset: int, path: TokenPath, lines: Lines) -> Iterator[Finding]:
    if "." in token or "e" in token or "E" in token:
        if float(token) in (float("inf"), float("-inf")):
            line, column = lines.position(offset)
            yield Finding(
                to_pointer(path),
                "json.non-finite",
                _messages.overflows(token),
                line=line,
                column=column,
            )
        return
    if _digits(token) > MAX_INTEGER_DIGITS:
        line, column = lines.position(offset)
        yield _huge_integer(token, to_pointer(path), line, column)
        return
    if abs(int(token)) > MAX_EXACT_INTEGER:
        line, column = lines.position(offset)
        yield Finding(
            to_pointer(path),
            "json.large-integer",
            _messages.inexact_integer(token),
            severity="warning",
            line=line,
            column=column,
        )


def locate(text: str, paths: Iterable[TokenPath]) -> dict[TokenPath, tuple[int | None, int]]:
    """Character offsets of the key (None for array items and the root) and value of each path.

    One pass over the text: only the containers on the way to a wanted path are read member by
    member; everything else is skipped by matching strings and brackets. Paths that do not exist
    are left out of the result.
    """
    wanted = set(paths)
    prefixes = {path[:i] for path in wanted for i in range(len(path) + 1)}
    found: dict[TokenPath, tuple[int | None, int]] = {}
    start = _after_ws(text, 0)
    _locate_value(text, start, (), None, wanted, prefixes, found)
    return found


def _locate_value(
    text: str,
    pos: int,
    path: TokenPath,
    key_offset: int | None,
    wanted: set[TokenPath],
    prefixes: set[TokenPath],
    found: dict[TokenPath, tuple[int | None, int]],
) -> int:
    """Record the value at ``pos`` if wanted; return the offset just after it."""
    if path in prefixes:  # ancestors too: a missing member is placed at its nearest ancestor
        found[path] = (key_offset, pos)
    char = text[pos : pos + 1]
    if path not in prefixes or char not in ("{", "["):
        return _skip_value(text, pos)
    pos += 1
    if char == "{":
        pos = _after_ws(text, pos)
        if text.startswith("}", pos):
            return pos + 1
        while True:
            member_offset = pos
            name, pos = scanstring(text, pos + 1, True)
            pos = _after_ws(text, pos) + 1  # the colon
            pos = _after_ws(text, pos)
            pos = _locate_value(text, pos, (*path, name), member_offset, wanted, prefixes, found)
            pos = _after_ws(text, pos)
            if text.startswith("}", pos):
                return pos + 1
            pos = _after_ws(text, pos + 1)  # after the comma
    pos = _after_ws(text, pos)
    if text.startswith("]", pos):
        return pos + 1
    index = 0
    while True:
        pos = _locate_value(text, pos, (*path, str(index)), None, wanted, prefixes, found)
        index += 1
        pos = _after_ws(text, pos)
        if text.startswith("]", pos):
            return pos + 1
        pos = _after_ws(text, pos + 1)


# The standard library's C scanner skips a value fastest; building the value is the price, paid only for
# documents that have issues to place.
_scan_value = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _skip_value(text: str, pos: int) -> int:
    try:
        end: int = _scan_value(text, pos)[1]
        return end
    except (StopIteration, ValueError, RecursionError):
        return _skip_slowly(text, pos)


def _skip_slowly(text: str, pos: int) -> int:
    """Skip by strings and brackets alone: for what the C scanner cannot take (very deep nesting)."""
    char = text[pos : pos + 1]
    if char == '"':
        return scanstring(text, pos + 1, True)[1]
    if char not in ("{", "["):
        match = _NUMBER.match(text, pos)
        if match is not None and match.end() > pos:
            return match.end()
        for literal in ("true", "false", "null", "NaN", "Infinity", "-Infinity"):
            if text.startswith(literal, pos):
                return pos + len(literal)
        return pos + 1
    depth = 0
    for match in _SKIP.finditer(text, pos):
        token = match.group()
        if token in ("{", "["):
            depth += 1
        elif token in ("}", "]"):
            depth -= 1
            if depth == 0:
                return match.end()
    return len(text)
