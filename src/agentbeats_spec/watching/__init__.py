"""Watching a run while it is written: each file checked as it is published, with the checks of ``validate``."""
