"""The github format: GitHub Actions workflow commands, each issue an annotation on the pull request."""

from __future__ import annotations

from typing import TextIO

from ..checking._collect import Report
from ..vocabulary._issues import Issue
from ..vocabulary._text import printable
from ._options import DEFAULT, Options, _counts


def github(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """GitHub Actions workflow commands: each issue shows inline on the pull request."""
    for issue in report.issues:
        out.write(github_line(issue) + "\n")
    github_summary(report, out)


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
