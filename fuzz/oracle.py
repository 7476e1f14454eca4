"""The fuzzer's oracle: the native reader's verdict, data and offsets against the exact pure-Python reader, and the
ACTF rules' native step filter against the rules judging every step.

Imported by the libFuzzer harness (fuzz_native.c) with the harness's own builds of both native modules already
registered as ``agentbeats_spec.reading._native`` and ``agentbeats_spec.rules._actf_native``. An AssertionError
here is a crash to the fuzzer.
"""

from __future__ import annotations

import json
from typing import Any

from agentbeats_spec.reading import _json, _native, _nativejson
from agentbeats_spec.rules import _actf_steps, actf

MAX_DEPTH = 64  # low enough for the fuzzer to reach, so that the limit's edge is exercised


def check(raw: bytes) -> None:
    data, flag, table, integral = _native.read(raw, MAX_DEPTH)
    text, decoded = _json.decode(raw, family="json")
    try:
        exact, findings = _json.parse(text, max_depth=MAX_DEPTH) if text is not None else (None, [])
    except RecursionError:
        return  # the exact reader's own limits; the native reader flagged it or the assertion below would fail
    clean = text is not None and not decoded and not findings
    if flag:
        assert data is None and table is None and integral == 0
        # Only what the exact reader does not report may be flagged spuriously.
        assert not clean or flag in (_native.FLAG_SURROGATE, _native.FLAG_DEPTH), (raw, flag)
        return
    assert clean, (raw, decoded, findings)
    assert json.dumps(data) == json.dumps(exact), raw
    # Schema validation skips the 1.0-is-not-an-integer check where the reader saw no integral float: never wrongly.
    assert integral == _has_integral_float(data), raw
    assert table is not None and text is not None
    paths = list(_paths(data))[:64]
    native = _nativejson.locate(raw, table, paths)
    reference = _json.locate(text, paths)
    characters = {offset: len(raw[:offset].decode("utf-8")) for place in native.values() for offset in place if offset}
    as_characters = {
        path: (None if key is None else characters.get(key, key), characters.get(value, value))
        for path, (key, value) in native.items()
    }
    assert as_characters == reference, raw
    offsets = sorted({value for _, value in native.values()})
    lines = _nativejson.line_columns(raw, offsets)
    by_text = _json.Lines(text).positions(characters.get(offset, offset) for offset in offsets)
    assert [lines[offset] for offset in offsets] == [by_text[characters.get(offset, offset)] for offset in offsets]
    for trajectory in _trajectories(data):  # the ACTF step pre-filter leaves the rules' findings unchanged
        filtered = list(actf.trajectory(trajectory))
        native, _actf_steps._actf_native = _actf_steps._actf_native, None
        try:
            assert list(actf.trajectory(trajectory)) == filtered, raw
        finally:
            _actf_steps._actf_native = native


def _has_integral_float(value: Any) -> bool:
    """Whether a float with no fractional part (1.0, 1e0, -0.0) is anywhere in the data."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and item.is_integer():
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _trajectories(value: Any) -> Any:
    """Every object with a list of steps, wherever it is."""
    if isinstance(value, dict):
        if isinstance(value.get("steps"), list):
            yield value
        for item in value.values():
            yield from _trajectories(item)
    elif isinstance(value, list):
        for item in value:
            yield from _trajectories(item)


def _paths(value: Any, path: tuple[str, ...] = ()) -> Any:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, str(index)))
