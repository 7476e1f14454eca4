"""Every issue code the package can produce is documented."""

from __future__ import annotations

import re

import pytest

from agentbeats_spec import validate
from agentbeats_spec._codes import CODES

from ..conftest import ROOT

LITERAL = re.compile(r'"((?:json|toml|schema|rule|layout|security|io)\.[a-z0-9-]+)"')
FAMILY = re.compile(r'f"\{family\}\.([a-z0-9-]+)"')


def test_every_code_in_the_source_is_in_the_table() -> None:
    found = set()
    for path in (ROOT / "src" / "agentbeats_spec").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found |= set(LITERAL.findall(text))
        for suffix in FAMILY.findall(text):
            found |= {f"json.{suffix}", f"toml.{suffix}"}
    assert found and found <= set(CODES), found - set(CODES)


def test_the_codes_doc_lists_every_code() -> None:
    text = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    for code in CODES:
        assert f"`{code}`" in text


FAMILIES = {
    "json": "reading JSON",
    "toml": "reading TOML",
    "schema": "a JSON Schema keyword",
    "rule": "a cross-field rule",
    "layout": "a run tree's layout",
    "jsonl": "reading JSON Lines",
    "legacy": "an older layout the reader still converts",
    "security": "a path that escapes its root, a link, or a secret",
    "io": "a file that cannot be read",
    "atif": "reading an ATIF file to convert",
}


def test_every_code_has_a_family_and_a_meaning() -> None:
    for code, meaning in CODES.items():
        family, _, name = code.partition(".")
        assert family in FAMILIES and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name), code
        assert meaning == meaning.strip() and len(meaning) > 12 and meaning.endswith("."), code
    security = {code for code in CODES if code.startswith("security.")}
    assert security == {"security.path-escape", "security.symlink", "security.secret"}


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
