"""Scores recomputed: a run's metrics.json made again from its tasks with AgentCompass 1.0.1's semantics
(``_recompute``: the task reductions; ``_report``: the run-level report; ``_compare``: what differs from a file;
``_tasks``: what the walk keeps of each task, and a run recomputed from it)."""
