"""ABB rules: the bug case (verify.case.json, and the case.json an attempt stores)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from ..reading._pointers import join
from ..vocabulary._issues import Finding
from ..vocabulary._text import quote
from ._common import is_int, unknown_members

CASE_FIELDS = (
    "case_id",
    "issue",
    "version_choice",
    "reported_version",
    "commit_version",
    "fixed_in",
    "pinned_contains_fix",
    "steps",
    "expected",
    "defect",
    "fault location",
    "Root cause",
)
ISSUE_FIELDS = ("repository", "number", "url", "state", "title", "body")
LOCATION_FIELDS = (
    "file",
    "function",
    "line_start",
    "line_end",
    "commit",
    "url",
    "role",
    "verification",
    "explanation",
)
_SPELLING = " (field names are case-sensitive; 'fault location' and 'Root cause' include a space)"


def case(data: Any) -> Iterator[Finding]:
    if not isinstance(data, dict):
        return
    yield from unknown_members(data, "", CASE_FIELDS, where="the case", note=_SPELLING)
    issue = data.get("issue")
    yield from unknown_members(issue, "/issue", ISSUE_FIELDS, where="issue")
    if isinstance(issue, dict):
        yield from _issue_url(issue)
    locations = data.get("fault location")
    if isinstance(locations, list):
        for index, location in enumerate(locations):
            pointer = join("/fault location", index)
            yield from unknown_members(location, pointer, LOCATION_FIELDS, where="a fault location")
            if isinstance(location, dict):
                start, end = location.get("line_start"), location.get("line_end")
                if is_int(start) and is_int(end) and end < start:
                    yield Finding(
                        join(pointer, "line_end"),
                        "rule.line-range",
                        f"line_end {end} is before line_start {start}",
                    )


def _issue_url(issue: dict[str, Any]) -> Iterator[Finding]:
    url, repository, number = issue.get("url"), issue.get("repository"), issue.get("number")
    if not (isinstance(url, str) and isinstance(repository, str) and is_int(number)):
        return
    segments = [segment for segment in urlsplit(url).path.split("/") if segment]
    expected = [*repository.lower().split("/"), "issues", str(number)]
    found = [segment.lower() for segment in segments[:4]]
    # GitHub serves an issue and a pull request of the same number at either address.
    if len(segments) != 4 or found[:2] != expected[:2] or found[2] not in ("issues", "pull") or found[3] != expected[3]:
        yield Finding(
            "/issue/url",
            "rule.issue-url",
            f"issue.url {quote(url)} does not point at issue {number} of {repository}; "
            f"expected …/{repository}/issues/{number}",
        )
