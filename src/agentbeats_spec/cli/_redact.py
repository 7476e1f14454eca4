"""``redact``: a copy of a file with what scan finds in it masked."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..reading._bounded import read_bounded
from ..vocabulary._issues import SpecError
from ..vocabulary._text import printable
from ._configuration import _allow_list
from ._options import ALLOW_LIST, _limit_options
from ._status import EXIT_INVALID, EXIT_USAGE, EXIT_VALID, _missing, shown


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """The ``redact`` subcommand and its options."""
    redact_ = commands.add_parser(
        name,
        help="write a copy of a file with what scan finds replaced by ********",
        description="Redact one file: exactly what `scan` finds in it becomes ******** (a credential member's "
        "string, a credential shape inside any other string) and every other byte stays as it was, comments "
        "included; metrics, ground_truth and final_answer stay as they are. JSON and TOML documents and text "
        "files. Prints the result unless --output or --in-place is given; files are written atomically.",
    )
    redact_.set_defaults(handler=_redact)
    redact_.add_argument("path", metavar="PATH", type=Path)
    where = redact_.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", type=Path, help="write the redacted file here")
    where.add_argument("--in-place", action="store_true", help="replace the file itself")
    redact_.add_argument(
        "--allow-list",
        type=Path,
        help=f"fingerprints of reviewed findings to leave, one per line (default: ./{ALLOW_LIST} if present)",
    )
    _limit_options(redact_)


def _redact(arguments: argparse.Namespace) -> int:
    path: Path = arguments.path
    if _missing([path]):
        return EXIT_USAGE
    raw, problem = read_bounded(path)
    if problem is not None:
        raise SpecError(f"{path}: {problem.message}")
    from ..credentials import _redact  # lazy: only redact needs it (start-up time)
    from ..writing import _atomic

    content, note, kept = _redact.redact_file(path, raw, _allow_list(arguments.allow_list, arguments))
    if note is not None:
        print(f"agentbeats-spec: warning: {shown(note)}", file=sys.stderr)
    if arguments.in_place or arguments.output:
        if arguments.in_place and path.is_symlink():  # the link would be replaced, the file it names left as it was
            raise SpecError(
                f"{printable(str(path), controls=True)} is a symbolic link; --in-place would replace the link and "
                "leave the file it names unredacted: redact that file"
            )
        others = _atomic.other_names(path) if arguments.in_place and content != raw else 0
        _atomic.write_atomic(path if arguments.in_place else arguments.output, content)
        if others:  # the file was replaced, not edited: its other hard links still name the old bytes
            print(
                f"agentbeats-spec: warning: {printable(str(path), controls=True)} has {others} other hard link(s); "
                "they still hold the secrets: redact or remove them too",
                file=sys.stderr,
            )
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(content)
        sys.stdout.buffer.flush()
    # Written, but not fit to share as it is: a script must not go on as if it were.
    return EXIT_INVALID if kept else EXIT_VALID
