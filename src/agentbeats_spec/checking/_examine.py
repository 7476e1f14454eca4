"""The one validation path: document -> kind -> schema -> rules -> located issues."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import attrs

from .._issues import Finding, Issue
from .._settings import current
from .._text import quote
from ..reading._documents import Document, Syntax, unread
from . import _kinds, _schemas


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
        allow = current().allow
        if allow is not None:
            from ..credentials import _scan

            findings.extend(_scan.scan_data(document.data, allow))
    return Examined(document, kind, tuple(findings), file)


def unread_file(problem: Finding, syntax: Syntax, kind: _kinds.Kind | None, file: str | None) -> Examined:
    """The verdict of a file whose document could not be read: the one problem that stopped it."""
    return Examined(unread(syntax, (problem,)), kind, (problem,), file)


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
        found = list(_schemas.check(schema_id, data))
        if kind.refused:
            found = [attrs.evolve(finding, message=f"{finding.message}: {kind.refused}") for finding in found]
        found += [*_written(schema_id, data, kind, {finding.pointer for finding in found}), *kind.rules(data)]
    except RecursionError:
        found = [too_deep(kind.syntax)]
    yield from found


def _written(schema_id: str, data: Any, kind: _kinds.Kind, errors: set[str]) -> Iterator[Finding]:
    """Where a document departs from its writer's shape (the schema's ``$defs/written``) though every reader
    tolerates it: a warning each, saying which reader tolerates it and how; none where the schema found an error."""
    if kind.tolerated is None or "written" not in _schemas.contents(schema_id).get("$defs", {}):
        return
    for finding in _schemas.check(schema_id + "#/$defs/written", data):
        if finding.pointer not in errors:
            yield attrs.evolve(
                finding,
                code="rule.writer-shape",
                severity="warning",
                message=f"{finding.message}, unlike what the AgentCompass 1.0.1 writer writes; "
                f"{kind.tolerated(finding.pointer)}",
            )


def too_deep(syntax: str) -> Finding:
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
                secret_id=finding.secret_id,
            )
        )
    issues.sort(key=Issue.sort_key)
    limit = current().limits.max_issues
    if len(issues) > limit:
        first = issues[0]
        issues = [
            *issues[:limit],
            Issue(  # about the file's list of issues, not a place in it: no line
                file=first.file,
                kind=first.kind,
                severity="warning",
                code="io.issues-truncated",
                message=f"{len(issues) - limit} more issue(s) in this file are not shown (see --max-issues)",
            ),
        ]
    return issues
