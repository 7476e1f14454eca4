"""``scan``: search files and folders for credentials."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import attrs

from ..application._front_door import Paths, run_check
from ..vocabulary._issues import SpecError
from ..vocabulary._text import printable
from ._configuration import _allow_list, _request
from ._options import ALLOW_LIST, _follow_option, _limit_options, _report_options
from ._reports import _missing_paths, _progress, _report
from ._status import shown


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``scan`` subcommand and its options."""
    scan = commands.add_parser(
        name,
        help="search files and folders for credentials; exit 1 when one is found",
        description="Search every file below the paths for credentials: credential members of JSON and TOML "
        "documents, and the shapes of well-known keys and tokens in any text. Secrets are masked in every output.",
    )
    scan.set_defaults(handler=_scan)
    scan.add_argument("paths", nargs="+", metavar="PATH", type=Path)
    scan.add_argument(
        "--allow-list",
        type=Path,
        help=f"fingerprints of reviewed findings to leave out, one per line (default: ./{ALLOW_LIST} if present)",
    )
    scan.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="a detect-secrets .secrets.baseline: the findings it holds (same file, same secret) are not reported",
    )
    scan.add_argument(
        "--update-baseline",
        action="store_true",
        help="then write every finding of this scan to the --baseline FILE (created if missing), atomically, "
        "keeping is_secret and is_verified; the report is of the baseline as written (exit 0)",
    )
    _follow_option(scan)
    _report_options(scan, name)
    _limit_options(scan)


def _scan(arguments: argparse.Namespace) -> int:
    missing = _missing_paths(arguments, arguments.paths)
    if missing is not None:
        return missing
    arguments.paths = [path for path in arguments.paths if not arguments.configuration.excluded(path)]
    from ..credentials import _baseline  # lazy: only scan needs it (start-up time of the other commands)

    path: Path | None = arguments.baseline
    if arguments.update_baseline and path is None:
        raise SpecError("--update-baseline needs --baseline FILE, the file to write")
    if path is not None and not arguments.update_baseline and not path.exists():
        raise SpecError(f"no baseline {path}: write one with --baseline {path} --update-baseline")
    baseline = _baseline.read(path) if path is not None and path.exists() else None
    progress = _progress(arguments)
    request = _request(
        arguments, task="scan", allow=_allow_list(arguments.allow_list, arguments), progress=progress,
        follow_symlinks=arguments.follow_symlinks,
    )  # fmt: skip
    report = run_check(request, Paths(arguments.paths))
    if progress is not None:
        progress.close()
    if path is not None and arguments.update_baseline:
        from ..writing import _atomic  # lazy: only the commands that write need it (start-up time)

        written = _baseline.updated(baseline, report.issues, arguments.paths)
        _atomic.write_atomic(path, written)
        baseline = _baseline.parsed(written, path)  # the report is of the baseline as written: what it holds is known
        print(
            f"agentbeats-spec: wrote the baseline {shown(path)}: {baseline.entries} finding(s) "
            f"in {baseline.files} file(s), each known from now on (not reported)",
            file=sys.stderr,
        )
        for cut in (issue for issue in report.issues if issue.code == "io.issues-truncated"):
            where = printable(cut.file or "", controls=True)
            print(
                f"agentbeats-spec: warning: {where}: findings past --max-issues are not in the baseline",
                file=sys.stderr,
            )
    if baseline is not None:  # what the baseline held is reviewed: the report is of what is new
        report = attrs.evolve(report, issues=tuple(issue for issue in report.issues if not baseline.knows(issue)))
    return _report(report, arguments)
