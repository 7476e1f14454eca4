"""The ABV3-L1 repository layout and the check-l1 command."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agentbeats_spec import validate
from agentbeats_spec.cli import main

from ..conftest import VALID


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    target = tmp_path / "repo"
    shutil.copytree(VALID / "abv3-repo", target)
    return target


def found(repo: Path) -> set[tuple[str, str, str, str]]:
    return {(i.code, os.path.relpath(i.file or "", repo), i.pointer, i.severity) for i in validate(repo)}


def rewrite(repo: Path, old: str, new: str) -> None:
    path = repo / "agentbeats.toml"
    path.write_text(path.read_text().replace(old, new))


def test_the_valid_repository_is_clean(repo: Path) -> None:
    assert validate(repo) == []


def test_declared_folders_exist(repo: Path) -> None:
    shutil.rmtree(repo / "run_configs")
    shutil.rmtree(repo / "results")
    assert found(repo) == {
        ("layout.missing-folder", "agentbeats.toml", "/run_configs/folder", "error"),
        ("layout.missing-folder", "agentbeats.toml", "/results/folder", "error"),
    }


def test_the_logo_file_exists(repo: Path) -> None:
    (repo / "logo.svg").unlink()
    assert found(repo) == {("layout.missing-file", "agentbeats.toml", "/abv3_repo/logo_file", "error")}


def test_run_configs_hold_experiment_folders_with_configs_and_nothing_nested(repo: Path) -> None:
    (repo / "run_configs" / "loose.json").write_text("{}")
    (repo / "run_configs" / "empty").mkdir()
    (repo / "run_configs" / "default" / "nested").mkdir()
    assert found(repo) >= {
        ("layout.not-an-experiment", "run_configs/loose.json", "", "error"),
        ("layout.empty-experiment", "run_configs/empty", "", "error"),
        ("layout.nested-run-config", "run_configs/default/nested", "", "error"),
    }


def test_repository_files_are_not_experiments(repo: Path) -> None:
    """A README, a LICENSE and dotfiles sit in run_configs/ in real repositories: no error, at most info."""
    (repo / "run_configs" / "README.md").write_text("# Run configs\n")
    (repo / "run_configs" / "LICENSE").write_text("MIT\n")
    (repo / "run_configs" / ".gitkeep").write_text("")
    (repo / "run_configs" / ".cache").mkdir()
    (repo / "run_configs" / "default" / ".gitkeep").write_text("")
    (repo / "results" / "README.md").write_text("# Results\n")
    (repo / "results" / ".gitkeep").write_text("")
    assert found(repo) == {
        ("layout.not-an-experiment", "run_configs/README.md", "", "info"),
        ("layout.not-an-experiment", "run_configs/LICENSE", "", "info"),
        ("layout.unexpected-entry", "results/README.md", "", "info"),
    }
    issue = next(i for i in validate(repo) if i.file and i.file.endswith("LICENSE"))
    assert (issue.line, issue.message) == (None, "documentation, not an experiment; skipped")


def test_an_experiment_holding_only_a_dotfile_is_empty(repo: Path) -> None:
    (repo / "run_configs" / "empty").mkdir()
    (repo / "run_configs" / "empty" / ".gitkeep").write_text("")
    assert found(repo) == {("layout.empty-experiment", "run_configs/empty", "", "error")}


def test_default_exp_is_an_experiment(repo: Path) -> None:
    rewrite(repo, 'default_exp = "default"', 'default_exp = "main"')
    assert found(repo) == {("layout.missing-default-exp", "agentbeats.toml", "/run_configs/default_exp", "error")}


def test_without_default_exp_the_default_folder_should_exist(repo: Path) -> None:
    rewrite(repo, 'default_exp = "default"', "")
    shutil.rmtree(repo / "run_configs" / "default")
    shutil.rmtree(repo / "results" / "default")
    assert found(repo) == {("layout.missing-default-exp", "agentbeats.toml", "/run_configs/default_exp", "warning")}


def test_without_run_configs_results_go_to_results_default(repo: Path) -> None:
    rewrite(repo, '[run_configs]\nfolder = "./run_configs"\ndefault_exp = "default"\n', "")
    assert found(repo) == {("layout.orphan-results", "results/ablation", "", "warning")}


def test_each_experiment_result_is_validated(repo: Path) -> None:
    (repo / "results" / "default" / "results.json").write_text('{"count": 3, "main_metric": "acc"}')
    assert found(repo) == {("rule.main-metric", "results/default/results.json", "/acc", "error")}


def test_a_result_without_its_experiment_is_a_warning(repo: Path) -> None:
    shutil.copytree(repo / "results" / "ablation", repo / "results" / "old")
    assert found(repo) == {("layout.orphan-results", "results/old", "", "warning")}


def test_check_l1_prints_a_summary_per_check(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-l1", str(repo)]) == 0
    out = capsys.readouterr().out
    for check in ("self-description", "dependencies", "run configs", "results"):
        assert f"{check}" in out
    rewrite(repo, "required = true", 'required = "yes"')
    (repo / "run_configs" / "loose.json").write_text("{}")
    assert main(["check-l1", "--no-context", str(repo)]) == 1
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert "1 error" in lines["dependencies"] and "1 error" in lines["run"] and "ok" in lines["self-description"]


def test_check_l1_needs_an_agentbeats_toml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-l1", str(tmp_path)]) == 1
    assert "agentbeats.toml" in capsys.readouterr().out


@pytest.mark.parametrize("output_format", ["json", "github", "sarif"])
def test_check_l1_speaks_validates_ci_formats(
    repo: Path, capsys: pytest.CaptureFixture[str], output_format: str
) -> None:
    rewrite(repo, "required = true", 'required = "yes"')
    assert main(["check-l1", "--format", output_format, str(repo)]) == 1
    l1 = capsys.readouterr().out
    assert main(["validate", "--format", output_format, str(repo)]) == 1
    assert l1 == capsys.readouterr().out  # the same report, in the same words, as validate gives
    if output_format == "json":
        [issue] = json.loads(l1)["issues"]
        assert (issue["code"], issue["pointer"], issue["line"], issue["severity"]) == (
            "schema.type", "/dependency/openai_api_key/required", 24, "error"
        )  # fmt: skip
    elif output_format == "github":
        assert l1.startswith(f"::error file={repo / 'agentbeats.toml'},line=24,col=")
    else:
        result = json.loads(l1)["runs"][0]["results"][0]
        assert (result["ruleId"], result["locations"][0]["physicalLocation"]["region"]["startLine"]) == (
            "schema.type", 24
        )  # fmt: skip
