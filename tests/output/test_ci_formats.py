"""CI output formats (GitHub workflow commands, SARIF 2.1.0), pre-commit hooks and the README's CI examples."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import xmlschema
import yaml
from jsonschema import Draft4Validator

from agentbeats_spec.cli import main

from ..conftest import FIXTURES, INVALID_TOTALS, ROOT, VALID

JUNIT_SCHEMA = xmlschema.XMLSchema10(ROOT / "tests" / "data" / "junit-10.xsd")
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-2.1.0-rtm.5.json").read_text(encoding="utf-8"))
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
README = (ROOT / "README.md").read_text(encoding="utf-8")
CLI = [sys.executable, "-m", "agentbeats_spec"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_github_format_is_one_workflow_command_per_issue(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "validate", "--format", "github", str(FIXTURES / "invalid"))
    commands = [line for line in out.splitlines() if line.startswith("::")]
    assert code == 1 and len(commands) == INVALID_TOTALS.issues
    first = commands[0]
    assert re.match(r"^::error file=[^,]+verify\.case\.json,line=5,col=15,title=schema\.minimum::expected", first)
    assert any(line.startswith("::warning ") for line in commands)
    assert re.search(r"^::notice file=[^,]+trajectory\.json,line=6,col=16,title=rule\.empty-object-list::", out, re.M)


def test_github_format_escapes_what_the_runner_would_misread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a,b:c%.json"
    path.write_text('{"schema_version": "ACTF_v1.0", "steps": "x\\ny"}')
    _, out = run(capsys, "validate", "--format", "github", "--kind", "actf-trajectory", str(path))
    line = next(line for line in out.splitlines() if line.startswith("::"))
    assert "a%2Cb%3Ac%25.json" in line and "\n" not in line


def test_sarif_output_follows_the_sarif_2_1_0_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "validate", "--format", "sarif", str(FIXTURES / "invalid"), str(VALID))
    document = json.loads(out)
    errors = sorted(Draft4Validator(SARIF_SCHEMA).iter_errors(document), key=str)
    assert errors == []
    (run_,) = document["runs"]
    rules = run_["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == sorted({result["ruleId"] for result in run_["results"]})
    assert all(rule["shortDescription"]["text"] for rule in rules)
    located = [r for r in run_["results"] if "region" in r["locations"][0]["physicalLocation"]]
    assert located and all(r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1 for r in located)
    assert run_["columnKind"] == "unicodeCodePoints"
    assert code == 1


def test_sarif_for_a_valid_tree_has_no_results(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "validate", "--format", "sarif", str(VALID))
    document = json.loads(out)
    assert code == 0 and document["runs"][0]["results"] == []
    assert list(Draft4Validator(SARIF_SCHEMA).iter_errors(document)) == []


def select(hook: dict[str, Any], root: Path) -> list[str]:
    """The files pre-commit would pass to a hook: paths relative to the repository, matched by `files`."""
    pattern = re.compile(hook["files"])
    return sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file() and pattern.search(path.relative_to(root).as_posix())
    )


def run_hook(hook: dict[str, Any], root: Path) -> tuple[int, list[str]]:
    files = select(hook, root)
    entry = shlex.split(hook["entry"])
    assert entry[0] == "agentbeats-spec"
    result = subprocess.run([*CLI, *entry[1:], *hook.get("args", []), *files], cwd=root, capture_output=True,
                            text=True, check=False)  # fmt: skip
    return result.returncode, files


# No fixture is named *.actf.json, the name the trajectory hook selects: tests/interop/test_precommit.py runs it.
FIXTURE_HOOKS = [hook for hook in HOOKS if hook["id"] != "actf-trajectory"]


@pytest.mark.parametrize("hook", FIXTURE_HOOKS, ids=lambda hook: hook["id"])
def test_each_hook_passes_the_valid_files_it_selects(hook: dict[str, Any]) -> None:
    code, files = run_hook(hook, VALID)
    assert files, f"{hook['id']} selects no valid fixture"
    assert code == 0


@pytest.mark.parametrize("hook", FIXTURE_HOOKS, ids=lambda hook: hook["id"])
def test_each_hook_fails_on_the_invalid_files_it_selects(hook: dict[str, Any]) -> None:
    code, files = run_hook(hook, FIXTURES / "invalid")
    assert files, f"{hook['id']} selects no invalid fixture"
    assert code == 1


def test_every_hook_runs_once_per_commit_and_a_passing_run_says_nothing() -> None:
    """pre-commit splits the files among parallel runs of a hook unless ``require_serial``; then only a list past
    its command-line limit is split, and --quiet-valid keeps a passing run silent: one verdict per failing run."""
    for hook in HOOKS:
        assert hook["require_serial"] is True, hook["id"]
        assert shlex.split(hook["entry"])[-1] == "--quiet-valid", hook["id"]


def test_of_two_runs_of_a_hook_only_the_failing_one_prints_its_verdict(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (hook,) = (hook for hook in HOOKS if hook["id"] == "agentbeats-spec")
    entry = shlex.split(hook["entry"])[1:]
    monkeypatch.chdir(FIXTURES)
    assert main([*entry, "invalid/abv3-results/results.json"]) == 1  # the first batch
    assert main([*entry, "valid/abv3-repo/agentbeats.toml"]) == 0  # the second
    out = capsys.readouterr().out
    verdicts = [line for line in out.splitlines() if re.match(r"(in)?valid: ", line)]
    assert verdicts == ["invalid: 1 file(s) checked; 2 error(s), 0 warning(s)"], out
    assert out.startswith("invalid/abv3-results/results.json:1:1: error rule.main-metric ")
    # the same passing run without --quiet-valid says so
    assert main([arg for arg in entry if arg != "--quiet-valid"] + ["valid/abv3-repo/agentbeats.toml"]) == 0
    assert capsys.readouterr().out.startswith("valid: 1 file(s) checked")


def test_the_hooks_cover_every_family() -> None:
    assert {hook["id"] for hook in HOOKS} == {
        "agentbeats-toml", "abv3-results", "abb-case", "agentcompass-task", "agentcompass-attempt",
        "agentcompass-retry", "agentcompass-task-detail", "agentcompass-run-info", "actf-trajectory", "agentbeats-spec",
    }  # fmt: skip


def readme_block(marker: str) -> Any:
    match = re.search(r"```yaml\n(# " + re.escape(marker) + r"\n.*?)```", README, re.DOTALL)
    assert match, marker
    return yaml.safe_load(match.group(1))


def test_the_readme_gitlab_job_runs_and_writes_junit(tmp_path: Path) -> None:
    job = readme_block(".gitlab-ci.yml")["agentbeats-spec"]
    commands = [command for command in job["script"] if command.startswith("agentbeats-spec")]
    assert len(commands) == 1 and job["artifacts"]["reports"]["junit"] == "agentbeats-spec.xml"
    shutil.copytree(VALID / "agentcompass-run", tmp_path / "runs")
    shell = commands[0].replace("agentbeats-spec", shlex.join(CLI), 1)
    result = subprocess.run(shell, shell=True, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("valid: ")
    JUNIT_SCHEMA.validate(str(tmp_path / "agentbeats-spec.xml"))
