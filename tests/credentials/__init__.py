"""Secrets: the scan's findings and what redact writes."""
