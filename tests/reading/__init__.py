"""Bytes to documents: the exact and native JSON readers, TOML, files and their limits."""
