"""A folder's names and the JSON files a layout wants there, listed, read and parsed in one native call.

The call opens each wanted file as :func:`._bounded.open_regular` does (in its folder's descriptor, never through
a link, never blocking on a FIFO, within the size limit) and gives its bytes and parsed data only when it is a
regular file holding a clean document (``_nativejson.read`` of the same bytes); the sub-folders the plan names
are opened as ``_bounded`` opens a folder below a unit (in their parent's descriptor, never through a link),
listed in the same call, and their descriptors kept by the unit's confinement as its own listings are. Anything
else comes back as "not read" (or "not listed"), and the caller reads that file or lists that folder the ordinary
way, which reports what is wrong: so a report is the same whether or not this call ran, and the pure-Python path
is the ordinary one.
"""

from __future__ import annotations

import os
from collections.abc import Set as AbstractSet
from typing import Any, NamedTuple, Union

from ..vocabulary._settings import current
from ._bounded import Refused, adopt_folder, listing
from ._nativejson import folder_reader

FILE, FOLDER, LINK, OTHER = 0, 1, 2, 3  # the native ENTRY_* values


class Plan(NamedTuple):
    """What one call reads in a folder: the files named ``names`` or ending with ``suffix``, and the sub-folders of
    ``folders`` (each ``(name, is_prefix, plan)``: a folder of that name, or whose name starts with it)."""

    names: frozenset[str] = frozenset()
    suffix: str | None = None
    folders: tuple[tuple[str, bool, Plan], ...] = ()


class Clean(NamedTuple):
    """A clean document read natively: its bytes, data, container offsets and where it holds floats like 1.0
    (0 for nowhere, else the member names: ``_nativejson.IntegralFloats``)."""

    raw: bytes
    data: Any
    offsets: bytes
    integral_floats: int | AbstractSet[str | None]


# (name, FILE/FOLDER/LINK/OTHER, what was read): the Clean document of a wanted file, the listing of a planned
# sub-folder, or None (not wanted, or to be read or listed the ordinary way).
Listed = tuple[str, int, Union[Clean, "list[Listed]", None]]


def read_folder(folder: str, plan: Plan) -> list[Listed] | None:
    """The entries of ``folder`` sorted by name, with what ``plan`` wants already read; None where there is no
    native call, or no descriptor of the folder (not confined: ``_bounded.listing``), or the folder cannot be
    listed: then the caller lists it the ordinary way.
    """
    if folder_reader is None:
        return None
    try:
        descriptor = listing(folder)
    except (Refused, OSError):
        return None  # the ordinary listing meets the same and reports it
    if not isinstance(descriptor, int):
        return None
    limits = current().limits
    try:
        found = folder_reader(descriptor, plan, limits.max_file_size, limits.max_depth)
    except MemoryError:  # a file too large for this machine: the ordinary read reports it (io.out-of-memory)
        return None
    if found is None:
        return None
    _adopt(folder, found)  # first, and nothing else: no descriptor is lost to an error in what follows
    return _sorted(found)


def _adopt(folder: str, found: list[tuple[str, int, Any]]) -> None:
    """Give the unit's confinement the descriptor of each sub-folder the call opened (its later reads there are
    made in the folder the call listed), and leave its entries in their place."""
    for index, (name, type_, read) in enumerate(found):
        if type_ == FOLDER and isinstance(read, tuple):
            spelled = child(folder, name)
            adopt_folder(spelled, read[0])
            found[index] = (name, type_, read[1])
            _adopt(spelled, read[1])


def child(folder: str, name: str) -> str:
    """``str(Path(folder) / name)`` for a plain name (no separator), without making the Path: the hot path of a
    walk names every file it reads so."""
    if folder == os.curdir:
        return name
    return folder + name if folder.endswith(os.sep) else folder + os.sep + name


def _sorted(found: list[tuple[str, int, Any]]) -> list[Listed]:
    found.sort()
    return [
        (name, type_, read if read is None else _sorted(read) if isinstance(read, list) else Clean(*read))
        for name, type_, read in found
    ]
