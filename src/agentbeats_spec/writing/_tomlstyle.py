"""TOML written in the style of the file it replaces: a hand-written ``agentbeats.toml`` keeps its comments.

tomli stays the strict reader with positions; tomlkit, which keeps every comment, blank line and quoting choice of
a document it parsed, only rewrites: the old text is changed value by value to hold the new data, so what did not
change stays byte for byte, and what changed takes the place (and the comment) of what it replaces.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..reading._bounded import read_bounded


def in_style_of(path: Path, data: dict[str, Any]) -> bytes | None:
    """``data`` as TOML in the style of the file at ``path``; None when there is no such file to follow.

    The result is read back with tomli and must mean exactly ``data``; if it does not, None (the caller writes
    plain TOML), so a quirk of the style-keeping library can never change what is written.
    """
    if path.is_symlink() or not path.is_file():  # a link is replaced by the write: nothing of its target is kept
        return None
    raw, problem = read_bounded(path)
    if problem is not None or not raw:
        return None
    try:
        previous = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return None
    text = updated(previous, data)
    return None if text is None else text.encode("utf-8")


def updated(previous: str, data: dict[str, Any]) -> str | None:
    """The text of ``previous`` changed to hold ``data``, or None when that cannot be done faithfully."""
    import tomli
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        document = tomlkit.parse(previous)
        _sync(document, data)
        text = tomlkit.dumps(document)
        return text if _same(tomli.loads(text), data) else None
    except (TOMLKitError, tomli.TOMLDecodeError, ValueError, TypeError, RecursionError):
        return None


def _sync(table: Any, data: dict[str, Any]) -> None:
    """Make a tomlkit table (or document, or inline table) hold ``data``, touching only what differs."""
    from tomlkit.items import AoT

    for key in [key for key in table if key not in data]:
        del table[key]
    for key, value in data.items():
        if key in table:
            current = table[key]
            if isinstance(value, dict) and _is_table(current):
                _sync(current, value)
                continue
            if isinstance(current, AoT) and _is_table_list(value) and len(current) == len(value):
                for item, new in zip(current, value, strict=True):
                    _sync(item, new)
                continue
            if _same(_plain(current), value):
                continue
            if _extends(current, value):  # items added at the end: the old ones keep their comments
                for item in value[len(current) :]:
                    current.append(item)
                continue
            table[key] = _like(current, value)
        else:
            table[key] = value


def _like(current: Any, value: Any) -> Any:
    """A new value written as the one it replaces was: a literal string stays literal, a multi-line array
    stays multi-line."""
    import tomlkit
    from tomlkit.items import Array, String, StringType

    if isinstance(current, String) and isinstance(value, str):
        literal = current.type in (StringType.SLL, StringType.MLL)
        if literal and "'" not in value and "\n" not in value and "\r" not in value:
            return tomlkit.string(value, literal=True)
    if isinstance(current, Array) and isinstance(value, list) and "\n" in current.as_string():
        array = tomlkit.array()
        array.extend(value)
        return array.multiline(True)
    return value


def _extends(current: Any, value: Any) -> bool:
    from tomlkit.items import Array

    if not isinstance(current, Array) or not isinstance(value, list) or len(value) <= len(current):
        return False
    return _same(_plain(current), value[: len(current)]) and not any(isinstance(item, dict) for item in value)


def _is_table(item: Any) -> bool:
    from tomlkit.items import InlineTable, Table

    return isinstance(item, (Table, InlineTable))


def _is_table_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def _plain(item: Any) -> Any:
    return item.unwrap() if hasattr(item, "unwrap") else item


def _same(left: Any, right: Any) -> bool:
    """Equal and of the same types all the way down (``True == 1`` in Python, but not in TOML)."""
    if type(left) is not type(right):
        both_maps = isinstance(left, dict) and isinstance(right, dict)
        both_lists = isinstance(left, list) and isinstance(right, list)
        if not (both_maps or both_lists):
            return False
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_same(left[key], right[key]) for key in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))
    return bool(left == right)
