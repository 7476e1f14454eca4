"""A verdict cache for re-runs: the report of a unit of work (a task folder) kept under a key that changes with
anything the report could depend on.

The key hashes the package's own files and version, the options of the run (kind, limits, secret scanning), the
unit and its arguments, the working folder, and the full ``lstat`` of every entry below the unit's folder: mode,
size, inode, device, mtime and ctime in nanoseconds. Restoring a file's size and mtime with ``os.utime`` after an
edit still moves its ctime, which only the kernel sets. As git does for racily clean index entries, a unit with an
entry changed in the last few seconds (mtime or ctime) is never stored: an edit within the timestamps' granularity
could otherwise leave the stat unchanged. Entries are written atomically and privately (folders 0700, files 0600,
temporary files opened with ``O_EXCL``), one file per key, and an entry that is damaged, edited or of the wrong
shape, or that others could have written, counts as a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import operator
import os
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs

from ..checking._collect import Part
from ..reading import _nativejson
from ..reading._bounded import open_regular, read_sized
from ..reading._trusted import distrusted, warn_on_stderr
from ..vocabulary._issues import Fact, Issue, SpecError
from ..vocabulary._shipped_schemas import schema_directory
from ..vocabulary._text import printable
from ..vocabulary._version import __version__

# An entry whose mtime or ctime is this recent may still change within its timestamp's granularity.
RACY_NANOSECONDS = 3 * 1_000_000_000
_FORMAT = "3"


def default_folder() -> Path:
    """The user's cache folder for this tool, as each platform has it."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "agentbeats-spec" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "agentbeats-spec"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agentbeats-spec"


def for_run(asked: Path | None, trees: Sequence[Path], options: str) -> VerdictCache | None:
    """The verdict cache of a run over ``trees``: in the folder ``asked`` for, else in the user's cache folder.

    None where the user's cache folder lies inside a checked tree (the run goes without a cache); a folder asked
    for there is a :class:`SpecError`, since a cache is never kept inside what it judges.
    """
    folder = asked or default_folder()
    if inside(folder, trees):
        if asked is None:
            return None
        raise SpecError(f"the cache folder {folder} is inside a checked folder")
    return VerdictCache(folder, options)


def inside(folder: Path, trees: Sequence[Path]) -> bool:
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
    """Every entry below ``folder`` (links not followed), in a stable order. None when the folder cannot be read.

    The native survey (``reading._native.survey``) makes the same lines in one call; where it cannot (no native
    module, or anything unusual: it then says nothing), this walk makes them.
    """
    found = _native_survey(os.fspath(folder)) if _native_survey is not None else None
    if found is not None:
        lines_, size_, newest_ = found
        return Survey(hashlib.sha256(lines_).digest(), size_, newest_ >= time.time_ns() - RACY_NANOSECONDS)
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
            found = sorted(listing, key=_NAME)
        below = []
        for entry in found:
            name = f"{relative}/{entry.name}"
            info = entry.stat(follow_symlinks=False)
            yield name, info
            if stat.S_ISDIR(info.st_mode):
                below.append((entry.path, name))
        pending.extend(reversed(below))


_NAME = operator.attrgetter("name")
_native_survey = _nativejson.surveyor  # a C getter: a Python key function costs a call per entry of the tree


def _code_identity() -> str:
    """The package's version and the lstat of its own files (code and schemas): an edited checkout is new code."""
    digest = hashlib.sha256(__version__.encode())
    for top in (Path(__file__).resolve().parents[1], schema_directory()):
        for relative, info in _walk(str(top)):
            if "__pycache__" not in relative:
                digest.update(f"{relative}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\n".encode())
    return digest.hexdigest()


class VerdictCache:
    """Reports of units of work, stored in ``folder`` under keys that change with everything they depend on.

    The cache is input like any file: its folder, each shard folder and each entry are used only when they belong
    to this user and nobody else may write them (as ssh treats key files), else they are not used and ``warn``
    (by default a line on stderr) says why, once. Each entry carries a digest of its key and its verdict, and every
    field is checked for its type and shape when it is read: an entry that is damaged, edited, truncated, moved
    to another key or of the wrong shape is a miss, and the fresh verdict replaces it.
    """

    def __init__(self, folder: Path, options: str, warn: Callable[[str], None] | None = None) -> None:
        self.folder = folder
        self.prefix = f"{_FORMAT}\0{_code_identity()}\0{options}\0{os.getcwd()}\0"
        self.hits = 0
        self.misses = 0
        self.warn = warn or warn_on_stderr
        self.warned = False
        self.shards: dict[str, bool] = {}
        self.made = os.path.isdir(folder)
        self.usable = self._usable_folder()

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

    def _refuse(self, what: str, path: str, why: str) -> None:
        if not self.warned:
            self.warned = True
            shown = printable(path, controls=True)
            self.warn(f"the cache {what} {shown} {why}: not used (make it yours alone: chmod go-w {shown})")

    def _private(self, what: str, path: str, info: os.stat_result, want: Callable[[int], bool]) -> bool:
        """Whether a folder or entry of the cache may be trusted: of the right type, this user's, written by no one
        else. Says why not, once."""
        if not want(info.st_mode):
            self._refuse(what, path, "is not a " + ("folder" if want is stat.S_ISDIR else "regular file"))
            return False
        why = distrusted(info, alone=True)  # the check of every file that decides a verdict; the cache is this user's
        if why is not None:
            self._refuse(what, path, why)
            return False
        return True

    def _usable_folder(self) -> bool:
        try:
            info = os.stat(self.folder)  # the folder the user named, through a link if it is one
        except FileNotFoundError:
            return True  # made private by the first entry written
        except OSError:
            return False
        return self._private("folder", str(self.folder), info, stat.S_ISDIR)

    def _usable_shard(self, key: str) -> bool:
        shard = key[:2]
        if shard not in self.shards:
            path = os.path.join(self.folder, shard)
            try:
                info = os.lstat(path)  # never through a link
            except FileNotFoundError:
                return True  # not cached: made when the first entry of the shard is written
            except OSError:
                info = None
            self.shards[shard] = info is not None and self._private("folder", path, info, stat.S_ISDIR)
        return self.shards[shard]

    def get(self, key: str) -> Part | None:
        part = self._read(key) if self.usable and self._usable_shard(key) else None
        if part is None:
            self.misses += 1
        else:
            self.hits += 1
        return part

    def _read(self, key: str) -> Part | None:
        path = self._path(key)
        try:  # never through a link, never a FIFO: a planted entry is a miss
            with open_regular(path) as descriptor:
                info = os.fstat(descriptor)
                if not self._private("entry", path, info, stat.S_ISREG):
                    return None
                raw = read_sized(descriptor, info.st_size, MAX_ENTRY_BYTES)
        except OSError:
            return None
        if len(raw) > MAX_ENTRY_BYTES:
            return None
        try:
            stored = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        if not isinstance(stored, dict) or set(stored) != {"digest", "verdict"}:
            return None
        verdict = stored["verdict"]
        if not isinstance(stored["digest"], str) or stored["digest"] != _digest(key, verdict):
            return None
        return _part(verdict)

    def put(self, key: str, part: Part) -> None:
        if not self.usable or not self._usable_shard(key):
            return
        verdict = {
            "issues": [attrs.asdict(issue) for issue in part.issues],
            "checked": part.checked,
            "skipped": part.skipped,
            "kinds": [list(pair) for pair in part.kinds],
            "facts": [attrs.asdict(fact) for fact in part.facts],
        }
        target = self._path(key)
        try:
            if not self.made:  # the folder did not exist when the cache was opened: made now, and checked again
                os.makedirs(self.folder, mode=0o700, exist_ok=True)
                self.made = self.usable = self._usable_folder()
                if not self.usable:
                    return
            with contextlib.suppress(FileExistsError):
                os.mkdir(os.path.dirname(target), 0o700)
            if not self._usable_shard(key):
                return
            # mkstemp: O_EXCL, mode 0600
            descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".tmp.")
            try:
                with os.fdopen(descriptor, "w", encoding="ascii") as stream:
                    json.dump({"digest": _digest(key, verdict), "verdict": verdict}, stream)
                os.replace(temporary, target)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError:
            pass  # a cache that cannot be written only costs the next run its time


# An entry is a few issues; one this large was not written by this cache.
MAX_ENTRY_BYTES = 64 * 1024 * 1024


def _digest(key: str, verdict: object) -> str:
    """SHA-256 of the key and the verdict's canonical JSON (ASCII: a name that is not UTF-8 is kept escaped)."""
    canonical = json.dumps(verdict, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(f"{key}\0{canonical}".encode("ascii")).hexdigest()


_ISSUE_FIELDS = {field.name for field in attrs.fields(Issue)}
_FACT_FIELDS = {field.name for field in attrs.fields(Fact)}


def _part(verdict: Any) -> Part | None:
    """The verdict as a Part when every field has its type and shape, else None (a miss)."""
    if not isinstance(verdict, dict) or set(verdict) != {"issues", "checked", "skipped", "kinds", "facts"}:
        return None
    issues, checked, skipped, kinds, facts = (
        verdict[name] for name in ("issues", "checked", "skipped", "kinds", "facts")
    )
    if not (_count(checked) and _count(skipped) and isinstance(issues, list) and isinstance(facts, list)):
        return None
    if not isinstance(kinds, list) or not all(
        isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and _count(pair[1]) for pair in kinds
    ):
        return None
    made_issues = [_issue(fields) for fields in issues]
    made_facts = [_fact(fields) for fields in facts]
    if any(issue is None for issue in made_issues) or any(fact is None for fact in made_facts):
        return None
    return Part(
        tuple(issue for issue in made_issues if issue is not None),
        checked,
        skipped,
        tuple((name, count) for name, count in kinds),
        tuple(fact for fact in made_facts if fact is not None),
    )


def _issue(fields: Any) -> Issue | None:
    if not isinstance(fields, dict) or set(fields) != _ISSUE_FIELDS:
        return None
    strings = ("severity", "code", "message", "pointer")
    if not all(isinstance(fields[name], str) for name in strings):
        return None
    if not (_optional_text(fields["file"]) and _optional_text(fields["kind"]) and _placed(fields)):
        return None
    if not _pointer(fields["pointer"]) or fields["severity"] not in ("error", "warning", "info"):
        return None
    try:
        return Issue(**fields)  # the code must be the table's, at a severity it allows
    except (TypeError, ValueError):
        return None


def _fact(fields: Any) -> Fact | None:
    if not isinstance(fields, dict) or set(fields) != _FACT_FIELDS:
        return None
    if not all(isinstance(fields[name], str) for name in ("rule", "scope", "value", "file", "pointer")):
        return None
    if not (fields["rule"] and _optional_text(fields["kind"]) and _placed(fields)):
        return None
    return Fact(**fields) if _pointer(fields["pointer"]) else None


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _placed(fields: dict[str, Any]) -> bool:
    """A line and a column: both absent, or whole numbers from 1 (never a boolean, a float or a string)."""
    line, column = fields["line"], fields["column"]
    if line is None or column is None:
        return line is None and column is None
    return type(line) is int and type(column) is int and line >= 1 and column >= 1


def _optional_text(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _pointer(value: str) -> bool:
    return value == "" or value.startswith("/")
