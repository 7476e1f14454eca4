"""The AgentCompass run layout: ``details/<state>/<readable>--<sha256>/`` task folders.

Each task folder holds ``task.json`` and ``attempt-<n>/`` folders with ``result.json``, ``checkpoint.json``,
``artifacts/`` and ``retries/``. The rules here tie those files together; each file is also checked on its
own as its kind.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path
from typing import Any

import attrs

from ..checking import _kinds
from ..checking._collect import Collector
from ..checking._examine import Examined
from ..checking._sources import examine_in_folder, examine_named, members, read_schemaless
from ..reading import _folders
from ..reading._bounded import read_bounded
from ..reading._folders import FILE, Clean, Listed, Plan
from ..reading._pointers import join
from ..records._states import FINAL_STATES, STATES, final_state
from ..rules._common import is_int
from ..rules.abv3 import inside_root
from ..units._fs import Entry, Reporter, entries, entries_read, is_inside, listed, require
from ..units._plan import LOCAL, Tree, UnitPlan
from ..vocabulary._codes import Severity
from ..vocabulary._issues import Anchor, Finding
from ..vocabulary._kind_data import CURRENT_TASK, TASK_V2
from ..vocabulary._settings import current
from ..vocabulary._text import quote
from . import _evidence, _run_facts
from ._layout import Layout, loose_file, named_file_unit, plan_folder

SHARED = ("category", "ground_truth", "attempt_plan")
CHECKPOINT_VERSION = "agentcompass.attempt_checkpoint.v1"
CHECKPOINT_LIMIT = 32 * 1024**2
_TASK_FOLDER = re.compile(r"^(.*)--([0-9a-f]{64})$")
_ATTEMPT_FOLDER = re.compile(r"^attempt-([1-9][0-9]*)$")
_ARCHIVE = re.compile(r"^[0-9a-f]{32}$")
_TEMPORARY = re.compile(r"^\..*\.tmp$|^\.tmp\.")
# What the one native call of a task folder reads (reading._folders): task.json, each attempt folder's result.json
# and its retries/ records; what it does not read (a checkpoint, the artifacts) is read the ordinary way.
_RETRIES_PLAN = Plan(suffix=".json")
_ATTEMPT_PLAN = Plan(frozenset({"result.json"}), folders=(("retries", False, _RETRIES_PLAN),))
_TASK_PLAN = Plan(frozenset({"task.json"}), folders=(("attempt-", True, _ATTEMPT_PLAN),))
_RETRY_NAME_REST = re.compile(r"([1-9][0-9]*)\.(.+)\.json$")  # after "<task>.attempt<n>.retry"

TASK = _kinds.KINDS["agentcompass-task"]
ATTEMPT = _kinds.KINDS["agentcompass-attempt"]
RETRY = _kinds.KINDS["agentcompass-retry"]
METRICS = _kinds.KINDS["agentcompass-metrics"]
RUN_INFO = _kinds.KINDS["agentcompass-run-info"]


_UNREADABLE = re.compile(r"[^A-Za-z0-9._=-]+")


def readable_name(task_id: str) -> str:
    """The readable prefix the reference writer gives a task folder."""
    return _UNREADABLE.sub("_", task_id).strip("._-")[:80] or "task"


def task_folder_name(task_id: str) -> str:
    return f"{readable_name(task_id)}--{hashlib.sha256(task_id.encode('utf-8')).hexdigest()}"


def detect(folder: Path, tree: Tree = LOCAL) -> bool:
    return (
        tree.is_folder(folder / "details")
        or tree.is_file(folder / "run_info.json")
        or (folder.name == "details" and _looks_like_details(folder, tree))
        or tree.exists(folder / "task.json")
    )


def _looks_like_details(folder: Path, tree: Tree) -> bool:
    return any(name in STATES or tree.is_file(folder / name / "task.json") for name in tree.names(folder))


def plan_run(folder: Path, plan: UnitPlan, others: tuple[Layout, ...], layouts: tuple[Layout, ...]) -> None:
    """A run is cut into its run-level files and its task folders; a task folder named alone is one unit."""
    if plan.is_folder(folder / "details") or plan.is_file(folder / "run_info.json"):
        _plan_run_root(folder, plan, others, layouts)
        if plan.is_folder(folder / "details"):
            _plan_details(folder / "details", folder, plan)
    elif folder.name == "details":
        _plan_details(folder, folder.parent, plan)
    else:
        state, root = place_of(folder)
        plan.defer(task_unit, folder, state, root)


LAYOUT = Layout("agentcompass", detect, plan_run, {_run_facts.RUN_RULE: _run_facts.agree})


# The files AgentCompass 1.0.1 writes at a run root, by kind, as the kind table names them (Kind.run_root_file);
# summary.md and analysis_summary.md are text.
RUN_FILES = {kind.run_root_file: kind.name for kind in _kinds.KINDS.values() if kind.run_root_file is not None}
RUN_TEXT_FILES = ("summary.md", "analysis_summary.md")
MIGRATION_STAGING = ".agentbeats-spec-migrate"
# A run-level file replaced by a folder, and which 1.0.1 readers then fail: each opens it by name and catches only
# FileNotFoundError (viewer/reader.py _optional_json, _optional_text; launcher._load_json_object checks exists()).
_BROWSER = "the result browser cannot open the run (viewer/reader.py reads it and raises IsADirectoryError)"
_RUN_FILE_READERS = {
    "run_info.json": "AgentCompass 1.0.1 refuses to resume, reuse, summarize or analyze the run, and " + _BROWSER,
    "params.json": "the summary refuses the run (launcher._load_json_object), and " + _BROWSER,
    "metrics.json": _BROWSER,
    "analysis_summary.json": _BROWSER,
    "progress.json": _BROWSER,
    "summary.md": _BROWSER,
    "analysis_summary.md": _BROWSER,
}


def _plan_run_root(root: Path, plan: UnitPlan, others: tuple[Layout, ...], layouts: tuple[Layout, ...]) -> None:
    """The run-level files beside details/, each a unit; anything else at the root is walked as any folder is."""
    if not plan.is_file(root / "run_info.json") and not plan.is_folder(root / "run_info.json"):
        plan.about(
            root,
            "layout.missing-run-info",
            "the run has no run_info.json: AgentCompass 1.0.1 refuses to resume, reuse, summarize or analyze it "
            "(it can still read its tasks one by one)",
        )
    for entry in plan.entries(root, root):
        if entry.name == "details" and entry.is_folder:
            continue
        if entry.is_folder and entry.name in _RUN_FILE_READERS:
            plan.about(
                entry.path,
                "io.not-a-file",
                f"a folder where AgentCompass 1.0.1 writes the file {entry.name}: {_RUN_FILE_READERS[entry.name]}",
            )
            continue
        if entry.name == "metrics.json" and not entry.is_folder:
            plan.defer(metrics_unit, entry.path, _fatal_tasks(root, plan), str(root))
        elif entry.name == "run_info.json" and not entry.is_folder:
            plan.defer(run_info_unit, entry.path, str(root))
        elif entry.name in _BROWSED and not entry.is_folder:
            plan.defer(browsed_file_unit, entry.path, RUN_FILES[entry.name], str(root))
        elif entry.name in RUN_FILES and not entry.is_folder:
            plan.defer(named_file_unit, entry.path, RUN_FILES[entry.name])
        elif entry.name == MIGRATION_STAGING:
            plan.about(
                entry.path,
                "layout.temporary-file",
                "left by an interrupted `agentbeats-spec migrate`; run it again to finish or undo what it started",
                "warning",
            )
        elif _TEMPORARY.match(entry.name):
            _unexpected_file(entry, plan, "")
        elif entry.is_folder:
            if not any(layout.detect(entry.path, plan.tree) for layout in others):
                plan_folder(entry.path, None, plan, root, layouts)
        elif entry.name in RUN_TEXT_FILES:
            plan.defer(run_text_unit, entry.path)
        else:
            loose_file(plan, entry.path)


def run_text_unit(collector: Collector, path: Path) -> None:
    """summary.md or analysis_summary.md: the result browser reads each as UTF-8 text (viewer/reader.py read_run,
    _optional_text), so bytes that are not UTF-8 keep it from opening the run; what else they hold is free text."""
    raw, refused = read_bounded(path)
    if refused is not None:
        collector.about(path, refused.code, refused.message, refused.severity)
        return
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        byte = raw[error.start : error.start + 1].hex()
        collector.about(
            path,
            "layout.text-encoding",
            f"byte 0x{byte} at offset {error.start} is not UTF-8: the AgentCompass 1.0.1 result browser reads this "
            "file as UTF-8 text and cannot open the run (viewer/reader.py read_run raises UnicodeDecodeError); save "
            "it as UTF-8",
        )


def _fatal_tasks(root: Path, plan: UnitPlan) -> int | None:
    """How many tasks the listing files under details/fatal/, where it tells the run's finished tasks apart: None
    for a run without state folders (v2), or with tasks still running (a report of an earlier pass)."""
    details = root / "details"
    names = plan.tree.names(details) if plan.is_folder(details) else []
    if not names or any(name not in STATES for name in names) or plan.tree.names(details / "running"):
        return None
    return len(plan.tree.names(details / "fatal"))


# The run-level files the result browser sends its page (viewer/reader.py read_run), whose JSON.parse reads every
# number as a double: an integer beyond 2**53 is shown rounded, a misreading. Not sent: run_info.json's
# resolved_execution_plans (read_run pops them) and progress.jsonl.
_BROWSED = ("params.json", "analysis_summary.json", "progress.json")
_ROUNDED = "; the AgentCompass 1.0.1 result browser sends this file to its page, whose JSON.parse rounds it"
# What of a task folder's files the browser sends (viewer/reader.py): of task.json, the members _detail_payload and
# the cards send; of an attempt's result.json (v2 converted by name), what _attempt_payload, _attempt_facts (a card's
# duration and metric), read_detail_step (a whole step) and the retry counts send; of a retry record, the numbers
# _retry_summary sends. The rest (ground_truth, meta, other artifacts, a checkpoint) is never sent.
_SHOWN_TASK = ("/task_id", "/category", "/attempt_plan")
_SHOWN_ATTEMPT = (
    "/status", "/metrics", "/issues", "/artifacts/execution_diagnostics", "/final_answer", "/analysis_result",
    "/retry_count", "/trajectory/schema_version", "/trajectory/started_at", "/trajectory/finished_at",
    "/trajectory/elapsed_seconds", "/trajectory/duration_seconds", "/trajectory/steps",
)  # fmt: skip
_SHOWN_RETRY = ("/attempt", "/retry", "/max_retries")


def _within(pointer: str, places: tuple[str, ...]) -> bool:
    return any(place == "" or pointer == place or pointer.startswith(place + "/") for place in places)


def _rounded_by_browser(examined: Examined, shown: tuple[str, ...] = ("",), unsent: tuple[str, ...] = ()) -> Examined:
    """The file's inexact integers as errors, where the browser sends them: within ``shown``, outside ``unsent``."""
    findings = tuple(
        attrs.evolve(finding, severity="error", message=finding.message + _ROUNDED)
        if finding.code == "json.large-integer" and finding.severity == "warning"
        and _within(finding.pointer, shown) and not _within(finding.pointer, unsent)
        else finding
        for finding in examined.findings
    )  # fmt: skip
    if findings == examined.findings:
        return examined
    return Examined(examined.document, examined.kind, findings, examined.file, examined.overflow)


def browsed_file_unit(collector: Collector, path: Path, kind: str, scope: str | None = None) -> None:
    """A run-level file the result browser shows, checked as its kind; what the summary merges of params.json under
    run_info.json's request is a fact of the run (``_run_facts``)."""
    examined = _rounded_by_browser(examine_named(path, _kinds.get(kind)))
    collector.add(examined)
    data = members(examined) if path.name == "params.json" and scope is not None else None
    if data is not None:
        _run_facts.params_facts(collector, scope or "", examined, data)


def run_info_unit(collector: Collector, path: Path, scope: str) -> None:
    """run_info.json, and what of it the run's tasks must agree with (``_run_facts``)."""
    examined = _rounded_by_browser(examine_named(path, RUN_INFO), unsent=("/resolved_execution_plans",))
    collector.add(examined)
    data = members(examined)
    version = data.get("schema_version") if data is not None else None
    if data is not None and isinstance(version, str) and version in RUN_INFO.versions:
        _run_facts.run_info_facts(collector, scope, examined, data)


def metrics_unit(collector: Collector, path: Path, fatal: int | None, scope: str | None = None) -> None:
    """metrics.json, and whether its evaluation_failed says what the run's task states say (names only, from the
    plan: a task is filed under details/fatal/ exactly when a fatal issue invalidates it)."""
    examined = _rounded_by_browser(examine_named(path, METRICS))
    data = members(examined)
    findings = []
    failed = data.get("evaluation_failed", False) if data is not None else None
    if data is not None and fatal is not None and isinstance(failed, bool) and failed != (fatal > 0):
        said = (
            "evaluation_failed is true, but no task of the run is in details/fatal/"
            if failed
            else f"evaluation_failed is {'false' if 'evaluation_failed' in data else 'missing (false)'}, but "
            f"details/fatal/ holds {fatal} task(s)"
        )
        findings.append(
            Finding(
                "/evaluation_failed",
                "layout.evaluation-failed",
                f"{said}: AgentCompass 1.0.1 invalidates exactly the tasks with a fatal issue and sets "
                "evaluation_failed when it invalidated any, so this report does not describe these tasks "
                "(`agentcompass summary` rebuilds it)",
                anchor=Anchor.VALUE if "evaluation_failed" in data else Anchor.PARENT,
            )
        )
    collector.add(examined.with_findings(findings))
    if data is not None and scope is not None:
        _run_facts.metrics_facts(collector, scope, examined, data)


def place_of(task: Path) -> tuple[str | None, Path | None]:
    """The state and run root of a task folder named on its own, when it sits in a run."""
    parent = task.parent
    if parent.name in STATES and parent.parent.name == "details":
        return parent.name, parent.parent.parent
    if parent.name == "details":
        return None, parent.parent
    return None, None


def _plan_details(details: Path, root: Path, plan: UnitPlan) -> None:
    seen: dict[str, Path] = {}
    for entry in plan.entries(details, root):
        if not entry.is_folder:
            plan.about(entry.path, "layout.unexpected-entry", "only state folders belong in details/", "warning")
        elif entry.name in STATES:
            for task in plan.entries(entry.path, root):
                if not task.is_folder:
                    _unexpected_file(task, plan, "a state folder holds task folders only")
                    continue
                if task.name in seen:
                    plan.about(
                        task.path,
                        "layout.duplicate-task",
                        f"the same task also has the folder {seen[task.name].relative_to(root).as_posix()}; "
                        "a task has exactly one result folder",
                    )
                seen[task.name] = task.path
                plan.defer(task_unit, task.path, entry.name, root)
        elif plan.is_file(entry.path / "task.json"):
            if entry.name in seen:
                also = seen[entry.name].relative_to(root).as_posix()
                plan.about(entry.path, "layout.duplicate-task", f"the same task also has the folder {also}")
            seen[entry.name] = entry.path
            plan.defer(task_unit, entry.path, None, root)
        else:
            plan.about(
                entry.path,
                "layout.unknown-state",
                f"{entry.name!r} is not a task state; expected one of {', '.join(STATES)}",
            )


def _unexpected_file(entry: Entry, collector: Reporter, why: str) -> None:
    if _TEMPORARY.match(entry.name):
        collector.about(entry.path, "layout.temporary-file", "a temporary file left by an interrupted write", "warning")
    else:
        collector.about(entry.path, "layout.unexpected-entry", why, "warning")


@attrs.frozen
class TaskFiles:
    """The parsed files of one task folder, as the checks read them."""

    index: Examined
    results: dict[str, Examined | None]


def check_task(task: Path, collector: Collector) -> TaskFiles | None:
    """Check one task folder where it stands in its run (its state and run root come from its place)."""
    state, root = place_of(task)
    return task_unit(collector, task, state, root)


def task_unit(collector: Collector, task: Path, state: str | None, root: Path | None) -> TaskFiles | None:
    """One task folder where the plan found it (its state folder and run root): a ``units._plan.UnitCheck``.

    Its task.json (:func:`_task_index`), the attempt folders it maps (:func:`_mapped_attempts`), each attempt
    (``_check_attempt``), what its state folder says of them (:func:`_check_task_state`), then its facts."""
    opened = _task_index(collector, task, root)
    if opened is None:
        return None
    index, listing, read = opened
    data = members(index) or {}
    task_id = data.get("task_id") if isinstance(data.get("task_id"), str) else None
    _check_task_name(task, task_id, collector)
    version = data.get("schema_version")
    legacy = version == TASK_V2
    known = isinstance(version, str) and version in ATTEMPT.versions
    attempt_kind = _attempt_kind(version) if known else ATTEMPT
    if state is None and root is not None and version == CURRENT_TASK:
        collector.about(
            task,
            "layout.v2-layout",
            "an agentcompass.task.v3 task filed directly in details/, without a state folder: each task owns "
            "details/<state>/<task>/ (running, then normal, error or fatal); AgentCompass 1.0.1 would still read "
            "it there (it lists details/*/task.json) and move it to its state on its next write",
        )
    if listing is None:
        listing = entries(task, collector, root or task)
    attempts = data.get("attempts")
    mapping: dict[str, Any] = attempts if isinstance(attempts, dict) else {}
    folders, mapped, findings = _mapped_attempts(collector, listing, mapping)
    results: dict[str, Examined | None] = {}
    for key, name in mapped.items():
        number = int(key) if key.isdigit() else None
        within = read.get(name)
        results[key] = _check_attempt(
            folders[name].path, number, task_id, task.name, root, collector, attempt_kind,
            within if isinstance(within, list) else None, state == "running",
        )  # fmt: skip
    _check_task_state(collector, task, state, index, data, mapped, results, findings)
    collector.add(index.with_findings(findings))
    if root is not None:
        read_results = {
            key: (result, members(result)) if result is not None else None for key, result in results.items()
        }
        # What the 1.0.1 readers take as a published task (has_task_result): its shared metadata and every attempt's
        # result, in a final state (or, for v2, directly in details/).
        published = (
            (state in FINAL_STATES or (state is None and legacy))
            and all(member in data for member in SHARED)
            and len(mapped) == len(mapping)
            and all(each is not None and each[1] is not None for each in read_results.values())
        )
        _run_facts.task_facts(collector, str(root), index, data, published, read_results)
    return TaskFiles(index, results)


def _task_index(
    collector: Collector, task: Path, root: Path | None
) -> tuple[Examined, list[Entry] | None, dict[str, Clean | list[Listed]]] | None:
    """A task folder's task.json checked, the folder's listing and what its native call read (the listing None
    when no native call listed it; None: no task.json, which is reported)."""
    # The folder listed and its task.json read in one native call when it can be; else (or when task.json is no
    # regular file, which require reports before anything is listed) as any file is.
    found = _folders.read_folder(str(task), _TASK_PLAN)
    if found is None or not any(name == "task.json" and type_ == FILE for name, type_, _ in found):
        found = None
        message = "a task folder holds task.json; this one has none"
        if not require(task / "task.json", "file", collector, task, message):
            return None
    listing: list[Entry] | None = None
    read: dict[str, Clean | list[Listed]] = {}
    if found is not None:
        listing, read = listed(task, found, collector, root or task)
    index = examine_in_folder(task, "task.json", TASK, read)
    if root is not None:  # in a run, whose result browser shows the task
        index = _rounded_by_browser(index, _SHOWN_TASK)
    return index, listing, read


def _mapped_attempts(
    collector: Collector, listing: list[Entry], mapping: dict[str, Any]
) -> tuple[dict[str, Entry], dict[str, str], list[Finding]]:
    """The task folder's sub-folders by name, the attempts of task.json's ``attempts`` that have their folder (key
    to folder name), and the findings on task.json of those that have none; every other entry is reported."""
    folders = {entry.name: entry for entry in listing if entry.is_folder}
    mapped: dict[str, str] = {}
    findings = []
    for key, name in mapping.items():
        if not isinstance(name, str):
            continue
        if name in folders:
            mapped[key] = name
        else:
            findings.append(
                Finding(
                    join("/attempts", key),
                    "layout.missing-attempt",
                    f"attempt {key} maps to {quote(name)}, but the task folder has no such folder",
                )
            )
    for entry in listing:
        if entry.is_folder and entry.name not in mapped.values():
            if _ATTEMPT_FOLDER.match(entry.name):
                collector.about(
                    entry.path, "layout.unmapped-attempt", f"task.json does not map any attempt to {entry.name!r}"
                )
            elif entry.name.startswith("attempt-"):
                collector.about(
                    entry.path,
                    "layout.attempt-folder-name",
                    f"{entry.name!r} is not a canonical attempt folder name such as 'attempt-2'",
                )
            else:
                collector.about(entry.path, "layout.unexpected-entry", "not part of a task folder", "warning")
        elif not entry.is_folder and entry.name != "task.json":
            _unexpected_file(entry, collector, "a task folder holds task.json and attempt folders only")
    return folders, mapped, findings


def _check_task_state(
    collector: Collector,
    task: Path,
    state: str | None,
    index: Examined,
    data: dict[str, Any],
    mapped: dict[str, str],
    results: dict[str, Examined | None],
    findings: list[Finding],
) -> None:
    """What the task's state folder says of it: a final state holds a published task whose every attempt has a
    result, and is the state its attempts' most severe issue makes it (a finished v2 task: every attempt has one)."""
    legacy = data.get("schema_version") == TASK_V2
    if state in FINAL_STATES and not legacy:  # a v2 attempt's issues are derived on read, not stored
        if index.document.readable and not any(member in data for member in SHARED):
            findings.append(
                Finding(
                    "",
                    "layout.incomplete-task",
                    f"the task is filed under the final state {state!r}, but task.json has only the identity "
                    "index: category, ground_truth and attempt_plan are published when the task finishes",
                )
            )
        for key, result in results.items():
            if result is None:
                collector.about(
                    task / mapped[key],
                    "layout.missing-result",
                    f"the task is in the final state {state!r}, but attempt {key} has no result.json",
                )
        expected = _state_of(results)
        if expected is not None and expected != state:
            collector.about(
                task,
                "layout.wrong-state",
                f"the task is filed under {state!r}, but the most severe issue of its attempts makes it "
                f"{expected!r}: it belongs in details/{expected}/",
            )
    elif legacy and state != "running" and all(member in data for member in SHARED):
        for key, result in results.items():
            if result is None:
                collector.about(
                    task / mapped[key],
                    "layout.missing-result",
                    f"attempt {key} of this finished agentcompass.task.v2 task has no result.json: AgentCompass 1.0.1 "
                    "reads the task only when every attempt it maps has one (has_task_result), so the task silently "
                    "drops out of its summary, reuse and result browser",
                )


@functools.cache
def _attempt_kind(version: str) -> _kinds.Kind:
    """The attempt kind pinned to a task's version: made once per version, not once per task folder."""
    return _kinds.pinned(ATTEMPT, version)


def _check_task_name(task: Path, task_id: str | None, collector: Collector) -> None:
    match = _TASK_FOLDER.match(task.name)
    if match is None:
        collector.about(
            task, "layout.task-folder-name", "a task folder is named <readable-task-id>--<sha256 of the task id>"
        )
        return
    if task_id is None:
        return
    digest = hashlib.sha256(task_id.encode("utf-8")).hexdigest()
    if match.group(2) != digest:
        collector.about(
            task,
            "layout.task-hash",
            f"the folder's hash is not the sha256 of task_id {quote(task_id)}; expected …--{digest}",
        )
    elif match.group(1) != readable_name(task_id):
        collector.about(
            task,
            "layout.readable-name",
            f"the readable prefix differs from the writer's {readable_name(task_id)!r}: AgentCompass 1.0.1 reads a "
            "task only from the folder its writer names, and would write a second folder for it",
        )


def _state_of(results: dict[str, Examined | None]) -> str | None:
    """The state the reference writer files a finished task under: its most severe issue."""
    severities: set[str] = set()
    for result in results.values():
        data = members(result) if result is not None else None
        if data is None:
            return None
        issues = data.get("issues", [])
        if not isinstance(issues, list):
            return None
        severities.update(str(issue.get("severity")) for issue in issues if isinstance(issue, dict))
    return final_state(severities)


def _check_attempt(
    folder: Path,
    number: int | None,
    task_id: str | None,
    task_name: str,
    root: Path | None,
    collector: Collector,
    kind: _kinds.Kind = ATTEMPT,
    found: list[Listed] | None = None,
    running: bool = False,
) -> Examined | None:
    """``found``: what the task folder's native call already listed and read of this folder (else it is now);
    ``running``: whether the task is in running/, whose scheduler checkpoints a resumed or reusing run loads."""
    if found is None:
        entries_, read = entries_read(folder, collector, root or folder, _ATTEMPT_PLAN)
    else:
        entries_, read = listed(folder, found, collector, root or folder)
    listing = {entry.name: entry for entry in entries_}
    result = None
    if "result.json" in listing and not listing["result.json"].is_folder:
        result = examine_in_folder(folder, "result.json", kind, read)
        if root is not None:
            result = _rounded_by_browser(result, _SHOWN_ATTEMPT)
    if "checkpoint.json" in listing and listing["checkpoint.json"].is_folder:
        collector.about(folder / "checkpoint.json", "io.not-a-file", _CHECKPOINT_FOLDER)
    elif "checkpoint.json" in listing:
        has_result = "result.json" in listing and not listing["result.json"].is_folder
        scheduler = (task_id, number, has_result) if running else None
        _check_checkpoint(folder / "checkpoint.json", collector, scheduler)
    findings: list[Finding] = []
    if result is not None:
        findings.extend(_artifact_findings(result, folder, root))
    if "artifacts" in listing and listing["artifacts"].is_folder:
        _report_links(folder / "artifacts", collector, root or folder)
    retries = 0
    if "retries" in listing and listing["retries"].is_folder:
        within = read.get("retries")
        retries = _check_retries(
            folder / "retries",
            number,
            task_id,
            task_name,
            root,
            collector,
            within if isinstance(within, list) else None,
        )
    if result is not None and (data := members(result)) is not None:
        count = data.get("retry_count")
        if is_int(count) and count != retries:
            # write_result stores retry counts without the records the runner writes: fewer records is no fault.
            message = f"retry_count is {count}, but retries/ holds {retries} retry record(s)"
            severity: Severity = "info" if retries < count else "warning"
            findings.append(Finding("/retry_count", "layout.retry-count", message, severity=severity))
    if result is not None:
        collector.add(result.with_findings(findings))  # the file's positions, found in one pass
    for name, entry in listing.items():
        if (name == "result.json" and not entry.is_folder) or name == "checkpoint.json":
            continue
        if name in ("artifacts", "retries") and entry.is_folder:
            continue
        if entry.is_folder:
            collector.about(entry.path, "layout.unexpected-entry", "not part of an attempt folder", "warning")
        else:
            _unexpected_file(entry, collector, "not part of an attempt folder")
    return result


def _report_links(folder: Path, collector: Collector, root: Path) -> None:
    """Collected files are the task's own: only links and special files among them are reported."""
    stack = [folder]  # not recursion: collected trees may be nested deeper than the call stack
    while stack:
        stack.extend(entry.path for entry in entries(stack.pop(), collector, root) if entry.is_folder)


def _check_checkpoint(
    path: Path, collector: Collector, scheduler: tuple[str | None, int | None, bool] | None = None
) -> None:
    """``scheduler``: the task id, attempt number and whether result.json is there, for a running task."""
    try:
        size = path.stat().st_size
    except OSError as error:
        collector.about(path, "io.unreadable", f"cannot read the file: {error.strerror or error}")
        return
    if size > CHECKPOINT_LIMIT:
        collector.about(
            path, "layout.checkpoint-size", f"checkpoint.json is {size} bytes; the writer's bound is 32 MiB"
        )
        return
    read = read_schemaless(path)
    if isinstance(read, Finding):
        collector.about(path, read.code, read.message)
        return
    findings = []
    if read.document.readable:
        data = read.document.data
        version = data.get("schema_version") if isinstance(data, dict) else None
        if version != CHECKPOINT_VERSION:
            findings.append(
                Finding(
                    "/schema_version" if isinstance(data, dict) else "",
                    "layout.checkpoint-version",
                    f"expected schema_version {CHECKPOINT_VERSION!r}, found {quote(str(version))}",
                    anchor=Anchor.PARENT if isinstance(data, dict) and "schema_version" not in data else Anchor.VALUE,
                )
            )
        elif scheduler is not None and isinstance(data, dict) and data.get("scheduler") is not None:
            findings.extend(_scheduler_findings(data["scheduler"], *scheduler))
    collector.add(read.with_findings(findings), "checkpoint")


_CHECKPOINT_FOLDER = (
    "a folder where AgentCompass 1.0.1 writes the attempt's checkpoint.json: its checkpoint repository cannot load "
    "the attempt (RunAttemptCheckpointRepository.load and read_checkpoint open it: IsADirectoryError), which "
    "resuming or reusing the run does"
)
_SCHEDULER_MEMBERS = {"task_id", "attempt_index", "status", "value", "stop_requested", "retries", "error"}
_CANNOT_LOAD = (
    "AgentCompass 1.0.1 cannot load this scheduler checkpoint (RunAttemptCheckpointRepository.load), which resuming "
    "or reusing the run does for a running task"
)


def _scheduler_findings(section: Any, task_id: str | None, number: int | None, has_result: bool) -> list[Finding]:
    """What ``RunAttemptCheckpointRepository.load`` and ``AttemptCheckpoint.from_dict`` refuse: the first refusal."""

    def refused(pointer: str, why: str) -> list[Finding]:
        return [Finding(join("/scheduler", pointer) if pointer else "/scheduler", "layout.checkpoint-scheduler",
                        f"{_CANNOT_LOAD}: {why}")]  # fmt: skip

    if not isinstance(section, dict):
        return refused("", "the scheduler section is not an object")
    reference = section.get("result_path")
    if reference is not None and reference != "result.json":
        return refused("result_path", f"result_path is {quote(str(reference))}; it names result.json or nothing")
    if reference is not None and not has_result:
        return refused("result_path", "it names result.json, which this attempt folder does not hold")
    version = section.get("schema_version")
    if version is not None and version != "agentcompass.logical_attempt.v2":
        return refused("schema_version", f"schema_version is {quote(str(version))}; expected "
                       "'agentcompass.logical_attempt.v2'")  # fmt: skip
    members = set(section) - {"schema_version", "result_path"} | ({"value"} if reference is not None else set())
    if members != _SCHEDULER_MEMBERS:
        extra, lacking = sorted(members - _SCHEDULER_MEMBERS), sorted(_SCHEDULER_MEMBERS - members)
        said = "; ".join(part for part in (extra and f"unknown {', '.join(extra)}",
                                           lacking and f"no {', '.join(lacking)}") if part)  # fmt: skip
        return refused("", f"it holds exactly {', '.join(sorted(_SCHEDULER_MEMBERS))} ({said})")
    value = section.get("value")
    types = {"task_id": str, "attempt_index": int, "retries": int, "stop_requested": bool, "error": str}
    for name, wanted in types.items():
        if type(section[name]) is not wanted:
            return refused(name, f"{name} is not {'a string' if wanted is str else 'a ' + wanted.__name__}")
    identifier, index, retries = section["task_id"], section["attempt_index"], section["retries"]
    if section["status"] not in ("completed", "failed"):
        return refused("status", "status is neither 'completed' nor 'failed'")
    if not identifier.strip() or identifier != identifier.strip() or index < 1 or retries < 0:
        return refused("", "task_id is blank or padded, attempt_index below 1 or retries below 0")
    if section["status"] == "failed" and section["stop_requested"]:
        return refused("stop_requested", "a failed attempt cannot request the strategy to stop")
    if version is not None and isinstance(value, dict) and "error" in value:
        return refused("value", "a checkpoint of this version cannot hold a result with an error member")
    if task_id is not None and identifier != task_id:
        return refused("task_id", f"task_id {quote(identifier)} is not this task's {quote(task_id)}")
    if number is not None and index != number:
        return refused("attempt_index", f"attempt_index {index} is not this attempt's {number}")
    return []


def _artifact_findings(result: Examined, folder: Path, root: Path | None) -> list[Finding]:
    artifacts = (members(result) or {}).get("artifacts")
    index = artifacts.get("declared_artifacts") if isinstance(artifacts, dict) else None
    if not isinstance(index, dict):
        return []
    pointer = "/artifacts/declared_artifacts"
    store = folder / "artifacts"
    findings = []
    directory = index.get("directory")
    if root is not None and isinstance(directory, str):
        expected = Path(os.path.relpath(store, root)).as_posix()
        if directory != expected:
            findings.append(
                Finding(
                    join(pointer, "directory"),
                    "layout.artifacts-directory",
                    f"directory is {quote(directory)}, but this attempt's artifacts/ folder is {expected!r} "
                    "(relative to the run root)",
                )
            )
    entries_ = index.get("entries")
    for position, entry in enumerate(entries_ if isinstance(entries_, list) else []):
        if not isinstance(entry, dict) or not isinstance(entry.get("destination"), str):
            continue
        destination = entry["destination"]
        if not inside_root(destination):
            continue  # the schema reports it as security.path-escape
        where = join(pointer, "entries", position, "destination")
        target = store / destination
        collected = entry.get("status") == "collected"
        if not os.path.lexists(target):
            if collected:
                findings.append(
                    Finding(where, "layout.missing-artifact", f"collected artifact {quote(destination)} is not on disk")
                )
        elif not _through_link(str(store), destination):
            if collected:
                findings.extend(_evidence_findings(entry, str(target), join(pointer, "entries", position)))
        elif not is_inside(Path(os.path.realpath(target)), Path(os.path.realpath(store))):
            findings.append(
                Finding(
                    where,
                    "security.path-escape",
                    f"artifact {quote(destination)} leads outside artifacts/ through a symbolic link",
                )
            )
        elif collected and os.path.islink(target):
            message = f"collected artifact {quote(destination)} is a symbolic link: {_REFUSED}"
            findings.append(Finding(where, "layout.artifact-mismatch", message))
    return findings


_REFUSED = "AgentCompass 1.0.1 refuses to reuse it"


def _evidence_findings(entry: dict[str, Any], target: str, pointer: str) -> list[Finding]:
    """A collected entry against what its artifact holds now: the file count, size and sha256 the collector
    recorded, compared in that order; the first that differs is the finding, at its member.

    Only what the entry records is compared (another writer may record none of it); the hash is taken only
    when the count and size agree, and only with ``verify_artifacts`` (``--no-verify-artifacts`` skips it).
    """
    count, size, digest = (entry.get(name) for name in ("file_count", "size_bytes", "sha256"))
    if not (is_int(count) or is_int(size) or isinstance(digest, str)):
        return []
    found = _evidence.measure(target)
    if isinstance(found, _evidence.Refusal):
        return [_refusal(found, _destination(entry), pointer)]
    if is_int(count) and count != found.file_count:
        held = f"{found.file_count} entr{'y' if found.file_count == 1 else 'ies'} (itself and all below it)"
        recorded = f"file_count {count}"
        return [_mismatch(join(pointer, "file_count"), f"{_destination(entry)} holds {held}", recorded)]
    if is_int(size) and size != found.size_bytes:
        recorded = f"size_bytes {size}"
        return [
            _mismatch(join(pointer, "size_bytes"), f"{_destination(entry)} holds {found.size_bytes} byte(s)", recorded)
        ]
    if not isinstance(digest, str) or not current().verify_artifacts:
        return []
    actual = found.sha256()
    if isinstance(actual, _evidence.Refusal):
        return [_refusal(actual, _destination(entry), pointer)]
    if actual == digest:
        return []
    copied = _copied_permissions(found, digest, entry, join(pointer, "sha256"))
    if copied is not None:
        return [copied]
    held = f"{_destination(entry)} has sha256 {actual[:12]}…"
    recorded = f"{quote(digest, 13)} (its bytes, names or permission bits changed since)"
    return [_mismatch(join(pointer, "sha256"), held, recorded)]


def _copied_permissions(found: _evidence.Measure, digest: str, entry: dict[str, Any], pointer: str) -> Finding | None:
    """A warning where only the permission bits differ from those the collector hashed, as a copy under another
    umask makes them (git, cp, tar and object storage keep none but the owner's execute bit): the recorded sha256
    is the digest of the same names, sizes and bytes with the bits a copy under a common umask gives. An error
    still, since AgentCompass 1.0.1's reuse hashes the bits and refuses the artifact until they are restored; a code
    of its own, so that the message says the one thing to do (the chmod) instead of a bare mismatch."""
    for umask in _evidence.COMMON_UMASKS:
        if found.sha256(umask) != digest:
            continue
        other = found.first_other_mode(umask)
        if other is None:
            return None
        name, bits, recorded = other
        message = (
            f"collected artifact {_destination(entry)} holds the names, sizes and bytes its collector recorded, but "
            f"{quote(name)} has permission bits {bits:04o} where the collector's were {recorded:04o} (as a checkout "
            f"or copy under another umask than {umask:03o} makes them): AgentCompass 1.0.1 refuses to reuse it "
            f"until they are restored (chmod {recorded:04o})"
        )
        return Finding(pointer, "layout.artifact-permissions", message)
    return None


def _destination(entry: dict[str, Any]) -> str:
    """An entry's destination as messages quote it: quoted only when a message does (quoting searches for secrets)."""
    return quote(str(entry["destination"]))


def _mismatch(pointer: str, held: str, recorded: str) -> Finding:
    message = f"collected artifact {held}, but the collector recorded {recorded}: {_REFUSED}"
    return Finding(pointer, "layout.artifact-mismatch", message)


def _refusal(refusal: _evidence.Refusal, destination: str, pointer: str) -> Finding:
    message = f"collected artifact {destination} {refusal.what}: {_REFUSED}"
    return Finding(join(pointer, "destination"), refusal.code, message)


def _through_link(store: str, destination: str) -> bool:
    """Whether a symbolic link is on the way from ``store`` to ``destination`` (a relative path without ``..``).

    Only then can the destination lead outside, and only then are both paths resolved.
    """
    current = store
    for part in destination.replace("\\", "/").split("/"):
        current = os.path.join(current, part)
        if os.path.islink(current):
            return True
    return False


def _check_retries(
    folder: Path,
    number: int | None,
    task_id: str | None,
    task_name: str,
    root: Path | None,
    collector: Collector,
    found: list[Listed] | None = None,
) -> int:
    records = 0
    prefix = f"{task_name}.attempt{number}.retry"  # compared as text: no pattern is compiled per attempt
    if found is None:
        entries_, read = entries_read(folder, collector, root or folder, _RETRIES_PLAN)
    else:
        entries_, read = listed(folder, found, collector, root or folder)
    for entry in entries_:
        if entry.is_folder:
            if _ARCHIVE.match(entry.name):
                _check_archive(entry.path, collector, root or folder)
            else:
                collector.about(entry.path, "layout.unexpected-entry", "not a retry archive folder", "warning")
            continue
        if not entry.name.endswith(".json") or _TEMPORARY.match(entry.name):
            _unexpected_file(entry, collector, "retries/ holds retry records (.json) and archive folders")
            continue
        record = examine_in_folder(folder, entry.name, RETRY, read)
        if root is not None:
            record = _rounded_by_browser(record, _SHOWN_RETRY)
        records += 1
        data = members(record)
        if data is None:
            collector.add(record)
            continue
        findings = []
        if task_id is not None and isinstance(data.get("task_id"), str) and data["task_id"] != task_id:
            findings.append(
                Finding(
                    "/task_id",
                    "layout.retry-task",
                    f"the record is for task {quote(data['task_id'])}, but it is filed under task {quote(task_id)}",
                )
            )
        attempt = data.get("attempt")
        if number is not None and is_int(attempt) and attempt != number:
            findings.append(
                Finding(
                    "/attempt",
                    "layout.retry-attempt",
                    f"the record is for attempt {attempt}, but it is filed under attempt {number}",
                )
            )
        name_match = _RETRY_NAME_REST.match(entry.name, len(prefix)) if entry.name.startswith(prefix) else None
        if name_match is None:
            findings.append(
                Finding(
                    "",
                    "layout.retry-file-name",
                    f"retry records are named {task_name}.attempt{number}.retry<r>.<stage>.json",
                    severity="warning",
                )
            )
        elif isinstance(data.get("retry"), int) and str(data["retry"]) != name_match.group(1):
            findings.append(
                Finding(
                    "/retry",
                    "layout.retry-file-name",
                    f"the file name says retry {name_match.group(1)}, the record says {data['retry']}",
                    severity="warning",
                )
            )
        collector.add(record.with_findings(findings))
    return records


def _check_archive(folder: Path, collector: Collector, root: Path) -> None:
    """Archived evidence of a rerun attempt: kept as it was, so only well-formedness is checked."""
    for entry in entries(folder, collector, root):
        if entry.is_folder or not entry.name.endswith(".json"):
            continue
        read = read_schemaless(entry.path)
        if isinstance(read, Finding):
            collector.about(entry.path, read.code, read.message, "warning")
            continue
        lenient = tuple(attrs.evolve(finding, severity="warning") for finding in read.findings)
        collector.add(Examined(read.document, None, lenient, read.file), "archive")
