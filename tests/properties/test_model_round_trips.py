"""Every valid document loads as the model of its version and is written back as the bytes it was read from.

The documents: every artifact of fixtures/valid, and generated valid documents of every kind and every version of
the kind table. Each is compared in the writer's form (JSON: UTF-8, indent 2, non-ASCII kept, a final newline;
JSON Lines: one record a line; TOML: as tomli-w writes it): ``dump(load(x)) == x`` and ``load(dump(m)) == m``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbeats_spec import dump, dumps, load, loads
from agentbeats_spec.checking._kinds import KINDS, Kind, from_content
from agentbeats_spec.layouts import kind_by_place
from agentbeats_spec.models import ABSENT

from ..conftest import FIXTURES, VALID
from ..strategies import VERSIONS


def writers_form(data: Any, syntax: str) -> bytes:
    """A document as its writer writes it (an independent statement of the format, not the package's writer)."""
    if syntax == "toml":
        return tomli_w.dumps(data).encode("utf-8")
    if syntax == "jsonl":
        return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in data).encode("utf-8")
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _artifact_kind(path: Path) -> Kind | None:
    kind = kind_by_place(path)
    if kind is None and path.suffix == ".json":
        kind = from_content(json.loads(path.read_bytes()))
    return kind


ARTIFACTS = [path for path in sorted(VALID.rglob("*")) if path.is_file() and _artifact_kind(path) is not None]


def test_the_valid_fixtures_hold_an_artifact_of_every_kind_but_one() -> None:
    """The fixtures are of the newest versions; the analysis summary, and the older versions, are generated."""
    found = {_artifact_kind(path).name for path in ARTIFACTS}  # type: ignore[union-attr]
    assert found == set(KINDS) - {"agentcompass-analysis-summary"}


@pytest.mark.parametrize("path", ARTIFACTS, ids=lambda path: path.relative_to(FIXTURES).as_posix())
def test_every_valid_fixture_loads_and_is_written_back_as_it_was(tmp_path: Path, path: Path) -> None:
    kind = _artifact_kind(path)
    assert kind is not None
    raw = path.read_bytes()
    loaded = load(path)
    if isinstance(loaded, list):  # progress.jsonl: one model per line
        assert "".join(dumps(event) for event in loaded).encode("utf-8") == raw
        return
    # the model of the fixture's own version (a fixture may keep an older version of a kind that has a newer one)
    model = kind.model_of(json.loads(raw)) if kind.version_field is not None else kind.model_name
    assert type(loaded).__name__ == model and loaded.__kind__ == kind.name
    copy = tmp_path / path.name
    shutil.copy(path, copy)  # an existing TOML file keeps its style: the copy is the writer's form of itself
    dump(loaded, copy)
    if kind.syntax == "toml":
        assert copy.read_bytes() == raw
    else:  # two fixtures are written by hand, not in the writer's form: they come back in it, with nothing lost
        assert copy.read_bytes() == writers_form(json.loads(raw), "json")
    assert load(copy, kind.name) == loaded


def test_all_but_two_json_fixtures_are_in_the_writers_form() -> None:
    """So that the test above compares bytes with bytes for nearly every fixture."""
    json_files = [path for path in ARTIFACTS if path.suffix == ".json"]
    other = [path.relative_to(VALID).as_posix() for path in json_files
             if path.read_bytes() != writers_form(json.loads(path.read_bytes()), "json")]  # fmt: skip
    assert other == ["abv3-repo/results/ablation/results.json", "task-detail/swe-utils.task-detail.json"]


CASES = [(kind.name, version) for kind in KINDS.values() for version in kind.versions]


def test_there_are_strategies_for_every_kind_and_version() -> None:
    assert [(kind, version) for kind, versions in VERSIONS.items() for version in versions] == CASES


def _placed(folder: Path, kind: Kind, version: str) -> Path:
    """Where a file of this kind and version is read as that version: an attempt beside its task's index."""
    if kind.name != "agentcompass-attempt":
        return folder / {"toml": "document.toml", "jsonl": "document.jsonl"}.get(kind.syntax, "document.json")
    task = folder / "details" / "t--0"
    (task / "attempt-1").mkdir(parents=True)
    index = {"schema_version": version, "task_id": "t", "attempts": {"1": "attempt-1"}}
    (task / "task.json").write_bytes(writers_form(index, "json"))
    return task / "attempt-1" / "result.json"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), case=st.sampled_from(CASES))
def test_generated_documents_of_every_kind_and_version_load_and_are_written_back_as_they_were(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, case: tuple[str, str]
) -> None:
    name, version = case
    kind = KINDS[name]
    document = data.draw(VERSIONS[name][version])
    raw = writers_form([document] if kind.syntax == "jsonl" else document, kind.syntax)
    path = _placed(tmp_path_factory.mktemp("document"), kind, version)
    path.write_bytes(raw)
    loaded = load(path, name)
    model = loaded[0] if isinstance(loaded, list) else loaded
    assert type(model).__name__ == kind.models[version] and model.__kind_version__ == version
    assert dumps(model).encode("utf-8") == raw  # dump(load(x)) == x
    dump(model, path)
    assert path.read_bytes() == raw
    assert load(path, name) == loaded  # load(dump(m)) == m
    if kind.version_field is not None or version == list(kind.versions)[-1]:  # a text tells its version itself
        assert loads(raw, name) == loaded


def test_a_v2_attempt_keeps_its_empty_values_and_its_error_text(tmp_path: Path) -> None:
    """What v3 has no place for (null where {} belongs, the old error) is a member of the v2 model, not lost."""
    document = {"status": "completed", "metrics": {}, "final_answer": None, "trajectory": "", "analysis_result": [],
                "meta": {"benchmark": None, "harness": ""}, "retry_count": 0, "error": ""}  # fmt: skip
    path = _placed(tmp_path, KINDS["agentcompass-attempt"], "agentcompass.task.v2")
    path.write_bytes(writers_form(document, "json"))
    attempt = load(path)
    assert (attempt.trajectory, attempt.analysis_result, attempt.error) == ("", [], "")  # type: ignore[union-attr]
    assert attempt.artifacts is ABSENT and attempt.issues is ABSENT  # type: ignore[union-attr]
    assert dumps(attempt).encode("utf-8") == path.read_bytes()
