"""The one table of subcommands, in the order ``--help`` lists them, and the parser built from it. Each module
holds its subcommand's parser (``register``) and its handler, ``(arguments) -> int``, which the parser sets as
``handler``."""

from __future__ import annotations

import argparse
from typing import Protocol

from ..vocabulary._version import __version__
from . import _check_l1, _convert, _export, _kinds, _migrate, _redact, _scan, _schema, _score, _validate, _watch
from ._options import _Parser


class Command(Protocol):
    """A subcommand's module: ``register`` adds its parser, named ``name``, to the command's subparsers."""

    def register(self, commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None: ...


COMMANDS: dict[str, Command] = {
    "validate": _validate,
    "scan": _scan,
    "redact": _redact,
    "check-l1": _check_l1,
    "score": _score,
    "convert": _convert,
    "migrate": _migrate,
    "watch": _watch,
    "export": _export,
    "kinds": _kinds,
    "schema": _schema,
}


def parser() -> argparse.ArgumentParser:
    """The parser of the whole command: each subcommand of :data:`COMMANDS` sets its handler."""
    parser: argparse.ArgumentParser = _Parser(
        prog="agentbeats-spec",
        description="Validate the files that agent assessments produce (ABV3, ABB, AgentCompass, ACTF).",
        epilog="Exit codes: 0 valid, 1 an error was found, 2 a usage problem, 3 an internal error.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        command.register(commands, name)
    return parser
