"""``migrate``: the agentcompass.task.v2 tasks of a run rewritten as v3."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..reporting import _summaries
from ..reporting._progress import Progress
from ..vocabulary._issues import SpecError
from ._status import EXIT_INVALID, EXIT_USAGE, EXIT_VALID, _missing

if TYPE_CHECKING:
    from ..tasks._migrate import Step


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``migrate`` subcommand and its options."""
    migrate = commands.add_parser(
        name,
        help="rewrite the agentcompass.task.v2 tasks of a run as v3; exit 1 when a task could not be converted",
        description="Rewrite every agentcompass.task.v2 task of an AgentCompass run as agentcompass.task.v3, filed in "
        "its state folder, exactly as AgentCompass 1.0.1 reads it; checkpoints, artifacts and retry archives move "
        "with it. A task that cannot be converted is left as it was and listed with the reason. Every file is "
        "written atomically; an interrupted migration loses nothing and the next one finishes it. Each task's line "
        "is printed as it is done, with a progress bar on a terminal.",
    )
    migrate.set_defaults(handler=_migrate)
    migrate.add_argument("run", metavar="RUN", type=Path)
    target = migrate.add_mutually_exclusive_group()
    target.add_argument("-o", "--output", type=Path, metavar="NEW", help="write a migrated copy of RUN to NEW")
    target.add_argument("--in-place", action="store_true", help="rewrite RUN itself")
    migrate.add_argument("--dry-run", action="store_true", help="say what would be done; write nothing")


def _migrate(arguments: argparse.Namespace) -> int:
    from ..tasks._migrate import MigrateUsage, migrating  # lazy: only migrate needs it (start-up time)

    if _missing([arguments.run]):
        return EXIT_USAGE
    display = _Display(arguments.dry_run)
    try:
        done = migrating(
            arguments.run, arguments.output, in_place=arguments.in_place, dry_run=arguments.dry_run,
            on_step=display.step,
        )  # fmt: skip
    except MigrateUsage as error:  # said with this command's flags
        raise SpecError(error.command) from None
    finally:
        display.close()
    sys.stdout.write(_summaries.migration_counts(done))
    return EXIT_VALID if done.complete else EXIT_INVALID


class _Display:
    """Each task's line on stdout as soon as it is known, and a progress bar of the phase under way (reading the
    tasks, then writing them) on stderr when it is a terminal, cleared around each line."""

    def __init__(self, dry_run: bool) -> None:
        self.dry_run = dry_run
        self.terminal = sys.stderr.isatty()
        self.bar: Progress | None = None
        self.phase = ""

    def step(self, step: Step) -> None:
        if self.terminal and step.phase != self.phase:
            self.close()
            self.bar = Progress(sys.stderr, step.total, f"tasks {step.phase}")
            self.phase = step.phase
        line = None
        if step.converted is not None:
            line = _summaries.migration_converted(*step.converted, self.dry_run)
        elif step.refused is not None:
            line = _summaries.migration_refused(step.refused)
        if line is not None:
            if self.bar is not None:
                self.bar.clear()
            sys.stdout.write(line)
            sys.stdout.flush()
        if self.bar is not None:
            self.bar(step.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
