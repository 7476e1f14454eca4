"""The one validation path: bytes -> document -> kind -> schema -> rules -> located issues."""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

from . import _documents, _kinds, _schemas
from ._documents import Document
from ._issues import Fact, Finding, Issue, Severity
from ._limits import current, secrets_allow
from ._text import quote


@attrs.frozen
class Report:
    """What checking some paths found: every issue, how many files were checked, of which kinds."""

    issues: tuple[Issue, ...]
    checked: int
    skipped: int = 0
    kinds: tuple[tuple[str, int], ...] = ()
    empty: tuple[str, ...] = ()  # folders named to check that held no artifact at all

    @property
    def valid(self) -> bool:
        return not any(issue.severity == "error" for issue in self.issues)


@attrs.define
class Collector:
    """Gathers the issues of many files and folders into one report."""

    issues: list[Issue] = attrs.field(factory=list)
    checked: int = 0
    skipped: int = 0
    kinds: Counter[str] = attrs.field(factory=Counter)
    progress: Callable[[int], None] | None = None
    facts: list[Fact] = attrs.field(factory=list)

    def add(self, examined: Examined | None, label: str | None = None) -> Examined | None:
        """Count a file (None: a file that is no artifact) and keep its issues."""
        if examined is None:
            self.skipped += 1
        else:
            with failing_on(examined.file or "<document>"):
                issues = examined.issues
            self.checked += 1
            self.kinds[label or (examined.kind.name if examined.kind else "unknown")] += 1
            self.issues.extend(issues)
        if self.progress is not None:
            self.progress(self.checked + self.skipped)
        return examined

    def about(self, path: Path, code: str, message: str, severity: Severity = "error") -> None:
        """An issue about a file or folder as a whole."""
        self.issues.append(Issue(str(path), None, "", None, None, severity, code, message))

    def fact(self, fact: Fact) -> None:
        """Keep a value that a rule spanning units needs (see ``layouts._units``)."""
        self.facts.append(fact)

    def part(self) -> Part:
        return Part(tuple(self.issues), self.checked, self.skipped, tuple(self.kinds.items()), tuple(self.facts))

    def merge(self, part: Part) -> None:
        self.issues.extend(part.issues)
        self.checked += part.checked
        self.skipped += part.skipped
        self.kinds.update(dict(part.kinds))
        self.facts.extend(part.facts)
        if self.progress is not None:
            self.progress(self.checked + self.skipped)

    def report(self) -> Report:
        return Report(
            tuple(sorted(self.issues, key=Issue.sort_key)),
            self.checked,
            self.skipped,
            tuple(sorted(self.kinds.items())),
        )


@attrs.frozen
class Part:
    """What checking one unit of a tree gave: its issues, its file counts and its facts, all picklable."""

    issues: tuple[Issue, ...]
    checked: int
    skipped: int
    kinds: tuple[tuple[str, int], ...]
    facts: tuple[Fact, ...]

    def with_paths(self, rename: Callable[[str], str]) -> Part:
        """The same part with every file and folder name passed through ``rename``."""
        return Part(
            tuple(attrs.evolve(issue, file=rename(issue.file)) if issue.file else issue for issue in self.issues),
            self.checked,
            self.skipped,
            self.kinds,
            tuple(attrs.evolve(fact, scope=rename(fact.scope), file=rename(fact.file)) for fact in self.facts),
        )


class CheckFailed(Exception):
    """A bug met while checking one file or folder: what the command line reports as an internal error.

    Whatever a file holds becomes issues on that file; only a fault of this package's own gets here, and it says
    which file was being checked so that the bug can be reported with it.
    """

    def __init__(self, file: str, detail: str) -> None:
        super().__init__(file, detail)  # the arguments make it picklable, back from a worker process
        self.file = file
        self.detail = detail

    def __str__(self) -> str:
        return f"while checking {self.file}: {self.detail}"


@contextlib.contextmanager
def failing_on(file: str) -> Iterator[None]:
    """Name the file being checked in any unexpected exception (one from an inner file is kept as it is)."""
    try:
        yield
    except (CheckFailed, KeyboardInterrupt, SystemExit):
        raise
    except Exception as error:
        raise CheckFailed(file, f"{type(error).__name__}: {error}") from error


@attrs.frozen
class Examined:
    """One document after the whole path: what it is, and what is wrong with it.

    Its findings become located issues when first asked for, once: a layout rule can add findings of its own
    (``with_findings``) before that, so that the file's text is searched for positions in one pass.
    """

    document: Document
    kind: _kinds.Kind | None
    findings: tuple[Finding, ...]
    file: str | None
    _issues: list[list[Issue]] = attrs.field(factory=list, eq=False, repr=False)

    @property
    def issues(self) -> list[Issue]:
        if not self._issues:
            self._issues.append(issues_of(self.document, list(self.findings), self.file, self.kind))
        return self._issues[0]

    @property
    def valid(self) -> bool:
        return not any(finding.severity == "error" for finding in self.findings)

    def with_findings(self, findings: Iterable[Finding]) -> Examined:
        return Examined(self.document, self.kind, (*self.findings, *findings), self.file)


def examine(document: Document, kind: _kinds.Kind | None, file: str | None) -> Examined:
    findings = list(document.findings)
    if document.readable:
        if kind is None:
            kind = _kinds.from_content(document.data)
        findings.extend(_check_data(document.data, kind))
        allow = secrets_allow()
        if allow is not None:
            from . import _secrets

            findings.extend(_secrets.scan_data(document.data, allow))
    return Examined(document, kind, tuple(findings), file)


def _check_data(data: Any, kind: _kinds.Kind | None) -> Iterator[Finding]:
    if kind is None:
        yield Finding(
            "",
            "schema.unknown-kind",
            "cannot tell what kind of artifact this is from its name or its schema_version; "
            f"pass --kind (kind= in Python) with one of: {', '.join(_kinds.KINDS)}",
        )
        return
    schema_id = kind.schema_id(data)
    if schema_id is None:
        field = kind.version_field or ""
        version = str(data[field])
        if version in kind.rejected:
            yield Finding("/" + field, "legacy.rejected-version", kind.rejected[version])
            return
        note = f"; {kind.unknown_version_note}" if kind.unknown_version_note else ""
        yield Finding(
            "/" + field,
            "schema.unknown-version",
            f"{field} {quote(version)} is not a version of {kind.name} this package knows; "
            f"known: {', '.join(kind.versions)}{note}",
        )
        return
    try:
        found = [*_schemas.check(schema_id, data), *kind.rules(data)]
    except RecursionError:
        found = [_too_deep(kind.syntax)]
    yield from found


def _too_deep(syntax: str) -> Finding:
    return Finding("", f"{syntax}.too-deep", "the document is nested too deeply to be checked")


def issues_of(document: Document, findings: list[Finding], file: str | None, kind: _kinds.Kind | None) -> list[Issue]:
    if not findings:
        return []
    unplaced = [(f.pointer, f.anchor) for f in findings if f.line is None]
    try:
        positions = document.positions(unplaced) if unplaced else {}
    except RecursionError:  # nesting past what the locator follows (a raised --max-depth): issues stay unplaced
        positions = {}
    issues = []
    for finding in findings:
        line, column = finding.line, finding.column
        if line is None:
            line, column = positions.get((finding.pointer, finding.anchor), (None, None))
        issues.append(
            Issue(
                file=file,
                kind=kind.name if kind else None,
                pointer=finding.pointer,
                line=line,
                column=column,
                severity=finding.severity,
                code=finding.code,
                message=finding.message,
            )
        )
    issues.sort(key=Issue.sort_key)
    limit = current().max_issues
    if len(issues) > limit:
        first = issues[0]
        issues = [
            *issues[:limit],
            Issue(
                first.file, first.kind, "", None, None, "warning", "io.issues-truncated",
                f"{len(issues) - limit} more issue(s) in this file are not shown (see --max-issues)",
            ),
        ]  # fmt: skip
    return issues


def scan_file(path: Path) -> Examined | None:
    """A file searched for secrets only: a JSON or TOML document by its members, any other text by its lines.

    None for a file that is neither (binary).
    """
    with failing_on(str(path)):
        try:
            return _scan_file(path)
        except RecursionError:
            problem = _too_deep("toml" if path.suffix == ".toml" else "json")
            return Examined(Document(None, None, "json", (problem,), readable=False), None, (problem,), str(path))


def _scan_file(path: Path) -> Examined | None:
    from . import _secrets

    allow = _secrets.active() or _secrets.AllowList()
    file = str(path)
    kind = _kinds.from_path(path)
    raw, problem = read_bounded(path)
    if problem is not None:
        document = Document(None, None, "json", (problem,), readable=False)
        return Examined(document, kind, (problem,), file)
    if path.suffix in (".json", ".toml"):
        document = _documents.read(raw, "toml" if path.suffix == ".toml" else "json")
        if document.readable:
            findings = list(_secrets.scan_data(document.data, allow))
            return Examined(document, kind, tuple(findings), file)
    if b"\x00" in raw[:8192]:
        return None
    text = raw.decode("utf-8", "replace")
    document = Document(None, text, "json", (), readable=False)
    return Examined(document, kind, tuple(_secrets.scan_text(text, allow)), file)


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
            problem = _too_deep(syntax)
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
    problem = _unreadable(path, follow=explicit)
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


def read_bounded(path: Path) -> tuple[bytes, Finding | None]:
    """The bytes of a file, never more than the size limit (a file may grow while it is read)."""
    limit = current().max_file_size
    try:
        with path.open("rb", buffering=0) as stream:
            size = os.fstat(stream.fileno()).st_size
            if size > limit:
                return b"", _too_large(size, limit)
            raw = _read_sized(stream.fileno(), size, limit)
    except OSError as error:
        return b"", Finding("", "io.unreadable", f"cannot read the file: {error.strerror or error}")
    if len(raw) > limit:
        return b"", _too_large(len(raw), limit, growing=True)
    return raw, None


# One read() call moves at most this much (Linux stops at 2 GiB); a file that grows is read on in such steps.
_READ_STEP = 1 << 30


def _read_sized(descriptor: int, size: int, limit: int) -> bytes:
    """What ``fstat`` said the file holds plus one byte, which shows a file that grew: then it is read on, in
    bounded steps, until its end or one byte past the limit. No buffer is ever sized by the limit itself.
    """
    chunks: list[bytes] = []
    total = 0
    want = size + 1
    while total <= limit:
        if total >= want:  # the file grew since fstat
            want = total + max(size, 1 << 20)
        chunk = os.read(descriptor, min(min(want, limit + 1) - total, _READ_STEP))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _too_large(size: int, limit: int, *, growing: bool = False) -> Finding:
    how = "grew beyond" if growing else f"is {size} bytes, more than"
    return Finding("", "io.too-large", f"the file {how} the limit of {limit} bytes; not read (see --max-file-size)")


def _unreadable(path: Path, *, follow: bool) -> Finding | None:
    """Why a path cannot be read as a file, if it cannot. Links are followed only when named."""
    try:
        info = path.stat() if follow else path.lstat()
    except FileNotFoundError:
        return Finding("", "io.not-found", "no such file")
    except OSError as error:
        return Finding("", "io.unreadable", f"cannot read the file: {error.strerror or error}")
    if stat.S_ISLNK(info.st_mode):
        return Finding("", "security.symlink", "symbolic link not followed", severity="warning")
    if stat.S_ISDIR(info.st_mode):
        return Finding("", "io.not-a-file", "a folder where a file was expected")
    if not stat.S_ISREG(info.st_mode):
        return Finding(
            "", "io.not-a-file", "not a regular file (FIFO, socket or device); not opened", severity="warning"
        )
    return None
