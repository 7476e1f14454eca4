"""Many files, one mistake, one line (issue 38): the text format groups a finding repeated across files, the github
format caps the annotations of a code, and the formats for programs keep one entry per file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentbeats_spec.cli import main
from agentbeats_spec.reporting._github import CAP
from agentbeats_spec.reporting._text import NAMED

from ..conftest import VALID

MISSING = "error schema.required missing required member 'schema_version'"


def without_version(folder: Path, count: int) -> list[Path]:
    """``count`` trajectories that lack their schema_version (the harness's mistake of the issue), and one with a
    mistake of its own."""
    text = (VALID / "actf" / "trajectory.json").read_text(encoding="utf-8")
    data = json.loads(text)
    del data["schema_version"]
    files = []
    for number in range(count):
        path = folder / f"task-{number:02}" / "trajectory.actf.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
        files.append(path)
    other = folder / "other" / "trajectory.actf.json"
    other.parent.mkdir()
    other.write_text(text.replace('"step_id": 1', '"step_id": "one"', 1), encoding="utf-8")
    return files


def output(capsys: pytest.CaptureFixture[str], *arguments: str) -> str:
    assert main(["validate", "--no-cache", "--jobs", "1", "--no-config", "--kind", "actf-trajectory", *arguments]) == 1
    return capsys.readouterr().out


def test_one_line_names_the_first_files_the_count_and_how_to_list_them_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = without_version(tmp_path, 7)
    out = output(capsys, "--no-context", str(tmp_path))
    lines = out.splitlines()
    grouped = [line for line in lines if MISSING in line]
    assert grouped == [f"{files[0]}:1:1: {MISSING} (in 7 files)"]
    also = lines[lines.index(grouped[0]) + 1]
    named = ", ".join(f"{path}:1:1" for path in files[1:NAMED])
    assert also == f"    also in {named} and {7 - NAMED} more (--no-group lists each, as --format json does)"
    assert any(line.startswith(f"{tmp_path / 'other' / 'trajectory.actf.json'}:") for line in lines)  # alone
    assert lines[-1] == "  issues: schema.required 7, schema.type 1"  # the counts count every file


def test_the_context_of_a_group_is_its_first_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    without_version(tmp_path, NAMED + 1)
    lines = output(capsys, str(tmp_path)).splitlines()
    first = next(index for index, line in enumerate(lines) if MISSING in line)
    assert lines[first + 1].startswith("    also in ") and lines[first + 1].endswith(
        " and 1 more (--no-group lists each, as --format json does)"
    )
    assert lines[first + 2] == "    at /schema_version"
    assert sum(line == "    at /schema_version" for line in lines) == 1


def test_a_finding_in_no_more_files_than_a_group_names_stays_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = without_version(tmp_path, NAMED)
    out = output(capsys, "--no-context", str(tmp_path))
    assert [line for line in out.splitlines() if MISSING in line] == [f"{path}:1:1: {MISSING}" for path in files]
    assert "also in" not in out


def test_no_group_lists_every_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = without_version(tmp_path, 7)
    out = output(capsys, "--no-group", "--no-context", str(tmp_path))
    assert [line for line in out.splitlines() if MISSING in line] == [f"{path}:1:1: {MISSING}" for path in files]
    assert "also in" not in out


@pytest.mark.parametrize("format_", ["json", "sarif", "junit", "markdown"])
def test_the_formats_for_programs_keep_one_entry_per_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], format_: str
) -> None:
    files = without_version(tmp_path, 7)
    grouped = output(capsys, "--format", format_, str(tmp_path))
    assert output(capsys, "--format", format_, "--no-group", str(tmp_path)) == grouped
    for path in files:
        assert str(path.relative_to(tmp_path).parent) in grouped, path
    if format_ == "json":
        issues = json.loads(grouped)["issues"]
        assert sorted(issue["file"] for issue in issues if issue["code"] == "schema.required") == list(map(str, files))


def test_github_annotates_at_most_the_cap_of_a_code_and_counts_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    without_version(tmp_path, CAP + 3)
    lines = output(capsys, "--format", "github", str(tmp_path)).splitlines()
    assert sum(line.startswith("::error ") and "title=schema.required::" in line for line in lines) == CAP
    assert sum(line.startswith("::error ") and "title=schema.type::" in line for line in lines) == 1
    more = [line for line in lines if line.startswith("::notice ")]
    assert more == [
        "::notice title=schema.required::3 more schema.required issue(s) not annotated (3 error(s)): --no-group "
        "annotates each, and --format json, sarif or junit lists each"
    ]
    assert lines[-1] == f"{CAP + 4} file(s) checked; {CAP + 4} error(s), 0 warning(s)"
    every = output(capsys, "--format", "github", "--no-group", str(tmp_path)).splitlines()
    assert sum("title=schema.required::" in line for line in every) == CAP + 3
    assert not any(line.startswith("::notice ") for line in every)
