"""``convert``: ACTF trajectories to ATIF and back, with a report of what was lost or invented."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..checking._collect import Report
from ..reporting import _formats
from ..reporting._text import text
from ..vocabulary._issues import InvalidDocument
from ._options import _limit_options
from ._status import EXIT_INVALID, EXIT_USAGE, EXIT_VALID, _missing


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``convert`` subcommand and its options."""
    convert = commands.add_parser(
        name,
        help="convert ACTF trajectories to ATIF and back, with a report of what was lost or invented",
        description="Convert an ACTF trajectory, an attempt result.json or a task folder (one file per attempt) to "
        "ATIF v1.8, or an ATIF file to an ACTF trajectory. Every member without a counterpart and every value "
        "filled in is reported and recorded in the output; files are written atomically, never over the input.",
    )
    convert.set_defaults(handler=_convert)
    convert.add_argument("source", metavar="SOURCE", type=Path)
    direction = convert.add_mutually_exclusive_group(required=True)
    direction.add_argument("--to", choices=("atif",), help="convert ACTF (or an attempt, or a task folder) to ATIF")
    direction.add_argument("--from", dest="from_", choices=("atif",), help="convert an ATIF file to ACTF")
    convert.add_argument("-o", "--output", type=Path, required=True, help="the file (a folder for a task folder)")
    convert.add_argument(
        "--format", choices=_formats.offered(name), default="text", help="how to print the loss report"
    )
    for flag, what in (("--agent-name", "agent.name"), ("--agent-version", "agent.version"),
                       ("--model-name", "agent.model_name")):  # fmt: skip
        convert.add_argument(flag, metavar="TEXT", help=f"--to atif: the {what} to write (else from the attempt)")
    convert.add_argument(
        "--strict", action="store_true", help="write nothing and exit 1 if anything is lost or invented"
    )
    _limit_options(convert)


def _convert(arguments: argparse.Namespace) -> int:
    if _missing([arguments.source]):
        return EXIT_USAGE
    from ..atif import _files  # lazy: only convert needs it (start-up time)

    agent = _files.Given(arguments.agent_name, arguments.agent_version, arguments.model_name)
    try:
        done, written = _files.convert(
            arguments.source, arguments.output, to_atif=arguments.to == "atif", strict=arguments.strict, given=agent
        )
    except InvalidDocument as error:
        if arguments.format == "json":
            _files.issues_json(list(error.issues), sys.stdout)
        else:
            text(Report(tuple(error.issues), 1), sys.stdout)
            sys.stdout.write("nothing written: the input is not valid\n")
        return EXIT_INVALID
    if arguments.format == "json":
        _files.json_report(done, written, sys.stdout)
    else:
        _files.text_report(done, written, sys.stdout, to_atif=arguments.to == "atif")
    return EXIT_VALID if written else EXIT_INVALID
