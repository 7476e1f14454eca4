"""The one validation path: document -> kind -> schema -> rules -> located issues."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import attrs

from .._issues import Finding, Issue, fails
from .._settings import current
from .._text import quote
from ..reading import _messages
from ..reading._documents import Document, Syntax, unread
from ..reading._nativejson import IntegralFloats
from ..reading._pointers import to_path
from . import _kinds, _schemas


@attrs.frozen
class Overflow:
    """What a file's check found past the issue limit, counted and never kept (nor placed).

    ``count`` findings were met and dropped, ``error`` says whether one of them was an error; ``more`` says that a
    search stopped at the limit (schema validation), so that there may be more than ``count``.
    """

    count: int = 0
    error: bool = False
    more: bool = False

    def __add__(self, other: Overflow) -> Overflow:
        return Overflow(self.count + other.count, self.error or other.error, self.more or other.more)


NO_OVERFLOW = Overflow()


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
    overflow: Overflow = NO_OVERFLOW
    _issues: list[list[Issue]] = attrs.field(factory=list, eq=False, repr=False)

    @property
    def issues(self) -> list[Issue]:
        if not self._issues:
            self._issues.append(issues_of(self.document, list(self.findings), self.file, self.kind, self.overflow))
        return self._issues[0]

    @property
    def valid(self) -> bool:
        """No error, not even one past the issue limit (``_issues.fails``, never strict: what ``load`` refuses)."""
        return not self.overflow.error and not fails(finding.severity for finding in self.findings)

    def with_findings(self, findings: Iterable[Finding]) -> Examined:
        findings = tuple(findings)
        if not findings:  # the common case of a valid file: nothing to add, and it is frozen
            return self
        return Examined(self.document, self.kind, (*self.findings, *findings), self.file, self.overflow)


class Kept:
    """The findings of one file, at most ``--max-issues`` from each source; the rest counted, never kept.

    Each source (the reader, schema validation, the rules, the secret scan) yields its findings roughly in the
    document's order, so the first of each are the candidates for the first issues of the file; what lies past the
    limit costs a count, not an object nor a place in the text, whatever the file holds.
    """

    def __init__(self, limit: int | None = None) -> None:
        self.limit = current().limits.max_issues if limit is None else limit
        self.findings: list[Finding] = []
        self.overflow = NO_OVERFLOW

    def full(self) -> bool:
        """Whether the file already holds as many findings as it shows."""
        return len(self.findings) >= self.limit

    def take(self, found: Iterable[Finding], *, stop: bool = False) -> None:
        """Keep the first ``limit`` of ``found`` and count the rest; ``stop``: stop looking after one more
        (a search whose cost grows with each finding, as schema validation's)."""
        taken = 0
        count, error = 0, False
        for finding in found:
            if taken < self.limit:
                self.findings.append(finding)
                taken += 1
                continue
            count += 1
            error = error or finding.severity == "error"
            if stop:
                self.overflow += Overflow(count, error, more=True)
                return
        if count:
            self.overflow += Overflow(count, error)


def examine(document: Document, kind: _kinds.Kind | None, file: str | None, kept: Kept | None = None) -> Examined:
    """``kept``: where the findings go (``Kept(0)``: only counted, for a line of JSON Lines past the limit)."""
    kept = Kept() if kept is None else kept
    if document.findings:
        kept.take(document.findings)
    if document.unkept:  # what the reader counted past the limit
        kept.overflow += Overflow(document.unkept, error=bool(document.unkept_errors))
    if document.readable:
        if kind is None:
            kind = _kinds.from_content(document.data)
        _check_data(document.data, kind, kept, document.integral_floats)
        allow = current().allow
        if allow is not None:
            from ..credentials import _scan

            kept.take(_scan.scan_data(document.data, allow))
    return Examined(document, kind, tuple(kept.findings), file, kept.overflow)


def unread_file(problem: Finding, syntax: Syntax, kind: _kinds.Kind | None, file: str | None) -> Examined:
    """The verdict of a file whose document could not be read: the one problem that stopped it."""
    return Examined(unread(syntax, (problem,)), kind, (problem,), file)


def _check_data(data: Any, kind: _kinds.Kind | None, kept: Kept, integral_floats: IntegralFloats = True) -> None:
    """``integral_floats``: where ``data`` may hold a float such as 1.0 (see ``_schemas.check``)."""
    if kind is None:
        kept.take([Finding(
            "",
            "schema.unknown-kind",
            "cannot tell what kind of artifact this is from its name or its schema_version; "
            f"pass --kind (kind= in Python) with one of: {', '.join(_kinds.KINDS)}",
        )])  # fmt: skip
        return
    schema_id = kind.schema_id(data)
    if schema_id is None:
        field = kind.version_field or ""
        version = str(data[field])
        if version in kind.rejected:
            kept.take([Finding("/" + field, "legacy.rejected-version", kind.rejected[version])])
            return
        note = f"; {kind.unknown_version_note}" if kind.unknown_version_note else ""
        kept.take([Finding(
            "/" + field,
            "schema.unknown-version",
            f"{field} {quote(version)} is not a version of {kind.name} this package knows; "
            f"known: {', '.join(kind.versions)}{note}",
        )])  # fmt: skip
        return
    mark = len(kept.findings), kept.overflow
    try:
        if kept.limit == 0:  # nothing is kept: whether there is an error is all that counts
            if _schemas.invalid(schema_id, data, integral_floats):
                kept.overflow += Overflow(1, error=True, more=True)
            else:
                kept.take(_written(schema_id, data, kind, set(), integral_floats))
        elif _schemas.valid_by_fast_engine(schema_id, data, integral_floats):  # most documents: no error to build
            if kind.tolerated is not None:
                kept.take(_written(schema_id, data, kind, set(), integral_floats))
        else:  # invalid, or no jsonschema-rs: the reference engine says where, without a second verdict first
            found = _schemas.reference_findings(schema_id, data)
            kept.take(_refused(found, kind.refused), stop=True)
            errors = {finding.pointer for finding in kept.findings[mark[0] :]}
            kept.take(_written(schema_id, data, kind, errors, integral_floats))
        kept.take(kind.rules(data))
    except RecursionError:
        del kept.findings[mark[0] :]
        kept.overflow = mark[1]
        kept.take([too_deep(kind.syntax)])


def _refused(found: Iterable[Finding], refused: str) -> Iterator[Finding]:
    """Schema errors, each followed by what a reader will not do with such a file (lazily: the limit stops it)."""
    for finding in found:
        yield attrs.evolve(finding, message=f"{finding.message}: {refused}") if refused else finding


def _written(
    schema_id: str, data: Any, kind: _kinds.Kind, errors: set[str], integral_floats: IntegralFloats = True
) -> Iterator[Finding]:
    """Where a document departs from its writer's shape (the schema's ``$defs/written``) though every reader
    tolerates it: a warning each, saying which reader tolerates it and how; none where the schema found an error."""
    if kind.tolerated is None or "" in errors or "written" not in _schemas.contents(schema_id).get("$defs", {}):
        return  # no writer's shape to compare, or a document whose root is already wrong (not an object)
    for finding in _schemas.check(schema_id + "#/$defs/written", data, integral_floats=integral_floats):
        if finding.pointer not in errors:
            yield attrs.evolve(
                finding,
                code="rule.writer-shape",
                severity="warning",
                message=f"{finding.message}, unlike what the AgentCompass 1.0.1 writer writes; "
                f"{kind.tolerated(finding.pointer)}",
            )


def too_deep(syntax: str) -> Finding:
    """A document that the checks cannot follow to its depth (Python's own stack ran out), as the reader words it."""
    return Finding("", f"{syntax}.too-deep", _messages.too_deep(None))


def issues_of(
    document: Document,
    findings: list[Finding],
    file: str | None,
    kind: _kinds.Kind | None,
    overflow: Overflow = NO_OVERFLOW,
) -> list[Issue]:
    """The located issues of a file: the first ``--max-issues`` by place, then one line counting the rest.

    Only the findings kept (a bounded number: see :class:`Kept`) are placed, all in one pass over the text.
    """
    if not findings:
        return []
    from .._vocabulary import masked  # lazy: a file without issues never compiles the patterns

    issues = []
    for (line, column), finding in zip(places(document, findings), findings, strict=True):
        issues.append(
            Issue(
                file=file,
                kind=kind.name if kind else None,
                # Placed first, then masked: a pointer through a member named by a token, or a message quoting a
                # value that no builder passed through _text.shorten, shows the secret masked, never whole.
                pointer=masked(finding.pointer),
                line=line,
                column=column,
                severity=finding.severity,
                code=finding.code,
                message=masked(finding.message, _credential_value(document, finding.pointer)),
                secret_id=finding.secret_id,
            )
        )
    issues.sort(key=Issue.sort_key)
    limit = current().limits.max_issues
    hidden = max(0, len(issues) - limit) + overflow.count
    if hidden:
        first = issues[0]
        issues = [
            *issues[:limit],
            Issue(  # about the file's list of issues, not a place in it: no line
                file=first.file,
                kind=first.kind,
                severity="warning",
                code="io.issues-truncated",
                message=truncated(hidden, overflow.more),
            ),
        ]
    return issues


def _credential_value(document: Document, pointer: str) -> str | None:
    """The string a finding's pointer names when its member's name is a credential's (``password``): a secret by
    its name alone, which the message masks wherever it quotes it."""
    from .._vocabulary import is_credential_name_for_scan

    if not document.readable or not pointer:
        return None
    path = to_path(pointer)
    if not is_credential_name_for_scan(path[-1]):
        return None
    value: Any = document.data
    for token in path:
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return None
    return value if isinstance(value, str) else None


def places(document: Document, findings: list[Finding]) -> list[tuple[int | None, int | None]]:
    """The (line, column) of each finding in its document, those it has not already, in one pass over the text."""
    unplaced = [(f.pointer, f.anchor) for f in findings if f.line is None]
    try:
        positions = document.positions(unplaced) if unplaced else {}
    except RecursionError:  # nesting past what the locator follows (a raised --max-depth): issues stay unplaced
        positions = {}
    return [
        (f.line, f.column) if f.line is not None else positions.get((f.pointer, f.anchor), (None, None))
        for f in findings
    ]


def truncated(hidden: int, more: bool) -> str:
    """The message of ``io.issues-truncated``: ``hidden`` issues not shown; ``more``: the search stopped there."""
    if more:  # schema validation stopped looking: how many more there are is not known
        counted = f"at least {hidden} more issue(s)" if hidden > 1 else "more issues"
        message = f"{counted} in this file are not shown: the check stops looking past the limit"
    else:
        message = f"{hidden} more issue(s) in this file are not shown"
    return f"{message} (see --max-issues)"
