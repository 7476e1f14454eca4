from typing import Any

FLAG_SYNTAX: int
FLAG_EMPTY: int
FLAG_TRAILING: int
FLAG_DEPTH: int
FLAG_DUPLICATE: int
FLAG_LARGE_INTEGER: int
FLAG_NON_FINITE: int
FLAG_CONTROL: int
FLAG_UTF8: int
FLAG_BOM: int
FLAG_SURROGATE: int

def read(
    raw: bytes, max_depth: int, offsets: bool = True, /
) -> tuple[Any, int, bytes | None, int | set[str | None]]: ...
def line_columns(raw: bytes, offsets: list[int], /) -> list[tuple[int, int]]: ...
def find_each(
    raw: bytes, table: bytes, start: int, wanted: list[str] | list[int], /
) -> list[tuple[int, int] | None]: ...

ENTRY_FILE: int
ENTRY_FOLDER: int
ENTRY_LINK: int
ENTRY_OTHER: int

def read_folder(fd: int, plan: tuple[Any, ...], max_size: int, max_depth: int, /) -> list[Any] | None: ...
def survey(path: str, /) -> tuple[bytes, int, int] | None: ...
