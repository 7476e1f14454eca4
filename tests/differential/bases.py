"""The runs every case starts from, written by the released AgentCompass 1.0.1 writer's own calls.

- ``finished``: a run that reached its end (tests/agentcompass_runs.py ``write_run`` and ``write_run_files``):
  tasks of every final state, several attempts, a retried attempt with an archive, collected artifacts and a
  transfer that failed, a Unicode task id.
- ``running``: a run still going: some tasks published, one still in ``details/running/`` with its first attempt
  finished and saved through the scheduler's checkpoint repository (``RunAttemptCheckpointRepository.save``) and
  its second not begun; the progress files of a run in progress, and no ``params.json`` nor ``metrics.json``.
- ``v2``: an ``agentcompass.task.v2`` run as tests/layouts/test_legacy_v2.py makes it, without its unclassifiable
  task and with every task under the run's own attempt plan (what a run that 1.0.1 summarizes has).

Each base carries what the readers are asked with: the task ids the benchmark would load, the persistence
parameters a resume or reuse requests again, and the metric contract its ``metrics.json`` declares (for the
running run, which has none yet: the contract that ``write_run_files`` would declare).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import attrs

from ..agentcompass_runs import (
    METRIC_CONTRACT,
    Attempt,
    Task,
    finish_run,
    persistence_params,
    progress_reporter,
    uniform,
    write_run,
    writer_modules,
)

BASES = ("finished", "running", "v2")


@attrs.frozen
class Base:
    name: str
    root: Path
    task_ids: tuple[str, ...]
    params: dict[str, Any]
    contract: dict[str, Any]  # metric id -> MetricSpec fields, as metrics.json declares them
    published: frozenset[str] = frozenset()  # the folder names of the tasks result_files lists


def _attempt(number: int, status: str = "completed", **changes: Any) -> Attempt:
    fields: dict[str, Any] = dict(
        number=number, status=status, severities=(), first_step=0, steps=2, aware=True, empty_tool_calls=False,
        transfer=None, files=0, missing=False, retries=0, archive=False,
    )  # fmt: skip
    fields.update(changes)
    return Attempt(**fields)


def _plan() -> tuple[Task, ...]:
    return uniform(
        (
            Task(
                "swe/utils: ünï #1",
                "swe",
                "42",
                2,
                "avg",
                (
                    _attempt(1, retries=1, archive=True, transfer="complete", files=2),
                    _attempt(2, "run_error", severities=("error",), first_step=1, aware=False),
                ),
                True,
            ),
            Task("t2", "math", {"answer": [1, 2]}, 2, "avg", (_attempt(1, steps=3, empty_tool_calls=True),), True),
            Task("t3", "swe", None, 2, "avg", (_attempt(1, "eval_error", severities=("error", "warning")),), True),
            Task(
                "t5 fatal",
                "math",
                "5",
                2,
                "avg",
                (
                    _attempt(1, "interrupted", severities=("fatal",), transfer="failed", files=1),
                    _attempt(2, "skipped", steps=0),
                ),
                True,
            ),
        )
    )


def contract_of(report: dict[str, Any]) -> dict[str, Any]:
    """The metric contract a metrics.json declares: each metric's kind and reducers; the headline correct or score
    is the primary."""
    contract: dict[str, Any] = {}
    for series in report["series"]:
        spec = contract.setdefault(series["metric_id"], {"kind": series["kind"], "reducers": []})
        if series["reducer"] not in spec["reducers"] and series["reducer"] != "native":
            spec["reducers"].append(series["reducer"])
        if series["role"] == "headline" and series["metric_id"] in ("correct", "score"):
            spec["primary"] = True
    return contract


def _request_recorded(modules: SimpleNamespace, root: Path, plan: tuple[Task, ...]) -> None:
    """run_info.json as the runner's ``prepare`` writes it: ``write_run_info`` of ``RunRequest.to_task_payload``
    (write_run records a shorter request, without the harness and environment every real request has)."""
    from agentcompass.runtime.models.request import RunRequest

    params = persistence_params(plan)
    request = RunRequest.from_params(
        {**params, "harness": {"id": "h"}, "environment": {"id": "host_process"}, "runtime": {}}
    ).to_task_payload()
    (root / "run_info.json").unlink()
    modules.store.RunStore(None).write_run_info(root, request, {"output": {"run_id": "run-1"}})


def _finished(modules: SimpleNamespace, root: Path, sandbox: Path) -> Base:
    plan = _plan()
    write_run(modules, root, plan, sandbox)
    _request_recorded(modules, root, plan)
    params = _written_run_files(modules, root, plan)
    report = json.loads((root / "metrics.json").read_text(encoding="utf-8"))
    return Base("finished", root, tuple(task.task_id for task in plan), params, contract_of(report))


def _written_run_files(modules: SimpleNamespace, root: Path, plan: tuple[Task, ...]) -> dict[str, Any]:
    reporter = progress_reporter(root, len(plan))
    for task in plan:
        reporter.emit("task_started", task_id=task.task_id, category=task.category, attempt=1, phase="setup")
        reporter.emit("task_finished", task_id=task.task_id, category=task.category, status="completed")
    return finish_run(modules, root, plan, reporter)


def _running(modules: SimpleNamespace, root: Path, sandbox: Path) -> Base:
    from agentcompass.runtime.attempts import AttemptCheckpoint, AttemptKey, AttemptTerminalStatus
    from agentcompass.runtime.attempts.repository import RunAttemptCheckpointRepository

    published = _plan()[1:]
    waiting = Task("t4 running", "math", "7", 2, "avg", (_attempt(1), _attempt(2)), False)
    plan = (*published, waiting)
    write_run(modules, root, plan, sandbox)
    _request_recorded(modules, root, plan)
    reporter = progress_reporter(root, len(plan))
    for task in plan:
        reporter.emit("task_started", task_id=task.task_id, category=task.category, attempt=1, phase="setup")
        if task.published:
            reporter.emit("task_finished", task_id=task.task_id, category=task.category, status="completed")
    reporter.emit("task_started", task_id=waiting.task_id, category=waiting.category, attempt=2, phase="run")
    value = {
        "status": "completed", "metrics": {"accuracy": 1.0, "passed": True, "steps": 3}, "final_answer": "7",
        "trajectory": {}, "issues": [], "artifacts": {}, "analysis_result": {},
        "meta": {"benchmark": {}, "harness": {}},
    }  # fmt: skip
    repository = RunAttemptCheckpointRepository(root)
    checkpoint = AttemptCheckpoint(key=AttemptKey(waiting.task_id, 1), status=AttemptTerminalStatus.COMPLETED,
                                   value=value)  # fmt: skip
    asyncio.run(repository.save(checkpoint))
    reporter.close()  # the sinks are flushed: the run itself goes on
    return Base("running", root, tuple(t.task_id for t in plan), persistence_params(plan), METRIC_CONTRACT)


def _v2(root: Path) -> Base:
    from ..layouts.test_legacy_v2 import TASKS, UNCONVERTIBLE, build_v2_run

    build_v2_run(root)
    from agentbeats_spec.layouts.agentcompass import task_folder_name

    for task_id in UNCONVERTIBLE:
        shutil.rmtree(root / "details" / task_folder_name(task_id))
    info = json.loads((root / "run_info.json").read_text(encoding="utf-8"))
    plan = info["request"]["execution"]["attempts"]
    for path in sorted((root / "details").glob("*/task.json")):
        index = json.loads(path.read_text(encoding="utf-8"))
        index["attempt_plan"] = dict(plan)
        path.write_text(json.dumps(index, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    params = json.loads((root / "params.json").read_text(encoding="utf-8"))
    params["benchmark"] = {**params.get("benchmark", {}), "id": info["request"]["benchmark"]["id"]}
    report = json.loads((root / "metrics.json").read_text(encoding="utf-8"))
    _summarized_again(root, contract_of(report), plan)
    task_ids = tuple(task_id for task_id in TASKS if task_id not in UNCONVERTIBLE)
    return Base("v2", root, task_ids, params, contract_of(report))


def _summarized_again(root: Path, contract: dict[str, Any], plan: dict[str, Any]) -> None:
    """metrics.json as the released summary writes it for the tasks left (the tasks removed and the plans changed
    above made the one of the built run stale: ``layout.score-mismatch`` says so)."""
    from agentcompass.runtime.metrics import MetricContract
    from agentcompass.runtime.metrics.report_aggregation import aggregate_metric_report

    modules = writer_modules()
    assert modules is not None
    details = [modules.layout.read_result(path) for path in modules.layout.result_files(root)]
    report = aggregate_metric_report(
        details, contract=MetricContract(metrics=contract), k=plan["k"], strategy=plan["strategy"]
    )
    modules.store.RunStore(None)._write_metric_artifacts(root, report, {"benchmark": {"id": "demo"}})


def build(name: str, folder: Path) -> Base:
    """Write the base run ``name`` into ``folder`` (which must not exist)."""
    modules = writer_modules()
    assert modules is not None, "the released AgentCompass 1.0.1 is not installed (make .venv/.native does it)"
    root = (folder / "run").resolve()
    root.mkdir(parents=True)
    if name == "finished":
        base = _finished(modules, root, folder / "sandbox")
    elif name == "running":
        base = _running(modules, root, folder / "sandbox")
    else:
        base = _v2(root)
    return attrs.evolve(base, published=frozenset(path.parent.name for path in modules.layout.result_files(root)))
