"""The one regenerate command: every generated file is what its generator makes, and a stale one is named.

tools/regenerate.py runs tools/codegen.py, tools/catalog.py and tools/build_js.py in order; ``--check`` fails,
naming each stale file and the command that regenerates it. These tests edit every generated file (and every
generated block of a hand-written file) of a copy of the checkout and expect each to be named.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ..conftest import ROOT

REGENERATE = ROOT / "tools" / "regenerate.py"
# What the generators read besides the files they make: the package (its kind and code tables), the schemas, the
# generators themselves, the npm package's compile script, and the formatter's configuration.
INPUTS = ("src", "schemas", "tools", "js")
SKIPPED = shutil.ignore_patterns("node_modules", "__pycache__", "*.so", "*.egg-info")


@functools.cache
def _codegen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("codegen", ROOT / "tools" / "codegen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _listed(root: Path = ROOT) -> dict[str, str]:
    """The generated files (path from the root: generator), as regenerate.py --list says."""
    result = _run(root, "--list")
    assert result.returncode == 0, result.stderr
    return dict(line.split("\t") for line in result.stdout.splitlines())


def _run(root: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """The copy's regenerate.py, importing the copy's package (its kind table is what the generators read)."""
    environment = {**os.environ, "PYTHONPATH": str(root / "src")}
    return subprocess.run([sys.executable, str(root / "tools" / "regenerate.py"), *arguments], cwd=root,
                          env=environment, capture_output=True, text=True, check=False)  # fmt: skip


@pytest.fixture(scope="module")
def listed() -> dict[str, str]:
    return _listed()


def _checkout_copy(root: Path, listed: dict[str, str]) -> Path:
    for folder in INPUTS:
        shutil.copytree(ROOT / folder, root / folder, ignore=SKIPPED)
    (root / "js" / "node_modules").symlink_to(ROOT / "js" / "node_modules")  # the pinned Ajv, as installed
    shutil.copyfile(ROOT / "pyproject.toml", root / "pyproject.toml")
    for file in listed:
        (root / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / file, root / file)
    return root


def test_the_committed_files_are_what_the_generators_make() -> None:
    result = subprocess.run([sys.executable, str(REGENERATE), "--check"], capture_output=True, text=True,
                            check=False)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == result.stderr == ""


def test_every_generator_makes_files_and_each_file_has_one(listed: dict[str, str]) -> None:
    assert set(listed.values()) == {"tools/codegen.py", "tools/catalog.py", "tools/build_js.py"}
    for file in ("src/agentbeats_spec/models/agentcompass.py", ".pre-commit-hooks.yaml", "docs/api.md",
                 "tests/typed_example.py", "schemas/catalog.json", "docs/codes.md", "js/validators.js"):  # fmt: skip
        assert file in listed


def test_every_generated_file_edited_is_named_stale_with_the_command(tmp_path: Path, listed: dict[str, str]) -> None:
    """Each file is edited where it is generated: a whole file anywhere, a hand-written one inside its blocks (by
    a comment line or a final new line, which leave the package importable: the generators import it)."""
    root = _checkout_copy(tmp_path, listed)
    blocks = _block_files()
    for file in listed:
        path = root / file
        text = path.read_text(encoding="utf-8")
        edited = re.sub(r"(BEGIN GENERATED [^\n]*\n)", r"\1# a stale line\n", text) if file in blocks else text + "\n"
        assert edited != text, file
        path.write_text(edited, encoding="utf-8")
    result = _run(root, "--check")
    assert result.returncode == 1, result.stderr
    named = [line for line in result.stderr.splitlines() if line.startswith("stale: ")]
    assert named == [f"stale: {file} (made by {generator})" for file, generator in listed.items()]
    assert result.stderr.splitlines()[-1] == "regenerate them: python tools/regenerate.py (make generate)"
    for file in listed:
        assert f"--- committed/{file}\n+++ generated/{file}\n" in result.stdout


def test_a_left_over_or_missing_generated_file_is_named(tmp_path: Path, listed: dict[str, str]) -> None:
    root = _checkout_copy(tmp_path, listed)
    (root / "src/agentbeats_spec/models/gone.py").write_text('"""A family that is no more."""\n')
    (root / "schemas/bundled/agentcompass/retry.v0.json").write_text("{}\n")
    (root / "js/schemas/agentcompass/retry.v0.json").write_text("{}\n")
    (root / "js/kinds.js").unlink()
    result = _run(root, "--check")
    assert result.returncode == 1
    assert set(result.stderr.splitlines()) == {
        "stale: js/kinds.js (made by tools/build_js.py)",
        "stale: src/agentbeats_spec/models/gone.py (made by tools/codegen.py)",
        "stale: schemas/bundled/agentcompass/retry.v0.json (made by tools/catalog.py)",
        "stale: js/schemas/agentcompass/retry.v0.json (made by tools/build_js.py)",
        "regenerate them: python tools/regenerate.py (make generate)",
    }
    written = _run(root)
    assert written.returncode == 0, written.stderr
    assert _run(root, "--check").returncode == 0
    assert not (root / "src/agentbeats_spec/models/gone.py").exists()
    assert (root / "js/kinds.js").read_text(encoding="utf-8") == (ROOT / "js/kinds.js").read_text(encoding="utf-8")


def _block_files() -> set[str]:
    return {file for file, _ in _codegen().BLOCKS}


@pytest.mark.parametrize(("file", "block"), list(_codegen().BLOCKS))
def test_each_generated_block_is_made_again_from_the_table(file: str, block: str) -> None:
    """Every block alone: a stale line inside it is replaced by what the kind table makes, the rest is kept."""
    codegen = _codegen()
    text = (ROOT / file).read_text(encoding="utf-8")
    begin = re.search(rf"BEGIN GENERATED {re.escape(block)}(?!\w)[^\n]*\n", text)
    assert begin is not None
    edited = text[: begin.end()] + "a stale fact\n" + text[begin.end() :]
    assert codegen.with_blocks(file, edited) == text


def test_a_block_without_its_markers_is_refused_by_name() -> None:
    codegen = _codegen()
    text = (ROOT / "README.md").read_text(encoding="utf-8").replace("<!-- END GENERATED kinds -->\n", "")
    with pytest.raises(SystemExit, match=r"README\.md: expected one 'BEGIN GENERATED kinds' line, then one 'END"):
        codegen.with_blocks("README.md", text)
