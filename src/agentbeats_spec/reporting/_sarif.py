"""The sarif format: SARIF 2.1.0, for code scanning."""

from __future__ import annotations

import json
from typing import TextIO

from ..checking._collect import Report
from ..vocabulary._codes import CODES
from ..vocabulary._issues import Issue
from ..vocabulary._text import json_text, printable
from ..vocabulary._version import __version__
from ._links import _uri, code_url, project_url
from ._options import DEFAULT, Options, _configuration
from ._source_lines import _secret_lines, _SourceLines

_SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


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
                "tool": {"driver": _driver(rules)},
                "invocations": [_invocation(report, options)],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    out.write(json_text(json.dumps(document, ensure_ascii=False, indent=2)) + "\n")


def _driver(rules: list[dict[str, object]]) -> dict[str, object]:
    """The tool: its name and version, and its address only where the project publishes one (_links)."""
    driver: dict[str, object] = {"name": "agentbeats-spec", "version": __version__, "semanticVersion": __version__}
    address = project_url()
    if address is not None:
        driver["informationUri"] = address
    return {**driver, "rules": rules}


def _sarif_rule(code: str) -> dict[str, object]:
    """A code as a SARIF rule: its meaning, the severities it is reported at, and where it is explained: its row
    of docs/codes.md where the project publishes its documentation's address, else the help says where to look."""
    entry = CODES[code]
    severities = f"{entry.severity}; {entry.when}" if entry.also else entry.severity
    full = f"{entry.meaning} Reported as: {severities}."
    link = code_url(code)
    rule: dict[str, object] = {
        "id": code,
        "name": "".join(part.capitalize() for part in code.replace(".", "-").split("-")),
        "shortDescription": {"text": entry.meaning},
        "fullDescription": {"text": full},
    }
    if link is None:
        where = f"docs/codes.md of agentbeats-spec {__version__}"
        rule["help"] = {"text": f"{full} See {where}.", "markdown": f"{full} See `{code}` in {where}."}
    else:
        rule["help"] = {"text": f"{full} See {link}", "markdown": f"{full} See [`{code}` in docs/codes.md]({link})."}
        rule["helpUri"] = link
    return {**rule, "defaultConfiguration": {"level": _SARIF_LEVELS[entry.severity]}}


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
