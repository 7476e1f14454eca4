"""``validate``: check files and folders, standard input, or a tree on a Dask cluster."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from ..application._front_door import Cluster, Paths, Stdin, run_check
from ..checking._collect import Report
from ..checking._kinds import KINDS
from ..vocabulary._issues import SpecError
from ..vocabulary._settings import AllowList, Settings
from ._configuration import _allow_list, _request
from ._options import _follow_option, _limit_options, _path_or_url, _positive, _report_options
from ._reports import _ended, _missing_paths, _nothing_found, _progress, _report

if TYPE_CHECKING:
    from ..units._cache import VerdictCache


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``validate`` subcommand and its options."""
    validate = commands.add_parser(
        name,
        help="check files and folders; exit 0 when valid, 1 when an error was found",
        description="Check artifact files, or every artifact (and layout) below a folder.",
    )
    validate.set_defaults(handler=_validate)
    validate.add_argument(
        "paths", nargs="+", metavar="PATH", type=_path_or_url,
        help="a file, a folder, or - for one document on standard input (its kind from --kind or its content)",
    )  # fmt: skip
    validate.add_argument("--kind", choices=list(KINDS), help="the artifact kind, when names and content cannot tell")
    validate.add_argument("--secrets", action="store_true", help="also search every artifact for credentials")
    validate.add_argument(
        "--no-verify-artifacts", dest="verify_artifacts", action="store_false",
        help="compare collected artifacts with the size and file count their manifest records, not their sha256",
    )  # fmt: skip
    _follow_option(validate)
    validate.add_argument(
        "--allow-empty", action="store_true",
        help="accept a folder that holds no artifact (by default that exits 2: nothing checked is not a pass)",
    )  # fmt: skip
    validate.add_argument(
        "--jobs", type=_positive, default=os.cpu_count() or 1, metavar="N",
        help="worker processes for the units of a tree (task folders, ABB cases, ...), used when the tree is big "
        "enough to gain (default: the cores)",
    )  # fmt: skip
    validate.add_argument(
        "--dask", metavar="SCHEDULER",
        help="check on a Dask cluster: its scheduler's address (tcp://host:8786), or 'local' for --jobs worker "
        "processes on this machine; PATH may then be an fsspec URL (s3://bucket/runs). Needs the dask extra",
    )  # fmt: skip
    cache = validate.add_mutually_exclusive_group()
    cache.add_argument(
        "--cache", type=Path, metavar="DIR",
        help="where verdicts of unchanged task folders are kept between runs, never inside a checked folder "
        "(default: the user's cache folder)",
    )  # fmt: skip
    cache.add_argument("--no-cache", action="store_true", help="check every task folder again and keep nothing")
    validate.add_argument(
        "--baseline", dest="issue_baseline", type=Path, metavar="FILE",
        help="report only the issues this baseline does not hold (written by --write-baseline); says how many it held",
    )  # fmt: skip
    validate.add_argument(
        "--write-baseline", type=Path, metavar="FILE",
        help="write every issue reported to FILE as the baseline of known issues (fingerprints survive line moves); "
        "they are known from then on: exit 0",
    )  # fmt: skip
    _report_options(validate, name)
    _limit_options(validate)


def _validate(arguments: argparse.Namespace) -> int:
    if arguments.dask is not None:
        return _validate_on_dask(arguments)
    urls = [path for path in arguments.paths if isinstance(path, str)]
    if urls:
        return _ended(arguments, f"reading {urls[0]} needs --dask (a URL is read through fsspec)")
    if any(path == STDIN for path in arguments.paths):
        return _validate_stdin(arguments)
    missing = _missing_paths(arguments, arguments.paths)
    if missing is not None:
        return missing
    named = arguments.paths
    arguments.paths = [path for path in arguments.paths if not arguments.configuration.excluded(path)]
    if not arguments.paths and not arguments.allow_empty:  # excluded files are not checked: nothing checked
        return _ended(arguments, f"every path named is excluded: {', '.join(map(str, named))} (see --allow-empty)")
    progress = _progress(arguments)
    request = _request(
        arguments, kind=arguments.kind, allow=_validate_allow(arguments), verify_artifacts=arguments.verify_artifacts,
        follow_symlinks=arguments.follow_symlinks, jobs=arguments.jobs, progress=progress,
    )  # fmt: skip
    request = attrs.evolve(request, cache=_verdict_cache(arguments, request.settings()))
    report = run_check(request, Paths(arguments.paths))
    if progress is not None:
        progress.close()
    return _report(report, arguments, *_nothing_found(report, arguments))


STDIN = Path("-")


def _validate_stdin(arguments: argparse.Namespace) -> int:
    """``validate -``: one document from standard input, its kind from --kind or from its content."""
    if len(arguments.paths) > 1:
        raise SpecError("- (standard input) is one document: name it alone")
    request = _request(arguments, kind=arguments.kind, allow=_validate_allow(arguments))
    return _report(run_check(request, Stdin(sys.stdin.buffer)), arguments)


def _validate_on_dask(arguments: argparse.Namespace) -> int:
    missing = _missing_paths(arguments, [path for path in arguments.paths if isinstance(path, Path)])
    if missing is not None:
        return missing
    from ..distributed import check_on_cluster  # lazy: it imports dask, an optional dependency

    show = arguments.format == "text" and not arguments.quiet and sys.stderr.isatty()

    def on_cluster(urls: Sequence[str], kind: str | None, follow_symlinks: bool, settings: Settings) -> Report:
        return check_on_cluster(
            arguments.dask, urls, kind, workers=arguments.jobs, follow_symlinks=follow_symlinks, progress=show,
            settings=settings,
        )  # fmt: skip

    request = _request(
        arguments, kind=arguments.kind, allow=_validate_allow(arguments), verify_artifacts=arguments.verify_artifacts,
        follow_symlinks=arguments.follow_symlinks,
    )  # fmt: skip
    report = run_check(request, Cluster([str(path) for path in arguments.paths], on_cluster))
    return _report(report, arguments, *_nothing_found(report, arguments))


def _verdict_cache(arguments: argparse.Namespace, settings: Settings) -> VerdictCache | None:
    """The verdict cache of a validate run (None without one); one asked for inside a checked folder: SpecError."""
    if arguments.no_cache:
        return None
    allow = settings.allow
    if allow is not None and not allow.lasting:  # its fingerprints are this run's alone: no verdict outlives it
        return None
    options = {
        "kind": arguments.kind,
        "limits": attrs.astuple(settings.limits),
        "follow_symlinks": arguments.follow_symlinks,
        "secrets": [sorted(allow.fingerprints), allow.identity()] if allow is not None else None,
        "verify_artifacts": settings.verify_artifacts,
        "exclude": [str(config.root), *config.exclude] if (config := arguments.configuration).exclude else None,
    }
    from ..units import _cache  # lazy: hashlib and tempfile, which --no-cache never needs (start-up time)

    return _cache.for_run(arguments.cache, arguments.paths, json.dumps(options))


def _validate_allow(arguments: argparse.Namespace) -> AllowList | None:
    """The allow-list of ``validate --secrets`` (None without ``--secrets``): the fingerprints in its messages are
    keyed as the allow-list's, else as the baseline's when one is named, so that a baseline matches them again."""
    if not arguments.secrets:
        return None
    baseline: Path | None = getattr(arguments, "issue_baseline", None) or getattr(arguments, "write_baseline", None)
    return _allow_list(None, arguments, baseline)
