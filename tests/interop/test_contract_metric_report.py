"""The contract with AgentCompass 1.0.1's ``MetricReport.model_validate`` on metrics.json, both ways.

Every report ``tests.strategies.metric_report`` generates (what the 1.0.1 writer could write) is accepted by the
model and gets no error and no warning here. Each change of such a report (a member changed, dropped or added
anywhere, in the mutation style of test_contract_agentcompass.py) is judged by the model: where it refuses, the
report gets an error; where it accepts, none (a warning at most: what the model reads, but the writer writes
otherwise). The one exception is the result browser's: ``evaluation_failed`` as the text "false", which the model
reads as false and the browser as true, is an error though the model accepts it.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbeats_spec import Issue, validate

from ..agentcompass_runs import writer_modules
from ..conftest import places
from ..strategies import metric_report
from .test_contract_agentcompass import OTHER_VALUES, dropped, renamed, replaced

pytestmark = pytest.mark.skipif(writer_modules() is None, reason="AgentCompass 1.0.1 is not installed")
SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
MUTATIONS_PER_REPORT = 12
KIND = "agentcompass-metrics"


def refusal(report: Any) -> str | None:
    """Why MetricReport.model_validate refuses a report (None: it accepts it)."""
    from agentcompass.runtime.metrics.report import MetricReport

    try:
        MetricReport.model_validate(report)
    except Exception as error:  # any exception is a refusal: the model has no other way to say no
        return str(error)
    return None


def errors(issues: list[Issue]) -> list[Issue]:
    return [issue for issue in issues if issue.severity == "error"]


def browser_misreads(report: Any) -> bool:
    """The result browser reads evaluation_failed as JavaScript does: any non-empty text is true."""
    failed = report.get("evaluation_failed") if isinstance(report, dict) else None
    return isinstance(failed, str) and failed.lower() in ("0", "off", "f", "false", "n", "no")


# Values the model reads otherwise than JSON Schema would: numbers and text pydantic reads as booleans, padded and
# upper-case identifiers, names of other members, ids and kinds of metrics.
VALUES = [*OTHER_VALUES, 1, 2, 0.0, 1.0, "true", "no", " avg", "AVG", "native", "pass", "avg", "correct", "score",
          "headline", "auxiliary", "scalar", "binary_success", "overall", "overall/x", "micro_weighted",
          "category_hierarchy", 10**400, -0.5]  # fmt: skip
NAMES = ["zz_extra", "value", "reference_value", "invalidated", "overall", "overall/zz", "overall~2", "x "]


@st.composite
def mutated(draw: Any, report: dict[str, Any]) -> Any:
    """One change to a report: a value replaced, a member dropped, renamed or added, a series copied or dropped."""
    path, value = draw(st.sampled_from(list(places(report, first_items=3))), label="place")
    kind = draw(st.sampled_from(["retype", "drop", "rename", "extra", "scale", "copy", "negate"]), label="kind")
    if kind == "drop" and path:
        return dropped(report, path)
    if kind == "rename" and path and isinstance(path[-1], str):
        return renamed(report, path, draw(st.sampled_from([*NAMES, path[-1].upper(), path[-1] + "_"])))
    if kind == "extra" and isinstance(value, dict):
        return replaced(report, path, {**value, draw(st.sampled_from(NAMES)): draw(st.sampled_from(VALUES))})
    if kind == "scale" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return replaced(report, path, value + draw(st.sampled_from([1, -1, 0.5])))
    if kind == "copy" and isinstance(value, list) and value:
        return replaced(report, path, [*value, value[0]])
    if kind == "negate" and isinstance(value, bool):
        return replaced(report, path, not value)
    return replaced(report, path, draw(st.sampled_from(VALUES), label="value"))


@SETTINGS
@given(report=metric_report(), picks=st.data())
def test_what_the_writer_could_write_validates_and_each_change_is_judged_as_the_model_judges_it(
    report: dict[str, Any], picks: st.DataObject
) -> None:
    assert refusal(report) is None
    assert [issue for issue in validate(report, KIND) if issue.severity != "info"] == []
    for _ in range(MUTATIONS_PER_REPORT):
        changed = picks.draw(mutated(report), label="mutation")
        text = json.dumps(changed, ensure_ascii=False, indent=2)
        found = errors(validate(text, KIND))
        why = refusal(json.loads(text))
        if why is not None or browser_misreads(changed):
            assert found, f"MetricReport refuses ({why}):\n{text}"
        else:
            assert found == [], f"MetricReport accepts:\n{text}\n{found}"


def test_a_huge_integer_value_is_refused_as_the_model_refuses_it() -> None:
    report = _written()
    report["series"][1]["value"] = 10**400  # the pass series, which has a value
    assert refusal(report) is not None
    assert [(i.code, i.pointer) for i in errors(validate(report, KIND))] == [("rule.series-value", "/series/1/value")]


def _one() -> dict[str, Any]:
    from ..agentcompass_writer import metric_report as written

    return written()


def _written() -> dict[str, Any]:
    """The report of tests/agentcompass_writer.py as the model dumps it: k = 3, avg, correct (avg and pass) and
    tokens (avg), one category."""
    from agentcompass.runtime.metrics.report import MetricReport

    dumped = MetricReport.model_validate(_one()).model_dump(mode="json")
    return json.loads(json.dumps(dumped))


def _renamed(old: str, new: str) -> Any:
    def change(report: dict[str, Any]) -> None:
        for series in report["series"]:
            if series["metric_id"] == old:
                series["metric_id"], series["series_id"] = new, series["series_id"].replace(old, new, 1)

    return change


def _hierarchy(report: dict[str, Any]) -> None:
    report["aggregation"] = "category_hierarchy"
    for series in report["series"]:
        coding = series["categories"]["coding"]
        series["hierarchy"] = {"overall": copy.deepcopy(coding), "overall/coding": copy.deepcopy(coding)}


def _then(*changes: Any) -> Any:
    def change(report: dict[str, Any]) -> None:
        for each in changes:
            each(report)

    return change


def _each_hierarchy(old: str, new: str) -> Any:
    def change(report: dict[str, Any]) -> None:
        for series in report["series"]:
            series["hierarchy"][new] = series["hierarchy"].pop(old)

    return change


def _series(position: int, *path: Any, value: Any) -> Any:
    def change(report: dict[str, Any]) -> None:
        holder = report["series"][position]
        for token in path[:-1]:
            holder = holder[token]
        holder[path[-1]] = value

    return change


EACH = [f"/series/{n}" for n in range(3)]
MR = "rule.metric-report"
# (what, change, the errors it gets): each a check of MetricReport.model_validate that refuses it
REFUSED = [
    ("the primary is not correct or score", _renamed("correct", "success"), {(MR, "/series/0/metric_id")}),
    ("score used by an auxiliary metric", _renamed("tokens", "score"), {(MR, "/series/2/metric_id")}),
    ("two roles of one metric", _series(1, "role", value="auxiliary"), {(MR, "/series/1/role"), (MR, "/series")}),
    (
        "a pass report with avg series",
        lambda report: report.update(strategy="pass"),
        {(MR, "/series/0"), (MR, "/series/2")},
    ),
    ("an avg report without the primary pass series", lambda report: report["series"].pop(1), {(MR, "/series")}),
    ("a primary of two kinds", _series(1, "kind", value="scalar"), {(MR, "/series/1/kind"), (MR, "/series/1/reducer")}),
    (
        "a hierarchy in a micro_weighted report",
        _then(_hierarchy, lambda report: report.update(aggregation="micro_weighted")),
        {(MR, f"{each}/hierarchy") for each in EACH},
    ),
    (
        "a category_hierarchy report without one",
        lambda report: report.update(aggregation="category_hierarchy"),
        {(MR, f"{each}/hierarchy") for each in EACH},
    ),
    (
        "a leaf that is not its category",
        _then(_hierarchy, _series(0, "hierarchy", "overall/coding", "aggregation_weight", value=2.0)),
        {(MR, "/series/0/hierarchy/overall~1coding")},
    ),
    (
        "a path that is not canonical",
        _then(_hierarchy, _each_hierarchy("overall/coding", "overall/~2")),
        {(MR, f"{each}/hierarchy/overall~1~02") for each in EACH},
    ),
    (
        "a path without its parent",
        _then(_hierarchy, _each_hierarchy("overall/coding", "overall/x/coding")),
        {(MR, f"{each}/hierarchy/overall~1x~1coding") for each in EACH},
    ),
    (
        "a parent that does not count its children",
        _then(_hierarchy, _series(0, "hierarchy", "overall", "counts", "error", value=0)),
        {(MR, "/series/0/hierarchy/overall/counts")},
    ),
    (
        "categories that do not partition the series",
        _series(2, "categories", "coding", "counts", "error", value=0),
        {(MR, "/series/2/counts/error")},
    ),
    (
        "other categories than the first series'",
        lambda report: report["series"][2]["categories"].update(math=report["series"][2]["categories"].pop("coding")),
        {(MR, "/series/2/categories"), (MR, "/series/2/categories/math")},
    ),
    (
        "another total than the first series'",
        lambda report: report["series"][2]["counts"].update(total=2, unavailable=2),
        {(MR, "/series/2/counts/total"), (MR, "/series/2/counts/unavailable")},
    ),
    (
        "blank display text",
        _series(0, "display", value={"label": "Correct", "description": " "}),
        {("schema.pattern", "/series/0/display/description")},
    ),
    (
        "evaluation_failed 1 without an invalidated task",
        lambda report: report.update(evaluation_failed=1),
        {("rule.evaluation-failed", "/evaluation_failed")},
    ),
    (
        "evaluation_failed text the model cannot read",
        lambda report: report.update(evaluation_failed="maybe"),
        {(MR, "/evaluation_failed")},
    ),
]


@pytest.mark.parametrize(("what", "change", "expected"), REFUSED, ids=[case[0] for case in REFUSED])
def test_each_check_of_the_model_is_an_error_at_its_member(what: str, change: Any, expected: set[Any]) -> None:
    report = _written()
    assert errors(validate(report, KIND)) == []
    change(report)
    assert refusal(copy.deepcopy(report)) is not None, what
    found = errors(validate(report, KIND))
    assert {(issue.code, issue.pointer) for issue in found} == expected
    assert all(issue.message.startswith("AgentCompass 1.0.1's MetricReport refuses this report") or
               issue.code.startswith("schema.") for issue in found)  # fmt: skip


def test_what_the_model_reads_though_the_writer_writes_it_otherwise_is_a_warning() -> None:
    report = _written()
    report["evaluation_failed"] = 0
    report["series"][0]["display"] = {"label": " Correct "}
    assert refusal(copy.deepcopy(report)) is None
    found = [(i.code, i.pointer, i.severity) for i in validate(report, KIND)]
    assert found == [
        ("rule.writer-shape", "/evaluation_failed", "warning"),
        *(("rule.writer-shape", f"/series/0/display/{name}", "warning") for name in ("description", "label",
                                                                                   "precision", "unit")),
    ]  # fmt: skip


def test_evaluation_failed_false_as_text_is_an_error_as_the_result_browser_reads_it_as_true() -> None:
    report = _written()
    report["evaluation_failed"] = "false"
    assert refusal(copy.deepcopy(report)) is None
    found = errors(validate(report, KIND))
    assert [(i.code, i.pointer) for i in found] == [("rule.evaluation-failed", "/evaluation_failed")]
    assert "the AgentCompass 1.0.1 result browser shows as a failed evaluation" in found[0].message
