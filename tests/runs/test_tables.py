"""Runs as tables, and `export`, on runs the released AgentCompass 1.0.1 writer writes: one row per attempt with
the metrics it aggregates, and a DuckDB query over the exported Parquet that gives its own per-category means."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from types import SimpleNamespace

import attrs
import pytest
from hypothesis import HealthCheck, given, settings

from agentbeats_spec import InvalidDocument, attempts_table, issues_table, open_run, steps_table, tasks_table, validate
from agentbeats_spec.cli import main
from agentbeats_spec.layouts.agentcompass import task_folder_name
from agentbeats_spec.runs._export import export

from ..agentcompass_runs import Attempt, Task, runs, uniform, write_run, write_run_files, writer_modules

pa = pytest.importorskip("pyarrow")
parquet = pytest.importorskip("pyarrow.parquet")
duckdb = pytest.importorskip("duckdb")
MODULES = writer_modules()
pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(MODULES is None, reason="AgentCompass 1.0.1 is not installed (make test does it)"),
]


def modules() -> SimpleNamespace:
    assert MODULES is not None
    return MODULES


ATTEMPT = Attempt(number=1, status="completed", severities=(), first_step=0, steps=2, aware=True,
                  empty_tool_calls=False, transfer=None, files=0, missing=False, retries=0, archive=False)  # fmt: skip


def attempt(number: int, status: str, **changes: object) -> Attempt:
    return attrs.evolve(ATTEMPT, number=number, status=status, **changes)  # type: ignore[arg-type]


# Every task has k = 2 attempts, so that each is evaluated by avg@2; accuracy is 1.0 for a completed attempt.
PLAN = (
    Task("a", "math", "1", 2, "avg", (attempt(1, "completed"), attempt(2, "eval_error", severities=("error",))), True),
    Task("b", "math", "2", 2, "avg", (attempt(1, "completed", retries=1), attempt(2, "completed", steps=3)), True),
    Task("c", "swe", None, 2, "avg", (attempt(1, "run_error", severities=("error",)), attempt(2, "completed")), True),
    Task("d", "swe", None, 2, "avg", (attempt(1, "eval_error"), attempt(2, "eval_error", steps=0)), True),
)


@pytest.fixture
def run(tmp_path: Path) -> Path:
    root = tmp_path / "run"
    write_run(modules(), root, PLAN, tmp_path / "sandbox")
    write_run_files(modules(), root, PLAN)
    return root


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=runs)
def test_the_attempts_table_has_one_row_per_attempt_with_its_metrics(plan: tuple[Task, ...]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "run"
        write_run(modules(), root, uniform(plan), Path(folder) / "sandbox")
        rows = attempts_table(root).to_pylist()
        expected = []
        for path in modules().layout.result_files(root):
            record = modules().layout.read_result(path)
            for number, payload in sorted(record["attempts"].items(), key=lambda item: int(item[0])):
                metrics = {f"metric.{name}": float(value) for name, value in payload["metrics"].items()}
                retries = record["retry_counts"].get(number, 0)
                expected.append((record["task_id"], int(number), payload["status"], retries, metrics))
        found = [(row["task_id"], row["attempt"], row["status"], row["retry_count"], metrics_of(row)) for row in rows]
        assert found == expected


def metrics_of(row: dict[str, object]) -> dict[str, object]:
    return {name: value for name, value in row.items() if name.startswith("metric.")}


def test_duckdb_over_the_exported_parquet_gives_the_per_category_means_of_metrics_json(run: Path) -> None:
    output = run.parent / "attempts.parquet"
    assert main(["export", str(run), "--table", "attempts", "--to", "parquet", "-o", str(output)]) == 0
    means = dict(
        duckdb.sql(f"""SELECT category, avg("metric.accuracy") FROM '{output}' GROUP BY category""").fetchall()
    )
    report = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    (series,) = [series for series in report["series"] if series["series_id"] == "accuracy.avg@2"]
    theirs = {name: category["value"] for name, category in series["categories"].items()}
    assert means == pytest.approx(theirs) and set(means) == {"math", "swe"}
    assert means["math"] == 0.75 and means["swe"] == 0.25  # not a vacuous agreement
    ((overall,),) = duckdb.sql(f"""SELECT avg("metric.accuracy") FROM '{output}'""").fetchall()
    assert overall == pytest.approx(series["value"])


def test_pandas_reads_the_exported_parquet_as_it_is_and_gives_the_same_means(run: Path) -> None:
    pandas = pytest.importorskip("pandas")
    output = run.parent / "attempts.parquet"
    assert main(["export", str(run), "--table", "attempts", "--to", "parquet", "-o", str(output)]) == 0
    frame = pandas.read_parquet(output)
    assert len(frame) == attempts_table(open_run(run)).num_rows > 0
    means = frame.groupby("category")["metric.accuracy"].mean().to_dict()
    assert means == {"math": 0.75, "swe": 0.25}


def test_the_tasks_table_one_row_per_task_with_retries_and_counters(run: Path) -> None:
    rows = {row["task_id"]: row for row in tasks_table(run).to_pylist()}
    assert sorted(rows) == ["a", "b", "c", "d"]
    assert (rows["b"]["retry_count"], rows["b"]["attempts"], rows["b"]["steps"]) == (1, 2, 5)
    assert (rows["a"]["state"], rows["c"]["state"], rows["d"]["state"]) == ("error", "error", "normal")
    assert rows["b"]["prompt_tokens"] == 12 * 5 and rows["b"]["metric.accuracy"] == 1.0
    assert rows["a"]["benchmark"] == "demo" and rows["a"]["model"] == "m" and rows["a"]["run_id"] == "run-1"
    assert (rows["a"]["k"], rows["a"]["strategy"]) == (2, "avg")


def test_the_steps_table_one_row_per_actf_step(run: Path) -> None:
    table = steps_table(run)
    assert table.num_rows == sum(a.steps for task in PLAN for a in task.attempts)
    first = table.to_pylist()[0]
    assert (first["step_index"], first["step_id"], first["prompt_tokens"], first["stop_reason"]) == (0, 0, 12, "stop")
    assert first["env_action_ms"] is None  # -1: not measured


def test_the_issues_table_is_what_validate_finds(run: Path) -> None:
    (run / "details" / "stray.txt").write_text("x")
    rows = issues_table(run).to_pylist()
    assert [(row["code"], row["file"], row["severity"]) for row in rows] == [
        (issue.code, issue.file, issue.severity) for issue in validate(run)
    ]
    assert [row["code"] for row in rows] == ["layout.unexpected-entry"]


def test_columns_pick_and_an_unknown_column_is_refused(run: Path) -> None:
    table = attempts_table(run, columns=["task_id", "attempt", "metric.accuracy"])
    assert table.column_names == ["task_id", "attempt", "metric.accuracy"]
    assert table.num_rows == 8
    with pytest.raises(ValueError, match="unknown column\\(s\\) of the attempts table: 'colour'"):
        attempts_table(run, columns=["task_id", "colour"])


def test_an_invalid_record_raises_unless_strict_is_off_which_leaves_it_out_and_reports_it(run: Path) -> None:
    broken = run / "details" / "error" / task_folder_name("a") / "attempt-2" / "result.json"
    broken.write_text('{"status": "completed"', encoding="utf-8")
    with pytest.raises(InvalidDocument):
        attempts_table(run)
    table, issues = attempts_table(run, strict=False)
    assert sorted({row["task_id"] for row in table.to_pylist()}) == ["b", "c", "d"]
    assert [(Path(issue.file or "").name, issue.code) for issue in issues] == [("result.json", "json.syntax")]


def test_many_runs_and_a_folder_of_runs(run: Path, tmp_path: Path) -> None:
    other = tmp_path / "more" / "run-2"
    write_run(modules(), other, PLAN[:1], tmp_path / "sandbox")
    both = tasks_table([open_run(run), other])
    assert both.num_rows == 5
    assert tasks_table(tmp_path).num_rows == 5  # the folder holds both runs
    assert {row["run_path"] for row in both.to_pylist()} == {str(run), str(other)}


def test_export_streams_row_groups_and_writes_csv_and_jsonl(run: Path) -> None:
    output = run.parent / "steps.parquet"
    done = export(run, "steps", "parquet", output, batch_rows=3)
    rows = sum(a.steps for task in PLAN for a in task.attempts)
    assert (done.rows, done.tasks) == (rows, 4)
    assert parquet.ParquetFile(output).metadata.num_row_groups == -(-rows // 3)  # one per batch: memory bounded
    assert main(["export", str(run), "--table", "tasks", "--to", "jsonl", "-o", str(run.parent / "t.jsonl")]) == 0
    lines = (run.parent / "t.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["task_id"] for line in lines] == ["b", "d", "a", "c"]  # normal/, then error/
    assert (
        main(["export", str(run), "--to", "csv", "--columns", "task_id,attempt", "-o", str(run.parent / "a.csv")]) == 0
    )
    assert (run.parent / "a.csv").read_text(encoding="utf-8").splitlines()[:2] == ['"task_id","attempt"', '"b",1']


def test_a_failed_export_leaves_the_file_as_it_was(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = run.parent / "attempts.csv"
    output.write_text("before\n")
    broken = run / "details" / "error" / task_folder_name("a") / "attempt-2" / "result.json"
    broken.write_text("{", encoding="utf-8")
    assert main(["export", str(run), "--to", "csv", "-o", str(output)]) == 1
    assert output.read_text() == "before\n"
    assert sorted(path.name for path in output.parent.iterdir()) == ["attempts.csv", "run"]
    error = capsys.readouterr().err
    assert "json.syntax" in error and "nothing was written (--skip-invalid writes every task" in error
    assert main(["export", str(run), "--to", "csv", "--skip-invalid", "-o", str(output)]) == 1
    assert len(output.read_text().splitlines()) == 1 + 6  # the header, and the other three tasks' attempts
