"""``watch``: a run checked while it is written."""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

from ..reporting import _formats
from ..reporting._github import github_line, github_summary
from ..reporting._json import jsonl_line
from ..reporting._options import Options
from ..reporting._text import text_summary
from ..vocabulary._issues import Issue
from ..watching._watch import watch_run
from ._options import _limit_options, _seconds
from ._reports import _nothing_found
from ._status import EXIT_INVALID, EXIT_USAGE, EXIT_VALID, _missing, shown


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``watch`` subcommand and its options."""
    watch = commands.add_parser(
        name,
        help="check a run while it is written; exit as validate would on the finished run",
        description="Check what a run folder holds, then each file as its writer publishes it, with the checks of "
        "validate; end when run_info.json records the run's end (or on Ctrl-C, SIGTERM or --timeout). The folder is "
        "polled with the walk's own listing: no link in it is followed.",
    )  # fmt: skip
    watch.set_defaults(handler=_watch)
    watch.add_argument("path", metavar="RUN", type=Path)
    watch.add_argument(
        "--format", choices=_formats.offered(name), default="text",
        help="text for people, github for workflow annotations, jsonl: one JSON issue per line",
    )  # fmt: skip
    watch.add_argument("--strict", action="store_true", help="treat warnings as errors (info never fails)")
    watch.add_argument("--show-info", action="store_true", help="text format: also show info")
    watch.add_argument("--timeout", type=_seconds, metavar="SECONDS", help="stop watching after this long")
    watch.add_argument(
        "--poll", action="store_true",
        help="kept for compatibility: watch always polls the folder, with a listing that follows no link",
    )  # fmt: skip
    watch.add_argument("--allow-empty", action="store_true", help="accept a run that ends holding no artifact")
    _limit_options(watch)


def _watch(arguments: argparse.Namespace) -> int:
    """Each issue printed (and flushed) when it is found, each fixed one said so; then the summary of the
    finished run, and the exit code validate gives on it."""
    path: Path = arguments.path
    if _missing([path]):
        return EXIT_USAGE
    if not path.is_dir():
        print(f"agentbeats-spec: error: {shown(path)} is not a folder: watch a run's folder", file=sys.stderr)
        return EXIT_USAGE
    options = Options(strict=arguments.strict, show_info=arguments.show_info)

    def show(issue: Issue, fixed: bool = False) -> None:
        """One issue found (or, ``fixed``, one a later write fixed) in the chosen format, flushed at once."""
        if arguments.format == "jsonl":
            print(jsonl_line(issue, **({"fixed": True} if fixed else {})), flush=True)
        elif arguments.format == "github":
            print(github_line(issue, fixed=fixed), flush=True)
        elif arguments.show_info or issue.severity != "info":
            print(("fixed: " if fixed else "") + issue.heading(), flush=True)

    watched = watch_run(
        path,
        show,
        on_fixed=functools.partial(show, fixed=True),
        timeout=arguments.timeout,
    )
    if watched.ending != "finished":
        said = "--timeout" if watched.ending == "timeout" else "interrupted"
        print(f"agentbeats-spec: watch ended before the run did ({said}): the report is of the run so far",
              file=sys.stderr)  # fmt: skip
    if arguments.format == "text":
        text_summary(watched.report, sys.stdout, options)
    elif arguments.format == "github":
        github_summary(watched.report, sys.stdout)
    empty, _ = _nothing_found(watched.report, arguments)
    if empty is not None:
        return empty
    return EXIT_INVALID if watched.report.fails(arguments.strict) else EXIT_VALID
