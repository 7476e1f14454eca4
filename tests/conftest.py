from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import agentbeats_spec
from agentbeats_spec import Issue

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
VALID = FIXTURES / "valid"
TASK_DIR = next((VALID / "agentcompass-run" / "details" / "error").iterdir())


@pytest.fixture(autouse=True, scope="session")
def _own_cache_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The command's default verdict cache goes to a folder of the test session, not the user's."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))


@pytest.fixture(autouse=True, scope="session")
def _fixture_modes() -> None:
    """The valid run's collected artifact carries its collector's sha256, which holds its permission bits: a
    checkout under a umask other than 022 gives it other bits (as `make validate` sets them back too)."""
    for path in (VALID / "agentcompass-run").rglob("artifacts/**/*"):
        if path.is_file() and not path.is_symlink():
            path.chmod(0o644)


def collector_evidence(path: Path) -> dict[str, Any]:
    """What the AgentCompass 1.0.1 collector records of an artifact it collects (measured as it measures it)."""
    from agentbeats_spec.layouts import _evidence

    found = _evidence.measure(str(path))
    assert not isinstance(found, _evidence.Refusal), found
    digest = found.sha256()
    assert isinstance(digest, str), digest
    return {"sha256": digest, "size_bytes": found.size_bytes, "file_count": found.file_count}


def load_fixture(relative: str) -> Any:
    return json.loads((FIXTURES / relative).read_text(encoding="utf-8"))


def issues(source: Any, kind: str | None = None) -> list[Issue]:
    return agentbeats_spec.validate(source, kind)


def summary(source: Any, kind: str | None = None) -> set[tuple[str, str]]:
    """(code, pointer) of every issue."""
    return {(issue.code, issue.pointer) for issue in issues(source, kind)}


def errors(source: Any, kind: str | None = None) -> set[tuple[str, str]]:
    return {(issue.code, issue.pointer) for issue in issues(source, kind) if issue.severity == "error"}


def text(data: Any) -> str:
    """Indented JSON text, so that each member sits on a line of its own."""
    return json.dumps(data, indent=2, ensure_ascii=False)


def one(source: Any, kind: str | None = None) -> Issue:
    found = issues(source, kind)
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
def attempt() -> dict[str, Any]:
    return copy.deepcopy(load_fixture(f"valid/agentcompass-run/details/error/{TASK_DIR.name}/attempt-1/result.json"))


@pytest.fixture
def task_index() -> dict[str, Any]:
    return copy.deepcopy(load_fixture(f"valid/agentcompass-run/details/error/{TASK_DIR.name}/task.json"))


@pytest.fixture
def detail() -> dict[str, Any]:
    return copy.deepcopy(load_fixture("valid/task-detail/swe-utils.task-detail.json"))


@pytest.fixture
def trajectory() -> dict[str, Any]:
    return copy.deepcopy(load_fixture("valid/actf/trajectory.json"))


@pytest.fixture
def case() -> dict[str, Any]:
    return copy.deepcopy(load_fixture("valid/abb/resources/agents/demo-agent/ground_truth/issue_123/verify.case.json"))


@pytest.fixture
def retry_record() -> dict[str, Any]:
    path = next((TASK_DIR / "attempt-1" / "retries").iterdir())
    return copy.deepcopy(json.loads(path.read_text(encoding="utf-8")))


def places(value: Any, *, first_items: int, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every value of a document with its path, the document itself first; of each array only the first items
    (mutants of every step of a long trajectory would teach nothing the first few do not)."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from places(item, first_items=first_items, path=(*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:first_items]):
            yield from places(item, first_items=first_items, path=(*path, index))
