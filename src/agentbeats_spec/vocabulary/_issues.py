"""Issues, the findings they are made from, and the package's exceptions."""

from __future__ import annotations

import enum
import errno
import os
from collections.abc import Iterable, Sequence
from typing import Any, cast

import attrs

from ._codes import CODES, Severity, check_code
from ._text import printable

# What an ``io.issues-truncated`` line counts: (code, severity, count) of the findings past the limit, sorted.
# UNSEEN stands for schema errors a search did not look at (it stops one error past the limit): their codes are
# not known, and any of them may be an error.
Hidden = tuple[tuple[str, Severity, int], ...]
UNSEEN = "schema.*"
_SEVERITIES = ("error", "warning", "info")


def hidden_groups(value: Iterable[Any]) -> Hidden:
    """The converter of ``Issue.hidden``: the groups as tuples, each checked (an entry of the verdict cache is read
    back through it; a wrong shape raises TypeError or ValueError)."""
    if not value:
        return ()
    groups = []
    for group in value:
        code, severity, count = group  # exactly three, or ValueError
        if not isinstance(code, str) or (code != UNSEEN and code not in CODES) or severity not in _SEVERITIES:
            raise ValueError(f"not a group of hidden issues: {group!r}")
        if type(count) is not int or count < 0:
            raise TypeError(f"not a count of hidden issues: {count!r}")
        groups.append((code, cast(Severity, severity), count))
    return tuple(groups)


class Anchor(enum.Enum):
    """Which text an issue's line and column point at."""

    VALUE = "value"  # the value the pointer names
    KEY = "key"  # the member name (unexpected or duplicated members)
    PARENT = "parent"  # the enclosing object's value (missing members)


@attrs.frozen
class Finding:
    """An issue before it has a file, a kind and a position.

    Readers, schema validation, rules and layouts all produce findings; the one place that turns
    them into :class:`Issue` objects resolves every position of a file in one pass.
    """

    pointer: str
    code: str = attrs.field(validator=check_code)  # a code of the table, at a severity it allows
    message: str
    severity: Severity = "error"
    anchor: Anchor = Anchor.VALUE
    # Set by readers that already know where the problem is (syntax errors, bad bytes).
    line: int | None = None
    column: int | None = None
    # A security.secret finding's (type, SHA-1 of the secret): what a .secrets.baseline names it by. Never shown.
    secret_id: tuple[str, str] | None = attrs.field(default=None, eq=False, repr=False)
    # An io.issues-truncated finding's count of what it stands for (see Hidden).
    hidden: Hidden = attrs.field(default=(), eq=False, repr=False)


@attrs.frozen(order=False, kw_only=True)
class Issue:
    """One problem found in one file.

    ``pointer`` is an RFC 6901 JSON Pointer into the document (``""`` for the file as a whole);
    ``line`` and ``column`` are 1-based and count characters, and are ``None`` where no place in a text is
    known (an already parsed mapping, an issue about a file or folder as a whole). ``severity`` is ``error``,
    ``warning`` or ``info``. Built by keyword only: eight fields in a row are too easy to swap.
    """

    file: str | None
    kind: str | None = None
    pointer: str = ""
    line: int | None = None
    column: int | None = None
    severity: Severity
    code: str = attrs.field(validator=check_code)  # a code of the table, at a severity it allows
    message: str
    # A security.secret issue's (type, SHA-1 of the secret), which scan --baseline matches; in no report.
    secret_id: tuple[str, str] | None = attrs.field(default=None, eq=False, repr=False)
    # An io.issues-truncated issue's count of what it stands for (see Hidden): what a configuration judges again
    # (checking._examine.reconfigured); its message says the same to people.
    hidden: Hidden = attrs.field(default=(), converter=hidden_groups, eq=False, repr=False)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file or "", self.line or 0, self.column or 0, self.pointer, self.code)

    def as_dict(self) -> dict[str, str | int | None]:
        """The JSON report form of this issue."""
        return {
            "file": self.file,
            "kind": self.kind,
            "pointer": self.pointer,
            "line": self.line,
            "column": self.column,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
        }

    def heading(self) -> str:
        """``file:line:column: severity code message``, escaped (a name that is not UTF-8, a control character;
        a relative path that would start the line with ``::`` or ``-`` as ``./path``): the text report's line, which
        shows the pointer under it."""
        where = self.file or "<document>"
        if self.line is not None:
            where = f"{where}:{self.line}:{self.column}"
        return printable(f"{where}: {self.severity} {self.code} {self.message}", controls=True, path=True)

    def __str__(self) -> str:
        at = f" (at {printable(self.pointer, controls=True)})" if self.pointer else ""
        return f"{self.heading()}{at}"


def fails(severities: Iterable[Severity], *, strict: bool = False) -> bool:
    """Whether findings of these severities fail a check: an error does, a warning only with ``strict``, info never.

    The one rule behind every verdict: the exit code, the reports' ``valid`` and summary, what ``load`` refuses.
    """
    failing = ("error", "warning") if strict else ("error",)
    return any(severity in failing for severity in severities)


@attrs.frozen
class Fact:
    """A value one unit of a tree found that a rule spanning units needs, and where it was found.

    Units are checked apart (in other processes, on other machines); the rules that compare units (a
    ``case_id`` used twice in an ABB tree, say) run afterwards over the facts of every unit, so no unit ever
    reads another's files. ``rule`` names the rule that reads the fact, ``scope`` the folder the rule spans
    (an ABB tree, a run); the rest is where an issue about the fact would point.
    """

    rule: str
    scope: str
    value: str
    file: str
    kind: str | None = None
    pointer: str = ""
    line: int | None = None
    column: int | None = None


class SpecError(Exception):
    """The base of every exception this package raises on purpose."""


class UnknownKind(SpecError, LookupError):
    """A kind name that the package does not know was asked for, or a schema ``version`` its kind does not have.

    ``known`` lists the known kinds, or, when ``version`` is given, the kind's known versions.
    """

    def __init__(self, kind: str, known: Sequence[str], *, version: str | None = None) -> None:
        self.kind = kind
        self.version = version
        self.known = tuple(known)
        if version is None:
            super().__init__(f"unknown kind {kind!r}; known kinds: {', '.join(self.known)}")
        else:
            super().__init__(f"{kind} has no schema version {version!r}; its versions: {', '.join(self.known)}")


class InvalidDocument(SpecError, ValueError):
    """A document could not be loaded or written because it has errors.

    ``issues`` holds every issue found (errors and warnings), sorted by position.
    """

    def __init__(self, issues: Sequence[Issue]) -> None:
        self.issues = tuple(issues)
        errors = [issue for issue in self.issues if issue.severity == "error"]
        # No error, yet nothing to load (a FIFO named, say: a warning, and no document): the issues say why.
        listed = errors or list(self.issues)
        shown = "\n".join(f"  {issue}" for issue in listed[:10])
        more = f"\n  ... and {len(listed) - 10} more" if len(listed) > 10 else ""
        head = f"{len(errors)} error(s)" if errors else "no document to load"
        super().__init__(f"{head}:\n{shown}{more}")


class WriteError(SpecError, OSError):
    """A file could not be written: ``cannot write TARGET: reason``.

    Also an :class:`OSError` with the ``errno`` and ``filename`` (the target) of the failure; the previous file,
    if there was one, is as it was, and no temporary file is left.
    """

    @classmethod
    def of(cls, target: os.PathLike[str] | str, error: OSError) -> WriteError:
        reason = error.strerror or str(error)
        folder = os.path.dirname(os.fspath(target)) or "."
        if error.errno == errno.ENOENT and not os.path.isdir(folder):
            reason = f"the folder {folder} does not exist"
        written = cls(error.errno, f"cannot write {os.fspath(target)}: {reason}")
        written.filename = os.fspath(target)
        return written

    def __str__(self) -> str:
        return str(self.strerror)


class UnconvertibleAttempt(InvalidDocument):
    """A v2 attempt that AgentCompass 1.0.1 cannot convert, so it refuses to read the task.

    ``attempt`` is the attempt number, ``reason`` says why; ``task`` the task's id and ``file`` the attempt's
    ``result.json`` (each ``None`` when not known); ``issues`` holds every issue of the task.
    """

    def __init__(
        self, attempt: str, reason: str, issues: Sequence[Issue], *, task: str | None = None, file: str | None = None
    ) -> None:
        self.attempt = attempt
        self.reason = reason
        self.task = task
        self.file = file
        super().__init__(issues)
        where = ", ".join([*([f"task {task!r}"] if task is not None else []), *([file] if file is not None else [])])
        said = f"attempt {attempt} cannot be converted from agentcompass.task.v2: {reason}"
        self.args = (f"{said} ({where})" if where else said,)

    def __str__(self) -> str:
        return str(self.args[0])


class ArtifactsUnavailable(SpecError):
    """Collected artifacts of a record cannot be copied into the run it is written to; nothing was written."""

    def __init__(self, attempt: str, path: os.PathLike[str], reason: str) -> None:
        self.attempt = attempt
        self.path = path
        self.reason = reason
        super().__init__(f"attempt {attempt}: {path}: {reason}; nothing was written")
