"""Files and in-memory sources to examined documents: read, detect the kind, examine.

The ways in, one for each job:

- :func:`examine_named`: a file the user named, or one a layout requires: always a verdict;
- :func:`examine_in_folder`: a file a layout requires in a folder it has listed (and may have read natively);
- :func:`examine_found`: a file met in a folder that is no layout: None when it is no artifact;
- :func:`read_schemaless`: a JSON file the spec gives no schema: read, and nothing more;
- :func:`scan_file` and :func:`scan_source`: a file or a document searched for secrets only;
- :func:`examine_source`: the text, bytes or parsed mapping of one document.

Every way in to a file goes through one guard, :func:`_guarded`: whatever the file holds ends as issues on it
(running out of memory or of stack included), and a fault of this package raises ``CheckFailed`` naming it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..reading import _documents
from ..reading._bounded import read_bounded
from ..reading._documents import Document, syntax_of
from ..reading._folders import Clean, child
from ..vocabulary._issues import Finding, Issue
from ..vocabulary._settings import current
from . import _jsonl, _kinds
from ._collect import failing_on
from ._examine import Examined, Kept, examine, issues_of, too_deep, unread_file

if TYPE_CHECKING:
    from ..vocabulary._settings import AllowList

# What a way in gives: a verdict, or None for a file that is no artifact (or, scanned, no text).
_Verdict = TypeVar("_Verdict", Examined, "Examined | None")


def _guarded(
    file: str, kind: _kinds.Kind | None, check: Callable[..., _Verdict], *arguments: Any, scanning: bool = False
) -> _Verdict | Examined:
    """``check(*arguments)``, the examination of the file ``file``, always ending in a verdict on it.

    A fault of this package raises :class:`CheckFailed` naming the file; running out of memory or of stack
    (a file too deep for this interpreter, anywhere on the path) is an issue on it, and the other files are
    checked. ``kind``: what the file is checked as (else what its path says); ``scanning``: a secret scan, whose
    verdicts name no kind unless the path says one (out of memory) or at all (too deep).
    """
    with failing_on(file):
        try:
            return check(*arguments)
        except MemoryError:
            return out_of_memory(Path(file), None if scanning else kind)
        except RecursionError:
            if scanning:
                return unread_file(too_deep(syntax_of(Path(file))), "json", None, file)
            return _too_deep(Path(file), kind)


def scan_file(path: Path, kind: _kinds.Kind | None = None, *, follow: bool = False) -> Examined | None:
    """A file searched for secrets only: a JSON or TOML document by its members, any other text by its lines.

    None for a file that is neither (binary). A link is followed only with ``follow`` (one the user named).
    ``kind`` (else the one its path says) only names what the file is in the report.
    """
    return _guarded(str(path), kind, _scan_file, path, kind, follow, scanning=True)


def _scan_file(path: Path, kind: _kinds.Kind | None, follow: bool) -> Examined | None:
    from ..credentials import _scan  # lazy for start-up time: a check without a secret scan never imports it

    kind = kind or _kinds.from_path(path)
    allow = current().allow or _scan.NOTHING_ALLOWED
    file = str(path)
    raw, problem = read_bounded(path, follow=follow)
    if problem is not None:
        return unread_file(problem, "json", kind, file)
    if path.suffix in (".json", ".toml"):
        document = _documents.read(raw, syntax_of(path))
        if document.readable:  # at most --max-issues secrets kept and placed, the rest counted
            kept = Kept()
            kept.take(_scan.scan_data(document.data, allow))
            return Examined(document, kind, tuple(kept.findings), file, kept.overflow)
    if b"\x00" in raw[:8192]:
        return None
    text = raw.decode("utf-8", "replace")
    document = Document(None, text, "json", (), readable=False)
    kept = Kept()
    kept.take(_scan.scan_text(text, allow))
    return Examined(document, kind, tuple(kept.findings), file, kept.overflow)


def scan_source(source: Any, allow: AllowList) -> list[Issue]:
    """The text, bytes or parsed mapping of one document searched for secrets only, with its reading findings:
    what ``scan()`` reports of a document."""
    from ..credentials import _scan  # lazy, as in _scan_file

    document = _document_of(source, None)
    findings = list(document.findings)
    if document.readable:
        findings.extend(_scan.scan_data(document.data, allow))
    return issues_of(document, findings, None, None)


def examine_source(source: Any, kind: _kinds.Kind | None) -> Examined:
    """The text or bytes of one document, or a parsed mapping."""
    if kind is not None and kind.syntax == "jsonl" and isinstance(source, (str, bytes)):
        raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
        return _jsonl.examine(raw, kind, None)
    return examine(_document_of(source, kind), kind, None)


def _document_of(source: Any, kind: _kinds.Kind | None) -> Document:
    if isinstance(source, (str, bytes)):
        syntax = kind.syntax if kind else "json"
        raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
        return _documents.read(raw, syntax)
    if isinstance(source, Mapping):
        return _documents.from_data(dict(source))
    raise not_a_source(source, "read")


def not_a_source(source: object, doing: str) -> TypeError:
    """The caller's mistake of passing something no document comes from, said where it was passed."""
    return TypeError(
        f"cannot {doing} a {type(source).__name__}: pass a path (pathlib.Path), the text or bytes of a "
        "document, or a parsed mapping"
    )


def examine_named(path: Path, kind: _kinds.Kind | None, *, follow: bool = False) -> Examined:
    """A file the user named, or one a layout requires: always a verdict, whatever the file holds.

    A link is followed only with ``follow`` (a path the user named), never where a layout requires a file.
    """
    return _guarded(str(path), kind, _examine_named, path, kind, follow)


def _examine_named(path: Path, kind: _kinds.Kind | None, follow: bool) -> Examined:
    file = str(path)
    # A kind named (by the caller, who knows the file's place: layouts._layout.kind_in_place) or told by the path.
    known = kind if kind is not None else _kinds.from_path(path)
    syntax = known.syntax if known else syntax_of(path)
    raw, problem = read_bounded(path, follow=follow)
    if problem is not None:
        return unread_file(problem, syntax, known, file)
    if syntax == "jsonl":
        return _jsonl.examine(raw, known, file)
    return examine(_documents.read(raw, syntax), known, file)


def examine_in_folder(folder: Path, name: str, kind: _kinds.Kind, read: Mapping[str, object]) -> Examined:
    """The file ``name`` that a layout requires in ``folder``, which it has listed: taken from ``read`` when the
    folder's native call already read it and found it clean (``reading._folders``), else read now as
    :func:`examine_named` reads it."""
    clean = read.get(name)
    if not isinstance(clean, Clean):
        return examine_named(folder / name, kind)
    file = child(str(folder), name)
    return _guarded(file, kind, _examine_clean, file, kind, clean)


def _examine_clean(file: str, kind: _kinds.Kind, clean: Clean) -> Examined:
    return examine(_documents.from_clean(*clean), kind, file)


def examine_found(path: Path, kind: _kinds.Kind | None) -> Examined | None:
    """A file met while walking a folder: None when it is no artifact of a known kind (or a link not followed).

    A JSON file is an artifact only when its content says which; one that cannot be read (broken, too deep, not
    UTF-8) is still one when the schema_version it declares says so.
    """
    return _guarded(str(path), kind, _examine_found, path, kind)


def _examine_found(path: Path, kind: _kinds.Kind | None) -> Examined | None:
    known = kind or _kinds.from_path(path)
    if not may_be_artifact(path, known):
        return None
    syntax = known.syntax if known else syntax_of(path)
    # Listed as a regular file: whatever the descriptor finds instead (a link, a FIFO swapped in) is said.
    raw, problem = read_bounded(path)
    if problem is not None:
        return unread_file(problem, syntax, known, str(path))
    if syntax == "jsonl":
        return _jsonl.examine(raw, known, str(path))
    document = _documents.read(raw, syntax)
    if known is None:
        known = _kinds.from_content(document.data) if document.readable else _declared_kind(raw)
        if known is None:
            return None
    return examine(document, known, str(path))


def out_of_memory(path: Path, kind: _kinds.Kind | None) -> Examined:
    """The verdict of a file whose check ran out of memory: an issue on it, and the other files are checked."""
    try:
        size = f"{path.lstat().st_size:,} bytes"
    except OSError:
        size = "a size that cannot be read"
    message = (
        f"ran out of memory while checking this file ({size}); give the process more memory, or lower "
        "--max-file-size so that files this large are reported and not read"
    )
    kind = kind or _kinds.from_path(path)
    syntax = kind.syntax if kind else syntax_of(path)
    return unread_file(Finding("", "io.out-of-memory", message), syntax, kind, str(path))


def read_named(path: Path) -> tuple[bytes, Finding | None]:
    """The bytes of a file the user named, followed if it is a link; or why it cannot be read."""
    return read_bounded(path, follow=True)


def _too_deep(path: Path, kind: _kinds.Kind | None) -> Examined:
    kind = kind or _kinds.from_path(path)
    syntax = kind.syntax if kind else syntax_of(path)
    return unread_file(too_deep(syntax), syntax, kind, str(path))


def read_schemaless(path: Path) -> Examined | Finding:
    """A JSON file the spec gives no schema, read and nothing more: its reading findings, or the one problem that
    kept it from being read (too large, not a regular file, unreadable), which is about the file as a whole."""
    raw, problem = read_bounded(path)
    if problem is not None:
        return problem
    document = _documents.read(raw, "json")
    return Examined(document, None, document.findings, str(path))


def members(examined: Examined) -> dict[str, Any] | None:
    """The members of a document that is a JSON object (a TOML table); None when it is unreadable or no object.

    What a layout reads out of a file for a fact of its own (an id, a count), beside the file's verdict.
    """
    data = examined.document.data
    return data if examined.document.readable and isinstance(data, dict) else None


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
