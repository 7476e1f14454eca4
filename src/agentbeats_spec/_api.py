"""The functions of the public API; ``__init__`` re-exports them."""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import attrs

from .checking import _examine, _kinds, _schemas, _sources
from .checking._kinds import KINDS, Kind
from .reading import _documents
from .reading._pointers import to_pointer
from .vocabulary._issues import Finding, InvalidDocument, Issue, UnknownKind
from .vocabulary._settings import AllowList, Limits
from .vocabulary._text import describe

# BEGIN GENERATED model imports: by tools/codegen.py from the kind table: do not edit by hand
if TYPE_CHECKING:
    from .models import (
        AgentbeatsToml,
        AnalysisSummary,
        AttemptResult,
        AttemptResultV2,
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
# END GENERATED model imports

PathLike = str | os.PathLike[str]
# What validate() and scan() read: a path (a file or a folder), the text or bytes of one document, a parsed mapping.
Source = str | bytes | os.PathLike[str] | Mapping[str, Any]
# A model of a whole artifact keeps its class through redact().
_Model = TypeVar("_Model", bound="Model")
# A parsed document keeps its type through redact().
_Parsed = TypeVar("_Parsed", dict[str, Any], list[Any], str)


def validate(
    source: Source,
    kind: str | None = None,
    *,
    limits: Limits | None = None,
    secrets: bool = False,
    follow_symlinks: bool = False,
    allow_empty: bool = False,
    verify_artifacts: bool = True,
) -> list[Issue]:
    """Every issue of ``source``, sorted by file and position; an empty list means valid.

    ``source`` is a path (``pathlib.Path`` or any ``os.PathLike``: a file, or a folder whose artifacts are all
    checked), the text or bytes of one document, or an already parsed mapping. ``kind`` names the artifact kind
    (see :func:`kinds`) when its name or content cannot tell. Warnings are issues too: see ``issue.severity``.
    ``limits`` bounds what one file may cost; ``secrets`` also searches every document for credentials. A path
    that is a symbolic link is reported (``security.symlink``) and not followed unless ``follow_symlinks``; links
    inside a folder are never followed. A folder in which no artifact is found at all is an error
    (``layout.nothing-found``), since nothing checked is not a pass, unless ``allow_empty``. Collected artifacts
    are checked against the size, file count and sha256 their manifest records; ``verify_artifacts=False`` skips
    the hashes. Nothing a file holds makes this raise: it becomes issues on that file.
    """
    _refuse_other_types(source, "validate")
    from .application._front_door import CheckRequest, Paths, Source, run_check
    from .application._tree_check import with_nothing_found

    request = CheckRequest(kind=kind, limits=limits, allow=AllowList() if secrets else None,
                           verify_artifacts=verify_artifacts, follow_symlinks=follow_symlinks)  # fmt: skip
    if isinstance(source, os.PathLike):
        report = run_check(request, Paths([Path(source)]))
        return list(report.issues) if allow_empty else with_nothing_found(report)
    return _hint_paths(source, list(run_check(request, Source(source)).issues))


def _refuse_other_types(source: object, doing: str) -> None:
    """A source of another type is the caller's mistake: say so here, not from deep inside the reader."""
    if not isinstance(source, (str, bytes, os.PathLike, Mapping)):
        raise _sources.not_a_source(source, doing)


def _hint_paths(source: Source, issues: list[Issue]) -> list[Issue]:
    """A string that fails to parse but names a file was most likely meant as a path: say so."""
    if not (isinstance(source, str) and issues and issues[0].code in ("json.syntax", "toml.syntax")):
        return issues
    if len(source) > 4096 or "\n" in source or not os.path.exists(source):
        return issues
    hint = f"; {source!r} is the name of a file: pass pathlib.Path({source!r}) to validate the file"
    return [attrs.evolve(issues[0], message=issues[0].message + hint), *issues[1:]]


def scan(
    source: Source,
    *,
    allow_list: str | os.PathLike[str] | None = None,
    limits: Limits | None = None,
    follow_symlinks: bool = False,
) -> list[Issue]:
    """Every credential found in ``source`` (a path: every file below it; or text, bytes, a mapping).

    Each finding is a ``security.secret`` issue whose message masks the secret and gives its fingerprint; the
    fingerprints listed in ``allow_list`` (a file, one per line) are not reported.
    """
    _refuse_other_types(source, "scan")
    from .application._front_door import CheckRequest, Paths, Source, run_check
    from .credentials import _scan

    allow = _scan.read_allow_list(allow_list) if allow_list is not None else AllowList()
    request = CheckRequest(task="scan", limits=limits, allow=allow, follow_symlinks=follow_symlinks)
    target = Paths([Path(source)]) if isinstance(source, os.PathLike) else Source(source)
    return list(run_check(request, target).issues)


@overload
def redact(value: _Model, *, allow_list: str | os.PathLike[str] | None = None) -> _Model: ...
@overload
def redact(value: _Parsed, *, allow_list: str | os.PathLike[str] | None = None) -> _Parsed: ...
def redact(value: object, *, allow_list: str | os.PathLike[str] | None = None) -> object:
    """A copy of a model or a parsed document fit to share: exactly what :func:`scan` finds becomes ``********``.

    A credential member's string is replaced whole, a credential shape (API keys, bearer tokens, private keys,
    JWTs, passwords in URLs) where it sits in any other string; nothing else changes: a number, an object or a
    list under a credential-like name is kept. Findings inside ``metrics``, ``ground_truth`` and ``final_answer``
    are evaluation facts and stay as they are. The fingerprints listed in ``allow_list`` are left too. A model
    comes back as a model of its kind.
    """
    from .credentials import _redact, _scan

    allow = _scan.read_allow_list(allow_list) if allow_list is not None else AllowList()
    if not attrs.has(type(value)):
        parsed: object = _redact.redact_data(value, allow)
        return parsed
    kind = _kinds.of_model(type(value))
    if kind is None:
        raise TypeError(f"{type(value).__name__} is not the model of a whole artifact")
    redacted: Model = _one_model_of(_sources.examine_source(_redact.redact_data(_document(value), allow), kind))
    return redacted


def schema(kind: str, version: str | None = None) -> dict[str, Any]:
    """The JSON Schema of a kind (its newest version unless ``version`` is given), as a new dict."""
    found = _kinds.get(kind)
    if version is None:
        schema_id = found.latest
    elif version in found.versions:
        schema_id = found.versions[version]
    else:
        raise UnknownKind(kind, list(found.versions), version=version)
    return copy.deepcopy(_schemas.documents()[schema_id])


def kinds() -> tuple[Kind, ...]:
    """Every artifact kind the package knows, with its file patterns and schema versions."""
    return tuple(KINDS.values())


# One overload per kind, so that a type checker knows the model a literal kind gives: the union of the models of
# its versions (Kind.models), newest first. A text or a mapping tells its version by its content only, so for
# loads and from_dict a kind whose documents carry no version (an attempt: its task tells) gives its newest model.
# tests/api/test_models.py checks these overloads against the kind table.
# BEGIN GENERATED load overloads: by tools/codegen.py from the kind table: do not edit by hand
@overload
def load(path: PathLike, kind: Literal["abv3-repo"], *, limits: Limits | None = None) -> AgentbeatsToml: ...
@overload
def load(path: PathLike, kind: Literal["abv3-results"], *, limits: Limits | None = None) -> ExperimentResults: ...
@overload
def load(path: PathLike, kind: Literal["abb-case"], *, limits: Limits | None = None) -> VerifyCase: ...
@overload
def load(
    path: PathLike, kind: Literal["agentcompass-task"], *, limits: Limits | None = None
) -> TaskIndex | TaskIndexV2: ...
@overload
def load(
    path: PathLike, kind: Literal["agentcompass-attempt"], *, limits: Limits | None = None
) -> AttemptResult | AttemptResultV2: ...
@overload
def load(path: PathLike, kind: Literal["agentcompass-task-detail"], *, limits: Limits | None = None) -> TaskDetail: ...
@overload
def load(path: PathLike, kind: Literal["agentcompass-retry"], *, limits: Limits | None = None) -> RetryRecord: ...
@overload
def load(
    path: PathLike, kind: Literal["agentcompass-run-info"], *, limits: Limits | None = None
) -> RunInfo | RunInfoV2: ...
@overload
def load(path: PathLike, kind: Literal["agentcompass-params"], *, limits: Limits | None = None) -> RunParams: ...
@overload
def load(path: PathLike, kind: Literal["agentcompass-metrics"], *, limits: Limits | None = None) -> MetricReport: ...
@overload
def load(
    path: PathLike, kind: Literal["agentcompass-analysis-summary"], *, limits: Limits | None = None
) -> AnalysisSummary: ...
@overload
def load(
    path: PathLike, kind: Literal["agentcompass-progress"], *, limits: Limits | None = None
) -> ProgressSnapshot: ...
@overload
def load(
    path: PathLike, kind: Literal["agentcompass-progress-events"], *, limits: Limits | None = None
) -> list[ProgressEvent]: ...
@overload
def load(path: PathLike, kind: Literal["actf-trajectory"], *, limits: Limits | None = None) -> Trajectory: ...
@overload
def load(path: PathLike, kind: str | None = None, *, limits: Limits | None = None) -> Model | list[ProgressEvent]: ...
# END GENERATED load overloads
def load(path: PathLike, kind: str | None = None, *, limits: Limits | None = None) -> Model | list[ProgressEvent]:
    """Read, validate and return the model of one artifact file.

    Raises :class:`InvalidDocument` carrying every issue when the file has an error (warnings do not stop
    it). The model class follows the kind and the document's version (``Kind.models``: a v2 ``task.json`` is a
    ``TaskIndexV2``, the attempts of its task are ``AttemptResultV2``); a JSON Lines file (progress events) gives
    a list of them. Named as a literal, the kind also gives the return type to a type checker.
    """
    from .application._front_door import CheckRequest, settings_applied
    from .layouts import kind_in_place  # as the other imports of the layouts here

    # The limits named, else those applied around the call; a load scans no secrets.
    with settings_applied(CheckRequest(limits=limits)):
        named = _kinds.get(kind) if kind else None
        examined = _sources.examine_named(Path(path), kind_in_place(Path(path), named), follow=True)
    return _model_of(examined)


# BEGIN GENERATED loads overloads: by tools/codegen.py from the kind table: do not edit by hand
@overload
def loads(source: str | bytes, kind: Literal["abv3-repo"]) -> AgentbeatsToml: ...
@overload
def loads(source: str | bytes, kind: Literal["abv3-results"]) -> ExperimentResults: ...
@overload
def loads(source: str | bytes, kind: Literal["abb-case"]) -> VerifyCase: ...
@overload
def loads(source: str | bytes, kind: Literal["agentcompass-task"]) -> TaskIndex | TaskIndexV2: ...
@overload
def loads(source: str | bytes, kind: Literal["agentcompass-attempt"]) -> AttemptResult: ...
@overload
def loads(source: str | bytes, kind: Literal["agentcompass-task-detail"]) -> TaskDetail: ...
@overload
def loads(source: str | bytes, kind: Literal["agentcompass-retry"]) -> RetryRecord: ...
@overload
def loads(source: str | bytes, kind: Literal["agentcompass-run-info"]) -> RunInfo | RunInfoV2: ...
@overload
def loads(source: str | bytes, kind: Literal["agentcompass-params"]) -> RunParams: ...
@overload
def loads(source: str | bytes, kind: Literal["agentcompass-metrics"]) -> MetricReport: ...
@overload
def loads(source: str | bytes, kind: Literal["agentcompass-analysis-summary"]) -> AnalysisSummary: ...
@overload
def loads(source: str | bytes, kind: Literal["agentcompass-progress"]) -> ProgressSnapshot: ...
@overload
def loads(source: str | bytes, kind: Literal["agentcompass-progress-events"]) -> list[ProgressEvent]: ...
@overload
def loads(source: str | bytes, kind: Literal["actf-trajectory"]) -> Trajectory: ...
@overload
def loads(source: str | bytes, kind: str | None = None) -> Model | list[ProgressEvent]: ...
# END GENERATED loads overloads
def loads(source: str | bytes, kind: str | None = None) -> Model | list[ProgressEvent]:
    """Like :func:`load`, for the text or bytes of a document."""
    return _model_of(_sources.examine_source(source, _kinds.get(kind) if kind else None))


# BEGIN GENERATED from_dict overloads: by tools/codegen.py from the kind table: do not edit by hand
@overload
def from_dict(kind: Literal["abv3-repo"], data: Mapping[str, Any]) -> AgentbeatsToml: ...
@overload
def from_dict(kind: Literal["abv3-results"], data: Mapping[str, Any]) -> ExperimentResults: ...
@overload
def from_dict(kind: Literal["abb-case"], data: Mapping[str, Any]) -> VerifyCase: ...
@overload
def from_dict(kind: Literal["agentcompass-task"], data: Mapping[str, Any]) -> TaskIndex | TaskIndexV2: ...
@overload
def from_dict(kind: Literal["agentcompass-attempt"], data: Mapping[str, Any]) -> AttemptResult: ...
@overload
def from_dict(kind: Literal["agentcompass-task-detail"], data: Mapping[str, Any]) -> TaskDetail: ...
@overload
def from_dict(kind: Literal["agentcompass-retry"], data: Mapping[str, Any]) -> RetryRecord: ...
@overload
def from_dict(kind: Literal["agentcompass-run-info"], data: Mapping[str, Any]) -> RunInfo | RunInfoV2: ...
@overload
def from_dict(kind: Literal["agentcompass-params"], data: Mapping[str, Any]) -> RunParams: ...
@overload
def from_dict(kind: Literal["agentcompass-metrics"], data: Mapping[str, Any]) -> MetricReport: ...
@overload
def from_dict(kind: Literal["agentcompass-analysis-summary"], data: Mapping[str, Any]) -> AnalysisSummary: ...
@overload
def from_dict(kind: Literal["agentcompass-progress"], data: Mapping[str, Any]) -> ProgressSnapshot: ...
@overload
def from_dict(kind: Literal["agentcompass-progress-events"], data: Mapping[str, Any]) -> ProgressEvent: ...
@overload
def from_dict(kind: Literal["actf-trajectory"], data: Mapping[str, Any]) -> Trajectory: ...
@overload
def from_dict(kind: str, data: Mapping[str, Any]) -> Model: ...
# END GENERATED from_dict overloads
def from_dict(kind: str, data: Mapping[str, Any]) -> Model:
    """The model of an already parsed document (one event, for progress events), validated as by :func:`load`."""
    if not isinstance(kind, str) or not isinstance(data, Mapping):
        swapped = ": they are swapped" if isinstance(data, str) and isinstance(kind, Mapping) else ""
        raise TypeError(
            f"from_dict(kind, data) takes the kind first, then the parsed document{swapped}; got "
            f"kind={type(kind).__name__}, data={type(data).__name__}; kind is one of: {', '.join(KINDS)}"
        )
    return _one_model_of(_sources.examine_source(data, _kinds.get(kind)))


def to_dict(model: attrs.AttrsInstance) -> dict[str, Any]:
    """The document of a model, or of a part of one (a ``Step``), as plain JSON values (no validation, no I/O)."""
    return _document(model)


def _document(model: object) -> dict[str, Any]:
    """The document of any generated model, a part of one too (a ``Step``)."""
    from .models import _convert  # cattrs: imported when models are used, not to validate
    from .models._kit import shadowed

    # unknown_members can be changed in place after the model was built: look again before writing it out.
    clashes = list(shadowed(model))
    if clashes:
        raise InvalidDocument(clashes)
    data: dict[str, Any] = _convert.unstructure(model)
    return data


def dumps(model: Model) -> str:
    """The text of a model's document, after validating it (schema and rules)."""
    from .writing import _atomic

    kind, data = checked(model)
    return _atomic.serialize(data, kind.syntax).decode("utf-8")


def dump(model: Model, path: PathLike) -> None:
    """Validate a model and write its document to ``path`` atomically.

    Nothing is written when the model has an error (:class:`InvalidDocument` is raised); a write that fails
    half-way leaves the previous file intact and no temporary file behind (:class:`WriteError`). A TOML file
    that exists is rewritten in its own style: comments, order and layout of what did not change are kept.
    """
    from .writing import _atomic

    kind, data = checked(model)
    target = Path(path)
    content = None
    if kind.syntax == "toml":  # a hand-written file keeps its comments, order and layout
        from .writing._tomlstyle import in_style_of

        content = in_style_of(target, data)
    _atomic.write_atomic(target, content if content is not None else _atomic.serialize(data, kind.syntax))


def _model_of(examined: _examine.Examined) -> Model | list[ProgressEvent]:
    if examined.document.syntax == "jsonl":  # the text of a JSON Lines file: one model per line
        from .checking import _jsonl

        kind = _valid_kind(examined)
        records = _jsonl.records(examined.document)  # streamed again: the check kept none of them
        events: list[ProgressEvent] = [
            _structured(examined, kind, record, f" (record {number})") for number, record in enumerate(records, 1)
        ]
        return events
    return _one_model_of(examined)


def _one_model_of(examined: _examine.Examined) -> Model:
    structured: Model = _structured(examined, _valid_kind(examined), examined.document.data, "")
    return structured


def _structured(examined: _examine.Examined, kind: Kind, data: Any, where: str) -> Any:
    """The model of one valid document (or line), of the class its kind names for its version.

    A value the model cannot hold is a fault of the models; it is raised as :class:`InvalidDocument` with a
    located issue, never as a converter's own exception.
    """
    from . import models
    from .models import _convert

    model = getattr(models, kind.model_of(data))
    try:
        return _convert.structure(data, model)
    except _convert.Unrepresentable as fault:
        message = (
            f"{model.__name__} cannot hold {describe(fault.value)} here{where}, where it expects {fault.expected}, "
            "though the document is valid: its model disagrees with its schema, a fault of agentbeats-spec to report"
        )
        finding = Finding(to_pointer(fault.tokens), "model.unrepresentable", message)
        raise InvalidDocument(examined.with_findings([finding]).issues) from None


def _valid_kind(examined: _examine.Examined) -> Kind:
    """The kind of a document without errors; :class:`InvalidDocument` with every issue otherwise."""
    if not examined.valid or examined.kind is None:
        raise InvalidDocument(examined.issues)
    return examined.kind


def checked(model: Model) -> tuple[Kind, dict[str, Any]]:
    kind = _kinds.of_model(type(model))  # checked against the schema of the model's version
    if kind is None:
        raise TypeError(f"{type(model).__name__} is not the model of a whole artifact; see agentbeats_spec.kinds()")
    data = to_dict(model)
    examined = _examine.examine(_documents.from_data(data), kind, None)
    if not examined.valid:
        raise InvalidDocument(examined.issues)
    return kind, data
