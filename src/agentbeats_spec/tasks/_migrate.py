"""``migrate``: rewrite the agentcompass.task.v2 tasks of a run as v3, each filed in its state folder.

A task is converted exactly as AgentCompass 1.0.1 reads it (:func:`read_task`) and written by :func:`write_task`,
so its files are those the 1.0.1 writer writes when it rewrites a v2 task in place; its checkpoints, artifacts and
retry archives move with it. A task that cannot be converted is left as it was, with the reason.

Nothing is lost if a migration stops half-way. Each task is built in a staging run inside the run
(``.agentbeats-spec-migrate/``, its files hard links to the originals where the file system allows, so that nothing
is copied twice and no original is ever written to: every file that changes is replaced, never edited), then moved
into ``details/<state>/`` with one rename, and only then is the old folder renamed away and deleted. Stopped before
the first rename, the run is as it was; between the two, both folders exist and the next ``migrate`` finishes the
job once it has checked that the new one is what it would write. The staging folder is always safe to delete.
"""

from __future__ import annotations

import contextlib
import filecmp
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import attrs

from .._api import to_dict
from ..layouts import agentcompass as layout
from ..reading._documents import NotJSON, load_json
from ..records._states import STATES
from ..units._fs import is_file, is_folder
from ..vocabulary._issues import InvalidDocument, SpecError, UnconvertibleAttempt, WriteError
from ..vocabulary._kind_data import CURRENT_TASK, TASK_V2
from ..vocabulary._settings import current
from ..vocabulary._text import printable, quote
from ..writing._atomic import LINK_REASON, Folder, copy_file
from ..writing._atomic import refused as _refused
from . import _detail

if TYPE_CHECKING:
    from ..models import TaskDetail

STAGING = layout.MIGRATION_STAGING


@attrs.frozen
class Refused:
    """A task left as it was, and why."""

    task: Path
    reason: str


@attrs.frozen
class Migration:
    """What ``migrate`` did (or, with ``dry_run``, would do) to a run."""

    run: Path  # the run that holds the result: the output folder, or the run itself
    converted: tuple[tuple[Path, Path], ...]  # (the v2 task folder, its v3 folder), both relative to the run
    already_v3: tuple[Path, ...]
    refused: tuple[Refused, ...]
    dry_run: bool = False

    @property
    def complete(self) -> bool:
        return not self.refused


@attrs.frozen
class Step:
    """A step of a migration, for a progress display: ``phase`` (``"reading"``: a task folder surveyed, or
    ``"writing"``: a task rewritten), ``done`` of ``total``, and what became of the task once that is known: its old
    and new folder (``converted``; with ``dry_run``, what it would be) or why it was left as it was (``refused``)."""

    phase: Literal["reading", "writing"]
    done: int
    total: int
    converted: tuple[Path, Path] | None = None
    refused: Refused | None = None


OnStep = Callable[[Step], None]


def _no_display(step: Step) -> None:
    pass


@attrs.frozen
class _Task:
    folder: Path  # relative to the run
    version: str | None
    record: TaskDetail | None = None
    target: Path | None = None  # relative to the run
    reason: str = ""


class MigrateUsage(SpecError):
    """A call of :func:`migrate_run` that cannot be done, worded with its parameters; ``command`` says the same
    with the flags of ``agentbeats-spec migrate``, which the command line reports instead."""

    def __init__(self, message: str, command: str) -> None:
        super().__init__(message)
        self.command = command


def migrate_run(
    run: str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    *,
    in_place: bool = False,
    dry_run: bool = False,
) -> Migration:
    """Rewrite every agentcompass.task.v2 task of a run as v3, filed in its state folder.

    ``output`` receives a migrated copy of the run (it must not exist, or be an empty folder); ``in_place`` rewrites
    the run itself; ``dry_run`` only says what would be done. One of the three is required: migrate does not guess
    where to write. Migrating a migrated run changes nothing.
    """
    return migrating(run, output, in_place=in_place, dry_run=dry_run)


def migrating(
    run: str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    *,
    in_place: bool = False,
    dry_run: bool = False,
    on_step: OnStep = _no_display,
) -> Migration:
    """:func:`migrate_run`, calling ``on_step`` as each task is read and written (the command's progress bar and
    its lines, as it goes)."""
    source = Path(run)
    if not is_folder(source) or not (is_folder(source / "details") or is_file(source / "run_info.json")):
        raise SpecError(f"{source} is not an AgentCompass run folder (no details/ or run_info.json in it)")
    if os.path.islink(source / "details"):
        raise SpecError(
            f"{printable(str(source / 'details'), controls=True)} is a symbolic link; migrate never follows a link in "
            "the run it reads or writes"
        )
    if output is not None and in_place:
        raise MigrateUsage(
            "give either output or in_place=True, not both", "give either an output folder or --in-place, not both"
        )
    if output is None and not in_place and not dry_run:
        raise MigrateUsage(
            "say where to write: output=NEW writes a migrated copy of the run, in_place=True rewrites the run itself "
            "(dry_run=True shows what either would do)",
            "say where to write: -o NEW writes a migrated copy of the run, --in-place rewrites the run itself "
            "(--dry-run shows what either would do)",
        )
    destination = Path(output) if output is not None else source
    if output is not None and (destination.is_symlink() or (destination.exists() and _not_empty(destination))):
        raise MigrateUsage(
            f"{destination} already exists; migrate writes a new folder (or in_place=True rewrites the run)",
            f"{destination} already exists; migrate writes a new folder (or use --in-place)",
        )
    if in_place and not dry_run and os.path.lexists(source / STAGING) and not is_folder(source / STAGING):
        raise SpecError(
            f"{printable(str(source / STAGING), controls=True)} is not a folder (a link or a file where migrate "
            "stages its work); nothing was changed: remove it first"
        )
    if is_folder(source / STAGING):
        if not in_place or dry_run:
            raise MigrateUsage(
                f"{source} holds an interrupted migration ({STAGING}/); migrate it in place (in_place=True, "
                "dry_run=False) to finish it first",
                f"{source} holds an interrupted migration ({STAGING}/); run `agentbeats-spec migrate --in-place` "
                "on it to finish it first",
            )
        _recover(source)
    try:
        tasks = _survey(source, on_step, dry_run)
    except OSError as error:
        raise SpecError(f"cannot read {error.filename or source}: {_reason(error)}") from None
    if dry_run:
        return _report(destination, tasks, dry_run=True)
    try:
        if output is not None:
            _copy_then_migrate(source, destination, tasks, on_step)
        else:
            _migrate_tasks(source, tasks, on_step)
    except WriteError:
        raise
    except OSError as error:  # a full disk, a read-only folder: said in one line, the run as it was or resumable
        raise WriteError.of(error.filename or destination, error) from None
    return _report(destination, tasks)


def _not_empty(folder: Path) -> bool:
    try:
        return not folder.is_dir() or any(folder.iterdir())
    except OSError:
        return True


def _survey(run: Path, on_step: OnStep = _no_display, dry_run: bool = False) -> list[_Task]:
    """Every task folder of the run, with its version and, for a v2 task, its converted record or why not.

    The run is listed as the walk lists it, folder by folder from open descriptors, and no link is followed: a
    link where a state or task folder may be is a task that cannot be converted (refused, so the command exits
    1), and so is a task folder whose ``task.json`` cannot be read as JSON (a link, a FIFO, nesting past the
    limit). ``on_step`` is told of each folder read, and of each task refused (or, ``dry_run``, converted)."""
    found: list[_Task] = []
    with Folder.root(run) as root:
        details = root.find("details")  # a linked details/ was refused before: here it is a WriteError
        if details is None:
            return found
        with details:
            places: list[
                tuple[str | None, str]
            ] = []  # every folder that may be a task: listed first, so that the display knows the total
            for name in details.names():
                if name in STATES and details.kind(name) == "folder":
                    with details.child(name) as state:
                        places.extend((name, task) for task in state.names())
                else:
                    places.append((None, name))
            for done, (state_name, name) in enumerate(places, 1):
                if state_name is None:
                    surveyed = _surveyed(run, details, Path("details", name))
                else:
                    with details.child(state_name) as state:
                        surveyed = _surveyed(run, state, Path("details", state_name, name))
                found.extend(surveyed)
                on_step(_read_step(surveyed, done, len(places), dry_run))
    return found


def _read_step(surveyed: list[_Task], done: int, total: int, dry_run: bool) -> Step:
    """What reading a task folder settled: a task refused now, or (a dry run) one that would be converted."""
    for task in surveyed:
        if task.version != CURRENT_TASK and (task.reason or task.target is None):
            return Step("reading", done, total, refused=_refusal(task))
        if dry_run and task.target is not None:
            return Step("reading", done, total, converted=(task.folder, task.target))
    return Step("reading", done, total)


def _refusal(task: _Task) -> Refused:
    return Refused(task.folder, task.reason or f"task.json has schema_version {task.version!r}, which is not v2")


def _surveyed(run: Path, parent: Folder, relative: Path) -> list[_Task]:
    """The task in ``parent`` at ``relative`` (none when it holds no ``task.json``), or why it is refused."""
    kind = parent.kind(relative.name)
    if kind == "link":
        return [_Task(relative, None, reason=f"a symbolic link where a task folder may be; {_NO_LINK}")]
    if kind != "folder":
        return []
    with parent.child(relative.name) as folder:
        if folder.kind(INDEX) is None:
            return []
        try:
            index = load_json(folder.read(INDEX, current().limits.max_file_size) or b"")
        except WriteError as error:  # a link, a FIFO, a file larger than the limit
            return [_Task(relative, None, reason=f"{INDEX} cannot be read: {_reason(error)}")]
        except NotJSON as error:
            return [_Task(relative, None, reason=f"{INDEX}:{error}")]
    return [_convert(run, run / relative, index)]


def _reason(error: OSError) -> str:
    """Why an OSError happened, without the ``cannot write PATH: `` a :class:`WriteError` of ``Folder`` begins with
    (its reads are refused that way too)."""
    return str(error.strerror or error).removeprefix(f"cannot write {error.filename}: ")


_NO_LINK = "migrate never follows a link in the run it reads or writes"
INDEX = "task.json"


def _member(index: object, name: str) -> str | None:
    value = index.get(name) if isinstance(index, dict) else None
    return value if isinstance(value, str) else None


def _convert(run: Path, task: Path, index: object) -> _Task:
    relative = task.relative_to(run)
    version = _member(index, "schema_version")
    if version != TASK_V2:
        return _Task(relative, version)
    task_id = _member(index, "task_id")
    if task_id is not None and task.name != layout.task_folder_name(task_id):
        return _Task(
            relative,
            version,
            reason=f"the folder is not named as AgentCompass names task {task_id!r} "
            f"({layout.task_folder_name(task_id)}), so AgentCompass 1.0.1 refuses to read it; rename it first",
        )
    try:
        record = _detail.read_task(task)
    except UnconvertibleAttempt as error:
        return _Task(relative, version, reason=str(error))
    except InvalidDocument as error:
        first = next((issue for issue in error.issues if issue.severity == "error"), None)
        where = ""
        if first is not None and first.file:
            where = os.path.relpath(first.file, task)
            where = f"{where}:{first.line}: " if first.line else f"{where}: "
        why = f"{where}{first.message}" if first is not None else str(error)
        return _Task(relative, version, reason=f"AgentCompass 1.0.1 cannot read it: {why}")
    state = _detail._state(to_dict(record)["attempts"])
    return _Task(relative, version, record, Path("details", state, task.name))


def _report(run: Path, tasks: list[_Task], *, dry_run: bool = False) -> Migration:
    converted = tuple((task.folder, task.target) for task in tasks if task.target is not None and not task.reason)
    targets = {target for _, target in converted}  # a v3 twin left by an interrupted migrate is the same task
    return Migration(
        run=run,
        converted=converted,
        already_v3=tuple(task.folder for task in tasks if task.version == CURRENT_TASK and task.folder not in targets),
        refused=tuple(
            _refusal(task) for task in tasks if task.version != CURRENT_TASK and (task.reason or task.target is None)
        ),
        dry_run=dry_run,
    )


def _copy_then_migrate(source: Path, destination: Path, tasks: list[_Task], on_step: OnStep) -> None:
    """A migrated copy, written beside its destination and renamed into place once complete."""
    partial = destination.parent / f".{destination.name}.partial-{uuid.uuid4().hex}"
    destination.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copytree(source, partial, symlinks=True, ignore=shutil.ignore_patterns(STAGING))
        _migrate_tasks(partial, tasks, on_step)
        if destination.exists():
            destination.rmdir()  # empty, checked above
        os.rename(partial, destination)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def _migrate_tasks(run: Path, tasks: list[_Task], on_step: OnStep = _no_display) -> None:
    todo = [task for task in tasks if task.record is not None and task.target is not None]
    if not todo:
        return
    with Folder.root(run) as root:
        with root.child(STAGING, new=True) as staging:
            for index, task in enumerate(todo):
                try:
                    reason = _migrate_task(root, staging, str(index), task)
                except SpecError as error:  # write_task refused it; the task is as it was
                    reason = str(error)
                if reason:
                    tasks[tasks.index(task)] = attrs.evolve(task, reason=reason)
                    on_step(Step("writing", index + 1, len(todo), refused=Refused(task.folder, reason)))
                elif task.target is not None:  # always, for a task to do
                    on_step(Step("writing", index + 1, len(todo), converted=(task.folder, task.target)))
        root.remove_tree(STAGING)


def _migrate_task(root: Folder, staging: Folder, key: str, task: _Task) -> str:
    """Convert one v2 task in place, through the staging run; a reason when it had to be left as it was.

    Every folder is held open from the run down, never through a link, and every move is a rename between open
    folders: a link in the run (or one swapped in meanwhile) is refused, never followed.
    """
    assert task.target is not None and task.record is not None
    *old_at, name = task.folder.parts
    *final_at, final_name = task.target.parts
    with contextlib.ExitStack() as stack:
        stage = stack.enter_context(staging.child(key, new=True))
        stage.write("origin", task.folder.as_posix().encode("utf-8"))  # for _recover
        old_parent = stack.enter_context(root.descend(old_at))
        with old_parent.child(name) as old, stage.child("details", create=True) as copied:
            _link_tree(old, copied, name)
        state, written = _detail.write_task_into(stage, task.record)
        written_parent = stack.enter_context(stage.descend(["details", state]))
        if task.target == task.folder:  # a v2 index already in a state folder: the new folder takes its place
            old_parent.rename(name, stage, "replaced")
            written_parent.rename(written, old_parent, name)
        else:
            final_parent = stack.enter_context(root.descend(final_at, create=True))
            found = final_parent.kind(final_name)
            if found not in (None, "folder"):
                raise _refused(final_parent.path / final_name, LINK_REASON if found == "link" else "it is not a folder")
            if found is not None:
                # Both exist: a migration stopped between its two renames, or the run holds the task twice.
                if not _same_tree(stage.path / "details" / state / written, root.path / task.target):
                    return (
                        f"{task.target} also exists and differs from what the conversion writes; "
                        "compare the two folders and remove the one that is wrong"
                    )
            else:
                written_parent.rename(written, final_parent, final_name)
            old_parent.rename(name, stage, "replaced")
    staging.remove_tree(key)
    return ""


def _recover(run: Path) -> None:
    """Undo what an interrupted migrate left: a replaced folder whose place is empty goes back (the next pass
    converts it again, or finishes the job when its v3 folder is already in place); the rest are copies.

    The staging folder is input like the rest of the run: each replaced folder goes back only to a place the
    recovery can verify (its ``origin`` names a task folder of this run's ``details/``, the one named for the task
    its ``task.json`` holds, reached without a link). Anything else is refused before anything is moved, and the
    run is left as it was.
    """
    with Folder.root(run) as root:
        with root.child(STAGING) as staging:
            moves: list[tuple[str, list[str]]] = []
            problems: list[str] = []
            for key in staging.names():
                problem, place = _verified(staging, key)
                if not problem and place is not None:
                    problem = _unreachable(root, place)
                if problem:
                    problems.append(f"{key}: {problem}")
                elif place is not None:
                    moves.append((key, place))
            if problems:
                raise SpecError(
                    f"{printable(str(run / STAGING), controls=True)} holds an interrupted migration that cannot be "
                    f"verified ({'; '.join(problems)}); nothing was changed: move back by hand what belongs in "
                    f"details/, then remove {STAGING}/"
                )
            for key, place in moves:
                *parents, name = place
                with staging.child(key) as stage, root.descend(parents, create=True) as parent:
                    if parent.kind(name) is None:
                        stage.rename("replaced", parent, name)
        root.remove_tree(STAGING)


def _unreachable(root: Folder, place: list[str]) -> str:
    """Why a task folder's place cannot be reached from the run without a link (empty when it can)."""
    at = root.descend([])
    try:
        for name in place[:-1]:
            kind = at.kind(name)
            if kind is None:
                return ""  # made when the folder goes back
            if kind != "folder":
                return f"{'/'.join(place)} is reached through a {'symbolic link' if kind == 'link' else 'file'}"
            below = at.child(name)
            at.close()
            at = below
        return ""
    finally:
        at.close()


def _verified(staging: Folder, key: str) -> tuple[str, list[str] | None]:
    """Why the stage ``key`` cannot be recovered (empty when it can), and where its replaced folder goes back to
    (None when it holds only copies)."""
    kind = staging.kind(key)
    if kind != "folder":
        return f"a {'symbolic link' if kind == 'link' else 'file'} where a stage folder belongs", None
    with staging.child(key) as stage:
        replaced = stage.kind("replaced")
        if replaced is None:
            return "", None  # stopped before the old folder moved: only copies
        if replaced != "folder":
            return "replaced is not a folder", None
        try:
            origin = (stage.read("origin", 4096) or b"").decode("utf-8")
        except (WriteError, UnicodeDecodeError):
            return "origin cannot be read as a file", None
        place = origin.split("/")
        name = place[-1]
        states = len(place) == 3 and place[1] in STATES
        if place[0] != "details" or not (states or (len(place) == 2 and name not in STATES)) or not _plain(name):
            return f"origin {quote(origin)} is not a task folder of this run's details/", None
        with stage.child("replaced") as folder:
            try:
                index = load_json(folder.read("task.json", 64 << 20) or b"null")
            except (WriteError, NotJSON):
                index = None
        task_id = index.get("task_id") if isinstance(index, dict) else None
        if not isinstance(task_id, str) or layout.task_folder_name(task_id) != name:
            return f"origin {quote(origin)} is not the folder of the task replaced/task.json holds", None
        return "", place


def _plain(name: str) -> bool:
    return name not in ("", ".", "..") and not name.startswith(".") and "\\" not in name and "\0" not in name


def _link_tree(source: Folder, target: Folder, name: str) -> None:
    """A copy of a folder whose files are hard links (copies where links are not possible); links stay links.
    Nothing is followed: both sides are held open, folder by folder."""
    pending = [(source.descend([]), target.child(name, new=True))]
    while pending:
        here, there = pending.pop()
        with here, there:
            for name in here.names():
                kind = here.kind(name)
                if kind == "link":
                    there.symlink(here.readlink(name), name)
                elif kind == "folder":
                    pending.append((here.child(name), there.child(name, new=True)))
                else:
                    try:
                        there.hard_link(here, name)
                    except OSError:
                        if kind == "file":
                            copy_file(here, name, there, name)


def _same_tree(left: Path, right: Path) -> bool:
    comparison = filecmp.dircmp(left, right)
    if comparison.left_only or comparison.right_only or comparison.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(left, right, comparison.common_files, shallow=False)
    if mismatch or errors:
        return False
    return all(_same_tree(left / name, right / name) for name in comparison.common_dirs)
