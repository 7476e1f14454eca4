"""The report of a checking command (validate, scan, check-l1, watch): configured, baselined, written to the
--output files and printed; and the runs that end before a report (a missing path, nothing found)."""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import attrs

from ..checking._collect import Report
from ..checking._examine import reconfigured
from ..project import _config, _known
from ..reporting import _formats
from ..reporting._links import link_base
from ..reporting._options import Invocation, Options
from ..reporting._progress import Progress
from ..vocabulary._issues import Issue
from ._options import Output
from ._status import EXIT_INVALID, EXIT_USAGE, EXIT_VALID, shown


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
    if arguments.quiet_valid and status == EXIT_VALID and arguments.format == "text":
        return status  # --quiet-valid: a passing run says nothing (its --output files are written all the same)
    _formats.REPORTERS[arguments.format](report, sys.stdout, _options(arguments, status, notes))
    return status


def _configured(report: Report, configuration: _config.Config) -> Report:
    """The report as the configuration leaves it, each ``io.issues-truncated`` line judged again on the codes it
    counts (an error past --max-issues of a code the configuration keeps an error still fails the check)."""

    def configure(issues: tuple[Issue, ...]) -> tuple[Issue, ...]:
        return configuration.filtered(attrs.evolve(report, issues=issues)).issues if issues else ()

    return attrs.evolve(report, issues=reconfigured(report.issues, configure))


def _baselined(report: Report, arguments: argparse.Namespace) -> Report:
    """Write the baseline asked for (every issue), then leave out the issues the baseline knows: the one just
    written, which holds them all (so the run ends as the next run with ``--baseline FILE`` would: exit 0), else
    the given one."""
    target: Path | None = getattr(arguments, "write_baseline", None)
    known: _known.Known | None = getattr(arguments, "known", None)
    if target is not None:
        from ..writing import _atomic  # lazy: only the commands that write need it (start-up time)

        _atomic.write_atomic(target, _known.written(report.issues, target))
        print(
            f"agentbeats-spec: wrote the baseline {shown(target)}: {len(report.issues)} issue(s), each known from "
            "now on (not reported)",
            file=sys.stderr,
        )
        return _known.of(report.issues, target).unknown(report)[0]
    if known is None:
        return report
    report, count = known.unknown(report)
    print(f"agentbeats-spec: {count} known issue(s) of the baseline {shown(known.path)} not reported", file=sys.stderr)
    return report


def _options(arguments: argparse.Namespace, status: int, notes: tuple[str, ...]) -> Options:
    invocation = Invocation(status, status in (EXIT_VALID, EXIT_INVALID), notes)
    return Options(
        strict=arguments.strict,
        context=not arguments.no_context,
        show_info=arguments.show_info,
        invocation=invocation,
        link_base=link_base(arguments.link_base),
        quiet=arguments.quiet,
        configuration=_configuration_file(arguments),
        color=_colored(arguments.color, sys.stdout),
        group=not getattr(arguments, "no_group", False),
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
    from ..writing import _atomic  # lazy: only the commands that write need it (start-up time)

    options = attrs.evolve(_options(arguments, status, notes), color=False, quiet=False)  # a file is whole
    written = []
    for output in outputs:
        buffer = io.StringIO()
        _formats.REPORTERS[output.format](report, buffer, options)
        written.append((output.path, buffer.getvalue().encode("utf-8", "backslashreplace")))
    for path, content in written:  # a new report: never the mode of a file it replaces (one planted 06777)
        _atomic.write_atomic(path, content, fresh=True)
