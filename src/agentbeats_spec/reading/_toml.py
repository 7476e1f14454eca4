"""TOML reading (through tomli) and source positions of keys and values.

tomli says whether a document is valid and what it means; it says nothing about where things
are. ``locate`` reads an already valid document once more at the level of keys, headers and
values to place JSON Pointers on it, including dotted keys, inline tables and arrays of tables.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..vocabulary._issues import Finding
from ..vocabulary._text import shorten
from . import _messages
from ._json import MAX_DEPTH, MAX_INTEGER_DIGITS, Lines
from ._pointers import TokenPath, to_pointer

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_SCALAR = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:\.[0-9]+)?"
    r"(?:[Zz]|[+-][0-9]{2}:[0-9]{2})?"
    r"|[^\s,\]}#]+"
)


def parse(text: str, max_depth: int = MAX_DEPTH) -> tuple[Any, list[Finding]]:
    import tomli  # lazy for start-up time: only a run that meets a TOML file pays for its import

    if _LONG_DIGITS.search(text) is not None:
        huge = list(_huge_integers(text))
        if huge:
            return None, huge  # never handed to int(), whose time grows with the square of the length
    try:
        data = tomli.loads(text)
    except tomli.TOMLDecodeError as error:
        line = getattr(error, "lineno", None)
        column = getattr(error, "colno", None)
        message = getattr(error, "msg", None) or str(error)
        return None, [Finding("", "toml.syntax", f"invalid TOML: {message}", line=line, column=column)]
    except RecursionError:  # tomli's own bound on nested arrays and inline tables (or the interpreter's)
        return None, [_too_deep_inline(text)]
    deep = _first_too_deep(data, max_depth)
    if deep is not None:
        return None, [Finding(to_pointer(deep), "toml.too-deep", _messages.too_deep(max_depth))]
    findings: list[Finding] = []
    return _jsonable(data, (), findings), findings


# The tokens that matter to find integers and brackets outside strings and comments. Only a document holding a
# long run of digits, or one that tomli found too deep, is read this way, to say where the problem is.
_LONG_DIGITS = re.compile(f"[0-9_]{{{MAX_INTEGER_DIGITS + 1}}}")
_LEX = re.compile(
    r"""(?P<comment>\#[^\n]*)
    |(?P<string>"{3}(?:[^"\\]|\\.|"(?!""))*"{3,5}|'{3}(?:[^']|'(?!''))*'{3,5}|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')
    |(?P<number>[+-]?[0-9][0-9_]*(?P<fraction>[.eE][0-9_eE+-]*)?)
    |(?P<open>[\[{])
    |(?P<close>[\]}])
    |(?P<other>[A-Za-z_][A-Za-z0-9_-]*|\S)""",
    re.VERBOSE | re.DOTALL,
)
_KEY_FOLLOWS = re.compile(r"[ \t]*[=.]")
# tomli refuses arrays and inline tables nested deeper than this (with a RecursionError).
TOMLI_DEPTH = 400


def _huge_integers(text: str) -> Iterator[Finding]:
    lines = Lines(text)
    for token in _LEX.finditer(text):
        number = token.group("number")
        if number is None or token.group("fraction") is not None:
            continue
        digits = sum(char.isdigit() for char in number)
        if digits <= MAX_INTEGER_DIGITS or _KEY_FOLLOWS.match(text, token.end()):
            continue  # a bare key made of digits is a name, not a number
        line, column = lines.position(token.start())
        yield Finding(
            "",
            "toml.large-integer",
            _messages.unreadable_integer(number, digits, MAX_INTEGER_DIGITS, "TOML"),
            line=line,
            column=column,
        )


def _too_deep_inline(text: str) -> Finding:
    depth = 0
    offset = 0
    for token in _LEX.finditer(text):
        if token.group("open") is not None:
            depth += 1
            if depth > TOMLI_DEPTH:
                offset = token.start()
                break
        elif token.group("close") is not None:
            depth = max(depth - 1, 0)
    line, column = Lines(text).position(offset)
    return Finding(
        "",
        "toml.too-deep",
        _messages.too_deep(TOMLI_DEPTH, reader="TOML"),
        line=line,
        column=column,
    )


def _first_too_deep(data: Any, max_depth: int) -> TokenPath | None:
    """The path of the first value nested deeper than ``max_depth`` (dotted keys and headers nest too)."""
    stack: list[tuple[Any, TokenPath]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if len(path) >= max_depth:
            return path
        if isinstance(value, dict):
            stack.extend((item, (*path, key)) for key, item in value.items() if isinstance(item, (dict, list)))
        elif isinstance(value, list):
            stack.extend((item, (*path, str(i))) for i, item in enumerate(value) if isinstance(item, (dict, list)))
    return None


_TEMPORAL = (
    (datetime.datetime, "date-time"),
    (datetime.date, "date"),
    (datetime.time, "time"),
)


def _jsonable(value: Any, path: TokenPath, findings: list[Finding]) -> Any:
    """Replace TOML dates and times (which JSON has no form for) by their text, with an error each."""
    if isinstance(value, dict):
        return {key: _jsonable(item, (*path, key), findings) for key, item in value.items()}
    if isinstance(value, list):
        return [_jsonable(item, (*path, str(index)), findings) for index, item in enumerate(value)]
    for kind, name in _TEMPORAL:
        if isinstance(value, kind):
            text = value.isoformat()
            findings.append(
                Finding(
                    to_pointer(path),
                    "toml.type",
                    f"found the TOML {name} {shorten(text)}, which has no JSON form; "
                    f'expected a string: write it in quotes ("{shorten(text)}")',
                )
            )
            return text
    return value


class _Cursor:
    """A position in TOML text with the few primitives the locator needs."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def peek(self, size: int = 1) -> str:
        return self.text[self.pos : self.pos + size]

    def skip_inline_ws(self) -> None:
        while self.text.startswith((" ", "\t"), self.pos):
            self.pos += 1

    def skip_ws_comments_newlines(self) -> None:
        text, length = self.text, len(self.text)
        while self.pos < length:
            char = text[self.pos]
            if char in " \t\r\n":
                self.pos += 1
            elif char == "#":
                newline = text.find("\n", self.pos)
                self.pos = length if newline == -1 else newline + 1
            else:
                return

    def skip_to_line_end(self) -> None:
        newline = self.text.find("\n", self.pos)
        self.pos = len(self.text) if newline == -1 else newline + 1

    def key_part(self) -> str:
        text = self.text
        if text.startswith('"', self.pos):
            import tomli

            end = self._basic_string_end(self.pos + 1)
            value = tomli.loads(f"k = {text[self.pos : end]}")["k"]
            self.pos = end
            return str(value)
        if text.startswith("'", self.pos):
            end = text.index("'", self.pos + 1) + 1
            value = text[self.pos + 1 : end - 1]
            self.pos = end
            return value
        match = _BARE_KEY.match(text, self.pos)
        if match is None:
            raise ValueError("not a key")
        self.pos = match.end()
        return match.group()

    def dotted_key(self) -> list[tuple[str, int]]:
        """The parts of a (possibly dotted) key with the offset of each part."""
        parts: list[tuple[str, int]] = []
        while True:
            self.skip_inline_ws()
            offset = self.pos
            parts.append((self.key_part(), offset))
            self.skip_inline_ws()
            if self.peek() != ".":
                return parts
            self.pos += 1

    def _basic_string_end(self, pos: int) -> int:
        text = self.text
        while True:
            char = text[pos]
            if char == "\\":
                pos += 2
            elif char == '"':
                return pos + 1
            else:
                pos += 1

    def skip_string(self) -> None:
        text = self.text
        if text.startswith('"""', self.pos):
            pos = self.pos + 3
            while True:
                if text[pos] == "\\":
                    pos += 2
                    continue
                if text.startswith('"""', pos):
                    # A closing delimiter may be followed by up to two more quotes of content.
                    end = pos + 3
                    while text.startswith('"', end) and end - pos < 5:
                        end += 1
                    self.pos = end
                    return
                pos += 1
        if text.startswith("'''", self.pos):
            end = text.index("'''", self.pos + 3) + 3
            while text.startswith("'", end) and end - text.index("'''", self.pos + 3) < 5:
                end += 1
            self.pos = end
            return
        if text.startswith('"', self.pos):
            self.pos = self._basic_string_end(self.pos + 1)
            return
        self.pos = text.index("'", self.pos + 1) + 1


class _Locator:
    def __init__(self, text: str, wanted: set[TokenPath]) -> None:
        self.cursor = _Cursor(text)
        self.prefixes = {path[:i] for path in wanted for i in range(len(path) + 1)}
        self.found: dict[TokenPath, tuple[int | None, int]] = {(): (None, 0)}
        self.array_tables: dict[TokenPath, int] = {}

    def record(self, path: TokenPath, key_offset: int | None, value_offset: int) -> None:
        if path in self.prefixes and path not in self.found:
            self.found[path] = (key_offset, value_offset)

    def resolve(self, parts: list[tuple[str, int]], base: TokenPath = ()) -> TokenPath:
        """Turn key parts into a path, stepping into the last element of arrays of tables."""
        path = base
        for name, offset in parts:
            path = (*path, name)
            self.record(path, offset, offset)
            if path in self.array_tables:
                path = (*path, str(self.array_tables[path] - 1))
        return path

    def run(self) -> dict[TokenPath, tuple[int | None, int]]:
        cursor = self.cursor
        table: TokenPath = ()
        while True:
            cursor.skip_ws_comments_newlines()
            if cursor.pos >= len(cursor.text):
                return self.found
            if cursor.peek(2) == "[[":
                header = cursor.pos
                cursor.pos += 2
                parts = cursor.dotted_key()
                parent = self.resolve(parts[:-1])
                name, offset = parts[-1]
                array = (*parent, name)
                self.record(array, offset, offset)
                index = self.array_tables.get(array, 0)
                self.array_tables[array] = index + 1
                table = (*array, str(index))
                self.record(table, None, header)
                cursor.skip_to_line_end()
            elif cursor.peek() == "[":
                cursor.pos += 1
                table = self.resolve(cursor.dotted_key())
                cursor.skip_to_line_end()
            else:
                self.key_value(table)
                cursor.skip_to_line_end()

    def key_value(self, table: TokenPath) -> None:
        cursor = self.cursor
        parts = cursor.dotted_key()
        path = self.resolve(parts[:-1], table)
        name, offset = parts[-1]
        path = (*path, name)
        cursor.skip_inline_ws()
        cursor.pos += 1  # the equals sign
        cursor.skip_inline_ws()
        self.value(path, offset)

    def value(self, path: TokenPath, key_offset: int | None) -> None:
        cursor = self.cursor
        self.record(path, key_offset, cursor.pos)
        char = cursor.peek()
        if char in ('"', "'"):
            cursor.skip_string()
        elif char == "[":
            cursor.pos += 1
            index = 0
            while True:
                cursor.skip_ws_comments_newlines()
                if cursor.peek() == "]":
                    cursor.pos += 1
                    return
                self.value((*path, str(index)), None)
                index += 1
                cursor.skip_ws_comments_newlines()
                if cursor.peek() == ",":
                    cursor.pos += 1
        elif char == "{":
            cursor.pos += 1
            while True:
                cursor.skip_inline_ws()
                if cursor.peek() == "}":
                    cursor.pos += 1
                    return
                parts = cursor.dotted_key()
                inner = self.resolve(parts[:-1], path)
                name, offset = parts[-1]
                cursor.skip_inline_ws()
                cursor.pos += 1  # the equals sign
                cursor.skip_inline_ws()
                self.value((*inner, name), offset)
                cursor.skip_inline_ws()
                if cursor.peek() == ",":
                    cursor.pos += 1
        else:
            match = _SCALAR.match(cursor.text, cursor.pos)
            cursor.pos = match.end() if match else cursor.pos + 1


def value_end(text: str, start: int) -> int:
    """Where the string, or the scalar read as one (a date or a time), that starts at ``start`` ends."""
    cursor = _Cursor(text)
    cursor.pos = start
    if text[start] in "\"'":
        cursor.skip_string()
    else:
        match = _SCALAR.match(text, start)
        cursor.pos = match.end() if match else start + 1
    return cursor.pos


def locate(text: str, paths: Iterable[TokenPath]) -> dict[TokenPath, tuple[int | None, int]]:
    """Character offsets of the key and value of each path in a valid TOML document.

    A table's value offset is that of its header (or of its first key part); a path that does not
    exist is left out.
    """
    locator = _Locator(text, set(paths))
    try:
        return locator.run()
    except (ValueError, IndexError):
        # Only a document tomli rejected can get here; what was found so far is still right.
        return locator.found
