"""A file named to the checker always gets a verdict; one met while walking may be no artifact; places are real."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentbeats_spec import InvalidDocument, Limits, read_task, validate
from agentbeats_spec.checking._sources import examine_found, examine_named, members, read_schemaless
from agentbeats_spec.reading import _json
from agentbeats_spec.vocabulary._issues import Finding

from ..conftest import VALID
from .test_layout_agentcompass import TASK_NAME, _fix_directories


def test_a_named_file_gets_a_verdict_and_a_found_one_may_be_no_artifact(tmp_path: Path) -> None:
    notes = tmp_path / "notes.json"
    notes.write_text('{"title": "not an artifact"}\n', encoding="utf-8")
    named = examine_named(notes, None)
    assert [issue.code for issue in named.issues] == ["schema.unknown-kind"]
    assert examine_found(notes, None) is None
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema_version": "agentcompass.task.v3", "task_id": ', encoding="utf-8")
    examined = examine_found(broken, None)
    assert examined is not None and examined.kind is not None and examined.kind.name == "agentcompass-task"


def test_a_schemaless_file_is_read_once_and_its_members_taken_apart(tmp_path: Path) -> None:
    run = tmp_path / "run.json"
    run.write_text('{"a": 1, "a": 2}\n', encoding="utf-8")
    assert isinstance(read_schemaless(tmp_path), Finding)  # a folder is no file: one problem, about it as a whole
    read = read_schemaless(run)
    assert not isinstance(read, Finding)
    assert [(f.code, f.line, f.column) for f in read.findings] == [("json.duplicate-key", 1, 10)]
    assert members(read) == {"a": 2}
    run.write_text("[1, 2]\n", encoding="utf-8")
    listed = read_schemaless(run)
    assert not isinstance(listed, Finding) and members(listed) is None


def test_an_unfinished_task_is_placed_at_its_index_object_not_at_an_assumed_start(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(VALID / "agentcompass-run", run, symlinks=True)
    folder = run / "details" / "error" / TASK_NAME
    index = json.loads((folder / "task.json").read_text(encoding="utf-8"))
    for key in ("category", "ground_truth", "attempt_plan"):
        index.pop(key)
    (folder / "task.json").write_text("\n  " + json.dumps(index), encoding="utf-8")
    target = run / "details" / "running" / TASK_NAME
    folder.rename(target)
    _fix_directories(run, target)
    with pytest.raises(InvalidDocument) as raised:
        read_task(target)
    (issue,) = raised.value.issues
    assert (issue.code, issue.pointer, issue.line, issue.column) == ("layout.incomplete-task", "", 2, 3)


def test_a_document_too_deep_for_the_parser_is_placed_where_it_starts() -> None:
    text = "\n " + "[" * 100_000 + "]" * 100_000
    _, findings = _json.parse(text, max_depth=200_000)
    assert [(f.code, f.line, f.column) for f in findings] == [("json.too-deep", 2, 2)]


def test_a_records_issue_without_a_place_stays_on_the_records_line(tmp_path: Path) -> None:
    """A JSON Lines record is its line: the count of a record's issues left out is placed there, not nowhere."""
    lines = (VALID / "agentcompass-run" / "progress.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    third = json.loads(lines[2])
    third.update(attempt="1", status=5)
    del third["timestamp"]
    lines[2] = json.dumps(third) + "\n"
    path = tmp_path / "progress.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    issues = [(i.code, i.pointer, i.line, i.column) for i in validate(path, limits=Limits(max_issues=2))]
    assert ("io.issues-truncated", "", 3, 1) in issues
