"""The released AgentCompass 1.0.1 writer, driven directly: the run-level files of one run.

``run_files(folder)`` writes run_info.json, params.json, metrics.json, summary.md, progress.json and progress.jsonl
with the package's own functions (RunStore.write_run_info, _write_params_record, _write_metric_artifacts,
_record_metric_artifact_provenance, record_resolved_execution_plan, write_terminal_status and the two file sinks
of its progress reporter). Used by the tests, and to make the run-level files of fixtures/valid/agentcompass-run.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
INTEROP = ROOT / ".venv" / "interop"
TASK_ID = "swe/utils: off-by-one #17"
PARAMS = {
    "benchmark": {"id": "swe-utils", "params": {"split": "test", "judge_api_key": "sk-judge-0123456789abcdef"}},
    "model": {"id": "gpt-x", "params": {"temperature": 0.2}},
    "execution": {"attempts": {"k": 3, "strategy": "avg"}},
    "output": {"run_name": "nightly", "run_id": "2026-08-01_10-00-00"},
}
REQUEST = {
    "benchmark": {"id": "swe-utils"},
    "harness": {"id": "mini-swe-agent"},
    "environment": {"id": "docker"},
    "model": {"id": "gpt-x", "api_key": "sk-live-0123456789abcdef"},
    "execution": {"attempts": {"k": 3, "strategy": "avg"}},
    "output": {"run_name": "nightly"},
}


def released() -> ModuleType | None:
    """agentcompass.runtime.results.store of the released package, or None where it is not installed."""
    if INTEROP.is_dir() and str(INTEROP) not in sys.path:
        sys.path.append(str(INTEROP))
    try:
        from agentcompass.runtime.results import store
    except ImportError:
        return None
    return store


def _counts(total: int, evaluated: int, error: int, invalidated: int = 0) -> dict[str, int]:
    return {"total": total, "evaluated": evaluated, "error": error, "unavailable": total - evaluated - invalidated,
            "invalidated": invalidated}  # fmt: skip


def metric_report(failed: bool = False) -> dict[str, object]:
    """The report of the one-task run (two of its three attempts recorded): the avg series have no value (an
    attempt is missing), pass has the recorded success; ``failed``: of a run whose task a fatal issue invalidated
    (no value at all). What 1.0.1's aggregation gives from the task (``agentbeats-spec score`` agrees)."""

    def series(metric: str, reducer: str, role: str, kind: str, value: float | None) -> dict[str, object]:
        counts = _counts(1, 0, 1, 1) if failed else _counts(1, 0 if value is None else 1, 1)
        value = None if failed else value
        weight = float(counts["evaluated"])
        return {"series_id": f"{metric}.{reducer}@3", "metric_id": metric, "kind": kind, "reducer": reducer,
                "role": role, "aggregation": "micro_weighted", "k": 3, "value": value, "counts": counts,
                "categories": {"coding": {"value": value, "counts": counts, "aggregation_weight": weight}}}  # fmt: skip

    return {
        "k": 3,
        "strategy": "avg",
        "aggregation": "micro_weighted",
        "evaluation_failed": failed,
        "series": [
            series("correct", "avg", "headline", "binary_success", None),
            series("correct", "pass", "headline", "binary_success", 1.0),
            series("tokens", "avg", "auxiliary", "scalar", None),
        ],
    }


def run_files(folder: Path, *, finished: bool = True, failed: bool = False) -> None:
    """Write a run's run-level files into ``folder`` with the released writer (``failed``: the report of a run with
    a fatal task)."""
    store = released()
    assert store is not None, "the released agentcompass package is not installed"
    from agentcompass.runtime.metrics.report import MetricReport
    from agentcompass.runtime.progress import JsonlProgressSink, ProgressReporter, SnapshotProgressSink

    folder.mkdir(parents=True, exist_ok=True)
    writer = store.RunStore(config=None)
    writer.write_run_info(folder, REQUEST, PARAMS)
    asyncio.run(writer.record_resolved_execution_plan(folder, TASK_ID, 1, {"harness": {"id": "mini-swe-agent"},
                                                                        "model": {"id": "gpt-x"}}))  # fmt: skip
    ids = SimpleNamespace(**{part: SimpleNamespace(id=REQUEST[part]["id"])  # type: ignore[index]
                             for part in ("benchmark", "harness", "environment", "model")})  # fmt: skip
    reporter = ProgressReporter(
        run_id=PARAMS["output"]["run_id"],  # type: ignore[index]
        request=ids,  # type: ignore[arg-type]
        sinks=[JsonlProgressSink(folder / "progress.jsonl"), SnapshotProgressSink(folder / "progress.json")],
    )
    reporter.emit("run_started", payload={"benchmark": "swe-utils", "model": "gpt-x"})
    reporter.emit("tasks_loaded", payload={"total_tasks": 1})
    reporter.emit("task_started", task_id=TASK_ID, category="coding", attempt=1, phase="setup")
    reporter.emit("attempt_started", task_id=TASK_ID, category="coding", attempt=1)
    reporter.emit("phase_changed", task_id=TASK_ID, category="coding", attempt=1, phase="run",
                  payload={"step": 3})  # fmt: skip
    if not finished:
        return
    reporter.emit("attempt_finished", task_id=TASK_ID, category="coding", attempt=1, status="completed")
    reporter.emit("partial_saved", task_id=TASK_ID, category="coding", attempt=1)
    reporter.emit("task_finished", task_id=TASK_ID, category="coding", status="completed",
                  payload={"severity": "error"})  # fmt: skip
    reporter.emit("summary_started")
    report = MetricReport.model_validate(metric_report(failed))
    writer._write_params_record(folder, PARAMS)
    writer._write_metric_artifacts(folder, report, PARAMS)
    writer._record_metric_artifact_provenance(folder, report, source="evaluation")
    reporter.emit("run_finished", status="completed")
    reporter.close()
    writer.write_terminal_status(folder, "completed")


def summarize(folder: Path) -> None:
    """metrics.json and summary.md of the run in ``folder`` as the released summary writes them from its tasks
    (``aggregate_metric_report`` with the contract of :func:`metric_report`, and the reward the fixture's
    task detail records; k 3, avg)."""
    store = released()
    assert store is not None, "the released agentcompass package is not installed"
    from agentcompass.runtime.metrics import MetricContract
    from agentcompass.runtime.metrics.report_aggregation import aggregate_metric_report
    from agentcompass.runtime.results import layout

    metrics = {
        "correct": {"kind": "binary_success", "reducers": ["avg", "pass"], "primary": True},
        "tokens": {"kind": "scalar", "reducers": ["avg"]},
        "reward": {"kind": "scalar", "reducers": ["avg"]},
    }
    contract = MetricContract(metrics=metrics)
    details = [layout.read_result(path) for path in layout.result_files(folder)]
    report = aggregate_metric_report(details, contract=contract, k=3, strategy="avg")
    store.RunStore(config=None)._write_metric_artifacts(folder, report, PARAMS)
