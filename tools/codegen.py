"""Generate the attrs models from the schema files, and every copy of the kind table from that table.

    python tools/codegen.py           # write the modules, files and blocks
    python tools/codegen.py --check   # exit 1, naming each stale file and printing the difference

From the kind table (``src/agentbeats_spec/checking/_kinds.py`` over ``vocabulary/_kind_data.py``, the one place a
kind is stated) come: the typed overloads of ``load``/``loads``/``from_dict`` in ``_api.py``, the README's tables of
kinds and of hooks, the per-kind hooks of ``.pre-commit-hooks.yaml``, the version table of ``docs/api.md``, the typed
example's model imports and ``load`` lines (``tests/typed_example.py``), the tests' lists of kinds (``KIND_NAMES``,
``SCHEMA_FILES``), each a block between ``BEGIN GENERATED <name>`` and ``END GENERATED <name>`` comments in a
hand-written file; and one whole file, ``docs/editors/vscode-settings.json``. ``tools/regenerate.py`` runs this and
the other generators in order.

Models: one module per family. Every object schema with properties becomes an attrs class (slots, keyword-only fields,
full type hints, the schema's description as docstring). A member that may be absent defaults to ``ABSENT``;
``None`` always means JSON null. Open objects get ``unknown_members``; every class keeps the member order it was
read in (``_order``), so that a loaded document is written back as it was.
"""

from __future__ import annotations

import argparse
import difflib
import json
import keyword
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

from agentbeats_spec.checking._kinds import KINDS, Kind
from agentbeats_spec.checking._schemas import BASE_URI
from agentbeats_spec.vocabulary._kind_data import KIND_DATA

KIND_DATA_BY_NAME = {data.name: data for data in KIND_DATA}

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas"
MODELS = ROOT / "src" / "agentbeats_spec" / "models"
# Hand-written run-time support beside the generated modules: never written, removed or compared.
HAND_WRITTEN = frozenset({"_kit.py", "_convert.py"})

# Root schemas, read from the package's kind table: the schema of each version of a kind is the root of that
# version's model. (schema file: (family module, class name, kind name, version)), in the order of the table.
ROOTS = {
    schema_id.removeprefix(BASE_URI): (kind.family, kind.models[version], kind.name, version)
    for kind in KINDS.values()
    for version, schema_id in kind.versions.items()
}
FAMILY_TITLES = {
    "abv3": "ABV3-L1: agentbeats.toml and the experiment results.json",
    "abb": "ABB: the bug case (verify.case.json, an attempt's case.json)",
    "actf": "ACTF_v1.0 trajectories",
    "agentcompass": "AgentCompass: task.json, attempt result.json, the task detail record, retry records",
}
# Class names for schemas that are not roots, by where they are defined.
NAMES = {
    "abv3/agentbeats-toml.v1.json#/properties/abv3_repo": "RepoInfo",
    "abv3/agentbeats-toml.v1.json#/properties/run": "RunSection",
    "abv3/agentbeats-toml.v1.json#/properties/install": "InstallSection",
    "abv3/agentbeats-toml.v1.json#/properties/run_configs": "RunConfigsSection",
    "abv3/agentbeats-toml.v1.json#/properties/results": "ResultsSection",
    "abv3/agentbeats-toml.v1.json#/properties/dependency/additionalProperties": "Dependency",
    "abb/verify-case.v1.json#/properties/issue": "CaseIssue",
    "abb/verify-case.v1.json#/$defs/faultLocation": "FaultLocation",
    "actf/trajectory.v1.0.json#/$defs/step": "Step",
    "actf/trajectory.v1.0.json#/$defs/assistantContent": "AssistantContent",
    "actf/trajectory.v1.0.json#/$defs/metric": "StepMetric",
    "agentcompass/attempt.v3.json#/$defs/payload": "AttemptPayload",
    "agentcompass/attempt.v3.json#/$defs/artifacts": "Artifacts",
    "agentcompass/attempt.v3.json#/$defs/declaredArtifacts": "DeclaredArtifacts",
    "agentcompass/attempt.v3.json#/$defs/artifactEntry": "ArtifactEntry",
    "agentcompass/attempt.v3.json#/$defs/analysisEntry": "AnalysisEntry",
    "agentcompass/attempt.v3.json#/$defs/meta": "Meta",
    "agentcompass/attempt.v2.json#/$defs/meta": "MetaV2",
    "agentcompass/task.v3.json#/$defs/attemptPlan": "AttemptPlan",
    "common/defs.v1.json#/$defs/issue": "ExecutionIssue",
    "agentcompass/run-info.v3.json#/properties/reused_from": "ReusedFrom",
    "agentcompass/run-info.v3.json#/properties/resolved_execution_plans/additionalProperties": "ResolvedPlans",
    "agentcompass/run-info.v3.json#/properties/metric_artifacts": "MetricArtifacts",
    "agentcompass/run-info.v3.json#/properties/metric_artifacts/properties/report": "MetricArtifactsReport",
    "agentcompass/params.v1.json#/properties/benchmark": "ParamsBenchmark",
    "agentcompass/params.v1.json#/properties/output": "ParamsOutput",
    "agentcompass/metrics.v1.json#/$defs/series": "MetricSeries",
    "agentcompass/metrics.v1.json#/$defs/breakdown": "MetricBreakdown",
    "agentcompass/metrics.v1.json#/$defs/counts": "SeriesCounts",
    "agentcompass/metrics.v1.json#/$defs/display": "MetricDisplay",
    "agentcompass/analysis-summary.v1.json#/$defs/row": "AnalysisRow",
    "agentcompass/progress.v1.json#/properties/active_tasks/additionalProperties": "ActiveTask",
}
# Where a shared class is written (the family that owns it).
OWNER = {"common/defs.v1.json": "agentcompass"}
JSON_TYPES = {"string": "str", "integer": "int", "number": "int | float", "boolean": "bool", "null": "None"}
UNKNOWN_FIELD = "unknown_members"


def load_schemas() -> dict[str, dict[str, Any]]:
    return {
        path.relative_to(SCHEMAS).as_posix(): json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(SCHEMAS.glob("*/*.json"))
    }


class Generator:
    def __init__(self, schemas: dict[str, dict[str, Any]]) -> None:
        self.schemas = schemas
        self.classes: dict[str, dict[str, str]] = {}  # module -> class name -> source
        self.located: dict[str, tuple[str, str]] = {}  # location -> (module, class name)
        self.imports: dict[str, dict[str, set[str]]] = {}  # module -> other module -> class names it uses

    # -- schema navigation -------------------------------------------------------------------------------
    def resolve(self, file: str, ref: str) -> tuple[str, str, dict[str, Any]]:
        target, fragment = urldefrag(urljoin(BASE_URI + file, ref))
        target_file = target.removeprefix(BASE_URI)
        node: Any = self.schemas[target_file]
        for token in [part for part in fragment.split("/") if part]:
            node = node[token.replace("~1", "/").replace("~0", "~")]
        return target_file, fragment, node

    def forbidden(self, file: str, schema: Any) -> bool:
        """Whether a member schema forbids the member (``{"not": {}}``, possibly behind a $ref)."""
        if isinstance(schema, dict) and "$ref" in schema:
            target_file, _, target = self.resolve(file, schema["$ref"])
            return self.forbidden(target_file, target)
        return isinstance(schema, dict) and schema.get("not") == {}

    # -- types -------------------------------------------------------------------------------------------
    def annotation(self, schema: Any, file: str, where: str, module: str) -> str:
        """The Python type of a value matching ``schema`` (defined at ``file#where``)."""
        if schema is True or schema == {} or not isinstance(schema, dict):
            return "Any"
        if "$ref" in schema:
            target_file, fragment, target = self.resolve(file, schema["$ref"])
            return self.annotation(target, target_file, fragment, module)
        if "const" in schema:
            return f"Literal[{schema['const']!r}]"
        if "enum" in schema:
            return _enum(schema["enum"])
        if "else" in schema and "$ref" in schema.get("else", {}):
            # "{} or a trajectory": an empty object, or the referenced shape.
            target_file, fragment, target = self.resolve(file, schema["else"]["$ref"])
            return f"{self.annotation(target, target_file, fragment, module)} | dict[str, Any]"
        types = schema.get("type")
        if types is None and "if" in schema:
            # "an object of this shape, or else one of these values": what then (or the if) allows, or what else does.
            then = schema.get("then", schema["if"])
            other = schema.get("else", True)
            parts = [
                self.annotation(then, file, where + "/then", module),
                self.annotation(other, file, where + "/else", module),
            ]
            return _union(" | ".join(parts).split(" | "))
        if types is None:
            return "Any"
        names = [types] if isinstance(types, str) else types
        parts = []
        for name in names:
            if name == "object":
                parts.append(self.object_type(schema, file, where, module))
            elif name == "array":
                items = schema.get("items", True)
                parts.append(f"list[{self.annotation(items, file, where + '/items', module)}]")
            else:
                parts.append(JSON_TYPES[name])
        return _union(" | ".join(parts).split(" | "))

    def object_type(self, schema: dict[str, Any], file: str, where: str, module: str) -> str:
        if schema.get("properties") and not all(self.forbidden(file, each) for each in schema["properties"].values()):
            owner, name = self.define(schema, file, where)
            if owner != module:
                self.imports.setdefault(module, {}).setdefault(owner, set()).add(name)
            return name
        extra = schema.get("additionalProperties", True)
        value = self.annotation(extra, file, where + "/additionalProperties", module) if extra is not True else "Any"
        return f"dict[str, {value}]"

    # -- classes -----------------------------------------------------------------------------------------
    def define(self, schema: dict[str, Any], file: str, where: str) -> tuple[str, str]:
        location = f"{file}#{where}"
        if location in self.located:
            return self.located[location]
        if where == "" and file in ROOTS:
            module, name, kind, version = ROOTS[file]
        else:
            module = OWNER.get(file) or ROOTS[file][0]
            name, kind, version = NAMES[location], None, None
        self.located[location] = (module, name)
        fields = []
        required = set(schema.get("required", ()))
        for member, subschema in schema["properties"].items():
            if self.forbidden(file, subschema):
                continue  # a member that must not be there has no field
            place = f"{where}/properties/{member}"
            fields.append(self.field(member, subschema, member in required, file, place, module))
        open_object = schema.get("additionalProperties", True) is not False
        self.classes.setdefault(module, {})[name] = self.render_class(
            name, schema.get("description") or schema.get("title"), fields, open_object, (kind, version), location
        )
        return module, name

    def field(self, member: str, schema: Any, required: bool, file: str, where: str, module: str) -> str:
        python = _python_name(member)
        annotation = self.annotation(schema, file, where, module)
        arguments = []
        if not required:
            if annotation != "Any":
                annotation = _union([*annotation.split(" | "), "Absent"])
            arguments.append("default=ABSENT")
        if member != python:
            arguments.append(f'metadata={{"json": {member!r}}}')
        if _long(annotation):
            arguments.append("repr=short_repr")
        value = f" = attrs.field({', '.join(arguments)})" if arguments else ""
        return f"    {python}: {annotation}{value}"

    def render_class(
        self,
        name: str,
        doc: str | None,
        fields: list[str],
        open_object: bool,
        root: tuple[str | None, str | None],
        location: str,
    ) -> str:
        lines = ["@attrs.define(kw_only=True)", f"class {name}:"]
        text = (doc or name).strip()
        wrapped = textwrap.fill(text, 112, initial_indent="    ", subsequent_indent="    ")
        lines.append('    """' + wrapped.strip() + "\n\n" + f"    Generated from ``{location}``.\n" + '    """\n')
        kind, version = root
        if kind is not None:  # the model of a whole artifact: its kind, and its version as the kind table names it
            lines.append(f"    __kind__: ClassVar[str] = {kind!r}")
            lines.append(f"    __kind_version__: ClassVar[str] = {version!r}\n")
        lines.extend(fields)
        if open_object:
            lines.append(
                f"    {UNKNOWN_FIELD}: dict[str, Any] = "
                "attrs.field(factory=dict, repr=short_repr, validator=no_shadowing)"
            )
        lines.append('    _order: tuple[str, ...] = attrs.field(default=(), eq=False, repr=False, alias="_order")')
        return "\n".join(lines) + "\n"

    def render_module(self, module: str) -> str:
        header = [
            f'"""{FAMILY_TITLES[module]}.',
            "",
            "GENERATED by tools/codegen.py from schemas/: do not edit by hand. Run `python tools/codegen.py`.",
            '"""',
            "",
            "from __future__ import annotations",
            "",
            "from typing import Any, ClassVar, Literal",
            "",
            "import attrs",
            "",
            "from ._kit import ABSENT, Absent, no_shadowing, short_repr",
        ]
        for other, used in sorted(self.imports.get(module, {}).items()):
            header.append(f"from .{other} import {', '.join(sorted(used))}")
        exported = sorted(self.classes[module])
        body = "\n\n".join(self.classes[module][name] for name in _dependency_order(self.classes[module]))
        all_line = "__all__ = [" + ", ".join(repr(name) for name in exported) + "]"
        return "\n".join(header) + "\n\n" + all_line + "\n\n\n" + body

    def run(self) -> dict[str, str]:
        for file in ROOTS:
            self.define(self.schemas[file], file, "")
        modules = {f"{module}.py": self.render_module(module) for module in sorted(self.classes)}
        modules["__init__.py"] = render_package(sorted(self.classes), self.classes)
        return modules


def render_package(modules: list[str], classes: dict[str, dict[str, str]]) -> str:
    lines = [
        '"""Typed models of every artifact, generated from the schemas.',
        "",
        "GENERATED by tools/codegen.py from schemas/: do not edit by hand. Run `python tools/codegen.py`.",
        '"""',
        "",
        "from typing import TypeAlias",
        "",
        "from ._kit import ABSENT, Absent",
    ]
    exported = ["ABSENT", "Absent", "MODELS", "Model"]
    for module in modules:
        names = sorted(classes[module])
        lines.append(f"from .{module} import {', '.join(names)}")
        exported += names
    constants_first = sorted(exported, key=lambda name: (not name.isupper(), name))  # as ruff's RUF022 sorts
    lines += ["", "__all__ = [" + ", ".join(repr(name) for name in constants_first) + "]", ""]
    every = [name for kind in KINDS.values() for name in reversed(kind.models.values())]  # the newest first
    lines += ["# The model of a whole artifact, of any kind and version: what load() returns when no kind is named."]
    lines += ["Model: TypeAlias = " + " | ".join(every), ""]
    lines += ["# The model class of each kind's newest version, as the kind table names it (Kind.model_name); the"]
    lines += ["# class of a document of any version is the one Kind.models names for its version."]
    lines += ["MODELS: dict[str, type[Model]] = {"]
    lines += [f"    {kind.name!r}: {kind.model_name}," for kind in KINDS.values()]
    lines += ["}", ""]
    return "\n".join(lines)


def _python_name(member: str) -> str:
    name = re.sub(r"[^0-9a-zA-Z_]+", "_", member).strip("_").lower() or "member"
    if name[0].isdigit() or keyword.iskeyword(name):
        name += "_"
    return name


def _enum(values: list[Any]) -> str:
    """The type of one of these JSON values: a Literal of the scalars, beside the containers and null."""
    scalars = [value for value in values if value is not None and not isinstance(value, (list, dict))]
    parts = ["Literal[" + ", ".join(repr(value) for value in scalars) + "]"] if scalars else []
    parts += ["list[Any]"] * any(isinstance(value, list) for value in values)
    parts += ["dict[str, Any]"] * any(isinstance(value, dict) for value in values)
    parts += ["None"] * (None in values)
    return _union(parts)


def _long(annotation: str) -> bool:
    """Whether values of this type may be large enough to spoil a repr."""
    return annotation.startswith(("Any", "str", "list", "dict")) or "dict[" in annotation


def _union(items: list[str]) -> str:
    """A union without repeats, None last (as ruff wants it)."""
    unique = list(dict.fromkeys(items))
    return " | ".join([item for item in unique if item != "None"] + (["None"] if "None" in unique else []))


def _dependency_order(classes: dict[str, str]) -> list[str]:
    """Classes in a stable order: alphabetical (``from __future__ import annotations`` makes order free)."""
    return sorted(classes)


def generate() -> dict[str, str]:
    return {name: _formatted(MODELS / name, text) for name, text in Generator(load_schemas()).run().items()}


# -- the copies of the kind table ---------------------------------------------------------------------------
API = "src/agentbeats_spec/_api.py"
GENERATED_BY = "by tools/codegen.py from the kind table: do not edit by hand"


def _returned(kind: Kind, function: str) -> str:
    """The models a function gives for a literal kind: those of every version the source can tell, newest first.

    A file's version is told by its content or by its task (an attempt); a text's or a mapping's by its content
    only, so loads and from_dict give a kind whose documents carry no version its newest model.
    """
    told = function == "load" or kind.version_field is not None
    union = " | ".join(reversed(kind.models.values())) if told else kind.model_name
    return f"list[{union}]" if kind.syntax == "jsonl" and function != "from_dict" else union


SIGNATURES = {
    "load": ("path: PathLike, kind: {kind}, *, limits: Limits | None = None", "str | None = None"),
    "loads": ("source: str | bytes, kind: {kind}", "str | None = None"),
    "from_dict": ("kind: {kind}, data: Mapping[str, Any]", "str"),
}


def overloads(function: str) -> str:
    """One ``@overload`` per kind, then the one for any other kind name."""
    parameters, general = SIGNATURES[function]
    lines = []
    for kind in KINDS.values():
        returned = _returned(kind, function)
        literal = parameters.format(kind=f"Literal[{kind.name!r}]")
        lines += ["@overload", f"def {function}({literal}) -> {returned}: ..."]
    lists = [f"list[{_returned(kind, 'from_dict')}]" for kind in KINDS.values() if kind.syntax == "jsonl"]
    returned = " | ".join(["Model", *lists]) if function != "from_dict" else "Model"
    lines += ["@overload", f"def {function}({parameters.format(kind=general)}) -> {returned}: ..."]
    return "\n".join(lines).replace("'", '"') + "\n"


def model_imports() -> str:
    names = sorted({"Model", *(name for kind in KINDS.values() for name in kind.models.values())})
    listed = "".join(f"        {name},\n" for name in names)
    return "if TYPE_CHECKING:\n    from .models import (\n" + listed + "    )\n"


def kind_names() -> str:
    return "KIND_NAMES = [\n" + "".join(f"    {kind.name!r},\n" for kind in KINDS.values()).replace("'", '"') + "]\n"


def _editor_url(kind: Kind) -> str:
    return "./.schemas/" + kind.latest.rsplit("/", 1)[-1]


def schema_files() -> str:
    entries = "".join(f'    "{_editor_url(kind)}": "{kind.name}",\n' for kind in KINDS.values() if kind.editor_match)
    return "SCHEMA_FILES = {\n" + entries + "}\n"


def vscode_settings() -> str:
    """The VS Code ``json.schemas`` of every kind that names editor globs, each against its newest schema."""
    entries = [
        "    {\n"
        f'      "fileMatch": [{", ".join(json.dumps(glob) for glob in kind.editor_match)}],\n'
        f'      "url": "{_editor_url(kind)}"\n'
        "    }"
        for kind in KINDS.values()
        if kind.editor_match
    ]
    return '{\n  "json.schemas": [\n' + ",\n".join(entries) + "\n  ]\n}\n"


def readme_kinds() -> str:
    lines = ["| kind | what it is | file names | versions | identified by |", "|---|---|---|---|---|"]
    for kind in KINDS.values():
        files = [f"`{glob}`" for glob in kind.file_match]
        at_root = kind.run_root_file is not None and kind.run_root_file not in kind.file_match
        if at_root:
            files.append(f"`{kind.run_root_file}` at a run root")
        versions = ", ".join(f"`{version}`" for version in reversed(kind.versions))
        if kind.version_field is None:
            versions = "none in the file" if len(kind.versions) == 1 else versions + " (told by its folder)"
        told = ["path" if "/" in glob else "file name" for glob in kind.file_match]
        told += ["name at a run root"] * at_root
        told += [f"`{kind.version_field}`"] * (kind.version_prefix is not None)
        told += ["`--kind`"]
        lines.append(
            f"| `{kind.name}` | {kind.title} | {', '.join(files) or '(by content)'} | {versions} | "
            f"{', '.join(dict.fromkeys(told))} |"
        )
    return "\n".join(lines) + "\n"


def _glob_pattern(glob: str) -> str:
    """A glob of one path component per ``/`` (``*`` never crosses one) as a regular expression."""
    pieces = {"*": "[^/]*", "?": "[^/]"}
    return "".join(pieces.get(character, "\\" * (character in ".^$+(){}[]|\\") + character) for character in glob)


def _hook_globs(kind: Kind) -> tuple[str, ...]:
    """The names a kind's own hook selects: those that name it anywhere, else those an editor is told of."""
    return kind.file_match or tuple(glob.removeprefix("**/") for glob in kind.editor_match)


def _versions_said(kind: Kind) -> str:
    if len(kind.versions) == 1:
        return ""  # the title says what it is; a version is named where there are several
    return "; " + ", ".join(reversed(kind.versions))


def precommit_hooks() -> str:
    """Each kind's own hook of ``.pre-commit-hooks.yaml`` (those with a ``hook`` in the kind data)."""
    out = []
    for kind in KINDS.values():
        hook = KIND_DATA_BY_NAME[kind.name].hook
        if hook is None:
            continue
        globs = [_glob_pattern(glob) for glob in _hook_globs(kind)]
        names = globs[0] if len(globs) == 1 else "(" + "|".join(globs) + ")"
        description = f"Validate {kind.title}{_versions_said(kind)}." + (f" {hook.note}" if hook.note else "")
        out += [
            f"- id: {hook.id}",
            f"  name: {hook.name}",
            f"  description: {description}",
            f"  entry: {HOOK_ENTRY}",
            "  language: python",
            "  require_serial: true",
            f"  files: (^|/){names}$",
        ]
    return "\n".join(out) + "\n"


# Every hook's command (the hand-written agentbeats-spec hook of .pre-commit-hooks.yaml too, which a test holds to
# it): --quiet-valid, so that of the runs pre-commit splits a long list of files into, only those that fail print.
HOOK_ENTRY = "agentbeats-spec validate --no-context --allow-empty --quiet-valid"


def readme_hooks() -> str:
    lines = ["| hook | checks | file names |", "|---|---|---|"]
    for kind in KINDS.values():
        hook = KIND_DATA_BY_NAME[kind.name].hook
        if hook is not None:
            files = ", ".join(f"`{glob}`" for glob in _hook_globs(kind))
            lines.append(f"| `{hook.id}` | `{kind.name}`: {kind.title} | {files} |")
    return "\n".join(lines) + "\n"


def api_versions() -> str:
    """docs/api.md: the model class of each version of each kind that has more than one."""
    lines = ["| kind | version | model |", "|---|---|---|"]
    for kind in KINDS.values():
        if len(kind.versions) == 1:
            continue
        told = "" if kind.version_field is not None else " (told by its folder)"
        for number, (version, model) in enumerate(reversed(kind.models.items())):
            named = f" `{kind.name}` " if number == 0 else " "
            lines.append(f"|{named}| `{version}`{told} | `{model}` |")
    lines.append("| every other kind | its one version | `Kind.model_name` (`MODELS[kind]`) |")
    return "\n".join(lines) + "\n"


# What tests/typed_example.py uses of agentbeats_spec.models besides the models of the kinds.
EXAMPLE_MODEL_PARTS = ("ABSENT", "ExecutionIssue", "Model")


def example_model_imports() -> str:
    names = [*EXAMPLE_MODEL_PARTS, *(name for kind in KINDS.values() for name in kind.models.values())]
    listed = "".join(f"    {name},\n" for name in sorted(set(names), key=lambda name: (not name.isupper(), name)))
    return "from agentbeats_spec.models import (\n" + listed + ")\n\n"  # the blank line that ends the imports


def _example_file(kind: Kind) -> str:
    """A file name of the kind, for a typed example that is type-checked and never run."""
    globs = kind.file_match or tuple(glob.removeprefix("**/") for glob in kind.editor_match)
    if globs:
        return globs[0].replace("*", "1")
    return kind.run_root_file or f"{kind.name}.{kind.syntax}"


def example_load_lines() -> str:
    """One ``load`` per kind, its variable typed as the models of the kind's versions (newest first)."""
    lines = []
    for kind in KINDS.values():
        models = " | ".join(reversed(kind.models.values()))
        typed = f"list[{models}]" if kind.syntax == "jsonl" else models
        lines.append(f'    {_variable(kind)}: {typed} = load(run / "{_example_file(kind)}", "{kind.name}")\n')
    loaded = ", ".join(_variable(kind) for kind in KINDS.values())
    return "".join(lines) + f"    loaded: list[object] = [{loaded}]\n"


def _variable(kind: Kind) -> str:
    return kind.name.replace("-", "_")


# Files written whole, and blocks inside hand-written files: (file, block name) -> what the block holds.
WHOLE_FILES: dict[str, Callable[[], str]] = {
    "docs/editors/vscode-settings.json": vscode_settings,
}
BLOCKS: dict[tuple[str, str], Callable[[], str]] = {
    (API, "model imports"): model_imports,
    (API, "load overloads"): lambda: overloads("load"),
    (API, "loads overloads"): lambda: overloads("loads"),
    (API, "from_dict overloads"): lambda: overloads("from_dict"),
    ("README.md", "kinds"): readme_kinds,
    ("README.md", "hooks"): readme_hooks,
    (".pre-commit-hooks.yaml", "hooks"): precommit_hooks,
    ("docs/api.md", "versions"): api_versions,
    ("tests/typed_example.py", "models"): example_model_imports,
    ("tests/typed_example.py", "load lines"): example_load_lines,
    ("tests/api/test_api.py", "KIND_NAMES"): kind_names,
    ("tests/interop/test_editors.py", "SCHEMA_FILES"): schema_files,
}


def with_blocks(file: str, text: str) -> str:
    """A hand-written file with each of its generated blocks as the table makes it (the marker lines kept)."""
    for (where, block), make in BLOCKS.items():
        if where != file:
            continue
        lines = text.splitlines(True)
        begin = [n for n, line in enumerate(lines) if re.search(rf"BEGIN GENERATED {re.escape(block)}(?!\w)", line)]
        end = [n for n, line in enumerate(lines) if re.search(rf"END GENERATED {re.escape(block)}(?!\w)", line)]
        if len(begin) != 1 or len(end) != 1 or end[0] < begin[0]:
            raise SystemExit(f"{file}: expected one 'BEGIN GENERATED {block}' line, then one 'END GENERATED {block}'")
        content = make()
        if file.endswith(".py"):  # formatted, and a blank line that ends the block kept (after imports)
            content = _formatted(ROOT / file, content) + "\n" * content.endswith("\n\n")
        text = "".join([*lines[: begin[0] + 1], content, *lines[end[0] :]])
    return text


def tables(root: Path) -> dict[str, str]:
    """Every file the kind table makes or has a block in, as it should be under ``root``, by path from it."""
    wanted = {file: make() for file, make in WHOLE_FILES.items()}
    wanted = {file: _formatted(ROOT / file, text) if file.endswith(".py") else text for file, text in wanted.items()}
    for file in dict.fromkeys(file for file, _ in BLOCKS):
        path = root / file
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        wanted[file] = with_blocks(file, current)
    return wanted


def _formatted(path: Path, text: str) -> str:
    """Python source as ``ruff format`` writes it in ``path`` (ruff is pinned in the dev dependencies); an indented
    block (the body of a function) as it is formatted there."""
    indent = len(text) - len(text.lstrip(" "))
    width = ["--line-length", str(120 - indent)] if indent else []
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", *width, "--stdin-filename", str(path), "-"],
        input=textwrap.dedent(text),
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if result.returncode != 0:
        raise SystemExit(f"ruff format failed on what is generated for {path.name}:\n{result.stderr}")
    return textwrap.indent(result.stdout, " " * indent)


def generated(root: Path = ROOT, models: Path | None = None) -> dict[Path, str | None]:
    """Every file this generator makes under ``root``, as it should be; None for a model module to remove."""
    folder = models or root / MODELS.relative_to(ROOT)
    wanted = generate()
    files: dict[Path, str | None] = {folder / name: text for name, text in wanted.items()}
    for stale in sorted(folder.glob("*.py")):
        if stale.name not in wanted and stale.name not in HAND_WRITTEN:
            files[stale] = None
    files.update({root / file: text for file, text in tables(root).items()})
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to write or check (default: this one)")
    parser.add_argument("--models", type=Path, help="the models folder (default: the checkout's)")
    arguments = parser.parse_args()
    files = generated(arguments.root, arguments.models)
    if not arguments.check:
        write(files)
        return 0
    stale = compare(files, arguments.root)
    for shown in stale:
        print(f"stale: {shown} (not what the schemas and the kind table make)", file=sys.stderr)
    if stale:
        print("regenerate them: python tools/codegen.py", file=sys.stderr)
    return 1 if stale else 0


def write(files: dict[Path, str | None]) -> None:
    for path, text in files.items():
        if text is None:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


def compare(files: dict[Path, str | None], root: Path = ROOT) -> list[str]:
    """The stale files (each by its path from ``root``), their differences written to standard output."""
    stale = []
    for path, text in files.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        stale.append(shown)
        sys.stdout.writelines(
            difflib.unified_diff(
                (current or "").splitlines(True),
                (text or "").splitlines(True),
                f"committed/{shown}",
                f"generated/{shown}",
            )
        )
    return stale


if __name__ == "__main__":
    sys.exit(main())
