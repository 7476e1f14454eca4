"""Build steps pyproject.toml cannot state: the optional native reader and the schemas inside the package.

The native strict JSON reader (src/agentbeats_spec/reading/_native.c) is optional: without a working C compiler the
build goes on and the package reads JSON with its pure-Python path (same reports, slower).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class OptionalBuildExt(build_ext):
    """Never fail an install for want of a compiler: a native module that cannot be built is left out."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # any build failure leaves the pure-Python path
            self.warn(f"the native JSON reader was not built ({error}); the pure-Python reader is used")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:
            self.warn(f"the native JSON reader was not built ({error}); the pure-Python reader is used")


class BuildPyWithSchemas(build_py):
    """Wheels carry the repository's schemas/ as agentbeats_spec/schemas."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "agentbeats_spec" / "schemas"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / "schemas", target)


native = Extension(
    "agentbeats_spec.reading._native",
    sources=["src/agentbeats_spec/reading/_native.c"],
    optional=True,
    extra_compile_args=[] if os.name == "nt" else ["-O2", "-std=c99", "-Wall"],
)

setup(ext_modules=[native], cmdclass={"build_ext": OptionalBuildExt, "build_py": BuildPyWithSchemas})
