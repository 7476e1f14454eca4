"""A file is read only where the walk found it: a folder on the way swapped for a link after the listing is not
followed, however far above the file it is (``O_NOFOLLOW`` guards only the last component).

The swap is deterministic: the command runs in a child process (with a timeout) whose reader is patched to swap
the folder just before the victim file is read, after the walk has listed the tree.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "valid" / "agentcompass-run"
TASK = "math-42--02d9b5de21c32251d5194ea08147fd21ace9f69e9687ffc75f2f2d118387e3a1"
SENTINEL = "private-sentinel-7f3a"

# argv: the folder to swap, what it becomes (a link to this), the file whose read triggers it, then the CLI's
# arguments. Workers, when asked for, start on any tree (fork: they inherit the patched reader).
SWAP = """
import os, sys
from pathlib import Path
from agentbeats_spec.checking import _sources
from agentbeats_spec.reading import _folders
from agentbeats_spec.units import _running
from agentbeats_spec import cli

folder, into, victim, arguments = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), sys.argv[4:]
real = _sources.read_bounded

def swapped(path, **options):
    if Path(path) == victim and not folder.is_symlink():
        os.rename(folder, str(folder) + ".moved")
        folder.symlink_to(into)
    return real(path, **options)

def reads(plan, parts):  # whether the native call of a folder by this plan reads the file at these names below it
    if len(parts) == 1:
        return parts[0] in plan.names or bool(plan.suffix and parts[0].endswith(plan.suffix))
    return any(
        (parts[0].startswith(name) if prefix else parts[0] == name) and reads(sub, parts[1:])
        for name, prefix, sub in plan.folders
    )

def swapped_folder(path, plan):  # the native path reads a folder's files (and its planned folders') in one call
    if Path(path) in victim.parents and reads(plan, victim.relative_to(path).parts) and not folder.is_symlink():
        os.rename(folder, str(folder) + ".moved")
        folder.symlink_to(into)
    return real_folder(path, plan)

_sources.read_bounded = swapped
real_folder = _folders.read_folder
_folders.read_folder = swapped_folder
_running.WORKERS_GAIN_BYTES = 0
sys.exit(cli.main(arguments))
"""


def swap(folder: Path, into: Path, victim: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", SWAP, str(folder), str(into), str(victim), *arguments]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, check=False)


def issues(done: subprocess.CompletedProcess[str]) -> list[tuple[str, str, str, str | None]]:
    return [
        (issue["file"], issue["code"], issue["severity"], issue.get("pointer"))
        for issue in json.loads(done.stdout)["issues"]
    ]


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A valid run, and beside it (outside the tree) a private copy of one of its task folders, whose files hold
    a sentinel and are invalid: anything read from there would show in the report."""
    root = tmp_path / "run"
    shutil.copytree(FIXTURE, root)
    private = tmp_path / "private"
    shutil.copytree(root / "details" / "running" / TASK, private)
    files = sorted(private.rglob("*.json"))
    assert files
    for file in files:
        file.write_text(json.dumps({"schema_version": SENTINEL, "note": SENTINEL}))
    return root


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_task_folder_swapped_for_a_link_outside_after_the_listing_is_not_read(run: Path, jobs: str) -> None:
    task = run / "details" / "running" / TASK
    done = swap(task, run.parent / "private", task / "task.json", "validate", "--no-cache", "--format", "json",
                "--jobs", jobs, str(run))  # fmt: skip
    assert done.returncode == 1, done.stderr
    # The unit's own listing of its folder is refused too: no name from outside shows
    assert issues(done) == [
        (str(task), "security.path-escape", "error", ""),
        (str(task / "task.json"), "security.path-escape", "error", ""),
    ]
    assert SENTINEL not in done.stdout + done.stderr
    assert "private" not in done.stdout + done.stderr


def test_the_folder_of_a_loose_file_swapped_for_a_link_outside_is_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "tree" / "sub"
    folder.mkdir(parents=True)
    (folder / "t.actf.json").write_text('{"schema_version": "ACTF_v1.0", "steps": []}')
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "t.actf.json").write_text(json.dumps({"schema_version": "ACTF_v1.0", "steps": SENTINEL}))
    done = swap(folder, outside, folder / "t.actf.json", "validate", "--format", "json", str(tmp_path / "tree"))
    assert done.returncode == 1, done.stderr
    assert issues(done) == [(str(folder / "t.actf.json"), "security.path-escape", "error", "")]
    message = json.loads(done.stdout)["issues"][0]["message"]
    assert message == "reached through a symbolic link swapped in after the listing; not read"
    assert SENTINEL not in done.stdout + done.stderr


def test_a_folder_swapped_for_a_link_inside_the_unit_after_its_listing_is_not_followed(run: Path) -> None:
    """The task's attempt folder swapped for a link to another folder of the same task, after the unit listed it:
    the file is read in the folder the listing saw (the unit holds it open), not through the link."""
    task = run / "details" / "running" / TASK
    inside = task / "copy"
    shutil.copytree(task / "attempt-1", inside)
    (inside / "checkpoint.json").write_text(json.dumps({"note": SENTINEL}))
    victim = task / "attempt-1" / "checkpoint.json"
    done = swap(task / "attempt-1", inside, victim, "validate", "--no-cache", "--format", "json", str(run))
    assert done.returncode == 0, done.stderr
    assert issues(done) == [(str(inside), "layout.unexpected-entry", "warning", "")]
    assert SENTINEL not in done.stdout + done.stderr


def test_a_file_swapped_for_a_link_in_the_unit_is_still_a_link(run: Path) -> None:
    """The last component: O_NOFOLLOW refuses it as a link, as before the folders were checked."""
    task = run / "details" / "running" / TASK
    victim = task / "attempt-1" / "checkpoint.json"
    (task / "other.json").write_text("{}")
    done = swap(victim, task / "other.json", victim, "validate", "--no-cache", "--format", "json", str(run))
    assert done.returncode == 1, done.stderr
    assert (str(victim), "security.symlink", "error", "") in issues(done)


def test_scan_reads_no_file_through_a_folder_swapped_for_a_link(tmp_path: Path) -> None:
    folder = tmp_path / "tree" / "sub"
    folder.mkdir(parents=True)
    (folder / "t.json").write_text("{}")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "t.json").write_text(json.dumps({"api_key": "sk-proj-" + "A1b2C3d4E5f6G7h8J9k0L1m2"}))
    command = [sys.executable, "-c", SWAP, str(folder), str(outside), str(folder / "t.json"),
               "scan", "--format", "json", str(tmp_path / "tree")]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, check=False)
    # scan lists each folder through the descriptor it then reads from: the file the listing saw is read
    assert done.returncode == 0, done.stderr
    assert issues(done) == []
    assert "sk-proj-" not in done.stdout + done.stderr
