"""Bytes from files, bounded by the size limit, with a located finding when they cannot be read."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .._issues import Finding
from .._settings import current


def read_bounded(path: Path) -> tuple[bytes, Finding | None]:
    """The bytes of a file, never more than the size limit (a file may grow while it is read)."""
    limit = current().limits.max_file_size
    try:
        with path.open("rb", buffering=0) as stream:
            size = os.fstat(stream.fileno()).st_size
            if size > limit:
                return b"", _too_large(size, limit)
            raw = _read_sized(stream.fileno(), size, limit)
    except OSError as error:
        return b"", Finding("", "io.unreadable", f"cannot read the file: {error.strerror or error}")
    if len(raw) > limit:
        return b"", _too_large(len(raw), limit, growing=True)
    return raw, None


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


def unreadable(path: Path, *, follow: bool) -> Finding | None:
    """Why a path cannot be read as a file, if it cannot. Links are followed only when named."""
    try:
        info = path.stat() if follow else path.lstat()
    except FileNotFoundError:
        return Finding("", "io.not-found", "no such file")
    except OSError as error:
        return Finding("", "io.unreadable", f"cannot read the file: {error.strerror or error}")
    if stat.S_ISLNK(info.st_mode):
        return Finding("", "security.symlink", "symbolic link not followed", severity="warning")
    if stat.S_ISDIR(info.st_mode):
        return Finding("", "io.not-a-file", "a folder where a file was expected")
    if not stat.S_ISREG(info.st_mode):
        return Finding(
            "", "io.not-a-file", "not a regular file (FIFO, socket or device); not opened", severity="warning"
        )
    return None
