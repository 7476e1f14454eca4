"""The npm package as a consumer gets it: `npm pack`, installed into a fresh project, its types compiled with
`tsc --strict` (a typed example passes, each wrong use fails) and its compiled validators run on every fixture and
mutant of tests/interop/test_ajv.py, with the verdicts and pointers of the Python package (integral floats aside)."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from agentbeats_spec.checking._kinds import KINDS

from ..conftest import ROOT
from .test_ajv import corpus, corpus_findings

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
    found = json.loads(ran.stdout)
    python = corpus_findings()
    integral = re.compile(r"^expected an integer( or null)?, found the number -?[0-9]+\.0$")
    differ = []
    for (i, _, _), issues in zip(cases, found, strict=True):
        expected = [f for f in python[i] if not integral.match(f.message)]  # JSON.parse makes 1.0 the integer 1
        if sorted({(f.pointer, f.code) for f in expected}) != sorted({(x["pointer"], x["code"]) for x in issues}):
            differ.append((corpus()[i], [(f.pointer, f.code) for f in expected], issues))
    assert len(cases) > 1000
    assert differ == []
