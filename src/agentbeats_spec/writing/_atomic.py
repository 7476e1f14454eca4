"""Canonical serialization and atomic writes: a failed write leaves the old file as it was."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from .._issues import WriteError
from ..reading._documents import Syntax


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


def write_atomic(path: Path, content: bytes) -> None:
    """Write ``content`` to ``path`` so that readers see the old file or the new one, never a part.

    A temporary file in the same folder is written, flushed and fsynced, then renamed over the target;
    on any failure the temporary file is removed and the target is untouched. A failure of the system
    (permissions, a missing folder, a full disk, a read-only file system) raises :class:`WriteError`, which
    names the target, never the temporary file.
    """
    import tempfile

    directory = path.parent
    try:
        mode = _mode_for(path)
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as error:
        raise WriteError.of(path, error) from None
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(content)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise WriteError.of(path, error) from None
        raise
    _sync_directory(directory)


def _mode_for(path: Path) -> int:
    """Keep the permissions of the file being replaced; a new file gets the usual 0o666 less the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable, where the platform allows opening a folder."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
