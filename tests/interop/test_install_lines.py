"""Every install line of the README, of js/README.md and of docs/ works as written, each in a fresh environment.

A pip line runs in a new venv (no site packages), in a copy of the checkout, as the shell runs it, with its
dependencies from the package index (pip's cache serves them where it holds them); then what it installed is
used: `agentbeats-spec validate fixtures/valid` (the README's own line) and what each extra is for. An npm block
runs line by line from a folder holding a copy of the checkout (`agentbeats-spec/`) and a new project
(`my-project/`), and the project then imports the package. Without a reachable index these tests skip, saying
so; tests/interop/test_packaging.py still installs the Install block's lines offline. The hints the package prints
(`pip install ...` in src/) must be among the lines run here.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

import pytest

from ..conftest import ROOT, TASK_DIR

SOURCES = [ROOT / "README.md", ROOT / "js" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
INSTALLS = ("pip install ", "npm install ", "npm pack ")
# Named only to say they do not work: the package is on no registry (the README and js/README.md say so).
NOT_ON_A_REGISTRY = {"pip install agentbeats-spec", "npm install agentbeats-spec"}
COPY_IGNORED = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "node_modules", ".*_cache", ".hypothesis", "__pycache__", "*.so",
    "*.tgz",
)  # fmt: skip


def command_of(line: str) -> str:
    """A line of a code block as a reader copies it: no list dash (YAML), no prompt, no comment."""
    line = line.strip().removeprefix("- ").removeprefix("$ ")
    return re.split(r"\s+#", line, maxsplit=1)[0].strip()


def spans(text: str) -> list[str]:
    """The install commands written inline, in `code spans` outside the code blocks."""
    return [span for span in re.findall(r"`([^`\n]+)`", FENCE.sub("", text)) if span.startswith(INSTALLS)]


@functools.cache
def documented() -> tuple[list[str], list[list[str]]]:
    """(every distinct pip line, every npm block as its sequence of lines) of the sources."""
    pip: list[str] = []
    npm: list[list[str]] = []
    for source in SOURCES:
        text = source.read_text(encoding="utf-8")
        for span in spans(text):
            if span in NOT_ON_A_REGISTRY:
                assert f"`{span}` finds nothing" in text, (source, span)
            elif span not in pip:
                pip.append(span)
        for block in FENCE.findall(text):
            lines = [command_of(line) for line in block.splitlines()]
            for line in lines:
                if line.startswith("pip install ") and line not in pip:
                    pip.append(line)
            sequence = [line for line in lines if re.search(r"(^|&& )npm (install|pack) ", line)]
            if sequence and sequence not in npm:
                npm.append(sequence)
    return pip, npm


def test_the_documented_lines_are_the_ones_expected_and_every_hint_is_among_them() -> None:
    pip, npm = documented()
    assert {"pip install .", "pip install '.[tables]'", "pip install '.[dask]'", "pip install s3fs"} <= set(pip)
    assert [
        line for line in pip if "agentbeats-spec[" in line or re.search(r"install ['\"]?agentbeats-spec", line)
    ] == []
    packed = [block for block in npm if any("npm pack ./js" in line for line in block)]
    assert len(packed) == 1  # the same two lines in both READMEs
    assert all("npm pack ./js" in path.read_text(encoding="utf-8") for path in SOURCES[:2])
    hints = {
        match.group(1)
        for path in sorted((ROOT / "src" / "agentbeats_spec").rglob("*.py"))
        for match in re.finditer(r"(pip install '[^']+'(?: [a-z0-9-]+)*)", path.read_text(encoding="utf-8"))
    }
    assert hints and {hint.partition(" in a checkout")[0] for hint in hints} <= set(pip)


@functools.cache
def index_reachable() -> str | None:
    """Why the index cannot be used (None: it can): one small download, as the lines below will make."""
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", scratch, "--timeout", "20",
             "--retries", "1", "iniconfig"],
            capture_output=True, text=True, check=False, timeout=120,
        )  # fmt: skip
    return None if done.returncode == 0 else f"no package index reachable: {done.stderr.strip()[-200:]}"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the checkout as a clone holds it (what git ignores left out), where the lines run."""
    copy = tmp_path / "agentbeats-spec"
    shutil.copytree(ROOT, copy, ignore=COPY_IGNORED)
    return copy


def probes(line: str, python: Path) -> list[list[str]]:
    """What a line installed, used: each command must exit 0."""
    bin_ = python.parent
    if line == "pip install check-jsonschema":
        return [[str(bin_ / "check-jsonschema"), "--version"]]
    if line == "pip install s3fs":
        return [[str(python), "-c", "import s3fs, fsspec; fsspec.filesystem('s3', anon=True)"]]
    used = [[str(bin_ / "agentbeats-spec"), "validate", "--no-config", "fixtures/valid"]]
    if "[tables]" in line:
        script = (
            "import agentbeats_spec as a; t = a.attempts_table('fixtures/valid/agentcompass-run'); assert t.num_rows"
        )
        used.append([str(python), "-c", script])
    if "[dask]" in line:
        used.append([str(bin_ / "agentbeats-spec"), "validate", "--dask", "local", "--jobs", "1", "fixtures/valid"])
    return used


@pytest.mark.parametrize("line", documented()[0])
def test_a_pip_line_installs_what_it_says_in_a_fresh_environment(line: str, checkout: Path, tmp_path: Path) -> None:
    reason = index_reachable()
    if reason:
        pytest.skip(reason)
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(environment)
    python = environment / "bin" / "python"
    path = f"{environment / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    shell = {**os.environ, "PATH": path, "VIRTUAL_ENV": str(environment), "PYTHONNOUSERSITE": "1"}
    shell.pop("PYTHONPATH", None)
    command = line.replace("REPO_URL", f"file://{checkout}")
    if "dist/" in command:  # the wheel, built by the command its comment gives
        run(["pip", "wheel", "--quiet", "--no-deps", "-w", "dist", "."], checkout, shell)
    if "git+" in command:
        for git in (
            ["init", "--quiet"],
            ["add", "-A"],
            ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "t"],
        ):
            run(["git", *git], checkout, shell)
    run(["bash", "-c", command], checkout, shell)
    for probe in probes(line, python):
        run(probe, checkout, shell)


def run(argv: list[str], folder: Path, environment: dict[str, str]) -> None:
    done = subprocess.run(argv, cwd=folder, env=environment, capture_output=True, text=True, timeout=900, check=False)
    output = "\n".join(line for line in (done.stdout + done.stderr).splitlines() if "Location 'file:" not in line)
    assert done.returncode == 0, f"{shlex.join(argv)} exited {done.returncode}:\n{output[-3000:]}"


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
@pytest.mark.parametrize("block", documented()[1], ids=lambda block: " / ".join(block)[:60])
def test_an_npm_block_installs_what_it_says(block: list[str], checkout: Path, tmp_path: Path) -> None:
    """The npm package's block from the folder holding the checkout and a new project, then imported there; the
    schema section's ajv-cli line in the checkout, then its documented command run on the valid fixtures."""
    done = subprocess.run(["npm", "view", "ajv@8", "version"], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        pytest.skip(f"the npm registry is not reachable: {done.stderr.strip()[-200:]}")
    if any("npm pack ./js" in line for line in block):
        project = tmp_path / "my-project"
        project.mkdir()
        (project / "package.json").write_text(json.dumps({"name": "my-project", "private": True, "type": "module"}))
        for line in block:
            run(["bash", "-c", line], tmp_path, dict(os.environ))
        imports_the_package(project)
        return
    (line,) = block
    assert "ajv-cli" in line
    run(["bash", "-c", line], checkout, dict(os.environ))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (documented_run,) = [command_of(line) for line in readme.splitlines() if line.startswith("npx ajv-cli ")]
    argv = shlex.split(documented_run)
    argv[argv.index("-d") + 1] = "fixtures/valid/**/attempt-*/result.json"
    run(argv, checkout, dict(os.environ))


def imports_the_package(project: Path) -> None:
    attempt = (TASK_DIR / "attempt-2" / "result.json").read_text(encoding="utf-8")
    script = (
        'import { validate } from "agentbeats-spec";\n'
        f"const valid = validate('agentcompass-attempt', {attempt});\n"
        "const broken = validate('agentcompass-task', {});\n"
        "console.log(JSON.stringify([valid.length, broken.map((issue) => issue.code)]));\n"
    )
    (project / "probe.mjs").write_text(script, encoding="utf-8")
    used = subprocess.run(["node", "probe.mjs"], cwd=project, capture_output=True, text=True, timeout=120)
    assert used.returncode == 0, used.stderr
    assert json.loads(used.stdout) == [0, ["schema.required"] * 3]
    assert (project / "node_modules" / "agentbeats-spec" / "schemas" / "catalog.json").is_file()
