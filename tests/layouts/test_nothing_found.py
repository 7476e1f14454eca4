"""Nothing checked is not a pass, however the folder is named: `.`, `./`, `dir/.`, `..`, a relative path.

The command exits 2 with "no artifact found under PATH" (0 with --allow-empty); the Python API returns a
``layout.nothing-found`` error on the folder (none with ``allow_empty=True``); the Dask path does the same.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentbeats_spec import validate
from agentbeats_spec.cli import main

from ..conftest import FIXTURES, VALID

NOTHING_FOUND = "no artifact found in this folder: nothing checked is not a pass (allow_empty=True accepts it)"


def run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["validate", "--no-cache", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the valid fixtures, an empty folder and an invalid tree beside them; the working folder inside."""
    shutil.copytree(VALID, tmp_path / "valid")
    shutil.copytree(FIXTURES / "invalid" / "abv3-results", tmp_path / "invalid")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.md").write_text("# nothing to check\n")
    monkeypatch.chdir(tmp_path / "valid")
    return tmp_path


@pytest.mark.parametrize("name", [".", "./", "abb/..", "./abb/..", "agentcompass-run/.", "../valid", "abb"])
def test_a_valid_tree_named_any_way_exits_0(tree: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, err = run(capsys, name)
    assert (code, err) == (0, "")
    assert out.startswith("valid: ")


@pytest.mark.parametrize("name", [".", "./", "../invalid/.", "../invalid"])
def test_an_invalid_tree_named_any_way_exits_1(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.chdir(tree / "invalid")
    code, out, err = run(capsys, name)
    assert (code, err) == (1, "")
    assert "\ninvalid: 1 file(s) checked; 2 error(s), 0 warning(s)\n" in out


@pytest.mark.parametrize("name", [".", "./", "../empty/.", "../empty"])
def test_an_empty_folder_named_any_way_exits_2(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    if name in (".", "./"):
        monkeypatch.chdir(tree / "empty")
    code, out, err = run(capsys, name)
    shown = str(Path(name))  # as the user named it, pathlib's spelling: "./" is "."
    assert (code, err) == (2, f"agentbeats-spec: error: no artifact found under {shown} (see --allow-empty)\n")
    assert out == "valid: 0 file(s) checked, 1 other file(s) skipped; 0 error(s), 0 warning(s)\n"
    assert run(capsys, "--allow-empty", name)[::2] == (0, "")


def test_only_the_empty_one_of_two_folders_is_named(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, ".", "../empty")
    assert (code, err) == (2, "agentbeats-spec: error: no artifact found under ../empty (see --allow-empty)\n")


def test_the_python_api_reports_nothing_found_as_an_error_on_the_folder(tree: Path) -> None:
    (issue,) = validate(Path("../empty"))
    assert (issue.file, issue.pointer, issue.line, issue.column, issue.severity, issue.code) == (
        "../empty", "", None, None, "error", "layout.nothing-found"
    )  # fmt: skip
    assert issue.message == NOTHING_FOUND
    assert validate(Path("../empty"), allow_empty=True) == []
    assert validate(Path(".")) == [] and validate(Path("./abb/..")) == []


def test_a_folder_with_issues_but_no_artifact_is_not_nothing_found(tree: Path) -> None:
    """A link or a special file is something found: it is reported, and the folder is no empty pass."""
    (tree / "empty" / "link.json").symlink_to(tree / "valid")
    assert [(i.code, i.severity) for i in validate(tree / "empty")] == [("security.path-escape", "error")]


def test_a_file_named_is_never_nothing_found(tree: Path) -> None:
    assert validate(Path("../empty/notes.md")) != []
    assert "layout.nothing-found" not in {i.code for i in validate(Path("../empty/notes.md"))}
