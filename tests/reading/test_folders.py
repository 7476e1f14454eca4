"""The one-call folder reader changes no report: it sees a folder as the ordinary listing and reads do.

``_native.read_folder(fd, (names, suffix, folders), max_size, max_depth)`` promises, for the folder open as ``fd``:

- every entry but ``.`` and ``..``, once, unsorted, its name decoded as ``os.scandir`` decodes it, and its type
  (``ENTRY_FILE``, ``ENTRY_FOLDER``, ``ENTRY_LINK``, ``ENTRY_OTHER``) as ``os.scandir`` and ``units._fs._type_of`` say,
  never following a link;
- for a regular file that is wanted (named in ``names``, or ending with ``suffix``), no larger than ``max_size``
  and clean: exactly ``(its bytes, data, table, integral)`` of ``_native.read`` on those bytes; for every other
  entry, and every wanted file that is not all of that (flagged, too large, a link, a FIFO, a folder): None, so that
  the ordinary path reads it and says what is wrong;
- the caller's descriptor stays open and where it was, and no descriptor is left behind.

``reading._folders.read_folder`` calls it only inside a unit's confinement, on a folder still where the walk found
it, and never under ``AGENTBEATS_SPEC_PURE``: otherwise None, and the ordinary listing runs. So a whole report is
byte-identical with and without it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbeats_spec.reading import _folders, _nativejson
from agentbeats_spec.reading._bounded import Refused, confined, listing
from agentbeats_spec.reading._folders import Plan
from agentbeats_spec.units._fs import _type_of

from ..conftest import FIXTURES, ROOT
from ..strategies import json_texts

native = pytest.mark.skipif(_nativejson.folder_reader is None, reason="no native folder call (not built, or not POSIX)")
if _nativejson.folder_reader is not None:
    from agentbeats_spec.reading import _native

MAX_SIZE = 64
MAX_DEPTH = 8
CLEAN = b'{"a": [1, 2.5, "\\u00e9"], "b": {"c": null}}'  # 44 bytes
INTEGRAL = b'{\n  "x": 1.0,\n  "y": [true, false]\n}'  # a float with no fractional part, under "x"
NON_UTF8 = b"\xff\xfe.json"
NAMED_NON_UTF8 = b"\xffnamed"


# ---- what the ordinary path says of a folder, and what it reads ----


def ordinary_types(folder: Path) -> dict[str, int]:
    """Each name ``os.scandir`` lists, with its type as the ordinary listing (``units._fs.entries``) takes it."""
    with os.scandir(folder) as scan:
        return {entry.name: _type_of(entry) for entry in scan}


def wanted(name: str, names: frozenset[str], suffix: str | None) -> bool:
    return name in names or (suffix is not None and name.endswith(suffix))


def ordinary_read(path: Path, max_size: int, max_depth: int) -> tuple[bytes, Any, bytes, int] | None:
    """What the native call must give for a wanted entry: the native reader's verdict on the file's bytes, when it
    is a regular file (not through a link) within the size limit."""
    if not path.is_file() or path.is_symlink():
        return None
    raw = path.read_bytes()
    if len(raw) > max_size:
        return None
    data, flag, table, integral = _native.read(raw, max_depth)
    if flag or table is None:
        return None
    return raw, data, table, integral


def exact(read: tuple[bytes, Any, bytes, int] | None) -> Any:
    """A read compared exactly: repr tells 1 from 1.0 and True, and keeps the order of members."""
    return None if read is None else (read[0], repr(read[1]), read[2], read[3])


def native_listing(folder: Path, names: frozenset[str], suffix: str | None, max_size: int, max_depth: int) -> Any:
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return _native.read_folder(descriptor, (names, suffix, ()), max_size, max_depth)
    finally:
        os.close(descriptor)


def compare(folder: Path, names: frozenset[str], suffix: str | None, max_size: int, max_depth: int) -> dict[str, Any]:
    """The native call on ``folder`` agrees with the ordinary path entry by entry; its reads, by name."""
    found = native_listing(folder, names, suffix, max_size, max_depth)
    assert found is not None
    listed = [name for name, _, _ in found]
    assert len(listed) == len(set(listed))  # each entry once
    assert {name: type_ for name, type_, _ in found} == ordinary_types(folder)
    reads = {name: read for name, _, read in found}
    for name, read in reads.items():
        expected = ordinary_read(folder / name, max_size, max_depth) if wanted(name, names, suffix) else None
        assert exact(read) == exact(expected), name
    return reads


# ---- a hostile folder ----


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Regular files clean and flagged, wanted and not, links of every kind, a FIFO, a socket, folders, and names
    no text encoding holds."""
    folder = tmp_path / "folder"
    folder.mkdir()
    files = {
        "clean.json": CLEAN,
        "integral.json": INTEGRAL,
        "at-limit.json": CLEAN[:-1] + b" " * (MAX_SIZE - len(CLEAN)) + b"}",  # exactly max_size: still read
        "manifest": CLEAN,  # wanted by name, not by suffix
        "new\nline.json": CLEAN,
        "duplicate.json": b'{"a": 1, "a": 2}',
        "bom.json": b"\xef\xbb\xbf" + CLEAN,
        "nan.json": b'{"a": NaN}',
        "bad-utf8.json": b'{"a": "\xff"}',
        "empty.json": b"",
        "trailing.json": b"{} {}",
        "deep.json": b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
        "large.json": CLEAN[:-1] + b" " * (MAX_SIZE + 1 - len(CLEAN)) + b"}",  # one byte over max_size
        "notes.txt": CLEAN,  # unwanted
        "upper.JSON": CLEAN,  # unwanted: the suffix is compared as it is written
    }
    for name, raw in files.items():
        (folder / name).write_bytes(raw)
    (tmp_path / "outside.json").write_bytes(CLEAN)
    (folder / "sub").mkdir()
    (folder / "sub.json").mkdir()  # a folder with a wanted name
    (folder / "sub" / "inner.json").write_bytes(CLEAN)
    (folder / "link-file.json").symlink_to("clean.json")
    (folder / "link-folder.json").symlink_to("sub")
    (folder / "link-out.json").symlink_to(tmp_path / "outside.json")
    (folder / "dangling.json").symlink_to("nowhere.json")
    (folder / "manifest-link").symlink_to("manifest")
    os.mkfifo(folder / "fifo.json")
    os.mkfifo(folder / "manifest-fifo")
    base = os.fsencode(folder)
    for name in (NON_UTF8, NAMED_NON_UTF8):
        with open(base + b"/" + name, "wb") as file:
            file.write(CLEAN)
    monkeypatch.chdir(folder)  # a socket's path is bound by its short relative name
    with socket.socket(socket.AF_UNIX) as bound:
        bound.bind("socket.json")
    return folder


NAMES = frozenset({"manifest", "manifest-link", "manifest-fifo", "notes", os.fsdecode(NAMED_NON_UTF8), "absent"})


@native
def test_the_native_call_types_every_entry_as_scandir_does_and_reads_only_wanted_clean_files(hostile: Path) -> None:
    reads = compare(hostile, NAMES, ".json", MAX_SIZE, MAX_DEPTH)
    found = native_listing(hostile, NAMES, ".json", MAX_SIZE, MAX_DEPTH)
    types = {name: type_ for name, type_, _ in found}
    assert types["sub"] == types["sub.json"] == _native.ENTRY_FOLDER
    assert {name for name, type_ in types.items() if type_ == _native.ENTRY_LINK} == {
        "link-file.json", "link-folder.json", "link-out.json", "dangling.json", "manifest-link",
    }  # fmt: skip
    assert {name for name, type_ in types.items() if type_ == _native.ENTRY_OTHER} == {
        "fifo.json", "manifest-fifo", "socket.json",
    }  # fmt: skip
    read = {name for name, clean in reads.items() if clean is not None}
    assert read == {
        "clean.json", "integral.json", "at-limit.json", "manifest", "new\nline.json", os.fsdecode(NON_UTF8),
        os.fsdecode(NAMED_NON_UTF8),
    }  # fmt: skip
    assert reads["clean.json"][0] == CLEAN
    assert reads["clean.json"][1] == {"a": [1, 2.5, "é"], "b": {"c": None}}
    assert reads["clean.json"][3] == 0
    assert reads["integral.json"][3] == {"x"}  # the member whose value is an integral float
    assert reads[os.fsdecode(NON_UTF8)][0] == CLEAN  # the name decodes as os.scandir's does, and opens again


@native
def test_with_neither_names_nor_suffix_nothing_is_read(hostile: Path) -> None:
    reads = compare(hostile, frozenset(), None, MAX_SIZE, MAX_DEPTH)
    assert set(reads) == set(ordinary_types(hostile))
    assert set(reads.values()) == {None}


@native
def test_a_larger_limit_reads_the_large_file_and_a_deeper_one_the_deep_file(hostile: Path) -> None:
    reads = compare(hostile, NAMES, ".json", 4096, MAX_DEPTH + 1)
    assert reads["large.json"] is not None
    assert reads["deep.json"] is not None
    assert reads["duplicate.json"] is None


@native
def test_the_callers_descriptor_stays_open_and_another_call_lists_the_same(hostile: Path) -> None:
    descriptor = os.open(hostile, os.O_RDONLY | os.O_DIRECTORY)
    try:
        first = _native.read_folder(descriptor, (NAMES, ".json", ()), MAX_SIZE, MAX_DEPTH)
        os.fstat(descriptor)  # still open
        second = _native.read_folder(descriptor, (NAMES, ".json", ()), MAX_SIZE, MAX_DEPTH)
        assert sorted((name, type_, exact(read)) for name, type_, read in first) == sorted(
            (name, type_, exact(read)) for name, type_, read in second
        )
        assert len(first) == len(ordinary_types(hostile))
    finally:
        os.close(descriptor)


@native
def test_after_the_native_call_scandir_of_the_same_descriptor_lists_the_same(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b"{}")
    (tmp_path / "b").mkdir()
    descriptor = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        native_names = sorted(name for name, _, _ in _native.read_folder(descriptor, (frozenset(), ".json", ()), 64, 8))
        with os.scandir(descriptor) as scan:
            assert sorted(entry.name for entry in scan) == native_names == ["a.json", "b"]
    finally:
        os.close(descriptor)


@native
def test_a_descriptor_another_listing_left_part_way_is_listed_whole_and_left_at_its_start(tmp_path: Path) -> None:
    """The listing reads the folder's own descriptor (getdents64 on Linux), whose offset is shared with every
    duplicate: it starts at the beginning whatever an earlier listing left, and leaves it there."""
    names = sorted(f"{number:03}.json" for number in range(40))
    for name in names:
        (tmp_path / name).write_bytes(b"{}")
    descriptor = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with os.scandir(descriptor) as scan:  # a duplicate, sharing the offset, left part way
            next(scan)
            next(scan)
            listed = _native.read_folder(descriptor, (frozenset(), ".json", ()), 64, 8)
            assert sorted(name for name, _, _ in listed) == names
            assert all(read is not None for _, _, read in listed)
        assert sorted(os.listdir(descriptor)) == names
        assert sorted(name for name, _, _ in _native.read_folder(descriptor, (frozenset(), None, ()), 64, 8)) == names
    finally:
        os.close(descriptor)


@native
def test_a_folder_of_more_names_than_one_listing_call_holds_is_listed_whole(tmp_path: Path) -> None:
    names = sorted(f"{number:04}-{'x' * 200}.json" for number in range(300))  # about 70 kB of records
    for name in names:
        (tmp_path / name).write_bytes(b"[1]")
    reads = compare(tmp_path, frozenset(), ".json", MAX_SIZE, MAX_DEPTH)
    assert sorted(reads) == names and all(read is not None for read in reads.values())


@native
@pytest.mark.parametrize("size", [2, 4095, 4096, 4097, 65536, 1 << 20])
def test_a_file_of_any_size_is_read_whole_in_one_call(tmp_path: Path, size: int) -> None:
    """A file is read with one byte more than fstat says (a read that stops short at its size has met its end):
    every size, page edges included, gives the file's exact bytes and its parse."""
    body = b'"' + b"a" * (size - 2) + b'"'
    (tmp_path / "f.json").write_bytes(body)
    descriptor = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        ((_, _, read),) = _native.read_folder(descriptor, (frozenset(), ".json", ()), size, 8)
        assert read is not None and read[0] == body and read[1] == "a" * (size - 2)
        ((_, _, smaller),) = _native.read_folder(descriptor, (frozenset(), ".json", ()), size - 1, 8)
        assert smaller is None  # one byte over the limit: the ordinary read reports it
    finally:
        os.close(descriptor)


@native
def test_a_file_named_just_the_suffix_is_wanted(tmp_path: Path) -> None:
    (tmp_path / ".json").write_bytes(CLEAN)
    reads = compare(tmp_path, frozenset(), ".json", MAX_SIZE, MAX_DEPTH)
    assert reads[".json"] is not None


def open_descriptors(inside: Path) -> list[str]:
    """What this process holds open at or below ``inside``: only this test's descriptors, whatever threads other
    tests left behind open and close meanwhile."""
    real = os.path.realpath(inside)
    held = []
    for number in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{number}")
        except OSError:
            continue  # closed since it was listed (the listing's own descriptor, say)
        if target == real or target.startswith(real + os.sep):
            held.append(target)
    return sorted(held)


@native
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="descriptors are counted in /proc/self/fd")
def test_no_descriptor_is_left_behind(hostile: Path) -> None:
    descriptor = os.open(hostile, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _native.read_folder(descriptor, (NAMES, ".json", ()), MAX_SIZE, MAX_DEPTH)  # anything made once, made
        before = open_descriptors(hostile)
        assert before == [os.path.realpath(hostile)]  # the caller's own
        for _ in range(200):
            assert _native.read_folder(descriptor, (NAMES, ".json", ()), MAX_SIZE, MAX_DEPTH) is not None
        assert open_descriptors(hostile) == before
    finally:
        os.close(descriptor)


@native
def test_a_descriptor_that_is_no_folder_gives_none(tmp_path: Path) -> None:
    (tmp_path / "file.json").write_bytes(CLEAN)
    descriptor = os.open(tmp_path / "file.json", os.O_RDONLY)
    try:
        assert _native.read_folder(descriptor, (frozenset(), ".json", ()), MAX_SIZE, MAX_DEPTH) is None
        assert os.read(descriptor, 100) == CLEAN  # and it is still the caller's, open
    finally:
        os.close(descriptor)


# ---- random folders ----

dumped = json_texts(max_leaves=12, text_size=6, container_size=4)


@st.composite
def mutants(draw: st.DrawFn) -> bytes:
    """A dumped document with one byte replaced, inserted or removed, cut short, doubled or given a BOM."""
    raw = draw(dumped)
    how = draw(st.sampled_from(["replace", "insert", "delete", "cut", "double", "bom"]))
    at = draw(st.integers(0, len(raw)))
    byte = bytes([draw(st.integers(0, 255))])
    if how == "replace":
        return raw[:at] + byte + raw[at + 1 :]
    if how == "insert":
        return raw[:at] + byte + raw[at:]
    if how == "delete":
        return raw[:at] + raw[at + 1 :]
    if how == "cut":
        return raw[:at]
    return raw + raw if how == "double" else b"\xef\xbb\xbf" + raw


stems = st.text(alphabet="ab-.", min_size=1, max_size=3).filter(lambda stem: stem not in (".", ".."))
entry_names = st.one_of(stems.map(lambda stem: stem + ".json"), stems)
entries = st.tuples(st.sampled_from(["file", "file", "file", "folder", "link", "fifo"]), dumped | mutants())
folders = st.dictionaries(entry_names, entries, max_size=8)


@native
@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    folder=folders,
    more=st.data(),
    suffix=st.sampled_from([".json", None, "a.json"]),
    max_size=st.integers(1, 400),
    max_depth=st.integers(1, 6),
)
def test_random_folders_are_seen_as_the_ordinary_path_sees_them(
    tmp_path: Path, folder: dict[str, tuple[str, bytes]], more: st.DataObject, suffix: str | None, max_size: int,
    max_depth: int,
) -> None:  # fmt: skip
    # A name that is the whole suffix is the known difference (test_a_file_named_just_the_suffix_is_wanted)
    folder = {name: entry for name, entry in folder.items() if name != suffix}
    names = more.draw(
        st.frozensets(st.sampled_from(sorted(folder)) | entry_names if folder else entry_names, max_size=4)
    )
    with tempfile.TemporaryDirectory(dir=tmp_path) as made:
        where = Path(made)
        for name, (kind, raw) in folder.items():
            path = where / name
            if kind == "file":
                path.write_bytes(raw)
            elif kind == "folder":
                path.mkdir()
            elif kind == "link":
                path.symlink_to(sorted(folder)[0])  # to an entry of the folder (perhaps itself), or a dangling name
            else:
                os.mkfifo(path)
        compare(where, names, suffix, max_size, max_depth)


# ---- whole reports ----

TASK_ERROR = "swe_utils_off-by-one_17--dfa418fc068f00e417743b806200f1b051f0086015b104eb0f4cb76f19d6b879"
TASK_RUNNING = "math-42--02d9b5de21c32251d5194ea08147fd21ace9f69e9687ffc75f2f2d118387e3a1"


@pytest.fixture
def hostile_run(tmp_path: Path) -> Path:
    """The valid AgentCompass run with one of every entry the native call leaves to the ordinary reads."""
    root = tmp_path / "run"
    shutil.copytree(FIXTURES / "valid" / "agentcompass-run", root)
    task = root / "details" / "error" / TASK_ERROR
    (task / "link.json").symlink_to("task.json")  # a link in a task folder
    (task / "attempt-2" / "result.json").unlink()
    os.mkfifo(task / "attempt-2" / "result.json")  # a FIFO as an attempt's result
    result = task / "attempt-3" / "result.json"
    text = result.read_text(encoding="utf-8")
    result.write_text(text.replace('"final_answer": "",', '"final_answer": "", "final_answer": "",'), "utf-8")
    retries = task / "attempt-1" / "retries"
    first = retries / f"{TASK_ERROR}.attempt1.retry1.evaluate.json"
    second = retries / f"{TASK_ERROR}.attempt1.retry2.evaluate.json"
    text = second.read_text(encoding="utf-8").rstrip()
    second.write_text(text[:-1] + " " * 5000 + "}", "utf-8")  # beyond --max-file-size 4K
    (retries / f"{TASK_ERROR}.attempt1.retry3.evaluate.json").symlink_to(first.name)  # a retry record that is a link
    with open(os.fsencode(retries) + b"/\xff.json", "wb") as odd:  # a clean record whose name is no UTF-8
        odd.write(first.read_bytes())
    (task / "extra").mkdir()  # an unexpected folder, with a result.json in it
    shutil.copy(FIXTURES / "valid" / "agentcompass-run" / task.relative_to(root) / "attempt-2" / "result.json",
                task / "extra" / "result.json")  # fmt: skip
    (root / "details" / "running" / "ghost").mkdir()
    (root / "details" / "running" / "ghost" / "task.json").mkdir()  # a task.json that is a folder
    running = root / "details" / "running" / TASK_RUNNING
    (running / "attempt-1").rename(tmp_path / "outside")
    (running / "attempt-1").symlink_to(tmp_path / "outside")  # an attempt folder that is a link, leading outside
    return root


def validate(run: Path, *, pure: bool) -> subprocess.CompletedProcess[bytes]:
    env = {key: value for key, value in os.environ.items() if key != "AGENTBEATS_SPEC_PURE"}
    env["PYTHONPATH"] = str(ROOT / "src")
    if pure:
        env["AGENTBEATS_SPEC_PURE"] = "1"
    command = [sys.executable, "-m", "agentbeats_spec", "validate", "--format", "json", "--no-cache", "--jobs", "1",
               "--max-file-size", "4K", str(run)]  # fmt: skip
    return subprocess.run(command, capture_output=True, env=env, timeout=120, check=False)


@native
@pytest.mark.slow
def test_a_hostile_run_reports_byte_for_byte_the_same_natively_and_purely(hostile_run: Path) -> None:
    natively = validate(hostile_run, pure=False)
    purely = validate(hostile_run, pure=True)
    assert natively.returncode == purely.returncode == 1, natively.stderr + purely.stderr
    assert natively.stdout == purely.stdout
    found = {
        (os.path.relpath(issue["file"], hostile_run), issue["code"], issue["severity"])
        for issue in json.loads(natively.stdout)["issues"]
    }
    task = f"details/error/{TASK_ERROR}"
    retries = f"{task}/attempt-1/retries"
    assert found == {
        (f"{task}/link.json", "security.symlink", "warning"),
        (f"{task}/attempt-2/result.json", "io.not-a-file", "warning"),
        (f"{task}/attempt-2", "layout.missing-result", "error"),
        (f"{task}/attempt-3/result.json", "json.duplicate-key", "error"),
        (f"{retries}/{TASK_ERROR}.attempt1.retry2.evaluate.json", "io.too-large", "error"),
        (f"{retries}/{TASK_ERROR}.attempt1.retry3.evaluate.json", "security.symlink", "warning"),
        (f"{retries}/\\xff.json", "layout.retry-file-name", "warning"),  # the name escaped, as every name printed
        (f"{task}/attempt-1/result.json", "layout.retry-count", "warning"),  # the odd record: one more than it says
        (f"{task}/extra", "layout.unexpected-entry", "warning"),
        ("details/running/ghost/task.json", "io.not-a-file", "error"),
        (f"details/running/{TASK_RUNNING}/attempt-1", "security.path-escape", "error"),
        (f"details/running/{TASK_RUNNING}/task.json", "layout.missing-attempt", "error"),
    }


# task.json is a folder when the task folder is listed, and a file when require looks (a task being written): the
# unit then lists the folder again through the same descriptor. The swap is made in the same place in both runs.
RACE = """
import os, shutil, sys
from agentbeats_spec import cli
from agentbeats_spec.reading import _folders

task, saved, arguments = sys.argv[1], sys.argv[2], sys.argv[3:]
real = _folders.read_folder

def racing(path, plan):
    found = real(path, plan)
    index = os.path.join(task, "task.json")
    if path == task and os.path.isdir(index):
        os.rmdir(index)
        shutil.copy(saved, index)
    return found

_folders.read_folder = racing
sys.exit(cli.main(arguments))
"""


@native
@pytest.mark.slow
def test_a_task_json_that_becomes_a_file_after_the_listing_reports_the_same_natively_and_purely(
    tmp_path: Path,
) -> None:
    root = tmp_path / "run"
    shutil.copytree(FIXTURES / "valid" / "agentcompass-run", root)
    task = root / "details" / "running" / TASK_RUNNING
    (task / "task.json").rename(tmp_path / "task.json")
    outputs = []
    for pure in (False, True):
        shutil.rmtree(task / "task.json", ignore_errors=True)
        (task / "task.json").unlink(missing_ok=True)
        (task / "task.json").mkdir()
        env = {key: value for key, value in os.environ.items() if key != "AGENTBEATS_SPEC_PURE"}
        env["PYTHONPATH"] = str(ROOT / "src")
        if pure:
            env["AGENTBEATS_SPEC_PURE"] = "1"
        command = [sys.executable, "-c", RACE, str(task), str(tmp_path / "task.json"), "validate", "--format",
                   "json", "--no-cache", "--jobs", "1", str(root)]  # fmt: skip
        done = subprocess.run(command, capture_output=True, env=env, timeout=120, check=False)
        assert done.returncode == 0 or pure is False, done.stderr
        outputs.append(done.stdout)
    assert json.loads(outputs[1])["issues"] == []  # the pure path: task.json was a file when looked at
    assert outputs[0] == outputs[1]


# ---- reading._folders: the native call only where it is sure ----


@pytest.fixture
def unit(tmp_path: Path) -> Path:
    folder = tmp_path / "unit"
    (folder / "attempt").mkdir(parents=True)
    for where in (folder, folder / "attempt"):
        (where / "result.json").write_bytes(CLEAN)
        (where / "b.json").write_bytes(b'{"a": 1, "a": 1}')
    return folder


@native
def test_inside_a_confinement_the_folder_is_read_in_one_call_and_sorted(unit: Path) -> None:
    with confined(unit, os.path.realpath(unit)):
        found = _folders.read_folder(str(unit), Plan(frozenset({"result.json"}), ".json"))
    assert found is not None
    assert [(name, type_) for name, type_, _ in found] == [
        ("attempt", _folders.FOLDER), ("b.json", _folders.FILE), ("result.json", _folders.FILE),
    ]  # fmt: skip
    assert found[1][2] is None
    data, _, table, integral = _native.read(CLEAN, 512)  # the default max_depth
    assert found[2][2] == _folders.Clean(CLEAN, data, table, integral)


def test_outside_a_confinement_there_is_no_native_call(unit: Path) -> None:
    assert _folders.read_folder(str(unit), Plan(frozenset({"result.json"}), ".json")) is None


PROBE = """
import os, sys
from agentbeats_spec.reading import _folders, _nativejson
from agentbeats_spec.reading._bounded import confined
from agentbeats_spec.reading._folders import Plan
unit = sys.argv[1]
with confined(unit, os.path.realpath(unit)):
    found = _folders.read_folder(unit, Plan(frozenset({"result.json"}), ".json"))
print(_nativejson.folder_reader is None, found is None)
"""


@native
def test_agentbeats_spec_pure_turns_the_native_call_off(unit: Path) -> None:
    def probe(**extra: str) -> str:
        env = {key: value for key, value in os.environ.items() if key != "AGENTBEATS_SPEC_PURE"}
        env.update(PYTHONPATH=str(ROOT / "src"), **extra)
        command = [sys.executable, "-c", PROBE, str(unit)]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, check=True).stdout

    assert probe() == "False False\n"
    assert probe(AGENTBEATS_SPEC_PURE="1") == "True True\n"


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A folder outside the unit with files the unit's would have been."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "result.json").write_bytes(b'{"secret": "outside"}')
    return folder


def swapped(folder: Path, into: Path) -> None:
    folder.rename(folder.with_name(folder.name + ".moved"))
    folder.symlink_to(into)


@native
def test_the_units_folder_swapped_for_a_link_since_the_walk_is_not_read(unit: Path, elsewhere: Path) -> None:
    real = os.path.realpath(unit)  # where the walk found it
    swapped(unit, elsewhere)
    with confined(unit, real):
        assert _folders.read_folder(str(unit), Plan(frozenset({"result.json"}), ".json")) is None
        with pytest.raises(Refused):  # and the ordinary listing that runs instead is refused, and reported
            listing(unit)


@native
def test_a_folder_below_the_unit_swapped_for_a_link_since_the_walk_is_not_read(unit: Path, elsewhere: Path) -> None:
    with confined(unit, os.path.realpath(unit)):
        swapped(unit / "attempt", elsewhere)
        assert _folders.read_folder(str(unit / "attempt"), Plan(frozenset({"result.json"}), ".json")) is None
        with pytest.raises(Refused):
            listing(unit / "attempt")
        assert _folders.read_folder(str(unit), Plan(frozenset(), None)) is not None  # the unit's own folder still is


# ---- a plan: the sub-folders listed and read in the same call ----

RETRIES = Plan(suffix=".json")
ATTEMPT = Plan(frozenset({"result.json"}), folders=(("retries", False, RETRIES),))
TASK = Plan(frozenset({"task.json"}), folders=(("attempt-", True, ATTEMPT),))


@pytest.fixture
def task(tmp_path: Path) -> Path:
    """A task folder as the writer makes it, with folders the plan does not name beside the ones it does."""
    folder = tmp_path / "task"
    (folder / "attempt-1" / "retries").mkdir(parents=True)
    (folder / "attempt-1" / "artifacts").mkdir()
    (folder / "attempt-2").mkdir()
    (folder / "other").mkdir()
    (folder / "task.json").write_bytes(CLEAN)
    (folder / "attempt-1" / "result.json").write_bytes(INTEGRAL)
    (folder / "attempt-1" / "checkpoint.json").write_bytes(CLEAN)
    (folder / "attempt-1" / "artifacts" / "result.json").write_bytes(CLEAN)
    (folder / "attempt-1" / "retries" / "t.attempt1.retry1.run.json").write_bytes(CLEAN)
    (folder / "attempt-1" / "retries" / "broken.json").write_bytes(b"{")
    (folder / "attempt-2" / "result.json").write_bytes(b'{"a": 1, "a": 2}')
    (folder / "other" / "result.json").write_bytes(CLEAN)
    return folder


def nested(folder: Path, found: list[Any], plan: Plan) -> None:
    """Each listing of the call against the ordinary path, planned sub-folders included, to any depth."""
    assert {name: type_ for name, type_, _ in found} == ordinary_types(folder)
    for name, type_, read in found:
        sub = next((sub for prefix, is_prefix, sub in plan.folders if name.startswith(prefix) if is_prefix or
                    name == prefix), None)  # fmt: skip
        if type_ == _folders.FOLDER and sub is not None:
            assert isinstance(read, list), name
            nested(folder / name, read, sub)
        elif type_ == _folders.FILE and wanted(name, plan.names, plan.suffix):
            expected = ordinary_read(folder / name, 1 << 20, 64)
            assert exact(None if read is None else tuple(read)) == exact(expected), name
        else:
            assert read is None, name


@native
def test_a_plan_lists_and_reads_the_folders_it_names_and_no_other(task: Path) -> None:
    with confined(task, os.path.realpath(task)):
        found = _folders.read_folder(str(task), TASK)
        assert found is not None
        nested(task, found, TASK)
        listing = dict((name, read) for name, _, read in found)
        assert listing["other"] is None  # not planned: never listed, its result.json never read
        attempt = dict((name, read) for name, _, read in listing["attempt-1"])
        assert attempt["artifacts"] is None and attempt["checkpoint.json"] is None
        retries = dict((name, read) for name, _, read in attempt["retries"])
        assert retries["broken.json"] is None and retries["t.attempt1.retry1.run.json"] is not None
        assert dict((name, read) for name, _, read in listing["attempt-2"])["result.json"] is None  # flagged


@native
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="descriptors are counted in /proc/self/fd")
def test_the_folders_a_plan_opens_are_the_units_until_it_ends(task: Path) -> None:
    """The call's descriptors of the planned sub-folders are kept by the unit's confinement (its later ordinary
    reads there are made in the folder the call listed) and closed when the unit ends; none is left behind."""
    assert open_descriptors(task) == []
    for _ in range(50):
        with confined(task, os.path.realpath(task)):
            assert _folders.read_folder(str(task), TASK) is not None
            during = open_descriptors(task)
            attempt = listing(str(task / "attempt-1"))  # the one the call opened, not a new one
            assert isinstance(attempt, int)
            assert os.fstat(attempt).st_ino == os.stat(task / "attempt-1").st_ino
            assert open_descriptors(task) == during
        assert open_descriptors(task) == []
    real = os.path.realpath(task)
    assert during == sorted([real, f"{real}/attempt-1", f"{real}/attempt-1/retries", f"{real}/attempt-2"])


@native
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="descriptors are counted in /proc/self/fd")
def test_one_call_opens_at_most_256_folders_and_leaves_the_rest_to_the_ordinary_listing(tmp_path: Path) -> None:
    folder = tmp_path / "task"
    for number in range(1, 301):
        (folder / f"attempt-{number}").mkdir(parents=True)
    with confined(folder, os.path.realpath(folder)):
        found = _folders.read_folder(str(folder), TASK)
        assert found is not None
        assert sum(isinstance(read, list) for _, _, read in found) == 256
        assert sum(read is None for _, _, read in found) == 44
        assert len(open_descriptors(folder)) == 257  # the task folder and 256 attempt folders
    assert open_descriptors(folder) == []


@pytest.mark.parametrize("folder", [".", "/", "a", "a/b", "/a/b", "./a", "..", "../a"])
def test_a_childs_name_is_spelled_as_pathlib_spells_it(folder: str) -> None:
    assert _folders.child(str(Path(folder)), "task.json") == str(Path(folder) / "task.json")


@native
def test_a_native_call_out_of_memory_leaves_the_folder_to_the_ordinary_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file too large for the machine's memory is the ordinary read's to report (io.out-of-memory on that file),
    never an internal error of the whole run."""
    from agentbeats_spec.application._tree_check import check_paths

    tree = FIXTURES / "valid" / "agentcompass-run"
    expected = check_paths([tree], jobs=1)

    def out_of_memory(*arguments: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(_folders, "folder_reader", out_of_memory)
    assert check_paths([tree], jobs=1) == expected
