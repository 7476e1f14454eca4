"""Where a report links to: the project's address and a code's row of docs/codes.md (only where the project has
published them), a checked file's line (only where the checkout's address is known), and a file's URI relative to
the working folder."""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote as quote_uri

# No address of the project is written here: a report links to one only where the installed package's metadata
# names it (pyproject.toml [project.urls], its one home), so that no link leads to a host nobody published.


@functools.lru_cache(maxsize=1)
def project_urls() -> Mapping[str, str]:
    """The addresses the installed package publishes (``Project-URL``), by label; empty when it names none."""
    from importlib import metadata  # lazy: only the formats that link (sarif, markdown) need it (start-up time)

    try:
        entries = metadata.metadata("agentbeats-spec").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return {}
    pairs = (entry.split(",", 1) for entry in entries if "," in entry)
    return {label.strip(): url.strip() for label, url in pairs if url.strip().startswith("https://")}


def project_url() -> str | None:
    """The project's address (SARIF's informationUri): its Homepage, else its Source, else its Documentation."""
    urls = project_urls()
    return urls.get("Homepage") or urls.get("Source") or urls.get("Documentation")


def code_url(code: str) -> str | None:
    """Where a code is explained: its row of codes.md under the published Documentation address (the docs/
    folder; docs/codes.md gives each row the code itself as its anchor, tools/catalog.py). None where no
    Documentation address is published: then a code is explained by its meaning, carried in the report itself."""
    documentation = project_urls().get("Documentation")
    return f"{documentation.rstrip('/')}/codes.md#{code}" if documentation else None


def link_base(given: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The URL a file's path below the working folder is appended to, to link an issue to its line: ``given``
    (--link-base), else the commit of the GitHub repository the command runs in (``GITHUB_SERVER_URL``,
    ``GITHUB_REPOSITORY``, ``GITHUB_SHA``, with the working folder's place in ``GITHUB_WORKSPACE``), else None: no
    links. A working folder outside the workspace has no address there: None."""
    if given:
        return given.rstrip("/")
    found = os.environ if environ is None else environ
    server, repository, sha, workspace = (
        found.get(name) for name in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA", "GITHUB_WORKSPACE")
    )
    if not (server and repository and sha and workspace):
        return None
    try:
        below = Path.cwd().resolve().relative_to(Path(workspace).resolve())
    except (OSError, ValueError):
        return None
    base = f"{server.rstrip('/')}/{quote_uri(repository)}/blob/{quote_uri(sha)}"
    return f"{base}/{quote_uri(os.fsencode(below.as_posix()))}" if below.parts else base


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
