"""The github format: GitHub Actions workflow commands, each issue an annotation on the pull request."""

from __future__ import annotations

from collections import Counter
from typing import TextIO

from ..checking._collect import Report
from ..vocabulary._codes import Severity
from ..vocabulary._issues import Issue
from ..vocabulary._text import printable
from ._options import DEFAULT, Options, _counts

# Annotations of one code beyond these are counted, not written (unless options.group is false): GitHub shows at
# most 10 error and 10 warning annotations of a step, so 6,000 of one mistake would hide every other code.
CAP = 10


def github(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """GitHub Actions workflow commands: each issue shows inline on the pull request; past :data:`CAP` of a code
    (``options.group``), one notice says how many more there are and where to find them."""
    written: Counter[str] = Counter()
    left: dict[str, Counter[Severity]] = {}
    for issue in report.issues:
        if options.group and written[issue.code] >= CAP:
            left.setdefault(issue.code, Counter())[issue.severity] += 1
            continue
        written[issue.code] += 1
        out.write(github_line(issue) + "\n")
    for code, severities in left.items():
        out.write(_more_line(code, severities) + "\n")
    github_summary(report, out)


def _more_line(code: str, severities: Counter[Severity]) -> str:
    """The notice that stands for the annotations of a code past :data:`CAP`."""
    counted = ", ".join(f"{count} {severity}(s)" for severity, count in sorted(severities.items()))
    message = (
        f"{sum(severities.values())} more {code} issue(s) not annotated ({counted}): --no-group annotates each, "
        "and --format json, sarif or junit lists each"
    )
    return f"::notice title={_escape_property(code)}::{_escape_data(message)}"


def github_line(issue: Issue, fixed: bool = False) -> str:
    """One issue as a GitHub workflow command; ``fixed``: a notice that a later write fixed it."""
    properties = [f"file={_escape_property(issue.file or '')}"]
    if issue.line is not None:
        properties += [f"line={issue.line}", f"col={issue.column}"]
    properties.append(f"title={_escape_property(issue.code)}")
    where = f" (at {issue.pointer})" if issue.pointer else ""
    command = "notice" if fixed else _GITHUB_COMMANDS[issue.severity]
    return f"::{command} {','.join(properties)}::{_escape_data(('fixed: ' if fixed else '') + issue.message + where)}"


def github_summary(report: Report, out: TextIO) -> None:
    """The counts that end the github format."""
    errors, warnings, notes = _counts(report)
    info = f", {notes} info" if notes else ""
    out.write(f"{report.checked} file(s) checked; {errors} error(s), {warnings} warning(s){info}\n")


_GITHUB_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF as the runner decodes them (``%25``, ``%0D``, ``%0A``), then
    every other control character (and a name that is not UTF-8) escaped, so that nothing drives the log."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"), controls=True)


def _escape_property(text: str) -> str:
    """A workflow command's property (a file name, a title): as a message, and ``:`` and ``,`` too."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
