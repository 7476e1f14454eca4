"""Each run's metrics.json as AgentCompass 1.0.1 would write it, recomputed from the run's tasks as ``validate``
reads them: the same walk (its facts, each task read once, a linked task folder never followed), then
``scores`` on the facts of each run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from .. import _api
from ..application._front_door import CheckRequest, Paths, run_check
from ..checking._collect import Report
from ..layouts._run_facts import RUN_RULE
from ..scores._recompute import Refused
from ..scores._tasks import recompute_run
from ..vocabulary._issues import Issue, SpecError

if TYPE_CHECKING:
    from ..models import MetricReport

MISMATCH = "layout.score-mismatch"


@attrs.frozen
class Scored:
    """One run: its root, the report its tasks give (None: the summary refuses them, ``refused`` says why), the
    metrics.json it holds (None: none, or not an object) and the mismatches found in it."""

    root: Path
    recomputed: dict[str, Any] | None
    refused: str | None
    held: dict[str, Any] | None
    mismatches: tuple[Issue, ...]


def scored_runs(paths: Sequence[Path], request: CheckRequest | None = None) -> tuple[Report, list[Scored]]:
    """The check of ``paths`` (as ``validate``), and each AgentCompass run found in them, scored."""
    report = run_check(request or CheckRequest(), Paths(tuple(paths)))
    runs: dict[str, dict[str, list[tuple[str, dict[str, Any]]]]] = {}
    for fact in report.facts:
        if fact.rule != RUN_RULE:
            continue
        try:
            value = json.loads(fact.value)
        except ValueError:
            continue  # only an edited cache entry holds such a fact
        if isinstance(value, dict):
            runs.setdefault(fact.scope, {}).setdefault(str(value.get("of")), []).append((fact.file, value))
    scored = [_scored(scope, roles, report.issues) for scope, roles in runs.items() if _is_run(roles)]
    return report, sorted(scored, key=lambda each: str(each.root))


def _is_run(roles: dict[str, list[tuple[str, dict[str, Any]]]]) -> bool:
    return any(role in roles for role in ("plan", "report", "task"))


def _scored(scope: str, roles: dict[str, list[tuple[str, dict[str, Any]]]], issues: Sequence[Issue]) -> Scored:
    plans = [value for _, value in roles.get("plan", [])]
    plan = {"k": plans[0]["k"], "strategy": plans[0]["strategy"]} if plans else None
    reports = [value.get("report") for _, value in roles.get("report", [])]
    held = reports[0] if reports and isinstance(reports[0], dict) else None
    tasks = [(file, value["task"], value["score"]) for file, value in roles.get("task", []) if "score" in value]
    try:
        recomputed: dict[str, Any] | None = recompute_run(tasks, held, plan).report
        refused = None
    except Refused as error:
        recomputed, refused = None, str(error)
    prefix = os.path.join(scope, "")
    found = tuple(issue for issue in issues if issue.code == MISMATCH and (issue.file or "").startswith(prefix))
    return Scored(Path(scope), recomputed, refused, held, found)


def score_run(path: str | os.PathLike[str]) -> dict[Path, MetricReport]:
    """The metrics.json AgentCompass 1.0.1's summary would write for each run at ``path`` (a run, or a folder of
    runs), recomputed from the run's tasks: the generated model of each, by run folder. Raises ``SpecError`` when
    no run is there, or when the summary would refuse a run's tasks (the message says why)."""
    _, scored = scored_runs([Path(path)])
    if not scored:
        raise SpecError(f"{os.fspath(path)}: no AgentCompass run (a folder with run_info.json or details/) is there")
    models = {}
    for each in scored:
        if each.recomputed is None:
            raise SpecError(f"{each.root}: AgentCompass 1.0.1's summary refuses this run: {each.refused}")
        models[each.root] = _api.from_dict("agentcompass-metrics", each.recomputed)
    return models
