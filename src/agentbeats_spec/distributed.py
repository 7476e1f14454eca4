"""Validation on a Dask cluster, with the report of ``validate``: the same units, the same reduce, the same order.

The client plans the tree (names only: a remote prefix is listed once) with the local check's code and cuts it
into the same units (AgentCompass task folders, ABB case and issue folders, ABV3 repositories, loose artifact
files). Workers check the units, in batches, with the local check's code: on this machine's files (or a shared
filesystem) in place; on any other filesystem fsspec knows (``s3://``, ``gs://``, ``memory://``) they copy the
unit's own files to a temporary folder first and give the names back as URLs. The client then runs the rules that
span units (a ``case_id`` used twice in an ABB tree) over the facts the units gave back, and sorts the report as
``validate`` does. Dask recomputes the batch of a worker that dies, so no unit is lost.

Needs the ``dask`` extra on the client and on every worker: ``pip install '.[dask]'`` in a checkout of
agentbeats-spec (plus the fsspec driver of the storage, such as ``s3fs``).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from multiprocessing import resource_tracker
from pathlib import Path, PurePath, PurePosixPath
from typing import Any

import attrs

from .application._front_door import CheckRequest, Cluster, run_check
from .application._tree_check import assemble, nothing_found, plan, with_nothing_found
from .checking._collect import Part, Report
from .checking._kinds import get as get_kind
from .layouts._layout import joined, named_folder
from .units._plan import LOCAL, Listing, Unit, UnitPlan
from .units._running import run_unit
from .vocabulary._issues import Issue, SpecError
from .vocabulary._settings import Limits, Settings, current
from .vocabulary._version import __version__

__all__ = ["validate_with_dask"]

# dask, distributed and fsspec (the dask extra) are optional: each function imports what it uses, so that a missing
# extra costs nothing until it is needed, and then is a SpecError saying what to install.

# Batching units into Dask tasks (docs/performance.md, "Beyond one machine"): at most this many units per task
# keeps a 100-worker cluster's scheduler under 5% busy, and at least this many tasks per worker thread keeps
# the threads evenly loaded to the end.
MAX_UNITS_PER_TASK = 150
TASKS_PER_THREAD = 8
# The package is on no registry: the extra comes from a checkout (README, "Install"), as every hint says.
INSTALL_DASK = "pip install '.[dask]' in a checkout of agentbeats-spec"


def validate_with_dask(
    url: str | os.PathLike[str],
    *,
    client: Any = None,
    storage_options: Mapping[str, Any] | None = None,
    kind: str | None = None,
    limits: Limits | None = None,
    follow_symlinks: bool = False,
    npartitions: int | None = None,
    allow_empty: bool = False,
    verify_artifacts: bool = True,
    **compute: Any,
) -> list[Issue]:
    """Every issue below ``url``, exactly as :func:`agentbeats_spec.validate` reports them for the same tree.

    ``url`` is a local path or an fsspec URL (``s3://bucket/runs/``); ``storage_options`` open its filesystem
    (credentials, endpoint). The units run on ``client`` (a ``distributed.Client``) when given, else on Dask's
    default scheduler (the active client, if any), with ``compute`` passed to ``dask.compute``
    (``scheduler="processes"``, say). ``npartitions`` sets the number of Dask tasks (default: at least
    ``TASKS_PER_THREAD`` per worker thread, at most ``MAX_UNITS_PER_TASK`` units each). Issues of remote files
    name them by URL. A folder in which no artifact is found at all is a ``layout.nothing-found`` error, as in
    :func:`agentbeats_spec.validate`, unless ``allow_empty``; ``verify_artifacts=False`` compares collected
    artifacts by file count and size only, as there.
    """

    def on_dask(urls: Sequence[str], kind: str | None, follow_symlinks: bool, settings: Settings) -> Report:
        return check_with_dask(urls, client=client, storage_options=storage_options, kind=kind,
                               follow_symlinks=follow_symlinks, npartitions=npartitions, settings=settings,
                               **compute)  # fmt: skip

    request = CheckRequest(kind=kind, limits=limits, verify_artifacts=verify_artifacts, follow_symlinks=follow_symlinks)
    report = run_check(request, Cluster([str(url)], on_dask))
    return list(report.issues) if allow_empty else with_nothing_found(report)


def check_with_dask(
    urls: Sequence[str],
    *,
    client: Any = None,
    storage_options: Mapping[str, Any] | None = None,
    kind: str | None = None,
    follow_symlinks: bool = False,
    npartitions: int | None = None,
    progress: bool = False,
    settings: Settings | None = None,
    **compute: Any,
) -> Report:
    """The report of ``urls`` (what ``check_paths`` gives for local paths), computed on Dask: the runner of the
    front door's :class:`~agentbeats_spec.application._front_door.Cluster`.

    ``progress`` shows Dask's own progress bar on stderr (needs ``client``); every unit is checked with
    ``settings`` (None: those applied around the call).
    """
    import dask.bag

    kind_ = get_kind(kind) if kind is not None else None
    plans: list[UnitPlan] = []
    named: list[tuple[str, bool, UnitPlan]] = []
    work: list[tuple[_Source, Unit]] = []
    for url in urls:
        source = _Source.of(url, storage_options)
        tree = source.tree()
        # Units keep ``real`` None (unconfined, reading._bounded.confined): a worker may mount the tree elsewhere
        planned = plan([source.root], kind_, tree, follow_symlinks=follow_symlinks)
        plans.append(planned.renamed(source.display))
        named.append((source.display(str(source.root)), named_folder(source.root, tree, follow_symlinks), planned))
        work.extend((source, unit) for unit in planned.units)
    whole = joined(plans)
    parts: list[Part] = []
    if work:
        threads = sum(client.nthreads().values()) if client is not None else os.cpu_count() or 1
        count = npartitions or max(TASKS_PER_THREAD * threads, math.ceil(len(work) / MAX_UNITS_PER_TASK))
        bag = dask.bag.from_sequence(work, npartitions=max(1, min(count, len(work))))
        checked = bag.map(_check, settings=settings or current())
        if client is not None:
            future = client.compute(checked)
            if progress:
                from distributed.diagnostics.progressbar import TextProgressBar

                with contextlib.redirect_stdout(sys.stderr):  # Dask draws on stdout; the report goes there
                    TextProgressBar([future], scheduler=client.scheduler.address)
            parts = future.result()
        else:
            parts = checked.compute(**compute)
    return attrs.evolve(assemble(whole, parts), empty=nothing_found(named, parts))


@attrs.frozen
class _Source:
    """Where one tree is: this machine's files (``filesystem`` None), or a filesystem fsspec opened."""

    root: Path
    filesystem: Any = None
    # A relative local path names files from the client's folder; workers (on a shared filesystem) start elsewhere.
    folder: Path = attrs.field(factory=Path.cwd)

    @classmethod
    def of(cls, url: str, storage_options: Mapping[str, Any] | None) -> _Source:
        if "://" not in url and not storage_options:
            return cls(Path(url))
        try:
            import fsspec
        except ImportError as error:  # pragma: no cover - the extra is installed in the test environment
            raise SpecError(f"reading URLs needs the dask extra: {INSTALL_DASK}") from error
        try:
            filesystem, path = fsspec.core.url_to_fs(url, **dict(storage_options or {}))
        except (ImportError, ValueError) as error:  # an unknown protocol, a driver not installed
            raise SpecError(f"cannot open {url}: {error}") from None
        protocols = filesystem.protocol if isinstance(filesystem.protocol, tuple) else (filesystem.protocol,)
        if "file" in protocols or "local" in protocols:
            return cls(Path(path))
        return cls(Path(path), filesystem)

    def require(self) -> None:
        """Raise :class:`SpecError` when the tree does not exist, or its storage cannot be reached."""
        if self.filesystem is None:
            exists = self.root.exists()
        else:
            with self._storage():
                exists = self.filesystem.exists(str(self.root))
        if not exists:
            raise SpecError(f"no such file or folder: {self.display(str(self.root))}")

    def tree(self) -> Any:
        """The names planning sees: this machine's, or one listing of the whole remote prefix."""
        if self.filesystem is None:
            return LOCAL
        root = str(self.root)
        with self._storage():
            if not self.filesystem.isdir(root):
                return Listing({root: "file"} if self.filesystem.isfile(root) else {})
            found = self.filesystem.find(root, withdirs=True, detail=True)
        listed = {root: "folder"}
        for path, info in found.items():
            listed[path] = "folder" if info.get("type") == "directory" else "file"
        return Listing(listed)

    @contextlib.contextmanager
    def _storage(self) -> Iterator[None]:
        """A failure of the storage's driver as a :class:`SpecError` naming the tree: each driver raises its own
        types (botocore's ``EndpointConnectionError`` or ``NoCredentialsError`` for s3fs, which are no
        ``OSError``), and a server out of reach or refused credentials are a usage problem, not a bug of ours."""
        try:
            yield
        except SpecError:
            raise
        except Exception as error:
            raise SpecError(f"cannot read {self.display(str(self.root))}: {type(error).__name__}: {error}") from None

    def display(self, path: str) -> str:
        if self.filesystem is None:
            return path
        return str(self.filesystem.unstrip_protocol(path))


def _check(item: tuple[_Source, Unit], settings: Settings) -> Part:
    """On a worker: one unit, in place or from a copy of its files."""
    source, unit = item
    if source.filesystem is not None:
        return _check_copy(source, unit, settings).with_paths(source.display)
    if unit.path.is_absolute():
        return run_unit(unit, settings)
    placed = Unit(unit.check, source.folder / unit.path, tuple(
        source.folder / argument if isinstance(argument, PurePath) and not argument.is_absolute() else argument
        for argument in unit.arguments
    ))  # fmt: skip
    prefix = str(source.folder) + os.sep
    return run_unit(placed, settings).with_paths(lambda name: name[len(prefix) :] if name.startswith(prefix) else name)


def _check_copy(source: _Source, unit: Unit, settings: Settings) -> Part:
    """Copy the unit's files to a temporary folder, check them there and give their remote names back.

    The copy keeps the names of the two folders above the unit and of every folder up to the paths it is given
    (a task's run root), since kinds and layout rules read them (``attempt-<n>/result.json``).
    """
    placed = [unit.path, *(argument for argument in unit.arguments if isinstance(argument, PurePath))]
    base = Path(os.path.commonpath([str(path) for path in placed]))
    for _ in range(2):
        base = base.parent
    with tempfile.TemporaryDirectory(prefix="agentbeats-spec-") as folder:
        local_base = Path(folder, base.name or "root")

        def local(path: Any) -> Any:
            return local_base / Path(path).relative_to(base) if isinstance(path, PurePath) else path

        try:
            _fetch(source.filesystem, unit.path, local(unit.path), unit.exclude)
        except FileNotFoundError:
            pass  # gone since the listing: the check reports it as the local check would
        except Exception as error:  # an OSError, or a driver's own (botocore's connection errors are none)
            reason = error.strerror if isinstance(error, OSError) and error.strerror else None
            issue = Issue(  # the unit's folder as a whole: no place in a file
                file=str(unit.path),
                severity="error",
                code="io.unreadable",
                message=f"cannot read from storage: {reason or f'{type(error).__name__}: {error}'}",
            )
            return Part((issue,), 0, 0, (), ())
        copied = Unit(unit.check, local(unit.path), tuple(local(argument) for argument in unit.arguments))
        part = run_unit(copied, settings)
    prefix = str(local_base)

    def remote(name: str) -> str:
        if name == prefix or name.startswith(prefix + os.sep):
            return str(base / Path(name).relative_to(local_base))
        return name

    return part.with_paths(remote)


def _fetch(filesystem: Any, path: Path, local: Path, exclude: tuple[str, ...]) -> None:
    """Copy a remote file, or a folder and what it holds except the ``exclude`` folders below it.

    The files go in one ``get`` call, which object-storage filesystems (s3fs, gcsfs) run concurrently.
    """
    if not filesystem.isdir(str(path)):
        local.parent.mkdir(parents=True, exist_ok=True)
        filesystem.get_file(str(path), str(local))
        return
    local.mkdir(parents=True, exist_ok=True)
    skipped = [PurePosixPath(name) for name in exclude]
    sources, targets = [], []
    for name, info in sorted(filesystem.find(str(path), withdirs=True, detail=True).items()):
        relative = PurePosixPath(name).relative_to(PurePosixPath(str(path)))
        if not relative.parts or any(relative == skip or skip in relative.parents for skip in skipped):
            continue
        target = local.joinpath(*relative.parts)
        if info.get("type") == "directory":
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            sources.append(name)
            targets.append(str(target))
    if sources:
        filesystem.get(sources, targets)


def check_on_cluster(
    scheduler: str,
    urls: Sequence[str],
    kind: str | None = None,
    *,
    workers: int = 1,
    follow_symlinks: bool = False,
    progress: bool = False,
    settings: Settings | None = None,
) -> Report:
    """What ``validate --dask SCHEDULER`` reports: ``urls`` checked on the cluster at that address.

    ``"local"`` starts a cluster of ``workers`` processes on this machine for the call. Every usage problem (no
    dask extra, a scheduler out of reach, workers without this package or with another version of it, a path
    that does not exist) raises :class:`SpecError` with what to do. Every unit is checked with ``settings``
    (None: those applied around the call); the CLI hands it, bound to its scheduler, to the front door.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise SpecError(f"--dask needs the dask extra: {INSTALL_DASK}") from None
    for url in urls:
        if "://" in url:
            _Source.of(url, None).require()
    with contextlib.ExitStack() as stack:
        if scheduler == "local":
            # The workers' scratch space is a folder of this call, removed with it however the call ends (an
            # interrupt, SIGTERM or SIGHUP close the cluster on the way out); the scheduler's HTTP server takes a
            # free port, never warning that another cluster has 8787. Its workers log only what is critical: a
            # worker's failure reaches this call as the task's exception, and a worker that loses its scheduler
            # while an interrupt closes the cluster would otherwise print a heartbeat traceback after "interrupted".
            import dask

            stack.callback(_ending_tracker())
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="agentbeats-spec-dask-"))
            stack.enter_context(dask.config.set({"temporary-directory": scratch}))
            with _signals_held():  # a cluster half started cannot be closed: a signal waits until it is up
                cluster = stack.enter_context(
                    LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                                 scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                 silence_logs=logging.CRITICAL)
                )  # fmt: skip
            client = stack.enter_context(Client(cluster, set_as_default=False))
        else:
            try:
                # waits distributed.comm.timeouts.connect (Dask's configuration; 30 s unless set)
                client = stack.enter_context(Client(scheduler, set_as_default=False))
            except (OSError, TimeoutError, ValueError) as error:
                raise SpecError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
        _require_workers(client)
        return check_with_dask(urls, client=client, kind=kind, follow_symlinks=follow_symlinks, progress=progress,
                               settings=settings)  # fmt: skip


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP recorded while the block runs, then delivered to their own handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    numbers = [getattr(signal, name) for name in names if hasattr(signal, name)]
    previous = {number: signal.signal(number, lambda number, frame: held.append(number)) for number in numbers}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if held:
            signal.raise_signal(held[0])


def _ending_tracker() -> Any:
    """What ends multiprocessing's resource tracker, if the local cluster is what starts it: once the cluster has
    closed it tracks nothing, and it would otherwise outlive the call until it notices this process has gone."""
    tracker: Any = resource_tracker._resource_tracker
    running = getattr(tracker, "_pid", None) is not None

    def end() -> None:
        if not running and getattr(tracker, "_pid", None) is not None and hasattr(tracker, "_stop"):
            tracker._stop()

    return end


def _require_workers(client: Any) -> None:
    """Every worker runs this version of the package (a worker without it fails each unit, one by one)."""
    try:
        versions: dict[str, str] = client.run(_worker_version)
    except ImportError as error:
        raise SpecError(
            f"the Dask workers cannot import agentbeats_spec ({error}): install agentbeats-spec[dask] "
            f"{__version__} on every worker"
        ) from None
    others = {worker: version for worker, version in versions.items() if version != __version__}
    if others:
        worker, version = next(iter(others.items()))
        raise SpecError(
            f"the Dask worker {worker} runs agentbeats-spec {version}, this is {__version__}: install the same "
            "version on every worker, so that both sides check by the same rules"
        )


def _worker_version() -> str:
    return __version__
