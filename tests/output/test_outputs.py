"""One run, every output: ``--output FORMAT:FILE`` beside ``--format``, and the invocation a SARIF log records."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft4Validator

from agentbeats_spec.checking._bundle import bundle
from agentbeats_spec.checking._kinds import KINDS
from agentbeats_spec.cli import main
from agentbeats_spec.reporting import _links
from agentbeats_spec.reporting._formats import REPORTERS
from agentbeats_spec.reporting._links import code_url
from agentbeats_spec.reporting._sarif import SNIPPET_WIDTH
from agentbeats_spec.vocabulary._version import __version__

from ..conftest import FIXTURES, INVALID_TOTALS, ROOT

SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-2.1.0-rtm.5.json").read_text(encoding="utf-8"))
INVALID = str(FIXTURES / "invalid")


def test_one_run_writes_every_format_as_format_would_print_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = [f"--output={name}:{tmp_path / name}" for name in REPORTERS]
    assert main(["validate", "--format", "json", INVALID, *outputs]) == 1
    printed_json = capsys.readouterr().out
    for name in REPORTERS:
        assert main(["validate", "--format", name, INVALID]) == 1
        alone = capsys.readouterr().out
        written = (tmp_path / name).read_text(encoding="utf-8")
        assert written == alone, name
    assert (tmp_path / "json").read_text(encoding="utf-8") == printed_json


def test_a_sarif_log_records_a_successful_invocation_even_when_issues_fail_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", INVALID, "--output", f"sarif:{tmp_path / 'log.sarif'}"]) == 1
    document = json.loads((tmp_path / "log.sarif").read_text(encoding="utf-8"))
    assert list(Draft4Validator(SARIF_SCHEMA).iter_errors(document)) == []
    (invocation,) = document["runs"][0]["invocations"]
    assert invocation == {"executionSuccessful": True, "exitCode": 1, "properties": {"configuration": None}}
    assert len(document["runs"][0]["results"]) == INVALID_TOTALS.issues


def test_a_missing_path_exits_2_with_a_sarif_log_of_a_failed_invocation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.sarif"
    assert main(["validate", str(tmp_path / "nowhere"), "--output", f"sarif:{log}"]) == 2
    assert capsys.readouterr().err == f"agentbeats-spec: error: no such file or folder: {tmp_path / 'nowhere'}\n"
    document = json.loads(log.read_text(encoding="utf-8"))
    assert list(Draft4Validator(SARIF_SCHEMA).iter_errors(document)) == []
    (invocation,) = document["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    assert invocation["toolExecutionNotifications"] == [
        {"level": "error", "message": {"text": f"no such file or folder: {tmp_path / 'nowhere'}"}}
    ]
    assert document["runs"][0]["results"] == []


def test_an_empty_folder_exits_2_with_a_sarif_log_of_a_failed_invocation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    log = tmp_path / "log.sarif"
    assert main(["validate", str(tmp_path / "empty"), "--output", f"sarif:{log}"]) == 2
    (invocation,) = json.loads(log.read_text(encoding="utf-8"))["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    assert invocation["toolExecutionNotifications"][0]["message"]["text"] == (
        f"no artifact found under {tmp_path / 'empty'} (see --allow-empty)"
    )


def test_a_usage_error_writes_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.sarif"
    with pytest.raises(SystemExit) as exited:
        main(["validate", INVALID, "--output", f"sarif:{log}", "--max-depth", "0"])
    assert exited.value.code == 2 and not log.exists()


@pytest.mark.parametrize("given", ["sarif", "xml:log.xml", ":log.sarif", "sarif:"])
def test_an_output_that_is_not_format_colon_file_is_a_usage_error(
    given: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["validate", INVALID, "--output", given])
    assert exited.value.code == 2
    assert "argument --output: expected FORMAT:FILE with FORMAT one of text, json" in capsys.readouterr().err


def test_an_internal_error_exits_3_with_a_sarif_log_of_a_failed_invocation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*arguments: object, **options: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("agentbeats_spec.application._front_door.check_paths", broken)
    log = tmp_path / "log.sarif"
    assert main(["validate", INVALID, "--output", f"sarif:{log}"]) == 3
    (invocation,) = json.loads(log.read_text(encoding="utf-8"))["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 3
    assert invocation["toolExecutionNotifications"][0]["message"]["text"] == "internal error (RuntimeError)"


def test_a_file_that_cannot_be_written_exits_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "no" / "such" / "folder.json"
    assert main(["validate", INVALID, f"--output=json:{target}"]) == 2
    assert capsys.readouterr().err.startswith(f"agentbeats-spec: error: cannot write {target}: ")
    assert not target.parent.exists()


def test_scan_and_check_l1_take_outputs_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(FIXTURES / "valid"), "--output", f"json:{tmp_path / 'scan.json'}"]) == 0
    assert json.loads((tmp_path / "scan.json").read_text(encoding="utf-8"))["issues"] == []
    assert main(["check-l1", str(tmp_path / "nowhere"), "--output", f"sarif:{tmp_path / 'l1.sarif'}"]) == 2
    (invocation,) = json.loads((tmp_path / "l1.sarif").read_text(encoding="utf-8"))["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # file URIs relative to the working folder, as in a CI checkout


def sarif_of(tmp_path: Path, *argv: str) -> Path:
    log = tmp_path / "log.sarif"
    main(["validate", "--format", "json", "--output", f"sarif:{log}", *argv])
    return log


PUBLISHED = {"Homepage": "https://example.org/agentbeats-spec", "Documentation": "https://example.org/abs/docs"}


@pytest.fixture
def published(monkeypatch: pytest.MonkeyPatch) -> None:
    """The package's metadata as if it named the project's addresses ([project.urls] in pyproject.toml)."""
    monkeypatch.setattr(_links, "project_urls", lambda: PUBLISHED)


def test_without_a_published_address_rules_are_explained_in_the_log_and_link_nowhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _links.project_urls() == {}  # pyproject.toml names no address: none is made up
    log = sarif_of(tmp_path, str(FIXTURES / "invalid"))
    assert "agentbeats/agentbeats-spec" not in log.read_text(encoding="utf-8")
    driver = json.loads(log.read_text(encoding="utf-8"))["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver
    for rule in driver["rules"]:
        assert "helpUri" not in rule
        assert rule["fullDescription"]["text"].startswith(rule["shortDescription"]["text"] + " Reported as: ")
        assert rule["help"]["text"].startswith(rule["fullDescription"]["text"])
        assert rule["help"]["text"].endswith(f"See docs/codes.md of agentbeats-spec {__version__}.")


def test_every_rule_is_described_and_documented(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], published: None
) -> None:
    log = sarif_of(tmp_path, str(FIXTURES / "invalid"))
    driver = json.loads(log.read_text(encoding="utf-8"))["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == PUBLISHED["Homepage"]
    codes_doc = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    for rule in driver["rules"]:
        assert rule["helpUri"] == code_url(rule["id"]) == f"https://example.org/abs/docs/codes.md#{rule['id']}"
        assert f'<a id="{rule["id"]}"></a>' in codes_doc  # the anchor the link names
        assert rule["fullDescription"]["text"].startswith(rule["shortDescription"]["text"] + " Reported as: ")
        assert rule["help"]["text"] and f"]({rule['helpUri']})" in rule["help"]["markdown"]


def test_each_region_has_its_snippet_and_its_line_as_context(
    tmp_path: Path, at_root: None, capsys: pytest.CaptureFixture[str]
) -> None:
    log = sarif_of(tmp_path, "fixtures/invalid/abv3-results/results.json")
    results = json.loads(log.read_text(encoding="utf-8"))["runs"][0]["results"]
    located = {result["ruleId"]: result["locations"][0]["physicalLocation"] for result in results}
    assert located["schema.minimum"]["region"] == {
        "startLine": 2, "startColumn": 12, "endColumn": 15, "snippet": {"text": "-1,"},
    }  # fmt: skip
    assert located["schema.minimum"]["contextRegion"] == {
        "startLine": 2, "startColumn": 1, "endColumn": 15, "snippet": {"text": '  "count": -1,'},
    }  # fmt: skip
    # At the first column the region is the whole line: no context region around it.
    assert "contextRegion" not in located["rule.main-metric"]
    assert located["rule.main-metric"]["region"]["snippet"] == {"text": "{"}


def test_a_secret_has_no_snippet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    (tmp_path / "results.json").write_text(json.dumps({"note": token}))
    log = sarif_of(tmp_path, "--secrets", "--kind", "abv3-results", str(tmp_path / "results.json"))
    assert token not in log.read_text(encoding="utf-8")
    results = json.loads(log.read_text(encoding="utf-8"))["runs"][0]["results"]
    secret = next(result for result in results if result["ruleId"] == "security.secret")
    assert "snippet" not in secret["locations"][0]["physicalLocation"]["region"]
    # Nor does any format show the line that holds it, under this issue or another one of the same line.
    outputs = [f"--output={name}:{tmp_path / name}" for name in REPORTERS]
    main(["validate", "--secrets", "--kind", "abv3-results", str(tmp_path / "results.json"), *outputs])
    assert token not in capsys.readouterr().out
    for name in REPORTERS:
        assert token not in (tmp_path / name).read_text(encoding="utf-8"), name


def test_a_long_line_is_cut_in_its_snippet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "results.json"
    path.write_text('{"note": "' + "x" * 5000 + '", "count": -1}')
    log = sarif_of(tmp_path, "--kind", "abv3-results", str(path))
    results = json.loads(log.read_text(encoding="utf-8"))["runs"][0]["results"]
    region = next(r for r in results if r["ruleId"] == "schema.minimum")["locations"][0]["physicalLocation"]
    assert region["region"]["snippet"] == {"text": "-1}"} and "contextRegion" not in region
    assert all(
        len(r["locations"][0]["physicalLocation"]["region"]["snippet"]["text"]) <= SNIPPET_WIDTH for r in results
    )


def test_github_writes_a_new_line_in_a_file_name_as_the_runner_decodes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a\nb\rc%d:e,f\x01.json"
    path.write_text('{"schema_version": "ACTF_v1.0", "steps": "x\\ny"}')
    assert main(["validate", "--format", "github", "--kind", "actf-trajectory", str(path)]) == 1
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("::")]
    name = str(tmp_path).replace(":", "%3A").replace(",", "%2C") + "/a%0Ab%0Dc%25d%3Ae%2Cf\\x01.json"
    assert line.startswith(f"::error file={name},line=1,col=42,title=schema.type::expected an array")


def test_schema_bundle_is_ascii_json_on_a_console_that_is_not_utf_8(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONIOENCODING": "cp1252", "PYTHONPATH": str(ROOT / "src")}
    for kind in ("abb-case", "abv3-repo"):  # their bundles hold non-ASCII text (…, —)
        result = subprocess.run(
            [sys.executable, "-m", "agentbeats_spec", "schema", kind, "--bundle"],
            capture_output=True, env=env, check=True, timeout=60,
        )  # fmt: skip
        assert result.stdout.isascii()
        assert json.loads(result.stdout.decode("ascii")) == bundle(KINDS[kind].latest)


def test_an_output_over_a_planted_file_gets_the_mode_of_a_new_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A set-user-ID, world-writable file planted where a report goes lends it nothing: 0o666 less the umask."""
    import stat

    from agentbeats_spec.writing._atomic import umask

    planted = tmp_path / "report.sarif"
    planted.write_text("planted\n")
    planted.chmod(0o6777)
    assert main(["validate", "--output", f"sarif:{planted}", str(FIXTURES / "valid" / "actf")]) == 0
    capsys.readouterr()
    assert json.loads(planted.read_text())["version"] == "2.1.0"
    assert stat.S_IMODE(planted.stat().st_mode) == 0o666 & ~umask()
