"""ABV3-L1 agentbeats.toml (kind abv3-repo)."""

from __future__ import annotations

from typing import Any

import pytest

from agentbeats_spec import Limits, validate
from agentbeats_spec.checking import _schemas

from ..conftest import VALID, errors, issues, one, summary

VALID_TOML = (VALID / "abv3-repo" / "agentbeats.toml").read_text(encoding="utf-8")
MINIMAL = '[abv3_repo]\nname = "r"\nrole = "subject"\nauthor = "a"\n\n[run]\ncommand = "python main.py"\n'


def test_the_spec_example_is_valid() -> None:
    assert issues(VALID / "abv3-repo" / "agentbeats.toml") == []


def test_a_minimal_file_needs_only_the_required_fields() -> None:
    assert issues(MINIMAL, "abv3-repo") == []


@pytest.mark.parametrize("field", ["name", "role", "author"])
def test_abv3_repo_requires_name_role_and_author(field: str) -> None:
    text = "\n".join(line for line in MINIMAL.splitlines() if not line.startswith(field))
    issue = one(text, "abv3-repo")
    assert (issue.code, issue.pointer, issue.line, issue.column) == (
        "schema.required",
        f"/abv3_repo/{field}",
        1,
        2,
    )


def test_run_command_is_required_and_not_blank() -> None:
    assert summary(MINIMAL.replace('command = "python main.py"', ""), "abv3-repo") == {
        ("schema.required", "/run/command")
    }
    assert summary(MINIMAL.replace('"python main.py"', '" "'), "abv3-repo") == {("schema.pattern", "/run/command")}
    assert summary(MINIMAL.split("[run]")[0], "abv3-repo") == {("schema.required", "/run")}


def test_role_is_judge_or_subject_with_a_suggestion() -> None:
    issue = one(MINIMAL.replace('"subject"', '"subjet"'), "abv3-repo")
    assert issue.code == "schema.enum" and "did you mean 'subject'" in issue.message


@pytest.mark.parametrize("version", ["1.0", "v1.0.0", "01.0.0", "1.0.0-", "1.0.0+", "1.0.0\n"])
def test_version_must_be_full_semver(version: str) -> None:
    toml_string = version.replace("\n", "\\n")
    assert summary(MINIMAL + "", "abv3-repo") == set()
    text = MINIMAL.replace('author = "a"', f'author = "a"\nversion = "{toml_string}"')
    assert summary(text, "abv3-repo") == {("schema.pattern", "/abv3_repo/version")}


@pytest.mark.parametrize("version", ["0.1.0", "1.0.0-rc.1", "1.0.0-alpha.beta+exp.sha.5114f85", "10.20.30"])
def test_semver_examples_pass(version: str) -> None:
    assert issues(MINIMAL.replace('author = "a"', f'author = "a"\nversion = "{version}"'), "abv3-repo") == []


def test_tags_are_unique_strings() -> None:
    text = MINIMAL.replace('author = "a"', 'author = "a"\ntags = ["x", "y", "x", 3]')
    assert summary(text, "abv3-repo") == {
        ("schema.unique-items", "/abv3_repo/tags/2"),
        ("schema.type", "/abv3_repo/tags/3"),
    }


@pytest.fixture(params=["jsonschema-rs", "python-jsonschema"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each schema engine judges the document: jsonschema-rs (where installed) for the verdict, or Python alone."""
    if (
        request.param == "jsonschema-rs"
        and _schemas.fast_validator(_schemas.BASE_URI + "abv3/agentbeats-toml.v1.json") is None
    ):
        pytest.skip("jsonschema-rs is not installed")
    if request.param == "python-jsonschema":
        monkeypatch.setattr(_schemas, "fast_validator", lambda *_, **__: None)
    return str(request.param)


def repeated(text: str) -> list[tuple[str, str]]:
    return [(i.pointer, i.message) for i in issues(text, "abv3-repo") if i.code == "schema.unique-items"]


def test_tags_repeat_as_json_values_compare(engine: str) -> None:
    """JSON Schema's equality: 1 and 1.0 are one number, true is not 1, members in any order; the first equal
    item is the one named."""
    tags = '["x", 1, 1.0, true, 1, {a = 1, b = [2]}, {b = [2.0], a = 1}, [1, "x"], [1.0, "x"], false, 0, 0.0, "x"]'
    assert repeated(MINIMAL.replace('author = "a"', f'author = "a"\ntags = {tags}')) == [
        ("/abv3_repo/tags/2", "the number 1.0 repeats item 1; items must be unique"),
        ("/abv3_repo/tags/4", "the number 1 repeats item 1; items must be unique"),
        ("/abv3_repo/tags/6", "an object with 2 member(s) repeats item 5; items must be unique"),
        ("/abv3_repo/tags/8", "an array of 2 item(s) repeats item 7; items must be unique"),
        ("/abv3_repo/tags/11", "the number 0.0 repeats item 10; items must be unique"),
        ("/abv3_repo/tags/12", "the string 'x' repeats item 0; items must be unique"),
    ]


def test_tags_that_differ_anywhere_are_not_repeats(engine: str) -> None:
    tags = '[{a = 1}, {a = 1, b = 1}, {a = "1"}, {b = 1}, [1, 2], [2, 1], [[1]], ["1"], "1", "true", true]'
    assert repeated(MINIMAL.replace('author = "a"', f'author = "a"\ntags = {tags}')) == []


def nested(depth: int, leaf: Any = "x") -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def test_two_equal_tags_as_deep_as_the_toml_reader_allows_are_one_finding(engine: str) -> None:
    """Deeper than jsonschema-rs compares items (255 levels): the Python engine judges them, without recursion."""
    deep = "[" * 350 + '"x"' + "]" * 350
    text = MINIMAL.replace('author = "a"', f'author = "a"\ntags = [{deep}, {deep}, {deep.replace("x", "y")}]')
    assert repeated(text) == [("/abv3_repo/tags/1", "an array of 1 item(s) repeats item 0; items must be unique")]


def test_two_equal_tags_deeper_than_pythons_recursion_limit_are_one_finding(engine: str) -> None:
    document = {
        "abv3_repo": {
            "name": "r",
            "role": "subject",
            "author": "a",
            "tags": [nested(900), nested(900), nested(900, 1)],
        },
        "run": {"command": "python main.py"},
    }
    found = [(i.code, i.pointer) for i in validate(document, "abv3-repo", limits=Limits(max_depth=1_000))]
    assert ("schema.unique-items", "/abv3_repo/tags/1") in found
    assert ("schema.unique-items", "/abv3_repo/tags/2") not in found


@pytest.mark.parametrize(
    ("logo", "expected"),
    [
        ("./logo.svg", set()),
        ("assets/logo.png", set()),
        ("https://example.org/logo.svg", set()),
        ("../logo.svg", {("security.path-escape", "/abv3_repo/logo_file")}),
        ("/etc/logo.svg", {("security.path-escape", "/abv3_repo/logo_file")}),
        ("assets/../../logo.svg", {("security.path-escape", "/abv3_repo/logo_file")}),
        ("ftp://example.org/logo.svg", {("rule.logo-url", "/abv3_repo/logo_file")}),
    ],
)
def test_logo_file_is_a_url_or_a_path_inside_the_repository(logo: str, expected: set[tuple[str, str]]) -> None:
    assert summary(MINIMAL.replace('author = "a"', f'author = "a"\nlogo_file = "{logo}"'), "abv3-repo") == expected


@pytest.mark.parametrize("folder", ["../elsewhere", "/abs", "a/../../b", "C:/results"])
def test_declared_folders_stay_inside_the_repository(folder: str) -> None:
    text = MINIMAL + f'\n[run_configs]\nfolder = "{folder}"\n\n[results]\nfolder = "{folder}"\n'
    assert errors(text, "abv3-repo") == {
        ("security.path-escape", "/run_configs/folder"),
        ("security.path-escape", "/results/folder"),
    }


def test_dependency_required_is_a_boolean() -> None:
    text = MINIMAL + '\n[dependency.openai_api_key]\nrequired = "yes"\n\n[dependency.docker_sock]\n'
    assert summary(text, "abv3-repo") == {
        ("schema.type", "/dependency/openai_api_key/required"),
        ("schema.required", "/dependency/docker_sock/required"),
    }


def test_unknown_keys_warn_and_near_misses_are_errors() -> None:
    text = MINIMAL.replace('author = "a"', 'author = "a"\nhomepage = "x"\nverison = "1.0.0"')
    text += "\n[dependency.docker_socket]\nrequired = true\n\n[dependency.gpu]\nrequired = false\n"
    found = {(i.code, i.pointer, i.severity) for i in issues(text, "abv3-repo")}
    assert found == {
        ("rule.unknown-key", "/abv3_repo/homepage", "warning"),
        ("rule.misspelled-key", "/abv3_repo/verison", "error"),
        ("rule.misspelled-key", "/dependency/docker_socket", "error"),
        ("rule.unknown-key", "/dependency/gpu", "warning"),
    }
    misspelled = next(i for i in issues(text, "abv3-repo") if i.pointer == "/abv3_repo/verison")
    assert "did you mean 'version'?" in misspelled.message
    assert (misspelled.line, misspelled.column) == (6, 1)


def test_dotted_keys_and_inline_tables_are_located() -> None:
    text = 'abv3_repo = { name = "r", role = "chef", author = "a" }\nrun.command = 5\n'
    found = {(i.pointer, i.line, i.column) for i in issues(text, "abv3-repo")}
    assert found == {("/abv3_repo/role", 1, 34), ("/run/command", 2, 15)}


def test_toml_dates_are_type_errors_that_say_to_quote_them() -> None:
    issue = one(MINIMAL.replace('author = "a"', "author = 1979-05-27"), "abv3-repo")
    assert (issue.code, issue.pointer, issue.line, issue.column) == ("toml.type", "/abv3_repo/author", 4, 10)
    assert "quotes" in issue.message
