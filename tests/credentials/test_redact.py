"""`redact` removes exactly what `scan` finds, and nothing else: every other byte of the file stays as it was."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest
import tomli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbeats_spec import redact, scan
from agentbeats_spec.cli import main
from agentbeats_spec.credentials._redact import redact_file
from agentbeats_spec.vocabulary._secrets import is_credential_name_for_scan, is_credential_name_for_writer

from ..properties.test_toml_properties import Emitter

OPENAI = "sk-proj-" + "a1B2c3D4" * 5

# (what is written, what redaction leaves of it): the secret alone becomes ********.
SHAPED = [
    (OPENAI, "********"),
    ("Bearer " + "e4F" * 8, "Bearer ********"),
    ("https://user:hunter22@example.org/x", "https://user:********@example.org/x"),
    ("ghp_" + "A" * 36, "********"),
    ("AKIAABCDEFGHIJKLMNOP", "********"),
    ("-----BEGIN RSA PRIVATE KEY-----", "********"),
    # Shapes teams leak (issue 21): the secret alone goes, its name or URL stays.
    ("export DB_PASSWORD=Fake7pass9word", "export DB_PASSWORD=********"),
    ("AccountKey=" + "Fake0123456789abcdefFAKE0123456789abcdef" + "==;", "AccountKey=********;"),
    ("https://:glfake0123456789token@git.example.org/x", "https://:********@git.example.org/x"),
    ("https://hooks.slack.com/services/TFAKE0001/BFAKE0002/fake0123456789FAKE0123", "********"),
]
CREDENTIAL_NAMES = ["api_key", "token", "OPENAI_API_KEY", "password"]
# Credential-like to a careless eye, not to the scanner; and the evaluation facts, which are reported, never changed.
OTHER_NAMES = ["eos_token", "sort_key", "max_tokens", "note", "tools", "parameters", "properties", "type"]
FACTS = ["final_answer", "ground_truth", "metrics"]
BENIGN = ["hello", "café", 'say "hi"', "back\\slash", "tab\there", "x=1", "sk-short", "Bearer short", "${API_KEY}",
          "line\nbreak", "😀", "eos_token"]  # fmt: skip


def test_non_strings_under_credential_names_are_kept_byte_for_byte(tmp_path: Path) -> None:
    tool = {"name": "search", "parameters": {"type": "object", "properties": {"api_key": {"type": "string"}},
                                             "required": ["api_key"]}}  # fmt: skip
    document = {"tools": [tool], "eos_token": "</s>", "sort_key": 3, "max_tokens": 512, "api_key": None,
                "token": True, "secret": ["a", "b"], "password": {"from": "${DB_PASSWORD}"}}  # fmt: skip
    path = tmp_path / "result.json"
    path.write_text(json.dumps(document, indent=3))
    assert scan(path) == []
    assert redact_file(path, path.read_bytes()) == (path.read_bytes(), None, 0)
    assert redact(document) == document


def test_an_agentbeats_toml_without_findings_comes_out_identical_comments_included(tmp_path: Path) -> None:
    path = tmp_path / "agentbeats.toml"
    path.write_bytes(
        b"# the agent under test\r\n"
        b'name = "demo"   # shown on the leaderboard\r\n'
        b"\r\n"
        b"[dependency.openai_api_key]  # a declared dependency, not a key\r\n"
        b'kind = "secret"\r\n'
        b"required = true\r\n"
        b"[model]\r\n"
        b"eos_token = '</s>'\r\n"
        b"max_tokens = 4_096\r\n"
    )
    assert scan(path) == []
    assert main(["redact", "--in-place", str(path)]) == 0
    assert path.read_bytes().startswith(b"# the agent under test\r\n") and b"4_096" in path.read_bytes()
    assert redact_file(path, path.read_bytes())[0] == path.read_bytes()


def test_only_the_secret_changes_escapes_and_spacing_elsewhere_kept(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    source = (
        '{ "note" : "caf\\u00e9 key ' + OPENAI + ' \\ud83d\\ude00 end",\n\t"api_key":"abc\\u0041",'
        '  "ok": "\\u00e9t\\u00e9" }'
    )
    path.write_text(source, encoding="utf-8")
    redacted, note, _ = redact_file(path, path.read_bytes())
    assert note is None
    assert redacted.decode() == (
        '{ "note" : "caf\\u00e9 key ******** \\ud83d\\ude00 end",\n\t"api_key":"********",  "ok": "\\u00e9t\\u00e9" }'
    )
    assert scan(redacted) == []


def test_toml_strings_of_every_kind(tmp_path: Path) -> None:
    path = tmp_path / "agentbeats.toml"
    path.write_text(
        "[run]  # comment\n"
        f"api_key = '{OPENAI}'  # literal\n"
        f'note = "see \\u00e9 Bearer {"e4F5" * 5} \\"quoted\\""  # basic\n'
        f'log = """\nfirst line\n{OPENAI}\n"""\n'
        f'env = {{ token = "{OPENAI}", list = ["https://me:pw1234@host/", 3] }}\n',
        encoding="utf-8",
    )
    redacted = redact_file(path, path.read_bytes())[0].decode()
    assert redacted == (
        "[run]  # comment\n"
        'api_key = "********"  # literal\n'
        'note = "see \\u00e9 Bearer ******** \\"quoted\\""  # basic\n'
        'log = "first line\\n********\\n"\n'
        'env = { token = "********", list = ["https://me:********@host/", 3] }\n'
    )
    assert tomli.loads(redacted)["run"]["log"] == "first line\n********\n"
    assert scan(tomli.loads(redacted)) == []


def test_text_files_are_redacted_by_line_and_other_bytes_kept(tmp_path: Path) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(b"caf\xe9 (latin-1)\r\ncurl -H 'Authorization: Bearer " + b"f0" * 15 + b"' https://a:bcdef@h/\n")
    (first, second) = scan(path)
    assert (first.line, first.column, second.line, second.column) == (2, 32, 2, 74)
    redacted, _, _ = redact_file(path, path.read_bytes())
    assert redacted == b"caf\xe9 (latin-1)\r\ncurl -H 'Authorization: Bearer ********' https://a:********@h/\n"
    assert main(["redact", "--in-place", str(path)]) == 0
    assert path.read_bytes() == redacted and scan(path) == []


def test_a_broken_document_is_redacted_as_text_as_scan_searches_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "result.json"
    path.write_text('{"api_key": "' + OPENAI + '",}')
    assert [issue.line for issue in scan(path)] == [1]
    assert main(["redact", "--in-place", str(path)]) == 0
    assert path.read_text() == '{"api_key": "********",}'
    assert f"{path}:1:64: not a readable JSON document" in capsys.readouterr().err
    assert scan(path) == []


def test_what_redact_must_not_touch_is_refused_and_left(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    duplicate = tmp_path / "result.json"
    duplicate.write_text('{"api_key": "' + OPENAI + '", "api_key": "********"}')
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x00" + OPENAI.encode())
    broken_binary = tmp_path / "task.json"  # not a document, and not text either: scan skips it
    broken_binary.write_bytes(b'{"a": "\x00 ' + OPENAI.encode() + b'"}')
    assert scan(broken_binary) == []
    for path in (duplicate, binary, broken_binary):
        before = path.read_bytes()
        assert main(["redact", "--in-place", str(path)]) == 2
        assert path.read_bytes() == before
    err = capsys.readouterr().err
    assert "the value it hides cannot be checked: not redacted" in err and "a binary file" in err


def test_allow_listed_and_evaluation_fact_findings_are_left(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    other = "ghp_" + "B" * 36
    path.write_text(json.dumps({"final_answer": f"key {OPENAI}", "meta": {"a": other, "b": f"x {OPENAI}"}}))
    allow = tmp_path / "agentbeats-secrets.allow"
    allow.write_text(keyed(allow, other) + "\n")
    assert main(["redact", "--in-place", "--allow-list", str(allow), str(path)]) == 1  # a fact still holds one
    assert json.loads(path.read_text()) == {"final_answer": f"key {OPENAI}", "meta": {"a": other, "b": "x ********"}}
    (left,) = scan(path, allow_list=allow)
    assert left.pointer == "/final_answer" and "evaluation fact" in left.message


@pytest.mark.parametrize(
    ("name", "scanned", "masked_by_the_writer"),
    [("api_key", True, True), ("eos_token", False, True), ("sort_key", False, True), ("max_tokens", False, False),
     ("secret", True, False), ("wrap_api_key", True, False), ("session_jwt", False, True)],
)  # fmt: skip
def test_scanning_and_the_writers_redaction_differ_on_purpose(
    name: str, scanned: bool, masked_by_the_writer: bool
) -> None:
    """The scan reports what is worth a person's time; write_task masks what the AgentCompass writer masks."""
    assert is_credential_name_for_scan(name) is scanned
    assert is_credential_name_for_writer(name) is masked_by_the_writer


# The property: documents laid out every way, with secrets at random places. What is written holds @@n@@ markers;
# the source has each marker's secret, the expected output what redaction must leave of it.
@st.composite
def documents(draw: Any, toml: bool) -> tuple[dict[str, Any], list[tuple[str, str]], int]:
    markers: list[tuple[str, str]] = []
    facts = [0]

    benign = [word for word in BENIGN if not toml or word != "😀"]  # the emitter would write a surrogate pair

    def marker(written: str, left: str, fact: bool) -> str:
        markers.append((written, written if fact else left))
        facts[0] += fact and written != "${OPENAI_API_KEY}" and written != "********"
        return f"@@{len(markers) - 1}@@"

    def string(fact: bool) -> str:
        parts = draw(st.lists(st.sampled_from(benign) | st.sampled_from(SHAPED), max_size=3))
        return " ".join(part if isinstance(part, str) else marker(*part, fact) for part in parts)

    def value(name: str, depth: int, fact: bool) -> Any:
        fact = fact or name in FACTS
        choice = draw(st.integers(0, 6 if depth < 3 else 3))
        if choice <= 1 and name in CREDENTIAL_NAMES:  # a string under such a name is replaced whole
            secret = draw(st.sampled_from(["hunter2-correct-horse", "********", "${OPENAI_API_KEY}", "p"]))
            return marker(secret, secret if secret in ("********", "${OPENAI_API_KEY}") else "********", fact)
        if choice <= 1:
            return string(fact)
        if choice == 2:
            return draw(st.integers(-5, 5) | st.booleans() | (st.none() if not toml else st.booleans()))
        if choice == 3:
            return [string(fact), draw(st.integers(0, 3))]
        names = draw(st.lists(st.sampled_from(CREDENTIAL_NAMES + OTHER_NAMES + FACTS), max_size=3, unique=True))
        if choice == 4:
            return [{key: value(key, depth + 1, fact) for key in names}]
        return {key: value(key, depth + 1, fact) for key in names}

    names = draw(st.lists(st.sampled_from(CREDENTIAL_NAMES + OTHER_NAMES + FACTS), min_size=1, max_size=4, unique=True))
    return {key: value(key, 0, False) for key in names}, markers, facts[0]


def _fill(text: str, markers: list[tuple[str, str]], which: int) -> str:
    for index, pair in enumerate(markers):
        text = text.replace(f"@@{index}@@", pair[which])
    return text


def _check(path: Path, skeleton: str, markers: list[tuple[str, str]], facts: int) -> None:
    source, expected = _fill(skeleton, markers, 0), _fill(skeleton, markers, 1)
    path.write_bytes(source.encode("utf-8"))
    found = scan(path)
    assert len(found) == sum(1 for written, _ in markers if written not in ("********", "${OPENAI_API_KEY}"))
    redacted, note, kept = redact_file(path, source.encode("utf-8"))
    assert kept == facts and (note is None) == (facts == 0)
    assert redacted.decode("utf-8") == expected  # every byte outside the secrets as it was
    path.write_bytes(redacted)
    assert len(scan(path)) == facts and all("evaluation fact" in issue.message for issue in scan(path))


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                           HealthCheck.too_slow])  # fmt: skip


@SETTINGS
@given(document=documents(toml=False), indent=st.sampled_from([None, 0, 2, "\t"]), ascii=st.booleans())
def test_after_redact_scan_finds_nothing_and_other_json_bytes_are_unchanged(
    tmp_path: Path, document: tuple[dict[str, Any], list[tuple[str, str]], int], indent: Any, ascii: bool
) -> None:
    data, markers, facts = document
    _check(tmp_path / "result.json", json.dumps(data, indent=indent, ensure_ascii=ascii), markers, facts)


@SETTINGS
@given(document=documents(toml=True), styles=st.lists(st.sampled_from(["inline", "dotted", "table"]), min_size=50,
                                                      max_size=50))  # fmt: skip
def test_after_redact_scan_finds_nothing_and_other_toml_bytes_are_unchanged(
    tmp_path: Path, document: tuple[dict[str, Any], list[tuple[str, str]], int], styles: list[str]
) -> None:
    data, markers, facts = document
    emitter = Emitter(styles)
    emitter.table(data, (), ())
    _check(tmp_path / "agentbeats.toml", "\n".join(emitter.lines) + "\n", markers, facts)


@SETTINGS
@given(lines=st.lists(st.lists(st.sampled_from(BENIGN) | st.sampled_from(SHAPED), max_size=4), max_size=6),
       ending=st.sampled_from(["\n", "\r\n", "\r"]))  # fmt: skip
def test_after_redact_scan_finds_nothing_and_other_text_bytes_are_unchanged(
    tmp_path: Path, lines: list[list[Any]], ending: str
) -> None:
    markers: list[tuple[str, str]] = []
    rows = []
    for parts in lines:
        words = []
        for part in parts:
            if isinstance(part, tuple):
                markers.append(part)
                part = f"@@{len(markers) - 1}@@"
            words.append(part.replace("\n", " ").replace("\t", " "))
        rows.append(" ".join(words))
    _check(tmp_path / "run.log", ending.join(rows) + ending, markers, 0)


def test_a_secret_left_in_an_evaluation_fact_is_told_and_fails_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"final_answer": f"the key is {OPENAI}", "api_key": OPENAI}), encoding="utf-8")
    out = tmp_path / "shared.json"
    assert main(["redact", str(path), "-o", str(out)]) == 1
    assert json.loads(out.read_text()) == {"final_answer": f"the key is {OPENAI}", "api_key": "********"}
    error = capsys.readouterr().err
    assert "1 secret(s) left in evaluation facts" in error and "/final_answer" in error
    (left,) = scan(out)
    assert left.pointer == "/final_answer" and "evaluation fact" in left.message


def test_a_private_key_in_a_text_file_is_found_and_redacted_whole(tmp_path: Path) -> None:
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAfake\nFAKE==\n-----END OPENSSH PRIVATE KEY-----"
    path = tmp_path / "notes.txt"
    path.write_text(f"before\n  {key}\nafter {OPENAI}\n-----BEGIN EC PRIVATE KEY----- (cut)\n")
    found = scan(path)
    assert [(issue.line, issue.column) for issue in found] == [(2, 3), (6, 7), (7, 1)]
    assert f"a private key block: ----…({len(key)} characters)" in found[0].message
    redacted, _, _ = redact_file(path, path.read_bytes())
    assert redacted == b"before\n  ********\nafter ********\n******** (cut)\n"


# --- members named by a secret ----------------------------------------------------------------------------------


def test_a_member_named_by_a_secret_is_renamed_and_keeps_its_value() -> None:
    document = {"usage": {OPENAI: {"calls": 3}, "ok": 1}}
    assert redact(document) == {"usage": {"********": {"calls": 3}, "ok": 1}}
    assert scan(redact(document)) == []


def test_renamed_members_stay_unique_in_their_object() -> None:
    github = "ghp_" + "A" * 36
    document = {"********": "was already there", OPENAI: 1, github: 2, "********-2": 3}
    redacted = redact(document)
    assert list(redacted) == ["********", "********-3", "********-4", "********-2"]
    assert list(redacted.values()) == ["was already there", 1, 2, 3]


def test_a_json_file_with_a_secret_named_member_is_redacted_in_place_and_stays_valid(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    github, bearer = "ghp_" + "A" * 36, "Bearer " + "e4F" * 8
    path.write_text(f'{{\n  "meta": {{"{OPENAI}": {{"key": "{bearer}"}}, "{github}": 2}},\n  "n": 1\n}}')
    redacted = redact_file(path, path.read_bytes())[0].decode()
    assert redacted == '{\n  "meta": {"********": {"key": "Bearer ********"}, "********-2": 2},\n  "n": 1\n}'
    assert json.loads(redacted) == {"meta": {"********": {"key": "Bearer ********"}, "********-2": 2}, "n": 1}


def test_a_toml_file_with_a_secret_in_a_key_is_refused_not_half_redacted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "agentbeats.toml"
    path.write_text(f'[keys]\n"{OPENAI}" = 1\n')
    assert main(["redact", "--in-place", str(path)]) == 2
    err = capsys.readouterr().err
    assert "TOML keys are not renamed; not redacted" in err and OPENAI not in err
    assert path.read_text() == f'[keys]\n"{OPENAI}" = 1\n'


def keyed(allow: Path, secret: str) -> str:
    """The fingerprint of ``secret`` under a key placed beside the allow-list (as a team keeps one)."""
    key = bytes(range(32))
    (allow.parent / (allow.name + ".key")).write_text(key.hex() + "\n")
    return hmac.new(key, secret.encode(), hashlib.sha256).hexdigest()[:16]
