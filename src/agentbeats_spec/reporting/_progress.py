"""The progress bar of a long check (files done and files per second) and the status line of a watch, on a
terminal's stderr."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO


class Progress:
    """A bar with files per second on a terminal's stderr, for trees of more than a few hundred files."""

    THRESHOLD = 300

    def __init__(self, stream: TextIO, total: int, unit: str = "files") -> None:
        self.stream = stream
        self.total = total
        self.unit = unit
        self.started = time.monotonic()
        self.shown = 0.0

    @classmethod
    def for_terminal(cls, stream: TextIO, paths: Iterable[Path]) -> Progress | None:
        if not stream.isatty():
            return None
        total = sum(len(files) for path in paths if path.is_dir() for _, _, files in os.walk(path))
        return cls(stream, total) if total > cls.THRESHOLD else None

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if now - self.shown < 0.2 and done < self.total:
            return
        self.shown = now
        rate = done / max(now - self.started, 1e-6)
        filled = int(30 * min(done / max(self.total, 1), 1))
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{self.total} {self.unit}, {rate:,.0f} {self.unit}/s"
        )
        self.stream.flush()

    def clear(self) -> None:
        """Take the bar off the line, so that other output can be written there; the next call draws it again."""
        self.stream.write("\r" + " " * 78 + "\r")
        self.stream.flush()
        self.shown = 0.0

    def close(self) -> None:
        self.clear()


class StatusLine:
    """One line of status on a terminal's stderr, redrawn in place (cut to the terminal's width); cleared before
    anything else is written to the terminal, and drawn again after."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.text = ""

    @classmethod
    def for_terminal(cls, stream: TextIO) -> StatusLine | None:
        """A status line on ``stream`` when it is a terminal (None otherwise: a log shows no redrawn line)."""
        return cls(stream) if stream.isatty() else None

    def show(self, text: str) -> None:
        width = max(shutil.get_terminal_size().columns - 1, 10)
        self.text = text[:width]
        self.redraw()

    def redraw(self) -> None:
        if self.text:
            self.stream.write(f"\r{self.text}\x1b[K")
            self.stream.flush()

    def clear(self) -> None:
        if self.text:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
