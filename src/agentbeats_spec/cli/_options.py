"""What more than one subcommand parses: the parser that escapes its usage errors, the option groups (links,
reports, limits) and the argument types."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import attrs

from ..project import _config
from ..reporting import _formats, _github
from ..vocabulary._settings import GIB, Limits
from ._status import shown

ALLOW_LIST = Path("agentbeats-secrets.allow")


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors escaped: an unknown argument may be a file name holding anything."""

    def error(self, message: str) -> Any:
        super().error(shown(message))


def _follow_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="follow symbolic links named as PATH (links found inside folders are never followed)",
    )


def _report_options(command: argparse.ArgumentParser, name: str) -> None:
    """The options of a command that prints a report: ``name`` offers the formats the table lists for it."""
    command.add_argument(
        "--format",
        choices=list(_formats.offered(name)),
        default="text",
        help=_formats.purposes(name),
    )
    command.add_argument(
        "--output", dest="outputs", action="append", type=_output, default=[], metavar="FORMAT:FILE",
        help="also write the report in FORMAT to FILE (repeatable), atomically, at the end of the one run",
    )  # fmt: skip
    command.add_argument(
        "--link-base", metavar="URL",
        help="markdown format: link each issue to its line, at URL/PATH#LLINE for a file below the working folder "
        "(default: in a GitHub workflow, the commit checked out in $GITHUB_WORKSPACE, "
        "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/$GITHUB_SHA; elsewhere no links)",
    )  # fmt: skip
    command.add_argument("--strict", action="store_true", help="treat warnings as errors (info never fails)")
    _configuration_options(command)
    command.add_argument(
        "--no-context", action="store_true", help="text format: do not show the source line under each issue"
    )
    command.add_argument(
        "--no-group", action="store_true",
        help="text format: each issue on its own line, not one line for the same finding in many files; github "
        f"format: every annotation, not at most {_github.CAP} of a code",
    )  # fmt: skip
    command.add_argument(
        "-q", "--quiet", action="store_true",
        help="text format: only the summary, and nothing at all when the check passes",
    )  # fmt: skip
    command.add_argument(
        "--quiet-valid", action="store_true",
        help="text format: nothing at all when the check passes, everything when it fails (pre-commit's hooks: "
        "of the runs pre-commit splits a commit's files into, only those that fail print their verdict)",
    )  # fmt: skip
    command.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto",
        help="text format: colour severities and codes (auto: on a terminal, unless NO_COLOR is set)",
    )  # fmt: skip
    command.add_argument(
        "--show-info", action="store_true",
        help="text format: also show info, what a reader should know but need not fix (other formats always do)",
    )  # fmt: skip


def _configuration_options(command: argparse.ArgumentParser) -> None:
    """The options that choose and extend the configuration (``_configuration._configure`` reads them): every command
    that reports issues judges them as ``validate`` does."""
    configuration = command.add_mutually_exclusive_group()
    configuration.add_argument(
        "--config", type=Path, metavar="FILE",
        help="the configuration file (.agentbeats-spec.toml, or a pyproject.toml with [tool.agentbeats-spec]); "
        "default: the nearest one from the working folder up to the repository's root or the home folder",
    )  # fmt: skip
    configuration.add_argument(
        "--no-config", action="store_true",
        help=f"read no configuration file and no ./{ALLOW_LIST}: the checked tree's own settings never count "
        f"(as {_config.NO_CONFIG}=1 does)",
    )  # fmt: skip
    command.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB",
        help="leave out files and folders matching GLOB (repeatable; added to the configuration's)",
    )  # fmt: skip
    command.add_argument(
        "--select", type=_selectors, metavar="CODES",
        help="report only these codes or families, comma-separated (schema,rule.main-metric); replaces the "
        "configuration's",
    )  # fmt: skip
    command.add_argument(
        "--ignore", type=_selectors, action="extend", default=[], metavar="CODES",
        help="do not report these codes or families, comma-separated (added to the configuration's)",
    )  # fmt: skip


def _limit_options(command: argparse.ArgumentParser) -> None:
    defaults = Limits()  # None where not given: then the configuration's, else these
    group = command.add_argument_group("limits")
    group.add_argument(
        "--max-file-size", type=_size, metavar="BYTES",
        help="larger files are not read (default: 4G; suffixes K, M, G)",
    )  # fmt: skip
    group.add_argument("--max-depth", type=_positive, metavar="N",
                       help=f"deepest nesting read (default: {defaults.max_depth})")  # fmt: skip
    group.add_argument("--max-issues", type=_positive, metavar="N",
                       help=f"issues shown per file, the rest counted (default: {defaults.max_issues})")  # fmt: skip
    group.add_argument("--max-shown", type=_positive, metavar="N",
                       help=f"characters of a value shown in a message (default: {defaults.shown_length})")  # fmt: skip


def _path_or_url(text: str) -> Path | str:
    """A path, or (kept as written, since a Path would fold its //) an fsspec URL such as s3://bucket/runs."""
    return text if "://" in text else Path(text)


@attrs.frozen
class Output:
    """A ``--output FORMAT:FILE``: a report written to a file besides the one on standard output."""

    format: str
    path: Path


def _output(text: str) -> Output:
    format_, colon, file = text.partition(":")
    if not colon or not file or format_ not in _formats.REPORTERS:
        raise argparse.ArgumentTypeError(
            f"expected FORMAT:FILE with FORMAT one of {', '.join(_formats.REPORTERS)}, got {text!r}"
        )
    return Output(format_, Path(file))


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _size(text: str) -> int:
    units = {"K": 1024, "M": 1024**2, "G": GIB}
    scale = units.get(text[-1:].upper(), 1)
    return _positive(text[:-1] if scale != 1 else text) * scale


def _selectors(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]
