"""The ACTF per-step rules' native help: it hands them only the steps where they may find something.

``rules/_actf_native.c`` leaves out a step only when the rules certainly find nothing in it; the findings are the
same with it and without it (where it is not built, every step is judged).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbeats_spec.rules import _actf_steps, actf

pytestmark = pytest.mark.skipif(_actf_steps._actf_native is None, reason="the native step filter is not built")

if _actf_steps._actf_native is not None:
    from agentbeats_spec.rules import _actf_native


@contextlib.contextmanager
def every_step_judged() -> Iterator[None]:
    """The pure path: no pre-filter, every step judged by the Python rules."""
    saved = _actf_steps._actf_native
    _actf_steps._actf_native = None  # type: ignore[assignment]
    try:
        yield
    finally:
        _actf_steps._actf_native = saved


DATES = st.sampled_from(["2026-08-01", "2024-02-29", "2023-02-29", "2026-13-01", "2026-04-31", "0000-01-01"])
TIMES = st.sampled_from(["10:00:00", "10:00:05", "09:59:59", "23:59:59", "24:00:00", "10:60:00", "10:00:60"])
FRACTIONS = st.sampled_from(["", ".5", ".123456", ".1234567", "."])
OFFSETS = st.sampled_from(["", "Z", "z", "+00:00", "-05:30", "+0000", "+24:00", "+05:60", "+00:0"])
timestamps = st.one_of(
    st.builds(lambda d, s, t, f, o: f"{d}{s}{t}{f}{o}", DATES, st.sampled_from(["T", " ", "t"]), TIMES, FRACTIONS,
              OFFSETS),
    st.sampled_from([None, "", "yesterday", "2026-08-01", "\uff12\uff10\uff12\uff16-08-01T10:00:00Z"]),
    st.integers(0, 3),
)  # fmt: skip
members = st.sampled_from([{}, [], None, {"a": 1}, "", [{}], 0])
steps = st.lists(
    st.fixed_dictionaries(
        {},
        optional={
            "step_id": st.one_of(st.integers(-2, 6), st.just(2**70), st.booleans(), st.none(), st.text(max_size=1)),
            "tools": members,
            "observation": members,
            "assistant_content": st.one_of(st.fixed_dictionaries({}, optional={"tool_calls": members}), members),
            "started_at": timestamps,
            "finished_at": timestamps,
        },
    )
    | st.sampled_from([None, 3, "step"]),
    max_size=8,
)


@settings(max_examples=1500, deadline=None)
@given(steps=steps, span=st.fixed_dictionaries({}, optional={"started_at": timestamps, "finished_at": timestamps}))
def test_the_native_step_filter_leaves_the_findings_of_the_rules_unchanged(steps: list[Any], span: Any) -> None:
    data = {"schema_version": "ACTF_v1.0", "steps": steps, **span}
    filtered = list(actf.trajectory_findings(data, "/trajectory"))
    with every_step_judged():
        assert list(actf.trajectory_findings(data, "/trajectory")) == filtered


def test_the_native_step_filter_passes_over_quiet_steps() -> None:
    quiet = {"step_id": 1, "tools": [], "assistant_content": {"tool_calls": []},
             "started_at": "2026-08-01 10:00:00.5+00:00", "finished_at": "2026-08-01 10:00:01.0+00:00"}  # fmt: skip
    mixed = {"step_id": 4, "started_at": "2026-08-01T10:41:38Z", "finished_at": "2026-08-01 12:41:48.133346+02:00"}
    backwards = {**mixed, "step_id": 5, "finished_at": "2026-08-01 12:41:37.999999+02:00"}
    steps = [quiet, {**quiet, "step_id": 2}, {**quiet, "step_id": 2}, {**quiet, "step_id": 3, "tools": {}}, mixed,
             backwards]  # fmt: skip
    assert _actf_native.steps_to_judge(steps, actf.STEP_MEMBERS) == [2, 3, 5]


def test_the_filter_reads_the_members_the_rules_name() -> None:
    """The names come from the rule's table: under other names, the same steps are other members."""
    renamed = tuple(name.upper() for name in actf.STEP_MEMBERS)
    steps = [{"STEP_ID": 2}, {"STEP_ID": 1}, {"TOOLS": {}}, {"step_id": 0}]
    assert _actf_native.steps_to_judge(steps, renamed) == [1, 2]
    with pytest.raises(ValueError, match="seven members"):
        _actf_native.steps_to_judge(steps, actf.STEP_MEMBERS[:-1])
