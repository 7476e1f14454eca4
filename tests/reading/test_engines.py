"""The fast engines agree with the reference ones, and the package works without them.

orjson (with the checks that vouch for it) must never accept what the strict reader would report, and
jsonschema-rs must give python-jsonschema's verdict on every document.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbeats_spec.checking._schemas import fast_validator, findings_of, reference_findings, validator
from agentbeats_spec.reading import _json

from ..conftest import ROOT
from ..interop.test_ajv import corpus

pytestmark = pytest.mark.skipif(_json.orjson is None, reason="the fast engines are not installed")


def test_jsonschema_rs_and_python_jsonschema_agree_on_fixtures_and_mutants() -> None:
    documents = corpus()
    verdicts = [
        (_python_verdict(schema_id, data), fast_validator(schema_id).is_valid(data)) for schema_id, data in documents
    ]
    assert [documents[i] for i, (python, fast) in enumerate(verdicts) if python != fast] == []
    assert {python for python, _ in verdicts} == {True, False}


def test_skipping_the_parts_jsonschema_rs_finds_valid_changes_no_finding() -> None:
    # The reference engine walks only the $ref'd parts that jsonschema-rs finds invalid (what made an invalid tree
    # thirteen times as slow as a valid one, issue 38): its findings, order and messages must be the whole walk's.
    documents = corpus()
    whole = [list(findings_of(validator(schema_id).iter_errors(data))) for schema_id, data in documents]
    pruned = [list(reference_findings(schema_id, data)) for schema_id, data in documents]
    assert [documents[i] for i, (a, b) in enumerate(zip(whole, pruned, strict=True)) if a != b] == []
    assert sum(map(bool, whole)) > 500


def _python_verdict(schema_id: str, data: Any) -> bool:
    return next(iter(validator(schema_id).iter_errors(data)), None) is None


json_text = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=20,
).map(lambda value: json.dumps(value))
INSERTS = ['"a": 1, "a": 2', "NaN", "1e999", ":", "\\u003a", "9007199254740993", "\ufeff", "{", "}", ","]
mutated = st.tuples(json_text, st.integers(0, 200), st.sampled_from(INSERTS))


@settings(max_examples=500, deadline=None)
@given(sample=json_text | mutated.map(lambda t: t[0][: t[1]] + t[2] + t[0][t[1] :]))
def test_the_fast_reader_only_vouches_for_what_the_strict_reader_accepts(sample: str) -> None:
    raw = sample.encode("utf-8", "surrogatepass")
    fast = _json.parse_fast(raw, _json.MAX_DEPTH)
    if fast is _json.UNSURE:
        return
    text, decoded = _json.decode(raw, family="json")
    assert text is not None and decoded == []
    strict, findings = _json.parse(text)
    assert findings == []
    assert json.dumps(strict, sort_keys=True) == json.dumps(fast, sort_keys=True)


@pytest.mark.parametrize(
    "source",
    [
        b'{"a": 1, "a": 2}',
        b'{"a": {"b": [1, {"c": 1, "c": 1}]}}',
        b'{"a": 9007199254740993}',
        b'{"a": 123456789012345678901234567890}',
        b'{"a": NaN}',
        b'{"a": 1e999}',
        b"\xef\xbb\xbf{}",
        b'{"a\\u003a": 1, "a:": 1, "a:": 2}',
        b"[" * 600 + b"]" * 600,
        b'{"a": "\\ud800"}',
        b"{} []",
        b"",
    ],
)
def test_what_the_fast_reader_leaves_to_the_strict_one(source: bytes) -> None:
    assert _json.parse_fast(source, _json.MAX_DEPTH) is _json.UNSURE


def test_the_package_works_without_the_compiled_engines() -> None:
    environment = {**os.environ, "AGENTBEATS_SPEC_PURE": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/layouts/test_fixtures.py",
         "tests/reading/test_json_reading.py", "tests/layouts/test_layout_agentcompass.py",
         "tests/kinds/test_agentcompass_attempt.py"],
        cwd=ROOT, env=environment, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    probe = (
        "from agentbeats_spec.reading import _json; from agentbeats_spec.checking import _schemas; "
        "print(_json.orjson, _schemas.jsonschema_rs)"
    )
    assert subprocess.run([sys.executable, "-c", probe], env=environment, capture_output=True, text=True,
                          check=True).stdout.split() == ["None", "None"]  # fmt: skip
