"""Property tests: positions land on their members under any formatting; readers never crash."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbeats_spec import SpecError, validate
from agentbeats_spec.reading._documents import parse_text
from agentbeats_spec.reading._pointers import to_pointer
from agentbeats_spec.vocabulary._issues import Anchor

from ..api.test_api import KIND_NAMES

keys = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
scalars = (
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False) | keys
)
documents = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=25,
)
layouts = st.fixed_dictionaries(
    {
        "indent": st.sampled_from([None, 0, 1, 2, 4, "\t"]),
        "separators": st.sampled_from([(",", ":"), (", ", ": "), (" ,", " : "), (",\n", ":\n\t")]),
        "ensure_ascii": st.booleans(),
    }
)


def pointers(value: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    found = [(path, value)]
    if isinstance(value, dict):
        for key, item in value.items():
            found += pointers(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += pointers(item, (*path, str(index)))
    return found


def offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    return sum(len(each) + 1 for each in lines[: line - 1]) + column - 1


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=documents, layout=layouts)
def test_every_pointer_lands_on_its_value_and_key(document: Any, layout: dict[str, Any]) -> None:
    text = json.dumps(document, **layout)
    parsed = parse_text(text, "json")
    every = pointers(parsed.data)
    requests = [(to_pointer(path), anchor) for path, _ in every for anchor in (Anchor.VALUE, Anchor.KEY)]
    found = parsed.positions(requests)
    decoder = json.JSONDecoder()
    for path, value in every:
        pointer = to_pointer(path)
        at = offset(text, *found[(pointer, Anchor.VALUE)])
        assert decoder.raw_decode(text, at)[0] == value
        if path and isinstance(_parent(parsed.data, path), dict):
            key_at = offset(text, *found[(pointer, Anchor.KEY)])
            assert decoder.raw_decode(text, key_at)[0] == path[-1]


def _parent(data: Any, path: tuple[str, ...]) -> Any:
    for token in path[:-1]:
        data = data[int(token)] if isinstance(data, list) else data[token]
    return data


@settings(max_examples=400, deadline=None)
@given(raw=st.binary(max_size=200), kind=st.sampled_from(KIND_NAMES))
def test_arbitrary_bytes_give_issues_never_exceptions(raw: bytes, kind: str) -> None:
    try:
        found = validate(raw, kind)
    except SpecError:
        return
    for issue in found:
        assert issue.line is not None and issue.column is not None


json_like = st.text(alphabet='{}[]",:0123456789.eE+-truefalsnNIiy \n\t\\u"abc\x00\xff', max_size=120)


@settings(max_examples=400, deadline=None)
@given(text=json_like, kind=st.sampled_from(KIND_NAMES))
def test_json_like_text_gives_located_issues(text: str, kind: str) -> None:
    for issue in validate(text, kind):
        assert issue.line is not None and issue.column is not None, issue


@settings(max_examples=200, deadline=None)
@given(document=documents, kind=st.sampled_from(KIND_NAMES))
def test_any_json_document_of_any_kind_gives_located_issues(document: Any, kind: str) -> None:
    text = json.dumps(document, indent=1)
    for issue in validate(text, kind):
        assert issue.line is not None and issue.column is not None, issue
        assert issue.severity in ("error", "warning")
