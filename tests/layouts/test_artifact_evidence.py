"""Collected artifacts hold what their collector recorded: the file count, size and sha256 of each entry.

The runs are written by the released AgentCompass 1.0.1 collector (``download_artifacts``, through
tests/agentcompass_runs.py), then changed by a byte, a size, a file, a permission or a link. Each change that its
reuse check (``artifacts._validated_collected_artifacts``) refuses is an error at the entry's member; the run as
the collector left it is valid with no warning, and that check accepts it too.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
import types
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec import Issue, validate
from agentbeats_spec.application._tree_check import check_paths
from agentbeats_spec.cli import main
from agentbeats_spec.units import _cache
from agentbeats_spec.units._cache import VerdictCache

from ..agentcompass_runs import Attempt, Task, write_run, writer_modules

MODULES = writer_modules()
pytestmark = pytest.mark.skipif(MODULES is None, reason="AgentCompass 1.0.1 is not installed (make test does it)")
REFUSED = "AgentCompass 1.0.1 refuses to reuse it"
ENTRIES = "/artifacts/declared_artifacts/entries"
# One attempt whose collector transfer completes: a missing file, a file and a folder.
COLLECTED = Attempt(
    number=1, status="completed", severities=(), first_step=0, steps=1, aware=True, empty_tool_calls=False,
    transfer="complete", files=2, missing=True, retries=0, archive=False,
)  # fmt: skip
PLAN = (Task("collect #1", "swe", "42", k=1, strategy="avg", attempts=(COLLECTED,), published=True),)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run the 1.0.1 collector wrote: entry 0 missing, entry 1 the file outputs/0, entry 2 the folder outputs/1
    (inner/ and inner/log.txt)."""
    assert MODULES is not None
    folder = tmp_path_factory.mktemp("collected")
    root = (folder / "run").resolve()
    root.mkdir()
    write_run(MODULES, root, PLAN, folder / "sandbox")
    return root


@pytest.fixture
def run(written: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(written, copy, symlinks=True)
    return copy


def attempt(run: Path) -> Path:
    (found,) = run.glob("details/normal/*/attempt-1")
    return found


def manifest(run: Path) -> dict[str, Any]:
    data = json.loads((attempt(run) / "result.json").read_text(encoding="utf-8"))
    found: dict[str, Any] = data["artifacts"]["declared_artifacts"]
    return found


def reuse_refuses(run: Path) -> str | None:
    """What the released reuse check says of the run's stored artifacts: None when it accepts them."""
    assert MODULES is not None
    artifacts = MODULES.artifacts
    index = manifest(run)
    specs = [{"source": e["source"], "destination": e["destination"]} for e in index["entries"]]
    try:
        asyncio.run(artifacts._validated_collected_artifacts(index, run, specs, artifacts.ArtifactLimits()))
    except ValueError as error:
        return str(error)
    return None


def where(run: Path, member: str, value: object) -> tuple[int, int]:
    """Line and column of the value of ``member`` written as ``value`` in the attempt's result.json."""
    text = (attempt(run) / "result.json").read_text(encoding="utf-8")
    at = text.index(f'"{member}": {json.dumps(value)}') + len(f'"{member}": ')
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)


def errors(issues: list[Issue]) -> list[tuple[str, str, str, int | None, int | None]]:
    """(code, file name, pointer, line, column) of every error."""
    return [
        (i.code, os.path.basename(i.file or ""), i.pointer, i.line, i.column) for i in issues if i.severity == "error"
    ]


def test_what_the_collector_recorded_validates_with_no_warning_and_reuse_accepts_it(run: Path) -> None:
    entries = manifest(run)["entries"]
    assert [(e["destination"], e["status"], e.get("kind"), e.get("file_count")) for e in entries] == [
        ("never-written.txt", "missing", None, None), ("outputs/0", "collected", "file", 1),
        ("outputs/1", "collected", "directory", 3),
    ]  # fmt: skip
    assert [issue for issue in validate(run) if issue.severity != "info"] == []
    assert reuse_refuses(run) is None


def tricky_folder(folder: Path) -> None:
    """Names whose order differs by parts and by text (a/b before a-c), a dotfile, a non-ASCII name, an empty file
    and an empty folder, other permission bits, links to a file, to a folder and to nothing, all inside."""
    (folder / "a" / "b").mkdir(parents=True)
    (folder / "a-c").mkdir()
    (folder / "empty-folder").mkdir()
    (folder / "a" / "b" / "x.txt").write_text("hi ✓\n", encoding="utf-8")
    (folder / "a-c" / "y").write_bytes(bytes(range(256)))
    (folder / ".hidden").write_text("h")
    (folder / "ünïcode name").write_text("u")
    (folder / "empty").write_bytes(b"")
    (folder / "empty").chmod(0o600)
    (folder / "to-file").symlink_to("a/b/x.txt")
    (folder / "to-folder").symlink_to("a")
    (folder / "to-nothing").symlink_to("nowhere")


def test_a_folder_measured_as_the_collector_measures_it(run: Path, tmp_path: Path) -> None:
    """Entry 3 records what the released collector's own measure (_fingerprint) gives for a tricky folder."""
    assert MODULES is not None
    store = attempt(run) / "artifacts"
    tricky_folder(store / "outputs" / "tricky")
    recorded = MODULES.artifacts._fingerprint(store / "outputs" / "tricky", MODULES.artifacts.ArtifactLimits())
    result = attempt(run) / "result.json"
    data = json.loads(result.read_text(encoding="utf-8"))
    data["artifacts"]["declared_artifacts"]["entries"].append(
        {"source": "/work/tricky", "destination": "outputs/tricky", "exclude": [], "service": None,
         "status": "collected", "kind": "directory", **recorded}
    )  # fmt: skip
    result.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert recorded["file_count"] == 13
    assert reuse_refuses(run) is None
    links = {("security.symlink", "warning", name) for name in ("to-file", "to-folder", "to-nothing")}
    found = {(i.code, i.severity, os.path.basename(i.file or "")) for i in validate(run) if i.severity != "info"}
    assert found == links
    (store / "outputs" / "tricky" / "to-nothing").unlink()
    (store / "outputs" / "tricky" / "to-nothing").symlink_to("elsewhere")  # only the link's text changed
    assert reuse_refuses(run) == "stored artifact checksum mismatch"
    assert [(c, p) for c, _, p, _, _ in errors(validate(run))] == [("layout.artifact-mismatch", f"{ENTRIES}/3/sha256")]


def test_a_byte_changed_is_a_sha256_mismatch(run: Path) -> None:
    path = attempt(run) / "artifacts" / "outputs" / "0"
    raw = path.read_bytes()
    path.write_bytes(b"O" + raw[1:])  # the same size
    recorded = manifest(run)["entries"][1]["sha256"]
    assert reuse_refuses(run) == "stored artifact checksum mismatch"
    (issue,) = [issue for issue in validate(run) if issue.severity == "error"]
    line, column = where(run, "sha256", recorded)
    assert errors([issue]) == [("layout.artifact-mismatch", "result.json", f"{ENTRIES}/1/sha256", line, column)]
    assert issue.message.startswith("collected artifact 'outputs/0' has sha256 ")
    assert issue.message.endswith(
        f", but the collector recorded '{recorded[:12]}…' (its bytes, names or permission bits changed since): "
        + REFUSED
    )


def test_a_byte_changed_deep_in_a_folder_is_a_sha256_mismatch(run: Path) -> None:
    (attempt(run) / "artifacts" / "outputs" / "1" / "inner" / "log.txt").write_text("LOGGED\n")
    recorded = manifest(run)["entries"][2]["sha256"]
    assert reuse_refuses(run) == "stored artifact checksum mismatch"
    assert errors(validate(run)) == [
        ("layout.artifact-mismatch", "result.json", f"{ENTRIES}/2/sha256", *where(run, "sha256", recorded))
    ]


def test_a_size_changed_is_a_size_mismatch(run: Path) -> None:
    with (attempt(run) / "artifacts" / "outputs" / "0").open("ab") as stream:
        stream.write(b"more\n")
    recorded = manifest(run)["entries"][1]["size_bytes"]
    assert reuse_refuses(run) == "stored artifact checksum mismatch"
    (issue,) = [issue for issue in validate(run) if issue.severity == "error"]
    line, column = where(run, "size_bytes", recorded)
    assert errors([issue]) == [("layout.artifact-mismatch", "result.json", f"{ENTRIES}/1/size_bytes", line, column)]
    assert issue.message == (
        f"collected artifact 'outputs/0' holds {recorded + 5} byte(s), but the collector recorded size_bytes "
        f"{recorded}: {REFUSED}"
    )


def test_a_file_added_to_a_folder_is_a_file_count_mismatch(run: Path) -> None:
    (attempt(run) / "artifacts" / "outputs" / "1" / "extra.txt").write_bytes(b"")  # not a byte more
    assert reuse_refuses(run) == "stored artifact checksum mismatch"
    (issue,) = [issue for issue in validate(run) if issue.severity == "error"]
    line, column = where(run, "file_count", 3)
    assert errors([issue]) == [("layout.artifact-mismatch", "result.json", f"{ENTRIES}/2/file_count", line, column)]
    assert issue.message == (
        f"collected artifact 'outputs/1' holds 4 entries (itself and all below it), but the collector recorded "
        f"file_count 3: {REFUSED}"
    )


def test_a_permission_no_copy_makes_is_a_sha256_mismatch(run: Path) -> None:
    path = attempt(run) / "artifacts" / "outputs" / "1" / "inner" / "log.txt"
    path.chmod(path.stat().st_mode | 0o100)  # executable: no umask makes that of a file that was not
    assert reuse_refuses(run) == "stored artifact checksum mismatch"
    assert [(code, pointer) for code, _, pointer, _, _ in errors(validate(run))] == [
        ("layout.artifact-mismatch", f"{ENTRIES}/2/sha256")
    ]


@pytest.mark.parametrize("mode", [0o664, 0o600, 0o640])
def test_permissions_a_copy_under_another_umask_makes_are_a_warning(run: Path, mode: int) -> None:
    """The bytes are as collected, and the bits are those of a checkout or copy under umask 002, 077 or 027: the
    released reuse still refuses (a warning says so), but the verdict does not depend on the checking machine."""
    path = attempt(run) / "artifacts" / "outputs" / "1" / "inner" / "log.txt"
    path.chmod(mode)
    assert reuse_refuses(run) == "stored artifact checksum mismatch"
    found = [issue for issue in validate(run) if issue.severity != "info"]
    assert [(issue.code, issue.severity, issue.pointer) for issue in found] == [
        ("layout.artifact-permissions", "error", f"{ENTRIES}/2/sha256")
    ]
    assert found[0].message == (
        "collected artifact 'outputs/1' holds the names, sizes and bytes its collector recorded, but 'inner/log.txt' "
        f"has permission bits {mode:04o} where the collector's were 0644 (as a checkout or copy under another umask "
        "than 022 makes them): AgentCompass 1.0.1 refuses to reuse it until they are restored (chmod 0644)"
    )


def test_without_hashing_size_and_count_are_still_compared(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = attempt(run) / "artifacts" / "outputs" / "0"
    path.write_bytes(b"O" + path.read_bytes()[1:])
    assert [issue for issue in validate(run, verify_artifacts=False) if issue.severity != "info"] == []
    assert main(["validate", "--no-cache", "--no-verify-artifacts", str(run)]) == 0
    assert main(["validate", "--no-cache", str(run)]) == 1
    capsys.readouterr()
    (attempt(run) / "artifacts" / "outputs" / "1" / "extra.txt").write_bytes(b"")
    assert [(c, p) for c, _, p, _, _ in errors(validate(run, verify_artifacts=False))] == [
        ("layout.artifact-mismatch", f"{ENTRIES}/2/file_count")
    ]


def test_a_link_inside_a_folder_artifact_that_leads_out_is_refused(run: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("outside\n")
    (attempt(run) / "artifacts" / "outputs" / "1" / "inner" / "log.txt").unlink()
    (attempt(run) / "artifacts" / "outputs" / "1" / "inner" / "log.txt").symlink_to(tmp_path / "secret.txt")
    assert reuse_refuses(run) == "artifact contains an escaping symbolic link"
    found = errors(validate(run))
    assert ("security.path-escape", "log.txt", "", None, None) in found  # the link, reported and not followed
    assert ("layout.artifact-mismatch", "result.json", f"{ENTRIES}/2/destination",
            *where(run, "destination", "outputs/1")) in found  # fmt: skip
    message = {i.code: i.message for i in validate(run)}["layout.artifact-mismatch"]
    assert message == (
        f"collected artifact 'outputs/1' holds a symbolic link that leads out of it, at 'inner/log.txt': {REFUSED}"
    )


def test_a_collected_artifact_that_is_a_link_is_refused(run: Path) -> None:
    artifact = attempt(run) / "artifacts" / "outputs" / "0"
    artifact.rename(artifact.with_name("0.real"))
    artifact.symlink_to("0.real")
    assert reuse_refuses(run) == "stored artifact source must not be a symbolic link"
    found = {(i.code, i.pointer, i.message) for i in validate(run) if i.severity == "error"}
    message = f"collected artifact 'outputs/0' is a symbolic link: {REFUSED}"
    assert ("layout.artifact-mismatch", f"{ENTRIES}/1/destination", message) in found


def test_a_fifo_in_a_folder_artifact_is_refused(run: Path) -> None:
    os.mkfifo(attempt(run) / "artifacts" / "outputs" / "1" / "pipe")
    assert reuse_refuses(run) is not None
    found = {(i.code, i.pointer, i.message) for i in validate(run) if i.severity == "error"}
    assert found == {
        ("layout.artifact-mismatch", f"{ENTRIES}/2/destination",
         f"collected artifact 'outputs/1' holds a FIFO, socket or device at 'pipe': {REFUSED}")
    }  # fmt: skip


def test_a_collected_entry_that_records_no_evidence_cannot_be_reused_and_is_not_measured(run: Path) -> None:
    """The collector records all three; reuse reads each of them (a missing one fails it), so an entry without
    them is an error at the entry, and nothing is compared with the artifact on disk."""
    result = attempt(run) / "result.json"
    data = json.loads(result.read_text(encoding="utf-8"))
    collected = [
        position
        for position, entry in enumerate(data["artifacts"]["declared_artifacts"]["entries"])
        if entry["status"] == "collected"
    ]
    for entry in data["artifacts"]["declared_artifacts"]["entries"]:
        for name in ("sha256", "size_bytes", "file_count"):
            entry.pop(name, None)
    result.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (attempt(run) / "artifacts" / "outputs" / "1" / "extra.txt").write_text("x")
    with pytest.raises(KeyError):
        reuse_refuses(run)
    found = [(code, pointer) for code, _, pointer, _, _ in errors(validate(run))]
    assert collected and found == [
        ("rule.reuse-refused", f"/artifacts/declared_artifacts/entries/{position}") for position in collected
    ]


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the run were checked a minute after its files were written: none of them is racily clean."""
    monkeypatch.setattr(_cache, "time", types.SimpleNamespace(time_ns=lambda: time.time_ns() + 60 * 10**9))


def test_the_verdict_cache_sees_a_byte_changed_deep_in_an_artifact(run: Path, tmp_path: Path, later: None) -> None:
    """The cache key is the lstat of every entry below the task folder, the deepest artifact file included: a byte
    rewritten with its size and mtime restored still moves its ctime."""
    first = VerdictCache(tmp_path / "cache", "options")
    assert errors(list(check_paths([run], cache=first).issues)) == []
    assert first.misses == 1
    path = attempt(run) / "artifacts" / "outputs" / "1" / "inner" / "log.txt"
    before = path.stat()
    raw = path.read_bytes()
    path.write_bytes(raw.upper())
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    again = VerdictCache(tmp_path / "cache", "options")
    report = check_paths([run], cache=again)
    assert (again.hits, again.misses) == (0, 1)
    assert [(c, p) for c, _, p, _, _ in errors(list(report.issues))] == [
        ("layout.artifact-mismatch", f"{ENTRIES}/2/sha256")
    ]


def test_hashing_or_not_are_other_cache_keys(run: Path, tmp_path: Path, later: None) -> None:
    """A verdict kept without hashing is never the verdict of a run that hashes."""
    path = attempt(run) / "artifacts" / "outputs" / "0"
    path.write_bytes(b"O" + path.read_bytes()[1:])
    cache = str(tmp_path / "cache")
    assert main(["validate", "--cache", cache, "--no-verify-artifacts", str(run)]) == 0
    assert main(["validate", "--cache", cache, str(run)]) == 1


def test_the_dask_path_compares_artifacts_alike(run: Path) -> None:
    pytest.importorskip("dask.bag")
    from agentbeats_spec.distributed import validate_with_dask

    path = attempt(run) / "artifacts" / "outputs" / "0"
    path.write_bytes(b"O" + path.read_bytes()[1:])
    assert "layout.artifact-mismatch" in {issue.code for issue in validate(run)}
    assert validate_with_dask(run, scheduler="sync") == validate(run)
    unhashed = validate(run, verify_artifacts=False)
    assert "layout.artifact-mismatch" not in {issue.code for issue in unhashed}
    assert validate_with_dask(run, scheduler="sync", verify_artifacts=False) == unhashed
