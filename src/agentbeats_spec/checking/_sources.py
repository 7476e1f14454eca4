"""Files and in-memory sources to examined documents: read, detect the kind, examine."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._settings import current
from ..reading import _documents
from ..reading._bounded import read_bounded, unreadable
from ..reading._documents import Document
from . import _kinds
from ._collect import failing_on
from ._examine import Examined, examine, too_deep


def scan_file(path: Path) -> Examined | None:
    """A file searched for secrets only: a JSON or TOML document by its members, any other text by its lines.

    None for a file that is neither (binary).
    """
    with failing_on(str(path)):
        try:
            return _scan_file(path)
        except RecursionError:
            problem = too_deep("toml" if path.suffix == ".toml" else "json")
            return Examined(Document(None, None, "json", (problem,), readable=False), None, (problem,), str(path))


def _scan_file(path: Path) -> Examined | None:
    from ..credentials import _scan

    allow = current().allow or _scan.NOTHING_ALLOWED
    file = str(path)
    kind = _kinds.from_path(path)
    raw, problem = read_bounded(path)
    if problem is not None:
        document = Document(None, None, "json", (problem,), readable=False)
        return Examined(document, kind, (problem,), file)
    if path.suffix in (".json", ".toml"):
        document = _documents.read(raw, "toml" if path.suffix == ".toml" else "json")
        if document.readable:
            findings = list(_scan.scan_data(document.data, allow))
            return Examined(document, kind, tuple(findings), file)
    if b"\x00" in raw[:8192]:
        return None
    text = raw.decode("utf-8", "replace")
    document = Document(None, text, "json", (), readable=False)
    return Examined(document, kind, tuple(_scan.scan_text(text, allow)), file)


def examine_source(source: Any, kind: _kinds.Kind | None) -> Examined:
    """The text or bytes of one document, or a parsed mapping."""
    if kind is not None and kind.syntax == "jsonl" and isinstance(source, (str, bytes)):
        from . import _jsonl

        raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
        return _jsonl.examine(raw, kind, None)
    return examine(document_of(source, kind), kind, None)


def document_of(source: Any, kind: _kinds.Kind | None) -> Document:
    if isinstance(source, (str, bytes)):
        syntax = kind.syntax if kind else "json"
        raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
        return _documents.read(raw, syntax)
    if isinstance(source, Mapping):
        return _documents.from_data(dict(source))
    raise TypeError(
        f"cannot read a {type(source).__name__}: pass a path (pathlib.Path), the text or bytes of a "
        "document, or a parsed mapping"
    )


def examine_file(path: Path, kind: _kinds.Kind | None, *, explicit: bool) -> Examined | None:
    """One file through the whole path; None for a file met in a folder that is no artifact of a known kind.

    Whatever the file holds ends as issues on it; a fault of this package raises :class:`CheckFailed` naming it.
    """
    with failing_on(str(path)):
        try:
            return _examine_file(path, kind, explicit=explicit)
        except RecursionError:  # anywhere on the path: the file is too deep for this interpreter's stack
            kind = kind or _kinds.from_path(path)
            syntax = kind.syntax if kind else _kinds.syntax_for(path)
            problem = too_deep(syntax)
            return Examined(Document(None, None, syntax, (problem,), readable=False), kind, (problem,), str(path))


def _examine_file(path: Path, kind: _kinds.Kind | None, *, explicit: bool) -> Examined | None:
    display = str(path)
    if kind is None:
        kind = _kinds.from_path(path)
        if kind is not None:
            kind = _kinds.in_context(kind, path)
    if not explicit and not may_be_artifact(path, kind):
        return None
    syntax = kind.syntax if kind else _kinds.syntax_for(path)
    problem = unreadable(path, follow=explicit)
    if problem is not None and not explicit and problem.severity == "warning":
        return None
    if problem is None:
        raw, problem = read_bounded(path)
    if problem is not None:
        return examine(Document(None, None, syntax, (problem,), readable=False), kind, display)
    if syntax == "jsonl":
        from . import _jsonl

        return _jsonl.examine(raw, kind, display)
    document = _documents.read(raw, syntax)
    # Inside a folder, a JSON file is an artifact only when its content says which; one that cannot be read
    # (broken, too deep, not UTF-8) is still one when the schema_version it declares says so.
    if not explicit and kind is None:
        kind = _kinds.from_content(document.data) if document.readable else _declared_kind(raw)
        if kind is None:
            return None
    return examine(document, kind, display)


def may_be_artifact(path: Path, kind: _kinds.Kind | None) -> bool:
    """Whether a file met in a folder is worth reading: its kind is known, or it is JSON (its content may tell)."""
    return kind is not None or _kinds.from_path(path) is not None or path.suffix == ".json"


# The schema_version member as written: enough to tell an artifact whose document cannot be read.
_DECLARED_VERSION = re.compile(rb'"schema_version"\s*:\s*"([^"\\]{1,200})"')


def _declared_kind(raw: bytes) -> _kinds.Kind | None:
    match = _DECLARED_VERSION.search(raw)
    if match is None:
        return None
    return _kinds.from_content({"schema_version": match.group(1).decode("utf-8", "replace")})
