"""The functions of the public API; ``__init__`` re-exports them."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import attrs

from ._issues import InvalidDocument, Issue, UnknownKind
from ._settings import AllowList, Limits, applied, current
from .checking import _examine, _kinds, _schemas, _sources
from .checking._kinds import KINDS, Kind
from .reading import _documents

PathLike = str | os.PathLike[str]


def validate(
    source: Any,
    kind: str | None = None,
    *,
    limits: Limits | None = None,
    secrets: bool = False,
    follow_symlinks: bool = False,
) -> list[Issue]:
    """Every issue of ``source``, sorted by file and position; an empty list means valid.

    ``source`` is a path (``pathlib.Path`` or any ``os.PathLike``: a file, or a folder whose artifacts are all
    checked), the text or bytes of one document, or an already parsed mapping. ``kind`` names the artifact kind
    (see :func:`kinds`) when its name or content cannot tell. Warnings are issues too: see ``issue.severity``.
    ``limits`` bounds what one file may cost; ``secrets`` also searches every document for credentials. A path
    that is a symbolic link is reported (``security.symlink``) and not followed unless ``follow_symlinks``; links
    inside a folder are never followed. Nothing a file holds makes this raise: it becomes issues on that file.
    """
    kind_ = _kinds.get(kind) if kind is not None else None
    with applied(current().with_limits(limits).with_allow(AllowList() if secrets else None)):
        if isinstance(source, os.PathLike):
            from .layouts import check_paths

            return list(check_paths([Path(source)], kind_, follow_symlinks=follow_symlinks).issues)
        return _hint_paths(source, list(_sources.examine_source(source, kind_).issues))


def _hint_paths(source: Any, issues: list[Issue]) -> list[Issue]:
    """A string that fails to parse but names a file was most likely meant as a path: say so."""
    if not (isinstance(source, str) and issues and issues[0].code in ("json.syntax", "toml.syntax")):
        return issues
    if len(source) > 4096 or "\n" in source or not os.path.exists(source):
        return issues
    hint = f"; {source!r} is the name of a file: pass pathlib.Path({source!r}) to validate the file"
    return [attrs.evolve(issues[0], message=issues[0].message + hint), *issues[1:]]


def scan(
    source: Any,
    *,
    allow_list: str | os.PathLike[str] | None = None,
    limits: Limits | None = None,
    follow_symlinks: bool = False,
) -> list[Issue]:
    """Every credential found in ``source`` (a path: every file below it; or text, bytes, a mapping).

    Each finding is a ``security.secret`` issue whose message masks the secret and gives its fingerprint; the
    fingerprints listed in ``allow_list`` (a file, one per line) are not reported.
    """
    from .credentials import _scan

    allow = AllowList.read(Path(allow_list)) if allow_list is not None else AllowList()
    with applied(current().with_limits(limits).with_allow(allow)):
        if isinstance(source, os.PathLike):
            from .layouts import scan_paths

            return list(scan_paths([Path(source)], follow_symlinks=follow_symlinks).issues)
        document = _sources.document_of(source, None)
        findings = list(document.findings)
        if document.readable:
            findings.extend(_scan.scan_data(document.data, allow))
        return _examine.issues_of(document, findings, None, None)


def redact(value: Any, *, allow_list: str | os.PathLike[str] | None = None) -> Any:
    """A copy of a model or a parsed document fit to share: exactly what :func:`scan` finds becomes ``********``.

    A credential member's string is replaced whole, a credential shape (API keys, bearer tokens, private keys,
    JWTs, passwords in URLs) where it sits in any other string; nothing else changes: a number, an object or a
    list under a credential-like name is kept. Findings inside ``metrics``, ``ground_truth`` and ``final_answer``
    are evaluation facts and stay as they are. The fingerprints listed in ``allow_list`` are left too. A model
    comes back as a model of its kind.
    """
    from .credentials import _redact

    allow = AllowList.read(Path(allow_list)) if allow_list is not None else AllowList()
    if attrs.has(type(value)):
        kind = getattr(type(value), "__kind__", None)
        if kind is None:
            raise TypeError(f"{type(value).__name__} is not the model of a whole artifact")
        return from_dict(kind, _redact.redact_data(to_dict(value), allow))
    return _redact.redact_data(value, allow)


def schema(kind: str, version: str | None = None) -> dict[str, Any]:
    """The JSON Schema of a kind (its newest version unless ``version`` is given), as a new dict."""
    found = _kinds.get(kind)
    if version is None:
        schema_id = found.latest
    elif version in found.versions:
        schema_id = found.versions[version]
    else:
        raise UnknownKind(f"{kind} {version}", [f"{kind} {known}" for known in found.versions])
    return copy.deepcopy(_schemas.documents()[schema_id])


def kinds() -> tuple[Kind, ...]:
    """Every artifact kind the package knows, with its file patterns and schema versions."""
    return tuple(KINDS.values())


def load(path: PathLike, kind: str | None = None, *, limits: Limits | None = None) -> Any:
    """Read, validate and return the model of one artifact file.

    Raises :class:`InvalidDocument` carrying every issue when the file has an error (warnings do not stop
    it). The model class follows the kind: ``agentbeats_spec.models.MODELS[kind]``.
    """
    with applied(current().with_limits(limits)):
        examined = _sources.examine_file(Path(path), _kinds.get(kind) if kind else None, explicit=True)
    assert examined is not None  # a named file always gets a verdict
    return _model_of(examined)


def loads(source: str | bytes, kind: str | None = None) -> Any:
    """Like :func:`load`, for the text or bytes of a document."""
    return _model_of(_sources.examine_source(source, _kinds.get(kind) if kind else None))


def from_dict(kind: str, data: Any) -> Any:
    """The model of an already parsed document, after the same validation as :func:`load`."""
    return _model_of(_sources.examine_source(data, _kinds.get(kind)))


def to_dict(model: Any) -> dict[str, Any]:
    """The document of a model, as plain JSON values (no validation, no I/O)."""
    from .models import _convert  # cattrs: imported when models are used, not to validate
    from .models._kit import shadowed

    # unknown_members can be changed in place after the model was built: look again before writing it out.
    clashes = list(shadowed(model))
    if clashes:
        raise InvalidDocument(clashes)
    data: dict[str, Any] = _convert.unstructure(model)
    return data


def dumps(model: Any) -> str:
    """The text of a model's document, after validating it (schema and rules)."""
    from .writing import _atomic

    kind, data = checked(model)
    return _atomic.serialize(data, kind.syntax).decode("utf-8")


def dump(model: Any, path: PathLike) -> None:
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


def _model_of(examined: _examine.Examined) -> Any:
    if not examined.valid or examined.kind is None:
        raise InvalidDocument(examined.issues)
    from .models import MODELS, _convert

    model = MODELS[examined.kind.name]
    if examined.kind.syntax == "jsonl":  # one model per line
        return [_convert.structure(record, model) for record in examined.document.data]
    return _convert.structure(examined.document.data, model)


def checked(model: Any) -> tuple[Kind, dict[str, Any]]:
    kind_name = getattr(type(model), "__kind__", None)
    if kind_name is None:
        raise TypeError(f"{type(model).__name__} is not the model of a whole artifact; see agentbeats_spec.kinds()")
    kind = _kinds.get(kind_name)
    data = to_dict(model)
    examined = _examine.examine(_documents.from_data(data), kind, None)
    if not examined.valid:
        raise InvalidDocument(examined.issues)
    return kind, data
