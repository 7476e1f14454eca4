"""JSON Lines: every line one document, read and checked as its kind on its own; issues keep the line's number.

Any kind whose ``syntax`` is ``"jsonl"`` is read here. Each line goes the one path (bytes -> document -> schema ->
rules) of a JSON file; an issue's pointer is within that line's record, its line the line's number in the file.
A last line cut short (a writer killed mid-line) is a warning; any other broken line is an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._issues import Finding
from ..reading import _documents
from ..reading._documents import Document

if TYPE_CHECKING:
    from ._examine import Examined
    from ._kinds import Kind


def examine(raw: bytes, kind: Kind | None, file: str | None) -> Examined:
    from ._examine import Examined, unread_file
    from ._examine import examine as examine_one

    if kind is None:
        unknown = Finding("", "schema.unknown-kind", "cannot tell what kind of records these lines hold; pass --kind")
        return unread_file(unknown, "jsonl", None, file)
    findings: list[Finding] = []
    records = []
    lines = raw.split(b"\n")
    ends_with_newline = lines[-1] == b""
    if ends_with_newline:
        lines.pop()  # what follows the final newline is not a line
    if not lines:
        # Real: an empty file's first character is where its first record should be.
        findings.append(Finding("", "json.empty", "the file is empty: no line holds a record", "warning", line=1,
                                column=1))  # fmt: skip
    for index, line in enumerate(lines):
        number = index + 1
        last = index == len(lines) - 1
        if not line.strip():
            findings.append(  # real: the blank line's first character
                Finding("", "jsonl.blank-line", "a blank line; each line holds one record", "warning", line=number,
                        column=1)
            )  # fmt: skip
            continue
        document = _documents.read(line, "json")
        if not document.readable and last and not ends_with_newline:
            findings.append(
                Finding(
                    "",
                    "jsonl.torn-line",
                    "the last line is cut short without its newline (a writer stopped mid-line); its record is lost",
                    "warning",
                    line=number,  # real: the torn line's first character
                    column=1,
                )
            )
            continue
        examined = examine_one(document, kind, file)
        if document.readable:
            records.append(document.data)
            if last and not ends_with_newline:
                findings.append(
                    Finding(
                        "",
                        "jsonl.no-final-newline",
                        "the last line has no newline: the next record appended would join it on one line",
                        "warning",
                        line=number,
                        column=len(line.decode("utf-8", "replace")) + 1,
                    )
                )
        for issue in examined.issues:
            # Real, not invented: a record is its line, so an issue of the record with no place in it is the line's.
            at, column = (number + issue.line - 1, issue.column) if issue.line is not None else (number, 1)
            findings.append(Finding(issue.pointer, issue.code, issue.message, issue.severity, line=at, column=column))
    return Examined(Document(records, None, "jsonl", ()), kind, tuple(findings), file)
