"""Nothing a name or a value holds can inject: every command, every format, on a tree of hostile names.

The names (and member names and values inside the files) hold ESC sequences, newlines, a fake GitHub workflow
command, the line separator U+2028, a bidirectional override and bytes that are not UTF-8. Whatever the command
prints, on stdout or stderr, no line may hold a control character, a separator or a bidirectional control (the
format's own newlines aside), and no line may start with ``::`` unless it is a workflow command the GitHub
reporter wrote.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import attrs
import pytest

from agentbeats_spec.checking import _kinds
from agentbeats_spec.cli import main
from agentbeats_spec.reporting._formats import REPORTERS

from ..conftest import FIXTURES, ROOT, VALID

HOSTILE = [
    "esc\x1b[31mred\x1b[0m",
    "new\nline",
    "::error file=x,line=1::fake",
    "carriage\rreturn",
    "sep\u2028ar\u2029",
    "bidi\u202etxt.exe\u202c\u2066\u200f\u061c",
    "c1\x85\x9b",
    os.fsdecode(b"caf\xe9-\xff"),
]
WORST = "w\x1b]0;title\x07\n::error file=a::b\u2028\u202e" + os.fsdecode(b"\xe9")

# Every character no output line may hold (the newline ends lines; surrogates would be bytes that are not UTF-8).
FORBIDDEN = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
WORKFLOW_COMMAND = re.compile(
    r"::(error|warning|notice) file=[^:,]*(,line=[0-9]+,col=[0-9]+)?,title=[a-z0-9.-]+::"
    r"|::notice title=[a-z0-9.-]+::[0-9]+ more "  # the annotations of a code past the cap, counted
)
FORMATS = list(REPORTERS)  # a new output format is held to the same escaping


def hostile_document() -> str:
    """An invalid ACTF trajectory whose member names and values are hostile too, with a secret in it."""
    data = json.loads((FIXTURES / "invalid" / "actf-trajectory" / "trajectory.json").read_text(encoding="utf-8"))
    data[WORST] = WORST
    data["api_key"] = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0"
    data["steps"][0]["assistant_content"]["content"] = WORST + " Bearer abcdefghijklmnopqrstuvwxyz012345"
    return json.dumps(data, indent=2)  # written with escapes: the file's own bytes are plain


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    for number, name in enumerate(HOSTILE):
        folder = root / f"d{number}{name}"
        folder.mkdir(parents=True)
        (folder / f"{name}.json").write_text(hostile_document(), encoding="utf-8")
        (folder / f"{name}.trajectory.json").write_text("{\n  " + json.dumps(name) + ": [1,,]\n}\n")
    (root / f"link{WORST}").symlink_to(tmp_path)
    return root


def check_lines(out: str, *, github: bool = False) -> None:
    for line in out.split("\n"):
        found = FORBIDDEN.search(line)
        assert found is None, f"{found.group()!r} in {line!r}"
        if line.startswith("::"):
            assert github and WORKFLOW_COMMAND.match(line), line


def run(capsys: pytest.CaptureFixture[str], arguments: list[str]) -> tuple[int, str, str]:
    try:
        status = main(arguments)
    except SystemExit as error:  # argparse's usage errors
        status = int(error.code or 0)
    out, err = capsys.readouterr()
    check_lines(out, github="github" in arguments)
    check_lines(err)
    return status, out, err


@pytest.mark.parametrize("format_", FORMATS)
@pytest.mark.parametrize("command", ["validate", "scan"])
def test_validate_and_scan_show_hostile_names_escaped(
    tree: Path, capsys: pytest.CaptureFixture[str], command: str, format_: str
) -> None:
    extra = ["--secrets", "--jobs", "1", "--no-cache"] if command == "validate" else []
    grouped = run(capsys, [command, "--format", format_, *extra, str(tree)])  # its lines are checked too
    status, out, _ = run(capsys, [command, "--format", format_, "--no-group", *extra, str(tree)])  # every name
    assert status == grouped[0] == 1
    if format_ == "text":
        assert "esc\\x1b[31mred" in out and "new\\x0aline" in out and "sep\\u2028ar" in out and "caf\\xe9-\\xff" in out
        assert "bidi\\u202etxt.exe" in out
    if format_ == "json":
        document = json.loads(out)  # still JSON, whose strings hold the same characters, escaped
        assert any("sep\u2028ar\u2029" in issue["file"] for issue in document["issues"])
    if format_ == "sarif":
        json.loads(out)
        assert "sep%E2%80%A8ar%E2%80%A9" in out  # URIs are percent-encoded from the name's bytes
    if format_ == "github":
        assert any(line.startswith("::error file=") for line in out.split("\n"))


def test_validate_of_each_hostile_file_named_alone(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(tree.rglob("*.json"))
    assert files
    for file in files:
        for format_ in FORMATS:
            status, _, _ = run(capsys, ["validate", "--format", format_, "--no-cache", str(file)])
            assert status == 1


def test_usage_errors_escape_what_they_quote(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tree / WORST)
    for arguments in (
        ["validate", missing],
        ["scan", missing],
        ["redact", missing],
        ["convert", "--to", "atif", missing, "-o", str(tree / "out.json")],
        ["migrate", missing],
        ["check-l1", missing],
        ["validate", "--kind", WORST, str(tree)],
        ["validate", f"--bogus{WORST}", str(tree)],
        ["validate", "--jobs", WORST, str(tree)],
        ["validate", f"s3://{WORST}"],
        ["scan", "--allow-list", missing, str(tree)],
    ):
        status, out, err = run(capsys, arguments)
        assert status == 2 and out == ""
        assert err.split("\n")[-2].startswith("agentbeats-spec"), err  # the one error line (after argparse's usage)
        assert "\\x1b]0;title\\x07" in err  # escaped, by printable or (argparse's choices) by repr


def test_an_internal_error_names_the_file_escaped(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(data: object) -> None:
        raise KeyError(WORST)

    kind = _kinds.KINDS["abv3-results"]
    monkeypatch.setitem(_kinds.KINDS, "abv3-results", attrs.evolve(kind, rules=broken))
    file = tree / HOSTILE[0] / "results.json"
    file.parent.mkdir()
    shutil.copy(FIXTURES / "valid" / "abv3-repo" / "results" / "default" / "results.json", file)
    status, _, err = run(capsys, ["validate", "--no-cache", str(file)])
    assert status == 3
    assert err.startswith("agentbeats-spec: internal error while checking ") and err.count("\n") == 1
    assert "esc\\x1b[31mred" in err and "w\\x1b]0;title" in err


def test_redact_shows_names_escaped_and_its_write_errors_too(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = next(iter(sorted(tree.glob(f"d1*/{HOSTILE[1]}.json"))))
    status, out, _ = run(capsys, ["redact", str(file)])
    assert status == 0 and "********" in out
    status, _, err = run(capsys, ["redact", "-o", str(tree / WORST / "x.json"), str(file)])
    assert status == 2 and err.split("\n")[-2].startswith("agentbeats-spec: error: cannot write ")
    broken = next(iter(sorted(tree.glob(f"d1*/{HOSTILE[1]}.trajectory.json"))))
    status, _, err = run(capsys, ["redact", str(broken)])  # not a document: redacted as text, with a warning
    assert err.startswith("agentbeats-spec: warning: ")


@pytest.mark.parametrize("format_", ["text", "json"])
def test_convert_reports_hostile_names_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], format_: str
) -> None:
    source = tmp_path / f"{WORST}.json"
    shutil.copy(VALID / "actf" / "trajectory.json", source)
    output = tmp_path / f"out{HOSTILE[0]}{HOSTILE[1]}.json"
    status, out, _ = run(capsys, ["convert", "--to", "atif", "--format", format_, str(source), "-o", str(output)])
    assert status == 0 and output.exists() and ("outesc\\x1b[31mred" in out or "outesc\\u001b[31mred" in out)
    invalid = tmp_path / f"bad{WORST}.json"
    invalid.write_text(hostile_document())
    status, _, _ = run(capsys, ["convert", "--to", "atif", "--format", format_, str(invalid), "-o", str(output)])
    assert status == 1
    status, _, err = run(capsys, ["convert", "--to", "atif", str(source), "-o", str(tmp_path / WORST / "x.json")])
    assert status == 2 and err.count("\n") == 1


def test_migrate_shows_hostile_names_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / f"run{WORST}"
    shutil.copytree(VALID / "agentcompass-run", source)
    for arguments in (["--dry-run"], ["-o", str(tmp_path / f"new{WORST}")], ["--in-place"]):
        status, out, _ = run(capsys, ["migrate", *arguments, str(source)])
        assert status == 0 and out.endswith("\n")
    status, _, err = run(capsys, ["migrate", "-o", str(tmp_path / f"new{WORST}"), str(source)])  # exists now
    assert status == 2 and err.count("\n") == 1


@pytest.mark.parametrize("format_", FORMATS)
def test_check_l1_shows_a_hostile_repository_name_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], format_: str
) -> None:
    repository = tmp_path / f"repo{WORST}"
    shutil.copytree(FIXTURES / "invalid" / "abv3-repo", repository)
    status, out, _ = run(capsys, ["check-l1", "--format", format_, str(repository)])
    assert status == 1 and out


def test_kinds_prints_plain_lines(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, ["kinds"])
    assert status == 0 and "actf-trajectory" in out


def test_github_data_and_properties_are_escaped_as_workflow_commands_require() -> None:
    import io

    from agentbeats_spec import Issue
    from agentbeats_spec.checking._collect import Report
    from agentbeats_spec.reporting._github import github

    issue = Issue(file="a:b,c%d", line=2, column=3, severity="error", code="json.syntax", message="100% sure: x, y")
    out = io.StringIO()
    github(Report((issue,), 1), out)
    assert out.getvalue().split("\n")[0] == (
        "::error file=a%3Ab%2Cc%25d,line=2,col=3,title=json.syntax::100%25 sure: x, y"
    )


# Folder names that would start a line of the text report when the tree is checked as "." from the folder above.
LINE_STARTS = ["::warning title=Approved::LGTM", "-rf", "--format=json", "::error file=x::y"]


def check_line_starts(out: str, *, github: bool = False, markdown: bool = False) -> None:
    """No line starts with ``::`` (but the github format's own commands) nor with ``-`` (but markdown's items)."""
    check_lines(out, github=github)
    for line in out.split("\n"):
        assert not line.startswith("-") or (markdown and line.startswith("- **")), line


@pytest.fixture
def line_start_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tree whose folders begin with "::" and "-", as the working folder (checked as ".")."""
    root = tmp_path / "tree"
    for name in LINE_STARTS:
        (root / name).mkdir(parents=True)
        (root / name / "trajectory.json").write_text(hostile_document(), encoding="utf-8")
        (root / name / "results.json").write_text('{"count": -1, "main_metric": "acc", "acc": 0.5}\n')
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("format_", FORMATS)
@pytest.mark.parametrize("command", ["validate", "scan"])
def test_a_name_never_starts_a_line_as_a_workflow_command_or_an_option(
    line_start_tree: Path, capsys: pytest.CaptureFixture[str], command: str, format_: str
) -> None:
    extra = ["--secrets", "--jobs", "1", "--no-cache"] if command == "validate" else []
    for grouping in ([], ["--no-group"]):  # the last, which lists every file, is the one looked into below
        assert main([command, "--format", format_, *grouping, *extra, "."]) == 1
        out, err = capsys.readouterr()
        check_line_starts(out, github=format_ == "github", markdown=format_ == "markdown")
        check_line_starts(err)
    if format_ == "text":  # the same file, shown below the working folder
        assert "./::warning title=Approved::LGTM/trajectory.json:" in out and "./-rf/trajectory.json:" in out


def test_export_names_no_task_at_the_start_of_a_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyarrow")
    for name in LINE_STARTS[:2]:
        run = tmp_path / name
        shutil.copytree(VALID / "agentcompass-run", run)
        next(run.glob("details/error/*/attempt-1/result.json")).write_text('{"status": 1}\n', encoding="utf-8")
    os.chdir(tmp_path)
    try:
        for name in LINE_STARTS[:2]:
            arguments = ["export", "--table", "attempts", "--to", "csv", "-o", str(tmp_path / "out.csv")]
            assert main([*arguments, "--skip-invalid", "--", name]) == 1
            out, err = capsys.readouterr()
            check_line_starts(out)
            check_line_starts(err)
            assert f"./{name}/details/error/" in err
    finally:
        os.chdir(ROOT)
