"""Where a tree's check spends its time: the whole check, then without the rules, then without schema validation too.

    python benchmarks/ablate.py TREE [--rounds 3]

In one process (no start-up), by CPU time (``time.process_time``), best of the rounds: each measure switches one
more part off by replacing it in this process only (the rules of every kind by none; jsonschema-rs's verdict by
"valid"), so the differences are what those parts cost. The report of a run with parts switched off is not a
report: only the times are printed. What docs/performance.md shows as "where the small tree's time goes".
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import attrs

from agentbeats_spec.application._tree_check import check_paths
from agentbeats_spec.checking import _examine, _kinds
from agentbeats_spec.layouts import agentcompass


def best(tree: Path, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.process_time()
        check_paths([tree], jobs=1)
        times.append(time.process_time() - start)
    return min(times)


def no_rules(data: Any) -> Iterator[Any]:
    return iter(())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    whole = best(arguments.tree, arguments.rounds)
    print(f"whole check                      {whole:.3f} s")
    # Every kind, and the attempt kinds a task's version pins, without rules.
    for name, kind in list(_kinds.KINDS.items()):
        _kinds.KINDS[name] = attrs.evolve(kind, rules=no_rules)
    agentcompass.TASK, agentcompass.ATTEMPT, agentcompass.RETRY = (
        _kinds.KINDS[name] for name in ("agentcompass-task", "agentcompass-attempt", "agentcompass-retry")
    )
    pinned = _kinds.pinned
    _kinds.pinned = lambda kind, version: attrs.evolve(pinned(kind, version), rules=no_rules)  # type: ignore[assignment]
    agentcompass._attempt_kind.cache_clear()
    without_rules = best(arguments.tree, arguments.rounds)
    print(f"without the rules                {without_rules:.3f} s   (rules {1 - without_rules / whole:.0%})")
    _examine._schemas.valid_by_fast_engine = lambda *_: True  # type: ignore[assignment]
    without_schemas = best(arguments.tree, arguments.rounds)
    share = (without_rules - without_schemas) / whole
    print(f"without schema validation too    {without_schemas:.3f} s   (schema validation {share:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
