"""A table of runs written to a Parquet, CSV or JSON Lines file, one record batch (a Parquet row group) at a time.

Memory is bounded by the batch (``_tables.batches``: bounded by rows and by the bytes of its strings), whatever the
size of the run; the file is written atomically (``_atomic``): an export that fails leaves what was there before.

A CSV file is opened by spreadsheets, which run a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or
a carriage return before one) as a formula: such a cell of a string column is written with a single quote before
it (OWASP's rule for CSV injection), unless ``csv_raw``. A number is no formula: the numeric columns are written as
numbers, and a string cell that is a plain decimal number (``-1``, ``+2.5``, ``-1e3``) is written as it is.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, BinaryIO, Literal

import attrs

from ..vocabulary._issues import Issue
from ..writing import _atomic
from ._tables import (
    BATCH_BYTES,
    BATCH_ROWS,
    Rows,
    Source,
    TableName,
    _pyarrow,
    batches,
    runs_of,
    schema,
    spill_schema,
    with_metric_columns,
)

Format = Literal["parquet", "csv", "jsonl"]
FORMATS: tuple[Format, ...] = ("parquet", "csv", "jsonl")
# A metric column costs every row a value, and a Parquet file metadata per row group: one file naming a hundred
# thousand metrics would make every row of the run that wide. A benchmark reports a few; beyond this many, the
# columns to write are named (--columns).
MAX_METRIC_COLUMNS = 1000


@attrs.frozen
class Exported:
    """What an export wrote: the rows, the tasks read, the issues of the tasks left out (``strict=False``), and how
    many tasks were read despite an error (AgentCompass 1.0.1 reads them; their issues are the issues table)."""

    rows: int
    tasks: int
    issues: list[Issue]
    with_errors: int = 0


def export(
    source: Source,
    table: TableName,
    to: Format,
    output: str | os.PathLike[str],
    *,
    columns: Sequence[str] | None = None,
    strict: bool = True,
    on_task: Callable[[int], None] | None = None,
    batch_rows: int = BATCH_ROWS,
    batch_bytes: int = BATCH_BYTES,
    csv_raw: bool = False,
) -> Exported:
    """Write one table over ``source`` to ``output``, in one pass over the runs.

    Every task AgentCompass 1.0.1 reads is read; by default (``strict``) the first with an error stops the export
    at once, nothing written; with ``strict=False`` the tasks that reader refuses are left out (their issues
    returned) and the others written, errors or not. The metric columns of the tasks and attempts tables (unless
    ``columns`` names them) are found as the rows are made: the rows' batches wait in a temporary file beside
    ``output``, their metrics by name, and are written once every metric is known, so that every batch has one
    schema. ``on_task`` is called with the number of tasks read so far (a progress bar). A CSV cell that a
    spreadsheet would run as a formula is written quoted, unless ``csv_raw`` (see the module's note)."""
    pa = _pyarrow()
    rows = Rows(table, source, strict=strict, on_task=on_task)
    spilled = columns is None and table in ("tasks", "attempts")
    written = 0

    def produce(stream: BinaryIO) -> None:
        nonlocal written
        if not spilled:
            arrow_schema = schema(table, (), columns)
            made = batches(rows, arrow_schema, batch_rows, budget=batch_bytes, spelled_out=to != "parquet")
            written = _written(pa, to, stream, arrow_schema, made, csv_raw)
            return
        with tempfile.TemporaryFile(dir=Path(output).parent, prefix=".export-", suffix=".arrows") as spill:
            _spill(pa, rows, table, spill, batch_rows, batch_bytes, to)
            arrow_schema = schema(table, rows.metrics)
            spill.seek(0)
            with pa.ipc.open_stream(spill) as reader:
                made = (with_metric_columns(batch, arrow_schema) for batch in reader)
                written = _written(pa, to, stream, arrow_schema, made, csv_raw)

    _atomic.write_atomic(output, produce)
    return Exported(written, rows.tasks_read, rows.issues, rows.with_errors)


def _spill(pa: Any, rows: Rows, table: TableName, spill: BinaryIO, size: int, budget: int, to: Format) -> None:
    """The rows' batches into ``spill`` (an Arrow stream: the fixed columns, the metrics by name); refused as soon
    as the runs name more metrics than an export writes unless they are named."""
    spilled = spill_schema(table)
    with pa.ipc.new_stream(spill, spilled) as writer:
        # CSV and JSON Lines spell a shared string out in every row: their batches count it in every row
        for batch in batches(rows, spilled, size, budget=budget, spelled_out=to != "parquet"):
            if len(rows.metrics) > MAX_METRIC_COLUMNS:
                raise ValueError(
                    f"the runs name {len(rows.metrics)} metrics, more than the {MAX_METRIC_COLUMNS} metric columns an "
                    "export writes unless they are named: pick them with --columns"
                )
            writer.write_batch(batch)


def _written(pa: Any, to: Format, stream: BinaryIO, arrow_schema: Any, made: Iterable[Any], csv_raw: bool) -> int:
    """The batches written to ``stream`` in the format; the number of rows written."""
    writer = _writer(pa, to, stream, arrow_schema, csv_raw)
    written = 0
    try:
        for batch in made:
            writer(batch)
            written += batch.num_rows
    finally:
        writer(None)
    return written


def task_count(source: Source) -> int:
    """How many task folders the runs of a source hold, by their names alone (the total of a progress bar): no
    file is read, so that the export's first refusal comes as soon as it would without a bar."""
    return sum(run.task_folders() for run in runs_of(source))


def _writer(pa: Any, to: Format, stream: BinaryIO, arrow_schema: Any, csv_raw: bool) -> Callable[[Any], None]:
    """A function that writes one batch, and closes the format's writer when given None."""
    if to == "parquet":
        import pyarrow.parquet  # type: ignore[import-untyped]  # the optional extra [tables], as pyarrow

        parquet = pyarrow.parquet.ParquetWriter(stream, arrow_schema)
        return lambda batch: parquet.close() if batch is None else parquet.write_batch(batch)
    if to == "csv":
        import pyarrow.csv  # type: ignore[import-untyped]  # the optional extra [tables], as pyarrow

        csv = pyarrow.csv.CSVWriter(stream, arrow_schema)
        if csv_raw:
            return lambda batch: csv.close() if batch is None else csv.write_batch(batch)
        return lambda batch: csv.close() if batch is None else csv.write_batch(neutralized(pa, batch))

    def lines(batch: Any) -> None:
        if batch is not None:
            for row in batch.to_pylist():
                stream.write(json.dumps(row, ensure_ascii=False, allow_nan=False).encode("utf-8") + b"\n")

    return lines


# A cell a spreadsheet runs: one starting with = + - @, or a tab or carriage return (which some strip before one).
_FORMULA = "^[=+\\-@\t\r]"
# A plain decimal number, which a spreadsheet reads as that number: left as it is (RE2 syntax, as pyarrow's).
_NUMBER = "^[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"


def neutralized(pa: Any, batch: Any) -> Any:
    """The batch with every string cell a spreadsheet would run as a formula prefixed with a single quote."""
    return pa.RecordBatch.from_arrays([_neutral(pa, column) for column in batch.columns], schema=batch.schema)


def _neutral(pa: Any, array: Any) -> Any:
    import pyarrow.compute as pc  # type: ignore[import-untyped]  # the optional extra [tables], as pyarrow

    if pa.types.is_dictionary(array.type):  # its distinct values only: each once
        return pa.DictionaryArray.from_arrays(array.indices, _neutral(pa, array.dictionary))
    if not pa.types.is_string(array.type):
        return array
    risky = pc.and_(pc.match_substring_regex(array, _FORMULA), pc.invert(pc.match_substring_regex(array, _NUMBER)))
    return pc.if_else(risky, pc.binary_join_element_wise("'", array, ""), array)
