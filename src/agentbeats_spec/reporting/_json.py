"""The json format, for programs: one object for a report; and one issue as a line of JSON (watch's jsonl)."""

from __future__ import annotations

import json
from typing import TextIO

from ..checking._collect import Report
from ..vocabulary._issues import Issue
from ..vocabulary._text import json_text, printable
from ._options import DEFAULT, Options, _configuration


def json_report(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """One object: ``valid`` (whether the report passes), ``checked``, every issue, and the ``configuration``
    file the run used (null: none)."""
    document = {
        "valid": not report.fails(options.strict),
        "checked": report.checked,
        "issues": [_printable_dict(issue) for issue in report.issues],
        "configuration": _configuration(options),
    }
    out.write(json_text(json.dumps(document, ensure_ascii=False, indent=2)) + "\n")


def jsonl_line(issue: Issue, **extra: bool) -> str:
    """One issue as one line of JSON (``extra``: members added to it, as ``fixed=True``)."""
    return json_text(json.dumps({**_printable_dict(issue), **extra}, ensure_ascii=False))


def _printable_dict(issue: Issue) -> dict[str, str | int | None]:
    """The issue's JSON form with every string valid UTF-8 (names that are not UTF-8, lone surrogates escaped)."""
    return {name: printable(value) if isinstance(value, str) else value for name, value in issue.as_dict().items()}
