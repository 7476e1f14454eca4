"""Scores you can trust (issue 36): metrics.json recomputed from a run's tasks, against AgentCompass 1.0.1's own
aggregation (``report_aggregation.aggregate_metric_report``), both ways.

Runs are written by the released writer (``tests.agentcompass_runs``) with plans hypothesis draws, their
metrics.json by the released aggregation with every aggregation 1.0.1 has (micro_weighted, category_mean, a
category hierarchy of every node method and weights), then written by ``RunStore._write_metric_artifacts``. Each
validates with no ``layout.score-mismatch`` and ``score_run`` gives that file, value for value; without a
metrics.json, the recomputation is the released aggregation with the standard contract (``make_metric_contract``).
Each way a report goes stale or is tampered with is a named test with its pointer.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agentbeats_spec import validate
from agentbeats_spec.runs._scores import score_run

from .. import agentcompass_runs as runs

MODULES = runs.writer_modules()
pytestmark = pytest.mark.skipif(MODULES is None, reason="AgentCompass 1.0.1 is not installed")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
MISMATCH = "layout.score-mismatch"
CONTRACT = {"primary": "correct", "binary": ("passed", "correct"), "scalar": ("accuracy", "steps")}
ROOT = Path(__file__).resolve().parents[2]


def write(root: Path, plan: tuple[runs.Task, ...], strategy: str) -> None:
    """A run of ``plan`` by the released writer, its run_info.json's attempt plan the tasks' own."""
    from agentcompass.runtime.models.request import RunRequest

    assert MODULES is not None
    sandbox = root.parent / "sandbox"
    sandbox.mkdir(parents=True, exist_ok=True)
    root.mkdir()
    runs.write_run(MODULES, root, plan, sandbox)
    request = {"benchmark": {"id": "demo"}, "harness": {"id": "h"}, "environment": {"id": "host_process"},
               "model": {"id": "m"}, "execution": {"attempts": {"k": plan[0].k, "strategy": strategy}}}  # fmt: skip
    (root / "run_info.json").unlink()
    payload = RunRequest.from_params(request).to_task_payload()
    MODULES.store.RunStore(None).write_run_info(root, payload, {"output": {"run_id": "run-1"}})


def released_report(root: Path, k: int, strategy: str, mode: str = "micro_weighted", hierarchy: Any = None) -> Any:
    """What the released summary computes for the run (its details read back by ``read_result``)."""
    from agentcompass.runtime.metrics import make_metric_contract
    from agentcompass.runtime.metrics.report_aggregation import aggregate_metric_report

    assert MODULES is not None
    details = [MODULES.layout.read_result(path) for path in MODULES.layout.result_files(root)]
    return aggregate_metric_report(
        details, contract=make_metric_contract(**CONTRACT), k=k, strategy=strategy, aggregation_mode=mode,
        category_hierarchy=hierarchy,
    )  # fmt: skip


def summarize(root: Path, report: Any) -> dict[str, Any]:
    """metrics.json written as the summary writes it; its content."""
    assert MODULES is not None
    MODULES.store.RunStore(None)._write_metric_artifacts(root, report, {"benchmark": {"id": "demo"}})
    data: dict[str, Any] = json.loads((root / "metrics.json").read_text(encoding="utf-8"))
    return data


def close(left: Any, right: Any) -> bool:
    """Equal member for member, floats within 1e-9 relative."""
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(close(left[key], right[key]) for key in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(close(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, float) and isinstance(right, float):
        return math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-12)
    return type(left) is type(right) and left == right


def recomputed(root: Path) -> dict[str, Any]:
    from agentbeats_spec import to_dict

    model = score_run(root)[root]
    data: dict[str, Any] = to_dict(model)
    return data


_METHODS = st.sampled_from(["unweighted", "weighted", "weighted_by_count"])
_WEIGHTS = st.floats(0.1, 10.0)


@st.composite
def hierarchies(draw: Any) -> dict[str, Any]:
    """A hierarchy over the generated categories: math alone, the others under a group (empty leaves included)."""
    group = {"aggregation": draw(_METHODS), "weight": draw(_WEIGHTS),
             "children": {"代码": {"weight": draw(_WEIGHTS)}, "swe": {"weight": draw(_WEIGHTS)}}}  # fmt: skip
    return {"overall": {"aggregation": draw(_METHODS), "children": {"math": {"weight": draw(_WEIGHTS)}, "g/1": group}}}


aggregations = st.sampled_from(["micro_weighted", "category_mean"]).map(lambda mode: (mode, None)) | hierarchies().map(
    lambda tree: ("micro_weighted", tree)
)


@SETTINGS
@given(plan=runs.runs, strategy=st.sampled_from(["avg", "pass"]), aggregation=aggregations)
def test_the_recomputation_is_the_released_aggregation(
    tmp_path_factory: pytest.TempPathFactory, plan: tuple[runs.Task, ...], strategy: str, aggregation: Any
) -> None:
    plan = runs.uniform(plan, strategy)
    root = tmp_path_factory.mktemp("run") / "run"
    write(root, plan, strategy)
    try:
        report = released_report(root, plan[0].k, strategy, *aggregation)
    except Exception:  # the released aggregation refuses the run: so does the recomputation (tested apart)
        assume(False)
    file = summarize(root, report)
    assert close(recomputed(root), file)
    assert [issue for issue in validate(root) if issue.code == MISMATCH] == []


@SETTINGS
@given(plan=runs.runs, strategy=st.sampled_from(["avg", "pass"]))
def test_without_metrics_json_the_contract_is_the_standard_one(
    tmp_path_factory: pytest.TempPathFactory, plan: tuple[runs.Task, ...], strategy: str
) -> None:
    plan = runs.uniform(plan, strategy)
    root = tmp_path_factory.mktemp("run") / "run"
    write(root, plan, strategy)
    try:
        report = released_report(root, plan[0].k, strategy)
    except Exception:
        assume(False)
    assert close(recomputed(root), report.model_dump(mode="json"))
    assert not (root / "metrics.json").exists()


# ------------------------------------------------------------------------------ a report stale or tampered with

_SHAPES = [
    ("math", ("completed",) * 3),
    ("math", ("completed", "run_error", "completed")),
    ("swe", ("completed",) * 3),
    ("swe", ("eval_error", "completed", "completed")),
]


def _task(number: int, category: str, statuses: tuple[str, ...]) -> runs.Task:
    attempts = tuple(
        runs.Attempt(attempt, status, (), 1, 1, True, False, None, 0, False, 0, False)
        for attempt, status in zip((1, 2, 3), statuses, strict=True)
    )
    return runs.Task(f"task {number}", category, None, 3, "avg", attempts, True)


TASKS = tuple(_task(number, category, statuses) for number, (category, statuses) in enumerate(_SHAPES))


@pytest.fixture
def summarized(tmp_path: Path) -> Path:
    root = tmp_path / "run"
    write(root, TASKS, "avg")
    summarize(root, released_report(root, 3, "avg"))
    assert validate(root) == []
    return root


def mismatches(root: Path) -> list[tuple[str, str]]:
    return [(Path(issue.file).name, issue.pointer) for issue in validate(root) if issue.code == MISMATCH]


def test_a_tampered_headline_value(summarized: Path) -> None:
    data = json.loads((summarized / "metrics.json").read_text(encoding="utf-8"))
    data["series"][0]["value"] = 0.99
    (summarized / "metrics.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    assert mismatches(summarized) == [("metrics.json", "/series/0/value")]
    message = next(issue.message for issue in validate(summarized) if issue.code == MISMATCH)
    assert "0.99 in metrics.json" in message and "'task 0'" in message


def task_folder(root: Path, task_id: str) -> Path:
    from agentbeats_spec.layouts.agentcompass import task_folder_name

    return next(root.glob(f"details/*/{task_folder_name(task_id)}"))


def test_a_task_metric_changed_after_the_summary(summarized: Path) -> None:
    result = task_folder(summarized, "task 2") / "attempt-1" / "result.json"
    data = json.loads(result.read_text(encoding="utf-8"))
    data["metrics"]["correct"] = False
    result.write_text(json.dumps(data, indent=2), encoding="utf-8")
    found = mismatches(summarized)
    assert ("metrics.json", "/series/0/value") in found  # correct.avg@3 of the run
    assert ("metrics.json", "/series/0/categories/swe/value") in found
    assert ("metrics.json", "/series/0/categories/math/value") not in found


def test_a_finished_task_added(summarized: Path, tmp_path: Path) -> None:
    other = tmp_path / "other" / "run"
    extra = attrs.evolve(TASKS[0], task_id="task added")
    write(other, (extra,), "avg")
    folder = task_folder(other, "task added")
    shutil.copytree(folder, summarized / "details" / folder.parent.name / folder.name)
    found = mismatches(summarized)
    assert ("metrics.json", "/series/0/counts") in found
    assert ("metrics.json", "/series/0/categories/math/counts") in found


def test_a_finished_task_removed(summarized: Path) -> None:
    shutil.rmtree(task_folder(summarized, "task 3"))
    found = mismatches(summarized)
    assert ("metrics.json", "/series/0/counts") in found
    assert ("metrics.json", "/series/0/categories/swe/counts") in found
    assert ("metrics.json", "/series/0/categories/math/counts") not in found


def test_a_category_changed(summarized: Path) -> None:
    index = task_folder(summarized, "task 0") / "task.json"
    data = json.loads(index.read_text(encoding="utf-8"))
    data["category"] = "algebra"
    index.write_text(json.dumps(data, indent=2), encoding="utf-8")
    found = mismatches(summarized)
    assert ("metrics.json", "/series/0/categories") in found  # algebra: not in the file
    assert ("metrics.json", "/series/0/categories/math/counts") in found


def test_a_run_the_summary_refuses_gets_that_error_and_no_mismatch(summarized: Path) -> None:
    result = task_folder(summarized, "task 2") / "attempt-1" / "result.json"
    data = json.loads(result.read_text(encoding="utf-8"))
    data["metrics"]["correct"] = "yes"  # a binary_success metric that is not a boolean
    result.write_text(json.dumps(data, indent=2), encoding="utf-8")
    codes = {issue.code for issue in validate(summarized)}
    assert "layout.undeclared-metric" in codes and MISMATCH not in codes


def test_a_run_without_metrics_json_has_no_mismatch(summarized: Path) -> None:
    (summarized / "metrics.json").unlink()
    (summarized / "summary.md").unlink()
    assert validate(summarized) == []


# ------------------------------------------------------------------------------------------- the command line


def command(*arguments: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentbeats_spec", *map(str, arguments)], capture_output=True, text=True, check=False
    )


def test_score_prints_the_file_1_0_1_writes_and_its_exit_says_whether_it_agrees(summarized: Path) -> None:
    done = command("score", "--format", "json", summarized)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads((summarized / "metrics.json").read_text(encoding="utf-8"))
    data = json.loads((summarized / "metrics.json").read_text(encoding="utf-8"))
    data["series"][1]["value"] = 0.5
    (summarized / "metrics.json").write_text(json.dumps(data), encoding="utf-8")
    done = command("score", summarized)
    assert done.returncode == 1
    assert "! /series/1/value" in done.stdout
    assert command("score", summarized / "nothing").returncode == 2


def test_the_leaderboard_check_of_the_readme(summarized: Path, tmp_path: Path) -> None:
    """README "Checking a submission": a writer-made run passes; a tampered one and one with a leaked key fail."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(line for line in readme.splitlines() if line.startswith("agentbeats-spec validate --strict"))
    check = line.split()[1:-1]  # the options, without the agentbeats-spec and the folder
    assert command(*check, summarized).returncode == 0
    tampered = tmp_path / "tampered"
    shutil.copytree(summarized, tampered)
    data = json.loads((tampered / "metrics.json").read_text(encoding="utf-8"))
    data["series"][0]["value"] = 1.0
    (tampered / "metrics.json").write_text(json.dumps(data), encoding="utf-8")
    done = command(*check, tampered)
    assert done.returncode == 1 and MISMATCH in done.stdout
    leaked = tmp_path / "leaked"
    shutil.copytree(summarized, leaked)
    result = task_folder(leaked, "task 0") / "attempt-1" / "result.json"
    data = json.loads(result.read_text(encoding="utf-8"))
    data["final_answer"] = "use OPENAI_API_KEY=sk-proj-" + "a1B2c3D4" * 6
    result.write_text(json.dumps(data, indent=2), encoding="utf-8")
    done = command(*check, leaked)
    assert done.returncode == 1 and "security." in done.stdout
