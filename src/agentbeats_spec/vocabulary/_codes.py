"""Every issue code: its family, the severity it is reported at, and what it means.

The one home of these facts: docs/codes.md, the SARIF rules and the reporters' levels are made from this table,
and every :class:`~agentbeats_spec.vocabulary._issues.Finding` and ``Issue`` is checked against it where it is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from ._settings import Limits

_DEPTH = Limits().max_depth  # the default limit, stated once in Limits

# "info" is what a reader should know but need not fix (what the reference writer does by design): it never
# fails a check, not even with --strict, and the text report hides it unless asked.
Severity = Literal["error", "warning", "info"]

# What each family of codes covers, in the order docs/codes.md shows them.
FAMILIES: Mapping[str, str] = {
    "json": "reading JSON",
    "toml": "reading TOML",
    "schema": "a JSON Schema keyword",
    "rule": "a cross-field rule",
    "legacy": "an older layout the reader still converts",
    "model": "loading a valid document into its generated model",
    "jsonl": "reading JSON Lines",
    "atif": "reading an ATIF file to convert",
    "layout": "a run tree's layout",
    "security": "a path that escapes its root, a link, or a secret",
    "io": "a file that cannot be read",
}


@attrs.frozen
class Code:
    """One issue code: ``severity`` is the one it is reported at unless ``when`` says otherwise.

    A code reported at more than one severity lists the others in ``also``, and ``when`` says where they apply.
    """

    name: str
    severity: Severity
    meaning: str
    also: tuple[Severity, ...] = ()
    when: str = ""

    @property
    def family(self) -> str:
        return self.name.partition(".")[0]

    @property
    def severities(self) -> tuple[Severity, ...]:
        return (self.severity, *self.also)


# The files of a rerun's archived evidence are kept as they were: what is wrong in them is only a warning.
_ARCHIVED = "warning in a rerun's archived evidence"

# fmt: off
TABLE: tuple[Code, ...] = (
    # Reading
    Code("json.syntax", "error",
        "The file is not well-formed JSON (the position is where the parser stopped).",
        also=("warning",), when=_ARCHIVED,
    ),
    Code("json.duplicate-key", "error",
        "A member name appears twice in one object; readers silently keep only one.",
        also=("warning",), when=_ARCHIVED,
    ),
    Code("json.non-finite", "error",
        "NaN, Infinity or a number that overflows to infinity: not JSON.",
        also=("warning",), when=_ARCHIVED,
    ),
    Code("json.encoding", "error",
        "The file is not valid UTF-8, or a string holds a lone surrogate (which has no UTF-8 form).",
        also=("warning",), when=_ARCHIVED,
    ),
    Code("json.bom", "error",
        "The file starts with a byte order mark, which Python's json (every AgentCompass 1.0.1 reader) and "
        "JavaScript's JSON.parse refuse (in JSON Lines: a line that starts with one).",
        also=("warning",),
        when=_ARCHIVED + ", and in JSON Lines no reader reads back (progress.jsonl: no AgentCompass 1.0.1 reader does)",
    ),
    Code("json.nul-byte", "error", "The file holds a NUL byte.", also=("warning",), when=_ARCHIVED),
    Code("json.trailing-data", "error",
        "Content follows the end of the JSON document.",
        also=("warning",), when=_ARCHIVED,
    ),
    Code("json.empty", "error",
        "The file is empty.",
        also=("warning",), when="warning for an empty JSON Lines file and in a rerun's archived evidence",
    ),
    Code("json.too-deep", "error",
        f"Nesting deeper than the limit ({_DEPTH} levels by default).",
        also=("warning",), when=_ARCHIVED,
    ),
    Code("json.large-integer", "warning",
        "An integer beyond 2**53, which many JSON readers cannot hold exactly; past 4,300 digits Python's reader "
        "refuses it, and the file is not read further.",
        also=("error",),
        when="error past 4,300 digits, and where the result browser of an AgentCompass run shows it (a run-level "
        "file; task.json, an attempt's result.json or a retry record of a task in a run): its page's JSON.parse "
        "rounds it",
    ),
    Code("json.type", "error",
        "A parsed value that JSON cannot represent (not a string, number, boolean, null, array or object).",
    ),
    Code("toml.syntax", "error", "The file is not valid TOML."),
    Code("toml.type", "error", "A TOML date or time, which has no JSON form; quote it."),
    Code("toml.encoding", "error", "The file is not valid UTF-8."),
    Code("toml.bom", "warning", "The file starts with a byte order mark."),
    Code("toml.nul-byte", "error", "The file holds a NUL byte."),
    Code("toml.too-deep", "error",
        f"Nesting deeper than the limit ({_DEPTH} levels by default, 400 for arrays and inline tables); not read "
        "further.",
    ),
    Code("toml.large-integer", "error",
        "An integer of more than 4,300 digits, which Python's reader refuses; not converted.",
    ),
    # JSON Schema keywords
    Code("schema.required", "error", "A required member is missing."),
    Code("schema.type", "error", "A value has the wrong JSON type."),
    Code("schema.enum", "error", "A value is not one of the allowed values."),
    Code("schema.const", "error", "A value is not the one value allowed."),
    Code("schema.pattern", "error", "A string does not have the required form."),
    Code("schema.unexpected-member", "error", "A member that this object does not allow."),
    Code("schema.member-name", "error", "A member name that is not allowed (such as a non-canonical attempt number)."),
    Code("schema.not-allowed", "error", "A member or value that must not be there."),
    Code("schema.min-properties", "error", "An object has too few members."),
    Code("schema.max-properties", "error", "An object has too many members."),
    Code("schema.min-items", "error", "An array has too few items."),
    Code("schema.min-length", "error", "A string is too short."),
    Code("schema.unique-items", "error", "An array holds the same item twice."),
    Code("schema.minimum", "error", "A number is below its minimum."),
    Code("schema.maximum", "error", "A number is above its maximum."),
    Code("schema.unknown-kind", "error", "The kind of the file cannot be told from its name or content; pass --kind."),
    Code("schema.unknown-version", "error", "A schema_version this package does not know."),
    # Cross-field rules
    Code("rule.misspelled-key", "error", "An unknown key that is a near miss of a known one."),
    Code("rule.unknown-key", "warning", "A key the spec does not define."),
    Code("rule.logo-url", "error", "logo_file is a URL, but not an http(s) URL with a host."),
    Code("rule.main-metric", "error", "The member named by main_metric is missing, or is not a number or boolean."),
    Code("rule.issue-url", "error", "issue.url does not point at issue.number of issue.repository."),
    Code("rule.line-range", "error", "A fault location ends before it starts."),
    Code("rule.attempt-directory", "error", "An attempt number maps to a folder of another number."),
    Code("rule.attempt-plan-k", "error", "attempt_plan.k is smaller than the largest attempt number."),
    Code("rule.unknown-strategy", "error",
        "An attempt strategy other than avg and pass.",
        also=("warning",),
        when="warning for a known strategy spelled otherwise (` Avg `), which the reader still reads",
    ),
    Code("rule.artifact-overlap", "error", "Two declared artifacts share a destination."),
    Code("rule.retry-budget", "error", "A retry number beyond max_retries."),
    Code("rule.retry-count", "error", "retry_count is not the sum of retry_counts."),
    Code("rule.retry-counts-attempt", "error", "retry_counts names an attempt beyond attempt_plan.k."),
    Code("rule.retry-counts-sparse", "warning", "retry_counts holds a zero; the map is sparse."),
    Code("rule.step-order", "error", "Trajectory step ids do not strictly increase."),
    Code("rule.shadowed-member", "error", "A model's unknown_members holds the name of one of its declared members."),
    Code("model.unrepresentable", "error",
        "A valid document holds a value its generated model cannot: a fault of the package, reported by load "
        "instead of a converter's traceback.",
    ),
    Code("rule.empty-object-list", "info", "{} where a list (or null) belongs."),
    Code("rule.timestamp", "error", "A timestamp that names no real date and time."),
    Code("rule.timestamp-offset", "info", "A timestamp without a UTC offset."),
    Code("rule.finished-before-started", "warning", "A step or trajectory finishes before it starts."),
    Code("rule.series-id", "error",
        "A metric series whose series_id is not <metric_id>.<reducer>@<k>, or appears twice.",
    ),
    Code("rule.series-k", "error", "A metric series whose k differs from its report's k."),
    Code("rule.series-counts", "error",
        "Series coverage counts that do not add up (evaluated + unavailable + invalidated = total).",
    ),
    Code("rule.headline", "error", "A metric report without exactly one headline metric."),
    Code("rule.unknown-reducer", "error", "A metric series reducer other than native, avg and pass."),
    Code("rule.evaluation-failed", "error",
        "A metric report whose evaluation_failed does not say whether a fatal issue invalidated a task.",
    ),
    Code("rule.series-value", "error",
        "A metric value in the wrong place (value or reference_value under evaluation_failed), missing, or out of "
        "range.",
    ),
    Code("rule.metric-report", "error", "Something else of a metric report that AgentCompass's MetricReport refuses."),
    Code("rule.reuse-refused", "error",
        "A file that AgentCompass 1.0.1 refuses to reuse: a run_info.json without request.benchmark.id or "
        "execution.attempts, a collected artifact without the evidence its collector records.",
    ),
    Code("rule.summary-refused", "error", "A run-level file on which AgentCompass 1.0.1's summary raises."),
    Code("rule.analysis-refused", "error",
        "A run_info.json request that AgentCompass 1.0.1's analysis refuses to rebuild (RunRequest.from_params).",
    ),
    Code("rule.writer-shape", "warning",
        "A run-level member the AgentCompass 1.0.1 writer writes otherwise, which every 1.0.1 reader tolerates.",
    ),
    # Older formats
    Code("legacy.task-v2", "warning",
        "A task written by an older AgentCompass (agentcompass.task.v2); `migrate` rewrites it as v3.",
    ),
    Code("legacy.run-info-v2", "warning",
        "A run_info.json of the older format (v2): AgentCompass 1.0.1 resumes and reuses the run, but refuses to "
        "summarize or analyze it.",
    ),
    Code("legacy.unclassifiable", "error",
        "A v2 attempt that AgentCompass 1.0.1 cannot convert: it refuses the whole task.",
    ),
    Code("legacy.rejected-version", "error",
        "A retired format version that AgentCompass 1.0.1 rejects (agentcompass.task.v1).",
    ),
    # JSON Lines
    Code("jsonl.torn-line", "warning", "The last line of a JSON Lines file is cut short (a writer stopped mid-line)."),
    Code("jsonl.no-final-newline", "warning",
        "The last line of a JSON Lines file has no newline; the next record would join it.",
    ),
    Code("jsonl.blank-line", "warning", "A blank line in a JSON Lines file."),
    # Other formats
    Code("atif.invalid", "error",
        "A file given as ATIF that is not an ATIF trajectory (v1.x) as the converter reads it.",
    ),
    # Layouts
    Code("layout.missing-file", "error",
        "A file the layout requires is missing.",
        also=("warning",), when="warning for an ABB step without submission.json",
    ),
    Code("layout.missing-folder", "error",
        "A folder the layout requires (or declares) is missing.",
        also=("warning",), when="warning for an ABB attempt without steps/ (it stopped before its first step)",
    ),
    Code("layout.unexpected-entry", "warning",
        "A file or folder that is not part of the layout.",
        also=("info",), when="info for documentation beside ABV3 results",
    ),
    Code("layout.temporary-file", "warning", "A temporary file left by an interrupted atomic write."),
    Code("layout.not-an-object", "error",
        "A JSON file that must hold an object holds something else.",
        also=("warning",), when="warning for an ABB trajectory.json",
    ),
    Code("layout.nothing-found", "error",
        "A folder named to check in which no artifact was found at all (the Python API; the command exits 2).",
    ),
    Code("layout.unknown-state", "error", "A folder in details/ that is not a task state."),
    Code("layout.v2-layout", "error",
        "An agentcompass.task.v3 task filed the v2 way (details/<task>/, no state folder).",
    ),
    Code("layout.evaluation-failed", "error",
        "metrics.json says evaluation_failed otherwise than the run's details/fatal/ folder does.",
    ),
    Code("layout.text-encoding", "error",
        "A Markdown file of an AgentCompass run (summary.md, analysis_summary.md) that is not valid UTF-8: the "
        "result browser reads it as UTF-8 text and cannot open the run.",
    ),
    Code("layout.missing-run-info", "error",
        "A run without run_info.json: AgentCompass 1.0.1 refuses to resume, reuse, summarize or analyze it.",
    ),
    Code("layout.attempt-plan", "error",
        "A published task's attempt_plan other than its run's execution.attempts: AgentCompass 1.0.1's summary "
        "refuses the run and reuse the task.",
    ),
    Code("layout.undeclared-metric", "error",
        "An attempt metric the run's metrics.json does not declare, or not of its declared kind: AgentCompass "
        "1.0.1's summary refuses the run.",
    ),
    Code("layout.score-mismatch", "error",
        "A value of metrics.json (a series', a category's or a hierarchy node's value, reference_value, "
        "aggregation_weight or counts) other than the one AgentCompass 1.0.1's aggregation gives from the run's "
        "published tasks: a hand-edited score, or a report left stale by tasks added, removed or changed since.",
    ),
    Code("layout.duplicate-task", "error", "A task with more than one result folder."),
    Code("layout.task-folder-name", "error", "A task folder not named <readable>--<sha256>."),
    Code("layout.task-hash", "error", "A task folder whose hash is not the sha256 of its task_id."),
    Code("layout.readable-name", "error",
        "A task folder whose readable prefix differs from the writer's (its reader refuses it).",
    ),
    Code("layout.missing-attempt", "error", "task.json maps an attempt to a folder that does not exist."),
    Code("layout.unmapped-attempt", "error", "An attempt folder that task.json does not map."),
    Code("layout.attempt-folder-name", "error", "An attempt folder with a non-canonical number (attempt-02)."),
    Code("layout.incomplete-task", "error", "A finished task without its shared metadata."),
    Code("layout.missing-result", "error", "A finished task's attempt without result.json."),
    Code("layout.wrong-state", "error", "A task filed under a state other than its most severe issue."),
    Code("layout.checkpoint-size", "error", "checkpoint.json beyond 32 MiB."),
    Code("layout.checkpoint-scheduler", "error",
        "A running task's scheduler checkpoint that AgentCompass 1.0.1 cannot load when it resumes or reuses the run.",
    ),
    Code("layout.checkpoint-version", "error",
        "checkpoint.json without schema_version agentcompass.attempt_checkpoint.v1.",
    ),
    Code("layout.artifacts-directory", "error",
        "declared_artifacts.directory is not this attempt's artifacts/ folder.",
    ),
    Code("layout.missing-artifact", "error", "A collected artifact is not on disk."),
    Code("layout.artifact-mismatch", "error",
        "A collected artifact that is not what its collector recorded (file count, size or sha256), or that the "
        "collector refuses (a link, a special file): AgentCompass 1.0.1 refuses to reuse it.",
    ),
    Code("layout.artifact-permissions", "error",
        "A collected artifact that holds what its collector recorded, but whose permission bits are those of a copy "
        "under another umask: AgentCompass 1.0.1 refuses to reuse it until they are restored.",
    ),
    Code("layout.retry-task", "error", "A retry record for another task than the folder it is in."),
    Code("layout.retry-attempt", "error", "A retry record for another attempt than the folder it is in."),
    Code("layout.retry-file-name", "warning",
        "A retry record not named <task-folder>.attempt<n>.retry<r>.<stage>.json.",
    ),
    Code("layout.retry-count", "warning",
        "An attempt's retry_count differs from its number of retry records.",
        also=("info",), when="info when there are fewer records than retry_count (write_result keeps no records)",
    ),
    Code("layout.issue-number", "error", "An ABB case filed under another issue number."),
    Code("layout.duplicate-case-id", "error",
        "A case_id that another case definition of the same ABB tree already has.",
    ),
    Code("layout.not-an-experiment", "error",
        "A file directly in the run-configs folder.",
        also=("info",), when="info for a repository file such as README.md",
    ),
    Code("layout.empty-experiment", "error", "An experiment folder without run configs."),
    Code("layout.nested-run-config", "error", "A folder inside an experiment folder."),
    Code("layout.missing-default-exp", "error",
        "The default experiment folder does not exist.",
        also=("warning",), when="warning when no default_exp is declared and there is no default folder",
    ),
    Code("layout.orphan-results", "warning", "Results of an experiment that has no run configs."),
    Code("layout.missing-results", "warning", "An experiment's results folder without results.json."),
    # Security and I/O
    Code("security.path-escape", "error", "A path leads outside its root (absolute, .., or a symbolic link)."),
    Code("security.symlink", "warning",
        "A symbolic link, reported and not followed.",
        also=("error",), when="error for a link named as a path to check, or where a file or folder is required",
    ),
    Code("io.not-found", "error", "No such file.", also=("warning",), when=_ARCHIVED),
    Code("io.unreadable", "error", "The file or folder cannot be read.", also=("warning",), when=_ARCHIVED),
    Code("io.not-a-file", "error",
        "Not a regular file (a folder, FIFO, socket or device); not opened.",
        also=("warning",),
        when="warning for a FIFO, socket or device in a tree or named to check, and in a rerun's archived evidence",
    ),
    Code("io.too-large", "error",
        "The file is larger than the size limit (4 GiB by default); not read.",
        also=("warning",), when=_ARCHIVED,
    ),
    Code("io.out-of-memory", "error",
        "Checking the file ran out of memory; it has no other verdict (lower --max-file-size or give more memory).",
    ),
    Code("io.issues-truncated", "warning",
        "More issues than the per-file limit; the rest are counted by severity, not shown. It takes the highest "
        "severity it counts (after configuration): an error past the limit still fails the check.",
        also=("error", "info"),
        when="error when it counts an error (or schema errors not looked at), info when it counts only info",
    ),
    Code("security.secret", "error",
        "A credential in a file: a credential member's value, or a string or a member name shaped like a key or token.",
    ),
)
# fmt: on

CODES: Mapping[str, Code] = {code.name: code for code in TABLE}

# (code, severity) for every severity a code may have: what the check of each finding looks up.
_ALLOWED = frozenset((code.name, severity) for code in TABLE for severity in code.severities)


def check_code(instance: Any, attribute: Any, code: str) -> None:
    """The attrs validator of ``Finding.code`` and ``Issue.code``: a code of the table, at a severity it allows.

    attrs runs validators after every field is set, so the severity is there to compare.
    """
    if (code, instance.severity) not in _ALLOWED:
        known = CODES.get(code)
        if known is None:
            raise ValueError(f"{code!r} is not an issue code; add it to agentbeats_spec.vocabulary._codes.TABLE")
        allowed = " or ".join(known.severities)
        raise ValueError(
            f"{code!r} is reported as {allowed}, not {instance.severity!r} (agentbeats_spec.vocabulary._codes)"
        )
