"""A masked secret's fingerprint is keyed: an HMAC under a key kept beside the allow-list (or the baseline), so that
nobody without the key can test a guessed password against a fingerprint in a public log; no exact length is shown
for a short secret; old allow-lists and baselines keep working."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from agentbeats_spec import scan
from agentbeats_spec.cli import main

from ..conftest import FIXTURES, VALID

PASSWORD = "hunter22"  # weak: an unkeyed hash of it is found by a dictionary at once
OPENAI = "sk-proj-" + "a1B2c3D4" * 5


def printed_fingerprint(message: str) -> str:
    return message.rsplit("fingerprint ", 1)[1][:16]


def key_in(path: Path) -> bytes:
    lines = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    return bytes.fromhex(lines[0])


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A file with a weak password under a credential name, scanned from the folder that holds it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.json").write_text(json.dumps({"db": {"password": PASSWORD}, "key": OPENAI}))
    return tmp_path


def scan_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, str]]]:
    code = main(["scan", "--format", "json", *argv])
    captured = capsys.readouterr()
    return code, json.loads(captured.out)["issues"] if captured.out else []


def test_the_fingerprint_is_keyed_with_the_key_made_beside_the_allow_list(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "agentbeats-secrets.allow").write_text("# reviewed findings\n")
    code, issues = scan_json(capsys, "run")
    assert code == 1
    key_file = folder / "agentbeats-secrets.allow.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = key_in(key_file)
    password = next(issue for issue in issues if issue["pointer"] == "/db/password")
    assert printed_fingerprint(password["message"]) == hmac.new(key, PASSWORD.encode(), "sha256").hexdigest()[:16]
    assert hashlib.sha256(PASSWORD.encode()).hexdigest()[:16] not in password["message"]  # the old, unkeyed one
    # The next run keeps the key: the fingerprint names the same secret, and listing it silences the finding.
    assert scan_json(capsys, "run")[1] == issues
    (folder / "agentbeats-secrets.allow").write_text(printed_fingerprint(password["message"]) + "  # a test db\n")
    assert [issue["pointer"] for issue in scan_json(capsys, "run")[1]] == ["/key"]


def test_without_an_allow_list_the_key_is_the_runs_own_and_nothing_is_written(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = scan_json(capsys, "run")[1]
    second = scan_json(capsys, "run")[1]
    assert [printed_fingerprint(issue["message"]) for issue in first] != [
        printed_fingerprint(issue["message"]) for issue in second
    ]
    assert sorted(os.listdir(folder)) == ["run"]  # no key file where the user put none


def test_no_exact_length_is_shown_for_a_short_secret(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messages = {issue["pointer"]: issue["message"] for issue in scan_json(capsys, "run")[1]}
    assert ": …(under 32 characters), fingerprint" in messages["/db/password"]
    assert str(len(PASSWORD)) not in messages["/db/password"].split("fingerprint")[0]
    assert "sk-p…(48 characters)" in messages["/key"]  # a long key's length says nothing a guess could use


@pytest.mark.parametrize(
    ("allow", "key", "message"),
    [
        ("hunter22\n", None, "agentbeats-secrets.allow: not an allow-list: line 1: expected a fingerprint"),
        ("0123456789abcdef\n", "not a key\n", "agentbeats-secrets.allow.key is not a fingerprint key: expected 64"),
        ("0123456789abcdef\n", "ab" * 31 + "\n", "agentbeats-secrets.allow.key is not a fingerprint key"),
    ],
)
def test_an_allow_list_or_key_that_is_not_valid_is_a_one_line_usage_error(
    folder: Path, capsys: pytest.CaptureFixture[str], allow: str, key: str | None, message: str
) -> None:
    (folder / "agentbeats-secrets.allow").write_text(allow)
    if key is not None:
        (folder / "agentbeats-secrets.allow.key").write_text(key)
    assert main(["scan", "run"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(f"agentbeats-spec: error: {message}")
    assert captured.err.count("\n") == 1
    assert (folder / "agentbeats-secrets.allow.key").exists() is (key is not None)  # none made for a bad list


def test_a_key_that_is_a_link_is_refused_not_followed(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "agentbeats-secrets.allow").write_text("")
    (folder / "elsewhere").write_text("ab" * 32 + "\n")
    (folder / "agentbeats-secrets.allow.key").symlink_to(folder / "elsewhere")
    assert main(["scan", "run"]) == 2
    assert "cannot read the fingerprint key agentbeats-secrets.allow.key" in capsys.readouterr().err


def test_validate_secrets_keys_its_fingerprints_beside_the_baseline_so_the_baseline_knows_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "run"
    shutil.copytree(VALID / "agentcompass-run", run)
    result = next(run.rglob("attempt-1/result.json"))
    data = json.loads(result.read_text())
    data["meta"]["harness"]["password"] = PASSWORD
    result.write_text(json.dumps(data, indent=2))
    assert main(["validate", "--secrets", "--no-cache", "run", "--write-baseline", "known.json"]) == 0
    assert stat.S_IMODE((tmp_path / "known.json.key").stat().st_mode) == 0o600
    capsys.readouterr()
    assert main(["validate", "--secrets", "--no-cache", "run", "--baseline", "known.json"]) == 0
    assert "1 known issue(s) of the baseline known.json not reported" in capsys.readouterr().err


def test_a_cached_verdict_never_shows_a_fingerprint_made_with_another_key(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(VALID / "agentcompass-run", folder / "tree")
    result = next((folder / "tree").rglob("attempt-1/result.json"))
    data = json.loads(result.read_text())
    data["meta"]["harness"]["password"] = PASSWORD
    result.write_text(json.dumps(data, indent=2))
    (folder / "agentbeats-secrets.allow").write_text("")
    argv = ["validate", "--secrets", "--format", "json", "--cache", str(folder / "cache"), "tree"]

    def fingerprints() -> set[str]:
        assert main(argv) == 1
        issues = json.loads(capsys.readouterr().out)["issues"]
        return {printed_fingerprint(issue["message"]) for issue in issues if issue["code"] == "security.secret"}

    first = fingerprints()
    assert fingerprints() == first  # the same key: the cached verdict holds
    (folder / "agentbeats-secrets.allow.key").unlink()  # a new key is made: every fingerprint changes
    assert fingerprints().isdisjoint(first)


def test_an_old_baseline_of_issues_still_holds_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A baseline written before fingerprints were keyed: its entries (the unkeyed SHA-256 of code, file, pointer
    and message) still match, as no message of an issue that holds no secret has changed."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(FIXTURES / "invalid" / "abv3-results", tmp_path / "inv")
    assert main(["validate", "--format", "json", "inv"]) == 1
    issues = json.loads(capsys.readouterr().out)["issues"]
    assert issues

    def old(issue: dict[str, str]) -> dict[str, str]:
        file = os.path.relpath(issue["file"], tmp_path).replace(os.sep, "/")
        parts = "\0".join((issue["code"], file, issue["pointer"], issue["message"]))
        return {"fingerprint": hashlib.sha256(parts.encode()).hexdigest()[:16], "code": issue["code"]}

    old_file = {"agentbeats-spec-baseline": 1, "issues": [old(issue) for issue in issues]}
    (tmp_path / "known.json").write_text(json.dumps(old_file))
    assert main(["validate", "inv", "--baseline", "known.json"]) == 0
    assert f"{len(issues)} known issue(s)" in capsys.readouterr().err


def test_the_python_scan_keys_with_the_allow_list_it_is_given(tmp_path: Path) -> None:
    allow = tmp_path / "reviewed.allow"
    allow.write_text("")
    (issue,) = scan({"password": PASSWORD}, allow_list=allow)
    key = key_in(tmp_path / "reviewed.allow.key")
    assert printed_fingerprint(issue.message) == hmac.new(key, PASSWORD.encode(), "sha256").hexdigest()[:16]
