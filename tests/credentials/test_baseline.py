"""scan --baseline: a team's reviewed findings, in detect-secrets' .secrets.baseline format, are not reported again."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec.cli import main

GITHUB = "ghp_" + "Fake0123456789abcdefFAKE0123456789ab"
AWS = "AKIA" + "FAKE2345FAKE6789"
NEW = "glpat-" + "Fake0123456789abcdEF"


def sha1(secret: str) -> str:
    return hashlib.sha1(secret.encode()).hexdigest()


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run folder with two secrets, scanned from the folder above it (file names relative, as teams run it)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "run.log").write_text(f"push with {GITHUB}\nkey id {AWS}\n")
    (tmp_path / "run" / "result.json").write_text(json.dumps({"meta": {"note": f"token {GITHUB}"}}, indent=2))
    return tmp_path


def scan_json(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, list[dict[str, Any]]]:
    status = main(["scan", "--format", "json", *arguments])
    out = capsys.readouterr().out
    return status, json.loads(out)["issues"]


def test_written_baseline_silences_what_it_holds_and_only_that(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["scan", "--format", "json", "run", "--baseline", ".secrets.baseline", "--update-baseline"])
    captured = capsys.readouterr()
    assert status == 0 and json.loads(captured.out)["issues"] == []  # the report is of the baseline as written
    assert captured.err == (
        "agentbeats-spec: wrote the baseline .secrets.baseline: 3 finding(s) in 2 file(s), each known from now on "
        "(not reported)\n"
    )
    written = json.loads((tree / ".secrets.baseline").read_text())
    assert list(written) == ["version", "plugins_used", "filters_used", "results", "generated_at"]
    assert written["version"] == "1.5.0" and written["plugins_used"] == [] and written["filters_used"] == []
    assert written["results"] == {
        "run/result.json": [
            {"type": "GitHub Token", "filename": "run/result.json", "hashed_secret": sha1(GITHUB),
             "is_verified": False, "line_number": 3},
        ],
        "run/run.log": [
            {"type": "GitHub Token", "filename": "run/run.log", "hashed_secret": sha1(GITHUB),
             "is_verified": False, "line_number": 1},
            {"type": "AWS Access Key", "filename": "run/run.log", "hashed_secret": sha1(AWS),
             "is_verified": False, "line_number": 2},
        ],
    }  # fmt: skip
    assert sorted(os.listdir(tree)) == [".secrets.baseline", "run"]  # no temporary file left
    assert scan_json(capsys, "run", "--baseline", ".secrets.baseline") == (0, [])
    # A new secret is reported, and a known one moved to another line is still known.
    (tree / "run" / "run.log").write_text(f"first\nkey id {AWS}\npush with {GITHUB}\nnew {NEW}\n")
    status, issues = scan_json(capsys, "run", "--baseline", ".secrets.baseline")
    assert status == 1
    assert [(issue["file"], issue["line"], issue["code"]) for issue in issues] == [
        ("run/run.log", 4, "security.secret")
    ]
    assert NEW not in json.dumps(issues)


def test_a_known_secret_in_another_file_is_still_reported(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["scan", "run", "--baseline", ".secrets.baseline", "--update-baseline"])
    (tree / "run" / "copy.log").write_text(f"again {AWS}\n")
    capsys.readouterr()
    status, issues = scan_json(capsys, "run", "--baseline", ".secrets.baseline")
    assert status == 1 and [issue["file"] for issue in issues] == ["run/copy.log"]


def test_an_update_keeps_labels_and_files_not_scanned(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = tree / ".secrets.baseline"
    main(["scan", "run", "--baseline", str(baseline), "--update-baseline"])
    document = json.loads(baseline.read_text())
    document["results"]["run/run.log"][1]["is_secret"] = False  # a person reviewed it: a fixture, not a secret
    document["results"]["run/run.log"][1]["is_verified"] = True
    document["results"]["elsewhere/notes.txt"] = [{"type": "Secret Keyword", "hashed_secret": "0" * 40}]
    document["exclude"] = {"files": "^fixtures/"}
    baseline.write_text(json.dumps(document))
    (tree / "run" / "result.json").write_text("{}")  # its secret is gone
    capsys.readouterr()
    assert main(["scan", "run", "--baseline", str(baseline), "--update-baseline"]) == 0
    rewritten = json.loads(baseline.read_text())
    assert rewritten["exclude"] == {"files": "^fixtures/"}
    assert sorted(rewritten["results"]) == ["elsewhere/notes.txt", "run/run.log"]
    aws = rewritten["results"]["run/run.log"][1]
    assert (aws["hashed_secret"], aws["is_secret"], aws["is_verified"]) == (sha1(AWS), False, True)


def test_detect_secrets_reads_what_we_write(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("detect_secrets", reason="detect-secrets==1.5.0 is in the dev extra")
    from detect_secrets.core import baseline as detect_baseline
    from detect_secrets.settings import default_settings

    main(["scan", "run", "--baseline", ".secrets.baseline", "--update-baseline"])
    with default_settings():
        loaded = detect_baseline.load(detect_baseline.load_from_file(".secrets.baseline"), ".secrets.baseline")
        found = sorted((filename, secret.secret_hash, secret.line_number) for filename, secret in loaded)
    assert found == [
        ("run/result.json", sha1(GITHUB), 3), ("run/run.log", sha1(GITHUB), 1), ("run/run.log", sha1(AWS), 2)
    ]  # fmt: skip


def test_we_read_what_detect_secrets_writes(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("detect_secrets", reason="detect-secrets==1.5.0 is in the dev extra")
    from detect_secrets.core import baseline as detect_baseline
    from detect_secrets.settings import default_settings

    with default_settings():
        secrets = detect_baseline.create("run/run.log", "run/result.json")
        detect_baseline.save_to_file(secrets, ".secrets.baseline")
    written = json.loads(Path(".secrets.baseline").read_text())
    hashes = {entry["hashed_secret"] for entries in written["results"].values() for entry in entries}
    # detect-secrets 1.5.0 hashes a GitHub token's prefix alone (its pattern's group is "ghp"): such an entry names
    # no secret, so the GitHub findings are reported; the AWS key id it hashed whole is known.
    assert hashes == {sha1("ghp"), sha1(AWS)}
    status, issues = scan_json(capsys, "run", "--baseline", ".secrets.baseline")
    assert status == 1
    assert [(issue["file"], issue["line"]) for issue in issues] == [("run/result.json", 3), ("run/run.log", 1)]
    assert all("GitHub token" in issue["message"] for issue in issues)


@pytest.mark.parametrize(
    ("content", "where", "reason"),
    [
        ("{\n  \"version\": \"1.5.0\",\n  \"results\": {\n}", ":4:2", "not a valid .secrets.baseline: "),
        ("[]", ":1:1", "expected a JSON object with version and results"),
        ('{"results": {}}', ":1:1", 'expected version, a string such as "1.5.0"'),
        ('{"version": "1.5.0",\n "results": []}', ":2:13", "expected results, an object of file names (at /results)"),
        ('{"version": "1.5.0", "results": {"a.txt": {}}}', ":1:43", "expected a list of findings (at /results/a.txt)"),
        ('{"version": "1.5.0", "results": {"a.txt": [\n  {"type": "Secret Keyword"}]}}', ":2:3",
         "a finding needs hashed_secret (at /results/a.txt/0)"),
        ('{"version": "1.5.0", "results": {"a.txt": [\n  {"type": "x", "hashed_secret": "0", "line_number": "3"}]}}',
         ":2:54", "expected line_number to be an integer (at /results/a.txt/0/line_number)"),
        ('{"version": "1.5.0", "results": {"a.txt": [{"type": "x", "hashed_secret": "0", "is_verified": 1}]}}',
         ":1:95", "expected is_verified to be a boolean (at /results/a.txt/0/is_verified)"),
    ],
)  # fmt: skip
def test_a_baseline_that_is_not_valid_is_a_usage_error_with_its_place(
    tree: Path, capsys: pytest.CaptureFixture[str], content: str, where: str, reason: str
) -> None:
    Path("bad.baseline").write_text(content)
    for update in ([], ["--update-baseline"]):
        assert main(["scan", "run", "--baseline", "bad.baseline", *update]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and "Traceback" not in captured.err
        assert captured.err.startswith(f"agentbeats-spec: error: bad.baseline{where}: ")
        assert reason in captured.err
        assert Path("bad.baseline").read_text() == content  # never replaced


def test_a_missing_baseline_is_written_only_when_asked(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "run", "--baseline", "missing.baseline"]) == 2
    assert "no baseline missing.baseline: write one with --baseline missing.baseline --update-baseline" in (
        capsys.readouterr().err
    )
    assert main(["scan", "run", "--update-baseline"]) == 2
    assert "--update-baseline needs --baseline FILE" in capsys.readouterr().err
    assert main(["scan", "run", "--baseline", "no/such/folder/b", "--update-baseline"]) == 2
    assert "cannot write no/such/folder/b" in capsys.readouterr().err
    assert sorted(os.listdir(tree)) == ["run"]


def test_a_baseline_in_the_scanned_tree_is_no_finding(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["scan", "run", "--baseline", "run/.secrets.baseline", "--update-baseline"])
    capsys.readouterr()
    assert scan_json(capsys, "run", "--baseline", "run/.secrets.baseline") == (0, [])


def test_findings_past_max_issues_are_said_to_be_left_out(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "run" / "many.log").write_text("".join(f"key AKIA{index:04d}FAKEFAKEFAKE\n" for index in range(5)))
    arguments = ["scan", "run", "--baseline", "b", "--update-baseline", "--max-issues", "2"]
    assert main(arguments) == 1
    assert "agentbeats-spec: warning: run/many.log: findings past --max-issues are not in the baseline" in (
        capsys.readouterr().err
    )
    assert len(json.loads(Path("b").read_text())["results"]["run/many.log"]) == 2


def test_a_baseline_that_is_no_regular_file_is_refused_without_reading_it(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo("fifo.baseline")
    for update in ([], ["--update-baseline"]):
        assert main(["scan", "run", "--baseline", "fifo.baseline", *update]) == 2
        assert "cannot read the baseline fifo.baseline: not a regular file" in capsys.readouterr().err
    assert Path("fifo.baseline").is_fifo()
