"""Checking a file costs time linear in its size whatever it holds: counted, not timed.

N findings in one array are placed in one walk over it, never by N searches from its start; findings past
``--max-issues`` are counted and never placed; schema validation stops looking one error past the limit; a JSON
Lines file keeps no line's record or issues past the limit.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec import Limits, validate
from agentbeats_spec.checking import _schemas
from agentbeats_spec.reading import _documents, _json, _nativejson

from ..conftest import VALID


def empty_steps(count: int) -> bytes:
    return b'{"schema_version": "ACTF_v1.0", "steps": [' + b",".join([b"{}"] * count) + b"]}"


def placed(path: Path, monkeypatch: pytest.MonkeyPatch, **limits: Any) -> tuple[list[str], Counter[str]]:
    """The codes found in ``path``, and how often each placing step ran."""
    counts: Counter[str] = Counter()
    positions = _documents.Document.positions

    def counted_positions(self: Any, requests: Any) -> Any:
        requests = list(requests)
        counts["placed"] += len(requests)
        return positions(self, requests)

    monkeypatch.setattr(_documents.Document, "positions", counted_positions)
    if _nativejson._native is not None:
        native = _nativejson._native

        class Counting:
            def __getattr__(self, name: str) -> Any:
                counts[name] += 1
                return getattr(native, name)

        monkeypatch.setattr(_nativejson, "_native", Counting())
    finding = _schemas._finding

    def counted_finding(*arguments: Any) -> Any:
        counts["schema errors"] += 1
        return finding(*arguments)

    monkeypatch.setattr(_schemas, "_finding", counted_finding)
    found = [issue.code for issue in validate(path, limits=Limits(**limits))]
    return found, counts


@pytest.mark.parametrize("steps", [100, 2_000])
def test_findings_past_the_limit_are_never_placed_nor_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, steps: int
) -> None:
    path = tmp_path / "t.actf.json"
    path.write_bytes(empty_steps(steps))
    found, counts = placed(path, monkeypatch, max_issues=10)
    assert Counter(found) == {"schema.required": 10, "io.issues-truncated": 1}
    # The same work for 100 steps as for 2,000: ten findings and the one that shows there are more.
    assert counts["schema errors"] == 11
    assert counts["placed"] == 10


@pytest.mark.skipif(not _nativejson.available, reason="the native reader is not built")
@pytest.mark.parametrize("steps", [10, 1_000])
def test_the_findings_of_one_array_are_placed_in_one_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, steps: int
) -> None:
    path = tmp_path / "t.actf.json"
    path.write_bytes(empty_steps(steps))
    found, counts = placed(path, monkeypatch, max_issues=10_000)
    assert Counter(found) == {"schema.required": steps}
    # One walk of the root (for "steps") and one of the array for all its items; never a search per finding.
    assert (counts["find_each"], counts["find"], counts["placed"]) == (2, 0, steps)


def test_the_exact_locator_walks_an_array_once_for_all_its_items(monkeypatch: pytest.MonkeyPatch) -> None:
    skipped: Counter[int] = Counter()
    skip = _json._skip_value

    def counted(text: str, pos: int) -> int:
        skipped[len(text)] += 1
        return skip(text, pos)

    monkeypatch.setattr(_json, "_skip_value", counted)
    for count in (10, 1_000):
        text = empty_steps(count).decode()
        wanted = {("steps", str(index)) for index in range(0, count, 2)}
        located = _json.locate(text, wanted)
        assert set(located) >= wanted
        # Every other item is wanted; the others, and the one member before "steps", are skipped once each.
        assert skipped[len(text)] == count // 2 + 1


def test_many_duplicate_members_are_placed_in_one_scan() -> None:
    text = "{" + ",\n".join(f'"a": {index}' for index in range(40)) + "}"
    _, findings = _json.parse(text)
    first_line = "(first at line 1)"
    assert [(f.code, f.line, f.column) for f in findings] == [("json.duplicate-key", n, 1) for n in range(2, 41)]
    assert all(first_line in f.message for f in findings)


def test_json_lines_past_the_limit_are_judged_and_counted_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = json.loads((VALID / "agentcompass-run" / "progress.jsonl").read_text().splitlines()[0])
    path = tmp_path / "progress.jsonl"  # each line an event inside an array: an error (no reader finds its data)
    path.write_text("".join(json.dumps([record]) + "\n" for _ in range(500)))
    found, counts = placed(path, monkeypatch, max_issues=10)
    assert Counter(found) == {"schema.type": 10, "io.issues-truncated": 1}
    # Only the lines before the limit are reported (their errors built); the others are judged by a verdict.
    assert counts["schema errors"] == 10
    (truncated,) = [i.message for i in validate(path, limits=Limits(max_issues=10)) if i.code == "io.issues-truncated"]
    expected = (
        "at least 490 more issue(s) in this file are not shown: at least 490 error(s) (schema errors not looked for); "
        "the check stops looking past the limit"
    )
    assert truncated == f"{expected} (see --max-issues)"


def test_the_text_report_reads_a_files_source_lines_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A thousand issues on one long line show that line a thousand times, and read it once."""
    import io

    from agentbeats_spec.application._tree_check import check_paths
    from agentbeats_spec.reporting import _source_lines, _text

    path = tmp_path / "t.actf.json"
    path.write_bytes(empty_steps(3_000))
    opened: list[str] = []
    opener = _source_lines.open_regular

    def counted(file: str) -> Any:
        opened.append(file)
        return opener(file)

    monkeypatch.setattr(_source_lines, "open_regular", counted)
    out = io.StringIO()
    _text.text(check_paths([path]), out)
    assert out.getvalue().count("\n    1 | ") == 1_000
    assert opened == [str(path)]


def test_the_readers_findings_past_the_limit_are_counted_not_kept(tmp_path: Path) -> None:
    """A million NaNs would be a million findings: the exact reader keeps --max-issues of them and counts the rest."""
    path = tmp_path / "t.actf.json"
    path.write_text('{"schema_version": "ACTF_v1.0", "steps": [], "x": [' + ", ".join(["NaN"] * 5_000) + "]}")
    from agentbeats_spec.vocabulary._settings import Settings, applied

    with applied(Settings(Limits(max_issues=10))):
        document = _documents.read(path.read_bytes(), "json")
    assert (len(document.findings), document.unkept) == (10, (("json.non-finite", "error", 4_990),))
    found = validate(path, limits=Limits(max_issues=10))
    assert Counter(issue.code for issue in found) == {"json.non-finite": 10, "io.issues-truncated": 1}
    (truncated,) = [issue.message for issue in found if issue.code == "io.issues-truncated"]
    assert truncated == (
        "4990 more issue(s) in this file are not shown: 4990 error(s) (json.non-finite) (see --max-issues)"
    )


@pytest.mark.parametrize("count", [200, 2_000])
def test_unique_items_looks_at_each_item_a_bounded_number_of_times(count: int) -> None:
    """Items are found again by their canonical form, never compared with every earlier item."""
    import sys

    from agentbeats_spec.checking import _keywords

    tags: list[Any] = [{"name": f"t{index}", "weight": [index, 1.0]} for index in range(count)]
    tags += [f"t{index}" for index in range(count)] + [{"weight": [0.0, 1], "name": "t0"}, "t0"]
    validator = _schemas.validator(_schemas.BASE_URI + "abv3/agentbeats-toml.v1.json")
    calls: Counter[str] = Counter()

    def profile(frame: Any, event: str, _: Any) -> None:
        if event == "call" and frame.f_code.co_filename == _keywords.__file__:
            calls[frame.f_code.co_name] += 1

    sys.setprofile(profile)
    try:
        found = list(_keywords.unique_items(validator, True, tags, {}))
    finally:
        sys.setprofile(None)
    assert [(error.path[0], error.message) for error in found] == [
        (2 * count, "an object with 2 member(s) repeats item 0; items must be unique"),
        (2 * count + 1, "the string 't0' repeats item 200; items must be unique".replace("200", str(count))),
    ]
    # Each item costs a few calls (its key, a canonical form, a sort key per member), whatever the length.
    assert sum(calls.values()) <= 5 * len(tags)


@pytest.mark.parametrize("format_", ["text", "sarif"])
def test_a_thousand_issues_on_one_line_judge_that_line_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], format_: str
) -> None:
    """The source line an issue shows is judged for secrets once, not once per issue: a one-line document with a
    thousand findings took seconds per format, scanning its whole text again for each."""
    from agentbeats_spec.cli import main
    from agentbeats_spec.vocabulary import _secrets as _vocabulary

    from ..output.test_hidden_errors import trajectory_file

    path = trajectory_file(tmp_path)
    whole = len(path.read_text(encoding="utf-8").rstrip("\n"))  # the document is one line
    judged = []
    scan = _vocabulary.shape_matches
    monkeypatch.setattr(_vocabulary, "shape_matches", lambda text: judged.append(len(text)) or scan(text))
    assert main(["validate", "--no-cache", "--format", format_, str(path)]) == 1
    assert capsys.readouterr().out.count("rule.finished-before-started") >= 1000
    assert judged.count(whole) == 1  # the messages are masked one by one: they are short
