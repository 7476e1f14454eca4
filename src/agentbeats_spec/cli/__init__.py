"""The ``agentbeats-spec`` command: argument parsing and output only; no validation logic.

One module per subcommand (its parser and its handler), collected in ``_commands.COMMANDS``; the options that
several share in ``_options``; the report pipeline of the checking commands in ``_reports``; ``main``, with the
exit codes, signals and broken pipes, in ``_main``.
"""

from ._main import main

__all__ = ["main"]
