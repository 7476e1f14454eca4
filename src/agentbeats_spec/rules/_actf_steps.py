"""Which ACTF steps the per-step rules must judge: their native help (``_actf_native.c``) where it is built.

The native pass leaves out only steps in which the rules certainly find nothing; without it (no compiler, or
``AGENTBEATS_SPEC_PURE``) every step is judged, with the same findings. It reads the members the rules name
(``rules/actf.py`` ``STEP_MEMBERS``) and no others.
"""

from __future__ import annotations

import os
from typing import Any

try:
    from . import _actf_native
except ImportError:  # built without a compiler: every step is judged
    _actf_native = None  # type: ignore[assignment]
if os.environ.get("AGENTBEATS_SPEC_PURE"):
    _actf_native = None  # type: ignore[assignment]


def steps_to_judge(steps: list[Any], members: tuple[str, ...]) -> list[int] | None:
    """Indices of the steps that may have a finding; None: judge every step (the pure path, same findings)."""
    if _actf_native is None:
        return None
    return _actf_native.steps_to_judge(steps, members)
