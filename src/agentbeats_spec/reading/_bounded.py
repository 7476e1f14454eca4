"""Bytes from files, through one opener, bounded by the size limit, with a located finding when they cannot be read.

Every read of a file the input names goes through :func:`open_regular`: the path is opened with ``O_NOFOLLOW |
O_NONBLOCK`` and the *descriptor* is asked what it is, so a file swapped for a link, a FIFO or a device after the
folder was listed can neither redirect the read nor block it. A listing says what was there; only the open
descriptor says what is there.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from .._issues import Finding
from .._settings import current

# O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer (it is then refused);
# it changes nothing for a regular file. O_NOFOLLOW: a link in the last component fails with ELOOP.
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_BINARY", 0)


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


class TooLarge(Refused):
    """A file larger than the size limit."""

    def __init__(self, path: os.PathLike[str] | str, finding: Finding) -> None:
        super().__init__(path, finding, errno.EFBIG)


@contextlib.contextmanager
def open_regular(path: os.PathLike[str] | str, *, follow: bool = False) -> Iterator[int]:
    """A read-only descriptor of the regular file at ``path``, closed on leaving; :class:`NotRegular` for anything
    else. A link is refused, unless ``follow`` (a link the user named, with ``--follow-symlinks``): then its
    resolved target is opened, and judged by its descriptor in the same way."""
    name = os.path.realpath(path) if follow else os.fspath(path)
    try:
        descriptor = os.open(name, _FLAGS)
    except OSError as error:
        if error.errno == errno.ELOOP:  # O_NOFOLLOW met a link (one swapped in after the listing, say)
            raise NotRegular(path, _LINK) from None
        if error.errno == errno.ENXIO:  # a socket: it has no reading end
            raise NotRegular(path, _SPECIAL) from None
        raise
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(path, _FOLDER if stat.S_ISDIR(mode) else _SPECIAL)
        yield descriptor
    finally:
        os.close(descriptor)


_LINK = Finding("", "security.symlink", "a symbolic link where a file was expected; not followed")
_FOLDER = Finding("", "io.not-a-file", "a folder where a file was expected")
_SPECIAL = Finding(
    "", "io.not-a-file", "not a regular file (FIFO, socket or device); not read", severity="warning"
)


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
        raw = _read_sized(descriptor, size, limit)
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


def _read_sized(descriptor: int, size: int, limit: int) -> bytes:
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


def _too_large(size: int, limit: int, *, growing: bool = False) -> Finding:
    how = "grew beyond" if growing else f"is {size} bytes, more than"
    return Finding("", "io.too-large", f"the file {how} the limit of {limit} bytes; not read (see --max-file-size)")
