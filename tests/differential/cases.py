"""Cases of the differential test: a seed, the base run it changes, one or two mutations; what the released readers
say of the changed run, what we say, and the class of their agreement (see tests/differential/__init__.py)."""

from __future__ import annotations

import logging
import random
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import attrs

from agentbeats_spec import Issue, validate

from . import bases, grammar, oracle

AGREEMENT = "agreement"
FALSE_ERROR = "false error"
MISSED_REFUSAL = "missed refusal"
WRONG_SEVERITY = "wrong severity"
CRASH = "crash"  # validate itself failed: never an agreement, whatever the readers do
CLASSES = (AGREEMENT, FALSE_ERROR, MISSED_REFUSAL, WRONG_SEVERITY, CRASH)
# Errors whatever the readers do: the text is not JSON (RFC 8259), though Python's json.loads may read it.
NOT_JSON = frozenset(
    {"json.syntax", "json.duplicate-key", "json.non-finite", "json.encoding", "json.nul-byte", "json.trailing-data",
     "json.empty"}
)  # fmt: skip


@attrs.frozen
class Prepared:
    """A base run, and what the readers and we say of it unchanged."""

    base: bases.Base
    limits: dict[str, int]  # what reuse passes over on it (oracle.reuse_counts)
    refusals: oracle.Refusals
    warnings: frozenset[tuple[str, str, str]]


@attrs.frozen
class Outcome:
    seed: int
    base: str
    mutations: tuple[grammar.Mutation, ...]
    verdict: str
    refusals: oracle.Refusals  # new against the unchanged run
    errors: tuple[str, ...]
    warnings: tuple[str, ...]  # new against the unchanged run
    minimal: Outcome | None = None  # the single mutation that gives a double one's disagreement

    @property
    def scope(self) -> str:
        return "run root" if all(m.at_run_root for m in self.mutations) else "task folder"

    def describe(self) -> str:
        changes = " + ".join(str(mutation) for mutation in self.mutations)
        lines = [f"seed {self.seed}: [{self.base}] {changes}  => {self.verdict} ({self.scope})"]
        if self.minimal is not None:
            lines.append(f"  minimal: {' + '.join(str(m) for m in self.minimal.mutations)}")
            shown = self.minimal
        else:
            shown = self
        lines += [f"  reader {name}: {said}" for name, said in sorted(shown.refusals.items())[:6]]
        if len(shown.refusals) > 6:
            lines.append(f"  ... and {len(shown.refusals) - 6} more refusals")
        lines += [f"  ours: {issue}" for issue in (*shown.errors, *shown.warnings)[:6]] or ["  ours: nothing"]
        return "\n".join(lines)


_TEMPORARY = re.compile(r"/tmp/[^\s'\":,)]+")


def _normalized(refusals: oracle.Refusals, root: Path) -> oracle.Refusals:
    return {name: _TEMPORARY.sub("<tmp>", said.replace(str(root), "<run>")) for name, said in refusals.items()}


def _line(issue: Issue, root: Path) -> str:
    where = grammar.HASHED.sub("--<h>", _relative(issue.file, root)) if issue.file else ""
    return f"{issue.severity} {issue.code} {where} {issue.pointer}: {issue.message[:160]}"


def _whatever_the_readers_do(issue: Issue) -> bool:
    """An error the contract sets whatever the readers do: the text is not JSON, or the file holds none of the data
    the writer writes in it (another type than the writer's at the top)."""
    # layout.score-mismatch: metrics.json is not what the run's tasks give, which no reader compares (the summary
    # writes it anew): a mutation of a task's metrics or state is one the scores check catches, the readers not
    return (
        issue.code in NOT_JSON
        or (issue.code == "schema.type" and issue.pointer == "")
        or issue.code == "layout.score-mismatch"
    )


def _relative(file: str, root: Path) -> str:
    return "." if file == str(root) else file.replace(str(root) + "/", "")


def _key(issue: Issue, root: Path) -> tuple[str, str, str]:
    return (issue.file.replace(str(root), "") if issue.file else "", issue.pointer, issue.code)


def _asked(base: bases.Base, root: Path, limits: dict[str, int]) -> oracle.Refusals:
    logging.disable(logging.CRITICAL)  # the readers log each task they leave out; the answer says it
    try:
        return _normalized(oracle.refusals(base, root, limits), root)
    finally:
        logging.disable(logging.NOTSET)


def prepare(name: str, folder: Path) -> Prepared:
    base = bases.build(name, folder)
    logging.disable(logging.CRITICAL)
    try:
        limits = oracle.reuse_counts(base, base.root)
    finally:
        logging.disable(logging.NOTSET)
    issues = validate(base.root)
    warnings = frozenset(_key(issue, base.root) for issue in issues if issue.severity == "warning")
    return Prepared(base, limits, _asked(base, base.root, limits), warnings)


def judge(prepared: Prepared, seed: int, mutations: Sequence[grammar.Mutation], root: Path) -> Outcome:
    """The class of a case: the run at ``root`` is ``prepared``'s base with ``mutations`` made."""
    said = _asked(prepared.base, root, prepared.limits)
    refused = {name: text for name, text in said.items() if prepared.refusals.get(name) != text}
    try:
        issues = validate(root)
    except Exception as error:  # the case goes on the table with what failed; the run of cases goes on
        crashed = (f"{type(error).__name__}: {error}".replace(str(root), "<run>"),)
        return Outcome(seed, prepared.base.name, tuple(mutations), CRASH, refused, crashed, ())
    errors = [issue for issue in issues if issue.severity == "error"]
    warnings = [i for i in issues if i.severity == "warning" and _key(i, root) not in prepared.warnings]
    at_root = all(mutation.at_run_root for mutation in mutations)
    root_errors = [
        issue for issue in errors if (issue.file and Path(issue.file).parent == root) or issue.file == str(root)
    ]
    if refused and not (root_errors if at_root else errors):
        verdict = WRONG_SEVERITY if warnings or (at_root and errors) else MISSED_REFUSAL
    elif not refused and any(not _whatever_the_readers_do(issue) for issue in errors) and at_root:
        verdict = FALSE_ERROR
    else:
        verdict = AGREEMENT
    return Outcome(
        seed, prepared.base.name, tuple(mutations), verdict, refused,
        tuple(_line(issue, root) for issue in errors), tuple(_line(issue, root) for issue in warnings),
    )  # fmt: skip


def _copy(prepared: Prepared, folder: Path) -> Path:
    # The copy's own parent, so that the browser's listing of the results folder sees only this run.
    root = folder / "results" / "run"
    shutil.copytree(prepared.base.root, root, symlinks=True)
    return root


def run_case(prepared: dict[str, Prepared], seed: int) -> Outcome:
    """Case ``seed``: its base, its one or two mutations (drawn as each is made), its class; a double mutation that
    disagrees is shrunk to the single one that disagrees alone, where there is one."""
    rng = random.Random(seed)
    chosen = prepared[rng.choice(sorted(prepared))]
    mutations: list[grammar.Mutation] = []
    with tempfile.TemporaryDirectory() as folder:
        root = _copy(chosen, Path(folder))
        for _ in range(1 if rng.random() < 0.6 else 2):
            mutation = grammar.draw(rng, root)
            mutation.apply(root)
            mutations.append(mutation)
        outcome = judge(chosen, seed, mutations, root)
    if outcome.verdict == AGREEMENT or len(mutations) == 1:
        return outcome
    singles = []
    for mutation in mutations:
        with tempfile.TemporaryDirectory() as folder:
            root = _copy(chosen, Path(folder))
            try:
                mutation.apply(root)
            except OSError:  # it changes what the other made
                continue
            singles.append(judge(chosen, seed, [mutation], root))
    alone = sorted(singles, key=lambda single: single.verdict != outcome.verdict)
    alone = [single for single in alone if single.verdict != AGREEMENT]
    return attrs.evolve(outcome, minimal=alone[0]) if alone else outcome


def prepared_bases(folder: Path) -> dict[str, Prepared]:
    return {name: prepare(name, folder / name) for name in bases.BASES}


def table(outcomes: Iterable[Outcome]) -> str:
    """The classes by scope and family of the (first) mutation, then every disagreement."""
    outcomes = list(outcomes)
    counts: Counter[tuple[str, str]] = Counter((outcome.scope, outcome.verdict) for outcome in outcomes)
    lines = [f"{'scope':<12} " + " ".join(f"{name:>15}" for name in CLASSES)]
    for scope in ("run root", "task folder"):
        lines.append(f"{scope:<12} " + " ".join(f"{counts[scope, name]:>15}" for name in CLASSES))
    lines.append(f"{'all':<12} " + " ".join(f"{sum(counts[s, name] for s in ('run root', 'task folder')):>15}"
                                              for name in CLASSES))  # fmt: skip
    disagreements = [outcome for outcome in outcomes if outcome.verdict != AGREEMENT]
    if disagreements:
        lines += ["", f"{len(disagreements)} disagreement(s):"]
        lines += [outcome.describe() for outcome in disagreements]
    return "\n".join(lines)


def signature(outcome: Outcome) -> str:
    """What a disagreement is a case of, to group them: its class and scope, the (minimal) mutation's family,
    operation and file name, and the readers that refused (without the task or file they were asked about)."""
    shown = outcome.minimal or outcome
    kinds = " + ".join(
        f"{m.family}/{m.operation} {grammar.HASHED.sub('--<h>', m.path).split('/')[-1]}" for m in shown.mutations
    )
    readers = sorted({" ".join(name.split()[:2]) for name in shown.refusals})
    return f"{outcome.verdict} ({shown.scope}): {kinds} | {', '.join(readers) or 'no reader'}"
