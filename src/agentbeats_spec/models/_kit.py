"""What the generated models need at run time: the "absent" marker, short reprs, the unknown-member guard."""

from __future__ import annotations

import enum
import reprlib
from collections.abc import Iterator
from typing import Any, Final

import attrs

from ..vocabulary._issues import InvalidDocument, Issue


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


_INTERNAL = ("unknown_members", "_order")


def declared_names(cls: type) -> frozenset[str]:
    """The JSON names of a model's declared members."""
    return frozenset(
        field.metadata.get("json", field.name) for field in attrs.fields(cls) if field.name not in _INTERNAL
    )


def shadowed(model: Any, pointer: str = "") -> Iterator[Issue]:
    """An issue for each ``unknown_members`` entry, in a model or below it, named like a declared member."""
    if attrs.has(type(model)):
        unknown = getattr(model, "unknown_members", None) or {}
        for name in sorted(declared_names(type(model)).intersection(unknown)):
            yield _shadowing(type(model), name, pointer)
        for field in attrs.fields(type(model)):
            if field.name not in _INTERNAL:
                member = _escaped(field.metadata.get("json", field.name))
                yield from shadowed(getattr(model, field.name), f"{pointer}/{member}")
    elif isinstance(model, list):
        for index, item in enumerate(model):
            yield from shadowed(item, f"{pointer}/{index}")
    elif isinstance(model, dict):
        for key, item in model.items():
            yield from shadowed(item, f"{pointer}/{_escaped(str(key))}")


def _shadowing(cls: type, name: str, pointer: str) -> Issue:
    kind = getattr(cls, "__kind__", None)
    return Issue(  # a model in memory: no file, no text, so no line
        file=None,
        kind=kind,
        pointer=f"{pointer}/{_escaped(name)}",
        severity="error",
        code="rule.shadowed-member",
        message=f"unknown_members holds {name!r}, a declared member of {cls.__name__}: set the field instead "
        "(as an unknown member it would silently replace the field's value)",
    )


def _escaped(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def no_shadowing(instance: Any, attribute: Any, value: dict[str, Any]) -> None:
    """attrs validator of ``unknown_members``: a declared member's name there is an error when the model is built."""
    clash = sorted(declared_names(type(instance)).intersection(value))
    if clash:
        raise InvalidDocument([_shadowing(type(instance), name, "") for name in clash])
