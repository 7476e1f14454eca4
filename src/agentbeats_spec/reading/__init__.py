"""Bytes to a parsed document that keeps its positions: the exact JSON reader, the optional native one, TOML,
JSON Pointers and bounded file reads. The bottom layer: it imports nothing else of the package but issues and
settings.
"""
