"""Resource bounds: what one file may cost, whatever it holds."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

import attrs

GIB = 1024**3


@attrs.frozen
class Limits:
    """Bounds on what validating one file may cost. Every one has a command-line option.

    ``max_file_size``: a larger file is not read (``io.too-large``), so memory stays bounded.
    ``max_depth``: deeper nesting is ``json.too-deep`` instead of a crash.
    ``max_issues``: issues reported per file; the rest are counted in one ``io.issues-truncated`` line.
    ``shown_length``: characters of a value echoed in a message.
    """

    max_file_size: int = 4 * GIB
    max_depth: int = 512
    max_issues: int = 1000
    shown_length: int = 60

    def __attrs_post_init__(self) -> None:
        for name in ("max_file_size", "max_depth", "max_issues", "shown_length"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")


# Limits is frozen, so one shared default is safe.
_current: contextvars.ContextVar[Limits] = contextvars.ContextVar(
    "agentbeats_spec_limits",
    default=Limits(),  # noqa: B039
)


def current() -> Limits:
    return _current.get()


@contextlib.contextmanager
def using(limits: Limits | None) -> Iterator[Limits]:
    """Apply ``limits`` to everything validated inside the block (the default limits when None)."""
    if limits is None:
        yield current()
        return
    token = _current.set(limits)
    try:
        yield limits
    finally:
        _current.reset(token)


# The allow-list of a secret scan running alongside validation (an _secrets.AllowList), None when secrets are not
# scanned. Kept here, with the other settings of a run, so that validating does not import the scanner.
_scan: contextvars.ContextVar[Any] = contextvars.ContextVar("agentbeats_spec_secrets", default=None)


def secrets_allow() -> Any:
    return _scan.get()


@contextlib.contextmanager
def scanning(allow: Any) -> Iterator[None]:
    """Scan every document validated inside the block for secrets (``validate --secrets``)."""
    token = _scan.set(allow)
    try:
        yield
    finally:
        _scan.reset(token)
