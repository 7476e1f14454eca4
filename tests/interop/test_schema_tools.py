"""The README's check-jsonschema and ajv-cli commands ("The schema files") work offline, as written, and give each
fixture, and each of its first mutants, this package's schema verdict (integers written as 1.0 apart)."""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec.checking._kinds import from_content, from_path
from agentbeats_spec.checking._schemas import check
from agentbeats_spec.reading._documents import read

from ..conftest import FIXTURES, ROOT
from .test_ajv import mutants

README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README.split("\n## The schema files\n", 1)[1].split("\n## ", 1)[0]
AJV = ROOT / "tests" / "node" / "node_modules" / ".bin" / "ajv"
CHECK_JSONSCHEMA = Path(sys.executable).parent / "check-jsonschema"
BUNDLED = ROOT / "schemas" / "bundled"
ID_PREFIX = "https://agentbeats.dev/schemas/"
# The one documented difference (docs/schemas.md): this package refuses an integer written as 1.0, as the
# AgentCompass reader does; JSON Schema, and so both tools, accept it.
INTEGER_AS_FLOAT = re.compile(r"^expected an integer( or null)?, found the number -?[0-9]+\.0$")


def documented(program: str) -> list[str]:
    """The command of the section's shell block that starts with ``program``, split as the shell splits it."""
    block = SECTION.split("```sh\n", 1)[1].split("```", 1)[0]
    (line,) = [line for line in block.splitlines() if line.startswith(program + " ")]
    return shlex.split(line)


def offline(command: list[str]) -> list[str]:
    """The command without a network where unprivileged namespaces allow it (else: no https server to reach)."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        return [unshare, "-rn", *command]
    return command


MUTANTS_PER_FILE = 25


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """This package's schema verdict (see ``verdict``) on every fixture file that has a schema and reads without
    error, and on the first mutants of each (written as JSON files: a TOML file's too), by the bundled schema (a
    path relative to the checkout) that judges them."""
    folder = tmp_path_factory.mktemp("mutants")
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_symlink() or not path.is_file() or path.suffix not in (".json", ".toml"):
            continue
        if path.name == "expected-issues.json":
            continue
        document = read(path.read_bytes(), "toml" if path.suffix == ".toml" else "json")
        if any(finding.severity == "error" for finding in document.findings):
            continue  # duplicate keys, NaN, bad syntax: a reader's business, before any schema
        kind = from_path(path) or from_content(document.data)
        schema_id = kind.schema_id(document.data) if kind is not None else None
        if schema_id is None:
            continue
        bundled = str((BUNDLED / schema_id.removeprefix(ID_PREFIX)).relative_to(ROOT))
        found[bundled][str(path.relative_to(ROOT))] = verdict(schema_id, document.data)
        for mutant in itertools.islice(mutants(document.data), MUTANTS_PER_FILE):
            name = folder / f"{sum(map(len, found.values()))}.json"  # one name per file, whatever its schema
            name.write_text(json.dumps(mutant), encoding="utf-8")
            found[bundled][str(name)] = verdict(schema_id, mutant)
    return dict(found)


def verdict(schema_id: str, data: Any) -> str:
    """``valid``, ``invalid``, or ``1.0`` when this package's only findings are integers written as 1.0."""
    findings = list(check(schema_id, data))
    if not findings:
        return "valid"
    return "1.0" if all(INTEGER_AS_FLOAT.match(finding.message) for finding in findings) else "invalid"


def test_the_corpus_holds_valid_and_invalid_files_of_every_bundled_kind(corpus: dict[str, dict[str, str]]) -> None:
    """The comparisons below are not between empty or one-sided lists, and the one difference is among them."""
    assert len(corpus) >= 9
    for files in corpus.values():
        assert {"valid", "invalid"} <= set(files.values())
    assert "1.0" in {said for files in corpus.values() for said in files.values()}


def expected(said: str) -> bool:
    """The tools' verdict (True: valid) on a file of which this package said ``said``."""
    return said != "invalid"


def test_check_jsonschema_as_documented_gives_each_file_our_verdict(
    corpus: dict[str, dict[str, str]], tmp_path: Path
) -> None:
    command = documented("check-jsonschema")
    schema = command.index("--schemafile") + 1
    assert command[schema].startswith("schemas/bundled/") and command[-1].endswith("result.json")
    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}  # no cached download to lean on
    for bundled, files in corpus.items():
        argv = [str(CHECK_JSONSCHEMA), *command[1:schema], bundled, *command[schema + 1 : -1], *files]
        done = subprocess.run(offline(argv), cwd=ROOT, capture_output=True, text=True, timeout=300, env=environment)
        invalid = {file for file in files if f"{file}::" in done.stdout}
        assert done.returncode == (1 if invalid else 0), done.stdout + done.stderr
        assert "Failed to parse" not in done.stdout + done.stderr
        assert {file: file not in invalid for file in files} == {
            file: expected(said) for file, said in files.items()
        }, (bundled, done.stdout)


@pytest.mark.skipif(
    not os.environ.get("CI") and not AJV.exists(),
    reason="ajv-cli comes with `npm ci --prefix tests/node` (make test does it)",
)
def test_ajv_cli_as_documented_gives_each_file_our_verdict(corpus: dict[str, dict[str, str]]) -> None:
    command = documented("npx")
    assert command[:3] == ["npx", "ajv-cli", "validate"]
    schema, data = command.index("-s") + 1, command.index("-d")
    assert command[schema].startswith("schemas/bundled/") and data == len(command) - 2
    for bundled, files in corpus.items():
        files = {file: said for file, said in files.items() if file.endswith(".json")}  # ajv-cli reads no TOML
        paths = [part for file in files for part in ("-d", file)]
        argv = [str(AJV), *command[2:schema], bundled, *command[schema + 1 : data], *paths]
        done = subprocess.run(offline(argv), cwd=ROOT, capture_output=True, text=True, timeout=300)
        said = {line.rpartition(" ")[0]: line.rpartition(" ")[2] for line in (done.stdout + done.stderr).splitlines()}
        assert done.returncode == (0 if all(said.get(file) == "valid" for file in files) else 1), done.stderr
        assert {file: said.get(file) for file in files} == {
            file: "valid" if expected(said) else "invalid" for file, said in files.items()
        }, (bundled, done.stderr)
