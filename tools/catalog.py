"""Write schemas/catalog.json (SchemaStore catalog format) from the package's table of kinds.

python tools/catalog.py           # write it
python tools/catalog.py --check   # exit 1, showing the difference, when the committed file is stale
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path
from typing import Any

from agentbeats_spec import kinds, schema

CATALOG = Path(__file__).resolve().parents[1] / "schemas" / "catalog.json"


def catalog() -> dict[str, Any]:
    entries = []
    for kind in kinds():
        entry: dict[str, Any] = {
            "name": kind.title,
            "description": schema(kind.name).get("description", kind.title),
        }
        if kind.file_match:
            entry["fileMatch"] = list(kind.file_match)
        entry["url"] = kind.latest
        entry["versions"] = dict(kind.versions)
        entries.append(entry)
    return {"$schema": "https://json.schemastore.org/schema-catalog.json", "version": 1, "schemas": entries}


def render() -> str:
    return json.dumps(catalog(), indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    arguments = parser.parse_args()
    wanted = render()
    if not arguments.check:
        CATALOG.write_text(wanted, encoding="utf-8")
        return 0
    current = CATALOG.read_text(encoding="utf-8") if CATALOG.exists() else ""
    if current == wanted:
        return 0
    sys.stdout.writelines(
        difflib.unified_diff(current.splitlines(True), wanted.splitlines(True), str(CATALOG), "generated")
    )
    print("schemas/catalog.json is stale: run python tools/catalog.py", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
