"""Runs as tables: one row per task, attempt, ACTF step or issue, as ``pyarrow`` tables (the ``[tables]`` extra).

Rows are made one task at a time from the run reader (``_reader``) and gathered into record batches of a fixed
schema, so that a writer can stream them (``export``); the columns are documented in docs/tables.md.

A run-level or task-level value (a run's ``model``, a task's ``category``) is the same string in every row of its
run or task, and may be as long as the file it comes from: its columns are dictionary-encoded, so that a batch
holds it once, and a batch is bounded by the bytes its strings hold as well as by its rows. So memory follows the
largest file, never rows times strings.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal

from .. import _api
from ..vocabulary._issues import InvalidDocument, Issue
from ._reader import Run, TaskRef, iter_runs

Source = Run | str | os.PathLike[str] | Iterable[Run | str | os.PathLike[str]]
TableName = Literal["tasks", "attempts", "steps", "issues"]
TABLES: tuple[TableName, ...] = ("tasks", "attempts", "steps", "issues")
METRIC = "metric."  # the prefix of a metric's own column
BATCH_ROWS = 4096
# The characters of strings one batch may hold (a shared string counted once, unless the writer spells it out in
# every row: CSV and JSON Lines); a row larger than this is a batch of its own.
BATCH_BYTES = 16 << 20
_ROW_COST = 256  # what a row costs beyond its strings (its dict, its numbers), so that many tiny rows still count
# The columns whose value is shared by the rows of a run or of a task: dictionary<int32, string> in Arrow.
SHARED = frozenset({"run_id", "run_path", "benchmark", "harness", "model", "task_id", "state", "category"})

# The fixed columns of each table, in order, with their Arrow types by name; metric columns follow, sorted.
_RUN = [("run_id", "string"), ("run_path", "string"), ("benchmark", "string"), ("harness", "string"),
        ("model", "string")]  # fmt: skip
COLUMNS: dict[TableName, list[tuple[str, str]]] = {
    "tasks": [*_RUN, ("task_id", "string"), ("state", "string"), ("complete", "bool_"), ("category", "string"),
              ("k", "int64"), ("strategy", "string"), ("attempts", "int64"), ("retry_count", "int64"),
              ("issues", "int64"), ("steps", "int64"), ("prompt_tokens", "int64"), ("completion_tokens", "int64"),
              ("llm_infer_ms", "float64"), ("env_action_ms", "float64")],
    "attempts": [*_RUN, ("task_id", "string"), ("state", "string"), ("complete", "bool_"), ("category", "string"),
                 ("attempt", "int64"), ("status", "string"), ("retry_count", "int64"), ("issues", "int64"),
                 ("max_severity", "string"), ("steps", "int64"), ("prompt_tokens", "int64"),
                 ("completion_tokens", "int64"), ("llm_infer_ms", "float64"), ("env_action_ms", "float64"),
                 ("started_at", "string"), ("finished_at", "string")],
    "steps": [*_RUN, ("task_id", "string"), ("category", "string"), ("attempt", "int64"), ("step_index", "int64"),
              ("step_id", "int64"), ("started_at", "string"), ("finished_at", "string"), ("prompt_tokens", "int64"),
              ("completion_tokens", "int64"), ("llm_infer_ms", "float64"), ("env_action_ms", "float64"),
              ("stop_reason", "string"), ("tool_calls", "int64")],
    "issues": [("run_id", "string"), ("run_path", "string"), ("file", "string"), ("kind", "string"),
               ("pointer", "string"), ("line", "int64"), ("column", "int64"), ("severity", "string"),
               ("code", "string"), ("message", "string")],
}  # fmt: skip
_SEVERITY_ORDER = ("warning", "error", "fatal")
Row = dict[str, Any]


def _pyarrow() -> Any:
    try:
        import pyarrow  # type: ignore[import-untyped]  # the optional extra [tables]: only tables need it
    except ImportError:
        raise ImportError(
            "runs as tables need pyarrow: pip install '.[tables]' in a checkout of agentbeats-spec"
        ) from None
    return pyarrow


def runs_of(source: Source, on_issue: Callable[[Issue], None] | None = None) -> Iterator[Run]:
    """The runs a source names: a run, a path (a run or a folder of runs), or an iterable of these."""
    if isinstance(source, Run):
        yield source
    elif isinstance(source, (str, os.PathLike)):
        yield from iter_runs(source, on_issue=on_issue)
    else:
        for item in source:
            yield from runs_of(item, on_issue)


class Rows:
    """The rows of one table over a source, made one task at a time, as AgentCompass 1.0.1 reads each task
    (``TaskRef.read(strict=False)``); the metric columns met so far (``metrics``), and, when not strict, the issues
    of the tasks left out (``issues``: that reader refuses them) and the number of tasks read despite an error
    (``with_errors``: their issues are the issues table's rows)."""

    def __init__(
        self, table: TableName, source: Source, *, strict: bool, on_task: Callable[[int], None] | None = None
    ) -> None:
        if table not in COLUMNS:
            raise ValueError(f"unknown table {table!r}; expected one of {', '.join(TABLES)}")
        self.table = table
        self.source = source
        self.strict = strict
        self.issues: list[Issue] = []
        self.tasks_read = 0
        self.with_errors = 0
        self.metrics: set[str] = set()
        self.on_task = on_task

    def met(self, issue: Issue) -> None:
        if self.strict and issue.severity == "error":
            raise InvalidDocument([issue])
        self.issues.append(issue)

    def __iter__(self) -> Iterator[Row]:
        for run in runs_of(self.source, self.met):
            if run.on_issue is None:  # a run opened by the caller: its issues so far, then as they come
                for issue in run.issues:
                    self.met(issue)
                run.issues.clear()
                run.on_issue = self.met
            base = _run_columns(run)
            if self.table == "issues":
                yield from ({**base, **_issue_row(issue)} for issue in _api.validate(run.path))
                continue
            for ref in run.tasks():
                yield from self._task_rows(base, ref)

    def _read(self, ref: TaskRef) -> dict[str, Any] | None:
        """The task's record as AgentCompass 1.0.1 reads it; None when it is left out (not strict)."""
        try:
            read = ref.read(strict=False)
        except InvalidDocument as error:
            if self.strict:
                raise
            self.issues.extend(error.issues)
            return None
        if not read.valid:
            if self.strict:  # refused at once, before another task is read
                raise InvalidDocument(read.issues)
            self.with_errors += 1
        self.tasks_read += 1
        if self.on_task is not None:
            self.on_task(self.tasks_read)
        return read.record

    def _task_rows(self, base: Row, ref: TaskRef) -> Iterator[Row]:
        record = self._read(ref)
        if record is None:
            return
        task = {**base, "task_id": ref.task_id, "category": record["category"]}
        counts = record["retry_counts"]
        attempts = [
            (int(key), payload, counts.get(key, 0))
            for key, payload in sorted(record["attempts"].items(), key=lambda item: int(item[0]))
        ]
        if self.table == "steps":
            for number, payload, _ in attempts:
                for index, step in enumerate(_steps(payload)):
                    yield {**task, "attempt": number, "step_index": index, **_step_row(step)}
            return
        task.update(state=ref.state, complete=ref.complete)
        rows = [{**task, "attempt": number, **_attempt_row(payload, retries)} for number, payload, retries in attempts]
        metrics = sorted({name for row in rows for name in row if name.startswith(METRIC)})
        self.metrics.update(metrics)
        if self.table == "attempts":
            yield from rows
            return
        plan = record["attempt_plan"]
        summed = {name: _sum(row.get(name) for row in rows) for name in _COUNTERS}
        means = {name: _mean(row.get(name) for row in rows) for name in metrics}
        yield {**task, "k": plan["k"] if plan is not None else None,
               "strategy": plan["strategy"] if plan is not None else None,
               "attempts": len(rows), "retry_count": record["retry_count"], **summed, **means}  # fmt: skip


_COUNTERS = ("issues", "steps", "prompt_tokens", "completion_tokens", "llm_infer_ms", "env_action_ms")


def _run_columns(run: Run) -> Row:
    request = run.info.request if run.info is not None else {}
    params = _api.to_dict(run.params) if run.params is not None else {}

    def name(part: str) -> str | None:
        for holder in (request, params):
            value = holder.get(part) if isinstance(holder, dict) else None
            if isinstance(value, dict):
                for member in ("id", "name"):
                    if isinstance(value.get(member), str):
                        return str(value[member])
        return None

    return {"run_id": run.run_id, "run_path": str(run.path), "benchmark": name("benchmark"),
            "harness": name("harness"), "model": name("model")}  # fmt: skip


def _member(value: Any, name: str) -> Any:
    """A member of a JSON object (the records are read as plain JSON values); None when absent or no object."""
    return value.get(name) if type(value) is dict else None


def _steps(payload: Any) -> list[Any]:
    steps = _member(_member(payload, "trajectory"), "steps")
    return [step for step in steps if step is not None] if isinstance(steps, list) else []


def _number(value: Any, *, counter: bool = False) -> float | None:
    """A numeric value; a negative timing (AgentCompass writes -1 for "not measured") is no value, and neither is
    an integer beyond a double's range (valid JSON, which validate warns of: json.large-integer)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return None if counter and value < 0 else _float(value)


def _float(value: bool | int | float) -> float | None:
    try:
        return float(value)
    except OverflowError:
        return None


def _integer(value: float | None) -> int | None:
    """A sum of counts as an integer; none when it is no finite number (its column holds what int64 can)."""
    return int(value) if value is not None and math.isfinite(value) else None


def _step_row(step: Any) -> Row:
    metric = _member(step, "metric")
    calls = _member(_member(step, "assistant_content"), "tool_calls")
    prompt = _number(_member(metric, "prompt_tokens_len"))
    completion = _number(_member(metric, "completion_tokens_len"))
    step_id = _member(step, "step_id")
    return {
        "step_id": step_id if isinstance(step_id, int) and not isinstance(step_id, bool) else None,
        "started_at": _text(_member(step, "started_at")),
        "finished_at": _text(_member(step, "finished_at")),
        "prompt_tokens": _integer(prompt),
        "completion_tokens": _integer(completion),
        "llm_infer_ms": _number(_member(metric, "llm_infer_ms"), counter=True),
        "env_action_ms": _number(_member(metric, "env_action_ms"), counter=True),
        "stop_reason": _text(_member(metric, "stop_reason")),
        "tool_calls": len(calls) if isinstance(calls, (list, dict)) else 0,
    }


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _attempt_row(payload: Any, retries: int) -> Row:
    steps = _steps(payload)
    issues = _member(payload, "issues") or []
    severities = [_member(issue, "severity") for issue in issues]
    worst = max((_SEVERITY_ORDER.index(s) for s in severities if s in _SEVERITY_ORDER), default=None)
    trajectory = _member(payload, "trajectory")
    first = _text(_member(steps[0], "started_at")) if steps else None
    last = _text(_member(steps[-1], "finished_at")) if steps else None
    row: Row = {
        "status": _member(payload, "status"),
        "retry_count": retries,
        "issues": len(issues),
        "max_severity": _SEVERITY_ORDER[worst] if worst is not None else None,
        "steps": len(steps),
        "started_at": _text(_member(trajectory, "started_at")) or first,
        "finished_at": _text(_member(trajectory, "finished_at")) or last,
        **_step_sums(steps),
    }
    metrics = _member(payload, "metrics")
    for name, value in (metrics if isinstance(metrics, dict) else {}).items():
        row[METRIC + name] = _float(value) if isinstance(value, (bool, int, float)) else None
    return row


def _step_sums(steps: list[Any]) -> Row:
    """The token and timing sums of an attempt's steps: the sums of their step rows' values (:func:`_step_row`),
    made without a row per step (a long trajectory has hundreds), the usual values taken as they are."""
    prompt: list[int] = []
    completion: list[int] = []
    infer: list[float] = []
    action: list[float] = []
    for step in steps:
        metric = step.get("metric") if type(step) is dict else None
        if type(metric) is not dict:
            continue
        _count(metric.get("prompt_tokens_len"), prompt)
        _count(metric.get("completion_tokens_len"), completion)
        _time(metric.get("llm_infer_ms"), infer)
        _time(metric.get("env_action_ms"), action)
    return {
        "prompt_tokens": _integer(_sum(prompt)),
        "completion_tokens": _integer(_sum(completion)),
        "llm_infer_ms": _sum(infer),
        "env_action_ms": _sum(action),
    }


_EXACT = 1 << 53  # an integer a double holds exactly: its step row's value is itself


def _count(value: Any, into: list[int]) -> None:
    """A step's token count into ``into`` as its step row holds it (``_integer(_number(value))``), if any."""
    if type(value) is int and -_EXACT <= value <= _EXACT:
        into.append(value)
    elif value is not None:
        count = _integer(_number(value))
        if count is not None:
            into.append(count)


def _time(value: Any, into: list[float]) -> None:
    """A step's timing into ``into`` as its step row holds it (``_number(value, counter=True)``), if any."""
    if type(value) is float and value >= 0:
        into.append(value)
    elif value is not None:
        timing = _number(value, counter=True)
        if timing is not None:
            into.append(timing)


def _sum(values: Iterable[Any]) -> Any:
    present = [value for value in values if value is not None]
    return sum(present) if present else None


def _mean(values: Iterable[Any]) -> float | None:
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else None


def _issue_row(issue: Issue) -> Row:
    return {
        "file": issue.file,
        "kind": issue.kind,
        "pointer": issue.pointer,
        "line": issue.line,
        "column": issue.column,
        "severity": issue.severity,
        "code": issue.code,
        "message": issue.message,
    }


def schema(table: TableName, metrics: Iterable[str] = (), columns: Sequence[str] | None = None) -> Any:
    """The Arrow schema of a table: its fixed columns, then one float64 column per metric (``metric.<name>``);
    ``columns`` picks and orders them (a name neither fixed nor a metric seen is refused)."""
    pa = _pyarrow()
    shared = pa.dictionary(pa.int32(), pa.string())
    fields = [(name, shared if name in SHARED else getattr(pa, kind)()) for name, kind in COLUMNS[table]]
    if table in ("tasks", "attempts"):
        fields += [(name, pa.float64()) for name in sorted(set(metrics))]
    if columns is not None:
        known = dict(fields)
        unknown = [name for name in columns if name not in known and not name.startswith(METRIC)]
        if unknown:
            raise ValueError(f"unknown column(s) of the {table} table: {', '.join(map(repr, unknown))}")
        fields = [(name, known.get(name, pa.float64())) for name in columns]
    return pa.schema(fields)


def batches(
    rows: Iterable[Row],
    arrow_schema: Any,
    size: int = BATCH_ROWS,
    *,
    budget: int = BATCH_BYTES,
    spelled_out: bool = False,
) -> Iterator[Any]:
    """The rows as record batches of ``arrow_schema``: at most ``size`` rows, and no more than ``budget``
    characters of strings unless one row alone holds more. A dictionary-encoded string is counted once per batch,
    or in every row when ``spelled_out`` (a writer that writes it out in every row: its batch holds it so)."""
    pa = _pyarrow()
    fields = [(field.name, pa.types.is_dictionary(field.type)) for field in arrow_schema]
    pending: list[Row] = []
    used = 0
    counted: set[str] = set()  # the shared strings this batch already holds

    width = 8 * len(fields)  # every column holds a value (or its null) in every row: a wide table counts

    def cost_of(row: Row) -> int:
        cost = _ROW_COST + width
        for name, shared in fields:
            value = row.get(name)
            if isinstance(value, str) and (spelled_out or not shared or value not in counted):
                cost += len(value)
                if shared and not spelled_out:
                    counted.add(value)  # hashed once: a shared value is one str object, its hash kept
        return cost

    for row in rows:
        cost = cost_of(row)
        if pending and used + cost > budget:
            yield _batch(pa, arrow_schema, pending)
            pending, used = [], 0
            counted.clear()
            cost = cost_of(row)
        pending.append(row)
        used += cost
        if len(pending) >= size:
            yield _batch(pa, arrow_schema, pending)
            pending, used = [], 0
            counted.clear()
    if pending:
        yield _batch(pa, arrow_schema, pending)


def _batch(pa: Any, arrow_schema: Any, rows: list[Row]) -> Any:
    """One record batch, built column by column: a shared column as its distinct values and their indices."""
    arrays = []
    for field in arrow_schema:
        if field.name == METRIC:  # every metric of a row, by name: the spilled rows of an export (its one pass)
            metrics = [
                [(name[len(METRIC) :], _finite(row[name])) for name in row if name.startswith(METRIC)] for row in rows
            ]
            arrays.append(pa.array(metrics, type=field.type))
            continue
        values = [row.get(field.name) for row in rows]
        if pa.types.is_dictionary(field.type):
            distinct: dict[Any, int] = {}
            indices = [None if value is None else distinct.setdefault(value, len(distinct)) for value in values]
            dictionary = pa.array(list(distinct), type=field.type.value_type)
            arrays.append(pa.DictionaryArray.from_arrays(pa.array(indices, type=field.type.index_type), dictionary))
        elif pa.types.is_int64(field.type):  # an integer of the files beyond int64 (valid JSON): no value
            fits = [value if value is None or -(1 << 63) <= value < 1 << 63 else None for value in values]
            arrays.append(pa.array(fits, type=field.type))
        elif pa.types.is_float64(field.type):  # a sum or mean beyond a double's range: no value, in every format
            arrays.append(pa.array([_finite(value) for value in values], type=field.type))
        else:
            arrays.append(pa.array(values, type=field.type))
    return pa.RecordBatch.from_arrays(arrays, schema=arrow_schema)


def _finite(value: float | None) -> float | None:
    return value if value is None or math.isfinite(value) else None


def spill_schema(table: TableName) -> Any:
    """The schema of an export's rows before their metric columns are known: the fixed columns, then every metric
    of a row in one ``map<string, float64>`` column named ``metric.`` (no metric is named "")."""
    pa = _pyarrow()
    fields = list(schema(table))
    return pa.schema([*fields, pa.field(METRIC, pa.map_(pa.string(), pa.float64()))])


def with_metric_columns(batch: Any, arrow_schema: Any) -> Any:
    """A spilled batch (:func:`spill_schema`) in its table's schema: each metric column looked up by name."""
    import pyarrow.compute as pc  # type: ignore[import-untyped]  # the optional extra [tables], as pyarrow

    pa = _pyarrow()
    names = set(batch.schema.names)
    spilled = batch.column(METRIC)
    arrays = [
        batch.column(field.name) if field.name in names else pc.map_lookup(spilled, field.name[len(METRIC) :], "first")
        for field in arrow_schema
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=arrow_schema)


def _table(table: TableName, source: Source, columns: Sequence[str] | None, strict: bool) -> Any:
    pa = _pyarrow()
    made = Rows(table, source, strict=strict)
    rows = list(made)
    arrow_schema = schema(table, made.metrics, columns)
    result = pa.Table.from_batches(list(batches(rows, arrow_schema)), schema=arrow_schema)
    return result if strict else (result, made.issues)


def tasks_table(source: Source, *, columns: Sequence[str] | None = None, strict: bool = True) -> Any:
    """One row per task of a run, of many runs or of a folder of runs, as a ``pyarrow.Table``.

    The columns are those of docs/tables.md (a metric's ``metric.<name>`` is its mean over the task's
    attempts); ``columns`` picks them. By default a task that cannot be read raises :class:`InvalidDocument`;
    with ``strict=False`` it is left out and ``(table, issues)`` is returned, the issues of what was left out.
    """
    return _table("tasks", source, columns, strict)


def attempts_table(source: Source, *, columns: Sequence[str] | None = None, strict: bool = True) -> Any:
    """One row per attempt with a result (``metric.<name>`` per metric, token and timing sums over its steps);
    as :func:`tasks_table` otherwise."""
    return _table("attempts", source, columns, strict)


def steps_table(source: Source, *, columns: Sequence[str] | None = None, strict: bool = True) -> Any:
    """One row per ACTF step of every attempt's trajectory; as :func:`tasks_table` otherwise."""
    return _table("steps", source, columns, strict)


def issues_table(source: Source, *, columns: Sequence[str] | None = None, strict: bool = True) -> Any:
    """One row per issue :func:`validate` finds in each run; as :func:`tasks_table` otherwise (nothing is left
    out: the issues are the rows)."""
    return _table("issues", source, columns, strict)
