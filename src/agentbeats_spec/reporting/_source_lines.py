"""The source lines a report shows (the text format's context, SARIF's snippets), read forward through the one
opener, never a line that holds a secret."""

from __future__ import annotations

import os
from typing import TextIO

from ..checking._collect import Report
from ..reading._bounded import open_regular


class _SourceLines:
    """Source lines of one file at a time, read forward through the one opener: issues come sorted by file and
    line, so a file's lines are read once for all its issues (a thousand issues on one long line read it once)."""

    def __init__(self, hidden: frozenset[tuple[str, int]] = frozenset()) -> None:
        self.hidden = hidden  # lines never shown: they hold a secret that the messages mask
        self.file: str | None = None
        self.stream: TextIO | None = None
        self.number = 0
        self.last: str | None = None
        self.judged: tuple[int, str | None] | None = None  # the line last judged, and what of it may be shown

    def line(self, file: str, number: int) -> str | None:
        if (file, number) in self.hidden:
            return None
        if file != self.file or number < self.number or self.stream is None:
            self.close()
            self.file = file
            try:  # a file swapped for a FIFO or a link since it was checked is not read
                with open_regular(file) as descriptor:
                    self.stream = open(os.dup(descriptor), encoding="utf-8", errors="replace", newline="")  # noqa: SIM115
            except OSError:
                return None
        try:
            while self.number < number:
                self.last = next(self.stream, None)
                self.number += 1
                if self.last is None:
                    self.close()
                    return None
        except OSError:
            self.close()
            return None
        found = self.last
        if found is None:
            return None
        if self.judged is not None and self.judged[0] == number:  # a thousand issues on one long line: judged once
            return self.judged[1]
        line = found.rstrip("\r\n").lstrip("\ufeff") if number == 1 else found.rstrip("\r\n")
        from ..vocabulary._secrets import shape_matches  # lazy: only a report that shows a line compiles the patterns

        # A line holding a credential shape is never shown either, with or without the scan: messages mask it.
        self.judged = (number, None if shape_matches(line) else line)
        return self.judged[1]

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
        self.file, self.stream, self.number, self.last, self.judged = None, None, 0, None, None


def _secret_lines(report: Report) -> frozenset[tuple[str, int]]:
    """The lines that hold a secret found by the scan: no issue shows them, whatever its code."""
    return frozenset(
        (issue.file, issue.line)
        for issue in report.issues
        if issue.code == "security.secret" and issue.file is not None and issue.line is not None
    )
