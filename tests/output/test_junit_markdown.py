"""``--format junit`` (JUnit XML, for CI test reports) and ``--format markdown`` (a job summary)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
import xmlschema

from agentbeats_spec.cli import main
from agentbeats_spec.reporting import _links
from agentbeats_spec.reporting._links import code_url
from agentbeats_spec.reporting._markdown import MARKDOWN_ISSUES

from ..conftest import FIXTURES, INVALID_TOTALS, ROOT, VALID

JUNIT_SCHEMA = xmlschema.XMLSchema10(ROOT / "tests" / "data" / "junit-10.xsd")
INVALID = FIXTURES / "invalid"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_junit_follows_the_jenkins_junit_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "validate", "--format", "junit", str(INVALID), str(VALID))
    assert code == 1
    JUNIT_SCHEMA.validate(out)


def test_junit_has_a_test_case_per_file_with_issues_and_a_failure_per_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out = run(capsys, "validate", "--format", "junit", str(INVALID))
    suites = ElementTree.fromstring(out)
    (suite,) = suites
    cases = suite.findall("testcase")
    # Every file checked has an issue: every one is a case, and no passing case is added.
    files = INVALID_TOTALS.files
    assert len(cases) == files and suite.get("tests") == str(files) and suites.get("tests") == str(files)
    case = next(case for case in cases if case.get("name") == str(INVALID / "abb-case" / "verify.case.json"))
    failures = case.findall("failure")
    assert [failure.get("type") for failure in failures][:2] == ["schema.minimum", "rule.issue-url"]
    assert failures[0].get("message") == "expected a number >= 1, found the number 0"
    assert failures[0].text == (
        f"{INVALID / 'abb-case' / 'verify.case.json'}:5:15: error schema.minimum expected a number >= 1, found the "
        "number 0 (at /issue/number)"
    )
    errors = sum(len(case.findall("failure")) for case in cases)
    assert errors == INVALID_TOTALS.errors and suite.get("failures") == str(
        sum(1 for case in cases if case.find("failure") is not None)
    )


def test_junit_warnings_fail_only_when_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    progress = INVALID / "agentcompass-run-files" / "progress.jsonl"
    _, out = run(capsys, "validate", "--format", "junit", str(progress))
    (case,) = ElementTree.fromstring(out)[0]
    assert case.findall("failure") == [] and "warning jsonl.torn-line" in (case.findtext("system-out") or "")
    _, strict = run(capsys, "validate", "--strict", "--format", "junit", str(progress))
    (case,) = ElementTree.fromstring(strict)[0]
    assert [failure.get("type") for failure in case.findall("failure")] == ["rule.writer-shape", "jsonl.torn-line"]


def test_junit_for_a_valid_tree_is_one_passing_case(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "validate", "--format", "junit", str(VALID))
    JUNIT_SCHEMA.validate(out)
    (suite,) = ElementTree.fromstring(out)
    (case,) = suite
    assert code == 0 and suite.get("failures") == "0"
    assert case.get("name", "").endswith("other file(s) checked, no issue") and list(case) == []


def test_junit_escapes_what_xml_cannot_hold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / 'a<b>&"\x01.json'
    path.write_text('{"schema_version": "ACTF_v1.0", "steps": "x"}')
    _, out = run(capsys, "validate", "--format", "junit", "--kind", "actf-trajectory", str(path))
    JUNIT_SCHEMA.validate(out)
    (case,) = ElementTree.fromstring(out)[0]
    assert case.get("name") == str(tmp_path / 'a<b>&"\\x01.json')


# Each character XML 1.0 forbids (and tab and CR, which a value would lose), and how the report writes it.
FORBIDDEN_IN_XML = {"\ufffe": "\\ufffe", "\uffff": "\\uffff", "\x0b": "\\x0b", "\x1f": "\\x1f", "\t": "\\x09",
                    "\r": "\\x0d", "\udcff": "\\xff", "\x00": "\\x00"}  # fmt: skip


@pytest.mark.parametrize("character", FORBIDDEN_IN_XML)
def test_junit_escapes_every_character_xml_forbids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], character: str
) -> None:
    """XML 1.0 has no form for C0 controls but tab, LF and CR, lone surrogates, U+FFFE and U+FFFF (not even a
    character reference): a name or a value holding one still makes a report that parses and follows the schema."""
    name = "a" + (character if character != "\x00" else "") + "b.json"  # no file name holds NUL; a value may
    path = tmp_path / name
    escape = json.dumps(character)[1:-1] if character != "\udcff" else "\\udcff"
    path.write_text(f'{{"schema_version": "ACTF_v1.0", "steps": "x{escape}"}}')
    _, out = run(capsys, "validate", "--format", "junit", "--kind", "actf-trajectory", str(path))
    JUNIT_SCHEMA.validate(out)
    (case,) = ElementTree.fromstring(out)[0]
    shown = FORBIDDEN_IN_XML[character]
    if character != "\x00":
        assert case.get("name") == str(tmp_path / "a") + shown + "b.json"
    (failure,) = case
    if character in "\ufffe\uffff":  # a value quoted in a message: repr leaves these two as they are
        assert f"'x{shown}'" in (failure.get("message") or "") and f"'x{shown}'" in (failure.text or "")


def test_markdown_counts_kinds_and_codes_and_lists_issues(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "validate", "--format", "markdown", str(INVALID))
    lines = out.splitlines()
    assert code == 1 and lines[0] == "### agentbeats-spec: invalid"
    assert lines[2] == INVALID_TOTALS.summary
    assert "| agentcompass-task | 2 |" in lines
    assert "| `rule.misspelled-key` | error | 4 |" in lines  # no documentation address published: no link
    listed = [line for line in lines if line.startswith("- **")]
    assert len(listed) == INVALID_TOTALS.issues and listed[0].startswith(
        f"- **error** `schema.minimum` `{INVALID / 'abb-case' / 'verify.case.json'}:5:15`: `expected a number >= 1"
    )
    assert listed[-1].startswith("- **info** ")  # errors first, info last


def test_markdown_links_issues_to_their_lines_under_the_base(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    base = "https://github.com/o/r/blob/0123abc"
    _, out = run(capsys, "validate", "--format", "markdown", "--link-base", base + "/", "fixtures/invalid/abb-case")
    first = next(line for line in out.splitlines() if line.startswith("- **"))
    assert first.startswith(
        "- **error** `schema.minimum` [`fixtures/invalid/abb-case/verify.case.json:5:15`]"
        f"({base}/fixtures/invalid/abb-case/verify.case.json#L5): "
    )


def test_markdown_links_codes_to_the_published_documentation_only(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_links, "project_urls", lambda: {"Documentation": "https://example.org/docs/"})
    _, out = run(capsys, "validate", "--format", "markdown", str(INVALID))
    link = code_url("rule.misspelled-key")
    assert link == "https://example.org/docs/codes.md#rule.misspelled-key"
    assert f"| [`rule.misspelled-key`]({link}) | error | 4 |" in out.splitlines()


GITHUB = {"GITHUB_SERVER_URL": "https://ghe.example", "GITHUB_REPOSITORY": "o/r", "GITHUB_SHA": "0123abc"}


def test_in_a_github_workflow_issues_link_to_the_checked_commit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {**GITHUB, "GITHUB_WORKSPACE": str(ROOT)}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(ROOT / "fixtures")  # a step run in a folder of the checkout: the folder is in the links
    _, out = run(capsys, "validate", "--format", "markdown", "invalid/abb-case")
    first = next(line for line in out.splitlines() if line.startswith("- **"))
    assert "](https://ghe.example/o/r/blob/0123abc/fixtures/invalid/abb-case/verify.case.json#L5): " in first
    # --link-base wins over the environment
    _, out = run(capsys, "validate", "--format", "markdown", "--link-base", "https://x.example/b", "invalid/abb-case")
    assert "](https://x.example/b/invalid/abb-case/verify.case.json#L5): " in out


@pytest.mark.parametrize("missing", [*GITHUB, "GITHUB_WORKSPACE"])
def test_without_a_known_checkout_issues_link_nowhere(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, missing: str
) -> None:
    for name, value in {**GITHUB, "GITHUB_WORKSPACE": str(ROOT)}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv(missing)
    monkeypatch.chdir(ROOT)
    _, out = run(capsys, "validate", "--format", "markdown", "fixtures/invalid/abb-case")
    assert "](" not in out
    monkeypatch.setenv(missing, {**GITHUB, "GITHUB_WORKSPACE": str(tmp_path)}[missing])
    _, out = run(capsys, "validate", "--format", "markdown", "fixtures/invalid/abb-case")  # outside the workspace
    assert ("](" not in out) == (missing == "GITHUB_WORKSPACE")


def test_markdown_shows_the_first_issues_and_counts_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "trajectory.json"
    steps = ",".join(f'{{"step_id": "s{number}"}}' for number in range(MARKDOWN_ISSUES + 10))
    path.write_text(f'{{"schema_version": "ACTF_v1.0", "steps": [{steps}]}}')
    _, out = run(capsys, "validate", "--format", "markdown", str(path))
    listed = [line for line in out.splitlines() if line.startswith("- **")]
    total = int(out.splitlines()[2].split("; ")[1].split(" ")[0])
    assert len(listed) == MARKDOWN_ISSUES and total > MARKDOWN_ISSUES
    assert f"#### The first {MARKDOWN_ISSUES} issue(s)" in out
    assert f"… and {total - MARKDOWN_ISSUES} more: see the annotations or the SARIF log." in out


def test_markdown_shows_names_and_values_as_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What comes from the files is shown in code spans: no markup, no HTML, no link, no autolinked URL."""
    path = tmp_path / "<img src=x>*[a](b)|.json"
    path.write_text('{"schema_version": "ACTF_v1.0", "steps": "x"}')
    _, out = run(capsys, "validate", "--format", "markdown", "--kind", "actf-trajectory", str(path))
    assert out.splitlines()[-1] == (
        f"- **error** `schema.type` `{path}:1:42`: `expected an array, found the string 'x'` (at `/steps`)"
    )


@pytest.mark.parametrize(
    ("value", "span"),
    [
        ("https://evil.example/login", "`https://evil.example/login`"),
        ("a`b", "``a`b``"),
        ("``x```", "```` ``x``` ````"),
        ("`", "`` ` ``"),
        (" x ", "`  x  `"),
    ],
)
def test_a_code_span_cannot_be_closed_by_its_value(value: str, span: str) -> None:
    from agentbeats_spec.reporting._markdown import _markdown_code

    assert _markdown_code(value) == span


def test_urls_from_the_files_are_never_links(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "www.evil.example"
    path.mkdir()
    trajectory = path / "t.json"
    trajectory.write_text('{"schema_version": "ACTF_v1.0", "steps": "see https://evil.example/`](x) now"}')
    _, out = run(capsys, "validate", "--format", "markdown", "--kind", "actf-trajectory", str(trajectory))
    line = out.splitlines()[-1]
    assert line == (
        f"- **error** `schema.type` `{trajectory}:1:42`: "
        "``expected an array, found the string 'see https://evil.example/`](x) now'`` (at `/steps`)"
    )
