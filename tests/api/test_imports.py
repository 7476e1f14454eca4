"""Imports go at the top of a module; the few kept inside functions are named here, each with its reason.

A one-file `validate` (a pre-commit hook on every save) should cost no more than importing python-jsonschema, so
what only some runs need is imported where it is needed. Everything else is imported at the top, where a reader
sees what a module depends on.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import agentbeats_spec

PACKAGE = Path(agentbeats_spec.__file__).parent

# module imported inside a function -> why it is not imported at the top
LAZY = {
    "jsonschema": "python-jsonschema explains errors: a valid document is judged by jsonschema-rs alone",
    "jsonschema.exceptions": "as jsonschema",
    "jsonschema.validators": "as jsonschema",
    "referencing": "as jsonschema: the registry serves only python-jsonschema",
    "referencing.jsonschema": "as referencing",
    "agentbeats_spec.checking._keywords": "its keyword functions are python-jsonschema's (imports jsonschema)",
    "importlib.metadata": "only the formats that link (sarif, markdown) read the published addresses (0.2 s)",
    "tomli": "only a run that meets a TOML file pays for its import",
    "tomli_w": "only writing a TOML file needs it",
    "tomlkit": "only rewriting a TOML file in its own style needs it",
    "tomlkit.items": "as tomlkit",
    "tomlkit.exceptions": "as tomlkit",
    "orjson": "optional: the exact reader works without it",
    "pyarrow": "optional extra [tables]: only runs as tables need it",
    "pyarrow.parquet": "optional extra [tables]: only export --to parquet needs it",
    "pyarrow.csv": "optional extra [tables]: only export --to csv needs it",
    "pyarrow.compute": "optional extra [tables]: only export --to csv needs it (its cells neutralized)",
    "dask": "optional extra [dask]",
    "dask.bag": "optional extra [dask]",
    "distributed": "optional extra [dask]",
    "distributed.diagnostics.progressbar": "optional extra [dask]",
    "fsspec": "optional extra [dask]",
    "agentbeats_spec.distributed": "imports dask, an optional extra",
    "multiprocessing": "only a run with workers starts processes",
    "concurrent.futures": "only a run with workers starts processes",
    "hashlib": "loads OpenSSL; only the secret scan fingerprints",
    "hmac": "as hashlib: only the secret scan fingerprints (keyed)",
    "agentbeats_spec.vocabulary._secrets": "its patterns cost 5 ms to compile: only a quoted value is masked",
    "agentbeats_spec.credentials._keys": "the fingerprint key: only a run with an allow-list or a baseline reads it",
    "fcntl": "POSIX-only, on the one path (macOS F_GETPATH) that takes it",
    "agentbeats_spec.credentials._scan": "the secret scan: only with --secrets, scan and redact",
    "agentbeats_spec.credentials._redact": "only redact needs it",
    "agentbeats_spec.credentials._baseline": "only scan --baseline needs it",
    "agentbeats_spec.models": "the generated classes and cattrs: only load and dump need them",
    "agentbeats_spec.models._convert": "as agentbeats_spec.models (cattrs)",
    "agentbeats_spec.models._kit": "as agentbeats_spec.models",
    "agentbeats_spec.writing._atomic": "only the commands and functions that write need it",
    "agentbeats_spec.writing._tomlstyle": "imports tomlkit: only rewriting a TOML file needs it",
    "agentbeats_spec.layouts": "the layouts cost 25 ms to import: `import agentbeats_spec` does not pay for them",
    "agentbeats_spec.layouts.abb": "as agentbeats_spec.layouts",
    "agentbeats_spec.application._front_door": "the front door imports the tree check: as agentbeats_spec.layouts",
    "agentbeats_spec.application._tree_check": "the tree check imports the layouts: as agentbeats_spec.layouts",
    "agentbeats_spec.layouts.abv3": "as agentbeats_spec.layouts",
    "agentbeats_spec.layouts.agentcompass": "as agentbeats_spec.layouts",
    "agentbeats_spec.tasks._detail": "task records pull in the writers and the layouts",
    "agentbeats_spec.tasks._migrate": "as agentbeats_spec.tasks._detail",
    "agentbeats_spec.watching._watch": "watching pulls in the layouts; only watch_run needs it",
    "agentbeats_spec.runs._reader": "the run reader imports the task records (agentbeats_spec.tasks._detail)",
    "agentbeats_spec.runs._scores": "the scores of runs: the whole check of a tree, only score_run needs it",
    "agentbeats_spec.runs._export": "export: the run reader and pyarrow, which only that command needs",
    "agentbeats_spec.runs._tables": "as agentbeats_spec.runs._reader (pyarrow itself only when a table is made)",
    "agentbeats_spec.atif._files": "the ATIF conversion: only convert needs it",
    "agentbeats_spec.checking._jsonl": "JSON Lines: only a progress.jsonl needs it",
    "agentbeats_spec.reading._toml": "the TOML reader: a run of JSON files alone does not import it",
    "agentbeats_spec.records._legacy": "imports the credential vocabulary: only a v2 attempt needs it",
    "agentbeats_spec.units._cache": "the verdict cache imports hashlib and tempfile: only a cached run needs it",
    "grp": "POSIX only: asked only of a group-writable settings file (reading._trusted._private_group)",
    "pwd": "as grp",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The absolute names of what one import statement imports (a submodule named in a `from` counts)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level == 0:
        base = node.module or ""
    else:
        package = module.split(".") if is_package else module.split(".")[:-1]
        anchor = package[: len(package) - (node.level - 1)]
        base = ".".join(anchor + ([node.module] if node.module else []))
    modules = [f"{base}.{alias.name}" for alias in node.names if _is_module(f"{base}.{alias.name}")]
    # names that are not modules (a function, a class) are imported from the module itself
    return modules + ([base] if len(modules) < len(node.names) else [])


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False  # a name imported from a module (a function, a class), not a module


def function_level_imports() -> dict[str, list[str]]:
    """Each module imported inside a function, with the places (file:line) that do it."""
    found: dict[str, list[str]] = {}
    files = sorted(PACKAGE.rglob("*.py"))
    assert files, PACKAGE
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = _module_name(path)
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    for name in _imported(node, module, path.name == "__init__.py"):
                        found.setdefault(name, []).append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    # The package's lazy names are imported by importlib on first use, module by module: imports inside a function too.
    for module in sorted(set(agentbeats_spec._LAZY.values())):
        found.setdefault(importlib.util.resolve_name(module, "agentbeats_spec"), []).append("__init__.py _LAZY")
    return found


def _type_checking_imports() -> dict[str, str]:
    """The names ``__init__.py`` imports for a type checker (``if TYPE_CHECKING:``), each with its module."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    guarded = [node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"]
    assert len(guarded) == 1
    return {
        alias.name: "." * node.level + (node.module or "")
        for node in guarded[0].body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_the_lazy_names_are_one_map_that_the_type_checker_imports_and_all_lists() -> None:
    lazy = agentbeats_spec._LAZY
    assert _type_checking_imports() == lazy
    eager = {name for name in agentbeats_spec.__all__ if name in vars(agentbeats_spec)}
    assert set(lazy) == set(agentbeats_spec.__all__) - eager and not set(lazy) & eager
    for name, module in lazy.items():
        assert getattr(agentbeats_spec, name) is getattr(importlib.import_module(module, "agentbeats_spec"), name)


def test_every_import_inside_a_function_is_one_named_with_its_reason() -> None:
    unnamed = {name: places for name, places in function_level_imports().items() if name not in LAZY}
    assert unnamed == {}, "import these at the top of the module, or name them in LAZY with the reason"


def test_every_named_lazy_import_is_still_made_inside_a_function() -> None:
    assert sorted(set(LAZY) - set(function_level_imports())) == []


def test_the_finder_sees_an_import_inside_a_function() -> None:
    """The scan itself: a relative import in a function of a package module is resolved to its absolute name."""
    tree = ast.parse("def f():\n    from ..writing import _atomic\n    from . import _jsonl\n")
    imports = [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert _imported(imports[0], "agentbeats_spec.checking._sources", False) == ["agentbeats_spec.writing._atomic"]
    assert _imported(imports[1], "agentbeats_spec.checking._sources", False) == ["agentbeats_spec.checking._jsonl"]
