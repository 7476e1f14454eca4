"""AgentCompass runs written by the released AgentCompass 1.0.1 itself, from plans that hypothesis draws.

The writer's own functions do the writing: ``RunStore.write_run_info`` (``run_info.json``),
``RunLayout.attempt_dir`` and ``begin_run`` (identity index, archives
of rerun attempts), ``RunStore.save_retry_detail`` (retry records), the artifact collector ``download_artifacts``
driven through a sandbox that runs its commands on this machine (collected, missing, failed and cancelled
transfers), and ``RunLayout.write_result`` (payloads, shared metadata, the move to the task's state).
"""

from __future__ import annotations

import asyncio
import datetime
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import attrs
from hypothesis import strategies as st

INTEROP = Path(__file__).resolve().parents[1] / ".venv" / "interop"


def writer_modules() -> SimpleNamespace | None:
    """The released writer's modules, or None where the interop install is missing."""
    if INTEROP.is_dir() and str(INTEROP) not in sys.path:
        sys.path.append(str(INTEROP))
    try:
        from agentcompass.runtime import artifacts
        from agentcompass.runtime.results import detail, layout, store
    except ImportError:
        return None
    return SimpleNamespace(artifacts=artifacts, detail=detail, layout=layout, store=store)


@attrs.frozen
class Attempt:
    number: int
    status: str
    severities: tuple[str, ...]  # of its issues: "fatal", "error", "warning"
    first_step: int  # 0 (openai_chat) or 1
    steps: int
    aware: bool  # timestamps with an offset, or local ones as str(datetime.now()) gives them
    empty_tool_calls: bool
    transfer: str | None  # None, "complete", "failed" or "cancelled"
    files: int
    missing: bool
    retries: int
    archive: bool  # whether a rerun leaves outputs for begin_run to archive


@attrs.frozen
class Task:
    task_id: str
    category: str | None
    ground_truth: Any
    k: int
    strategy: str
    attempts: tuple[Attempt, ...]
    published: bool


_ID_CHARACTERS = st.characters(codec="utf-8", exclude_categories=("Cs",))
task_ids = (
    st.text(_ID_CHARACTERS, min_size=1, max_size=24)
    | st.text(_ID_CHARACTERS, min_size=300, max_size=300)
    | st.sampled_from(["swe/utils: off-by-one #17", "ünïcode 任务", "x--y", "...", "a" * 300])
).filter(lambda text: text == text.strip() and bool(text))

STATUSES = ("completed", "skipped", "run_error", "eval_error", "run_error_or_eval_error", "cancelled", "interrupted")


@st.composite
def attempts(draw: Any, number: int) -> Attempt:
    transfer = draw(st.sampled_from([None, "complete", "failed", "cancelled"]))
    return Attempt(
        number=number,
        status=draw(st.sampled_from(STATUSES)),
        severities=tuple(draw(st.lists(st.sampled_from(["fatal", "error", "warning"]), max_size=2))),
        first_step=draw(st.sampled_from([0, 1])),
        steps=draw(st.integers(0, 3)),
        aware=draw(st.booleans()),
        empty_tool_calls=draw(st.booleans()),
        transfer=transfer,
        files=draw(st.integers(1 if transfer in ("failed", "cancelled") else 0, 2)),
        missing=draw(st.booleans()),
        retries=draw(st.integers(0, 2)),
        archive=draw(st.booleans()),
    )


@st.composite
def tasks(draw: Any, task_id: str) -> Task:
    numbers = sorted(draw(st.sets(st.integers(1, 3), min_size=1, max_size=2)))
    return Task(
        task_id=task_id,
        category=draw(st.none() | st.sampled_from(["math", "代码", "swe"])),
        ground_truth=draw(st.sampled_from([None, "42", {"answer": [1, 2]}, ["a"]])),
        k=draw(st.integers(max(numbers), 4)),
        strategy=draw(st.sampled_from(["avg", "pass"])),
        attempts=tuple(draw(attempts(number)) for number in numbers),
        published=draw(st.booleans()),
    )


runs = st.lists(task_ids, min_size=1, max_size=3, unique=True).flatmap(
    lambda ids: st.tuples(*(tasks(task_id) for task_id in ids))
)


class _Sandbox:
    """An environment whose commands run on this machine; one download may fail or be cancelled."""

    def __init__(self, failure: str | None) -> None:
        self.failure = failure
        self.downloads = 0

    async def exec(self, command: Any, shell: bool = False, timeout: float | None = None) -> Any:
        done = subprocess.run(command, shell=shell, capture_output=True, text=True, timeout=timeout, check=False)
        return SimpleNamespace(returncode=done.returncode, stdout=done.stdout, stderr=done.stderr, timed_out=False)

    async def download(self, remote: str, local: str) -> None:
        self.downloads += 1
        if self.failure == "failed":
            raise ConnectionError("the sandbox went away")
        if self.failure == "cancelled":
            raise asyncio.CancelledError
        shutil.copyfile(remote, local)


def _moment(aware: bool, seconds: int) -> str:
    base = datetime.datetime(2026, 8, 1, 10, 0, 0, 250000 if seconds % 2 else 0)
    moment = base + datetime.timedelta(seconds=seconds)
    return str(moment.replace(tzinfo=datetime.timezone.utc) if aware else moment)


def _trajectory(attempt: Attempt) -> dict[str, Any]:
    if not attempt.steps:
        return {}
    steps = []
    for index in range(attempt.steps):
        steps.append(
            {
                "step_id": attempt.first_step + index,
                "system_prompt": "You are careful." if index == 0 else None,
                "user_content": [{"type": "text", "text": "Fix it."}],
                "tools": [{"type": "function", "function": {"name": "bash"}}],
                "assistant_content": {
                    "content": "" if index else "Looking.",
                    "reasoning_content": None,
                    "tool_calls": {} if attempt.empty_tool_calls else [],
                },
                "observation": [{"role": "tool", "content": "ok"}, "plain text"],
                "metric": {"prompt_tokens_len": 12, "completion_tokens_len": 3, "llm_infer_ms": 812.5,
                           "env_action_ms": -1, "stop_reason": "stop"},
                "started_at": _moment(attempt.aware, 2 * index),
                "finished_at": _moment(attempt.aware, 2 * index + 1),
                "harness_extra": {"kept": True},
            }
        )  # fmt: skip
    return {"schema_version": "ACTF_v1.0", "steps": steps, "started_at": _moment(attempt.aware, 0)}


def _issues(attempt: Attempt) -> list[dict[str, str]]:
    phases = {"fatal": "run", "error": "evaluate", "warning": "cleanup"}
    found = [
        {"severity": severity, "phase": phases[severity], "code": f"{severity}_seen", "message": f"{severity} #{i}"}
        for i, severity in enumerate(attempt.severities)
    ]
    if attempt.transfer in ("failed", "cancelled"):
        found.append({"severity": "error", "phase": "collect", "code": "download_artifacts",
                      "message": "artifact download failed"})  # fmt: skip
    return found


def _collect(modules: SimpleNamespace, root: Path, task: Task, attempt: Attempt, sandbox: Path, failure: str | None,
             ) -> dict[str, Any]:  # fmt: skip
    """Run the collector; the manifest it leaves (returned, raised with, or journaled in checkpoint.json)."""
    layout = modules.layout.RunLayout(root)
    directory = layout.attempt_dir(task.task_id, attempt.number, create=True)
    specs = []
    for index in range(attempt.files):
        source = sandbox / f"a{attempt.number}" / f"out-{index}"
        if index == 1:
            (source / "inner").mkdir(parents=True, exist_ok=True)
            (source / "inner" / "log.txt").write_text("logged\n", encoding="utf-8")
        else:
            source.parent.mkdir(parents=True, exist_ok=True)
            source.write_text(f"output {index} ✓\n", encoding="utf-8")
        specs.append({"source": str(source), "destination": f"outputs/{index}"})
    if attempt.missing:
        specs.insert(0, {"source": str(sandbox / "never-written.txt"), "destination": "never-written.txt"})
    try:
        return dict(
            asyncio.run(modules.artifacts.download_artifacts(_Sandbox(failure), specs, root, attempt_dir=directory))
        )
    except modules.artifacts.ArtifactDownloadError as error:
        return dict(error.manifest)
    except asyncio.CancelledError:
        return dict(modules.layout.read_checkpoint_document(directory / "checkpoint.json")["artifact_transfer"])


def recorded_request(plan: tuple[Task, ...]) -> dict[str, Any]:
    """The request as the runner's ``prepare`` records it in run_info.json: ``RunRequest.to_task_payload`` of the
    request, which always has a harness and an environment id (and every execution setting, defaults included)."""
    from agentcompass.runtime.models.request import RunRequest

    request = {
        "benchmark": {"id": "demo"}, "harness": {"id": "mini-swe-agent"}, "environment": {"id": "host_process"},
        "model": {"id": "m", "api_key": "sk-request-0123456789"},
        "execution": {"attempts": {"k": max(task.k for task in plan), "strategy": "avg"}},
    }  # fmt: skip
    payload: dict[str, Any] = RunRequest.from_params(request).to_task_payload()
    return payload


def write_run(modules: SimpleNamespace, root: Path, plan: tuple[Task, ...], sandbox: Path) -> None:
    layout = modules.layout.RunLayout(root)

    class Store(modules.store.RunStore):  # type: ignore[misc,name-defined]
        def _get_output_directory(self, params: dict[str, Any]) -> Path:
            return root

    store = Store(None)
    store.write_run_info(root, recorded_request(plan), {"output": {"run_id": "run-1"}})
    for task in plan:
        payloads: dict[str, dict[str, Any]] = {}
        for attempt in task.attempts:
            for retry in range(1, attempt.retries + 1):
                layout.begin_run(task.task_id, attempt.number)
                if attempt.archive:
                    _collect(modules, root, task, attempt, sandbox, None)
                record = {
                    "schema_version": "agentcompass.retry.v1", "task_id": task.task_id, "category": task.category,
                    "attempt": attempt.number, "retry": retry, "max_retries": attempt.retries + 1,
                    "retry_delay_seconds": 0.5 * retry, "stage": "evaluate", "scope": "evaluate",
                    "matched_pattern": "fatal",
                    "issues": [{"severity": "fatal", "phase": "evaluate", "code": "judge_failed", "message": "502"}],
                    "discarded_result": {"status": "eval_error", "api_key": "sk-discarded-0123456789"},
                }  # fmt: skip
                asyncio.run(store.save_retry_detail(record, {}))
            layout.begin_run(task.task_id, attempt.number)
            artifacts: dict[str, Any] = {}
            if attempt.transfer is not None:
                failure = None if attempt.transfer == "complete" else attempt.transfer
                artifacts["declared_artifacts"] = _collect(modules, root, task, attempt, sandbox, failure)
            payloads[str(attempt.number)] = {
                "status": attempt.status,
                "metrics": {
                    "accuracy": 1.0 if attempt.status == "completed" else 0.0,
                    "passed": True,
                    "steps": 3,
                    "correct": attempt.status == "completed",
                },
                "final_answer": "42" if attempt.number % 2 else {"patch": "diff --git a b"},
                "trajectory": _trajectory(attempt),
                "issues": _issues(attempt),
                "artifacts": artifacts,
                "analysis_result": {"judge": {"is_badcase": False, "score": 0.5, "error": None, "extra": {}}},
                "meta": {"benchmark": {"grader": "exact"}, "harness": {"telemetry": {"tokens": 15}}},
            }
        if task.published:
            counts = {str(a.number): a.retries for a in task.attempts if a.retries}
            layout.write_result(
                {
                    "task_id": task.task_id,
                    "category": task.category,
                    "ground_truth": task.ground_truth,
                    "attempt_plan": {"k": task.k, "strategy": task.strategy},
                    "retry_count": sum(counts.values()),
                    "retry_counts": counts,
                    "attempts": payloads,
                }
            )


def reader_refuses(modules: SimpleNamespace, root: Path, task_ids: list[str]) -> BaseException | None:
    """What the released reader raises on a run: read every published task, read every task's index."""
    layout = modules.layout
    try:
        for path in layout.result_files(root):
            layout.read_result(path)
        for task_id in task_ids:
            layout.RunLayout(root).task_index(task_id)
    except Exception as error:  # any exception is a refusal: the reader has no other way to say no
        return error
    return None


# ---------------------------------------------------------------------------------------------- the run-level files


def uniform(plan: tuple[Task, ...], strategy: str = "avg") -> tuple[Task, ...]:
    """The tasks of a run that reached its summary: every task published, all under one attempt plan.

    Either every task has a category or none has: save_analysis_summary of 1.0.1 raises KeyError('') on a run
    that mixes both (it counts the uncategorized under a category it never created)."""
    k = max(task.k for task in plan)
    mixed = len({task.category is None for task in plan}) > 1
    return tuple(
        attrs.evolve(task, k=k, strategy=strategy, published=True, category=task.category or ("math" * mixed or None))
        for task in plan
    )


def persistence_params(plan: tuple[Task, ...]) -> dict[str, Any]:
    """What RunRequest.to_persistence_params gives for the request write_run records (with a benchmark parameter)."""
    return {
        "benchmark": {"id": "demo", "params": {"split": "test", "judge_api_key": "sk-judge-0123456789abcdef"}},
        "model": {"id": "m", "api_key": "sk-request-0123456789", "params": {"temperature": 0.2}},
        "execution": {"attempts": {"k": plan[0].k, "strategy": plan[0].strategy}, "task_concurrency": 4},
        "output": {"run_name": "", "run_id": "run-1"},
    }


METRIC_CONTRACT = {
    "correct": {"kind": "binary_success", "reducers": ["avg", "pass"], "primary": True},
    "accuracy": {"kind": "scalar", "reducers": ["avg"]},
    "passed": {"kind": "binary_success", "reducers": ["avg", "pass"]},
    "steps": {"kind": "scalar", "reducers": ["avg"]},
}


def metric_report(modules: SimpleNamespace, root: Path, plan: tuple[Task, ...]) -> Any:
    """The report the released aggregation (aggregate_metric_report) makes of the run's published tasks; an
    attempt records "correct" beside "passed"."""
    from agentcompass.runtime.metrics import MetricContract
    from agentcompass.runtime.metrics.report_aggregation import aggregate_metric_report

    details = [modules.layout.read_result(path) for path in modules.layout.result_files(root)]
    return aggregate_metric_report(
        details, contract=MetricContract(metrics=METRIC_CONTRACT), k=plan[0].k, strategy=plan[0].strategy
    )


def progress_reporter(root: Path, total_tasks: int) -> Any:
    """The released runner's progress reporter of a run (its JSON Lines and snapshot sinks at the run root), with
    the run started and its tasks loaded."""
    from agentcompass.runtime.progress import JsonlProgressSink, ProgressReporter, SnapshotProgressSink

    ids = SimpleNamespace(**{part: SimpleNamespace(id=name) for part, name in
                             (("benchmark", "demo"), ("harness", "h"), ("environment", "host_process"),
                              ("model", "m"))})  # fmt: skip
    reporter = ProgressReporter(
        run_id="run-1", request=ids,
        sinks=[JsonlProgressSink(root / "progress.jsonl"), SnapshotProgressSink(root / "progress.json")],
    )  # fmt: skip
    reporter.emit("run_started", payload={"benchmark": "demo"})
    reporter.emit("tasks_loaded", payload={"total_tasks": total_tasks})
    return reporter


def write_run_files(modules: SimpleNamespace, root: Path, plan: tuple[Task, ...]) -> dict[str, Any]:
    """After write_run: what the released runner writes at the run root to the end (RunStore._write_params_record,
    _write_metric_artifacts, _record_metric_artifact_provenance, save_analysis_summary, the progress sinks,
    write_terminal_status). The persistence parameters, which a reuse of the run requests again."""
    reporter = progress_reporter(root, len(plan))
    for task in plan:
        reporter.emit("task_started", task_id=task.task_id, category=task.category, attempt=1, phase="setup")
        reporter.emit("task_finished", task_id=task.task_id, category=task.category, status="completed")
    return finish_run(modules, root, plan, reporter)


def finish_run(modules: SimpleNamespace, root: Path, plan: tuple[Task, ...], reporter: Any) -> dict[str, Any]:
    """The end of a run, as the released runner writes it once its tasks are done: the summary's progress
    events, params.json, the metric artifacts and their provenance, the analysis summary, the terminal status.
    The persistence parameters, which a reuse of the run requests again."""
    reporter.emit("summary_started")
    params = persistence_params(plan)
    store = modules.store.RunStore(None)
    report = metric_report(modules, root, plan)
    store._write_params_record(root, params)
    store._write_metric_artifacts(root, report, params)
    store._record_metric_artifact_provenance(root, report, source="evaluation")
    asyncio.run(store.save_analysis_summary(params, output_dir=root))
    reporter.emit("run_finished", status="completed")
    reporter.close()
    store.write_terminal_status(root, "completed")
    return params


def run_readers_refuse(modules: SimpleNamespace, root: Path, params: dict[str, Any], task_ids: list[str],
                       unreusable: int = 0) -> dict[str, BaseException]:  # fmt: skip
    """What each released reader of run-level files raises on a run (none: {}): resume, reuse, summary, analysis,
    the metric report model, the result browser. Any exception is a refusal: they have no other way to say no.
    Reuse also refuses by leaving tasks out (it logs them): more than ``unreusable`` of them is a refusal (a task's
    own files, such as an artifact transfer that did not complete, can make it unreusable in every run)."""
    import copy
    import json
    import tempfile

    from agentcompass import launcher
    from agentcompass.runtime.metrics.report import MetricReport
    from agentcompass.viewer import reader

    store_module = modules.store
    refused: dict[str, BaseException] = {}

    def attempt(name: str, call: Any) -> None:
        try:
            call()
        except Exception as error:
            refused[name] = error

    store = store_module.RunStore(None)
    attempt("resume", lambda: store._require_current_run_info(store._load_run_info(root), path=root / "run_info.json"))

    def reuse() -> None:
        with tempfile.TemporaryDirectory() as target:

            class Store(store_module.RunStore):  # type: ignore[misc,name-defined]
                def _get_output_directory(self, params: dict[str, Any]) -> Path:
                    return Path(target)

            requested = copy.deepcopy(params)
            requested["runtime"] = {"reuse": True}
            requested["_reuse_source_dir"] = str(root)
            expected = store._normalized_attempt_plan(params["execution"]["attempts"])
            tasks = [{"task_id": task_id} for task_id in task_ids]
            reused = Store(None).materialize_reused_details(tasks, requested, expected_attempt_plan=expected)
            stats = asyncio.run(reused)
            if stats["failed"] > unreusable:  # it logs a task it cannot reuse and goes on without it
                raise ValueError(f"{stats['failed']} task(s) not reused")

    attempt("reuse", reuse)

    def summary() -> None:
        launcher._summary_request_from_run_dir(root, launcher.load_run_config(None))
        store.load_persisted_results(root)

    attempt("summary", summary)
    attempt("analysis", lambda: launcher._load_run_info(root))

    def report() -> None:
        path = root / "metrics.json"
        if path.exists():
            MetricReport.model_validate(json.loads(path.read_text(encoding="utf-8")))

    attempt("metric report", report)
    attempt("result browser", lambda: reader.read_run(str(root)))
    return refused


def unreusable_tasks(modules: SimpleNamespace, root: Path, params: dict[str, Any], task_ids: list[str]) -> int:
    """How many tasks of a run reuse leaves out (by the task's own files)."""
    for count in range(len(task_ids) + 1):
        if "reuse" not in run_readers_refuse(modules, root, params, task_ids, count):
            return count
    return len(task_ids)


def one_plan(plan: tuple[Task, ...]) -> tuple[Task, ...]:
    """The tasks of a plan under the one attempt plan a run has (write_run records k = the largest k, avg): the
    1.0.1 summary and reuse refuse a published task of another plan (_validate_detail_plans)."""
    k = max(task.k for task in plan)
    return tuple(attrs.evolve(task, k=k, strategy="avg") for task in plan)


def analysis_request_refuses(root: Path) -> BaseException | None:
    """What analysis (launcher.analyze) raises rebuilding the run's request: _load_run_info, then
    RunRequest.from_params (the step run_readers_refuse does not take)."""
    from agentcompass import launcher
    from agentcompass.runtime.models.request import RunRequest

    try:
        payload, _ = launcher._load_run_info(root)
        RunRequest.from_params(payload)
    except Exception as error:  # any exception is a refusal
        return error
    return None
