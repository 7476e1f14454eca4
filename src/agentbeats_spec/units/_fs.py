"""Listing folders safely: links are reported and never followed, special files never opened."""

from __future__ import annotations

import operator
import os
import stat
from pathlib import Path
from typing import Literal, NamedTuple, Protocol

from ..reading import _folders
from ..reading._bounded import Refused, listing
from ..reading._folders import FILE, FOLDER, LINK, OTHER, Clean, Listed, Plan
from ..reading._messages import FILE_NOT_FOLDER, FOLDER_NOT_FILE
from ..vocabulary._codes import Severity

EntryType = Literal["file", "folder"]
_NAME = operator.attrgetter("name")


class Reporter(Protocol):
    """Where issues about whole files and folders go: a unit's collector, or the plan that collects units."""

    def about(self, path: Path, code: str, message: str, severity: Severity = "error") -> None: ...


class Entry(NamedTuple):
    """A name a folder lists, and what it is (a tuple: one is made for every entry of every folder walked)."""

    name: str
    folder: Path
    type: EntryType

    @property
    def path(self) -> Path:
        # Made when asked for: most entries of a run are only looked up by name, and a Path costs more than a stat.
        return self.folder / self.name

    @property
    def is_folder(self) -> bool:
        return self.type == "folder"


def entries(folder: Path, collector: Reporter, root: Path) -> list[Entry]:
    """The files and folders in ``folder``, sorted by name.

    Symbolic links are reported (an error when they lead outside ``root``) and left out; so are FIFOs,
    sockets and devices, which are never opened.
    """
    try:
        with os.scandir(listing(folder)) as scan:
            found = sorted(scan, key=_NAME)
    except Refused as refused:  # while a unit runs: the folder was swapped for a link since the walk
        collector.about(folder, refused.finding.code, refused.finding.message)
        return []
    except OSError as error:
        collector.about(folder, "io.unreadable", f"cannot list the folder: {error.strerror or error}")
        return []
    return _kept(folder, [(entry.name, _type_of(entry)) for entry in found], collector, root)


def entries_read(
    folder: Path, collector: Reporter, root: Path, plan: Plan
) -> tuple[list[Entry], dict[str, Clean | list[Listed]]]:
    """:func:`entries`, and what ``plan`` wants there (``reading._folders``: one native call for the folder): the
    clean JSON files already read and parsed, and the listings of the planned sub-folders, by name.

    A wanted file or planned folder missing from the mapping is read or listed the ordinary way, which says what
    is wrong with it; without the native call, none is there.
    """
    found = _folders.read_folder(str(folder), plan)
    if found is None:
        return entries(folder, collector, root), {}
    return listed(folder, found, collector, root)


def listed(
    folder: Path, found: list[Listed], collector: Reporter, root: Path
) -> tuple[list[Entry], dict[str, Clean | list[Listed]]]:
    """What ``reading._folders.read_folder`` found in ``folder``, as :func:`entries_read` gives it."""
    read = {name: what for name, _, what in found if what is not None}
    return _kept(folder, [(name, type_) for name, type_, _ in found], collector, root), read


def _type_of(entry: os.DirEntry[str]) -> int:
    if entry.is_symlink():
        return LINK
    if entry.is_dir(follow_symlinks=False):
        return FOLDER
    return FILE if entry.is_file(follow_symlinks=False) else OTHER


def _kept(folder: Path, found: list[tuple[str, int]], collector: Reporter, root: Path) -> list[Entry]:
    """The files and folders of a sorted listing; each link and special file reported instead."""
    listed = []
    for name, type_ in found:
        if type_ == FOLDER:
            listed.append(Entry(name, folder, "folder"))
        elif type_ == FILE:
            listed.append(Entry(name, folder, "file"))
        elif type_ == LINK:
            report_link(folder / name, collector, root)
        else:
            collector.about(
                folder / name,
                "io.not-a-file",
                "not a regular file or folder (FIFO, socket or device); not opened",
                "warning",
            )
    return listed


def report_link(path: Path, collector: Reporter, root: Path) -> None:
    """A link is reported by where it leads (inside the tree or out), never with its target's text: that text
    is the file's content, which may hold anything (control characters, a secret)."""
    try:
        target = os.readlink(path)
    except OSError:
        target = ""
    resolved = Path(os.path.normpath(path.parent / target))
    if target and is_inside(resolved, root):
        collector.about(path, "security.symlink", "symbolic link to a place inside the tree; not followed", "warning")
    else:
        collector.about(path, "security.path-escape", "symbolic link leads outside the tree; not followed")


def is_inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or below it, by names alone (no link is followed)."""
    normal = Path(os.path.normpath(os.path.abspath(path)))
    base = Path(os.path.normpath(os.path.abspath(root)))
    return normal == base or base in normal.parents


def is_file(path: Path) -> bool:
    """A regular file that is not a link (nothing is followed)."""
    try:
        return path.is_file() and not path.is_symlink()
    except OSError:
        return False


def is_folder(path: Path) -> bool:
    try:
        return path.is_dir() and not path.is_symlink()
    except OSError:
        return False


def require(
    path: Path, want: EntryType, collector: Reporter, at: Path, message: str, severity: Severity = "error"
) -> bool:
    """Whether ``path`` is a ``want`` (never through a link); if not, the reason is reported.

    Missing is ``layout.missing-file`` (or ``-folder``) at ``at`` with ``message``. Anything else is said as it
    is: a path the process may not read is ``io.unreadable`` with the system's reason, never "missing"; a folder
    where a file belongs (or the reverse) is ``io.not-a-file``; a link is reported and not followed.
    """
    try:
        mode = path.lstat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        collector.about(at, f"layout.missing-{want}", message, severity)
        return False
    except OSError as error:
        collector.about(path, "io.unreadable", f"cannot read: {error.strerror or error}")
        return False
    if stat.S_ISREG(mode) if want == "file" else stat.S_ISDIR(mode):
        return True
    if stat.S_ISLNK(mode):
        collector.about(path, "security.symlink", f"a symbolic link where a {want} was expected; not followed")
    elif stat.S_ISDIR(mode):
        collector.about(path, "io.not-a-file", FOLDER_NOT_FILE)
    elif stat.S_ISREG(mode):
        collector.about(path, "io.not-a-file", FILE_NOT_FOLDER)
    else:
        collector.about(path, "io.not-a-file", f"not a regular {want} (FIFO, socket or device); not opened")
    return False


def exists(path: Path) -> bool:
    """Whether anything is at ``path``, a link or an entry that cannot be read included."""
    try:
        path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def listable(folder: Path) -> bool:
    """Whether the process may list ``folder`` (an unreadable one is reported by :func:`entries`)."""
    try:
        with os.scandir(folder):
            return True
    except OSError:
        return False
