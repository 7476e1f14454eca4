"""The schemas work outside Python: Ajv2020 (strict mode, ajv-formats) compiles every one, split and bundled,
and gives the same schema-level verdict as the Python validator on every fixture and on a corpus of mutants."""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from agentbeats_spec import kinds
from agentbeats_spec.checking._bundle import bundle
from agentbeats_spec.checking._kinds import from_content, from_path
from agentbeats_spec.checking._schemas import check, documents
from agentbeats_spec.reading._documents import read

from ..conftest import FIXTURES, ROOT, places

CHECKER = ROOT / "tests" / "node" / "check.mjs"
# CI (make test) installs Node's tools first, so there a missing tool is a failure, not a skip.
pytestmark = pytest.mark.skipif(
    not os.environ.get("CI")
    and (shutil.which("node") is None or not (ROOT / "tests" / "node" / "node_modules").is_dir()),
    reason="Node.js and `npm ci --prefix tests/node` (make test does it) are needed",
)


def fixtures() -> Iterator[tuple[str, Any]]:
    """(schema id, document) of every fixture file with a kind."""
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix == ".jsonl":  # JSON Lines: every whole line is a document of its kind
            kind = from_path(path)
            assert kind is not None
            for line in path.read_bytes().splitlines(keepends=True):
                document = read(line, "json")
                if line.endswith(b"\n") and not document.findings:
                    yield kind.latest, document.data
            continue
        if path.suffix not in (".json", ".toml") or path.name == "expected-issues.json":
            continue
        document = read(path.read_bytes(), "toml" if path.suffix == ".toml" else "json")
        if any(finding.severity == "error" for finding in document.findings):
            continue  # reading errors (NaN, duplicates) are not a schema's business
        data = document.data
        kind = from_path(path) or from_content(data)
        if kind is None:
            continue
        schema_id = kind.schema_id(data)
        if schema_id is not None:
            yield schema_id, data


def mutants(data: Any) -> Iterator[Any]:
    """Each member dropped, each scalar given another type, an unknown member added: one at a time."""
    if not isinstance(data, dict):
        return
    for path, value in places(data, first_items=3):
        if path:
            dropped = copy.deepcopy(data)
            parent = reach(dropped, path[:-1])
            if isinstance(parent, dict):
                del parent[path[-1]]
                yield dropped
        replacements: list[Any] = [r for r in ("x", 7, None, [], {}, True, -1.5) if type(r) is not type(value)]
        if isinstance(value, str):
            replacements.append(value + "\n")  # Python's `$` matches before a final newline; ECMA's does not
        elif isinstance(value, int) and not isinstance(value, bool):
            replacements.append(float(value))  # 1.0: an integer to JSON Schema, not to this package
        for replacement in replacements:
            changed = copy.deepcopy(data)
            if path:
                reach(changed, path[:-1])[path[-1]] = replacement
                yield changed
    extra = copy.deepcopy(data)
    extra["zz_unknown"] = 1
    yield extra


def reach(value: Any, path: tuple[Any, ...]) -> Any:
    for token in path:
        value = value[token]
    return value


def run_ajv(schemas: list[dict[str, Any]], instances: list[dict[str, Any]]) -> dict[str, Any]:
    result = subprocess.run(
        ["node", str(CHECKER)],
        input=json.dumps({"schemas": schemas, "instances": instances}),
        capture_output=True,
        text=True,
        check=True,
    )
    output: dict[str, Any] = json.loads(result.stdout)
    return output


def bundles() -> list[dict[str, Any]]:
    return [bundle(kind_id) for kind in kinds() for kind_id in kind.versions.values()]


def test_every_schema_compiles_in_strict_mode_split_and_bundled() -> None:
    split = list(documents().values())
    for schemas in (split, bundles()):  # a bundle has its schema's $id: one registry holds one packaging
        output = run_ajv(schemas, [])
        assert output["failures"] == {}
        assert sorted(output["compiled"]) == sorted(schema["$id"] for schema in schemas)


def test_a_bundle_keeps_the_identity_of_the_schema_it_bundles() -> None:
    ids = [kind_id for kind in kinds() for kind_id in kind.versions.values()]
    assert [schema["$id"] for schema in bundles()] == ids
    for kind_id in ids:
        path = ROOT / "schemas" / "bundled" / kind_id.removeprefix("https://agentbeats.dev/schemas/")
        assert json.loads(path.read_text(encoding="utf-8"))["$id"] == kind_id


@functools.cache
def corpus() -> list[tuple[str, Any]]:
    """(schema id, document) of every fixture and every mutant of one (built once; never to be changed)."""
    found: list[tuple[str, Any]] = []
    for schema_id, data in fixtures():
        found.append((schema_id, data))
        found.extend((schema_id, mutant) for mutant in mutants(data))
    assert len(found) > 1000
    return found


def test_ajv_and_python_agree_on_every_fixture_and_mutant() -> None:
    corpus_ = corpus()
    instances = [{"schema": schema_id, "data": data} for schema_id, data in corpus_]
    ajv_split = [verdict["valid"] for verdict in run_ajv(list(documents().values()), instances)["verdicts"]]
    ajv_bundled = [verdict["valid"] for verdict in run_ajv(bundles(), instances)["verdicts"]]
    assert ajv_bundled == ajv_split
    # Stock python-jsonschema (no keyword of ours, Python's own `$`) gives Ajv's verdict on every document.
    stock = [stock_validator(schema_id).is_valid(data) for schema_id, data in corpus_]
    assert [corpus_[i] for i, (a, b) in enumerate(zip(stock, ajv_split, strict=True)) if a != b] == []
    # This package gives it too, except that it refuses integers written as 1.0, as the AgentCompass reader does
    # (docs/schemas.md): there, and only there, its errors are all "expected an integer, found the number …".
    python = corpus_findings()
    differ = [i for i, (found, valid) in enumerate(zip(python, ajv_split, strict=True)) if (not found) != valid]
    assert differ, "the corpus holds integers written as 1.0"
    for i in differ:
        assert ajv_split[i] and all(INTEGER_AS_FLOAT.match(finding.message) for finding in python[i]), corpus_[i]
    assert any(not found for found in python) and any(python)


@functools.cache
def corpus_findings() -> list[list[Any]]:
    """This package's schema findings on each document of the corpus (made once, shared by the tests)."""
    return [list(check(schema_id, data)) for schema_id, data in corpus()]


INTEGER_AS_FLOAT = re.compile(r"^expected an integer( or null)?, found the number -?[0-9]+\.0$")


@functools.cache
def stock_validator(schema_id: str) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    stock = Registry().with_resources((uri, Resource.from_contents(doc)) for uri, doc in documents().items())
    return Draft202012Validator(documents()[schema_id], registry=stock)
