"""One run, every output: ``--output FORMAT:FILE`` beside ``--format``, and the invocation a SARIF log records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft4Validator

from agentbeats_spec._reporters import REPORTERS
from agentbeats_spec.cli import main

from ..conftest import FIXTURES, ROOT

SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-2.1.0-rtm.5.json").read_text(encoding="utf-8"))
INVALID = str(FIXTURES / "invalid")


def without_invocations(text: str) -> Any:
    """A SARIF log less what differs between two runs of the same check: the command line."""
    document = json.loads(text)
    for run in document["runs"]:
        run.pop("invocations")
    return document


def test_one_run_writes_every_format_as_format_would_print_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = [f"--output={name}:{tmp_path / name}" for name in REPORTERS]
    assert main(["validate", "--format", "json", INVALID, *outputs]) == 1
    printed_json = capsys.readouterr().out
    for name in REPORTERS:
        assert main(["validate", "--format", name, INVALID]) == 1
        alone = capsys.readouterr().out
        written = (tmp_path / name).read_text(encoding="utf-8")
        if name == "sarif":
            assert without_invocations(written) == without_invocations(alone)
        else:
            assert written == alone, name
    assert (tmp_path / "json").read_text(encoding="utf-8") == printed_json


def test_a_sarif_log_records_a_successful_invocation_even_when_issues_fail_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", INVALID, "--output", f"sarif:{tmp_path / 'log.sarif'}"]) == 1
    document = json.loads((tmp_path / "log.sarif").read_text(encoding="utf-8"))
    assert list(Draft4Validator(SARIF_SCHEMA).iter_errors(document)) == []
    assert document["runs"][0]["invocations"] == [
        {
            "executionSuccessful": True,
            "exitCode": 1,
            "arguments": ["validate", INVALID, "--output", f"sarif:{tmp_path / 'log.sarif'}"],
        }
    ]
    assert len(document["runs"][0]["results"]) == 44


def test_a_missing_path_exits_2_with_a_sarif_log_of_a_failed_invocation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.sarif"
    assert main(["validate", str(tmp_path / "nowhere"), "--output", f"sarif:{log}"]) == 2
    assert capsys.readouterr().err == f"agentbeats-spec: error: no such file or folder: {tmp_path / 'nowhere'}\n"
    document = json.loads(log.read_text(encoding="utf-8"))
    assert list(Draft4Validator(SARIF_SCHEMA).iter_errors(document)) == []
    (invocation,) = document["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    assert invocation["toolExecutionNotifications"] == [
        {"level": "error", "message": {"text": f"no such file or folder: {tmp_path / 'nowhere'}"}}
    ]
    assert document["runs"][0]["results"] == []


def test_an_empty_folder_exits_2_with_a_sarif_log_of_a_failed_invocation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    log = tmp_path / "log.sarif"
    assert main(["validate", str(tmp_path / "empty"), "--output", f"sarif:{log}"]) == 2
    (invocation,) = json.loads(log.read_text(encoding="utf-8"))["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    assert invocation["toolExecutionNotifications"][0]["message"]["text"] == (
        f"no artifact found under {tmp_path / 'empty'} (see --allow-empty)"
    )


def test_a_usage_error_writes_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.sarif"
    with pytest.raises(SystemExit) as exited:
        main(["validate", INVALID, "--output", f"sarif:{log}", "--max-depth", "0"])
    assert exited.value.code == 2 and not log.exists()


@pytest.mark.parametrize("given", ["sarif", "xml:log.xml", ":log.sarif", "sarif:"])
def test_an_output_that_is_not_format_colon_file_is_a_usage_error(
    given: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["validate", INVALID, "--output", given])
    assert exited.value.code == 2
    assert "argument --output: expected FORMAT:FILE with FORMAT one of text, json" in capsys.readouterr().err


def test_an_internal_error_exits_3_with_a_sarif_log_of_a_failed_invocation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*arguments: object, **options: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("agentbeats_spec.cli.check_paths", broken)
    log = tmp_path / "log.sarif"
    assert main(["validate", INVALID, "--output", f"sarif:{log}"]) == 3
    (invocation,) = json.loads(log.read_text(encoding="utf-8"))["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 3
    assert invocation["toolExecutionNotifications"][0]["message"]["text"] == "internal error (RuntimeError)"


def test_a_file_that_cannot_be_written_exits_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "no" / "such" / "folder.json"
    assert main(["validate", INVALID, f"--output=json:{target}"]) == 2
    assert capsys.readouterr().err.startswith(f"agentbeats-spec: error: cannot write {target}: ")
    assert not target.parent.exists()


def test_scan_and_check_l1_take_outputs_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(FIXTURES / "valid"), "--output", f"json:{tmp_path / 'scan.json'}"]) == 0
    assert json.loads((tmp_path / "scan.json").read_text(encoding="utf-8"))["issues"] == []
    assert main(["check-l1", str(tmp_path / "nowhere"), "--output", f"sarif:{tmp_path / 'l1.sarif'}"]) == 2
    (invocation,) = json.loads((tmp_path / "l1.sarif").read_text(encoding="utf-8"))["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
