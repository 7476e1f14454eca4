"""A table of runs written to a Parquet, CSV or JSON Lines file, one record batch (a Parquet row group) at a time.

Memory is bounded by the batch, whatever the size of the run; the file is written atomically (``_atomic``): an
export that fails leaves what was there before.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO, Literal

import attrs

from .._issues import Issue
from ..writing import _atomic
from ._tables import BATCH_ROWS, Rows, Source, TableName, _pyarrow, batches, metric_names, runs_of, schema

Format = Literal["parquet", "csv", "jsonl"]
FORMATS: tuple[Format, ...] = ("parquet", "csv", "jsonl")


@attrs.frozen
class Exported:
    """What an export wrote: the rows, the tasks read, and the issues of what was left out (``strict=False``)."""

    rows: int
    tasks: int
    issues: list[Issue]


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
) -> Exported:
    """Write one table over ``source`` to ``output``. The metric columns of the tasks and attempts tables are
    found by a first pass over the attempts (unless ``columns`` names them), so that every batch has one
    schema. ``on_task`` is called with the number of tasks read so far (a progress bar)."""
    pa = _pyarrow()
    metrics = metric_names(table, source) if columns is None else []
    arrow_schema = schema(table, metrics, columns)
    rows = Rows(table, source, strict=strict, on_task=on_task)
    written = 0

    def produce(stream: BinaryIO) -> None:
        nonlocal written
        writer = _writer(pa, to, stream, arrow_schema)
        try:
            for batch in batches(rows, arrow_schema, batch_rows):
                writer(batch)
                written += batch.num_rows
        finally:
            writer(None)

    _atomic.write_atomic(output, produce)
    return Exported(written, rows.tasks_read, rows.issues)


def task_count(source: Source) -> int:
    """How many task folders the runs of a source hold, by names alone (the total of a progress bar)."""
    return sum(1 for run in runs_of(source) for _ in run.tasks())


def _writer(pa: Any, to: Format, stream: BinaryIO, arrow_schema: Any) -> Callable[[Any], None]:
    """A function that writes one batch, and closes the format's writer when given None."""
    if to == "parquet":
        import pyarrow.parquet  # type: ignore[import-untyped]  # the optional extra [tables], as pyarrow

        parquet = pyarrow.parquet.ParquetWriter(stream, arrow_schema)
        return lambda batch: parquet.close() if batch is None else parquet.write_batch(batch)
    if to == "csv":
        import pyarrow.csv  # type: ignore[import-untyped]  # the optional extra [tables], as pyarrow

        csv = pyarrow.csv.CSVWriter(stream, arrow_schema)
        return lambda batch: csv.close() if batch is None else csv.write_batch(batch)

    def lines(batch: Any) -> None:
        if batch is not None:
            for row in batch.to_pylist():
                stream.write(json.dumps(row, ensure_ascii=False, allow_nan=False).encode("utf-8") + b"\n")

    return lines
