"""The contract with the released AgentCompass 1.0.1, both ways, on runs its own writer writes.

On the v3 layout: a run the writer writes validates with no error and no warning; and a run its reader
(``result_files``, ``read_result``, ``task_index``, ``build_detail_record``) refuses gets at least one error.
The runs come from the writer's own functions (tests/agentcompass_runs.py): every state, retries and archives,
collected, missing, failed and cancelled artifact transfers, step ids from 0, several attempts, Unicode and
300-character task ids. The mutations are what a hand, a script or another writer does to such files.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbeats_spec import Issue, validate

from ..agentcompass_runs import Task, one_plan, reader_refuses, runs, write_run, writer_modules
from ..conftest import places

MODULES = writer_modules()
pytestmark = pytest.mark.skipif(MODULES is None, reason="AgentCompass 1.0.1 is not installed (make test does it)")
SETTINGS = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
MUTATIONS_PER_RUN = 10


def modules() -> SimpleNamespace:
    assert MODULES is not None
    return MODULES


def failures(issues: list[Issue]) -> list[Issue]:
    return [issue for issue in issues if issue.severity in ("error", "warning")]


@SETTINGS
@given(plan=runs, picks=st.data())
def test_what_the_writer_writes_validates_and_what_its_reader_refuses_gets_an_error(
    plan: tuple[Task, ...], picks: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = (Path(folder) / "run").resolve()
        root.mkdir()
        write_run(modules(), root, one_plan(plan), Path(folder) / "sandbox")
        task_ids = [task.task_id for task in plan]
        assert reader_refuses(modules(), root, task_ids) is None
        assert failures(validate(root)) == []
        documents = sorted(path for path in root.rglob("*.json") if "retries" not in path.parts)
        for round_ in range(MUTATIONS_PER_RUN):
            copied = Path(folder) / f"mutant-{round_}"
            shutil.copytree(root, copied, symlinks=True)
            if picks.draw(st.booleans(), label="a file, or the tree"):
                target = picks.draw(st.sampled_from(documents), label="file")
                mutation = picks.draw(mutations(json.loads(target.read_text(encoding="utf-8"))), label="mutation")
                (copied / target.relative_to(root)).write_text(mutation, encoding="utf-8")
                what = f"{target.relative_to(root)}:\n{mutation}"
            else:
                what = picks.draw(tree_mutations(copied), label="tree mutation")
            refused = reader_refuses(modules(), copied, task_ids)
            if refused is not None:
                errors = [issue for issue in validate(copied) if issue.severity == "error"]
                assert errors, f"the reader refuses ({refused!r}) {what}"
            shutil.rmtree(copied)


@SETTINGS
@given(plan=runs, picks=st.data())
def test_a_detail_record_the_reader_refuses_gets_an_error(plan: tuple[Task, ...], picks: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = (Path(folder) / "run").resolve()
        root.mkdir()
        write_run(modules(), root, plan, Path(folder) / "sandbox")
        records = [modules().layout.read_result(path) for path in modules().layout.result_files(root)]
    for record in records:
        assert failures(validate(record, "agentcompass-task-detail")) == []
        for _ in range(MUTATIONS_PER_RUN):
            text = picks.draw(mutations(record), label="mutation")
            try:
                mutated = json.loads(text)
                modules().detail.build_detail_record(copy.deepcopy(mutated), strict=True)
            except Exception:  # any exception is a refusal
                errors = [i for i in validate(text, "agentcompass-task-detail") if i.severity == "error"]
                assert errors, text


@st.composite
def tree_mutations(draw: Any, root: Path) -> str:
    """One change to the folders of a run, made in place; what it did."""
    task = draw(st.sampled_from(sorted(path for path in root.glob("details/*/*") if path.is_dir())), label="task")
    attempts = sorted(path for path in task.glob("attempt-*") if path.is_dir())
    other_state = root / "details" / draw(st.sampled_from([s for s in STATES if s != task.parent.name]))
    kind = draw(st.sampled_from(["rename", "move", "copy", "drop attempt", "rename attempt", "drop result",
                                 "drop index", "link result"]))  # fmt: skip
    attempt = draw(st.sampled_from(attempts)) if attempts else None
    if kind == "rename":
        task.rename(task.with_name(draw(st.sampled_from(["x", "task_", "-"])) + task.name))
    elif kind in ("move", "copy"):
        other_state.mkdir(exist_ok=True)
        (task.rename if kind == "move" else lambda target: shutil.copytree(task, target))(other_state / task.name)
    elif kind == "drop index":
        (task / "task.json").unlink()
    elif attempt is not None and kind == "drop attempt":
        shutil.rmtree(attempt)
    elif attempt is not None and kind == "rename attempt":
        attempt.rename(attempt.with_name(attempt.name.replace("-", "-0")))
    elif attempt is not None and (attempt / "result.json").is_file():
        result = attempt / "result.json"
        if kind == "link result":
            elsewhere = root / "elsewhere.json"
            result.replace(elsewhere)
            result.symlink_to(elsewhere)
        else:
            result.unlink()
    return f"{kind} {task.relative_to(root)} {attempt.name if attempt else ''}"


STATES = ("running", "normal", "error", "fatal")


# What is done to a document: each turns its JSON value into the text written in its place.
def replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copied = copy.deepcopy(document)
    holder = copied
    for token in path[:-1]:
        holder = holder[token]
    holder[path[-1]] = value
    return copied


def renamed(document: Any, path: tuple[Any, ...], name: str) -> Any:
    copied = copy.deepcopy(document)
    holder = copied
    for token in path[:-1]:
        holder = holder[token]
    holder_items = list(holder.items())
    holder.clear()
    holder.update((name if key == path[-1] else key, item) for key, item in holder_items)
    return copied


def dropped(document: Any, path: tuple[Any, ...]) -> Any:
    copied = copy.deepcopy(document)
    holder = copied
    for token in path[:-1]:
        holder = holder[token]
    del holder[path[-1]]
    return copied


def dumped(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


OTHER_VALUES = ["x", "", 7, 0, -1, 1.5, None, True, False, [], {}, {"zz": 1}, ["x"], 2**63, "done", " x", "x\n"]


@st.composite
def mutations(draw: Any, document: Any) -> str:
    """One change to a document, as the text of the file."""
    found = list(places(document, first_items=4))
    path, value = draw(st.sampled_from(found), label="place")
    kind = draw(
        st.sampled_from(["retype", "float", "drop", "extra", "newline", "pad", "empty", "rename", "nan", "truncate"]),
        label="kind",
    )
    if kind == "retype":
        return dumped(replaced(document, path, draw(st.sampled_from(OTHER_VALUES), label="value")))
    if kind == "float" and isinstance(value, int) and not isinstance(value, bool):
        return dumped(replaced(document, path, float(value)))  # 1 written as 1.0
    if kind == "drop" and path and isinstance(path[-1], str):
        return dumped(dropped(document, path))
    if kind == "extra" and isinstance(value, dict):
        name = draw(st.sampled_from(["zz_extra", "error", "ground_truth", "retry_count", "Status", "kind "]))
        return dumped(replaced(document, path, {**value, name: 1}))
    if kind == "newline" and isinstance(value, str):
        return dumped(replaced(document, path, value + "\n"))
    if kind == "pad" and isinstance(value, str):
        return dumped(replaced(document, path, draw(st.sampled_from([" ", "\u3000", "\t"])) + value))
    if kind == "empty" and isinstance(value, (dict, list)):
        return dumped(replaced(document, path, type(value)()))
    if kind == "rename" and path and isinstance(path[-1], str):
        name = draw(st.sampled_from([path[-1] + "\n", "0" + path[-1], path[-1].upper(), path[-1] + "_", ""]))
        return dumped(renamed(document, path, name))
    if kind == "nan" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return dumped(replaced(document, path, math.nan))
    if kind == "truncate":
        text = dumped(document)
        return text[: draw(st.integers(0, len(text) - 1), label="cut")]
    # A change that does not apply to this place: the status or a member of the manifest, the commonest mistakes.
    return dumped(replaced(document, path, draw(st.sampled_from(OTHER_VALUES), label="value")))


def _one_task_run(folder: Path, transfer: str) -> Path:
    from ..agentcompass_runs import Attempt

    attempt = Attempt(1, "run_error", ("error",), 0, 2, False, True, transfer, 2, True, 1, True)
    plan = (Task("swe/utils: ünï #1", "swe", None, 1, "avg", (attempt,), True),)
    root = (folder / "run").resolve()
    root.mkdir()
    write_run(modules(), root, plan, folder / "sandbox")
    return next(root.glob("details/*/*/attempt-1/result.json"))


@pytest.mark.parametrize(("transfer", "statuses"), [
    ("failed", ["missing", "failed", "not_collected"]),
    ("cancelled", ["missing", "cancelled", "not_collected"]),
    ("complete", ["missing", "collected", "collected"]),
])  # fmt: skip
def test_a_transfer_as_the_collector_records_it_is_valid(tmp_path: Path, transfer: str, statuses: list[str]) -> None:
    result = _one_task_run(tmp_path, transfer)
    manifest = json.loads(result.read_text(encoding="utf-8"))["artifacts"]["declared_artifacts"]
    assert [entry["status"] for entry in manifest["entries"]] == statuses
    assert failures(validate(result.parents[3])) == []


def test_a_complete_manifest_holds_only_final_statuses(tmp_path: Path) -> None:
    result = _one_task_run(tmp_path, "failed")
    text = result.read_text(encoding="utf-8")
    broken = text.replace('"complete": false', '"complete": true', 1)
    result.write_text(broken, encoding="utf-8")
    found = [(i.code, i.pointer, i.line) for i in validate(result) if i.severity == "error"]
    lines = broken.splitlines()
    failed = next(n for n, line in enumerate(lines, 1) if '"status": "failed"' in line)
    pending = next(n for n, line in enumerate(lines, 1) if '"status": "not_collected"' in line)
    entries = "/artifacts/declared_artifacts/entries"
    assert found == [("schema.enum", f"{entries}/1/status", failed), ("schema.enum", f"{entries}/2/status", pending)]


def test_collector_counts_are_integers(tmp_path: Path) -> None:
    result = _one_task_run(tmp_path, "complete")
    text = result.read_text(encoding="utf-8")
    assert '"file_count": 1\n' in text
    broken = text.replace('"file_count": 1\n', '"file_count": 1.0\n', 1)
    result.write_text(broken, encoding="utf-8")
    (issue,) = [i for i in validate(result) if i.severity == "error"]
    line = next(n for n, text_line in enumerate(broken.splitlines(), 1) if '"file_count": 1.0' in text_line)
    assert (issue.code, issue.pointer, issue.line) == (
        "schema.type",
        "/artifacts/declared_artifacts/entries/1/file_count",
        line,
    )
    assert issue.message == "expected an integer, found the number 1.0"


# ------------------------------------------------------------------ issue 34: verdicts the 1.0.1 readers contradicted


@pytest.mark.parametrize("name", ["task.json", "attempt-1/result.json"])
def test_a_byte_order_mark_in_a_task_file_is_an_error_as_the_reader_refuses_the_run(tmp_path: Path, name: str) -> None:
    result = _one_task_run(tmp_path, "complete")
    root, target = result.parents[4], result.parents[1] / name
    target.write_bytes(b"\xef\xbb\xbf" + target.read_bytes())
    refused = reader_refuses(modules(), root, ["swe/utils: ünï #1"])
    assert refused is not None and "BOM" in str(refused)  # read with encoding="utf-8", then json.loads
    found = [(i.code, i.severity) for i in validate(root) if i.file == str(target)]
    assert found == [("json.bom", "error")]


def _finished_run(folder: Path, k: int) -> tuple[Path, tuple[Task, ...]]:
    from ..agentcompass_runs import Attempt, uniform, write_run_files

    attempt = Attempt(1, "completed", (), 0, 1, True, False, None, 0, False, 0, False)
    plan = uniform((Task("t1", "math", "42", k, "avg", (attempt,), True),))
    root = (folder / "run").resolve()
    root.mkdir()
    write_run(modules(), root, plan, folder / "sandbox")
    write_run_files(modules(), root, plan)
    return root, plan


@pytest.mark.parametrize(
    ("k", "metric", "value", "said"),
    [
        (1, "bogus", 1.0, "is not declared by this Benchmark"),
        (2, "passed", 1, "requires a JSON boolean"),
        (1, "steps", True, "requires a JSON number"),
    ],
)
def test_an_attempt_metric_outside_the_runs_metric_contract_is_an_error_as_the_summary_refuses_it(
    tmp_path: Path, k: int, metric: str, value: Any, said: str
) -> None:
    from ..agentcompass_runs import metric_report

    root, plan = _finished_run(tmp_path, k)
    assert failures(validate(root)) == []
    result = next(root.glob("details/*/*/attempt-1/result.json"))
    data = json.loads(result.read_text(encoding="utf-8"))
    data["metrics"][metric] = value
    result.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(Exception, match=said):  # MetricContract.validate_observations, which the summary runs
        metric_report(modules(), root, plan)
    found = [(i.code, i.file, i.pointer) for i in validate(root) if i.severity == "error"]
    assert found == [("layout.undeclared-metric", str(result), f"/metrics/{metric}")]


def test_a_metric_a_report_above_k_1_does_not_list_is_not_judged(tmp_path: Path) -> None:
    """Above k = 1 a metric without an avg or pass reducer has no series: metrics.json need not list it."""
    root, _ = _finished_run(tmp_path, 2)
    result = next(root.glob("details/*/*/attempt-1/result.json"))
    data = json.loads(result.read_text(encoding="utf-8"))
    data["metrics"]["reward"] = 0.5
    result.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert [i for i in validate(root) if i.severity == "error"] == []


@pytest.mark.parametrize("service", ["sidecar", "Main"])
def test_a_manifest_entry_of_a_service_other_than_main_is_an_error_as_reuse_leaves_the_task_out(
    tmp_path: Path, service: str
) -> None:
    from ..agentcompass_runs import Attempt, persistence_params, run_readers_refuse, uniform, write_run_files

    collected = Attempt(1, "completed", (), 0, 1, True, False, "complete", 1, False, 0, False)
    plan = uniform((Task("with files", "swe", None, 1, "avg", (collected,), True),))
    root = (tmp_path / "run").resolve()
    root.mkdir()
    write_run(modules(), root, plan, tmp_path / "sandbox")
    write_run_files(modules(), root, plan)
    params = persistence_params(plan)
    assert run_readers_refuse(modules(), root, params, ["with files"]) == {}
    result = next(root.glob("details/*/*/attempt-1/result.json"))
    data = json.loads(result.read_text(encoding="utf-8"))
    data["artifacts"]["declared_artifacts"]["entries"][0]["service"] = service
    result.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert set(run_readers_refuse(modules(), root, params, ["with files"])) == {"reuse"}  # the task is left out
    found = [(i.code, i.file, i.pointer) for i in validate(root) if i.severity == "error"]
    assert found == [("rule.reuse-refused", str(result), "/artifacts/declared_artifacts/entries/0/service")]


def _running_with_scheduler(folder: Path) -> tuple[Path, Path, Any]:
    """A run whose one task is still running, its first attempt finished and checkpointed by the released
    scheduler's repository (RunAttemptCheckpointRepository.save: result.json and the scheduler section)."""
    import asyncio

    from agentcompass.runtime.attempts.repository import (
        AttemptCheckpoint,
        AttemptKey,
        AttemptTerminalStatus,
        RunAttemptCheckpointRepository,
    )

    from ..agentcompass_runs import Attempt

    attempt = Attempt(1, "completed", (), 0, 1, True, False, None, 0, False, 0, False)
    plan = (Task("still running", "math", None, 2, "avg", (attempt,), False),)
    root = (folder / "run").resolve()
    root.mkdir()
    write_run(modules(), root, plan, folder / "sandbox")
    value = {"status": "completed", "metrics": {"passed": True}, "final_answer": "42", "trajectory": {}, "issues": [],
             "artifacts": {}, "analysis_result": {}, "meta": {"benchmark": {}, "harness": {}}}  # fmt: skip
    key = AttemptKey("still running", 1)
    repository = RunAttemptCheckpointRepository(root)
    asyncio.run(repository.save(AttemptCheckpoint(key, AttemptTerminalStatus.COMPLETED, value=value)))
    checkpoint = next(root.glob("details/running/*/attempt-1/checkpoint.json"))
    return checkpoint, root, lambda: asyncio.run(RunAttemptCheckpointRepository(root).load(key))


@pytest.mark.parametrize(
    ("what", "pointer"),
    [("result gone", "/scheduler/result_path"), ("task_id 5", "/scheduler/task_id"),
     ("another version", "/scheduler/schema_version"), ("another attempt", "/scheduler/attempt_index")],
)  # fmt: skip
def test_a_running_tasks_scheduler_checkpoint_reuse_cannot_load_is_an_error(
    tmp_path: Path, what: str, pointer: str
) -> None:
    checkpoint, root, load = _running_with_scheduler(tmp_path)
    assert load() is not None
    assert failures(validate(root)) == []  # a still-running run, as the writer leaves it
    data = json.loads(checkpoint.read_text(encoding="utf-8"))
    if what == "result gone":
        (checkpoint.parent / "result.json").unlink()
    elif what == "task_id 5":
        data["scheduler"]["task_id"] = 5
    elif what == "another version":
        data["scheduler"]["schema_version"] = "agentcompass.logical_attempt.v9"
    else:
        data["scheduler"]["attempt_index"] = 2
    checkpoint.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    with pytest.raises(Exception):  # noqa: B017  (any exception is a refusal)
        load()
    found = [(i.code, i.file, i.pointer) for i in validate(root) if i.severity == "error"]
    assert found == [("layout.checkpoint-scheduler", str(checkpoint), pointer)]


BIG = 2**53 + 1


def _rewritten(path: Path, change: Any) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _misread_by_the_page(root: Path) -> list[str]:
    """What the result browser's page misreads of each task it shows: read_detail of every card and
    read_detail_step of every step, each parsed as JSON.parse does (tests/differential/oracle.py)."""
    from agentcompass.viewer import reader

    from ..differential.oracle import Misread, page_parse

    for cache in (reader._summary_cache, reader._published_cache, reader._attempt_cache):
        cache.clear()
    run, misread = str(root), []
    for card in reader.read_details_page(run, 1, reader.MAX_PAGE_SIZE)["details"]:
        answers = [reader.read_detail(run, card["fileName"])]
        for number, attempt in answers[0]["detail"]["attempts"].items():
            steps = (attempt.get("trajectory") or {}).get("steps") or []
            answers += [reader.read_detail_step(run, card["fileName"], number, index) for index in range(len(steps))]
        for answer in [card, *answers]:
            try:
                page_parse(answer)
            except Misread as error:
                misread.append(str(error))
    return misread


def _set_step_metric(data: Any) -> None:
    data["trajectory"]["steps"][0]["metric"] = {"env_action_ms": BIG}


def _set_meta(data: Any) -> None:
    data["meta"]["benchmark"]["seen"] = BIG


@pytest.mark.parametrize(
    ("name", "change", "pointer", "severity"),
    [
        ("attempt-1/result.json", _set_step_metric, "/trajectory/steps/0/metric/env_action_ms", "error"),
        ("attempt-1/result.json", _set_meta, "/meta/benchmark/seen", "warning"),
        ("task.json", lambda data: data.update(ground_truth=BIG), "/ground_truth", "warning"),
    ],
    ids=["a step metric the browser sends", "meta, never sent", "ground_truth, never sent"],
)
def test_an_integer_beyond_2_53_in_a_task_file_is_an_error_where_the_browser_shows_it(
    tmp_path: Path, name: str, change: Any, pointer: str, severity: str
) -> None:
    from ..agentcompass_runs import persistence_params, run_readers_refuse

    root, plan = _finished_run(tmp_path, 1)
    assert _misread_by_the_page(root) == []
    target = next(root.glob("details/*/*/task.json")).parent / name
    _rewritten(target, change)
    assert run_readers_refuse(modules(), root, persistence_params(plan), ["t1"]) == {}  # Python reads it exactly
    assert bool(_misread_by_the_page(root)) is (severity == "error")  # the page rounds it, or never gets it
    found = [(i.code, i.file, i.pointer, i.severity) for i in validate(root) if i.severity != "info"]
    assert found == [("json.large-integer", str(target), pointer, severity)]


def test_an_integer_beyond_2_53_in_a_retry_record_the_browser_shows_is_an_error(tmp_path: Path) -> None:
    result = _one_task_run(tmp_path, "complete")
    root, record = result.parents[4], next(result.parent.glob("retries/*.json"))
    assert _misread_by_the_page(root) == []
    _rewritten(record, lambda data: data.update(max_retries=BIG))
    assert _misread_by_the_page(root) == [f"JSON.parse rounds {BIG} to {2**53}"]  # read_detail's retryDetails
    found = [(i.code, i.pointer, i.severity) for i in validate(root) if i.file == str(record)]
    assert found == [("json.large-integer", "/max_retries", "error")]


def test_a_task_folder_not_in_a_run_keeps_the_warning(tmp_path: Path) -> None:
    root, _ = _finished_run(tmp_path, 1)
    task = next(root.glob("details/*/*/task.json")).parent
    alone = shutil.copytree(task, tmp_path / "alone" / task.name)  # no run: no browser shows it
    _rewritten(alone / "attempt-1" / "result.json", _set_step_metric)
    found = [(i.code, i.severity) for i in validate(alone) if i.code == "json.large-integer"]
    assert found == [("json.large-integer", "warning")]


@pytest.mark.parametrize("state", ["finished", "running"])
def test_a_checkpoint_json_that_is_a_folder_is_an_error_as_the_checkpoint_repository_cannot_load_it(
    tmp_path: Path, state: str
) -> None:
    import asyncio

    from agentcompass.runtime.attempts import AttemptKey
    from agentcompass.runtime.attempts.repository import RunAttemptCheckpointRepository

    if state == "running":
        checkpoint, root, _ = _running_with_scheduler(tmp_path)
        key = AttemptKey("still running", 1)
        checkpoint.unlink()
    else:
        root, _ = _finished_run(tmp_path, 1)
        checkpoint = next(root.glob("details/*/*/attempt-1")) / "checkpoint.json"
        key = AttemptKey("t1", 1)
    load = lambda: asyncio.run(RunAttemptCheckpointRepository(root).load(key))  # noqa: E731
    assert state == "finished" or load() is None  # no file: nothing to load, as before any checkpoint
    checkpoint.mkdir()
    with pytest.raises(IsADirectoryError):
        load()
    found = [(i.code, i.file, i.severity) for i in validate(root) if i.severity != "info"]
    assert found == [("io.not-a-file", str(checkpoint), "error")]
