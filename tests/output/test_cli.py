"""The agentbeats-spec command: verdicts, exit codes and output formats."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentbeats_spec import validate
from agentbeats_spec.application._tree_check import check_paths
from agentbeats_spec.cli import main
from agentbeats_spec.reporting._formats import REPORTERS
from agentbeats_spec.reporting._progress import Progress
from agentbeats_spec.units import _cache

from ..conftest import FIXTURES, INVALID_TOTALS, VALID


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_valid_fixtures_exit_0_with_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", str(VALID))
    assert code == 0
    assert out.startswith("valid: ") and "0 error(s), 0 warning(s)" in out


def test_invalid_fixtures_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--no-context", str(FIXTURES / "invalid"))
    assert code == 1
    lines = out.splitlines()
    assert [line for line in lines if line.startswith("invalid: ")] == [
        f"invalid: {INVALID_TOTALS.summary} (shown with --show-info)"
    ]
    first = lines[0]
    assert first.startswith(
        str(FIXTURES / "invalid" / "abb-case" / "verify.case.json") + ":5:15: error schema.minimum "
    )


def test_text_lines_are_sorted_by_file_and_position(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "validate", "--no-context", str(FIXTURES / "invalid"))
    keys = []
    for line in out.splitlines():
        if not line.startswith(str(FIXTURES)):
            continue
        file, line_number, column, _ = line.split(":", 3)
        keys.append((file, int(line_number), int(column)))
    assert keys == sorted(keys)


def test_context_shows_the_line_and_a_caret(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "validate", str(FIXTURES / "invalid" / "abv3-results" / "results.json"))
    assert '    2 |   "count": -1,\n' in out
    assert "      |            ^\n" in out
    assert "    at /count\n" in out


def test_json_report_is_exactly_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--format", "json", str(FIXTURES / "invalid" / "abv3-results"))
    report = json.loads(out)
    assert code == 1
    assert set(report) == {"valid", "checked", "issues", "configuration"}
    assert report["configuration"] is None  # the run used no configuration file
    assert report["valid"] is False and report["checked"] == 1
    assert report["issues"][0] == {
        "file": str(FIXTURES / "invalid" / "abv3-results" / "results.json"),
        "kind": "abv3-results",
        "pointer": "/success_rate",
        "line": 1,
        "column": 1,
        "severity": "error",
        "code": "rule.main-metric",
        "message": "main_metric names 'success_rate', but there is no member 'success_rate' holding its value",
    }


def test_warnings_pass_unless_strict(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "trajectory.json"
    path.write_text(
        '{"schema_version": "ACTF_v1.0", "steps": [], "started_at": "2026-08-01T10:00:05Z", '
        '"finished_at": "2026-08-01T10:00:00Z"}'
    )
    assert run(capsys, "validate", str(path))[0] == 0
    code, out, _ = run(capsys, "validate", "--strict", "--format", "json", str(path))
    assert code == 1 and json.loads(out)["valid"] is False


WARNING_ONLY = (
    '{"schema_version": "ACTF_v1.0", "steps": [], "started_at": "2026-08-01T10:00:05Z", '
    '"finished_at": "2026-08-01T10:00:00Z"}'
)


@pytest.mark.parametrize(("strict", "fails"), [((), False), (("--strict",), True)])
def test_the_exit_code_the_text_verdict_and_json_valid_are_one_verdict(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, strict: tuple[str, ...], fails: bool
) -> None:
    path = tmp_path / "trajectory.json"
    path.write_text(WARNING_ONLY)
    code, out, _ = run(capsys, "validate", *strict, str(path))
    assert code == (1 if fails else 0)
    assert out.splitlines()[-2].startswith("invalid: " if fails else "valid: ")
    code, out, _ = run(capsys, "validate", *strict, "--format", "json", str(path))
    assert code == (1 if fails else 0) and json.loads(out)["valid"] is not fails


INFO_ONLY = '{\n  "schema_version": "ACTF_v1.0",\n  "steps": [],\n  "started_at": "2026-08-01 10:00:00"\n}\n'


def test_info_never_fails_not_even_strict(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "trajectory.json"
    path.write_text(INFO_ONLY)
    code, out, _ = run(capsys, "validate", "--strict", "--format", "json", str(path))
    report = json.loads(out)
    assert code == 0 and report["valid"] is True
    assert [(i["code"], i["severity"], i["pointer"], i["line"], i["column"]) for i in report["issues"]] == [
        ("rule.timestamp-offset", "info", "/started_at", 4, 17)
    ]


def test_the_text_format_hides_info_unless_asked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "trajectory.json"
    path.write_text(INFO_ONLY)
    code, out, _ = run(capsys, "validate", "--strict", str(path))
    assert code == 0
    assert out == "valid: 1 file(s) checked; 0 error(s), 0 warning(s), 1 info (shown with --show-info)\n"
    code, out, _ = run(capsys, "validate", "--strict", "--show-info", "--no-context", str(path))
    assert code == 0
    assert out.splitlines()[0].startswith(f"{path}:4:17: info rule.timestamp-offset '2026-08-01 10:00:00' has no")
    assert out.splitlines()[1] == "valid: 1 file(s) checked; 0 error(s), 0 warning(s), 1 info"


def test_info_is_a_sarif_note_and_a_github_notice(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "trajectory.json"
    path.write_text(INFO_ONLY)
    code, out, _ = run(capsys, "validate", "--strict", "--format", "sarif", str(path))
    (result,) = json.loads(out)["runs"][0]["results"]
    (rule,) = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
    assert code == 0 and result["level"] == "note" and rule["defaultConfiguration"]["level"] == "note"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (4, 17)
    code, out, _ = run(capsys, "validate", "--strict", "--format", "github", str(path))
    assert code == 0 and out.startswith(f"::notice file={path},line=4,col=17,title=rule.timestamp-offset::")


def test_a_folder_holding_no_artifact_is_nothing_checked_not_a_pass(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "notes.json").write_text('{"not": "an artifact"}')
    (tmp_path / "README.md").write_text("# nothing here\n")
    code, out, err = run(capsys, "validate", str(tmp_path))
    assert code == 2
    assert err == f"agentbeats-spec: error: no artifact found under {tmp_path} (see --allow-empty)\n"
    assert out == "valid: 0 file(s) checked, 2 other file(s) skipped; 0 error(s), 0 warning(s)\n"
    code, _, err = run(capsys, "validate", "--allow-empty", str(tmp_path))
    assert (code, err) == (0, "")


def test_a_path_named_twice_is_checked_once(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "trajectory.json"
    path.write_text('{"schema_version": "ACTF_v1.0", "steps": [{"step_id": -1}]}')
    again = tmp_path / ".." / tmp_path.name / path.name
    code, out, _ = run(capsys, "validate", "--format", "json", str(path), str(again))
    report = json.loads(out)
    assert (code, report["checked"], [i["code"] for i in report["issues"]]) == (1, 1, ["schema.minimum"])


def test_a_missing_path_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "validate", str(tmp_path / "nope.json"))
    assert (code, out) == (2, "")
    assert "no such file or folder" in err


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["validate", "--kind", "nope", "x"])
    assert exit_info.value.code == 2


def test_an_unknown_kind_tells_how_to_pass_kind(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text('{"count": 1}')
    code, out, _ = run(capsys, "validate", "--no-context", str(path))
    assert code == 1
    assert "schema.unknown-kind" in out and "--kind" in out
    assert run(capsys, "validate", "--kind", "abv3-results", str(path))[0] == 1


def test_kind_overrides_detection(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "anything.json"
    path.write_text('{"count": 1, "main_metric": "m", "m": 0.5}')
    assert run(capsys, "validate", "--kind", "abv3-results", str(path))[0] == 0


def test_kinds_and_schema_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "kinds")
    assert code == 0 and "agentcompass-task-detail" in out
    code, out, _ = run(capsys, "schema", "agentcompass-task")
    assert code == 0 and json.loads(out)["$id"].endswith("/agentcompass/task.v3.json")


def test_python_dash_m_runs_the_same_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "agentbeats_spec", "validate", "--format", "json", str(VALID)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["valid"] is True


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_progress_bar_shows_on_a_terminal_for_large_trees(tmp_path: Path) -> None:
    for number in range(Progress.THRESHOLD + 20):
        (tmp_path / f"{number}.txt").write_text("x")
    stream = _Terminal()
    progress = Progress.for_terminal(stream, [tmp_path])
    assert progress is not None
    report = check_paths([tmp_path], progress=progress)
    shown = stream.getvalue()
    progress.close()
    assert report.skipped == Progress.THRESHOLD + 20
    assert f"] {Progress.THRESHOLD + 20}/{Progress.THRESHOLD + 20} files, " in shown and "files/s" in shown


def test_no_progress_bar_off_a_terminal_or_for_small_trees(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{}")
    assert Progress.for_terminal(io.StringIO(), [tmp_path]) is None
    assert Progress.for_terminal(_Terminal(), [tmp_path]) is None


def test_the_summary_counts_files_per_kind_and_issues_per_code(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "validate", "--no-context", str(FIXTURES / "invalid"))
    assert "  files: abb-case 1, abv3-repo 1," in out
    assert "  issues: json.duplicate-key 1, json.non-finite 1," in out


def test_the_text_line_of_an_issue_is_its_heading_with_its_pointer_under_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = FIXTURES / "invalid" / "abv3-results" / "results.json"
    issues = validate(path)
    assert issues
    _, out, _ = run(capsys, "validate", str(path))
    lines = out.splitlines()
    for issue in issues:
        assert str(issue) == f"{issue.heading()} (at {issue.pointer})"
        position = lines.index(issue.heading())
        assert lines[position + 1] == f"    at {issue.pointer}"


@pytest.mark.parametrize("command", ["validate", "check-l1"])
@pytest.mark.parametrize("output_format", sorted(REPORTERS))
def test_every_reporter_is_a_format_choice(
    capsys: pytest.CaptureFixture[str], command: str, output_format: str
) -> None:
    code, out, err = run(capsys, command, "--format", output_format, str(VALID / "abv3-repo"))
    assert (code, err) == (0, "") and out


def test_a_cache_folder_asked_for_inside_a_checked_folder_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "trajectory.json"
    path.write_text(WARNING_ONLY)
    code, out, err = run(capsys, "validate", "--cache", str(tmp_path / "cache"), str(tmp_path))
    assert (code, out) == (2, "")
    assert err == f"agentbeats-spec: error: the cache folder {tmp_path / 'cache'} is inside a checked folder\n"
    assert not (tmp_path / "cache").exists()


def test_the_users_cache_folder_inside_a_checked_folder_means_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_cache, "default_folder", lambda: tmp_path / "cache")
    assert _cache.for_run(None, [tmp_path], "options") is None
    elsewhere = _cache.for_run(None, [tmp_path / "tree"], "options")
    assert elsewhere is not None and elsewhere.folder == tmp_path / "cache"


# -- an OSError is a usage error naming its path, or the one-line internal error; never a traceback, never exit 1 --


@pytest.mark.parametrize(
    ("command", "function"),
    [("validate", "check_paths"), ("scan", "scan_paths"), ("watch", "watching"), ("check-l1", "check_repository")],
)
def test_a_path_that_changes_under_the_command_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str, function: str
) -> None:
    """A named run swapped between a folder and a link while it is read ended in a traceback and exit 1, which CI
    reads as "invalid": it is a problem of the input, exit 2, the path named, and the SARIF log says so."""
    folder = tmp_path / "run"
    shutil.copytree(VALID / "agentcompass-run", folder)
    gone = folder / "metrics.json"

    def swapped(*arguments: object, **options: object) -> None:
        raise FileNotFoundError(2, "No such file or directory", str(gone))

    module = "cli._watch" if command == "watch" else "application._front_door"
    monkeypatch.setattr(f"agentbeats_spec.{module}.{function}", swapped)
    log = tmp_path / "log.sarif"
    outputs = [] if command == "watch" else ["--output", f"sarif:{log}"]
    code, out, err = run(capsys, command, str(folder), *outputs)
    assert (code, out, err) == (2, "", f"agentbeats-spec: error: {gone}: No such file or directory\n")
    if outputs:
        (invocation,) = json.loads(log.read_text(encoding="utf-8"))["runs"][0]["invocations"]
        assert (invocation["executionSuccessful"], invocation["exitCode"]) == (False, 2)


@pytest.mark.parametrize(
    "argv",
    [["validate", "."], ["scan", "."], ["watch", "."], ["convert", "t.json", "--to", "atif", "-o", "t.atif.json"],
     ["validate", str(VALID / "actf" / "trajectory.json")]],
)  # fmt: skip
def test_a_deleted_working_folder_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == (
        "agentbeats-spec: error: the working folder cannot be read (was it deleted?): No such file or directory\n"
    )


def test_an_os_error_about_no_path_is_the_one_line_internal_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*arguments: object, **options: object) -> None:
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr("agentbeats_spec.application._front_door.check_paths", broken)
    code, out, err = run(capsys, "validate", "--no-cache", str(VALID / "actf" / "trajectory.json"))
    assert (code, out) == (3, "")
    assert err.startswith("agentbeats-spec: internal error (OSError: [Errno 22] Invalid argument); please report")
    assert err.count("\n") == 1
