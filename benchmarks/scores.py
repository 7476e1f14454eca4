"""What recomputing metrics.json costs: ``validate`` on the writer's run with its metrics.json and without it.

    python benchmarks/scores.py [--tasks 3000] [--rounds 5] [--jobs 1] [--tree FOLDER]

The run is written once by ``benchmarks/agentcompass_writer.py --metrics`` (the released writer and aggregation);
each round times ``agentbeats-spec validate --no-cache`` on it in a fresh process (every task read again), once
with metrics.json and once with it moved aside, in alternating order, so that the load of the machine falls on
both alike. Prints each round's times and the median ratio (the issue's goal: within 10 %). On a loaded machine
that ratio is noisy, and it holds the cost of checking metrics.json itself too, so the recomputation's own share
is measured apart as well: the rules spanning the run's units (``_run_facts.agree``) over the facts of one check,
with the report's fact and without it, against the whole check's time (in this process).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(tree: Path, jobs: int) -> float:
    command = [
        sys.executable,
        "-m",
        "agentbeats_spec",
        "validate",
        "-q",
        "--no-config",
        "--no-cache",
        "--jobs",
        str(jobs),
        str(tree),
    ]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"validate failed: {done.stderr}")
    return elapsed


def marginal(tree: Path, rounds: int) -> None:
    """The recomputation's own cost: ``agree`` with the report's fact minus without it, against the check's time."""
    sys.path.insert(0, str(ROOT / "src"))
    from agentbeats_spec.application._front_door import CheckRequest, Paths, run_check
    from agentbeats_spec.layouts import _run_facts

    checks, present, absent = [], [], []
    for _ in range(rounds):
        start = time.perf_counter()
        report = run_check(CheckRequest(), Paths((tree,)))
        checks.append(time.perf_counter() - start)
        facts = [fact for fact in report.facts if fact.rule == _run_facts.RUN_RULE]
        without = [fact for fact in facts if '"of": "report"' not in fact.value]
        for found, times in ((facts, present), (without, absent)):
            start = time.perf_counter()
            _run_facts.agree(found)
            times.append(time.perf_counter() - start)
    check, cost = statistics.median(checks), statistics.median(present) - statistics.median(absent)
    print(f"the check {check:.2f} s; the recomputation and comparison {cost:.3f} s, {100 * cost / check:.1f} % of it")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--tree", type=Path, help="a run written by agentcompass_writer.py --metrics (kept)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        tree = arguments.tree or Path(scratch) / "run"
        if not (tree / "metrics.json").exists():
            writer = [sys.executable, str(ROOT / "benchmarks" / "agentcompass_writer.py"), str(tree)]
            subprocess.run([*writer, "--tasks", str(arguments.tasks), "--metrics"], check=True)
        metrics, aside = tree / "metrics.json", tree.parent / "metrics.json.aside"
        ratios = []
        for number in range(arguments.rounds):
            times = {}
            for present in (True, False) if number % 2 == 0 else (False, True):
                if not present:
                    os.replace(metrics, aside)
                try:
                    times[present] = timed(tree, arguments.jobs)
                finally:
                    if not present:
                        os.replace(aside, metrics)
            ratios.append(times[True] / times[False])
            print(f"round {number + 1}: with metrics.json {times[True]:.2f} s, without {times[False]:.2f} s, "
                  f"ratio {ratios[-1]:.3f}")  # fmt: skip
        print(f"median ratio {statistics.median(ratios):.3f} over {len(ratios)} rounds (load {os.getloadavg()[0]:.2f})")
        marginal(tree, arguments.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
