"""ABV3-L1 rules: agentbeats.toml and the experiment results.json."""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from ..reading._pointers import join
from ..vocabulary._issues import Anchor, Finding
from ..vocabulary._shipped_schemas import schema_file
from ..vocabulary._text import describe, quote
from ._common import unknown_members

_SCHEMA = "abv3/agentbeats-toml.v1.json"
# The dependencies the spec names; llm_access.md, which lists the rest, is not published.
KNOWN_DEPENDENCIES = ("openai_api_key", "docker_sock")


# The keys of each table and of a dependency's table are the schema's (which keeps them open), read when a
# repository is first checked rather than when the package is imported.
@functools.cache
def _table_keys() -> dict[str, tuple[str, ...]]:
    return {name: tuple(table.get("properties", ())) for name, table in schema_file(_SCHEMA)["properties"].items()}


@functools.cache
def _dependency_keys() -> tuple[str, ...]:
    return tuple(schema_file(_SCHEMA)["properties"]["dependency"]["additionalProperties"]["properties"])


def repo(data: Any) -> Iterator[Finding]:
    if not isinstance(data, dict):
        return
    tables = _table_keys()
    yield from unknown_members(data, "", tables, where="agentbeats.toml")
    for table, keys in tables.items():
        if table != "dependency":
            yield from unknown_members(data.get(table), f"/{table}", keys, where=f"[{table}]")
    dependencies = data.get("dependency")
    if isinstance(dependencies, dict):
        yield from unknown_members(
            dependencies, "/dependency", KNOWN_DEPENDENCIES, where="[dependency]", unknown="dependency"
        )
        for name, declaration in dependencies.items():
            yield from unknown_members(
                declaration, join("/dependency", name), _dependency_keys(), where=f"[dependency.{name}]"
            )
    about = data.get("abv3_repo")
    if isinstance(about, dict) and isinstance(about.get("logo_file"), str):
        yield from _logo(about["logo_file"])


def _logo(value: str) -> Iterator[Finding]:
    pointer = "/abv3_repo/logo_file"
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", value):
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            yield Finding(
                pointer,
                "rule.logo-url",
                f"logo_file {quote(value)} is not an http(s) URL with a host; "
                "expected a URL or a path relative to the repository root",
            )
        return
    if not inside_root(value):
        yield Finding(
            pointer,
            "security.path-escape",
            f"logo_file {quote(value)} leads outside the repository; "
            "expected a URL or a path relative to the repository root",
        )


def inside_root(relative: str) -> bool:
    """Whether a declared relative path stays inside the folder it is relative to."""
    if not relative or relative.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", relative):
        return False
    normal = posixpath.normpath(relative.replace("\\", "/"))
    return normal != ".." and not normal.startswith("../")


def results(data: Any) -> Iterator[Finding]:
    if not isinstance(data, dict):
        return
    name = data.get("main_metric")
    if not isinstance(name, str) or not name:
        return  # the schema reports it
    pointer = join("", name)
    if name not in data:
        yield Finding(
            pointer,
            "rule.main-metric",
            f"main_metric names {name!r}, but there is no member {name!r} holding its value",
            anchor=Anchor.PARENT,
        )
        return
    value = data[name]
    if name in ("count", "main_metric"):
        yield Finding(pointer, "rule.main-metric", f"main_metric must name a metric member, not {name!r}")
    elif not isinstance(value, (int, float)):
        yield Finding(
            pointer,
            "rule.main-metric",
            f"the main metric {name!r} must be a number or a boolean, found {describe(value)}",
        )
