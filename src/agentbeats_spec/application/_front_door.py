"""The one front door: a check asked for (what, with which options) run to a :class:`Report`.

``validate()`` and ``scan()`` (``_api``), every validating command of the CLI and the Dask path
(``distributed``) come in here. :meth:`CheckRequest.settings` is where the settings of a run are put together,
and :func:`settings_applied` where they are applied, once, around the whole check (``vocabulary._settings.applied``:
:func:`run_check` runs in it, and so do ``load()`` and the commands that check through functions of their own);
from there they travel as an argument (``check_paths`` hands them to every unit, ``units._running.run_unit``
applies them in whatever process runs the unit, and a cluster runner receives them). Inside a run, ``current()``
is the one carrier of them, read by the stages below (limits when reading, the allow-list when scanning).

What is checked is a target: :class:`Paths` (files and folders of this machine), :class:`Source` (the text,
bytes or parsed mapping of one document), :class:`Stdin` (one document read from a stream), :class:`Cluster`
(paths or URLs checked on Dask, through a runner that ``distributed`` passes in: this module never imports Dask)
or :class:`Repository` (the ABV3-L1 check of one repository).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, Literal, Protocol

import attrs

from ..checking import _kinds, _sources
from ..checking._collect import Report
from ..reading._bounded import read_stream
from ..vocabulary._issues import SpecError
from ..vocabulary._settings import AllowList, Limits, Settings, applied, current
from ._tree_check import check_paths, check_repository, scan_paths

STDIN_NAME = "<stdin>"  # the file of the issues of a document read from standard input


@attrs.frozen
class CheckRequest:
    """What a check is asked to do, and with which options; every field has the default of ``validate()``.

    ``task``: ``"validate"`` (schemas, rules, layouts) or ``"scan"`` (secrets only).
    ``kind``: the artifact kind named (``--kind``), else each file's own.
    ``limits``: the bounds of one file; None keeps those applied around the call (the defaults, at the top).
    ``allow``: the secret scan's allow-list; None: secrets are not scanned (a ``"scan"`` always scans them:
    ``AllowList()`` allows nothing).
    ``verify_artifacts``: hash collected artifacts (``--no-verify-artifacts``: count and size them only).
    ``excluded``: what the configuration leaves out; None keeps what is applied around the call (nothing, at the
    top).
    ``follow_symlinks``: follow a link named among the paths (never one below them).
    ``jobs``: worker processes for a tree (or the workers of a local Dask cluster); ``cache``: the verdict cache
    (``units._cache.VerdictCache``, made from :meth:`settings`, since its key holds them); ``progress``: called
    with each number of files done.
    """

    task: Literal["validate", "scan"] = "validate"
    kind: str | None = None
    limits: Limits | None = None
    allow: AllowList | None = None
    verify_artifacts: bool = True
    excluded: Callable[[str], bool] | None = None
    follow_symlinks: bool = False
    jobs: int = 1
    cache: Any = None
    progress: Callable[[int], None] | None = None

    def settings(self) -> Settings:
        """The settings of the run this request asks for: the one place they are put together."""
        allow = self.allow if self.allow is not None or self.task == "validate" else AllowList()
        settings = current().with_limits(self.limits).with_allow(allow).with_verify_artifacts(self.verify_artifacts)
        return settings if self.excluded is None else settings.with_excluded(self.excluded)


@attrs.frozen
class Paths:
    """Files and folders of this machine; a path named twice is checked once."""

    paths: Sequence[Path]


@attrs.frozen
class Source:
    """The text or bytes of one document, or an already parsed mapping; ``name``: the file its issues name."""

    source: str | bytes | Mapping[str, Any]
    name: str | None = None


@attrs.frozen
class Stdin:
    """One document read from ``stream`` (at most ``--max-file-size`` of it), its issues on ``<stdin>``."""

    stream: BinaryIO


class ClusterRunner(Protocol):
    """What checks ``urls`` on a cluster to a report, each unit with ``settings`` (``distributed`` gives one)."""

    def __call__(self, urls: Sequence[str], kind: str | None, follow_symlinks: bool, settings: Settings) -> Report: ...


@attrs.frozen
class Cluster:
    """Paths or fsspec URLs, checked by ``run`` on a cluster."""

    urls: Sequence[str]
    run: ClusterRunner


@attrs.frozen
class Repository:
    """Exactly the ABV3-L1 check of one repository (``check-l1``)."""

    folder: Path


Target = Paths | Source | Stdin | Cluster | Repository


def settings_applied(request: CheckRequest) -> applied:
    """The settings of ``request`` applied to everything checked inside the block (``with``): the one place they
    are applied outside a unit's run. :func:`run_check` runs in it; so do the callers that check through functions
    of their own (``load()``; the commands that convert, redact or watch), which read them where they need them."""
    return applied(request.settings())


def run_check(request: CheckRequest, target: Target) -> Report:
    """The report of ``target`` checked as ``request`` asks, its settings applied around the whole check."""
    with settings_applied(request) as settings:
        if isinstance(target, Paths):
            if request.task == "scan":
                return scan_paths(target.paths, progress=request.progress, follow_symlinks=request.follow_symlinks)
            kind = _kinds.get(request.kind) if request.kind else None
            return check_paths(target.paths, kind, request.progress, request.jobs, request.follow_symlinks,
                               request.cache, settings=settings)  # fmt: skip
        if isinstance(target, Stdin):
            limit = settings.limits.max_file_size
            raw = read_stream(target.stream, limit)
            if raw is None:
                raise SpecError(f"standard input holds more than --max-file-size ({limit} bytes)")
            return _check_source(request, settings, raw, STDIN_NAME)
        if isinstance(target, Source):
            return _check_source(request, settings, target.source, target.name)
        if request.task == "scan":
            raise ValueError(f"a secret scan runs on paths and sources, not on a {type(target).__name__}")
        if isinstance(target, Cluster):
            return target.run(target.urls, request.kind, request.follow_symlinks, settings)
        return check_repository(target.folder)


def _check_source(
    request: CheckRequest, settings: Settings, source: str | bytes | Mapping[str, Any], name: str | None
) -> Report:
    """One document: its issues (on ``name`` when given), counted as one file of its kind."""
    if request.task == "scan":
        issues, label = _sources.scan_source(source, settings.allow or AllowList()), "unknown"
    else:
        examined = _sources.examine_source(source, _kinds.get(request.kind) if request.kind else None)
        issues, label = examined.issues, examined.kind.name if examined.kind is not None else "unknown"
    if name is not None:
        issues = [attrs.evolve(issue, file=name) for issue in issues]
    return Report(tuple(issues), 1, kinds=((label, 1),))
