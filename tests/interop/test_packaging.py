"""The wheel carries the schemas and works without the checkout (a non-editable install)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from ..conftest import ROOT, VALID

PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
import pathlib, agentbeats_spec
from agentbeats_spec.checking._schemas import schema_directory
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
    assert "agentbeats_spec/reading/_native.pyi" in names
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) and not os.environ.get("CC"):  # wherever it can be, the native reader is built
        assert [name for name in names if name.startswith("agentbeats_spec/reading/_native.") and name.endswith(".so")]
    installed = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(installed)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(installed), str(VALID)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_without_a_compiler_the_package_installs_and_reads_through_the_pure_path(tmp_path: Path) -> None:
    source = tmp_path / "source"
    ignore = shutil.ignore_patterns("*.so", "*.pyd", "__pycache__", "*.egg-info")
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("src", "schemas"):
        shutil.copytree(ROOT / folder, source / folder, ignore=ignore)
    environment = {**os.environ, "CC": "false", "CXX": "false"}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(tmp_path),
         str(source)],
        check=True, capture_output=True, env=environment,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("agentbeats_spec-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert not [name for name in names if name.endswith((".so", ".pyd"))]
    assert "agentbeats_spec/schemas/catalog.json" in names
    installed = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(installed)
    probe = PROBE + "from agentbeats_spec.reading import _nativejson\nassert not _nativejson.available\n"
    result = subprocess.run(
        [sys.executable, "-c", probe, str(installed), str(VALID)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
