"""The editor examples of docs/editors.md: VS Code json.schemas and taplo, on the fixtures."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from agentbeats_spec import Issue, kinds, validate
from agentbeats_spec.checking._bundle import bundle
from agentbeats_spec.checking._kinds import KINDS, Kind, from_content, from_path
from agentbeats_spec.cli import main

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


# The folder `agentbeats-spec schema --all -o DIR` writes, loaded by the editors' own engines, offline.
NODE_TOOLS = ROOT / "tests" / "node" / "node_modules" / "vscode-json-languageservice"
needs_node_tools = pytest.mark.skipif(
    not os.environ.get("CI") and not (NODE_TOOLS.exists() and TAPLO.exists() and shutil.which("node")),
    reason="vscode-json-languageservice and taplo come with `npm ci --prefix tests/node` (make test does it)",
)


def written_folder(target: Path) -> dict[str, Any]:
    """The folder written by the command line, and its catalog."""
    assert main(["schema", "--all", "-o", str(target)]) == 0
    return cast("dict[str, Any]", json.loads((target / "catalog.json").read_text(encoding="utf-8")))


def editor(catalog: Path, files: list[Path]) -> list[dict[str, Any]]:
    """What VS Code's JSON service says of each file, given the catalog's schemas (tests/node/editor.mjs)."""
    result = subprocess.run(
        ["node", str(ROOT / "tests" / "node" / "editor.mjs"), str(catalog), *map(str, files)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return cast("list[dict[str, Any]]", json.loads(result.stdout))


def positions(issues: list[Issue], prefix: str) -> set[tuple[int, int]]:
    return {(issue.line, issue.column) for issue in issues if issue.code.startswith(prefix) and issue.line}


def test_the_written_folder_is_the_repository_schemas_folder_with_file_urls(tmp_path: Path) -> None:
    catalog = written_folder(tmp_path / "schemas")
    written = sorted(path.relative_to(tmp_path / "schemas") for path in (tmp_path / "schemas").rglob("*.json"))
    assert written == sorted(path.relative_to(ROOT / "schemas") for path in (ROOT / "schemas").rglob("*.json"))
    for path in written:
        if path.name != "catalog.json":
            assert (tmp_path / "schemas" / path).read_bytes() == (ROOT / "schemas" / path).read_bytes(), path
    base = (tmp_path / "schemas").resolve().as_uri() + "/"
    committed = json.loads((ROOT / "schemas" / "catalog.json").read_text(encoding="utf-8"))
    assert json.dumps(catalog).replace(base, "./") == json.dumps(committed)
    for entry in catalog["schemas"]:
        for url in [entry["url"], *entry["versions"].values()]:
            assert url.startswith(base) and Path(url.removeprefix("file://")).is_file()
        kind = next(kind for kind in kinds() if kind.title == entry["name"])
        if kind.syntax == "jsonl":  # one event per line: an editor would judge the whole file as one document
            assert "fileMatch" not in entry
        for pattern in entry.get("fileMatch", []):
            assert pattern.startswith("**/") and pattern not in ("**/task.json", "**/results.json", "**/case.json")


def test_schema_all_needs_a_folder_and_nothing_else() -> None:
    assert main(["schema", "--all"]) == 2
    assert main(["schema", "--all", "-o", "x", "abb-case"]) == 2
    assert main(["schema"]) == 2


def _version(path: Path) -> object:
    """The value of a file's version field, if its kind has one and the file says it (None otherwise)."""
    kind = from_path(path)
    if kind is None or kind.version_field is None:
        return None
    try:
        document = json.loads(path.read_bytes())
    except ValueError:
        return None
    return document.get(kind.version_field) if isinstance(document, dict) else None


def _of_the_newest_version(path: Path) -> bool:
    """Whether a file is not of an older version of its kind: an editor knows a kind's newest schema alone (the
    catalog's ``url``), which refuses an older version's version field."""
    kind, version = from_path(path), _version(path)
    return kind is None or not isinstance(version, str) or kind.versions.get(version, kind.latest) == kind.latest


def _version_line(path: Path, kind: Kind) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if f'"{kind.version_field}"' in line)


@needs_node_tools
def test_vscode_loads_the_written_catalog_and_places_each_finding_where_validate_does(tmp_path: Path) -> None:
    written_folder(tmp_path / "schemas")
    fixtures = sorted(FIXTURES.rglob("*.json"))
    # files of other projects that share a name with an artifact are left alone
    other = tmp_path / "other-project"
    for name in ("task.json", "results.json", "case.json", "result.json", "data/results.json"):
        (other / name).parent.mkdir(parents=True, exist_ok=True)
        (other / name).write_text('{"anything": 1}\n')
    answers = editor(tmp_path / "schemas" / "catalog.json", [*fixtures, *sorted(other.rglob("*.json"))])
    selected = [answer for answer in answers if answer["schema"]]
    assert len(selected) >= 15
    assert not [answer["file"] for answer in answers if answer["file"].startswith(str(other)) and answer["schema"]]
    compared = 0
    for answer in selected:
        path = Path(answer["file"])
        detected = from_path(path)
        assert detected is not None and detected.latest == answer["schema"], answer["file"]
        found = validate(path)
        seen = {(diagnostic["line"], diagnostic["column"]) for diagnostic in answer["diagnostics"]}
        if not _of_the_newest_version(path):  # judged by the newest schema: its version is one more finding
            seen = {(line, column) for line, column in seen if line != _version_line(path, detected)}
        if positions(found, "json."):  # not JSON: the editor stops at the syntax, as validate does
            assert positions(found, "json.") <= seen, answer
        else:
            assert seen == positions(found, "schema."), answer
        compared += bool(seen)
    assert compared >= 3  # the invalid fixtures the catalog selects, each with its findings


@needs_node_tools
@pytest.mark.parametrize(("fixture", "code"), [("valid/abv3-repo", 0), ("invalid/abv3-repo", 1)])
def test_taplo_loads_the_written_catalog_for_agentbeats_toml(tmp_path: Path, fixture: str, code: int) -> None:
    catalog = tmp_path / "schemas" / "catalog.json"
    written_folder(catalog.parent)
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(FIXTURES / fixture / "agentbeats.toml", project / "agentbeats.toml")
    result = subprocess.run(
        [str(TAPLO), "check", "--no-auto-config", "--schema-catalog", catalog.as_uri(), "agentbeats.toml"],
        cwd=project, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert result.returncode == code, result.stderr
    assert "failed to" not in result.stderr  # the catalog and its schema loaded
    seen = {(int(line), int(column)) for line, column in re.findall(r"agentbeats\.toml:(\d+):(\d+)", result.stderr)}
    found = validate(project / "agentbeats.toml")
    # taplo marks a missing member on the table and its members, every other finding where validate does
    required = {line for line, _ in positions([i for i in found if i.code == "schema.required"], "schema.")}
    assert required <= {line for line, _ in seen}
    schema_found = {(i.line, i.column) for i in found if i.code.startswith("schema.") and i.code != "schema.required"}
    assert schema_found <= seen
    assert bool(seen) == bool(code)


def test_check_jsonschema_takes_the_written_files(tmp_path: Path) -> None:
    catalog = written_folder(tmp_path / "schemas")
    checked = 0
    for entry in catalog["schemas"]:
        patterns = [glob_regex(pattern) for pattern in entry.get("fileMatch", []) if pattern.endswith(".json")]
        for verdict, folder in ((0, "valid"), (1, "invalid")):
            # each file against the schema of its own version (the catalog's versions), as a user names it
            by_schema: dict[str, list[Path]] = {}
            for path in sorted((FIXTURES / folder).rglob("*.json")):
                if any(pattern.match(path.relative_to(ROOT).as_posix()) for pattern in patterns):
                    by_schema.setdefault(entry["versions"].get(_version(path), entry["url"]), []).append(path)
            for url, files in by_schema.items():
                schema_file = url.removeprefix("file://")
                result = subprocess.run(
                    [str(Path(sys.executable).parent / "check-jsonschema"), "--schemafile", schema_file,
                     *map(str, files)],
                    capture_output=True, text=True, check=False, timeout=300,
                )  # fmt: skip
                expected = verdict if folder == "valid" else int(any(positions(validate(f), "schema.") for f in files))
                assert result.returncode == expected, (entry["name"], files, result.stdout)
                checked += len(files)
    assert checked >= 15
