"""Whether a file that decides a verdict may be trusted: a configuration, a baseline, an allow-list, the verdict
cache. Such a file is input like any other, and it may lie in a tree someone else wrote (a pull request's checkout)
or in a shared folder (``/tmp``): as ssh treats key files and git its repositories (``safe.directory``), it is used
only when it belongs to this user (or to root) and nobody else may write it or the folder that holds it.

One check for every such file (:func:`distrusted`); :func:`read_trusted` reads one through the same descriptor it
checked, and raises :class:`Untrusted` (a usage error) for one that fails: a file the user named is refused, a file
that was only found is passed over with one warning (:func:`warn_on_stderr`), each caller deciding which it is.
"""

from __future__ import annotations

import errno
import os
import stat
import sys

from ..vocabulary._issues import SpecError
from ..vocabulary._settings import current
from ..vocabulary._text import printable
from ._bounded import open_regular, read_sized


def distrusted(info: os.stat_result, *, alone: bool = False) -> str | None:
    """Why a file or folder someone else could have written must not decide anything; None when only this user
    could (or root, or a group that is this user's own private group, unless ``alone``: the verdict cache is this
    user's alone). On a system without POSIX owners and modes (Windows) there is nothing to check."""
    if not hasattr(os, "getuid"):
        return None
    user = os.getuid()
    if info.st_uid != user and (alone or info.st_uid != 0):
        return f"belongs to user {info.st_uid}, not to this one ({user})"
    if info.st_mode & stat.S_IWOTH or (info.st_mode & stat.S_IWGRP and (alone or not _private_group(info.st_gid))):
        return f"may be written by others (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def _private_group(gid: int) -> bool:
    """Whether a group is this user's own: their primary group, of their name, with no other member (the user
    private groups of Fedora and Debian, whose umask 002 makes every file group-writable)."""
    if gid != os.getgid():
        return False
    try:
        import grp  # lazy, and POSIX only: a group-writable settings file is rare
        import pwd

        group = grp.getgrgid(gid)
        name = pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return False
    return group.gr_name == name and set(group.gr_mem) <= {name}


class Untrusted(SpecError):
    """A settings file that fails :func:`distrusted`, or sits in a folder that does: ``what`` it is, its ``path``
    and ``why``. Its message says it is refused (a named file: exit 2); :meth:`passed_over` says it is not used."""

    def __init__(self, what: str, path: os.PathLike[str] | str, why: str) -> None:
        self.what, self.path, self.why = what, os.fspath(path), why
        super().__init__(f"{self._said()}: refused ({ADVICE})")

    def _said(self) -> str:
        return f"the {self.what} {printable(self.path, controls=True)} {self.why}"

    def passed_over(self) -> str:
        """The warning for a file that was found, not named: the run goes on without it."""
        return f"{self._said()}: not used ({ADVICE})"


ADVICE = "a file that decides the verdict must be yours, in a folder only you may write: chmod go-w, or move it"


def read_trusted(path: os.PathLike[str] | str, what: str, *, follow: bool = False) -> bytes:
    """The bytes of a settings file, read through the descriptor whose owner and mode were checked, never more
    than the size limit; :class:`Untrusted` when it, or the folder that holds it (each folder, for a link that
    is followed), fails :func:`distrusted`. Otherwise raises as ``reading._bounded.read_file`` does."""
    limit = current().limits.max_file_size
    with open_regular(path, follow=follow) as descriptor:
        info = os.fstat(descriptor)
        why = distrusted(info)
        if why is not None:
            raise Untrusted(what, path, why)
        for folder in _folders(os.fspath(path), follow=follow):
            why = distrusted(os.stat(folder))
            if why is not None:
                raise Untrusted(what, path, f"is in {printable(folder, controls=True)}, which {why}")
        raw = b"" if info.st_size > limit else read_sized(descriptor, info.st_size, limit)
    if info.st_size > limit or len(raw) > limit:
        raise OSError(errno.EFBIG, f"larger than the size limit ({limit} bytes)")
    return raw


def _folders(path: str, *, follow: bool) -> list[str]:
    """The folder a path is named in and, when a link is followed, the folder of the file it leads to."""
    named = os.path.dirname(os.path.abspath(path))
    real = os.path.dirname(os.path.realpath(path)) if follow else named
    return [named] if real == named else [named, real]


def warn_on_stderr(message: str) -> None:
    """The one line a run says when it leaves a settings file or its cache unused."""
    sys.stderr.write(f"agentbeats-spec: warning: {message}\n")
