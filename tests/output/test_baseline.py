"""``validate --baseline FILE`` reports only the issues the baseline does not hold; ``--write-baseline FILE``
records the current ones, by fingerprints that survive line moves."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agentbeats_spec.cli import main

from ..conftest import FIXTURES, INVALID_TOTALS


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(FIXTURES / "invalid", tmp_path / "inv")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, object]], str]:
    code = main(["validate", "--format", "json", *argv])
    captured = capsys.readouterr()
    return code, json.loads(captured.out)["issues"] if captured.out else [], captured.err


def test_a_written_baseline_holds_every_issue_and_then_none_is_reported(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, found, err = run(capsys, "inv", "--write-baseline", "known.json")
    assert code == 0 and found == []  # every issue is known now: the run ends as the next one with --baseline
    assert err == (
        f"agentbeats-spec: wrote the baseline known.json: {INVALID_TOTALS.issues} issue(s), each known from now on "
        "(not reported)\n"
    )
    document = json.loads((project / "known.json").read_text(encoding="utf-8"))
    assert document["agentbeats-spec-baseline"] == 1 and len(document["issues"]) == INVALID_TOTALS.issues
    assert document["issues"][0].keys() == {"fingerprint", "code", "file", "pointer"}
    assert all(not entry["file"].startswith("/") for entry in document["issues"])  # relative to the baseline
    code, found, err = run(capsys, "inv", "--baseline", "known.json")
    assert code == 0 and found == []
    assert err == f"agentbeats-spec: {INVALID_TOTALS.issues} known issue(s) of the baseline known.json not reported\n"


def test_writing_a_baseline_in_text_says_what_it_wrote_and_passes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", "inv", "--write-baseline", "known.json"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("valid: ") and f"wrote the baseline known.json: {INVALID_TOTALS.issues} " in (
        captured.err
    )
    # a new issue after the baseline was written still fails, and writing again records it too
    results = project / "inv" / "abv3-results" / "results.json"
    results.write_text(results.read_text(encoding="utf-8").replace('"count": -1', '"count": -5'))
    assert main(["validate", "inv", "--baseline", "known.json"]) == 1
    assert main(["validate", "inv", "--baseline", "known.json", "--write-baseline", "known.json"]) == 0
    capsys.readouterr()
    assert main(["validate", "inv", "--baseline", "known.json"]) == 0


def test_known_issues_stay_known_when_lines_move_and_new_ones_are_reported(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "inv", "--write-baseline", "known.json")
    toml = project / "inv" / "abv3-repo" / "agentbeats.toml"
    toml.write_text("# two lines\n# above\n" + toml.read_text(encoding="utf-8"))
    results = project / "inv" / "abv3-results" / "results.json"
    data = json.loads(results.read_text(encoding="utf-8"))
    results.write_text(json.dumps({**data, "count": -2}, indent=4))  # moved, and one value changed
    code, found, err = run(capsys, "inv", "--baseline", "known.json")
    assert code == 1
    assert [(issue["code"], issue["pointer"], issue["message"]) for issue in found] == [
        ("schema.minimum", "/count", "expected a number >= 0, found the number -2")
    ]
    assert err == "agentbeats-spec: 43 known issue(s) of the baseline known.json not reported\n"


def test_a_baseline_is_read_relative_to_its_own_folder(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run(capsys, "inv", "--write-baseline", "known.json")
    monkeypatch.chdir(project / "inv")
    code, found, _ = run(capsys, ".", "--baseline", "../known.json")
    assert code == 0 and found == []


def test_each_entry_covers_one_issue_of_the_two_in_the_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "inv/abv3-results", "--write-baseline", "known.json")
    document = json.loads((project / "known.json").read_text(encoding="utf-8"))
    (project / "known.json").write_text(json.dumps({**document, "issues": document["issues"][:1]}))
    code, found, err = run(capsys, "inv/abv3-results", "--baseline", "known.json")
    assert code == 1 and len(found) == 1 and err.startswith("agentbeats-spec: 1 known issue(s)")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "agentbeats-spec: error: no baseline known.json: write one with --write-baseline known.json\n"),
        ("{}", 'agentbeats-spec: error: known.json is not an agentbeats-spec baseline: expected an object with '
               '"agentbeats-spec-baseline": 1 and "issues", a list of objects with a fingerprint (16 hexadecimal '
               "digits), as --write-baseline writes it\n"),
        ('{"agentbeats-spec-baseline": 1, "issues": [{"fingerprint": "not hex"}]}',
         "agentbeats-spec: error: known.json is not an agentbeats-spec baseline: "),
        ("[", "agentbeats-spec: error: known.json:1:2: not an agentbeats-spec baseline: "),
        # Nesting no parser follows is a fault of the file like any other: one line, never exit 3 (RecursionError).
        ("[" * 100_000 + "]" * 100_000,
         "agentbeats-spec: error: known.json:1:513: not an agentbeats-spec baseline: nesting deeper than 512 levels"),
    ],
)  # fmt: skip
def test_a_missing_or_malformed_baseline_exits_2_before_checking(
    project: Path, capsys: pytest.CaptureFixture[str], text: str | None, message: str
) -> None:
    if text is not None:
        (project / "known.json").write_text(text)
    code, found, err = run(capsys, "inv", "--baseline", "known.json", "--output", "sarif:log.sarif")
    assert code == 2 and found == [] and err.startswith(message) and not (project / "log.sarif").exists()


def test_a_baseline_that_is_a_fifo_is_refused_not_waited_on(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A baseline path in a tree someone else wrote may be a FIFO: reading it would block for ever."""
    os.mkfifo(project / "known.json")
    code, found, err = run(capsys, "inv", "--baseline", "known.json")
    assert code == 2 and found == []
    assert err.startswith("agentbeats-spec: error: cannot read the baseline known.json: not a regular file")


def test_a_configuration_that_is_a_fifo_is_refused_not_waited_on(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(project / "settings.toml")
    assert main(["validate", "--config", "settings.toml", "inv"]) == 2
    assert capsys.readouterr().err == "agentbeats-spec: error: no configuration file settings.toml\n"
