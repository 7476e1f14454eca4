"""Everyday options: ``-`` for standard input, ``--quiet``, ``--color auto|always|never`` and ``NO_COLOR``."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentbeats_spec.cli import main

from ..conftest import FIXTURES, INVALID_TOTALS, ROOT, VALID
from ..reading.test_memory import HELD

TRAJECTORY = b'{"schema_version": "ACTF_v1.0", "steps": "x"}\n'
RED, BOLD, RESET = "\x1b[1;31m", "\x1b[1m", "\x1b[0m"


def given_stdin(monkeypatch: pytest.MonkeyPatch, raw: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_dash_reads_one_document_whose_kind_its_content_tells(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    given_stdin(monkeypatch, TRAJECTORY)
    code, out, _ = run(capsys, "validate", "--format", "json", "-")
    assert code == 1 and json.loads(out)["issues"] == [
        {"file": "<stdin>", "kind": "actf-trajectory", "pointer": "/steps", "line": 1, "column": 42,
         "severity": "error", "code": "schema.type", "message": "expected an array, found the string 'x'"},
    ]  # fmt: skip


def test_dash_takes_the_kind_from_the_command_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    given_stdin(monkeypatch, (FIXTURES / "invalid" / "abv3-repo" / "agentbeats.toml").read_bytes())
    code, out, _ = run(capsys, "validate", "--no-context", "--kind", "abv3-repo", "-")
    assert code == 1 and out.startswith("<stdin>:1:2: error schema.required missing required member 'author'")
    assert "invalid: 1 file(s) checked; 10 error(s), 0 warning(s)" in out


def test_dash_with_a_document_no_kind_fits_says_to_pass_kind(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    given_stdin(monkeypatch, b'{"a": 1}')
    code, out, _ = run(capsys, "validate", "--no-context", "-")
    assert code == 1 and out.startswith("<stdin>:1:1: error schema.unknown-kind ")


def test_dash_is_named_alone(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    given_stdin(monkeypatch, TRAJECTORY)
    code, out, err = run(capsys, "validate", "-", str(VALID))
    assert code == 2 and out == ""
    assert err == "agentbeats-spec: error: - (standard input) is one document: name it alone\n"


def test_dash_is_bounded_by_max_file_size(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    given_stdin(monkeypatch, TRAJECTORY)
    code, _, err = run(capsys, "validate", "--max-file-size", "10", "-")
    assert code == 2 and err == "agentbeats-spec: error: standard input holds more than --max-file-size (10 bytes)\n"


def test_dash_is_bounded_at_the_limit_in_steps(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exactly the limit is read; one byte more is refused, however the stream hands its bytes over."""
    given_stdin(monkeypatch, TRAJECTORY)
    code, out, _ = run(capsys, "validate", "--format", "json", "--max-file-size", str(len(TRAJECTORY)), "-")
    assert (code, json.loads(out)["issues"][0]["code"]) == (1, "schema.type")
    given_stdin(monkeypatch, TRAJECTORY + b" ")
    code, _, err = run(capsys, "validate", "--max-file-size", str(len(TRAJECTORY)), "-")
    assert code == 2 and err.startswith("agentbeats-spec: error: standard input holds more than --max-file-size")


def test_standard_input_is_read_without_allocating_the_limit() -> None:
    """``validate -`` asked for --max-file-size (4 GiB) before reading a byte: a 35-byte document exited 3 with
    300 MB of memory to spare. It is read in steps, and takes what it was sent."""
    done = subprocess.run(
        [sys.executable, "-c", HELD, "300", "validate", "--format", "json", "-"],
        input=TRAJECTORY, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=300,
        check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, b""), done.stderr
    assert [issue["code"] for issue in json.loads(done.stdout)["issues"]] == ["schema.type"]


def test_quiet_prints_nothing_on_success_and_only_the_summary_on_failure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(capsys, "validate", "--quiet", str(VALID)) == (0, "", "")
    code, out, _ = run(capsys, "validate", "-q", str(FIXTURES / "invalid"))
    assert code == 1 and out.splitlines()[0] == (f"invalid: {INVALID_TOTALS.summary} (shown with --show-info)")
    assert not any(line.startswith(str(FIXTURES)) for line in out.splitlines())


def test_quiet_leaves_the_output_files_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "validate", "-q", "--color", "always", str(FIXTURES / "invalid"), f"--output=text:{tmp_path / 't'}")
    written = (tmp_path / "t").read_text(encoding="utf-8")
    assert "\x1b[" not in written and written.startswith(str(FIXTURES / "invalid" / "abb-case"))


def test_color_always_paints_severities_codes_and_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "invalid" / "abv3-results" / "results.json"
    _, out, _ = run(capsys, "validate", "--no-context", "--color", "always", str(path))
    lines = out.splitlines()
    assert lines[0].startswith(f"{path}:1:1: {RED}error{RESET} {BOLD}rule.main-metric{RESET} main_metric names")
    assert lines[2] == f"{RED}invalid{RESET}: 1 file(s) checked; 2 error(s), 0 warning(s)"


@pytest.mark.parametrize(
    ("color", "tty", "no_color", "painted"),
    [
        ("auto", True, None, True),
        ("auto", True, "1", False),
        ("auto", False, None, False),
        ("never", True, None, False),
        ("always", False, "1", True),  # the command line outranks the environment (no-color.org)
    ],
)
def test_color_auto_is_a_terminal_without_no_color(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    color: str,
    tty: bool,
    no_color: str | None,
    painted: bool,
) -> None:
    monkeypatch.delenv("TERM", raising=False)
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    _, out, _ = run(capsys, "validate", "--no-context", "--color", color, str(FIXTURES / "invalid" / "abv3-results"))
    assert ("\x1b[" in out) is painted


def test_a_file_name_cannot_colour_the_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "\x1b[32mgreen.json"
    path.write_bytes(TRAJECTORY)
    _, out, _ = run(capsys, "validate", "--no-context", "--color", "always", str(path))
    assert "\x1b[32m" not in out and "\\x1b[32mgreen.json:1:42: " in out
