"""What a layout is, and the planning every layout shares: below the layout modules, so none imports its package.

A layout is a :class:`Layout`: how to tell a folder is one (``detect``, from names alone), how to cut it into
units (``plan``) and the rules spanning units it contributes (``rules``, by the name of the facts they read).
``layouts/__init__.py`` holds the ordered tuple of them and hands it down to :func:`plan_folder`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import attrs

from ..checking import _kinds
from ..checking._collect import Collector, failing_on
from ..checking._sources import examine_found, examine_named, may_be_artifact
from ..reading._bounded import read_file
from ..units._plan import LOCAL, Tree, UnitPlan
from ..vocabulary._issues import Fact, Issue

CrossUnitRule = Callable[[list[Fact]], list[Issue]]


# A frozen record of functions, not a typing.Protocol: each layout module states one value of it, the ordered
# tuple lists those values, and a layout that lacks a part fails when its module is imported, not on first use.
@attrs.frozen
class Layout:
    """One run-tree layout.

    ``detect(folder, tree)``: whether ``folder`` is one, from the names of ``tree`` alone (no file is read).
    ``plan(folder, plan, others, layouts)``: its units and what its listing shows, deferred into ``plan``;
    ``others`` are the other layouts the same folder is, ``layouts`` all of them, in order (a folder inside it
    that is no part of it is planned as any folder is: :func:`plan_folder` with them).
    ``rules``: the rules spanning units it contributes, by the ``Fact.rule`` name of the facts each one reads.
    """

    name: str
    detect: Callable[[Path, Tree], bool]
    plan: Callable[[Path, UnitPlan, tuple[Layout, ...], tuple[Layout, ...]], None]
    rules: Mapping[str, CrossUnitRule] = attrs.field(factory=dict)


def plan_folder(
    folder: Path, kind: _kinds.Kind | None, plan: UnitPlan, root: Path, layouts: tuple[Layout, ...]
) -> None:
    """A folder and all below it: each folder that is one or more ``layouts`` is planned by them, every other
    folder walked and its artifact files made units (only the files of ``kind``, when one is named)."""
    # A stack, not recursion: a tree may be nested deeper than Python's call stack (PATH_MAX allows 2,000 levels).
    stack = [folder]
    while stack:
        current = stack.pop()
        if kind is None:
            matched = tuple(layout for layout in layouts if layout.detect(current, plan.tree))
            if matched:
                with failing_on(str(current)):
                    for layout in matched:
                        layout.plan(current, plan, tuple(other for other in matched if other is not layout), layouts)
                continue
        listing = plan.entries(current, root)
        for entry in listing:
            if entry.is_folder:
                continue
            if kind is not None:
                if entry.path.suffix == "." + kind.syntax:
                    plan.defer(found_file_unit, entry.path, kind.name)
            else:
                loose_file(plan, entry.path)
        stack.extend(entry.path for entry in reversed(listing) if entry.is_folder)


def joined(plans: Sequence[UnitPlan]) -> UnitPlan:
    """The plans of several named paths as one, in their order."""
    return UnitPlan(
        plans[0].tree if plans else LOCAL,
        [unit for plan in plans for unit in plan.units],
        [issue for plan in plans for issue in plan.issues],
        sum(plan.skipped for plan in plans),
    )


def named_folder(path: Path, tree: Tree, follow_symlinks: bool) -> bool:
    """Whether a named path is walked as a folder (a link only when links named are followed)."""
    if tree is LOCAL and path.is_symlink():
        return follow_symlinks and path.is_dir()
    return tree.is_folder(path)


def loose_file(plan: UnitPlan, path: Path) -> None:
    """A file met in a folder that is no layout: a unit when it may be an artifact, else counted as skipped."""
    if may_be_artifact(path, None):
        plan.defer(found_file_unit, path, None)
    else:
        plan.skip()


def named_file_unit(collector: Collector, path: Path, kind: str | None, named: bool = False) -> None:
    """One file the user named (``named``: a link is followed, as only --follow-symlinks lets one through) or a
    layout requires (never followed) on its own: it always gets a verdict."""
    collector.add(examine_named(path, kind_in_place(path, _kinds.get(kind) if kind else None), follow=named))


def found_file_unit(collector: Collector, path: Path, kind: str | None) -> None:
    """One file met in a folder that is no layout: skipped when it turns out to be no artifact."""
    collector.add(examine_found(path, _kinds.get(kind) if kind else kind_in_place(path, None)))


def kind_by_place(path: Path) -> _kinds.Kind | None:
    """The kind a file's path says, and where the path alone cannot say, its place: a run-level name such as
    ``params.json`` means its kind only at the root of an AgentCompass run."""
    kind = _kinds.from_path(path)
    if kind is None:
        at_run_root = _kinds.run_root_kind(path.name)
        if at_run_root is not None and is_run_root(path.parent):
            return at_run_root
    return kind


def kind_in_place(path: Path, kind: _kinds.Kind | None) -> _kinds.Kind | None:
    """The kind a file is checked as where it stands: ``kind``, or the one :func:`kind_by_place` says; an attempt
    result is of its task's version (read from the task.json of its task folder)."""
    kind = kind if kind is not None else kind_by_place(path)
    return _in_task(kind, path) if kind is not None else None


def is_run_root(folder: Path) -> bool:
    """An AgentCompass run root: run_info.json or details/ in it (as AgentCompass's own viewer tells a run)."""
    return os.path.isfile(os.path.join(folder, "run_info.json")) or os.path.isdir(os.path.join(folder, "details"))


def _in_task(kind: _kinds.Kind, path: Path) -> _kinds.Kind:
    """The version of an attempt result is its task's: a v2 task's attempts are checked as v2 payloads."""
    if kind.name != "agentcompass-attempt" or len(kind.versions) == 1:
        return kind  # another kind, or one its folder already pinned (a task unit reads its index once)
    index = path.parent.parent / "task.json"
    # Outside the unit of an attempt named alone, so outside its confinement (reading._bounded.confined): still
    # opened where the plan's real location of the attempt places it (two folders above), so a folder swapped
    # for a link since is refused (and the attempt checked as the current version) rather than followed.
    try:
        version = json.loads(read_file(index)).get("schema_version")
    except (OSError, ValueError, AttributeError, RecursionError):
        return kind  # no readable task index beside it: checked as the current version
    return _kinds.pinned(kind, version) if isinstance(version, str) and version in kind.versions else kind
