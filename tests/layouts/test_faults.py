"""Faults made real: names that are not UTF-8, folders that cannot be read or written, full disks, closed pipes,
links named on the command line.

The suite runs as root in CI, and root ignores permission bits: a test that needs a real refusal runs the
command in a child process without the capabilities that let root pass them, or mounts a real read-only or
full tmpfs.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest

import agentbeats_spec
from agentbeats_spec import SpecError, WriteError, dump, load
from agentbeats_spec.writing import _atomic

ROOT = Path(__file__).resolve().parents[2]
INVALID_RESULTS = '{"count": -1, "main_metric": "acc", "acc": 0.5}\n'
VALID_RESULTS = '{"count": 1, "main_metric": "acc", "acc": 0.5}\n'
IS_ROOT = os.geteuid() == 0


def cli(*arguments: str, cwd: Path | None = None, unprivileged: bool = False) -> subprocess.CompletedProcess[bytes]:
    """The command in a child process; ``unprivileged`` makes permission bits count, even for root."""
    command = [sys.executable, "-m", "agentbeats_spec", *arguments]
    if unprivileged and IS_ROOT:
        if shutil.which("setpriv") is None:
            pytest.skip("root ignores permission bits, and setpriv (util-linux), which drops that power, is missing")
        # Root without these two capabilities is held to the permission bits like any other user.
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(command, capture_output=True, cwd=cwd, env=env, timeout=120, check=False)


def mount_tmpfs(where: Path, options: str) -> bool:
    """A real tmpfs (read-only, or tiny) at ``where``; False where this process may not mount."""
    where.mkdir(parents=True, exist_ok=True)
    if not IS_ROOT or shutil.which("mount") is None:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True)
    return done.returncode == 0


def unmount(where: Path) -> None:
    subprocess.run(["umount", str(where)], capture_output=True, check=False)


# -- Point 2: every output format takes every file name --------------------------------------------------------


@pytest.fixture
def odd_names(tmp_path: Path) -> Path:
    """A folder whose name is not UTF-8 and one whose name holds a newline and an escape character."""
    root = tmp_path / "tree"
    latin = os.path.join(os.fsencode(root), b"caf\xe9")
    os.makedirs(latin)
    Path(os.fsdecode(latin), "results.json").write_text(INVALID_RESULTS)
    control = root / "line\nbreak\x1b[31m"
    control.mkdir()
    (control / "results.json").write_text(INVALID_RESULTS)
    return tmp_path


def test_names_that_are_not_utf8_are_escaped_in_text(odd_names: Path) -> None:
    run = cli("validate", "--no-context", "tree", cwd=odd_names)
    assert run.returncode == 1
    lines = run.stdout.decode("utf-8").splitlines()
    assert "tree/caf\\xe9/results.json:1:11: error schema.minimum expected a number >= 0, found the number -1" in lines
    assert any(line.startswith("tree/line\\x0abreak\\x1b[31m/results.json:1:11: error") for line in lines)
    assert b"\x1b" not in run.stdout


def test_names_that_are_not_utf8_are_escaped_in_json(odd_names: Path) -> None:
    run = cli("validate", "--format", "json", "tree", cwd=odd_names)
    report = json.loads(run.stdout.decode("utf-8"))
    assert {issue["file"] for issue in report["issues"]} == {
        "tree/caf\\xe9/results.json",
        "tree/line\nbreak\x1b[31m/results.json",  # JSON escapes control characters itself
    }


def test_names_that_are_not_utf8_are_escaped_in_github(odd_names: Path) -> None:
    run = cli("validate", "--format", "github", "tree", cwd=odd_names)
    lines = run.stdout.decode("utf-8").splitlines()
    assert lines[0].startswith("::error file=tree/caf\\xe9/results.json,line=1,col=11,title=schema.minimum::")
    assert lines[1].startswith("::error file=tree/line%0Abreak\\x1b[31m/results.json,line=1,col=11,")
    assert len(lines) == 3


def test_names_that_are_not_utf8_make_valid_sarif_uris(odd_names: Path) -> None:
    run = cli("validate", "--format", "sarif", "tree", cwd=odd_names)
    document = json.loads(run.stdout.decode("utf-8"))
    locations = [result["locations"][0]["physicalLocation"] for result in document["runs"][0]["results"]]
    uris = sorted(location["artifactLocation"]["uri"] for location in locations)
    assert uris == ["tree/caf%E9/results.json", "tree/line%0Abreak%1B%5B31m/results.json"]
    # RFC 3986: only unreserved characters, sub-delimiters, "/", ":", "@" and percent escapes
    for uri in uris:
        assert all(char.isascii() and (char.isalnum() or char in "-._~!$&'()*+,;=:@/%") for char in uri), uri


def test_issue_str_escapes_a_name_that_is_not_utf8(odd_names: Path) -> None:
    issues = agentbeats_spec.validate(odd_names / "tree")
    assert {str(issue).split(":")[0].removeprefix(str(odd_names) + "/") for issue in issues} == {
        "tree/caf\\xe9/results.json",
        "tree/line\\x0abreak\\x1b[31m/results.json",
    }


# -- Point 4: a failed write is the user's problem, told plainly ----------------------------------------------


def _results_model(path: Path) -> Any:
    path.write_text(VALID_RESULTS)
    return attrs.evolve(load(path), count=2)


def test_dump_into_a_read_only_file_system(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    model = _results_model(tmp_path / "results.json")
    if not mount_tmpfs(folder, "ro,size=64k"):
        pytest.skip("mounting a read-only tmpfs needs root; test_write_refused_by_permissions covers the refusal")
    try:
        with pytest.raises(WriteError) as raised:
            dump(model, folder / "results.json")
        assert str(raised.value) == f"cannot write {folder / 'results.json'}: Read-only file system"
        assert raised.value.errno == errno.EROFS and isinstance(raised.value, SpecError)
        assert os.listdir(folder) == []
    finally:
        unmount(folder)


def test_dump_onto_a_full_tmpfs_keeps_the_old_file(tmp_path: Path) -> None:
    folder = tmp_path / "full"
    model = _results_model(tmp_path / "results.json")
    if not mount_tmpfs(folder, "size=16k"):
        pytest.skip("mounting a tmpfs needs root; test_a_simulated_full_disk covers ENOSPC")
    try:
        target = folder / "results.json"
        target.write_text(VALID_RESULTS)
        descriptor = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            with pytest.raises(OSError):
                while True:
                    os.write(descriptor, b"x" * 4096)
        finally:
            os.close(descriptor)
        with pytest.raises(WriteError) as raised:
            dump(attrs.evolve(model, unknown_members={**model.unknown_members, "pad": "y" * 10_000}), target)
        assert str(raised.value) == f"cannot write {target}: No space left on device"
        assert target.read_text() == VALID_RESULTS
        assert sorted(os.listdir(folder)) == ["filler", "results.json"]
    finally:
        unmount(folder)


def test_a_simulated_full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "results.json"
    model = _results_model(target)

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_atomic.os, "fsync", full)
    with pytest.raises(WriteError) as raised:
        dump(model, target)
    assert str(raised.value) == f"cannot write {target}: No space left on device"
    assert raised.value.filename == str(target)
    assert target.read_text() == VALID_RESULTS
    assert os.listdir(tmp_path) == ["results.json"]


def test_dump_into_a_missing_folder(tmp_path: Path) -> None:
    model = _results_model(tmp_path / "results.json")
    with pytest.raises(WriteError) as raised:
        dump(model, tmp_path / "nowhere" / "results.json")
    assert str(raised.value) == f"cannot write {tmp_path / 'nowhere' / 'results.json'}: the folder " \
        f"{tmp_path / 'nowhere'} does not exist"  # fmt: skip


def test_write_refused_by_permissions(tmp_path: Path) -> None:
    source = tmp_path / "results.json"
    source.write_text('{"count": 1, "main_metric": "acc", "acc": 0.5, "token": "abc"}\n')
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    locked.chmod(0o555)
    run = cli("redact", str(source), "-o", str(locked / "out.json"), unprivileged=True)
    assert run.returncode == 2, run.stderr
    assert run.stderr.decode() == f"agentbeats-spec: error: cannot write {locked / 'out.json'}: Permission denied\n"
    assert os.listdir(locked) == []


def test_redact_into_a_missing_folder_exits_2(tmp_path: Path) -> None:
    source = tmp_path / "results.json"
    source.write_text(VALID_RESULTS)
    run = cli("redact", str(source), "-o", str(tmp_path / "no" / "out.json"))
    assert run.returncode == 2
    assert run.stderr.decode() == (
        f"agentbeats-spec: error: cannot write {tmp_path / 'no' / 'out.json'}: the folder {tmp_path / 'no'} "
        "does not exist\n"
    )


def test_a_full_standard_output_exits_2(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text(INVALID_RESULTS)
    with open("/dev/full", "wb") as full:
        run = subprocess.run(
            [sys.executable, "-m", "agentbeats_spec", "validate", str(tmp_path)],
            stdout=full, stderr=subprocess.PIPE, check=False, timeout=60,
        )  # fmt: skip
    assert run.returncode == 2
    assert run.stderr.decode() == "agentbeats-spec: error: cannot write standard output: No space left on device\n"


def test_a_closed_pipe_ends_quietly_with_sigpipe_status(tmp_path: Path) -> None:
    for number in range(400):  # more than a pipe's buffer of report
        (tmp_path / f"d{number}").mkdir()
        (tmp_path / f"d{number}" / "results.json").write_text(INVALID_RESULTS)
    reader = subprocess.Popen(
        [sys.executable, "-m", "agentbeats_spec", "validate", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.readline()
    reader.stdout.close()  # what `| head -1` does
    status = reader.wait(timeout=120)
    assert status == 141
    assert reader.stderr.read() == b""


# -- Point 5: unreadable is not missing ------------------------------------------------------------------------

TASK = "t--" + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def _task(root: Path) -> Path:
    task = root / "run" / "details" / "running" / TASK
    task.mkdir(parents=True)
    (task / "task.json").write_text('{"schema_version": "agentcompass.task.v3", "task_id": "", "attempts": {}}\n')
    for path, _, files in os.walk(root):
        os.chmod(path, 0o755)
        for name in files:
            os.chmod(os.path.join(path, name), 0o644)
    return task


def _json_issues(run: subprocess.CompletedProcess[bytes]) -> list[tuple[str, str, str]]:
    report = json.loads(run.stdout)
    return [(issue["file"], issue["code"], issue["message"]) for issue in report["issues"]]


def test_an_unreadable_task_folder_is_unreadable_not_missing(tmp_path: Path) -> None:
    task = _task(tmp_path)
    task.chmod(0o000)
    found = _json_issues(cli("validate", "--format", "json", str(tmp_path / "run"), unprivileged=True))
    assert (str(task / "task.json"), "io.unreadable", "cannot read: Permission denied") in found
    assert not [issue for issue in found if issue[1] == "layout.missing-file"]


def test_an_unreadable_file_is_unreadable(tmp_path: Path) -> None:
    task = _task(tmp_path)
    (task / "task.json").chmod(0o000)
    run = cli("validate", "--format", "json", str(tmp_path / "run"), unprivileged=True)
    assert run.returncode == 1
    found = _json_issues(run)
    assert (str(task / "task.json"), "io.unreadable", "cannot read the file: Permission denied") in found
    assert not [issue for issue in found if issue[1] == "layout.missing-file"]


def test_a_folder_named_task_json_is_a_folder_where_a_file_was_expected(tmp_path: Path) -> None:
    task = tmp_path / "run" / "details" / "running" / TASK
    (task / "task.json").mkdir(parents=True)
    found = {(issue.file, issue.code, issue.message) for issue in agentbeats_spec.validate(tmp_path / "run")
             if issue.code != "layout.missing-run-info"}  # fmt: skip
    assert found == {(str(task / "task.json"), "io.not-a-file", "a folder where a file was expected")}
    alone = agentbeats_spec.validate(task)  # the task folder on its own is still told apart
    assert [(issue.code, issue.message) for issue in alone] == [("io.not-a-file", "a folder where a file was expected")]


def _repository(root: Path) -> Path:
    repository = root / "repo"
    (repository / "run_configs" / "default").mkdir(parents=True)
    (repository / "run_configs" / "default" / "a.yaml").write_text("x: 1\n")
    (repository / "agentbeats.toml").write_text(
        '[abv3_repo]\nname = "x"\nrole = "judge"\nauthor = "a"\n\n[run]\ncommand = "run"\n\n'
        '[run_configs]\nfolder = "run_configs"\n'
    )
    for path, _, files in os.walk(root):
        os.chmod(path, 0o755)
        for name in files:
            os.chmod(os.path.join(path, name), 0o644)
    return repository


def test_check_l1_shows_checks_that_could_not_run(tmp_path: Path) -> None:
    repository = _repository(tmp_path)
    (repository / "agentbeats.toml").chmod(0o000)
    run = cli("check-l1", "--no-context", str(repository), unprivileged=True)
    assert run.returncode == 1
    assert run.stdout.decode().splitlines()[:6] == [
        f"ABV3-L1 check of {repository}",
        "  agentbeats.toml    1 error",
        "  self-description   not run",
        "  dependencies       not run",
        "  run configs        not run",
        "  results            not run",
    ]
    shown = f"{repository}/agentbeats.toml: error io.unreadable cannot read the file: Permission denied"
    assert shown in run.stdout.decode().splitlines()


def test_check_l1_an_unreadable_run_configs_folder(tmp_path: Path) -> None:
    repository = _repository(tmp_path)
    (repository / "run_configs").chmod(0o000)
    run = cli("check-l1", "--no-context", str(repository), unprivileged=True)
    assert run.returncode == 1
    lines = run.stdout.decode().splitlines()
    assert lines[1:6] == [
        "  agentbeats.toml    ok",
        "  self-description   ok",
        "  dependencies       ok",
        "  run configs        not run (1 error)",
        "  results            ok",
    ]


def test_check_l1_without_agentbeats_toml_runs_nothing_else(tmp_path: Path) -> None:
    run = cli("check-l1", "--no-context", str(tmp_path))
    assert run.returncode == 1
    assert run.stdout.decode().splitlines()[1:6] == [
        "  agentbeats.toml    1 error",
        "  self-description   not run",
        "  dependencies       not run",
        "  run configs        not run",
        "  results            not run",
    ]


# -- Point 6: links named on the command line follow the walk's policy ------------------------------------------

SECRET_TARGET = "sk-proj-TARGETNAME0123456789"


@pytest.fixture
def links(tmp_path: Path) -> Path:
    outside = tmp_path / "outside" / SECRET_TARGET
    outside.mkdir(parents=True)
    (outside / "results.json").write_text(VALID_RESULTS)
    work = tmp_path / "work"
    work.mkdir()
    (work / "results.json").symlink_to(outside / "results.json")
    (work / "folder").symlink_to(outside)
    (work / "tree").mkdir()
    (work / "tree" / "results.json").symlink_to(outside / "results.json")
    return work


@pytest.mark.parametrize("name", ["results.json", "folder"])
@pytest.mark.parametrize("command", ["validate", "scan"])
def test_a_link_named_on_the_command_line_is_reported_not_followed(links: Path, name: str, command: str) -> None:
    run = cli(command, "--format", "json", name, cwd=links)
    assert run.returncode == 1
    assert SECRET_TARGET.encode() not in run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert [(issue["file"], issue["code"], issue["severity"]) for issue in report["issues"]] == [
        (name, "security.symlink", "error")
    ]
    assert "pass --follow-symlinks" in report["issues"][0]["message"]


@pytest.mark.parametrize("name", ["results.json", "folder"])
def test_follow_symlinks_follows_links_named_on_the_command_line(links: Path, name: str) -> None:
    run = cli("validate", "--follow-symlinks", "--format", "json", name, cwd=links)
    assert run.returncode == 0, run.stdout
    assert json.loads(run.stdout) == {"valid": True, "checked": 1, "issues": [], "configuration": None}


def test_follow_symlinks_never_follows_links_inside_folders(links: Path) -> None:
    run = cli("validate", "--follow-symlinks", "--format", "json", "tree", cwd=links)
    issues = json.loads(run.stdout)["issues"]
    assert [(issue["file"], issue["code"]) for issue in issues] == [("tree/results.json", "security.path-escape")]
    assert SECRET_TARGET.encode() not in run.stdout


def test_validate_and_scan_take_the_same_policy(links: Path) -> None:
    for function in (agentbeats_spec.validate, agentbeats_spec.scan):
        assert [issue.code for issue in function(links / "results.json")] == ["security.symlink"]
        assert function(links / "results.json", follow_symlinks=True) == []
