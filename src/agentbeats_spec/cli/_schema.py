"""``schema``: the JSON Schema of a kind, or every schema, bundle and the catalog written to a folder."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .._api import schema
from ..checking._bundle import bundle
from ..checking._catalog import schema_folder
from ..checking._kinds import KINDS
from ..vocabulary._issues import SpecError
from ._status import EXIT_VALID


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``schema`` subcommand and its options."""
    show = commands.add_parser(name, help="print the JSON Schema of a kind")
    show.set_defaults(handler=_schema)
    show.add_argument("kind", nargs="?", choices=list(KINDS))
    show.add_argument(
        "--all",
        action="store_true",
        help="write every schema, every bundle and a catalog editors load (catalog.json) into the folder -o names",
    )
    show.add_argument(
        "-o", "--output", type=Path, metavar="DIR", help="with --all: the folder to write (made if missing)"
    )
    show.add_argument("--schema-version", dest="schema_version", help="a schema version (default: the newest)")
    show.add_argument(
        "--bundle", action="store_true", help="one self-contained document, every $ref resolved into its own $defs"
    )


def _schema(arguments: argparse.Namespace) -> int:
    if arguments.all or arguments.output is not None:
        return _schema_folder(arguments)
    if arguments.kind is None:
        raise SpecError("schema needs a KIND, or --all -o DIR")
    document: dict[str, Any] = schema(arguments.kind, arguments.schema_version)
    if arguments.bundle:
        document = bundle(document["$id"])
    json.dump(document, sys.stdout, indent=2, ensure_ascii=True)  # ASCII: valid JSON whatever the console encodes
    sys.stdout.write("\n")
    return EXIT_VALID


def _schema_folder(arguments: argparse.Namespace) -> int:
    """schema --all -o DIR: each file written atomically; a file already there is replaced, nothing else touched."""
    if not arguments.all or arguments.output is None:
        raise SpecError("--all and -o DIR go together: schema --all -o DIR")
    if arguments.kind is not None or arguments.schema_version is not None or arguments.bundle:
        raise SpecError(
            "schema --all writes every kind, version and bundle: give no KIND, --schema-version or --bundle"
        )
    from ..writing import _atomic  # lazy: only the commands that write need it (start-up time)

    with _atomic.Folder.root(arguments.output, create=True) as root:
        base = arguments.output.resolve().as_uri() + "/"
        for relative, text in schema_folder(base).items():
            *folders, name = relative.split("/")
            with root.descend(folders, create=True) as folder:
                folder.write(name, text.encode("utf-8"))
    return EXIT_VALID
