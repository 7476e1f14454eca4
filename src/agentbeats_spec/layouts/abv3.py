"""The ABV3-L1 repository layout: ``agentbeats.toml``, run-config folders and experiment results.

This is what ``abv3 check -l1`` checks, and a little more: the declared folders must exist, every
experiment folder must hold run configs and nothing nested, and every experiment's ``results.json`` must
have the L1 result format.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from ..checking import _kinds
from ..checking._collect import Collector
from ..checking._sources import examine_named, members
from ..rules.abv3 import inside_root
from ..units._fs import entries, is_file, is_folder, listable
from ..units._plan import LOCAL, Tree, UnitPlan
from ..vocabulary._issues import Anchor, Finding, Issue
from ..vocabulary._text import quote
from ._layout import Layout

REPO = _kinds.KINDS["abv3-repo"]
RESULTS = _kinds.KINDS["abv3-results"]
DEFAULT_EXPERIMENT = "default"


def detect(folder: Path, tree: Tree = LOCAL) -> bool:
    return tree.is_file(folder / "agentbeats.toml")


def plan_repository(folder: Path, plan: UnitPlan, others: tuple[Layout, ...], layouts: tuple[Layout, ...]) -> None:
    """A repository is one unit; the ABB trees in the same folder are the ABB layout's units, not read here."""
    shared = bool(others)
    plan.defer(repository_unit, folder, shared, exclude=("results/agents", "resources/agents") if shared else ())


LAYOUT = Layout("abv3", detect, plan_repository)


def repository_unit(collector: Collector, folder: Path, with_abb: bool) -> None:
    """One ABV3 repository: a ``units._plan.UnitCheck``. ``with_abb``: its results folder also holds an ABB tree."""
    repo = examine_named(folder / "agentbeats.toml", REPO)
    data = members(repo) or {}
    findings: list[Finding] = []

    about = _table(data, "abv3_repo")
    logo = about.get("logo_file")
    if isinstance(logo, str) and "://" not in logo and inside_root(logo) and not is_file(folder / logo):
        findings.append(Finding("/abv3_repo/logo_file", "layout.missing-file", f"logo_file {quote(logo)} is not there"))

    configs = _table(data, "run_configs")
    experiments: set[str] | None = {DEFAULT_EXPERIMENT}
    folder_name = configs.get("folder")
    if isinstance(folder_name, str) and inside_root(folder_name):
        configs_folder = folder / folder_name
        if not is_folder(configs_folder):
            findings.append(
                Finding(
                    "/run_configs/folder",
                    "layout.missing-folder",
                    f"the run-configs folder {quote(folder_name)} does not exist",
                )
            )
            experiments = None
        elif listable(configs_folder):
            experiments = _check_run_configs(configs_folder, folder, collector)
            findings.extend(_check_default(configs, experiments))
        else:  # reported as unreadable; which experiments it holds is not known
            _check_run_configs(configs_folder, folder, collector)
            experiments = None
    elif folder_name is not None:
        experiments = None  # the schema reports the bad path

    results = _table(data, "results")
    results_name = results.get("folder", "results")
    if isinstance(results_name, str) and inside_root(results_name):
        results_folder = folder / results_name
        if is_folder(results_folder):
            skip = {"agents"} if with_abb and results_name.strip("./") == "results" else set()
            _check_results(results_folder, experiments, skip, folder, collector)
        elif "folder" in results:
            findings.append(
                Finding(
                    "/results/folder",
                    "layout.missing-folder",
                    f"the results folder {quote(results_name)} does not exist",
                )
            )
    collector.add(repo.with_findings(findings))


def _table(data: dict[str, Any], name: str) -> dict[str, Any]:
    value = data.get(name)
    return value if isinstance(value, dict) else {}


def is_hidden(name: str) -> bool:
    """Dotfiles and dot-folders (.gitkeep, .DS_Store, .git): a repository's housekeeping, never an experiment."""
    return name.startswith(".")


def is_documentation(name: str) -> bool:
    """README, LICENSE and the like: what a repository explains itself with, not a run config."""
    stem, _, suffix = name.partition(".")
    return stem.upper() in _DOCUMENTATION or suffix.lower() in ("md", "rst", "txt")


_DOCUMENTATION = frozenset({"README", "LICENSE", "LICENCE", "COPYING", "NOTICE", "AUTHORS", "CHANGELOG"})


def _check_run_configs(configs: Path, root: Path, collector: Collector) -> set[str]:
    """Every entry is an experiment folder holding one or more config files and nothing nested."""
    experiments = set()
    for entry in entries(configs, collector, root):
        if is_hidden(entry.name):
            continue
        if not entry.is_folder:
            if is_documentation(entry.name):
                collector.about(
                    entry.path, "layout.not-an-experiment", "documentation, not an experiment; skipped", "info"
                )
                continue
            collector.about(
                entry.path,
                "layout.not-an-experiment",
                "the run-configs folder holds one folder per experiment; put this config in one",
            )
            continue
        experiments.add(entry.name)
        files = 0
        for inner in entries(entry.path, collector, root):
            if is_hidden(inner.name):
                continue
            if inner.is_folder:
                collector.about(
                    inner.path, "layout.nested-run-config", "an experiment folder holds config files, not folders"
                )
            else:
                files += 1
        if files == 0:
            collector.about(entry.path, "layout.empty-experiment", "an experiment folder holds one or more configs")
    return experiments


def _check_default(configs: dict[str, Any], experiments: set[str]) -> list[Finding]:
    default = configs.get("default_exp")
    if isinstance(default, str):
        if default not in experiments:
            return [
                Finding(
                    "/run_configs/default_exp",
                    "layout.missing-default-exp",
                    f"default_exp {quote(default)} is not an experiment folder; found: "
                    + (", ".join(sorted(experiments)) or "none"),
                )
            ]
    elif DEFAULT_EXPERIMENT not in experiments:
        return [
            Finding(
                "/run_configs/default_exp",
                "layout.missing-default-exp",
                "no default_exp is declared and there is no 'default' experiment folder, so running without an "
                "experiment name has nothing to run",
                severity="warning",
                anchor=Anchor.PARENT,
            )
        ]
    return []


def _check_results(
    results: Path, experiments: set[str] | None, skip: set[str], root: Path, collector: Collector
) -> None:
    for entry in entries(results, collector, root):
        if entry.name in skip or is_hidden(entry.name):
            continue
        if not entry.is_folder:
            if is_documentation(entry.name):
                collector.about(entry.path, "layout.unexpected-entry", "documentation, not results; skipped", "info")
            else:
                collector.about(
                    entry.path, "layout.unexpected-entry", "the results folder holds experiment folders", "warning"
                )
            continue
        if experiments is not None and entry.name not in experiments:
            collector.about(
                entry.path,
                "layout.orphan-results",
                f"no experiment {entry.name!r} in the run configs produced these results",
                "warning",
            )
        summary = entry.path / "results.json"
        if is_file(summary):
            collector.add(examine_named(summary, RESULTS))
        else:
            collector.about(
                entry.path,
                "layout.missing-results",
                "an experiment's results folder holds results.json (count, main_metric and the main metric)",
                "warning",
            )


# The checks `abv3 check -l1` names, and which issues belong to each.
L1_CHECKS = ("agentbeats.toml", "self-description", "dependencies", "run configs", "results")
_RESULT_CODES = frozenset({"layout.orphan-results", "layout.missing-results"})


@attrs.frozen
class L1Check:
    """One check of `abv3 check -l1`: the errors and warnings found in it, and whether it could run."""

    name: str
    errors: int
    warnings: int
    ran: bool


def l1_checks(issues: Iterable[Issue], repository: Path) -> tuple[L1Check, ...]:
    """The issues of a repository's check, told per check as the spec's `abv3 check -l1` tells them."""
    counts: dict[str, Counter[str]] = {check: Counter() for check in L1_CHECKS}
    not_run: set[str] = set()
    for issue in issues:
        check = _l1_check_of(issue, repository)
        counts[check][issue.severity] += 1
        if _prevents(issue):
            # Nothing past an unreadable agentbeats.toml can be checked; an unreadable folder stops its own check.
            not_run.update(L1_CHECKS[1:] if check == "agentbeats.toml" else (check,))
    return tuple(
        L1Check(check, counts[check]["error"], counts[check]["warning"], check not in not_run) for check in L1_CHECKS
    )


def _l1_check_of(issue: Issue, repository: Path) -> str:
    relative = Path(os.path.relpath(issue.file or "", repository)).as_posix()
    if relative == "agentbeats.toml":
        if issue.code.startswith(("json.", "toml.", "io.")) or not issue.pointer:
            return "agentbeats.toml"
        if issue.pointer.startswith("/dependency"):
            return "dependencies"
        if issue.pointer.startswith("/run_configs"):
            return "run configs"
        if issue.pointer.startswith("/results"):
            return "results"
        return "self-description"
    if issue.code in _RESULT_CODES or relative.endswith("results.json"):
        return "results"
    return "run configs"


def _prevents(issue: Issue) -> bool:
    """An error after which a check cannot run: its input is missing, unreadable or cannot be parsed."""
    if issue.severity != "error":
        return False
    if issue.code.startswith("io.") or issue.code in ("layout.missing-file", "security.symlink"):
        return not issue.pointer
    return issue.code.startswith("toml.") and issue.code != "toml.type"
