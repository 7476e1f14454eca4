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
            cls, converter, _cattrs_omit_if_default=True, **_overrides(cls, _json_names(cls))
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
        empty_object_allowed = any(typing.get_origin(arg) is dict for arg in args)

        def structure(value: Any, _: Any) -> Any:
            # "{} or a trajectory": the empty object stays a dict; any other object is the model.
            if model is not None and isinstance(value, dict) and (value or not empty_object_allowed):
                return converter.structure(value, model)
            return value  # already validated: null, a list, an empty object or a scalar

        return structure

    return factory


@functools.lru_cache(maxsize=1)
def converter() -> cattrs.Converter:
    result = cattrs.Converter(detailed_validation=False)
    configure_union_passthrough(bool | int | float | str | None, result)
    result.register_structure_hook_factory(_is_mixed_union, _structure_mixed(result))
    result.register_structure_hook_factory(_has_absent, _structure_absent(result))
    result.register_structure_hook_factory(attrs.has, _structure_models(result))
    result.register_unstructure_hook_factory(attrs.has, _unstructure_models(result))
    return result


def structure(data: Any, cls: type) -> Any:
    return converter().structure(data, cls)


def unstructure(instance: Any) -> Any:
    return converter().unstructure(instance)
