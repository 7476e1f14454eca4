"""Secrets: one vocabulary of credential names and shapes, the scan that reports them, and ``redact``,
which masks them in place.
"""
