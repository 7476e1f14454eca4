"""ABV3-L1 agentbeats.toml (kind abv3-repo)."""

from __future__ import annotations

import pytest

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
