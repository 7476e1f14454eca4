"""The one table of output formats (``reporting/_formats.py``): every printing command offers what it lists for it,
and the README and docs/api.md name the formats it holds, in its order."""

from __future__ import annotations

import re

import pytest

from agentbeats_spec.cli._commands import parser
from agentbeats_spec.reporting._formats import FORMATS, REPORTERS, REPORTING, offered

from ..conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
API = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")


def named(text: str, start: str, end: str) -> list[str]:
    """The formats a passage of the docs names: the code spans between ``start`` and ``end`` outside parentheses
    (what is inside explains a format, as ``--link-base URL`` does)."""
    passage = text[text.index(start) : text.index(end, text.index(start))]
    return re.findall(r"`(?:--format )?([a-z0-9]+)`", re.sub(r"\([^()]*\)", "", passage))


def choices(command: str, option: str) -> list[str]:
    """The choices the parser of ``command`` gives ``option``."""
    subparsers = next(action for action in parser()._actions if action.dest == "command")
    sub = subparsers.choices[command]  # type: ignore[index]
    (action,) = [action for action in sub._actions if option in action.option_strings]
    return list(action.choices)


@pytest.mark.parametrize(
    ("command", "option"),
    [*((command, "--format") for command in REPORTING), ("watch", "--format"), ("convert", "--format"),
     ("export", "--to")],
)  # fmt: skip
def test_every_printing_command_offers_the_formats_the_table_lists_for_it(command: str, option: str) -> None:
    assert choices(command, option) == list(offered(command))


def test_the_reporting_commands_offer_every_format_of_a_whole_report() -> None:
    for command in REPORTING:
        assert list(offered(command)) == list(REPORTERS)


def test_every_format_serves_a_command() -> None:
    assert [name for name, format_ in FORMATS.items() if not format_.commands] == []


def test_the_readme_names_the_formats_of_validate_in_the_tables_order() -> None:
    assert named(README, "The formats:", "`--output FORMAT:FILE`") == list(offered("validate"))


def test_the_readme_names_the_formats_of_watch_in_the_tables_order() -> None:
    assert named(README, "Each issue is printed (and flushed) when found", "It ends when") == list(offered("watch"))


def test_the_readme_names_the_file_formats_of_export_in_the_tables_order() -> None:
    assert named(README, "writes the file atomically, and writes", "By default") == list(offered("export"))


def test_the_formats_docs_api_calls_public_are_in_the_table() -> None:
    """docs/api.md names the formats whose output is public (not every one: text is for people); each is one the
    table holds, and jsonl, said to be watch's, is offered by watch."""
    public = named(API, "- the command line:", "; new members")
    assert public and set(public) <= set(FORMATS)
    assert "(watch) `jsonl`" in API and "jsonl" in offered("watch")
