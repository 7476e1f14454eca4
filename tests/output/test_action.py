"""The GitHub Action (action.yml): its script run as the runner runs it, on a sample repository, with the
GITHUB_* variables set: annotations, the SARIF log, the job summary and the exit code come from one run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft4Validator

from ..conftest import FIXTURES, ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
SCRIPT = ROOT / ".github" / "action" / "run.sh"
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-2.1.0-rtm.5.json").read_text(encoding="utf-8"))


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A sample repository: a valid AgentCompass run and an invalid ABV3 repository."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid" / "agentcompass-run", root / "runs" / "good")
    shutil.copytree(FIXTURES / "invalid" / "abv3-repo", root / "bench")
    return root


def run_action(repository: Path, **inputs: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The composite step as the runner runs it: the inputs as INPUT_* variables, in the repository's checkout."""
    work = repository.parent
    (work / "summary.md").write_text("# before\n")
    env = {
        **os.environ,
        **{
            f"INPUT_{name.upper().replace('-', '_')}": spec.get("default", "")
            for name, spec in ACTION["inputs"].items()
        },
        "INPUT_INSTALL": "false",  # this checkout is importable already (PYTHONPATH); installing is pip's job
        "INPUT_PYTHON": sys.executable,
        "PYTHONPATH": str(ROOT / "src"),
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_STEP_SUMMARY": str(work / "summary.md"),
        "GITHUB_OUTPUT": str(work / "output.txt"),
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "octo-org/bench",
        "GITHUB_SHA": "0123456789abcdef",
        "GITHUB_WORKSPACE": str(repository),  # the checkout, where the step runs (the links' root)
        "RUNNER_TEMP": str(work),
    }
    env.update({f"INPUT_{name.upper().replace('-', '_')}": value for name, value in inputs.items()})
    env.pop("NO_COLOR", None)
    step = ACTION["runs"]["steps"][0]
    assert step["run"] == '"$GITHUB_ACTION_PATH/.github/action/run.sh"'
    result = subprocess.run(
        ["bash", str(SCRIPT)], cwd=repository, env=env, capture_output=True, text=True, check=False, timeout=300
    )
    return result, work


def test_the_step_passes_every_input_to_the_script() -> None:
    assert ACTION["runs"]["using"] == "composite"
    (step,) = ACTION["runs"]["steps"]
    assert step["env"] == {
        f"INPUT_{name.upper().replace('-', '_')}": f"${{{{ inputs.{name} }}}}" for name in ACTION["inputs"]
    }
    assert ACTION["outputs"]["exit-code"]["value"] == "${{ steps.validate.outputs.exit-code }}"


def test_one_run_gives_annotations_sarif_summary_and_the_exit_code(repository: Path) -> None:
    result, work = run_action(repository, paths="runs bench")
    assert result.returncode == 1, result.stderr
    annotations = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert len(annotations) == 10
    assert annotations[0].startswith("::error file=bench/agentbeats.toml,line=1,col=2,title=schema.required::")
    sarif = json.loads((repository / "agentbeats-spec.sarif").read_text(encoding="utf-8"))
    assert list(Draft4Validator(SARIF_SCHEMA).iter_errors(sarif)) == []
    (run,) = sarif["runs"]
    assert len(run["results"]) == 10 and run["invocations"][0]["executionSuccessful"] is True
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bench/agentbeats.toml"
    summary = (work / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("# before\n### agentbeats-spec: invalid\n")  # appended to what the job wrote
    assert "(https://github.com/octo-org/bench/blob/0123456789abcdef/bench/agentbeats.toml#L1)" in summary
    # no link to a host nobody published: the project's metadata names no address (reporting/_links.py)
    assert "agentbeats/agentbeats-spec" not in summary + json.dumps(sarif)
    assert (work / "output.txt").read_text() == "exit-code=1\n"
    assert not list(work.glob("agentbeats-spec-summary-*"))  # the temporary summary is removed


def test_a_valid_repository_passes_and_strict_fails_on_nothing_more(repository: Path) -> None:
    shutil.rmtree(repository / "bench")
    result, work = run_action(repository, strict="true", **{"sarif-file": "out/log.sarif"})
    assert result.returncode == 2 and "cannot write out/log.sarif" in result.stderr  # its folder is missing
    (repository / "out").mkdir()
    result, work = run_action(repository, strict="true", **{"sarif-file": "out/log.sarif"})
    assert result.returncode == 0, result.stderr
    assert json.loads((repository / "out" / "log.sarif").read_text(encoding="utf-8"))["runs"][0]["results"] == []
    assert "### agentbeats-spec: valid" in (work / "summary.md").read_text(encoding="utf-8")


def test_a_missing_path_fails_the_step_with_a_failed_invocation(repository: Path) -> None:
    result, work = run_action(repository, paths="nowhere")
    assert result.returncode == 2
    assert result.stderr.endswith("agentbeats-spec: error: no such file or folder: nowhere\n")
    sarif = json.loads((repository / "agentbeats-spec.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["invocations"][0]["executionSuccessful"] is False
    assert (work / "output.txt").read_text() == "exit-code=2\n"


def test_config_and_args_reach_the_command(repository: Path) -> None:
    (repository / "ci.toml").write_text('select = ["rule"]\n')
    result, _ = run_action(repository, paths="bench", config="ci.toml", args="--ignore rule.misspelled-key")
    assert result.returncode == 0, result.stdout + result.stderr
    assert [line for line in result.stdout.splitlines() if line.startswith("::")] == []


def test_the_readme_workflow_uses_the_action_with_its_inputs(repository: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("# .github/workflows/agentbeats.yml\n", 1)[1].split("```", 1)[0]
    steps = yaml.safe_load(block)["jobs"]["validate"]["steps"]
    (step,) = [step for step in steps if str(step.get("uses", "")).endswith("/agentbeats-spec@REF")]
    assert set(step["with"]) <= set(ACTION["inputs"])
    upload = steps[steps.index(step) + 1]
    assert upload["with"]["sarif_file"] == step["with"]["sarif-file"] and upload["if"] == "always()"
    shutil.rmtree(repository / "bench")  # the run alone, under runs/ as the README names it
    result, _ = run_action(repository, **{name: str(value) for name, value in step["with"].items()})
    assert result.returncode == 0, result.stdout + result.stderr
    assert (repository / step["with"]["sarif-file"]).is_file()


def test_the_configuration_a_checkout_carries_never_counts_unless_config_names_it(repository: Path) -> None:
    """A pull request's checkout is the tree under review: what it says of its own verdict is not read."""
    (repository / ".agentbeats-spec.toml").write_text('exclude = ["**"]\n')
    (repository / "agentbeats-secrets.allow").write_text("# the tree's own allow-list\n")
    result, work = run_action(repository, paths="bench")
    assert result.returncode == 1, result.stderr
    assert len([line for line in result.stdout.splitlines() if line.startswith("::")]) == 10
    assert "configuration" not in result.stderr
    sarif = json.loads((repository / "agentbeats-spec.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["invocations"][0]["properties"] == {"configuration": None}
    assert "No configuration file." in (work / "summary.md").read_text(encoding="utf-8")
    result, work = run_action(repository, paths="bench", config=".agentbeats-spec.toml")
    assert result.returncode == 2  # named, it is read: every path named is excluded
    assert "agentbeats-spec: configuration .agentbeats-spec.toml\n" in result.stderr
