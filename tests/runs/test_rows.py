"""An attempt row's token and timing sums are the sums of its steps' rows (made without a row per step)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentbeats_spec.runs._tables import _step_row, _step_sums, _sum

values = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=3),
    st.integers(),
    st.integers(min_value=-3, max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.just(-1),
    st.just(2**53 + 1),
    st.just(10**400),
)
metrics = st.fixed_dictionaries(
    {},
    optional={name: values for name in ("prompt_tokens_len", "completion_tokens_len", "llm_infer_ms", "env_action_ms")},
)
steps = st.lists(st.one_of(st.fixed_dictionaries({"metric": st.one_of(metrics, values)}), values), max_size=6)


@settings(max_examples=300, deadline=None)
@given(steps=steps)
def test_the_sums_are_those_of_the_step_rows(steps: list[Any]) -> None:
    rows = [_step_row(step) for step in steps if step is not None]
    expected = {
        name: _sum(row[name] for row in rows)
        for name in ("prompt_tokens", "completion_tokens", "llm_infer_ms", "env_action_ms")
    }
    found = _step_sums([step for step in steps if step is not None])
    assert found == expected
    assert all(type(found[name]) is type(expected[name]) for name in found)
