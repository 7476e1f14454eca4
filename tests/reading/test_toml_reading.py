"""TOML reading and positions (agentbeats.toml)."""

from __future__ import annotations

from agentbeats_spec.reading._documents import parse_text
from agentbeats_spec.vocabulary._issues import Anchor

from ..conftest import one

HEADER = '[abv3_repo]\nname = "r"\nrole = "judge"\nauthor = "a"\n\n[run]\ncommand = "x"\n'


def test_syntax_errors_have_line_and_column() -> None:
    issue = one('[abv3_repo]\nname = "r\nrole = "judge"\n', "abv3-repo")
    assert (issue.code, issue.pointer, issue.line) == ("toml.syntax", "", 2)
    assert issue.column is not None


def test_invalid_utf8_in_toml() -> None:
    issue = one(HEADER.encode() + b'\n[install]\ncommand = "\xff"\n', "abv3-repo")
    assert (issue.code, issue.line, issue.column) == ("toml.encoding", 10, 12)


def test_dates_and_times_have_no_json_form() -> None:
    source = HEADER.replace('author = "a"', "author = 07:32:00")
    issue = one(source, "abv3-repo")
    assert (issue.code, issue.pointer, issue.line, issue.column) == ("toml.type", "/abv3_repo/author", 4, 10)
    assert "expected a string" in issue.message


def positions(text: str, *pointers: str) -> list[tuple[int, int]]:
    document = parse_text(text, "toml")
    found = document.positions([(pointer, Anchor.VALUE) for pointer in pointers])
    return [found[(pointer, Anchor.VALUE)] for pointer in pointers]


def test_positions_in_tables_dotted_keys_and_inline_tables() -> None:
    text = (
        "# comment\n"
        '[a]\nx = 1\ny.z = "two"  # trailing\n'
        '"quoted key" = { p = [1, 2, {q = 3}], r.s = true }\n'
        "[b.c]\nd = '''\nmulti\nline ''' \ne = [\n  1, # one\n  2,\n]\n"
    )
    assert positions(text, "/a", "/a/x", "/a/y/z", "/a/quoted key/p/2/q", "/a/quoted key/r/s", "/b/c/e/1") == [
        (2, 2),
        (3, 5),
        (4, 7),
        (5, 34),
        (5, 45),
        (12, 3),
    ]


def test_positions_in_arrays_of_tables() -> None:
    text = '[[fruit]]\nname = "apple"\n[[fruit.variety]]\nname = "red"\n[[fruit]]\nname = "banana"\n'
    assert positions(text, "/fruit/0/name", "/fruit/0/variety/0/name", "/fruit/1/name") == [
        (2, 8),
        (4, 8),
        (6, 8),
    ]


def test_multiline_basic_strings_with_quotes_inside() -> None:
    text = 'a = """one "two" ""\nthree"""""\nb = 2\n'
    assert positions(text, "/b") == [(3, 5)]
