"""The schema files shipped with the package, as written: for any layer that states a fact the schemas state."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any


@functools.cache
def schema_directory() -> Path:
    """Where the schema files are: inside the installed package, or the checkout's ``schemas/``.

    Wheels carry ``schemas/`` as ``agentbeats_spec/schemas``; an editable install of a checkout
    reads the repository's own folder, which is the source of truth.
    """
    # The package is always a folder on disk (wheels install as files), so no importlib.resources is needed.
    package = Path(__file__).resolve().parents[1]
    packaged = package / "schemas"
    if packaged.is_dir():
        return packaged
    checkout = package.parents[1] / "schemas"
    if checkout.is_dir():
        return checkout
    raise RuntimeError("agentbeats_spec is installed without its schema files; reinstall the package")


@functools.cache
def schema_file(relative: str) -> dict[str, Any]:
    """One schema file as written (``abv3/agentbeats-toml.v1.json``), shared: never to be changed."""
    contents: dict[str, Any] = json.loads((schema_directory() / relative).read_text(encoding="utf-8"))
    return contents
