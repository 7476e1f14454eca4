"""The verdict cache never misses a change, and --jobs starts workers only where the tree is big enough to gain."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec.application._tree_check import check_paths, plan
from agentbeats_spec.cli import main
from agentbeats_spec.reading import _nativejson
from agentbeats_spec.units import _cache, _running
from agentbeats_spec.units._cache import VerdictCache

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
    damaged = sorted((tmp_path / "cache").rglob("*.json"))
    assert damaged
    for entry in damaged:
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


def test_a_small_run_starts_no_worker_process(run: Path, submitted: list[Any]) -> None:
    assert check_paths([run], jobs=2) == check_paths([run], jobs=1)
    assert submitted == []


def test_a_big_run_goes_to_workers_in_batches_with_the_report_of_one_process(
    run: Path, tmp_path: Path, submitted: list[Any], monkeypatch: pytest.MonkeyPatch, later: None
) -> None:
    monkeypatch.setattr(_running, "WORKERS_GAIN_BYTES", 1)
    monkeypatch.setattr(_running, "BATCH_UNITS", 3)
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


# The cache is input too: a folder or entry someone else could write is not used, and an entry is used only when
# its digest and every field's type and shape hold.


@pytest.fixture
def broken_run(run: Path) -> Path:
    """The run with one attempt's status wrong: an invalid tree, whose verdict is one schema.enum error."""
    result = attempt_results(run)[0]
    data = json.loads(result.read_text())
    data["status"] = "done"
    result.write_text(json.dumps(data))
    return run


def entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.json"))


def has_no_issue(entry: Path) -> bool:
    return not json.loads(entry.read_text())["verdict"]["issues"]


def validate_json(tree: Path, cache: Path) -> int:
    return main(["validate", "--format", "json", "--jobs", "1", "--cache", str(cache), str(tree)])


def test_an_entry_edited_to_hold_no_issue_does_not_make_an_invalid_tree_valid(
    broken_run: Path, tmp_path: Path, later: None, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    assert validate_json(broken_run, cache) == 1
    first = capsys.readouterr().out
    for entry in entries(cache):
        stored = json.loads(entry.read_text())
        stored["verdict"]["issues"] = []
        entry.write_text(json.dumps(stored))
    assert validate_json(broken_run, cache) == 1
    assert capsys.readouterr() == (first, "")  # the edited entries were misses, and nothing to warn about


def test_the_cache_is_written_privately(run: Path, tmp_path: Path, later: None) -> None:
    cache = tmp_path / "cache"
    assert validate_json(run, cache) == 0
    found = entries(cache)
    assert len(found) == 2
    assert {oct(folder.stat().st_mode & 0o777) for folder in [cache, *(entry.parent for entry in found)]} == {"0o700"}
    assert {oct(entry.stat().st_mode & 0o777) for entry in found} == {"0o600"}


def test_a_cache_folder_others_may_write_is_not_used_and_says_why(
    broken_run: Path, tmp_path: Path, later: None, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    assert validate_json(broken_run, cache) == 1
    for entry in entries(cache):  # as a stranger could: every verdict emptied, with digests that hold
        stored = json.loads(entry.read_text())
        stored["verdict"]["issues"] = []
        stored["digest"] = _cache._digest(entry.parent.name + entry.stem, stored["verdict"])
        entry.write_text(json.dumps(stored))
    capsys.readouterr()
    cache.chmod(0o777)
    assert validate_json(broken_run, cache) == 1  # not used: the tree is checked again
    err = capsys.readouterr().err
    assert err == (
        f"agentbeats-spec: warning: the cache folder {cache} may be written by others (mode 0777): not used "
        f"(make it yours alone: chmod go-w {cache})\n"
    )
    cache.chmod(0o700)
    assert validate_json(broken_run, cache) == 0  # trusted again, the forged verdicts are what it holds


def test_a_cache_entry_others_may_write_is_a_miss_with_a_warning(
    run: Path, tmp_path: Path, later: None, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    validate_json(run, cache)
    loose = entries(cache)[0]
    loose.chmod(0o666)
    capsys.readouterr()
    warm = VerdictCache(cache, "options")
    assert warm.get(loose.parent.name + loose.stem) is None
    assert warm.misses == 1
    assert "may be written by others (mode 0666)" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a folder away")
def test_a_cache_folder_of_another_user_is_not_used(
    run: Path, tmp_path: Path, later: None, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    os.chown(cache, 4321, -1)
    assert validate_json(run, cache) == 0
    assert f"the cache folder {cache} belongs to user 4321, not to this one (0): not used" in capsys.readouterr().err
    assert entries(cache) == []


def test_a_warning_escapes_the_cache_folders_name(tmp_path: Path) -> None:
    cache = tmp_path / "ca\x1b[31mche\n::error::x"
    cache.mkdir()
    cache.chmod(0o777)
    said: list[str] = []
    VerdictCache(cache, "options", warn=said.append)
    assert len(said) == 1
    assert "\x1b" not in said[0] and "\n" not in said[0] and "ca\\x1b[31mche\\x0a::error::x" in said[0]


def fact(**changes: Any) -> dict[str, Any]:
    """A fact as an entry stores it (a well-formed one without ``changes``)."""
    fields = {"rule": "abb.case-id", "scope": "s", "value": "v", "file": "f", "kind": None, "pointer": ""}
    return {**fields, "line": None, "column": None, **changes}


WRONG_SHAPES = {
    "a line that is a string": lambda v: v["issues"][0].update(line="x"),
    "a line that is a boolean": lambda v: v["issues"][0].update(line=True),
    "a line without a column": lambda v: v["issues"][0].update(line=3, column=None),
    "a column of 0": lambda v: v["issues"][0].update(line=3, column=0),
    "an unknown code": lambda v: v["issues"][0].update(code="schema.made-up"),
    "a code at a severity it never has": lambda v: v["issues"][0].update(severity="info"),
    "an unknown severity": lambda v: v["issues"][0].update(severity="fatal"),
    "a pointer that is a number": lambda v: v["issues"][0].update(pointer=5),
    "a pointer that is no pointer": lambda v: v["issues"][0].update(pointer="status"),
    "a message that is null": lambda v: v["issues"][0].update(message=None),
    "an issue without a field": lambda v: v["issues"][0].pop("kind"),
    "an issue with a field more": lambda v: v["issues"][0].update(extra=1),
    "an issue as a list": lambda v: v["issues"].append(["file", "error"]),
    "a negative count": lambda v: v.update(checked=-1),
    "a count that is a float": lambda v: v.update(skipped=1.0),
    "a kind without its count": lambda v: v.update(kinds=[["agentcompass-task"]]),
    "a fact as a list": lambda v: v["facts"].append(["abb.case-id", "s", "v", "f"]),
    "a fact with a line that is a string": lambda v: v["facts"].append(fact(line="x", column=1)),
    "a fact without a rule": lambda v: v["facts"].append(fact(rule="")),
    "a fact whose value is a number": lambda v: v["facts"].append(fact(value=3)),
    "a verdict without facts": lambda v: v.pop("facts"),
    "a verdict as a list": lambda v: v.clear(),
}


@pytest.mark.parametrize("edit", list(WRONG_SHAPES.values()), ids=list(WRONG_SHAPES))
def test_an_entry_of_the_wrong_shape_is_a_miss_and_is_replaced(
    broken_run: Path, tmp_path: Path, later: None, edit: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    assert validate_json(broken_run, cache) == 1
    first = capsys.readouterr().out
    (entry,) = [entry for entry in entries(cache) if json.loads(entry.read_text())["verdict"]["issues"]]
    key = entry.parent.name + entry.stem
    stored = json.loads(entry.read_text())
    edit(stored["verdict"])
    stored["digest"] = _cache._digest(key, stored["verdict"])  # the digest holds: the shape check must catch it
    entry.write_text(json.dumps(stored))
    probe = VerdictCache(cache, "any")
    assert probe.get(key) is None and probe.misses == 1
    assert validate_json(broken_run, cache) == 1  # never exit 3
    assert capsys.readouterr() == (first, "")
    assert json.loads(entry.read_text())["verdict"]["issues"][0]["code"] == "schema.enum"  # a fresh verdict
    assert probe.get(key) is not None


def test_an_entry_moved_to_another_key_is_a_miss(broken_run: Path, tmp_path: Path, later: None) -> None:
    cache = tmp_path / "cache"
    validate_json(broken_run, cache)
    with_issues, without = sorted(entries(cache), key=has_no_issue)
    without.write_bytes(with_issues.read_bytes())
    probe = VerdictCache(cache, "any")
    assert probe.get(without.parent.name + without.stem) is None
    assert probe.get(with_issues.parent.name + with_issues.stem) is not None


def test_a_shard_folder_others_may_write_is_not_used(
    run: Path, tmp_path: Path, later: None, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    validate_json(run, cache)
    entry = entries(cache)[0]
    entry.parent.chmod(0o775)
    capsys.readouterr()
    probe = VerdictCache(cache, "options")
    assert probe.get(entry.parent.name + entry.stem) is None
    assert f"the cache folder {entry.parent} may be written by others (mode 0775)" in capsys.readouterr().err


def test_an_entry_that_is_a_link_is_never_followed(run: Path, tmp_path: Path, later: None) -> None:
    cache = tmp_path / "cache"
    validate_json(run, cache)
    entry = entries(cache)[0]
    elsewhere = tmp_path / "elsewhere.json"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)  # the very entry, only behind a link
    said: list[str] = []
    probe = VerdictCache(cache, "options", warn=said.append)
    assert probe.get(entry.parent.name + entry.stem) is None and said == []
    entry.unlink()
    elsewhere.rename(entry)  # the same bytes in place: a hit
    assert VerdictCache(cache, "options").get(entry.parent.name + entry.stem) is not None


@pytest.mark.skipif(_nativejson.surveyor is None, reason="no native survey (not built, or not POSIX)")
def test_the_native_survey_makes_the_lines_the_walk_makes(tmp_path: Path) -> None:
    """The cache key of a folder is the same whichever survey made it: every entry below it (links, FIFOs, names
    that are not UTF-8, nested folders in name order) gives the same line, size and newest time."""
    top = tmp_path / "tree"
    shutil.copytree(VALID / "agentcompass-run", top)
    (top / "b" / "a" / "c").mkdir(parents=True)
    (top / "b" / "a" / "c" / "f.json").write_bytes(b"{}")
    (top / "B").mkdir()
    os.symlink("/etc", top / "b" / "link")
    os.mkfifo(top / "b" / "fifo")
    (top / os.fsdecode(b"\xff\xfename")).mkdir()
    (top / "é.json").write_text("[]")
    folders = [top, *(path for path in sorted(top.rglob("*")) if path.is_dir() and not path.is_symlink())]
    for folder in folders:
        lines = "".join(
            f"{relative}\0{info.st_mode}\0{info.st_size}\0{info.st_ino}\0{info.st_dev}\0{info.st_mtime_ns}\0"
            f"{info.st_ctime_ns}\n"
            for relative, info in _cache._walk(str(folder))
        ).encode("utf-8", "surrogateescape")
        found = _nativejson.surveyor(str(folder))
        assert found is not None
        assert found[0] == lines and found[1] == sum(info.st_size for _, info in _cache._walk(str(folder)))
    for nothing in (top / "run_info.json", tmp_path / "missing", top / "b" / "link"):
        assert _nativejson.surveyor(str(nothing)) is None  # a file, nothing, a link: the walk's survey decides
    assert len(folders) > 10
