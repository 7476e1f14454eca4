"""The text format, for people: one line per issue with its source line, then the verdict and the counts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import TextIO

from ..checking._collect import Report
from ..vocabulary._issues import Issue
from ..vocabulary._text import printable
from ._options import DEFAULT, Options, _counts
from ._source_lines import _secret_lines, _SourceLines

CONTEXT_WIDTH = 100


def text(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """One line per issue (info only with ``show_info``), or per finding repeated in many files (unless
    ``options.group`` is false), then the verdict and the counts."""
    shown = [issue for issue in report.issues if options.show_info or issue.severity != "info"]
    fails = report.fails(options.strict)
    if options.quiet and not fails:
        return
    sources = _SourceLines(_secret_lines(report))
    for group in [] if options.quiet else _grouped(shown) if options.group else [[issue] for issue in shown]:
        first = group[0]
        heading = _colored_heading(first) if options.color else first.heading()
        if len(group) > 1:
            heading += f" ({_how_many(group)})"
        out.write(heading + "\n")
        if len(group) > 1:
            out.write(_elsewhere(group))
        if options.context:
            out.writelines(_context(first, sources))
    sources.close()
    text_summary(report, out, options)


# A finding in more files than a grouped line names is one line: the files it names, then how many more.
NAMED = 3


def _grouped(issues: list[Issue]) -> list[list[Issue]]:
    """The issues in their order, each finding (severity, code, pointer and message) found in more than
    :data:`NAMED` files as one group, where its first stood; the rest each alone."""
    findings: dict[tuple[str, str, str, str], list[Issue]] = {}
    for issue in issues:
        findings.setdefault(_finding(issue), []).append(issue)
    many = {finding for finding, group in findings.items() if len({issue.file for issue in group}) > NAMED}
    groups = []
    for issue in issues:
        finding = _finding(issue)
        if finding not in many:
            groups.append([issue])
        elif findings[finding][0] is issue:
            groups.append(findings[finding])
    return groups


def _finding(issue: Issue) -> tuple[str, str, str, str]:
    """What makes two issues of two files the same finding."""
    return issue.severity, issue.code, issue.pointer, issue.message


def _how_many(group: list[Issue]) -> str:
    files = len({issue.file for issue in group})
    return f"in {files} files" if files == len(group) else f"{len(group)} times in {files} files"


def _elsewhere(group: list[Issue]) -> str:
    """The line under a grouped finding: the next files it is in, how many more, and how to list them all."""
    places = ", ".join(_place(issue) for issue in group[1:NAMED])
    more = len(group) - NAMED
    rest = f" and {more} more (--no-group lists each, as --format json does)" if more > 0 else ""
    return f"    also in {places}{rest}\n"


def _place(issue: Issue) -> str:
    """Where an issue is, as its heading says it: ``file:line:column``, escaped."""
    where = issue.file or "<document>"
    if issue.line is not None:
        where = f"{where}:{issue.line}:{issue.column}"
    return printable(where, controls=True, path=True)


def text_summary(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """The verdict and the counts that end the text format."""
    shown = [issue for issue in report.issues if options.show_info or issue.severity != "info"]
    fails = report.fails(options.strict)
    paint = _paint if options.color else _plain
    errors, warnings, notes = _counts(report)
    verdict = paint("invalid", _COLORS["error"]) if fails else paint("valid", _COLORS["valid"])
    skipped = f", {report.skipped} other file(s) skipped" if report.skipped else ""
    hidden = " (shown with --show-info)" if notes and not options.show_info else ""
    info = f", {notes} info{hidden}" if notes else ""
    out.write(f"{verdict}: {report.checked} file(s) checked{skipped}; {errors} error(s), {warnings} warning(s){info}\n")
    if len(report.kinds) > 1:
        out.write("  files: " + ", ".join(f"{kind} {count}" for kind, count in report.kinds) + "\n")
    if shown:
        codes = Counter(issue.code for issue in shown)
        out.write("  issues: " + ", ".join(f"{code} {count}" for code, count in sorted(codes.items())) + "\n")


_COLORS = {"error": "1;31", "warning": "33", "info": "36", "code": "1", "valid": "32"}


def _paint(text: str, color: str) -> str:
    return f"\x1b[{color}m{text}\x1b[0m"


def _plain(text: str, color: str) -> str:
    return text


def _colored_heading(issue: Issue) -> str:
    """The issue's line with its severity and code coloured (the rest is escaped as ever: no colour of a file)."""
    heading = issue.heading()
    middle = f": {issue.severity} {issue.code} "
    where = heading.find(middle)
    if where < 0:
        return heading
    severity = _paint(issue.severity, _COLORS[issue.severity])
    code = _paint(issue.code, _COLORS["code"])
    return f"{heading[:where]}: {severity} {code} {heading[where + len(middle) :]}"


def _context(issue: Issue, sources: _SourceLines) -> Iterator[str]:
    """The offending source line with a caret under the column, as compilers show it."""
    if issue.pointer:
        yield f"    at {printable(issue.pointer, controls=True)}\n"
    if issue.file is None or issue.line is None or issue.column is None:
        return
    line = sources.line(issue.file, issue.line)
    if line is None:
        return
    column = issue.column - 1
    start = max(0, min(column - CONTEXT_WIDTH // 2, len(line) - CONTEXT_WIDTH))
    # Control characters of the file are shown escaped: they must not drive the terminal
    before = printable(line[start:column].replace("\t", " "), controls=True)
    after = printable(line[column : start + CONTEXT_WIDTH].replace("\t", " "), controls=True)
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + CONTEXT_WIDTH < len(line) else ""
    number = str(issue.line)
    pad = " " * len(number)
    yield f"    {pad} |\n"
    yield f"    {number} | {prefix}{before}{after}{suffix}\n"
    yield f"    {pad} | {' ' * (len(prefix) + len(before))}^\n"
