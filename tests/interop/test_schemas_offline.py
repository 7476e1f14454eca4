"""The documented way to run check-jsonschema on the schemas offline (docs/schemas.md) works as documented."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT, TASK_DIR

DOC = (ROOT / "docs" / "schemas.md").read_text(encoding="utf-8")
PLACEHOLDER = "path/to/attempt-1/result.json"


def documented_commands() -> list[list[str]]:
    block = re.search(r"```sh\n(# the split files.*?)```", DOC, re.DOTALL)
    assert block is not None, "docs/schemas.md lost its check-jsonschema example"
    lines = [line for line in block.group(1).replace("\\\n", " ").splitlines() if not line.startswith("#")]
    return [shlex.split(line.replace("$PWD", str(ROOT))) for line in lines if line.strip()]


def offline(command: list[str]) -> list[str]:
    """The command without a network where unprivileged namespaces allow it (else: no https server to reach)."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        return [unshare, "-rn", *command]
    return command


@pytest.mark.parametrize("command", documented_commands(), ids=["split", "bundled"])
def test_check_jsonschema_runs_offline_as_documented(command: list[str], tmp_path: Path) -> None:
    assert command[0] == "check-jsonschema"
    executable = Path(sys.executable).parent / "check-jsonschema"
    attempt = json.loads((TASK_DIR / "attempt-2" / "result.json").read_text(encoding="utf-8"))
    valid = tmp_path / "valid" / "result.json"
    valid.parent.mkdir()
    valid.write_text(json.dumps(attempt))
    # An issue's severity is defined in common/defs.v1.json: a $ref into another file must have been resolved.
    attempt["issues"] = [{"severity": "grave", "phase": "run", "code": "x", "message": "y"}]
    broken = tmp_path / "broken" / "result.json"
    broken.parent.mkdir()
    broken.write_text(json.dumps(attempt))
    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}  # no cached download to lean on

    def run(instance: Path) -> subprocess.CompletedProcess[str]:
        argv = [str(executable), *(str(instance) if part == PLACEHOLDER else part for part in command[1:])]
        return subprocess.run(offline(argv), cwd=ROOT, capture_output=True, text=True, timeout=120, env=environment)

    done = run(valid)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok -- validation done" in done.stdout
    failed = run(broken)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "$.issues[0].severity: 'grave' is not one of" in failed.stdout
