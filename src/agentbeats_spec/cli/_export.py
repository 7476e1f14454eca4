"""``export``: the tasks, attempts, steps or issues of runs as a table file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..reporting import _formats
from ..reporting._progress import Progress
from ..vocabulary._issues import InvalidDocument
from ._status import EXIT_INVALID, EXIT_USAGE, EXIT_VALID, _missing, shown


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``export`` subcommand and its options."""
    export = commands.add_parser(
        name,
        help="write the tasks, attempts, steps or issues of runs as a Parquet, CSV or JSON Lines table",
        description="Write one table over an AgentCompass run, or every run below a folder: one row per task, "
        "attempt, ACTF step or issue (columns: docs/tables.md). Rows are streamed in batches (Parquet row groups), "
        "so memory does not grow with the run; the file is written atomically. Tasks are read as AgentCompass "
        "1.0.1 reads them. By default a task with an error stops the export at once (exit 1, nothing written); "
        "with --skip-invalid every task AgentCompass reads is written, errors or not, the tasks it refuses are "
        "left out (each reported), and the exit status is 1 when any task has an error (their issues: --table "
        "issues). Needs the [tables] extra (pyarrow).",
    )
    export.set_defaults(handler=_export)
    export.add_argument("source", metavar="SOURCE", type=Path, help="a run folder, or a folder of runs")
    export.add_argument("--table", choices=("tasks", "attempts", "steps", "issues"), default="attempts")
    export.add_argument("--to", choices=_formats.offered(name), default="parquet", help="the file format")
    export.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="the file to write")
    export.add_argument("--columns", metavar="A,B", help="the columns to write, in this order (default: all)")
    export.add_argument(
        "--skip-invalid",
        action="store_true",
        help="write every task AgentCompass 1.0.1 reads, errors or not, and leave out (reporting) those it refuses",
    )
    export.add_argument(
        "--csv-raw",
        action="store_true",
        help="write CSV cells as they are: by default a text cell that starts with = + - @, a tab or a carriage "
        "return gets a ' before it, so that a spreadsheet does not run it as a formula (numbers are left as they are)",
    )


def _export(arguments: argparse.Namespace) -> int:
    try:
        from ..runs import _export  # lazy: the run reader, and pyarrow (an optional extra) when it writes
        from ..runs._tables import _pyarrow

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
            "agentbeats-spec: error: a task has an error; nothing was written (--skip-invalid writes every task "
            "AgentCompass 1.0.1 reads, errors or not)",
            file=sys.stderr,
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
    if done.with_errors:
        print(
            f"agentbeats-spec: {done.with_errors} of them with errors that AgentCompass 1.0.1 reads past; their "
            f"issues: agentbeats-spec export {shown(arguments.source)} --table issues -o FILE, or validate",
            file=sys.stderr,
        )
    failed = done.with_errors or any(issue.severity == "error" for issue in done.issues)
    return EXIT_INVALID if failed else EXIT_VALID
