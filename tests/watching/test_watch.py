"""watch_run in this process, on a copy of the valid AgentCompass run: what it reports, and when it keeps quiet.

The watch runs in a thread; each test waits for what watch_run reports (a ``threading.Event`` set by its
callbacks), never for a length of time. ``WAIT`` only bounds a test that would otherwise hang.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec import Issue, Watched, validate, watch_run
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
RUN = FIXTURES / "valid" / "agentcompass-run"
WAIT = 60.0


def publish(path: Path, text: str) -> None:
    """Write a file as AgentCompass does: a temporary file, then an atomic rename."""
    temporary = path.parent / f".tmp.{path.name}.0123abcd"
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def attempt_result(root: Path) -> Path:
    return next(root.glob("details/error/*/attempt-1/result.json"))


class Watching:
    """watch_run in a thread, with what it reported so far and an event per report."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.issues: list[Issue] = []
        self.fixed: list[Issue] = []
        self.changed = threading.Event()
        self.stop = threading.Event()
        self.watched: Watched | None = None
        self.thread = threading.Thread(target=self._run)

    def _run(self) -> None:
        self.watched = watch_run(self.root, self._found, on_fixed=self._gone, stop=self.stop, settle=0.05)

    def _found(self, issue: Issue) -> None:
        self.issues.append(issue)
        self.changed.set()

    def _gone(self, issue: Issue) -> None:
        self.fixed.append(issue)
        self.changed.set()

    def wait_for(self, what: str) -> None:
        """Until an issue (or a fix) on a file whose name ends with ``what`` is reported."""
        while not any(issue.file and issue.file.endswith(what) for issue in [*self.issues, *self.fixed]):
            assert self.changed.wait(WAIT), f"nothing reported on {what}"
            self.changed.clear()

    def end(self) -> Watched:
        self.stop.set()
        self.thread.join(WAIT)
        assert self.watched is not None
        return self.watched


@pytest.fixture
def watching(tmp_path: Path) -> Iterator[Watching]:
    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    watching = Watching(root)
    watching.thread.start()
    yield watching
    watching.stop.set()
    watching.thread.join(WAIT)


def test_a_valid_run_stopped_reports_nothing_and_the_report_of_validate(tmp_path: Path) -> None:
    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    stop = threading.Event()
    stop.set()
    watched = watch_run(root, stop=stop)
    assert (watched.ending, watched.reported, watched.fixed, watched.report.issues) == ("stopped", (), (), ())
    assert watched.report.checked == 14  # as validate counts them


def test_an_issue_is_reported_when_its_file_is_published_and_fixed_when_a_later_write_fixes_it(
    watching: Watching,
) -> None:
    result = attempt_result(watching.root)
    good = result.read_text(encoding="utf-8")
    publish(result, good.replace('"status": "completed"', '"status": "exploded"', 1))
    watching.wait_for("result.json")
    assert [(issue.code, issue.pointer) for issue in watching.issues] == [("schema.enum", "/status")]
    publish(result, good)
    while not watching.fixed:
        assert watching.changed.wait(WAIT)
        watching.changed.clear()
    assert watching.fixed == watching.issues
    watched = watching.end()
    assert (watched.report.issues, watched.fixed) == ((), tuple(watching.issues))


def test_a_temporary_file_and_a_torn_progress_line_are_never_read(watching: Watching) -> None:
    """Written before the marker (a broken params.json), so the look that reports the marker saw them too."""
    task = attempt_result(watching.root).parent.parent
    (task / ".tmp.task.json.0123abcd").write_text("{ half a docu", encoding="utf-8")
    with open(watching.root / "progress.jsonl", "a", encoding="utf-8") as stream:
        stream.write('{"event": "task_star')
    publish(watching.root / "params.json", "[")
    watching.wait_for("params.json")
    assert [(Path(issue.file or "").name, issue.code) for issue in watching.issues] == [("params.json", "json.syntax")]
    (task / ".tmp.task.json.0123abcd").unlink()
    with open(watching.root / "progress.jsonl", "a", encoding="utf-8") as stream:
        stream.write('ted"}\n')
    watched = watching.end()
    assert [issue.code for issue in watched.report.issues] == [
        issue.code for issue in validate(watching.root, allow_empty=True)
    ]
    assert {(Path(issue.file or "").name, issue.code) for issue in watched.reported} == {
        (Path(issue.file or "").name, issue.code) for issue in watched.report.issues
    }


def test_the_run_ends_when_run_info_records_a_new_end(watching: Watching) -> None:
    publish(watching.root / "params.json", "[")
    watching.wait_for("params.json")  # the watch has begun: the end it knows is the earlier one
    info = json.loads((watching.root / "run_info.json").read_text(encoding="utf-8"))
    info["finished_at"] = "2026-12-01T10:00:00+00:00"
    publish(watching.root / "run_info.json", json.dumps(info, indent=2) + "\n")
    watching.thread.join(WAIT)
    assert watching.watched is not None
    assert watching.watched.ending == "finished"
    assert [issue.code for issue in watching.watched.report.issues] == ["json.syntax"]


def command(*arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "agentbeats_spec", "watch", *arguments],
        capture_output=True, text=True, env=environment, check=False,
    )  # fmt: skip


def test_the_command_ends_at_its_timeout_with_the_summary_and_exit_code_of_validate(tmp_path: Path) -> None:
    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    publish(root / "params.json", "[")
    done = command(str(root), "--timeout", "0.5", "--format", "jsonl")
    assert done.returncode == 1
    assert [json.loads(line)["code"] for line in done.stdout.splitlines()] == ["json.syntax"]
    assert done.stderr == (
        "agentbeats-spec: watch ended before the run did (--timeout): the report is of the run so far\n"
    )
    text = command(str(root), "--timeout", "0.5")
    assert text.returncode == 1
    assert text.stdout.splitlines()[:2] == [
        f"{root / 'params.json'}:1:2: error json.syntax the document ends too early (expecting value); is the file "
        "truncated?",
        "invalid: 14 file(s) checked; 1 error(s), 0 warning(s)",
    ]


def test_the_command_refuses_what_is_not_a_folder_and_a_folder_never_made(tmp_path: Path) -> None:
    missing = command(str(tmp_path / "nothing"), "--timeout", "0.5")
    assert (missing.returncode, missing.stdout) == (2, "")
    assert missing.stderr == (
        f"agentbeats-spec: waiting for {tmp_path / 'nothing'} to be made\n"
        f"agentbeats-spec: error: no such file or folder: {tmp_path / 'nothing'}\n"
    )
    (tmp_path / "file.json").write_text("{}", encoding="utf-8")
    file = command(str(tmp_path / "file.json"))
    assert (file.returncode, file.stderr) == (
        2,
        f"agentbeats-spec: error: {tmp_path / 'file.json'} is not a folder: watch a run's folder\n",
    )


@pytest.mark.parametrize(
    ("format_", "found", "fixed"),
    [
        ("jsonl", '"code": "json.syntax"', '"fixed": true}'),
        ("text", " error json.syntax ", "fixed: "),
        ("github", "::error file=", "::notice file="),
    ],
)
def test_the_command_says_what_a_later_write_fixed_and_ends_on_sigterm_as_validate_would(
    tmp_path: Path, format_: str, found: str, fixed: str
) -> None:
    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    good = (root / "params.json").read_text(encoding="utf-8")
    publish(root / "params.json", "[")
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    watch = subprocess.Popen(
        [sys.executable, "-m", "agentbeats_spec", "watch", str(root), "--format", format_, "--timeout", "300"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
    )  # fmt: skip
    assert watch.stdout is not None and watch.stderr is not None
    first = watch.stdout.readline()
    assert found in first and "params.json" in first
    publish(root / "params.json", good)
    second = watch.stdout.readline()
    assert second.startswith(fixed) if format_ != "jsonl" else second.rstrip().endswith(fixed)
    watch.send_signal(signal.SIGTERM)
    rest = watch.stdout.read()
    assert watch.wait() == 0  # validate's exit code on the run as it is: valid again
    assert "watch ended before the run did (interrupted)" in watch.stderr.read()
    summary = {"jsonl": [], "text": ["valid: 14 file(s) checked; 0 error(s), 0 warning(s)"],
               "github": ["14 file(s) checked; 0 error(s), 0 warning(s)"]}  # fmt: skip
    assert rest.splitlines()[:1] == summary[format_]  # jsonl prints issues only


def test_a_run_info_that_is_a_fifo_is_not_waited_on(tmp_path: Path) -> None:
    """A run folder someone else wrote may hold a FIFO where run_info.json belongs: the watch still ends at its
    timeout, and the FIFO is reported as validate reports it."""
    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    (root / "run_info.json").unlink()
    os.mkfifo(root / "run_info.json")
    found: list[Issue] = []
    watched = watch_run(root, found.append, timeout=0.5, force_polling=True)
    assert watched.ending == "timeout"
    assert [issue.code for issue in found] == [issue.code for issue in validate(root)] != []


# -- a run is input: its links are never followed, its documents never crash the watch ---------------------------


def watched_until_timeout(root: Path, **options: bool) -> tuple[Watched, list[Issue]]:
    found: list[Issue] = []
    watched = watch_run(root, found.append, timeout=0.6, settle=0.05, **options)
    return watched, found


def codes(issues: Iterable[Issue]) -> list[tuple[str | None, str]]:
    return sorted((issue.file, issue.code) for issue in issues)


@pytest.mark.parametrize("target", ["/", ".."])
@pytest.mark.parametrize("force_polling", [False, True])
def test_a_link_in_the_run_to_the_root_or_to_its_parent_is_reported_never_followed(
    tmp_path: Path, target: str, force_polling: bool
) -> None:
    """watchfiles followed such links: a link to / stopped the watch on the first folder it could not read, a loop
    stopped it with "File system loop found". The watch lists as the walk does, and reports what validate does."""
    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    (root / "link").symlink_to(target, target_is_directory=True)
    watched, found = watched_until_timeout(root, force_polling=force_polling)
    assert watched.ending == "timeout"
    assert codes(found) == codes(watched.report.issues) == codes(validate(root)) != []


def inotify_watches() -> int:
    """The inotify watches this process holds (each watch is a line of its descriptor's fdinfo)."""
    count = 0
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{name}") == "anon_inode:inotify":
                with open(f"/proc/self/fdinfo/{name}", encoding="ascii") as info:
                    count += sum(line.startswith("inotify wd:") for line in info)
    return count


@pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="counts inotify watches in /proc")
def test_nothing_below_a_link_in_the_run_is_watched(tmp_path: Path) -> None:
    """A link to a big tree (/usr held 15,497 inotify watches): no watch, no listing below it."""
    big = tmp_path / "big"
    for index in range(300):
        (big / f"folder-{index}").mkdir(parents=True)
    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    (root / "link").symlink_to(big, target_is_directory=True)
    publish(root / "params.json", "[")
    watching = Watching(root)
    watching.thread.start()
    try:
        watching.wait_for("params.json")  # the watch is under way
        assert inotify_watches() < 300
    finally:
        watched = watching.end()
    assert codes(watched.report.issues) == codes(validate(root))


def test_a_run_info_nested_too_deep_is_an_issue_not_a_crash(tmp_path: Path) -> None:
    """The watch reads run_info.json itself (has the run ended?): with the reader's depth limit, as validate."""
    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    (root / "run_info.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    watched, found = watched_until_timeout(root)
    assert watched.ending == "timeout"
    assert ("json.too-deep", "run_info.json") in {(issue.code, Path(issue.file or "").name) for issue in found}
    assert codes(found) == codes(validate(root, allow_empty=True))


def test_a_run_folder_removed_while_watched_ends_with_the_report_of_validate(tmp_path: Path) -> None:
    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    publish(root / "params.json", "[")
    watching = Watching(root)
    watching.thread.start()
    watching.wait_for("params.json")
    shutil.rmtree(root)
    watched = watching.end()
    assert [(issue.file, issue.code) for issue in watched.report.issues] == [(str(root), "io.not-found")]


def test_an_unreadable_folder_in_the_run_is_listed_as_such_and_the_watch_goes_on(tmp_path: Path) -> None:
    """A folder the listing cannot open is an entry of its own: the look does not stop, and it changes when the
    folder does."""
    from agentbeats_spec.watching._watch import _signature

    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    real = os.scandir

    def refusing(path: Any = ".") -> Any:
        if os.fspath(path).endswith("details"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "scandir", refusing)
        listed = _signature(root)
    assert listed is not None
    assert ("details" + os.sep, 0, -13, 0) in listed
    assert not any(name.startswith("details" + os.sep + "error") for name, *_ in listed)


def test_the_command_on_a_run_holding_a_link_to_the_root_exits_as_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentbeats_spec.cli import main

    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    (root / "link").symlink_to("/", target_is_directory=True)
    assert main(["watch", str(root), "--timeout", "0.5", "--poll"]) == main(["validate", "--no-cache", str(root)])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
