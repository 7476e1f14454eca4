from __future__ import annotations

import collections
import copy
import dataclasses
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import agentbeats_spec
from agentbeats_spec import Issue

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
VALID = FIXTURES / "valid"
TASK_DIR = next((VALID / "agentcompass-run" / "details" / "error").iterdir())


@dataclasses.dataclass(frozen=True)
class Totals:
    """What a check of ``fixtures/invalid`` finds, counted from ``fixtures/expected-issues.json``: the one place
    the tests read these numbers from (a new invalid fixture changes them there alone)."""

    files: int
    errors: int
    warnings: int
    info: int

    @property
    def issues(self) -> int:
        return self.errors + self.warnings + self.info

    @property
    def summary(self) -> str:
        """The text report's count line (``file(s) checked; ...``), without what it says of info."""
        return f"{self.files} file(s) checked; {self.errors} error(s), {self.warnings} warning(s), {self.info} info"


def _invalid_totals() -> Totals:
    expected = json.loads((FIXTURES / "expected-issues.json").read_text(encoding="utf-8"))
    issues = [issue for file, listed in expected.items() if file.startswith("invalid/") for issue in listed]
    severities = collections.Counter(issue["severity"] for issue in issues)
    files = sum(1 for file in expected if file.startswith("invalid/"))
    return Totals(files, severities["error"], severities["warning"], severities["info"])


INVALID_TOTALS = _invalid_totals()

# The slow tiers, by path below tests/ (a folder, a module, or the tests of a module whose names begin so), each
# with why it is slow. `make check` leaves them out (-m "not slow and not interop"); `make test`, and CI, run all.
TIERS: dict[str, dict[str, str]] = {
    "interop": {
        "interop/": "other programs on our files: AgentCompass 1.0.1, Ajv, taplo, pre-commit venvs, built wheels",
        "layouts/test_legacy_v2.py": "v2 runs against the released reader, and migrations stopped at every step",
        "watching/test_watch_run.py": "the released AgentCompass 1.0.1 writing a run in its own process, watched",
    },
    "slow": {
        "properties/": "hypothesis property tests, and fuzzing of the command line",
        "output/test_signals.py": "commands in subprocesses stopped by signals: worker pools, a local Dask cluster",
        "watching/test_watch.py::test_the_command": "watch as a command, in a subprocess, until its --timeout",
        "watching/test_watch_command.py::test_watch_judges_as_validate": "watch until its --timeout beside validate, "
        "for each configuration",
        "output/test_ci_formats.py": "the pre-commit hooks and the README's CI steps, run as subprocesses",
        "output/test_hidden_errors.py::test_pure_and_native_paths": "validate and watch in subprocesses, pure and "
        "native",
        "output/test_action.py": "the GitHub Action's script run in subprocesses on a sample repository",
        "layouts/test_distributed.py": "a real Dask cluster of two worker processes",
        "layouts/test_isolation.py": "a tree of every hostile trigger, checked whole in every output format",
        "layouts/test_faults.py": "faults made real in subprocesses: closed pipes, full disks, refused folders",
        "reading/test_engines.py": "differential: the fast engines on corpora of mutants, and a run without them",
        "reading/test_native.py": "differential: the native and exact readers on generated documents and mutants",
        "reading/test_not_a_file.py": "every command in a child process with a timeout (FIFOs, /dev/zero)",
        "reading/test_memory.py": "a child process run out of memory",
        "output/test_everyday.py::test_standard_input_is_read_without_allocating_the_limit": "a child process "
        "held to a memory limit",
        "reading/test_confined.py": "folders swapped for links under a command in a child process",
        "runs/test_reader_confined.py::test_a_task_folder_swapped": "the run reader in a child process",
        "runs/test_reader_confined.py::test_export_refuses": "export in a child process, a task folder swapped",
        "api/test_codes.py::test_no_security_alert_in_the_mutant_corpus": "the mutant corpus of interop/test_ajv.py",
        "api/test_codes.py::test_every_code_of_the_table_is_reached": "the same corpus, and every invalid fixture",
        "credentials/test_redact.py::test_after_redact_scan_finds_nothing": "hypothesis, three document syntaxes",
        "writing/test_atif.py::test_generated_trajectories": "hypothesis, 150 examples",
        "writing/test_atif.py::test_trajectories_of_the_agentcompass_harness": "hypothesis, 100 examples",
        "writing/test_atif.py::test_atif_built_with_its_own_models": "hypothesis, 100 examples",
        "writing/test_task_writers.py::test_two_processes": "processes racing on one task",
        "writing/test_writers.py::test_two_processes": "two writer processes",
        "api/test_regenerate.py::test_the_committed_files_are": "the check make check runs itself, in a subprocess",
        "api/test_regenerate.py::test_a_left_over_or_missing": "every generator writing a copy of the checkout",
        # Out of `make check` since issue 35, each taking seconds on a quiet two-core machine:
        "rules/test_actf_steps.py::test_the_native_step_filter_leaves_the_findings_of_the_rules_unchanged": (
            "hypothesis, 1,500 trajectories each judged twice"
        ),
        "api/test_models.py::test_documents_survive_from_dict_and_to_dict_exactly": "hypothesis, 150 documents",
        "api/test_models.py::test_dump_then_load_gives_the_same_model": "hypothesis, 80 documents written and read",
        "output/test_hidden_errors.py::test_every_format_fails_the_check": (
            "18 commands (every format, every source), each on documents of over a thousand issues"
        ),
        "runs/test_export_hostile.py::test_a_shared_string_is_held_once_per_batch_and_batches_are_bounded_by_bytes": (
            "a string of 1 MB in 2,000 rows, spelled out in batches"
        ),
        "runs/test_reader_confined.py::test_a_run_deep_in_a_folder_of_runs_is_found_each_folder_listed_where_it_is": (
            "a tree 1,200 folders deep, made and removed"
        ),
        "reading/test_limits.py::test_many_tiny_files": "a tree of 5,000 files",
        "watching/test_watch.py::test_a_link_in_the_run_to_the_root_or_to_its_parent_is_reported_never_followed": (
            "four watches, each held to its timeout"
        ),
        "api/test_settings.py::test_validating_without_secrets_does_not_import_the_scanner": "six child processes",
        "output/test_outputs.py::test_schema_bundle_is_ascii_json_on_a_console_that_is_not_utf_8": (
            "two commands in child processes"
        ),
    },
}


def pytest_configure() -> None:
    """Every path of TIERS names what is there: a module or test renamed must not leave its tier unseen."""
    for where in (where for paths in TIERS.values() for where in paths):
        module, _, test = where.partition("::")
        path = ROOT / "tests" / module
        if not path.exists() or (test and f"def {test}" not in path.read_text(encoding="utf-8")):
            raise pytest.UsageError(f"tests/conftest.py TIERS names {where}, which is not there")


@pytest.hookimpl(tryfirst=True)  # before -m deselects by the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if not item.path.is_relative_to(ROOT / "tests"):
            continue
        name = f"{item.path.relative_to(ROOT / 'tests').as_posix()}::{item.name}"
        for marker, paths in TIERS.items():
            if any(name.startswith(where) for where in paths):
                item.add_marker(marker)


@pytest.fixture(autouse=True, scope="session")
def _own_cache_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The command's default verdict cache goes to a folder of the test session, not the user's."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))


@pytest.fixture(autouse=True, scope="session")
def _fixture_modes() -> None:
    """The valid run's collected artifact carries its collector's sha256, which holds its permission bits: a
    checkout under a umask other than 022 gives it other bits (as `make validate` sets them back too)."""
    for path in (VALID / "agentcompass-run").rglob("artifacts/**/*"):
        if path.is_file() and not path.is_symlink():
            path.chmod(0o644)


def collector_evidence(path: Path) -> dict[str, Any]:
    """What the AgentCompass 1.0.1 collector records of an artifact it collects (measured as it measures it)."""
    from agentbeats_spec.layouts import _evidence

    found = _evidence.measure(str(path))
    assert not isinstance(found, _evidence.Refusal), found
    digest = found.sha256()
    assert isinstance(digest, str), digest
    return {"sha256": digest, "size_bytes": found.size_bytes, "file_count": found.file_count}


def load_fixture(relative: str) -> Any:
    return json.loads((FIXTURES / relative).read_text(encoding="utf-8"))


def issues(source: Any, kind: str | None = None) -> list[Issue]:
    return agentbeats_spec.validate(source, kind)


def summary(source: Any, kind: str | None = None) -> set[tuple[str, str]]:
    """(code, pointer) of every issue."""
    return {(issue.code, issue.pointer) for issue in issues(source, kind)}


def errors(source: Any, kind: str | None = None) -> set[tuple[str, str]]:
    return {(issue.code, issue.pointer) for issue in issues(source, kind) if issue.severity == "error"}


def text(data: Any) -> str:
    """Indented JSON text, so that each member sits on a line of its own."""
    return json.dumps(data, indent=2, ensure_ascii=False)


def one(source: Any, kind: str | None = None) -> Issue:
    found = issues(source, kind)
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
def attempt() -> dict[str, Any]:
    return copy.deepcopy(load_fixture(f"valid/agentcompass-run/details/error/{TASK_DIR.name}/attempt-1/result.json"))


@pytest.fixture
def task_index() -> dict[str, Any]:
    return copy.deepcopy(load_fixture(f"valid/agentcompass-run/details/error/{TASK_DIR.name}/task.json"))


@pytest.fixture
def detail() -> dict[str, Any]:
    return copy.deepcopy(load_fixture("valid/task-detail/swe-utils.task-detail.json"))


@pytest.fixture
def trajectory() -> dict[str, Any]:
    return copy.deepcopy(load_fixture("valid/actf/trajectory.json"))


@pytest.fixture
def case() -> dict[str, Any]:
    return copy.deepcopy(load_fixture("valid/abb/resources/agents/demo-agent/ground_truth/issue_123/verify.case.json"))


@pytest.fixture
def retry_record() -> dict[str, Any]:
    path = next((TASK_DIR / "attempt-1" / "retries").iterdir())
    return copy.deepcopy(json.loads(path.read_text(encoding="utf-8")))


def places(value: Any, *, first_items: int, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every value of a document with its path, the document itself first; of each array only the first items
    (mutants of every step of a long trajectory would teach nothing the first few do not)."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from places(item, first_items=first_items, path=(*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:first_items]):
            yield from places(item, first_items=first_items, path=(*path, index))
