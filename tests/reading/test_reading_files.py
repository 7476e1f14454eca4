"""Files are read with one read sized from fstat, never past the size limit, even when they grow meanwhile."""

from __future__ import annotations

import os
import stat
import types
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec.reading import _bounded
from agentbeats_spec.reading._bounded import read_bounded
from agentbeats_spec.vocabulary._settings import Limits, Settings, applied


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size asked of every read() call."""
    asked: list[int] = []
    real = os.read

    def read(descriptor: int, size: int) -> bytes:
        asked.append(size)
        return real(descriptor, size)

    monkeypatch.setattr(_bounded.os, "read", read)
    return asked


def pretend_fstat_says(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    """As if the file had ``size`` bytes when fstat looked, and grew before it was read."""
    info = types.SimpleNamespace(st_size=size, st_mode=stat.S_IFREG)
    monkeypatch.setattr(_bounded.os, "fstat", lambda descriptor: info)


def test_a_file_is_read_in_one_call_sized_from_fstat(tmp_path: Path, reads: list[int]) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(b'{"status": "ok"}')
    assert read_bounded(path) == (b'{"status": "ok"}', None)
    # One byte more than fstat said (which would show growth), then the end of the file: never the 4 GiB limit.
    assert reads == [17, 1]


def test_a_file_that_grew_after_fstat_is_read_to_its_end(tmp_path: Path, reads: list[int], monkeypatch: Any) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(b"x" * 100)
    pretend_fstat_says(monkeypatch, 10)
    with applied(Settings(Limits(max_file_size=1000))):
        assert read_bounded(path) == (b"x" * 100, None)
    assert reads[0] == 11
    assert max(reads) <= 1001


def test_a_file_that_grew_past_the_limit_is_never_read_past_it(
    tmp_path: Path, reads: list[int], monkeypatch: Any
) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(b"x" * 50_000)
    pretend_fstat_says(monkeypatch, 10)
    with applied(Settings(Limits(max_file_size=1000))):
        raw, problem = read_bounded(path)
    assert raw == b""
    assert problem is not None and problem.code == "io.too-large"
    assert "grew beyond the limit of 1000 bytes" in problem.message
    assert sum(reads) == 1001  # one byte past the limit tells, and no more is asked


def test_a_file_that_shrank_after_fstat_is_read_as_it_is(tmp_path: Path, reads: list[int], monkeypatch: Any) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(b"[1]")
    pretend_fstat_says(monkeypatch, 500)
    assert read_bounded(path) == (b"[1]", None)
    assert reads == [501, 498]
