"""A small typed program that uses every public name; the test suite runs mypy --strict on it (and never runs it).

It must pass without a cast and without writing ``Any``: each call gives the type a user would expect, and
tests/typed_rejected.py shows that a wrong expectation is caught.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping
from pathlib import Path

import attrs

import agentbeats_spec
from agentbeats_spec import (
    ArtifactsUnavailable,
    InvalidDocument,
    Issue,
    Kind,
    Limits,
    Run,
    SpecError,
    TaskRead,
    TaskRef,
    TaskSoFar,
    UnconvertibleAttempt,
    UnknownKind,
    Watched,
    WriteError,
    __version__,
    attempts_table,
    dump,
    dumps,
    from_atif,
    from_dict,
    issues_table,
    iter_runs,
    kinds,
    load,
    loads,
    migrate_run,
    open_run,
    read_task,
    redact,
    scan,
    schema,
    score_run,
    steps_table,
    tasks_table,
    to_atif,
    to_dict,
    validate,
    watch_run,
    write_task,
)

# BEGIN GENERATED models (tools/codegen.py: the models of every kind, and the parts named below)
from agentbeats_spec.models import (
    ABSENT,
    AgentbeatsToml,
    AnalysisSummary,
    AttemptResult,
    AttemptResultV2,
    ExecutionIssue,
    ExperimentResults,
    MetricReport,
    Model,
    ProgressEvent,
    ProgressSnapshot,
    RetryRecord,
    RunInfo,
    RunInfoV2,
    RunParams,
    TaskDetail,
    TaskIndex,
    TaskIndexV2,
    Trajectory,
    VerifyCase,
)

# END GENERATED models


def warn_about(path: Path) -> AttemptResult:
    result = agentbeats_spec.load(path, "agentcompass-attempt")
    if isinstance(result, AttemptResultV2):  # the attempt of an agentcompass.task.v2 task: it has no issues yet
        raise ValueError(f"{path} is a v2 attempt: convert its run with migrate_run first")
    issues = result.issues if result.issues is not ABSENT else []
    issue = ExecutionIssue(severity="warning", phase="cleanup", code="checked", message="reviewed by a person")
    return attrs.evolve(result, issues=[*issues, issue])


def steps(trajectory: Trajectory) -> list[int]:
    return [step.step_id for step in trajectory.steps]


def category(task: TaskIndex) -> str:
    value = task.category
    return "none" if value is None or value is ABSENT else value


def every_kind_loads_as_its_model(run: Path) -> None:
    """A literal kind gives its model class (a union where the kind has more than one version)."""
    limits = Limits(max_file_size=64 * 1024 * 1024, max_depth=256)
    # BEGIN GENERATED load lines (tools/codegen.py: one per kind, typed as the models of its versions)
    abv3_repo: AgentbeatsToml = load(run / "agentbeats.toml", "abv3-repo")
    abv3_results: ExperimentResults = load(run / "results.json", "abv3-results")
    abb_case: VerifyCase = load(run / "verify.case.json", "abb-case")
    agentcompass_task: TaskIndex | TaskIndexV2 = load(run / "task.json", "agentcompass-task")
    agentcompass_attempt: AttemptResult | AttemptResultV2 = load(run / "attempt-1/result.json", "agentcompass-attempt")
    agentcompass_task_detail: TaskDetail = load(run / "1.task-detail.json", "agentcompass-task-detail")
    agentcompass_retry: RetryRecord = load(run / "attempt-1/retries/1.json", "agentcompass-retry")
    agentcompass_run_info: RunInfo | RunInfoV2 = load(run / "run_info.json", "agentcompass-run-info")
    agentcompass_params: RunParams = load(run / "params.json", "agentcompass-params")
    agentcompass_metrics: MetricReport = load(run / "metrics.json", "agentcompass-metrics")
    agentcompass_analysis_summary: AnalysisSummary = load(
        run / "analysis_summary.json", "agentcompass-analysis-summary"
    )
    agentcompass_progress: ProgressSnapshot = load(run / "progress.json", "agentcompass-progress")
    agentcompass_progress_events: list[ProgressEvent] = load(run / "progress.jsonl", "agentcompass-progress-events")
    actf_trajectory: Trajectory = load(run / "1.actf.json", "actf-trajectory")
    loaded: list[object] = [
        abv3_repo,
        abv3_results,
        abb_case,
        agentcompass_task,
        agentcompass_attempt,
        agentcompass_task_detail,
        agentcompass_retry,
        agentcompass_run_info,
        agentcompass_params,
        agentcompass_metrics,
        agentcompass_analysis_summary,
        agentcompass_progress,
        agentcompass_progress_events,
        actf_trajectory,
    ]
    # END GENERATED load lines
    bounded: AgentbeatsToml = load(run / "agentbeats.toml", "abv3-repo", limits=limits)
    index = agentcompass_task
    version: str = index.schema_version  # a member of both versions
    if isinstance(index, TaskIndexV2):  # narrowed like any union
        print(f"{index.task_id}: agentcompass.task.v2; migrate_run converts its task")
    trajectory: Trajectory = loads(b'{"schema_version": "ACTF_v1.0", "steps": []}', "actf-trajectory")
    more_events: list[ProgressEvent] = loads("", "agentcompass-progress-events")
    event: ProgressEvent = from_dict("agentcompass-progress-events", {"event": "run_started"})
    again: TaskIndex | TaskIndexV2 = from_dict("agentcompass-task", to_dict(index))
    attempt: AttemptResult = loads(b'{"retry_count": 0}', "agentcompass-attempt")  # text tells no task: v3
    first_step: dict[str, object] = to_dict(trajectory.steps[0]) if trajectory.steps else {}  # a part of a model
    print(*loaded, bounded, trajectory, more_events, event, again, attempt, version, first_step)


def whatever_kind(path: Path, name: str) -> str:
    """Without a literal kind, the result is one of the models (or the events of a JSON Lines file)."""
    found = load(path)
    if isinstance(found, list):
        return f"{len(found)} progress events"
    known: Model = found
    parsed: Model = from_dict(name, {"schema_version": "agentcompass.task.v3"})
    text: str = dumps(known) + dumps(parsed)
    return text


def check(source: Path | str | bytes | Mapping[str, object], allow_list: Path) -> list[Issue]:
    found: list[Issue] = validate(source, "agentcompass-task", limits=Limits(), secrets=True)
    findings: list[Issue] = scan(source, allow_list=allow_list, limits=Limits(max_issues=10))
    return [issue for issue in found + findings if issue.severity == "error" and issue.code.startswith("schema.")]


def share(path: Path, out: Path) -> None:
    attempt = redact(warn_about(path), allow_list=out / "allowed.txt")
    dump(attempt, out / "attempt-1" / "result.json")
    document: dict[str, object] = redact({"token": "sk-0123456789abcdef0123"})
    lines: list[object] = redact(["Bearer abc.def.ghi"])
    words: str = redact("password=hunter2")
    print(document, lines, words)


def describe(name: str) -> dict[str, str]:
    table: tuple[Kind, ...] = kinds()
    newest = {kind.name: kind.latest for kind in table}
    versions = {kind.name: ", ".join(kind.versions) for kind in table}
    try:
        document = schema(name, "v1")
    except UnknownKind as unknown:
        return {"unknown": unknown.kind, "known": ", ".join(unknown.known)}
    return {**newest, **versions, "title": str(document.get("title")), "version": __version__}


def copy_task(task: Path, run: Path, other_run: Path) -> Path:
    try:
        record: TaskDetail = read_task(task)
    except UnconvertibleAttempt as refused:
        print(f"attempt {refused.attempt}: {refused.reason}", file=sys.stderr)
        raise
    except InvalidDocument as invalid:
        for issue in invalid.issues:
            print(issue, file=sys.stderr)
        raise
    try:
        if record.retry_count:
            return write_task(run, record)
        return write_task(run, to_dict(record), artifacts_from=other_run)
    except ArtifactsUnavailable as missing:
        print(f"attempt {missing.attempt}: {missing.path}: {missing.reason}", file=sys.stderr)
        raise
    except WriteError as failed:
        print(failed.filename, failed.errno, file=sys.stderr)
        raise


def convert(trajectory: Path, atif: Path) -> bool:
    there = to_atif(trajectory, agent_name="mini-swe-agent", agent_version="1.0", model_name="gpt-x")
    back = from_atif(there.document)
    again = from_atif(atif)
    return there.exact and back.exact and not again.lost and bool(there.report()["lost"])


def migrate(run: Path, output: Path) -> int:
    try:
        migration = migrate_run(run, output, dry_run=True)
    except SpecError as error:
        print(error, file=sys.stderr)
        return 2
    return 0 if migration.complete else 1


def watch(run: Path) -> bool:
    def shown(issue: Issue) -> None:
        print(issue.heading(), flush=True)

    stop = threading.Event()
    watched: Watched = watch_run(run, shown, on_fixed=shown, stop=stop, timeout=3600.0)
    return watched.ending == "finished" and not watched.report.fails(strict=True) and not watched.fixed


def running_tasks(folder: Path) -> list[str]:
    """The tasks of every run below a folder that have not finished, with what each holds so far."""
    found: list[str] = []
    for run in iter_runs(folder):
        ref: TaskRef
        for ref in run.tasks():
            read: TaskDetail | TaskSoFar = ref.read()
            if isinstance(read, TaskSoFar):
                found.append(f"{ref.task_id}: {len(read.attempts)} attempt(s) so far, missing {read.missing}")
        issues: list[Issue] = run.issues
        found += [str(issue) for issue in issues]
    return found


def what_agentcompass_reads(path: Path) -> dict[str, int]:
    """Each task of a run as AgentCompass 1.0.1 reads it, errors or not: the errors beside each record."""
    errors: dict[str, int] = {}
    for ref in open_run(path).tasks():
        read: TaskRead = ref.read(strict=False)
        errors[str(read.record["task_id"])] = sum(issue.severity == "error" for issue in read.issues)
        if read.valid:
            model: TaskDetail | TaskSoFar = read.model()
            assert model.task_id == read.record["task_id"]
    if (path / "task.json").is_file():  # a task folder itself
        direct: TaskRead = read_task(path, strict=False)
        errors[str(direct.record["task_id"])] = len(direct.issues)
    return errors


def headline_scores(path: Path) -> dict[str, float | None]:
    """Each run's recomputed headline value (its first series), by run folder."""
    return {str(root): report.series[0].value for root, report in score_run(path).items()}


def as_tables(path: Path) -> int:
    run: Run = open_run(path, on_issue=print)
    rows = 0
    for make in (tasks_table, attempts_table, steps_table, issues_table):
        rows += make(run).num_rows
    return rows
