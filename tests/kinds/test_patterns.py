"""Every regular expression in schemas/ means the same in Python's re, ECMAScript (Ajv) and RE2 (Go and others).

Python's ``$`` also matches before a final newline; the shipped schemas guard each anchored pattern with
``"not": {"type": "string", "pattern": "\\n$"}``, which means the same everywhere. The verdict compared is the one
a schema gives a string: its pattern matches and its guard does not.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from agentbeats_spec.checking._keywords import _compiled
from agentbeats_spec.checking._schemas import documents

re2 = pytest.importorskip("re2")

Node = dict[str, Any]


def nodes(value: Any, where: str) -> Iterator[tuple[str, Node]]:
    if isinstance(value, dict):
        if isinstance(value.get("pattern"), str):
            yield where, value
        for key, item in value.items():
            yield from nodes(item, f"{where}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from nodes(item, f"{where}/{index}")


PATTERNS = sorted(
    {(where, node["pattern"], (node.get("not") or {}).get("pattern")) for uri, doc in documents().items()
     for where, node in nodes(doc, uri) if node["pattern"] != "\n$"}
)  # fmt: skip
ALPHABET = ["a", "Z", "1", "0", ".", "/", "\\", ":", "-", "\n", " ", "\t", "\r", "\u3000", "\u00a0", "\u2028", "\x85"]
SAMPLES = [
    "", "attempt-1", "attempt-01", "2026-08-01T10:00:00Z", "2026-08-01 10:00:00", "2026-08-01 10:00:00.5+00:00",
    "octo-org/octo-repo", "https://github.com/o/r/issues/1", "1.0.0", "1.0.0-rc.1+build.5", "default", ".hidden",
    "..", ".", "...", "..x", "a/../b", "a/..", "../a", "/abs", "\\abs", "C:/x", "c:", "a:b", "a//b", "a/./b",
    "logs/out.txt", "run_configs", "ünïcode", "\ufeffa", "a\u200b", "task id", " task", "task ", "task\u3000",
]  # fmt: skip
STRINGS = sorted(
    {*SAMPLES, *(s + "\n" for s in SAMPLES), *(s + "\n\n" for s in SAMPLES), *("\n" + s for s in SAMPLES),
     *("".join(chars) for n in range(4) for chars in itertools.product(ALPHABET[:10], repeat=n)),
     *("".join(chars) for chars in itertools.product(ALPHABET, repeat=2))}
)  # fmt: skip


def verdict(search: Any, pattern: str, guard: str | None, text: str) -> bool:
    return bool(search(pattern, text)) and not (guard is not None and search(guard, text))


def test_the_patterns_are_guarded_and_there_are_some() -> None:
    assert len(PATTERNS) >= 10
    for where, pattern, guard in PATTERNS:
        if pattern.endswith("$"):
            assert guard == "\n$", where


@pytest.mark.parametrize(("where", "pattern", "guard"), PATTERNS, ids=[p[0] for p in PATTERNS])
def test_python_re2_and_this_package_agree(where: str, pattern: str, guard: str | None) -> None:
    compiled = {source: re2.compile(source) for source in filter(None, (pattern, guard))}
    for text in STRINGS:
        python = verdict(re.search, pattern, guard, text)
        google = verdict(lambda source, value: compiled[source].search(value), pattern, guard, text)
        ours = verdict(lambda source, value: _compiled(source).search(value), pattern, guard, text)
        assert python == google == ours, (where, text)


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is needed")
def test_ecmascript_agrees_with_python() -> None:
    script = (
        "const {patterns, strings} = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "const out = patterns.map(([p, g]) => strings.map((s) => new RegExp(p, 'u').test(s) &&"
        " !(g !== null && new RegExp(g, 'u').test(s))));"
        "process.stdout.write(JSON.stringify(out));"
    )
    payload = json.dumps({"patterns": [[p, g] for _, p, g in PATTERNS], "strings": STRINGS})
    result = subprocess.run(["node", "-e", script], input=payload, capture_output=True, text=True, check=True)
    ecma = json.loads(result.stdout)
    for (where, pattern, guard), verdicts in zip(PATTERNS, ecma, strict=True):
        python = [verdict(re.search, pattern, guard, text) for text in STRINGS]
        assert [STRINGS[i] for i, (a, b) in enumerate(zip(python, verdicts, strict=True)) if a != b] == [], where


def test_white_space_is_what_the_reader_strips() -> None:
    """trimmedText and nonBlankText use the characters Python's str.strip() removes, listed one by one."""
    trimmed = documents()["https://agentbeats.dev/schemas/common/defs.v1.json"]["$defs"]["trimmedText"]
    for code in range(0x3001):
        char = chr(code)
        assert verdict(re.search, trimmed["pattern"], "\n$", f"a{char}") == (not char.isspace()), hex(code)
