"""Generate the attrs models in src/agentbeats_spec/models/ from the schema files.

    python tools/codegen.py           # write the modules
    python tools/codegen.py --check   # exit 1, printing the difference, when the committed modules are stale

One module per family. Every object schema with properties becomes an attrs class (slots, keyword-only fields,
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
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

from agentbeats_spec.checking._kinds import KINDS

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas"
MODELS = ROOT / "src" / "agentbeats_spec" / "models"
# Hand-written run-time support beside the generated modules: never written, removed or compared.
HAND_WRITTEN = frozenset({"_kit.py", "_convert.py"})
BASE = "https://agentbeats.dev/schemas/"

# Root schemas, read from the package's kind table: the schema of each version of a kind is the root of that
# version's model. (schema file: (family module, class name, kind name, version)), in the order of the table.
ROOTS = {
    schema_id.removeprefix(BASE): (kind.family, kind.models[version], kind.name, version)
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
        target, fragment = urldefrag(urljoin(BASE + file, ref))
        target_file = target.removeprefix(BASE)
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
    lines += ["# The model class of each kind's newest version, as the kind table names it (Kind.model); the"]
    lines += ["# class of a document of any version is the one Kind.models names for its version."]
    lines += ["MODELS: dict[str, type[Model]] = {"]
    lines += [f"    {kind.name!r}: {kind.model}," for kind in KINDS.values()]
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
    return {name: _formatted(name, text) for name, text in Generator(load_schemas()).run().items()}


def _formatted(name: str, text: str) -> str:
    """The module as ``ruff format`` writes it (ruff is pinned in the dev dependencies)."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(MODELS / name), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if result.returncode != 0:
        raise SystemExit(f"ruff format failed on the generated {name}:\n{result.stderr}")
    return result.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--models", type=Path, default=MODELS, help="the models folder (default: the package's)")
    arguments = parser.parse_args()
    models: Path = arguments.models
    wanted = generate()
    if not arguments.check:
        models.mkdir(parents=True, exist_ok=True)
        for stale in models.glob("*.py"):
            if stale.name not in wanted and stale.name not in HAND_WRITTEN:
                stale.unlink()
        for name, text in wanted.items():
            (models / name).write_text(text, encoding="utf-8")
        return 0
    differences = []
    present = {path.name for path in models.glob("*.py")} - HAND_WRITTEN
    for name in sorted(present | set(wanted)):
        path = models / name
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        expected = wanted.get(name, "")
        if current != expected:
            differences.extend(
                difflib.unified_diff(
                    current.splitlines(True), expected.splitlines(True), f"committed/{name}", f"generated/{name}"
                )
            )
    if differences:
        sys.stdout.writelines(differences)
        print("\nthe models differ from the schemas: run python tools/codegen.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
