"""Reporters: a Report -> text for people, JSON for programs."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO
from urllib.parse import quote as quote_uri

from ._codes import CODES
from ._issues import Issue
from ._text import json_text, printable
from ._version import __version__
from .checking._collect import Report
from .reading._bounded import open_regular

if TYPE_CHECKING:
    from .tasks._migrate import Migration

CONTEXT_WIDTH = 100


def text(
    report: Report, out: TextIO, *, context: bool = True, strict: bool = False, show_info: bool = False
) -> None:
    """One line per issue (info only with ``show_info``), then the verdict and the counts."""
    shown = [issue for issue in report.issues if show_info or issue.severity != "info"]
    sources = _SourceLines()
    for issue in shown:
        where = printable(issue.file, controls=True) if issue.file else "<document>"
        if issue.line is not None:
            where = f"{where}:{issue.line}:{issue.column}"
        out.write(f"{where}: {issue.severity} {issue.code} {printable(issue.message, controls=True)}\n")
        if context:
            out.writelines(_context(issue, sources))
    sources.close()
    errors, warnings, notes = _counts(report)
    verdict = "valid" if _valid(report, strict) else "invalid"
    skipped = f", {report.skipped} other file(s) skipped" if report.skipped else ""
    hidden = " (shown with --show-info)" if notes and not show_info else ""
    info = f", {notes} info{hidden}" if notes else ""
    out.write(
        f"{verdict}: {report.checked} file(s) checked{skipped}; {errors} error(s), {warnings} warning(s){info}\n"
    )
    if len(report.kinds) > 1:
        out.write("  files: " + ", ".join(f"{kind} {count}" for kind, count in report.kinds) + "\n")
    if shown:
        codes = Counter(issue.code for issue in shown)
        out.write("  issues: " + ", ".join(f"{code} {count}" for code, count in sorted(codes.items())) + "\n")


def _counts(report: Report) -> tuple[int, int, int]:
    """Errors, warnings and info."""
    found = Counter(issue.severity for issue in report.issues)
    return found["error"], found["warning"], found["info"]


# The checks `abv3 check -l1` names, and which issues belong to each.
L1_CHECKS = ("agentbeats.toml", "self-description", "dependencies", "run configs", "results")
_RESULT_CODES = frozenset({"layout.orphan-results", "layout.missing-results"})


def _l1_check_of(issue: Issue, repository: Path) -> str:
    relative = Path(os.path.relpath(issue.file or "", repository)).as_posix()
    if relative == "agentbeats.toml":
        if issue.code.startswith(("json.", "toml.", "io.")) or not issue.pointer:
            return "agentbeats.toml"
        if issue.pointer.startswith("/dependency"):
            return "dependencies"
        if issue.pointer.startswith("/run_configs"):
            return "run configs"
        if issue.pointer.startswith("/results"):
            return "results"
        return "self-description"
    if issue.code in _RESULT_CODES or relative.endswith("results.json"):
        return "results"
    return "run configs"


def l1_summary(report: Report, repository: Path, out: TextIO) -> None:
    """One line per check, as the spec's `abv3 check -l1` prints them; a check that could not run says so."""
    counts: dict[str, Counter[str]] = {check: Counter() for check in L1_CHECKS}
    not_run: set[str] = set()
    for issue in report.issues:
        check = _l1_check_of(issue, repository)
        counts[check][issue.severity] += 1
        if _prevents(issue):
            # Nothing past an unreadable agentbeats.toml can be checked; an unreadable folder stops its own check.
            not_run.update(L1_CHECKS[1:] if check == "agentbeats.toml" else (check,))
    out.write(f"ABV3-L1 check of {printable(str(repository), controls=True)}\n")
    for check in L1_CHECKS:
        found = counts[check]
        parts = [
            f"{found[severity]} {severity}{'' if found[severity] == 1 else 's'}"
            for severity in ("error", "warning")
            if found[severity]
        ]
        verdict = ", ".join(parts) if parts else "ok"
        if check in not_run:
            verdict = f"not run ({verdict})" if parts else "not run"
        out.write(f"  {check:<18} {verdict}\n")
    out.write("\n")


def _prevents(issue: Issue) -> bool:
    """An error after which a check cannot run: its input is missing, unreadable or cannot be parsed."""
    if issue.severity != "error":
        return False
    if issue.code.startswith("io.") or issue.code in ("layout.missing-file", "security.symlink"):
        return not issue.pointer
    return issue.code.startswith("toml.") and issue.code != "toml.type"


class Progress:
    """A bar with files per second on a terminal's stderr, for trees of more than a few hundred files."""

    THRESHOLD = 300

    def __init__(self, stream: TextIO, total: int) -> None:
        self.stream = stream
        self.total = total
        self.started = time.monotonic()
        self.shown = 0.0

    @classmethod
    def for_terminal(cls, stream: TextIO, paths: Iterable[Path]) -> Progress | None:
        if not stream.isatty():
            return None
        total = sum(len(files) for path in paths if path.is_dir() for _, _, files in os.walk(path))
        return cls(stream, total) if total > cls.THRESHOLD else None

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if now - self.shown < 0.2 and done < self.total:
            return
        self.shown = now
        rate = done / max(now - self.started, 1e-6)
        filled = int(30 * min(done / max(self.total, 1), 1))
        self.stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{self.total} files, {rate:,.0f} files/s")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\r" + " " * 78 + "\r")
        self.stream.flush()


def _context(issue: Issue, sources: _SourceLines) -> Iterator[str]:
    """The offending source line with a caret under the column, as compilers show it."""
    if issue.pointer:
        yield f"    at {printable(issue.pointer, controls=True)}\n"
    if issue.file is None or issue.line is None or issue.column is None:
        return
    if issue.code == "security.secret":
        return  # the source line would show the secret the message masks
    line = sources.line(issue.file, issue.line)
    if line is None:
        return
    column = issue.column - 1
    start = max(0, min(column - CONTEXT_WIDTH // 2, len(line) - CONTEXT_WIDTH))
    # Control characters of the file are shown escaped: they must not drive the terminal
    before = printable(line[start:column].replace("\t", " "), controls=True)
    after = printable(line[column : start + CONTEXT_WIDTH].replace("\t", " "), controls=True)
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + CONTEXT_WIDTH < len(line) else ""
    number = str(issue.line)
    pad = " " * len(number)
    yield f"    {pad} |\n"
    yield f"    {number} | {prefix}{before}{after}{suffix}\n"
    yield f"    {pad} | {' ' * (len(prefix) + len(before))}^\n"


class _SourceLines:
    """Source lines of one file at a time, read forward through the one opener: issues come sorted by file and
    line, so a file's lines are read once for all its issues (a thousand issues on one long line read it once)."""

    def __init__(self) -> None:
        self.file: str | None = None
        self.stream: TextIO | None = None
        self.number = 0
        self.last: str | None = None

    def line(self, file: str, number: int) -> str | None:
        if file != self.file or number < self.number or self.stream is None:
            self.close()
            self.file = file
            try:  # a file swapped for a FIFO or a link since it was checked is not read
                with open_regular(file) as descriptor:
                    self.stream = open(os.dup(descriptor), encoding="utf-8", errors="replace", newline="")  # noqa: SIM115
            except OSError:
                return None
        try:
            while self.number < number:
                self.last = next(self.stream, None)
                self.number += 1
                if self.last is None:
                    self.close()
                    return None
        except OSError:
            self.close()
            return None
        found = self.last
        if found is None:
            return None
        return found.rstrip("\r\n").lstrip("\ufeff") if number == 1 else found.rstrip("\r\n")

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
        self.file, self.stream, self.number, self.last = None, None, 0, None


def json_report(report: Report, out: TextIO, *, strict: bool = False) -> None:
    document = {
        "valid": _valid(report, strict),
        "checked": report.checked,
        "issues": [_printable_dict(issue) for issue in report.issues],
    }
    out.write(json_text(json.dumps(document, ensure_ascii=False, indent=2)) + "\n")


def _printable_dict(issue: Issue) -> dict[str, str | int | None]:
    """The issue's JSON form with every string valid UTF-8 (names that are not UTF-8, lone surrogates escaped)."""
    return {name: printable(value) if isinstance(value, str) else value for name, value in issue.as_dict().items()}


def _valid(report: Report, strict: bool) -> bool:
    """No error, and with ``strict`` no warning either; info never fails a check."""
    if strict:
        return not any(issue.severity in ("error", "warning") for issue in report.issues)
    return report.valid


def github(report: Report, out: TextIO) -> None:
    """GitHub Actions workflow commands: each issue shows inline on the pull request."""
    for issue in report.issues:
        properties = [f"file={_escape_property(printable(issue.file or '', controls=True))}"]
        if issue.line is not None:
            properties += [f"line={issue.line}", f"col={issue.column}"]
        properties.append(f"title={_escape_property(issue.code)}")
        where = f" (at {issue.pointer})" if issue.pointer else ""
        command = _GITHUB_COMMANDS[issue.severity]
        message = printable(issue.message + where, controls=True)
        out.write(f"::{command} {','.join(properties)}::{_escape_data(message)}\n")
    errors, warnings, notes = _counts(report)
    info = f", {notes} info" if notes else ""
    out.write(f"{report.checked} file(s) checked; {errors} error(s), {warnings} warning(s){info}\n")


_GITHUB_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}
_SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def sarif(report: Report, out: TextIO, *, base: Path | None = None) -> None:
    """SARIF 2.1.0: one run, a rule per code, results with their region (columns count code points)."""
    codes = sorted({issue.code for issue in report.issues})
    index = {code: position for position, code in enumerate(codes)}
    rules = [
        {
            "id": code,
            "name": "".join(part.capitalize() for part in code.replace(".", "-").split("-")),
            "shortDescription": {"text": CODES[code].meaning},
            "defaultConfiguration": {"level": _SARIF_LEVELS[CODES[code].severity]},
        }
        for code in codes
    ]
    results = []
    for issue in report.issues:
        physical: dict[str, object] = {"artifactLocation": {"uri": _uri(issue.file, base)}}
        if issue.line is not None:
            physical["region"] = {"startLine": issue.line, "startColumn": issue.column}
        location: dict[str, object] = {"physicalLocation": physical}
        if issue.pointer:
            location["logicalLocations"] = [{"fullyQualifiedName": printable(issue.pointer), "kind": "member"}]
        results.append(
            {
                "ruleId": issue.code,
                "ruleIndex": index[issue.code],
                "level": _SARIF_LEVELS[issue.severity],
                "message": {"text": printable(issue.message)},
                "locations": [location],
            }
        )
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "agentbeats-spec",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    out.write(json_text(json.dumps(document, ensure_ascii=False, indent=2)) + "\n")


def _uri(file: str | None, base: Path | None) -> str:
    """A relative URI for files below ``base`` (the working folder), as code-scanning services expect.

    Percent-encoded from the name's bytes, so that a name that is not UTF-8 still makes a valid URI; no link is
    resolved (a link's target is never shown).
    """
    if not file:
        return ""
    path = Path(os.path.abspath(file))
    root = Path(os.path.abspath(base or Path.cwd()))
    try:
        relative = path.relative_to(root)
    except ValueError:
        return "file://" + quote_uri(os.fsencode(path.as_posix()))
    return quote_uri(os.fsencode(relative.as_posix()))


def migration(done: Migration, out: TextIO) -> None:
    """What ``migrate`` did: a line per task converted or refused, then the counts."""
    would = "would convert" if done.dry_run else "converted"

    def shown(text: str) -> str:
        return printable(text, controls=True)

    for old, new in done.converted:
        out.write(f"{would:<13}  {shown(old.as_posix())} -> {shown(new.as_posix())}\n")
    for refused in done.refused:
        out.write(f"{'refused':<13}  {shown(refused.task.as_posix())}: {shown(refused.reason)}\n")
    where = "(dry run, nothing written)" if done.dry_run else f"in {shown(str(done.run))}"
    out.write(
        f"{len(done.converted)} converted, {len(done.already_v3)} already v3, {len(done.refused)} refused {where}\n"
    )
