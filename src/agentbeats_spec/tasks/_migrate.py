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

import filecmp
import os
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from .._issues import InvalidDocument, SpecError, UnconvertibleAttempt, WriteError
from ..layouts import agentcompass as layout
from ..reading._bounded import read_file
from ..records._states import STATES
from ..walk._fs import is_file, is_folder

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
class _Task:
    folder: Path  # relative to the run
    version: str | None
    record: TaskDetail | None = None
    target: Path | None = None  # relative to the run
    reason: str = ""


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
    source = Path(run)
    if not is_folder(source) or not (is_folder(source / "details") or is_file(source / "run_info.json")):
        raise SpecError(f"{source} is not an AgentCompass run folder (no details/ or run_info.json in it)")
    if output is not None and in_place:
        raise SpecError("give either an output folder or --in-place, not both")
    if output is None and not in_place and not dry_run:
        raise SpecError(
            "say where to write: -o NEW writes a migrated copy of the run, --in-place rewrites the run itself "
            "(--dry-run shows what either would do)"
        )
    destination = Path(output) if output is not None else source
    if output is not None and (destination.is_symlink() or (destination.exists() and _not_empty(destination))):
        raise SpecError(f"{destination} already exists; migrate writes a new folder (or use --in-place)")
    if is_folder(source / STAGING):
        if not in_place or dry_run:
            raise SpecError(
                f"{source} holds an interrupted migration ({STAGING}/); run `agentbeats-spec migrate --in-place` "
                "on it to finish it first"
            )
        _recover(source, source / STAGING)
    try:
        tasks = _survey(source)
    except OSError as error:
        raise SpecError(f"cannot read {error.filename or source}: {error.strerror or error}") from None
    if dry_run:
        return _report(destination, tasks, dry_run=True)
    try:
        if output is not None:
            _copy_then_migrate(source, destination, tasks)
        else:
            _migrate_tasks(source, tasks)
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


def _survey(run: Path) -> list[_Task]:
    """Every task folder of the run, with its version and, for a v2 task, its converted record or why not."""
    details = run / "details"
    found: list[_Task] = []
    if not is_folder(details):
        return found
    for entry in sorted(details.iterdir()):
        if entry.name in STATES and is_folder(entry):
            for task in sorted(entry.iterdir()):
                if is_file(task / "task.json"):
                    found.append(_convert(run, task, _version(task / "task.json")))
        elif is_folder(entry) and is_file(entry / "task.json"):
            found.append(_convert(run, entry, _version(entry / "task.json")))
    return found


def _member(index: Path, name: str) -> str | None:
    import json

    try:
        data = json.loads(read_file(index))
    except (OSError, ValueError):
        return None
    value = data.get(name) if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def _version(index: Path) -> str | None:
    return _member(index, "schema_version")


def _task_id(index: Path) -> str | None:
    return _member(index, "task_id")


def _convert(run: Path, task: Path, version: str | None) -> _Task:
    from .._api import to_dict
    from . import _detail

    relative = task.relative_to(run)
    if version != layout.LEGACY_TASK:
        return _Task(relative, version)
    task_id = _task_id(task / "task.json")
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
        already_v3=tuple(
            task.folder for task in tasks if task.version == layout.CURRENT_TASK and task.folder not in targets
        ),
        refused=tuple(
            Refused(task.folder, task.reason or f"task.json has schema_version {task.version!r}, which is not v2")
            for task in tasks
            if task.version != layout.CURRENT_TASK and (task.reason or task.target is None)
        ),
        dry_run=dry_run,
    )


def _copy_then_migrate(source: Path, destination: Path, tasks: list[_Task]) -> None:
    """A migrated copy, written beside its destination and renamed into place once complete."""
    partial = destination.parent / f".{destination.name}.partial-{uuid.uuid4().hex}"
    destination.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copytree(source, partial, symlinks=True, ignore=shutil.ignore_patterns(STAGING))
        _migrate_tasks(partial, tasks)
        if destination.exists():
            destination.rmdir()  # empty, checked above
        os.rename(partial, destination)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def _migrate_tasks(run: Path, tasks: list[_Task]) -> None:
    staging = run / STAGING
    todo = [task for task in tasks if task.record is not None and task.target is not None]
    if not todo:
        return
    staging.mkdir()
    for index, task in enumerate(todo):
        try:
            reason = _migrate_task(run, staging / str(index), task)
        except SpecError as error:  # write_task refused it; the task is as it was
            reason = str(error)
        if reason:
            tasks[tasks.index(task)] = attrs.evolve(task, reason=reason)
    shutil.rmtree(staging)


def _migrate_task(run: Path, stage: Path, task: _Task) -> str:
    """Convert one v2 task in place, through the staging run; a reason when it had to be left as it was."""
    from . import _detail

    assert task.target is not None and task.record is not None
    old, final = run / task.folder, run / task.target
    stage.mkdir()
    (stage / "origin").write_text(task.folder.as_posix(), encoding="utf-8")  # for _recover
    _link_tree(old, stage / "details" / old.name)
    written = _detail.write_task(stage, task.record).parent
    trash = stage / "replaced"
    if final == old:  # a v2 index already in a state folder: the new folder takes the old one's place
        os.rename(old, trash)
        os.rename(written, final)
    elif final.exists():
        # Both exist: a migration stopped between its two renames, or the run holds the task twice.
        if not _same_tree(written, final):
            return (
                f"{task.target} also exists and differs from what the conversion writes; "
                "compare the two folders and remove the one that is wrong"
            )
    else:
        final.parent.mkdir(parents=True, exist_ok=True)
        os.rename(written, final)
    if final != old:
        os.rename(old, trash)
    shutil.rmtree(stage)
    return ""


def _recover(run: Path, staging: Path) -> None:
    """Undo what an interrupted migrate left: a replaced folder whose place is empty goes back (the next pass
    converts it again, or finishes the job when its v3 folder is already in place); the rest are copies."""
    for stage in sorted(staging.iterdir()):
        replaced, origin = stage / "replaced", stage / "origin"
        if is_folder(replaced) and is_file(origin):
            place = run / read_file(origin).decode("utf-8")
            if not place.exists() and layout.MIGRATION_STAGING not in place.parts:
                place.parent.mkdir(parents=True, exist_ok=True)
                os.rename(replaced, place)
    shutil.rmtree(staging)


def _link_tree(source: Path, target: Path) -> None:
    """A copy of a folder whose files are hard links (copies where links are not possible); links stay links."""
    target.mkdir(parents=True)
    for entry in os.scandir(source):
        destination = target / entry.name
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), destination)
        elif entry.is_dir(follow_symlinks=False):
            _link_tree(Path(entry.path), destination)
        else:
            try:
                os.link(entry.path, destination)
            except OSError:
                shutil.copy2(entry.path, destination)


def _same_tree(left: Path, right: Path) -> bool:
    comparison = filecmp.dircmp(left, right)
    if comparison.left_only or comparison.right_only or comparison.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(left, right, comparison.common_files, shallow=False)
    if mismatch or errors:
        return False
    return all(_same_tree(left / name, right / name) for name in comparison.common_dirs)
