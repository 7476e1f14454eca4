"""``migrate``: the agentcompass.task.v2 tasks of a run rewritten as v3."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..reporting import _summaries
from ..vocabulary._issues import SpecError
from ._status import EXIT_INVALID, EXIT_USAGE, EXIT_VALID, _missing


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``migrate`` subcommand and its options."""
    migrate = commands.add_parser(
        name,
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


def _migrate(arguments: argparse.Namespace) -> int:
    from ..tasks._migrate import MigrateUsage, migrate_run  # lazy: only migrate needs it (start-up time)

    if _missing([arguments.run]):
        return EXIT_USAGE
    try:
        done = migrate_run(arguments.run, arguments.output, in_place=arguments.in_place, dry_run=arguments.dry_run)
    except MigrateUsage as error:  # said with this command's flags
        raise SpecError(error.command) from None
    _summaries.migration(done, sys.stdout)
    return EXIT_VALID if done.complete else EXIT_INVALID
