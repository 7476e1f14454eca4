"""Deciding on worker processes lists a tree once, not twice: a sample of its units is sized, and the batches sent
to the workers are cut by the sample's mean size."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec.application._tree_check import check_paths, plan
from agentbeats_spec.units import _cache, _running

from ..conftest import VALID


def runs(tmp_path: Path, count: int) -> list[Path]:
    copies = []
    for number in range(count):
        copies.append(tmp_path / f"run{number}")
        shutil.copytree(VALID / "agentcompass-run", copies[-1])
    return copies


@pytest.fixture
def sized(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = _cache.size_below

    def size_below(path: Path) -> int:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(_cache, "size_below", size_below)
    return calls


def test_a_tree_far_below_the_threshold_sizes_only_a_sample_of_its_units(
    tmp_path: Path, sized: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_running, "SIZE_SAMPLE", 4)
    trees = runs(tmp_path, 6)
    units = plan(trees).units
    assert len(units) > 4 * 4
    assert check_paths(trees, jobs=2) == check_paths(trees, jobs=1)
    step = len(units) // 4
    assert len(sized) == len(units[::step])  # the sample alone: the tree is not listed a second time


def test_a_tree_the_sample_puts_at_the_threshold_goes_to_workers_without_being_sized_whole(
    tmp_path: Path, sized: list[Path], monkeypatch: pytest.MonkeyPatch, submitted: list[Any]
) -> None:
    trees = runs(tmp_path, 2)
    units = plan(trees).units
    monkeypatch.setattr(_running, "SIZE_SAMPLE", len(units))  # the sample is every unit: it promises the whole size
    whole = sum(_cache.size_below(unit.path) for unit in units)
    sized.clear()
    # One byte more than the tree holds: the sample says "below", nothing more is sized and no worker starts.
    monkeypatch.setattr(_running, "WORKERS_GAIN_BYTES", whole + 1)
    assert check_paths(trees, jobs=2) == check_paths(trees, jobs=1)
    assert len(sized) == len(units)  # the sample alone
    assert submitted == []
    sized.clear()
    monkeypatch.setattr(_running, "WORKERS_GAIN_BYTES", whole)
    assert check_paths(trees, jobs=2) == check_paths(trees, jobs=1)
    assert len(sized) == len(units)  # the sample alone, here every unit once: never a second listing
    assert submitted != []
