"""The table of codes: every code the package reports is in it, with its family, severities and meaning, and
every code in it is reported for some input."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest

from agentbeats_spec import InvalidDocument, Issue, Limits, validate
from agentbeats_spec.checking._keywords import placed
from agentbeats_spec.checking._schemas import documents
from agentbeats_spec.vocabulary._codes import CODES, FAMILIES, TABLE, Severity
from agentbeats_spec.vocabulary._issues import Finding

from ..conftest import FIXTURES, ROOT, TASK_DIR, VALID, load_fixture


def test_the_codes_doc_lists_every_code() -> None:
    text = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    for code in CODES:
        assert f"`{code}`" in text


def test_every_code_has_a_family_a_severity_and_a_meaning() -> None:
    for code in TABLE:
        family, _, name = code.name.partition(".")
        assert family in FAMILIES and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name), code
        assert code.meaning == code.meaning.strip() and len(code.meaning) > 12 and code.meaning.endswith("."), code
        assert len(set(code.severities)) == len(code.severities) and set(code.severities) <= set(get_args(Severity))
        assert bool(code.also) == bool(code.when), code  # another severity always says when it applies
    assert len(CODES) == len(TABLE) and {code.family for code in TABLE} == set(FAMILIES)
    security = {code for code in CODES if code.startswith("security.")}
    assert security == {"security.path-escape", "security.symlink", "security.secret"}


def test_a_code_or_a_severity_the_table_lacks_is_refused_where_the_finding_is_built() -> None:
    with pytest.raises(ValueError, match=re.escape("'toml.bom' is reported as warning, not 'error'")):
        Finding("", "toml.bom", "a byte order mark")
    with pytest.raises(ValueError, match=re.escape("'json.bom-mark' is not an issue code")):
        Finding("", "json.bom-mark", "a byte order mark", severity="warning")
    where = {"file": "f.json", "kind": None, "pointer": "", "line": 1, "column": 1, "message": "m"}
    with pytest.raises(ValueError, match=re.escape("'rule.unknown-key' is reported as warning, not 'info'")):
        Issue(**where, severity="info", code="rule.unknown-key")
    assert Issue(**where, severity="warning", code="rule.unknown-key").code == "rule.unknown-key"
    assert Finding("/count", "json.large-integer", "too long", severity="error").severity == "error"


TOML = '[abv3_repo]\nname = "n"\nrole = "judge"\nauthor = "a"\n\n[run]\ncommand = "run"\n\n[run_configs]\nfolder = {}\n'


@pytest.mark.parametrize(
    ("value", "code"),
    [("7", "schema.type"), ('""', "schema.min-length"), ('["a"]', "schema.type"), ('"a\\n"', "schema.pattern"),
     ('"/etc"', "security.path-escape"), ('"../x"', "security.path-escape"), ('"a/../../x"', "security.path-escape"),
     ('"C:/x"', "security.path-escape"), ('"..\\\\x"', "security.path-escape")],
)  # fmt: skip
def test_a_path_field_gets_a_security_code_only_when_it_escapes(value: str, code: str) -> None:
    """A SARIF upload must never show a security alert for a number or an empty string."""
    for table in ("run_configs", "results"):
        source = TOML.replace("[run_configs]", f"[{table}]").format(value)
        found = [(i.code, i.pointer, i.line) for i in validate(source, "abv3-repo")]
        assert found == [(code, f"/{table}/folder", 10)], (table, value)


@pytest.mark.parametrize(
    ("value", "code"),
    [(7, "schema.type"), ("", "schema.min-length"), (None, "schema.type"), ("/abs/out", "security.path-escape"),
     ("a/../../out", "security.path-escape")],
)  # fmt: skip
def test_artifact_paths_get_a_security_code_only_when_they_escape(value: object, code: str) -> None:
    entry = {"source": "/w/out", "destination": value, "status": "missing"}
    manifest = {"schema_version": 1, "directory": value, "complete": True, "entries": [entry]}
    document = {"status": "completed", "metrics": {}, "final_answer": None, "trajectory": {}, "issues": [],
                "artifacts": {"declared_artifacts": manifest}, "analysis_result": {},
                "meta": {"benchmark": {}, "harness": {}}, "retry_count": 0}  # fmt: skip
    found = {(i.code, i.pointer) for i in validate(document, "agentcompass-attempt") if i.severity == "error"}
    pointer = "/artifacts/declared_artifacts"
    assert found == {(code, f"{pointer}/directory"), (code, f"{pointer}/entries/0/destination")}


def test_no_security_alert_in_the_mutant_corpus_unless_a_path_escapes() -> None:
    """Every mutant of every fixture: a security.* code only where a string leads outside its root."""
    from agentbeats_spec.rules.abv3 import inside_root

    from ..interop.test_ajv import corpus, corpus_findings, reach

    alerts = 0
    for (_, data), findings in zip(corpus(), corpus_findings(), strict=True):
        for finding in findings:
            if finding.code.startswith("security."):
                alerts += 1
                value = reach(data, tuple(int(t) if t.isdigit() else t for t in finding.pointer.split("/")[1:]))
                assert isinstance(value, str) and value and not inside_root(value), (finding, value)
    assert alerts


# What no input reaches by itself: a race between listing a folder and reading a file.
ONLY_IN_A_RACE = {("io.not-found", "warning"): "a file of a rerun's archived evidence removed after it was listed"}
# Keywords only a writer's shape ($defs/written) uses: what they find is reported as a rule.writer-shape warning.
ONLY_IN_WRITTEN = {("schema.maximum", "error"): "badcase_ratio of analysis_summary.json, read only by the browser"}


def test_every_code_of_the_table_is_reached_by_a_test_input_at_each_of_its_severities(tmp_path: Path) -> None:
    """Each code, at each severity the table allows it, is built for a real input: the table claims nothing the
    package does not do.

    Every finding is checked against the table where it is built (``_codes.check_code``), so no test can reach a
    code, or a severity, that the table lacks; this test is the other direction.
    """
    from ..interop.test_ajv import corpus_findings

    reached = {(finding.code, finding.severity) for findings in corpus_findings() for finding in findings}
    reached |= {(i.code, i.severity) for folder in sorted((FIXTURES / "invalid").iterdir()) for i in validate(folder)}
    for source, kind in _documents(tmp_path):
        reached |= {(issue.code, issue.severity) for issue in validate(source, kind, secrets=True)}
    for tree in _trees(tmp_path):
        reached |= {(issue.code, issue.severity) for issue in validate(tree)}
    reached |= {(issue.code, issue.severity) for issue in _refusals(tmp_path)}
    for document in _past_the_limit():
        reached |= {(i.code, i.severity) for i in validate(document, "actf-trajectory", limits=Limits(max_issues=1))}
    allowed = {(code.name, severity) for code in TABLE for severity in code.severities}
    missing = allowed - reached - set(ONLY_IN_A_RACE) - set(ONLY_IN_WRITTEN)
    assert not missing, " ".join(f"{code}/{severity}" for code, severity in sorted(missing))
    assert reached <= allowed  # what check_code makes sure of, where each was built


def _past_the_limit() -> Iterator[dict[str, Any]]:
    """Trajectories whose issues past a limit of one are only warnings, then only infos: io.issues-truncated takes
    the highest severity it hides."""
    for first, second in [
        (("2026-08-01T10:00:05Z", "2026-08-01T10:00:01Z"), ("2026-08-01T10:00:07Z", "2026-08-01T10:00:06Z")),
        (("2026-08-01T10:00:05Z", "2026-08-01T10:00:01Z"), ("2026-08-01 10:00:06", "2026-08-01 10:00:07")),
    ]:
        trajectory = load_fixture("valid/actf/trajectory.json")
        for step, (started, finished) in zip(trajectory["steps"], (first, second), strict=True):
            step["started_at"], step["finished_at"] = started, finished
        yield trajectory


def _documents(tmp: Path) -> Iterator[tuple[Any, str | None]]:
    """A document for each code that the fixtures and their mutants do not reach, with its kind."""
    deep = 1000
    yield from [
        (b'{"count": }', "abv3-results"),
        (b"\xef\xbb\xbf{}", "abv3-results"),
        (
            {
                "schema_version": "agentcompass.run_info.v3",
                "run_id": "r",
                "request": {"benchmark": {"id": "b"}, "execution": {"attempts": {"k": 1, "strategy": "avg"}}},
            },
            "agentcompass-run-info",
        ),
        (b"", "abv3-results"),
        (b'{"count": "\xff"}', "abv3-results"),
        (b'{"count": 1}\x00', "abv3-results"),
        (b"{} {}", "abv3-results"),
        (b"[" * deep + b"]" * deep, "abv3-results"),
        (b'{"count": 9007199254740993}', "abv3-results"),
        (b'{"count": ' + b"1" * 4400 + b"}", "abv3-results"),
        ({"count": {1, 2}}, "abv3-results"),
        ({"key": "sk-" + "a1B2c3D4" * 6}, "abv3-results"),
        ("a = ", "abv3-repo"),
        (b"\xef\xbb\xbfa = 1", "abv3-repo"),
        (b'a = "\xff"', "abv3-repo"),
        (b'a = "\x00"', "abv3-repo"),
        ("a = " + "[" * deep + "]" * deep, "abv3-repo"),
        ("a = " + "1" * 4400, "abv3-repo"),
        ("a = 1979-05-27", "abv3-repo"),
        (TOML.format('""'), "abv3-repo"),
        ('[abv3_repo]\nlogo_file = "ftp://example.org/logo.svg"\n', "abv3-repo"),
        ({"schema_version": "agentcompass.task.v9", "task_id": "t", "attempts": {}}, "agentcompass-task"),
        (
            {"schema_version": "agentcompass.task.v3", "task_id": "t", "attempts": {"1": "attempt-2"}},
            "agentcompass-task",
        ),
        ({"overall": [{"badcase_ratio": 2}]}, "agentcompass-analysis-summary"),
        (
            {
                "schema_version": "agentcompass.task.v3",
                "task_id": "t",
                "attempts": {},
                "attempt_plan": {"strategy": "Avg"},
            },
            "agentcompass-task",
        ),
    ]
    trajectory = load_fixture("valid/actf/trajectory.json")
    trajectory["steps"][0]["tools"] = {"bash": {}}
    yield trajectory, "actf-trajectory"
    detail = load_fixture("valid/task-detail/swe-utils.task-detail.json")
    detail["retry_counts"]["2"] = 0
    detail["attempt_plan"]["k"] = 2
    yield detail, "agentcompass-task-detail"
    case = load_fixture("valid/abb/resources/agents/demo-agent/ground_truth/issue_123/verify.case.json")
    case["fault location"][0].update(line_start=52, line_end=40)
    yield case, "abb-case"
    result = json.loads((TASK_DIR / "attempt-1" / "result.json").read_text(encoding="utf-8"))
    entries = result["artifacts"]["declared_artifacts"]["entries"]
    entries.append({"source": "/w/a", "destination": entries[0]["destination"], "status": "missing"})
    yield result, "agentcompass-attempt"
    report = load_fixture("valid/agentcompass-run/metrics.json")
    report["series"][0]["counts"]["unavailable"] += 1
    report["series"][1]["k"] += 1
    report["series"][2]["role"] = "headline"
    yield report, "agentcompass-metrics"
    request = {"benchmark": {"id": "gsm8k"}, "execution": {"attempts": {"k": 1, "strategy": "avg", "seed": 1}}}
    yield {"schema_version": "agentcompass.run_info.v2", "run_id": "r", "request": request}, "agentcompass-run-info"
    yield {"benchmark": "gsm8k", "execution": {"attempts": {"k": 1, "seed": 2}}}, "agentcompass-params"
    report = load_fixture("valid/agentcompass-run/metrics.json")
    report.update(evaluation_failed=True, strategy="AVG")
    report["series"][0]["reducer"] = "median"
    report["series"][1]["reducer"] = "native"
    report["series"][2]["reference_value"] = report["series"][2]["value"]  # both set: one role too many
    yield report, "agentcompass-metrics"
    lines = (VALID / "agentcompass-run" / "progress.jsonl").read_bytes().splitlines(keepends=True)
    (tmp / "progress.jsonl").write_bytes(lines[0] + b"\n" + b"".join(lines[1:]).rstrip(b"\n"))
    yield tmp / "progress.jsonl", None
    (tmp / "notes.json").write_text("{}")
    yield tmp / "notes.json", None
    yield tmp / "absent.json", None
    (tmp / "link.json").symlink_to(tmp / "notes.json")
    yield tmp / "link.json", None


def _trees(tmp: Path) -> Iterator[Path]:
    """Copies of the valid trees, each broken in several ways its layout reports."""
    from ..layouts.test_layout_abb import ATTEMPT, ISSUE, _file_issue
    from ..layouts.test_layout_agentcompass import TASK_NAME, _fix_directories, _rename, edit, task
    from ..layouts.test_legacy_v2 import build_v2_run

    run = _copy("agentcompass-run", tmp / "run" / "1")
    edit(task(run) / "task.json", lambda data: data.update(task_id="another id"))
    shutil.rmtree(task(run) / "attempt-3")
    (task(run) / "attempt-4").mkdir()
    (task(run) / "attempt-02").mkdir()
    (task(run) / "attempt-2" / "result.json").unlink()
    (task(run) / "attempt-2" / ".result.json.0f3a.tmp").write_text("{")
    (task(run) / "attempt-2" / "inside.json").symlink_to(task(run) / "task.json")
    (run / "details" / "failed").mkdir()
    (run / "details" / "notes.txt").write_text("")
    running = next((run / "details" / "running").iterdir())
    shutil.copytree(running, run / "details" / running.name)
    (running / "task.json").unlink()
    (running / "task.json").mkdir()
    elsewhere = "details/running/x/artifacts"
    edit(
        task(run) / "attempt-1" / "result.json",
        lambda data: data["artifacts"]["declared_artifacts"].update(directory=elsewhere),
    )
    edit(task(run) / "attempt-1" / "checkpoint.json", lambda data: data.update(schema_version="v0"))
    retries = sorted((task(run) / "attempt-1" / "retries").iterdir())
    edit(retries[0], lambda data: data.update(task_id="another-task", attempt=2))
    retries[1].rename(retries[1].with_name("retry1.json"))
    (run / "run_info.json").unlink()
    os.mkfifo(run / "pipe")
    (run / "summary.md").write_bytes("caf\u00e9\n".encode("latin-1"))  # the browser reads it as UTF-8
    archive = task(run) / "attempt-1" / "retries" / ("ab" * 16)
    archive.mkdir()
    for name, content in ARCHIVED.items():
        (archive / name).write_bytes(content)
    yield run

    run = _copy("agentcompass-run", tmp / "run" / "2")
    edit(task(run) / "task.json", lambda data: [data.pop(key) for key in ("category", "ground_truth", "attempt_plan")])
    (task(run) / "attempt-1" / "artifacts" / "patches" / "fix.diff").unlink()
    with (task(run) / "attempt-1" / "checkpoint.json").open("wb") as stream:
        stream.truncate(32 * 1024**2 + 1)
    sorted((task(run) / "attempt-1" / "retries").iterdir())[0].unlink()
    shutil.copytree(task(run), run / "details" / "normal" / TASK_NAME)
    yield run

    run = _copy("agentcompass-run", tmp / "run" / "agreeing")  # what a run's files must agree on (issue 34)
    edit(task(run) / "task.json", lambda data: data["attempt_plan"].update(k=4))
    edit(task(run) / "attempt-1" / "result.json", lambda data: data["metrics"].update(correct=1))
    running = next((run / "details" / "running").iterdir())
    (running / "attempt-1").mkdir(exist_ok=True)
    (running / "attempt-1" / "checkpoint.json").write_text(
        '{"schema_version": "agentcompass.attempt_checkpoint.v1", "scheduler": {"result_path": "other.json"}}'
    )
    yield run

    run = _copy("agentcompass-run", tmp / "run" / "scored")  # a headline its tasks do not give (issue 36)
    shutil.rmtree(run / "details" / "running")  # a run still running is not compared
    edit(run / "metrics.json", lambda data: data["series"][0].update(value=0.5, reference_value=0.5))
    yield run

    for n, name in enumerate(("swe_utils", "other-prefix--" + TASK_NAME.split("--")[1]), start=3):
        run = _copy("agentcompass-run", tmp / "run" / str(n))
        _rename(run, name)
        yield run
    run = _copy("agentcompass-run", tmp / "run" / "5")
    moved = run / "details" / "normal" / TASK_NAME
    moved.parent.mkdir()
    task(run).rename(moved)
    _fix_directories(run, moved)
    retries = task(run, "normal") / "attempt-1" / "retries"
    record = json.loads(sorted(retries.iterdir())[0].read_text(encoding="utf-8"))
    record.update(retry=9, max_retries=9)
    (retries / f"{TASK_NAME}.attempt1.retry9.run.json").write_text(json.dumps(record))
    with (task(run, "normal") / "attempt-1" / "artifacts" / "patches" / "fix.diff").open("a") as stream:
        stream.write("changed after collection\n")
    yield run
    yield build_v2_run(tmp / "run" / "v2")
    run = _copy("agentcompass-run", tmp / "run" / "6")
    shutil.rmtree(run / "details" / "running")
    edit(run / "metrics.json", lambda data: data.update(evaluation_failed=True))
    (task(run) / "attempt-1" / "artifacts" / "patches" / "fix.diff").chmod(0o664)  # as a checkout under umask 002
    yield run

    repo = _copy("abv3-repo", tmp / "repo" / "1")
    (repo / "logo.svg").unlink()
    (repo / "run_configs" / "loose.json").write_text("{}")
    (repo / "run_configs" / "empty").mkdir()
    (repo / "run_configs" / "default" / "nested").mkdir()
    shutil.copytree(repo / "results" / "ablation", repo / "results" / "old")
    (repo / "results" / "ablation" / "results.json").unlink()
    (repo / "results" / "loose.json").write_text("{}")
    description = repo / "agentbeats.toml"
    description.write_text(description.read_text().replace('default_exp = "default"', 'default_exp = "main"'))
    (repo / "run_configs" / "README.md").write_text("# Run configs\n")
    (repo / "results" / "README.md").write_text("# Results\n")
    yield repo
    repo = _copy("abv3-repo", tmp / "repo" / "2")
    shutil.rmtree(repo / "run_configs")
    yield repo
    repo = _copy("abv3-repo", tmp / "repo" / "3")
    description = repo / "agentbeats.toml"
    description.write_text(description.read_text().replace('default_exp = "default"', ""))
    shutil.rmtree(repo / "run_configs" / "default")
    shutil.rmtree(repo / "results" / "default")
    yield repo

    tree = _copy("abb", tmp / "abb")
    (tree / ATTEMPT / "run.json").write_text("[1, 2]")
    (tree / ATTEMPT / "trajectory.json").write_text("[]")
    stopped = tree / ATTEMPT.with_name("2")
    shutil.copytree(tree / ATTEMPT, stopped)
    shutil.rmtree(stopped / "steps")
    (tree / ATTEMPT / "steps" / "2" / "submission.json").unlink()
    _file_issue(tree, "other-agent", 300, json.loads((tree / ISSUE / "verify.case.json").read_text())["case_id"])
    (tree / ISSUE).rename(tree / ISSUE.with_name("issue_124"))
    yield tree
    (tmp / "nothing").mkdir()
    (tmp / "nothing" / "README.md").write_text("# no artifact here\n")
    yield tmp / "nothing"


# A rerun's archived evidence is kept as it was: each of these is a warning there.
ARCHIVED = {
    "syntax.json": b'{"a": }',
    "duplicate.json": b'{"a": 1, "a": 2}',
    "empty.json": b"",
    "encoding.json": b'{"a": "\xff"}',
    "nan.json": b'{"a": NaN}',
    "nul.json": b"{}\x00",
    "trailing.json": b"{} {}",
    "deep.json": b"[" * 1000 + b"]" * 1000,
    "bom.json": b"\xef\xbb\xbf{}",
}


def _copy(name: str, target: Path) -> Path:
    shutil.copytree(VALID / name, target, symlinks=True)
    return target


def _refusals(tmp: Path) -> Iterator[Issue]:
    """The issues of what is refused by a raised InvalidDocument, or read under limits, rather than validated."""
    from agentbeats_spec import from_atif
    from agentbeats_spec.models.actf import Step

    atif = tmp / "bad.atif.json"
    atif.write_text(
        '{"schema_version": "ATIF-v1.8", "agent": {"name": "a", "version": "1"}, '
        '"steps": [{"step_id": 2, "source": "agent", "message": "x"}]}'
    )
    for refused in (lambda: from_atif(atif), lambda: Step(step_id=0, unknown_members={"step_id": 3})):
        with pytest.raises(InvalidDocument) as raised:
            refused()
        yield from raised.value.issues
    from agentbeats_spec import load

    from .test_models import a_model_that_disagrees_with_its_schema

    with a_model_that_disagrees_with_its_schema(), pytest.raises(InvalidDocument) as raised:
        load(TASK_DIR / "task.json")  # valid, but not for the faulty model: model.unrepresentable
    yield from raised.value.issues
    (tmp / "results.json").write_text('{"count": -1, "main_metric": 7}')
    yield from validate(tmp / "results.json", limits=Limits(max_issues=1))
    yield from validate(tmp / "results.json", limits=Limits(max_file_size=8))
    # Too large, or unreadable (in a process held to permission bits), in a run and in its archived evidence.
    from ..layouts.test_faults import cli
    from ..layouts.test_layout_agentcompass import task

    run = _copy("agentcompass-run", tmp / "run" / "limits")
    archive = task(run) / "attempt-1" / "retries" / ("ab" * 16)
    archive.mkdir()
    (archive / "big.json").write_text("[" + "0, " * 100_000 + "0]")
    yield from validate(run, limits=Limits(max_file_size=100_000))
    (archive / "big.json").chmod(0o000)
    (task(run) / "attempt-2" / "result.json").chmod(0o000)
    report = json.loads(cli("validate", "--format", "json", str(run), unprivileged=True).stdout)
    # Out of memory, for real: a child process held to a small address space.
    from ..reading.test_memory import held, tree_with_a_huge_file

    huge, _ = tree_with_a_huge_file(tmp / "memory")
    report["issues"] += json.loads(held(300, "validate", "--no-cache", "--format", "json", str(huge)).stdout)["issues"]
    for issue in report["issues"]:
        yield Issue(
            file=issue["file"],
            kind=issue["kind"],
            pointer=issue["pointer"],
            line=issue["line"],
            column=issue["column"],
            severity=issue["severity"],
            code=issue["code"],
            message=issue["message"],
        )


# The assertion keywords of JSON Schema 2020-12 (validation, applicator and unevaluated vocabularies that can fail).
ASSERTIONS = frozenset({
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
    "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties",
    "minProperties", "required", "dependentRequired", "format", "additionalProperties", "propertyNames", "not",
    "unevaluatedProperties", "unevaluatedItems", "items", "prefixItems", "contains", "oneOf", "anyOf", "allOf",
})  # fmt: skip
SUBSCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})


def _keywords(node: object) -> Iterator[str]:
    """Every keyword of a schema and of its subschemas (names under ``properties`` and the like are not keywords)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            if key in SUBSCHEMA_MAPS and isinstance(value, dict):
                for subschema in value.values():
                    yield from _keywords(subschema)
            elif key not in ("enum", "const", "examples", "default", "required"):
                yield from _keywords(value)
    elif isinstance(node, list):
        for item in node:
            yield from _keywords(item)


def test_every_assertion_keyword_of_the_shipped_schemas_has_its_code_in_the_table() -> None:
    """A failing keyword becomes schema.<its code>: a keyword with no code in the table would be refused when its
    first finding is built, so each keyword a schema uses must have one (the table lists no code that cannot be
    reached, so this is the guard for a schema that starts using a new keyword)."""
    used = {keyword for document in documents().values() for keyword in _keywords(document)} & ASSERTIONS
    assert {"type", "required", "additionalProperties", "pattern"} <= used
    applicators = {"items", "prefixItems", "contains", "allOf"}  # they fail through a subschema's own keyword
    missing = {keyword for keyword in used - applicators if "schema." + placed(keyword).code not in CODES}
    assert not missing, missing
