"""The schema files as a product of their own: valid, portable, self-consistent, catalogued."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agentbeats_spec import kinds
from agentbeats_spec.checking._bundle import schema_text
from agentbeats_spec.checking._schemas import BASE_URI, registry

from ..conftest import ROOT

SCHEMAS = ROOT / "schemas"
FILES = sorted(path for path in SCHEMAS.glob("*/*.json"))
assert FILES, f"no schema file in {SCHEMAS}"
KEYWORDS = {
    # core and applicator vocabularies
    "$schema", "$id", "$ref", "$defs", "$comment", "$anchor",
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas",
    "prefixItems", "items", "contains", "properties", "patternProperties", "additionalProperties", "propertyNames",
    # validation
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
    "maxProperties", "minProperties", "required", "dependentRequired",
    # annotations
    "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples", "format",
}  # fmt: skip
# Regex constructs outside the subset that Python and ECMA-262 read alike.
NOT_PORTABLE = [
    r"\d",
    r"\D",
    r"\w",
    r"\W",
    r"\b",
    r"\p{",
    r"\P{",
    "(?P",
    "(?<",
    "(?i",
    "(?m",
    "(?s",
    "(?x",
    r"\Z",
    r"\A",
]


def schemas() -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in FILES:
        yield path, json.loads(path.read_text(encoding="utf-8"))


def subschemas(node: Any, where: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object inside a schema (not the contents of properties maps or enums)."""
    if not isinstance(node, dict):
        return
    yield where, node
    for key, value in node.items():
        if key in ("properties", "patternProperties", "$defs", "dependentSchemas"):
            for name, child in value.items():
                yield from subschemas(child, f"{where}/{key}/{name}")
        elif key in ("allOf", "anyOf", "oneOf", "prefixItems"):
            for index, child in enumerate(value):
                yield from subschemas(child, f"{where}/{key}/{index}")
        elif key in (
            "not",
            "if",
            "then",
            "else",
            "items",
            "contains",
            "additionalProperties",
            "propertyNames",
        ):
            yield from subschemas(value, f"{where}/{key}")


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.relative_to(SCHEMAS).as_posix())
def test_each_schema_is_valid_draft_2020_12_with_its_own_id(path: Path) -> None:
    contents = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(contents)
    assert contents["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert contents["$id"] == BASE_URI + path.relative_to(SCHEMAS).as_posix()


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.relative_to(SCHEMAS).as_posix())
def test_each_schema_uses_only_portable_features(path: Path) -> None:
    contents = json.loads(path.read_text(encoding="utf-8"))
    for where, node in subschemas(contents):
        unknown = set(node) - KEYWORDS
        assert not unknown, f"{where}: keywords other tools do not know: {unknown}"
        if "properties" in node or "required" in node:
            assert "type" in node, f"{where}: put 'type' beside properties/required"
        pattern = node.get("pattern")
        if pattern is not None:
            assert not [c for c in NOT_PORTABLE if c in pattern], f"{where}: {pattern}"
            re.compile(pattern)


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.relative_to(SCHEMAS).as_posix())
def test_each_schema_is_canonically_formatted(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text == schema_text(json.loads(text))


def test_every_reference_resolves_offline() -> None:
    for _, contents in schemas():
        base = registry().resolver(contents["$id"])
        for where, node in subschemas(contents):
            if "$ref" in node:
                assert base.lookup(node["$ref"]).contents is not None, where


def test_the_catalog_lists_every_kind_and_is_current() -> None:
    catalog = json.loads((SCHEMAS / "catalog.json").read_text(encoding="utf-8"))
    # each url is the bundle of the kind's newest schema, relative to the catalog, and it is there
    assert [entry["url"] for entry in catalog["schemas"]] == [
        "./bundled/" + kind.latest.removeprefix("https://agentbeats.dev/schemas/") for kind in kinds()
    ]
    for entry in catalog["schemas"]:
        assert set(entry) <= {"name", "description", "fileMatch", "url", "versions"}
        for url in [entry["url"], *entry["versions"].values()]:
            assert json.loads((SCHEMAS / url).read_text(encoding="utf-8"))["$id"].endswith(
                url.removeprefix("./bundled")
            )
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "catalog.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_shared_definitions_live_in_their_own_file() -> None:
    defs = json.loads((SCHEMAS / "common" / "defs.v1.json").read_text(encoding="utf-8"))["$defs"]
    assert {"issue", "attemptNumber", "attemptKey", "timestamp", "relativePath"} <= set(defs)
