"""The wheel carries the schemas and works without the checkout (a non-editable install)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from .conftest import ROOT, VALID

PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
import pathlib, agentbeats_spec
from agentbeats_spec._schemas import schema_directory
assert agentbeats_spec.__file__.startswith(sys.argv[1]), agentbeats_spec.__file__
assert str(schema_directory()).startswith(sys.argv[1]), schema_directory()
assert agentbeats_spec.validate(pathlib.Path(sys.argv[2])) == []
print("ok")
"""


def test_the_wheel_ships_schemas_and_validates_from_the_installed_package(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(tmp_path),
         str(ROOT)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("agentbeats_spec-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "agentbeats_spec/schemas/agentcompass/task.v3.json" in names
    assert "agentbeats_spec/schemas/catalog.json" in names
    assert "agentbeats_spec/py.typed" in names
    installed = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(installed)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(installed), str(VALID)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
