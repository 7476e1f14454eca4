"""Where a report links to: the project's address, a code's row of docs/codes.md, and a file's URI relative to the
working folder."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote as quote_uri

# The one place the project's address is stated (SARIF's informationUri, every code's helpUri); docs/codes.md
# gives each code's row the code itself as its anchor (tools/catalog.py), so that these links stay stable.
PROJECT_URL = "https://github.com/agentbeats/agentbeats-spec"
CODES_URL = f"{PROJECT_URL}/blob/main/docs/codes.md"


def code_url(code: str) -> str:
    """Where a code is explained: its row of docs/codes.md."""
    return f"{CODES_URL}#{code}"


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
