"""The schema files -> one ``referencing.Registry``; validators built once and cached."""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from ..reading._nativejson import IntegralFloats
from ..reading._pointers import to_pointer
from ..rules._common import is_int
from ..vocabulary._issues import Anchor, Finding
from ..vocabulary._shipped_schemas import schema_directory

if TYPE_CHECKING:
    from importlib.abc import Traversable

    from jsonschema.exceptions import ValidationError
    from referencing import Registry

# python-jsonschema and referencing are imported when a document has an error to report: a valid document
# is judged by jsonschema-rs alone, and a pre-commit hook on a valid file should not pay for their import.

BASE_URI = "https://agentbeats.dev/schemas/"


def _schema_files(directory: Traversable) -> Iterator[Traversable]:
    for family in sorted(directory.iterdir(), key=lambda entry: entry.name):
        if family.is_dir() and family.name != "bundled":  # bundled copies are generated from the rest
            for entry in sorted(family.iterdir(), key=lambda item: item.name):
                if entry.name.endswith(".json"):
                    yield entry


@functools.lru_cache(maxsize=1)
def documents() -> dict[str, dict[str, Any]]:
    """Every schema file as written, by ``$id``."""
    found = {}
    for entry in _schema_files(schema_directory()):
        contents = json.loads(entry.read_text(encoding="utf-8"))
        found[contents["$id"]] = contents
    return found


@functools.lru_cache(maxsize=1)
def registry() -> Registry[Any]:
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    # Validation uses the schemas without their "$schema": jsonschema picks the validator class of a
    # referenced resource from its "$schema", which would swap our keywords for the stock ones
    # whenever a $ref crosses into another file. The draft is stated by the Resource instead.
    resources_ = [
        (schema_id, DRAFT202012.create_resource(_without_dialect(contents)))
        for schema_id, contents in documents().items()
    ]
    return Registry().with_resources(resources_).crawl()


def _without_dialect(contents: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in contents.items() if key != "$schema"}


def contents(schema_id: str) -> dict[str, Any]:
    """A schema as validation uses it (shared, never to be changed)."""
    return registry().contents(schema_id)  # type: ignore[no-any-return]


@functools.cache
def validator(schema_id: str) -> Any:
    from jsonschema import Draft202012Validator, validators

    from . import _keywords

    # An integer as the AgentCompass reader counts them (``type(x) is int``): JSON Schema calls 1.0 an integer, a
    # reader that tells 1 from 1.0 does not, so 1.0, 1e0 and -0.0 are refused wherever a schema says ``integer``
    # (docs/schemas.md says so for other engines).
    types = Draft202012Validator.TYPE_CHECKER.redefine("integer", lambda _, instance: is_int(instance))
    extended = validators.extend(Draft202012Validator, validators=_keywords.implementations(), type_checker=types)
    schema = {"$ref": schema_id} if "#" in schema_id else contents(schema_id)  # a definition: "<file>#/$defs/<name>"
    return extended(schema, registry=registry(), format_checker=Draft202012Validator.FORMAT_CHECKER)


try:  # jsonschema-rs gives the verdict of a valid document quickly; python-jsonschema reports the errors
    import jsonschema_rs
except ImportError:  # pragma: no cover - exercised by the pure-Python test run
    jsonschema_rs = None  # type: ignore[assignment]
if os.environ.get("AGENTBEATS_SPEC_PURE"):
    jsonschema_rs = None  # type: ignore[assignment]


@functools.cache
def fast_validator(schema_id: str, integral_floats: bool = True, items: bool = False) -> Any:
    """A compiled jsonschema-rs validator, or None where the compiled wheel is missing.

    ``integral_floats``: whether the documents it checks may hold a float with no fractional part (1.0). Only on
    such a number do JSON Schema's "integer" (jsonschema-rs's) and ours differ, so a document the native reader
    saw none in is checked without our keyword for it, whose Python callback runs for every integer. ``items``:
    a validator of arrays whose every item is valid against the schema.
    """
    if jsonschema_rs is None:
        return None
    if integral_floats:
        copies = {uri: _strict_integers(_without_dialect(document)) for uri, document in documents().items()}
        keywords: dict[str, Any] = {_NOT_A_FLOAT: _NotAFloat}
    else:
        copies = {uri: _without_dialect(document) for uri, document in documents().items()}
        keywords = {}
    root = {"$ref": schema_id} if "#" in schema_id or items else copies[schema_id]
    return jsonschema_rs.Draft202012Validator(
        {"items": root} if items else root,
        registry=jsonschema_rs.Registry(list(copies.items())),
        validate_formats=False,
        keywords=keywords,
    )


# jsonschema-rs counts 1.0 as an integer, as JSON Schema does. Its copy of the schemas gets a keyword of ours
# beside every "integer" type, so that both engines give the same verdict; the shipped files stay standard.
_NOT_A_FLOAT = "agentbeatsNotAFloat"


class _NotAFloat:
    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        pass

    def validate(self, instance: Any) -> None:
        if isinstance(instance, float):
            raise ValueError(f"expected an integer, found the number {instance!r}")


def _strict_integers(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_strict_integers(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    copied = {key: _strict_integers(value) for key, value in schema.items()}
    types = schema.get("type")
    if types == "integer" or (isinstance(types, list) and "integer" in types):
        copied[_NOT_A_FLOAT] = True
    return copied


# Where a keyword's subschemas apply, as JSON Schema 2020-12 defines them: to the instance itself, to the members
# it names, or to members or items it does not name; and whether it holds one schema, a list or a map of them. A
# schema with any other keyword that holds a schema is not analysed (_integer_members gives None).
_IN_PLACE: dict[str, object] = {
    "allOf": list, "anyOf": list, "oneOf": list, "not": dict, "if": dict, "then": dict, "else": dict,
    "dependentSchemas": "map",
}  # fmt: skip
_UNNAMED: dict[str, object] = {
    "patternProperties": "map", "additionalProperties": dict, "unevaluatedProperties": dict, "items": dict,
    "prefixItems": list, "contains": dict, "unevaluatedItems": dict, "propertyNames": dict,
}  # fmt: skip
_UNSUPPORTED = ("$dynamicRef", "$recursiveRef", "contentSchema")


@functools.cache
def _integer_members(schema_id: str) -> frozenset[str] | None:
    """The names of the members whose values a schema may require to be integers, when only members named in a
    ``properties`` can be (not the document itself, no array item, no member matched by a pattern or left to
    ``additionalProperties``); None otherwise. Where an integral float (1.0) is the value of a member of another
    name, both meanings of "integer" give the same verdict, so the plain engine may judge it (see ``check``)."""
    uri, _, fragment = schema_id.partition("#")
    root = _resolve(uri, fragment)
    if _demands_integer(root, uri, set()):
        return None
    names: set[str] = set()
    seen: set[tuple[int, bool]] = set()
    pending: list[tuple[Any, str, bool]] = [(root, uri, False)]  # (schema, its base URI, in an unnamed place)
    while pending:
        schema, base, unnamed = pending.pop()
        if not isinstance(schema, dict) or (id(schema), unnamed) in seen:
            continue
        seen.add((id(schema), unnamed))
        if any(keyword in schema for keyword in _UNSUPPORTED):
            return None
        if unnamed and _demands_integer(schema, base, set()):
            return None
        if isinstance(schema.get("$ref"), str):
            pending.append((*_follow(schema["$ref"], base), unnamed))
        for keyword, shape in _IN_PLACE.items():
            pending.extend((sub, base, unnamed) for sub in _subschemas(schema.get(keyword), shape))
        for name, sub in _named(schema.get("properties")):
            if _demands_integer(sub, base, set()):
                names.add(name)
            pending.append((sub, base, False))
        for keyword, shape in _UNNAMED.items():
            pending.extend((sub, base, True) for sub in _subschemas(schema.get(keyword), shape))
    return frozenset(names)


def _demands_integer(schema: Any, base: str, seen: set[int]) -> bool:
    """Whether ``schema`` may say "integer" of the instance it applies to (in place, through any combinator)."""
    if not isinstance(schema, dict) or id(schema) in seen:
        return False
    seen.add(id(schema))
    types = schema.get("type")
    if types == "integer" or (isinstance(types, list) and "integer" in types):
        return True
    if isinstance(schema.get("$ref"), str) and _demands_integer(*_follow(schema["$ref"], base), seen):
        return True
    return any(
        _demands_integer(sub, base, seen)
        for keyword, shape in _IN_PLACE.items()
        for sub in _subschemas(schema.get(keyword), shape)
    )


def _subschemas(value: Any, shape: object) -> list[Any]:
    if shape == "map":
        return [sub for _, sub in _named(value)]
    if shape is list:
        return list(value) if isinstance(value, list) else []
    return [value] if isinstance(value, dict) else []


def _named(value: Any) -> list[tuple[str, Any]]:
    return list(value.items()) if isinstance(value, dict) else []


def _follow(reference: str, base: str) -> tuple[Any, str]:
    uri, _, fragment = urljoin(base, reference).partition("#")
    return _resolve(uri, fragment), uri


def _resolve(uri: str, fragment: str) -> Any:
    node: Any = documents()[uri]
    for token in fragment.split("/")[1:] if fragment else ():
        node = node[token.replace("~1", "/").replace("~0", "~")]
    return node


def strict_integers_needed(schema_id: str, integral_floats: IntegralFloats) -> bool:
    """Whether a document must be checked with our strict "integer" (slower: a Python callback per integer).

    ``integral_floats`` is what the reader knows (``reading._documents.Document.integral_floats``): True when it
    cannot tell, False when the document holds no float such as 1.0, or the names of the members whose values are
    such floats; only where one of them may have to be an integer do the two meanings of "integer" differ.
    """
    if isinstance(integral_floats, bool):
        return integral_floats
    if not integral_floats:
        return False
    names = _integer_members(schema_id)
    return names is None or not names.isdisjoint(integral_floats)


def check(
    schema_id: str,
    data: Any,
    prefix: tuple[str, ...] = (),
    *,
    integral_floats: IntegralFloats = True,
) -> Iterator[Finding]:
    """Validate ``data`` against one schema and yield a finding per error, most relevant first.

    python-jsonschema is the reference and makes every report; jsonschema-rs, when installed, only spares it
    the documents that are valid (tests/reading/test_engines.py checks that both agree). ``integral_floats``
    false: the caller knows ``data`` holds no float such as 1.0 (see :func:`fast_validator`).
    """
    if _fast_verdict(schema_id, data, integral_floats):
        return
    yield from reference_findings(schema_id, data, prefix, integral_floats)


def reference_findings(
    schema_id: str, data: Any, prefix: tuple[str, ...] = (), integral_floats: IntegralFloats = True
) -> Iterator[Finding]:
    """python-jsonschema's findings on ``data``, whatever jsonschema-rs would say: for a document it already
    found invalid (:func:`valid_by_fast_engine`), or where it is not installed."""
    strict = strict_integers_needed(schema_id, integral_floats)
    yield from findings_of(_pruned_validator(schema_id, strict).iter_errors(data), prefix)


def findings_of(errors: Iterator[ValidationError], prefix: tuple[str, ...] = ()) -> Iterator[Finding]:
    """python-jsonschema's errors as findings: the best of each group, each (pointer, message) once."""
    from jsonschema.exceptions import best_match

    seen: set[tuple[str, str]] = set()
    for error in errors:
        if error.context:
            error = best_match([error])
        finding = _finding(error, prefix)
        if (finding.pointer, finding.message) not in seen:
            seen.add((finding.pointer, finding.message))
            yield finding


@functools.cache
def _pruned_validator(schema_id: str, strict_integers: bool) -> Any:
    """:func:`validator`, that skips each part of a document jsonschema-rs finds valid.

    An invalid document used to cost python-jsonschema's walk of all of it (25 ms for a trajectory of a few
    steps, where jsonschema-rs takes a fraction of one): a tree with one mistake in each of its 6,000 files took
    thirteen times as long as the same tree without it. A part valid by jsonschema-rs holds no error of
    python-jsonschema (the engines agree, tests/reading/test_engines.py), so only the parts that hold errors are
    walked, and the errors, their order and their messages are the reference engine's as before. A member, an
    item or a branch of an ``if`` is asked of jsonschema-rs (at the place of its schema in our files) before
    python-jsonschema descends into it at all: a descent costs more than the answer.
    ``strict_integers``: as :func:`fast_validator`'s ``integral_floats``.
    """
    plain = validator(schema_id)
    if jsonschema_rs is None:
        return plain
    from jsonschema import validators

    stock = type(plain).VALIDATORS
    parts = _Parts(strict_integers)
    verdict, valid = parts.verdict, parts.valid

    def ref(checker: Any, reference: str, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
        if not valid(checker, {"$ref": reference}, instance):
            yield from checker._validate_reference(ref=reference, instance=instance)

    def properties(checker: Any, members: dict[str, Any], instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
        if not checker.is_type(instance, "object"):
            return
        for name, member in members.items():  # as python-jsonschema's own keyword, but for the valid members
            if name in instance and not valid(checker, member, instance[name]):
                yield from checker.descend(instance[name], member, path=name, schema_path=name)

    def items(checker: Any, item: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
        if "prefixItems" in schema or not checker.is_type(instance, "array") or not isinstance(item, dict):
            yield from stock["items"](checker, item, instance, schema)
            return
        if valid(checker, item, instance, items=True):  # every item at once: one question, not one per item
            return
        for index, value in enumerate(instance):
            if not valid(checker, item, value):
                yield from checker.descend(instance=value, schema=item, path=index)

    def if_(checker: Any, condition: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
        holds = verdict(checker, condition, instance)  # as python-jsonschema's own keyword, asked of jsonschema-rs
        if holds is None:
            holds = checker.evolve(schema=condition).is_valid(instance)
        branch = "then" if holds else "else"
        if branch in schema and not valid(checker, schema[branch], instance):
            yield from checker.descend(instance, schema[branch], schema_path=branch)

    pruned = validators.extend(
        type(plain), validators={"$ref": ref, "properties": properties, "items": items, "if": if_}
    )
    return pruned(plain.schema, registry=registry(), format_checker=plain.format_checker)


class _Parts:
    """What jsonschema-rs says of the parts of a document python-jsonschema is about to descend into."""

    def __init__(self, strict_integers: bool) -> None:
        self.strict_integers = strict_integers
        self.known_invalid: list[tuple[str, int]] = []  # the last part found invalid, which a descent asks again

    def verdict(self, checker: Any, schema: Any, instance: Any, items: bool = False) -> bool | None:
        """Whether ``instance`` (``items``: each of its items) is valid against ``schema``, where jsonschema-rs
        can tell (None: it cannot)."""
        if schema is True:
            return True
        uri = _target(checker, schema)
        if uri is None:
            return None
        if (uri, id(instance)) in self.known_invalid:
            return False
        found = _verdict_of_part(uri, instance, self.strict_integers, items)
        if found is False:
            self.known_invalid[:] = [(uri, id(instance))]
        return found

    def valid(self, checker: Any, schema: Any, instance: Any, items: bool = False) -> bool:
        """Whether ``instance`` is surely valid against ``schema`` (False: invalid, or cannot tell; a wrong False
        costs a descent, never a finding)."""
        return self.verdict(checker, schema, instance, items) is True


def _target(checker: Any, schema: Any) -> str | None:
    """Where jsonschema-rs finds ``schema``: a $ref alone stands for what it names, any other schema of our files
    for its own place (None: a schema of no place, such as a copy)."""
    if not isinstance(schema, dict):
        return None
    reference = schema.get("$ref")
    if isinstance(reference, str) and schema.keys() <= _NOTES:
        base = getattr(checker._resolver, "_base_uri", None)  # referencing's Resolver keeps it private
        return _joined(base, reference) if isinstance(base, str) else None
    return _places().get(id(schema))


# The members a schema may hold beside a $ref and still be the $ref alone (annotations: no assertion).
_NOTES = frozenset(("$ref", "description", "title", "$comment", "examples", "default", "deprecated"))


@functools.lru_cache(maxsize=4096)
def _joined(base: str, reference: str) -> str:
    return urljoin(base, reference)


def _verdict_of_part(schema_id: str, instance: Any, strict_integers: bool, items: bool = False) -> bool | None:
    """Whether jsonschema-rs finds ``instance`` (``items``: each of its items) valid against the schema at
    ``schema_id`` (None: it cannot tell)."""
    if schema_id.partition("#")[0] not in documents():
        return None  # not one of ours: python-jsonschema says what it makes of it
    try:
        fast = fast_validator(schema_id, strict_integers, items)
        return None if fast is None else bool(fast.is_valid(instance))
    except ValueError:  # jsonschema-rs's recursion limit (see _fast_verdict), or a place it cannot compile
        return None
    except jsonschema_rs.ReferencingError:  # a place it cannot resolve
        return None


@functools.lru_cache(maxsize=1)
def _places() -> dict[int, str]:
    """Each schema object below the top of a schema file (which validation shares with :func:`documents`), by its
    ``id``: its URI, the file's and a JSON Pointer, where jsonschema-rs finds the same schema."""
    found: dict[int, str] = {}
    pending: list[tuple[Any, str]] = []
    for uri, document in documents().items():
        pending.extend((value, f"{uri}#/{_escaped(key)}") for key, value in document.items())
    while pending:
        node, where = pending.pop()
        if isinstance(node, dict):
            if _PLAIN.fullmatch(where.partition("#")[2]):  # a pointer that needs no escape in a URI's fragment
                found[id(node)] = where
            pending.extend((value, f"{where}/{_escaped(key)}") for key, value in node.items())
        elif isinstance(node, list):
            pending.extend((value, f"{where}/{index}") for index, value in enumerate(node))
    return found


_PLAIN = re.compile("[A-Za-z0-9_$.~/-]*")


def _escaped(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def valid_by_fast_engine(schema_id: str, data: Any, integral_floats: IntegralFloats = True) -> bool:
    """Whether jsonschema-rs, where it is installed, finds ``data`` valid (False: invalid, or no such engine;
    then :func:`reference_findings` says what is wrong)."""
    return _fast_verdict(schema_id, data, integral_floats) is True


def invalid(schema_id: str, data: Any, integral_floats: IntegralFloats = True) -> bool:
    """Whether ``data`` has a schema error, asked of the fastest engine there is (no error is built)."""
    verdict = _fast_verdict(schema_id, data, integral_floats)
    if verdict is not None:
        return not verdict
    return next(validator(schema_id).iter_errors(data), None) is not None


def _fast_verdict(schema_id: str, data: Any, integral_floats: IntegralFloats) -> bool | None:
    """jsonschema-rs's verdict on ``data``; None where it is not installed or cannot tell. It gives up with a
    ValueError ("Recursion limit reached") on two items nested deeper than 255 levels under ``uniqueItems``, which
    the reader lets through (up to ``--max-depth``): python-jsonschema, whose keyword is iterative, judges those."""
    fast = fast_validator(schema_id, strict_integers_needed(schema_id, integral_floats))
    if fast is None:
        return None
    try:
        return bool(fast.is_valid(data))
    except ValueError:
        return None


def _finding(error: ValidationError, prefix: tuple[str, ...]) -> Finding:
    from . import _keywords  # python-jsonschema's, imported only once a document has an error (see above)

    pointer = to_pointer((*prefix, *(str(token) for token in error.absolute_path)))
    keyword = _keywords.placed(str(error.validator))
    code, anchor = "schema." + keyword.code, keyword.anchor
    if anchor is Anchor.PARENT:
        pass  # a missing member is said on its object, wherever the keyword stands
    elif "propertyNames" in error.absolute_schema_path:
        anchor, code = Anchor.KEY, "schema.member-name"
    elif keyword.name == "not" and isinstance(error.validator_value, dict) and "pattern" in error.validator_value:
        anchor, code = Anchor.VALUE, "schema.pattern"  # a form the string must not have (a final line break)
    if keyword.name == "pattern" and error.schema is _relative_path_schema():
        # A string that is not a relative path inside its root escapes it: only that gets the security code
        # (a wrong type or an empty string is a schema error like any other, never a security alert).
        code = "security.path-escape"
    return Finding(pointer, code, str(error.message), anchor=anchor)


@functools.lru_cache(maxsize=1)
def _relative_path_schema() -> Any:
    # The very object validation uses: registry contents share everything below the top level with documents().
    return documents()[BASE_URI + "common/defs.v1.json"]["$defs"]["relativePath"]
