"""A verdict cache for re-runs: the report of a unit of work (a task folder) kept under a key that changes with
anything the report could depend on.

The key hashes the package's own files and version, the options of the run (kind, limits, secret scanning), the
unit and its arguments, the working folder, and the full ``lstat`` of every entry below the unit's folder: mode,
size, inode, device, mtime and ctime in nanoseconds. Restoring a file's size and mtime with ``os.utime`` after an
edit still moves its ctime, which only the kernel sets. As git does for racily clean index entries, a unit with an
entry changed in the last few seconds (mtime or ctime) is never stored: an edit within the timestamps' granularity
could otherwise leave the stat unchanged. Entries are written atomically, one file per key, and a damaged entry
counts as a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

from .._issues import Fact, Issue
from .._version import __version__
from ..checking._collect import Part
from ..reading._bounded import read_file

# An entry whose mtime or ctime is this recent may still change within its timestamp's granularity.
RACY_NANOSECONDS = 3 * 1_000_000_000
_FORMAT = "2"


def default_folder() -> Path:
    """The user's cache folder for this tool, as each platform has it."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "agentbeats-spec" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "agentbeats-spec"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agentbeats-spec"


def inside(folder: Path, trees: list[Path]) -> bool:
    """Whether ``folder`` is one of ``trees`` or below one (where a cache must never be)."""
    real = Path(os.path.realpath(folder))
    for tree in trees:
        top = Path(os.path.realpath(tree))
        if real == top or top in real.parents:
            return True
    return False


@attrs.define
class Survey:
    """What ``lstat`` says of everything below a folder: its signature, its size, and whether it is racy."""

    signature: bytes
    size: int
    racy: bool


def survey(folder: Path) -> Survey | None:
    """Every entry below ``folder`` (links not followed), in a stable order. None when the folder cannot be read."""
    lines: list[str] = []
    size = 0
    newest = 0
    try:
        for relative, info in _walk(str(folder)):
            lines.append(
                f"{relative}\0{info.st_mode}\0{info.st_size}\0{info.st_ino}\0{info.st_dev}\0"
                f"{info.st_mtime_ns}\0{info.st_ctime_ns}\n"
            )
            size += info.st_size
            newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
    except OSError:
        return None
    signature = hashlib.sha256("".join(lines).encode("utf-8", "surrogateescape")).digest()
    return Survey(signature, size, newest >= time.time_ns() - RACY_NANOSECONDS)


def size_below(path: Path) -> int:
    """The bytes of a file, or of everything below a folder (links not followed); 0 when it cannot be read.

    What deciding on worker processes needs, without the signature a cache key needs.
    """
    try:
        return sum(info.st_size for _, info in _walk(str(path)))
    except NotADirectoryError:
        return os.lstat(path).st_size
    except OSError:
        return 0


def _walk(top: str) -> Iterator[tuple[str, os.stat_result]]:
    """(relative name, lstat) of ``top`` and everything below it, sorted by name; strings only, for speed."""
    yield "", os.lstat(top)
    pending = [(top, "")]
    while pending:
        folder, relative = pending.pop()
        with os.scandir(folder) as listing:
            found = sorted(listing, key=_name)
        below = []
        for entry in found:
            name = f"{relative}/{entry.name}"
            info = entry.stat(follow_symlinks=False)
            yield name, info
            if stat.S_ISDIR(info.st_mode):
                below.append((entry.path, name))
        pending.extend(reversed(below))


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _code_identity() -> str:
    """The package's version and the lstat of its own files (code and schemas): an edited checkout is new code."""
    from ..checking._schemas import schema_directory

    digest = hashlib.sha256(__version__.encode())
    for top in (Path(__file__).resolve().parents[1], Path(str(schema_directory()))):
        for relative, info in _walk(str(top)):
            if "__pycache__" not in relative:
                digest.update(f"{relative}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\n".encode())
    return digest.hexdigest()


class VerdictCache:
    """Reports of units of work, stored in ``folder`` under keys that change with everything they depend on."""

    def __init__(self, folder: Path, options: str) -> None:
        self.folder = folder
        self.prefix = f"{_FORMAT}\0{_code_identity()}\0{options}\0{os.getcwd()}\0"
        self.hits = 0
        self.misses = 0

    def key(self, unit: Callable[..., object], arguments: tuple[Any, ...], seen: Survey | None) -> str | None:
        """The key of a unit whose folder was surveyed; None when its report must not be kept (racy, unreadable)."""
        if seen is None or seen.racy:
            return None
        digest = hashlib.sha256(self.prefix.encode("utf-8", "surrogateescape"))
        digest.update(f"{unit.__module__}.{unit.__qualname__}\0{arguments!r}\0".encode("utf-8", "surrogateescape"))
        digest.update(seen.signature)
        return digest.hexdigest()

    def _path(self, key: str) -> str:
        return os.path.join(self.folder, key[:2], f"{key[2:]}.json")

    def get(self, key: str) -> Part | None:
        try:
            stored = json.loads(read_file(self._path(key)))  # a FIFO or a link planted as an entry is a miss
            part = Part(
                tuple(Issue(**fields) for fields in stored["issues"]),
                int(stored["checked"]),
                int(stored["skipped"]),
                tuple((str(name), int(count)) for name, count in stored["kinds"]),
                tuple(Fact(*fields) for fields in stored["facts"]),
            )
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            self.misses += 1
            return None
        self.hits += 1
        return part

    def put(self, key: str, part: Part) -> None:
        stored = {
            "issues": [attrs.asdict(issue) for issue in part.issues],
            "checked": part.checked,
            "skipped": part.skipped,
            "kinds": part.kinds,
            "facts": [attrs.astuple(fact) for fact in part.facts],
        }
        target = self._path(key)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".tmp.")
            try:
                with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
                    stream.write(json.dumps(stored, ensure_ascii=False))
                os.replace(temporary, target)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError:
            pass  # a cache that cannot be written only costs the next run its time
