"""Fixtures of the layout tests."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest


@pytest.fixture
def submitted(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The arguments of every batch sent to a worker process, in order (the calls go through as usual)."""
    calls: list[Any] = []
    real = ProcessPoolExecutor.submit

    def submit(self: ProcessPoolExecutor, *arguments: Any) -> Any:
        calls.append(arguments)
        return real(self, *arguments)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", submit)
    return calls
