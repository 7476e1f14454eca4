"""The wheel carries the schemas and works without the checkout (a non-editable install)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pytest

from ..conftest import ROOT, VALID

README = (ROOT / "README.md").read_text(encoding="utf-8")

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
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE"):
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


BUILD = """
import sys
from setuptools import build_meta
print(build_meta.build_sdist(sys.argv[1]))
"""
WHEEL = """
import sys
from setuptools import build_meta
print(build_meta.build_wheel(sys.argv[1]))
"""
SKIPPED = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "node_modules", ".*_cache", ".hypothesis"
)


def build(script: str, source: Path, target: Path) -> str:
    """One PEP 517 hook of setuptools run in SOURCE, as pip and `python -m build` call it; its whole output."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    result = subprocess.run(
        [sys.executable, "-c", script, str(target)], cwd=source, capture_output=True, text=True, env=environment,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout + result.stderr


def test_the_sdist_and_the_wheel_carry_the_license_and_build_without_a_warning(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT, checkout, ignore=SKIPPED)
    # what a working checkout holds beside its sources never reaches the sdist, and is not warned about
    (checkout / "tests" / "__pycache__").mkdir(exist_ok=True)
    (checkout / "tests" / "__pycache__" / "conftest.cpython-311.pyc").write_bytes(b"")
    (checkout / "src" / "agentbeats_spec" / "reading" / "_native.cpython-39-x86_64-linux-gnu.so").write_bytes(b"")
    sdist_output = build(BUILD, checkout, tmp_path / "dist")
    (sdist,) = (tmp_path / "dist").glob("agentbeats_spec-*.tar.gz")
    with tarfile.open(sdist) as archive:
        members = [name.partition("/")[2] for name in archive.getnames()]
        archive.extractall(tmp_path / "unpacked", filter="data")
    assert "LICENSE" in members
    assert "src/agentbeats_spec/reading/_native.c" in members
    assert "src/agentbeats_spec/rules/_actf_native.c" in members
    assert [name for name in members if name.endswith((".so", ".pyd", ".pyc")) or "__pycache__" in name] == []
    # the wheel is built from the unpacked sdist: the sdist holds all it needs
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    wheel_output = build(WHEEL, unpacked, tmp_path / "wheel")
    (wheel,) = (tmp_path / "wheel").glob("agentbeats_spec-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert [name.partition("/")[2] for name in names if name.endswith("/licenses/LICENSE")] == ["licenses/LICENSE"]
    assert [name for name in names if name.endswith(".c")] == []
    for output in (sdist_output, wheel_output):
        assert [line for line in output.splitlines() if "warning" in line.lower()] == []
        assert "no previously-included" not in output


def install_commands() -> list[str]:
    """The commands of README's "Install" block, as a reader copies them."""
    section = README.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_readme_never_offers_an_install_from_a_registry_it_is_not_on() -> None:
    code = "".join(re.findall(r"```[a-z]*\n(.*?)```", README, flags=re.DOTALL))
    commands = [line.split("#", 1)[0] for line in code.splitlines() if "pip install" in line]
    assert len(commands) >= 3
    assert [line for line in commands if re.search(r"pip install ['\"]?agentbeats-spec\b", line)] == []
    assert "REPO_URL" in README.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]


def test_every_install_command_of_the_readme_installs_a_working_package(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, capture_output=True)
    commands = install_commands()
    assert [command.split()[:2] for command in commands] == [["pip", "install"]] * 3
    for number, command in enumerate(commands):
        argument = command.removeprefix("pip install ").strip('"').replace("REPO_URL", f"file://{clone}")
        if "*.whl" in argument:  # the wheel, built by the command the comment gives
            subprocess.run(
                [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", "dist",
                 "."],
                cwd=clone, check=True, capture_output=True,
            )  # fmt: skip
            (argument,) = [str(wheel) for wheel in (clone / "dist").glob(argument.removeprefix("dist/"))]
        target = tmp_path / f"site-{number}"
        # offline: the dependencies are the test environment's own
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target",
             str(target), argument],
            cwd=clone, check=True, capture_output=True,
        )  # fmt: skip
        result = subprocess.run(
            [sys.executable, "-c", PROBE, str(target), str(VALID)], capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, (command, result.stderr)


def others_can_read(folder: Path) -> bool:
    """Whether a user other than the owner may enter every folder down to ``folder`` and read it."""
    return all(part.stat().st_mode & 0o005 == 0o005 for part in [folder, *folder.parents])


@pytest.mark.skipif(
    not hasattr(os, "geteuid")
    or os.geteuid() != 0
    or not (shutil.which("setpriv") and shutil.which("make"))
    or not others_can_read(ROOT),
    reason="needs root (to run make as another user), setpriv, and a checkout other users may read",
)
def test_make_fuzz_skips_with_its_reason_for_a_user_without_clang_or_root() -> None:
    with tempfile.TemporaryDirectory() as folder:  # not under pytest's tmp_path, which only root may enter
        tools = Path(folder)  # make and a shell, no clang, no apt-get
        tools.chmod(0o755)
        for name in ("make", "sh", "id", "env"):
            (tools / name).symlink_to(shutil.which(name) or name)
        result = make_fuzz_as_nobody(tools)
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "clang not found and cannot be installed without root: skipping the fuzz step (install clang to run it)\n",
        "",
    )


def make_fuzz_as_nobody(tools: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", f"PATH={tools}", "make",
         "--no-print-directory", "-o", ".venv/.native", "-o", ".venv/.installed", "fuzz"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
