"""Bytes from files, through one opener, bounded by the size limit, with a located finding when they cannot be read.

Every read of a file the input names goes through :func:`open_regular`: the path is opened with ``O_NOFOLLOW |
O_NONBLOCK`` and the *descriptor* is asked what it is, so a file swapped for a link, a FIFO or a device after the
folder was listed can neither redirect the read nor block it. A listing says what was there; only the open
descriptor says what is there.

``O_NOFOLLOW`` guards the last component only. A *folder* on the way, swapped for a link after the listing, is
caught by :func:`confined`: while a unit of a walk runs, every file it opens is asked where it is (its
descriptor's path), and one that is not where the walk found it is refused (``security.path-escape``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import BinaryIO

from ..vocabulary._issues import Finding
from ..vocabulary._settings import current
from ._messages import FOLDER_NOT_FILE

# O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer (it is then refused);
# it changes nothing for a regular file. O_NOFOLLOW: a link in the last component fails with ELOOP.
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_BINARY", 0)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC


class Refused(OSError):
    """A file that is not read: ``finding`` says why, as an issue on the file."""

    def __init__(self, path: os.PathLike[str] | str, finding: Finding, number: int) -> None:
        super().__init__(number, finding.message, os.fspath(path))
        self.finding = finding

    def __str__(self) -> str:
        return self.finding.message


class NotRegular(Refused):
    """What was opened is not a regular file (a folder, a link, a FIFO, a socket, a device)."""

    def __init__(self, path: os.PathLike[str] | str, finding: Finding) -> None:
        super().__init__(path, finding, errno.EINVAL)


class Escaped(NotRegular):
    """What was opened is not where the walk found it: a folder on the way was swapped for a link."""

    def __init__(self, path: os.PathLike[str] | str) -> None:
        super().__init__(path, _ESCAPED)


class TooLarge(Refused):
    """A file larger than the size limit."""

    def __init__(self, path: os.PathLike[str] | str, finding: Finding) -> None:
        super().__init__(path, finding, errno.EFBIG)


@contextlib.contextmanager
def open_regular(path: os.PathLike[str] | str, *, follow: bool = False) -> Iterator[int]:
    """A read-only descriptor of the regular file at ``path``, closed on leaving; :class:`NotRegular` for anything
    else. A link is refused, unless ``follow`` (a link the user named, with ``--follow-symlinks``): then its
    resolved target is opened, and judged by its descriptor in the same way.

    When :func:`confined`, the file is opened in a descriptor of its folder that was found where the walk saw
    that folder, or (``follow``) is itself asked where it is: :class:`Escaped` when it is elsewhere.
    """
    spelled = os.fspath(path)
    where = _CONFINED.get() if _PLACE is not None else None
    try:
        if where is not None and not follow:
            head, _, tail = spelled.rpartition(os.sep)
            try:
                folder = where.folder(head or (os.sep if spelled.startswith(os.sep) else os.curdir))
            except Refused:
                raise Escaped(path) from None
            descriptor = os.open(tail, _FLAGS, dir_fd=folder)
        else:
            descriptor = os.open(os.path.realpath(spelled) if follow else spelled, _FLAGS)
    except OSError as error:
        if isinstance(error, Refused):
            raise
        if error.errno == errno.ELOOP:  # O_NOFOLLOW met a link (one swapped in after the listing, say)
            raise NotRegular(path, _LINK) from None
        if error.errno == errno.ENXIO:  # a socket: it has no reading end
            raise NotRegular(path, _SPECIAL) from None
        raise
    try:
        if where is not None and follow:  # first: nothing of a file elsewhere, not even its type
            _placed(descriptor, spelled, where, path)
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(path, _FOLDER if stat.S_ISDIR(mode) else _SPECIAL)
        yield descriptor
    finally:
        os.close(descriptor)


class _Confinement:
    """Where the walk found a unit: its path as the walk spelled it, that path's real location then, and the
    folders the unit opened so far (each checked once to be where the walk saw it; a descriptor keeps meaning that
    folder, whatever is renamed or linked in its name's place later)."""

    __slots__ = ("folders", "path", "prefix", "real")

    def __init__(self, path: str, real: str) -> None:
        self.path, self.real = path, real
        self.prefix = path if path.endswith(os.sep) else path + os.sep
        self.folders: dict[str, int] = {}

    def locate(self, spelled: str) -> str:
        """Where ``spelled`` lay when the walk listed it: the unit's real location and the rest of the name.

        A name outside the unit (the folder of a file unit; ``layouts._layout.kind_in_place`` reads the
        ``task.json`` two folders above an attempt named alone) is placed the same way, relative to the unit:
        ``real`` holds no link, so its parents are the folders the walk saw, and a file found there was reached
        through no link swapped in since. So reads outside the unit's path stay possible, but only where the walk
        put them.
        """
        if spelled == self.path:
            return self.real
        if spelled.startswith(self.prefix):
            return os.path.join(self.real, spelled[len(self.prefix) :])
        return os.path.normpath(os.path.join(self.real, os.path.relpath(spelled, self.path)))

    def folder(self, spelled: str) -> int:
        """A descriptor of the folder ``spelled``, opened without following a link and found where the walk saw
        it: :class:`NotRegular` (a link) or :class:`Escaped` otherwise.

        A folder below the unit's path is opened by its one name in its parent's descriptor, without following a
        link, so it is where the walk saw it as its parent is; any other folder (the unit's own, the folder of a
        file unit) is opened by name (a link followed) and its descriptor asked where it is.
        """
        found = self.folders.get(spelled)
        if found is not None:
            return found
        parent, _, name = spelled.rpartition(os.sep)
        below = spelled.startswith(self.prefix) and name not in ("", os.curdir, os.pardir)
        parent = parent or os.sep  # below the unit "/": a name just below the root
        try:
            if below:
                descriptor = os.open(name, _FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=self.folder(parent))
            else:  # links followed (a named one, with --follow-symlinks): where it leads is checked below
                descriptor = os.open(spelled, _FOLDER_FLAGS)
        except OSError as error:  # Linux says ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW
            if error.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(spelled):
                raise NotRegular(spelled, _LINK_FOLDER) from None
            raise
        if not below:
            try:
                _placed(descriptor, spelled, self, spelled)
            except BaseException:
                os.close(descriptor)
                raise
        self.folders[spelled] = descriptor
        return descriptor

    def adopt(self, spelled: str, descriptor: int) -> None:
        """Keep the descriptor of the folder ``spelled``, opened below the unit as :meth:`folder` opens one (in its
        parent's descriptor, never through a link) by ``reading._folders``' native call."""
        if spelled in self.folders or not spelled.startswith(self.prefix):
            os.close(descriptor)  # not one this unit opens that way: the ordinary open decides
        else:
            self.folders[spelled] = descriptor

    def close(self) -> None:
        for descriptor in self.folders.values():
            os.close(descriptor)
        self.folders.clear()


_CONFINED: ContextVar[_Confinement | None] = ContextVar("confined", default=None)


class confined:
    """While inside, every file :func:`open_regular` opens and every folder :func:`listing` lists must be where
    the walk found it: ``path`` (the unit's path as the walk spelled it) had the real location ``real`` (no link
    in it) then, so ``path/x/y`` must be ``real/x/y`` now. A file reached otherwise (a folder on the way swapped
    for a link) is refused with :class:`Escaped` before any byte of it is read. ``real`` None: not confined (a
    remote tree's copy, a Dask worker that may mount the tree elsewhere).

    The descriptor of each folder is asked where it is, once per unit: on Linux (``/proc/self/fd``) and macOS
    (``F_GETPATH``). Elsewhere, or where ``/proc`` is not mounted, there is no check and only the last component
    of a path is guarded (``O_NOFOLLOW``). A class, not a ``contextlib`` generator: every unit of a walk enters one.
    """

    __slots__ = ("_token", "_where")

    def __init__(self, path: os.PathLike[str] | str, real: str | None) -> None:
        self._where = None if real is None else _Confinement(os.fspath(path), real)

    def __enter__(self) -> None:
        self._token = _CONFINED.set(self._where)

    def __exit__(self, *exception: object) -> None:
        _CONFINED.reset(self._token)
        if self._where is not None:
            self._where.close()


def real_place(path: os.PathLike[str] | str) -> str:
    """Where the folder ``path`` really is, its own last name not followed (a link there is the caller's to refuse):
    the ``real`` of a :func:`confined` for a folder a reader is given rather than one a walk found."""
    spelled = os.fspath(path)
    parent, name = os.path.split(spelled.rstrip(os.sep) or spelled)
    if name in ("", os.curdir, os.pardir):
        return os.path.realpath(spelled)
    return os.path.join(os.path.realpath(parent or os.curdir), name)


def listing(folder: os.PathLike[str] | str) -> int | str:
    """What ``os.scandir`` lists ``folder`` from: its name, or when :func:`confined`, a descriptor of it (opened
    without following a link, kept until the unit ends) that is where the walk found it, so a unit's own listing
    shows no outside name and its later reads are made in the folder it listed.
    :class:`NotRegular` (a link) or :class:`Escaped` otherwise."""
    where = _CONFINED.get() if _PLACE is not None else None
    if where is None or os.scandir not in os.supports_fd:
        return os.fspath(folder)
    return where.folder(os.fspath(folder))


def lstat(path: os.PathLike[str] | str) -> os.stat_result:
    """``os.lstat``, and when :func:`confined`, made in a descriptor of the file's folder found where the walk saw
    it (as :func:`open_regular` opens a file): :class:`Escaped` when a folder on the way was swapped for a link."""
    spelled = os.fspath(path)
    where = _CONFINED.get() if _PLACE is not None else None
    if where is None or os.stat not in os.supports_dir_fd:
        return os.lstat(spelled)
    head, _, tail = spelled.rpartition(os.sep)
    try:
        folder = where.folder(head or (os.sep if spelled.startswith(os.sep) else os.curdir))
    except Refused:
        raise Escaped(path) from None
    return os.stat(tail, dir_fd=folder, follow_symlinks=False)


def adopt_folder(spelled: str, descriptor: int) -> None:
    """A descriptor of the folder ``spelled`` that the native call of ``reading._folders`` opened below the unit:
    kept until the unit ends, as :func:`listing` keeps the ones it opens (closed at once when not confined)."""
    where = _CONFINED.get()
    if where is None:
        os.close(descriptor)
    else:
        where.adopt(spelled, descriptor)


def _proc_place(descriptor: int) -> str:
    return os.readlink(f"/proc/self/fd/{descriptor}")


def _mac_place(descriptor: int) -> str:
    import fcntl  # kept here: only macOS takes this path, and the module is POSIX-only

    raw = fcntl.fcntl(descriptor, fcntl.F_GETPATH, bytes(1024))  # type: ignore[attr-defined,unused-ignore]
    return os.fsdecode(raw.split(b"\0", 1)[0])


def _place_function() -> Callable[[int], str] | None:
    if sys.platform.startswith("linux") and os.path.isdir("/proc/self/fd"):
        return _proc_place
    if sys.platform == "darwin":
        return _mac_place
    return None


_PLACE = _place_function()


def _placed(descriptor: int, spelled: str, where: _Confinement, path: os.PathLike[str] | str) -> None:
    """Refuse the open file unless it is where the walk found it."""
    try:
        actual = _PLACE(descriptor) if _PLACE is not None else None
    except OSError:
        actual = None
    if actual is None:
        return  # the platform cannot tell: only the last component is guarded
    expected = where.locate(spelled)
    # Linux names a file unlinked since the open "... (deleted)": still the file the walk found
    if actual != expected and not (actual == expected + " (deleted)" and os.fstat(descriptor).st_nlink == 0):
        raise Escaped(path)


_ESCAPED = Finding("", "security.path-escape", "reached through a symbolic link swapped in after the listing; not read")
_LINK_FOLDER = Finding("", "security.symlink", "a symbolic link where a folder was listed; not followed")
_LINK = Finding("", "security.symlink", "a symbolic link where a file was expected; not followed")
_FOLDER = Finding("", "io.not-a-file", FOLDER_NOT_FILE)
_SPECIAL = Finding("", "io.not-a-file", "not a regular file (FIFO, socket or device); not read", severity="warning")


def read_file(path: os.PathLike[str] | str, *, follow: bool = False) -> bytes:
    """The bytes of a regular file, never more than the size limit (a file may grow while it is read).

    Raises :class:`NotRegular`, :class:`TooLarge` or the ``OSError`` of the open or the read: for readers that
    raise rather than report (:func:`read_bounded` reports).
    """
    limit = current().limits.max_file_size
    with open_regular(path, follow=follow) as descriptor:
        size = os.fstat(descriptor).st_size
        if size > limit:
            raise TooLarge(path, _too_large(size, limit))
        raw = read_sized(descriptor, size, limit)
    if len(raw) > limit:
        raise TooLarge(path, _too_large(len(raw), limit, growing=True))
    return raw


def read_bounded(path: Path, *, follow: bool = False) -> tuple[bytes, Finding | None]:
    """The bytes of a file, or the one finding that says why they cannot be had (and ``b""``)."""
    try:
        return read_file(path, follow=follow), None
    except Refused as refused:
        return b"", refused.finding
    except FileNotFoundError:
        return b"", Finding("", "io.not-found", "no such file")
    except OSError as error:
        return b"", Finding("", "io.unreadable", f"cannot read the file: {error.strerror or error}")


# One read() call moves at most this much (Linux stops at 2 GiB); a file that grows is read on in such steps.
_READ_STEP = 1 << 30


def read_sized(descriptor: int, size: int, limit: int) -> bytes:
    """What ``fstat`` said the file holds plus one byte, which shows a file that grew: then it is read on, in
    bounded steps, until its end or one byte past the limit. No buffer is ever sized by the limit itself.
    """
    chunks: list[bytes] = []
    total = 0
    want = size + 1
    while total <= limit:
        if total >= want:  # the file grew since fstat
            want = total + max(size, 1 << 20)
        chunk = os.read(descriptor, min(min(want, limit + 1) - total, _READ_STEP))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


# A stream of unknown length (standard input) is read in steps of this much: never a buffer sized by the limit.
_STREAM_STEP = 1 << 20


def read_stream(stream: BinaryIO, limit: int) -> bytes | None:
    """All of ``stream`` (standard input) in bounded steps, or None once it holds more than ``limit`` bytes: the
    memory taken grows with what was sent, never with the limit (``read(limit + 1)`` allocates the limit first)."""
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = stream.read(min(_STREAM_STEP, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            return None


def _too_large(size: int, limit: int, *, growing: bool = False) -> Finding:
    how = "grew beyond" if growing else f"is {size} bytes, more than"
    return Finding("", "io.too-large", f"the file {how} the limit of {limit} bytes; not read (see --max-file-size)")
