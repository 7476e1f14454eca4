"""The editor examples of docs/editors.md: VS Code json.schemas and taplo, on the fixtures."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from agentbeats_spec import kinds
from agentbeats_spec.checking._bundle import bundle
from agentbeats_spec.checking._kinds import KINDS, from_content, from_path

from ..conftest import FIXTURES, ROOT

EDITORS = ROOT / "docs" / "editors"
TAPLO = ROOT / "tests" / "node" / "node_modules" / ".bin" / "taplo"
# BEGIN GENERATED SCHEMA_FILES: by tools/codegen.py from the kind table: do not edit by hand
SCHEMA_FILES = {
    "./.schemas/results.v1.json": "abv3-results",
    "./.schemas/verify-case.v1.json": "abb-case",
    "./.schemas/task.v3.json": "agentcompass-task",
    "./.schemas/attempt.v3.json": "agentcompass-attempt",
    "./.schemas/task-detail.v3.json": "agentcompass-task-detail",
    "./.schemas/retry.v1.json": "agentcompass-retry",
    "./.schemas/run-info.v3.json": "agentcompass-run-info",
    "./.schemas/analysis-summary.v1.json": "agentcompass-analysis-summary",
    "./.schemas/trajectory.v1.0.json": "actf-trajectory",
}
# END GENERATED SCHEMA_FILES
# Run-level files with names too common to match anywhere (and JSON Lines, which editors do not check).
RUN_ROOT_ONLY = {"agentcompass-params", "agentcompass-metrics", "agentcompass-progress", "agentcompass-progress-events"}


def glob_regex(pattern: str) -> re.Pattern[str]:
    """VS Code's glob: ** crosses folders, * does not."""
    out = re.escape(pattern).replace(r"\*\*/", "(?:.*/)?").replace(r"\*", "[^/]*")
    return re.compile("^" + out + "$")


def test_every_vscode_pattern_selects_exactly_its_kinds_fixtures() -> None:
    settings = json.loads((EDITORS / "vscode-settings.json").read_text())["json.schemas"]
    assert sorted(entry["url"] for entry in settings) == sorted(SCHEMA_FILES)
    files = [path for path in (FIXTURES / "valid").rglob("*.json")]
    assert files
    for entry in settings:
        kind = SCHEMA_FILES[entry["url"]]
        patterns = [glob_regex(pattern) for pattern in entry["fileMatch"]]
        for path in files:
            relative = path.relative_to(ROOT).as_posix()
            if any(pattern.match(relative) for pattern in patterns):
                detected = from_path(path) or from_content(json.loads(path.read_text()))
                assert detected is not None and detected.name == kind, (relative, kind)
    covered = {SCHEMA_FILES[entry["url"]] for entry in settings}
    assert covered == set(KINDS) - {"abv3-repo"} - RUN_ROOT_ONLY  # agentbeats.toml is TOML: taplo's


def test_the_docs_list_a_bundle_command_for_every_kind() -> None:
    text = (ROOT / "docs" / "editors.md").read_text()
    for kind in kinds():
        assert f"agentbeats-spec schema {kind.name} --bundle" in text


@pytest.mark.skipif(
    not os.environ.get("CI") and not TAPLO.exists(),
    reason="taplo comes with `npm ci --prefix tests/node` (make test does it)",
)
@pytest.mark.parametrize(("fixture", "code"), [("valid/abv3-repo", 0), ("invalid/abv3-repo", 1)])
def test_taplo_checks_agentbeats_toml_with_the_documented_config(tmp_path: Path, fixture: str, code: int) -> None:
    shutil.copy(EDITORS / "taplo.toml", tmp_path / ".taplo.toml")
    schemas = tmp_path / ".schemas"
    schemas.mkdir()
    (schemas / "agentbeats-toml.v1.json").write_text(json.dumps(bundle(KINDS["abv3-repo"].latest)))
    shutil.copy(FIXTURES / fixture / "agentbeats.toml", tmp_path / "agentbeats.toml")
    result = subprocess.run([str(TAPLO), "check", "agentbeats.toml"], cwd=tmp_path, capture_output=True, text=True,
                            check=False, timeout=120)  # fmt: skip
    assert result.returncode == code, result.stderr
    if code:
        assert '"author" is a required property' in result.stderr
