"""Resource bounds: every hostile input finishes with a clear result and bounded memory."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from agentbeats_spec import Limits, validate
from agentbeats_spec.cli import main


def codes(path: Path, **limits: int) -> list[str]:
    return [issue.code for issue in validate(path, limits=Limits(**limits))]


def test_a_file_over_the_size_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "trajectory.json"
    with path.open("w") as stream:
        stream.write('{"schema_version": "ACTF_v1.0", "steps": [], "x": "')
        stream.write("a" * (3 * 1024 * 1024))
        stream.write('"}')
    assert codes(path, max_file_size=1024 * 1024) == ["io.too-large"]
    assert codes(path) == []


def test_one_long_string_is_validated_and_echoed_short(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"count": "z" * 5_000_000, "main_metric": "m", "m": 1}))
    (issue,) = validate(path, "abv3-results", limits=Limits(shown_length=20))
    assert issue.code == "schema.type" and len(issue.message) < 120


def test_the_size_limit_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "task.json"
    path.write_text('{"schema_version": "agentcompass.task.v3", "task_id": "t", "attempts": {"1": "attempt-1"}}')
    assert main(["validate", "--max-file-size", "10", str(path)]) == 1
    assert "io.too-large" in capsys.readouterr().out
    assert main(["validate", "--max-file-size", "1K", str(path)]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("depth", [600, 100_000, 1_000_000])
def test_deep_nesting_is_rejected_at_the_limit(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "trajectory.json"
    path.write_text('{"schema_version": "ACTF_v1.0", "steps": [], "x": ' + "[" * depth + "]" * depth + "}")
    assert codes(path) == ["json.too-deep"]


def test_the_depth_limit_can_be_lowered(tmp_path: Path) -> None:
    path = tmp_path / "trajectory.json"
    path.write_text('{"schema_version": "ACTF_v1.0", "steps": [], "x": [[[[[]]]]]}')
    assert codes(path, max_depth=4) == ["json.too-deep"]
    assert codes(path, max_depth=7) == []


def test_issues_per_file_are_capped_with_a_count(tmp_path: Path) -> None:
    path = tmp_path / "trajectory.json"
    steps = [{"step_id": "x"} for _ in range(50)]
    path.write_text(json.dumps({"schema_version": "ACTF_v1.0", "steps": steps}))
    found = validate(path, limits=Limits(max_issues=10))
    assert [issue.code for issue in found].count("schema.type") == 10
    (truncated,) = [issue for issue in found if issue.code == "io.issues-truncated"]
    # Schema validation stops looking one error past the limit: what lies beyond costs nothing, so it is not counted;
    # the one error it met is, and fails the check however many are shown.
    assert truncated.message == (
        "at least 1 more issue(s) in this file are not shown: at least 1 error(s) (schema.type); "
        "the check stops looking past the limit (see --max-issues)"
    )
    assert truncated.severity == "error"


def test_findings_of_the_rules_past_the_limit_are_counted(tmp_path: Path) -> None:
    path = tmp_path / "trajectory.json"
    steps = [{"step_id": 1, "source": "agent", "tool_calls": {}} for _ in range(30)]
    path.write_text(json.dumps({"schema_version": "ACTF_v1.0", "steps": steps}))
    found = validate(path, limits=Limits(max_issues=10))
    truncated = [issue.message for issue in found if issue.code == "io.issues-truncated"]
    hidden = len(every(path)) - 10
    assert truncated == [
        f"{hidden} more issue(s) in this file are not shown: {hidden} error(s) (rule.step-order) (see --max-issues)"
    ]


def every(path: Path) -> list[str]:
    return [issue.code for issue in validate(path) if issue.code != "io.issues-truncated"]


def test_many_tiny_files(tmp_path: Path) -> None:
    for number in range(5000):
        folder = tmp_path / f"t{number % 50}"
        folder.mkdir(exist_ok=True)
        (folder / f"{number}.json").write_text('{"schema_version": "ACTF_v1.0", "steps": []}')
    started = time.monotonic()
    assert validate(tmp_path) == []
    assert time.monotonic() - started < 120  # a bound on hanging, not a speed goal


def test_a_file_that_grows_while_being_read(tmp_path: Path) -> None:
    path = tmp_path / "trajectory.json"
    path.write_text('{"schema_version": "ACTF_v1.0", "steps": []}')
    stop = threading.Event()

    def grow() -> None:
        with path.open("a") as stream:
            while not stop.is_set():
                stream.write(" " * 65536)
                stream.flush()

    writer = threading.Thread(target=grow)
    writer.start()
    try:
        for _ in range(5):
            found = codes(path, max_file_size=4 * 1024 * 1024)
            assert found in ([], ["io.too-large"])
    finally:
        stop.set()
        writer.join()


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError):
        Limits(max_depth=0)
