"""The cattrs converter between documents and the generated models, configured once.

Structuring only ever sees documents that passed validation, so unions need no guessing: a value that
the schema allowed is passed through or turned into the one model class the union names. Every model
keeps the members it has no field for (``unknown_members``) and the order it read them in (``_order``);
unstructuring writes them back in that order and leaves out members that are ``ABSENT``.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from typing import Any

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override
from cattrs.strategies import configure_union_passthrough

from ._kit import Absent

UNKNOWN = "unknown_members"
ORDER = "_order"
_INTERNAL = (UNKNOWN, ORDER)


def _json_names(cls: type) -> dict[str, str]:
    """Python field name -> JSON member name, for the fields that hold members."""
    return {
        field.name: field.metadata.get("json", field.name) for field in attrs.fields(cls) if field.name not in _INTERNAL
    }


def _overrides(cls: type, names: dict[str, str]) -> dict[str, Any]:
    """Renamed members, and the internal fields that the converter fills in itself."""
    overrides: dict[str, Any] = {name: override(rename=json) for name, json in names.items() if name != json}
    overrides.update((name, override(omit=True)) for name in _INTERNAL if name in attrs.fields_dict(cls))
    return overrides


def _union_args(annotation: Any) -> tuple[Any, ...]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return typing.get_args(annotation)
    return ()


def _has_absent(annotation: Any) -> bool:
    return Absent in _union_args(annotation)


def _is_mixed_union(annotation: Any) -> bool:
    """A union that is not only of JSON scalars (those pass through cattrs' own strategy)."""
    args = _union_args(annotation)
    return bool(args) and any(arg not in (bool, int, float, str, type(None)) for arg in args)


def _structure_models(converter: cattrs.Converter) -> Callable[[type], Callable[[Any, Any], Any]]:
    def factory(cls: type) -> Callable[[Any, Any], Any]:
        names = _json_names(cls)
        base: Callable[[Any, Any], Any] = make_dict_structure_fn(
            cls, converter, _cattrs_forbid_extra_keys=False, **_overrides(cls, names)
        )
        known = frozenset(names.values())
        keeps_unknown = UNKNOWN in attrs.fields_dict(cls)

        def structure(data: Any, _: Any) -> Any:
            instance = base(data, cls)
            if keeps_unknown and not known.issuperset(data):
                instance.unknown_members = {key: value for key, value in data.items() if key not in known}
            instance._order = tuple(data)
            return instance

        return structure

    return factory


def _unstructure_models(converter: cattrs.Converter) -> Callable[[type], Callable[[Any], Any]]:
    def factory(cls: type) -> Callable[[Any], Any]:
        # The only defaults are ABSENT (and the internal fields): absent members stay absent.
        base: Callable[[Any], dict[str, Any]] = make_dict_unstructure_fn(
            cls, converter, _cattrs_omit_if_default=True, **_overrides(cls, _json_names(cls)), **_plain_fields(cls)
        )

        def unstructure(instance: Any) -> dict[str, Any]:
            data = base(instance)
            unknown = getattr(instance, UNKNOWN, None)
            if unknown:
                data.update(unknown)
            order = instance._order
            if order:
                ordered = {key: data[key] for key in order if key in data}
                if len(ordered) != len(data):
                    ordered.update((key, value) for key, value in data.items() if key not in ordered)
                return ordered
            return data

        return unstructure

    return factory


_SCALARS = (bool, int, float, str, type(None), Absent)


def _opaque(annotation: Any) -> bool:
    """A type that holds any JSON value (``Any``, ``dict[str, Any]``, ``list[Any]``), alone or beside scalars."""
    if annotation is Any:
        return True
    args = _union_args(annotation)
    if args:
        rest = [arg for arg in args if arg not in _SCALARS and typing.get_origin(arg) is not typing.Literal]
        return bool(rest) and all(_opaque(arg) for arg in rest)
    origin = typing.get_origin(annotation)
    return origin in (dict, list) and typing.get_args(annotation)[-1:] == (Any,)


def _plain_fields(cls: type) -> dict[str, Any]:
    """Fields of any JSON value are copied without recursion: a document may nest as deep as the reader allows."""
    return {
        field.name: override(unstruct_hook=_plain)
        for field in attrs.fields(attrs.resolve_types(cls))
        if field.name not in _INTERNAL and _opaque(field.type)
    }


_ATOMS = frozenset((str, int, float, bool, type(None)))


def _plain(value: Any) -> Any:
    """A copy of a JSON value, made with a stack instead of recursion; a model found in it is unstructured."""
    if type(value) is not dict and type(value) is not list:
        return value if type(value) in _ATOMS or not attrs.has(type(value)) else unstructure(value)
    top: Any = {} if type(value) is dict else []
    stack = [(value, top)]
    while stack:
        source, target = stack.pop()
        if type(source) is dict:
            for key, item in source.items():
                target[key] = _copied(item, stack)
        else:
            append = target.append
            for item in source:
                append(_copied(item, stack))
    return top


def _copied(item: Any, stack: list[tuple[Any, Any]]) -> Any:
    """One item of a container: itself if a scalar, an empty container filled later from ``stack``."""
    kind = type(item)
    if kind in _ATOMS:
        return item
    if kind is dict or kind is list:
        copied: Any = {} if kind is dict else []
        stack.append((item, copied))
        return copied
    return unstructure(item) if attrs.has(kind) else item


def _structure_absent(converter: cattrs.Converter) -> Callable[[Any], Callable[[Any, Any], Any]]:
    def factory(annotation: Any) -> Callable[[Any, Any], Any]:
        present = [arg for arg in _union_args(annotation) if arg is not Absent]
        rest = present[0] if len(present) == 1 else typing.Union[tuple(present)]  # noqa: UP007
        hook = converter.get_structure_hook(rest)
        return lambda value, _: hook(value, rest)

    return factory


def _structure_mixed(converter: cattrs.Converter) -> Callable[[Any], Callable[[Any, Any], Any]]:
    def factory(annotation: Any) -> Callable[[Any, Any], Any]:
        args = _union_args(annotation)
        models = [arg for arg in args if attrs.has(arg)]
        model = models[0] if models else None
        mappings = [arg for arg in args if typing.get_origin(arg) is dict]
        # A mapping or a list of models (analyzer results by family) is structured; one of Any passes through.
        mapping = next((arg for arg in mappings if typing.get_args(arg)[1:] != (Any,)), None)
        sequences = [arg for arg in args if typing.get_origin(arg) is list]
        sequence = next((arg for arg in sequences if typing.get_args(arg) != (Any,)), None)

        def structure(value: Any, _: Any) -> Any:
            if isinstance(value, dict):
                # "{} or a trajectory": the empty object stays a dict; any other object is the model.
                if model is not None and (value or not mappings):
                    return converter.structure(value, model)
                return converter.structure(value, mapping) if mapping is not None else value
            if isinstance(value, list) and sequence is not None:
                return converter.structure(value, sequence)
            return value  # already validated: null, a list of anything, an empty object or a scalar

        return structure

    return factory


@functools.lru_cache(maxsize=2)
def converter(detailed: bool = False) -> cattrs.Converter:
    """The converter; ``detailed`` keeps where each structuring error happened (slower: only to locate one)."""
    result = cattrs.Converter(detailed_validation=detailed)
    configure_union_passthrough(bool | int | float | str | None, result)
    result.register_structure_hook_factory(_is_mixed_union, _structure_mixed(result))
    result.register_structure_hook_factory(_has_absent, _structure_absent(result))
    result.register_structure_hook_factory(attrs.has, _structure_models(result))
    result.register_unstructure_hook_factory(attrs.has, _unstructure_models(result))
    return result


class Unrepresentable(Exception):
    """A valid document holds a value its model cannot: a fault of the models, located in the document.

    ``tokens`` lead from the document's root to the value (member names and indexes), ``value`` is that value and
    ``expected`` the type its model wanted there.
    """

    def __init__(self, tokens: tuple[str, ...], value: Any, expected: str) -> None:
        super().__init__(f"{'/'.join(tokens) or '/'}: expected {expected}")
        self.tokens = tokens
        self.value = value
        self.expected = expected


def structure(data: Any, cls: type) -> Any:
    """The model of a validated document; :class:`Unrepresentable` (never a cattrs error) where it cannot be."""
    try:
        return converter().structure(data, cls)
    except Exception:  # whatever the converter raised: located below, and reported once
        pass
    try:  # only on failure: again, with the notes that say where
        converter(detailed=True).structure(data, cls)
    except Exception as error:
        tokens, expected = _located(error, cls)
        raise Unrepresentable(tuple(tokens), _at(data, tokens), _type_name(expected)) from error
    raise Unrepresentable((), data, cls.__name__)  # it failed once only: say so at the root


def _located(error: BaseException, cls: type) -> tuple[list[str], Any]:
    """The member names and indexes down to the first value that failed, and the type wanted there."""
    tokens: list[str] = []
    expected: Any = cls
    while isinstance(error, (cattrs.ClassValidationError, cattrs.IterableValidationError)):
        noted, others = error.group_exceptions()
        if not noted:
            error = others[0] if others else error.exceptions[0]
            continue
        inner, note = noted[0]
        if isinstance(error, cattrs.ClassValidationError):
            name = getattr(note, "name", "")
            tokens.append(_json_names(error.cl).get(name, name) if attrs.has(error.cl) else name)
        else:
            tokens.append(str(getattr(note, "index", "")))
        expected = getattr(note, "type", expected)
        error = inner
    return tokens, expected


def _at(data: Any, tokens: list[str]) -> Any:
    for token in tokens:
        data = data[int(token)] if isinstance(data, list) else data.get(token) if isinstance(data, dict) else None
    return data


def _type_name(annotation: Any) -> str:
    return annotation.__name__ if isinstance(annotation, type) else str(annotation).replace("typing.", "")


def unstructure(instance: Any) -> Any:
    return converter().unstructure(instance)
