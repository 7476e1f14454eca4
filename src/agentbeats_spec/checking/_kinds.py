"""The table of artifact kinds: names, schemas by version, file names, rules."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import PurePath
from typing import Any

import attrs

from ..rules import abb, abv3, actf, agentcompass, agentcompass_run
from ..vocabulary._issues import Finding, UnknownKind
from ..vocabulary._kind_data import KIND_DATA, TASK_V2, KindData, Syntax
from ._schemas import BASE_URI

Rules = Callable[[Any], Iterator[Finding]]


@attrs.frozen
class Kind:
    """One artifact kind: the one place that says what its files are called, how they are versioned and checked.

    ``versions`` maps the value of ``version_field`` to a schema ``$id`` (the newest last). Kinds
    whose files carry no version have one entry keyed by the schema's own version (``v1``, as its file is named).
    ``file_match`` are the globs that name its files anywhere (one glob per path component, matched against the
    last components of a path); ``run_root_file`` is the name AgentCompass gives its one file at the root of a run
    (the run's files, ``layouts.agentcompass.RUN_FILES``), which alone means this kind, only there, when no glob
    of ``file_match`` names it. ``editor_match`` are the VS Code globs that tell an editor which files to check
    against its newest schema (none: editors are not told; tools/codegen.py writes docs/editors/vscode-settings.json
    from them). A ``version_field`` value starting with ``version_prefix`` names the kind even when the version is
    one the package does not know. ``model_name`` is the name of the class of its newest version's documents in
    :mod:`agentbeats_spec.models`, ``older_model_names`` that of each older version (every version has one:
    tools/codegen.py generates each class from its version's schema); ``models`` lists them all.

    A kind's plain data (names, versions, file names) has its one home in ``vocabulary/_kind_data.py``, what
    checks it (rules, tolerance) in this module's ``_CHECKS``. tools/regenerate.py generates from the table the
    models, the typed overloads of ``load``/``loads``/``from_dict``, the README's tables of kinds and hooks, the
    pre-commit hooks, docs/api.md's table of versions, the editor settings and the tests' lists of kinds;
    ``python tools/regenerate.py --check`` fails while any of them is stale.
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
    version_prefix: str | None = None
    run_root_file: str | None = None
    model_name: str = attrs.field(kw_only=True)
    older_model_names: Mapping[str, str] = attrs.field(kw_only=True, factory=dict)
    editor_match: tuple[str, ...] = attrs.field(default=(), kw_only=True)
    # For a schema with a ``$defs/written`` (the writer's shape beyond what its readers require): which reader
    # tolerates a departure at a pointer, and how; each departure is then a warning (rule.writer-shape).
    tolerated: Callable[[str], str] | None = attrs.field(default=None, kw_only=True)
    # What a reader will not do with a file that fails its schema, said after each schema error.
    refused: str = attrs.field(default="", kw_only=True)

    @property
    def latest(self) -> str:
        return list(self.versions.values())[-1]

    @property
    def models(self) -> dict[str, str]:
        """The model class name of each version, by version (the newest last, as in ``versions``)."""
        *older, newest = self.versions
        return {**{version: self.older_model_names[version] for version in older}, newest: self.model_name}

    def model_of(self, data: Any) -> str:
        """The model class name of a valid document: that of the version whose schema it was checked against."""
        schema_id = self.schema_id(data)
        return next((self.models[v] for v, each in self.versions.items() if each == schema_id), self.model_name)

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


@attrs.frozen
class _Checks:
    """What checks a kind's documents beyond its schema (``Kind.rules``, ``tolerated``, ``refused``)."""

    rules: Rules
    tolerated: Callable[[str], str] | None = None
    refused: str = ""


# By kind name: each kind of the plain data (vocabulary/_kind_data.py) has its entry here.
_CHECKS: dict[str, _Checks] = {
    "abv3-repo": _Checks(abv3.repo),
    "abv3-results": _Checks(abv3.results),
    "abb-case": _Checks(abb.case),
    "agentcompass-task": _Checks(agentcompass.task),
    "agentcompass-attempt": _Checks(agentcompass.result),
    "agentcompass-task-detail": _Checks(agentcompass.task_detail),
    "agentcompass-retry": _Checks(agentcompass.retry),
    "agentcompass-run-info": _Checks(
        agentcompass_run.run_info, agentcompass_run.tolerated_in_run_info, agentcompass_run.REFUSED["run_info"]
    ),
    "agentcompass-params": _Checks(
        agentcompass_run.params, agentcompass_run.tolerated_in_params, agentcompass_run.REFUSED["params"]
    ),
    "agentcompass-metrics": _Checks(
        agentcompass_run.metrics, agentcompass_run.tolerated_in_metrics, agentcompass_run.REFUSED["metrics"]
    ),
    "agentcompass-analysis-summary": _Checks(
        agentcompass_run.analysis_summary,
        agentcompass_run.tolerated_in_analysis_summary,
        agentcompass_run.REFUSED["browsed"],
    ),
    "agentcompass-progress": _Checks(
        agentcompass_run.progress, agentcompass_run.tolerated_in_progress, agentcompass_run.REFUSED["browsed"]
    ),
    "agentcompass-progress-events": _Checks(
        agentcompass_run.progress_event,
        agentcompass_run.tolerated_in_progress_events,
        agentcompass_run.REFUSED["events"],
    ),
    "actf-trajectory": _Checks(actf.trajectory),
}


def _made(data: KindData) -> Kind:
    checks = _CHECKS[data.name]
    return Kind(
        data.name,
        data.family,
        data.title,
        data.syntax,
        {version: _id(path) for version, path in data.schemas.items()},
        checks.rules,
        data.file_match,
        data.version_field,
        data.rejected,
        data.unknown_version_note,
        data.version_prefix,
        data.run_root_file,
        model_name=data.model_name,
        older_model_names=data.older_model_names,
        editor_match=data.editor_match,
        tolerated=checks.tolerated,
        refused=checks.refused,
    )


KINDS: dict[str, Kind] = {data.name: _made(data) for data in KIND_DATA}

# Rules that belong to one version of a kind whose files carry no version (an attempt of a v2 task).
_VERSION_RULES: dict[tuple[str, str], Rules] = {
    ("agentcompass-attempt", TASK_V2): agentcompass.legacy_result,
}


# Every file met on a walk asks from_path: each pattern is compiled once, one regular expression per component
# (what fnmatchcase compiles for it, so the meaning is the same), and the patterns whose last component is a plain
# name are found by that name rather than tried in turn. Candidates are tried in the table's order.
_Pattern = tuple[int, str, tuple["re.Pattern[str]", ...]]  # order, kind name, components
_BY_LAST_NAME: dict[str, list[_Pattern]] = {}
_WILD_LAST: list[_Pattern] = []
for _order, (_kind, _glob) in enumerate((kind, glob) for kind in KINDS.values() for glob in kind.file_match):
    _compiled = tuple(re.compile(fnmatch.translate(component)) for component in _glob.split("/"))
    if any(character in _glob.rsplit("/", 1)[-1] for character in "*?["):
        _WILD_LAST.append((_order, _kind.name, _compiled))
    else:
        _BY_LAST_NAME.setdefault(_glob.rsplit("/", 1)[-1], []).append((_order, _kind.name, _compiled))
_BY_RUN_ROOT_NAME = {kind.run_root_file: kind.name for kind in reversed(KINDS.values()) if kind.run_root_file}


def get(name: str) -> Kind:
    try:
        return KINDS[name]
    except KeyError:
        raise UnknownKind(name, list(KINDS)) from None


def from_path(path: PurePath) -> Kind | None:
    """The kind a file's name and place say it is, if they say: the first kind of the table whose glob matches
    the last components of the path (one glob per component: ``*`` never crosses a ``/``). The path alone decides:
    a name that means a kind only at a run root is :func:`run_root_kind`'s, for the walk that knows the place."""
    name = path.name
    candidates = _BY_LAST_NAME.get(name, [])
    wild = [pattern for pattern in _WILD_LAST if pattern[2][-1].match(name)]
    if wild:
        candidates = sorted([*candidates, *wild], key=lambda pattern: pattern[0])
    if candidates:
        parts = path.parts
        for _, kind_name, components in candidates:
            tail = parts[-len(components) :]
            if len(tail) == len(components) and all(map(_fullmatch, components, tail)):
                return KINDS[kind_name]  # looked up now: the table is the one place a kind is defined
    return None


def run_root_kind(name: str) -> Kind | None:
    """The kind a file of this name is at the root of an AgentCompass run (``Kind.run_root_file``), and only there:
    whether a folder is a run root is planning's to tell (``layouts._layout.kind_by_place``)."""
    found = _BY_RUN_ROOT_NAME.get(name)
    return KINDS[found] if found is not None else None


def _fullmatch(component: re.Pattern[str], name: str) -> bool:
    return component.match(name) is not None  # fnmatch.translate ends each pattern with \Z


def pinned(kind: Kind, version: str) -> Kind:
    """``kind`` with only the schema (and rules) of one version: for files whose version their folder tells."""
    rules = _VERSION_RULES.get((kind.name, version), kind.rules)
    model_name = kind.models[version]
    return attrs.evolve(
        kind, versions={version: kind.versions[version]}, rules=rules, model_name=model_name, older_model_names={}
    )


def of_model(cls: type) -> Kind | None:
    """The kind of a generated model of a whole artifact, pinned to the version its class names (``__kind_version__``;
    a class that names none is checked against every version); None for any other class (a part of a model)."""
    name, version = getattr(cls, "__kind__", None), getattr(cls, "__kind_version__", None)
    if not isinstance(name, str):
        return None
    kind = get(name)
    return pinned(kind, version) if isinstance(version, str) and version in kind.versions else kind


def from_content(data: Any) -> Kind | None:
    """The kind a JSON document's ``schema_version`` says it is, if it says."""
    if not isinstance(data, dict):
        return None
    version = data.get("schema_version")
    if not isinstance(version, str):
        return None
    for kind in KINDS.values():
        if kind.version_prefix is not None and version.startswith(kind.version_prefix):
            return kind
    return None
