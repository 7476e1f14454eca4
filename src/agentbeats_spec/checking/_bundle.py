"""One self-contained schema document per artifact: every $ref resolved into the document's own $defs.

For tools that cannot load several files. Each schema a root reaches in another file is copied into the
root's ``$defs`` under a name made from its file and place (``common.defs.v1--issue``), and every $ref is
rewritten to point there; references inside a copied schema are rewritten relative to the file it came from.
A bundle is the same schema in another packaging, so it keeps the ``$id`` of the schema it bundles: one
identity per schema (a registry holds either the split files or the bundled one, never both).
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any
from urllib.parse import urldefrag, urljoin

from ._schemas import BASE_URI, documents


def bundle(schema_id: str) -> dict[str, Any]:
    files = documents()
    root = copy.deepcopy(files[schema_id])
    defs: dict[str, Any] = root.setdefault("$defs", {})
    names: dict[tuple[str, str], str] = {}
    pending: list[tuple[str, str]] = []

    def target_name(source: str, ref: str) -> str:
        """The local name for what ``ref`` (read in file ``source``) points at; queue it when new."""
        file, fragment = urldefrag(urljoin(source, ref))
        if file == schema_id and fragment.startswith("/$defs/") and fragment.count("/") == 2:
            return fragment.removeprefix("/$defs/")  # already one of the root's own definitions
        key = (file, fragment)
        if key not in names:
            stem = file.removeprefix(BASE_URI).removesuffix(".json").replace("/", ".")
            names[key] = stem + (("--" + fragment.rsplit("/", 1)[-1]) if fragment else "")
            pending.append(key)
        return names[key]

    def rewrite(node: Any, source: str) -> Any:
        if isinstance(node, dict):
            result = {}
            for key, value in node.items():
                if key == "$ref" and isinstance(value, str):
                    result[key] = "#/$defs/" + target_name(source, value)
                elif key in ("$id", "$schema"):
                    continue  # a copied schema is no longer a resource of its own
                else:
                    result[key] = rewrite(value, source)
            return result
        if isinstance(node, list):
            return [rewrite(item, source) for item in node]
        return node

    rewritten = rewrite({key: value for key, value in root.items() if key != "$defs"}, schema_id)
    own_defs = {name: rewrite(value, schema_id) for name, value in defs.items()}
    while pending:
        file, fragment = pending.pop(0)
        node: Any = files[file]
        for token in [part for part in fragment.split("/") if part]:
            node = node[token.replace("~1", "/").replace("~0", "~")]
        own_defs[names[(file, fragment)]] = rewrite(
            {key: value for key, value in node.items() if key not in ("$id", "$schema")}, file
        )
    return {"$schema": root["$schema"], "$id": schema_id, **rewritten, "$defs": own_defs}


# Characters that would be invisible in a schema file (white space other than the space, line and paragraph
# separators, format characters): written as \u escapes, so that a reader of the file sees them.
_INVISIBLE = re.compile("[\\u0085\\u00a0\\u1680\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u206f\\u3000\\ufeff]")


def schema_text(value: Any) -> str:
    """The canonical text of a schema file: indent 2, non-ASCII kept except invisible characters, a final newline."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _INVISIBLE.sub(lambda match: f"\\u{ord(match.group()):04x}", text) + "\n"
