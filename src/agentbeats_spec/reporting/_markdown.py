"""The markdown format: a job summary, read by people."""

from __future__ import annotations

import re
from collections import Counter
from typing import TextIO

from ..checking._collect import Report
from ..vocabulary._issues import Issue
from ..vocabulary._text import printable
from ._links import _uri, code_url
from ._options import DEFAULT, Options, _configuration, _counts

MARKDOWN_ISSUES = 50  # a job summary is read by people: the first issues, and the counts of all


def markdown(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """A job summary: the verdict, the files per kind, the issues per code, and the first issues (errors first)
    linked to their lines when ``options.link_base`` is given."""
    errors, warnings, notes = _counts(report)
    verdict = "invalid" if report.fails(options.strict) else "valid"
    out.write(f"### agentbeats-spec: {verdict}\n\n")
    skipped = f", {report.skipped} other file(s) skipped" if report.skipped else ""
    out.write(f"{report.checked} file(s) checked{skipped}; {errors} error(s), {warnings} warning(s), {notes} info\n")
    used = _configuration(options)
    out.write(f"\nConfiguration: {_markdown_code(used)}\n" if used is not None else "\nNo configuration file.\n")
    if report.kinds:
        out.write("\n| kind | files |\n| --- | ---: |\n")
        out.writelines(f"| {_markdown(kind)} | {count} |\n" for kind, count in report.kinds)
    if report.issues:
        codes = Counter((issue.code, issue.severity) for issue in report.issues)
        out.write("\n| code | severity | issues |\n| --- | --- | ---: |\n")
        out.writelines(
            f"| {_code_link(code)} | {severity} | {count} |\n" for (code, severity), count in sorted(codes.items())
        )
        rank = {"error": 0, "warning": 1, "info": 2}
        first = sorted(report.issues, key=lambda issue: rank[issue.severity])[:MARKDOWN_ISSUES]
        more = len(report.issues) - len(first)
        out.write(f"\n#### The first {len(first)} issue(s)\n\n" if more else "\n#### Issues\n\n")
        for issue in first:  # what comes from the files (names, quoted values) in code spans: never a link
            where = _markdown_code(_place(issue))
            link = _link(issue, options.link_base)
            place = f"[{where}]({link})" if link else where
            pointer = f" (at {_markdown_code(issue.pointer)})" if issue.pointer else ""
            out.write(f"- **{issue.severity}** `{issue.code}` {place}: {_markdown_code(issue.message)}{pointer}\n")
        if more:
            out.write(f"\n… and {more} more: see the annotations or the SARIF log.\n")


def _code_link(code: str) -> str:
    """A code, linked to its explanation where the project publishes its documentation's address (_links)."""
    link = code_url(code)
    return f"[`{code}`]({link})" if link else f"`{code}`"


def _place(issue: Issue) -> str:
    file = issue.file or "(the run)"
    return f"{file}:{issue.line}:{issue.column}" if issue.line is not None else file


def _link(issue: Issue, base: str | None) -> str | None:
    """The URL of an issue's line under ``base`` (None for a file outside the working folder)."""
    if base is None or not issue.file:
        return None
    uri = _uri(issue.file, None)
    if uri.startswith("file://"):
        return None
    return f"{base.rstrip('/')}/{uri}" + (f"#L{issue.line}" if issue.line is not None else "")


_MARKDOWN_SPECIAL = str.maketrans({character: "\\" + character for character in "\\`*_[]<>|#~&!()"})


def _markdown(text: str) -> str:
    """Text shown as itself in Markdown (and in the HTML it becomes): escaped, and every markup character too."""
    return printable(text, controls=True).translate(_MARKDOWN_SPECIAL)


def _markdown_code(text: str) -> str:
    """Text as a code span, shown as it is (escaped for the terminal's sake only): no markup, no HTML, no link, no
    autolinked URL. The span is delimited by one backtick more than the longest run of backticks in the text, so
    that nothing in it can end the span; a space pads a text that begins or ends with a backtick or a space
    (CommonMark takes one space off each side)."""
    shown = printable(text, controls=True)
    longest = max((len(run) for run in _BACKTICKS.findall(shown)), default=0)
    fence = "`" * (longest + 1)
    if shown[:1] in ("`", " ") or shown[-1:] in ("`", " ") or not shown:
        shown = f" {shown} "
    return f"{fence}{shown}{fence}"


_BACKTICKS = re.compile("`+")
