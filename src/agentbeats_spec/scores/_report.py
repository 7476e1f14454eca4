"""The run-level report made of the task reductions (``report_aggregation._aggregate_series``), up a category
hierarchy when the report has one.

metrics.json keeps a hierarchy's shape (its node paths) but not how each node combined its children (unweighted,
weighted_by_count, or weighted by weights of the benchmark's configuration). Each node takes the way of 1.0.1 that
reproduces the file's values of every series: unweighted, then weighted_by_count, then weighted, whose weights are
unknown (any value between the least and the greatest of the children's is one some weights give; the file's is
kept). Where none does, the way that reproduces most series is kept, and the others are reported as mismatches.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ._recompute import (
    BY_COUNT,
    UNWEIGHTED,
    WEIGHTED,
    Contract,
    Recomputation,
    Reduction,
    Refused,
    TaskScore,
    breakdown,
    categories,
    counts,
    mean,
    reduce_task,
)

AGGREGATIONS = ("micro_weighted", "category_mean", "category_hierarchy")
_COUNTS = ("total", "evaluated", "error", "unavailable", "invalidated")


def same(left: Any, right: Any) -> bool:
    """Whether two values of a report are the same: both null, or numbers within 1e-9 relative."""
    if left is None or right is None or isinstance(left, bool) or isinstance(right, bool):
        return left is None and right is None
    if not isinstance(left, (int, float)) or not isinstance(right, (int, float)):
        return False
    return math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-12)


def shown_value(part: Any) -> Any:
    """The value a breakdown of a file holds, official or reference (evaluation_failed moves it)."""
    if not isinstance(part, Mapping):
        return None
    value = part.get("value")
    return value if value is not None else part.get("reference_value")


@attrs.frozen
class Node:
    """A node of a category hierarchy as metrics.json shows it: its path, its name, its children's paths."""

    path: str
    name: str
    children: tuple[Node, ...]


def decoded(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def hierarchy_of(paths: Sequence[str]) -> Node:
    """The tree of a report's hierarchy paths (``overall`` at the root; a path with none below it is a leaf)."""
    if "overall" not in paths:
        raise Refused("metrics.json has a category_hierarchy report without an 'overall' node")
    below: dict[str, list[str]] = {}
    for path in paths:
        if path != "overall":
            below.setdefault(path.rsplit("/", 1)[0], []).append(path)
    # Built from the deepest paths up, not by recursion: a path may have as many segments as a key has characters.
    built: dict[str, Node] = {}
    for path in sorted(paths, key=lambda each: -each.count("/")):
        kids = tuple(built[child] for child in below.get(path, []))
        built[path] = Node(path, decoded(path.rsplit("/", 1)[-1]), kids)
    return built["overall"]


def recompute(
    tasks: Sequence[TaskScore], contract: Contract, k: int, strategy: str, aggregation: str,
    hierarchy: Sequence[Mapping[str, Any]] | None = None,
) -> Recomputation:  # fmt: skip
    """The report 1.0.1 writes for ``tasks``; ``hierarchy``: each series' hierarchy object of the metrics.json
    being checked (its paths are the hierarchy's, its values choose how each node combines its children)."""
    if aggregation not in AGGREGATIONS:
        raise Refused(f"aggregation {aggregation!r} is not one 1.0.1 has")
    reduced = [reduce_task(task, contract, k, strategy) for task in tasks]
    by_series = tuple(tuple(each[position] for each in reduced) for position in range(len(contract.series)))
    found = [_series(series, items, k, aggregation) for series, items in zip(contract.series, by_series, strict=True)]
    if aggregation == "category_hierarchy":
        files = list(hierarchy or [])
        if len(files) != len(found) or not isinstance(files[0], Mapping):
            raise Refused("metrics.json has a category_hierarchy report without a hierarchy in each series")
        root = hierarchy_of(list(files[0]))
        nodes = _reduce_node(root, [each["categories"] for each in found], files)
        for position, item in enumerate(found):
            item["hierarchy"] = {path: values[position] for path, values in nodes.items()}
            item["value"] = item["hierarchy"]["overall"]["value"]
    failed = any(item["counts"]["invalidated"] for item in found)
    for item in found:
        for part in (item, *item["categories"].values(), *item["hierarchy"].values()):
            value = part["value"]
            part["value"], part["reference_value"] = (None, value) if failed else (value, None)
    report = {"k": k, "strategy": strategy, "aggregation": aggregation, "series": found, "evaluation_failed": failed,
              "extra": {}}  # fmt: skip
    return Recomputation(report, by_series)


def _series(series: Any, items: Sequence[Reduction], k: int, aggregation: str) -> dict[str, Any]:
    by_category = categories(items)
    if aggregation == "category_mean":
        value = mean(part["value"] for part in by_category.values() if part["value"] is not None)
    else:
        value = mean(item.value for item in items if item.state == "evaluated" and item.value is not None)
    return {
        "series_id": f"{series.metric}.{series.reducer}@{k}", "metric_id": series.metric, "kind": series.kind,
        "reducer": series.reducer, "role": "headline" if series.headline else "auxiliary", "aggregation": aggregation,
        "display": _display(series.display), "k": k, "value": value, "reference_value": None,
        "counts": counts(items), "categories": by_category, "hierarchy": {}, "extra": {},
    }  # fmt: skip


def _display(display: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``MetricDisplay`` as 1.0.1 dumps it: every member, the texts stripped."""
    if display is None:
        return None
    stripped: dict[str, Any] = {}
    for name in ("label", "description", "unit", "precision"):
        value = display.get(name)
        stripped[name] = value.strip() if isinstance(value, str) and name != "precision" else value
    return stripped


def _reduce_node(
    root: Node, by_category: Sequence[Mapping[str, Any]], files: Sequence[Mapping[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Every node's breakdown in every series, children first (``_hierarchy_breakdowns``), each node combined the
    way that reproduces the file (see the module's docstring)."""
    empty = breakdown(None, dict.fromkeys(_COUNTS, 0), 0.0)
    found: dict[str, list[dict[str, Any]]] = {}
    order: list[Node] = []
    stack = [root]
    while stack:  # children before parents: the reverse of a pre-order walk
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    for node in reversed(order):
        if not node.children:
            found[node.path] = [dict(each.get(node.name, empty)) for each in by_category]
            continue
        children = [found[child.path] for child in node.children]
        combined = []
        for position in range(len(by_category)):
            parts = [child[position] for child in children]
            summed = {name: sum(part["counts"][name] for part in parts) for name in _COUNTS}
            weight = math.fsum(part["aggregation_weight"] for part in parts)
            combined.append(breakdown(None, summed, weight))
        wanted = [shown_value(each.get(node.path)) if isinstance(each, Mapping) else None for each in files]
        values = _combined_values(children, wanted)
        for part, value in zip(combined, values, strict=True):
            part["value"] = value
        found[node.path] = combined
    return found


def _combined_values(children: Sequence[Sequence[dict[str, Any]]], wanted: Sequence[Any]) -> list[float | None]:
    """The node's value in each series, combined the one way of 1.0.1 that best reproduces ``wanted``."""
    candidates = {UNWEIGHTED: [], BY_COUNT: [], WEIGHTED: []}  # type: dict[str, list[float | None]]
    for position, target in enumerate(wanted):
        valid = [child[position] for child in children if child[position]["value"] is not None]
        values = [part["value"] for part in valid]
        candidates[UNWEIGHTED].append(mean(values))
        weights = [part["aggregation_weight"] for part in valid]
        total = math.fsum(weights)
        by_count = math.fsum(v * (w / total) for v, w in zip(values, weights, strict=True)) if total > 0 else 0.0
        candidates[BY_COUNT].append(by_count if valid else None)
        between = (
            isinstance(target, (int, float)) and not isinstance(target, bool) and bool(values)
            and (min(values) <= target <= max(values) or any(same(target, v) for v in (min(values), max(values))))
        )  # fmt: skip
        candidates[WEIGHTED].append(float(target) if between else (values[0] if values else None))
    scores = {way: sum(same(a, b) for a, b in zip(found, wanted, strict=True)) for way, found in candidates.items()}
    best = max(scores.values())
    return next(found for way, found in candidates.items() if scores[way] == best)
