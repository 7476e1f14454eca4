"""The npm package as a consumer gets it: `npm pack`, installed into a fresh project, its types compiled with
`tsc --strict` (a typed example passes, each wrong use fails) and its compiled validators run on every fixture and
mutant of tests/interop/test_ajv.py, with the verdicts and pointers of the Python package (integral floats aside)."""

from __future__ import annotations

import copy
import functools
import json
import os
import random
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec import validate
from agentbeats_spec.checking._kinds import KINDS
from agentbeats_spec.checking._schemas import check

from ..conftest import ROOT, places
from .test_ajv import corpus, corpus_findings, fixtures, reach

JS = ROOT / "js"
NPM = ROOT / "tests" / "npm"
TSC = JS / "node_modules" / ".bin" / "tsc"
pytestmark = pytest.mark.skipif(
    not os.environ.get("CI") and (shutil.which("npm") is None or not TSC.exists()),
    reason="Node.js and `npm ci --prefix js` (make test does it) are needed",
)


@functools.cache
def project(tmp: Path) -> Path:
    """A fresh project with the packed tarball installed (once per session)."""
    packed = subprocess.run(
        ["npm", "pack", "--silent", "--pack-destination", str(tmp), str(JS)], capture_output=True, text=True, check=True
    )
    tarball = tmp / packed.stdout.strip().splitlines()[-1]
    consumer = tmp / "consumer"
    consumer.mkdir()
    (consumer / "package.json").write_text(json.dumps({"name": "consumer", "private": True, "type": "module"}))
    subprocess.run(
        ["npm", "install", "--silent", "--prefer-offline", "--no-audit", "--no-fund", str(tarball)],
        cwd=consumer,
        check=True,
    )
    for name in ("typed_example.ts", "typed_rejected.ts", "agree.mjs"):
        shutil.copy(NPM / name, consumer / name)
    return consumer


@pytest.fixture(scope="module")
def consumer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project(tmp_path_factory.mktemp("npm"))


def tsc(consumer: Path, name: str) -> subprocess.CompletedProcess[str]:
    options = ["--strict", "--noEmit", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022"]
    return subprocess.run([str(TSC), *options, name], cwd=consumer, capture_output=True, text=True)


def test_the_typed_example_compiles_with_strict_and_runs(consumer: Path) -> None:
    result = tsc(consumer, "typed_example.ts")
    assert result.returncode == 0, result.stdout
    subprocess.run(
        [str(TSC), "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022",
         "typed_example.ts"], cwd=consumer, capture_output=True, text=True, check=True)  # fmt: skip
    ran = subprocess.run(["node", "typed_example.js"], cwd=consumer, capture_output=True, text=True, check=True)
    guarded, printed = ran.stdout.splitlines()
    assert guarded == "T1"  # the task index passed its guard, typed as a TaskIndex
    output = json.loads(printed)
    assert output["complete"] == []
    assert output["pointers"] == [
        "error schema.required /metrics",
        "error schema.required /final_answer",
        "error schema.required /trajectory",
        "error schema.required /issues",
        "error schema.required /artifacts",
        "error schema.required /analysis_result",
        "error schema.required /meta",
        "error schema.required /retry_count",
        "error schema.enum /status",
    ]


def test_every_wrong_use_is_refused_and_nothing_else(consumer: Path) -> None:
    source = (NPM / "typed_rejected.ts").read_text(encoding="utf-8").splitlines()
    marked = {number for number, line in enumerate(source, 1) if "// rejected" in line}
    result = tsc(consumer, "typed_rejected.ts")
    failing = {int(m.group(1)) for m in re.finditer(r"^typed_rejected\.ts\((\d+),", result.stdout, re.MULTILINE)}
    assert len(marked) == 10
    assert failing == marked, result.stdout


def kind_of(schema_id: str) -> str:
    return next(kind.name for kind in KINDS.values() if schema_id in kind.versions.values())


def test_the_validators_agree_with_the_python_package_on_every_fixture_and_mutant(consumer: Path) -> None:
    cases = [(i, kind_of(schema_id), data) for i, (schema_id, data) in enumerate(corpus())]
    cases = [(i, kind, data) for i, kind, data in cases if KINDS[kind].schema_id(data) == corpus()[i][0]]
    ran = subprocess.run(
        ["node", "agree.mjs"],
        input=json.dumps([{"kind": kind, "data": data} for _, kind, data in cases]),
        cwd=consumer,
        capture_output=True,
        text=True,
        check=True,
    )
    found = [each["issues"] for each in json.loads(ran.stdout)]
    python = corpus_findings()
    integral = re.compile(r"^expected an integer( or null)?, found the number -?[0-9]+\.0$")
    differ = []
    for (i, _, _), issues in zip(cases, found, strict=True):
        expected = [f for f in python[i] if not integral.match(f.message)]  # JSON.parse makes 1.0 the integer 1
        if sorted({(f.pointer, f.code) for f in expected}) != sorted({(x["pointer"], x["code"]) for x in issues}):
            differ.append((corpus()[i], [(f.pointer, f.code) for f in expected], issues))
    assert len(cases) > 1000
    assert differ == []


def agree(consumer: Path, cases: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """What the installed package's validate() gives on each (kind, value): {"issues", "ms"} or {"thrown"}."""
    ran = subprocess.run(
        ["node", "agree.mjs"],
        input=json.dumps([{"kind": kind, "data": data} for kind, data in cases]),
        cwd=consumer,
        capture_output=True,
        text=True,
        check=True,
    )
    found: list[dict[str, Any]] = json.loads(ran.stdout)
    return found


# The names of Object.prototype's members, and the one that sets an object's prototype.
PROTOTYPE_NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"]


def python_findings(kind: str, data: Any) -> set[tuple[str, str]]:
    """(pointer, code) of what the Python package finds on a parsed value that the npm package looks for too: a
    value nested too deep, a version it does not know, else the schema's findings (not the rules')."""
    read = {(i.pointer, i.code) for i in validate(data, kind) if i.code in ("json.too-deep", "schema.unknown-version")}
    schema_id = KINDS[kind].schema_id(data)
    if read or schema_id is None:
        return read
    return {(finding.pointer, finding.code) for finding in check(schema_id, data)}


def nested(depth: int, leaf: Any = "x") -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def hostile(data: Any, rng: random.Random) -> Iterator[Any]:
    """The shapes the Python package is tried with (docs/security.md), at places of a valid document: the names of
    Object.prototype's members as version, member names and string values; values nested past the depth limit
    (512) and just under it; a huge array and a wide object."""
    for path, value in places(data, first_items=2):
        if not path or rng.random() > 0.4:
            continue
        parent = path[:-1]
        if isinstance(value, dict):
            changed = copy.deepcopy(data)
            reach(changed, path).update({name: 1 for name in PROTOTYPE_NAMES})
            yield changed
        elif isinstance(value, str):
            changed = copy.deepcopy(data)
            reach(changed, parent)[path[-1]] = rng.choice(PROTOTYPE_NAMES)
            yield changed
        replacement = rng.choice([nested(520), nested(600, {"a": 1}), nested(300), [[1]] * 5_000, wide(5_000)])
        changed = copy.deepcopy(data)
        reach(changed, parent)[path[-1]] = replacement
        yield changed


def wide(count: int) -> dict[str, Any]:
    return {**{f"k{index}": index for index in range(count)}, **{name: name for name in PROTOTYPE_NAMES}}


def repository(tags: list[Any]) -> dict[str, Any]:
    return {"abv3_repo": {"name": "r", "role": "subject", "author": "a", "tags": tags}, "run": {"command": "x"}}


def duplicate_heavy() -> list[tuple[str, Any]]:
    """Arrays whose items must be unique, with many repeats of every shape (JSON's equality: 1 and 1.0 alike,
    true apart from 1, members in any order), deep items, and Object.prototype's names as items."""
    mixed = ["x", 1, 1.0, True, 1, {"a": 1, "b": [2]}, {"b": [2.0], "a": 1}, [1, "x"], [1.0, "x"], False, 0, "x"]
    return [
        ("abv3-repo", repository([f"t{index % 10_000}" for index in range(20_000)])),
        ("abv3-repo", repository([{"name": f"t{index % 500}", "n": [index % 7]} for index in range(20_000)])),
        ("abv3-repo", repository(mixed)),
        ("abv3-repo", repository([*PROTOTYPE_NAMES, *PROTOTYPE_NAMES, {name: 1 for name in PROTOTYPE_NAMES}] * 2)),
        ("abv3-repo", repository([nested(300), nested(300), nested(300, 1)])),
        ("abv3-repo", repository([nested(600), nested(600)])),
    ]


def hostile_cases() -> list[tuple[str, Any]]:
    rng = random.Random(33)
    cases: list[tuple[str, Any]] = duplicate_heavy()
    for schema_id, data in fixtures():
        kind = kind_of(schema_id)
        field = KINDS[kind].version_field
        if field is not None and isinstance(data, dict):
            cases.extend((kind, {**data, field: name}) for name in PROTOTYPE_NAMES)
        cases.extend((kind, changed) for changed in hostile(data, rng))
    return cases


def test_hostile_documents_get_the_python_packages_findings_and_never_a_throw(consumer: Path) -> None:
    """Own properties only (a version, a member or a value named "__proto__", "constructor" or "toString" is
    data, never Object.prototype's), deep values a json.too-deep issue (not a RangeError), repeats found in
    linear time; the same (pointer, code) as the Python package on a parsed value, in every case."""
    cases = hostile_cases()
    found = agree(consumer, cases)
    assert [(case, each["thrown"]) for case, each in zip(cases, found, strict=True) if "thrown" in each] == []
    differ = []
    for (kind, data), each in zip(cases, found, strict=True):
        expected = python_findings(kind, data)
        if expected != {(issue["pointer"], issue["code"]) for issue in each["issues"]}:
            differ.append((kind, sorted(expected)[:5], each["issues"][:5]))
    assert len(cases) > 300
    assert differ == []
    # 20,000 tags, half of them repeats: linear (Ajv's own check, every pair, took 16 to 40 s).
    assert max(each["ms"] for each in found[:2]) < 2_000
