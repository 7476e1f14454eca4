"""What the generated models need at run time: the "absent" marker and short reprs."""

from __future__ import annotations

import enum
import reprlib
from typing import Any, Final


class Absent(enum.Enum):
    """The type of :data:`ABSENT`: a member that is not in the document at all (``None`` is JSON null)."""

    ABSENT = "ABSENT"

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Final = Absent.ABSENT

_repr = reprlib.Repr()
_repr.maxstring = 80
_repr.maxother = 80
_repr.maxlist = 6
_repr.maxdict = 6
_repr.maxlevel = 3


def short_repr(value: Any) -> str:
    """A repr that stays short for megabyte strings and long step lists."""
    return _repr.repr(value)
