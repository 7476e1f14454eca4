"""The mutations: small named operations on one file, member or folder of a run, each drawn from a seeded random
generator and each able to say what it did (``details/normal/x--<h>/attempt-1/result.json: /metrics/passed true
-> "true"``).

- a JSON member (``member``): deleted, duplicated (the same key written twice), renamed (suffixed, upper-case,
  padded), its type changed; a number made -0, 1e309, 2^53+1, 1.0 for 1 (1 for 1.0), negative; a string made
  blank, padded, upper-case or non-ASCII;
- a file (``file``): deleted, emptied, cut short, replaced by a folder, given a UTF-8 byte order mark, CRLF line
  ends or a latin-1 byte;
- a task folder (``tree``): moved to another state, renamed, an attempt removed, added (a copy of another) or
  renamed;
- the progress journal (``progress``): a line torn, two lines swapped, a line dropped or written twice.

Half of the member changes are drawn in the run-level files, so that the run root is as well covered as the more
numerous task files.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

from agentbeats_spec.reading._pointers import join

STATES = ("running", "normal", "error", "fatal")
HASHED = re.compile(r"--[0-9a-f]{64}")  # a task folder's hash, shortened where a case is printed
_LITERAL = "\u0000literal:"  # a string written in a value's place, then replaced by the literal it carries
_DUPLICATE = "\u0000duplicate"


@attrs.frozen
class Mutation:
    family: str  # member, file, tree or progress
    operation: str
    path: str  # of the file or folder changed, relative to the run root
    what: str  # the pointer and the change, or the change
    apply: Callable[[Path], None] = attrs.field(eq=False, repr=False)

    @property
    def at_run_root(self) -> bool:
        return "/" not in self.path

    def __str__(self) -> str:
        return f"{HASHED.sub('--<h>', self.path)}: {self.what}"


def _files(root: Path) -> list[str]:
    return sorted(path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file())


def _text(value: Any) -> str:
    if isinstance(value, str) and value.startswith(_LITERAL):
        return value.removeprefix(_LITERAL)
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


_MARKED = re.compile(r'"\\u0000literal:([^"\\]*)"')


def _dumps(document: Any) -> str:
    """The document as the writer writes it (two-space indent, UTF-8), each literal marker replaced by its
    literal."""
    return _MARKED.sub(lambda found: found.group(1), json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _places(item, (*path, index))


def _pointer(path: tuple[Any, ...]) -> str:
    pointer = ""
    for token in path:
        pointer = join(pointer, str(token))
    return pointer or "/"


def _holder(document: Any, path: tuple[Any, ...]) -> Any:
    for token in path[:-1]:
        document = document[token]
    return document


def _retyped(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return rng.choice([str(value).lower(), int(value), None])
    if isinstance(value, (int, float)):
        return rng.choice([str(value), None, [value]])
    if isinstance(value, str):
        return rng.choice([7, None, True, [value], {}])
    if isinstance(value, dict):
        return rng.choice([[], None, "{}"])
    if isinstance(value, list):
        return rng.choice([{}, None, "[]"])
    return rng.choice([{}, "null", 0])


def _numbers(value: Any) -> list[Any]:
    literal = _LITERAL
    found: list[Any] = [f"{literal}-0", f"{literal}1e309", 2**53 + 1, -1]
    if isinstance(value, int) and not isinstance(value, bool):
        found.append(f"{literal}{value}.0")
    elif isinstance(value, float) and value.is_integer():
        found.append(int(value))
    return found


def _strings(value: str) -> list[str]:
    return ["", "  ", f" {value} ", value.upper() if value.upper() != value else value.lower(), value + " ü", "任务"]


def member(rng: random.Random, root: Path, path: str) -> Mutation | None:
    """A change to one member of the JSON document at ``path``."""
    try:
        document = json.loads((root / path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    places = [(where, value) for where, value in _places(document)]
    where, value = rng.choice(places)
    choices: list[str] = ["type"]
    if where:
        choices += ["delete"] + (["duplicate", "rename"] if isinstance(where[-1], str) else [])
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        choices += ["number"] * 3
    if isinstance(value, str):
        choices += ["string"] * 3
    operation = rng.choice(choices)
    pointer = _pointer(where)
    if operation == "delete":
        what = f"{pointer} deleted"

        def change(data: Any) -> Any:
            del _holder(data, where)[where[-1]]
            return data

    elif operation == "duplicate":
        what = f"{pointer} written twice"

        def change(data: Any) -> Any:
            holder = _holder(data, where)
            items = list(holder.items())
            holder.clear()
            for key, item in items:
                holder[key] = item
                if key == where[-1]:
                    holder[_DUPLICATE] = item
            return data

    elif operation == "rename":
        name = rng.choice([f"{where[-1]}_", str(where[-1]).upper(), f" {where[-1]}"])
        name = name if name != where[-1] else f"{name}_"
        what = f"{pointer} renamed {json.dumps(name, ensure_ascii=False)}"

        def change(data: Any) -> Any:
            holder = _holder(data, where)
            items = list(holder.items())
            holder.clear()
            for key, item in items:
                holder[name if key == where[-1] else key] = item
            return data

    else:
        new = (
            _retyped(value, rng)
            if operation == "type"
            else rng.choice(_numbers(value) if operation == "number" else _strings(value))
        )
        what = f"{pointer} {_text(value)} -> {_text(new)}"

        def change(data: Any) -> Any:
            if not where:
                return new
            _holder(data, where)[where[-1]] = new
            return data

    def apply(run: Path) -> None:
        target = run / path
        text = _dumps(change(json.loads(target.read_text(encoding="utf-8"))))
        key = json.dumps(where[-1], ensure_ascii=False) if where and isinstance(where[-1], str) else ""
        text = text.replace(json.dumps(_DUPLICATE), key)
        target.write_text(text, encoding="utf-8")

    return Mutation("member", operation, path, what, apply)


def file(rng: random.Random, root: Path, path: str) -> Mutation:
    """A change to the file at ``path`` as a whole."""
    operation = rng.choice(["delete", "empty", "cut short", "folder", "bom", "crlf", "latin-1"])

    def apply(run: Path) -> None:
        target = run / path
        data = target.read_bytes()
        if operation == "delete":
            target.unlink()
        elif operation == "empty":
            target.write_bytes(b"")
        elif operation == "cut short":
            target.write_bytes(data[: len(data) // 2])
        elif operation == "folder":
            target.unlink()
            target.mkdir()
        elif operation == "bom":
            target.write_bytes(b"\xef\xbb\xbf" + data)
        elif operation == "crlf":
            target.write_bytes(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
        else:  # a character of a string written in latin-1, or one such byte in the first string
            text = data.decode("utf-8", errors="replace")
            wide = next((character for character in text if 127 < ord(character) < 256), None)
            if wide is not None:
                target.write_bytes(data.replace(wide.encode("utf-8"), wide.encode("latin-1"), 1))
            else:
                at = data.find(b'": "')
                at = at + 4 if at >= 0 else len(data) // 2
                target.write_bytes(data[:at] + b"\xe9" + data[at:])

    names = {"folder": "replaced by a folder", "bom": "a byte order mark added", "crlf": "CRLF line ends",
             "latin-1": "a latin-1 byte", "cut short": "cut short"}  # fmt: skip
    return Mutation("file", operation, path, names.get(operation, operation + ("d" if operation != "empty" else "ied")),
                    apply)  # fmt: skip


def _task_folders(root: Path) -> list[str]:
    details = root / "details"
    found = [path for state in STATES for path in (details / state).glob("*/") if path.is_dir()]
    found += [path for path in details.glob("*/") if path.is_dir() and path.name not in STATES]
    return sorted(path.relative_to(root).as_posix() for path in found)


def tree(rng: random.Random, root: Path) -> Mutation | None:
    """A change to the folders of one task."""
    folders = _task_folders(root)
    if not folders:
        return None
    task = rng.choice(folders)
    attempts = sorted(path.name for path in (root / task).glob("attempt-*") if path.is_dir())
    choices = ["move", "rename"] + (["drop attempt", "add attempt", "rename attempt"] if attempts else [])
    operation = rng.choice(choices)
    parts = task.split("/")
    state = parts[1] if len(parts) == 3 else None
    if operation == "move":
        other = rng.choice([s for s in STATES if s != state])
        target = f"details/{other}/{parts[-1]}"
        what = f"moved to details/{other}/"
    elif operation == "rename":
        name = parts[-1]
        last = "0" if name[-1] != "0" else "1"
        renamed = rng.choice([name + "x", "x" + name, name.replace("--", "-", 1), name[:-1] + last])
        target = "/".join([*parts[:-1], renamed])
        what = f"renamed {renamed}"
    else:
        attempt = rng.choice(attempts)
        if operation == "drop attempt":
            target, what = "", f"{attempt} removed"
        elif operation == "add attempt":
            numbers = [int(name[8:]) for name in attempts if name[8:].isdigit()]
            target = f"attempt-{max(numbers, default=0) + 1}"
            what = f"{attempt} copied to {target}"
        else:
            target = attempt.replace("-", "-0", 1)
            what = f"{attempt} renamed {target}"

    def apply(run: Path) -> None:
        folder = run / task
        if not folder.is_dir():
            raise FileNotFoundError(task)
        if operation in ("move", "rename"):
            (run / target).parent.mkdir(parents=True, exist_ok=True)
            folder.rename(run / target)
        elif operation == "drop attempt":
            shutil.rmtree(folder / attempt)
        elif operation == "add attempt":
            shutil.copytree(folder / attempt, folder / target, symlinks=True)
        else:
            (folder / attempt).rename(folder / target)

    return Mutation("tree", operation, task, what, apply)


def progress(rng: random.Random, root: Path) -> Mutation | None:
    """A change to the lines of progress.jsonl."""
    path = root / "progress.jsonl"
    try:
        lines = path.read_bytes().splitlines(keepends=True)
    except OSError:
        return None
    if len(lines) < 2:
        return None
    operation = rng.choice(["tear", "swap", "drop", "twice"])
    first = rng.randrange(len(lines) - 1)
    what = {"tear": f"line {first + 1} torn", "swap": f"lines {first + 1} and {first + 2} swapped",
            "drop": f"line {first + 1} removed", "twice": f"line {first + 1} written twice"}[operation]  # fmt: skip

    def apply(run: Path) -> None:
        target = run / "progress.jsonl"
        found = target.read_bytes().splitlines(keepends=True)
        if operation == "tear":
            found[first] = found[first][: len(found[first]) // 2]
        elif operation == "swap":
            found[first], found[first + 1] = found[first + 1], found[first]
        elif operation == "drop":
            del found[first]
        else:
            found.insert(first, found[first])
        target.write_bytes(b"".join(found))

    return Mutation("progress", operation, "progress.jsonl", what, apply)


def draw(rng: random.Random, root: Path) -> Mutation:
    """One mutation of the run at ``root`` (as it is now)."""
    while True:
        family = rng.choices(["member", "file", "tree", "progress"], weights=[50, 25, 17, 8])[0]
        files = _files(root)
        documents = [path for path in files if path.endswith(".json")]
        found: Mutation | None = None
        if family == "member" and documents:
            top = [path for path in documents if "/" not in path]
            found = member(rng, root, rng.choice(top if top and rng.random() < 0.5 else documents))
        elif family == "file" and files:
            top = [path for path in files if "/" not in path]
            found = file(rng, root, rng.choice(top if top and rng.random() < 0.4 else files))
        elif family == "tree":
            found = tree(rng, root)
        elif family == "progress":
            found = progress(rng, root)
        if found is not None:
            return found
