"""The run around the tasks: run_info.json and the other run-level files AgentCompass 1.0.1 writes at a run root,
progress.jsonl line by line, and how run folders are found."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec import Issue, validate

from ..agentcompass_writer import metric_report, released, run_files
from ..conftest import VALID, text

RUN = VALID / "agentcompass-run"


def load(name: str) -> Any:
    return json.loads((RUN / name).read_text(encoding="utf-8"))


def codes(found: list[Issue]) -> list[tuple[str, str, str]]:
    return [(issue.code, issue.pointer, issue.severity) for issue in found]


@pytest.fixture
def writer() -> Any:
    store = released()
    if store is None:
        pytest.skip("the released agentcompass package is not installed (make test installs it)")
    return store


@pytest.mark.parametrize("finished", [True, False], ids=["finished", "running"])
def test_what_the_released_writer_writes_at_a_run_root_is_valid(writer: Any, tmp_path: Path, finished: bool) -> None:
    run_files(tmp_path / "run", finished=finished)
    (tmp_path / "run" / "details").mkdir()
    assert validate(tmp_path / "run") == []
    found = {path.name for path in (tmp_path / "run").iterdir()}
    expected = {"run_info.json", "progress.json", "progress.jsonl", "details"}
    assert found == (expected | {"params.json", "metrics.json", "summary.md"} if finished else expected)


def test_the_fixture_run_holds_the_writers_run_files() -> None:
    assert {path.name for path in RUN.iterdir()} == {
        "details", "run_info.json", "params.json", "metrics.json", "summary.md", "progress.json", "progress.jsonl"
    }  # fmt: skip
    assert validate(RUN) == []


def test_a_run_without_run_info_gets_an_error_saying_what_agentcompass_refuses(tmp_path: Path) -> None:
    shutil.copytree(RUN, tmp_path / "run")
    (tmp_path / "run" / "run_info.json").unlink()
    (issue,) = validate(tmp_path / "run")
    assert (issue.code, issue.file, issue.severity) == ("layout.missing-run-info", str(tmp_path / "run"), "error")
    assert "refuses to resume, reuse, summarize or analyze it" in issue.message


def _set(member: str, value: Any) -> Callable[[dict[str, Any]], Any]:
    return lambda data: data.__setitem__(member, value)


def _drop(member: str) -> Callable[[dict[str, Any]], Any]:
    return lambda data: data.pop(member)


# Each check of _require_current_run_info (runtime/results/store.py), broken on its own.
READER_RULES = [
    (
        "another version",
        _set("schema_version", "agentcompass.run_info.v1"),
        "schema.unknown-version",
        "/schema_version",
    ),
    ("no version", _drop("schema_version"), "schema.required", "/schema_version"),
    ("no run_id", _drop("run_id"), "schema.required", "/run_id"),
    ("blank run_id", _set("run_id", "  "), "schema.pattern", "/run_id"),
    ("run_id not text", _set("run_id", 20260801), "schema.type", "/run_id"),
    ("no request", _drop("request"), "schema.required", "/request"),
    ("request not an object", _set("request", "swe-utils"), "schema.type", "/request"),
]


@pytest.mark.parametrize(("why", "change", "code", "pointer"), READER_RULES, ids=[rule[0] for rule in READER_RULES])
def test_each_check_of_the_reader_is_an_error(
    writer: Any, why: str, change: Callable[[dict[str, Any]], Any], code: str, pointer: str
) -> None:
    info = load("run_info.json")
    writer.RunStore._require_current_run_info(info, path=Path("run_info.json"))  # the fixture passes
    change(info)
    with pytest.raises(ValueError):
        writer.RunStore._require_current_run_info(info, path=Path("run_info.json"))
    found = validate(text(info), "agentcompass-run-info")
    assert [(i.code, i.pointer, i.severity) for i in found] == [(code, pointer, "error")]


def test_another_version_says_what_agentcompass_will_not_do() -> None:
    (issue,) = validate({**load("run_info.json"), "schema_version": "agentcompass.run_info.v1"})
    assert "refuses to resume, reuse, summarize or analyze a run" in issue.message
    assert "known: agentcompass.run_info.v2, agentcompass.run_info.v3" in issue.message


def test_a_v2_run_info_is_what_the_reader_accepts_with_a_warning(writer: Any) -> None:
    request = {"benchmark": {"id": "gsm8k"}, "execution": {"attempts": {"k": 1, "strategy": "avg"}}}
    info = {"schema_version": "agentcompass.run_info.v2", "run_id": "r1", "request": request, "fingerprint": "old"}
    writer.RunStore._require_current_run_info(info, path=Path("run_info.json"))
    assert codes(validate(info)) == [("legacy.run-info-v2", "/schema_version", "warning")]


def test_unknown_run_info_members_are_warnings_and_a_near_miss_says_what_it_is_near() -> None:
    info = {**load("run_info.json"), "reused_form": {"run_id": "r0"}, "host": "gpu-7"}
    found = validate(info)
    assert codes(found) == [("rule.unknown-key", "/host", "warning"), ("rule.unknown-key", "/reused_form", "warning")]
    assert "did you mean 'reused_from'?" in found[1].message
    assert "every AgentCompass 1.0.1 reader ignores it" in found[0].message


def test_a_summary_provenance_records_its_override() -> None:
    info = load("run_info.json")
    info["metric_artifacts"]["source"] = "summary"
    assert codes(validate(info)) == [("rule.writer-shape", "/metric_artifacts/benchmark_params_override", "warning")]


# What MetricReport (runtime/metrics/report.py) checks beyond each member's shape, broken on its own.
def _rename(report: dict[str, Any]) -> None:
    report["series"][2]["series_id"] = "tokens.mean@3"


def _miscount(report: dict[str, Any]) -> None:
    report["series"][1]["counts"]["unavailable"] = 1  # the pass series: one evaluated task


def _headline(report: dict[str, Any]) -> None:
    report["series"][2]["role"] = "headline"


def _k(report: dict[str, Any]) -> None:
    report["series"][1]["k"] = 2
    report["series"][1]["series_id"] = "correct.pass@2"


def _reducer(report: dict[str, Any]) -> None:
    report["series"][0]["reducer"] = "median"


def _strategy(report: dict[str, Any]) -> None:
    report["strategy"] = "best"


def _failed(report: dict[str, Any]) -> None:
    report["evaluation_failed"] = True


def _swapped(report: dict[str, Any]) -> None:
    series = report["series"][1]  # the pass series, which has a value
    series["value"], series["reference_value"] = series["reference_value"], series["value"]


def _out_of_range(report: dict[str, Any]) -> None:
    report["series"][1]["value"] = 1.5


def _native(report: dict[str, Any]) -> None:
    report["series"][0].update(reducer="native", series_id="correct.native@3")


METRIC_RULES = [
    (_reducer, "rule.unknown-reducer", "/series/0/reducer"),
    (_strategy, "rule.unknown-strategy", "/strategy"),
    (_failed, "rule.evaluation-failed", "/evaluation_failed"),
    (_swapped, "rule.series-value", "/series/1/reference_value"),
    (_out_of_range, "rule.series-value", "/series/1/value"),
    (_native, "rule.metric-report", "/series/0/reducer"),
    (_rename, "rule.series-id", "/series/2/series_id"),
    (_miscount, "rule.series-counts", "/series/1/counts/total"),
    (_headline, "rule.headline", "/series"),
    (_k, "rule.series-k", "/series/1/k"),
]


@pytest.mark.parametrize(("change", "code", "pointer"), METRIC_RULES, ids=[rule[0].__name__ for rule in METRIC_RULES])
def test_each_metric_report_rule_is_one_agentcompass_refuses(
    writer: Any, change: Callable[[dict[str, Any]], None], code: str, pointer: str
) -> None:
    from agentcompass.runtime.metrics.report import MetricReport

    report = json.loads(json.dumps(MetricReport.model_validate(metric_report()).model_dump(mode="json")))
    assert validate(report, "agentcompass-metrics") == []
    change(report)
    with pytest.raises(ValueError):
        MetricReport.model_validate(report)
    assert (code, pointer, "error") in codes(validate(report, "agentcompass-metrics"))


def test_metrics_json_is_closed_as_the_report_model_is() -> None:
    report = load("metrics.json")
    report["series"][0]["note"] = "x"
    assert codes(validate(text(report), "agentcompass-metrics")) == [
        ("schema.unexpected-member", "/series/0/note", "error")
    ]


def test_params_analysis_and_progress_snapshots_have_the_writers_shape() -> None:
    assert codes(validate({"benchmark": {"id": ""}, "seed": 1}, "agentcompass-params")) == [
        ("rule.writer-shape", "/benchmark/id", "warning"),
        ("rule.writer-shape", "/seed", "warning"),
    ]
    progress = load("progress.json")
    progress["finished_tasks"] = -1
    assert codes(validate(progress, "agentcompass-progress")) == [("rule.writer-shape", "/finished_tasks", "warning")]
    row = {"category": "coding", "analyzer": "loop", "total": 2, "badcase_count": 1, "error_count": 0,
           "badcase_ratio": 0.5, "avg_score": None}  # fmt: skip
    summary = {"per_category_per_analyzer": [row], "per_category_overall": [row], "overall": [row],
               "overall_per_analyzer": [{**row, "items": ["details/normal/t--0/task.json"]}],
               "distributions": {"loop": {"__overall__": {"tool": {"total": 2, "distribution": {"bash": 2}},
                                                          "steps": {"count": 2, "min": 1, "mean": 2, "p50": 2,
                                                                    "p90": 3, "p95": 3, "max": 3}}}}}  # fmt: skip
    assert validate(summary, "agentcompass-analysis-summary") == []
    broken = json.loads(json.dumps(summary))  # rows are shared above
    broken["distributions"]["loop"]["__overall__"]["steps"].pop("p95")
    broken["overall"][0]["badcase_ratio"] = 2
    assert codes(validate(broken, "agentcompass-analysis-summary")) == [
        ("rule.writer-shape", "/distributions/loop/__overall__/steps/p95", "warning"),
        ("rule.writer-shape", "/overall/0/badcase_ratio", "warning"),
    ]


def events() -> list[str]:
    return (RUN / "progress.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)


def jsonl(tmp_path: Path, lines: list[str]) -> list[tuple[str, str, int | None, int | None, str]]:
    path = tmp_path / "progress.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return [(i.code, i.pointer, i.line, i.column, i.severity) for i in validate(path)]


def test_progress_jsonl_is_checked_line_by_line_with_a_pointer_into_each_record(tmp_path: Path) -> None:
    lines = events()
    third = json.loads(lines[2])
    third["attempt"] = "1"
    del third["timestamp"]
    lines[2] = json.dumps(third) + "\n"
    column = lines[2].index('"attempt": "1"') + len('"attempt": ') + 1
    assert jsonl(tmp_path, lines) == [
        ("rule.writer-shape", "/timestamp", 3, 1, "warning"),
        ("rule.writer-shape", "/attempt", 3, column, "warning"),
    ]
    lines[2] = "[1]\n"
    assert jsonl(tmp_path, lines) == [("schema.type", "", 3, 1, "error")]


def test_a_torn_last_line_is_a_warning_and_any_other_broken_line_an_error(tmp_path: Path) -> None:
    lines = events()
    torn = lines[-1][:40]
    with pytest.raises(json.JSONDecodeError) as stopped:
        json.loads(torn)
    column = stopped.value.colno
    assert jsonl(tmp_path, [*lines[:-1], torn]) == [("jsonl.torn-line", "", len(lines), 1, "warning")]
    assert jsonl(tmp_path, [*lines[:-1], torn + "\n"]) == [("json.syntax", "", len(lines), column, "error")]
    broken = [*lines[:3], torn + "\n", *lines[3:]]
    assert jsonl(tmp_path, broken) == [("json.syntax", "", 4, column, "error")]


def test_a_line_that_starts_with_a_byte_order_mark_says_so_and_its_record_is_still_checked(tmp_path: Path) -> None:
    """No 1.0.1 reader reads progress.jsonl back (its writer only appends): a warning, at the line, never a torn
    line; the record after the mark is checked as any other, its places counting the mark as a character."""
    lines = events()
    third = json.loads(lines[2])
    third["attempt"] = "1"
    lines[2] = "\ufeff" + json.dumps(third) + "\n"
    column = lines[2].index('"attempt": "1"') + len('"attempt": ') + 1
    found = jsonl(tmp_path, ["\ufeff" + lines[0], *lines[1:-1], "\ufeff" + lines[-1].rstrip("\n")])
    assert found == [
        ("json.bom", "", 1, 1, "warning"),
        ("json.bom", "", 3, 1, "warning"),
        ("rule.writer-shape", "/attempt", 3, column, "warning"),
        ("json.bom", "", len(lines), 1, "warning"),
        ("jsonl.no-final-newline", "", len(lines), len(lines[-1]) + 1, "warning"),
    ]
    said = [i.message for i in validate(tmp_path / "progress.jsonl") if i.code == "json.bom"]
    assert said[0].startswith("the file starts with a byte order mark")
    assert said[1].startswith("line 3 starts with a byte order mark")
    assert all("no AgentCompass 1.0.1 reader reads progress.jsonl" in message for message in said)


def test_blank_lines_and_a_missing_final_newline_are_warnings(tmp_path: Path) -> None:
    lines = events()
    last = lines[-1].rstrip("\n")
    assert jsonl(tmp_path, [*lines[:2], "\n", *lines[2:-1], last]) == [
        ("jsonl.blank-line", "", 3, 1, "warning"),
        ("jsonl.no-final-newline", "", len(lines) + 1, len(last) + 1, "warning"),
    ]
    assert jsonl(tmp_path, []) == [("json.empty", "", 1, 1, "warning")]


def test_json_lines_text_is_validated_with_its_kind() -> None:
    found = validate('{"event": "run_started"}\n', "agentcompass-progress-events")
    assert {(issue.code, issue.line, issue.severity) for issue in found} == {("rule.writer-shape", 1, "warning")}


def test_a_folder_with_run_info_alone_is_a_run_root(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    info = {**load("run_info.json"), "run_id": " "}
    (run / "run_info.json").write_text(json.dumps(info, indent=2))
    (run / "metrics.json").write_text("{}")
    (run / ".tmp.run_info.0123.json").write_text("{")
    found = {(i.code, Path(i.file or "").name, i.severity) for i in validate(run)}
    assert found == {
        ("schema.pattern", "run_info.json", "error"),
        ("schema.required", "metrics.json", "error"),
        ("rule.writer-shape", "metrics.json", "warning"),
        ("layout.temporary-file", ".tmp.run_info.0123.json", "warning"),
    }


def test_a_folder_of_many_runs_checks_each_run_root(tmp_path: Path) -> None:
    results = tmp_path / "results" / "nightly" / "gpt-x_swe-utils"
    for name in ("2026-08-01_10-00-00", "2026-08-02_10-00-00", "2026-08-03_10-00-00"):
        shutil.copytree(RUN, results / name)
    (results / "2026-08-02_10-00-00" / "run_info.json").unlink()
    (results / "2026-08-03_10-00-00" / "progress.jsonl").write_text('{"event": 1}\n')
    found = {(i.code, Path(i.file or "").relative_to(results).as_posix(), i.line) for i in validate(tmp_path)}
    assert found == {
        ("layout.missing-run-info", "2026-08-02_10-00-00", None),
        ("rule.writer-shape", "2026-08-03_10-00-00/progress.jsonl", 1),
    }


def test_run_level_files_are_told_by_name_only_at_a_run_root(tmp_path: Path) -> None:
    (tmp_path / "metrics.json").write_text("{}")
    (issue,) = validate(tmp_path / "metrics.json")
    assert issue.code == "schema.unknown-kind"
    assert [i.kind for i in validate(RUN / "metrics.json")] == []
    # inside an ordinary folder, metrics.json is nobody's artifact: nothing is found there
    assert [i.code for i in validate(tmp_path)] == ["layout.nothing-found"]


REUSED = {"benchmark": {"id": "swe-utils"}, "execution": {"attempts": {"k": 3, "strategy": "avg"}}}


def _request(*path: str, value: Any = None, drop: bool = False) -> Callable[[dict[str, Any]], Any]:
    def change(info: dict[str, Any]) -> None:
        node = info["request"]
        for token in path[:-1]:
            node = node[token]
        if drop:
            del node[path[-1]]
        else:
            node[path[-1]] = value

    return change


# Each check of reuse (RunStore._validate_reuse_source, _normalized_attempt_plan), broken on its own: the member
# it is placed at, and its line and column in the fixture's run_info.json as the writer indents it.
REUSE_RULES = [
    ("request {}", _set("request", {}), "/request/benchmark", 12, 14),
    ("benchmark text", _request("benchmark", value="swe-utils"), "/request/benchmark", 13, 18),
    ("no benchmark id", _request("benchmark", "id", drop=True), "/request/benchmark/id", 13, 18),
    ("benchmark id a number", _request("benchmark", "id", value=5), "/request/benchmark/id", 14, 13),
    ("no attempt plan", _request("execution", "attempts", drop=True), "/request/execution/attempts", 19, 18),
    ("k 0", _request("execution", "attempts", "k", value=0), "/request/execution/attempts/k", 21, 14),
    ("k 2.0", _request("execution", "attempts", "k", value=2.0), "/request/execution/attempts/k", 21, 14),
    ("k true", _request("execution", "attempts", "k", value=True), "/request/execution/attempts/k", 21, 14),
    ("unknown strategy", _request("execution", "attempts", "strategy", value="best"),
     "/request/execution/attempts/strategy", 22, 21),
    ("extra plan key", _request("execution", "attempts", "seed", value=1), "/request/execution/attempts/seed", 23, 9),
]  # fmt: skip


@pytest.mark.parametrize(
    ("why", "change", "pointer", "line", "column"), REUSE_RULES, ids=[rule[0] for rule in REUSE_RULES]
)
def test_each_check_of_reuse_is_an_error_at_its_member(
    writer: Any, tmp_path: Path, why: str, change: Callable[[dict[str, Any]], Any], pointer: str, line: int,
    column: int,
) -> None:  # fmt: skip
    info = load("run_info.json")
    (tmp_path / "run_info.json").write_text(json.dumps(info))
    writer.RunStore(None)._validate_reuse_source(tmp_path, REUSED)  # the fixture is reused
    change(info)
    (tmp_path / "run_info.json").write_text(text(info), encoding="utf-8")
    with pytest.raises((ValueError, AttributeError)):
        writer.RunStore(None)._validate_reuse_source(tmp_path, REUSED)
    found = [(i.code, i.pointer, i.line, i.column, i.severity) for i in validate(tmp_path / "run_info.json")]
    assert found[0] == ("rule.reuse-refused", pointer, line, column, "error")
    # a request {} lacks a model id too, which analysis requires
    assert all(issue[0] in ("rule.reuse-refused", "rule.analysis-refused") for issue in found)


def test_a_reuse_error_says_what_agentcompass_will_not_do() -> None:
    info = load("run_info.json")
    info["request"]["execution"]["attempts"]["k"] = 0
    (issue,) = validate(info)
    assert issue.message == (
        "AgentCompass 1.0.1 cannot reuse this run: execution.attempts.k is the number 0; expected an integer of at "
        "least 1"
    )


def test_what_every_reader_tolerates_is_a_warning_naming_the_reader(tmp_path: Path) -> None:
    info = load("run_info.json")
    info.update(started_at="yesterday", status=3)
    info["request"]["execution"]["attempts"]["strategy"] = " avg "
    (tmp_path / "run_info.json").write_text(text(info), encoding="utf-8")
    found = validate(tmp_path / "run_info.json")
    assert [(i.code, i.pointer, i.line, i.column, i.severity) for i in found] == [
        ("rule.writer-shape", "/request/execution/attempts/strategy", 22, 21, "warning"),
        ("rule.writer-shape", "/started_at", 53, 17, "warning"),
        ("rule.writer-shape", "/status", 54, 13, "warning"),
    ]
    assert found[0].message.endswith("reuse and summary strip and lower-case it")
    assert found[1].message.endswith(
        "the latest-run search (RunStore._run_info_sort_key) reads a started_at it cannot parse as the oldest run, "
        "and every other reader ignores it"
    )
    assert found[2].message.endswith("the result browser reads a status that is not text as empty, and no other "
                                     "reader reads it")  # fmt: skip
    params = {"benchmark": "gsm8k", "execution": [1], "output": {"run_name": 5}, "seed": 1}
    assert codes(validate(params, "agentcompass-params")) == [
        ("rule.writer-shape", "/benchmark", "warning"),
        ("rule.writer-shape", "/execution", "warning"),
        ("rule.writer-shape", "/output/run_name", "warning"),
        ("rule.writer-shape", "/seed", "warning"),
    ]
    assert codes(validate({"execution": {"attempts": {"k": 3, "seed": 1}}}, "agentcompass-params")) == [
        ("rule.summary-refused", "/execution/attempts/seed", "error")
    ]
    assert codes(validate("[]", "agentcompass-analysis-summary")) == [("schema.type", "", "error")]


def test_what_the_metric_report_model_defaults_or_normalizes_is_a_warning(writer: Any) -> None:
    from agentcompass.runtime.metrics.report import MetricReport

    report = load("metrics.json")
    for series in report["series"]:
        for scope in (series, *series["categories"].values()):
            del scope["counts"]["invalidated"]
    del report["extra"]
    report["strategy"] = " AVG "
    report["series"][0]["reducer"] = "Avg"
    MetricReport.model_validate(report)  # it reads all of it
    found = validate(report, "agentcompass-metrics")
    assert {(i.code, i.severity) for i in found} == {("rule.writer-shape", "warning")}
    missing = [f"/series/{n}/{scope}counts/invalidated" for n in range(3) for scope in ("categories/coding/", "")]
    assert [i.pointer for i in found] == ["/extra", *missing[:2], "/series/0/reducer", *missing[2:], "/strategy"]
    assert found[1].message.endswith(
        "MetricReport.model_validate gives a missing member its default (0 for counts.invalidated, null for "
        "reference_value, aggregation_weight, display and its description, unit and precision, false for "
        "evaluation_failed, empty for categories, hierarchy and extra) and strips an aggregation"
    )


_IDENTITIES = ("schema_version", "run_id", "task_id", "request", "attempts", "series", "k")


@pytest.mark.parametrize("value", [{}, [1], None])
def test_an_identity_member_of_any_type_in_any_file_of_a_run_is_an_issue_never_a_crash(
    tmp_path: Path, value: Any
) -> None:
    """The members a layout dispatches on (a version, an id, a plan) come as any JSON value: each is judged, never
    looked up as it is (a schema_version that is an object was an internal error in run_info.json)."""
    root = tmp_path / "run"
    shutil.copytree(RUN, root)
    for path in sorted(root.rglob("*.json")):
        original = path.read_text(encoding="utf-8")
        data = json.loads(original)
        for member in (m for m in _IDENTITIES if isinstance(data, dict) and m in data):
            path.write_text(json.dumps({**data, member: value}), encoding="utf-8")
            found = {(i.severity, i.code) for i in validate(root) if i.file == str(path)}
            if member == "schema_version":  # what decides how the rest is read is always an error of the file
                assert any(severity == "error" for severity, _ in found), (path.relative_to(root), found)
        path.write_text(original, encoding="utf-8")
