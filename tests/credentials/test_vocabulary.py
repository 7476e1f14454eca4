"""The one vocabulary of credentials: the writer's entries are AgentCompass 1.0.1's, and the scan's sk- shape is the
writer's."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentbeats_spec import redact, scan
from agentbeats_spec.records._persisted import mask_diagnostics, mask_text
from agentbeats_spec.vocabulary import _secrets as vocabulary

from ..conftest import ROOT

INTEROP = ROOT / ".venv" / "interop"

NAMES = ["api_key", "API-Key", "apiKey", "OPENAI_API_KEY", "secret", "client_secret", "password", "Authorization",
         "cookie", "private_key", "access_token", "passwd", "x-api-key", "eos_token", "pad_token", "sort_key",
         "max_tokens", "keyword", "token_id", "wrap_api_key", "Wrap-API-Key", "session_jwt", "jwt", "aksk",
         "db_password", " headers ", "Set-Cookie", "token", "tokens", "", "__", "credential"]  # fmt: skip
VALUES: list[Any] = [None, "", " ", "**", "********", "${OPENAI_API_KEY}", " ${A} ", "${1A}", "${A}x", "$A", 0, 12,
                     False, {"a": 1}, ["x"], "hunter2"]  # fmt: skip
TEXTS = ["Authorization: Bearer abcdef0123456789", "api_key=hunter2-hunter2", "token: 'xyz'", "https://u:p4ss@h.org/x",
         "key sk-abcdefghijklmnop done", "password = secret, next", "plain text", "sk-abcdefghijkl",
         "sk-" + "a" * 20 + "-", "x sk-proj-" + "Ab1" * 10 + " y", "Bearer short", "sk-short"]  # fmt: skip


@pytest.fixture(scope="module")
def released() -> tuple[ModuleType, ModuleType]:
    """The released writer's configuration loader and free-text redaction."""
    if INTEROP.is_dir() and str(INTEROP) not in sys.path:
        sys.path.append(str(INTEROP))
    loader = pytest.importorskip("agentcompass.runtime.config.loader")
    redaction = pytest.importorskip("agentcompass.utils.redaction")
    return loader, redaction


def test_the_writers_entries_are_the_released_writers(released: tuple[ModuleType, ModuleType]) -> None:
    loader, _ = released
    assert vocabulary.WRITER_NAMES == loader._SENSITIVE_EXACT_KEYS
    assert vocabulary.WRITER_SUFFIXES == loader._SENSITIVE_SUFFIXES
    assert vocabulary.WRITER_NOT_NAMES == loader._NON_SENSITIVE_EXACT_KEYS
    assert vocabulary.WRITER_CONTAINERS == loader._SENSITIVE_CONTAINER_KEYS


@pytest.mark.parametrize("name", NAMES)
def test_the_writers_names_decide_as_the_released_writer(released: tuple[ModuleType, ModuleType], name: str) -> None:
    loader, _ = released
    assert vocabulary.is_credential_name_for_writer(name) is loader.is_sensitive_config_key(name)


@pytest.mark.parametrize("value", VALUES)
def test_what_the_writer_keeps_is_what_the_released_writer_keeps(
    released: tuple[ModuleType, ModuleType], value: Any
) -> None:
    loader, _ = released
    assert vocabulary.is_kept_by_writer(value) is (loader.redact_secret_value(value) is value)


@pytest.mark.parametrize("text", TEXTS)
def test_free_text_is_masked_as_the_released_writer_masks_it(
    released: tuple[ModuleType, ModuleType], text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, redaction = released
    monkeypatch.setenv("MY_SERVICE_TOKEN", "hunter2-hunter2")
    assert mask_diagnostics(text) == redaction.redact_diagnostic(text)
    assert mask_diagnostics(text, dict(os.environ)) == redaction.redact_diagnostic(text)


@pytest.mark.parametrize("value", VALUES)
def test_a_placeholder_for_the_scan_and_a_value_the_writer_keeps_differ_only_on_masks(value: Any) -> None:
    """The writer masks "**" and " " anew; the scan takes them for masks already made."""
    masks = isinstance(value, str) and value != "" and set(value.strip()) <= {"*"}
    assert vocabulary.is_placeholder(value) is (vocabulary.is_kept_by_writer(value) or masks)


def test_a_name_can_be_one_readers_credential_and_not_the_others() -> None:
    """eos_token is no credential: the writer masks it for its _token suffix, the scan never reports it."""
    assert vocabulary.is_credential_name_for_writer("eos_token") and not vocabulary.is_credential_name_for_scan(
        "eos_token"
    )
    assert vocabulary.is_credential_name_for_scan("secret") and not vocabulary.is_credential_name_for_writer("secret")


# The sk- keys between 12 and 19 characters were masked by the writer and never reported by the scan, which asked
# for 20; and the scan took a key's trailing "-" for part of it. One shape now serves both, and the scan asks of what
# it matched that it look generated (a digit, or both cases): a CSS class such as sk-fading-circle is words, which
# the writer masks and the scan does not report (issue 21).
@pytest.mark.parametrize(
    ("text", "masked_by_the_writer", "redacted"),
    [
        ("key sk-abcd1234efgh5678 done", "key ******** done", "key ******** done"),
        ("sk-abcdefGHIJKL", "********", "********"),
        ("sk-" + "a1" * 10 + "-", "********-", "********-"),
        ("sk-proj-" + "Ab1" * 10, "********", "********"),
        ("key sk-abcdefghijklmnop done", "key ******** done", "key sk-abcdefghijklmnop done"),
        ('<div class="sk-fading-circle">', '<div class="********">', '<div class="sk-fading-circle">'),
        ("sk-abcdefgh1jk", "sk-abcdefgh1jk", "sk-abcdefgh1jk"),
        ("sk-short", "sk-short", "sk-short"),
    ],
)
def test_an_sk_key_is_one_shape_for_the_scan_and_the_writer(
    text: str, masked_by_the_writer: str, redacted: str
) -> None:
    assert vocabulary.SK_KEY in {shape.pattern for shape in vocabulary.SCAN_SHAPES}
    assert vocabulary.SK_KEY in {pattern for pattern, _ in vocabulary.WRITER_TEXT_SHAPES}
    assert mask_text(text) == masked_by_the_writer
    assert redact({"note": text}) == {"note": redacted}
    found = scan({"note": text})
    assert [issue.pointer for issue in found] == (["/note"] if redacted != text else [])
    assert all("an OpenAI API key" in issue.message for issue in found)


def test_an_sk_key_the_writer_masks_in_a_message_is_reported_in_any_other_file(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text("# a log the writer never touched\nkey sk-abcd1234efgh5678 done\n")
    (issue,) = scan(log)
    assert (issue.code, issue.line, issue.column) == ("security.secret", 2, 5)
    assert "an OpenAI API key: sk-a…(under 32 characters)" in issue.message


def test_a_shape_is_searched_in_every_string_that_may_hold_it() -> None:
    """A string is searched only for the shapes whose text it holds: every finding's match holds one of its needs."""
    from .corpus import cases

    names = vocabulary.SCAN_NAMES | set(vocabulary.SCAN_SUFFIXES)
    assert all(name.endswith(vocabulary._NAME_ENDINGS) for name in names)
    texts = [case.content for case in cases()] + TEXTS
    matched = set()
    for shape in vocabulary.SCAN_SHAPES:
        assert shape.needs and all(needed == needed.lower() for needed in shape.needs)
        for text in texts:
            for match in shape.pattern.finditer(text):
                group = next(group for group in shape.groups if match.start(group) >= 0)
                if shape.accepts is not None and not shape.accepts(match, match.group(group)):
                    continue  # no finding (a name that is no credential's, a word after Bearer)
                matched.add(shape.what)
                assert any(needed in match.group(0).lower() for needed in shape.needs), (shape.what, match.group(0))
    assert matched == {shape.what for shape in vocabulary.SCAN_SHAPES}
