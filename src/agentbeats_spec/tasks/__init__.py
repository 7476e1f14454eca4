"""Task detail records on disk: ``read_task`` and ``write_task`` in an AgentCompass v3 run, and
``migrate_run`` from v2.
"""
