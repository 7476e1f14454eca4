"""The copies of the kind table: tools/codegen.py makes them; its --check fails, naming the file, when one is stale."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT

CODEGEN = ROOT / "tools" / "codegen.py"
# What the generator writes whole, and the hand-written files it keeps a block of: the kind table's copies.
GENERATED = [
    "docs/editors/vscode-settings.json",
    "src/agentbeats_spec/records/_versions.py",
    "src/agentbeats_spec/_api.py",
    "README.md",
    "tests/api/test_api.py",
    "tests/interop/test_editors.py",
]


def _checkout_copy(root: Path) -> Path:
    """The generated files and the models, copied into a folder laid out as the checkout is."""
    for file in GENERATED:
        (root / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / file, root / file)
    shutil.copytree(ROOT / "src" / "agentbeats_spec" / "models", root / "src" / "agentbeats_spec" / "models")
    return root


def _check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CODEGEN), "--check", "--root", str(root)],
                          capture_output=True, text=True, check=False)  # fmt: skip


def test_a_copy_of_the_committed_files_is_what_the_table_makes(tmp_path: Path) -> None:
    result = _check(_checkout_copy(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == result.stderr == ""


@pytest.mark.parametrize(
    ("file", "line", "edited"),
    [
        ("docs/editors/vscode-settings.json", '"url": "./.schemas/retry.v1.json"', '"url": "./.schemas/retry.v2.json"'),
        ("src/agentbeats_spec/records/_versions.py", 'TASK_V2 = "agentcompass.task.v2"', 'TASK_V2 = "v2"'),
        ("src/agentbeats_spec/_api.py", '"abb-case"], *, limits: Limits | None = None) -> VerifyCase: ...',
         '"abb-case"], *, limits: Limits | None = None) -> Trajectory: ...'),
        ("README.md", "| `abb-case` | ABB bug case", "| `abb-case` | an ABB bug case"),
        ("tests/api/test_api.py", '    "abb-case",\n', ""),
        ("tests/interop/test_editors.py", '"./.schemas/task.v3.json": "agentcompass-task",\n', ""),
    ],
)  # fmt: skip
def test_the_drift_check_names_a_stale_file_and_the_command_that_regenerates_it(
    tmp_path: Path, file: str, line: str, edited: str
) -> None:
    root = _checkout_copy(tmp_path)
    text = (root / file).read_text(encoding="utf-8")
    assert text.count(line) == 1
    (root / file).write_text(text.replace(line, edited), encoding="utf-8")
    result = _check(root)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"stale: {file} (not what the schemas and the kind table make)",
        "regenerate them: python tools/codegen.py",
    ]
    assert f"--- committed/{file}\n+++ generated/{file}\n" in result.stdout
    added = [each for each in result.stdout.splitlines() if each.startswith("+") and not each.startswith("+++")]
    assert any(line.strip() in each for each in added), result.stdout  # the line as the table makes it


def test_a_block_without_its_markers_is_refused_by_name(tmp_path: Path) -> None:
    root = _checkout_copy(tmp_path)
    readme = root / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8").replace("<!-- END GENERATED kinds -->\n", ""))
    result = _check(root)
    assert result.returncode == 1
    assert result.stderr == "README.md: expected one 'BEGIN GENERATED kinds' line, then one 'END GENERATED kinds'\n"


def test_regenerating_a_stale_copy_makes_it_pass_again(tmp_path: Path) -> None:
    root = _checkout_copy(tmp_path)
    api = root / "src" / "agentbeats_spec" / "_api.py"
    api.write_text(api.read_text(encoding="utf-8").replace("-> VerifyCase: ...", "-> Trajectory: ..."))
    assert _check(root).returncode == 1
    written = subprocess.run([sys.executable, str(CODEGEN), "--root", str(root)], capture_output=True, text=True,
                             check=False)  # fmt: skip
    assert written.returncode == 0, written.stderr
    assert _check(root).returncode == 0
    assert api.read_text(encoding="utf-8") == (ROOT / "src" / "agentbeats_spec" / "_api.py").read_text("utf-8")
