"""Run-tree layouts: AgentCompass runs, ABB results and ABV3 repositories.

Each layout module states one ``Layout`` (``_layout``: detect, plan, its rules spanning units); :func:`layouts`
is their ordered tuple, which planning and the reduce (``application._tree_check``) go through, never a layout
by its module. What a layout module shares with the others is in ``_layout``, below them all: no layout module
imports this package.
"""

from __future__ import annotations

from ._layout import CrossUnitRule, Layout, kind_by_place, kind_in_place, named_folder

__all__ = ["CrossUnitRule", "Layout", "kind_by_place", "kind_in_place", "layouts", "named_folder"]


def layouts() -> tuple[Layout, ...]:
    """The layouts, in the order they are tried; a folder may be more than one (ABB with an agentbeats.toml)."""
    # Kept lazy for start-up time: a one-file check does not import the layout modules (some 25 ms, -X importtime).
    from . import abb, abv3, agentcompass

    return (agentcompass.LAYOUT, abv3.LAYOUT, abb.LAYOUT)
