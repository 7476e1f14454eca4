"""The settings of a run, one frozen value: the resource bounds of every file, and the secret scan's allow-list.

Everything validated inside ``applied(settings)`` reads them with ``current()``; worker processes and Dask
workers receive the one value and apply it in turn. They are put together in one place (the front door's
``CheckRequest.settings``, ``application._front_door``) and applied in two: around a whole check (the front door's
``settings_applied``) and around each unit's run, in whatever process runs it (``units._running.run_unit``);
between the two they travel as an argument. The allow-list is a plain value here, so that naming it does not
import the scanner (``credentials``), which a run without ``--secrets`` never loads.
"""

from __future__ import annotations

import contextvars
import os
import re
from collections.abc import Callable

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


def legacy_fingerprint(secret: str) -> str:
    """What releases before keyed fingerprints named a secret by: the first 16 hex digits of its SHA-256, unkeyed.

    An allow-list entry of this form still allows its secret, so old lists keep working; it is never printed, since
    anyone can test a guessed password against it.
    """
    import hashlib  # only a secret scan needs it: a plain validate does not pay for loading OpenSSL

    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _new_key() -> bytes:
    return os.urandom(KEY_BYTES)


KEY_BYTES = 32
# An allow-list entry: a fingerprint, keyed or (from older releases) not, as the scan prints it.
_ENTRY = re.compile("[0-9a-f]{16}")


@attrs.frozen
class AllowList:
    """Fingerprints of findings a person has reviewed and accepted, one per line (``#`` starts a comment), and the
    key every fingerprint of the run is made with.

    A fingerprint is the first 16 hex digits of the HMAC-SHA-256 of the secret under ``key``: without the key, no
    guess at a secret can be tested against a fingerprint in a public log. ``lasting``: the key is kept in a file
    (beside the allow-list or the baseline), so that a fingerprint names the same secret in the next run; otherwise
    it was made for this run alone.
    """

    fingerprints: frozenset[str] = frozenset()
    key: bytes = attrs.field(factory=_new_key, repr=False)
    lasting: bool = False

    @classmethod
    def parse(cls, text: str) -> AllowList:
        """The fingerprints of an allow-list's text (the file is read by ``credentials.read_allow_list``);
        ``ValueError`` naming the line of an entry that is no fingerprint."""
        found = set()
        for number, line in enumerate(text.splitlines(), 1):
            entry = line.split("#", 1)[0].strip().lower()
            if not entry:
                continue
            if _ENTRY.fullmatch(entry) is None:
                raise ValueError(f"line {number}: expected a fingerprint (16 hexadecimal digits) or a # comment")
            found.add(entry)
        return cls(frozenset(found))

    def fingerprint(self, secret: str) -> str:
        """How a finding names its secret without showing it: keyed, so only the key's holder can test a guess."""
        import hashlib
        import hmac

        return hmac.new(self.key, secret.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:16]

    def allows(self, secret: str) -> bool:
        if not self.fingerprints:
            return False
        return self.fingerprint(secret) in self.fingerprints or legacy_fingerprint(secret) in self.fingerprints

    def identity(self) -> str:
        """What tells this key from another without saying anything of it (the verdict cache's options)."""
        return self.fingerprint("agentbeats-spec: the key's identity")


@attrs.frozen
class Settings:
    """What a run applies to every file it validates.

    ``allow``: the allow-list of the secret scan that runs alongside validation (``validate --secrets``, ``scan``),
    None when secrets are not scanned.
    ``verify_artifacts``: whether the bytes of collected artifacts are hashed and compared with the sha256 their
    manifest records (their size and file count are compared either way; ``--no-verify-artifacts``).
    ``excluded``: whether the configuration leaves a file out (None: it leaves none out); such a file is neither
    counted as checked nor reported (``checking._collect.Collector.add``).
    """

    limits: Limits = attrs.field(factory=Limits)
    allow: AllowList | None = None
    verify_artifacts: bool = True
    excluded: Callable[[str], bool] | None = None

    def with_limits(self, limits: Limits | None) -> Settings:
        """These settings with ``limits``; the same settings when None (a caller that names no limits keeps the
        run's)."""
        return self if limits is None else attrs.evolve(self, limits=limits)

    def with_allow(self, allow: AllowList | None) -> Settings:
        """These settings scanning secrets with ``allow``, or not scanning them when None."""
        return attrs.evolve(self, allow=allow)

    def with_excluded(self, excluded: Callable[[str], bool] | None) -> Settings:
        """These settings leaving out the files ``excluded`` says (None: none)."""
        return attrs.evolve(self, excluded=excluded)

    def with_verify_artifacts(self, verify: bool) -> Settings:
        """These settings hashing collected artifacts, or only counting and sizing them."""
        return attrs.evolve(self, verify_artifacts=verify)


# Settings are frozen, so one shared default is safe.
_current: contextvars.ContextVar[Settings] = contextvars.ContextVar(
    "agentbeats_spec_settings",
    default=Settings(),  # noqa: B039
)


def current() -> Settings:
    return _current.get()


class applied:
    """Apply ``settings`` to everything validated inside the block.

    A class, not a ``contextlib`` generator: every unit of a walk enters one, and a generator costs several times
    as much to enter and leave."""

    __slots__ = ("_token", "settings")

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def __enter__(self) -> Settings:
        self._token = _current.set(self.settings)
        return self.settings

    def __exit__(self, *exception: object) -> None:
        _current.reset(self._token)
