"""Reporters: a Report -> text for people, JSON for programs, GitHub workflow commands, SARIF. They only format:
what a report means (whether it fails, which L1 check an issue belongs to) is decided before they are called.

A new output format is a function of the :data:`Reporter` shape and its entry in :data:`REPORTERS`.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO
from urllib.parse import quote as quote_uri

import attrs

from ..checking._collect import Report
from ..reading._bounded import open_regular
from ..vocabulary._codes import CODES
from ..vocabulary._issues import Issue
from ..vocabulary._text import json_text, printable
from ..vocabulary._version import __version__

if TYPE_CHECKING:
    from ..layouts.abv3 import L1Check
    from ..tasks._migrate import Migration

CONTEXT_WIDTH = 100


@attrs.frozen
class Options:
    """What a reporter is asked for besides the report; each format reads the options it has a use for.

    ``strict``: a warning fails the check too; ``context`` (text): the source line under each issue; ``show_info``
    (text): info too; ``base`` (SARIF): the folder file URIs are relative to (None: the working folder);
    ``invocation`` (SARIF): how the run ended (None: a run that ended as its issues say, as the API's);
    ``quiet`` (text): only the summary, nothing when the report passes; ``color`` (text): ANSI colours for the
    severities, codes and verdict; ``link_base`` (Markdown): the URL that a file's path below the working folder
    is appended to, to link an issue to its line (``https://github.com/OWNER/REPO/blob/SHA``); None: no links.
    ``configuration`` (JSON, SARIF, Markdown): the configuration file the run used, None for none (the API's
    functions read none).
    """

    strict: bool = False
    context: bool = True
    show_info: bool = False
    base: Path | None = None
    invocation: Invocation | None = None
    link_base: str | None = None
    quiet: bool = False
    color: bool = False
    configuration: str | None = None


@attrs.frozen
class Invocation:
    """How the command that made a report ran: its exit code, and the errors that ended it early (a missing path,
    a folder with no artifact, an internal error): what SARIF records as the run's invocation. Not its command
    line: two commands that check the same files (validate, check-l1; alone or on a cluster) give the same log."""

    exit_code: int
    successful: bool
    notes: tuple[str, ...] = ()


DEFAULT = Options()
Reporter = Callable[[Report, TextIO, Options], None]


def text(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """One line per issue (info only with ``show_info``), then the verdict and the counts."""
    shown = [issue for issue in report.issues if options.show_info or issue.severity != "info"]
    fails = report.fails(options.strict)
    if options.quiet and not fails:
        return
    sources = _SourceLines(_secret_lines(report))
    for issue in [] if options.quiet else shown:
        out.write(_colored_heading(issue) + "\n" if options.color else issue.heading() + "\n")
        if options.context:
            out.writelines(_context(issue, sources))
    sources.close()
    text_summary(report, out, options)


def text_summary(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """The verdict and the counts that end the text format."""
    shown = [issue for issue in report.issues if options.show_info or issue.severity != "info"]
    fails = report.fails(options.strict)
    paint = _paint if options.color else _plain
    errors, warnings, notes = _counts(report)
    verdict = paint("invalid", _COLORS["error"]) if fails else paint("valid", _COLORS["valid"])
    skipped = f", {report.skipped} other file(s) skipped" if report.skipped else ""
    hidden = " (shown with --show-info)" if notes and not options.show_info else ""
    info = f", {notes} info{hidden}" if notes else ""
    out.write(f"{verdict}: {report.checked} file(s) checked{skipped}; {errors} error(s), {warnings} warning(s){info}\n")
    if len(report.kinds) > 1:
        out.write("  files: " + ", ".join(f"{kind} {count}" for kind, count in report.kinds) + "\n")
    if shown:
        codes = Counter(issue.code for issue in shown)
        out.write("  issues: " + ", ".join(f"{code} {count}" for code, count in sorted(codes.items())) + "\n")


_COLORS = {"error": "1;31", "warning": "33", "info": "36", "code": "1", "valid": "32"}


def _paint(text: str, color: str) -> str:
    return f"\x1b[{color}m{text}\x1b[0m"


def _plain(text: str, color: str) -> str:
    return text


def _colored_heading(issue: Issue) -> str:
    """The issue's line with its severity and code coloured (the rest is escaped as ever: no colour of a file)."""
    heading = issue.heading()
    middle = f": {issue.severity} {issue.code} "
    where = heading.find(middle)
    if where < 0:
        return heading
    severity = _paint(issue.severity, _COLORS[issue.severity])
    code = _paint(issue.code, _COLORS["code"])
    return f"{heading[:where]}: {severity} {code} {heading[where + len(middle) :]}"


def _counts(report: Report) -> tuple[int, int, int]:
    """Errors, warnings and info."""
    found = Counter(issue.severity for issue in report.issues)
    return found["error"], found["warning"], found["info"]


def l1_summary(checks: Iterable[L1Check], repository: Path, out: TextIO) -> None:
    """One line per check, as the spec's `abv3 check -l1` prints them; a check that could not run says so."""
    out.write(f"ABV3-L1 check of {printable(str(repository), controls=True)}\n")
    for check in checks:
        parts = [
            f"{count} {severity}{'' if count == 1 else 's'}"
            for severity, count in (("error", check.errors), ("warning", check.warnings))
            if count
        ]
        verdict = ", ".join(parts) if parts else "ok"
        if not check.ran:
            verdict = f"not run ({verdict})" if parts else "not run"
        out.write(f"  {check.name:<18} {verdict}\n")
    out.write("\n")


def _context(issue: Issue, sources: _SourceLines) -> Iterator[str]:
    """The offending source line with a caret under the column, as compilers show it."""
    if issue.pointer:
        yield f"    at {printable(issue.pointer, controls=True)}\n"
    if issue.file is None or issue.line is None or issue.column is None:
        return
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

    def __init__(self, hidden: frozenset[tuple[str, int]] = frozenset()) -> None:
        self.hidden = hidden  # lines never shown: they hold a secret that the messages mask
        self.file: str | None = None
        self.stream: TextIO | None = None
        self.number = 0
        self.last: str | None = None
        self.judged: tuple[int, str | None] | None = None  # the line last judged, and what of it may be shown

    def line(self, file: str, number: int) -> str | None:
        if (file, number) in self.hidden:
            return None
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
        if self.judged is not None and self.judged[0] == number:  # a thousand issues on one long line: judged once
            return self.judged[1]
        line = found.rstrip("\r\n").lstrip("\ufeff") if number == 1 else found.rstrip("\r\n")
        from ..vocabulary._secrets import shape_matches  # lazy: only a report that shows a line compiles the patterns

        # A line holding a credential shape is never shown either, with or without the scan: messages mask it.
        self.judged = (number, None if shape_matches(line) else line)
        return self.judged[1]

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
        self.file, self.stream, self.number, self.last, self.judged = None, None, 0, None, None


def _secret_lines(report: Report) -> frozenset[tuple[str, int]]:
    """The lines that hold a secret found by the scan: no issue shows them, whatever its code."""
    return frozenset(
        (issue.file, issue.line)
        for issue in report.issues
        if issue.code == "security.secret" and issue.file is not None and issue.line is not None
    )


def json_report(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """One object: ``valid`` (whether the report passes), ``checked``, every issue, and the ``configuration``
    file the run used (null: none)."""
    document = {
        "valid": not report.fails(options.strict),
        "checked": report.checked,
        "issues": [_printable_dict(issue) for issue in report.issues],
        "configuration": _configuration(options),
    }
    out.write(json_text(json.dumps(document, ensure_ascii=False, indent=2)) + "\n")


def jsonl_line(issue: Issue, **extra: bool) -> str:
    """One issue as one line of JSON (``extra``: members added to it, as ``fixed=True``)."""
    return json_text(json.dumps({**_printable_dict(issue), **extra}, ensure_ascii=False))


def _printable_dict(issue: Issue) -> dict[str, str | int | None]:
    """The issue's JSON form with every string valid UTF-8 (names that are not UTF-8, lone surrogates escaped)."""
    return {name: printable(value) if isinstance(value, str) else value for name, value in issue.as_dict().items()}


def github(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """GitHub Actions workflow commands: each issue shows inline on the pull request."""
    for issue in report.issues:
        out.write(github_line(issue) + "\n")
    github_summary(report, out)


def github_line(issue: Issue, fixed: bool = False) -> str:
    """One issue as a GitHub workflow command; ``fixed``: a notice that a later write fixed it."""
    properties = [f"file={_escape_property(issue.file or '')}"]
    if issue.line is not None:
        properties += [f"line={issue.line}", f"col={issue.column}"]
    properties.append(f"title={_escape_property(issue.code)}")
    where = f" (at {issue.pointer})" if issue.pointer else ""
    command = "notice" if fixed else _GITHUB_COMMANDS[issue.severity]
    return f"::{command} {','.join(properties)}::{_escape_data(('fixed: ' if fixed else '') + issue.message + where)}"


def github_summary(report: Report, out: TextIO) -> None:
    """The counts that end the github format."""
    errors, warnings, notes = _counts(report)
    info = f", {notes} info" if notes else ""
    out.write(f"{report.checked} file(s) checked; {errors} error(s), {warnings} warning(s){info}\n")


_GITHUB_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}
_SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF as the runner decodes them (``%25``, ``%0D``, ``%0A``), then
    every other control character (and a name that is not UTF-8) escaped, so that nothing drives the log."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"), controls=True)


def _escape_property(text: str) -> str:
    """A workflow command's property (a file name, a title): as a message, and ``:`` and ``,`` too."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def sarif(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """SARIF 2.1.0: one run, a rule per code, results with their region (columns count code points)."""
    codes = sorted({issue.code for issue in report.issues})
    index = {code: position for position, code in enumerate(codes)}
    rules = [_sarif_rule(code) for code in codes]
    results = []
    sources = _SourceLines(_secret_lines(report))
    for issue in report.issues:
        physical: dict[str, object] = {"artifactLocation": {"uri": _uri(issue.file, options.base)}}
        if issue.line is not None:
            physical.update(_regions(issue, sources))
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
    sources.close()
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "agentbeats-spec",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": PROJECT_URL,
                        "rules": rules,
                    }
                },
                "invocations": [_invocation(report, options)],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    out.write(json_text(json.dumps(document, ensure_ascii=False, indent=2)) + "\n")


def _sarif_rule(code: str) -> dict[str, object]:
    """A code as a SARIF rule: its meaning, the severities it is reported at, and where it is explained."""
    entry = CODES[code]
    severities = f"{entry.severity}; {entry.when}" if entry.also else entry.severity
    full = f"{entry.meaning} Reported as: {severities}."
    return {
        "id": code,
        "name": "".join(part.capitalize() for part in code.replace(".", "-").split("-")),
        "shortDescription": {"text": entry.meaning},
        "fullDescription": {"text": full},
        "help": {
            "text": f"{full} See {code_url(code)}",
            "markdown": f"{full} See [`{code}` in docs/codes.md]({code_url(code)}).",
        },
        "helpUri": code_url(code),
        "defaultConfiguration": {"level": _SARIF_LEVELS[entry.severity]},
    }


def _regions(issue: Issue, sources: _SourceLines) -> dict[str, object]:
    """The issue's SARIF region (from its column to the end of its line), with the text it covers as a snippet,
    and the whole line as its context region; no snippet of a line that holds a secret. A line longer
    than ``SNIPPET_WIDTH`` is cut: a one-line document is not copied whole."""
    region: dict[str, object] = {"startLine": issue.line, "startColumn": issue.column}
    if issue.file is None or issue.line is None or issue.column is None:
        return {"region": region}
    line = sources.line(issue.file, issue.line)
    if line is None:
        return {"region": region}
    region["endColumn"] = max(len(line), issue.column) + 1
    region["snippet"] = {"text": printable(line[issue.column - 1 : issue.column - 1 + SNIPPET_WIDTH])}
    if issue.column == 1 or len(line) > SNIPPET_WIDTH:
        return {"region": region}
    context = {
        "startLine": issue.line,
        "startColumn": 1,
        "endColumn": len(line) + 1,
        "snippet": {"text": printable(line)},
    }
    return {"region": region, "contextRegion": context}


SNIPPET_WIDTH = 400  # code points of a line shown as a SARIF snippet: a one-line document is not copied whole


def _invocation(report: Report, options: Options) -> dict[str, object]:
    """The SARIF invocation: whether the run could do its work (issues found are a success), why not if not."""
    given = options.invocation
    used = {"properties": {"configuration": _configuration(options)}}  # the configuration file used (null: none)
    if given is None:
        return {"executionSuccessful": True, **used}
    found: dict[str, object] = {
        "executionSuccessful": given.successful,
        "exitCode": given.exit_code,
        **used,
    }
    if given.notes:
        found["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": printable(note)}} for note in given.notes
        ]
    return found


def _configuration(options: Options) -> str | None:
    """The configuration file a report names, as valid UTF-8 (None: none was used)."""
    return None if options.configuration is None else printable(options.configuration)


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


def junit(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """JUnit XML, as GitLab, Jenkins and Azure read it: one test suite, a test case per file with issues (a failure
    per error, and per warning when strict; the rest in its ``system-out``), and one passing test case for the
    checked files that had none."""
    files: dict[str, list[Issue]] = {}
    for issue in report.issues:
        files.setdefault(issue.file or "", []).append(issue)
    failing = {"error", "warning"} if options.strict else {"error"}
    cases: list[str] = []
    failed = 0
    for file, issues in files.items():
        name = _xml_attribute(file or "(the run)")
        body = [
            f"      <failure type={_xml_attribute(issue.code)} message={_xml_attribute(issue.message)}>"
            f"{_xml_text(str(issue))}</failure>\n"
            for issue in issues
            if issue.severity in failing
        ]
        others = [str(issue) for issue in issues if issue.severity not in failing]
        if others:
            body.append(f"      <system-out>{_xml_text(chr(10).join(others))}</system-out>\n")
        failed += any(issue.severity in failing for issue in issues)
        opening = f'    <testcase classname="agentbeats-spec" name={name}'
        cases.append(f"{opening}>\n{''.join(body)}    </testcase>\n" if body else f"{opening}/>\n")
    clean = report.checked - sum(1 for file in files if file)
    if clean > 0:
        cases.append(f'    <testcase classname="agentbeats-spec" name="{clean} other file(s) checked, no issue"/>\n')
    counts = f'tests="{len(cases)}" failures="{failed}" errors="0"'
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(f'<testsuites name="agentbeats-spec" {counts}>\n')
    out.write(f'  <testsuite name="agentbeats-spec" {counts} skipped="0">\n')
    out.writelines(cases)
    out.write("  </testsuite>\n</testsuites>\n")


def _xml_text(text: str) -> str:
    """Text as XML 1.0 may hold it: every character it forbids (C0 controls but the newline, lone surrogates and
    so names that are not UTF-8, U+FFFE, U+FFFF) escaped, as XML has no form for them, not even a reference."""
    shown = "\n".join(printable(line, controls=True) for line in text.split("\n"))  # a NUL is not a newline
    shown = _NOT_XML.sub(lambda found: f"\\u{ord(found.group()):04x}", shown)
    return shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# What XML 1.0 forbids and printable leaves (it escapes the controls and surrogates): the two noncharacters.
_NOT_XML = re.compile("[\ufffe\uffff]")


def _xml_attribute(text: str) -> str:
    return '"' + _xml_text(text).replace('"', "&quot;").replace("\n", "&#10;") + '"'


MARKDOWN_ISSUES = 50  # a job summary is read by people: the first issues, and the counts of all


def markdown(report: Report, out: TextIO, options: Options = DEFAULT) -> None:
    """A job summary: the verdict, the files per kind, the issues per code, and the first issues (errors first)
    linked to their lines when ``options.link_base`` is given."""
    errors, warnings, notes = _counts(report)
    verdict = "invalid" if report.fails(options.strict) else "valid"
    out.write(f"### agentbeats-spec: {verdict}\n\n")
    skipped = f", {report.skipped} other file(s) skipped" if report.skipped else ""
    out.write(f"{report.checked} file(s) checked{skipped}; {errors} error(s), {warnings} warning(s), {notes} info\n")
    used = _configuration(options)
    out.write(f"\nConfiguration: {_markdown_code(used)}\n" if used is not None else "\nNo configuration file.\n")
    if report.kinds:
        out.write("\n| kind | files |\n| --- | ---: |\n")
        out.writelines(f"| {_markdown(kind)} | {count} |\n" for kind, count in report.kinds)
    if report.issues:
        codes = Counter((issue.code, issue.severity) for issue in report.issues)
        out.write("\n| code | severity | issues |\n| --- | --- | ---: |\n")
        out.writelines(
            f"| [`{code}`]({code_url(code)}) | {severity} | {count} |\n"
            for (code, severity), count in sorted(codes.items())
        )
        rank = {"error": 0, "warning": 1, "info": 2}
        first = sorted(report.issues, key=lambda issue: rank[issue.severity])[:MARKDOWN_ISSUES]
        more = len(report.issues) - len(first)
        out.write(f"\n#### The first {len(first)} issue(s)\n\n" if more else "\n#### Issues\n\n")
        for issue in first:  # what comes from the files (names, quoted values) in code spans: never a link
            where = _markdown_code(_place(issue))
            link = _link(issue, options.link_base)
            place = f"[{where}]({link})" if link else where
            pointer = f" (at {_markdown_code(issue.pointer)})" if issue.pointer else ""
            out.write(f"- **{issue.severity}** `{issue.code}` {place}: {_markdown_code(issue.message)}{pointer}\n")
        if more:
            out.write(f"\n… and {more} more: see the annotations or the SARIF log.\n")


# The one place the project's address is stated (SARIF's informationUri, every code's helpUri); docs/codes.md
# gives each code's row the code itself as its anchor (tools/catalog.py), so that these links stay stable.
PROJECT_URL = "https://github.com/agentbeats/agentbeats-spec"
CODES_URL = f"{PROJECT_URL}/blob/main/docs/codes.md"


def code_url(code: str) -> str:
    """Where a code is explained: its row of docs/codes.md."""
    return f"{CODES_URL}#{code}"


def _place(issue: Issue) -> str:
    file = issue.file or "(the run)"
    return f"{file}:{issue.line}:{issue.column}" if issue.line is not None else file


def _link(issue: Issue, base: str | None) -> str | None:
    """The URL of an issue's line under ``base`` (None for a file outside the working folder)."""
    if base is None or not issue.file:
        return None
    uri = _uri(issue.file, None)
    if uri.startswith("file://"):
        return None
    return f"{base.rstrip('/')}/{uri}" + (f"#L{issue.line}" if issue.line is not None else "")


_MARKDOWN_SPECIAL = str.maketrans({character: "\\" + character for character in "\\`*_[]<>|#~&!()"})


def _markdown(text: str) -> str:
    """Text shown as itself in Markdown (and in the HTML it becomes): escaped, and every markup character too."""
    return printable(text, controls=True).translate(_MARKDOWN_SPECIAL)


def _markdown_code(text: str) -> str:
    """Text as a code span, shown as it is (escaped for the terminal's sake only): no markup, no HTML, no link, no
    autolinked URL. The span is delimited by one backtick more than the longest run of backticks in the text, so
    that nothing in it can end the span; a space pads a text that begins or ends with a backtick or a space
    (CommonMark takes one space off each side)."""
    shown = printable(text, controls=True)
    longest = max((len(run) for run in _BACKTICKS.findall(shown)), default=0)
    fence = "`" * (longest + 1)
    if shown[:1] in ("`", " ") or shown[-1:] in ("`", " ") or not shown:
        shown = f" {shown} "
    return f"{fence}{shown}{fence}"


_BACKTICKS = re.compile("`+")


@attrs.frozen
class Format:
    """An output format of ``--format``: its reporter, and what it is for (the option's help)."""

    write: Reporter
    purpose: str


REPORTERS: dict[str, Format] = {
    "text": Format(text, "for people"),
    "json": Format(json_report, "for programs"),
    "github": Format(github, "for workflow annotations"),
    "sarif": Format(sarif, "for code scanning"),
    "junit": Format(junit, "for CI test reports (JUnit XML)"),
    "markdown": Format(markdown, "for a job summary"),
}


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
