"""One bad file never costs the report of the others: hostile content becomes located issues on its own file.

A folder holds each known trigger (an integer Python refuses to convert, in JSON and TOML; lone surrogates in a
member name and in a string; TOML nested past what its reader follows; a document that overflows the call stack;
a folder tree deeper than the call stack) next to ordinary invalid files, and every output format, with one
worker process or two, must give exit 1, a whole report and an issue on every file.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import agentbeats_spec

HUGE = "7" * 5000
TASK_NAME = "t--" + "0" * 64
# The call stack gives out long before these limits: these trees and documents are only deep.
DEEP_LIMIT = ["--max-depth", "100000"]


def write(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)


def results(extra: str) -> str:
    return '{"count": 1, "main_metric": "acc", "acc": 0.5' + extra + "}\n"


REPO_HEAD = '[abv3_repo]\nname = "x"\nrole = "judge"\nauthor = "a"\n\n[run]\ncommand = "run"\n'

# (relative path, content, expected (code, pointer, line, column)); None where a position cannot be told.
HOSTILE: list[tuple[str, str, tuple[str, str, int | None, int | None]]] = [
    ("json-huge/results.json", results(f', "big": {HUGE}'), ("json.large-integer", "/big", 1, 55)),
    ("json-surrogate-name/results.json", results(', "\\udc00name": 1'), ("json.encoding", "/\udc00name", 1, 48)),
    ("json-surrogate-string/results.json", results(', "note": "a\\ud800b"'), ("json.encoding", "/note", 1, 56)),
    ("json-stack/results.json", "[" * 90_000 + "]" * 90_000, ("json.too-deep", "", 1, 1)),
    ("toml-huge/agentbeats.toml", REPO_HEAD + f"limit = {HUGE}\n", ("toml.large-integer", "", 8, 9)),
    ("toml-inline-deep/agentbeats.toml", REPO_HEAD + "x = " + "[" * 500 + "]" * 500 + "\n",
     ("toml.too-deep", "", 8, 405)),
    ("toml-tables-deep/agentbeats.toml", REPO_HEAD + "[" + ".".join(["t"] * 3000) + "]\n",
     ("toml.too-deep", "", None, None)),
    # A task of a run is checked in a worker process with --jobs 2.
    (f"run/details/normal/{TASK_NAME}/task.json",
     '{"schema_version": "agentcompass.task.v3", "task_id": "t\\udfff", "attempts": {"1": "attempt-1"}}',
     ("json.encoding", "/task_id", 1, 55)),
]  # fmt: skip

ORDINARY: list[tuple[str, str, tuple[str, str, int | None, int | None]]] = [
    ("plain/results.json", '{"count": -1, "main_metric": "acc", "acc": 0.5}\n', ("schema.minimum", "/count", 1, 11)),
    ("plain/verify.case.json", '{"case_id": "x"}\n', ("schema.required", "/issue", 1, 1)),
    ("syntax/results.json", '{"count": 1,\n', ("json.syntax", "", 2, 1)),
    ("plain-repo/agentbeats.toml", '[abv3_repo]\nname = "x"\nrole = "judge"\n',
     ("schema.required", "/abv3_repo/author", 1, 2)),
]  # fmt: skip


def deep_folder(root: Path, levels: int) -> Path:
    """A chain of folders deeper than Python's call stack (each made alone: os.makedirs recurses)."""
    root.mkdir(parents=True, exist_ok=True)
    folder = root
    for _ in range(levels):
        folder = folder / "d"
        folder.mkdir()
    return folder


def remove_deep_folder(root: Path) -> None:
    """Remove a chain of folders from the bottom up: shutil.rmtree (and so pytest's clean-up) recurses."""
    chain = [root]
    while (chain[-1] / "d").is_dir():
        chain.append(chain[-1] / "d")
    for folder in reversed(chain):
        for entry in folder.iterdir():
            if not entry.is_dir():
                entry.unlink()
        folder.rmdir()


@pytest.fixture(scope="module")
def tree() -> Iterator[Path]:
    # Not below pytest's own temporary folder: its clean-up of old runs recurses, and a deep chain left by an
    # interrupted run would break it.
    base = Path(tempfile.mkdtemp(prefix="agentbeats-hostile-"))
    root = base / "tree"
    for relative, content, _ in [*HOSTILE, *ORDINARY]:
        write(root / relative, content)
    write(root / f"run/details/normal/{TASK_NAME}/attempt-1/result.json", '{"retry_count": 0}\n')
    bottom = deep_folder(root / "deep-folders", 1200)
    write(bottom / "results.json", '{"count": -2, "main_metric": "acc", "acc": 0.5}\n')
    try:
        yield root
    finally:
        remove_deep_folder(root / "deep-folders")
        shutil.rmtree(base)


def expected(root: Path) -> list[tuple[str, str, str, int | None, int | None]]:
    found = [(str(root / relative), *issue) for relative, _, issue in [*HOSTILE, *ORDINARY]]
    deep = str(root / "deep-folders" / "/".join(["d"] * 1200) / "results.json")
    return [*found, (deep, "schema.minimum", "/count", 1, 11)]


def cli(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "agentbeats_spec", *arguments]
    return subprocess.run(command, capture_output=True, cwd=cwd, timeout=300, check=False)


def parsed(output_format: str, stdout: str) -> list[tuple[str, str, str, int | None, int | None]]:
    """(file, code, pointer, line, column) of every issue in a report, read back from its format."""
    if output_format == "json":
        return [
            (issue["file"], issue["code"], issue["pointer"], issue["line"], issue["column"])
            for issue in json.loads(stdout)["issues"]
        ]
    if output_format == "sarif":
        document = json.loads(stdout)
        found = []
        for result in document["runs"][0]["results"]:
            location = result["locations"][0]
            region = location["physicalLocation"].get("region", {})
            pointer = location.get("logicalLocations", [{"fullyQualifiedName": ""}])[0]["fullyQualifiedName"]
            uri = location["physicalLocation"]["artifactLocation"]["uri"]
            found.append((uri, result["ruleId"], pointer, region.get("startLine"), region.get("startColumn")))
        return found
    if output_format == "github":
        lines = stdout.splitlines()
        assert re.fullmatch(r"\d+ file\(s\) checked; \d+ error\(s\), \d+ warning\(s\)", lines[-1]), lines[-1]
        found = []
        for line in lines[:-1]:
            match = re.fullmatch(r"::(error|warning) file=([^,]*)(?:,line=(\d+),col=(\d+))?,title=([^:]+)::(.*)", line)
            assert match is not None, line
            at = re.search(r" \(at (.*)\)$", match.group(6))
            line_number = int(match.group(3)) if match.group(3) else None
            column = int(match.group(4)) if match.group(4) else None
            file = match.group(2).replace("%3A", ":").replace("%2C", ",").replace("%25", "%")
            found.append((file, match.group(5), at.group(1) if at else "", line_number, column))
        return found
    lines = stdout.splitlines()
    summary = [line for line in lines if line.startswith("invalid: ")]
    assert len(summary) == 1 and re.match(r"invalid: \d+ file\(s\) checked", summary[0]), lines[-3:]
    found = []
    for position, line in enumerate(lines):
        match = re.fullmatch(r"(\S.*?)(?::(\d+):(\d+))?: (error|warning) ([a-z0-9.-]+) .*", line)
        if match is None:
            continue
        following = lines[position + 1] if position + 1 < len(lines) else ""
        at = re.fullmatch(r"    at (.*)", following)
        line_number = int(match.group(2)) if match.group(2) else None
        column = int(match.group(3)) if match.group(3) else None
        found.append((match.group(1), match.group(5), at.group(1) if at else "", line_number, column))
    return found


def shown(file: str, output_format: str, pointer: str) -> tuple[str, str]:
    """How a format writes a file and a pointer: lone surrogates escaped, so that every output is valid UTF-8."""
    from urllib.parse import quote

    escaped = re.sub("[\ud800-\udfff]", lambda match: f"\\u{ord(match.group()):04x}", pointer)
    return (quote(file) if output_format == "sarif" else file), escaped


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("output_format", ["text", "json", "github", "sarif"])
def test_every_hostile_file_gets_its_issue_and_every_other_file_is_reported(
    tree: Path, output_format: str, jobs: str
) -> None:
    # --no-group: every issue is read back, so text and github must list each, not group or cap them
    run = cli("validate", "--format", output_format, "--no-group", "--jobs", jobs, *DEEP_LIMIT, "tree", cwd=tree.parent)
    assert run.returncode == 1, run.stderr.decode()
    assert run.stderr == b""
    stdout = run.stdout.decode("utf-8")  # strict: every output is valid UTF-8
    found = parsed(output_format, stdout)
    for file, code, pointer, line, column in expected(Path("tree")):
        want_file, want_pointer = shown(file, output_format, pointer)
        place = (line, column) if line is not None else None
        matching = [
            issue for issue in found
            if issue[:3] == (want_file, code, want_pointer) and (place is None or issue[3:] == place)
        ]  # fmt: skip
        assert matching, (file, code, pointer, line, column, [issue for issue in found if issue[0] == want_file])


def test_validate_and_scan_never_raise_on_content(tree: Path) -> None:
    limits = agentbeats_spec.Limits(max_depth=100_000)
    found = agentbeats_spec.validate(tree, limits=limits)
    got = {(issue.file, issue.code, issue.pointer) for issue in found}
    for file, code, pointer, _, _ in expected(tree):
        assert (file, code, pointer) in got
    assert agentbeats_spec.scan(tree, limits=limits) == []  # no secret here, and no exception either


@pytest.mark.parametrize(
    ("source", "code", "pointer", "line", "column"),
    [
        (f'{{"a": [1, -{HUGE}]}}', "json.large-integer", "/a/1", 1, 11),
        ('{"a": "\\ud83d\\ude00", "b": ["\\udbff"]}', "json.encoding", "/b/0", 1, 29),
        ('{"\\ud800": 1}', "json.encoding", "/\ud800", 1, 2),
    ],
)
def test_hostile_json_is_located_and_never_converted(
    source: str, code: str, pointer: str, line: int, column: int
) -> None:
    issues = agentbeats_spec.validate(source, "abv3-results")
    assert [(i.code, i.pointer, i.line, i.column, i.severity) for i in issues] == [
        (code, pointer, line, column, "error")
    ]
    assert str(issues[0]).encode("utf-8")  # a message is printable: the surrogate is written as an escape


def test_an_integer_at_the_conversion_limit_is_still_read() -> None:
    issues = agentbeats_spec.validate(f'{{"count": 1, "main_metric": "acc", "acc": {"9" * 4300}}}', "abv3-results")
    assert [(i.code, i.severity) for i in issues] == [("json.large-integer", "warning")]


def test_a_bare_key_of_digits_is_not_an_integer() -> None:
    issues = agentbeats_spec.validate(REPO_HEAD + f"[extra]\n{HUGE} = 1\n", "abv3-repo")
    assert "toml.large-integer" not in {issue.code for issue in issues}


def test_toml_nesting_beyond_max_depth_is_too_deep() -> None:
    issues = agentbeats_spec.validate(
        REPO_HEAD + "[a.b.c.d]\nx = 1\n", "abv3-repo", limits=agentbeats_spec.Limits(max_depth=3)
    )
    assert [(i.code, i.pointer, i.line, i.column) for i in issues] == [("toml.too-deep", "/a/b/c", 8, 6)]


def test_a_bug_names_the_file_being_checked(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    write(path, results(""))
    script = (
        "import sys, agentbeats_spec.rules.abv3 as rules\n"
        "def broken(data): raise KeyError('boom')\n"
        "import agentbeats_spec.checking._kinds as kinds, attrs\n"
        "kinds.KINDS['abv3-results'] = attrs.evolve(kinds.KINDS['abv3-results'], rules=broken)\n"
        "from agentbeats_spec.cli import main\n"
        f"sys.exit(main(['validate', {str(path)!r}]))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert run.returncode == 3
    assert run.stderr.startswith(f"agentbeats-spec: internal error while checking {path} (KeyError: 'boom')")
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    ("content", "code", "line", "column"),
    [
        (b'{"schema_version": "agentcompass.task.v3", "task_id": "t", "attempts": {', "json.syntax", 1, 73),
        (b'{"schema_version": "agentcompass.task.v3", "task_id": "\xff"}', "json.encoding", 1, 56),
        (b'{"schema_version": "agentcompass.task.v3", "x": ' + b"[" * 600 + b"]" * 600 + b"}", "json.too-deep", 1, 560),
    ],
)
def test_a_walk_keeps_a_broken_file_that_declares_an_artifact(
    tmp_path: Path, content: bytes, code: str, line: int, column: int
) -> None:
    write(tmp_path / "exports" / "index.json", content)
    write(tmp_path / "exports" / "notes.json", b'{"not": "an artifact"')  # declares nothing: not an artifact
    issues = agentbeats_spec.validate(tmp_path)
    assert [(i.file, i.kind, i.code, i.line, i.column) for i in issues] == [
        (str(tmp_path / "exports" / "index.json"), "agentcompass-task", code, line, column)
    ]
