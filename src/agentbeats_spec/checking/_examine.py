"""The one validation path: document -> kind -> schema -> rules -> located issues."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from ..reading import _messages
from ..reading._documents import Document, unread
from ..reading._nativejson import IntegralFloats
from ..reading._pointers import to_path
from ..vocabulary._codes import CODES, Severity
from ..vocabulary._issues import UNSEEN, Finding, Hidden, Issue, fails
from ..vocabulary._kind_data import Syntax
from ..vocabulary._settings import current
from ..vocabulary._text import quote
from . import _kinds, _schemas


@attrs.frozen
class Overflow:
    """What a file's check found past the issue limit, counted and never kept (nor placed).

    ``groups`` counts the findings met and dropped by (code, severity): a code's severity may be changed by a
    configuration, so the verdict on what is hidden is made again once it is known (:func:`reconfigured`). A group
    of code ``UNSEEN`` says that a search stopped at the limit (schema validation): there may be more, of codes not
    known, and any of them may be an error.
    """

    groups: Hidden = ()

    @classmethod
    def of(cls, counts: Mapping[tuple[str, Severity], int]) -> Overflow:
        return cls(tuple(sorted((code, severity, count) for (code, severity), count in counts.items())))

    @property
    def count(self) -> int:
        return sum(count for _, _, count in self.groups)

    @property
    def more(self) -> bool:
        """Whether a search stopped looking: there may be more than ``count``."""
        return any(code == UNSEEN for code, _, _ in self.groups)

    @property
    def severity(self) -> Severity:
        """The highest severity counted (schema errors not looked at are counted as errors: any may be one)."""
        if any(severity == "error" for _, severity, _ in self.groups):
            return "error"
        return "warning" if any(severity == "warning" for _, severity, _ in self.groups) else "info"

    @property
    def error(self) -> bool:
        return any(severity == "error" for _, severity, _ in self.groups)

    def __add__(self, other: Overflow) -> Overflow:
        if not other.groups:
            return self
        if not self.groups:
            return other
        counts: Counter[tuple[str, Severity]] = Counter()
        for groups in (self.groups, other.groups):
            for code, severity, count in groups:
                counts[code, severity] += count
        return Overflow.of(counts)


def count(counts: Counter[tuple[str, Severity]], finding: Finding | Issue) -> None:
    """Count one finding dropped past the limit: a truncation line counts what it stands for."""
    if finding.hidden:
        for code, severity, number in finding.hidden:
            counts[code, severity] += number
    else:
        counts[finding.code, finding.severity] += 1


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
        counts: Counter[tuple[str, Severity]] | None = None  # made only past the limit: most files never get there
        for finding in found:
            if taken < self.limit:
                self.findings.append(finding)
                taken += 1
                continue
            counts = Counter() if counts is None else counts
            count(counts, finding)
            if stop:
                counts[UNSEEN, "error"] += 0  # what follows was not looked at
                break
        if counts:
            self.overflow += Overflow.of(counts)


def examine(document: Document, kind: _kinds.Kind | None, file: str | None, kept: Kept | None = None) -> Examined:
    """``kept``: where the findings go (``Kept(0)``: only counted, for a line of JSON Lines past the limit)."""
    kept = Kept() if kept is None else kept
    if document.findings:
        kept.take(document.findings)
    if document.unkept:  # what the reader counted past the limit
        kept.overflow += Overflow(document.unkept)
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
            if _schemas.invalid(schema_id, data, integral_floats):  # an error, of a code not looked for
                kept.overflow += Overflow(((UNSEEN, "error", 1),))
            else:
                kept.take(_written(schema_id, data, kind, set(), integral_floats))
        elif _schemas.valid_by_fast_engine(schema_id, data, integral_floats):  # most documents: no error to build
            if kind.tolerated is not None:
                kept.take(_written(schema_id, data, kind, set(), integral_floats))
        else:  # invalid, or no jsonschema-rs: the reference engine says where, without a second verdict first
            found = _schemas.reference_findings(schema_id, data, integral_floats=integral_floats)
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
    from ..vocabulary._secrets import masked  # lazy: a file without issues never compiles the patterns

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
    counts: Counter[tuple[str, Severity]] = Counter()
    for cut in issues[limit:]:
        count(counts, cut)
    overflow += Overflow.of(counts)
    if overflow.groups:
        first = issues[0]
        summary = truncation(overflow)
        issues = [
            *issues[:limit],
            Issue(  # about the file's list of issues, not a place in it: no line
                file=first.file,
                kind=first.kind,
                severity=summary.severity,
                code=summary.code,
                message=summary.message,
                hidden=summary.hidden,
            ),
        ]
    return issues


def _credential_value(document: Document, pointer: str) -> str | None:
    """The string a finding's pointer names when its member's name is a credential's (``password``): a secret by
    its name alone, which the message masks wherever it quotes it."""
    from ..vocabulary._secrets import is_credential_name_for_scan

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


TRUNCATED = "io.issues-truncated"
_WORDS = {"error": "error(s)", "warning": "warning(s)", "info": "info"}


def truncation(overflow: Overflow) -> Finding:
    """The ``io.issues-truncated`` finding that counts ``overflow``: at the highest severity it counts, so that the
    verdict never depends on what is shown."""
    return Finding("", TRUNCATED, truncated(overflow), overflow.severity, hidden=overflow.groups)


def truncated(overflow: Overflow) -> str:
    """The message of ``io.issues-truncated``: how many issues are not shown, of which severities and codes."""
    parts = []
    for severity in ("error", "warning", "info"):
        groups = [(code, number) for code, shown, number in overflow.groups if shown == severity]
        if not groups:
            continue
        unseen = [number for code, number in groups if code == UNSEEN]
        names = [code for code, _ in groups if code != UNSEEN] + (
            ["schema errors not looked for"] if any(unseen) else []
        )
        part = f"{'at least ' if unseen else ''}{sum(number for _, number in groups)} {_WORDS[severity]}"
        parts.append(f"{part} ({', '.join(names)})" if names else part)
    more = overflow.more
    message = (
        f"{'at least ' if more else ''}{overflow.count} more issue(s) in this file are not shown: {', '.join(parts)}"
    )
    if more:  # schema validation stopped looking: how many more there are is not known
        message += "; the check stops looking past the limit"
    return f"{message} (see --max-issues)"


def reconfigured(
    issues: Sequence[Issue], configure: Callable[[tuple[Issue, ...]], tuple[Issue, ...]]
) -> tuple[Issue, ...]:
    """``issues`` as a configuration leaves them (``configure``: its filter, which may drop issues and change their
    severity), in their order, each truncation line judged again on what it counts.

    A truncation line counts codes at severities: each of them goes through the same filter (as an issue of that
    code, severity and file), and the line takes the highest severity left, or goes where nothing is left. A line
    that still counts an error is kept whatever the configuration says of ``io.issues-truncated`` itself (ignoring
    the line would not make what it hides valid); any other goes through the filter as any issue does.
    """
    found: list[Issue] = []
    pending: list[Issue] = []
    for issue in issues:
        if issue.code != TRUNCATED or not issue.hidden:
            pending.append(issue)
            continue
        found.extend(configure(tuple(pending)))
        pending = []
        overflow = _reconfigured(issue, configure)
        if not overflow.groups:
            continue
        line = truncation(overflow)
        judged = attrs.evolve(issue, severity=line.severity, message=line.message, hidden=line.hidden)
        found.extend([judged] if line.severity == "error" else configure((judged,)))
    found.extend(configure(tuple(pending)))
    return tuple(found)


# The codes a schema search may give: what a configuration is asked about for the schema errors not looked at.
_SEARCHED = (*(code for code in CODES if code.startswith("schema.")), "security.path-escape")


def _reconfigured(cut: Issue, configure: Callable[[tuple[Issue, ...]], tuple[Issue, ...]]) -> Overflow:
    counts: Counter[tuple[str, Severity]] = Counter()
    for code, severity, number in cut.hidden:
        probes = tuple(
            Issue(file=cut.file, kind=cut.kind, severity=severity, code=each, message="")
            for each in (_SEARCHED if code == UNSEEN else (code,))
        )
        left = [probe.severity for probe in configure(probes)]
        if not left:
            continue
        if code == UNSEEN:  # not looked at: as severe as any code a search could have found
            counts[code, "error" if "error" in left else "warning" if "warning" in left else "info"] += number
        else:
            counts[code, left[0]] += number
    return Overflow.of(counts)
