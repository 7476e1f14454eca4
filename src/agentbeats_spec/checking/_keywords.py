"""JSON Schema keywords, re-implemented where the stock ones do not fit our reports.

Three reasons: (1) the pointer contract, one error per missing or unexpected member with that
member's own pointer (stock ``required`` names the object, ``additionalProperties`` lumps extras
together); (2) messages that never embed a whole instance (stock ``type`` and ``enum`` put the
``repr`` of a possibly megabyte value into the message, eagerly); (3) ECMA-262 semantics for
``pattern``, so that Python agrees with ajv (Python's ``$`` also matches before a final newline).
The verdicts are the same as the stock keywords'.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import attrs
from jsonschema.exceptions import ValidationError

from ..vocabulary._issues import Anchor
from ..vocabulary._text import describe, did_you_mean, quote, type_names

Validator = Any  # jsonschema's Validator protocol; kept loose to avoid importing its typing here


def _properties_of(schema: dict[str, Any]) -> list[str]:
    return list(schema.get("properties", {}))


def required(validator: Validator, names: list[str], instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for name in names:
        if name not in instance:
            yield ValidationError(f"missing required member {name!r}", path=[name])


def dependent_required(
    validator: Validator, dependencies: dict[str, list[str]], instance: Any, schema: dict[str, Any]
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for present, needed in dependencies.items():
        if present not in instance:
            continue
        for name in needed:
            if name not in instance:
                group = ", ".join(repr(each) for each in sorted({present, *needed}))
                yield ValidationError(f"missing member {name!r}: {group} are written together", path=[name])


def additional_properties(validator: Validator, allowed: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    known = schema.get("properties", {})
    patterns = [_compiled(pattern) for pattern in schema.get("patternProperties", {})]
    extras = [name for name in instance if name not in known and not any(p.search(name) for p in patterns)]
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif allowed is False:
        expected = [name for name in _properties_of(schema) if name not in instance]
        for extra in extras:
            yield ValidationError(
                f"unexpected member {quote(extra)}{did_you_mean(extra, expected)}",
                path=[extra],
                instance=instance[extra],
            )


def property_names(validator: Validator, names: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for name in instance:
        for error in validator.descend(instance=name, schema=names, path=name):
            error.message = f"member name {quote(name)} is not valid: expected {_expected(error)}"
            yield error


def _expected(error: Any) -> str:
    title = error.schema.get("title") if isinstance(error.schema, dict) else None
    if title:
        return str(title)
    return str(error.message)


def type_(validator: Validator, types: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    types = [types] if isinstance(types, str) else types
    if not any(validator.is_type(instance, each) for each in types):
        yield ValidationError(f"expected {type_names(types)}, found {describe(instance)}")


def enum(validator: Validator, choices: list[Any], instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if any(_equal(instance, choice) for choice in choices):
        return
    shown = ", ".join(repr(choice) for choice in choices[:12])
    hint = ""
    if isinstance(instance, str):
        hint = did_you_mean(instance, [choice for choice in choices if isinstance(choice, str)])
    yield ValidationError(f"expected one of {shown}; found {describe(instance)}{hint}")


def const(validator: Validator, value: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if not _equal(instance, value):
        yield ValidationError(f"expected {value!r}, found {describe(instance)}")


def _equal(left: Any, right: Any) -> bool:
    # JSON equality: true is not 1, and 1 equals 1.0.
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    return bool(left == right)


def pattern(validator: Validator, source: str, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if not validator.is_type(instance, "string") or _compiled(source).search(instance):
        return
    title = schema.get("title")
    expected = str(title) if title else f"a string matching {source!r}"
    yield ValidationError(f"expected {expected}; found {describe(instance)}")


@functools.cache
def _compiled(source: str) -> re.Pattern[str]:
    return re.compile(ecma_to_python(source))


def ecma_to_python(source: str) -> str:
    """Translate the portable subset of ECMA-262 regular expressions to Python.

    Only ``$`` differs in that subset: ECMA's ``$`` (without the multiline flag) matches at the very
    end of the input, Python's also before a final newline. ``\\Z`` is ECMA's ``$`` in Python. The shipped
    schemas guard every such pattern with ``"not": {"pattern": "\\n$"}`` so that stock engines agree too.
    """
    out: list[str] = []
    in_class = False
    escaped = False
    for char in source:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            out.append(char)
            escaped = True
        elif in_class:
            out.append(char)
            in_class = char != "]"
        elif char == "[":
            out.append(char)
            in_class = True
        elif char == "$":
            out.append(r"\Z")
        else:
            out.append(char)
    return "".join(out)


def unique_items(validator: Validator, unique: bool, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if not unique or not validator.is_type(instance, "array"):
        return
    # Each item is looked up by its canonical form (linear time): the first of equal items is the one named.
    first: dict[object, int] = {}
    for index, item in enumerate(instance):
        key = _identity(item)
        if key is None:
            continue  # it holds a NaN, which equals nothing
        earlier = first.setdefault(key, index)
        if earlier != index:
            yield ValidationError(
                f"{describe(item)} repeats item {earlier}; items must be unique",
                path=[index],
                instance=item,
            )


def _identity(item: Any) -> object:
    """A key equal for two items exactly when they are equal JSON values; None for an item equal to nothing."""
    if type(item) is str:
        return item  # the common case (tags): the string itself, which no canonical form (a tuple) equals
    text = canonical_json(item)
    return None if text is None else (text,)


def canonical_json(value: Any) -> str | None:
    """One text for every JSON value equal to ``value`` as JSON Schema compares them: 1 and 1.0 alike, true
    apart from 1, members in any order (sorted here); None when it holds a NaN, which equals nothing.

    Built with a stack, not by recursion: an item may be as deep as the reader allows (``--max-depth``).
    Numbers are written in hexadecimal (``int``'s, or ``float.hex`` for a fraction): no digit limit applies to
    a huge integer, and an integral float is written as the integer it equals.
    """
    out: list[str] = []
    pending: list[Any] = [value]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is _Token or kind is str:
            out.append(node if kind is _Token else json.dumps(node))
        elif node is None or kind is bool:
            out.append("null" if node is None else "true" if node else "false")
        elif kind is int:
            out.append(format(node, "x"))
        elif kind is float:
            if node != node:
                return None
            out.append(format(int(node), "x") if node.is_integer() else node.hex())
        elif kind is list:
            pending.append(_CLOSE_ARRAY)
            for position in range(len(node) - 1, -1, -1):
                pending.append(node[position])
                if position:
                    pending.append(_COMMA)
            pending.append(_OPEN_ARRAY)
        elif kind is dict:
            pending.append(_CLOSE_OBJECT)
            names = sorted(node, key=_sort_key)
            for position in range(len(names) - 1, -1, -1):
                name = names[position]
                pending.append(node[name])
                pending.append(_Token(json.dumps(name) + ":" if type(name) is str else f"?{name!r}:"))
                if position:
                    pending.append(_COMMA)
            pending.append(_OPEN_OBJECT)
        else:  # not a JSON value (a caller's own object): its type and repr, so that equal ones still match
            out.append(f"?{kind.__qualname__}:{node!r}")
    return "".join(out)


class _Token(str):
    """Text written as it is (punctuation, a member's name), where a plain string would be quoted."""


_OPEN_ARRAY, _CLOSE_ARRAY, _OPEN_OBJECT, _CLOSE_OBJECT, _COMMA = map(_Token, "[]{},")


def _sort_key(name: Any) -> str:
    return name if type(name) is str else repr(name)


def min_properties(validator: Validator, bound: int, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if validator.is_type(instance, "object") and len(instance) < bound:
        yield ValidationError(f"expected at least {bound} member(s), found {describe(instance)}")


def max_properties(validator: Validator, bound: int, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if validator.is_type(instance, "object") and len(instance) > bound:
        what = "an empty object" if bound == 0 else f"at most {bound} member(s)"
        yield ValidationError(f"expected {what}, found {describe(instance)}")


def min_items(validator: Validator, bound: int, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if validator.is_type(instance, "array") and len(instance) < bound:
        yield ValidationError(f"expected at least {bound} item(s), found {describe(instance)}")


def min_length(validator: Validator, bound: int, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if validator.is_type(instance, "string") and len(instance) < bound:
        yield ValidationError(f"expected at least {bound} character(s), found {describe(instance)}")


def minimum(validator: Validator, bound: float, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if validator.is_type(instance, "number") and instance < bound:
        yield ValidationError(f"expected a number >= {bound}, found {describe(instance)}")


def not_(validator: Validator, forbidden: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    sibling = schema.get("pattern")
    if isinstance(sibling, str) and validator.is_type(instance, "string") and not _compiled(sibling).search(instance):
        return  # the pattern beside it reports this string already: one error per value
    if validator.evolve(schema=forbidden).is_valid(instance):
        described = forbidden.get("description") if isinstance(forbidden, dict) else None
        reason = described or schema.get("description") or "this value is not allowed here"
        yield ValidationError(f"not allowed: {reason}")


@attrs.frozen
class Keyword:
    """One JSON Schema keyword as our reports treat it.

    ``implementation`` replaces the stock one (None: the stock keyword is kept); ``code`` names the issue code
    ``schema.<code>`` its errors get; ``anchor`` says where a finding is placed: on the value, on the member's name
    (a member that should not be there) or on the enclosing object (a member that is not there).
    """

    name: str
    implementation: Callable[..., Iterator[Any]] | None
    code: str
    anchor: Anchor = Anchor.VALUE


# Only keywords re-implemented here or whose code or place differs from the default (schema.<keyword>, on the
# value) are listed. tests/api/test_codes.py checks that every keyword the shipped schemas use has its code.
KEYWORDS: dict[str, Keyword] = {
    keyword.name: keyword
    for keyword in (
        Keyword("required", required, "required", Anchor.PARENT),
        Keyword("dependentRequired", dependent_required, "required", Anchor.PARENT),
        Keyword("additionalProperties", additional_properties, "unexpected-member", Anchor.KEY),
        Keyword("propertyNames", property_names, "member-name", Anchor.KEY),
        Keyword("type", type_, "type"),
        Keyword("enum", enum, "enum"),
        Keyword("const", const, "const"),
        Keyword("pattern", pattern, "pattern"),
        Keyword("uniqueItems", unique_items, "unique-items"),
        Keyword("minProperties", min_properties, "min-properties"),
        Keyword("maxProperties", max_properties, "max-properties"),
        Keyword("minItems", min_items, "min-items"),
        Keyword("minLength", min_length, "min-length"),
        Keyword("minimum", minimum, "minimum"),
        Keyword("exclusiveMinimum", None, "minimum"),
        Keyword("exclusiveMaximum", None, "maximum"),
        Keyword("not", not_, "not-allowed", Anchor.KEY),
    )
}


def implementations() -> dict[str, Callable[..., Iterator[Any]]]:
    """The keywords that replace the stock ones, as ``jsonschema.validators.extend`` takes them."""
    return {name: keyword.implementation for name, keyword in KEYWORDS.items() if keyword.implementation}


def placed(keyword: str) -> Keyword:
    """How a keyword's errors are coded and placed; a keyword not in the table: ``schema.<keyword>``, on the value."""
    return KEYWORDS.get(keyword) or Keyword(keyword, None, keyword)
