"""The state folders of an AgentCompass run's ``details/`` and the rule that files a finished task under one."""

from __future__ import annotations

from collections.abc import Iterable

# A task is written under running/ and moves once every attempt has published its result.
RUNNING = "running"
FINAL_STATES = ("normal", "error", "fatal")
STATES = (RUNNING, *FINAL_STATES)


def final_state(severities: Iterable[object]) -> str:
    """The state a finished task moves to: that of the most severe issue of any attempt (warnings only: normal)."""
    found = set(severities)
    return "fatal" if "fatal" in found else "error" if "error" in found else "normal"
