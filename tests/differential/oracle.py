"""Every reader entry point of the released AgentCompass 1.0.1, run on one run tree: what each refuses or misreads.

The answer maps a reader (and the file or task it was asked about) to what it raised. Any exception is a refusal:
the readers have no other way to say no. The readers, each as 1.0.1 calls it:

- the layout: ``result_files``, ``read_result`` of each, ``RunLayout.task_index`` of each task the benchmark loads;
  a task folder of the unchanged run's results that ``result_files`` no longer lists though its ``task.json`` is
  still in a final state (or, v2, directly in ``details/``) is a misread: the task silently drops out of the summary,
  reuse and the browser (``has_task_result`` false);
- resume, reuse, analysis's run_info, the metric report, the result browser's run: ``run_readers_refuse``
  (tests/agentcompass_runs.py), whose reuse fails where it leaves out more tasks than it does on the unchanged run;
- the runner's own preparation of a reuse or resume (``UnifiedEvaluationRuntime.prepare``): into a new run,
  ``materialize_reused_evaluation_checkpoints``, ``materialize_reused_details`` (published tasks, and the scheduler
  checkpoints of the tasks still running), then ``load_partial_results`` of the new run. They log what they pass
  over and go on: passing over more (evaluation checkpoints, tasks or scheduler checkpoints) than on the unchanged
  run is a refusal (``reuse_counts``);
- ``load_partial_results`` of the run itself with the request's plan, and the scheduler's
  ``RunAttemptCheckpointRepository.load`` of every attempt of every task, as a resumed attempt loads its own;
- the summary: ``launcher._summary_request_from_run_dir``, ``load_persisted_results``, ``build_detail_record`` of
  each, ``aggregate_metric_report`` with the contract the run's metrics.json declares and the request's plan, and
  ``MetricReport.model_validate`` of its answer, as ``summarize_results`` does;
- analysis: ``launcher._load_run_info``, ``RunRequest.from_params`` of its request, ``load_persisted_results``
  and ``TaskSpec.from_dict`` of each;
- the result browser (agentcompass/viewer/reader.py, each answer as viewer/server.py sends it): the listing
  (``read_tree`` of the results folder, ``read_details_page``: a card that says ``parse_error`` is a task it cannot
  show), ``read_run_counts``, ``read_detail`` of every card and ``read_detail_step`` of every step. Each answer is
  then parsed as the page's ``JSON.parse`` does (``page_parse``): a NaN or Infinity that ``json.dumps`` sends is a
  page that fails, and an integer beyond 2^53 that does not survive as a double is a misread.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..agentcompass_runs import run_readers_refuse, writer_modules
from .bases import Base

Refusals = dict[str, str]
EXACT = 2**53


def said(error: BaseException) -> str:
    """An exception in one line, as a report shows it."""
    text = " ".join(f"{type(error).__name__}: {error}".split())
    return text if len(text) <= 300 else text[:297] + "..."


class Misread(ValueError):
    """An answer the page reads as something else."""


def page_parse(answer: Any) -> None:
    """What the result browser's page does with an answer: aiohttp's ``json_response`` sends ``json.dumps`` of it,
    and the page reads it with ``JSON.parse``, which refuses NaN and Infinity and reads every number as a double."""
    text = json.dumps(answer)

    def constant(name: str) -> Any:
        raise ValueError(f"JSON.parse: unexpected token {name}")

    def integer(literal: str) -> Any:
        value = int(literal)
        if abs(value) > EXACT and float(value) != value:
            raise Misread(f"JSON.parse rounds {literal} to {int(float(value))}")
        return value

    json.loads(text, parse_constant=constant, parse_int=integer)


def refusals(base: Base, root: Path, limits: dict[str, int]) -> Refusals:
    """Every refusal and misread of the released readers on the run at ``root`` (a changed copy of ``base``);
    ``limits``: the ``reuse_counts`` of the unchanged run."""
    modules = writer_modules()
    assert modules is not None
    found: Refusals = {}

    def ask(name: str, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except Exception as error:  # any exception is a refusal
            found[name] = said(error)
            return None

    layout = modules.layout
    files = ask("layout result_files", lambda: layout.result_files(root)) or []
    if "layout result_files" not in found:
        listed = {path.parent.name for path in files}
        for index in sorted([*root.glob("details/*/task.json"), *root.glob("details/*/*/task.json")]):
            task = index.parent
            if task.name in base.published and task.name not in listed and task.parent.name != "running":
                found[f"layout dropped {task.name}"] = "a published task is no longer among the run's results"
    for path in files:
        ask(f"layout read_result {_relative(root, path)}", lambda path=path: layout.read_result(path))
    for task_id in base.task_ids:
        ask(f"layout task_index {task_id}", lambda task_id=task_id: layout.RunLayout(root).task_index(task_id))
    unreusable = limits["tasks"]
    for name, error in run_readers_refuse(modules, root, base.params, list(base.task_ids), unreusable).items():
        found[name] = said(error)

    def preparation() -> None:
        counts = reuse_counts(base, root)
        if any(counts[name] > limits[name] for name in counts):
            raise ValueError(f"passed over: {counts}, where the unchanged run has {limits}")

    ask("reuse preparation", preparation)
    ask("resume load_partial_results", lambda: _partial_results(modules, base, root))
    _checkpoints(base, root, ask)
    ask("summary aggregation", lambda: _summary(modules, base, root))
    ask("analysis", lambda: _analysis(modules, root))
    _browser(root, ask)
    return found


def _relative(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _store(modules: Any, output: Path) -> Any:
    class Store(modules.store.RunStore):  # type: ignore[misc,name-defined]
        def _get_output_directory(self, params: dict[str, Any]) -> Path:
            return output

    return Store(None)


def _partial_results(modules: Any, base: Base, root: Path) -> None:
    store = _store(modules, root)
    plan = store._normalized_attempt_plan(base.params["execution"]["attempts"])
    tasks = [{"task_id": task_id} for task_id in base.task_ids]
    asyncio.run(store.load_partial_results(tasks, base.params, expected_attempt_plan=plan))


def _checkpoints(base: Base, root: Path, ask: Callable[[str, Callable[[], Any]], Any]) -> None:
    from agentcompass.runtime.attempts import AttemptKey
    from agentcompass.runtime.attempts.repository import RunAttemptCheckpointRepository

    repository = RunAttemptCheckpointRepository(root)
    k = base.params["execution"]["attempts"]["k"]
    for task_id in base.task_ids:
        for number in range(1, k + 1):
            key = AttemptKey(task_id, number)
            ask(f"checkpoint load {task_id} attempt {number}", lambda key=key: asyncio.run(repository.load(key)))


def reuse_counts(base: Base, root: Path) -> dict[str, int]:
    """What the runner's preparation of a reuse of the run at ``root`` passes over: evaluation checkpoints it
    ignores as invalid, published tasks it does not reuse, scheduler checkpoints it cannot load."""
    import copy

    modules = writer_modules()
    with tempfile.TemporaryDirectory() as target:
        requested = copy.deepcopy(base.params)
        requested["runtime"] = {"reuse": True}
        requested["_reuse_source_dir"] = str(root)
        tasks = [{"task_id": task_id} for task_id in base.task_ids]
        store = _store(modules, Path(target))
        plan = store._normalized_attempt_plan(base.params["execution"]["attempts"])
        evaluation = asyncio.run(store.materialize_reused_evaluation_checkpoints(tasks, requested))
        details = asyncio.run(store.materialize_reused_details(tasks, requested, expected_attempt_plan=plan))
        asyncio.run(store.load_partial_results(tasks, requested, expected_attempt_plan=plan))
    return {"evaluation checkpoints": evaluation["failed"], "tasks": details["failed"],
            "scheduler checkpoints": details["checkpoint_failed"]}  # fmt: skip


def _summary(modules: Any, base: Base, root: Path) -> None:
    from agentcompass import launcher
    from agentcompass.runtime.metrics import MetricContract
    from agentcompass.runtime.metrics.report import MetricReport
    from agentcompass.runtime.metrics.report_aggregation import aggregate_metric_report
    from agentcompass.runtime.results.detail import build_detail_record

    request = launcher._summary_request_from_run_dir(root, launcher.load_run_config(None))
    raw = modules.store.RunStore(None).load_persisted_results(root)
    request.to_persistence_params()
    details = [build_detail_record(result) for result in raw]
    attempts = request.execution.attempts
    report = aggregate_metric_report(
        details, contract=MetricContract(metrics=base.contract), k=attempts.k, strategy=attempts.strategy
    )
    MetricReport.model_validate(report)


def _analysis(modules: Any, root: Path) -> None:
    from agentcompass import launcher
    from agentcompass.runtime.models.request import RunRequest
    from agentcompass.runtime.models.task import TaskSpec

    payload, path = launcher._load_run_info(root)
    RunRequest.from_params(payload)
    for task in modules.store.RunStore(None).load_persisted_results(path):
        TaskSpec.from_dict({**task, "task_id": task["task_id"], "question": str(task.get("question") or "")})


def _browser(root: Path, ask: Callable[[str, Callable[[], Any]], Any]) -> None:
    from agentcompass.viewer import reader

    for cache in (reader._summary_cache, reader._published_cache, reader._attempt_cache):
        cache.clear()
    run = str(root)

    def answer(name: str, call: Callable[[], Any]) -> Any:
        def shown() -> Any:
            result = call()
            page_parse(result)
            return result

        return ask(name, shown)

    answer("browser tree", lambda: reader.read_tree(str(root.parent)))
    answer("browser run", lambda: reader.read_run(run))
    answer("browser counts", lambda: reader.read_run_counts(run))
    page = answer("browser listing", lambda: reader.read_details_page(run, 1, reader.MAX_PAGE_SIZE))
    for card in page["details"] if page else []:
        name = card["fileName"]
        if card.get("status") == "parse_error":
            ask(f"browser card {name}", lambda card=card: _raise(card["error"]))
            continue
        detail = answer(f"browser detail {name}", lambda name=name: reader.read_detail(run, name))
        attempts = detail["detail"]["attempts"] if detail else {}
        for number, attempt in attempts.items():
            steps = (attempt.get("trajectory") or {}).get("steps") or []
            for index in range(len(steps)):
                answer(
                    f"browser step {name} attempt {number} step {index}",
                    lambda name=name, number=number, index=index: reader.read_detail_step(run, name, number, index),
                )


def _raise(message: str) -> None:
    raise ValueError(message)
