"""The summaries of the commands that print more than a report: check-l1's line per L1 check, and what migrate
did. (The text and github formats end with their own summary: ``text_summary``, ``github_summary``.)"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..vocabulary._text import printable

if TYPE_CHECKING:
    from ..layouts.abv3 import L1Check
    from ..tasks._migrate import Migration, Refused


def l1_summary(checks: Iterable[L1Check], repository: Path, out: TextIO) -> None:
    """One line per check, as the spec's `abv3 check -l1` prints them; a check that could not run says so."""
    out.write(f"ABV3-L1 check of {printable(str(repository), controls=True)}\n")
    for check in checks:
        parts = [
            f"{count} {severity}{'' if count == 1 else 's'}"
            for severity, count in (("error", check.errors), ("warning", check.warnings))
            if count
        ]
        verdict = ", ".join(parts) if parts else "ok"
        if not check.ran:
            verdict = f"not run ({verdict})" if parts else "not run"
        out.write(f"  {check.name:<18} {verdict}\n")
    out.write("\n")


def migration_converted(old: Path, new: Path, dry_run: bool) -> str:
    """The line of a task converted (or, ``dry_run``, that would be)."""
    would = "would convert" if dry_run else "converted"
    return f"{would:<13}  {printable(old.as_posix(), controls=True)} -> {printable(new.as_posix(), controls=True)}\n"


def migration_refused(refused: Refused) -> str:
    """The line of a task left as it was, with why."""
    task, reason = printable(refused.task.as_posix(), controls=True), printable(refused.reason, controls=True)
    return f"{'refused':<13}  {task}: {reason}\n"


def migration_counts(done: Migration) -> str:
    """The last line of ``migrate``: how many tasks were converted, already v3, refused, and where."""
    where = "(dry run, nothing written)" if done.dry_run else f"in {printable(str(done.run), controls=True)}"
    return f"{len(done.converted)} converted, {len(done.already_v3)} already v3, {len(done.refused)} refused {where}\n"
