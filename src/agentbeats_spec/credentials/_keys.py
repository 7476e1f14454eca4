"""The key of the secret scan's fingerprints: a file beside the allow-list (or the baseline) whose fingerprints it
makes, named as that file with ``.key`` added.

A fingerprint printed beside a masked secret is an HMAC of the secret under this key (``_settings.AllowList``), so
that nobody without the key can test a guessed password against a fingerprint in a public log. The key is made
when it is missing, with mode 0600, and only beside a file the user named or placed (an allow-list, a baseline):
never anywhere else, so never inside a checked tree unless the user put that file there. It is as secret as what
it hides: docs/security.md says how to keep it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ..reading._bounded import read_file
from ..vocabulary._issues import SpecError
from ..vocabulary._settings import KEY_BYTES
from ..vocabulary._text import printable

SUFFIX = ".key"
_HEADER = "# the key of agentbeats-spec's secret fingerprints: keep it as secret as the secrets it hides\n"


def beside(path: os.PathLike[str] | str) -> Path:
    """Where the key of the fingerprints of an allow-list or a baseline is kept."""
    path = Path(path)
    return path.with_name(path.name + SUFFIX)


def read_or_make(path: Path) -> bytes:
    """The key in ``path``, made there first if there is none; :class:`SpecError` for one that cannot be read or
    made, or that is no key (a one-line usage error naming the file)."""
    try:
        return _parsed(read_file(path), path)
    except FileNotFoundError:
        pass
    except OSError as error:  # a link, a FIFO, a folder, a file too large: never followed nor waited on
        raise SpecError(f"cannot read the fingerprint key {_shown(path)}: {error}") from None
    try:
        return _made(path)
    except FileExistsError:  # another run made it first: its key is the one
        return read_or_make(path)
    except OSError as error:
        raise SpecError(
            f"cannot make the fingerprint key {_shown(path)}: {error.strerror or error}; "
            "fingerprints need a key kept beside the allow-list or the baseline"
        ) from None


def _parsed(raw: bytes, path: Path) -> bytes:
    lines = [line.strip() for line in raw.decode("ascii", "replace").splitlines()]
    entries = [line for line in lines if line and not line.startswith("#")]
    if len(entries) == 1 and len(entries[0]) == 2 * KEY_BYTES:
        with contextlib.suppress(ValueError):
            return bytes.fromhex(entries[0])
    raise SpecError(
        f"{_shown(path)} is not a fingerprint key: expected {2 * KEY_BYTES} hexadecimal digits on a line of their "
        "own; remove the file to have a new key made (every keyed fingerprint then changes)"
    )


def _made(path: Path) -> bytes:
    """A new key, written whole to a new file of mode 0600 and only then given its name (``link`` fails where a
    file, or a link, already has it), so that no run ever reads half a key."""
    key = os.urandom(KEY_BYTES)
    descriptor, temporary = tempfile.mkstemp(prefix=".agentbeats-key-", dir=path.parent or ".")
    try:
        with os.fdopen(descriptor, "wb") as file:
            if hasattr(os, "fchmod"):
                os.fchmod(file.fileno(), 0o600)  # mkstemp's mode already, whatever the umask: said, not assumed
            file.write((_HEADER + key.hex() + "\n").encode("ascii"))
            file.flush()
            os.fsync(file.fileno())
        os.link(temporary, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    return key


def _shown(path: Path) -> str:
    return printable(str(path), controls=True)
