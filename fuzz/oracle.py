"""The fuzzer's oracle: the native reader's verdict, data and offsets against the exact pure-Python reader, the
ACTF rules' native step filter against the rules judging every step, and the native folder reader against
os.scandir and the ordinary reads.

Imported by the libFuzzer harness (fuzz_native.c) with the harness's own builds of both native modules already
registered as ``agentbeats_spec.reading._native`` and ``agentbeats_spec.rules._actf_native`` (and its hooks on the
folder reader's system calls as ``_fuzzhooks``). :func:`check_input` is called with each input: one that begins
with the byte FOLDER_MODE describes a folder (:func:`check_folder`), any other is a JSON text (:func:`check`). An
AssertionError here is a crash to the fuzzer.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import tempfile
from typing import Any

import _fuzzhooks  # the harness's hooks on the folder reader's system calls (fuzz_native.c)

from agentbeats_spec.reading import _json, _native, _nativejson
from agentbeats_spec.reading._folders import FILE, FOLDER, LINK, OTHER
from agentbeats_spec.rules import _actf_steps, actf
from agentbeats_spec.units import _fs

MAX_DEPTH = 64  # low enough for the fuzzer to reach, so that the limit's edge is exercised
COUNTS = {"json": 0, "folder": 0}  # inputs of each mode, printed by the harness when it ends


def check_input(raw: bytes) -> None:
    """One fuzz input: a folder description after the byte FOLDER_MODE, else a JSON text."""
    if raw[:1] == FOLDER_MODE:
        COUNTS["folder"] += 1
        check_folder(raw[1:])
    else:
        COUNTS["json"] += 1
        check(raw)


def check(raw: bytes, max_depth: int = MAX_DEPTH) -> None:
    """The native reader's verdict on ``raw`` against the exact reader's, its data, offsets and step filter."""
    data, flag, table, integral = _native.read(raw, max_depth)
    text, decoded = _json.decode(raw, family="json")
    try:
        exact, findings = _json.parse(text, max_depth=max_depth) if text is not None else (None, [])
    except RecursionError:
        return  # the exact reader's own limits; the native reader flagged it or the assertion below would fail
    clean = text is not None and not decoded and not findings
    if flag:
        assert data is None and table is None and integral == 0
        # Only what the exact reader does not report may be flagged spuriously.
        assert not clean or flag in (_native.FLAG_SURROGATE, _native.FLAG_DEPTH), (raw, flag)
        return
    assert clean, (raw, decoded, findings)
    assert json.dumps(data) == json.dumps(exact), raw
    # Schema validation skips the 1.0-is-not-an-integer check where the reader saw no integral float: never wrongly.
    assert (integral or set()) == _integral_places(data), raw
    assert table is not None and text is not None
    paths = list(_paths(data))[:64]
    native = _nativejson.locate(raw, table, paths)
    reference = _json.locate(text, paths)
    characters = {offset: len(raw[:offset].decode("utf-8")) for place in native.values() for offset in place if offset}
    as_characters = {
        path: (None if key is None else characters.get(key, key), characters.get(value, value))
        for path, (key, value) in native.items()
    }
    assert as_characters == reference, raw
    offsets = sorted({value for _, value in native.values()})
    lines = _nativejson.line_columns(raw, offsets)
    by_text = _json.Lines(text).positions(characters.get(offset, offset) for offset in offsets)
    assert [lines[offset] for offset in offsets] == [by_text[characters.get(offset, offset)] for offset in offsets]
    for trajectory in _trajectories(data):  # the ACTF step pre-filter leaves the rules' findings unchanged
        filtered = list(actf.trajectory(trajectory))
        native, _actf_steps._actf_native = _actf_steps._actf_native, None
        try:
            assert list(actf.trajectory(trajectory)) == filtered, raw
        finally:
            _actf_steps._actf_native = native


def _integral_places(value: Any) -> set[str | None]:
    """The names of the members whose values are floats with no fractional part (1.0, 1e0, -0.0); None for one
    that is an array item or the whole document."""
    places: set[str | None] = set()
    stack: list[tuple[Any, str | None]] = [(value, None)]
    while stack:
        item, member = stack.pop()
        if isinstance(item, float) and item.is_integer():
            places.add(member)
        if isinstance(item, dict):
            stack.extend((inner, key) for key, inner in item.items())
        elif isinstance(item, list):
            stack.extend((inner, None) for inner in item)
    return places


def _trajectories(value: Any) -> Any:
    """Every object with a list of steps, wherever it is."""
    if isinstance(value, dict):
        if isinstance(value.get("steps"), list):
            yield value
        for item in value.values():
            yield from _trajectories(item)
    elif isinstance(value, list):
        for item in value:
            yield from _trajectories(item)


def _paths(value: Any, path: tuple[str, ...] = ()) -> Any:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, str(index)))


# ---- The folder reader: _native.read_folder against os.scandir and the ordinary reads ----
#
# A folder input, after the byte FOLDER_MODE:
#   settings: suffix (bits 0-1: none, ".json", "", ".jsonl"), max_size (bits 2-3: the content's length, one less,
#     one more, 1 MiB), max_depth (bits 4-5: 64, 1, 2, 512), the names wanted (bits 6-7: none, task.json,
#     result.json, both);
#   hooks: the listing's d_type (bits 0-1: as is, DT_UNKNOWN, DT_REG for every entry, as is), short reads (bit 2, of
#     1 + bits 4-7 bytes), growth at the end of each file (bit 3);
#   fail_at: the listing call (getdents64 on Linux, from 1) that fails, when below 16;
#   count: entries, modulo 9;
#   per entry: a kind byte (bits 0-3: see KINDS; bits 4-6: a cut of the content; bit 7: its name is wanted too) and
#     a name byte (bit 7: NAMES[low bits], else the length of the name that follows, its bytes as they are but "/"
#     and NUL, which no name holds);
#   the rest: the content of the files.
FOLDER_MODE = b"\x01"
SUB_WANTED = frozenset({"result.json"})  # what the plan reads in each sub-folder (_make writes it there)
NAMES = [
    b"task.json", b"result.json", b"x.json", b".json", b"a.jsonl", b"run_info.json", "\u00e9.json".encode(),
    b"\xff.json", b"a\nb.json", b"result.json\xff", b"RESULT.JSON", b"json", b" .json", b"a.json.tmp",
]  # fmt: skip
SUFFIXES = [None, ".json", "", ".jsonl"]
DEPTHS = [MAX_DEPTH, 1, 2, 512]
WANTED = [frozenset(), frozenset({"task.json"}), frozenset({"result.json"}), frozenset({"task.json", "result.json"})]
# kind -> what it is made as; "file*" are regular files, whose bytes the oracle knows
KINDS = [
    "file", "file-empty", "file-large", "file-cut", "folder", "link-sibling", "link-parent", "fifo", "socket",
    "file-unreadable", "link-dangling", "link-self", "file-trailing", "file-hardlink", "link-dot", "file-bom",
]  # fmt: skip
TYPE_OF_KIND = {"folder": FOLDER, "fifo": OTHER, "socket": OTHER}
# where each input's folder is made: run.py's own temporary folder, else /dev/shm (memory) when there is one
BASE = os.environ.get("AGENTBEATS_FUZZ_FOLDERS") or ("/dev/shm" if os.path.isdir("/dev/shm") else None)
_descriptors: list[int] = []  # the process's open descriptors after the first folder input


def check_folder(spec: bytes) -> None:
    """Make the folder ``spec`` describes, read it natively (twice, on one descriptor) and judge every entry."""
    head, rest = spec[:5].ljust(5, b"\0"), spec[5:]
    settings, hooks, fail_at, count = head[0], head[1], head[2], head[4] % 9
    suffix = SUFFIXES[settings & 3]
    max_depth = DEPTHS[(settings >> 4) & 3]
    names = set(WANTED[settings >> 6])
    entries: list[tuple[bytes, str, int]] = []  # name, kind, cut
    for _ in range(count):
        if len(rest) < 2:
            break
        kind, length, rest = rest[0], rest[1], rest[2:]
        if length & 0x80:
            name = NAMES[(length & 0x7F) % len(NAMES)]
        else:
            name, rest = rest[:length], rest[length:]
        name = name.replace(b"/", b"_").replace(b"\0", b"_") or b"e"
        if name in (b".", b"..") or any(name == other for other, _, _ in entries):
            continue
        entries.append((name, KINDS[kind & 15], (kind >> 4) & 7))
        if kind & 0x80:
            names.add(os.fsdecode(name))
    content = rest
    max_size = [len(content), max(len(content) - 1, 0), len(content) + 1, 1 << 20][(settings >> 2) & 3]
    dtype = hooks & 3 if hooks & 3 != 3 else 0
    chunk = 1 + (hooks >> 4) if hooks & 4 else 0
    grow = (hooks >> 3) & 1
    fail = fail_at if fail_at < 16 else 0
    folder = tempfile.mkdtemp(prefix="abfz-", dir=BASE)
    try:
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            written = _make(folder, descriptor, entries, content, max_size)
            wanted = frozenset(names)
            types = _types(descriptor)
            _fuzzhooks.advance(descriptor)  # someone listed it through the shared offset: the call must rewind
            _fuzzhooks.set(dtype, chunk, grow, fail)
            # Every sub-folder is listed in the same call, and its result.json read (a plan one level deep).
            plan = (wanted, suffix, (("", True, (SUB_WANTED, None, ())),))
            first = _native.read_folder(descriptor, plan, max_size, max_depth)
            _fuzzhooks.set(dtype, chunk, grow, fail)  # the same again, on the descriptor the first call listed
            second = _native.read_folder(descriptor, plan, max_size, max_depth)
            _fuzzhooks.set(0, 0, 0, 0)
            # The caller's descriptor stays open, and where os.scandir expects it: the walk lists a folder the
            # ordinary way from the same descriptor (_bounded.listing) when the native call gave it nothing.
            after = _types(descriptor)
        finally:
            os.close(descriptor)
        assert after == types, ("os.scandir lists another folder after read_folder", sorted(types), sorted(after))
        hook = (dtype, chunk, grow, fail)
        try:
            for found in (first, second):
                _judge(found, types, written, wanted, suffix, max_size, max_depth, hook, folder)
            assert _comparable(first) == _comparable(second), "a second call on the same descriptor differs"
        finally:
            for found in (first, second):
                _close_opened(found)
    finally:
        shutil.rmtree(folder)
    open_now = os.listdir("/proc/self/fd")
    if not _descriptors:
        _descriptors.append(len(open_now))
    assert len(open_now) == _descriptors[0], ("descriptors leaked", _descriptors[0], _targets(open_now))


def _targets(descriptors: list[str]) -> list[tuple[str, str]]:
    """What each open descriptor names, for the message of a leak."""
    named = []
    for number in descriptors:
        try:
            named.append((number, os.readlink(f"/proc/self/fd/{number}")))
        except OSError:
            named.append((number, "?"))
    return named


def _types(descriptor: int) -> dict[bytes, int]:
    """Each entry's type as the ordinary listing (units._fs) sees it: os.scandir on the descriptor, which rewinds
    it when closed."""
    with os.scandir(descriptor) as listing:
        return {os.fsencode(entry.name): _fs._type_of(entry) for entry in listing}


def _make(
    folder: str, descriptor: int, entries: list[tuple[bytes, str, int]], content: bytes, max_size: int
) -> dict[bytes, tuple[str, bytes | None]]:
    """Each entry made in the folder: name -> (kind, the bytes of a regular file, else None). An entry the
    system refuses (a name too long, a socket path beyond its limit) is left out."""
    made: dict[bytes, tuple[str, bytes | None]] = {}
    first_file: bytes | None = None
    for index, (name, kind, cut) in enumerate(entries):
        body: bytes | None = None
        try:
            if kind.startswith("file") and kind != "file-hardlink":
                body = {
                    "file": content,
                    "file-empty": b"",
                    "file-large": content + b" " * max(max_size + 1 - len(content), 0),
                    "file-cut": content[: len(content) * cut // 8],
                    "file-unreadable": content,
                    "file-trailing": content + b"x",
                    "file-bom": b"\xef\xbb\xbf" + content,
                }[kind]
                handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=descriptor)
                try:
                    os.write(handle, body)
                finally:
                    os.close(handle)
                if kind == "file-unreadable":
                    os.chmod(name, 0, dir_fd=descriptor)
                first_file = first_file or name
            elif kind == "file-hardlink":
                if first_file is None:
                    continue
                os.link(first_file, name, src_dir_fd=descriptor, dst_dir_fd=descriptor)
                body = made[first_file][1]
            elif kind == "folder":
                os.mkdir(name, dir_fd=descriptor)
                with open(os.path.join(os.fsencode(folder), name, b"result.json"), "wb") as inner:
                    inner.write(content)
            elif kind == "fifo":
                os.mkfifo(name, dir_fd=descriptor)
            elif kind == "socket":
                with socket.socket(socket.AF_UNIX) as server:
                    server.bind(os.path.join(os.fsencode(folder), name))
            else:
                target = {
                    "link-sibling": first_file or entries[(index + 1) % len(entries)][0],
                    "link-parent": b"..",
                    "link-dangling": b"missing.json",
                    "link-self": name,
                    "link-dot": b".",
                }[kind]
                os.symlink(target, name, dir_fd=descriptor)
        except OSError:
            continue
        made[name] = (kind, body)
    return made


def _judge(
    found: Any,
    types: dict[bytes, int],
    written: dict[bytes, tuple[str, bytes | None]],
    wanted: frozenset[str],
    suffix: str | None,
    max_size: int,
    max_depth: int,
    hook: tuple[int, int, int, int],
    folder: str,
) -> None:
    """One native listing against os.scandir's, the entries made and the native reader's verdict on each file;
    each sub-folder's own listing (the plan's one level) against what _make put there."""
    dtype, _, grow, fail = hook
    assert set(types) == set(written), ("the oracle's folder is not what it made", types, written)
    if fail and found is None:
        return  # a listing failed part way: the folder's own, whatever number of calls it took
    # On Linux the folder reader lists by getdents64: one call gives every record of these small folders (at most 8
    # entries), a second finds the end, and the same two for each sub-folder listed as one. If one of these failed
    # and the folder came back, it was in a sub-folder's listing (made during the folder's own): that one is None.
    descended = sum(type_ == FOLDER for _, type_, _ in found or ())
    if fail and fail <= 2 + 2 * descended:
        assert any(type_ == FOLDER and read is None for _, type_, read in found), ("a failed listing came back", found)
    assert found is not None, "a folder that could be listed came back None"
    listed = {os.fsencode(name): (type_, read) for name, type_, read in found}
    assert len(listed) == len(found), ("a name listed twice", found)
    assert set(listed) == set(types), ("not the names os.scandir lists", sorted(listed), sorted(types))
    verdicts: dict[bytes, Any] = {}
    for name, (type_, read) in listed.items():
        kind, body = written[name]
        expected = FILE if dtype == 2 else types[name]  # DT_REG for all: a listing raced by replacements
        assert type_ == expected, ("type", name, type_, expected, kind)
        assert types[name] == TYPE_OF_KIND.get(kind, LINK if kind.startswith("link") else FILE), (name, kind)
        if type_ == FOLDER:
            _judge_sub_folder(os.path.join(os.fsencode(folder), name), read, max_size, max_depth, dtype or grow)
            continue
        is_wanted = type_ == FILE and (
            os.fsdecode(name) in wanted
            or (suffix is not None and len(name) >= len(suffix.encode()) and name.endswith(suffix.encode()))
        )
        if not is_wanted or body is None:  # not wanted, or not a regular file whatever the listing said
            assert read is None, ("read what was not wanted or not a regular file", name, kind)
            continue
        if body not in verdicts:
            verdicts[body] = _native.read(body, max_depth)
        data, flag, table, integral = verdicts[body]
        readable = kind != "file-unreadable" or os.geteuid() == 0
        if read is None:
            # Only a file the reader flags, a file too large or one that grew may be left to the ordinary read.
            assert flag or len(body) > max_size or grow or not readable, ("a clean file was not read", name, kind)
            continue
        assert not grow, ("a file that grew while read was kept", name)
        assert len(body) <= max_size, ("a file larger than max_size was read", name, len(body), max_size)
        raw, read_data, read_table, read_integral = read
        assert raw == body, ("not the file's bytes", name, raw, body)
        assert flag == 0, ("a flagged document came back read", name, flag)
        assert json.dumps(read_data) == json.dumps(data) and read_table == table and read_integral == integral, name
    for body in verdicts:
        if verdicts[body][1] == 0 and len(body) <= max_size:
            check(body, max_depth)  # and the exact reader confirms the clean verdict


def _judge_sub_folder(path: bytes, read: Any, max_size: int, max_depth: int, hooked: int) -> None:
    """A planned sub-folder: None (it could not be opened or listed), or (its descriptor, opened where the folder
    is and never through a link, and its entries: the result.json _make wrote, read as any wanted file is)."""
    if read is None:
        return
    descriptor, entries = read
    opened, there = os.fstat(descriptor), os.stat(path, follow_symlinks=False)
    assert stat.S_ISDIR(opened.st_mode) and (opened.st_ino, opened.st_dev) == (there.st_ino, there.st_dev), path
    with open(os.path.join(path, b"result.json"), "rb") as inner:
        body = inner.read()
    assert [(name, type_) for name, type_, _ in entries] == [("result.json", FILE)], (path, entries)
    inner_read = entries[0][2]
    data, flag, table, integral = _native.read(body, max_depth)
    if inner_read is None:
        # left to the ordinary read: flagged, too large, or a hook made it grow (or listed it as something else)
        assert flag or len(body) > max_size or hooked, ("a clean file in a sub-folder was not read", path)
        return
    assert inner_read[0] == body and flag == 0 and len(body) <= max_size, path
    assert json.dumps(inner_read[1]) == json.dumps(data) and inner_read[2:] == (table, integral), path


def _close_opened(found: Any) -> None:
    """The descriptors of the sub-folders a call opened (the caller's to close)."""
    for _, type_, read in found or ():
        if type_ == FOLDER and isinstance(read, tuple):
            os.close(read[0])


def _comparable(found: Any) -> Any:
    if found is None:
        return None
    return sorted(
        (
            name,
            type_,
            None
            if read is None
            else ("folder", _comparable(read[1]))
            if type_ == FOLDER
            else (read[0], json.dumps(read[1]), *read[2:]),
        )
        for name, type_, read in found
    )
