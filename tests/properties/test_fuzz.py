"""Fuzzing the command line: no input makes it raise or print a traceback.

Bounded for CI (a few hundred examples). The longer run of docs/security.md: HYPOTHESIS_PROFILE=fuzz.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbeats_spec.cli import main

settings.register_profile("fuzz", max_examples=20_000, deadline=None)
EXAMPLES = 20_000 if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" else 150

NAMES = [
    "task.json", "agentbeats.toml", "results.json", "verify.case.json", "attempt-1/result.json",
    "attempt-1/retries/x.attempt1.retry1.run.json", "trajectory.json", "notes.txt", "details/normal/t/task.json",
]  # fmt: skip
json_ish = st.text(alphabet='{}[]",:0123456789.eE+-truefalsnNIiy \n\t\\u"abc\x00\xff=#\'', max_size=300)
contents = st.binary(max_size=300) | json_ish.map(lambda text: text.encode("utf-8", "surrogatepass"))
commands = st.sampled_from(
    [
        ["validate"], ["validate", "--format", "json"], ["validate", "--format", "sarif"],
        ["validate", "--format", "github", "--secrets"], ["scan"], ["check-l1"], ["redact"],
    ]
)  # fmt: skip


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(NAMES), content=contents, command=commands)
def test_the_cli_returns_a_code_for_any_file(
    tmp_path_factory: pytest.TempPathFactory, capsysbinary: pytest.CaptureFixture[bytes], name: str,
    content: bytes, command: list[str],
) -> None:  # fmt: skip
    root = tmp_path_factory.mktemp("fuzz")
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    target = root if command[0] == "check-l1" else path
    code = main([*command, str(target)])
    # redact prints a text file's bytes as they are, UTF-8 or not
    out, err = (stream.decode("utf-8", "replace") for stream in capsysbinary.readouterr())
    assert code in (0, 1, 2), (code, err)
    assert "Traceback" not in out + err and "internal error" not in err


def test_an_internal_error_is_one_line_without_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr("agentbeats_spec.application._front_door.check_paths", broken)
    (tmp_path / "task.json").write_text("{}")
    assert main(["validate", str(tmp_path / "task.json")]) == 3
    err = capsys.readouterr().err
    assert "internal error (ZeroDivisionError: simulated bug)" in err and "Traceback" not in err
