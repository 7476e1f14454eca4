"""``score``: each run's metrics.json recomputed from its tasks, beside the one the run holds.

Text: a table of every series, category and hierarchy node (the recomputed value, the value metrics.json holds,
the evaluated and total tasks, ``!`` where they differ), then each mismatch. JSON: exactly the metrics.json
AgentCompass 1.0.1 would write (for a folder of several runs, an object of them by run folder). Exit 0 when every
metrics.json agrees or is absent, 1 when one differs or a run's tasks cannot be summarized, 2 on usage problems.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

from ..reporting import _formats
from ..runs._scores import Scored, scored_runs
from ..scores._report import same, shown_value
from ..vocabulary._text import printable
from ._status import EXIT_INVALID, EXIT_USAGE, EXIT_VALID, _missing


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``score`` subcommand and its options."""
    score = commands.add_parser(
        name,
        help="recompute each run's metrics.json from its tasks and compare it with the one it holds",
        description="Recompute an AgentCompass run's metrics.json from its tasks, as AgentCompass 1.0.1's summary "
        "would, and compare it with the one the run holds (exit 1 where they differ).",
    )
    score.set_defaults(handler=_score)
    score.add_argument("paths", nargs="+", type=Path, metavar="RUN", help="a run, or a folder of runs")
    score.add_argument("--format", choices=_formats.offered(name), default="text", help=_formats.purposes(name))


def _score(arguments: argparse.Namespace) -> int:
    paths: list[Path] = arguments.paths
    if _missing(paths):
        return EXIT_USAGE
    _, scored = scored_runs(paths)
    if not scored:
        print("agentbeats-spec: error: no AgentCompass run is there", file=sys.stderr)
        return EXIT_USAGE
    if arguments.format == "json":
        reports = {str(each.root): each.recomputed for each in scored}
        shown = next(iter(reports.values())) if len(reports) == 1 else reports
        sys.stdout.write(json.dumps(shown, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
    else:
        for each in scored:
            _table(each, sys.stdout)
    for each in scored:
        if each.refused is not None:
            print(f"agentbeats-spec: {printable(str(each.root), controls=True)}: AgentCompass 1.0.1's summary "
                  f"refuses this run: {printable(each.refused, controls=True)}", file=sys.stderr)  # fmt: skip
    failed = any(each.refused is not None or each.mismatches for each in scored)
    return EXIT_INVALID if failed else EXIT_VALID


def _rows(recomputed: Mapping[str, Any], held: Mapping[str, Any] | None) -> Iterator[tuple[str, str, Any, Any, Any]]:
    """(series, scope, recomputed part, held part or None, whether held) of every series and breakdown."""
    held_series = held.get("series") if held is not None else None
    for position, series in enumerate(recomputed["series"]):
        theirs = held_series[position] if isinstance(held_series, list) and position < len(held_series) else None
        theirs = theirs if isinstance(theirs, Mapping) else None
        yield series["series_id"], "run", series, theirs, held is not None
        for namespace, word in (("categories", "category"), ("hierarchy", "node")):
            parts = theirs.get(namespace) if theirs is not None else None
            for name, part in series[namespace].items():
                other = parts.get(name) if isinstance(parts, Mapping) else None
                yield series["series_id"], f"{word} {name}", part, other, held is not None


def _number(value: Any) -> str:
    return "-" if value is None else (f"{value:.6g}" if isinstance(value, (int, float)) else printable(str(value)))


def _table(scored: Scored, out: TextIO) -> None:
    out.write(f"{printable(str(scored.root), controls=True)}\n")
    if scored.recomputed is None:
        out.write("  not recomputed: AgentCompass 1.0.1's summary refuses its tasks\n\n")
        return
    if scored.held is None:
        out.write("  no metrics.json: the report its tasks give\n")
    out.write(f"  {'':1} {'series':<24} {'scope':<28} {'recomputed':>12} {'metrics.json':>12}  tasks\n")
    for series_id, scope, mine, theirs, held in _rows(scored.recomputed, scored.held):
        value, counts = shown_value(mine), mine["counts"]
        theirs_value = shown_value(theirs) if theirs is not None else None
        differs = held and (theirs is None or not same(value, theirs_value) or theirs.get("counts") != counts)
        file_value = _number(theirs_value) if theirs is not None else ("absent" if held else "")
        out.write(
            f"  {'!' if differs else ' '} {printable(series_id, controls=True):<24} "
            f"{printable(scope, controls=True)[:28]:<28} {_number(value):>12} {file_value:>12}  "
            f"{counts['evaluated']}/{counts['total']} evaluated\n"
        )
    for issue in scored.mismatches:
        out.write(f"  ! {printable(issue.pointer, controls=True)}: {printable(issue.message, controls=True)}\n")
    out.write("\n")
