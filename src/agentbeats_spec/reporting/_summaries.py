"""The summaries of the commands that print more than a report: check-l1's line per L1 check, and what migrate
did. (The text and github formats end with their own summary: ``text_summary``, ``github_summary``.)"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..vocabulary._text import printable

if TYPE_CHECKING:
    from ..layouts.abv3 import L1Check
    from ..tasks._migrate import Migration


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


def migration(done: Migration, out: TextIO) -> None:
    """What ``migrate`` did: a line per task converted or refused, then the counts."""
    would = "would convert" if done.dry_run else "converted"

    def shown(text: str) -> str:
        return printable(text, controls=True)

    for old, new in done.converted:
        out.write(f"{would:<13}  {shown(old.as_posix())} -> {shown(new.as_posix())}\n")
    for refused in done.refused:
        out.write(f"{'refused':<13}  {shown(refused.task.as_posix())}: {shown(refused.reason)}\n")
    where = "(dry run, nothing written)" if done.dry_run else f"in {shown(str(done.run))}"
    out.write(
        f"{len(done.converted)} converted, {len(done.already_v3)} already v3, {len(done.refused)} refused {where}\n"
    )
