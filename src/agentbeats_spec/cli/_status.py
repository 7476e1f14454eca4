"""The exit codes of the command, and how standard error shows what it names.

Exit codes: 0 nothing wrong, 1 an error (or, with ``--strict``, a warning) was found, 2 a usage problem,
3 an internal error (a bug: the message says how to report it; no traceback is printed).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..vocabulary._text import printable

EXIT_VALID, EXIT_INVALID, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def shown(text: object) -> str:
    """A path, a value or a message as stderr may show it (the one escaping, ``_text.printable``)."""
    return printable(str(text), controls=True)


def _missing(paths: Sequence[Path]) -> bool:
    missing = [str(path) for path in paths if not path.exists() and not path.is_symlink()]
    if missing:
        print(f"agentbeats-spec: error: no such file or folder: {shown(', '.join(missing))}", file=sys.stderr)
    return bool(missing)
