"""``scan --baseline``: a team's reviewed findings, kept in detect-secrets' ``.secrets.baseline`` format.

The format is detect-secrets 1.5.0's (``core/baseline.py``, ``core/potential_secret.py``)::

    {"version": "1.5.0", "plugins_used": [...], "filters_used": [...],
     "results": {FILENAME: [{"type": ..., "filename": FILENAME, "hashed_secret": SHA-1 of the secret,
                             "is_verified": false, "line_number": 3, "is_secret": false}]},
     "generated_at": "2026-12-01T14:00:00Z"}

A finding is known when the baseline holds an entry of its file with its ``hashed_secret`` (the type is not
compared: detect-secrets and this scan name some shapes differently, and the hash is the secret). Line numbers are
for people: they change as a file is edited and are not compared.

Writing keeps what a person said of an entry (``is_secret``, ``is_verified``) and every member this scan does not
use (``plugins_used``, ``filters_used``, and any other), replaces the entries of the files that were scanned by what
the scan found now, and keeps the entries of files it did not search. The bytes are the caller's to write atomically.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from ..reading import _documents
from ..reading._pointers import to_pointer
from ..reading._trusted import read_trusted
from ..vocabulary._issues import Anchor, Issue, SpecError

# The detect-secrets release whose baseline format is read and written.
FORMAT_VERSION = "1.5.0"


@attrs.frozen
class Baseline:
    """A baseline as read: its document (every member kept for the next write) and the findings it knows."""

    document: dict[str, Any]
    known: frozenset[tuple[str, str]]  # (filename, hashed_secret)

    def knows(self, issue: Issue) -> bool:
        return issue.secret_id is not None and (issue.file or "", issue.secret_id[1]) in self.known

    @property
    def entries(self) -> int:
        """How many findings it records (each file's secrets once, as detect-secrets counts them)."""
        return sum(len(found) for found in self.document["results"].values())

    @property
    def files(self) -> int:
        """How many files it records findings in."""
        return sum(1 for found in self.document["results"].values() if found)


def read(path: Path) -> Baseline:
    """The baseline in a file; :class:`SpecError` naming the file and the place for one that is not valid."""
    if not path.is_file():  # a FIFO or a device would block the read, or never end it
        raise SpecError(f"cannot read the baseline {path}: not a regular file")
    try:  # bounded, never a FIFO; never one another user could have written (Untrusted: a usage error)
        raw = read_trusted(path, "baseline")
    except OSError as error:
        raise SpecError(f"cannot read the baseline {path}: {error}") from None
    return parsed(raw, path)


def parsed(raw: bytes, path: Path) -> Baseline:
    """The baseline in these bytes (read from ``path``, or about to be written there)."""
    document = _documents.read(raw, "json")
    if not document.readable:
        where, reason = _documents.why_unreadable(document)
        raise SpecError(f"{path}{where}: not a valid .secrets.baseline: {reason}")
    problem_at = _invalid(document.data)
    if problem_at is not None:
        pointer, reason = problem_at
        line, column = document.positions([(pointer, Anchor.VALUE)]).get((pointer, Anchor.VALUE), (None, None))
        where = f":{line}:{column}" if line else ""
        at = f" (at {pointer})" if pointer else ""
        raise SpecError(f"{path}{where}: not a valid .secrets.baseline: {reason}{at}")
    data: dict[str, Any] = document.data
    known = frozenset(
        (filename, entry["hashed_secret"]) for filename, entries in data["results"].items() for entry in entries
    )
    return Baseline(data, known)


# The members of a finding, as detect-secrets reads them (PotentialSecret.load_secret_from_dict): what each must be.
_ENTRY_MEMBERS: dict[str, tuple[type, str]] = {
    "type": (str, "a string"),
    "hashed_secret": (str, "a string"),
    "filename": (str, "a string"),
    "line_number": (int, "an integer"),
    "is_verified": (bool, "a boolean"),
    "is_secret": (bool, "a boolean or null"),
}


def _fits(name: str, value: Any) -> bool:
    expected = _ENTRY_MEMBERS[name][0]
    if name == "is_secret" and value is None:
        return True
    return isinstance(value, expected) and (expected is bool or not isinstance(value, bool))


def _invalid(data: Any) -> tuple[str, str] | None:
    """Where and how a parsed document is not a baseline detect-secrets 1.5.0 could load; None when it is one."""
    if not isinstance(data, dict):
        return "", "expected a JSON object with version and results"
    if not isinstance(data.get("version"), str):
        return ("/version" if "version" in data else ""), 'expected version, a string such as "1.5.0"'
    results = data.get("results")
    if not isinstance(results, dict):
        return ("/results" if "results" in data else ""), "expected results, an object of file names"
    for filename, entries in results.items():
        if not isinstance(entries, list):
            return to_pointer(("results", filename)), "expected a list of findings"
        for index, entry in enumerate(entries):
            pointer = ("results", filename, str(index))
            if not isinstance(entry, dict):
                return to_pointer(pointer), "expected a finding (an object with type and hashed_secret)"
            missing = next((name for name in ("type", "hashed_secret") if name not in entry), None)
            if missing is not None:
                return to_pointer(pointer), f"a finding needs {missing}"
            wrong = next((name for name in _ENTRY_MEMBERS if name in entry and not _fits(name, entry[name])), None)
            if wrong is not None:
                return to_pointer((*pointer, wrong)), f"expected {wrong} to be {_ENTRY_MEMBERS[wrong][1]}"
    return None


def updated(
    baseline: Baseline | None, issues: Iterable[Issue], scanned: Sequence[Path], now: float | None = None
) -> bytes:
    """The baseline to write after a scan of ``scanned`` found ``issues``, as detect-secrets writes one."""
    old: dict[str, Any] = dict(baseline.document) if baseline is not None else {}
    old_results: dict[str, list[dict[str, Any]]] = old.get("results", {})
    labels = {
        (filename, entry["hashed_secret"]): entry for filename, entries in old_results.items() for entry in entries
    }
    roots = [str(path) for path in scanned]
    results: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}
    for filename, entries in old_results.items():
        if not any(_below(filename, root) for root in roots):  # a file this scan did not search: kept as it was
            results[filename] = {(entry["hashed_secret"], entry["type"]): entry for entry in entries}
    for issue in issues:
        if issue.secret_id is None or issue.file is None:
            continue
        kind, hashed = issue.secret_id
        known = results.setdefault(issue.file, {})
        if (hashed, kind) in known and (known[(hashed, kind)].get("line_number") or 0) <= (issue.line or 0):
            continue  # the same secret twice in a file is one entry, at its first line (as detect-secrets keeps)
        label = labels.get((issue.file, hashed), {})
        entry: dict[str, Any] = {"type": kind, "filename": issue.file, "hashed_secret": hashed}
        entry["is_verified"] = label.get("is_verified", False)
        if issue.line:
            entry["line_number"] = issue.line
        if label.get("is_secret") is not None:
            entry["is_secret"] = label["is_secret"]
        known[(hashed, kind)] = entry
    document = {
        **old,
        "version": FORMAT_VERSION,
        # The secrets were found by this scan's rules, not by detect-secrets plugins: none is named, and what a
        # detect-secrets user had configured stays.
        "plugins_used": old.get("plugins_used", []),
        "filters_used": old.get("filters_used", []),
        "results": {
            filename: sorted(entries.values(), key=lambda entry: (entry.get("line_number", 0), entry["hashed_secret"]))
            for filename, entries in sorted(results.items())
            if entries
        },
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
    }
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")


def _below(filename: str, root: str) -> bool:
    return root in (".", "") or filename == root or filename.startswith(root.rstrip("/") + "/")
