"""The randomized differential test (tests/differential) in the interop tier: the released writer's runs read by
every 1.0.1 reader as we read them, and a few hundred seeded cases of one or two mutations on which we and the
readers agree by the contract. A disagreement fails the test with its seed and its minimal case; a larger run is
``python benchmarks/differential.py --cases N --seed S --jobs J``."""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest

from agentbeats_spec import Issue, validate

from ..agentcompass_runs import writer_modules
from ..differential import cases, grammar

MODULES = writer_modules()
try:
    import agentcompass.viewer.reader  # noqa: F401  (the result browser needs msgspec)
except ImportError:
    MODULES = None
pytestmark = pytest.mark.skipif(MODULES is None, reason="AgentCompass 1.0.1 is not installed (make test does it)")
CASES = 400  # about 45 s of one core, 3 minutes on a machine loaded tenfold
SEED = 0


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, cases.Prepared]:
    return cases.prepared_bases(tmp_path_factory.mktemp("bases"))


def test_every_reader_reads_the_writers_runs_and_they_validate(prepared: dict[str, cases.Prepared]) -> None:
    """The unchanged runs: every reader reads them, and they validate with no error and no warning but the one a
    v2 task has. Reuse passes over one task of each: the one whose artifact transfer did not complete."""
    for name, base in prepared.items():
        assert base.refusals == {}, name
        assert base.limits["tasks"] == 1 and base.limits["scheduler checkpoints"] == 0, name
        found = {(issue.code, issue.severity) for issue in validate(base.base.root) if issue.severity != "info"}
        assert found == ({("legacy.task-v2", "warning")} if name == "v2" else set()), name


def test_seeded_cases_agree_with_the_readers(prepared: dict[str, cases.Prepared]) -> None:
    outcomes = [cases.run_case(prepared, seed) for seed in range(SEED, SEED + CASES)]
    assert {outcome.base for outcome in outcomes} == set(prepared)  # every base is drawn
    assert {outcome.scope for outcome in outcomes} == {"run root", "task folder"}
    if any(outcome.verdict != cases.AGREEMENT for outcome in outcomes):
        pytest.fail(cases.table(outcomes), pytrace=False)


def test_a_case_is_its_seed(prepared: dict[str, cases.Prepared]) -> None:
    """The same seed gives the same case: a disagreement printed can be run again alone."""
    first, again = (cases.run_case(prepared, 17) for _ in range(2))
    assert [str(m) for m in first.mutations] == [str(m) for m in again.mutations]
    assert (first.verdict, first.refusals, first.errors) == (again.verdict, again.refusals, again.errors)


def test_each_class_is_told(
    prepared: dict[str, cases.Prepared], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The test can fail: a task.json cut short makes result_files raise, and is an agreement with our error, a
    missed refusal without it, a wrong severity with only a warning; run_info.json re-typed to what it was is read by
    every reader, so an error on it is a false error."""
    chosen = prepared["finished"]
    root = tmp_path / "results" / "run"
    shutil.copytree(chosen.base.root, root, symlinks=True)
    task = next(root.glob("details/normal/*/task.json")).relative_to(root).as_posix()
    cut = grammar.Mutation("file", "cut short", task, "cut short", lambda run: _cut(run / task))
    cut.apply(root)
    outcome = cases.judge(chosen, -1, [cut], root)
    assert outcome.verdict == cases.AGREEMENT and "layout result_files" in outcome.refusals
    assert any(line.startswith("error json.syntax") for line in outcome.errors)
    issue = Issue(file=str(root / task), severity="warning", code="json.bom", message="a byte order mark")
    monkeypatch.setattr(cases, "validate", lambda _: [])
    assert cases.judge(chosen, -1, [cut], root).verdict == cases.MISSED_REFUSAL
    monkeypatch.setattr(cases, "validate", lambda _: [issue])
    assert cases.judge(chosen, -1, [cut], root).verdict == cases.WRONG_SEVERITY
    (root / task).write_bytes((chosen.base.root / task).read_bytes())
    same = grammar.Mutation("member", "type", "run_info.json", "/run_id unchanged", lambda run: None)
    error = attrs.evolve(
        issue, file=str(root / "run_info.json"), severity="error", code="schema.type", pointer="/run_id"
    )
    monkeypatch.setattr(cases, "validate", lambda _: [error])
    assert cases.judge(chosen, -1, [same], root).verdict == cases.FALSE_ERROR


def _cut(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:20])
