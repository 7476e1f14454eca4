"""Task records in the agentcompass.task.v3 layout: read one back, write one out the way the spec orders it."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import tempfile
import weakref
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

try:
    import fcntl
except ImportError:  # Windows: no flock
    fcntl = None  # type: ignore[assignment]

from .. import _api
from .._issues import ArtifactsUnavailable, Finding, InvalidDocument, Issue, SpecError, UnconvertibleAttempt, WriteError
from ..checking._collect import Collector
from ..checking._examine import issues_of
from ..layouts import agentcompass as layout
from ..reading._bounded import read_file
from ..records import _legacy, _persisted
from ..records._states import RUNNING, STATES, final_state
from ..walk._fs import is_inside
from ..writing import _atomic

if TYPE_CHECKING:
    from ..models import TaskDetail

TASK_SCHEMA = "agentcompass.task.v3"
READABLE_SCHEMAS = ("agentcompass.task.v3", "agentcompass.task.v2")


def read_task(task_dir: str | os.PathLike[str]) -> TaskDetail:
    """The logical task detail record of one task folder, as a ``TaskDetail`` model.

    Attempt payloads come from each ``attempt-<n>/result.json``; ``retry_counts`` (sparse) and
    ``retry_count`` are derived from each attempt's stored ``retry_count``. An allocated attempt without a
    result is not an observation and is left out. Raises :class:`InvalidDocument` when the task folder has
    an error, or when the task has not published its shared metadata yet. The record is normalized as the
    AgentCompass 1.0.1 reader normalizes it (``category: ""`` as ``null``, a lower-case ``strategy``, …).

    A task of the previous layout (``agentcompass.task.v2``) is converted as AgentCompass 1.0.1 converts it on
    read, to the same record; an attempt it cannot convert raises :class:`UnconvertibleAttempt` (an
    :class:`InvalidDocument`), which names the attempt and says why.
    """
    folder = Path(task_dir)
    collector = Collector()
    files = layout.check_task(folder, collector)
    report = collector.report()
    legacy = files is not None and _version(files) == _legacy.TASK_V2
    if files is not None and legacy:
        _refuse_unconvertible(files, report.issues)
    if files is None or not report.valid:
        raise InvalidDocument(report.issues)
    index = files.index.document.data
    missing = [member for member in layout.SHARED if member not in index]
    if missing:
        message = "the task has not finished: task.json has no " + ", ".join(missing)
        unfinished = Finding("", "layout.incomplete-task", message)
        # Placed as every finding is: at the index object itself (its first character), a real place.
        raise InvalidDocument(issues_of(files.index.document, [unfinished], str(folder / "task.json"), layout.TASK))
    attempts: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for key in sorted(files.results, key=int):
        result = files.results[key]
        if result is None:
            continue
        payload = dict(result.document.data)
        count = payload.pop("retry_count", 0)
        if count:
            counts[key] = count
        if payload:
            attempts[key] = _legacy.convert(payload) if legacy else payload
    shared = _legacy.shape_shared(index) if legacy else index
    record = _persisted.shaped(
        {
            "task_id": index["task_id"],
            "category": shared["category"],
            "ground_truth": shared["ground_truth"],
            "attempt_plan": shared["attempt_plan"],
            "retry_count": sum(counts.values()),
            "retry_counts": counts,
            "attempts": attempts,
        }
    )
    model = _api.from_dict("agentcompass-task-detail", record)
    _, root = layout._place_of(folder)
    if root is not None:
        _remember_origin(model, root)
    return model


def _version(files: layout.TaskFiles) -> Any:
    data = files.index.document.data
    return data.get("schema_version") if files.index.document.readable and isinstance(data, dict) else None


def _refuse_unconvertible(files: layout.TaskFiles, issues: Sequence[Issue]) -> None:
    """Raise for the first attempt of a v2 task that AgentCompass 1.0.1 cannot convert (it refuses the task)."""
    for key in sorted(files.results, key=int):
        result = files.results[key]
        if result is None or not result.document.readable or not isinstance(result.document.data, dict):
            continue
        payload = {name: value for name, value in result.document.data.items() if name != "retry_count"}
        reason = _legacy.derived_issues(payload) if payload else []
        if isinstance(reason, str):
            raise UnconvertibleAttempt(key, reason, list(issues))


def write_task(
    run_dir: str | os.PathLike[str],
    record: TaskDetail | Mapping[str, Any],
    *,
    artifacts_from: str | os.PathLike[str] | None = None
) -> Path:
    """Write a task detail record into a run folder in the v3 layout; return the path of its ``task.json``.

    What is written is what the AgentCompass 1.0.1 writer writes for the same record, byte for byte: its
    record builder's normalizations and its redaction of credential fields (except in ``metrics``,
    ``ground_truth`` and ``final_answer``). The order is the spec's: the attempt folders and the identity index
    first, then the collected artifacts, every attempt payload (each written atomically and fsynced), the shared
    metadata, then the move from ``running`` to the state of the most severe issue. An interrupted write leaves
    every file either as it was or as it should be. ``record`` is a ``TaskDetail`` model or a mapping of the
    same shape.

    Writers of one task serialize (processes too, on one machine): the result is one writer's whole task.
    Writers of different tasks run in parallel. A record read from another run (by :func:`read_task`, or from
    the run named by ``artifacts_from``) brings its collected artifacts: they are copied and each manifest's
    ``directory`` rewritten, the other run left as it was. Raises :class:`ArtifactsUnavailable`, before anything
    is written, when an artifact cannot be copied, and :class:`WriteError` when a file or folder cannot be written.
    """
    try:
        return _write_task(run_dir, record, artifacts_from)
    except WriteError:
        raise
    except OSError as error:  # a folder made or moved on the way: told as every failed write is
        raise WriteError.of(error.filename or run_dir, error) from None


def _write_task(
    run_dir: str | os.PathLike[str], record: Any, artifacts_from: str | os.PathLike[str] | None
) -> Path:
    origin = Path(artifacts_from) if artifacts_from is not None else _origin_of(record)
    if not hasattr(type(record), "__kind__"):
        record = _api.from_dict("agentcompass-task-detail", record)
    kind, checked = _api.checked(record)
    if kind.name != "agentcompass-task-detail":
        raise TypeError(f"write_task takes a task detail record, not {kind.name}")
    data = _persisted.persisted(checked)
    root = Path(run_dir)
    collected = _collected_artifacts(data, origin or root)
    details = root / "details"
    details.mkdir(parents=True, exist_ok=True)
    name = layout.task_folder_name(data["task_id"])
    with _TaskLock(root, name) as lock:
        task = lock.folder
        copies = _copies(collected, task)
        index_path = task / "task.json"
        index = _identity(index_path, data["task_id"])
        for number in sorted(set(data["attempts"]) | set(data["retry_counts"]), key=int):
            directory = f"attempt-{number}"
            (task / directory).mkdir(exist_ok=True)
            if index["attempts"].get(number) != directory:
                index["attempts"][number] = directory
                _atomic.write_atomic(index_path, _atomic.serialize(index, "json"))
        for number, (source, target, entries) in copies.items():
            _copy_artifacts(number, source, target, entries)
        for number, directory in index["attempts"].items():
            result = dict(data["attempts"].get(number, {}))
            manifest = result.get("artifacts", {}).get("declared_artifacts")
            if isinstance(manifest, dict) and isinstance(manifest.get("directory"), str):
                store = Path(os.path.relpath(task / directory / "artifacts", root)).as_posix()
                result["artifacts"] = {**result["artifacts"], "declared_artifacts": {**manifest, "directory": store}}
            result["retry_count"] = data["retry_counts"].get(number, 0)
            _atomic.write_atomic(task / directory / "result.json", _atomic.serialize(result, "json"))
        index.update({member: data[member] for member in layout.SHARED})
        index["schema_version"] = TASK_SCHEMA
        _atomic.write_atomic(index_path, _atomic.serialize(index, "json"))

        target = details / _state(data["attempts"]) / name
        if task != target:
            with lock.run():
                _move(task, target, root)
    return target / "task.json"


# The run a record was read from, for the records read_task returns: write_task copies their artifacts from it.
_origins: dict[int, tuple[weakref.ref[Any], Path]] = {}


def _remember_origin(record: Any, root: Path) -> None:
    key = id(record)
    _origins[key] = (weakref.ref(record, lambda _: _origins.pop(key, None)), root)


def _origin_of(record: Any) -> Path | None:
    reference, root = _origins.get(id(record), (None, None))
    return root if reference is not None and reference() is record else None


_Entries = list[tuple[str, str | None]]


def _collected_artifacts(data: dict[str, Any], source_root: Path) -> dict[str, tuple[Path, _Entries]]:
    """Where each attempt's collected artifacts are, checked before anything is written."""
    found = {}
    for number, payload in data["attempts"].items():
        manifest = payload.get("artifacts", {}).get("declared_artifacts")
        if not isinstance(manifest, dict) or not isinstance(manifest.get("directory"), str):
            continue
        entries = [
            (entry["destination"], entry.get("kind"))
            for entry in manifest.get("entries", [])
            if isinstance(entry, dict) and entry.get("status") == "collected"
        ]
        if not entries:
            continue
        source = source_root / manifest["directory"]
        if source.is_symlink() or not source.is_dir():
            raise ArtifactsUnavailable(number, source, "the artifacts folder of its manifest is not there")
        real = Path(os.path.realpath(source))
        for destination, kind in entries:
            path = source / destination
            if not os.path.lexists(path):
                raise ArtifactsUnavailable(number, path, "a collected artifact is missing")
            if not is_inside(Path(os.path.realpath(path)), real):
                raise ArtifactsUnavailable(number, path, "a collected artifact leads outside artifacts/ through a link")
            if (kind == "file" and not path.is_file()) or (kind == "directory" and not path.is_dir()):
                raise ArtifactsUnavailable(number, path, f"a collected artifact is not a {kind}")
        found[number] = (source, entries)
    return found


def _copies(collected: dict[str, tuple[Path, _Entries]], task: Path) -> dict[str, tuple[Path, Path, _Entries]]:
    """The artifacts to copy into this task folder (none where they are already in place)."""
    copies = {}
    for number, (source, entries) in collected.items():
        target = task / f"attempt-{number}" / "artifacts"
        if os.path.realpath(source) == os.path.realpath(target):
            continue
        if os.path.lexists(target):
            if all(_same(source / destination, target / destination) for destination, _ in entries):
                continue  # written before, from the same artifacts
            raise ArtifactsUnavailable(number, target, "the task already has other artifacts there")
        copies[number] = (source, target, entries)
    return copies


def _same(source: Path, target: Path) -> bool:
    if source.is_dir():
        return target.is_dir() and not target.is_symlink()
    return target.is_file() and not target.is_symlink() and target.stat().st_size == source.stat().st_size


def _copy_artifacts(number: str, source: Path, target: Path, entries: _Entries) -> None:
    """Copy into a staging folder beside the target, then rename it into place: all of them or none."""
    staging = Path(tempfile.mkdtemp(prefix=".artifacts.", suffix=".tmp", dir=target.parent))
    try:
        for destination, _ in entries:
            origin, copy = source / destination, staging / destination
            copy.parent.mkdir(parents=True, exist_ok=True)
            if origin.is_dir():
                shutil.copytree(origin, copy, symlinks=True, dirs_exist_ok=True)
            else:
                shutil.copy2(origin, copy)
        os.chmod(staging, 0o777 & ~_umask())
        os.rename(staging, target)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        if error.filename is None or str(error.filename).startswith(str(staging)):
            raise WriteError.of(target, error) from None  # the copy's side failed: a full disk, say
        reason = error.strerror or str(error)
        raise SpecError(f"attempt {number}: cannot copy its artifacts from {source}: {reason}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class _TaskLock:
    """Serializes the writers of one task; writers of other tasks go on.

    An exclusive ``flock`` on the task folder itself, which keeps its inode when it moves between state
    folders, so nothing is added to the run tree. Finding (or creating) the folder and moving it happen under a
    short ``flock`` on the run folder, so that a writer never looks for the task while another moves it.
    """

    def __init__(self, root: Path, name: str) -> None:
        self.root = root
        self.details = root / "details"
        self.name = name
        self.folder = self.details / RUNNING / name
        self._descriptor = -1

    @contextlib.contextmanager
    def run(self) -> Iterator[None]:
        if fcntl is None:  # no flock, and a folder cannot be opened there either
            yield
            return
        descriptor = os.open(self.root, os.O_RDONLY)
        try:
            _flock(descriptor, blocking=True)
            yield
        finally:
            os.close(descriptor)

    def __enter__(self) -> _TaskLock:
        if fcntl is None:
            self.folder = _existing(self.details, self.name) or self.folder
            self.folder.mkdir(parents=True, exist_ok=True)
            return self
        while True:
            with self.run():
                folder = _existing(self.details, self.name)
                if folder is None:
                    folder = self.details / RUNNING / self.name
                    folder.mkdir(parents=True, exist_ok=True)
                descriptor = os.open(folder, os.O_RDONLY)
                if self._held(folder, descriptor, blocking=False):
                    return self
            if self._held(folder, descriptor, blocking=True):
                return self

    def _held(self, folder: Path, descriptor: int, *, blocking: bool) -> bool:
        """Whether the lock on this folder is now ours. Without waiting, False leaves the descriptor open for the
        wait; after the wait, False means the folder went away (and the descriptor is closed)."""
        try:
            if not blocking:
                if not _flock(descriptor, blocking=False):
                    return False  # the caller waits for it, outside the run lock
            else:
                _flock(descriptor, blocking=True)  # the other writer is done with it
                with self.run():
                    current = _existing(self.details, self.name)
                    if current is None or not os.path.samestat(os.stat(current), os.fstat(descriptor)):
                        os.close(descriptor)  # it went away while we waited: look again
                        return False
                    folder = current
        except BaseException:
            os.close(descriptor)
            raise
        self.folder, self._descriptor = folder, descriptor
        return True

    def __exit__(self, *exc_info: object) -> None:
        if self._descriptor >= 0:
            os.close(self._descriptor)


def _flock(descriptor: int, *, blocking: bool) -> bool:
    """Take an exclusive lock; False if ``blocking`` is off and another holds it. Where the platform or the
    file system has no ``flock``, writers are not serialized (a lock that cannot be had is no lock)."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    except OSError as error:
        if error.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL, errno.EBADF):
            return True
        raise
    return True


def _existing(details: Path, name: str) -> Path | None:
    for candidate in [*(details / state / name for state in STATES), details / name]:
        if candidate.is_dir() and not candidate.is_symlink():
            return candidate
    return None


def _identity(path: Path, task_id: str) -> dict[str, Any]:
    if not path.exists():
        return {"schema_version": TASK_SCHEMA, "task_id": task_id, "attempts": {}}
    try:
        index = json.loads(read_file(path))
    except (OSError, ValueError) as error:
        raise SpecError(f"{path}: the existing task index cannot be read ({error}); nothing was written") from None
    if (
        not isinstance(index, dict)
        or index.get("schema_version") not in READABLE_SCHEMAS
        or index.get("task_id") != task_id
        or not isinstance(index.get("attempts"), dict)
    ):
        raise SpecError(f"{path}: the existing task index is for another task or layout; nothing was written")
    return index


def _state(attempts: dict[str, Any]) -> str:
    return final_state(
        issue.get("severity")
        for payload in attempts.values()
        for issue in payload.get("issues", [])
        if isinstance(issue, dict)
    )


def _move(source: Path, target: Path, root: Path) -> None:
    """Move a task folder to another state, rewriting the run-relative artifact directories it stores."""
    if target.exists():
        raise SpecError(f"{target} already exists; the task has two result folders")
    old = Path(os.path.relpath(source, root)).as_posix() + "/"
    new = Path(os.path.relpath(target, root)).as_posix() + "/"
    for pattern in ("attempt-*/*.json", "attempt-*/retries/*.json", "attempt-*/retries/*/*.json"):
        for path in sorted(source.glob(pattern)):
            try:
                value = json.loads(read_file(path))
            except (OSError, ValueError):
                continue  # not ours to repair; the validator reports it
            moved = _relocate(value, old, new)
            if moved != value:
                _atomic.write_atomic(path, _atomic.serialize(moved, "json"))
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)


def _relocate(value: Any, old: str, new: str) -> Any:
    if isinstance(value, dict):
        return {
            key: new + item.removeprefix(old)
            if key == "directory" and isinstance(item, str) and item.startswith(old)
            else _relocate(item, old, new)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_relocate(item, old, new) for item in value]
    return value
