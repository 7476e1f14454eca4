"""--jobs: task folders checked in worker processes give exactly the report of one process."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from agentbeats_spec import Limits
from agentbeats_spec.application._tree_check import check_paths
from agentbeats_spec.vocabulary._settings import AllowList, Settings, applied

from ..conftest import VALID


def test_two_jobs_give_the_report_of_one(tmp_path: Path) -> None:
    run = tmp_path / "valid"
    shutil.copytree(VALID, run)
    task = next((run / "agentcompass-run" / "details" / "error").iterdir())
    result = task / "attempt-2" / "result.json"
    data = json.loads(result.read_text())
    data["status"] = "done"
    data["meta"]["harness"]["api_key"] = "sk-proj-" + "a" * 40
    result.write_text(json.dumps(data, indent=2))
    (task / "attempt-7").mkdir()
    for copy in range(6):
        shutil.copytree(run / "agentcompass-run", tmp_path / f"run{copy}")
    paths = [run, *(tmp_path / f"run{copy}" for copy in range(6))]
    with applied(Settings(Limits(shown_length=12), AllowList())):
        one = check_paths(paths, jobs=1)
        two = check_paths(paths, jobs=2)
    assert one == two
    codes = {issue.code for issue in two.issues}
    assert {"schema.enum", "security.secret", "layout.unmapped-attempt"} <= codes
    assert one.checked == two.checked and one.kinds == two.kinds
