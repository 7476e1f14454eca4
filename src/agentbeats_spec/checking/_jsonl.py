"""JSON Lines: every line one document, read and checked as its kind on its own; issues keep the line's number.

Any kind whose ``syntax`` is ``"jsonl"`` is read here. Each line goes the one path (bytes -> document -> schema ->
rules) of a JSON file; an issue's pointer is within that line's record, its line the line's number in the file.
A last line cut short (a writer killed mid-line) is a warning; any other broken line is an error. A line that starts
with a byte order mark is said to (``json.bom``, at the line) and its record is still read and checked: an error
unless the kind says a departure is tolerated (``Kind.tolerated``: no reader reads the file back).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import attrs

from ..reading import _documents
from ..reading._documents import Document
from ..vocabulary._codes import Severity
from ..vocabulary._issues import Finding
from ..vocabulary._settings import current
from ._examine import Examined, Kept, Overflow, count, places, truncation, unread_file
from ._examine import examine as examine_one
from ._kinds import Kind


def lines(raw: bytes) -> Iterator[tuple[int, bytes, bool]]:
    """(number, line, last) of every line, one at a time (no list of them all); what follows the final newline is
    no line."""
    start, number, size = 0, 1, len(raw)
    while start < size:
        end = raw.find(b"\n", start)
        stop = size if end == -1 else end
        yield number, raw[start:stop], end == -1 or end + 1 == size
        start, number = stop + 1, number + 1


def records(document: Document) -> list[Any]:
    """The records of a JSON Lines document that has no error, read again (a check keeps none of them: its memory
    does not grow with the number of lines)."""
    assert isinstance(document.source, bytes)
    return [_documents.read(line, "json").data for _, line, _ in lines(document.source) if line.strip()]


def examine(raw: bytes, kind: Kind | None, file: str | None) -> Examined:
    """Every line checked as a record of ``kind``, streamed: the first ``--max-issues`` issues are kept (each line's
    own, placed in that line); past them the lines are still checked, their issues counted and never kept."""
    if kind is None:
        unknown = Finding("", "schema.unknown-kind", "cannot tell what kind of records these lines hold; pass --kind")
        return unread_file(unknown, "jsonl", None, file)
    kept = Kept()
    ends_with_newline = raw.endswith(b"\n")
    if not raw:
        # Real: an empty file's first character is where its first record should be.
        kept.take([Finding("", "json.empty", "the file is empty: no line holds a record", "warning", line=1,
                           column=1)])  # fmt: skip
    for number, line, last in lines(raw):
        if not line.strip():
            kept.take([  # real: the blank line's first character
                Finding("", "jsonl.blank-line", "a blank line; each line holds one record", "warning", line=number,
                        column=1)
            ])  # fmt: skip
            continue
        bom = line.startswith(_BOM)
        if bom:
            kept.take([_bom(kind, number)])
            line = line[len(_BOM) :]
        document = _documents.read(line, "json")
        if not document.readable and last and not ends_with_newline:
            kept.take([
                Finding(
                    "",
                    "jsonl.torn-line",
                    "the last line is cut short without its newline (a writer stopped mid-line); its record is lost",
                    "warning",
                    line=number,  # real: the torn line's first character
                    column=1,
                )
            ])  # fmt: skip
            continue
        if document.readable and last and not ends_with_newline:
            kept.take([
                Finding(
                    "",
                    "jsonl.no-final-newline",
                    "the last line has no newline: the next record appended would join it on one line",
                    "warning",
                    line=number,
                    column=len(line.decode("utf-8", "replace")) + 1 + bom,
                )
            ])  # fmt: skip
        if kept.full():  # past the limit: the line is still judged, its issues only counted
            kept.overflow += examine_one(document, kind, file, Kept(0)).overflow
            continue
        kept.take(_record(document, kind, file, number, shift=1 if bom else 0))
    return Examined(Document(None, raw, "jsonl", ()), kind, tuple(kept.findings), file, kept.overflow)


_BOM = b"\xef\xbb\xbf"


def _bom(kind: Kind, number: int) -> Finding:
    """A line that starts with a byte order mark: every reader that parses a line with Python's json or JavaScript's
    JSON.parse refuses that line, so it is an error where a reader reads the file back (the kind tolerates no
    departure), else a warning that says which reader tolerates it."""
    where = "the file starts" if number == 1 else f"line {number} starts"
    message = f"{where} with a byte order mark (U+FEFF), which Python's json and JavaScript's JSON.parse refuse"
    if kind.tolerated is None:
        return Finding("", "json.bom", f"{message}; save the file as UTF-8 without it", line=number, column=1)
    return Finding("", "json.bom", f"{message}, but {kind.tolerated('')}; the writer writes none", "warning",
                   line=number, column=1)  # fmt: skip


def _record(document: Document, kind: Kind, file: str | None, number: int, shift: int = 0) -> list[Finding]:
    """The findings of the record on line ``number``, placed in the file once, in the line's order: the first
    ``--max-issues`` of them by place, then one counting the rest.

    Each is placed through the map of (line, pointer): the record's own document places the pointer in its line
    (line 1 of the record is line ``number`` of the file; ``shift``: the characters before the record on its line,
    a byte order mark). Real, not invented: a record is its line, so a finding of the record with no place in it
    (the count of those left out) is the line's.
    """
    examined = examine_one(document, kind, file)
    if not examined.findings:
        return []
    findings = list(examined.findings)
    located = sorted(
        zip(places(document, findings), findings, strict=True),
        key=lambda item: (item[0][0] or 0, item[0][1] or 0, item[1].pointer, item[1].code),
    )
    limit = current().limits.max_issues
    placed = [
        attrs.evolve(finding, line=number + line - 1, column=column + shift if line == 1 and column else column)
        if line is not None
        else _on_line(finding, number)
        for (line, column), finding in located[:limit]
    ]
    counts: Counter[tuple[str, Severity]] = Counter()
    for _, cut in located[limit:]:
        count(counts, cut)
    overflow = examined.overflow + Overflow.of(counts)
    if overflow.groups:
        placed.append(_on_line(truncation(overflow), number))
    return sorted(placed, key=lambda f: (f.line or 0, f.column or 0, f.pointer, f.code))


def _on_line(finding: Finding, number: int) -> Finding:
    return attrs.evolve(finding, line=number, column=1)
