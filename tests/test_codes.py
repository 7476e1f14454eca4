"""Every issue code the package can produce is documented."""

from __future__ import annotations

import re

from agentbeats_spec._codes import CODES

from .conftest import ROOT

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
