"""The table of artifact kinds: names, schemas by version, file names, rules."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import PurePath
from typing import Any

import attrs

from ._documents import Syntax
from ._issues import Finding, UnknownKind
from ._schemas import BASE_URI
from .rules import abb, abv3, actf, agentcompass

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
            {"agentcompass.task.v3": _id("agentcompass/task.v3.json")},
            agentcompass.task,
            ("task.json",),
            version_field="schema_version",
        ),
        Kind(
            "agentcompass-attempt",
            "agentcompass",
            "AgentCompass attempt result (attempt-<n>/result.json)",
            "json",
            {"agentcompass.task.v3": _id("agentcompass/attempt.v3.json")},
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
    ("ACTF_", "actf-trajectory"),
)
_ATTEMPT_DIR = re.compile(r"^attempt-.+$")


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
    return None


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
    return "toml" if path.suffix == ".toml" else "json"
