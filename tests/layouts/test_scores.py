"""The recomputation of metrics.json on small and hostile inputs (the released aggregation is the oracle of
tests/interop/test_scores.py; these hold what it reads of the walk, and that no input makes it fail or slow)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentbeats_spec import SpecError, to_dict, validate
from agentbeats_spec.runs._scores import score_run
from agentbeats_spec.scores._compare import mismatches
from agentbeats_spec.scores._recompute import Attempt, TaskScore, reduce_task, standard_contract
from agentbeats_spec.scores._tasks import legacy_severities, recompute_run, task_value

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "fixtures" / "valid" / "agentcompass-run"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return Path(shutil.copytree(RUN, tmp_path / "run"))


def test_score_run_gives_the_fixture_runs_metrics_json() -> None:
    assert to_dict(score_run(RUN)[RUN]) == json.loads((RUN / "metrics.json").read_text(encoding="utf-8"))


def test_score_run_without_a_run_says_so(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="no AgentCompass run"):
        score_run(tmp_path)


def test_a_retry_only_attempt_is_no_attempt_to_the_summary() -> None:
    payloads = {"1": {"retry_count": 2}, "2": {"status": "completed", "metrics": {"correct": True}, "retry_count": 0}}
    value = task_value({"category": "x", "attempt_plan": {"k": 2, "strategy": "avg"}}, payloads, legacy=False)
    assert list(value["attempts"]) == ["2"]


def test_pass_stops_on_a_completed_success() -> None:
    task = TaskScore("t", None, {"k": 3, "strategy": "pass"}, {"1": Attempt("completed", {"correct": True}, ())})
    contract = standard_contract([task], 3, "pass")
    [reduction] = reduce_task(task, contract, 3, "pass")
    assert (reduction.value, reduction.state, reduction.has_error) == (1.0, "evaluated", False)
    failed = TaskScore("t", None, {"k": 3, "strategy": "pass"}, {"1": Attempt("completed", {"correct": False}, ())})
    [reduction] = reduce_task(failed, contract, 3, "pass")
    assert (reduction.value, reduction.state, reduction.has_error) == (None, "error", True)


def test_a_v2_attempt_is_classified_as_the_released_conversion_does() -> None:
    assert legacy_severities({"status": "completed", "error": ""}) == []
    assert legacy_severities({"status": "run_error", "error": "boom"}) is None
    manifest = {"complete": False, "entries": [{"status": "failed"}]}
    assert legacy_severities({"status": "run_error", "artifacts": {"declared_artifacts": manifest}}) == ["fatal"]
    assert legacy_severities({"status": "completed", "extra": "not an object"}) is None


def test_a_hierarchy_thousands_of_levels_deep_is_reported_not_a_failure(run: Path) -> None:
    report = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    path = "overall/" + "/".join(f"n{level}" for level in range(5000))
    for series in report["series"]:
        series["aggregation"] = "category_hierarchy"
        series["hierarchy"] = {"overall": series["categories"]["coding"], path: series["categories"]["coding"]}
    report["aggregation"] = "category_hierarchy"
    (run / "metrics.json").write_text(json.dumps(report), encoding="utf-8")
    assert validate(run)  # the report's own rules refuse it; the recomputation neither raises nor recurses


def test_a_metrics_json_of_another_shape_is_not_compared(run: Path) -> None:
    for report in ({"series": "none"}, {"series": [{"metric_id": 1}]}, [], {"k": 3, "series": []}):
        (run / "metrics.json").write_text(json.dumps(report), encoding="utf-8")
        assert "layout.score-mismatch" not in {issue.code for issue in validate(run)}


def test_many_categories_cost_linear_time() -> None:
    """A report of 20,000 categories none of the tasks is in: one mismatch each, found without a search per one
    (the comparison itself, on the fixture run's facts: the report's own checks are tested elsewhere)."""
    from agentbeats_spec.application._front_door import CheckRequest, Paths, run_check

    facts = [json.loads(fact.value) for fact in run_check(CheckRequest(), Paths((RUN,))).facts]
    report = json.loads((RUN / "metrics.json").read_text(encoding="utf-8"))
    empty = {"value": None, "counts": dict.fromkeys(("total", "evaluated", "error", "unavailable", "invalidated"), 0),
             "aggregation_weight": 0.0}  # fmt: skip
    tasks = [(str(RUN / "details" / "error" / "t" / "task.json"), fact["task"], fact["score"]) for fact in facts
             if fact.get("of") == "task" and "score" in fact]  # fmt: skip
    plan = next({"k": fact["k"], "strategy": fact["strategy"]} for fact in facts if fact.get("of") == "plan")
    recomputed = recompute_run(tasks, report, plan)
    report["series"][0]["categories"].update({f"c{number}": empty for number in range(20000)})
    found = mismatches(report, recomputed)
    assert len(found) == 20000 and {each.pointer.rsplit("/", 1)[0] for each in found} == {"/series/0/categories"}
