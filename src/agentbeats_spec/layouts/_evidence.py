"""A collected artifact on disk, measured as the AgentCompass 1.0.1 collector measures it when it records it.

The collector (``runtime/artifacts.py``, ``_fingerprint``) records ``file_count``, ``size_bytes`` and ``sha256`` for
each ``collected`` entry, and reuse (``_validated_collected_artifacts``) measures the stored copy again and refuses
the run when any of them differs. Its measure, as read from that function:

- the entries are the artifact itself and, for a folder, everything below it: links are listed, never descended
  into, and the entries are sorted by the parts of their paths;
- ``file_count`` counts those entries, folders and links included;
- ``size_bytes`` counts the bytes of the regular files;
- ``sha256`` is taken over, entry after entry, the compact JSON text (ASCII escapes) of ``[name, permission bits,
  size of a regular file or null]`` and then ``link:`` and the link's text, ``file:`` and the file's bytes, or
  ``dir:``. ``name`` is the path from the folder (``.`` for the folder itself), or a file artifact's own name.
  Whether a link counts as a regular file for ``size`` is where it leads, which is inside the artifact;
- a link that is absolute or leads outside the artifact, a FIFO, a socket or a device: the collector refuses.

Nothing here follows a link or reads anything but a regular file: a file is opened with ``O_NOFOLLOW`` and checked
with ``fstat`` before a byte is read, and never read past the size ``lstat`` gave it.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from typing import TYPE_CHECKING

import attrs

from ..reading._bounded import NotRegular, open_regular

if TYPE_CHECKING:
    from _hashlib import HASH

_BLOCK = 1 << 20


@attrs.frozen
class Refusal:
    """Why the collector could not measure the artifact (``what`` completes "collected artifact X ...")."""

    code: str  # layout.artifact-mismatch, or io.unreadable when this process may not read it
    what: str


@attrs.frozen
class _Entry:
    parts: tuple[str, ...]  # from the artifact's folder; () for the artifact itself
    path: str
    info: os.stat_result


@attrs.frozen
class Measure:
    """What an artifact holds, from ``lstat`` alone: its entries and the bytes of its files."""

    path: str
    entries: tuple[_Entry, ...]
    size_bytes: int

    @property
    def file_count(self) -> int:
        return len(self.entries)

    def sha256(self, umask: int | None = None) -> str | Refusal:
        """The digest the collector takes, over every entry's name, permission bits, size and content; with
        ``umask``, over the permission bits a checkout or a copy under that umask gives the same entries
        (:func:`copied_mode`) instead of those they have."""
        try:
            return _digest(self.path, self.entries, umask)
        except OSError as error:
            return _unreadable(error)

    def first_other_mode(self, umask: int) -> tuple[str, int, int] | None:
        """The first entry whose permission bits are not those a copy under ``umask`` gives: its name (as the
        collector names it), its bits and those; None when every entry has them."""
        is_file = not stat.S_ISDIR(self.entries[0].info.st_mode)
        for entry in self.entries:
            bits, copied = entry.info.st_mode & 0o777, copied_mode(entry.info.st_mode, umask)
            if bits != copied:
                return (os.path.basename(self.path) if is_file else _name(entry)), bits, copied
        return None


# The umasks a checkout or a copy is commonly made under (git, cp, tar and object-storage downloads keep no
# permission bits but the owner's execute bit): the ones a recorded sha256 is tried with when the bits on disk fail.
COMMON_UMASKS = (0o022, 0o002, 0o027, 0o077)


def copied_mode(mode: int, umask: int) -> int:
    """The permission bits a copy of an entry gets under ``umask``, as git checks a file out: a folder, or a file
    its owner may execute, 0o777 less the umask; another file 0o666 less it; a link keeps its own (0o777)."""
    if stat.S_ISLNK(mode):
        return mode & 0o777
    base = 0o777 if stat.S_ISDIR(mode) or mode & stat.S_IXUSR else 0o666
    return base & ~umask


def measure(path: str) -> Measure | Refusal:
    """The artifact at ``path`` (a file, or a folder and all below it), or why the collector would refuse it."""
    try:
        found = _entries(path)
        if isinstance(found, Refusal):
            return found
        refused = _refused(path, found)
    except OSError as error:
        return _unreadable(error)
    if refused is not None:
        return refused
    size = sum(entry.info.st_size for entry in found if stat.S_ISREG(entry.info.st_mode))
    return Measure(path, tuple(found), size)


def _unreadable(error: OSError) -> Refusal:
    return Refusal("io.unreadable", f"cannot be read to check it ({error.strerror or error})")


def _entries(path: str) -> list[_Entry] | Refusal:
    top = os.lstat(path)
    if stat.S_ISLNK(top.st_mode):
        return Refusal("layout.artifact-mismatch", "is a symbolic link")
    found = [_Entry((), path, top)]
    if not stat.S_ISDIR(top.st_mode):
        return found
    # A stack, not recursion: a collected tree may be nested deeper than the call stack.
    pending: list[tuple[str, tuple[str, ...]]] = [(path, ())]
    while pending:
        folder, parts = pending.pop()
        with os.scandir(folder) as listing:
            for item in listing:
                info = item.stat(follow_symlinks=False)
                entry = _Entry((*parts, item.name), item.path, info)
                found.append(entry)
                if stat.S_ISDIR(info.st_mode):
                    pending.append((item.path, entry.parts))
    found.sort(key=lambda entry: entry.parts)
    return found


def _refused(root: str, found: list[_Entry]) -> Refusal | None:
    """What the collector refuses in an artifact: a special file, a link that is absolute or leads out of it."""
    for entry in found:
        mode = entry.info.st_mode
        if stat.S_ISLNK(mode):
            target = os.readlink(entry.path)
            if os.path.isabs(target) or not _inside(os.path.realpath(entry.path), os.path.realpath(root)):
                what = f"holds a symbolic link that leads out of it, at {_name(entry)!r}"
                return Refusal("layout.artifact-mismatch", what)
        elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            return Refusal("layout.artifact-mismatch", f"holds a FIFO, socket or device at {_name(entry)!r}")
    return None


def _name(entry: _Entry) -> str:
    return "/".join(entry.parts) or "."


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _digest(root: str, found: tuple[_Entry, ...], umask: int | None) -> str | Refusal:
    digest = hashlib.sha256()
    is_file = not stat.S_ISDIR(found[0].info.st_mode)
    for entry in found:
        mode = entry.info.st_mode
        name = os.path.basename(root) if is_file else _name(entry)
        size = entry.info.st_size if stat.S_ISREG(mode) or _leads_to_file(entry) else None
        bits = mode & 0o777 if umask is None else copied_mode(mode, umask)
        digest.update(json.dumps([name, bits, size], separators=(",", ":")).encode())
        if stat.S_ISLNK(mode):
            target = os.readlink(os.fsencode(entry.path))
            try:
                target.decode("utf-8")
            except UnicodeDecodeError:
                return Refusal("layout.artifact-mismatch", f"holds a link whose target is not UTF-8 at {name!r}")
            digest.update(b"link:" + target)
        elif stat.S_ISREG(mode):
            digest.update(b"file:")
            if not _hash_file(entry, digest):
                return Refusal("layout.artifact-mismatch", f"changed while it was read, at {name!r}")
        else:
            digest.update(b"dir:")
    return digest.hexdigest()


def _leads_to_file(entry: _Entry) -> bool:
    """Whether a link leads to a regular file (inside the artifact, as ``_refused`` made sure): only its final
    target is looked at, with ``lstat``, and nothing is opened."""
    if not stat.S_ISLNK(entry.info.st_mode):
        return False
    try:
        return stat.S_ISREG(os.lstat(os.path.realpath(entry.path)).st_mode)
    except OSError:  # a link to nothing: not a file
        return False


def _hash_file(entry: _Entry, digest: HASH) -> bool:
    """Hash a regular file's bytes through a descriptor that is no link; False when it is not what ``lstat``
    said (another file, another size) by the time it is read."""
    try:
        with open_regular(entry.path) as descriptor:
            info = os.fstat(descriptor)
            if (info.st_dev, info.st_ino) != (entry.info.st_dev, entry.info.st_ino):
                return False
            left = entry.info.st_size + 1  # one byte more shows a file that grew
            while left > 0:
                block = os.read(descriptor, min(_BLOCK, left))
                if not block:
                    break
                digest.update(block)
                left -= len(block)
            return left == 1
    except NotRegular:
        return False
