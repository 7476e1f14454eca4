"""The ``agentbeats-spec`` command: argument parsing and output only; no validation logic."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from . import _reporters, kinds, schema
from ._bundle import bundle
from ._core import Report
from ._issues import SpecError
from ._kinds import KINDS
from ._kinds import get as get_kind
from ._version import __version__
from .layouts import check_paths, check_repository

EXIT_VALID, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentbeats-spec",
        description="Validate the files that agent assessments produce (ABV3, ABB, AgentCompass, ACTF).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    validate = commands.add_parser(
        "validate",
        help="check files and folders; exit 0 when valid, 1 when an error was found, 2 for a usage problem",
        description="Check artifact files, or every artifact below a folder.",
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", type=Path)
    validate.add_argument("--kind", choices=list(KINDS), help="the artifact kind, when names and content cannot tell")
    validate.add_argument(
        "--format",
        choices=("text", "json", "github", "sarif"),
        default="text",
        help="text for people, json for programs, github for workflow annotations, sarif for code scanning",
    )
    validate.add_argument("--strict", action="store_true", help="treat warnings as errors")
    validate.add_argument(
        "--no-context", action="store_true", help="text format: do not show the source line under each issue"
    )

    l1 = commands.add_parser(
        "check-l1",
        help="check an ABV3 repository against L1, like `abv3 check -l1`, with a summary per check",
        description="Check an ABV3-L1 repository: agentbeats.toml, dependencies, run configs and results.",
    )
    l1.add_argument("repository", nargs="?", default=Path("."), type=Path, metavar="REPO")
    l1.add_argument("--strict", action="store_true", help="treat warnings as errors")
    l1.add_argument("--no-context", action="store_true", help="do not show the source line under each issue")

    commands.add_parser("kinds", help="list the artifact kinds, their files and schema versions")

    show = commands.add_parser("schema", help="print the JSON Schema of a kind")
    show.add_argument("kind", choices=list(KINDS))
    show.add_argument("--schema-version", dest="schema_version", help="a schema version (default: the newest)")
    show.add_argument(
        "--bundle", action="store_true", help="one self-contained document, every $ref resolved into its own $defs"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    try:
        if arguments.command == "validate":
            return _validate(arguments)
        if arguments.command == "kinds":
            return _kinds()
        if arguments.command == "check-l1":
            return _check_l1(arguments)
        return _schema(arguments)
    except SpecError as error:
        print(f"agentbeats-spec: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_USAGE


def _validate(arguments: argparse.Namespace) -> int:
    missing = [str(path) for path in arguments.paths if not path.exists() and not path.is_symlink()]
    if missing:
        print(f"agentbeats-spec: error: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return EXIT_USAGE
    kind = get_kind(arguments.kind) if arguments.kind else None
    progress = _reporters.Progress.for_terminal(sys.stderr, arguments.paths) if arguments.format == "text" else None
    report = check_paths(arguments.paths, kind, progress=progress)
    if progress is not None:
        progress.close()
    if arguments.format == "json":
        _reporters.json_report(report, sys.stdout, strict=arguments.strict)
    elif arguments.format == "github":
        _reporters.github(report, sys.stdout)
    elif arguments.format == "sarif":
        _reporters.sarif(report, sys.stdout)
    else:
        _reporters.text(report, sys.stdout, context=not arguments.no_context, strict=arguments.strict)
    return _exit_code(report, arguments.strict)


def _exit_code(report: Report, strict: bool) -> int:
    failed = any(issue.severity == "error" or strict for issue in report.issues)
    return EXIT_INVALID if failed else EXIT_VALID


def _check_l1(arguments: argparse.Namespace) -> int:
    repository: Path = arguments.repository
    if not repository.is_dir():
        print(f"agentbeats-spec: error: no such folder: {repository}", file=sys.stderr)
        return EXIT_USAGE
    report = check_repository(repository)
    _reporters.l1_summary(report, repository, sys.stdout)
    _reporters.text(report, sys.stdout, context=not arguments.no_context, strict=arguments.strict)
    return _exit_code(report, arguments.strict)


def _kinds() -> int:
    for kind in kinds():
        files = ", ".join(kind.file_match) or "(by schema_version or --kind)"
        versions = ", ".join(kind.versions)
        print(f"{kind.name:<26} {kind.title}\n{'':<26} files: {files}; versions: {versions}")
    return EXIT_VALID


def _schema(arguments: argparse.Namespace) -> int:
    document = schema(arguments.kind, arguments.schema_version)
    if arguments.bundle:
        document = bundle(document["$id"])
    json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return EXIT_VALID
