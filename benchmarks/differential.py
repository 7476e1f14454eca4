"""The randomized differential test against every reader of the released AgentCompass 1.0.1, at any size.

    python benchmarks/differential.py [--cases N] [--seed S] [--jobs J]

Runs cases S, S+1, ..., S+N-1 (tests/differential: each case a seed, a base run the released writer writes, one
or two mutations, every 1.0.1 reader entry point and ``validate`` on the changed run) in J worker processes, and
prints a table of classes by scope, every disagreement with its seed and its minimal case, and the disagreements
grouped by what they are a case of. Exits 1 where there is a disagreement. One case is re-run alone with
``--seed 17 --cases 1``. The interop tier runs a few hundred of them (tests/interop/test_differential.py); needs
the released package in .venv/interop (``make .venv/.native``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.differential import cases  # noqa: E402

_PREPARED: dict[str, Any] = {}


def _start(scratch: str) -> None:
    """A process's own base runs, in a folder of the run's scratch folder (which main removes at its end: a pool's
    workers are terminated, and run no exit handler)."""
    folder = Path(tempfile.mkdtemp(prefix="bases-", dir=scratch))
    _PREPARED.update(cases.prepared_bases(folder))


def _case(seed: int) -> tuple[int, str, str, str, str]:
    outcome = cases.run_case(_PREPARED, seed)
    return seed, outcome.verdict, outcome.scope, outcome.describe(), cases.signature(outcome)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    options = parser.parse_args(argv)
    started = time.perf_counter()
    seeds = range(options.seed, options.seed + options.cases)
    scratch = tempfile.mkdtemp(prefix="differential-")
    try:
        if options.jobs > 1:
            with multiprocessing.get_context("spawn").Pool(options.jobs, _start, (scratch,)) as pool:
                results = sorted(pool.imap_unordered(_case, seeds, chunksize=4))
        else:
            _start(scratch)
            results = [_case(seed) for seed in seeds]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    counts = Counter((scope, verdict) for _, verdict, scope, _, _ in results)
    print(f"{options.cases} cases, seeds {options.seed}..{options.seed + options.cases - 1}, "
          f"{options.jobs} job(s), {time.perf_counter() - started:.1f} s\n")  # fmt: skip
    print(f"{'scope':<12} " + " ".join(f"{name:>15}" for name in cases.CLASSES))
    for scope in ("run root", "task folder"):
        print(f"{scope:<12} " + " ".join(f"{counts[scope, name]:>15}" for name in cases.CLASSES))
    disagreements = [result for result in results if result[1] != cases.AGREEMENT]
    if disagreements:
        print(f"\n{len(disagreements)} disagreement(s):")
        for _, _, _, text, _ in disagreements:
            print(text)
        print("\nby what they are a case of (with the first seed of each):")
        first: dict[str, int] = {}
        for seed, _, _, _, what in disagreements:
            first.setdefault(what, seed)
        for what, count in sorted(Counter(result[4] for result in disagreements).items(), key=lambda i: -i[1]):
            print(f"{count:>5}  {what}  (seed {first[what]})")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
