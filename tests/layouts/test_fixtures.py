"""The shipped fixtures: valid ones are clean, invalid ones give exactly the listed issues."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import tomli

from agentbeats_spec import validate
from agentbeats_spec.cli import main
from agentbeats_spec.reading._pointers import to_path, to_pointer

from ..conftest import FIXTURES, VALID

EXPECTED = json.loads((FIXTURES / "expected-issues.json").read_text(encoding="utf-8"))
INVALID = sorted(path for path in (FIXTURES / "invalid").rglob("*") if path.is_file())


def test_the_valid_fixtures_have_no_issue_at_all() -> None:
    assert validate(VALID) == []


def checkout(source: Path, target: Path, umask: int) -> None:
    """A copy made as git checks files out: every folder and file created anew under ``umask`` (none of the
    fixtures is executable or a link)."""
    old = os.umask(umask)
    try:
        target.mkdir()
        for path in sorted(source.rglob("*")):
            made = target / path.relative_to(source)
            if path.is_dir():
                made.mkdir()
            else:
                made.write_bytes(path.read_bytes())
    finally:
        os.umask(old)


@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_a_checkout_of_the_valid_fixtures_under_another_umask_names_the_chmod_reuse_needs(
    umask: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The collected artifact's sha256 holds its permission bits, which git does not keep, and AgentCompass 1.0.1's
    reuse refuses the artifact until they are restored: under umask 002 the check fails, naming the bits and the
    chmod that makes the checkout what was collected (`make validate` runs it)."""
    checkout(VALID, tmp_path / "fixtures", umask)
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "--no-cache", "fixtures"]) == (0 if umask == 0o022 else 1)
    out = capsys.readouterr().out
    found = [(issue.code, issue.severity) for issue in validate(tmp_path / "fixtures")]
    if umask == 0o022:  # the bits the collector hashed
        assert found == [] and out.startswith("valid: ")
    else:
        assert found == [("layout.artifact-permissions", "error")]
        assert "has permission bits 0664 where the collector's were 0644" in out


def test_every_invalid_fixture_is_listed() -> None:
    assert sorted(EXPECTED) == [path.relative_to(FIXTURES).as_posix() for path in INVALID]


@pytest.mark.parametrize("path", INVALID, ids=lambda path: path.relative_to(FIXTURES).as_posix())
def test_invalid_fixture_gives_exactly_its_listed_issues(path: Path) -> None:
    found = [
        {"pointer": i.pointer, "line": i.line, "column": i.column, "severity": i.severity, "code": i.code}
        for i in validate(path)
    ]
    assert found == EXPECTED[path.relative_to(FIXTURES).as_posix()]


@pytest.mark.parametrize("path", INVALID, ids=lambda path: path.relative_to(FIXTURES).as_posix())
def test_each_issue_line_holds_the_member_its_pointer_names(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    for issue in validate(path):
        assert issue.line is not None and issue.column is not None, issue
        if not issue.pointer:
            continue
        line = lines[issue.line - 1]
        *parents, last = to_path(issue.pointer)
        if issue.code in ("schema.required", "rule.main-metric") and last not in line:
            # A missing member is placed on the object that should hold it.
            holder = parents[-1] if parents else None
            assert holder is None or holder in line or issue.column == 1, issue
            continue
        if isinstance(_resolve(path, to_pointer(parents), issue.line), list):
            # Array items have no name on their line: their value starts at the column.
            value = _resolve(path, issue.pointer, issue.line)
            if path.suffix == ".json" and isinstance(value, (str, int, float, bool)):
                assert line[issue.column - 1 :].startswith(json.dumps(value, ensure_ascii=False)), issue
            continue
        assert last in line, (issue, line)


def _resolve(path: Path, pointer: str, line: int) -> object:
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":  # the pointer is within the record of the issue's line
        source = source.splitlines()[line - 1]
    value: object = tomli.loads(source) if path.suffix == ".toml" else json.loads(source)
    for token in to_path(pointer):
        if isinstance(value, dict):
            value = value.get(token)
        elif isinstance(value, list):
            value = value[int(token)]
    return value
