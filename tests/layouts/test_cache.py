"""The verdict cache never misses a change, and --jobs starts workers only where the tree is big enough to gain."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import types
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec.cli import main
from agentbeats_spec.layouts import check_paths, plan
from agentbeats_spec.walk import _cache, _units
from agentbeats_spec.walk._cache import VerdictCache

from ..conftest import VALID


@pytest.fixture
def run(tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(VALID / "agentcompass-run", copy)
    return copy


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the run were checked a minute after its files were written: none of them is racily clean."""
    monkeypatch.setattr(_cache, "time", types.SimpleNamespace(time_ns=lambda: time.time_ns() + 60 * 10**9))


def attempt_results(run: Path) -> list[Path]:
    return sorted(run.glob("details/*/*/attempt-*/result.json"))


def test_an_unchanged_task_folder_is_taken_from_the_cache(run: Path, tmp_path: Path, later: None) -> None:
    cache = VerdictCache(tmp_path / "cache", "options")
    first = check_paths([run], cache=cache)
    assert (cache.hits, cache.misses) == (0, 2)
    second = check_paths([run], cache=VerdictCache(tmp_path / "cache", "options"))
    assert second == first
    warm = VerdictCache(tmp_path / "cache", "options")
    check_paths([run], cache=warm)
    assert (warm.hits, warm.misses) == (2, 0)


def test_one_byte_rewritten_with_size_and_mtime_restored_is_checked_again(
    run: Path, tmp_path: Path, later: None
) -> None:
    check_paths([run], cache=VerdictCache(tmp_path / "cache", "options"))
    result = attempt_results(run)[0]
    before = result.stat()
    raw = result.read_bytes()
    assert b'"status": "' in raw
    at = raw.index(b'"status": "') + len(b'"status": "')
    result.write_bytes(raw[:at] + b"X" + raw[at + 1 :])  # the same size: only the status is wrong
    os.utime(result, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = result.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    cache = VerdictCache(tmp_path / "cache", "options")
    report = check_paths([run], cache=cache)
    assert (cache.hits, cache.misses) == (1, 1)  # the ctime moved: only that task folder is checked again
    assert [(issue.file, issue.code, issue.pointer) for issue in report.issues if issue.severity == "error"] == [
        (str(result), "schema.enum", "/status")
    ]


def test_a_recently_changed_folder_is_never_stored(run: Path, tmp_path: Path) -> None:
    """Racily clean, as git calls it: within the timestamps' granularity an edit may leave the stat unchanged."""
    check_paths([run], cache=VerdictCache(tmp_path / "cache", "options"))
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_other_options_or_another_package_version_are_other_keys(
    run: Path, tmp_path: Path, later: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_paths([run], cache=VerdictCache(tmp_path / "cache", "options"))
    other = VerdictCache(tmp_path / "cache", "other options")
    check_paths([run], cache=other)
    assert other.hits == 0
    monkeypatch.setattr(_cache, "__version__", "99.0")
    newer = VerdictCache(tmp_path / "cache", "options")
    check_paths([run], cache=newer)
    assert newer.hits == 0


def test_a_damaged_cache_entry_is_a_miss(run: Path, tmp_path: Path, later: None) -> None:
    first = check_paths([run], cache=VerdictCache(tmp_path / "cache", "options"))
    for entry in (tmp_path / "cache").rglob("*.json"):
        entry.write_text('{"issues": [["half"')
    cache = VerdictCache(tmp_path / "cache", "options")
    assert check_paths([run], cache=cache) == first
    assert cache.hits == 0


def test_the_command_line_keeps_verdicts_where_it_is_told(run: Path, tmp_path: Path, later: None) -> None:
    cache = tmp_path / "cache"
    arguments = ["validate", "--format", "json", "--jobs", "1", str(run)]
    assert main([*arguments, "--cache", str(cache)]) == 0
    assert len(list(cache.rglob("*.json"))) == 2
    assert main([*arguments, "--no-cache"]) == 0


def test_a_cache_folder_inside_the_checked_tree_is_refused(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--cache", str(run / "cache"), str(run)]) == 2
    assert "the cache folder" in capsys.readouterr().err
    assert not (run / "cache").exists()


def test_the_default_cache_folder_is_the_users_and_never_inside_the_tree(
    run: Path, monkeypatch: pytest.MonkeyPatch, later: None
) -> None:
    monkeypatch.setattr(_cache.sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(run / "xdg"))
    assert _cache.default_folder() == run / "xdg" / "agentbeats-spec"
    assert main(["validate", "--format", "json", str(run)]) == 0
    assert not (run / "xdg").exists()  # inside the checked tree: the run went without a cache


@pytest.fixture
def submitted(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    real = ProcessPoolExecutor.submit

    def submit(self: ProcessPoolExecutor, *arguments: Any) -> Any:
        calls.append(arguments)
        return real(self, *arguments)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", submit)
    return calls


def test_a_small_run_starts_no_worker_process(run: Path, submitted: list[Any]) -> None:
    assert check_paths([run], jobs=2) == check_paths([run], jobs=1)
    assert submitted == []


def test_a_big_run_goes_to_workers_in_batches_with_the_report_of_one_process(
    run: Path, tmp_path: Path, submitted: list[Any], monkeypatch: pytest.MonkeyPatch, later: None
) -> None:
    monkeypatch.setattr(_units, "WORKERS_GAIN_BYTES", 1)
    monkeypatch.setattr(_units, "BATCH_UNITS", 3)
    runs = [run]
    for copy in range(3):
        runs.append(tmp_path / f"run{copy}")
        shutil.copytree(run, runs[-1])
    result = attempt_results(runs[-1])[0]
    data = json.loads(result.read_text())
    data["status"] = "done"
    result.write_text(json.dumps(data))
    one = check_paths(runs, jobs=1)
    cache = VerdictCache(tmp_path / "cache", "options")
    two = check_paths(runs, jobs=2, cache=cache)
    assert two == one
    units = plan(runs).units  # task folders and the run-level files beside them
    sizes = [len(batch) for _, batch, *_ in submitted]
    assert sum(sizes) == len(units) and max(sizes) == 3 and len(sizes) == -(-len(units) // 3)  # batches of three
    assert any(issue.code == "schema.enum" for issue in two.issues)
    warm = VerdictCache(tmp_path / "cache", "options")
    assert check_paths(runs, jobs=2, cache=warm) == one  # reports made in workers were stored
    assert warm.hits == 8


def test_a_small_valid_file_imports_neither_python_jsonschema_nor_referencing() -> None:
    """Start-up: a pre-commit hook on one valid file pays for jsonschema-rs alone (python-jsonschema reports)."""
    probe = (
        "import sys\n"
        "from agentbeats_spec.cli import main\n"
        "code = main(['validate', '--format', 'json', sys.argv[1]])\n"
        "print(code, sorted(name for name in ('jsonschema', 'referencing', 'cattrs') if name in sys.modules))\n"
    )
    small = VALID / "actf" / "trajectory.json"
    result = subprocess.run([sys.executable, "-c", probe, str(small)], capture_output=True, text=True, check=True)
    assert result.stdout.split("\n")[-2] == "0 []"
