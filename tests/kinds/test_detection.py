"""A file's kind from its path: the first kind of the table whose glob matches the path's last components."""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from hypothesis import given
from hypothesis import strategies as st

from agentbeats_spec.checking._kinds import KINDS, Kind, from_path, run_root_kind
from agentbeats_spec.layouts import kind_by_place

# Names that the table's globs name or nearly name, and the run-root names (which the path alone never gives a
# kind: whether their folder is a run root is planning's to tell, layouts._layout.kind_by_place).
NAMES = [
    "attempt-1", "attempt-", "attempt", "retries", "retry", "result.json", "results.json", "task.json",
    "t.task-detail.json", "task-detail.json", ".task-detail.json", "other.json", "run_info.json", "progress.jsonl",
    "case.json", "verify.case.json", "agentbeats.toml", "analysis_summary.json", "details", "x",
    "params.json", "metrics.json", "progress.json",
]  # fmt: skip


def by_definition(path: PurePosixPath) -> Kind | None:
    """The table read literally: one glob per component, ``*`` never crossing a ``/``."""
    for kind in KINDS.values():
        for pattern in kind.file_match:
            globs = pattern.split("/")
            names = path.parts[-len(globs) :]
            if len(names) == len(globs) and all(map(fnmatchcase, names, globs)):
                return kind
    return None


@given(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5))
def test_detection_by_path_is_the_table_read_literally(components: list[str]) -> None:
    path = PurePosixPath("/", *components)
    assert from_path(path) == by_definition(path)


def test_detection_by_path_examples() -> None:
    assert from_path(PurePosixPath("run/details/normal/t--ab/attempt-2/result.json")) == KINDS["agentcompass-attempt"]
    assert from_path(PurePosixPath("run/attempt-2/retries/1.json")) == KINDS["agentcompass-retry"]
    assert from_path(PurePosixPath("out/t1.task-detail.json")) == KINDS["agentcompass-task-detail"]
    assert from_path(PurePosixPath("attempt-2/result.json/other.json")) is None
    assert from_path(PurePosixPath("notes.json")) is None


def test_a_run_root_name_is_a_kind_by_its_place_only(tmp_path: Path) -> None:
    """``params.json`` is the run parameters at the root of an AgentCompass run (run_info.json or details/ in it)
    and nothing elsewhere: the path alone never says so, the walk that sees the folder does."""
    (tmp_path / "run" / "details").mkdir(parents=True)
    (tmp_path / "notes").mkdir()
    assert from_path(tmp_path / "run" / "params.json") is None
    assert run_root_kind("params.json") == KINDS["agentcompass-params"]
    assert run_root_kind("notes.json") is None
    assert kind_by_place(tmp_path / "run" / "params.json") == KINDS["agentcompass-params"]
    assert kind_by_place(tmp_path / "notes" / "params.json") is None
