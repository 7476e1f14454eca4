"""Listing folders safely: links are reported and never followed, special files never opened."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import attrs

from .._core import Collector

EntryType = Literal["file", "folder"]


@attrs.frozen
class Entry:
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


def entries(folder: Path, collector: Collector, root: Path) -> list[Entry]:
    """The files and folders in ``folder``, sorted by name.

    Symbolic links are reported (an error when they lead outside ``root``) and left out; so are FIFOs,
    sockets and devices, which are never opened.
    """
    try:
        with os.scandir(folder) as scan:
            found = sorted(scan, key=lambda entry: entry.name)
    except OSError as error:
        collector.about(folder, "io.unreadable", f"cannot list the folder: {error.strerror or error}")
        return []
    listed = []
    for entry in found:
        if entry.is_symlink():
            report_link(folder / entry.name, collector, root)
        elif entry.is_dir(follow_symlinks=False):
            listed.append(Entry(entry.name, folder, "folder"))
        elif entry.is_file(follow_symlinks=False):
            listed.append(Entry(entry.name, folder, "file"))
        else:
            collector.about(
                folder / entry.name,
                "io.not-a-file",
                "not a regular file or folder (FIFO, socket or device); not opened",
                "warning",
            )
    return listed


def report_link(path: Path, collector: Collector, root: Path) -> None:
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    resolved = Path(os.path.normpath(path.parent / target))
    if is_inside(resolved, root):
        collector.about(path, "security.symlink", f"symbolic link to {target!r} not followed", "warning")
    else:
        collector.about(
            path, "security.path-escape", f"symbolic link leads outside the tree (to {target!r}); not followed"
        )


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
