"""The kind table's plain data: every artifact kind's names, versions and file names, the one home of each.

``checking/_kinds.py`` adds what checks each kind (its rules, the readers' tolerance) to make the public
:class:`~agentbeats_spec.Kind`; the layers below the kind table (``rules/``, ``records/``, ...) take the task versions
from here. Everything else that repeats these facts (models, overloads, docs tables, pre-commit hooks, the npm
package) is generated from them by ``python tools/regenerate.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

# The syntax a kind's files are written in.
Syntax = Literal["json", "toml", "jsonl"]

# The AgentCompass task schema versions, oldest first. The task, attempt and task-detail schemas are keyed by them.
TASK_V2 = "agentcompass.task.v2"
TASK_V3 = "agentcompass.task.v3"
# The newest: the version AgentCompass 1.0.1 writes.
CURRENT_TASK = TASK_V3
# Every version AgentCompass 1.0.1 reads, the newest first.
READABLE_TASKS = (TASK_V3, TASK_V2)


@attrs.frozen
class Hook:
    """A kind's own pre-commit hook (``.pre-commit-hooks.yaml``): its id (what a user's configuration names, never
    changed once released) and its name; ``note`` is said after the generated description."""

    id: str
    name: str
    note: str = ""


@attrs.frozen
class KindData:
    """What :class:`~agentbeats_spec.Kind` states that is plain data (its fields of the same names, documented
    there); ``schemas`` maps each version to its schema file under ``schemas/`` (the newest last), of which the
    kind table makes the ``versions`` (``$id`` by version)."""

    name: str
    family: str
    title: str
    syntax: Syntax
    schemas: Mapping[str, str]
    file_match: tuple[str, ...]
    version_field: str | None = None
    rejected: Mapping[str, str] = attrs.field(factory=dict)
    unknown_version_note: str = ""
    version_prefix: str | None = None
    run_root_file: str | None = None
    model_name: str = attrs.field(kw_only=True)
    older_model_names: Mapping[str, str] = attrs.field(kw_only=True, factory=dict)
    editor_match: tuple[str, ...] = attrs.field(default=(), kw_only=True)
    hook: Hook | None = attrs.field(default=None, kw_only=True)


KIND_DATA: tuple[KindData, ...] = (
    KindData(
        "abv3-repo",
        "abv3",
        "ABV3-L1 repository self-description (agentbeats.toml)",
        "toml",
        {"v1": "abv3/agentbeats-toml.v1.json"},
        ("agentbeats.toml",),
        model_name="AgentbeatsToml",
        hook=Hook("agentbeats-toml", "agentbeats.toml (ABV3-L1)"),
    ),
    KindData(
        "abv3-results",
        "abv3",
        "ABV3-L1 experiment result (results.json)",
        "json",
        {"v1": "abv3/results.v1.json"},
        ("results.json",),
        model_name="ExperimentResults",
        editor_match=("**/results/*/results.json",),
        hook=Hook("abv3-results", "ABV3 experiment results.json"),
    ),
    KindData(
        "abb-case",
        "abb",
        "ABB bug case (verify.case.json, an attempt's case.json)",
        "json",
        {"v1": "abb/verify-case.v1.json"},
        ("verify.case.json", "case.json"),
        model_name="VerifyCase",
        editor_match=("**/verify.case.json", "**/attempts/*/case.json"),
        hook=Hook("abb-case", "ABB verify.case.json"),
    ),
    KindData(
        "agentcompass-task",
        "agentcompass",
        "AgentCompass task index (task.json)",
        "json",
        {TASK_V2: "agentcompass/task.v2.json", TASK_V3: "agentcompass/task.v3.json"},
        ("task.json",),
        version_field="schema_version",
        rejected={
            "agentcompass.task.v1": "agentcompass.task.v1 is a retired format that AgentCompass 1.0.1 rejects "
            "(its readers accept agentcompass.task.v3 and v2 only) and that no tool converts; rerun the evaluation",
        },
        unknown_version_note="AgentCompass 1.0.1 reads only agentcompass.task.v3 and agentcompass.task.v2",
        version_prefix="agentcompass.task.",
        model_name="TaskIndex",
        editor_match=("**/details/*/*/task.json",),
        older_model_names={TASK_V2: "TaskIndexV2"},
        hook=Hook("agentcompass-task", "AgentCompass task.json"),
    ),
    KindData(
        "agentcompass-attempt",
        "agentcompass",
        "AgentCompass attempt result (attempt-<n>/result.json)",
        "json",
        {TASK_V2: "agentcompass/attempt.v2.json", TASK_V3: "agentcompass/attempt.v3.json"},
        ("attempt-*/result.json",),
        model_name="AttemptResult",
        editor_match=("**/details/*/*/attempt-*/result.json",),
        older_model_names={TASK_V2: "AttemptResultV2"},
        hook=Hook("agentcompass-attempt", "AgentCompass attempt result.json"),
    ),
    KindData(
        "agentcompass-task-detail",
        "agentcompass",
        "AgentCompass task detail record (reconstructed)",
        "json",
        {TASK_V3: "agentcompass/task-detail.v3.json"},
        ("*.task-detail.json", "task-detail.json"),
        model_name="TaskDetail",
        editor_match=("**/*.task-detail.json",),
        hook=Hook("agentcompass-task-detail", "AgentCompass task detail records"),
    ),
    KindData(
        "agentcompass-retry",
        "agentcompass",
        "AgentCompass retry diagnostics (attempt-<n>/retries/*.json)",
        "json",
        {"agentcompass.retry.v1": "agentcompass/retry.v1.json"},
        ("attempt-*/retries/*.json",),
        version_field="schema_version",
        version_prefix="agentcompass.retry.",
        model_name="RetryRecord",
        editor_match=("**/attempt-*/retries/*.json",),
        hook=Hook("agentcompass-retry", "AgentCompass retry records"),
    ),
    KindData(
        "agentcompass-run-info",
        "agentcompass",
        "AgentCompass run record (run_info.json)",
        "json",
        {
            "agentcompass.run_info.v2": "agentcompass/run-info.v2.json",
            "agentcompass.run_info.v3": "agentcompass/run-info.v3.json",
        },
        ("run_info.json",),
        run_root_file="run_info.json",
        version_field="schema_version",
        unknown_version_note="AgentCompass 1.0.1 refuses to resume, reuse, summarize or analyze a run whose "
        "run_info.json has another version (runs of an older format must be rerun)",
        version_prefix="agentcompass.run_info.",
        model_name="RunInfo",
        editor_match=("**/run_info.json",),
        older_model_names={"agentcompass.run_info.v2": "RunInfoV2"},
        hook=Hook("agentcompass-run-info", "AgentCompass run_info.json"),
    ),
    KindData(
        "agentcompass-params",
        "agentcompass",
        "AgentCompass run parameters (params.json at a run root)",
        "json",
        {"v1": "agentcompass/params.v1.json"},
        (),
        run_root_file="params.json",
        model_name="RunParams",
    ),
    KindData(
        "agentcompass-metrics",
        "agentcompass",
        "AgentCompass metric report (metrics.json at a run root)",
        "json",
        {"v1": "agentcompass/metrics.v1.json"},
        (),
        run_root_file="metrics.json",
        model_name="MetricReport",
    ),
    KindData(
        "agentcompass-analysis-summary",
        "agentcompass",
        "AgentCompass analysis summary (analysis_summary.json)",
        "json",
        {"v1": "agentcompass/analysis-summary.v1.json"},
        ("analysis_summary.json",),
        run_root_file="analysis_summary.json",
        model_name="AnalysisSummary",
        editor_match=("**/analysis_summary.json",),
    ),
    KindData(
        "agentcompass-progress",
        "agentcompass",
        "AgentCompass progress snapshot (progress.json at a run root)",
        "json",
        {"v1": "agentcompass/progress.v1.json"},
        (),
        run_root_file="progress.json",
        model_name="ProgressSnapshot",
    ),
    KindData(
        "agentcompass-progress-events",
        "agentcompass",
        "AgentCompass progress events (progress.jsonl, one event per line)",
        "jsonl",
        {"v1": "agentcompass/progress-event.v1.json"},
        ("progress.jsonl",),
        run_root_file="progress.jsonl",
        model_name="ProgressEvent",
    ),
    KindData(
        "actf-trajectory",
        "actf",
        "AgentCompass trajectory (ACTF_v1.0)",
        "json",
        {"ACTF_v1.0": "actf/trajectory.v1.0.json"},
        (),
        version_field="schema_version",
        version_prefix="ACTF_",
        model_name="Trajectory",
        editor_match=("**/*.actf.json",),
        hook=Hook(
            "actf-trajectory",
            "ACTF trajectories (*.actf.json)",
            "A trajectory has no fixed name; save it as *.actf.json to get it checked.",
        ),
    ),
)
