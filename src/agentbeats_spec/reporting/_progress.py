"""The progress bar of a long check: files done and files per second, on a terminal's stderr."""

from __future__ import annotations

import os
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

    def close(self) -> None:
        self.stream.write("\r" + " " * 78 + "\r")
        self.stream.flush()
