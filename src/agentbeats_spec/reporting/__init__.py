"""How a report is shown: the output formats, and the progress of a long check."""
