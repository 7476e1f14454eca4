"""Build steps pyproject.toml cannot state: the optional native modules and the schemas inside the package.

The native strict JSON reader (src/agentbeats_spec/reading/_native.c) and the ACTF rules' step pre-filter
(src/agentbeats_spec/rules/_actf_native.c) are optional: without a working C compiler the build goes on and the
package runs its pure-Python paths (same reports, slower).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.command.egg_info import egg_info, manifest_maker

ROOT = Path(__file__).resolve().parent


class OptionalBuildExt(build_ext):
    """Never fail an install for want of a compiler: a native module that cannot be built is left out."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # any build failure leaves the pure-Python path
            self.warn(f"a native module was not built ({error}); its pure-Python path is used")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:
            self.warn(f"a native module was not built ({error}); its pure-Python path is used")


class BuildPyWithSchemas(build_py):
    """Wheels carry the repository's schemas/ as agentbeats_spec/schemas."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "agentbeats_spec" / "schemas"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / "schemas", target)


# What a working checkout builds or caches (compiled modules, bytecode, npm's folder): never in the sdist, whichever
# checkout it is built from. MANIFEST.in's global-exclude would warn in a fresh clone, where none of them exists.
BUILD_PRODUCTS = r"(^|/)(__pycache__|node_modules)/|\.(so|pyd|pyc)$"


class ManifestWithoutBuildProducts(manifest_maker):
    def prune_file_list(self) -> None:
        super().prune_file_list()
        self.filelist.exclude_pattern(BUILD_PRODUCTS, is_regex=True)


class EggInfoWithoutBuildProducts(egg_info):
    """setuptools' egg_info.find_sources, with the manifest above."""

    def find_sources(self) -> None:
        maker = ManifestWithoutBuildProducts(self.distribution)
        maker.ignore_egg_info_dir = self.ignore_egg_info_in_manifest
        maker.manifest = os.path.join(self.egg_info, "SOURCES.txt")
        maker.run()
        self.filelist = maker.filelist


FLAGS = [] if os.name == "nt" else ["-O2", "-std=c99", "-Wall"]
# The strict JSON reader (reading/), and the native help of the ACTF per-step rules (rules/): each optional.
native = Extension(
    "agentbeats_spec.reading._native",
    sources=["src/agentbeats_spec/reading/_native.c"],
    optional=True,
    extra_compile_args=FLAGS,
)
actf_native = Extension(
    "agentbeats_spec.rules._actf_native",
    sources=["src/agentbeats_spec/rules/_actf_native.c"],
    optional=True,
    extra_compile_args=FLAGS,
)

setup(
    ext_modules=[native, actf_native],
    cmdclass={
        "build_ext": OptionalBuildExt,
        "build_py": BuildPyWithSchemas,
        "egg_info": EggInfoWithoutBuildProducts,
    },
)
