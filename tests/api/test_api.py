"""The public API: validate() on every kind of source, schema(), kinds(), the exceptions."""

from __future__ import annotations

import ast
import inspect
import math
import pathlib
import re

import pytest

import agentbeats_spec
from agentbeats_spec import Issue, SpecError, UnknownKind, kinds, schema, validate

from ..conftest import ROOT, TASK_DIR

# BEGIN GENERATED KIND_NAMES: by tools/codegen.py from the kind table: do not edit by hand
KIND_NAMES = [
    "abv3-repo",
    "abv3-results",
    "abb-case",
    "agentcompass-task",
    "agentcompass-attempt",
    "agentcompass-task-detail",
    "agentcompass-retry",
    "agentcompass-run-info",
    "agentcompass-params",
    "agentcompass-metrics",
    "agentcompass-analysis-summary",
    "agentcompass-progress",
    "agentcompass-progress-events",
    "actf-trajectory",
]
# END GENERATED KIND_NAMES


def test_the_public_names_are_exactly_these() -> None:
    functions = ["validate", "schema", "kinds", "load", "loads", "dump", "dumps", "to_dict", "from_dict", "read_task",
                 "write_task", "scan", "redact", "migrate_run", "to_atif", "from_atif", "watch_run", "open_run",
                 "iter_runs", "tasks_table", "attempts_table", "steps_table", "issues_table", "score_run"]  # fmt: skip
    types = ["Issue", "Kind", "Limits", "SpecError", "InvalidDocument", "UnknownKind", "UnconvertibleAttempt",
             "WriteError", "ArtifactsUnavailable", "Watched", "__version__", "Run", "TaskRef", "TaskSoFar",
             "TaskRead"]  # fmt: skip
    assert sorted(agentbeats_spec.__all__) == sorted(functions + types)


def test_kinds_have_the_documented_names() -> None:
    assert [kind.name for kind in kinds()] == KIND_NAMES


@pytest.mark.parametrize("name", KIND_NAMES)
def test_every_kind_has_a_2020_12_schema_with_a_versioned_id(name: str) -> None:
    found = schema(name)
    assert found["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert found["$id"].startswith("https://agentbeats.dev/schemas/")
    assert re.search(r"/[a-z-]+\.v[0-9]+(\.[0-9]+)?\.json$", found["$id"]), found["$id"]


def test_schema_returns_a_copy() -> None:
    schema("abv3-results")["title"] = "changed"
    assert schema("abv3-results")["title"] != "changed"


def test_unknown_kind_names_raise_the_package_error() -> None:
    with pytest.raises(UnknownKind) as info:
        validate("{}", kind="agentcompass-run")
    assert isinstance(info.value, SpecError) and "agentcompass-task" in str(info.value)
    with pytest.raises(UnknownKind):
        schema("agentcompass-task", "agentcompass.task.v1")


def test_validate_takes_a_path_text_bytes_or_mapping() -> None:
    path = TASK_DIR / "task.json"
    source = path.read_text(encoding="utf-8")
    assert validate(path) == validate(source.encode()) == validate(source) == []
    broken = source.replace('"avg"', '"avg", "k": 4')
    by_text = validate(broken)
    assert [(i.code, i.pointer, i.line) for i in by_text] == [("json.duplicate-key", "/attempt_plan/k", 17)]
    assert validate({"schema_version": "agentcompass.task.v3", "task_id": "t", "attempts": {"1": "attempt-1"}}) == []


def test_issues_from_files_name_the_file_and_kind() -> None:
    path = pathlib.Path(TASK_DIR / "attempt-2" / "result.json")
    issue = validate(path, "agentcompass-task")[0]
    assert issue.file == str(path) and issue.kind == "agentcompass-task"


def test_a_plain_string_path_is_text_not_a_path_and_the_message_says_so() -> None:
    issue = validate(str(TASK_DIR / "task.json"))[0]
    assert issue.code == "json.syntax" and "pass pathlib.Path(" in issue.message


def test_other_sources_are_a_type_error() -> None:
    with pytest.raises(TypeError):
        validate(42)


def test_issue_is_frozen_and_prints_like_a_compiler() -> None:
    issue = Issue(
        file="f.json",
        kind="abv3-results",
        pointer="/count",
        line=2,
        column=12,
        severity="error",
        code="schema.minimum",
        message="expected a number >= 0",
    )
    with pytest.raises(AttributeError):
        issue.line = 3  # type: ignore[misc]
    assert str(issue) == "f.json:2:12: error schema.minimum expected a number >= 0 (at /count)"


def test_an_issue_is_made_by_keyword_only() -> None:
    """Eight fields in a row are easy to swap: a positional Issue is refused, and a file-level one needs no place."""
    with pytest.raises(TypeError):
        Issue("f.json", None, "", None, None, "error", "io.unreadable", "cannot read")  # type: ignore[misc]
    whole = Issue(file="f.json", severity="error", code="io.unreadable", message="cannot read")
    assert (whole.kind, whole.pointer, whole.line, whole.column) == (None, "", None, None)


def test_a_parsed_mapping_gets_the_same_issues_as_its_text() -> None:
    """A non-finite number does not hide the rest: every issue is found, as in the text of the same document."""
    data = {"count": -1, "main_metric": "acc", "acc": math.nan, "extra": [math.inf, -math.inf]}
    found = [(i.code, i.pointer, i.severity, i.message) for i in validate(data, "abv3-results")]
    assert found == [
        ("json.non-finite", "/acc", "error", "NaN is not valid JSON; write a finite number or null"),
        ("schema.minimum", "/count", "error", "expected a number >= 0, found the number -1"),
        ("json.non-finite", "/extra/0", "error", "Infinity is not valid JSON; write a finite number or null"),
        ("json.non-finite", "/extra/1", "error", "-Infinity is not valid JSON; write a finite number or null"),
    ]
    text = '{"count": -1, "main_metric": "acc", "acc": NaN, "extra": [Infinity, -Infinity]}'
    assert {(i.code, i.pointer, i.message) for i in validate(text, "abv3-results")} == {
        (code, pointer, message) for code, pointer, _, message in found
    }


def test_an_unknown_schema_version_is_named_as_a_version_with_the_kinds_versions() -> None:
    with pytest.raises(UnknownKind) as info:
        schema("abv3-repo", "l1")
    assert str(info.value) == "abv3-repo has no schema version 'l1'; its versions: v1"
    assert (info.value.kind, info.value.version, info.value.known) == ("abv3-repo", "l1", ("v1",))
    assert schema("abv3-repo", "v1") == schema("abv3-repo")


def test_every_version_is_named_as_its_schema_file_names_it() -> None:
    """``v1`` for the ABV3-L1 files (L1 is a level, not a version); a document's own version ends in the same."""
    for kind in kinds():
        for version, schema_id in kind.versions.items():
            found = re.search(r"\.(v[0-9]+(?:\.[0-9]+)?)\.json$", schema_id)
            assert found is not None, schema_id
            assert version == found[1] or version.endswith(("." + found[1], "_" + found[1])), (kind.name, version)


def _documented() -> dict[str, str]:
    """Name -> what docs/api.md shows for it (the signature of a function), from its "Every public name" list."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    section = text.split("## Every public name\n", 1)[1].split("\n## ", 1)[0]
    items = [line[3:].split("`", 1)[0] for line in section.splitlines() if line.startswith("- `")]
    names = [item.split("(", 1)[0] for item in items]
    assert len(names) == len(set(names)), "a name is listed twice"
    return dict(zip(names, items, strict=True))


def test_docs_api_lists_exactly_the_public_names() -> None:
    assert sorted(_documented()) == sorted(agentbeats_spec.__all__)


def test_docs_api_shows_each_functions_parameters_as_they_are() -> None:
    for name, shown in _documented().items():
        function = getattr(agentbeats_spec, name)
        if not inspect.isfunction(function):
            continue
        tree = ast.parse(f"def {shown}: ...").body[0]
        assert isinstance(tree, ast.FunctionDef), name
        arguments = tree.args
        defaults = [None] * (len(arguments.args) - len(arguments.defaults)) + list(arguments.defaults)
        documented = [(a.arg, "POSITIONAL_OR_KEYWORD", d) for a, d in zip(arguments.args, defaults, strict=True)]
        documented += [
            (a.arg, "KEYWORD_ONLY", d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        ]
        actual = [
            (p.name, p.kind.name, None if p.default is p.empty else repr(p.default))
            for p in inspect.signature(function).parameters.values()
        ]
        assert [(n, k, None if d is None else ast.unparse(d)) for n, k, d in documented] == actual, name
        assert tree.returns is not None, name


@pytest.mark.parametrize("source", [42, None, [{"schema_version": "ACTF_v1.0"}], bytearray(b"{}")])
def test_a_source_of_another_type_is_refused_before_any_work(source: object) -> None:
    with pytest.raises(TypeError, match=f"^cannot validate a {type(source).__name__}: pass a path"):
        validate(source)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=f"^cannot scan a {type(source).__name__}: pass a path"):
        agentbeats_spec.scan(source)  # type: ignore[arg-type]
