"""Helpers shared by the rule modules."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import Any, TypeGuard

import attrs

from ..reading._pointers import join
from ..vocabulary._issues import Anchor, Finding
from ..vocabulary._text import closest, quote


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


# Findings about what the reference writer does on every step: one per document, with the count.
ONCE_PER_DOCUMENT = frozenset({"rule.timestamp-offset", "rule.empty-object-list"})


def once_per_document(findings: Iterable[Finding]) -> Iterator[Finding]:
    """The findings, with those of ONCE_PER_DOCUMENT codes reduced to the first of each code, counted."""
    kept: list[Finding] = []
    counts: dict[str, int] = {}  # a dict, not a Counter: made for every document, and most have no finding
    for finding in findings:
        if finding.code in ONCE_PER_DOCUMENT:
            counts[finding.code] = counts.get(finding.code, 0) + 1
            if counts[finding.code] > 1:
                continue
        kept.append(finding)
    for finding in kept:
        count = counts.get(finding.code, 0)
        if count > 1:
            finding = attrs.evolve(finding, message=f"{finding.message} ({count} places in this document; the first)")
        yield finding


def is_int(value: Any) -> TypeGuard[int]:
    """A JSON integer (Python's bool is an int, JSON's true is not)."""
    return isinstance(value, int) and not isinstance(value, bool)
