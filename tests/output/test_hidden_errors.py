"""The verdict never depends on what is shown: an error past ``--max-issues`` fails the check.

Two files put a thousand warnings before one error: a trajectory of 1,101 steps that each finish before they start,
then a ``step_id`` that does not increase; a ``progress.jsonl`` of 1,001 lines departing from the writer's shape,
then a broken line. Alone or in a run tree, in every output format, through ``validate()`` and ``watch``, the
``io.issues-truncated`` line that counts what is not shown takes the highest severity it counts, and says how many
errors, warnings and infos it hides; a configuration judges what it hides as it judges any issue.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

import pytest

from agentbeats_spec import InvalidDocument, Limits, load, validate
from agentbeats_spec.cli import main
from agentbeats_spec.vocabulary._issues import Issue

from ..conftest import ROOT, VALID

RUN = VALID / "agentcompass-run"
TRUNCATED = "io.issues-truncated"


def steps_finishing_before_they_start(count: int = 1_101) -> dict[str, object]:
    """``count`` steps that finish before they start (a warning each), then a step_id that does not increase."""
    late = {"started_at": "2026-08-01 10:00:05+00:00", "finished_at": "2026-08-01 10:00:00+00:00"}
    steps = [{"step_id": number, **late} for number in range(1, count + 1)]
    steps.append({"step_id": count, "started_at": "2026-08-01 10:00:00+00:00", "finished_at": "2026-08-01 10:00:01"})
    return {"schema_version": "ACTF_v1.0", "steps": steps}


def events_unlike_the_writers(count: int = 1_001) -> str:
    """``count`` events with a member the writer never writes (a warning each), then a broken line."""
    event = json.loads((RUN / "progress.jsonl").read_text(encoding="utf-8").splitlines()[0])
    return (json.dumps({**event, "note": "x"}) + "\n") * count + "{broken\n"


def trajectory_file(folder: Path) -> Path:
    path = folder / "trajectory.json"
    path.write_text(json.dumps(steps_finishing_before_they_start()), encoding="utf-8")
    return path


def events_file(folder: Path) -> Path:
    path = folder / "progress.jsonl"
    path.write_text(events_unlike_the_writers(), encoding="utf-8")
    return path


def run_tree(folder: Path) -> Path:
    """The valid run with both: the trajectory inside an attempt's result, the events as the run's progress."""
    root = folder / "run"
    shutil.copytree(RUN, root)
    result = next(root.glob("details/error/*/attempt-1/result.json"))
    document = json.loads(result.read_text(encoding="utf-8"))
    document["trajectory"] = steps_finishing_before_they_start()
    result.write_text(json.dumps(document, indent=2), encoding="utf-8")
    (root / "progress.jsonl").write_text(events_unlike_the_writers(), encoding="utf-8")
    return root


SOURCES: dict[str, Callable[[Path], Path]] = {
    "trajectory": trajectory_file,
    "events": events_file,
    "run": run_tree,
}
FORMATS = ("text", "json", "github", "sarif", "junit", "markdown")


def cut_lines(issues: list[Issue] | tuple[Issue, ...]) -> list[Issue]:
    return [issue for issue in issues if issue.code == TRUNCATED]


@pytest.mark.parametrize("source", SOURCES)
def test_an_error_past_the_limit_makes_validate_report_an_error(tmp_path: Path, source: str) -> None:
    found = validate(SOURCES[source](tmp_path))
    shown = [issue for issue in found if issue.code != TRUNCATED]
    assert all(issue.severity == "warning" for issue in shown)  # the thousand shown hide the error
    assert {issue.severity for issue in cut_lines(found)} == {"error"}


def test_the_truncation_line_says_how_many_errors_warnings_and_infos_it_hides(tmp_path: Path) -> None:
    (trajectory,) = cut_lines(validate(trajectory_file(tmp_path)))
    assert trajectory.message == (
        "103 more issue(s) in this file are not shown: 1 error(s) (rule.step-order), "
        "101 warning(s) (rule.finished-before-started), 1 info (rule.timestamp-offset) (see --max-issues)"
    )
    (events,) = cut_lines(validate(events_file(tmp_path)))
    assert events.message == (
        "2 more issue(s) in this file are not shown: 1 error(s) (json.syntax), 1 warning(s) (rule.writer-shape) "
        "(see --max-issues)"
    )
    from agentbeats_spec.checking._examine import Overflow, truncated

    only_info = Overflow((("layout.unexpected-entry", "info", 3),))
    assert (only_info.severity, truncated(only_info)) == (
        "info",
        "3 more issue(s) in this file are not shown: 3 info (layout.unexpected-entry) (see --max-issues)",
    )
    warnings = Overflow((("rule.writer-shape", "warning", 2),))
    assert warnings.severity == "warning"


def test_a_lower_limit_hides_more_and_still_fails(tmp_path: Path) -> None:
    (cut,) = cut_lines(validate(trajectory_file(tmp_path), limits=Limits(max_issues=1)))
    assert cut.severity == "error"
    assert cut.message.startswith("1102 more issue(s) in this file are not shown: 1 error(s) (rule.step-order), ")


def test_load_refuses_a_document_whose_error_is_past_the_limit(tmp_path: Path) -> None:
    with pytest.raises(InvalidDocument):
        load(trajectory_file(tmp_path))


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("format_", FORMATS)
def test_every_format_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, format_: str
) -> None:
    path = SOURCES[source](tmp_path)
    copy = tmp_path / f"report.{format_}"
    assert main(["validate", "--format", format_, "--output", f"{format_}:{copy}", str(path)]) == 1
    out = capsys.readouterr().out
    assert copy.read_text(encoding="utf-8") == out
    if format_ == "text":
        assert next(line for line in out.splitlines() if line.startswith(("valid: ", "invalid: "))).startswith("in")
        assert f"error {TRUNCATED} " in out
    elif format_ == "json":
        report = json.loads(out)
        assert report["valid"] is False
        assert {issue["severity"] for issue in report["issues"] if issue["code"] == TRUNCATED} == {"error"}
    elif format_ == "github":
        assert f"title={TRUNCATED}::" in next(line for line in out.splitlines() if line.startswith("::error "))
    elif format_ == "sarif":
        (run,) = json.loads(out)["runs"]
        assert {result["level"] for result in run["results"] if result["ruleId"] == TRUNCATED} == {"error"}
    elif format_ == "junit":
        suite = ElementTree.fromstring(out).find("testsuite")
        assert suite is not None and int(suite.get("failures", "0")) >= 1
        assert any(failure.get("type") == TRUNCATED for failure in suite.iter("failure"))
    else:
        assert out.startswith("### agentbeats-spec: invalid\n")


def configured(folder: Path, table: str) -> Path:
    path = folder / ".agentbeats-spec.toml"
    path.write_text(table, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("table", "exit_code", "severity"),
    [
        ("", 1, "error"),
        # What the line hides is judged as any issue is: lowered, ignored or left out by select, it fails nothing.
        ('[per-file-severity."**"]\n"rule.step-order" = "warning"\n', 0, "warning"),
        ('ignore = ["rule.step-order"]\n', 0, "warning"),
        ('select = ["schema", "json"]\n', 0, None),
        ('[per-file-severity."**"]\nrule = "info"\n', 0, "info"),
        # A warning it hides made an error fails the check, though the line itself was a warning.
        ('ignore = ["rule.step-order"]\n[per-file-severity."**"]\n"rule.finished-before-started" = "error"\n', 1,
         "error"),
        # The line itself cannot be ignored nor lowered while it hides an error.
        ('ignore = ["io"]\n', 1, "error"),
        ('[per-file-severity."**"]\n"io.issues-truncated" = "info"\n', 1, "error"),
    ],
)  # fmt: skip
def test_a_configuration_judges_what_the_line_hides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str, exit_code: int, severity: str | None
) -> None:
    path = trajectory_file(tmp_path)
    config = configured(tmp_path, table)
    assert main(["validate", "--format", "json", "--config", str(config), str(path)]) == exit_code
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is (exit_code == 0)
    assert [issue["severity"] for issue in report["issues"] if issue["code"] == TRUNCATED] == (
        [severity] if severity else []
    )


def test_schema_errors_not_looked_at_stay_errors_unless_every_schema_code_is_lowered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Past the limit, a line of JSON Lines with a schema error gets a verdict, not a search for its codes: what it
    hides may be any schema code, so only a configuration that lowers them all makes it pass."""
    event = json.loads((RUN / "progress.jsonl").read_text(encoding="utf-8").splitlines()[0])
    path = tmp_path / "progress.jsonl"
    path.write_text((json.dumps([event]) + "\n") * 5, encoding="utf-8")  # an event in an array: schema.type
    (cut,) = cut_lines(validate(path, limits=Limits(max_issues=2)))
    assert cut.severity == "error" and "schema errors not looked for" in cut.message
    # A schema search also finds a relative path that escapes its root (security.path-escape).
    for lowered, exit_code in (("schema.type",), 1), (("schema",), 1), (("schema", "security.path-escape"), 0):
        table = "".join(f'"{selector}" = "warning"\n' for selector in lowered)
        config = configured(tmp_path, f'[per-file-severity."**"]\n{table}')
        argv = ["validate", "--format", "json", "--max-issues", "2", "--config", str(config), str(path)]
        assert main(argv) == exit_code, lowered
        capsys.readouterr()


def test_the_cache_keeps_what_the_line_hides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A verdict read back from the cache is judged by a configuration as the fresh one is."""
    root = run_tree(tmp_path)
    cache = ["--cache", str(tmp_path / "cache")]
    assert main(["validate", "--format", "json", *cache, str(root)]) == 1
    fresh = json.loads(capsys.readouterr().out)
    assert main(["validate", "--format", "json", *cache, str(root)]) == 1
    assert json.loads(capsys.readouterr().out) == fresh
    config = configured(tmp_path, 'ignore = ["rule.step-order", "json.syntax"]\n')
    assert main(["validate", "--format", "json", *cache, "--config", str(config), str(root)]) == 0
    capsys.readouterr()


def test_reconfigured_keeps_the_order_and_drops_a_line_with_nothing_left() -> None:
    from agentbeats_spec.checking._examine import reconfigured

    line = Issue(
        file="a.json",
        severity="error",
        code=TRUNCATED,
        message="",
        hidden=(("rule.step-order", "error", 1),),
    )
    before = Issue(file="a.json", line=1, column=1, severity="warning", code="rule.writer-shape", message="m")
    after = Issue(file="b.json", severity="error", code="json.syntax", message="m")
    kept = reconfigured((line, before, after), lambda issues: issues)
    assert [issue.code for issue in kept] == [TRUNCATED, "rule.writer-shape", "json.syntax"]
    assert kept[0].message.startswith("1 more issue(s) in this file are not shown: 1 error(s) (rule.step-order)")
    dropped = reconfigured(
        (line, before, after), lambda issues: tuple(i for i in issues if i.code != "rule.step-order")
    )
    assert [issue.code for issue in dropped] == ["rule.writer-shape", "json.syntax"]


def test_watch_reports_the_error_past_the_limit(tmp_path: Path) -> None:
    pytest.importorskip("watchfiles")
    from agentbeats_spec import watch_run

    root = run_tree(tmp_path)
    found: list[Issue] = []
    watched = watch_run(root, found.append, timeout=1.0, force_polling=True)
    assert watched.report.fails(strict=False)
    assert {issue.severity for issue in cut_lines(found)} == {"error"}
    assert {issue.severity for issue in cut_lines(watched.report.issues)} == {"error"}


@pytest.mark.parametrize("source", SOURCES)
def test_pure_and_native_paths_give_the_same_failing_report(tmp_path: Path, source: str) -> None:
    """Every format, written by one run on each path: the same bytes, and exit 1; then watch as a command."""
    path = SOURCES[source](tmp_path)
    written = []
    for pure in (False, True):
        env = {key: value for key, value in os.environ.items() if key != "AGENTBEATS_SPEC_PURE"}
        env["PYTHONPATH"] = str(ROOT / "src")
        if pure:
            env["AGENTBEATS_SPEC_PURE"] = "1"
        folder = tmp_path / ("pure" if pure else "native")
        folder.mkdir()
        outputs = [f"--output={format_}:{folder / format_}" for format_ in FORMATS]
        command = [sys.executable, "-m", "agentbeats_spec", "validate", "--no-cache", *outputs, str(path)]
        done = subprocess.run(command, capture_output=True, env=env, timeout=300, check=False)
        assert done.returncode == 1, done.stderr
        written.append({format_: (folder / format_).read_bytes() for format_ in FORMATS})
    assert written[0] == written[1]
    assert json.loads(written[0]["json"])["valid"] is False
    watched = path if path.is_dir() else path.parent
    done = subprocess.run(
        [sys.executable, "-m", "agentbeats_spec", "watch", str(watched), "--timeout", "1", "--poll"],
        capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # watch ends with validate's exit code
    assert f" error {TRUNCATED} ".encode() in done.stdout
