"""A metrics.json compared with the report its run's tasks give: each value that differs, where it is.

One mismatch per value (``value``, ``reference_value``, ``aggregation_weight`` of a series, a category or a hierarchy
node), one per counts object (it covers the counts inside), one per category or node the file has and the tasks
do not, or the tasks have and the file does not. Each message gives both numbers and the first tasks of the scope.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import attrs

from ..reading._pointers import join
from ..vocabulary._text import quote
from ._recompute import Recomputation, Reduction
from ._report import same

_COUNTS = ("total", "evaluated", "error", "unavailable", "invalidated")
_VALUES = ("value", "reference_value", "aggregation_weight")
FIRST_TASKS = 3


@attrs.frozen
class Mismatch:
    """A value of metrics.json the tasks do not give: its pointer, and what the message says."""

    pointer: str
    message: str


def _number(value: Any) -> str:
    return "null" if value is None else json.dumps(value)


def _tasks(items: Sequence[Reduction], state: str | None = None) -> str:
    """The first few tasks of a scope (of one state), with their values: the ones that make its number."""
    chosen = [item for item in items if state is None or item.state == state]
    if not chosen:
        return "no task"
    shown = ", ".join(
        quote(item.task) + (f" {item.value:g}" if item.value is not None else f" ({item.state})")
        for item in chosen[:FIRST_TASKS]
    )
    more = f" and {len(chosen) - FIRST_TASKS} more" if len(chosen) > FIRST_TASKS else ""
    return f"{len(chosen)} task(s): {shown}{more}"


def mismatches(file: Mapping[str, Any], recomputed: Recomputation) -> list[Mismatch]:
    """Every value of ``file`` (a metrics.json of the same series) that differs from ``recomputed``."""
    found: list[Mismatch] = []
    series = file.get("series")
    held = series if isinstance(series, list) else []
    for position, (mine, theirs) in enumerate(zip(recomputed.report["series"], held, strict=False)):
        if not isinstance(theirs, Mapping):
            continue
        at = join("/series", position)
        items = recomputed.reductions[position]
        found.extend(
            _part(at, mine, theirs, partial(tuple, items), f"series {mine['series_id']}", ("value", "reference_value"))
        )
        grouped: dict[str, list[Reduction]] = {}
        for item in items:  # each category's tasks, found once (a message names a scope's first tasks)
            grouped.setdefault(item.category, []).append(item)
        leaves = _leaves(mine["hierarchy"])
        for namespace, scoped in (("categories", _by_category(grouped)), ("hierarchy", _by_node(leaves, grouped))):
            found.extend(_breakdowns(at, namespace, mine, theirs, scoped))
    return found


def _part(
    at: str, mine: Mapping[str, Any], theirs: Mapping[str, Any], tasks: Callable[[], Sequence[Reduction]], scope: str,
    names: Sequence[str] = _VALUES,
) -> list[Mismatch]:  # fmt: skip
    found = []
    for name in names:
        if not same(mine.get(name), theirs.get(name)) and not (name == "aggregation_weight" and name not in theirs):
            found.append(
                Mismatch(
                    join(at, name),
                    f"{name} of {scope} is {_number(theirs.get(name))} in metrics.json, but the run's tasks give "
                    f"{_number(mine.get(name))} (AgentCompass 1.0.1's aggregation of {_tasks(tasks(), 'evaluated')})",
                )
            )
    counted = theirs.get("counts")
    if isinstance(counted, Mapping):
        file_counts = {name: counted.get(name, 0) for name in _COUNTS}
        if file_counts != mine["counts"]:
            differing = [name for name in _COUNTS if file_counts[name] != mine["counts"][name]]
            said = ", ".join(f"{name} {_number(file_counts[name])}" for name in differing)
            given = ", ".join(f"{name} {mine['counts'][name]}" for name in differing)
            found.append(
                Mismatch(
                    join(at, "counts"),
                    f"the counts of {scope} are {said} in metrics.json, but the run's tasks give {given} "
                    f"({_tasks(tasks())}): a task was added, removed or changed since metrics.json was written",
                )
            )
    return found


Scoped = Callable[[str], Sequence[Reduction]]


def _by_category(grouped: Mapping[str, list[Reduction]]) -> Scoped:
    return lambda name: grouped.get(name, [])


def _leaves(hierarchy: Mapping[str, Any]) -> dict[str, set[str]]:
    """Each node's categories: the names of the leaves at or below it."""
    paths = list(hierarchy)
    parents = {path.rsplit("/", 1)[0] for path in paths if path != "overall"}
    found: dict[str, set[str]] = {path: set() for path in paths}
    for path in paths:
        if path in parents:
            continue
        name = path.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        segments = path.split("/")
        for end in range(1, len(segments) + 1):
            found.setdefault("/".join(segments[:end]), set()).add(name)
    return found


def _by_node(leaves: Mapping[str, set[str]], grouped: Mapping[str, list[Reduction]]) -> Scoped:
    def scoped(path: str) -> list[Reduction]:  # only for a node that differs: a message names its first tasks
        return [item for name in sorted(leaves.get(path, set())) for item in grouped.get(name, [])]

    return scoped


def _breakdowns(
    at: str, namespace: str, mine: Mapping[str, Any], theirs: Mapping[str, Any], scoped: Scoped
) -> list[Mismatch]:
    found: list[Mismatch] = []
    file_parts = theirs.get(namespace)
    if not isinstance(file_parts, Mapping):
        return found
    word = "category" if namespace == "categories" else "hierarchy node"
    for name, part in mine[namespace].items():
        if name not in file_parts:
            found.append(
                Mismatch(
                    join(at, namespace),
                    f"metrics.json has no {word} {quote(name)} in series {mine['series_id']}, but the run's tasks "
                    f"give it ({_tasks(scoped(name))})",
                )
            )
        elif isinstance(file_parts[name], Mapping):
            scope = f"{word} {quote(name)} of series {mine['series_id']}"
            found.extend(_part(join(at, namespace, name), part, file_parts[name], partial(scoped, name), scope))
    for name in file_parts:
        if name not in mine[namespace]:
            found.append(
                Mismatch(
                    join(at, namespace, name),
                    f"metrics.json has the {word} {quote(name)} in series {mine['series_id']}, but no task of the "
                    "run is in it",
                )
            )
    return found
