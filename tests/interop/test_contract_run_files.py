"""The contract with the released AgentCompass 1.0.1 for the files at a run root, both ways.

Runs whose run-level files the 1.0.1 writer writes (tests/agentcompass_runs.py: RunStore.write_run_info,
_write_params_record, _write_metric_artifacts, _record_metric_artifact_provenance, save_analysis_summary, the two
progress sinks, write_terminal_status) validate with no error and no warning. Then each file is changed, one change
at a time, and every released reader of run-level files is asked (resume, reuse, summary, analysis, MetricReport,
the result browser: ``run_readers_refuse``): where any of them raises, the change gets an error at its member;
where all of them read it, it gets no error, and a warning at its member where it departs from what the writer
writes.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from agentbeats_spec import Issue, validate

from ..agentcompass_runs import (
    Task,
    analysis_request_refuses,
    metric_report,
    run_readers_refuse,
    runs,
    uniform,
    unreusable_tasks,
    write_run,
    write_run_files,
    writer_modules,
)

MODULES = writer_modules()
try:
    import agentcompass.viewer.reader  # noqa: F401  (the result browser needs msgspec)
except ImportError:
    MODULES = None
pytestmark = pytest.mark.skipif(MODULES is None, reason="AgentCompass 1.0.1 is not installed (make test does it)")
SETTINGS = settings(
    max_examples=4,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking a run's many files takes longer than it helps
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
Change = Callable[[Any], Any]


def modules() -> SimpleNamespace:
    assert MODULES is not None
    return MODULES


def _set(*path: Any, value: Any) -> Change:
    def change(data: Any) -> Any:
        node = data
        for token in path[:-1]:
            node = node[token]
        node[path[-1]] = value
        return data

    return change


def _drop(*path: Any) -> Change:
    def change(data: Any) -> Any:
        node = data
        for token in path[:-1]:
            node = node[token]
        del node[path[-1]]
        return data

    return change


def _each_series(change: Callable[[dict[str, Any]], None]) -> Change:
    def each(report: Any) -> Any:
        for series in report["series"]:
            change(series)
        return report

    return each


def _without_invalidated(series: dict[str, Any]) -> None:
    for scope in (series, *series["categories"].values(), *series["hierarchy"].values()):
        scope["counts"].pop("invalidated")


def _valued(report: Any, binary: bool = False) -> tuple[int, str]:
    """The first series with a value (of a binary_success metric), and where its value is."""
    role = "reference_value" if report["evaluation_failed"] else "value"
    position = next(
        index for index, item in enumerate(report["series"])
        if item[role] is not None and (not binary or item["kind"] == "binary_success")
    )  # fmt: skip
    return position, role


def _has_value(report: Any, binary: bool) -> bool:
    try:
        _valued(report, binary)
    except StopIteration:
        return False
    return True


def plan_changes(task_ids: list[str], collected: bool, reusable: bool) -> list[tuple[str, str, Change, set[str]]]:
    """Every task's resolved execution plan (which reuse reads to copy its collected files) broken: the task's
    plan, or the plan of its first attempt. Reuse reads them only for the tasks it reuses (asked only where one
    is), and refuses an attempt's plan only for an attempt that has collected files (known to the task's unit, not
    to run_info.json's): it is a warning, so it is asked only of a run without."""
    from agentbeats_spec.reading._pointers import join

    def plans(plan: Any) -> Change:
        return _set("resolved_execution_plans", value=dict.fromkeys(task_ids, plan))

    tasks = {join("/resolved_execution_plans", task_id) for task_id in task_ids}
    changes = [("run_info.json", "a task's plan text", plans("x"), tasks)] if reusable else []
    if not collected:
        attempts = {join(task, "attempts", "1") for task in tasks}
        changes.append(("run_info.json", "an attempt's plan text", plans({"attempts": {"1": "x"}}), attempts))
    return changes


def _upper_reducer(report: Any) -> Any:
    report["series"][0]["reducer"] = report["series"][0]["reducer"].upper()
    return report


def _flip(report: Any) -> Any:
    report["evaluation_failed"] = not report["evaluation_failed"]
    return report


def _swap_values(report: Any) -> Any:
    series = report["series"][_valued(report)[0]]
    series["value"], series["reference_value"] = series["reference_value"], series["value"]
    return report


def _binary_out_of_range(report: Any) -> Any:
    position, role = _valued(report, binary=True)
    report["series"][position][role] = 1.5
    return report


PLAN = "/request/execution/attempts"
# (file, what, change, pointer): the change, and the member its issue is placed at.
CHANGES: list[tuple[str, str, Change, str]] = [
    # run_info.json: what resume (_require_current_run_info) and reuse (_validate_reuse_source,
    # _normalized_attempt_plan, materialize_reused_details) require, and what only the writer does
    ("run_info.json", "another version", _set("schema_version", value="agentcompass.run_info.v1"), "/schema_version"),
    ("run_info.json", "no run_id", _drop("run_id"), "/run_id"),
    ("run_info.json", "blank run_id", _set("run_id", value=" "), "/run_id"),
    ("run_info.json", "run_id a number", _set("run_id", value=7), "/run_id"),
    ("run_info.json", "no request", _drop("request"), "/request"),
    ("run_info.json", "request text", _set("request", value="demo"), "/request"),
    ("run_info.json", "request {}", _set("request", value={}), "/request/benchmark"),
    ("run_info.json", "benchmark text", _set("request", "benchmark", value="demo"), "/request/benchmark"),
    ("run_info.json", "no benchmark id", _drop("request", "benchmark", "id"), "/request/benchmark/id"),
    ("run_info.json", "benchmark id a number", _set("request", "benchmark", "id", value=5), "/request/benchmark/id"),
    ("run_info.json", "no execution", _drop("request", "execution"), "/request/execution"),
    ("run_info.json", "execution [1]", _set("request", "execution", value=[1]), "/request/execution"),
    ("run_info.json", "no attempt plan", _drop("request", "execution", "attempts"), PLAN),
    ("run_info.json", "k 0", _set("request", "execution", "attempts", "k", value=0), PLAN + "/k"),
    ("run_info.json", "k 2.0", _set("request", "execution", "attempts", "k", value=2.0), PLAN + "/k"),
    ("run_info.json", "k true", _set("request", "execution", "attempts", "k", value=True), PLAN + "/k"),
    ("run_info.json", "no k", _drop("request", "execution", "attempts", "k"), PLAN + "/k"),
    (
        "run_info.json",
        "unknown strategy",
        _set("request", "execution", "attempts", "strategy", value="best"),
        PLAN + "/strategy",
    ),
    ("run_info.json", "strategy 5", _set("request", "execution", "attempts", "strategy", value=5), PLAN + "/strategy"),
    ("run_info.json", "no strategy", _drop("request", "execution", "attempts", "strategy"), PLAN + "/strategy"),
    ("run_info.json", "extra plan key", _set("request", "execution", "attempts", "seed", value=1), PLAN + "/seed"),
    (
        "run_info.json",
        "task_concurrency text",
        _set("request", "execution", "task_concurrency", value="many"),
        "/request/execution/task_concurrency",
    ),
    (
        "run_info.json",
        "no timeout multiplier",
        _set("request", "execution", "timeout_multiplier", value=None),
        "/request/execution/timeout_multiplier",
    ),
    (
        "run_info.json",
        "a negative timeout",
        _set("request", "execution", "run_timeout_seconds", value=-1),
        "/request/execution/run_timeout_seconds",
    ),
    (
        "run_info.json",
        "save_artifacts text",
        _set("request", "execution", "save_artifacts", value="yes"),
        "/request/execution/save_artifacts",
    ),
    ("run_info.json", "plans null", _set("resolved_execution_plans", value=None), "/resolved_execution_plans"),
    ("run_info.json", "plans []", _set("resolved_execution_plans", value=[]), "/resolved_execution_plans"),
    ("run_info.json", "started_at yesterday", _set("started_at", value="yesterday"), "/started_at"),
    ("run_info.json", "started_at a number", _set("started_at", value=5), "/started_at"),
    ("run_info.json", "status 3", _set("status", value=3), "/status"),
    ("run_info.json", "finished_at soon", _set("finished_at", value="soon"), "/finished_at"),
    ("run_info.json", "error a number", _set("error", value=5), "/error"),
    ("run_info.json", "unknown member", _set("host", value="gpu-7"), "/host"),
    ("run_info.json", "near miss", _set("reused_form", value={"run_id": "r0"}), "/reused_form"),
    (
        "run_info.json",
        "padded strategy",
        _set("request", "execution", "attempts", "strategy", value=" avg "),
        PLAN + "/strategy",
    ),
    (
        "run_info.json",
        "upper-case strategy",
        _set("request", "execution", "attempts", "strategy", value="AVG"),
        PLAN + "/strategy",
    ),
    (
        "run_info.json",
        "provenance source",
        _set("metric_artifacts", "source", value="manual"),
        "/metric_artifacts/source",
    ),
    # params.json: read by the summary only, through _payload_section
    ("params.json", "benchmark text", _set("benchmark", value="gsm8k"), "/benchmark"),
    ("params.json", "unknown section", _set("seed", value=1), "/seed"),
    ("params.json", "execution [1]", _set("execution", value=[1]), "/execution"),
    ("params.json", "run_name a number", _set("output", "run_name", value=5), "/output/run_name"),
    ("params.json", "blank benchmark id", _set("benchmark", "id", value=""), "/benchmark/id"),
    ("params.json", "k 0 under the request's", _set("execution", "attempts", "k", value=0), "/execution/attempts/k"),
    ("params.json", "extra plan key", _set("execution", "attempts", "seed", value=1), "/execution/attempts/seed"),
    # metrics.json: MetricReport.model_validate
    (
        "metrics.json",
        "counts without invalidated",
        _each_series(_without_invalidated),
        "/series/0/counts/invalidated|/series/0/counts/total",
    ),
    ("metrics.json", "no extra", _drop("extra"), "/extra"),
    ("metrics.json", "no display", _drop("series", 0, "display"), "/series/0/display"),
    ("metrics.json", "padded strategy", lambda report: {**report, "strategy": f" {report['strategy']} "}, "/strategy"),
    ("metrics.json", "upper-case reducer", lambda report: _upper_reducer(report), "/series/0/reducer"),
    ("metrics.json", "unknown strategy", _set("strategy", value="best"), "/strategy"),
    ("metrics.json", "unknown reducer", _set("series", 0, "reducer", value="median"), "/series/0/reducer"),
    ("metrics.json", "evaluation_failed flipped", lambda report: _flip(report), "/evaluation_failed"),
    ("metrics.json", "values swapped", _swap_values, "swapped"),
    ("metrics.json", "binary value 1.5", _binary_out_of_range, "binary"),
    ("metrics.json", "series_id renamed", _set("series", 0, "series_id", value="tokens.mean@9"), "/series/0/series_id"),
    # analysis_summary.json and progress.json: read back only by the result browser, as they are
    ("analysis_summary.json", "item a number", lambda summary: _first_items(summary, 5), "items"),
    (
        "analysis_summary.json",
        "no per_category_per_analyzer",
        _drop("per_category_per_analyzer"),
        "/per_category_per_analyzer",
    ),
    ("analysis_summary.json", "no distributions", _drop("distributions"), "/distributions"),
    ("analysis_summary.json", "an extra section", _set("notes", value=[]), "/notes"),
    ("progress.json", "unknown member", _set("host", value="gpu-7"), "/host"),
    ("progress.json", "status a number", _set("status", value=3), "/status"),
]


def _first_items(summary: Any, value: Any) -> Any:
    summary["overall"][0]["items"] = [value]
    return summary


def _pointer(expected: str | set[str], report: Any) -> set[str]:
    if isinstance(expected, set):
        return expected
    if expected == "binary":
        position, role = _valued(report, binary=True)
        return {f"/series/{position}/{role}"}
    if expected == "swapped":
        position, _ = _valued(report)
        return {f"/series/{position}/value", f"/series/{position}/reference_value"}
    if expected == "items":
        return {"/overall/0/items/0"}
    return set(expected.split("|"))


# Errors whatever the readers do: text that is not JSON (RFC 8259), though Python's json.loads, which every reader
# uses, reads it; and a file that holds none of its data (an array where the writer writes an object).
NOT_JSON = [
    ("run_info.json", "NaN", lambda text: text.replace('"status": "completed"', '"status": NaN'), "json.non-finite"),
    (
        "params.json",
        "a duplicate member",
        lambda text: text.replace("{", '{\n  "output": {},', 1),
        "json.duplicate-key",
    ),
    (
        "metrics.json",
        "Infinity",
        lambda text: text.replace('"extra": {}', '"extra": {"x": Infinity}', 1),
        "json.non-finite",
    ),
    *(
        (name, "an array", lambda text: f"[{text}]", "schema.type")
        for name in ("run_info.json", "params.json", "metrics.json", "analysis_summary.json", "progress.json")
    ),
]


def errors(issues: list[Issue]) -> list[Issue]:
    return [issue for issue in issues if issue.severity == "error"]


@SETTINGS
@given(plan=runs, fatal=st.booleans())
def test_the_writers_run_files_validate_and_each_change_is_judged_as_the_readers_judge_it(
    plan: tuple[Task, ...], fatal: bool
) -> None:
    plan = uniform(_with_fatal(plan) if fatal else plan)
    task_ids = [task.task_id for task in plan]
    with tempfile.TemporaryDirectory() as folder:
        root = (Path(folder) / "run").resolve()
        root.mkdir()
        write_run(modules(), root, plan, Path(folder) / "sandbox")
        params = write_run_files(modules(), root, plan)
        unreusable = unreusable_tasks(modules(), root, params, task_ids)  # by their artifacts: not a run-level file's
        assert run_readers_refuse(modules(), root, params, task_ids, unreusable) == {}
        assert [issue for issue in validate(root) if issue.severity != "info"] == []
        report = json.loads((root / "metrics.json").read_text(encoding="utf-8"))
        collected = any(attempt.transfer is not None for task in plan for attempt in task.attempts)
        for name, what, change, expected in [*CHANGES, *plan_changes(task_ids, collected, unreusable < len(plan))]:
            if expected in ("binary", "swapped") and not _has_value(report, binary=expected == "binary"):
                continue  # a report without values (every task unavailable) has none to move
            copied = Path(folder) / "mutant"
            shutil.copytree(root, copied, symlinks=True)
            target = copied / name
            target.write_text(json.dumps(change(json.loads(target.read_text(encoding="utf-8"))), indent=2) + "\n")
            refused = run_readers_refuse(modules(), copied, params, task_ids, unreusable)
            found = [issue for issue in validate(copied) if issue.file == str(target)]
            pointers = _pointer(expected, report)
            if refused:
                assert any(issue.pointer in pointers for issue in errors(found)), (name, what, refused, found)
            else:
                assert errors(found) == [], (name, what)
                assert any(issue.pointer in pointers and issue.severity == "warning" for issue in found), (name, what)
            shutil.rmtree(copied)
        for name, what, edit, code in NOT_JSON:
            copied = Path(folder) / "mutant"
            shutil.copytree(root, copied, symlinks=True)
            target = copied / name
            target.write_text(edit(target.read_text(encoding="utf-8")), encoding="utf-8")
            assert target.read_text(encoding="utf-8") != (root / name).read_text(encoding="utf-8")
            assert code in {issue.code for issue in errors(validate(copied)) if issue.file == str(target)}, (name, what)
            shutil.rmtree(copied)


def _with_fatal(plan: tuple[Task, ...]) -> tuple[Task, ...]:
    first = plan[0]
    attempt = attrs.evolve(first.attempts[0], severities=("fatal",))
    return (attrs.evolve(first, attempts=(attempt, *first.attempts[1:])), *plan[1:])


def test_a_v2_run_info_is_resumed_and_reused_but_not_summarized_or_analyzed(tmp_path: Path) -> None:
    plan = uniform(_plain_plan())
    root = _written(tmp_path, plan)
    info = json.loads((root / "run_info.json").read_text(encoding="utf-8"))
    (root / "run_info.json").write_text(json.dumps({**info, "schema_version": "agentcompass.run_info.v2"}, indent=2))
    refused = run_readers_refuse(modules(), root, _params(plan), [task.task_id for task in plan])
    assert sorted(refused) == ["analysis", "summary"]
    (issue,) = [issue for issue in validate(root) if issue.file == str(root / "run_info.json")]
    assert (issue.code, issue.pointer, issue.severity) == ("legacy.run-info-v2", "/schema_version", "warning")
    assert "resumes and reuses the run, but refuses to summarize or analyze it" in issue.message


@pytest.mark.parametrize("fatal", [True, False], ids=["a fatal task", "none"])
def test_evaluation_failed_says_whether_a_task_of_the_run_is_fatal(tmp_path: Path, fatal: bool) -> None:
    """The report of one run put beside the tasks of its twin, which differs by one fatal issue: the released
    aggregation says the twin's report has the other evaluation_failed."""
    plan = uniform(_plain_plan())
    twin = _with_fatal(plan) if not fatal else plan
    plan = _with_fatal(plan) if fatal else plan
    root, other = _written(tmp_path / "run", plan), _written(tmp_path / "twin", twin)
    shutil.copyfile(root / "metrics.json", other / "metrics.json")
    said = json.loads((other / "metrics.json").read_text(encoding="utf-8"))["evaluation_failed"]
    assert said is fatal
    assert metric_report(modules(), other, twin).evaluation_failed is not fatal  # the oracle: what it should say
    found = [(i.code, i.pointer, i.severity) for i in validate(other) if i.file == str(other / "metrics.json")]
    # a report copied from another run: its values are not what these tasks give either (layout.score-mismatch)
    assert [each for each in found if each[0] != "layout.score-mismatch"] == [
        ("layout.evaluation-failed", "/evaluation_failed", "error")
    ]
    assert ("layout.score-mismatch", "error") in {(code, severity) for code, _, severity in found}


def _plain_plan() -> tuple[Task, ...]:
    from ..agentcompass_runs import Attempt

    attempt = Attempt(1, "completed", (), 0, 1, True, False, None, 0, False, 0, False)
    return (
        Task("swe/utils: ünï #1", "swe", "42", 2, "avg", (attempt, attrs.evolve(attempt, number=2)), True),
        Task("t2", "math", None, 1, "avg", (attempt,), True),
    )


def _params(plan: tuple[Task, ...]) -> dict[str, Any]:
    from ..agentcompass_runs import persistence_params

    return persistence_params(plan)


def _written(folder: Path, plan: tuple[Task, ...]) -> Path:
    root = (folder / "run").resolve()
    root.mkdir(parents=True)
    write_run(modules(), root, plan, folder / "sandbox")
    write_run_files(modules(), root, plan)
    return root


# ------------------------------------------------------------------ issue 34: verdicts the 1.0.1 readers contradicted


def _finished_run(tmp_path: Path) -> tuple[Path, tuple[Task, ...]]:
    plan = uniform(_plain_plan())
    return _written(tmp_path, plan), plan


def _refused(root: Path, plan: tuple[Task, ...]) -> dict[str, BaseException]:
    return run_readers_refuse(modules(), root, _params(plan), [task.task_id for task in plan])


# The run-level files and the 1.0.1 readers that open each by name (and so fail on what they cannot read).
RUN_FILE_READERS = {
    "run_info.json": {"resume", "reuse", "summary", "analysis", "result browser"},
    "params.json": {"summary", "result browser"},
    "metrics.json": {"metric report", "result browser"},
    "analysis_summary.json": {"result browser"},
    "progress.json": {"result browser"},
    "summary.md": {"result browser"},
}


@pytest.mark.parametrize(("name", "readers"), RUN_FILE_READERS.items())
def test_a_run_level_file_replaced_by_a_folder_is_an_error_where_its_readers_fail(
    tmp_path: Path, name: str, readers: set[str]
) -> None:
    root, plan = _finished_run(tmp_path)
    (root / name).unlink()
    (root / name).mkdir()
    assert set(_refused(root, plan)) == readers
    found = [(i.code, i.severity) for i in validate(root) if i.file == str(root / name)]
    assert found == [("io.not-a-file", "error")]


def test_a_run_without_run_info_is_an_error_as_every_run_reader_refuses_it(tmp_path: Path) -> None:
    root, plan = _finished_run(tmp_path)
    (root / "run_info.json").unlink()
    assert {"resume", "reuse", "summary", "analysis"} <= set(_refused(root, plan))
    found = [(i.code, i.severity) for i in validate(root) if i.severity != "info"]
    assert found == [("layout.missing-run-info", "error")]


@pytest.mark.parametrize(
    ("name", "readers"), [(name, readers) for name, readers in RUN_FILE_READERS.items() if name.endswith(".json")]
)
def test_a_byte_order_mark_in_a_run_level_file_is_an_error_as_its_readers_refuse_it(
    tmp_path: Path, name: str, readers: set[str]
) -> None:
    root, plan = _finished_run(tmp_path)
    (root / name).write_bytes(b"\xef\xbb\xbf" + (root / name).read_bytes())
    refused = _refused(root, plan)
    assert set(refused) == readers
    assert any("BOM" in str(error) for error in refused.values())
    found = [(i.code, i.severity) for i in validate(root) if i.file == str(root / name)]
    assert found == [("json.bom", "error")]


def _edit(path: Path, change: Callable[[Any], None]) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


@pytest.mark.parametrize("member", ["k", "strategy"])
def test_a_task_plan_other_than_the_runs_is_an_error_as_the_summary_and_reuse_refuse_it(
    tmp_path: Path, member: str
) -> None:
    root, plan = _finished_run(tmp_path)
    index = sorted(root.glob("details/*/*/task.json"))[0]
    other = {"k": plan[0].k + 1, "strategy": "pass"}[member]
    _edit(index, lambda data: data["attempt_plan"].update({member: other}))
    with pytest.raises(Exception, match="attempt_plan"):  # report_aggregation._validate_detail_plans
        metric_report(modules(), root, plan)
    assert "reuse" in _refused(root, plan)  # "Details attempt plan mismatch": the task is not reused
    found = [(i.code, i.file, i.pointer, i.severity) for i in validate(root) if i.severity != "info"]
    assert found == [("layout.attempt-plan", str(index), "/attempt_plan", "error")]


def _plans(root: Path, plans: dict[str, Any]) -> None:
    _edit(root / "run_info.json", lambda data: data.update(resolved_execution_plans=plans))


def test_resolved_plans_reuse_never_reads_are_only_the_writers_shape(tmp_path: Path) -> None:
    """A null plan for a task without declared artifacts, and any plan for a key that is no task of the run."""
    root, plan = _finished_run(tmp_path)
    _plans(root, {plan[0].task_id: None, "no such task": "x", "nor this one": {"attempts": {"1": 5}}})
    assert _refused(root, plan) == {}
    found = [(i.code, i.severity) for i in validate(root) if i.file == str(root / "run_info.json")]
    assert found and {severity for _, severity in found} == {"warning"}


@pytest.mark.parametrize("entry", [None, {"attempts": {"1": "x"}}, "x"], ids=["null", "attempt text", "text"])
def test_a_resolved_plan_reuse_cannot_read_for_a_task_with_declared_artifacts_is_an_error(
    tmp_path: Path, entry: Any
) -> None:
    from ..agentcompass_runs import Attempt

    collected = Attempt(1, "completed", (), 0, 1, True, False, "complete", 1, False, 0, False)
    plan = uniform((Task("with files", "swe", None, 1, "avg", (collected,), True),))
    root = _written(tmp_path, plan)
    _plans(root, {"with files": entry})
    assert "reuse" in _refused(root, plan)  # _materialize_attempt_artifacts raises; the task is not reused
    found = [(i.code, i.pointer, i.severity) for i in validate(root) if i.severity == "error"]
    pointer = "/resolved_execution_plans/with files" + ("/attempts/1" if isinstance(entry, dict) else "")
    assert found == [("rule.reuse-refused", pointer, "error")]


BIG = 2**53 + 1


def _parsed_by_the_page(value: Any) -> Any:
    """What the browser's page gets of an answer: viewer/server.py sends read_run as JSON, and JSON.parse reads
    every number as a double."""
    return json.loads(json.dumps(value), parse_int=float)


@pytest.mark.parametrize(
    ("name", "change", "pointer"),
    [
        (
            "run_info.json",
            _set("request", "execution", "task_concurrency", value=BIG),
            "/request/execution/task_concurrency",
        ),
        ("params.json", _set("execution", "task_concurrency", value=BIG), "/execution/task_concurrency"),
        ("metrics.json", _set("extra", value={"seen": BIG}), "/extra/seen"),
        ("progress.json", _set("total_tasks", value=BIG), "/total_tasks"),
        ("analysis_summary.json", _set("seen", value=BIG), "/seen"),
    ],
)
def test_an_integer_beyond_2_53_in_a_file_the_browser_shows_is_an_error_as_its_page_rounds_it(
    tmp_path: Path, name: str, change: Change, pointer: str
) -> None:
    from agentcompass.viewer import reader

    root, plan = _finished_run(tmp_path)
    _edit(root / name, change)
    assert _refused(root, plan) == {}  # the Python readers read it exactly
    shown = reader.read_run(str(root))
    key = {"run_info.json": "runInfoJson", "params.json": "paramsJson", "metrics.json": "metricsJson",
           "progress.json": "progressJson", "analysis_summary.json": "analysisSummaryJson"}[name]  # fmt: skip
    node, page = shown[key], _parsed_by_the_page(shown[key])
    for token in pointer.strip("/").split("/"):
        node, page = node[token], page[token]
    assert node == BIG and page != BIG  # rounded to 2**53
    found = [(i.pointer, i.severity) for i in validate(root) if i.code == "json.large-integer"]
    assert found == [(pointer, "error")]


def test_an_integer_beyond_2_53_the_browser_does_not_send_stays_a_warning(tmp_path: Path) -> None:
    root, plan = _finished_run(tmp_path)
    _plans(root, {plan[0].task_id: {"attempts": {"1": {"artifact_limits": {"max_files": BIG}}}}})
    assert _refused(root, plan) == {}
    found = [(i.code, i.severity) for i in validate(root) if i.code == "json.large-integer"]
    assert found == [("json.large-integer", "warning")]


@pytest.mark.parametrize(
    ("change", "pointer", "code"),
    [
        (_drop("request", "model", "id"), "/request/model/id", "rule.analysis-refused"),
        (_set("request", "model", "id", value=" "), "/request/model/id", "rule.analysis-refused"),
        (_set("request", "execution", "seed", value=1), "/request/execution/seed", "rule.analysis-refused"),
        (
            _set("request", "execution", "artifact_limits", value={"max_files": 0}),
            "/request/execution/artifact_limits",
            "rule.summary-refused",
        ),
        (
            _set("request", "execution", "artifact_limits", value={"max_gb": 1}),
            "/request/execution/artifact_limits",
            "rule.summary-refused",
        ),
    ],
    ids=["no model id", "blank model id", "unknown execution member", "max_files 0", "unknown limit"],
)
def test_a_request_analysis_cannot_rebuild_is_an_error(tmp_path: Path, change: Change, pointer: str, code: str) -> None:
    root, plan = _finished_run(tmp_path)
    assert analysis_request_refuses(root) is None
    assert [i for i in validate(root) if i.severity in ("error", "warning")] == []
    _edit(root / "run_info.json", change)
    assert analysis_request_refuses(root) is not None  # RunRequest.from_params
    refused = set(_refused(root, plan))
    assert refused == ({"summary"} if code == "rule.summary-refused" else set())
    found = [(i.code, i.pointer) for i in validate(root) if i.severity == "error"]
    assert found == [(code, pointer)]


_ANALYSIS, _SUMMARY = "rule.analysis-refused", "rule.summary-refused"
_EXECUTION = ("request", "execution")
_ENVIRONMENT = ("request", "environment")
# Each class of request RunRequest.from_params refuses: the change, the pointer and code of our one error, and what
# 1.0.1 says (its ValueError). summary-refused where the summary, rebuilding the same spec, refuses it too.
REFUSED_REQUESTS = {
    "enable_analysis null": (_set(*_EXECUTION, "enable_analysis", value=None), "/request/execution/enable_analysis",
                             _ANALYSIS, "enable_analysis must be a boolean"),
    "keep_environment text": (_set(*_EXECUTION, "keep_environment", value="yes"),
                              "/request/execution/keep_environment", _ANALYSIS, "keep_environment must be a boolean"),
    "harness an empty array": (_set("request", "harness", value=[]), "/request/harness", _ANALYSIS,
                               "harness id is required"),
    "harness id blank": (_set("request", "harness", "id", value=" "), "/request/harness/id", _ANALYSIS,
                         "harness id is required"),
    "harness not an object": (_set("request", "harness", value="h"), "/request/harness", _ANALYSIS,
                              "dictionary update sequence"),
    "environment id blank": (_set(*_ENVIRONMENT, "id", value=""), "/request/environment/id", _ANALYSIS,
                             "environment id is required"),
    "environment unknown member": (_set(*_ENVIRONMENT, "region", value="eu"), "/request/environment/region",
                                   _SUMMARY, "unknown parameters: region"),
    "environment setup os": (_set(*_ENVIRONMENT, "setup", value={"os": "mac"}), "/request/environment/setup",
                             _SUMMARY, "os must be linux or windows"),
    "environment variable name": (_set(*_ENVIRONMENT, "env_variables", value={"1A": "x"}),
                                  "/request/environment/env_variables", _SUMMARY, "environment variable names"),
    "environment mode": (_set(*_ENVIRONMENT, "evaluation_environment_mode", value="sometimes"),
                         "/request/environment/evaluation_environment_mode", _SUMMARY, "none, reuse, fresh"),
    "require_startup_env text": (_set(*_ENVIRONMENT, "require_startup_env", value="yes"),
                                 "/request/environment/require_startup_env", _SUMMARY, "boolean or null"),
    "artifact_limits an array": (_set(*_EXECUTION, "artifact_limits", value=[]), "/request/execution/artifact_limits",
                                 _SUMMARY, "ArtifactLimits must be a mapping"),
    "max_files text": (_set(*_EXECUTION, "artifact_limits", "max_files", value="100000"),
                       "/request/execution/artifact_limits", _SUMMARY, "max_files must be a positive integer"),
    "unknown api_protocol": (_set("request", "model", "api_protocol", value="grpc"), "/request/model/api_protocol",
                             _SUMMARY, "unsupported model api_protocol"),
    "auto with another protocol": (_set("request", "model", "api_protocol", value=["auto", "anthropic"]),
                                   "/request/model/api_protocol", _SUMMARY, "cannot be combined"),
    "wrap_api_key null": (_set("request", "model", "wrap_api_key", value=None), "/request/model/wrap_api_key",
                          _SUMMARY, "wrap_api_key must be a boolean"),
    "model params text": (_set("request", "model", "params", value="t"), "/request/model/params", _ANALYSIS,
                          "dictionary update sequence"),
    "retry delay negative": (_set(*_EXECUTION, "retry_min_delay_seconds", value=-1),
                             "/request/execution/retry_min_delay_seconds", _ANALYSIS, "finite positive number"),
    "retry delay -0": (_set(*_EXECUTION, "retry_max_delay_seconds", value=-0.0),
                       "/request/execution/retry_max_delay_seconds", _ANALYSIS, "finite positive number"),
    "retry delays reversed": (_set(*_EXECUTION, "retry_min_delay_seconds", value=61),
                              "/request/execution/retry_max_delay_seconds", _ANALYSIS, "must be >="),
    "max_retries an array": (_set(*_EXECUTION, "max_retries", value=[0]), "/request/execution/max_retries", _ANALYSIS,
                             "max_retries must be an integer"),
    "retry pattern": (_set(*_EXECUTION, "retry_pattern_list", value=["("]), "/request/execution/retry_pattern_list",
                      _ANALYSIS, "invalid regex"),
    "analysis_params text": (_set(*_EXECUTION, "analysis_params", value="p"), "/request/execution/analysis_params",
                             _ANALYSIS, "dictionary update sequence"),
    "enabled_recipes a number": (_set(*_EXECUTION, "enabled_recipes", value=5), "/request/execution/enabled_recipes",
                                 _ANALYSIS, "not iterable"),
    "task_concurrency null": (_set(*_EXECUTION, "task_concurrency", value=None), "/request/execution/task_concurrency",
                              _SUMMARY, "task_concurrency must be an integer"),
    "artifact source relative": (_set(*_EXECUTION, "artifacts", value=["logs"]), "/request/execution/artifacts",
                                 _SUMMARY, "must be absolute"),
    "artifact destinations overlap": (_set(*_EXECUTION, "artifacts", value=["/a", "/a/b"]),
                                      "/request/execution/artifacts", _SUMMARY, "destinations overlap"),
    "artifact collect blank": (_set(*_EXECUTION, "artifact_collect", value=[" "]),
                               "/request/execution/artifact_collect", _SUMMARY, "non-empty shell command"),
    "runtime reuse text": (_set("request", "runtime", "reuse", value="yes"), "/request/runtime/reuse", _ANALYSIS,
                           "runtime.reuse must be a boolean"),
    "recipe_dirs text": (_set("request", "metadata", value={"recipe_dirs": "d"}), "/request/metadata/recipe_dirs",
                         _ANALYSIS, "recipe_dirs must be a list"),
    "benchmark params an array": (_set("request", "benchmark", "params", value=[1]), "/request/benchmark/params",
                                  _ANALYSIS, "cannot convert dictionary update sequence"),
}  # fmt: skip


@pytest.mark.parametrize(("change", "pointer", "code", "says"), REFUSED_REQUESTS.values(), ids=REFUSED_REQUESTS)
def test_each_request_refusal_of_from_params_is_one_error_at_its_member(
    tmp_path: Path, change: Change, pointer: str, code: str, says: str
) -> None:
    root, plan = _finished_run(tmp_path)
    _edit(root / "run_info.json", change)
    refusal = analysis_request_refuses(root)  # launcher._load_run_info, then RunRequest.from_params
    assert refusal is not None and says in str(refusal)
    assert set(_refused(root, plan)) == ({"summary"} if code == _SUMMARY else set())
    found = [(i.code, i.pointer) for i in validate(root) if i.severity == "error"]
    assert found == [(code, pointer)]


# Requests 1.0.1 takes (a stricter reading than its own would be a false error at the run root, which is two-way).
ACCEPTED_REQUESTS = {
    "harness as pairs": _set("request", "harness", value=[["id", "h"], ["params", {}]]),
    "protocol padded": _set("request", "model", "api_protocol", value=" OpenAI-Chat "),
    "protocol auto alone": _set("request", "model", "api_protocol", value=["auto", "", "auto"]),
    "max_retries text": _set(*_EXECUTION, "max_retries", value=" 3 "),
    "max_retries fractional": _set(*_EXECUTION, "max_retries", value=2.7),
    "task_concurrency text": _set(*_EXECUTION, "task_concurrency", value="4"),
    "recipes text": _set(*_EXECUTION, "enabled_recipes", value="abc"),
    "analysis_params empty array": _set(*_EXECUTION, "analysis_params", value=[]),
    "retry delays text": _set(*_EXECUTION, "retry_max_delay_seconds", value="7.5"),
    "mode padded": _set(*_ENVIRONMENT, "evaluation_environment_mode", value=" FRESH "),
    "setup held in params": _set(*_ENVIRONMENT, "params", value={"setup": {"os": "linux"}}),
    "artifacts declared": _set(*_EXECUTION, "artifacts", value=["/logs/a", {"source": "/b", "exclude": ["*.tmp"]}]),
    "collect command": _set(*_EXECUTION, "artifact_collect", value=["make", {"command": "x", "timeout_seconds": "9"}]),
    "runtime null": _set("request", "runtime", value=None),
}  # fmt: skip


@pytest.mark.parametrize("change", ACCEPTED_REQUESTS.values(), ids=ACCEPTED_REQUESTS)
def test_a_request_from_params_takes_is_no_error(tmp_path: Path, change: Change) -> None:
    root, plan = _finished_run(tmp_path)
    _edit(root / "run_info.json", change)
    assert analysis_request_refuses(root) is None
    assert set(_refused(root, plan)) == set()
    assert [(i.code, i.pointer) for i in validate(root) if i.severity == "error"] == []


@pytest.mark.parametrize(
    ("request_limits", "params_limits", "refused"),
    [
        (None, {"max_mb": 0}, True),  # no limits in the request: params.json's are the summary's
        ({"max_mb": 1, "max_files": 1, "timeout_seconds": 1}, {"max_mb": 0}, False),  # each overridden
        ({"max_mb": 1, "max_files": 1, "timeout_seconds": 1}, {"max_gb": 1}, True),  # merged in, then refused
        ({"max_mb": 1, "max_files": 1, "timeout_seconds": 1}, [], False),  # replaced by the request's object
        ({}, {"max_files": "100000"}, True),
    ],
    ids=["request without limits", "overridden", "unknown limit merged in", "array replaced", "text max_files"],
)
def test_settings_the_summary_merges_in_from_params_are_judged_as_merged(
    tmp_path: Path, request_limits: Any, params_limits: Any, refused: bool
) -> None:
    root, plan = _finished_run(tmp_path)

    def limits(data: Any) -> None:
        if request_limits is None:
            del data["request"]["execution"]["artifact_limits"]
        else:
            data["request"]["execution"]["artifact_limits"] = request_limits

    _edit(root / "run_info.json", limits)
    _edit(root / "params.json", lambda data: data["execution"].update(artifact_limits=params_limits))
    assert analysis_request_refuses(root) is None  # analysis reads run_info.json alone
    # deep_merge(params, request), then ExecutionSpec
    assert set(_refused(root, plan)) == ({"summary"} if refused else set())
    found = [(i.code, i.file, i.pointer) for i in validate(root) if i.severity == "error"]
    expected = [("rule.summary-refused", str(root / "params.json"), "/execution/artifact_limits")]
    assert found == (expected if refused else [])


@pytest.mark.parametrize(
    ("member", "value", "refused"),
    [("wrap_api_key", None, True), ("wrap_api_key", True, False), ("api_protocol", "grpc", True),
     ("api_protocol", False, True), ("api_protocol", "Anthropic ", False)],
)  # fmt: skip
def test_model_settings_of_params_count_where_the_request_has_none(
    tmp_path: Path, member: str, value: Any, refused: bool
) -> None:
    """The summary reads request.model's api_protocol and wrap_api_key, and params.json's where it has none."""
    root, plan = _finished_run(tmp_path)
    _edit(root / "params.json", lambda data: data["model"].update({member: value}))
    assert set(_refused(root, plan)) == set()  # the request's own member wins
    assert [i for i in validate(root) if i.severity == "error"] == []
    _edit(root / "run_info.json", lambda data: data["request"]["model"].pop(member, None))
    assert set(_refused(root, plan)) == ({"summary"} if refused else set())
    found = [(i.code, i.file, i.pointer) for i in validate(root) if i.severity == "error"]
    assert found == ([("rule.summary-refused", str(root / "params.json"), f"/model/{member}")] if refused else [])


@pytest.mark.parametrize("edited", ["run_info.json", "params.json"])
def test_two_benchmark_ids_in_the_runs_records_are_a_warning(tmp_path: Path, edited: str) -> None:
    """Reuse with the request that made the run (params.json's) refuses a run_info.json naming another benchmark;
    an edited params.json refuses nothing. Which file was edited cannot be told: a warning (docs/spec-notes.md)."""
    root, plan = _finished_run(tmp_path)
    at = ("request", "benchmark", "id") if edited == "run_info.json" else ("benchmark", "id")
    _edit(root / edited, _set(*at, value="other"))
    refused = _refused(root, plan)  # reuse with persistence_params, the request params.json records
    assert set(refused) == ({"reuse"} if edited == "run_info.json" else set())
    assert all("same Benchmark ID" in str(error) for error in refused.values())
    assert analysis_request_refuses(root) is None
    found = [(i.code, i.severity, i.file, i.pointer) for i in validate(root) if i.severity != "info"]
    assert found == [("rule.writer-shape", "warning", str(root / "run_info.json"), "/request/benchmark/id")]


# ------------------------------------------------ the request's verdict against RunRequest.from_params, at random

# Values the mutations put in; the members are every member of the recorded request (and a few it leaves out), but
# the benchmark id and attempt plan (reuse's, tested above) and the resources and network policies, which the check
# does not judge (docs/spec-notes.md).
_VALUES = [
    None, True, False, 0, -0.0, 1, -1, 2.5, 10**30, 1e308, "", " ", "x", "3", " 7.5 ", "Anthropic ", "auto", "fresh",
    "linux", "/abs", "rel", [], [0], ["x"], [["id", "h"]], ["auto", "anthropic"], ["auto"], ["("], {}, {"os": "mac"},
    {"os": "linux", "image": " "}, {"id": "x"}, {"bogus": 1}, {"command": "make"}, {"source": "/a"}, {"A_B": "1"},
    {"1A": "x"}, [{"source": "/a"}, {"source": "/a/b"}], [{"command": " "}], {"max_mb": 1e-7}, {"max_files": True},
]  # fmt: skip
_UNJUDGED = ("resources", "run_resources", "evaluation_resources", "network_policy")
_EXTRA = [
    ("metadata",), ("metadata", "recipe_dirs"), ("metadata", "config_path"), ("execution", "retry_pattern_list"),
    ("environment", "params", "setup"), ("environment", "params", "require_startup_env"), ("model", "id"),
    ("harness", "id"), ("environment", "id"), ("execution", "bogus"), ("environment", "bogus"),
]  # fmt: skip


def _members(value: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, each in value.items() if isinstance(value, dict) else ():
        at = (*path, name)
        if at in (("benchmark",), ("benchmark", "id"), ("execution",), ("environment", "params")):
            found.extend(_members(each, at))
            continue
        if at[:2] == ("execution", "attempts") or any(part in name for part in _UNJUDGED):
            continue
        found.append(at)
        found.extend(_members(each, at))
    return found


def _mutated(request: dict[str, Any], changes: list[tuple[tuple[str, ...], Any]]) -> dict[str, Any]:
    changed = json.loads(json.dumps(request))
    for path, value in changes:
        parent = changed
        for name in path[:-1]:
            parent = parent.setdefault(name, {}) if isinstance(parent, dict) else {}
        if isinstance(parent, dict):
            if value is _drop:
                parent.pop(path[-1], None)
            else:
                parent[path[-1]] = json.loads(json.dumps(value))
    return changed


def _released(folder: Path, request: dict[str, Any], params: dict[str, Any]) -> tuple[bool, bool]:
    """(RunRequest.from_params refuses, the summary's launcher._summary_request_from_run_dir refuses)."""
    from agentcompass import launcher
    from agentcompass.runtime.models.request import RunRequest

    try:
        RunRequest.from_params(json.loads(json.dumps(request)))
        analysis = False
    except Exception:  # any exception is a refusal
        analysis = True
    run = folder / "results" / "demo" / "m" / "run"
    run.mkdir(parents=True, exist_ok=True)
    info = {"schema_version": "agentcompass.run_info.v3", "run_id": "run-1", "request": request}
    (run / "run_info.json").write_text(json.dumps(info), encoding="utf-8")
    (run / "params.json").write_text(json.dumps(params), encoding="utf-8")
    try:
        launcher._summary_request_from_run_dir(run, launcher.load_run_config(None)).to_persistence_params()
        summary = False
    except Exception:
        summary = True
    return analysis, summary


def test_our_request_verdict_is_from_params_and_the_summarys_for_many_mutated_requests(tmp_path: Path) -> None:
    """Hundreds of requests, each the recorded one with one to three members set or removed: our error iff
    RunRequest.from_params or the summary refuses, summary-refused exactly where the summary does."""
    from agentbeats_spec.rules import agentcompass_run

    from ..agentcompass_runs import recorded_request

    plan = uniform(_plain_plan())
    request = recorded_request(plan)
    paths = sorted(set(_members(request)) | set(_EXTRA))
    change = st.tuples(st.sampled_from(paths), st.sampled_from([*_VALUES, _drop]))
    disagreements: list[str] = []

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.lists(change, min_size=1, max_size=3))
    def each(changes: list[tuple[tuple[str, ...], Any]]) -> None:
        mutated = _mutated(request, changes)
        analysis, summary = _released(tmp_path, mutated, _params(plan))
        info = {"schema_version": "agentcompass.run_info.v3", "run_id": "run-1", "request": mutated}
        ours = {f.code for f in agentcompass_run.run_info(info) if f.code in (_ANALYSIS, _SUMMARY)}
        if bool(ours) != (analysis or summary) or (_SUMMARY in ours) != summary or (_ANALYSIS in ours and not analysis):
            disagreements.append(f"{changes}: from_params {analysis}, summary {summary}, ours {sorted(ours)}")

    each()
    assert disagreements == []


def test_a_byte_order_mark_in_progress_jsonl_is_a_warning_as_no_reader_reads_it(tmp_path: Path) -> None:
    from agentcompass.runtime.progress import JsonlProgressSink

    root, plan = _finished_run(tmp_path)
    journal = root / "progress.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"\xef\xbb\xbf" + lines[0] + b"".join(lines[1:3]) + b"\xef\xbb\xbf" + b"".join(lines[3:]))
    assert _refused(root, plan) == {}  # resume, reuse, summary, analysis, the browser: none reads it
    found = [(i.code, i.line, i.severity) for i in validate(root) if i.severity != "info"]
    assert found == [("json.bom", 1, "warning"), ("json.bom", 4, "warning")]
    assert all("byte order mark" in i.message for i in validate(root) if i.code == "json.bom")
    JsonlProgressSink(journal).emit(SimpleNamespace(to_dict=lambda: {"event": "more"}), {})
    assert json.loads(journal.read_bytes().splitlines()[-1]) == {"event": "more"}  # its writer goes on appending


def test_a_byte_order_mark_on_the_last_line_of_progress_jsonl_is_said_not_torn(tmp_path: Path) -> None:
    root, _ = _finished_run(tmp_path)
    journal = root / "progress.jsonl"
    *lines, last = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines) + b"\xef\xbb\xbf" + last.rstrip(b"\n"))  # whole, without its newline
    found = sorted((i.code, i.line) for i in validate(root) if i.severity != "info")
    assert found == [("json.bom", len(lines) + 1), ("jsonl.no-final-newline", len(lines) + 1)]


@pytest.mark.parametrize("name", ["summary.md", "analysis_summary.md"])
def test_a_run_level_markdown_file_that_is_not_utf8_is_an_error_as_the_browser_cannot_open_the_run(
    tmp_path: Path, name: str
) -> None:
    root, plan = _finished_run(tmp_path)
    (root / name).write_bytes((root / name).read_bytes() + "café\n".encode("latin-1"))
    refused = _refused(root, plan)
    assert set(refused) == {"result browser"}
    assert isinstance(refused["result browser"], UnicodeDecodeError)
    found = [(i.code, i.file, i.severity) for i in validate(root) if i.severity != "info"]
    assert found == [("layout.text-encoding", str(root / name), "error")]


@pytest.mark.parametrize("name", ["summary.md", "analysis_summary.md"])
def test_a_run_level_markdown_file_with_a_bom_or_any_utf8_text_is_read(tmp_path: Path, name: str) -> None:
    root, plan = _finished_run(tmp_path)
    (root / name).write_bytes(b"\xef\xbb\xbf" + (root / name).read_bytes() + "ünï \x00 `{}`\n".encode())
    assert _refused(root, plan) == {}
    assert [i for i in validate(root) if i.severity != "info"] == []
