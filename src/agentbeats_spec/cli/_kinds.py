"""``kinds``: the artifact kinds, their files and schema versions."""

from __future__ import annotations

import argparse

from .._api import kinds
from ._status import EXIT_VALID


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``kinds`` subcommand."""
    list_kinds = commands.add_parser(name, help="list the artifact kinds, their files and schema versions")
    list_kinds.set_defaults(handler=_kinds)


def _kinds(arguments: argparse.Namespace) -> int:
    for kind in kinds():
        files = ", ".join(kind.file_match) or "(by schema_version or --kind)"
        versions = ", ".join(kind.versions)
        print(f"{kind.name:<26} {kind.title}\n{'':<26} files: {files}; versions: {versions}")
    return EXIT_VALID
