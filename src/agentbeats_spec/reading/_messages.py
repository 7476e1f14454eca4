"""What readers say about the same fault, worded once.

The exact and native JSON readers, the TOML reader and the check of an already parsed mapping all report
duplicate members, numbers JSON cannot hold and nesting past the limit; a fault reads the same whichever
reader met it (tests/reading/test_native.py compares the reports byte for byte).
"""

from __future__ import annotations

from ..vocabulary._text import shorten

# A folder found where a file belongs, and the reverse: said alike by the reader (a descriptor of a folder) and the
# walk (a listing, local or remote).
FOLDER_NOT_FILE = "a folder where a file was expected"
FILE_NOT_FOLDER = "a file where a folder was expected"


def duplicate_member(name: str, first_line: int) -> str:
    return (
        f"member {shorten(name)!r} appears twice in one object (first at line {first_line}); "
        "readers keep only one of them"
    )


def not_a_number(token: str) -> str:
    """``NaN``, ``Infinity`` or ``-Infinity``, written as such or held by a parsed mapping."""
    return f"{token} is not valid JSON; write a finite number or null"


def overflows(token: str) -> str:
    return f"the number {shorten(token, 30)} overflows to infinity; write a finite number"


def inexact_integer(token: str) -> str:
    return f"the integer {shorten(token, 30)} is beyond 2**53; many JSON readers cannot hold it exactly"


def unreadable_integer(token: str, digits: int, limit: int, reader: str) -> str:
    """An integer longer than Python's ``int`` conversion accepts, which makes ``reader`` refuse the whole file."""
    return (
        f"an integer of {digits} digits ({shorten(token, 30)}): Python's {reader} reader refuses integers of "
        f"more than {limit} digits, so no value of this file can be read; not converted"
    )


def too_deep(limit: int | None, reader: str | None = None) -> str:
    """Nesting past ``limit`` levels (``--max-depth``); past what the parser can follow at all (``None``); or, with
    ``reader``, past the bound that family of readers keeps to."""
    levels = "what the parser can follow" if limit is None else f"{limit} levels"
    why = f"more than {reader} readers follow" if reader else "rejected to bound memory and time"
    return f"nesting deeper than {levels}; {why}"
