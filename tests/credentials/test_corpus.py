"""The shared corpus of fake secrets (tests/data/secrets/): scan finds every positive, exactly, and no negative;
redact removes exactly what it finds; and docs/security.md shows what detect-secrets 1.5.0 makes of the same files."""

from __future__ import annotations

import pytest

from agentbeats_spec import scan
from agentbeats_spec.credentials._redact import redact_file
from agentbeats_spec.vocabulary._secrets import SCAN_SHAPES

from ..conftest import ROOT
from . import corpus

CASES = corpus.cases()


def test_the_corpus_on_disk_is_what_its_generator_writes() -> None:
    on_disk = {
        path.relative_to(corpus.CORPUS).as_posix(): path.read_bytes().decode("utf-8")
        for path in corpus.CORPUS.rglob("*")
        if path.is_file()
    }
    assert on_disk == corpus.files()


def test_the_corpus_holds_every_shape_the_issue_lists_and_each_false_one() -> None:
    names = {case.name for case in CASES}
    assert len(names) == len(CASES)
    assert sum(case.label == "positive" for case in CASES) == 35
    assert all(case.secrets for case in CASES if case.label == "positive")
    assert not any(case.secrets for case in CASES if case.label == "negative")
    # Every shape of the scan, and both rules by name, are what some positive is found by.
    messages = [
        issue.message for case in CASES if case.label == "positive" for issue in scan(corpus.CORPUS / case.path)
    ]
    for shape in SCAN_SHAPES:
        assert any(f"looks like {shape.what}:" in message for message in messages), shape.what
    assert any("the credential member" in message for message in messages)
    assert any("holds base64 credentials (user:password)" in message for message in messages)


@pytest.mark.parametrize("case", [case for case in CASES if case.label == "positive"], ids=lambda case: case.name)
def test_every_positive_is_found_exactly(case: corpus.Case) -> None:
    path = corpus.CORPUS / case.path
    found = scan(path)
    assert {issue.code for issue in found} == {"security.secret"}
    assert sorted(corpus.secret_hash(issue) for issue in found) == sorted(map(corpus.sha1, case.secrets))
    assert all(secret not in issue.message for issue in found for secret in case.secrets)
    redacted, note, kept = redact_file(path, path.read_bytes())
    assert (note, kept) == (None, 0)
    text = redacted.decode("utf-8")
    assert all(secret not in text for secret in case.secrets)
    # One mask for each secret, and nothing else masked.
    original = path.read_text(encoding="utf-8")
    assert text.count("********") - original.count("********") == len(case.secrets)


@pytest.mark.parametrize("case", [case for case in CASES if case.label == "negative"], ids=lambda case: case.name)
def test_no_negative_is_flagged(case: corpus.Case) -> None:
    path = corpus.CORPUS / case.path
    assert scan(path) == []
    assert redact_file(path, path.read_bytes()) == (path.read_bytes(), None, 0)


def test_the_cli_scan_of_the_corpus_reports_each_positive_secret_once(capsys: pytest.CaptureFixture[str]) -> None:
    from agentbeats_spec.cli import main

    assert main(["scan", "--format", "json", str(corpus.CORPUS / "negative")]) == 0
    capsys.readouterr()
    assert main(["scan", "--format", "json", str(corpus.CORPUS / "positive")]) == 1
    out = capsys.readouterr().out
    assert out.count('"security.secret"') == sum(len(case.secrets) for case in CASES)


def test_security_md_shows_what_each_tool_finds_on_the_corpus() -> None:
    pytest.importorskip("detect_secrets", reason="detect-secrets==1.5.0 is in the dev extra")
    import detect_secrets.__version__

    assert detect_secrets.__version__.VERSION == "1.5.0"
    table = corpus.comparison()
    assert table in (ROOT / "docs" / "security.md").read_text(encoding="utf-8"), (
        "docs/security.md must show `python -m tests.credentials.corpus --table`"
    )
    assert table.splitlines()[-1] == (
        "| **total** | 35 positives, 10 negatives | 35 found, 0 flagged | 21 found, 1 flagged |"
    )


def test_validate_secrets_finds_in_artifacts_what_scan_finds() -> None:
    from agentbeats_spec import validate

    observations = [case for case in CASES if case.content.startswith('{\n  "schema_version": "ACTF_v1.0"')]
    assert len(observations) >= 15
    for case in observations:
        found = [
            issue for issue in validate(corpus.CORPUS / case.path, secrets=True) if issue.code == "security.secret"
        ]
        assert sorted(corpus.secret_hash(issue) for issue in found) == sorted(map(corpus.sha1, case.secrets)), case.name
        assert (case.label == "negative") is (found == [])
