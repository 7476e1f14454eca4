"""Runs as data: a run read back task by task (``_reader``), and its tasks, attempts, steps and issues as tables
(``_tables``, on the optional pyarrow)."""
