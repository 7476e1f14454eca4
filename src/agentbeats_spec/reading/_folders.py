"""A folder's names and the JSON files a layout wants there, listed, read and parsed in one native call.

The call opens each wanted file as :func:`._bounded.open_regular` does (in the folder's descriptor, never through
a link, never blocking on a FIFO, within the size limit) and gives its bytes and parsed data only when it is a
regular file holding a clean document (``_nativejson.read`` of the same bytes). Anything else comes back as
"not read", and the caller reads that file the ordinary way, which reports what is wrong: so a report is the
same whether or not this call ran, and the pure-Python path is the ordinary one.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any, NamedTuple

from .._settings import current
from ._bounded import Refused, listing
from ._nativejson import folder_reader

FILE, FOLDER, LINK, OTHER = 0, 1, 2, 3  # the native ENTRY_* values


class Clean(NamedTuple):
    """A clean document read natively: its bytes, data, container offsets and where it holds floats like 1.0
    (0 for nowhere, else the member names: ``_nativejson.IntegralFloats``)."""

    raw: bytes
    data: Any
    offsets: bytes
    integral_floats: int | AbstractSet[str | None]


# (name, FILE/FOLDER/LINK/OTHER, the Clean document of a wanted file, else None), as the native call gives them
Listed = tuple[str, int, "Clean | None"]


def read_folder(folder: str, names: frozenset[str], suffix: str | None = None) -> list[Listed] | None:
    """The entries of ``folder`` sorted by name, each wanted file (named in ``names`` or ending with ``suffix``)
    already read when it is clean; None where there is no native call, or no descriptor of the folder (not
    confined: ``_bounded.listing``), or the folder cannot be listed: then the caller lists it the ordinary way.
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
    found: list[tuple[str, int, tuple[Any, ...] | None]] | None = folder_reader(
        descriptor, names, suffix, limits.max_file_size, limits.max_depth
    )
    if found is None:
        return None
    found.sort()
    return [(name, type_, None if read is None else Clean(*read)) for name, type_, read in found]
