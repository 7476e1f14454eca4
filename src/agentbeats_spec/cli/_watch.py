"""``watch``: a run checked while it is written."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..checking._collect import Report
from ..reporting import _formats
from ..reporting._github import github_line, github_summary
from ..reporting._json import jsonl_line
from ..reporting._options import Options
from ..reporting._progress import StatusLine
from ..reporting._text import text_summary
from ..vocabulary._issues import Issue
from ..watching._watch import IssueKey, Looked, key, watching
from ._options import _configuration_options, _limit_options, _seconds
from ._reports import _configured, _ended, _nothing_found
from ._status import EXIT_INVALID, EXIT_USAGE, EXIT_VALID, shown


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``watch`` subcommand and its options."""
    watch = commands.add_parser(
        name,
        help="check a run while it is written; exit as validate would on the finished run",
        description="Check what a run folder holds, then each file as its writer publishes it, with the checks and "
        "the configuration of validate; end when run_info.json records the run's end (or on Ctrl-C, SIGTERM or "
        "--timeout). A run folder that does not exist yet is waited for. The folder is polled with the walk's own "
        "listing: no link in it is followed. On a terminal, the text format keeps a status line on stderr.",
    )  # fmt: skip
    watch.set_defaults(handler=_watch)
    watch.add_argument("path", metavar="RUN", type=Path)
    watch.add_argument(
        "--format", choices=_formats.offered(name), default="text",
        help="text for people, github for workflow annotations, jsonl: one JSON issue per line",
    )  # fmt: skip
    watch.add_argument("--strict", action="store_true", help="treat warnings as errors (info never fails)")
    watch.add_argument("--show-info", action="store_true", help="text format: also show info")
    watch.add_argument(
        "--timeout", type=_seconds, metavar="SECONDS",
        help="stop watching after this long (waiting for the run folder to appear included)",
    )  # fmt: skip
    watch.add_argument(
        "--poll", action="store_true",
        help="kept for compatibility: watch always polls the folder, with a listing that follows no link",
    )  # fmt: skip
    watch.add_argument("--allow-empty", action="store_true", help="accept a run that ends holding no artifact")
    _configuration_options(watch)
    _limit_options(watch)


def _watch(arguments: argparse.Namespace) -> int:
    """Each issue printed (and flushed) when it is found, each fixed one said so, both as the configuration leaves
    them; then the summary of the finished run, and the exit code validate gives on it."""
    path: Path = arguments.path
    if _there(path) and not path.is_dir():
        print(f"agentbeats-spec: error: {shown(path)} is not a folder: watch a run's folder", file=sys.stderr)
        return EXIT_USAGE
    if arguments.configuration.excluded(path) and not arguments.allow_empty:  # as validate: nothing to check
        return _ended(arguments, f"every path named is excluded: {path} (see --allow-empty)")
    if not _there(path):
        print(f"agentbeats-spec: waiting for {shown(path)} to be made", file=sys.stderr, flush=True)
    shower = _Shower(arguments)
    try:
        watched = watching(
            path, shower.found, on_fixed=shower.fixed, on_look=shower.looked, timeout=arguments.timeout,
            patient=True,
        )  # fmt: skip
    finally:
        shower.close()
    if not _there(path):  # never made, or removed: as validate says of a missing path
        return _ended(arguments, f"no such file or folder: {path}")
    if watched.ending != "finished":
        said = "--timeout" if watched.ending == "timeout" else "interrupted"
        print(f"agentbeats-spec: watch ended before the run did ({said}): the report is of the run so far",
              file=sys.stderr)  # fmt: skip
    report = _configured(watched.report, arguments.configuration)
    if arguments.format == "text":
        text_summary(report, sys.stdout, Options(strict=arguments.strict, show_info=arguments.show_info))
    elif arguments.format == "github":
        github_summary(report, sys.stdout)
    empty, _ = _nothing_found(report, arguments)
    if empty is not None:
        return empty
    return EXIT_INVALID if report.fails(arguments.strict) else EXIT_VALID


def _there(path: Path) -> bool:
    return path.exists() or path.is_symlink()


class _Shower:
    """What watch prints as it goes: each issue (or fix) as the configuration leaves it, in the chosen format and
    flushed at once; and, for the text format on a terminal, a status line on stderr, redrawn in place, cleared
    around each issue."""

    def __init__(self, arguments: argparse.Namespace) -> None:
        self.arguments = arguments
        self.status = StatusLine.for_terminal(sys.stderr) if arguments.format == "text" else None
        self.open: dict[IssueKey, int] = {}  # issues reported and not fixed, as shown
        self.started = time.monotonic()

    def found(self, issue: Issue) -> None:
        self._show(issue, fixed=False)

    def fixed(self, issue: Issue) -> None:
        self._show(issue, fixed=True)

    def _show(self, found: Issue, fixed: bool) -> None:
        if found.code == "io.not-found" and found.file == str(self.arguments.path):
            return  # the run folder missing at the end: said as validate says a missing path (exit 2)
        configured = _configured(Report((found,), 0), self.arguments.configuration).issues
        if not configured:
            return
        issue = configured[0]
        shown_here = self.arguments.show_info or issue.severity != "info"
        if shown_here:  # the status line counts what the text format shows
            self.open[key(issue)] = self.open.get(key(issue), 0) + (-1 if fixed else 1)
        if self.status is not None:
            self.status.clear()
        if self.arguments.format == "jsonl":
            print(jsonl_line(issue, **({"fixed": True} if fixed else {})), flush=True)
        elif self.arguments.format == "github":
            print(github_line(issue, fixed=fixed), flush=True)
        elif shown_here:
            print(("fixed: " if fixed else "") + issue.heading(), flush=True)
        if self.status is not None:
            self.status.redraw()

    def looked(self, looked: Looked) -> None:
        if self.status is None:
            return
        if not looked.exists:
            waited = time.monotonic() - self.started
            self.status.show(f"waiting for {shown(self.arguments.path)} to be made ({waited:.0f} s)")
            return
        issues = sum(count for count in self.open.values() if count > 0)
        self.status.show(
            f"watching {shown(self.arguments.path)}: {looked.tasks} task(s) seen, {looked.checked} checked, "
            f"{issues} issue(s) so far"
        )

    def close(self) -> None:
        if self.status is not None:
            self.status.clear()
