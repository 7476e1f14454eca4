"""What a check of many files gathers: every file's issues and facts, merged into one report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import attrs

from ..vocabulary._codes import Severity
from ..vocabulary._issues import Fact, Issue, fails
from ..vocabulary._settings import current
from ._examine import Examined


@attrs.frozen
class Report:
    """What checking some paths found: every issue, how many files were checked, of which kinds."""

    issues: tuple[Issue, ...]
    checked: int
    skipped: int = 0
    kinds: tuple[tuple[str, int], ...] = ()
    empty: tuple[str, ...] = ()  # folders named to check that held no artifact at all
    facts: tuple[Fact, ...] = ()  # what the units found for the rules spanning them (scores recomputes from them)

    def fails(self, strict: bool) -> bool:
        """Whether what was found fails the check (``_issues.fails``); ``strict``: a warning does too."""
        return fails((issue.severity for issue in self.issues), strict=strict)


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
        """Count a file (None: a file that is no artifact) and keep its issues; a file the configuration excludes
        is neither (checked for the rules that span files, it is no file checked of the report)."""
        if examined is None:
            self.skipped += 1
        elif examined.file and (excluded := current().excluded) is not None and excluded(examined.file):
            pass
        else:
            if examined.findings:
                with failing_on(examined.file or "<document>"):
                    issues = examined.issues
            else:  # a valid file: nothing to place (``issues_of`` of no findings is none)
                issues = []
            self.checked += 1
            self.kinds[label or (examined.kind.name if examined.kind else "unknown")] += 1
            self.issues.extend(issues)
        if self.progress is not None:
            self.progress(self.checked + self.skipped)
        return examined

    def about(self, path: Path, code: str, message: str, severity: Severity = "error") -> None:
        """An issue about a file or folder as a whole."""
        # The file or folder as a whole: no place in a text, so no line.
        self.issues.append(Issue(file=str(path), severity=severity, code=code, message=message))

    def fact(self, fact: Fact) -> None:
        """Keep a value that a rule spanning units needs (``application._tree_check.reduce``)."""
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
            facts=tuple(self.facts),
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


class failing_on:
    """Name the file being checked in any unexpected exception (one from an inner file is kept as it is).

    A class, not a ``contextlib.contextmanager``: it is entered for every file and unit, and a generator-based
    manager costs several times as much to enter and leave.
    """

    __slots__ = ("file",)

    def __init__(self, file: str) -> None:
        self.file = file

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: object) -> None:
        if error is None or isinstance(error, CheckFailed) or not isinstance(error, Exception):
            return  # nothing raised, or kept as it is (an inner file's CheckFailed, KeyboardInterrupt, SystemExit)
        raise CheckFailed(self.file, f"{type(error).__name__}: {error}") from error
