"""The native strict reader flags everything it is not certain is clean, and reports come out byte-identical.

The native reader (src/agentbeats_spec/reading/_native.c) never makes a report: it either vouches for a document
(its data and container offsets) or flags it for the exact reader. So the same issues, with the same lines and
columns, must come out whichever reader runs: over the fixtures, generated documents and mutants of real files.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentbeats_spec
from agentbeats_spec.checking._kinds import KINDS, from_path
from agentbeats_spec.checking._schemas import strict_integers_needed
from agentbeats_spec.checking._sources import examine_source
from agentbeats_spec.reading import _json, _nativejson
from agentbeats_spec.vocabulary._settings import Limits, Settings, applied

from ..conftest import FIXTURES, ROOT
from ..strategies import json_texts

pytestmark = pytest.mark.skipif(not _nativejson.available, reason="the native reader is not built")

if _nativejson.available:
    from agentbeats_spec.reading import _native


@contextlib.contextmanager
def exact_reader() -> Iterator[None]:
    """Every document through the exact reader alone (no native reader, no orjson fast path)."""
    saved = _nativejson.available, _json.orjson
    _nativejson.available, _json.orjson = False, None
    try:
        yield
    finally:
        _nativejson.available, _json.orjson = saved


def both(source: Any, kind: str | None = None) -> tuple[Any, Any]:
    native = outcome(source, kind)
    with exact_reader():
        exact = outcome(source, kind)
    return native, exact


def outcome(source: Any, kind: str | None) -> Any:
    """The issues, or the exception: hostile inputs are helper robust's (issue 12) to report; both paths must agree."""
    try:
        return agentbeats_spec.validate(source, kind)
    except Exception as error:
        return type(error).__name__


def flag(raw: bytes, max_depth: int = 512) -> int:
    data, found, table, _ = _native.read(raw, max_depth)
    assert (data is None and table is None) if found else table is not None
    return found


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"", "EMPTY"),
        (b" \n\t", "EMPTY"),
        (b'{"a": 1, "a": 2}', "DUPLICATE"),
        (b'{"a": {"b": [1, {"c": 1, "c": 1}]}}', "DUPLICATE"),
        (b'{"a": 1, "\\u0061": 2}', "DUPLICATE"),
        (b'{"a": 9007199254740993}', "LARGE_INTEGER"),
        (b'{"a": -9007199254740993}', "LARGE_INTEGER"),
        (b'{"a": 123456789012345678901234567890}', "LARGE_INTEGER"),
        (b"[" + b"9" * 5000 + b"]", "LARGE_INTEGER"),
        (b'{"a": NaN}', "NON_FINITE"),
        (b'{"a": Infinity}', "NON_FINITE"),
        (b'{"a": -Infinity}', "NON_FINITE"),
        (b'{"a": 1e999}', "NON_FINITE"),
        (b'{"a": -1e999}', "NON_FINITE"),
        (b"\xef\xbb\xbf{}", "BOM"),
        (b'{"a": "\\ud800"}', "SURROGATE"),
        (b'{"a": "\\udc00\\ud800"}', "SURROGATE"),
        (b'{"a": "\\ud800x"}', "SURROGATE"),
        (b'{"\\ud83d": 1}', "SURROGATE"),
        (b'{"a": "\xff"}', "UTF8"),
        (b'{"a": "\xed\xa0\x80"}', "UTF8"),  # a surrogate written in UTF-8
        (b'{"a": "\xc0\xaf"}', "UTF8"),  # overlong
        (b'{"a": "\xf4\x90\x80\x80"}', "UTF8"),  # beyond U+10FFFF
        (b'{"a": "tab\there"}', "CONTROL"),
        (b'{"a": "nul\x00"}', "CONTROL"),
        (b"{} []", "TRAILING"),
        (b"{}x", "TRAILING"),
        (b"01", "TRAILING"),
        (b"[" * 600 + b"]" * 600, "DEPTH"),
        (b"{", "SYNTAX"),
        (b'{"a" 1}', "SYNTAX"),
        (b'{"a": 1,}', "SYNTAX"),
        (b"[1,]", "SYNTAX"),
        (b"[01]", "SYNTAX"),
        (b"[1.]", "SYNTAX"),
        (b"[.5]", "SYNTAX"),
        (b"[1e]", "SYNTAX"),
        (b"[+1]", "SYNTAX"),
        (b"[tru]", "SYNTAX"),
        (b'["\\x"]', "SYNTAX"),
        (b'["\\u12"]', "SYNTAX"),
        (b'["abc', "SYNTAX"),
        (b'["abc\\', "SYNTAX"),
        (b"[\xc2\xa0]", "SYNTAX"),  # a no-break space is no JSON white space
        (b"[\x0b1]", "SYNTAX"),
        (b"{'a': 1}", "SYNTAX"),
    ],
)
def test_every_doubtful_document_is_flagged_with_its_reason(raw: bytes, expected: str) -> None:
    assert flag(raw) == getattr(_native, f"FLAG_{expected}")


def test_nesting_beyond_what_the_native_reader_follows_is_flagged_whatever_the_limit() -> None:
    assert flag(b"[" * 1024 + b"]" * 1024, max_depth=2000) == 0
    assert flag(b"[" * 1025 + b"]" * 1025, max_depth=2000) == _native.FLAG_DEPTH


def test_the_depth_limit_is_the_configured_one() -> None:
    assert flag(b"[[[]]]", max_depth=3) == 0
    assert flag(b"[[[]]]", max_depth=2) == _native.FLAG_DEPTH


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": 9007199254740992, "b": -9007199254740992, "c": 999999999999999}',
        b'{"a": "\\ud83d\\ude00 \\u00e9\\n\\"\\\\\\/\\b\\f\\r\\t", "\xc3\xa9": "\xf0\x9f\x98\x80"}',
        b'{"a": "\\u0000", "b": "\x7f"}',  # an escaped NUL and DEL are allowed
        b"[0, -0, -0.0, 1.5e3, 1E-3, 2.2250738585072014e-308, 1e-999, 1.7976931348623157e308]",
        b'  {"a": [], "b": {}, "c": [[], {}], "d": true, "e": false, "f": null}\r\n',
        b'"just a string"',
        b"17",
    ],
)
def test_clean_documents_give_the_standard_parsers_data(raw: bytes) -> None:
    data, found, _, _ = _native.read(raw, 512)
    assert found == 0
    expected = json.loads(raw)
    assert data == expected
    assert json.dumps(data) == json.dumps(expected)  # 1 and 1.0, 0.0 and -0.0 told apart


def test_the_offsets_table_lists_every_container_in_document_order() -> None:
    raw = b'{"a": [1, {"b": []}], "c": {}}'
    _, _, table, _ = _native.read(raw, 512)
    assert table is not None
    pairs = [int.from_bytes(table[i : i + 8], sys.byteorder) for i in range(0, len(table), 8)]
    containers = list(zip(pairs[::2], pairs[1::2], strict=True))
    assert containers == [(0, len(raw)), (6, 20), (10, 19), (16, 18), (27, 29)]
    assert _native.find_each(raw, table, 0, ["a", "c"]) == [(1, 6), (22, 27)]
    assert _native.find_each(raw, table, 6, [0, 1]) == [(-1, 7), (-1, 10)]


def test_the_native_reader_knows_only_json() -> None:
    """Reading, finding members again, counting lines, and reading the files of one folder whose names the caller
    gives: nothing of any rule, kind or layout lives in the C reader."""
    flags = {"SYNTAX", "EMPTY", "TRAILING", "DEPTH", "DUPLICATE", "LARGE_INTEGER", "NON_FINITE", "CONTROL", "UTF8",
             "BOM", "SURROGATE"}  # fmt: skip
    entries = {"FILE", "FOLDER", "LINK", "OTHER"}
    public = {name for name in dir(_native) if not name.startswith("_")}
    assert public == {
        "read", "find_each", "line_columns", "read_folder", "survey", *(f"FLAG_{flag}" for flag in flags),
        *(f"ENTRY_{entry}" for entry in entries),
    }  # fmt: skip


def test_line_columns_count_lines_and_characters() -> None:
    raw = '{\n  "é€😀": 1,\n  "b": [1, 2]\n}'.encode()
    text = raw.decode()
    characters = [0, 4, 7, 9, 12, 17, 21, len(text)]
    offsets = [len(text[:at].encode()) for at in characters]
    assert _native.line_columns(raw, offsets) == [_json.Lines(text).position(at) for at in characters]
    assert _native.line_columns(raw, offsets)[2:4] == [(2, 6), (2, 8)]  # after two and four characters of three bytes


# Documents as JSON writers produce them, and with the characters and numbers that need care.
documents = json_texts(max_leaves=25, text_size=12, container_size=5)
SNIPPETS = [
    b'"a": 1, "a": 2, ', b"NaN", b"-Infinity", b"1e999", b"9007199254740993", b"\\ud800", b'"\\udc00"', b"\xef\xbb\xbf",
    b"\xff", b"\xed\xa0\x80", b"\x00", b"\t", b"\x1f", b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"0", b"-",
    b".5", b"e5", b" ", b"\n", b"\\u0061", b"[[[[[[[[", b"\xc3", b"\xe2\x82", b"true", b"nul", b"/",
]  # fmt: skip
mutated = st.tuples(documents, st.integers(0, 400), st.sampled_from(SNIPPETS), st.integers(0, 3)).map(
    lambda t: t[0][: t[1]] + t[2] + t[0][t[1] + t[3] :]
)


@settings(max_examples=600, deadline=None)
@given(raw=documents | mutated)
def test_native_and_exact_readers_agree_on_generated_documents_and_mutants(raw: bytes) -> None:
    data, found, _, _ = _native.read(raw, 512)
    text, decoded = _json.decode(raw, family="json")
    exact = _json.parse(text) if text is not None else (None, [])
    clean = text is not None and not decoded and not exact[1]
    if found == 0:
        assert clean, (raw, decoded, exact[1])
        assert json.dumps(data) == json.dumps(exact[0])
    elif clean:
        # Only what the exact reader does not report may be flagged spuriously: lone surrogates, deep nesting.
        assert found in (_native.FLAG_SURROGATE, _native.FLAG_DEPTH), raw
    with applied(Settings(Limits())):
        native_issues, exact_issues = both(raw, "actf-trajectory")
        assert native_issues == exact_issues


def test_reports_are_identical_over_the_fixture_trees() -> None:
    for tree in (FIXTURES / "valid", FIXTURES / "invalid"):
        native, exact = both(tree)
        assert native == exact
    assert any(issue.line is not None for issue in native)


def fixture_files() -> list[Path]:
    return [
        path for path in sorted(FIXTURES.rglob("*.json")) if path.name != "expected-issues.json" and from_path(path)
    ]


def byte_mutants(raw: bytes, rng: random.Random, count: int) -> Iterator[bytes]:
    for _ in range(count):
        at = rng.randrange(len(raw) + 1)
        how = rng.randrange(3)
        if how == 0:
            yield raw[:at] + rng.choice(SNIPPETS) + raw[at:]
        elif how == 1:
            yield raw[:at] + raw[at + rng.randrange(1, 8) :]
        else:
            yield raw[:at] + bytes([rng.randrange(256)]) + raw[at + 1 :]


def test_reports_are_identical_on_byte_mutants_of_real_files() -> None:
    rng = random.Random(14)
    compared = 0
    for path in fixture_files():
        raw = path.read_bytes()
        kind = from_path(path)
        assert kind is not None
        for mutant in byte_mutants(raw, rng, 12):
            native, exact = both(mutant, kind.name)
            assert native == exact, (path, mutant)
            compared += 1
    assert compared > 200


def test_reports_are_identical_on_schema_mutants_placed_through_the_offsets() -> None:
    """Documents that read cleanly but break their schema: native positions come from the offsets table."""
    from ..interop.test_ajv import fixtures, mutants

    placed = 0
    for index, (schema_id, data) in enumerate(fixtures()):
        kind = next(kind for kind in KINDS.values() if schema_id in kind.versions.values())
        if kind.syntax != "json":
            continue
        for count, mutant in enumerate(mutants(data)):
            if count % 4 != index % 4:
                continue  # a quarter of the mutants keeps the suite short; every fixture still takes part
            raw = json.dumps(mutant, indent=2 if count % 2 else None, ensure_ascii=False).encode()
            native_examined = examine_source(raw, kind)
            assert native_examined.document.offsets is not None
            native = native_examined.issues
            with exact_reader():
                exact = examine_source(raw, kind).issues
            assert native == exact, (schema_id, mutant)
            placed += sum(issue.line is not None for issue in native)
    assert placed > 100


def test_forcing_the_pure_path_gives_the_same_command_line_report() -> None:
    def run(**environment: str) -> str:
        result = subprocess.run(
            [sys.executable, "-m", "agentbeats_spec", "validate", "--format", "json", "--jobs", "1", "fixtures"],
            cwd=ROOT, env={**os.environ, **environment}, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert result.returncode == 1, result.stderr
        return result.stdout

    native = run()
    pure = run(AGENTBEATS_SPEC_PURE="1")
    assert native == pure
    probe = "from agentbeats_spec.reading import _nativejson; print(_nativejson.available)"
    pure_probe = subprocess.run(
        [sys.executable, "-c", probe], env={**os.environ, "AGENTBEATS_SPEC_PURE": "1"}, capture_output=True, text=True
    )
    assert pure_probe.stdout.strip() == "False"


@pytest.mark.parametrize("special", ['"', "\\\\", "\\n", "\n", "\x1f", "\x7f", "é", "\U0001f600", "\\u00e9", "\udcff"])
def test_strings_are_read_alike_whatever_falls_on_a_word_boundary(special: str) -> None:
    """Strings are scanned eight bytes at a time: put each special character at every offset of long strings."""
    for length in range(0, 34):
        for at in range(length + 1):
            body = "a" * at + special + "b" * (length - at)
            raw = b'["' + body.encode("utf-8", "surrogateescape") + b'"]'
            data, found, _, _ = _native.read(raw, 512)
            try:
                expected = json.loads(raw)
            except ValueError:
                assert found != 0, raw
                continue
            assert (found, data) == (0, expected), raw


def holds_integral_float(value: Any) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(holds_integral_float(item) for item in value.values())
    if isinstance(value, list):
        return any(holds_integral_float(item) for item in value)
    return False


def integral_float_places(value: Any, member: str | None = None) -> set[str | None]:
    """The names of the members whose values are integral floats (None: an array item or the whole document)."""
    if isinstance(value, float):
        return {member} if value.is_integer() else set()
    if isinstance(value, dict):
        return set().union(*(integral_float_places(item, key) for key, item in value.items()))
    if isinstance(value, list):
        return set().union(*(integral_float_places(item) for item in value))
    return set()


@pytest.mark.parametrize(
    ("raw", "places"),
    [
        (b"[1.0]", {None}),
        (b'{"a": {"b": [2, 1e0]}}', {None}),
        (b"-0.0", {None}),
        (b'{"a": [1E+2, 0.5], "b": {"c": 3.0}}', {None, "c"}),
        (b'{"a": 1e300, "b": 2.0, "a2": [{"d": -0.0}]}', {"a", "b", "d"}),
        (b"[1.5, 2.25e-1, -0.001]", 0),
        (b'{"a": [1, -2, 0], "b": "1.0"}', 0),
        (b'"just a string"', 0),
    ],
)
def test_the_reader_says_where_a_document_holds_an_integral_float(raw: bytes, places: int | set[str | None]) -> None:
    """1.0 is an integer to JSON Schema and to jsonschema-rs, not to our schemas: only a document holding such a
    float needs the slower check that tells them apart, and only when a member of one of these names may have to
    be an integer."""
    data, found, _, said = _native.read(raw, 512)
    assert (found, said) == (0, places)
    assert holds_integral_float(data) == bool(places)


@settings(max_examples=300, deadline=None)
@given(raw=documents)
def test_the_integral_float_places_match_the_data(raw: bytes) -> None:
    data, found, _, said = _native.read(raw, 512)
    if found == 0:
        assert (said or set()) == integral_float_places(data), raw


def numbers_of(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from numbers_of(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from numbers_of(item, (*path, index))


def test_an_integral_float_anywhere_gets_the_reference_verdict() -> None:
    """Every number of every fixture made an integral float (and, for integers, the float itself), one at a time:
    the engine the reader's places choose (plain where no member of those names may have to be an integer) gives
    python-jsonschema's verdict with our strict integer (checking._schemas.strict_integers_needed)."""
    from agentbeats_spec.checking._schemas import fast_validator, validator

    from ..interop.test_ajv import fixtures

    if fast_validator("https://agentbeats.dev/schemas/actf/trajectory.v1.0.json") is None:
        pytest.skip("jsonschema-rs is not installed")
    compared, plain, refused = 0, 0, 0
    for schema_id, data in fixtures():
        for path in numbers_of(data):
            changed = json.loads(json.dumps(data))
            parent = changed
            for token in path[:-1]:
                parent = parent[token]
            parent[path[-1]] = float(round(parent[path[-1]]))
            raw = json.dumps(changed).encode()
            read, found, _, places = _native.read(raw, 512)
            assert found == 0 and places
            document = examine_source(raw, None).document
            assert document.integral_floats == places
            reference = next(iter(validator(schema_id).iter_errors(read)), None) is None
            strict = strict_integers_needed(schema_id, places)
            assert fast_validator(schema_id, strict).is_valid(read) == reference, (schema_id, path)
            compared += 1
            plain += not strict
            refused += not reference
    assert compared > 100 and plain > 30 and refused > 10


def test_without_integral_floats_the_plain_engine_gives_the_reference_verdict() -> None:
    """A document the reader saw no integral float in is checked by jsonschema-rs without our keyword for 1.0."""
    from agentbeats_spec.checking._schemas import fast_validator, validator

    from ..interop.test_ajv import corpus

    if fast_validator("https://agentbeats.dev/schemas/actf/trajectory.v1.0.json") is None:
        pytest.skip("jsonschema-rs is not installed")
    compared = [(schema_id, data) for schema_id, data in corpus() if not holds_integral_float(data)]
    verdicts = [
        (
            next(iter(validator(schema_id).iter_errors(data)), None) is None,
            fast_validator(schema_id, False).is_valid(data),
        )
        for schema_id, data in compared
    ]
    assert [compared[i] for i, (reference, plain) in enumerate(verdicts) if reference != plain] == []
    assert {reference for reference, _ in verdicts} == {True, False}


def test_an_integral_float_where_an_integer_belongs_is_refused_on_both_paths() -> None:
    raw = (FIXTURES / "valid" / "task-detail" / "swe-utils.task-detail.json").read_bytes()
    data = json.loads(raw)
    data["retry_count"] = 0.0
    changed = json.dumps(data, indent=2).encode()
    native_examined = examine_source(changed, KINDS["agentcompass-task-detail"])
    assert native_examined.document.integral_floats == {"retry_count", "env_action_ms", "llm_infer_ms"}
    with exact_reader():
        exact = examine_source(changed, KINDS["agentcompass-task-detail"]).issues
    assert native_examined.issues == exact
    assert [(issue.code, issue.pointer) for issue in exact if issue.severity == "error"] == [
        ("schema.type", "/retry_count")
    ]
    without = json.loads(raw.replace(b"2210.0", b"2210").replace(b"980.0", b"980"))  # its integral floats
    assert not holds_integral_float(without)
    said = examine_source(json.dumps(without).encode(), KINDS["agentcompass-task-detail"]).document.integral_floats
    assert said is False
