"""RFC 6901 JSON Pointers, as tuples of reference tokens inside the package."""

from __future__ import annotations

from collections.abc import Iterable

TokenPath = tuple[str, ...]  # a JSON Pointer as its reference tokens (not a file path)


def escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def to_pointer(path: Iterable[str | int]) -> str:
    return "".join("/" + escape(str(token)) for token in path)


def to_path(pointer: str) -> TokenPath:
    if not pointer:
        return ()
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON Pointer: {pointer!r}")
    return tuple(token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/"))


def join(pointer: str, *tokens: str | int) -> str:
    return pointer + to_pointer(tokens)
