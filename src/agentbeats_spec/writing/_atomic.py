"""Canonical serialization and safe writes: a failed write leaves the old file as it was, and no write leaves the
tree it was meant for.

Every writer of the package writes through :class:`Folder`: a folder held open by a descriptor. The folder a
caller names is opened as named (the caller chose it, links in its path included); every folder below it is
opened one name at a time with ``O_DIRECTORY | O_NOFOLLOW``, so a symbolic link in the tree being written (a
linked ``details/``, state folder or attempt folder, or one swapped in while the write runs) is refused with a
:class:`WriteError` and never followed. Files are made relative to the open folder (``dir_fd=``): temporary files
with ``O_CREAT | O_EXCL | O_NOFOLLOW``, renames from one open folder to another. A name changed on disk after its
folder was opened cannot redirect what is written into it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import shutil
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO, Literal

from ..reading._bounded import read_sized
from ..vocabulary._issues import WriteError
from ..vocabulary._kind_data import Syntax

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)
# Folders held open and names relative to them (POSIX); elsewhere (Windows) names go by path, each checked first.
_BY_DESCRIPTOR = bool(_DIRECTORY) and os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd

Kind = Literal["folder", "file", "link", "other"]
LINK_REASON = "it is a symbolic link, and writers never follow a link in the tree they write"


def serialize(data: Any, syntax: Syntax) -> bytes:
    """JSON as the AgentCompass writer writes it (UTF-8, indent 2, non-ASCII kept, final newline); or TOML."""
    if syntax == "toml":
        import tomli_w

        return tomli_w.dumps(data).encode("utf-8")
    if syntax == "jsonl":  # one record per line, as AgentCompass appends them
        records = data if isinstance(data, list) else [data]
        return "".join(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n" for record in records).encode(
            "utf-8", "surrogatepass"
        )
    text = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate ("\\ud800") has no UTF-8 form; escaped, it is still the same JSON string.
        return (json.dumps(data, ensure_ascii=True, indent=2, allow_nan=False) + "\n").encode("ascii")


def write_atomic(
    path: str | os.PathLike[str], content: bytes | Callable[[BinaryIO], object], *, fresh: bool = False
) -> None:
    """Write ``content`` to ``path`` so that readers see the old file or the new one, never a part.

    The folder of ``path`` is the caller's (opened as named); the file is written in it by :meth:`Folder.write`.
    ``fresh``: the file is a new product (a report of ``--output``), whatever it replaces: its mode is 0o666 less
    the umask, never that of the file it replaces. A failure of the system (permissions, a missing folder, a full
    disk, a read-only file system) raises :class:`WriteError`, which names the target, never the temporary file.
    """
    target = Path(path)
    with Folder.root(target.parent, target=target) as folder:
        folder.write(target.name, content, fresh=fresh)


def other_names(path: str | os.PathLike[str]) -> int:
    """How many other hard links the regular file at ``path`` has (0 for a link, a missing or a special file): a
    write replaces the name it is given, and the others keep the old content."""
    try:
        found = os.stat(path, follow_symlinks=False)
    except OSError:
        return 0
    return found.st_nlink - 1 if stat.S_ISREG(found.st_mode) else 0


def refused(target: str | os.PathLike[str], reason: str, code: int = errno.EPERM) -> WriteError:
    """A write refused because of what the target holds: ``cannot write TARGET: reason``."""
    return WriteError.of(target, OSError(code, reason))


class Folder:
    """A folder held open by a descriptor; ``path`` is how it was reached, for messages only.

    Every operation is relative to the descriptor and follows no link. Use it as a context manager (or call
    :meth:`close`). Where the platform cannot open a folder or work relative to one (Windows), the same
    operations go by path, each name checked not to be a link just before it is used: no link in the tree is
    followed, but one swapped in between that check and the use could be.
    """

    __slots__ = ("fd", "path")

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd = fd

    @classmethod
    def root(
        cls, path: str | os.PathLike[str], *, create: bool = False, target: str | os.PathLike[str] | None = None
    ) -> Folder:
        """The folder a caller named, opened as named; ``create`` makes it (and its parents) first. A failure
        is a :class:`WriteError` naming ``target`` (by default the folder)."""
        folder = Path(path)
        try:
            if create:
                folder.mkdir(parents=True, exist_ok=True)
            if not _BY_DESCRIPTOR:
                if not stat.S_ISDIR(os.stat(folder).st_mode):
                    raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder))
                return cls(folder, -1)
            return cls(folder, os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC))
        except OSError as error:
            raise WriteError.of(target if target is not None else (error.filename or folder), error) from None

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __repr__(self) -> str:
        return f"Folder({str(self.path)!r})"

    def _at(self, name: str) -> tuple[str, int | None]:
        """How the os functions reach ``name`` of this folder: relative to the descriptor, or by path."""
        _check_name(self.path, name)
        return (name, self.fd) if _BY_DESCRIPTOR else (str(self.path / name), None)

    # -- what is there

    def stat(self, name: str) -> os.stat_result:
        """The status of ``name`` here, its link not followed (an OSError if it is missing)."""
        where, base = self._at(name)
        return os.stat(where, dir_fd=base, follow_symlinks=False)

    def own_stat(self) -> os.stat_result:
        return os.fstat(self.fd) if _BY_DESCRIPTOR else os.stat(self.path)

    def kind(self, name: str) -> Kind | None:
        """What ``name`` is in this folder, its link not followed; None when there is nothing of that name."""
        try:
            mode = self.stat(name).st_mode
        except FileNotFoundError:
            return None
        except OSError as error:
            raise WriteError.of(self.path / name, error) from None
        if stat.S_ISLNK(mode):
            return "link"
        if stat.S_ISDIR(mode):
            return "folder"
        return "file" if stat.S_ISREG(mode) else "other"

    def names(self) -> list[str]:
        """The names in this folder, sorted."""
        try:
            return sorted(os.listdir(self.fd if _BY_DESCRIPTOR else self.path))
        except OSError as error:
            raise WriteError.of(self.path, error) from None

    def same_as(self, other: Folder) -> bool:
        return os.path.samestat(self.own_stat(), other.own_stat())

    def chmod(self, mode: int) -> None:
        """Set this folder's own permissions."""
        if _BY_DESCRIPTOR:
            os.fchmod(self.fd, mode)
        else:
            os.chmod(self.path, mode)

    # -- folders below

    def child(self, name: str, *, create: bool = False, new: bool = False) -> Folder:
        """The folder ``name`` in this one, never through a link; ``create`` makes it when missing, ``new`` makes
        it and refuses one that is already there. Anything else (a link, a file) is a :class:`WriteError`."""
        where, base = self._at(name)
        if create or new:
            try:
                os.mkdir(where, 0o777, dir_fd=base)
            except FileExistsError:
                if new:
                    raise refused(self.path / name, "it already exists", errno.EEXIST) from None
            except OSError as error:
                raise WriteError.of(self.path / name, error) from None
        if not _BY_DESCRIPTOR:
            kind = self.kind(name)
            if kind != "folder":
                code = errno.ENOENT if kind is None else errno.ENOTDIR
                raise self._refusal(name, OSError(code, os.strerror(code)))
            return Folder(self.path / name, -1)
        try:
            descriptor = os.open(where, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=base)
        except OSError as error:
            raise self._refusal(name, error) from None
        return Folder(self.path / name, descriptor)

    def find(self, name: str) -> Folder | None:
        """The folder ``name`` if there is one; None when nothing is there; a link or a file is refused."""
        try:
            return self.child(name)
        except WriteError as error:
            if error.errno == errno.ENOENT and self.kind(name) is None:
                return None
            raise

    def descend(self, names: Iterable[str], *, create: bool = False) -> Folder:
        """The folder reached by ``names`` from this one, one name at a time (a new descriptor: close it)."""
        current = Folder(self.path, os.dup(self.fd) if _BY_DESCRIPTOR else -1)
        for name in names:
            try:
                below = current.child(name, create=create)
            finally:
                current.close()
            current = below
        return current

    def _refusal(self, name: str, error: OSError) -> WriteError:
        if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK) and self.kind(name) == "link":
            return refused(self.path / name, LINK_REASON, errno.ELOOP)
        if error.errno == errno.ENOTDIR:
            return refused(self.path / name, "it is not a folder", errno.ENOTDIR)
        return WriteError.of(self.path / name, error)

    # -- files

    def write(self, name: str, content: bytes | Callable[[BinaryIO], object], *, fresh: bool = False) -> None:
        """Replace (or make) the file ``name`` atomically: a temporary file beside it, written, fsynced, given
        its mode (:meth:`_mode_for`), renamed over it; then the folder is fsynced. On any failure the
        temporary file is removed and the old file is as it was. A link of that name is replaced, never followed.
        ``content`` is the bytes, or a function that writes them into the stream it is given (a streamed export).
        """
        where, base = self._at(name)
        target = self.path / name
        try:
            mode = self._mode_for(name, fresh)
            descriptor, temporary = self._temporary(name)
        except OSError as error:
            raise WriteError.of(target, error) from None
        try:
            try:
                stream = os.fdopen(descriptor, "wb")
            except BaseException:
                os.close(descriptor)
                raise
            with stream:
                if callable(content):
                    content(stream)
                else:
                    stream.write(content)
                stream.flush()
                if _BY_DESCRIPTOR:
                    os.fchmod(stream.fileno(), mode)
                os.fsync(stream.fileno())
            if not _BY_DESCRIPTOR:
                os.chmod(temporary, mode)
            os.replace(temporary, where, src_dir_fd=base, dst_dir_fd=base)
        except BaseException as error:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=base)
            if isinstance(error, OSError):
                raise WriteError.of(target, error) from None
            raise
        self.sync()

    def _temporary(self, name: str) -> tuple[int, str]:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
        for _ in range(100):
            temporary, base = self._at(f".{name}.{secrets.token_hex(4)}.tmp")
            try:
                return os.open(temporary, flags, 0o600, dir_fd=base), temporary
            except FileExistsError:
                continue
        raise FileExistsError(errno.EEXIST, "no free temporary name")  # pragma: no cover - 2**32 names each time

    def _mode_for(self, name: str, fresh: bool = False) -> int:
        """The permissions of the file being replaced, when it is the user's own regular file: its read, write and
        execute bits, never set-user-ID, set-group-ID nor sticky. A new file, a ``fresh`` one (a report, whatever
        it replaces) and one that replaces a file someone else planted get the usual 0o666 less the umask: a
        planted 06777 file lends its mode to nothing written over it."""
        if fresh:
            return 0o666 & ~umask()
        try:
            found: os.stat_result | None = self.stat(name)
        except FileNotFoundError:
            found = None
        getuid = getattr(os, "getuid", None)  # Windows has no owners to compare
        owned = found is not None and (getuid is None or found.st_uid == getuid())
        if found is not None and owned and stat.S_ISREG(found.st_mode):
            return found.st_mode & 0o777
        return 0o666 & ~umask()

    def read(self, name: str, limit: int) -> bytes | None:
        """The bytes of the regular file ``name`` (at most ``limit``), never through a link and never blocking on
        a FIFO; None when nothing is there. A link, a folder or a special file is refused."""
        descriptor = self._open_for_reading(name)
        if descriptor is None:
            return None
        try:
            raw = read_sized(descriptor, os.fstat(descriptor).st_size, limit)
        except OSError as error:
            raise WriteError.of(self.path / name, error) from None
        finally:
            os.close(descriptor)
        if len(raw) > limit:
            raise refused(self.path / name, f"it is larger than {limit} bytes", errno.EFBIG)
        return raw

    def _open_for_reading(self, name: str) -> int | None:
        """A descriptor of the regular file ``name``, opened without following a link or blocking; None when
        nothing is there."""
        where, base = self._at(name)
        if not _BY_DESCRIPTOR and self.kind(name) == "link":
            raise refused(self.path / name, LINK_REASON, errno.ELOOP)
        try:
            descriptor = os.open(where, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY, dir_fd=base)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise self._refusal(name, error) from None
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            os.close(descriptor)
            raise refused(self.path / name, "it is not a regular file", errno.EINVAL)
        return descriptor

    # -- links

    def readlink(self, name: str) -> str:
        where, base = self._at(name)
        return os.readlink(where, dir_fd=base)

    def symlink(self, target: str, name: str) -> None:
        """Make ``name`` a symbolic link holding ``target`` (which is never followed here)."""
        where, base = self._at(name)
        os.symlink(target, where, dir_fd=base)

    def hard_link(self, source: Folder, name: str) -> None:
        """Give the file ``name`` of ``source`` the same name here (an OSError where that cannot be done)."""
        there, source_base = source._at(name)
        where, base = self._at(name)
        try:
            os.link(there, where, src_dir_fd=source_base, dst_dir_fd=base, follow_symlinks=False)
        except NotImplementedError:  # pragma: no cover - a platform without linkat
            raise OSError(errno.ENOSYS, "hard links are not available") from None

    # -- moving and removing

    def rename(self, name: str, target: Folder, new_name: str, *, replace: bool = False) -> None:
        """Move ``name`` of this folder to ``new_name`` of ``target`` (both open): the entry itself moves, even a
        link, and nothing is followed. Anything already at the target is refused."""
        where, base = self._at(name)
        there, target_base = target._at(new_name)
        if target.kind(new_name) is not None:
            raise refused(target.path / new_name, "it already exists", errno.EEXIST)
        move = os.replace if replace else os.rename
        try:
            move(where, there, src_dir_fd=base, dst_dir_fd=target_base)
        except OSError as error:
            raise WriteError.of(target.path / new_name, error) from None

    def remove_tree(self, name: str) -> None:
        """Delete ``name`` and all below it, never following a link."""
        where, base = self._at(name)
        if base is not None and sys.version_info >= (3, 11):
            shutil.rmtree(where, dir_fd=base)
        elif self.kind(name) == "folder":  # shutil.rmtree never follows a link below its root either
            shutil.rmtree(where)

    def sync(self) -> None:
        """Make the renames in this folder durable, where the platform allows."""
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.fsync(self.fd)


def copy_file(source: Folder, name: str, target: Folder, new_name: str) -> None:
    """Copy a regular file from one open folder to another: read with ``O_NOFOLLOW``, written with ``O_EXCL``, its
    mode and times kept. A link or a special file in place of ``name`` is refused (:class:`WriteError`)."""
    reading = source._open_for_reading(name)
    if reading is None:
        raise WriteError.of(source.path / name, FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT)))
    try:
        found = os.fstat(reading)
        where, base = target._at(new_name)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
        try:
            writing = os.open(where, flags, 0o600, dir_fd=base)
        except OSError as error:
            raise WriteError.of(target.path / new_name, error) from None
        try:
            while chunk := os.read(reading, 1 << 20):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(writing, view) :]
            if _BY_DESCRIPTOR:
                os.fchmod(writing, stat.S_IMODE(found.st_mode))
                os.utime(writing, ns=(found.st_atime_ns, found.st_mtime_ns))
        except OSError as error:
            raise WriteError.of(target.path / new_name, error) from None
        finally:
            os.close(writing)
        if not _BY_DESCRIPTOR:
            os.chmod(where, stat.S_IMODE(found.st_mode))
            os.utime(where, ns=(found.st_atime_ns, found.st_mtime_ns))
    finally:
        os.close(reading)


def _check_name(folder: Path, name: str) -> None:
    """One name inside a folder, never a way out of it."""
    if name in ("", ".", "..") or "/" in name or "\0" in name or (os.sep != "/" and os.sep in name):
        raise refused(folder / name, "it is not a plain name inside its folder", errno.EINVAL)


def umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
