"""The optional native strict reader (the ``_native`` C extension) and positions from what it recorded.

``read`` gives the data of a document only when the native pass is certain it is clean JSON with nothing to
report; anything else (``None``) goes to the exact reader in ``_json``, which makes every report. A clean
document keeps the table of its containers' offsets, so that a schema or rule finding on it is placed without
reading the file again: only the containers on the way to a wanted path are looked at.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Any

from ._pointers import TokenPath

try:
    from . import _native
except ImportError:  # built without a compiler: the pure-Python path
    _native = None  # type: ignore[assignment]
if os.environ.get("AGENTBEATS_SPEC_PURE"):
    _native = None  # type: ignore[assignment]

# What a reader knows of a document's floats with no fractional part (1.0, 1e0, -0.0): True when it cannot tell,
# False when there is none, else the names of the members whose values they are (None: an array item, the root).
IntegralFloats = bool | AbstractSet[str | None]


def integral_floats(integral: int | AbstractSet[str | None]) -> IntegralFloats:
    """What the native reader said of integral floats (0, or the set of member names) as ``IntegralFloats``."""
    return bool(integral) if isinstance(integral, int) else integral


available = _native is not None
# The call that lists a folder and reads its wanted files (``_folders``); None without it (or on Windows).
folder_reader = getattr(_native, "read_folder", None)
# The lstat lines of everything below a folder, for the verdict cache (units._cache.survey); None without it.
surveyor = getattr(_native, "survey", None)
_LEADING_WHITESPACE = re.compile(rb"[ \t\n\r]*")
_OBJECT, _ARRAY = ord("{"), ord("[")


def read(raw: bytes, max_depth: int) -> tuple[Any, bytes, int | AbstractSet[str | None]] | None:
    """(data, container offsets, where it holds integral floats such as 1.0) of a certainly clean document; None
    when the exact reader must see it. Where: 0 for none, else the names of the members whose values they are
    (None for an array item or the whole document); :func:`integral_floats` makes it ``IntegralFloats``."""
    if _native is None:
        return None
    data, flag, table, integral = _native.read(raw, max_depth)
    if flag or table is None:
        return None
    return data, table, integral


def locate(raw: bytes, table: bytes, paths: Iterable[TokenPath]) -> dict[TokenPath, tuple[int | None, int]]:
    """Byte offsets of the key (None for array items and the root) and value of each path, as ``_json.locate``.

    Level by level, each container on the way to a wanted path is walked once for all its wanted members
    (``find_each``): the findings of N items of one array are placed in one pass over it, never by N searches
    from its start.
    """
    assert _native is not None
    root = _LEADING_WHITESPACE.match(raw).end()  # type: ignore[union-attr]  # it matches the empty string
    found: dict[TokenPath, tuple[int | None, int]] = {(): (None, root)}
    by_depth: dict[int, set[TokenPath]] = {}
    for path in paths:
        for cut in range(1, len(path) + 1):
            by_depth.setdefault(cut, set()).add(path[:cut])
    for depth in sorted(by_depth):  # parents before children
        children: dict[TokenPath, list[str]] = {}
        for path in by_depth[depth]:
            if path[:-1] in found:
                children.setdefault(path[:-1], []).append(path[-1])
        for parent, tokens in children.items():
            start = found[parent][1]
            opening = raw[start]
            if opening == _OBJECT:
                wanted: list[Any] = tokens
            elif opening == _ARRAY:
                wanted = sorted({int(token) for token in tokens if _is_index(token)})
            else:
                continue
            for token, place in zip(wanted, _native.find_each(raw, table, start, wanted), strict=True):
                if place is not None:
                    key, value = place
                    child: TokenPath = (*parent, str(token))
                    found[child] = (None if key < 0 else key, value)
    return found


def _is_index(token: str) -> bool:
    return token.isascii() and token.isdigit() and str(int(token)) == token


def line_columns(raw: bytes, offsets: Iterable[int]) -> dict[int, tuple[int, int]]:
    """1-based (line, column in characters) of byte offsets, counted natively."""
    assert _native is not None
    ordered = sorted(set(offsets))
    return dict(zip(ordered, _native.line_columns(raw, ordered), strict=True))
