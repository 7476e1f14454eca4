"""Configuration: ``[tool.agentbeats-spec]`` in pyproject.toml or ``.agentbeats-spec.toml``, found upward from the
working folder; ``--config``, ``--no-config``; ``--exclude``, ``--select`` and ``--ignore`` on the command line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentbeats_spec.cli import main

from ..conftest import FIXTURES


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project holding a copy of the invalid fixtures, as the working folder."""
    shutil.copytree(FIXTURES / "invalid", tmp_path / "inv")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def issues(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, object]]]:
    code = main(["validate", "--format", "json", *argv])
    return code, json.loads(capsys.readouterr().out)["issues"]


def codes(found: list[dict[str, object]]) -> set[object]:
    return {issue["code"] for issue in found}


def test_without_a_configuration_every_issue_is_reported(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found = issues(capsys, "inv")
    assert code == 1 and len(found) == 44


def test_pyproject_table_selects_ignores_and_excludes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.agentbeats-spec]\nselect = ["schema", "rule.main-metric"]\n'
        'ignore = ["schema.enum"]\nexclude = ["abv3-repo"]\n'
    )
    _, found = issues(capsys, "inv")
    assert {str(code).partition(".")[0] for code in codes(found)} == {"schema", "rule"}
    assert "rule.main-metric" in codes(found) and "schema.enum" not in codes(found)
    assert not any("abv3-repo" in str(issue["file"]) for issue in found)


def test_the_configuration_is_found_from_a_folder_below(project: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    (project / ".agentbeats-spec.toml").write_text('select = ["rule.main-metric"]\n')
    (project / "deeper").mkdir()
    monkeypatch.chdir(project / "deeper")
    _, found = issues(capsys, "../inv")
    assert codes(found) == {"rule.main-metric"}
    _, everything = issues(capsys, "--no-config", "../inv")
    assert len(everything) == 44


def test_the_dot_file_comes_before_pyproject_in_one_folder(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text('[tool.agentbeats-spec]\nselect = ["schema"]\n')
    (project / ".agentbeats-spec.toml").write_text('select = ["rule.main-metric"]\n')
    assert codes(issues(capsys, "inv")[1]) == {"rule.main-metric"}


def test_a_pyproject_without_the_table_is_passed_over(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "deeper").mkdir()
    (project / "deeper" / "pyproject.toml").write_text('[project]\ndependencies = ["agentbeats-spec"]\n')
    (project / ".agentbeats-spec.toml").write_text('select = ["rule.main-metric"]\n')
    assert codes(issues(capsys, "inv")[1]) == {"rule.main-metric"}


def test_config_names_the_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "elsewhere.toml").write_text('ignore = ["schema", "rule", "json", "legacy", "security", "jsonl"]\n')
    code, found = issues(capsys, "--config", "elsewhere.toml", "inv")
    assert code == 0 and found == []


def test_command_line_select_replaces_and_ignore_extends(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".agentbeats-spec.toml").write_text('select = ["rule"]\nignore = ["rule.misspelled-key"]\n')
    _, found = issues(capsys, "--select", "schema,rule", "--ignore", "schema.type", "inv")
    assert "schema.minimum" in codes(found)
    assert not codes(found) & {"schema.type", "rule.misspelled-key"}


def test_command_line_exclude_adds_a_glob(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, found = issues(capsys, "--exclude", "inv/**/*.toml", "--exclude", "*.jsonl", "inv")
    files = {Path(str(issue["file"])).name for issue in found}
    assert "agentbeats.toml" not in files and "progress.jsonl" not in files and "results.json" in files


def test_an_excluded_path_named_on_the_command_line_is_not_checked(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["validate", "--exclude", "abv3-results", "inv/abv3-results/results.json", "inv/abb-case"])
    out = capsys.readouterr().out
    assert code == 1 and "results.json" not in out and "1 file(s) checked" in out


def test_per_file_severity_changes_or_drops_issues_of_matching_files(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".agentbeats-spec.toml").write_text(
        "[per-file-severity]\n"
        '"inv/abv3-repo/*.toml" = { schema = "warning", "schema.enum" = "info", "security.path-escape" = "ignore" }\n'
    )
    _, found = issues(capsys, "inv")
    repo = [issue for issue in found if str(issue["file"]).endswith("agentbeats.toml")]
    assert {(issue["code"], issue["severity"]) for issue in repo} == {
        ("schema.required", "warning"), ("schema.enum", "info"), ("rule.misspelled-key", "error"),
        ("schema.pattern", "warning"), ("schema.unique-items", "warning"), ("schema.type", "warning"),
    }  # fmt: skip
    results = [issue for issue in found if str(issue["file"]).endswith("results.json")]
    assert {issue["severity"] for issue in results if str(issue["code"]).startswith("schema.")} == {"error"}


def test_strict_in_the_configuration_fails_on_warnings(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    progress = "inv/agentcompass-run-files/progress.jsonl"
    assert main(["validate", "--select", "jsonl,rule.writer-shape", progress]) == 0
    (project / ".agentbeats-spec.toml").write_text("strict = true\n")
    assert main(["validate", "--select", "jsonl,rule.writer-shape", progress]) == 1


def test_limits_come_from_the_configuration_unless_the_command_line_names_them(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".agentbeats-spec.toml").write_text('max-issues = 2\nmax-file-size = "1K"\n')
    _, found = issues(capsys, "inv/abv3-repo/agentbeats.toml")
    assert codes(found) == {"schema.required", "schema.enum", "io.issues-truncated"}
    _, found = issues(capsys, "--max-issues", "1000", "inv/abv3-repo/agentbeats.toml")
    assert "io.issues-truncated" not in codes(found)
    big = project / "inv" / "abv3-results" / "results.json"
    big.write_text(big.read_text() + " " * 2048)
    _, found = issues(capsys, str(big))
    assert codes(found) == {"io.too-large"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bogus = 1\n", "bogus: unknown key; expected one of exclude, ignore, max-depth, max-file-size, max-issues,"),
        ('select = ["nope"]\n', "select: 'nope' is neither a code nor a family (see docs/codes.md)"),
        ('ignore = "schema"\n', "ignore: expected an array of strings"),
        ("strict = 1\n", "strict: expected true or false"),
        ("max-depth = 0\n", "max-depth: expected a whole number of at least 1, found 0"),
        ('max-file-size = "big"\n', "max-file-size: expected a whole number (suffixes K, M, G), found 'big'"),
        ('[per-file-severity]\n"a" = { schema = "loud" }\n',
         "per-file-severity.\"a\".schema: expected one of error, warning, info, ignore, found 'loud'"),
        ('[per-file-severity]\n"a" = { nope = "info" }\n',
         "per-file-severity.\"a\": 'nope' is neither a code nor a family"),
        ("[x\n", ":1: invalid TOML: "),
    ],
)  # fmt: skip
def test_a_configuration_error_exits_2_naming_the_file_and_key(
    project: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    (project / ".agentbeats-spec.toml").write_text(text)
    log = project / "log.sarif"
    assert main(["validate", "inv", "--output", f"sarif:{log}"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not log.exists()
    assert captured.err.startswith(f"agentbeats-spec: error: {project / '.agentbeats-spec.toml'}")
    assert message in captured.err


def test_a_pyproject_error_names_the_table(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text("[tool.agentbeats-spec]\nstrict = 'yes'\n")
    assert main(["validate", "inv"]) == 2
    expected = f"agentbeats-spec: error: {project / 'pyproject.toml'}: [tool.agentbeats-spec] strict: expected true"
    assert capsys.readouterr().err.startswith(expected)


def test_a_missing_config_file_and_a_bad_select_are_usage_errors(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", "--config", "nowhere.toml", "inv"]) == 2
    assert capsys.readouterr().err == "agentbeats-spec: error: no configuration file nowhere.toml\n"
    assert main(["validate", "--select", "schema,bogus", "inv"]) == 2
    assert capsys.readouterr().err == (
        "agentbeats-spec: error: --select: 'bogus' is neither a code nor a family (see docs/codes.md)\n"
    )
