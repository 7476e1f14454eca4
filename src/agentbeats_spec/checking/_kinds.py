"""The table of artifact kinds: names, schemas by version, file names, rules."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path, PurePath
from typing import Any

import attrs

from .._issues import Finding, UnknownKind
from ..reading._documents import Syntax
from ..rules import abb, abv3, actf, agentcompass
from ._schemas import BASE_URI

Rules = Callable[[Any], Iterator[Finding]]


@attrs.frozen
class Kind:
    """One artifact kind.

    ``versions`` maps the value of ``version_field`` to a schema ``$id`` (the newest last). Kinds
    whose files carry no version have one entry keyed by the schema's own version.
    """

    name: str
    family: str
    title: str
    syntax: Syntax
    versions: Mapping[str, str]
    rules: Rules
    file_match: tuple[str, ...]
    version_field: str | None = None
    # Versions of an older format that the AgentCompass 1.0.1 reader refuses, with why (not merely unknown).
    rejected: Mapping[str, str] = attrs.field(factory=dict)
    # What a reader does with a version it does not know, said after the list of known versions.
    unknown_version_note: str = ""

    @property
    def latest(self) -> str:
        return list(self.versions.values())[-1]

    def schema_id(self, data: Any) -> str | None:
        """The schema for this document, or None when its version is not one the package knows."""
        if self.version_field is None or not isinstance(data, dict):
            return self.latest
        version = data.get(self.version_field)
        if not isinstance(version, str):
            return self.latest  # a missing or mistyped version is the schema's to report
        return self.versions.get(version)


def _id(path: str) -> str:
    return BASE_URI + path


def _no_rules(data: Any) -> Iterator[Finding]:
    """A kind whose schema says everything."""
    return iter(())


KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind(
            "abv3-repo",
            "abv3",
            "ABV3-L1 repository self-description (agentbeats.toml)",
            "toml",
            {"l1": _id("abv3/agentbeats-toml.v1.json")},
            abv3.repo,
            ("agentbeats.toml",),
        ),
        Kind(
            "abv3-results",
            "abv3",
            "ABV3-L1 experiment result (results.json)",
            "json",
            {"l1": _id("abv3/results.v1.json")},
            abv3.results,
            ("results.json",),
        ),
        Kind(
            "abb-case",
            "abb",
            "ABB bug case (verify.case.json, an attempt's case.json)",
            "json",
            {"v1": _id("abb/verify-case.v1.json")},
            abb.case,
            ("verify.case.json", "case.json"),
        ),
        Kind(
            "agentcompass-task",
            "agentcompass",
            "AgentCompass task index (task.json)",
            "json",
            {
                "agentcompass.task.v2": _id("agentcompass/task.v2.json"),
                "agentcompass.task.v3": _id("agentcompass/task.v3.json"),
            },
            agentcompass.task,
            ("task.json",),
            version_field="schema_version",
            rejected={
                "agentcompass.task.v1": "agentcompass.task.v1 is a retired format that AgentCompass 1.0.1 rejects "
                "(its readers accept agentcompass.task.v3 and v2 only) and that no tool converts; rerun the evaluation",
            },
            unknown_version_note="AgentCompass 1.0.1 reads only agentcompass.task.v3 and agentcompass.task.v2",
        ),
        Kind(
            "agentcompass-attempt",
            "agentcompass",
            "AgentCompass attempt result (attempt-<n>/result.json)",
            "json",
            {
                "agentcompass.task.v2": _id("agentcompass/attempt.v2.json"),
                "agentcompass.task.v3": _id("agentcompass/attempt.v3.json"),
            },
            agentcompass.result,
            ("attempt-*/result.json",),
        ),
        Kind(
            "agentcompass-task-detail",
            "agentcompass",
            "AgentCompass task detail record (reconstructed)",
            "json",
            {"agentcompass.task.v3": _id("agentcompass/task-detail.v3.json")},
            agentcompass.task_detail,
            ("*.task-detail.json", "task-detail.json"),
        ),
        Kind(
            "agentcompass-retry",
            "agentcompass",
            "AgentCompass retry diagnostics (attempt-<n>/retries/*.json)",
            "json",
            {"agentcompass.retry.v1": _id("agentcompass/retry.v1.json")},
            agentcompass.retry,
            ("attempt-*/retries/*.json",),
            version_field="schema_version",
        ),
        Kind(
            "agentcompass-run-info",
            "agentcompass",
            "AgentCompass run record (run_info.json)",
            "json",
            {
                "agentcompass.run_info.v2": _id("agentcompass/run-info.v2.json"),
                "agentcompass.run_info.v3": _id("agentcompass/run-info.v3.json"),
            },
            agentcompass.run_info,
            ("run_info.json",),
            version_field="schema_version",
            unknown_version_note="AgentCompass 1.0.1 refuses to resume, reuse, summarize or analyze a run whose "
            "run_info.json has another version (runs of an older format must be rerun)",
        ),
        Kind(
            "agentcompass-params",
            "agentcompass",
            "AgentCompass run parameters (params.json at a run root)",
            "json",
            {"v1": _id("agentcompass/params.v1.json")},
            _no_rules,
            (),
        ),
        Kind(
            "agentcompass-metrics",
            "agentcompass",
            "AgentCompass metric report (metrics.json at a run root)",
            "json",
            {"v1": _id("agentcompass/metrics.v1.json")},
            agentcompass.metrics,
            (),
        ),
        Kind(
            "agentcompass-analysis-summary",
            "agentcompass",
            "AgentCompass analysis summary (analysis_summary.json)",
            "json",
            {"v1": _id("agentcompass/analysis-summary.v1.json")},
            _no_rules,
            ("analysis_summary.json",),
        ),
        Kind(
            "agentcompass-progress",
            "agentcompass",
            "AgentCompass progress snapshot (progress.json at a run root)",
            "json",
            {"v1": _id("agentcompass/progress.v1.json")},
            _no_rules,
            (),
        ),
        Kind(
            "agentcompass-progress-events",
            "agentcompass",
            "AgentCompass progress events (progress.jsonl, one event per line)",
            "jsonl",
            {"v1": _id("agentcompass/progress-event.v1.json")},
            _no_rules,
            ("progress.jsonl",),
        ),
        Kind(
            "actf-trajectory",
            "actf",
            "AgentCompass trajectory (ACTF_v1.0)",
            "json",
            {"ACTF_v1.0": _id("actf/trajectory.v1.0.json")},
            actf.trajectory,
            (),
            version_field="schema_version",
        ),
    )
}

# schema_version prefixes that tell a JSON file's kind from its content.
_VERSION_PREFIXES = (
    ("agentcompass.task.", "agentcompass-task"),
    ("agentcompass.retry.", "agentcompass-retry"),
    ("agentcompass.run_info.", "agentcompass-run-info"),
    ("ACTF_", "actf-trajectory"),
)
_ATTEMPT_DIR = re.compile(r"^attempt-.+$")
# Names too common to mean a run-level file anywhere: they do at a run root (run_info.json or details/ beside them).
_RUN_ROOT_FILES = {
    "params.json": "agentcompass-params",
    "metrics.json": "agentcompass-metrics",
    "progress.json": "agentcompass-progress",
}
# Rules that belong to one version of a kind whose files carry no version (an attempt of a v2 task).
_VERSION_RULES: dict[tuple[str, str], Rules] = {
    ("agentcompass-attempt", "agentcompass.task.v2"): agentcompass.legacy_result,
}


def get(name: str) -> Kind:
    try:
        return KINDS[name]
    except KeyError:
        raise UnknownKind(name, list(KINDS)) from None


def from_path(path: PurePath) -> Kind | None:
    """The kind a file's name and place say it is, if they say."""
    name, parent = path.name, path.parent.name
    if name == "agentbeats.toml":
        return KINDS["abv3-repo"]
    if name == "results.json":
        return KINDS["abv3-results"]
    if name in ("verify.case.json", "case.json"):
        return KINDS["abb-case"]
    if name == "task.json":
        return KINDS["agentcompass-task"]
    if name == "result.json" and _ATTEMPT_DIR.match(parent):
        return KINDS["agentcompass-attempt"]
    if name == "task-detail.json" or name.endswith(".task-detail.json"):
        return KINDS["agentcompass-task-detail"]
    if name.endswith(".json") and parent == "retries" and _ATTEMPT_DIR.match(path.parent.parent.name):
        return KINDS["agentcompass-retry"]
    if name == "run_info.json":
        return KINDS["agentcompass-run-info"]
    if name == "analysis_summary.json":
        return KINDS["agentcompass-analysis-summary"]
    if name == "progress.jsonl":
        return KINDS["agentcompass-progress-events"]
    if name in _RUN_ROOT_FILES and is_run_root(path.parent):
        return KINDS[_RUN_ROOT_FILES[name]]
    return None


def is_run_root(folder: PurePath) -> bool:
    """An AgentCompass run root: run_info.json or details/ in it (as AgentCompass's own viewer tells a run)."""
    return os.path.isfile(os.path.join(folder, "run_info.json")) or os.path.isdir(os.path.join(folder, "details"))


def pinned(kind: Kind, version: str) -> Kind:
    """``kind`` with only the schema (and rules) of one version: for files whose version their folder tells."""
    rules = _VERSION_RULES.get((kind.name, version), kind.rules)
    return attrs.evolve(kind, versions={version: kind.versions[version]}, rules=rules)


def in_context(kind: Kind, path: Path) -> Kind:
    """The version of an attempt result is its task's: a v2 task's attempts are checked as v2 payloads."""
    if kind.name != "agentcompass-attempt":
        return kind
    index = path.parent.parent / "task.json"
    try:
        version = json.loads(index.read_bytes()).get("schema_version")
    except (OSError, ValueError, AttributeError):
        return kind  # no readable task index beside it: checked as the current version
    return pinned(kind, version) if version in kind.versions else kind


def from_content(data: Any) -> Kind | None:
    """The kind a JSON document's ``schema_version`` says it is, if it says."""
    if not isinstance(data, dict):
        return None
    version = data.get("schema_version")
    if not isinstance(version, str):
        return None
    for prefix, name in _VERSION_PREFIXES:
        if version.startswith(prefix):
            return KINDS[name]
    return None


def syntax_for(path: PurePath) -> Syntax:
    return "toml" if path.suffix == ".toml" else "jsonl" if path.suffix == ".jsonl" else "json"
