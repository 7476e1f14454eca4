"""Only regular files are read, and the open descriptor says what a file is, not the listing made before.

Every command runs in a child process with a timeout: a FIFO that is opened for reading would block forever,
and ``/dev/zero`` would be read until memory runs out, so a regression fails here instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentbeats_spec.reading._bounded import NotRegular, open_regular, read_bounded

ROOT = Path(__file__).resolve().parents[2]
TRAJECTORY = '{"schema_version": "ACTF_v1.0", "steps": []}'
SECRET = "sk-proj-" + "A1b2C3d4E5f6G7h8J9k0L1m2"


def run(*arguments: str, python: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """A command (or ``python``, a script) in a child process that may not take more than a minute."""
    command = [sys.executable, "-c", python] if python else [sys.executable, "-m", "agentbeats_spec", *arguments]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=60, check=False)


def codes(done: subprocess.CompletedProcess[str]) -> list[tuple[str, str, str]]:
    return [(issue["file"], issue["code"], issue["severity"]) for issue in json.loads(done.stdout)["issues"]]


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "p.json"
    os.mkfifo(path)
    return path


SPECIAL = ["fifo", "/dev/zero"]


def special(name: str, fifo: Path) -> str:
    return str(fifo) if name == "fifo" else name


@pytest.mark.parametrize("name", SPECIAL)
@pytest.mark.parametrize("command", ["validate", "scan"])
def test_a_special_file_named_to_check_is_not_read(command: str, name: str, fifo: Path) -> None:
    path = special(name, fifo)
    done = run(command, "--format", "json", path)
    assert done.returncode == 0, done.stderr
    assert codes(done) == [(path, "io.not-a-file", "warning")]


@pytest.mark.parametrize("name", SPECIAL)
def test_redact_refuses_a_special_file(name: str, fifo: Path) -> None:
    path = special(name, fifo)
    done = run("redact", path)
    assert done.returncode == 2
    assert done.stderr == f"agentbeats-spec: error: {path}: not a regular file (FIFO, socket or device); not read\n"


@pytest.mark.parametrize("name", SPECIAL)
def test_convert_refuses_a_special_file(name: str, fifo: Path, tmp_path: Path) -> None:
    path = special(name, fifo)
    done = run("convert", "--to", "atif", "-o", str(tmp_path / "out.json"), path)
    assert done.returncode == 2
    assert done.stderr == f"agentbeats-spec: error: {path}: not a regular file (FIFO, socket or device); not read\n"
    assert not (tmp_path / "out.json").exists()


def test_load_refuses_a_fifo(fifo: Path) -> None:
    script = (
        f"import agentbeats_spec\ntry:\n    agentbeats_spec.load({str(fifo)!r})\n"
        "except agentbeats_spec.InvalidDocument as e:\n    print([(i.code, i.severity) for i in e.issues])\n"
        "    print(str(e).splitlines()[0])"
    )
    done = run(python=script)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[('io.not-a-file', 'warning')]\nno document to load:\n"


def test_the_descriptor_decides(tmp_path: Path, fifo: Path) -> None:
    """What is opened is judged by fstat of its descriptor: a folder, a FIFO, a link (without ``follow``)."""
    target = tmp_path / "target.json"
    target.write_text("[1]")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert read_bounded(target) == (b"[1]", None)
    assert read_bounded(link, follow=True) == (b"[1]", None)
    refused = {name: read_bounded(path)[1] for name, path in [("folder", tmp_path), ("fifo", fifo), ("link", link)]}
    assert {name: (f.code, f.severity) for name, f in refused.items() if f} == {
        "folder": ("io.not-a-file", "error"),
        "fifo": ("io.not-a-file", "warning"),
        "link": ("security.symlink", "error"),
    }
    with pytest.raises(NotRegular), open_regular(fifo):
        pass


# A file listed as regular, then swapped for something else just before it is read: the listing is done, the read
# goes through the patched reader, which swaps first. Deterministic, no race needed.
SWAP = """
import json, os, sys
from pathlib import Path
from agentbeats_spec.checking import _sources
from agentbeats_spec.reading import _bounded
import agentbeats_spec

victim, into, command = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
real = _bounded.read_bounded

def swapped(path, **options):
    if Path(path) == victim and victim.is_file() and not victim.is_symlink():
        victim.unlink()
        if into == "fifo":
            os.mkfifo(victim)
        else:
            victim.symlink_to(into)
    return real(path, **options)

_sources.read_bounded = swapped
found = getattr(agentbeats_spec, command)(victim.parent)
print(json.dumps([[i.file, i.code, i.severity] for i in found]))
"""


def swap(victim: Path, into: str, command: str) -> list[list[str]]:
    command_line = [sys.executable, "-c", SWAP, str(victim), into, command]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    finished = subprocess.run(command_line, capture_output=True, text=True, env=env, timeout=60, check=True)
    return json.loads(finished.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("command", ["validate", "scan"])
def test_a_file_swapped_for_a_fifo_after_the_listing_neither_blocks_nor_is_read(tmp_path: Path, command: str) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    victim = tree / "t.actf.json"
    victim.write_text(TRAJECTORY)
    assert swap(victim, "fifo", command) == [[str(victim), "io.not-a-file", "warning"]]


@pytest.mark.parametrize("command", ["validate", "scan"])
def test_a_file_swapped_for_a_link_after_the_listing_is_not_followed(tmp_path: Path, command: str) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"schema_version": "ACTF_v1.0", "steps": "not a list", "api_key": SECRET}))
    tree = tmp_path / "tree"
    tree.mkdir()
    victim = tree / "t.actf.json"
    victim.write_text(TRAJECTORY)
    # Nothing of the outside file is read: no schema error, no secret; the link is an error on the file.
    assert swap(victim, str(outside), command) == [[str(victim), "security.symlink", "error"]]


def test_a_named_link_is_followed_with_follow_symlinks(tmp_path: Path) -> None:
    target = tmp_path / "real.actf.json"
    target.write_text(json.dumps({"schema_version": "ACTF_v1.0", "steps": [], "api_key": SECRET}))
    link = tmp_path / "link.actf.json"
    link.symlink_to(target)
    assert codes(run("scan", "--format", "json", "--follow-symlinks", str(link))) == [
        (str(link), "security.secret", "error")
    ]
    assert codes(run("scan", "--format", "json", str(link))) == [(str(link), "security.symlink", "error")]


@pytest.mark.parametrize("named", [True, False])
def test_an_allow_list_that_is_a_fifo_is_refused_not_waited_on(tmp_path: Path, named: bool) -> None:
    """The default ./agentbeats-secrets.allow lies in whatever folder the command runs in: a FIFO there blocked."""
    (tmp_path / "t.actf.json").write_text(TRAJECTORY)
    os.mkfifo(tmp_path / "agentbeats-secrets.allow")
    options = ["--allow-list", "agentbeats-secrets.allow"] if named else []
    done = run("scan", *options, "t.actf.json", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "agentbeats-spec: error: cannot read the allow-list agentbeats-secrets.allow: not a regular file (FIFO, "
        "socket or device); not read\n"
    )
