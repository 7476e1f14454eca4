"""Regenerate every generated file of the repository, running each generator in order: the one command.

    python tools/regenerate.py           # write them (make generate)
    python tools/regenerate.py --check   # exit 1, naming each stale file (make check, make test)
    python tools/regenerate.py --list    # the files the generators make, one a line

The generators, in the order they run (a later one may read what an earlier one writes):

1. ``tools/codegen.py``: from ``schemas/`` and the kind table, the attrs models (``models/``), the typed overloads
   of ``_api.py``, the README's tables of kinds and hooks, the per-kind hooks of ``.pre-commit-hooks.yaml``, the
   version table of ``docs/api.md``, the typed example's model imports and ``load`` lines, the tests' kind lists
   and the VS Code settings.
2. ``tools/catalog.py``: ``schemas/catalog.json``, the bundled schemas (``schemas/bundled/``), ``docs/codes.md``.
3. ``tools/build_js.py``: the npm package's generated files (``js/schemas/``, types, kinds, guards and Ajv's
   standalone validators), which needs Node.js and the package's pinned Ajv (``npm ci --prefix js``, which
   ``make generate`` runs first).

Each generator says what every one of its files should hold; ``--check`` compares that with the files on disk, in
one process, and prints the difference of each stale file to standard output and its name on standard error.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import build_js
import catalog
import codegen

ROOT = Path(__file__).resolve().parents[1]
COMMAND = "python tools/regenerate.py (make generate)"

# Each generator's files as they should be (None: a file to remove), given what the generators before it make.
Files = dict[Path, str | None]
GENERATORS: tuple[tuple[str, Callable[[Mapping[Path, str | None]], Files]], ...] = (
    ("tools/codegen.py", lambda earlier: codegen.generated()),
    ("tools/catalog.py", lambda earlier: catalog.generated()),
    ("tools/build_js.py", build_js.outputs),
)


def generated(write: bool) -> dict[Path, tuple[str, str | None]]:
    """Every generated file, with the generator that makes it and what it should hold; with ``write``, each
    generator's files are written before the next one runs."""
    made: Files = {}
    found: dict[Path, tuple[str, str | None]] = {}
    for name, generator in GENERATORS:
        files = generator(made)
        if write:
            codegen.write(files)
        made.update(files)
        found.update({path: (name, text) for path, text in files.items()})
    return found


def stale(found: Mapping[Path, tuple[str, str | None]]) -> list[tuple[str, str]]:
    """(file, generator) of each file that is not what its generator makes, its difference printed."""
    out = []
    for path, (generator, text) in found.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        shown = path.relative_to(ROOT).as_posix()
        out.append((shown, generator))
        before, after = (current or "").splitlines(True), (text or "").splitlines(True)
        sys.stdout.writelines(difflib.unified_diff(before, after, f"committed/{shown}", f"generated/{shown}"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 when any is stale")
    action.add_argument("--list", action="store_true", help="print the generated files and exit")
    arguments = parser.parse_args()
    found = generated(write=not (arguments.check or arguments.list))
    if arguments.list:
        for path, (generator, text) in found.items():
            if text is not None:
                print(f"{path.relative_to(ROOT).as_posix()}\t{generator}")
        return 0
    if not arguments.check:
        return 0
    old = stale(found)
    for file, generator in old:
        print(f"stale: {file} (made by {generator})", file=sys.stderr)
    if old:
        print(f"regenerate them: {COMMAND}", file=sys.stderr)
    return 1 if old else 0


if __name__ == "__main__":
    sys.exit(main())
