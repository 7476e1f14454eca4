"""Helpers shared by the rule modules."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any, TypeGuard

from .._issues import Anchor, Finding
from .._pointers import join
from .._text import closest, quote


def unknown_members(
    value: Any,
    pointer: str,
    known: Collection[str],
    *,
    where: str,
    note: str = "",
    unknown: str = "key",
) -> Iterator[Finding]:
    if not isinstance(value, dict):
        return
    for name in value:
        if name in known:
            continue
        match = closest(name, [each for each in known if each not in value])
        if match is not None:
            yield Finding(
                join(pointer, name),
                "rule.misspelled-key",
                f"unknown {unknown} {quote(name)} in {where}; did you mean {match!r}?{note}",
                anchor=Anchor.KEY,
            )
        else:
            yield Finding(
                join(pointer, name),
                "rule.unknown-key",
                f"unknown {unknown} {quote(name)} in {where}; the spec does not define it",
                severity="warning",
                anchor=Anchor.KEY,
            )


def is_int(value: Any) -> TypeGuard[int]:
    """A JSON integer (Python's bool is an int, JSON's true is not)."""
    return isinstance(value, int) and not isinstance(value, bool)
