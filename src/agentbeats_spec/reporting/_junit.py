"""The junit format: JUnit XML, as GitLab, Jenkins and Azure read test reports."""

from __future__ import annotations

import re
from typing import TextIO

from ..checking._collect import Report
from ..vocabulary._issues import Issue
from ..vocabulary._text import printable
from ._options import DEFAULT, Options


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
