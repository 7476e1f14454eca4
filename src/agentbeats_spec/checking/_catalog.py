"""The folder of schemas an editor loads: every schema file, every bundle, and a catalog that lists them.

The catalog has SchemaStore's catalog format; its ``url``s name the bundles (which need no sibling file), so
nothing is fetched. In a folder written for editors they are the ``file:`` URLs of the written files: taplo (and
other readers of the format with a strict URL type) refuse a relative ``url``, and VS Code's JSON service takes
either. The repository's own ``schemas/catalog.json`` cannot name a machine's path: its ``url``s are relative to
it (``./bundled/...``). ``fileMatch`` is
given only where an editor can check the file as one document (not JSON Lines) and only with patterns narrow
enough not to select other projects' files: a JSON kind's ``editor_match``, the TOML kind's file name.
"""

from __future__ import annotations

from typing import Any

from ._bundle import bundle, schema_text
from ._kinds import KINDS, Kind
from ._schemas import BASE_URI, documents

CATALOG = "catalog.json"
BUNDLED = "bundled"


def _bundle_path(schema_id: str) -> str:
    return f"{BUNDLED}/{schema_id.removeprefix(BASE_URI)}"


def _file_match(kind: Kind) -> list[str]:
    if kind.syntax == "toml":
        return [f"**/{name}" for name in kind.file_match]
    return list(kind.editor_match) if kind.syntax == "json" else []


def catalog(base: str = "./") -> dict[str, Any]:
    """The catalog of a folder :func:`schema_folder` writes, its urls ``base`` + the path of each bundle in it
    (``base`` is ``file:///.../`` for a written folder; ``./`` for the repository's ``schemas/``)."""
    files = documents()
    entries = []
    for kind in KINDS.values():
        entry: dict[str, Any] = {"name": kind.title, "description": files[kind.latest].get("description", kind.title)}
        if match := _file_match(kind):
            entry["fileMatch"] = match
        entry["url"] = base + _bundle_path(kind.latest)
        entry["versions"] = {version: base + _bundle_path(schema_id) for version, schema_id in kind.versions.items()}
        entries.append(entry)
    return {"$schema": "https://json.schemastore.org/schema-catalog.json", "version": 1, "schemas": entries}


def schema_folder(base: str) -> dict[str, str]:
    """Every file of the folder, by its path relative to the folder: the schema files as the package has them
    (``agentcompass/task.v3.json``...), the bundle of every version of every kind (``bundled/...``) and the
    catalog, whose urls start with ``base`` (the folder's own URL, ending in ``/``)."""
    files = {schema_id.removeprefix(BASE_URI): schema_text(document) for schema_id, document in documents().items()}
    for kind in KINDS.values():
        for schema_id in kind.versions.values():
            files[_bundle_path(schema_id)] = schema_text(bundle(schema_id))
    files[CATALOG] = schema_text(catalog(base))
    return dict(sorted(files.items()))
