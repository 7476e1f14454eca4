"""``validate --baseline`` and ``--write-baseline``: the issues a project knows of and has chosen to fix later.

A baseline is a JSON file::

    {"agentbeats-spec-baseline": 1,
     "issues": [{"fingerprint": "3f0c…", "code": "schema.enum", "file": "runs/a/task.json", "pointer": "/status"}]}

An issue's fingerprint is the SHA-256 (first 16 hex digits) of its code, its file (relative to the baseline's
folder, with ``/``), its pointer and its message: never its line or column, so that a known issue stays known
when lines move above it. An issue is known while the baseline holds its fingerprint; each entry covers one issue
(two identical issues need two entries). ``code``, ``file`` and ``pointer`` are there for people reading it.

Why not the secret scan's baseline (``credentials/_baseline``): that one is detect-secrets' own file format, so that
one file serves both tools; it names findings by the secret's hash, which issues do not have.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import attrs

from ..checking._collect import Report
from ..reading import _documents
from ..reading._trusted import read_trusted
from ..vocabulary._issues import Issue, SpecError

FORMAT = "agentbeats-spec-baseline"
VERSION = 1


def fingerprint(issue: Issue, root: Path) -> str:
    """The issue's name in a baseline kept in ``root``: stable across line moves."""
    import hashlib  # lazy: loads OpenSSL, which a run without a baseline does not need

    parts = (issue.code, _relative(issue.file, root), issue.pointer, issue.message)
    joined = "\0".join(parts).encode("utf-8", "surrogatepass")
    return hashlib.sha256(joined).hexdigest()[:16]


def _relative(file: str | None, root: Path) -> str:
    if not file:
        return ""
    absolute = Path(os.path.abspath(file))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return absolute.as_posix()


@attrs.frozen
class Known:
    """The fingerprints a baseline holds, each as many times as it names it."""

    path: Path
    fingerprints: Counter[str]

    def unknown(self, report: Report) -> tuple[Report, int]:
        """The report less the issues the baseline knows, and how many those were."""
        left = Counter(self.fingerprints)
        root = Path(os.path.abspath(self.path.parent))
        kept = []
        for issue in report.issues:
            name = fingerprint(issue, root)
            if left[name] > 0:
                left[name] -= 1
            else:
                kept.append(issue)
        return attrs.evolve(report, issues=tuple(kept)), len(report.issues) - len(kept)


def read(path: Path) -> Known:
    """A baseline file: a missing or malformed one is a usage error naming it (with its line and column where the
    text is at fault), whatever it holds: nesting past --max-depth is a fault of the file like any other."""
    try:
        # never a FIFO or a device, bounded; never one another user could have written (Untrusted: exit 2)
        raw = read_trusted(path, "baseline", follow=True)
    except FileNotFoundError:
        raise SpecError(f"no baseline {path}: write one with --write-baseline {path}") from None
    except OSError as error:
        raise SpecError(f"cannot read the baseline {path}: {error}") from None
    document = _documents.read(raw, "json")
    if not document.readable:
        where, reason = _documents.why_unreadable(document)
        raise SpecError(f"{path}{where}: not an agentbeats-spec baseline: {reason}")
    data = document.data
    entries = data.get("issues") if isinstance(data, dict) and data.get(FORMAT) == VERSION else None
    if not isinstance(entries, list) or not all(
        isinstance(entry, dict)
        and isinstance(entry.get("fingerprint"), str)
        and _FINGERPRINT.fullmatch(entry["fingerprint"])
        for entry in entries
    ):
        raise SpecError(
            f'{path} is not an agentbeats-spec baseline: expected an object with "{FORMAT}": {VERSION} and "issues", '
            "a list of objects with a fingerprint (16 hexadecimal digits), as --write-baseline writes it"
        )
    return Known(path, Counter(entry["fingerprint"] for entry in entries))


_FINGERPRINT = re.compile("[0-9a-f]{16}")


def of(issues: Iterable[Issue], path: Path) -> Known:
    """The baseline that :func:`written` makes of these issues, as :func:`read` would read it back from ``path``."""
    root = Path(os.path.abspath(path.parent))
    return Known(path, Counter(fingerprint(issue, root) for issue in issues))


def written(issues: Iterable[Issue], path: Path) -> bytes:
    """The baseline of these issues, to be kept at ``path``: sorted, so that it changes only where they do."""
    root = Path(os.path.abspath(path.parent))
    entries = sorted(
        (
            {
                "fingerprint": fingerprint(issue, root),
                "code": issue.code,
                "file": _relative(issue.file, root),
                "pointer": issue.pointer,
            }
            for issue in issues
        ),
        key=lambda entry: (entry["file"], entry["pointer"], entry["code"], entry["fingerprint"]),
    )
    document = {FORMAT: VERSION, "issues": entries}
    return (json.dumps(document, indent=2, ensure_ascii=True) + "\n").encode("ascii")
