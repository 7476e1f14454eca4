"""A run written by the released AgentCompass 1.0.1 writer itself: many small files, where per-file costs dominate.

    python benchmarks/agentcompass_writer.py OUT [--tasks 3000] [--seed 7] [--steps 2:24] [--pace SECONDS]
        [--metrics]

Every task goes through ``agentcompass.runtime.results.layout.RunLayout.write_result`` (installed for the tests in
``.venv/interop`` by ``make test``), and ``run_info.json`` through ``RunStore.write_run_info`` of the request
``RunRequest.to_task_payload`` gives (one plan, k 3, for every task), so the folders, names, indentation and states
are exactly the writer's: 1 to 3 attempts per task, trajectories of 2 to 24 short steps (``--steps MIN:MAX``:
100:400 for long ones), a third of the attempts with an issue. Only the writer's fsync calls are skipped (they
change no byte, and cost minutes).

``--pace SECONDS`` writes the run as a harness does, over time: task n is written ``n * SECONDS`` after the start
(or as soon as the writer can), each between its ``task_started`` and ``task_finished`` events of the released
progress sinks (``progress.jsonl``, ``progress.json``), and the run ends with ``RunStore.write_terminal_status``:
what ``benchmarks/watch.py --pace`` watches.

``--metrics`` also writes the run's metrics.json and summary.md as the summary
does: ``aggregate_metric_report`` of the released package over the written tasks (read back with ``read_result``),
with the standard contract of what they record (``make_metric_contract``), then ``RunStore._write_metric_artifacts``.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "fixtures" / "valid" / "task-detail" / "swe-utils.task-detail.json"
ISSUES = [
    [],
    [{"severity": "warning", "phase": "cleanup", "code": "environment_failed", "message": "sandbox teardown slow"}],
    [{"severity": "error", "phase": "evaluate", "code": "judge_failed", "message": "HTTP 503: judge unavailable"}],
]


def record(
    rng: random.Random, number: int, template: dict[str, Any], steps_range: tuple[int, int] = (2, 24)
) -> dict[str, Any]:
    data = copy.deepcopy(template)
    data["task_id"] = f"bench/utils: task #{number}"
    attempts = rng.randint(1, 3)
    first = template["attempts"]["1"]
    steps = first["trajectory"]["steps"]
    data["attempts"] = {}
    for attempt in range(1, attempts + 1):
        result = copy.deepcopy(first)
        count = rng.randint(*steps_range)
        result["trajectory"]["steps"] = [
            {**copy.deepcopy(steps[index % len(steps)]), "step_id": index + 1} for index in range(count)
        ]
        result["metrics"] = {"correct": rng.random() < 0.5, "reward": round(rng.random(), 3)}
        result["issues"] = copy.deepcopy(ISSUES[(number + attempt) % 3])
        failed = bool(result["issues"]) and result["issues"][0]["severity"] == "error"
        result["status"] = "eval_error" if failed else "completed"
        data["attempts"][str(attempt)] = result
    data["attempt_plan"] = {"k": 3, "strategy": "avg"}  # the run's one plan: run_info.json records it
    data["retry_count"] = 0
    data["retry_counts"] = {}
    return data


def paced(arguments: argparse.Namespace, layout: Any, made: Any) -> None:
    """The tasks written one every ``--pace`` seconds between their progress events, then the terminal status."""
    from agentcompass.runtime.progress import JsonlProgressSink, ProgressReporter, SnapshotProgressSink
    from agentcompass.runtime.results.store import RunStore

    ids = argparse.Namespace(**{part: argparse.Namespace(id=name) for part, name in
                                (("benchmark", "bench"), ("harness", "h"), ("environment", "host_process"),
                                 ("model", "m"))})  # fmt: skip
    sinks = [JsonlProgressSink(arguments.out / "progress.jsonl"), SnapshotProgressSink(arguments.out / "progress.json")]
    reporter = ProgressReporter(run_id="bench-run", request=ids, sinks=sinks)
    reporter.emit("run_started", payload={"benchmark": "bench"})
    reporter.emit("tasks_loaded", payload={"total_tasks": arguments.tasks})
    start = time.monotonic()
    for number in range(arguments.tasks):
        time.sleep(max(0.0, start + number * arguments.pace - time.monotonic()))
        detail = made(number)
        reporter.emit("task_started", task_id=detail["task_id"], category=detail["category"], attempt=1, phase="run")
        layout.write_result(detail)
        reporter.emit("task_finished", task_id=detail["task_id"], category=detail["category"], status="completed")
    reporter.emit("run_finished", status="completed")
    reporter.close()
    RunStore(None).write_terminal_status(arguments.out, "completed")


def write_metrics(root: Path) -> None:
    """metrics.json (and summary.md) of the run at ``root``, as the released summary makes them from its tasks."""
    from agentcompass.runtime.metrics import make_metric_contract
    from agentcompass.runtime.metrics.report_aggregation import aggregate_metric_report
    from agentcompass.runtime.results import layout
    from agentcompass.runtime.results.store import RunStore

    details = [layout.read_result(path) for path in layout.result_files(root)]
    contract = make_metric_contract(primary="correct", binary=("correct",), scalar=("reward",))
    report = aggregate_metric_report(details, contract=contract, k=3, strategy="avg")
    params = {"benchmark": {"id": "bench"}, "model": {"id": "m"}}
    RunStore(None)._write_metric_artifacts(root, report, params)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--tasks", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--steps", default="2:24", help="MIN:MAX steps per trajectory")
    parser.add_argument("--pace", type=float, metavar="SECONDS", help="write a task every SECONDS, with progress")
    parser.add_argument("--metrics", action="store_true", help="also write metrics.json, as the summary does")
    arguments = parser.parse_args()
    sys.path.append(str(ROOT / ".venv" / "interop"))
    from agentcompass.runtime.models.request import RunRequest
    from agentcompass.runtime.results.layout import RunLayout
    from agentcompass.runtime.results.store import RunStore

    os.fsync = lambda descriptor: None  # durability only: the bytes written are the same, thousands of times faster

    low, high = (int(part) for part in arguments.steps.split(":"))
    rng = random.Random(arguments.seed)
    template = json.loads(RECORD.read_text(encoding="utf-8"))
    layout = RunLayout(arguments.out)
    # run_info.json as the runner's prepare writes it (a run without one is refused by every 1.0.1 reader)
    request = RunRequest.from_params(
        {"benchmark": {"id": "bench"}, "model": {"id": "m"}, "harness": {"id": "h"},
         "environment": {"id": "host_process"}, "execution": {"attempts": {"k": 3, "strategy": "avg"}}, "runtime": {}}
    ).to_task_payload()  # fmt: skip
    arguments.out.mkdir(parents=True, exist_ok=True)
    RunStore(None).write_run_info(arguments.out, request, {"output": {"run_id": "bench-run"}})
    if arguments.pace is None:
        for number in range(arguments.tasks):
            layout.write_result(record(rng, number, template, (low, high)))
    else:
        paced(arguments, layout, lambda number: record(rng, number, template, (low, high)))
    if arguments.metrics:
        write_metrics(arguments.out)
    files = list(arguments.out.rglob("*.json"))
    size = sum(path.stat().st_size for path in files)
    print(f"{arguments.out}: {arguments.tasks} tasks, {len(files)} JSON files, {size / 1024**2:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
