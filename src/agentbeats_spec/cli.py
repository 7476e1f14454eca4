"""The ``agentbeats-spec`` command: argument parsing and output only; no validation logic.

Exit codes: 0 nothing wrong, 1 an error (or, with ``--strict``, a warning) was found, 2 a usage problem,
3 an internal error (a bug: the message says how to report it; no traceback is printed).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import gc
import io
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import attrs

from ._api import kinds, schema
from .application._tree_check import check_paths, check_repository, scan_paths
from .checking._bundle import bundle
from .checking._catalog import schema_folder
from .checking._collect import CheckFailed, Report
from .checking._examine import reconfigured
from .checking._kinds import KINDS
from .checking._kinds import get as get_kind
from .checking._sources import examine_source
from .project import _config, _known
from .reading._bounded import read_bounded, read_stream
from .reading._trusted import Untrusted, warn_on_stderr
from .reporting import _reporters
from .reporting._progress import Progress
from .vocabulary._issues import InvalidDocument, Issue, SpecError
from .vocabulary._settings import GIB, AllowList, Limits, Settings, applied, current
from .vocabulary._text import printable
from .vocabulary._version import __version__
from .watching._watch import watch_run

if TYPE_CHECKING:
    from .units._cache import VerdictCache

EXIT_VALID, EXIT_INVALID, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
ALLOW_LIST = Path("agentbeats-secrets.allow")


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors escaped: an unknown argument may be a file name holding anything."""

    def error(self, message: str) -> Any:
        super().error(shown(message))


def shown(text: object) -> str:
    """A path, a value or a message as stderr may show it (the one escaping, ``_text.printable``)."""
    return printable(str(text), controls=True)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="agentbeats-spec",
        description="Validate the files that agent assessments produce (ABV3, ABB, AgentCompass, ACTF).",
        epilog="Exit codes: 0 valid, 1 an error was found, 2 a usage problem, 3 an internal error.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    validate = commands.add_parser(
        "validate",
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
        help="write every issue reported to FILE as the baseline of known issues (fingerprints survive line moves)",
    )  # fmt: skip
    _report_options(validate)
    _limit_options(validate)

    scan = commands.add_parser(
        "scan",
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
        "keeping is_secret and is_verified",
    )
    _follow_option(scan)
    _report_options(scan)
    _limit_options(scan)

    redact_ = commands.add_parser(
        "redact",
        help="write a copy of a file with what scan finds replaced by ********",
        description="Redact one file: exactly what `scan` finds in it becomes ******** (a credential member's "
        "string, a credential shape inside any other string) and every other byte stays as it was, comments "
        "included; metrics, ground_truth and final_answer stay as they are. JSON and TOML documents and text "
        "files. Prints the result unless --output or --in-place is given; files are written atomically.",
    )
    redact_.set_defaults(handler=_redact)
    redact_.add_argument("path", metavar="PATH", type=Path)
    where = redact_.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", type=Path, help="write the redacted file here")
    where.add_argument("--in-place", action="store_true", help="replace the file itself")
    redact_.add_argument(
        "--allow-list",
        type=Path,
        help=f"fingerprints of reviewed findings to leave, one per line (default: ./{ALLOW_LIST} if present)",
    )
    _limit_options(redact_)

    l1 = commands.add_parser(
        "check-l1",
        help="check an ABV3 repository against L1, like `abv3 check -l1`, with a summary per check",
        description="Check an ABV3-L1 repository: agentbeats.toml, dependencies, run configs and results.",
    )
    l1.set_defaults(handler=_check_l1)
    l1.add_argument("repository", nargs="?", default=Path("."), type=Path, metavar="REPO")
    _report_options(l1)
    _limit_options(l1)

    convert = commands.add_parser(
        "convert",
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
    convert.add_argument("--format", choices=("text", "json"), default="text", help="how to print the loss report")
    for flag, what in (("--agent-name", "agent.name"), ("--agent-version", "agent.version"),
                       ("--model-name", "agent.model_name")):  # fmt: skip
        convert.add_argument(flag, metavar="TEXT", help=f"--to atif: the {what} to write (else from the attempt)")
    convert.add_argument(
        "--strict", action="store_true", help="write nothing and exit 1 if anything is lost or invented"
    )
    _limit_options(convert)

    migrate = commands.add_parser(
        "migrate",
        help="rewrite the agentcompass.task.v2 tasks of a run as v3; exit 1 when a task could not be converted",
        description="Rewrite every agentcompass.task.v2 task of an AgentCompass run as agentcompass.task.v3, filed in "
        "its state folder, exactly as AgentCompass 1.0.1 reads it; checkpoints, artifacts and retry archives move "
        "with it. A task that cannot be converted is left as it was and listed with the reason. Every file is "
        "written atomically; an interrupted migration loses nothing and the next one finishes it.",
    )
    migrate.set_defaults(handler=_migrate)
    migrate.add_argument("run", metavar="RUN", type=Path)
    target = migrate.add_mutually_exclusive_group()
    target.add_argument("-o", "--output", type=Path, metavar="NEW", help="write a migrated copy of RUN to NEW")
    target.add_argument("--in-place", action="store_true", help="rewrite RUN itself")
    migrate.add_argument("--dry-run", action="store_true", help="say what would be done; write nothing")

    watch = commands.add_parser(
        "watch",
        help="check a run while it is written; exit as validate would on the finished run",
        description="Check what a run folder holds, then each file as its writer publishes it, with the checks of "
        "validate; end when run_info.json records the run's end (or on Ctrl-C, SIGTERM or --timeout). The folder is "
        "polled with the walk's own listing: no link in it is followed.",
    )  # fmt: skip
    watch.set_defaults(handler=_watch)
    watch.add_argument("path", metavar="RUN", type=Path)
    watch.add_argument(
        "--format", choices=WATCH_FORMATS, default="text",
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
    export = commands.add_parser(
        "export",
        help="write the tasks, attempts, steps or issues of runs as a Parquet, CSV or JSON Lines table",
        description="Write one table over an AgentCompass run, or every run below a folder: one row per task, "
        "attempt, ACTF step or issue (columns: docs/tables.md). Rows are streamed in batches (Parquet row groups), "
        "so memory does not grow with the run; the file is written atomically. A task that cannot be read stops "
        "the export (exit 1, nothing written) unless --skip-invalid leaves it out (reported; exit 1). Needs the "
        "[tables] extra (pyarrow).",
    )
    export.set_defaults(handler=_export)
    export.add_argument("source", metavar="SOURCE", type=Path, help="a run folder, or a folder of runs")
    export.add_argument("--table", choices=("tasks", "attempts", "steps", "issues"), default="attempts")
    export.add_argument("--to", choices=("parquet", "csv", "jsonl"), default="parquet", help="the file format")
    export.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="the file to write")
    export.add_argument("--columns", metavar="A,B", help="the columns to write, in this order (default: all)")
    export.add_argument("--skip-invalid", action="store_true", help="leave out a task that cannot be read")
    export.add_argument(
        "--csv-raw",
        action="store_true",
        help="write CSV cells as they are: by default a text cell that starts with = + - @, a tab or a carriage "
        "return gets a ' before it, so that a spreadsheet does not run it as a formula (numbers are left as they are)",
    )

    list_kinds = commands.add_parser("kinds", help="list the artifact kinds, their files and schema versions")
    list_kinds.set_defaults(handler=_kinds)

    show = commands.add_parser("schema", help="print the JSON Schema of a kind")
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
    return parser


def _follow_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="follow symbolic links named as PATH (links found inside folders are never followed)",
    )


def _report_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--format",
        choices=list(_reporters.REPORTERS),
        default="text",
        help=", ".join(f"{name} {format_.purpose}" for name, format_ in _reporters.REPORTERS.items()),
    )
    command.add_argument(
        "--output", dest="outputs", action="append", type=_output, default=[], metavar="FORMAT:FILE",
        help="also write the report in FORMAT to FILE (repeatable), atomically, at the end of the one run",
    )  # fmt: skip
    command.add_argument(
        "--link-base", metavar="URL",
        help="markdown format: link each issue to its line, at URL/PATH#LLINE for a file below the working folder "
        "(on GitHub: $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/$GITHUB_SHA)",
    )  # fmt: skip
    command.add_argument("--strict", action="store_true", help="treat warnings as errors (info never fails)")
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
    command.add_argument(
        "--no-context", action="store_true", help="text format: do not show the source line under each issue"
    )
    command.add_argument(
        "-q", "--quiet", action="store_true",
        help="text format: only the summary, and nothing at all when the check passes",
    )  # fmt: skip
    command.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto",
        help="text format: colour severities and codes (auto: on a terminal, unless NO_COLOR is set)",
    )  # fmt: skip
    command.add_argument(
        "--show-info", action="store_true",
        help="text format: also show info, what a reader should know but need not fix (other formats always do)",
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
    if not colon or not file or format_ not in _reporters.REPORTERS:
        raise argparse.ArgumentTypeError(
            f"expected FORMAT:FILE with FORMAT one of {', '.join(_reporters.REPORTERS)}, got {text!r}"
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


def _limits(arguments: argparse.Namespace) -> Limits:
    """The command line's limits, then the configuration's, then the defaults."""
    given = {
        "max_file_size": arguments.max_file_size,
        "max_depth": arguments.max_depth,
        "max_issues": arguments.max_issues,
        "shown_length": arguments.max_shown,
    }
    config: _config.Config = getattr(arguments, "configuration", _config.Config())
    return config.applied_to(Limits(), given)


def _configure(arguments: argparse.Namespace) -> None:
    """Read the configuration of a command that reports issues (validate, scan, check-l1): a problem in it is a
    usage error, found before anything is checked."""
    if not hasattr(arguments, "outputs"):
        return
    config = _config.load(arguments.config, search=_discovering(arguments))
    config = config.with_command_line(arguments.exclude, arguments.select, arguments.ignore)
    arguments.configuration = config
    if config.path is not None:  # settings that bend the verdict are always said (the reports say it too, or none)
        print(f"agentbeats-spec: configuration {shown(config.path)}", file=sys.stderr)
    arguments.strict = arguments.strict or config.strict
    baseline: Path | None = getattr(arguments, "issue_baseline", None)
    arguments.known = _known.read(baseline) if baseline is not None else None


def _excluded(arguments: argparse.Namespace) -> Callable[[str], bool] | None:
    """What the configuration and --exclude leave out, for the settings of the run (None: nothing)."""
    config: _config.Config | None = getattr(arguments, "configuration", None)
    return config.excluded if config is not None and config.exclude else None


def _discovering(arguments: argparse.Namespace) -> bool:
    """Whether settings are looked for from the working folder (the configuration, ./agentbeats-secrets.allow):
    not with --no-config, nor where AGENTBEATS_SPEC_NO_CONFIG is set to anything."""
    return not getattr(arguments, "no_config", False) and not os.environ.get(_config.NO_CONFIG)


EXIT_BROKEN_PIPE = 128 + 13  # what a shell shows for a program ended by SIGPIPE, as `yes | head` is


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):  # never fail on a character the terminal cannot show
            stream.reconfigure(errors="backslashreplace")
    arguments = _parser().parse_args(argv)
    # What start-up made (modules, the parser, the kind table) lives as long as the process: out of the cyclic
    # collector's sight, the collections that the parsed documents of a big tree set off do not walk it each time.
    gc.freeze()
    try:
        _configure(arguments)
        with (
            _stopping_on_signals(),
            applied(
                current()
                .with_limits(_limits(arguments) if hasattr(arguments, "max_depth") else None)
                .with_excluded(_excluded(arguments))
            ),
        ):
            status: int = arguments.handler(arguments)
        sys.stdout.flush()  # a full disk or a closed pipe shows here at the latest, while it can still be told
        return status
    except SpecError as error:
        print(f"agentbeats-spec: error: {shown(error)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as error:
        if not _is_stdout_error(error):
            return _os_error(error, arguments)
        _discard_stdout()
        reason = shown(error.strerror or error)
        print(f"agentbeats-spec: error: cannot write standard output: {reason}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as error:  # Ctrl-C, SIGTERM or SIGHUP: workers and clusters are stopped on the way
        print("agentbeats-spec: interrupted", file=sys.stderr)
        return 128 + (error.signum if isinstance(error, Stopped) else signal.SIGINT)
    except CheckFailed as error:  # a bug met on one file: name it, so that it can be reported with the file
        return _internal(arguments, f"while checking {error.file}", f"while checking {shown(error.file)} "
                         f"({shown(error.detail)})", "that file")  # fmt: skip
    except Exception as error:  # a bug: say so in one line, never with a traceback
        return _internal(arguments, f"({type(error).__name__})", f"({type(error).__name__}: {shown(error)})")
    finally:
        gc.unfreeze()  # main called again in the same process (tests, an embedding tool) frees what it leaves


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread so that the run ends as it does on Ctrl-C: every ``finally``
    runs, worker processes and a local Dask cluster are stopped and their scratch folders removed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


# The signals that end a run as Ctrl-C does (SIGHUP: the terminal went away); Windows has no SIGHUP.
STOPPING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def _stopping_on_signals() -> Iterator[None]:
    """While the command runs, SIGTERM and SIGHUP raise :class:`Stopped`; a signal the caller ignores (``nohup``)
    stays ignored. Only the first one stops the run: the ones that follow would cut the cleanup short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        if os.getpid() != owner:  # a forked worker that has not set its own handlers yet: die as it would
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        if not stopping:
            stopping = True
            raise Stopped(signum)

    previous = {
        signum: signal.signal(signum, stop) for signum in STOPPING if signal.getsignal(signum) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that the flush at exit cannot fail again and print a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _os_error(error: OSError, arguments: argparse.Namespace) -> int:
    """An OSError that no command turned into an issue. One about a path (a named run swapped for a link while it
    was read, a folder removed meanwhile) is a problem of the input: exit 2, naming the path, never a traceback and
    never exit 1, which CI would read as "invalid". So is a working folder that was deleted. Any other is a bug:
    the one-line internal error (exit 3)."""
    reason = error.strerror or str(error)
    if error.filename is not None:
        note = f"{error.filename}: {reason}"
    elif _working_folder_gone():
        note = f"the working folder cannot be read (was it deleted?): {reason}"
    else:
        return _internal(arguments, f"({type(error).__name__})", f"({type(error).__name__}: {shown(error)})")
    print(f"agentbeats-spec: error: {shown(note)}", file=sys.stderr)
    with contextlib.suppress(Exception):  # the outputs say the run failed, if they can
        _write_outputs(Report((), 0), arguments, EXIT_USAGE, (note,))
    return EXIT_USAGE


def _working_folder_gone() -> bool:
    try:
        os.getcwd()
    except OSError:
        return True
    return False


def _internal(arguments: argparse.Namespace, recorded: str, said: str, file: str = "the file that caused it") -> int:
    """A bug: said in one line, never with a traceback (exit 3); ``recorded`` goes to the outputs (a SARIF
    invocation), ``said`` to standard error, each after "internal error "."""
    with contextlib.suppress(Exception):  # the outputs say the run failed, if they can
        _write_outputs(Report((), 0), arguments, EXIT_INTERNAL, (f"internal error {recorded}",))
    print(
        f"agentbeats-spec: internal error {said}; please report it with the command line and, if you can, {file}",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


def _is_stdout_error(error: OSError) -> bool:
    """Whether an OSError came from writing the report (a file we write ourselves raises WriteError)."""
    return error.filename is None and error.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EPIPE)


def _missing(paths: Sequence[Path]) -> bool:
    missing = [str(path) for path in paths if not path.exists() and not path.is_symlink()]
    if missing:
        print(f"agentbeats-spec: error: no such file or folder: {shown(', '.join(missing))}", file=sys.stderr)
    return bool(missing)


def _ended(arguments: argparse.Namespace, note: str) -> int:
    """A run that could not check what it was given (exit 2): said on stderr, and recorded by the --output files
    (a SARIF log with a failed invocation), so that a CI step that uploads them finds them."""
    print(f"agentbeats-spec: error: {shown(note)}", file=sys.stderr)
    _write_outputs(Report((), 0), arguments, EXIT_USAGE, (note,))
    return EXIT_USAGE


def _missing_paths(arguments: argparse.Namespace, paths: Sequence[Path]) -> int | None:
    """Exit 2 (with the --output files) when a path is missing, else None."""
    missing = [str(path) for path in paths if not path.exists() and not path.is_symlink()]
    return _ended(arguments, f"no such file or folder: {', '.join(missing)}") if missing else None


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
    kind = get_kind(arguments.kind) if arguments.kind else None
    progress = _progress(arguments)
    settings = current().with_allow(_validate_allow(arguments))
    settings = settings.with_verify_artifacts(arguments.verify_artifacts)
    cache = _verdict_cache(arguments, settings)
    with applied(settings):
        report = check_paths(
            arguments.paths,
            kind,
            progress=progress,
            jobs=arguments.jobs,
            follow_symlinks=arguments.follow_symlinks,
            cache=cache,
        )
    if progress is not None:
        progress.close()
    return _report(report, arguments, *_nothing_found(report, arguments))


STDIN = Path("-")
STDIN_NAME = "<stdin>"  # the file of the issues of a document read from standard input


def _validate_stdin(arguments: argparse.Namespace) -> int:
    """``validate -``: one document from standard input, its kind from --kind or from its content."""
    if len(arguments.paths) > 1:
        raise SpecError("- (standard input) is one document: name it alone")
    kind = get_kind(arguments.kind) if arguments.kind else None
    limit = current().limits.max_file_size
    raw = read_stream(sys.stdin.buffer, limit)
    if raw is None:
        raise SpecError(f"standard input holds more than --max-file-size ({limit} bytes)")
    settings = current().with_allow(_validate_allow(arguments))
    with applied(settings):
        examined = examine_source(raw, kind)
        issues = tuple(attrs.evolve(issue, file=STDIN_NAME) for issue in examined.issues)
    label = examined.kind.name if examined.kind is not None else "unknown"
    return _report(Report(issues, 1, kinds=((label, 1),)), arguments)


def _progress(arguments: argparse.Namespace) -> Progress | None:
    """The progress bar of the text format on a terminal (never with --quiet)."""
    if arguments.format != "text" or arguments.quiet:
        return None
    return Progress.for_terminal(sys.stderr, arguments.paths)


def _nothing_found(report: Report, arguments: argparse.Namespace) -> tuple[int | None, tuple[str, ...]]:
    """Exit 2 where a named folder held no artifact at all (nothing checked is not a pass), unless allowed; and
    why, for the --output files."""
    if not report.empty or arguments.allow_empty:
        return None, ()
    notes = tuple(f"no artifact found under {folder} (see --allow-empty)" for folder in report.empty)
    for note in notes:
        print(f"agentbeats-spec: error: {shown(note)}", file=sys.stderr)
    return EXIT_USAGE, notes


def _validate_on_dask(arguments: argparse.Namespace) -> int:
    missing = _missing_paths(arguments, [path for path in arguments.paths if isinstance(path, Path)])
    if missing is not None:
        return missing
    from .distributed import check_on_cluster  # lazy: it imports dask, an optional dependency

    show = arguments.format == "text" and not arguments.quiet and sys.stderr.isatty()
    settings = current().with_allow(_validate_allow(arguments))
    with applied(settings.with_verify_artifacts(arguments.verify_artifacts)):
        report = check_on_cluster(
            arguments.dask, [str(path) for path in arguments.paths], arguments.kind, workers=arguments.jobs,
            follow_symlinks=arguments.follow_symlinks, progress=show,
        )  # fmt: skip
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
    from .units import _cache  # lazy: hashlib and tempfile, which --no-cache never needs (start-up time)

    return _cache.for_run(arguments.cache, arguments.paths, json.dumps(options))


def _scan(arguments: argparse.Namespace) -> int:
    missing = _missing_paths(arguments, arguments.paths)
    if missing is not None:
        return missing
    arguments.paths = [path for path in arguments.paths if not arguments.configuration.excluded(path)]
    from .credentials import _baseline  # lazy: only scan needs it (start-up time of the other commands)

    path: Path | None = arguments.baseline
    if arguments.update_baseline and path is None:
        raise SpecError("--update-baseline needs --baseline FILE, the file to write")
    if path is not None and not arguments.update_baseline and not path.exists():
        raise SpecError(f"no baseline {path}: write one with --baseline {path} --update-baseline")
    baseline = _baseline.read(path) if path is not None and path.exists() else None
    progress = _progress(arguments)
    with applied(current().with_allow(_allow_list(arguments.allow_list, arguments))):
        report = scan_paths(arguments.paths, progress=progress, follow_symlinks=arguments.follow_symlinks)
    if progress is not None:
        progress.close()
    if path is not None and arguments.update_baseline:
        from .writing import _atomic  # lazy: only the commands that write need it (start-up time)

        _atomic.write_atomic(path, _baseline.updated(baseline, report.issues, arguments.paths))
        for cut in (issue for issue in report.issues if issue.code == "io.issues-truncated"):
            where = printable(cut.file or "", controls=True)
            print(
                f"agentbeats-spec: warning: {where}: findings past --max-issues are not in the baseline",
                file=sys.stderr,
            )
    if baseline is not None:  # what the baseline held is reviewed: the report is of what is new
        report = attrs.evolve(report, issues=tuple(issue for issue in report.issues if not baseline.knows(issue)))
    return _report(report, arguments)


def _validate_allow(arguments: argparse.Namespace) -> AllowList | None:
    """The allow-list of ``validate --secrets`` (None without ``--secrets``): the fingerprints in its messages are
    keyed as the allow-list's, else as the baseline's when one is named, so that a baseline matches them again."""
    if not arguments.secrets:
        return None
    baseline: Path | None = getattr(arguments, "issue_baseline", None) or getattr(arguments, "write_baseline", None)
    return _allow_list(None, arguments, baseline)


def _allow_list(path: Path | None, arguments: argparse.Namespace, baseline: Path | None = None) -> AllowList:
    """The allow-list named, else ./agentbeats-secrets.allow when settings are looked for (``_discovering``) and
    it is there, with the key beside it: one that another user owns or others may write is refused when named
    (exit 2) and, when found, not used (one warning). Without one, the key beside ``baseline`` (a baseline of
    issues whose messages hold fingerprints), else a key for this run alone: a fingerprint that outlives the run
    needs a key kept in a file, and one is made only beside a file the user named or placed."""
    from .credentials import _keys, _scan  # lazy: validate without --secrets never imports the scanner

    if path is not None or (_discovering(arguments) and os.path.lexists(ALLOW_LIST)):
        named = ALLOW_LIST if path is None else path
        try:
            return _scan.read_allow_list(named)
        except Untrusted as untrusted:
            if path is not None:
                raise
            warn_on_stderr(untrusted.passed_over())
        except (OSError, UnicodeDecodeError) as error:
            raise SpecError(f"cannot read the allow-list {shown(named)}: {error}") from None
    if baseline is None:
        return AllowList()
    return AllowList(key=_keys.read_or_make(_keys.beside(baseline)), lasting=True)


def _report(
    report: Report, arguments: argparse.Namespace, status: int | None = None, notes: tuple[str, ...] = ()
) -> int:
    """Write the --output files, then print the report in the format asked for; the exit code says whether it
    fails the check (``status``: the run ended otherwise, for the reason in ``notes``)."""
    report = _configured(report, arguments.configuration)
    if status is None:
        report = _baselined(report, arguments)
    if status is None:
        status = EXIT_INVALID if report.fails(arguments.strict) else EXIT_VALID
    _write_outputs(report, arguments, status, notes)
    _reporters.REPORTERS[arguments.format].write(report, sys.stdout, _options(arguments, status, notes))
    return status


def _configured(report: Report, configuration: _config.Config) -> Report:
    """The report as the configuration leaves it, each ``io.issues-truncated`` line judged again on the codes it
    counts (an error past --max-issues of a code the configuration keeps an error still fails the check)."""

    def configure(issues: tuple[Issue, ...]) -> tuple[Issue, ...]:
        return configuration.filtered(attrs.evolve(report, issues=issues)).issues if issues else ()

    return attrs.evolve(report, issues=reconfigured(report.issues, configure))


def _baselined(report: Report, arguments: argparse.Namespace) -> Report:
    """Write the baseline asked for (every issue), then leave out the issues the given baseline knows."""
    target: Path | None = getattr(arguments, "write_baseline", None)
    if target is not None:
        from .writing import _atomic  # lazy: only the commands that write need it (start-up time)

        _atomic.write_atomic(target, _known.written(report.issues, target))
        print(
            f"agentbeats-spec: {len(report.issues)} issue(s) written to the baseline {shown(target)}", file=sys.stderr
        )
    known: _known.Known | None = getattr(arguments, "known", None)
    if known is None:
        return report
    report, count = known.unknown(report)
    print(f"agentbeats-spec: {count} known issue(s) of the baseline {shown(known.path)} not reported", file=sys.stderr)
    return report


def _options(arguments: argparse.Namespace, status: int, notes: tuple[str, ...]) -> _reporters.Options:
    invocation = _reporters.Invocation(status, status in (EXIT_VALID, EXIT_INVALID), notes)
    return _reporters.Options(
        strict=arguments.strict,
        context=not arguments.no_context,
        show_info=arguments.show_info,
        invocation=invocation,
        link_base=arguments.link_base,
        quiet=arguments.quiet,
        configuration=_configuration_file(arguments),
        color=_colored(arguments.color, sys.stdout),
    )


def _configuration_file(arguments: argparse.Namespace) -> str | None:
    """The configuration file the run used, as the reports name it (None: none)."""
    config: _config.Config | None = getattr(arguments, "configuration", None)
    return None if config is None or config.path is None else str(config.path)


def _colored(choice: str, stream: TextIO) -> bool:
    """--color: always, never, or (auto) on a terminal unless NO_COLOR is set to anything (no-color.org)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return stream.isatty()


def _write_outputs(report: Report, arguments: argparse.Namespace, status: int, notes: tuple[str, ...]) -> None:
    """Each ``--output FORMAT:FILE`` of the run, every one formatted first and then written atomically: a file
    is the whole report or what it held before."""
    outputs: list[Output] = getattr(arguments, "outputs", [])
    if not outputs:
        return
    from .writing import _atomic  # lazy: only the commands that write need it (start-up time)

    options = attrs.evolve(_options(arguments, status, notes), color=False, quiet=False)  # a file is whole
    written = []
    for output in outputs:
        buffer = io.StringIO()
        _reporters.REPORTERS[output.format].write(report, buffer, options)
        written.append((output.path, buffer.getvalue().encode("utf-8", "backslashreplace")))
    for path, content in written:  # a new report: never the mode of a file it replaces (one planted 06777)
        _atomic.write_atomic(path, content, fresh=True)


def _redact(arguments: argparse.Namespace) -> int:
    path: Path = arguments.path
    if _missing([path]):
        return EXIT_USAGE
    raw, problem = read_bounded(path)
    if problem is not None:
        raise SpecError(f"{path}: {problem.message}")
    from .credentials import _redact  # lazy: only redact needs it (start-up time)
    from .writing import _atomic

    content, note, kept = _redact.redact_file(path, raw, _allow_list(arguments.allow_list, arguments))
    if note is not None:
        print(f"agentbeats-spec: warning: {shown(note)}", file=sys.stderr)
    if arguments.in_place or arguments.output:
        if arguments.in_place and path.is_symlink():  # the link would be replaced, the file it names left as it was
            raise SpecError(
                f"{printable(str(path), controls=True)} is a symbolic link; --in-place would replace the link and "
                "leave the file it names unredacted: redact that file"
            )
        others = _atomic.other_names(path) if arguments.in_place and content != raw else 0
        _atomic.write_atomic(path if arguments.in_place else arguments.output, content)
        if others:  # the file was replaced, not edited: its other hard links still name the old bytes
            print(
                f"agentbeats-spec: warning: {printable(str(path), controls=True)} has {others} other hard link(s); "
                "they still hold the secrets: redact or remove them too",
                file=sys.stderr,
            )
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(content)
        sys.stdout.buffer.flush()
    # Written, but not fit to share as it is: a script must not go on as if it were.
    return EXIT_INVALID if kept else EXIT_VALID


def _check_l1(arguments: argparse.Namespace) -> int:
    repository: Path = arguments.repository
    if not repository.is_dir():
        return _ended(arguments, f"no such folder: {repository}")
    report = check_repository(repository)
    if arguments.format == "text":  # the summary per check is for people; the other formats are validate's
        from .layouts import abv3  # lazy: only check-l1 maps issues to L1 checks (start-up time)

        _reporters.l1_summary(abv3.l1_checks(report.issues, repository), repository, sys.stdout)
    return _report(report, arguments)


def _convert(arguments: argparse.Namespace) -> int:
    if _missing([arguments.source]):
        return EXIT_USAGE
    from .atif import _files  # lazy: only convert needs it (start-up time)

    agent = _files.Given(arguments.agent_name, arguments.agent_version, arguments.model_name)
    try:
        done, written = _files.convert(
            arguments.source, arguments.output, to_atif=arguments.to == "atif", strict=arguments.strict, given=agent
        )
    except InvalidDocument as error:
        if arguments.format == "json":
            _files.issues_json(list(error.issues), sys.stdout)
        else:
            _reporters.text(Report(tuple(error.issues), 1), sys.stdout)
            sys.stdout.write("nothing written: the input is not valid\n")
        return EXIT_INVALID
    if arguments.format == "json":
        _files.json_report(done, written, sys.stdout)
    else:
        _files.text_report(done, written, sys.stdout, to_atif=arguments.to == "atif")
    return EXIT_VALID if written else EXIT_INVALID


def _migrate(arguments: argparse.Namespace) -> int:
    from .tasks._migrate import MigrateUsage, migrate_run  # lazy: only migrate needs it (start-up time)

    if _missing([arguments.run]):
        return EXIT_USAGE
    try:
        done = migrate_run(arguments.run, arguments.output, in_place=arguments.in_place, dry_run=arguments.dry_run)
    except MigrateUsage as error:  # said with this command's flags
        raise SpecError(error.command) from None
    _reporters.migration(done, sys.stdout)
    return EXIT_VALID if done.complete else EXIT_INVALID


WATCH_FORMATS = ("text", "github", "jsonl")


def _watch(arguments: argparse.Namespace) -> int:
    """Each issue printed (and flushed) when it is found, each fixed one said so; then the summary of the
    finished run, and the exit code validate gives on it."""
    path: Path = arguments.path
    if _missing([path]):
        return EXIT_USAGE
    if not path.is_dir():
        print(f"agentbeats-spec: error: {shown(path)} is not a folder: watch a run's folder", file=sys.stderr)
        return EXIT_USAGE
    options = _reporters.Options(strict=arguments.strict, show_info=arguments.show_info)

    def show(issue: Issue, fixed: bool = False) -> None:
        """One issue found (or, ``fixed``, one a later write fixed) in the chosen format, flushed at once."""
        if arguments.format == "jsonl":
            print(_reporters.jsonl_line(issue, **({"fixed": True} if fixed else {})), flush=True)
        elif arguments.format == "github":
            print(_reporters.github_line(issue, fixed=fixed), flush=True)
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
        _reporters.text_summary(watched.report, sys.stdout, options)
    elif arguments.format == "github":
        _reporters.github_summary(watched.report, sys.stdout)
    empty, _ = _nothing_found(watched.report, arguments)
    if empty is not None:
        return empty
    return EXIT_INVALID if watched.report.fails(arguments.strict) else EXIT_VALID


def _export(arguments: argparse.Namespace) -> int:
    try:
        from .runs import _export  # lazy: the run reader, and pyarrow (an optional extra) when it writes
        from .runs._tables import _pyarrow

        _pyarrow()
    except ImportError as error:
        print(f"agentbeats-spec: error: {shown(error)}", file=sys.stderr)
        return EXIT_USAGE
    if _missing([arguments.source]):
        return EXIT_USAGE
    columns = [name.strip() for name in arguments.columns.split(",")] if arguments.columns else None
    progress = None
    try:
        if Progress.for_terminal(sys.stderr, [arguments.source]) is not None:  # counted in tasks: a run's files
            progress = Progress(sys.stderr, _export.task_count(arguments.source), unit="tasks")  # are not known yet
        done = _export.export(
            arguments.source,
            arguments.table,
            arguments.to,
            arguments.output,
            columns=columns,
            strict=not arguments.skip_invalid,
            on_task=progress,
            csv_raw=arguments.csv_raw,
        )
    except MemoryError:  # pyarrow's ArrowMemoryError is one too: a string too large for this machine, say
        print(f"agentbeats-spec: error: {shown(arguments.source)}: out of memory while exporting; nothing was written",
              file=sys.stderr)  # fmt: skip
        return EXIT_INVALID
    except InvalidDocument as error:
        for issue in error.issues:
            print(shown(issue), file=sys.stderr)
        print(
            "agentbeats-spec: error: a task cannot be read; nothing was written (see --skip-invalid)", file=sys.stderr
        )
        return EXIT_INVALID
    except ValueError as error:  # an unknown column, too many metric columns
        print(f"agentbeats-spec: error: {shown(error)}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        if progress is not None:
            progress.close()
    for issue in done.issues:
        print(shown(issue), file=sys.stderr)
    print(f"{done.rows} {arguments.table} row(s) of {done.tasks} task(s) written to {shown(arguments.output)}")
    return EXIT_INVALID if any(issue.severity == "error" for issue in done.issues) else EXIT_VALID


def _kinds(arguments: argparse.Namespace) -> int:
    for kind in kinds():
        files = ", ".join(kind.file_match) or "(by schema_version or --kind)"
        versions = ", ".join(kind.versions)
        print(f"{kind.name:<26} {kind.title}\n{'':<26} files: {files}; versions: {versions}")
    return EXIT_VALID


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
    from .writing import _atomic  # lazy: only the commands that write need it (start-up time)

    with _atomic.Folder.root(arguments.output, create=True) as root:
        base = arguments.output.resolve().as_uri() + "/"
        for relative, text in schema_folder(base).items():
            *folders, name = relative.split("/")
            with root.descend(folders, create=True) as folder:
                folder.write(name, text.encode("utf-8"))
    return EXIT_VALID
