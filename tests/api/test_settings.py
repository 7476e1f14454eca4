"""The settings of a run are one frozen value: applied once, read by every stage, handed whole to workers."""

from __future__ import annotations

import json
import multiprocessing
import pickle
import shutil
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import attrs
import pytest

from agentbeats_spec import Limits, validate
from agentbeats_spec.application._tree_check import plan
from agentbeats_spec.units._running import run_units
from agentbeats_spec.vocabulary._settings import AllowList, Settings, applied, current

from ..conftest import TASK_DIR, VALID

SCANNER = "agentbeats_spec.credentials._scan"


def _imported_by(call: str) -> bool:
    """Whether the scanner is imported by ``call``, in a fresh interpreter."""
    probe = (
        "import sys\nfrom pathlib import Path\nfrom agentbeats_spec import validate\n"
        f"{call}\nprint({SCANNER!r} in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return {"True": True, "False": False}[result.stdout.strip()]


@pytest.mark.parametrize(
    "source",
    [
        f"Path({str(VALID / 'actf' / 'trajectory.json')!r})",
        f"Path({str(VALID / 'agentcompass-run')!r})",
        "{'schema_version': 'x'}",
    ],
)
def test_validating_without_secrets_does_not_import_the_scanner(source: str) -> None:
    assert not _imported_by(f"validate({source})")
    assert _imported_by(f"validate({source}, secrets=True)")


def test_settings_are_frozen_and_default_to_the_default_limits_without_a_scan() -> None:
    settings = Settings()
    assert settings == current() and settings.limits == Limits() and settings.allow is None
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        settings.limits = Limits(max_depth=3)  # type: ignore[misc]


def test_a_call_that_names_no_limits_keeps_those_applied_around_it() -> None:
    document = {"schema_version": "agentcompass.task.v3", "task_id": 1, "attempts": 2, "category": 3}
    assert len(validate(document)) > 2
    with applied(Settings(Limits(max_issues=2))):
        found = validate(document)
        assert current().limits.max_issues == 2
    assert [issue.code for issue in found][-1] == "io.issues-truncated" and len(found) == 3
    assert current() == Settings()


def test_the_one_value_travels_to_a_worker_process_whole(tmp_path: Path) -> None:
    run = tmp_path / "agentcompass-run"
    shutil.copytree(VALID / "agentcompass-run", run)
    result = run / "details" / "error" / TASK_DIR.name / "attempt-1" / "result.json"
    data = json.loads(result.read_text())
    secret = "sk-proj-" + "a" * 40
    data["meta"]["harness"]["api_key"] = secret
    result.write_text(json.dumps(data, indent=2))
    units = plan([run]).units
    scanning = Settings(Limits(shown_length=12), AllowList())
    key = scanning.allow.key if scanning.allow is not None else b""
    allowing = Settings(Limits(shown_length=12), AllowList(frozenset({AllowList(key=key).fingerprint(secret)}), key))
    assert pickle.loads(pickle.dumps(scanning)) == scanning
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        there = {settings: pool.submit(run_units, units, settings).result() for settings in (scanning, allowing)}
    assert there[scanning] == run_units(units, scanning)
    assert there[allowing] == run_units(units, allowing)
    codes = [issue.code for part in there[scanning] for issue in part.issues]
    assert codes.count("security.secret") == 1
    assert "security.secret" not in [issue.code for part in there[allowing] for issue in part.issues]
