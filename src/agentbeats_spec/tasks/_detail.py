"""Task records in the agentcompass.task.v3 layout: read one back, write one out the way the spec orders it."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

import attrs

try:
    import fcntl
except ImportError:  # Windows: no flock
    fcntl = None  # type: ignore[assignment]

from .. import _api
from ..checking._collect import Collector
from ..checking._examine import issues_of
from ..checking._sources import members
from ..layouts import agentcompass as layout
from ..reading._bounded import confined, real_place
from ..reading._documents import NotJSON, load_json
from ..records import _legacy, _persisted
from ..records._states import RUNNING, STATES, final_state
from ..vocabulary._issues import (
    ArtifactsUnavailable,
    Finding,
    InvalidDocument,
    Issue,
    SpecError,
    UnconvertibleAttempt,
    WriteError,
    fails,
)
from ..vocabulary._kind_data import CURRENT_TASK, READABLE_TASKS, TASK_V2
from ..vocabulary._settings import current
from ..vocabulary._text import describe, quote
from ..writing import _atomic

if TYPE_CHECKING:
    from ..models import AttemptPayload, AttemptPlan, TaskDetail


@overload
def read_task(task_dir: str | os.PathLike[str]) -> TaskDetail: ...
@overload
def read_task(task_dir: str | os.PathLike[str], *, partial: bool) -> TaskDetail | TaskSoFar: ...
@overload
def read_task(task_dir: str | os.PathLike[str], *, strict: Literal[False]) -> TaskRead: ...
@overload
def read_task(
    task_dir: str | os.PathLike[str], *, partial: bool = ..., strict: bool
) -> TaskDetail | TaskSoFar | TaskRead: ...
def read_task(
    task_dir: str | os.PathLike[str], *, partial: bool = False, strict: bool = True
) -> TaskDetail | TaskSoFar | TaskRead:
    """The logical task detail record of one task folder, as a ``TaskDetail`` model.

    Attempt payloads come from each ``attempt-<n>/result.json``; ``retry_counts`` (sparse) and
    ``retry_count`` are derived from each attempt's stored ``retry_count``. An allocated attempt without a
    result is not an observation and is left out. Raises :class:`InvalidDocument` when the task folder has
    an error, or when the task has not published its shared metadata yet. The record is normalized as the
    AgentCompass 1.0.1 reader normalizes it (``category: ""`` as ``null``, a lower-case ``strategy``, …).

    A task of the previous layout (``agentcompass.task.v2``) is converted as AgentCompass 1.0.1 converts it on
    read, to the same record; an attempt it cannot convert raises :class:`UnconvertibleAttempt` (an
    :class:`InvalidDocument`), which names the task, the attempt and its file, and says why.

    With ``partial=True``, a task that has not published its shared metadata yet (a running task, which
    ``validate`` calls valid) is no error: it gives a :class:`TaskSoFar`, the attempts that have a result so far
    and whatever shared metadata there is, read and checked as a finished task's are.

    With ``strict=False``, a task is read whenever AgentCompass 1.0.1 reads it, errors or not: a
    :class:`TaskRead`, the record as plain JSON values beside every issue of the folder. It raises only where
    that reader refuses the task too (or where reading it would follow a link).

    The folder is read as ``validate`` reads a task: where it was when this was called, never through a link. A
    ``task_dir`` that is a symbolic link raises :class:`InvalidDocument` (``security.symlink``); one swapped for a
    link while it is read, or a folder in it, is refused as ``validate`` refuses it (``security.path-escape``).
    """
    folder = Path(task_dir)
    if os.path.islink(folder):
        message = "a symbolic link where a task folder was expected; not followed"
        raise InvalidDocument([Issue(file=str(folder), severity="error", code="security.symlink", message=message)])
    if not strict:
        return read_leniently(folder, real_place(folder))
    return read_task_at(folder, real_place(folder), partial=partial)


def read_task_at(folder: Path, real: str, *, partial: bool) -> TaskDetail | TaskSoFar:
    """:func:`read_task` of a task folder that really was at ``real`` (no link in it) when it was found: every
    file is read only there (``reading._bounded.confined``)."""
    files, issues = _checked(folder, real)
    if files is None or fails(issue.severity for issue in issues):
        raise InvalidDocument(issues)
    record, missing = _record(files)
    if missing and not partial:
        message = "the task has not finished: task.json has no " + ", ".join(missing)
        unfinished = Finding("", "layout.incomplete-task", message)
        # Placed as every finding is: at the index object itself (its first character), a real place.
        raise InvalidDocument(issues_of(files.index.document, [unfinished], str(folder / "task.json"), layout.TASK))
    return _modelled(folder, record, missing, legacy=_version(files) == TASK_V2)


def read_leniently(folder: Path, real: str) -> TaskRead:
    """:func:`read_task` with ``strict=False`` of a folder that really was at ``real`` when it was found: the task
    as AgentCompass 1.0.1 reads it, with every issue of its folder; :class:`InvalidDocument` where that reader
    refuses it (an error outside what it reads past, :func:`_read_past`)."""
    files, issues = _checked(folder, real)
    if files is None or any(fails([issue.severity]) and not _read_past(issue, folder, files) for issue in issues):
        raise InvalidDocument(issues)
    record, missing = _record(files)
    for member in missing:
        record[member] = None
    return TaskRead(record=record, issues=issues, missing=missing, folder=folder, legacy=_version(files) == TASK_V2)


def _checked(folder: Path, real: str) -> tuple[layout.TaskFiles | None, list[Issue]]:
    """The task folder's files, checked as ``validate`` checks them, and every issue found; a v2 attempt that
    AgentCompass 1.0.1 cannot convert raises :class:`UnconvertibleAttempt` (it refuses the whole task)."""
    if not os.path.lexists(folder):  # said as it is: "holds no task.json" would send one looking inside it
        message = "no such task folder: it does not exist"
        raise InvalidDocument([Issue(file=str(folder), severity="error", code="io.not-found", message=message)])
    collector = Collector()
    with confined(folder, real):
        files = layout.check_task(folder, collector)
    issues = list(collector.report().issues)
    if files is not None and _version(files) == TASK_V2:
        _refuse_unconvertible(folder, files, issues)
    return files, issues


def _record(files: layout.TaskFiles) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The task detail record of checked files, as plain JSON values shaped as AgentCompass 1.0.1 shapes it, and
    the shared members its index has not published yet (stood in for, so that the attempts are read as usual)."""
    legacy = _version(files) == TASK_V2
    index = files.index.document.data
    missing = tuple(member for member in layout.SHARED if member not in index)
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
    # An unfinished task's missing members stand in as a finished task's would (checked by the same model, then
    # told apart): the attempts so far are read, converted and checked exactly as those of a finished task.
    shared = {**_stand_in(files), **index} if missing else index
    shared = _legacy.shape_shared(shared) if legacy else shared
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
    return record, missing


def _modelled(folder: Path, record: dict[str, Any], missing: Sequence[str], *, legacy: bool) -> TaskDetail | TaskSoFar:
    """The model of the record of a task folder without errors.

    Its files were checked (schemas and rules) as ``validate`` checks them, and a v3 record is made of their
    documents as they are: it is structured without being checked again. A v2 record is converted, which makes
    new attempt payloads: those are checked (``from_dict``).
    """
    if missing and not record["attempts"]:  # no attempt to check: the index, checked above, is all there is
        return _so_far(record, None, missing)
    model = _api.from_dict("agentcompass-task-detail", record) if legacy else _structured(record)
    _, root = layout.place_of(folder)
    if root is not None:
        _remember_origin(model, root)
    return _so_far(record, model, missing) if missing else model


def _structured(record: dict[str, Any]) -> TaskDetail:
    from ..models import TaskDetail, _convert  # as the models are imported everywhere here: when a record is made

    try:
        model: TaskDetail = _convert.structure(record, TaskDetail)
    except _convert.Unrepresentable:  # a fault of the models: said, located, as from_dict says it
        return _api.from_dict("agentcompass-task-detail", record)
    return model


# What AgentCompass 1.0.1's reader (``read_result``, then ``build_detail_record``) takes as it is, without looking
# inside: an error there leaves the task readable. Members of any value, then members it reads as any mapping
# (an empty value reads as {}).
_ANY_VALUE = ("/final_answer", "/ground_truth", "/category")
_ANY_MAPPING = ("/trajectory", "/artifacts", "/analysis_result", "/meta/benchmark", "/meta/harness")


def _read_past(issue: Issue, folder: Path, files: layout.TaskFiles) -> bool:
    """Whether AgentCompass 1.0.1 reads the task despite this error: one inside a member it does not look into,
    or in a file or folder it does not read (retry records, checkpoints, collected artifacts, stray entries).

    The task folder's own name, the attempt folders its index maps, task.json and each mapped result.json
    outside those members are read, checked or required by it: an error there stops it, as it stops this reader.
    A link anywhere is never followed, so it stops this reader too.
    """
    if issue.code.startswith(("security.path-escape", "security.symlink")) or issue.file is None:
        return False
    documents = {str(folder / "task.json"): files.index}
    documents.update((result.file, result) for result in files.results.values() if result is not None and result.file)
    examined = documents.get(issue.file)
    if examined is None:
        mapped = {str(folder / name) for name in _mapped_names(files)}
        if issue.file == str(folder):
            return issue.code == "layout.wrong-state"  # it finds a task by its name, in whichever state folder
        return issue.file not in mapped and issue.file.startswith(str(folder) + os.sep)
    pointer = issue.pointer or ""
    if any(pointer == place or pointer.startswith(place + "/") for place in _ANY_VALUE):
        return True
    data = members(examined)
    for place in _ANY_MAPPING:
        if pointer.startswith(place + "/"):
            return True
        if pointer == place and data is not None:
            value = _at(data, place)
            return isinstance(value, dict) or value in (None, "", [])
    return False


def _mapped_names(files: layout.TaskFiles) -> list[str]:
    mapping = files.index.document.data.get("attempts") if isinstance(files.index.document.data, dict) else None
    return [name for name in mapping.values() if isinstance(name, str)] if isinstance(mapping, dict) else []


def _at(data: dict[str, Any], place: str) -> Any:
    value: Any = data
    for token in place.strip("/").split("/"):
        value = value.get(token) if isinstance(value, dict) else None
    return value


@attrs.frozen(kw_only=True)
class TaskRead:
    """A task as AgentCompass 1.0.1 reads it (``read_task(..., strict=False)``, ``TaskRef.read(strict=False)``),
    with every issue ``validate`` finds in its folder beside it.

    ``record`` is the task detail record as plain JSON values, exactly as that reader returns it (for a task that
    has not finished, what it holds so far: the members named in ``missing`` are ``None``); ``issues`` every issue
    of the folder, errors included: AgentCompass reads past an error inside a trajectory, a final answer, the
    collected artifacts' manifest or a retry record, which the spec calls invalid.
    """

    record: dict[str, Any]
    issues: list[Issue]
    missing: tuple[str, ...] = ()
    folder: Path = attrs.field(repr=False)
    legacy: bool = attrs.field(default=False, repr=False)

    @property
    def valid(self) -> bool:
        """Whether the folder has no error (then :meth:`model` gives its model)."""
        return not fails(issue.severity for issue in self.issues)

    def model(self) -> TaskDetail | TaskSoFar:
        """The record as a ``TaskDetail`` (a :class:`TaskSoFar` for a task not finished); raises
        :class:`InvalidDocument` with the issues when the folder has an error: a model holds valid records only."""
        if not self.valid:
            raise InvalidDocument(self.issues)
        record = dict(self.record)
        if self.missing:
            record.update(_stand_in_of(record))
        return _modelled(self.folder, record, self.missing, legacy=self.legacy)


def _so_far(record: dict[str, Any], model: TaskDetail | None, missing: Sequence[str]) -> TaskSoFar:
    plan = model.attempt_plan if model is not None else None
    if plan is None and "attempt_plan" not in missing:
        from ..models import AttemptPlan  # as the models are imported everywhere here: when a record is made

        plan = AttemptPlan(k=record["attempt_plan"]["k"], strategy=record["attempt_plan"]["strategy"])
    return TaskSoFar(
        task_id=record["task_id"],
        category=None if "category" in missing else record["category"],
        ground_truth=None if "ground_truth" in missing else record["ground_truth"],
        attempt_plan=None if "attempt_plan" in missing else plan,
        retry_count=record["retry_count"],
        retry_counts=record["retry_counts"],
        attempts=model.attempts if model is not None else {},
        missing=tuple(missing),
    )


def _stand_in(files: layout.TaskFiles) -> dict[str, Any]:
    """Shared members that hold for any attempts a task has (k their largest number), never given out as read."""
    return _stand_in_of({"attempts": {key: None for key in files.results}})


def _stand_in_of(record: dict[str, Any]) -> dict[str, Any]:
    numbers = [*record["attempts"], *record.get("retry_counts", {})]
    k = max([int(key) for key in numbers if key.isdigit()] + [1])
    return {"category": None, "ground_truth": None, "attempt_plan": {"k": k, "strategy": "avg"}}


@attrs.frozen(kw_only=True)
class TaskSoFar:
    """What a task that has not finished holds so far: its attempts with a result, and the shared metadata it has
    published (``None`` where it has not: the members are named in ``missing``)."""

    task_id: str
    category: str | None
    ground_truth: Any
    attempt_plan: AttemptPlan | None
    retry_count: int
    retry_counts: dict[str, int]
    attempts: dict[str, AttemptPayload]
    missing: tuple[str, ...]


def _version(files: layout.TaskFiles) -> Any:
    data = files.index.document.data
    return data.get("schema_version") if files.index.document.readable and isinstance(data, dict) else None


def _refuse_unconvertible(folder: Path, files: layout.TaskFiles, issues: Sequence[Issue]) -> None:
    """Raise for the first attempt of a v2 task that AgentCompass 1.0.1 cannot convert (it refuses the task)."""
    index = files.index.document.data
    task_id = index.get("task_id") if isinstance(index, dict) and isinstance(index.get("task_id"), str) else None
    for key in sorted(files.results, key=int):
        result = files.results[key]
        if result is None or not result.document.readable or not isinstance(result.document.data, dict):
            continue
        payload = {name: value for name, value in result.document.data.items() if name != "retry_count"}
        reason = _legacy.derived_issues(payload) if payload else []
        if isinstance(reason, str):
            file = result.file if result.file is not None else str(folder / f"attempt-{key}" / "result.json")
            raise UnconvertibleAttempt(key, reason, list(issues), task=task_id, file=file)


def write_task(
    run_dir: str | os.PathLike[str],
    record: TaskDetail | Mapping[str, Any],
    *,
    artifacts_from: str | os.PathLike[str] | None = None,
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

    What the run already holds is input: nothing is written through a symbolic link below ``run_dir`` (a linked
    ``details/``, state or attempt folder is refused with :class:`WriteError`), and an existing ``task.json`` is
    used only when it is this task's index with every attempt mapped to ``attempt-<n>``.
    """
    try:
        return _write_task(Path(run_dir), None, record, artifacts_from)
    except WriteError:
        raise
    except OSError as error:  # a folder made or moved on the way: told as every failed write is
        raise WriteError.of(error.filename or run_dir, error) from None


def write_task_into(run: _atomic.Folder, record: Any) -> tuple[str, str]:
    """``write_task`` into a run folder already open (migrate's staging run); the state and name it is filed as."""
    written = _write_task(run.path, run, record, None)
    return written.parent.parent.name, written.parent.name


def _write_task(
    root_path: Path, opened: _atomic.Folder | None, record: Any, artifacts_from: str | os.PathLike[str] | None
) -> Path:
    origin = Path(artifacts_from) if artifacts_from is not None else _origin_of(record)
    if not hasattr(type(record), "__kind__"):
        record = _api.from_dict("agentcompass-task-detail", record)
    kind, checked = _api.checked(record)
    if kind.name != "agentcompass-task-detail":
        raise TypeError(f"write_task takes a task detail record, not {kind.name}")
    data = _persisted.persisted(checked)
    name = layout.task_folder_name(data["task_id"])
    with contextlib.ExitStack() as stack:
        try:
            collected = _collected_artifacts(data, origin or root_path, opened if origin is None else None, stack)
        except ArtifactsUnavailable as error:
            if origin is not None or opened is not None:
                raise
            raise ArtifactsUnavailable(error.attempt, error.path, error.reason + _NO_ORIGIN) from None
        root = opened if opened is not None else stack.enter_context(_atomic.Folder.root(root_path, create=True))
        details = stack.enter_context(root.child("details", create=True))
        lock = stack.enter_context(_TaskLock(root, details, name))
        task = lock.folder
        copies = _copies(collected, task)
        index = _identity(task, data["task_id"])
        for number in sorted(set(data["attempts"]) | set(data["retry_counts"]), key=int):
            directory = f"attempt-{number}"
            task.child(directory, create=True).close()
            if index["attempts"].get(number) != directory:
                index["attempts"][number] = directory
                task.write("task.json", _atomic.serialize(index, "json"))
        for number, source in copies.items():
            with task.child(f"attempt-{number}") as attempt:
                _copy_artifacts(number, source, attempt)
        for number, directory in index["attempts"].items():
            result = dict(data["attempts"].get(number, {}))
            manifest = result.get("artifacts", {}).get("declared_artifacts")
            if isinstance(manifest, dict) and isinstance(manifest.get("directory"), str):
                store = f"{lock.relative}/{directory}/artifacts"
                result["artifacts"] = {**result["artifacts"], "declared_artifacts": {**manifest, "directory": store}}
            result["retry_count"] = data["retry_counts"].get(number, 0)
            with task.child(directory) as attempt:
                attempt.write("result.json", _atomic.serialize(result, "json"))
        index.update({member: data[member] for member in layout.SHARED})
        index["schema_version"] = CURRENT_TASK
        task.write("task.json", _atomic.serialize(index, "json"))

        state = _state(data["attempts"])
        if lock.state != state:
            with lock.run():
                _move(lock, details, state)
    return root_path / "details" / state / name / "task.json"


# Said when the artifacts were looked for in the destination, the record naming no run of its own.
_NO_ORIGIN = (
    " in the run written to; a record read from another run by read_task and changed since (attrs.evolve makes a "
    "new record, which does not know that run) takes artifacts_from=<the run it was read from>"
)


# The run a record was read from, for the records read_task returns: write_task copies their artifacts from it.
_origins: dict[int, tuple[weakref.ref[Any], Path]] = {}


def _remember_origin(record: Any, root: Path) -> None:
    key = id(record)
    _origins[key] = (weakref.ref(record, lambda _: _origins.pop(key, None)), root)


def _origin_of(record: Any) -> Path | None:
    reference, root = _origins.get(id(record), (None, None))
    return root if reference is not None and reference() is record else None


@attrs.frozen
class _Source:
    """The collected artifacts of one attempt in the run they come from, their folder held open."""

    folder: _atomic.Folder
    entries: list[tuple[str, str | None]]  # (destination, kind)


def _parts(path: str) -> list[str] | None:
    """The names of a relative path that stays where it starts (no ``..``, no absolute path); None otherwise."""
    if not path or path.startswith("/") or "\\" in path or "\0" in path:
        return None
    parts = [part for part in path.split("/") if part not in ("", ".")]
    return parts if parts and ".." not in parts else None


def _collected_artifacts(
    data: dict[str, Any], source_root: Path, opened: _atomic.Folder | None, stack: contextlib.ExitStack
) -> dict[str, _Source]:
    """Where each attempt's collected artifacts are, checked before anything is written.

    They are looked for in the source run, one name at a time and never through a symbolic link: the manifest's
    ``directory`` and each ``destination`` must be relative paths that stay inside it, and a link anywhere on the
    way or inside a collected folder is refused (a link is never copied, so nothing outside the run is).
    """
    found: dict[str, _Source] = {}
    root: _atomic.Folder | None = opened
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
        parts = _parts(manifest["directory"])
        if parts is None:
            raise ArtifactsUnavailable(number, source, "the artifacts folder of its manifest is not inside the run")
        try:
            if root is None:
                root = stack.enter_context(_atomic.Folder.root(source_root))
            folder = stack.enter_context(root.descend(parts))
        except WriteError as error:
            if error.errno == errno.ELOOP:
                reason = _THROUGH_LINK.format("the artifacts folder of its manifest")
                raise ArtifactsUnavailable(number, source, reason) from None
            raise ArtifactsUnavailable(number, source, "the artifacts folder of its manifest is not there") from None
        for destination, kind in entries:
            _check_collected(number, folder, destination, kind)
        found[number] = _Source(folder, entries)
    return found


_THROUGH_LINK = "{} is reached through a symbolic link, which is never followed"


def _check_collected(number: str, folder: _atomic.Folder, destination: str, kind: str | None) -> None:
    path = folder.path / destination
    parts = _parts(destination)
    if parts is None:
        raise ArtifactsUnavailable(number, path, "a collected artifact's destination leads outside artifacts/")
    try:
        with folder.descend(parts[:-1]) as parent:
            found = parent.kind(parts[-1])
            if found == "folder":
                with parent.child(parts[-1]) as below:
                    odd = _odd_entry(below)
                if odd is not None:
                    raise ArtifactsUnavailable(
                        number, odd, "a collected folder holds a symbolic link or special file, which is never copied"
                    )
    except WriteError as error:
        if error.errno == errno.ELOOP:
            raise ArtifactsUnavailable(number, path, _THROUGH_LINK.format("a collected artifact")) from None
        found = None
    if found is None:
        raise ArtifactsUnavailable(number, path, "a collected artifact is missing")
    if found == "link":
        raise ArtifactsUnavailable(number, path, "a collected artifact is a symbolic link, which is never followed")
    if (kind == "file" and found != "file") or (kind == "directory" and found != "folder") or found == "other":
        raise ArtifactsUnavailable(number, path, f"a collected artifact is not a {kind or 'file or folder'}")


def _odd_entry(folder: _atomic.Folder) -> Path | None:
    """The first entry below ``folder`` that is neither a regular file nor a folder (a link, a FIFO), if any."""
    pending = [folder.descend([])]
    try:
        while pending:
            current = pending.pop()
            with current:
                for name in current.names():
                    kind = current.kind(name)
                    if kind == "folder":
                        pending.append(current.child(name))
                    elif kind != "file":
                        return current.path / name
    finally:
        for left in pending:
            left.close()
    return None


def _copies(collected: dict[str, _Source], task: _atomic.Folder) -> dict[str, _Source]:
    """The artifacts to copy into this task folder (none where they are already in place)."""
    copies = {}
    for number, source in collected.items():
        with contextlib.ExitStack() as stack:
            attempt = task.find(f"attempt-{number}")
            target = None
            if attempt is not None:
                stack.enter_context(attempt)
                if attempt.kind("artifacts") is not None:
                    target = stack.enter_context(attempt.child("artifacts"))
            if target is not None and target.same_as(source.folder):
                continue
            if target is not None:
                if all(_same(source.folder, target, destination) for destination, _ in source.entries):
                    continue  # written before, from the same artifacts
                raise ArtifactsUnavailable(number, target.path, "the task already has other artifacts there")
        copies[number] = source
    return copies


def _same(source: _atomic.Folder, target: _atomic.Folder, destination: str) -> bool:
    parts = _parts(destination) or ["."]
    try:
        with source.descend(parts[:-1]) as here, target.descend(parts[:-1]) as there:
            kind = here.kind(parts[-1])
            if kind != there.kind(parts[-1]):
                return False
            if kind == "folder":
                return True
            sizes = [side.stat(parts[-1]).st_size for side in (here, there)]
            return sizes[0] == sizes[1]
    except OSError:
        return False


def _copy_artifacts(number: str, source: _Source, attempt: _atomic.Folder) -> None:
    """Copy into a staging folder beside the target, then rename it into place: all of them or none."""
    staging = f".artifacts.{secrets.token_hex(4)}.tmp"
    target = attempt.path / "artifacts"
    try:
        with attempt.child(staging, new=True) as stage:
            for destination, _ in source.entries:
                parts = _parts(destination) or ["."]
                with source.folder.descend(parts[:-1]) as here, stage.descend(parts[:-1], create=True) as there:
                    if here.kind(parts[-1]) == "folder":
                        _copy_tree(here, parts[-1], there)
                    else:
                        _atomic.copy_file(here, parts[-1], there, parts[-1])
        attempt.rename(staging, attempt, "artifacts")
    except OSError as error:
        with contextlib.suppress(OSError):
            attempt.remove_tree(staging)
        if isinstance(error, WriteError) and str(error.filename).startswith(str(source.folder.path)):
            reason = str(error).removeprefix(f"cannot write {error.filename}: ")
            where = source.folder.path
            raise SpecError(f"attempt {number}: cannot copy its artifacts from {where}: {reason}") from None
        raise WriteError.of(target, error) from None  # the copy's side failed: a full disk, say
    except BaseException:
        with contextlib.suppress(OSError):
            attempt.remove_tree(staging)
        raise


def _copy_tree(source: _atomic.Folder, name: str, target: _atomic.Folder) -> None:
    """A copy of a folder of regular files and folders, its links never followed (one found is refused)."""
    pending = [(source.child(name), target.child(name, create=True))]
    while pending:
        here, there = pending.pop()
        with here, there:
            for entry in here.names():
                kind = here.kind(entry)
                if kind == "folder":
                    pending.append((here.child(entry), there.child(entry, create=True)))
                elif kind == "file":
                    _atomic.copy_file(here, entry, there, entry)
                else:
                    raise _atomic.refused(here.path / entry, "it is a symbolic link or special file, never copied")
            there.chmod(stat.S_IMODE(here.own_stat().st_mode))


class _TaskLock:
    """Serializes the writers of one task; writers of other tasks go on.

    An exclusive ``flock`` on the task folder itself, which keeps its inode when it moves between state
    folders, so nothing is added to the run tree. Finding (or creating) the folder and moving it happen under a
    short ``flock`` on the run folder, so that a writer never looks for the task while another moves it. The
    task folder and its parent are held open: what is written goes into them, wherever their names now lead.
    """

    def __init__(self, root: _atomic.Folder, details: _atomic.Folder, name: str) -> None:
        self.root = root
        self.details = details
        self.name = name
        self.state: str | None = RUNNING  # None: the older details/<name> place
        self.parent: _atomic.Folder | None = None
        self._folder: _atomic.Folder | None = None

    @property
    def folder(self) -> _atomic.Folder:
        assert self._folder is not None
        return self._folder

    @property
    def relative(self) -> str:
        """The task folder's path relative to the run."""
        return f"details/{self.state}/{self.name}" if self.state is not None else f"details/{self.name}"

    @contextlib.contextmanager
    def run(self) -> Iterator[None]:
        if fcntl is None or self.root.fd < 0:  # no flock, or no folder to hold it
            yield
            return
        descriptor = os.open(".", os.O_RDONLY, dir_fd=self.root.fd)
        try:
            _flock(descriptor, blocking=True)
            yield
        finally:
            os.close(descriptor)

    def _found_or_made(self) -> _Place:
        found = _existing(self.details, self.name)
        if found is not None:
            return found
        parent = self.details.child(RUNNING, create=True)
        try:
            return RUNNING, parent, parent.child(self.name, create=True)
        except BaseException:
            parent.close()
            raise

    def __enter__(self) -> _TaskLock:
        if fcntl is None:
            self._take(*self._found_or_made())
            return self
        while True:
            with self.run():
                state, parent, folder = self._found_or_made()
                try:
                    held = _flock(folder.fd, blocking=False)
                except BaseException:
                    _close(parent, folder)
                    raise
                if held:
                    self._take(state, parent, folder)
                    return self
            try:
                _flock(folder.fd, blocking=True)  # the other writer is done with it
                with self.run():
                    current = _existing(self.details, self.name)
                    if current is not None and current[2].same_as(folder):
                        _close(parent, current[2])
                        self._take(current[0], current[1], folder)  # the descriptor that holds the lock
                        return self
                    if current is not None:
                        _close(current[1], current[2])
            except BaseException:
                _close(parent, folder)
                raise
            _close(parent, folder)  # it went away while we waited: look again

    def _take(self, state: str | None, parent: _atomic.Folder, folder: _atomic.Folder) -> None:
        self.state, self.parent, self._folder = state, parent, folder

    def moved(self, state: str, parent: _atomic.Folder) -> None:
        assert self.parent is not None
        self.parent.close()
        self.state, self.parent = state, parent

    def __exit__(self, *exc_info: object) -> None:
        if self.parent is not None:
            _close(self.parent, self.folder)


_Place = tuple[str | None, _atomic.Folder, _atomic.Folder]  # state (None: details/<name>), parent, task folder


def _close(*folders: _atomic.Folder) -> None:
    for folder in folders:
        folder.close()


def _flock(descriptor: int, *, blocking: bool) -> bool:
    """Take an exclusive lock; False if ``blocking`` is off and another holds it. Where the platform or the
    file system has no ``flock``, writers are not serialized (a lock that cannot be had is no lock)."""
    if fcntl is None or descriptor < 0:
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


def _existing(details: _atomic.Folder, name: str) -> _Place | None:
    """Where the task's folder is (the first of the state folders, then ``details/<name>``), opened; a link or a
    file in its place is refused, never passed by."""
    for state in STATES:
        parent = details.find(state)
        if parent is None:
            continue
        try:
            folder = parent.find(name)
        except BaseException:
            parent.close()
            raise
        if folder is not None:
            return state, parent, folder
        parent.close()
    folder = details.find(name)
    return (None, details.descend([]), folder) if folder is not None else None


_ATTEMPT_KEY = re.compile(r"[1-9][0-9]*")
_INDEX_LIMIT = 64 << 20  # an identity index holds an id and a few names: a larger one is not read


def _identity(task: _atomic.Folder, task_id: str) -> dict[str, Any]:
    """The identity index already in the task folder, checked before anything of it is used; a new one if none.

    It is input like any file of the run: it must be this task's index, and each attempt must map to
    ``attempt-<n>`` with its own canonical number, so that no name it holds can become a place to write.
    """
    path = task.path / "task.json"
    raw = task.read("task.json", _INDEX_LIMIT)
    if raw is None:
        return {"schema_version": CURRENT_TASK, "task_id": task_id, "attempts": {}}
    try:
        index = load_json(raw)
    except NotJSON as error:
        raise _atomic.refused(path, f"the task index there is not JSON ({error}); nothing was written") from None
    if (
        not isinstance(index, dict)
        or index.get("schema_version") not in READABLE_TASKS
        or index.get("task_id") != task_id
        or not isinstance(index.get("attempts"), dict)
    ):
        raise _atomic.refused(path, "the task index there is for another task or layout; nothing was written")
    for key, directory in index["attempts"].items():
        if not _ATTEMPT_KEY.fullmatch(key) or directory != f"attempt-{key}":
            raise _atomic.refused(
                path,
                f"the task index there maps attempt {quote(key)} to {describe(directory)}, not to attempt-<n> with "
                "its own canonical number; nothing was written",
            )
    return index


def _state(attempts: dict[str, Any]) -> str:
    return final_state(
        issue.get("severity")
        for payload in attempts.values()
        for issue in payload.get("issues", [])
        if isinstance(issue, dict)
    )


def _move(lock: _TaskLock, details: _atomic.Folder, state: str) -> None:
    """Move a task folder to another state, rewriting the run-relative artifact directories it stores."""
    old = lock.relative + "/"
    new = f"details/{state}/{lock.name}/"
    with details.child(state, create=True) as parent:
        if parent.kind(lock.name) is not None:
            raise SpecError(f"{parent.path / lock.name} already exists; the task has two result folders")
        _each_stored_folder(lock.folder, lambda folder: _relocate_files(folder, old, new))
        assert lock.parent is not None
        here = lock.parent.path / lock.name
        try:
            named = lock.parent.stat(lock.name)
        except OSError as error:
            raise WriteError.of(here, error) from None
        if not os.path.samestat(named, lock.folder.own_stat()):  # what the name leads to is not what was written
            reason = "the task folder was replaced while it was written; it is not moved"
            raise _atomic.refused(here, reason, errno.EBUSY)
        lock.parent.rename(lock.name, parent, lock.name, replace=True)
        parent.sync()
        lock.moved(state, parent.descend([]))


def _each_stored_folder(task: _atomic.Folder, action: Callable[[_atomic.Folder], None]) -> None:
    """``action`` on each folder whose JSON files may hold run-relative paths: ``attempt-*/``, its ``retries/``
    and each retry archive in it, opened without following a link (a link is passed by)."""
    for name in task.names():
        if not name.startswith("attempt-") or task.kind(name) != "folder":
            continue
        with task.child(name) as attempt:
            action(attempt)
            if attempt.kind("retries") != "folder":
                continue
            with attempt.child("retries") as retries:
                action(retries)
                for archive in retries.names():
                    if retries.kind(archive) == "folder":
                        with retries.child(archive) as folder:
                            action(folder)


def _relocate_files(folder: _atomic.Folder, old: str, new: str) -> None:
    for name in folder.names():
        if not name.endswith(".json") or folder.kind(name) != "file":
            continue
        try:
            value = load_json(folder.read(name, current().limits.max_file_size) or b"")
        except (OSError, NotJSON):
            continue  # not ours to repair; the validator reports it
        moved = _relocate(value, old, new)
        if moved != value:
            folder.write(name, _atomic.serialize(moved, "json"))


def _relocate(value: Any, old: str, new: str) -> Any:
    """A copy of ``value`` with every ``directory`` string under ``old`` moved under ``new``, built without
    recursion: a checkpoint may be nested as deep as the reader allows, deeper than Python's stack."""
    top: list[Any] = [None]
    pending: list[tuple[Any, Any, Any]] = [(value, top, 0)]  # (a value, the copy that holds its copy, where)
    while pending:
        item, holder, place = pending.pop()
        if isinstance(item, dict):
            copied: dict[str, Any] = {}
            for key, member in item.items():
                if key == "directory" and isinstance(member, str) and member.startswith(old):
                    copied[key] = new + member.removeprefix(old)
                else:
                    copied[key] = None  # its place, in order; the copy comes later
                    pending.append((member, copied, key))
            holder[place] = copied
        elif isinstance(item, list):
            holder[place] = listed = [None] * len(item)
            pending.extend((member, listed, index) for index, member in enumerate(item))
        else:
            holder[place] = item
    return top[0]
