"""Our SARIF logs judged by Microsoft's SARIF Multitool with the SARIF and GitHub rules (`--rule-kind Sarif;Gh`),
as GitHub code scanning wants them: every rule described and documented, the driver's informationUri, snippets."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from agentbeats_spec.cli import main
from agentbeats_spec.reporting import _links

from ..conftest import ROOT

# `npm ci --prefix tests/node` installs it (tests/node/package.json devDependencies): a self-contained binary
MULTITOOL = ROOT / "tests" / "node" / "node_modules" / "@microsoft" / "sarif-multitool-linux" / "Sarif.Multitool"
needs_multitool = pytest.mark.skipif(
    not os.environ.get("CI") and not MULTITOOL.exists(),
    reason="the SARIF Multitool comes with `npm ci --prefix tests/node` (make test does it)",
)


def multitool(log: Path) -> list[str]:
    """The Multitool's findings on a log, one line each (none: the log is clean)."""
    result = subprocess.run(
        [str(MULTITOOL), "validate", "--rule-kind", "Sarif;Gh", str(log)],
        capture_output=True, text=True, check=False, timeout=300,
        env={**os.environ, "DOTNET_CLI_TELEMETRY_OPTOUT": "1"},
    )  # fmt: skip
    assert "Analysis completed successfully" in result.stdout, result.stdout + result.stderr
    return [line for line in result.stdout.splitlines() if ": error " in line or ": warning " in line]


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # file URIs relative to the working folder, as in a CI checkout
    # as a release whose metadata publishes the project's addresses (reporting/_links.py): then every rule links
    monkeypatch.setattr(_links, "project_urls", lambda: PUBLISHED)


PUBLISHED = {"Homepage": "https://example.org/agentbeats-spec", "Documentation": "https://example.org/abs/docs"}


def sarif_of(tmp_path: Path, *argv: str) -> Path:
    log = tmp_path / "log.sarif"
    main(["validate", "--format", "json", "--output", f"sarif:{log}", *argv])
    return log


@needs_multitool
def test_the_multitool_finds_nothing_in_the_log_of_every_invalid_fixture(
    tmp_path: Path, at_root: None, capsys: pytest.CaptureFixture[str]
) -> None:
    log = sarif_of(tmp_path, "fixtures/invalid", "fixtures/valid")
    assert multitool(log) == []


@needs_multitool
def test_the_multitool_finds_nothing_in_a_log_of_a_secret_or_a_failed_run(
    tmp_path: Path, at_root: None, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "results.json"
    secret.write_text(json.dumps({"note": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}))
    assert multitool(sarif_of(tmp_path, "--secrets", "--kind", "abv3-results", str(secret))) == []
    assert multitool(sarif_of(tmp_path, "no/such/path")) == []
    (tmp_path / "empty").mkdir()
    assert multitool(sarif_of(tmp_path, str(tmp_path / "empty"))) == []


@needs_multitool
def test_without_published_addresses_the_multitool_misses_only_the_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No address is made up (this checkout's metadata names none): the Multitool then asks for the tool's
    informationUri and nothing else; GitHub's own rules (GH*) find nothing."""
    monkeypatch.chdir(ROOT)
    assert _links.project_urls() == {}
    found = multitool(sarif_of(tmp_path, "fixtures/invalid"))
    assert found and all("SARIF2005" in line and "informationUri" in line for line in found), found
