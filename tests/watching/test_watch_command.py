"""`agentbeats-spec watch` in this process: the configuration judged as validate judges it, a run folder waited
for, the status line on a terminal (and only there), and the listing that keeps the previous look."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sys
import threading
from pathlib import Path

import pytest

from agentbeats_spec.cli import main
from agentbeats_spec.watching._watch import _Listing
from tests.conftest import FIXTURES

RUN = FIXTURES / "valid" / "agentcompass-run"


def broken_run(root: Path) -> Path:
    """The valid run with a params.json that is no JSON and an attempt whose status is unknown."""
    shutil.copytree(RUN, root)
    (root / "params.json").write_text("[", encoding="utf-8")
    result = next(root.glob("details/error/*/attempt-1/result.json"))
    text = result.read_text(encoding="utf-8")
    result.write_text(text.replace('"status": "completed"', '"status": "exploded"', 1), encoding="utf-8")
    return root


def issues_of(out: str, format_: str) -> list[tuple[str, str, str]]:
    """(file, code, severity) of each issue a validate --format json or a watch --format jsonl printed."""
    found = json.loads(out)["issues"] if format_ == "json" else [json.loads(line) for line in out.splitlines()]
    return sorted((issue["file"], issue["code"], issue["severity"]) for issue in found)


CONFIGURATIONS = {
    "ignored": '[tool.agentbeats-spec]\nignore = ["json.syntax"]\n',
    "lowered": '[tool.agentbeats-spec]\nignore = ["json"]\n[tool.agentbeats-spec.per-file-severity]\n'
    '"**/attempt-1/result.json" = {schema = "warning"}\n',
    "strict": '[tool.agentbeats-spec]\nstrict = true\nignore = ["json"]\n'
    '[tool.agentbeats-spec.per-file-severity]\n"**/attempt-1/result.json" = {schema = "warning"}\n',
    "selected": '[tool.agentbeats-spec]\nselect = ["schema"]\n',
    "excluded": '[tool.agentbeats-spec]\nexclude = ["details"]\n',
}


@pytest.mark.parametrize("configuration", list(CONFIGURATIONS))
def test_watch_judges_as_validate_with_the_same_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, configuration: str
) -> None:
    """The issue's case: a project's configuration, named or found (from the working folder), and --no-config:
    validate and watch give the same issues, severities and exit code on the same tree."""
    discovered = configuration in ("lowered", "excluded")
    root = broken_run(tmp_path / "run")
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(CONFIGURATIONS[configuration], encoding="utf-8")
    monkeypatch.chdir(project)
    named = [] if discovered else ["--config", str(project / "pyproject.toml")]
    for settings in (named, ["--no-config"]):
        validated = main(["validate", "--no-cache", "--format", "json", str(root), *settings])
        judged = issues_of(capsys.readouterr().out, "json")
        watched = main(["watch", str(root), "--timeout", "0.3", "--format", "jsonl", *settings])
        captured = capsys.readouterr()
        assert (watched, issues_of(captured.out, "jsonl")) == (validated, judged)
        assert ("agentbeats-spec: configuration " in captured.err) == (settings != ["--no-config"])
    assert validated == 1  # without the configuration, the broken run fails


def test_watch_leaves_out_what_the_command_line_says_as_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = broken_run(tmp_path / "run")
    options = ["--no-config", "--ignore", "schema", "--exclude", "params.json"]
    assert main(["watch", str(root), "--timeout", "0.3", "--format", "jsonl", *options]) == 0
    assert capsys.readouterr().out == ""
    assert main(["validate", "--no-cache", str(root), *options]) == 0


def test_a_configuration_another_user_may_write_is_passed_over_as_validate_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = broken_run(tmp_path / "run")
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(CONFIGURATIONS["ignored"], encoding="utf-8")
    (project / "pyproject.toml").chmod(0o666)  # others may write it: not used
    monkeypatch.chdir(project)
    assert main(["watch", str(root), "--timeout", "0.3", "--format", "jsonl"]) == 1
    watched = capsys.readouterr()
    assert main(["validate", "--no-cache", str(root), "--format", "json"]) == 1
    validated = capsys.readouterr()
    assert issues_of(watched.out, "jsonl") == issues_of(validated.out, "json")
    warning = validated.err.splitlines()[0]
    assert "pyproject.toml" in warning and "not used" in warning and watched.err.splitlines()[0] == warning


def test_a_run_folder_made_after_the_watch_began_is_waited_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """AgentCompass makes the run folder itself: a watch started before the harness waits for it, and ends with
    the run (its run_info.json holds a finished_at it did not hold when the watch began: none)."""
    root = tmp_path / "runs" / "nightly"
    timer = threading.Timer(0.3, shutil.copytree, (RUN, root))
    timer.start()
    try:
        status = main(["watch", str(root), "--timeout", "60", "--format", "jsonl"])
    finally:
        timer.join()
    captured = capsys.readouterr()
    assert (status, captured.out) == (0, "")
    assert captured.err == f"agentbeats-spec: waiting for {root} to be made\n"


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("format_", "terminal"),
    [("text", True), ("jsonl", True), ("github", True), ("text", False)],
    ids=["text-terminal", "jsonl-terminal", "github-terminal", "text-log"],
)
def test_the_status_line_is_drawn_on_a_terminal_for_the_text_format_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, format_: str,
    terminal: bool,
) -> None:  # fmt: skip
    root = broken_run(tmp_path / "run")
    stderr = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setenv("COLUMNS", "1000")  # the line is cut to the terminal's width
    assert main(["watch", str(root), "--timeout", "0.5", "--format", format_, "--no-config"]) == 1
    err = stderr.getvalue()
    if terminal and format_ == "text":
        lines = [line for line in err.split("\r") if line.startswith("watching ")]
        assert lines and re.fullmatch(
            rf"watching {re.escape(str(root))}: 2 task\(s\) seen, [0-2] checked, "
            r"[0-2] issue\(s\) so far\x1b\[K",
            lines[-1],
        )
        assert err.endswith("\r\x1b[K" + "agentbeats-spec: watch ended before the run did (--timeout): the report "
                            "is of the run so far\n")  # fmt: skip
    else:
        assert "\r" not in err and "\x1b" not in err
    out = capsys.readouterr().out
    assert "\r" not in out and "\x1b" not in out


def test_the_status_line_counts_the_issues_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the watch has read the run (here, at its end), the line says how many issues it printed."""
    from agentbeats_spec.cli._watch import _Shower
    from agentbeats_spec.watching._watch import Looked

    root = broken_run(tmp_path / "run")
    stderr = Terminal()
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setenv("COLUMNS", "1000")
    assert main(["watch", str(root), "--timeout", "0.3", "--no-config"]) == 1
    printed = [line for line in capsys.readouterr().out.splitlines() if " error " in line]
    assert len(printed) == 2
    arguments = type("Arguments", (), {"format": "text", "path": root, "show_info": False})()
    shower = _Shower(arguments)  # type: ignore[arg-type]
    shower.open = {("one",): 1, ("fixed",): 0, ("two",): 1}
    shower.looked(Looked(tasks=3, checked=2, exists=True))
    assert stderr.getvalue().endswith(f"\rwatching {root}: 3 task(s) seen, 2 checked, 2 issue(s) so far\x1b[K")


# -- the listing a look keeps ----------------------------------------------------------------------------------


def test_a_look_sees_what_was_made_changed_and_removed_and_only_that(tmp_path: Path) -> None:
    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    listing = _Listing(root)
    moved, modified = listing.look()
    assert "" in moved and "run_info.json" in moved and not modified
    assert listing.look() == (set(), set())
    (root / "notes.txt").write_text("made beside the run-level files\n", encoding="utf-8")
    with open(root / "params.json", "a", encoding="utf-8") as stream:  # appended in place
        stream.write(" ")
    task = next(root.glob("details/error/*"))
    shutil.rmtree(task / "attempt-1")
    moved, modified = listing.look()
    assert "notes.txt" in moved and "params.json" in modified
    removed = os.path.relpath(task / "attempt-1", root)
    assert removed in moved and os.path.join(removed, "result.json") in moved


def test_a_change_deep_in_a_folder_is_seen_by_the_sweep(tmp_path: Path) -> None:
    """An in-place rewrite deep in a published task changes no folder: the sweep lstat's every entry in turn."""
    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    listing = _Listing(root)
    listing.look()
    result = next(root.glob("details/error/*/attempt-1/result.json"))
    with open(result, "a", encoding="utf-8") as stream:
        stream.write(" ")
    seen = set()
    for _ in range(len(listing.stats)):  # at most a round of the sweep
        seen |= listing.look()[1]
        if seen:
            break
    assert seen == {os.path.relpath(result, root)}
