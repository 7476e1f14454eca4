"""The configuration of a project: ``[tool.agentbeats-spec]`` in ``pyproject.toml``, or ``.agentbeats-spec.toml``.

Found upward from the working folder (the first folder that holds either; ``.agentbeats-spec.toml`` first), up to
the repository's root or the home folder; used only when this user owns it and nobody else may write it or its
folder (``reading._trusted``; docs/security.md, "Configuration, baselines and allow-lists"), read
through the project's own TOML reader, and checked whole before anything is validated: an unknown key, a code or
family that does not exist or a value of the wrong type is a usage error naming the file and the key. Globs are
relative to the configuration's folder. What it says becomes run settings (``Limits``, strict) and a filter of
the report (:meth:`Config.filtered`): ``exclude``, ``select``, ``ignore`` and ``per-file-severity``.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, cast, get_args

import attrs

from ..checking._collect import Report
from ..reading._trusted import Untrusted, read_trusted, warn_on_stderr
from ..vocabulary._codes import CODES, Severity
from ..vocabulary._issues import Issue, SpecError
from ..vocabulary._settings import GIB, Limits

NAMES = (".agentbeats-spec.toml", "pyproject.toml")
SECTION = ("tool", "agentbeats-spec")
LIMIT_KEYS = {
    "max-file-size": "max_file_size",
    "max-depth": "max_depth",
    "max-issues": "max_issues",
    "max-shown": "shown_length",
}
KEYS = {"exclude", "select", "ignore", "strict", "per-file-severity", *LIMIT_KEYS}
# Set to anything, as --no-config: no configuration nor allow-list is looked for (a reviewer's shell, a CI job).
NO_CONFIG = "AGENTBEATS_SPEC_NO_CONFIG"
IGNORE = "ignore"  # a per-file-severity that drops the issue, as ruff's per-file-ignores do
# A header line that names the table; no part of it matches a line end (see names_the_table).
_NAMES_THE_TABLE = re.compile(r"""^[ \t]*\[+[ \t]*tool[ \t]*\.[ \t]*["']?agentbeats-spec""", re.MULTILINE)
FAMILIES = frozenset(code.partition(".")[0] for code in CODES)


@attrs.frozen
class Config:
    """What a configuration file says (empty: no file), with the folder its globs are relative to."""

    path: Path | None = None
    root: Path = attrs.field(factory=Path.cwd)
    exclude: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    strict: bool = False
    per_file_severity: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    limits: Mapping[str, int] = attrs.field(factory=dict)

    def with_command_line(self, exclude: Iterable[str], select: Iterable[str] | None, ignore: Iterable[str]) -> Config:
        """The command line's ``--exclude`` and ``--ignore`` extend the file's; its ``--select`` replaces it.
        Globs of the command line are relative to the working folder, as the paths it names are."""
        select = tuple(select) if select is not None else None
        for key, selectors in (("--select", select or ()), ("--ignore", tuple(ignore))):
            _check_selectors(selectors, f"{key}")
        cwd = Path.cwd()
        extra = tuple(str(Path(os.path.relpath(cwd, self.root), pattern).as_posix()) for pattern in exclude)
        return attrs.evolve(
            self,
            exclude=self.exclude + tuple(pattern.removeprefix("./") for pattern in extra),
            select=self.select if select is None else select,
            ignore=self.ignore + tuple(ignore),
        )

    def applied_to(self, limits: Limits, given: Mapping[str, int | None]) -> Limits:
        """``limits`` with the file's limits where the command line (``given``, None where not given) names none."""
        chosen = {field: value for field, value in given.items() if value is not None}
        return attrs.evolve(limits, **{**self.limits, **chosen})

    def excluded(self, path: str | os.PathLike[str]) -> bool:
        """Whether a file or folder (or a folder it is in) matches an ``exclude`` glob."""
        return any(_matches(pattern, path, self.root, below=True) for pattern in self.exclude)

    def filtered(self, report: Report) -> Report:
        """The report less what the configuration leaves out, with the severities it sets."""
        kept: list[Issue] = []
        for issue in report.issues:
            if issue.file is not None and self.excluded(issue.file):
                continue
            if self.select and not _selected(issue.code, self.select):
                continue
            if _selected(issue.code, self.ignore):
                continue
            severity = self._severity(issue)
            if severity == IGNORE:
                continue
            if severity is not None and severity != issue.severity:
                # The code table states the severities the package reports a code at; a project's own
                # configuration may restate one for its files, as ruff's per-file settings do.
                with attrs.validators.disabled():
                    issue = attrs.evolve(issue, severity=cast(Severity, severity))
            kept.append(issue)
        return attrs.evolve(report, issues=tuple(kept))

    def _severity(self, issue: Issue) -> str | None:
        found = None
        for pattern, changes in self.per_file_severity:
            if issue.file is None or not _matches(pattern, issue.file, self.root, below=False):
                continue
            for selector, severity in changes:  # the most specific selector of the last matching glob wins
                if _selected(issue.code, (selector,)):
                    found = severity
        return found


def find(start: Path, warn: Callable[[str], None] = warn_on_stderr) -> Path | None:
    """The configuration that applies in ``start``: the nearest ``.agentbeats-spec.toml``, or ``pyproject.toml``
    with a ``[tool.agentbeats-spec]`` table, in ``start`` or a folder above it, up to the repository's root (a
    folder holding ``.git``) or the home folder, never beyond.

    The nearest one that another user owns or others may write (it or its folder) is not used: ``warn`` says why,
    and the run goes on with no configuration rather than with one found farther up.
    """
    home = _home()
    for folder in (start, *start.parents):
        for name in NAMES:
            candidate = folder / name
            if not candidate.is_file():
                continue
            try:
                text = _read_text(candidate)
            except Untrusted as untrusted:
                warn(untrusted.passed_over())
                return None
            # A pyproject.toml that never names the tool is not parsed (a run of JSON files loads no TOML reader).
            if name == "pyproject.toml" and (not names_the_table(text) or _section(candidate, text) is None):
                continue
            return candidate
        if folder == home or os.path.lexists(folder / ".git"):
            return None
    return None


def names_the_table(text: str) -> bool:
    """Whether a pyproject.toml may hold the table: a line that opens a ``[tool.agentbeats-spec]`` header (a
    dependency's name is not enough). Linear in the text whatever it holds: no part of the pattern matches a line
    end, so an attempt starting at a line's start reads that line at most, and once (``^\\s*`` spanned every
    blank line below each one: quadratic)."""
    return _NAMES_THE_TABLE.search(text) is not None


def _home() -> Path | None:
    try:
        return Path.home()
    except (KeyError, RuntimeError):  # no HOME and no password entry: no home folder to stop at
        return None


def load(path: Path | None, *, search: bool = True) -> Config:
    """The configuration at ``path``, or the one found from the working folder (``search``), or none.

    A file named (``path``) that another user owns or others may write is refused (:class:`Untrusted`, exit 2):
    the user asked for it, and it is neither used nor silently left out.
    """
    try:
        here = Path.cwd()  # where the search starts, and what --exclude globs are relative to
    except OSError as error:  # a working folder removed under the command
        raise SpecError(f"the working folder cannot be read (was it deleted?): {error.strerror or error}") from None
    if path is None:
        found = find(here) if search else None
        return Config(root=here) if found is None else read(found)
    if not path.is_file():
        raise SpecError(f"no configuration file {path}")
    return read(path)


def read(path: Path) -> Config:
    """Read and check one configuration file."""
    table = _section(path) if path.name == "pyproject.toml" else _document(path)
    if table is None:
        raise SpecError(f"{path}: no [tool.agentbeats-spec] table")
    where = "[tool.agentbeats-spec]" if path.name == "pyproject.toml" else ""

    def key_error(key: str, problem: str) -> SpecError:
        return SpecError(f"{path}: {where}{' ' if where else ''}{key}: {problem}")

    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise key_error(unknown[0], f"unknown key; expected one of {', '.join(sorted(KEYS))}")
    lists = {}
    for key in ("exclude", "select", "ignore"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise key_error(key, "expected an array of strings")
        lists[key] = tuple(value)
    for key in ("select", "ignore"):
        try:
            _check_selectors(lists[key], key)
        except SpecError as error:
            raise key_error(key, str(error).partition(": ")[2]) from None
    strict = table.get("strict", False)
    if not isinstance(strict, bool):
        raise key_error("strict", "expected true or false")
    limits = {}
    for key, field in LIMIT_KEYS.items():
        if key in table:
            limits[field] = _limit(table[key], lambda problem, key=key: key_error(key, problem))
    severities = table.get("per-file-severity", {})
    if not isinstance(severities, dict):
        raise key_error("per-file-severity", "expected a table of globs")
    per_file = []
    allowed = (*get_args(Severity), IGNORE)
    for pattern, changes in severities.items():
        name = f'per-file-severity."{pattern}"'
        if not isinstance(changes, dict):
            raise key_error(name, 'expected a table of code or family = severity, e.g. {"schema" = "warning"}')
        for selector, severity in changes.items():
            if severity not in allowed:
                raise key_error(f"{name}.{selector}", f"expected one of {', '.join(allowed)}, found {severity!r}")
            try:
                _check_selectors((selector,), name)
            except SpecError as error:
                raise key_error(name, str(error).partition(": ")[2]) from None
        per_file.append((pattern, tuple(sorted(changes.items(), key=lambda item: item[0].count(".")))))
    return Config(
        path,
        path.parent.absolute(),
        lists["exclude"],
        lists["select"],
        lists["ignore"],
        strict,
        tuple(per_file),
        limits,
    )


def _read_text(path: Path) -> str:
    try:
        # found upward from the working folder, perhaps in a tree someone else wrote: never a FIFO or a device,
        # never more than the size limit, never one another user could have written (a link the user's own folder
        # holds is followed, as for a named path)
        return read_trusted(path, "configuration", follow=True).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SpecError(f"cannot read the configuration {path}: {error}") from None


def _document(path: Path, text: str | None = None) -> dict[str, Any]:
    from ..reading import _toml  # lazy: the TOML reader, which a run without a configuration file never loads

    data, findings = _toml.parse(_read_text(path) if text is None else text)
    if findings or not isinstance(data, dict):
        problem = findings[0] if findings else None
        place = f":{problem.line}" if problem is not None and problem.line else ""
        raise SpecError(f"{path}{place}: {problem.message if problem else 'not a TOML table'}")
    return data


def _section(path: Path, text: str | None = None) -> dict[str, Any] | None:
    table: Any = _document(path, text)
    for key in SECTION:
        table = table.get(key) if isinstance(table, dict) else None
    if table is not None and not isinstance(table, dict):
        raise SpecError(f"{path}: [tool.agentbeats-spec] is not a table")
    return table


def _check_selectors(selectors: Iterable[str], key: str) -> None:
    for selector in selectors:
        if selector not in CODES and selector not in FAMILIES:
            raise SpecError(f"{key}: {selector!r} is neither a code nor a family (see docs/codes.md)")


def _selected(code: str, selectors: Iterable[str]) -> bool:
    return any(code == selector or code.startswith(selector + ".") for selector in selectors)


def _limit(value: object, error: Any) -> int:
    if isinstance(value, str):
        units = {"K": 1024, "M": 1024**2, "G": GIB}
        scale = units.get(value[-1:].upper(), 1)
        digits = value[:-1] if scale != 1 else value
        if not digits.isdigit():
            raise error(f"expected a whole number (suffixes K, M, G), found {value!r}")
        value = int(digits) * scale
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise error(f"expected a whole number of at least 1, found {value!r}")
    return value


def _matches(pattern: str, path: str | os.PathLike[str], root: Path, *, below: bool) -> bool:
    """Whether a glob matches a path relative to ``root`` (as given when outside it): ``**`` spans folders, ``*``
    and ``?`` stay within one name; a glob without ``/`` matches a name at any depth, as in .gitignore; with
    ``below``, a folder that matches covers everything in it.

    Name by name, never one pattern over the whole path: however many ``*`` and ``**`` a glob holds (a hostile
    configuration's), matching costs names times parts, each name matched as ``fnmatch`` does, without going back.
    """
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(root).as_posix()
    except ValueError:
        relative = Path(path).as_posix()
    return _names_match(_parts(pattern, below), relative.split("/"))


ANY_NAMES = None  # a part of a glob that matches any number of names, ``**``
NO_NAME = re.compile(r"(?!)")  # past the glob's last part: matches no name


@functools.lru_cache(maxsize=1024)
def _parts(pattern: str, below: bool) -> tuple[re.Pattern[str] | None, ...]:
    """A glob as one matcher per name (``ANY_NAMES`` for ``**``); a ``[`` is a character like any other."""
    names = pattern.strip("/").split("/")
    if len(names) == 1:
        names.insert(0, "**")
    elif names[-1] == "**":  # "runs/**" is what runs holds, at least one name more: not runs itself
        names[-1:] = ["*", "**"]
    if below:
        names.append("**")
    parts: list[re.Pattern[str] | None] = []
    for name in names:
        if name == "**":
            if not parts or parts[-1] is not ANY_NAMES:
                parts.append(ANY_NAMES)
        else:
            parts.append(re.compile(fnmatch.translate(name.replace("[", "[[]"))))
    return tuple(parts)


def _names_match(parts: tuple[re.Pattern[str] | None, ...], names: list[str]) -> bool:
    """Wildcard matching over names, ``ANY_NAMES`` the wildcard: on a mismatch, only the last ``**`` takes one
    name more (the two-pointer method, linear in names times parts)."""
    part = name = 0
    wildcard, resume = -1, 0
    while name < len(names):
        matcher = parts[part] if part < len(parts) else NO_NAME
        if matcher is ANY_NAMES:
            wildcard, resume = part, name
            part += 1
        elif matcher.fullmatch(names[name]) is not None:
            part += 1
            name += 1
        elif wildcard >= 0:
            resume += 1
            part, name = wildcard + 1, resume
        else:
            return False
    return all(matcher is ANY_NAMES for matcher in parts[part:])
