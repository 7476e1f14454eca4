"""Property test: TOML positions land on their keys and values, however the document is laid out."""

from __future__ import annotations

import json
from typing import Any

import tomli
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbeats_spec.reading import _toml

bare_keys = st.text(alphabet="abcxyz_-019", min_size=1, max_size=5)
quoted_keys = st.text(alphabet="ab .é#=[]", min_size=1, max_size=5)
keys = bare_keys | quoted_keys
scalars = st.booleans() | st.integers(-1000, 1000) | st.text(alphabet='ab "\\#=[]{}\n\té', max_size=6)
arrays = st.lists(scalars, max_size=3)
tables = st.recursive(
    st.dictionaries(keys, scalars | arrays, max_size=3),
    lambda children: st.dictionaries(keys, scalars | arrays | children | st.lists(children, min_size=1, max_size=2),
                                     max_size=4),
    max_leaves=12,
)  # fmt: skip
styles = st.lists(st.sampled_from(["inline", "dotted", "table"]), min_size=50, max_size=50)


class Emitter:
    """Writes a dict as TOML, choosing a layout per table, and remembers each scalar's text."""

    def __init__(self, styles: list[str]) -> None:
        self.styles = styles
        self.turn = 0
        self.lines: list[str] = []
        self.tokens: dict[tuple[str, ...], str] = {}
        self.key_tokens: dict[tuple[str, ...], str] = {}

    def style(self) -> str:
        self.turn += 1
        return self.styles[self.turn % len(self.styles)]

    @staticmethod
    def key(name: str) -> str:
        return name if name and all(c in "abcxyz_-019" for c in name) else json.dumps(name)

    def value(self, value: Any, path: tuple[str, ...]) -> str:
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int):
            text = str(value)
        elif isinstance(value, str):
            text = json.dumps(value)
        elif isinstance(value, list):
            return "[" + ", ".join(self.value(item, (*path, str(i))) for i, item in enumerate(value)) + "]"
        else:
            parts = []
            for name, item in value.items():
                self.key_tokens[(*path, name)] = self.key(name)
                parts.append(f"{self.key(name)} = {self.value(item, (*path, name))}")
            return "{" + ", ".join(parts) + "}"
        self.tokens[path] = text
        return text

    def table(self, data: dict[str, Any], path: tuple[str, ...], header: tuple[str, ...]) -> None:
        later: list[tuple[str, Any]] = []
        for name, item in data.items():
            is_table_array = isinstance(item, list) and item and all(isinstance(each, dict) for each in item)
            style = self.style()
            if is_table_array or (isinstance(item, dict) and style == "table"):
                later.append((name, item))
            elif (
                isinstance(item, dict)
                and style == "dotted"
                and item
                and not any(isinstance(each, (dict, list)) for each in item.values())
            ):
                for sub, each in item.items():
                    self.key_tokens[(*path, name, sub)] = self.key(sub)
                    self.lines.append(f"{self.key(name)} . {self.key(sub)}= {self.value(each, (*path, name, sub))}")
            else:
                self.key_tokens[(*path, name)] = self.key(name)
                self.lines.append(f"{self.key(name)} = {self.value(item, (*path, name))}  # note")
        for name, item in later:
            dotted = ".".join(self.key(part) for part in (*header, name))
            if isinstance(item, dict):
                self.lines.append(f"\n[ {dotted} ]")
                self.table(item, (*path, name), (*header, name))
            else:
                for index, each in enumerate(item):
                    self.lines.append(f"\n[[{dotted}]]")
                    self.table(each, (*path, name, str(index)), (*header, name))


def paths(value: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*path, str(index)))
    return found


@settings(max_examples=300, deadline=None)
@given(data=tables, chosen=styles)
def test_toml_positions_land_on_keys_and_values(data: dict[str, Any], chosen: list[str]) -> None:
    emitter = Emitter(chosen)
    emitter.table(data, (), ())
    text = "\n".join(emitter.lines) + "\n"
    assert tomli.loads(text) == data, text
    every = paths(data)
    located = _toml.locate(text, every)
    for path in every:
        assert path in located, (path, text)
        key_offset, value_offset = located[path]
        if path in emitter.tokens:
            assert text.startswith(emitter.tokens[path], value_offset), (path, text)
        if path in emitter.key_tokens and key_offset is not None:
            assert text.startswith(emitter.key_tokens[path], key_offset), (path, text)
