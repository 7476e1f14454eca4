"""pre-commit, for real: installed from PyPI into a venv of the test's own, running the README's snippets on a
sample repository. The hooks' environment is built by pre-commit from this repository (pip, through the
registry), as it is for a user. Needs the network to PyPI (CI has it); every step is bounded in time."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest
import yaml

from ..conftest import ROOT, TASK_DIR, VALID

README = (ROOT / "README.md").read_text(encoding="utf-8")
CLONE = "REPO_URL"  # the README's one placeholder for this repository


def readme_block(language: str, first_line: str) -> str:
    match = re.search(rf"```{language}\n({re.escape(first_line)}.*?)```", README, re.DOTALL)
    assert match, first_line
    return match.group(1)


@pytest.fixture(scope="module")
def pre_commit(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    if shutil.which("git") is None:
        pytest.fail("git is needed to run pre-commit")
    home = tmp_path_factory.mktemp("pre-commit")
    venv.create(home / "venv", with_pip=True)
    python = home / "venv" / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "pre-commit"],
                   check=True, timeout=300)  # fmt: skip
    return [str(python), "-m", "pre_commit"]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One PRE_COMMIT_HOME for the module: the hooks' environment (this repository at its HEAD, pip-installed) is
    built once, not once a test (each build took a minute or more of the suite's budget)."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A repository with an ABV3 self-description and an AgentCompass attempt result, committed, beside files of
    another project that share an artifact's name (and would fail if they were checked)."""
    repo = tmp_path / "sample"
    shutil.copytree(VALID / "abv3-repo", repo)
    attempt = repo / "runs" / "details" / "error" / "t" / "attempt-1" / "result.json"
    attempt.parent.mkdir(parents=True)
    shutil.copy(TASK_DIR / "attempt-2" / "result.json", attempt)
    shutil.copy(VALID / "actf" / "trajectory.json", repo / "runs" / "t.actf.json")  # told by its content
    for unrelated in ("web/task.json", "web/results.json", "web/fixtures/case.json"):
        (repo / unrelated).parent.mkdir(parents=True, exist_ok=True)
        (repo / unrelated).write_text('{"title": "not an artifact"}\n')
    git(repo, "init", "--quiet")
    git(repo, "add", "-A")
    return repo


def git(repo: Path, *arguments: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *arguments], cwd=repo, check=True,
                   timeout=60)  # fmt: skip


def run(command: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    environment.pop("VIRTUAL_ENV", None)
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, env=environment)


def break_attempt(repo: Path) -> None:
    path = repo / "runs" / "details" / "error" / "t" / "attempt-1" / "result.json"
    data = json.loads(path.read_text())
    data["status"] = "done"
    path.write_text(json.dumps(data))


def test_the_readme_config_installs_and_runs_the_hooks(pre_commit: list[str], sample: Path, home: Path) -> None:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    config = readme_block("yaml", "# .pre-commit-config.yaml")
    config = config.replace(CLONE, str(ROOT)).replace("<tag or commit>", head.stdout.strip())
    assert [hook["id"] for hook in yaml.safe_load(config)["repos"][0]["hooks"]] == ["agentbeats-spec"]
    (sample / ".pre-commit-config.yaml").write_text(config)
    git(sample, "add", "-A")
    done = run([*pre_commit, "run", "--all-files"], sample, home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"agentbeats-spec \(every artifact\)\.+Passed", done.stdout)
    verbose = run([*pre_commit, "run", "--all-files", "--verbose", "agentbeats-spec"], sample, home)
    assert "valid: " not in verbose.stdout  # --quiet-valid: a passing run prints nothing
    break_attempt(sample)
    failed = run([*pre_commit, "run", "--all-files"], sample, home)
    assert failed.returncode == 1
    assert re.search(r"agentbeats-spec \(every artifact\)\.+Failed", failed.stdout)
    assert "runs/details/error/t/attempt-1/result.json:1:12: error schema.enum expected one of" in failed.stdout
    assert "web/" not in failed.stdout
    # one run of the hook (require_serial) was given the artifacts (agentbeats.toml, two experiment results, the
    # attempt, the trajectory), nothing of web/: one verdict
    assert re.findall(r"^(?:in)?valid: .*$", failed.stdout, re.MULTILINE) == [
        "invalid: 5 file(s) checked; 1 error(s), 0 warning(s)"
    ], failed.stdout


def test_a_list_pre_commit_splits_into_runs_prints_only_the_failing_runs_verdict(
    pre_commit: list[str], sample: Path, home: Path
) -> None:
    """More files than one command line holds (pre-commit's limit is 128 KiB on POSIX): pre-commit runs the hook
    several times; the one run that fails prints its issues and its verdict, the others nothing."""
    trajectory = (sample / "runs" / "t.actf.json").read_bytes()
    folder = sample / "runs" / ("x" * 120)
    folder.mkdir()
    for number in range(1200):  # about 160 KB of paths
        (folder / f"{number:05d}.actf.json").write_bytes(trajectory)
    (sample / "runs" / "t.actf.json").write_bytes(trajectory.replace(b'"ACTF_v1.0"', b'"ACTF_v9"', 1))
    git(sample, "add", "-A")
    argv = [*pre_commit, "try-repo", str(ROOT), "actf-trajectory", "--all-files", "--verbose"]
    failed = run(argv, sample, home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    verdicts = re.findall(r"^(?:in)?valid: .*$", failed.stdout, re.MULTILINE)
    assert len(verdicts) == 1 and verdicts[0].startswith("invalid: "), failed.stdout
    checked = int(verdicts[0].split()[1])
    assert 1 <= checked < 1201  # the failing run had part of the list: the others ran, silent
    assert "runs/t.actf.json:" in failed.stdout


def test_the_readme_try_repo_command_runs(pre_commit: list[str], sample: Path, home: Path) -> None:
    command = readme_block("sh", "pre-commit try-repo").split()
    assert command[:3] == ["pre-commit", "try-repo", CLONE]
    argv = [*pre_commit, "try-repo", str(ROOT), *command[3:]]
    done = run(argv, sample, home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"agentbeats-spec \(every artifact\)\.+Passed", done.stdout)
    break_attempt(sample)
    failed = run(argv, sample, home)
    assert failed.returncode == 1
    assert "runs/details/error/t/attempt-1/result.json:1:12: error schema.enum expected one of" in failed.stdout


def test_the_trajectory_hook_checks_actf_files_only(pre_commit: list[str], sample: Path, home: Path) -> None:
    argv = [*pre_commit, "try-repo", str(ROOT), "actf-trajectory", "--all-files", "--verbose"]
    done = run(argv, sample, home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"ACTF trajectories \(\*\.actf\.json\)\.+Passed", done.stdout)
    trajectory = sample / "runs" / "t.actf.json"
    trajectory.write_text(trajectory.read_text().replace('"ACTF_v1.0"', '"ACTF_v9"', 1))
    failed = run(argv, sample, home)
    assert failed.returncode == 1, failed.stdout
    assert "runs/t.actf.json:" in failed.stdout
