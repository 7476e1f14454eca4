"""What every reporter is given besides the report (:class:`Options`, :class:`Invocation`), the shape of a
reporter, and the few facts of a report that several formats state (its counts, the configuration it names)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import attrs

from ..checking._collect import Report
from ..vocabulary._text import printable


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
    functions read none). ``group`` (text, github): one line for the same finding in many files (text), at most
    a few annotations of a code (github); False: each issue on its own, as the other formats always give them.
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
    group: bool = True


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


def _counts(report: Report) -> tuple[int, int, int]:
    """Errors, warnings and info."""
    found = Counter(issue.severity for issue in report.issues)
    return found["error"], found["warning"], found["info"]


def _configuration(options: Options) -> str | None:
    """The configuration file a report names, as valid UTF-8 (None: none was used)."""
    return None if options.configuration is None else printable(options.configuration)
