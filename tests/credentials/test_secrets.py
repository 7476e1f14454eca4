"""Secret scanning and redaction: credentials found by name and by shape, masked in every output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec import from_dict, redact, scan, to_dict, validate
from agentbeats_spec.cli import main
from agentbeats_spec.vocabulary._settings import legacy_fingerprint

from ..conftest import TASK_DIR, VALID
from .test_redact import keyed

OPENAI = "sk-proj-" + "a1B2c3D4" * 5
SECRETS = {
    "an Anthropic API key": "sk-ant-api03-" + "x" * 30,
    "an OpenAI API key": OPENAI,
    "a GitHub token": "ghp_" + "A" * 36,
    "an AWS access key id": "AKIA" + "ABCDEFGHIJKLMNOP",
    "a Google API key": "AIza" + "B" * 35,
    "a Slack token": "xoxb-1234567890-abcdef",
    "a Stripe secret key": "sk_live_" + "c" * 24,
    "a Hugging Face token": "hf_" + "d" * 34,
    "a bearer token": "Bearer " + "e4F" * 8,
    "a private key block": "-----BEGIN RSA PRIVATE KEY-----",
    "a JSON Web Token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "a URL with a password": "https://user:hunter22@example.org/x",
}


@pytest.mark.parametrize(("shape", "secret"), SECRETS.items())
def test_credential_shapes_are_found_anywhere_and_masked(shape: str, secret: str) -> None:
    document = {"steps": [{"observation": [f"output: {secret} done"]}]}
    (issue,) = scan(document)
    assert (issue.code, issue.pointer, issue.severity) == ("security.secret", "/steps/0/observation/0", "error")
    assert shape in issue.message and secret not in issue.message and secret[5:] not in issue.message


@pytest.mark.parametrize(
    "name", ["api_key", "API-Key", "apiKey", "OPENAI_API_KEY", "secret", "client_secret", "password", "Authorization",
             "cookie", "private_key", "access_token", "passwd", "x-api-key"],
)  # fmt: skip
def test_credential_members_are_found_by_name(name: str) -> None:
    (issue,) = scan({"meta": {"harness": {name: "hunter2-correct-horse"}}})
    assert issue.pointer == f"/meta/harness/{name}" and "hunter2" not in issue.message


@pytest.mark.parametrize("value", ["", "********", "${OPENAI_API_KEY}", None, 12])
def test_placeholders_references_and_non_strings_are_not_findings(value: Any) -> None:
    assert scan({"api_key": value}) == []


@pytest.mark.parametrize("name", ["eos_token", "pad_token", "sort_key", "prompt_tokens_len", "max_tokens", "keyword"])
def test_ordinary_names_are_not_credentials(name: str) -> None:
    assert scan({name: "</s> an ordinary value"}) == []


def test_evaluation_facts_are_scanned_but_never_altered() -> None:
    document = {"metrics": {"api_key": OPENAI}, "final_answer": f"key={OPENAI}", "meta": {"token": "abcdefgh"}}
    found = scan(document)
    assert {issue.pointer for issue in found} == {"/metrics/api_key", "/final_answer", "/meta/token"}
    assert all("evaluation fact" in issue.message for issue in found if issue.pointer != "/meta/token")
    redacted = redact(document)
    assert redacted["metrics"] == document["metrics"] and redacted["final_answer"] == document["final_answer"]
    assert redacted["meta"] == {"token": "********"}


def test_redacting_a_model_returns_a_valid_model_of_its_kind() -> None:
    attempt = json.loads((TASK_DIR / "attempt-1" / "result.json").read_text())
    attempt["meta"]["harness"]["openai_api_key"] = OPENAI
    attempt["trajectory"]["steps"][0]["observation"] = [f"export OPENAI_API_KEY={OPENAI}"]
    model = from_dict("agentcompass-attempt", attempt)
    clean = redact(model)
    data = to_dict(clean)
    assert type(clean) is type(model)
    assert data["meta"]["harness"]["openai_api_key"] == "********"
    assert OPENAI not in json.dumps(data)
    assert data["metrics"] == attempt["metrics"]
    assert scan(data) == []


def test_findings_carry_lines_and_columns_in_files(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text('{\n  "meta": {\n    "api_key": "' + OPENAI + '"\n  }\n}\n')
    (issue,) = scan(path)
    assert (issue.file, issue.line, issue.column, issue.pointer) == (str(path), 3, 16, "/meta/api_key")


def test_text_files_are_scanned_by_line(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "run.log").write_text(f"starting\ncurl -H 'Authorization: Bearer {'f0' * 15}' x\n")
    (tmp_path / "blob.bin").write_bytes(b"\x00" + OPENAI.encode())
    (issue,) = scan(tmp_path)
    assert (Path(issue.file or "").name, issue.line, issue.column) == ("run.log", 2, 32)


def test_an_allow_list_silences_reviewed_findings(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"api_key": OPENAI, "other": "ghp_" + "B" * 36}))
    allow = tmp_path / "agentbeats-secrets.allow"
    allow.write_text(f"# reviewed: a revoked test key\n{keyed(allow, OPENAI)}  # revoked 2026-08-01\n")
    found = scan(path, allow_list=allow)
    assert [issue.pointer for issue in found] == ["/other"]


def test_an_old_allow_list_of_unkeyed_fingerprints_still_silences_what_it_names(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"api_key": OPENAI, "other": "ghp_" + "B" * 36}))
    allow = tmp_path / "agentbeats-secrets.allow"
    allow.write_text(f"{legacy_fingerprint(OPENAI)}\n")  # as releases before keyed fingerprints printed it
    (found,) = scan(path, allow_list=allow)
    assert found.pointer == "/other" and legacy_fingerprint("ghp_" + "B" * 36) not in found.message  # keyed now


def test_the_cli_never_prints_a_secret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    shutil.copytree(VALID / "agentcompass-run", run)
    result = next(run.rglob("attempt-1/result.json"))
    data = json.loads(result.read_text())
    data["meta"]["harness"]["api_key"] = OPENAI
    result.write_text(json.dumps(data, indent=2))
    for fmt in ("text", "json", "github", "sarif"):
        assert main(["scan", "--format", fmt, str(run)]) == 1
        out = capsys.readouterr().out
        assert "security.secret" in out and OPENAI not in out and OPENAI[8:20] not in out
    assert main(["validate", "--secrets", str(run)]) == 1
    out = capsys.readouterr().out
    assert "security.secret" in out and OPENAI not in out
    assert main(["validate", str(run)]) == 0
    capsys.readouterr()


def test_validate_secrets_scans_each_document_once_with_its_validation() -> None:
    found = validate({"schema_version": "ACTF_v1.0", "steps": [], "token": OPENAI}, secrets=True)
    assert [(issue.code, issue.pointer) for issue in found] == [("security.secret", "/token")]


def test_redact_writes_atomically_and_never_in_place_unless_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "result.json"
    original = json.dumps({"metrics": {"api_key": OPENAI}, "meta": {"harness": {"api_key": OPENAI}}})
    path.write_text(original)
    # The key under metrics is an evaluation fact: kept, told, and the command fails (the copy is not fit to share).
    assert main(["redact", str(path)]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert printed["meta"]["harness"]["api_key"] == "********" and printed["metrics"]["api_key"] == OPENAI
    assert path.read_text() == original
    assert main(["redact", str(path), "-o", str(tmp_path / "shared.json")]) == 1
    assert json.loads((tmp_path / "shared.json").read_text()) == printed
    assert main(["redact", "--in-place", str(path)]) == 1
    assert json.loads(path.read_text()) == printed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json", "shared.json"]


# --- a secret quoted by another issue's message ---------------------------------------------------------------------

GITHUB = "ghp_" + "A1b2" * 9


@pytest.fixture(params=["native", "exact"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test on the native reader and on the exact one (what AGENTBEATS_SPEC_PURE forces): the same report."""
    if request.param == "exact":
        from agentbeats_spec.reading import _json, _nativejson

        monkeypatch.setattr(_nativejson, "available", False)
        monkeypatch.setattr(_json, "orjson", None)
    return str(request.param)


def secret_trees(tmp_path: Path) -> list[Path]:
    """A run whose attempt's status holds a token (schema.enum quotes it), and an ABV3 repository whose results'
    main_metric holds a key (rule.main-metric quotes it, and points at the member it names)."""
    run = tmp_path / "run"
    shutil.copytree(VALID / "agentcompass-run", run)
    result = next(run.rglob("attempt-1/result.json"))
    data = json.loads(result.read_text())
    data["status"] = GITHUB
    result.write_text(json.dumps(data, indent=2))
    repository = tmp_path / "abv3"
    shutil.copytree(VALID / "abv3-repo", repository)
    results = repository / "results" / "default" / "results.json"
    data = json.loads(results.read_text())
    data["main_metric"] = OPENAI
    results.write_text(json.dumps(data, indent=2))
    return [run, repository]


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif", "junit", "markdown"])
@pytest.mark.parametrize("secrets", [True, False], ids=["secrets", "no-secrets"])
def test_a_secret_quoted_by_another_issue_is_masked_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reader: str, fmt: str, secrets: bool
) -> None:
    trees = secret_trees(tmp_path)
    report = tmp_path / "report.out"
    flags = ["--secrets"] if secrets else []
    argv = ["validate", *flags, "--no-cache", "--format", fmt, "--output", f"{fmt}:{report}", *map(str, trees)]
    assert main(argv) == 1
    out = capsys.readouterr().out
    for shown in (out, report.read_text(encoding="utf-8")):
        assert "schema.enum" in shown and "rule.main-metric" in shown
        assert GITHUB not in shown and OPENAI not in shown
        assert GITHUB[4:16] not in shown and OPENAI[8:20] not in shown  # not even cut short
        assert "40 characters" in shown and "48 characters" in shown  # the masks (markdown escapes their marks)
        assert ("security.secret" in shown) is secrets


def test_the_messages_mask_a_secret_before_they_cut_a_long_value() -> None:
    key = "sk-ant-api03-" + "Xy9" * 40  # longer than the 60 characters a message shows of a value
    (issue,) = [i for i in validate({"schema_version": "ACTF_v1.0", "steps": key}) if i.code != "security.secret"]
    assert key[:20] not in issue.message and "sk-a…(133 characters)" in issue.message


# --- secrets in member names ----------------------------------------------------------------------------------------


def test_a_member_named_by_a_secret_is_a_finding_at_that_member_never_showing_it(reader: str) -> None:
    text = json.dumps({"schema_version": "ACTF_v1.0", "steps": [], "meta": {OPENAI: {"calls": 3}}}, indent=2)
    found = scan(text)
    (issue,) = found
    assert (
        issue.code == "security.secret" and "the member's name holds what looks like an OpenAI API key" in issue.message
    )
    assert (issue.line, issue.column) == (5, 5)  # the member's name
    assert issue.pointer == "/meta/sk-p…(48 characters)"  # its pointer, the secret masked in it too
    issues = validate(text, secrets=True)
    assert "security.secret" in {i.code for i in issues}
    assert all(OPENAI not in i.message and OPENAI not in i.pointer for i in issues)


def test_a_secret_named_member_is_found_once_however_often_its_name_repeats() -> None:
    found = scan({"calls": [{OPENAI: 1}, {OPENAI: 2}, {"ok": 3}]})
    assert [issue.pointer for issue in found] == ["/calls/0/sk-p…(48 characters)", "/calls/1/sk-p…(48 characters)"]


def test_a_message_quoting_the_value_of_a_credential_member_masks_it() -> None:
    """A secret found by its member's name alone has no shape to find in a message: the message masks the value
    its pointer names wherever it quotes it (whole, or cut short as values are), and only there."""
    from agentbeats_spec.checking._examine import issues_of
    from agentbeats_spec.reading._documents import from_data
    from agentbeats_spec.vocabulary._issues import Finding
    from agentbeats_spec.vocabulary._text import quote

    value = "hunter2-correct-horse-battery-staple-" * 3
    document = from_data({"db": {"password": value, "user": "hunter2"}})
    findings = [
        Finding("/db/password", "schema.type", f"expected a number; found the string {quote(value)}"),
        Finding("/db/password", "schema.type", f"expected a number; found {value!r}"),
        Finding("/db/user", "schema.type", "expected a number; found 'hunter2'"),
    ]
    cut, whole, other = (issue.message for issue in issues_of(document, findings, None, None))
    assert cut == "expected a number; found the string 'hunt…(111 characters)'"
    assert whole == "expected a number; found 'hunt…(111 characters)'"
    assert other == "expected a number; found 'hunter2'"  # not a credential's member: nothing to mask
