"""The run reader reads a run as ``validate`` does: where the listing found it. A task folder that is a link, or is
swapped for one between the listing and the read, is refused (an issue naming it), never followed: on the native
path and on the pure-Python one (``AGENTBEATS_SPEC_PURE``, read when the package is imported: a child process).

The private copy the link leads to is a valid task whose category is a sentinel: anything read from there shows
as that category in a row or a record.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from agentbeats_spec import InvalidDocument, iter_runs, open_run, read_task

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "valid" / "agentcompass-run"
STATE = "error"
TASK = "swe_utils_off-by-one_17--dfa418fc068f00e417743b806200f1b051f0086015b104eb0f4cb76f19d6b879"
SENTINEL = "private-sentinel-5c1e"

# argv: the mode, the task folder to swap for a link to the private copy, the private copy, then the CLI's arguments
# (mode "export") or the run (mode "api": its tasks listed, the folder swapped, each read).
SWAP = """
import json, os, sys
from pathlib import Path
from agentbeats_spec import InvalidDocument, open_run
from agentbeats_spec.runs import _reader
from agentbeats_spec import cli

mode, folder, into, rest = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4:]

def swap():
    if not folder.is_symlink():
        os.rename(folder, str(folder) + ".moved")
        folder.symlink_to(into)

if mode == "export":  # listed (its task.json read), then swapped just before it is read (strict or not)
    def swapping(real):
        def swapped(path, *arguments, **options):
            if Path(path) == folder:
                swap()
            return real(path, *arguments, **options)
        return swapped
    _reader.read_task_at = swapping(_reader.read_task_at)
    _reader.read_leniently = swapping(_reader.read_leniently)
    sys.exit(cli.main(rest))
refs = list(open_run(rest[0]).tasks())
swap()
for ref in refs:
    try:
        print(json.dumps({"task": ref.task_id, "category": ref.read().category}))
    except InvalidDocument as error:
        print(json.dumps({"task": ref.task_id, "issues": [[i.file, i.code] for i in error.issues]}))
"""

ENGINES = pytest.mark.parametrize("pure", [False, True], ids=["native", "pure"])


def swap(pure: bool, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "AGENTBEATS_SPEC_PURE"}
    env["PYTHONPATH"] = str(ROOT / "src")
    if pure:
        env["AGENTBEATS_SPEC_PURE"] = "1"
    command = [sys.executable, "-c", SWAP, *arguments]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, check=False)


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A valid run, and beside it (outside the tree) a valid copy of one of its tasks with a sentinel category."""
    root = tmp_path / "run"
    shutil.copytree(FIXTURE, root)
    private = tmp_path / "private"
    shutil.copytree(root / "details" / STATE / TASK, private)
    index = json.loads((private / "task.json").read_text(encoding="utf-8"))
    (private / "task.json").write_text(json.dumps({**index, "category": SENTINEL}), encoding="utf-8")
    return root


@ENGINES
def test_a_task_folder_swapped_for_a_link_after_the_listing_is_refused_by_taskref_read(run: Path, pure: bool) -> None:
    task = run / "details" / STATE / TASK
    done = swap(pure, "api", str(task), str(run.parent / "private"), str(run))
    assert done.returncode == 0, done.stderr
    read = [json.loads(line) for line in done.stdout.splitlines()]
    assert read[0]["task"] == "swe/utils: off-by-one #17"
    assert [str(task), "security.path-escape"] in read[0]["issues"]
    assert [str(task / "task.json"), "security.path-escape"] in read[0]["issues"]
    assert read[1] == {"task": "math-42", "category": None}  # the other task is read as it is
    assert SENTINEL not in done.stdout + done.stderr


@ENGINES
def test_export_refuses_a_task_folder_swapped_for_a_link_after_the_listing(run: Path, pure: bool) -> None:
    task = run / "details" / STATE / TASK
    output = run.parent / "out.csv"
    arguments = ["export", str(run), "--table", "tasks", "--to", "csv", "-o", str(output)]
    done = swap(pure, "export", str(task), str(run.parent / "private"), *arguments)
    assert done.returncode == 1, done.stderr
    assert f"{task}: error security.path-escape" in done.stderr
    assert not output.exists()  # nothing written
    skipped = swap(pure, "export", str(task), str(run.parent / "private"), *arguments, "--skip-invalid")
    assert skipped.returncode == 1, skipped.stderr
    assert f"{task}: error security.path-escape" in skipped.stderr
    assert SENTINEL.encode() not in output.read_bytes()
    assert "1 tasks row(s) of 1 task(s)" in skipped.stdout


def test_a_task_folder_that_is_a_link_is_reported_never_read(run: Path) -> None:
    state = run / "details" / STATE
    shutil.rmtree(state / TASK)
    (state / TASK).symlink_to(run.parent / "private")
    opened = open_run(run)
    assert [ref.task_id for ref in opened.tasks()] == ["math-42"]
    assert [(issue.file, issue.code) for issue in opened.issues] == [(str(state / TASK), "security.path-escape")]
    with pytest.raises(InvalidDocument) as raised:
        read_task(state / TASK)
    assert [(issue.file, issue.code) for issue in raised.value.issues] == [(str(state / TASK), "security.symlink")]
    assert SENTINEL not in str(raised.value)


def test_a_folder_of_runs_reports_its_links_and_follows_none(run: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "elsewhere").symlink_to(run)
    found: list[tuple[str, str]] = []
    assert list(iter_runs(runs, on_issue=lambda issue: found.append((issue.file, issue.code)))) == []
    assert found == [(str(runs / "elsewhere"), "security.path-escape")]
    found.clear()
    assert list(iter_runs(runs / "elsewhere", on_issue=lambda issue: found.append((issue.file, issue.code)))) == []
    assert found == [(str(runs / "elsewhere"), "security.symlink")]


def test_a_run_deep_in_a_folder_of_runs_is_found_each_folder_listed_where_it_is() -> None:
    """Each folder is listed in a confinement of its own, checked once: not by reopening the chain from the top
    (which recursed once per level, beyond Python's stack on a deep tree, and cost depth times folders).

    Outside pytest's tmp_path, and removed with ``rm -rf`` whatever happens: pytest removes old temporary folders
    with shutil.rmtree, which recurses once per level and would fail on this tree in any later session."""
    top = Path(tempfile.mkdtemp(prefix="agentbeats-deep-"))
    try:
        folder = os.open(top, os.O_RDONLY)
        try:
            for _ in range(1200):  # one name at a time: pathlib's mkdir(parents=True) recurses too
                os.mkdir("d", dir_fd=folder)
                inner = os.open("d", os.O_RDONLY, dir_fd=folder)
                os.close(folder)
                folder = inner
        finally:
            os.close(folder)
        deep = top / os.path.join(*["d"] * 1200)
        shutil.copytree(FIXTURE, deep / "run")
        found: list[object] = []
        assert [run.path for run in iter_runs(top, on_issue=found.append)] == [deep / "run"]
        assert found == []
    finally:
        subprocess.run(["rm", "-rf", str(top)], check=True)


def test_a_run_folder_swapped_for_a_link_after_it_was_opened_lists_nothing_from_where_it_leads(run: Path) -> None:
    """Its real place was taken when it was opened: the folder now at its name is elsewhere, so its listing is
    refused (an issue naming it), and no task of the other tree is listed."""
    opened = open_run(run)
    other = run.parent / "other"
    shutil.copytree(run, other)
    run.rename(run.parent / "moved")
    run.symlink_to(other)
    assert list(opened.tasks()) == []
    assert [(issue.file, issue.code) for issue in opened.issues] == [(str(run / "details"), "security.path-escape")]
