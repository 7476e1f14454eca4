"""Reporters: a Report -> text for people, JSON for programs."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import TextIO

from ._core import Report
from ._issues import Issue

CONTEXT_WIDTH = 100


def text(report: Report, out: TextIO, *, context: bool = True, strict: bool = False) -> None:
    for issue in report.issues:
        where = issue.file or "<document>"
        if issue.line is not None:
            where = f"{where}:{issue.line}:{issue.column}"
        out.write(f"{where}: {issue.severity} {issue.code} {issue.message}\n")
        if context:
            out.writelines(_context(issue))
    errors = sum(issue.severity == "error" for issue in report.issues)
    warnings = len(report.issues) - errors
    verdict = "valid" if _valid(report, strict) else "invalid"
    skipped = f", {report.skipped} other file(s) skipped" if report.skipped else ""
    out.write(f"{verdict}: {report.checked} file(s) checked{skipped}; {errors} error(s), {warnings} warning(s)\n")


def _context(issue: Issue) -> Iterator[str]:
    """The offending source line with a caret under the column, as compilers show it."""
    if issue.pointer:
        yield f"    at {issue.pointer}\n"
    if issue.file is None or issue.line is None or issue.column is None:
        return
    line = _source_line(issue.file, issue.line)
    if line is None:
        return
    column = issue.column - 1
    start = max(0, min(column - CONTEXT_WIDTH // 2, len(line) - CONTEXT_WIDTH))
    shown = line[start : start + CONTEXT_WIDTH].replace("\t", " ")
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + CONTEXT_WIDTH < len(line) else ""
    number = str(issue.line)
    pad = " " * len(number)
    yield f"    {pad} |\n"
    yield f"    {number} | {prefix}{shown}{suffix}\n"
    yield f"    {pad} | {' ' * (len(prefix) + column - start)}^\n"


def _source_line(file: str, number: int) -> str | None:
    try:
        with open(file, encoding="utf-8", errors="replace", newline="") as stream:
            lines = (line for line in stream)
            found = next(itertools.islice(lines, number - 1, None), None)
    except OSError:
        return None
    if found is None:
        return None
    return found.rstrip("\r\n").lstrip("\ufeff") if number == 1 else found.rstrip("\r\n")


def json_report(report: Report, out: TextIO, *, strict: bool = False) -> None:
    document = {
        "valid": _valid(report, strict),
        "checked": report.checked,
        "issues": [issue.as_dict() for issue in report.issues],
    }
    json.dump(document, out, ensure_ascii=False, indent=2)
    out.write("\n")


def _valid(report: Report, strict: bool) -> bool:
    if strict:
        return not report.issues
    return report.valid
