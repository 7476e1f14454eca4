"""``check-l1``: an ABV3 repository checked against L1, with a summary per check."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..application._front_door import Repository, run_check
from ..reporting import _summaries
from ._configuration import _request
from ._options import _limit_options, _report_options
from ._reports import _ended, _report


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``check-l1`` subcommand and its options."""
    l1 = commands.add_parser(
        name,
        help="check an ABV3 repository against L1, like `abv3 check -l1`, with a summary per check",
        description="Check an ABV3-L1 repository: agentbeats.toml, dependencies, run configs and results.",
    )
    l1.set_defaults(handler=_check_l1)
    l1.add_argument("repository", nargs="?", default=Path("."), type=Path, metavar="REPO")
    _report_options(l1, name)
    _limit_options(l1)


def _check_l1(arguments: argparse.Namespace) -> int:
    repository: Path = arguments.repository
    if not repository.is_dir():
        return _ended(arguments, f"no such folder: {repository}")
    report = run_check(_request(arguments), Repository(repository))
    if arguments.format == "text":  # the summary per check is for people; the other formats are validate's
        from ..layouts import abv3  # lazy: only check-l1 maps issues to L1 checks (start-up time)

        _summaries.l1_summary(abv3.l1_checks(report.issues, repository), repository, sys.stdout)
    return _report(report, arguments)
