"""The files of an ACTF <-> ATIF conversion: what is read (a trajectory, an attempt result, a task folder, an
ATIF file), through the package's one validation path, and what is written, atomically and never over the input.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

import attrs

try:  # optional: the package works without its compiled wheels, and writes large conversions slower
    import orjson
except ImportError:  # pragma: no cover - exercised by the pure-Python test run
    orjson = None  # type: ignore[assignment]

from ..checking import _examine, _kinds, _sources
from ..layouts import kind_in_place
from ..reading import _bounded, _documents
from ..vocabulary._issues import InvalidDocument, Issue, SpecError, WriteError
from ..vocabulary._text import json_text, printable
from ..writing import _atomic
from . import _check, _conversion
from ._conversion import Conversion, Loss

ATIF_SUFFIX = ".atif.json"
_ATTEMPT = re.compile(r"^attempt-([1-9][0-9]*)$")
# Attempt members carried into ATIF's run metadata (root extra.agentcompass) besides the trajectory.
_RUN_MEMBERS = ("status", "metrics", "final_answer", "issues")
# meta.harness members that name the agent and model.
_HARNESS_NAMES = {"name": "agent_name", "version": "agent_version", "model": "model_name", "model_name": "model_name"}


@attrs.frozen
class Converted:
    """One written (or, under --strict, refused) conversion."""

    source: Path
    output: Path
    conversion: Conversion


# ---------------------------------------------------------------------------------------------- public API


def to_atif(
    source: os.PathLike[str] | Mapping[str, Any],
    *,
    agent_name: str | None = None,
    agent_version: str | None = None,
    model_name: str | None = None,
) -> Conversion:
    """An ACTF trajectory, or the trajectory of an AgentCompass attempt result, as an ATIF v1.8 document.

    ``source`` is a path (``pathlib.Path`` or any ``os.PathLike``) to a trajectory or an attempt ``result.json``,
    or an already parsed mapping of either. The result has ``document`` (the ATIF trajectory), ``lost`` (every
    source member ATIF has no counterpart for, with its pointer into the source) and ``invented`` (every ATIF
    member filled with a value that was not in the source, with its pointer into the document). Both are also
    recorded inside the document (``extra.actf`` and ``extra.agentbeats_spec``), so that
    :func:`from_atif` gives the trajectory back exactly. Raises :class:`InvalidDocument` for an invalid source.

    ATIF requires an agent name and version. An attempt's ``meta.harness`` and its run's ``run_info.json`` may say
    them (and the model); ``agent_name``, ``agent_version`` and ``model_name`` say them for the caller, and win.
    What nothing says is written as ``"unknown"`` and listed as invented.
    """
    given = Given(agent_name, agent_version, model_name)
    if isinstance(source, os.PathLike):
        path = Path(source)
        if path.is_dir():
            raise SpecError(f"{path} is a folder: convert a task folder with `agentbeats-spec convert --to atif`")
        return _attempt_or_trajectory(path, None, given)
    if not isinstance(source, Mapping):
        raise TypeError(f"cannot convert a {type(source).__name__}: pass a path (pathlib.Path) or a parsed mapping")
    data = dict(source)
    if str(data.get("schema_version")).startswith("ATIF-"):
        raise SpecError("this is an ATIF document; convert it with from_atif")
    is_actf = data.get("schema_version") == _conversion.ACTF_VERSION
    kind = _kinds.get("actf-trajectory" if is_actf else "agentcompass-attempt")
    examined = _sources.examine_source(data, kind)
    if not examined.valid:
        raise InvalidDocument(examined.issues)
    if kind.name == "actf-trajectory":
        return _conversion.to_atif(data, given.context())
    return _from_attempt(data, None, None, None, given)


def from_atif(source: os.PathLike[str] | Mapping[str, Any]) -> Conversion:
    """An ATIF document (a path, or a parsed mapping) as an ACTF_v1.0 trajectory, with its loss report.

    What :func:`to_atif` wrote comes back exactly; members another writer put in ATIF that ACTF has no place for
    are kept in ``atif`` members and listed in ``lost``. Raises :class:`InvalidDocument` for a document that is
    not ATIF; the trajectory returned passes this package's validation.
    """
    if isinstance(source, os.PathLike):
        path = Path(source)
        return _atif_to_actf(read_atif(path), str(path))
    if not isinstance(source, Mapping):
        raise TypeError(f"cannot convert a {type(source).__name__}: pass a path (pathlib.Path) or a parsed mapping")
    data = dict(source)
    document = _documents.from_data(data)
    findings = [*document.findings, *(_check.check(data) if document.readable else ())]
    issues = _examine.issues_of(document, findings, None, None)
    if any(issue.severity == "error" for issue in issues):
        raise InvalidDocument(issues)
    return _atif_to_actf(data, None)


# ---------------------------------------------------------------------------------------------- reading


def read_validated(path: Path, kinds: tuple[str, ...]) -> tuple[Any, _kinds.Kind]:
    """A file's data after the whole validation path; InvalidDocument on an error."""
    examined = _sources.examine_named(path, kind_in_place(path, None), follow=True)
    if not examined.document.readable and examined.valid:  # not read (a FIFO, a device): say why, not "no kind"
        raise SpecError(f"{path}: {examined.findings[0].message}")
    data = examined.document.data if examined.document.readable else None
    if examined.kind is None and isinstance(data, dict) and str(data.get("schema_version")).startswith("ATIF-"):
        raise SpecError(f"{path} is an ATIF file; convert it with --from atif")
    if not examined.valid:
        raise InvalidDocument(examined.issues)
    kind = examined.kind
    if kind is None or kind.name not in kinds:
        what = f"an {kind.name} file" if kind else "of no known kind"
        raise SpecError(f"{path} is {what}; expected one of: {', '.join(kinds)}")
    return examined.document.data, kind


def read_atif(path: Path) -> Any:
    """An ATIF file's data, read like every other file (duplicates, NaN, encoding) and checked as ATIF."""
    raw, problem = _sources.read_named(path)
    document = _documents.unread("json", (problem,)) if problem is not None else _documents.read(raw, "json")
    findings = list(document.findings)
    if document.readable:
        findings.extend(_check.check(document.data))
    issues = _examine.issues_of(document, findings, str(path), None)
    if any(issue.severity == "error" for issue in issues):
        raise InvalidDocument(issues)
    return document.data


@attrs.frozen
class Given:
    """What the caller says about the agent; it wins over what the attempt and its run say."""

    agent_name: str | None = None
    agent_version: str | None = None
    model_name: str | None = None

    def context(self, context: _conversion._Context | None = None) -> _conversion._Context:
        context = context or _conversion._Context()
        for field in ("agent_name", "agent_version", "model_name"):
            value = getattr(self, field)
            if value is not None:
                setattr(context, field, value)
        return context


def _attempt_or_trajectory(path: Path, output: str | None, given: Given) -> Conversion:
    data, kind = read_validated(path, ("actf-trajectory", "agentcompass-attempt"))
    if kind.name == "actf-trajectory":
        return _conversion.to_atif(data, given.context(), source_file=str(path), output_file=output)
    task_dir = path.parent.parent
    index = _task_index(task_dir)
    match = _ATTEMPT.match(path.parent.name)
    number = int(match.group(1)) if match else None
    return _from_attempt(data, index, number, _run_info(task_dir), given, source=str(path), output=output)


def _task_index(task_dir: Path) -> dict[str, Any] | None:
    """task.json beside the attempts, when there is one (it names the task); validated like any file."""
    path = task_dir / "task.json"
    if not path.is_file():
        return None
    data, _ = read_validated(path, ("agentcompass-task",))
    return data if isinstance(data, dict) else None


def _run_info(task_dir: Path) -> dict[str, Any]:
    """run_info.json of the run a task folder belongs to (details/<state>/<task>/), read leniently: it only
    names the harness, the model and the run."""
    if task_dir.parent.parent.name != "details":
        return {}
    path = task_dir.parent.parent.parent / "run_info.json"
    raw, problem = _bounded.read_bounded(path)
    if problem is not None or not raw:
        return {}
    document = _documents.read(raw, "json")
    return document.data if document.readable and isinstance(document.data, dict) else {}


def _from_attempt(
    data: Mapping[str, Any],
    index: Mapping[str, Any] | None,
    number: int | None,
    run_info: Mapping[str, Any] | None,
    given: Given,
    *,
    source: str | None = None,
    output: str | None = None,
) -> Conversion:
    context = _conversion._Context()
    request = (run_info or {}).get("request")
    request = request if isinstance(request, dict) else {}
    for member, field in (("harness", "agent_name"), ("model", "model_name")):
        component = request.get(member)
        identifier = component.get("id") if isinstance(component, dict) else None
        if isinstance(identifier, str) and identifier:
            setattr(context, field, identifier)
    run_id = (run_info or {}).get("run_id")
    if isinstance(run_id, str) and run_id:
        context.session_id = run_id
    meta: Mapping[str, Any] = data["meta"] if isinstance(data.get("meta"), dict) else {}
    harness: Mapping[str, Any] = meta["harness"] if isinstance(meta.get("harness"), dict) else {}
    used_harness = set()
    for member, field in _HARNESS_NAMES.items():
        value = harness.get(member)
        if isinstance(value, str) and value:
            setattr(context, field, value)
            used_harness.add(member)
    run: dict[str, Any] = {}
    if index is not None and isinstance(index.get("task_id"), str):
        run["task_id"] = index["task_id"]
    if number is not None:
        run["attempt"] = number
    run.update((member, data[member]) for member in _RUN_MEMBERS if member in data)
    context.run = run
    given.context(context)
    lost = tuple(_attempt_losses(data, harness, used_harness, source))
    trajectory = data.get("trajectory")
    if not isinstance(trajectory, dict) or not trajectory:
        trajectory = {"schema_version": _conversion.ACTF_VERSION, "steps": []}  # {}: unavailable, so no steps
    return _conversion.to_atif(
        trajectory, context, prefix="/trajectory", source_file=source, output_file=output, lost_before=lost
    )


def _attempt_losses(
    data: Mapping[str, Any], harness: Mapping[str, Any], used_harness: set[str], file: str | None
) -> Iterator[Loss]:
    """The attempt's members that are not its trajectory and not run metadata: ATIF has no place for them."""
    for member, value in data.items():
        if member in ("trajectory", *_RUN_MEMBERS) or _empty(value):
            continue
        if member == "meta" and isinstance(value, dict):
            for namespace, content in value.items():
                if namespace == "harness" and isinstance(content, dict):
                    for key, item in content.items():
                        if key not in used_harness and not _empty(item):
                            yield Loss(f"/meta/harness/{_escape(key)}", _ATTEMPT_REASON, file)
                elif not _empty(content):
                    yield Loss(f"/meta/{_escape(namespace)}", _ATTEMPT_REASON, file)
            continue
        yield Loss(f"/{_escape(member)}", _ATTEMPT_REASON, file)


_ATTEMPT_REASON = "a member of the attempt, not of its trajectory: ATIF has no place for it (not copied)"


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _atif_to_actf(data: Any, source: str | None) -> Conversion:
    conversion = _conversion.from_atif(data, source_file=source)
    examined = _examine.examine(_documents.from_data(conversion.document), _kinds.get("actf-trajectory"), None)
    if not examined.valid:  # a bug of the converter, never the input's fault
        raise RuntimeError("the ACTF trajectory made from ATIF is not valid: " + examined.issues[0].message)
    return conversion


# ---------------------------------------------------------------------------------------------- the command


def convert(
    source: Path, output: Path, *, to_atif: bool, strict: bool, given: Given | None = None
) -> tuple[list[Converted], bool]:
    """Convert ``source`` and write what it becomes; (the conversions, whether anything was written).

    Under ``strict`` nothing is written when anything would be lost or invented.
    """
    jobs = list(_plan(source, output, to_atif))
    for _, target in jobs:
        _refuse_input(target, source)
    done = []
    for path, target in jobs:
        if to_atif:
            conversion = _attempt_or_trajectory(path, str(target), given or Given())
        else:
            conversion = _atif_to_actf(read_atif(path), str(path))
        done.append(Converted(path, target, conversion))
    if strict and any(not item.conversion.exact for item in done):
        return done, False
    if source.is_dir():
        try:
            output.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise WriteError.of(output, error) from None
    for item in done:  # a failed write raises WriteError and leaves the old file (if any) as it was
        _atomic.write_atomic(item.output, serialize(item.conversion.document))
    return done, True


def _plan(source: Path, output: Path, to_atif: bool) -> Iterator[tuple[Path, Path]]:
    if not source.is_dir():
        yield source, output
        return
    if not to_atif:
        raise SpecError(f"{source} is a folder; --from atif converts one ATIF file")
    if output.exists() and not output.is_dir():
        raise SpecError(f"{output} is a file; converting a task folder writes one file per attempt into a folder")
    index, _ = read_validated(source / "task.json", ("agentcompass-task",))
    attempts = index.get("attempts") if isinstance(index, dict) else None
    found = False
    for number, folder in sorted((attempts or {}).items(), key=lambda item: int(item[0])):
        result = source / str(folder) / "result.json"
        if result.is_file():
            found = True
            yield result, output / f"attempt-{number}{ATIF_SUFFIX}"
    if not found:
        raise SpecError(f"{source}: no attempt has a result.json yet; nothing to convert")


def _refuse_input(target: Path, source: Path) -> None:
    """Never write over what is being read."""
    if source.is_dir():
        try:
            target.resolve().relative_to(source.resolve())
        except ValueError:
            return
        raise SpecError(f"{target} is inside the task folder being converted; write the conversion elsewhere")
    if target.resolve() == source.resolve() or (target.exists() and os.path.samefile(target, source)):
        raise SpecError(f"{target} is the input file; write the conversion to another file")


def serialize(document: Any) -> bytes:
    """JSON as the package writes it (UTF-8, indent 2, non-ASCII kept, final newline), fast for large files."""
    if orjson is not None:
        try:
            # The final newline is orjson's own: adding it here would copy the whole output once more.
            dumped: bytes = orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
            return dumped
        except TypeError:  # an integer beyond 64 bits, a lone surrogate: the standard library writes them
            pass
    return _atomic.serialize(document, "json")


# ---------------------------------------------------------------------------------------------- reports


def text_report(done: list[Converted], written: bool, out: TextIO, *, to_atif: bool) -> None:
    arrow = "ACTF -> ATIF" if to_atif else "ATIF -> ACTF"
    for item in done:
        conversion = item.conversion
        state = "written" if written else "not written"
        out.write(
            f"{printable(str(item.source), controls=True)} -> {printable(str(item.output), controls=True)} "
            f"({arrow}, {state}): {len(conversion.lost)} lost, "
            f"{len(conversion.invented)} invented\n"
        )
        _grouped(conversion.lost, "lost (no counterpart in the target format)", out)
        _grouped(conversion.invented, "invented (filled in because the target format requires it; marked)", out)
    if not written:
        out.write("nothing written: --strict refuses a conversion that loses or invents anything\n")


def _grouped(entries: tuple[Loss, ...], title: str, out: TextIO) -> None:
    """One line per kind of entry: the same member of many steps is shown once, with how many there are."""
    if not entries:
        return
    out.write(f"  {title}:\n")
    groups: Counter[tuple[str, str]] = Counter()
    first: dict[tuple[str, str], str] = {}
    for entry in entries:
        key = (re.sub(r"/[0-9]+(?=/|$)", "/*", entry.pointer), entry.reason)
        groups[key] += 1
        first.setdefault(key, entry.pointer)
    for key, count in groups.items():
        shown = first[key] if count == 1 else f"{key[0]} ({count}x)"
        out.write(f"    {printable(shown, controls=True)}: {printable(key[1], controls=True)}\n")


def json_report(done: list[Converted], written: bool, out: TextIO) -> None:
    """The report as ``json.dump(..., indent=2)`` would write it, one entry at a time: a report of a million
    entries never exists as a million dicts at once."""
    outputs = [str(item.output) for item in done] if written else []
    out.write('{\n  "written": ' + _json(outputs).replace("\n", "\n  "))
    for name in ("lost", "invented"):
        out.write(f',\n  "{name}": [')
        separator = "\n"
        for item in done:
            for entry in getattr(item.conversion, name):
                text = _json(entry.as_dict()).replace("\n", "\n    ")
                out.write(separator + "    " + text)
                separator = ",\n"
        out.write("]" if separator == "\n" else "\n  ]")
    out.write("\n}\n")


def issues_json(issues: list[Issue], out: TextIO) -> None:
    out.write(_json({"written": [], "lost": [], "invented": [], "issues": [issue.as_dict() for issue in issues]}))
    out.write("\n")


def _json(value: Any) -> str:
    """JSON as the reports show it: names that are not UTF-8 and hostile characters escaped (``_text``)."""
    return json_text(json.dumps(_printable(value), ensure_ascii=False, indent=2))


def _printable(value: Any) -> Any:
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, list):
        return [_printable(item) for item in value]
    if isinstance(value, dict):
        return {printable(name): _printable(item) for name, item in value.items()}
    return value
