"""The one table of output formats: each format's name, what it is for, the commands that offer it, and (for a
whole report) its reporter. Every printing command draws its ``--format`` (export: ``--to``) choices from here,
in this order; the README's lists of formats are tested against it (``tests/output/test_formats.py``).

Reporters only format: what a report means (whether it fails, which L1 check an issue belongs to) is decided
before they are called. A new output format is a function of the :data:`Reporter` shape in a module of its own
and its entry in :data:`FORMATS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

import attrs

from ._options import Reporter

# The commands that print a whole report (validate's --format and --output, and scan's and check-l1's).
REPORTING = ("validate", "scan", "check-l1")


@attrs.frozen
class Format:
    """An output format: what it is for (the ``--format`` help of the reporting commands), the commands that offer
    it, and its reporter where it prints a whole report (None: the command that offers it writes it itself, as
    watch writes an issue a line and convert its loss report). The reporter is named (``module:function`` of
    this folder) and imported when it is used: a check that prints text does not pay for loading the other five.
    """

    purpose: str
    commands: tuple[str, ...]
    reporter: str | None = None

    @property
    def write(self) -> Reporter | None:
        if self.reporter is None:
            return None
        module, function = self.reporter.split(":")
        written: Reporter = getattr(importlib.import_module(f"{__package__}.{module}"), function)
        return written


FORMATS: dict[str, Format] = {
    "text": Format("for people", (*REPORTING, "watch", "convert", "score"), "_text:text"),
    "json": Format("for programs", (*REPORTING, "convert", "score"), "_json:json_report"),
    "github": Format("for workflow annotations", (*REPORTING, "watch"), "_github:github"),
    "sarif": Format("for code scanning", REPORTING, "_sarif:sarif"),
    "junit": Format("for CI test reports (JUnit XML)", REPORTING, "_junit:junit"),
    "markdown": Format("for a job summary", REPORTING, "_markdown:markdown"),
    "parquet": Format("for a table (Apache Parquet row groups)", ("export",)),
    "csv": Format("for a spreadsheet", ("export",)),
    "jsonl": Format("one JSON object a line (watch: an issue, export: a row)", ("watch", "export")),
}


class _Reporters(Mapping[str, Reporter]):
    """The formats of a whole report, by name, each reporter imported when it is looked up."""

    def __getitem__(self, name: str) -> Reporter:
        written = FORMATS[name].write
        if written is None:
            raise KeyError(name)
        return written

    def __iter__(self) -> Iterator[str]:
        return (name for name, format_ in FORMATS.items() if format_.reporter is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


# The formats of a whole report: the choices of --format and --output of the reporting commands.
REPORTERS: Mapping[str, Reporter] = _Reporters()


def offered(command: str) -> tuple[str, ...]:
    """The formats a command offers, in the table's order."""
    return tuple(name for name, format_ in FORMATS.items() if command in format_.commands)


def purposes(command: str) -> str:
    """The formats a command offers, each with what it is for: the help of its --format."""
    return ", ".join(f"{name} {FORMATS[name].purpose}" for name in offered(command))
