"""Strict JSON reading: every reading error is located and has its own code."""

from __future__ import annotations

import json

import pytest

from agentbeats_spec import validate

from ..conftest import one

TASK = '{"schema_version": "agentcompass.task.v3", "task_id": "t", "attempts": {"1": "attempt-1"}}'


def where(source: str | bytes) -> tuple[str, str, int | None, int | None]:
    issue = one(source, "agentcompass-task")
    return issue.code, issue.pointer, issue.line, issue.column


def test_duplicate_members_are_reported_at_the_second_one() -> None:
    source = (
        '{\n  "schema_version": "agentcompass.task.v3",\n  "task_id": "a",\n  "attempts": {"1": "attempt-1"},\n'
        '  "task_id": "b"\n}'
    )
    assert where(source) == ("json.duplicate-key", "/task_id", 5, 3)
    assert "first at line 3" in one(source, "agentcompass-task").message


def test_duplicate_members_deep_inside() -> None:
    source = TASK.replace('"attempts": {"1": "attempt-1"}', '"attempts": {"1": "attempt-1",\n "1": "attempt-1"}')
    assert where(source) == ("json.duplicate-key", "/attempts/1", 2, 2)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e999", "-1E400", "1" + "0" * 400 + ".5"])
def test_non_finite_numbers_are_rejected_at_the_value(token: str) -> None:
    source = '{"count": 1, "main_metric": "m",\n  "m": ' + token + "}"
    issue = one(source, "abv3-results")
    assert (issue.code, issue.pointer, issue.line, issue.column) == ("json.non-finite", "/m", 2, 8)


def test_finite_big_exponents_pass() -> None:
    assert validate('{"count": 1, "main_metric": "m", "m": 1e300}', "abv3-results") == []


def test_invalid_utf8_is_reported_at_the_first_bad_byte() -> None:
    source = b'{"count": 1,\n "main_metric": "m\xc3\x28", "m": 1}'
    issue = one(source, "abv3-results")
    assert (issue.code, issue.pointer, issue.line, issue.column) == ("json.encoding", "", 2, 19)
    assert "0xc3" in issue.message


def test_a_byte_order_mark_is_an_error_and_the_rest_is_read() -> None:
    issue = one(b"\xef\xbb\xbf" + TASK.encode(), "agentcompass-task")
    assert (issue.code, issue.severity, issue.line, issue.column) == ("json.bom", "error", 1, 1)


def test_a_nul_byte_is_an_error() -> None:
    assert where('{"task_id": "a\x00"}') == ("json.nul-byte", "", 1, 15)


def test_trailing_content_is_an_error() -> None:
    assert where(TASK + "\n{}") == ("json.trailing-data", "", 2, 1)


@pytest.mark.parametrize("source", ["", "   \n\t"])
def test_an_empty_file_is_an_error(source: str) -> None:
    assert where(source) == ("json.empty", "", 1, 1)


def test_a_truncated_document_is_placed_where_the_parser_stopped() -> None:
    code, pointer, line, column = where('{\n  "task_id": "t",\n  "attempts": {')
    assert (code, pointer, line, column) == ("json.syntax", "", 3, 16)
    assert "truncated" in one('{\n  "task_id": "t",\n  "attempts": {', "agentcompass-task").message


@pytest.mark.parametrize(
    ("source", "line", "column"),
    [
        ('{"a" 1}', 1, 6),
        ("{'a': 1}", 1, 2),
        ('{"a": [1,]}', 1, 10),
        ('{"a": "x\ty"}', 1, 9),
        ('{"a": 01}', 1, 8),
    ],
)
def test_syntax_errors_are_located(source: str, line: int, column: int) -> None:
    found = where(source)
    assert found[0::2] == ("json.syntax", line)
    # Python 3.13 places a trailing comma's error on the comma, earlier versions on what follows it.
    assert found[3] == column or (source.endswith(",]}") and found[3] == column - 1)


def test_nesting_beyond_the_limit_is_too_deep_not_a_crash() -> None:
    for depth in (513, 5000, 100_000):
        source = '{"task_id": ' + "[" * depth + "]" * depth + "}"
        code, pointer, line, _ = where(source)
        assert code == "json.too-deep"
        assert pointer.startswith("/task_id/0/0") and line == 1


def test_nesting_up_to_the_limit_is_read() -> None:
    source = '{"count": 1, "main_metric": "m", "m": 1, "x": ' + "[" * 511 + "]" * 511 + "}"
    assert validate(source, "abv3-results") == []


def test_integers_beyond_2_53_are_a_warning() -> None:
    issue = one('{"count": 9007199254740993, "main_metric": "m", "m": 1}', "abv3-results")
    assert (issue.code, issue.severity, issue.pointer, issue.column) == (
        "json.large-integer",
        "warning",
        "/count",
        11,
    )


def test_long_digit_runs_inside_strings_are_not_numbers() -> None:
    assert validate('{"count": 1, "main_metric": "m", "m": 1, "id": "12345678901234567890"}', "abv3-results") == []


def test_columns_count_characters_not_bytes() -> None:
    issue = one('{"count": 1, "main_metric": "m", "m": 1, "ü€😀": 2, "count": 3}', "abv3-results")
    assert (issue.code, issue.column) == ("json.duplicate-key", 52)


def test_a_parsed_mapping_with_nan_is_rejected_without_position() -> None:
    issue = one({"count": 1, "main_metric": "m", "m": float("nan")}, "abv3-results")
    assert (issue.code, issue.pointer, issue.line, issue.column) == ("json.non-finite", "/m", None, None)


def test_a_parsed_mapping_with_non_json_values_is_rejected() -> None:
    found = {(i.code, i.pointer) for i in validate({"count": 1, "main_metric": "m", "m": {1, 2}}, "abv3-results")}
    assert found == {("json.type", "/m")}


def test_a_duplicate_written_with_escapes_is_still_found() -> None:
    source = '{"count": 1, "main_metric": "m", "m": 1,\n "\\u006d": 2}'
    issue = one(source, "abv3-results")
    assert (issue.code, issue.pointer, issue.line, issue.column) == ("json.duplicate-key", "/m", 2, 2)


def test_forbidden_tokens_inside_strings_are_not_reported() -> None:
    source = '{"count": 1, "main_metric": "m", "m": NaN, "note": "NaN and Infinity and 1e999 are fine here"}'
    issue = one(source, "abv3-results")
    assert (issue.code, issue.pointer, issue.column) == ("json.non-finite", "/m", 39)


def test_duplicates_in_sibling_objects_are_not_confused() -> None:
    source = '[{"a": 1, "b": 2}, {"a": 3, "a": 4}, {"a": 5}]'
    findings = [(i.code, i.pointer, i.column) for i in validate(source, "actf-trajectory") if i.code.startswith("json")]
    assert findings == [("json.duplicate-key", "/1/a", 29)]


# -- load_json: the one guarded parse of the readers outside the checking path (watch, migrate, convert, writers) --


@pytest.fixture(params=["native", "pure"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both paths of the reader: the native one (when built), and the exact one without it or orjson."""
    from agentbeats_spec.reading import _json, _nativejson

    if request.param == "pure":
        monkeypatch.setattr(_nativejson, "available", False)
        monkeypatch.setitem(_json.__dict__, "orjson", None)
    return str(request.param)


@pytest.mark.parametrize(
    ("source", "code", "where"),
    [
        (b"[" * 100_000, "json.too-deep", "1:513: "),
        ("[" * 100_000 + "]" * 100_000, "json.too-deep", "1:513: "),
        (b'{"a": 1, ' + b'"a": 1, ' * 50_000 + b'"b": 2}', "json.duplicate-key", "1:10: "),
        (b'{"a": NaN}', "json.non-finite", "1:7: "),
        (b'{"a": ' + b"9" * 100_000 + b"}", "json.large-integer", "1:7: "),
        (b"", "json.empty", "1:1: "),
        (b'\xef\xbb\xbf{"a": [1, 2.5, "x"]}', "json.bom", "1:1: "),  # an error since issue 34: 1.0.1 refuses it
    ],
)
def test_load_json_refuses_what_validate_calls_an_error_with_its_place(
    engine: str, source: bytes | str, code: str, where: str
) -> None:
    from agentbeats_spec.reading._documents import NotJSON, load_json

    with pytest.raises(NotJSON) as refused:
        load_json(source)
    assert refused.value.finding.code == code
    assert str(refused.value).startswith(where)


def test_load_json_gives_the_data_of_a_document_the_reader_accepts(engine: str) -> None:
    from agentbeats_spec.reading._documents import load_json

    deep = "[" * 500 + "]" * 500
    assert load_json(deep.encode()) == load_json(deep) == json.loads(deep)
