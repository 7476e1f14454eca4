"""The one table of output formats: each format's name, what it is for, the commands that offer it, and (for a
whole report) its reporter. Every printing command draws its ``--format`` (export: ``--to``) choices from here,
in this order; the README's lists of formats are tested against it (``tests/output/test_formats.py``).

Reporters only format: what a report means (whether it fails, which L1 check an issue belongs to) is decided
before they are called. A new output format is a function of the :data:`Reporter` shape in a module of its own
and its entry in :data:`FORMATS`.
"""

from __future__ import annotations

import attrs

from ._github import github
from ._json import json_report
from ._junit import junit
from ._markdown import markdown
from ._options import Reporter
from ._sarif import sarif
from ._text import text

# The commands that print a whole report (validate's --format and --output, and scan's and check-l1's).
REPORTING = ("validate", "scan", "check-l1")


@attrs.frozen
class Format:
    """An output format: what it is for (the ``--format`` help of the reporting commands), the commands that offer
    it, and its reporter where it prints a whole report (None: the command that offers it writes it itself, as
    watch writes an issue a line and convert its loss report)."""

    purpose: str
    commands: tuple[str, ...]
    write: Reporter | None = None


FORMATS: dict[str, Format] = {
    "text": Format("for people", (*REPORTING, "watch", "convert", "score"), text),
    "json": Format("for programs", (*REPORTING, "convert", "score"), json_report),
    "github": Format("for workflow annotations", (*REPORTING, "watch"), github),
    "sarif": Format("for code scanning", REPORTING, sarif),
    "junit": Format("for CI test reports (JUnit XML)", REPORTING, junit),
    "markdown": Format("for a job summary", REPORTING, markdown),
    "parquet": Format("for a table (Apache Parquet row groups)", ("export",)),
    "csv": Format("for a spreadsheet", ("export",)),
    "jsonl": Format("one JSON object a line (watch: an issue, export: a row)", ("watch", "export")),
}

# The formats of a whole report: the choices of --format and --output of the reporting commands.
REPORTERS: dict[str, Reporter] = {name: format_.write for name, format_ in FORMATS.items() if format_.write is not None}


def offered(command: str) -> tuple[str, ...]:
    """The formats a command offers, in the table's order."""
    return tuple(name for name, format_ in FORMATS.items() if command in format_.commands)


def purposes(command: str) -> str:
    """The formats a command offers, each with what it is for: the help of its --format."""
    return ", ".join(f"{name} {FORMATS[name].purpose}" for name in offered(command))
