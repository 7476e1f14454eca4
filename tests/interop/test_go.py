"""Go, checked once (issue 26 point 4): quicktype's Go output from the bundled schemas compiles, and every valid
fixture is unmarshalled into its kind's top-level type and marshalled back; what comes back is compared with what
went in, member by member. README "Other languages" gives the result and the schema shapes that cost members."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentbeats_spec.checking._kinds import KINDS
from agentbeats_spec.checking._schemas import BASE_URI, check

from ..conftest import ROOT
from .test_ajv import fixtures

QUICKTYPE = ROOT / "js" / "node_modules" / ".bin" / "quicktype"
pytestmark = pytest.mark.skipif(
    shutil.which("go") is None or not QUICKTYPE.exists(),
    reason="the Go toolchain (apt-get install golang) and quicktype (npm ci --prefix js) are needed",
)
MAIN = """package main

import (
\t"encoding/json"
\t"os"
%(imports)s
)

type job struct {
\tPkg  string          `json:"pkg"`
\tData json.RawMessage `json:"data"`
}

func main() {
\tvar jobs []job
\tif err := json.NewDecoder(os.Stdin).Decode(&jobs); err != nil {
\t\tpanic(err)
\t}
\tout := make([]interface{}, len(jobs))
\tfor i, j := range jobs {
\t\tvar back []byte
\t\tvar err error
\t\tswitch j.Pkg {
%(cases)s
\t\t}
\t\tif err != nil {
\t\t\tout[i] = map[string]string{"error": err.Error()}
\t\t} else {
\t\t\tout[i] = json.RawMessage(back)
\t\t}
\t}
\tjson.NewEncoder(os.Stdout).Encode(out)
}
"""
ROUND_TRIP = """package %(pkg)s

import "encoding/json"

func RoundTrip(b []byte) ([]byte, error) {
\tvar v %(top)s
\tif err := json.Unmarshal(b, &v); err != nil {
\t\treturn nil, err
\t}
\treturn json.Marshal(&v)
}
"""


def packages() -> dict[str, tuple[str, str]]:
    """Go package name: (schema $id, top-level type), one per version of every kind."""
    found = {}
    for kind in KINDS.values():
        for version, schema_id in kind.versions.items():
            found[f"k{len(found)}"] = (schema_id, kind.models[version])
    return found


@functools.cache
def build(tmp: Path) -> Path:
    (tmp / "go.mod").write_text("module roundtrip\n\ngo 1.19\n")
    for pkg, (schema_id, top) in packages().items():
        (tmp / pkg).mkdir()
        schema = ROOT / "schemas" / "bundled" / schema_id.removeprefix(BASE_URI)
        subprocess.run(
            [str(QUICKTYPE), "--lang", "go", "--src-lang", "schema", "--package", pkg, "--top-level", top,
             "--out", str(tmp / pkg / "types.go"), str(schema)],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        (tmp / pkg / "roundtrip.go").write_text(ROUND_TRIP % {"pkg": pkg, "top": top})
    imports = "\n".join(f'\t"roundtrip/{pkg}"' for pkg in packages())
    cases = "\n".join(f'\t\tcase "{pkg}":\n\t\t\tback, err = {pkg}.RoundTrip(j.Data)' for pkg in packages())
    (tmp / "main.go").write_text(MAIN % {"imports": imports, "cases": cases})
    subprocess.run(["go", "build", "-o", "roundtrip", "."], cwd=tmp, check=True, capture_output=True, text=True)
    return tmp / "roundtrip"


def valid_fixtures() -> list[tuple[str, Any]]:
    return [(schema_id, data) for schema_id, data in fixtures() if not list(check(schema_id, data))]


def differences(before: Any, after: Any, pointer: str = "") -> list[str]:
    """Where `after` adds or loses a member (or changes a value) of `before`."""
    if isinstance(before, dict) and isinstance(after, dict):
        found = [f"lost {pointer}/{k}" for k in before if k not in after]
        found += [f"added {pointer}/{k}" for k in after if k not in before]
        for key in before.keys() & after.keys():
            found += differences(before[key], after[key], f"{pointer}/{key}")
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            d for i, (b, a) in enumerate(zip(before, after, strict=True)) for d in differences(b, a, f"{pointer}/{i}")
        ]
    return [] if before == after else [f"changed {pointer}"]  # JSON equality: 1 and 1.0 are one number


def test_quicktype_go_compiles_and_round_trips_the_valid_fixtures(tmp_path: Path) -> None:
    binary = build(tmp_path)
    by_id = {schema_id: pkg for pkg, (schema_id, _) in packages().items()}
    cases = valid_fixtures()
    jobs = [{"pkg": by_id[schema_id], "data": data} for schema_id, data in cases]
    ran = subprocess.run([str(binary)], input=json.dumps(jobs), capture_output=True, text=True, check=True)
    results = json.loads(ran.stdout)
    found = {}
    for (schema_id, data), back in zip(cases, results, strict=True):
        name = schema_id.removeprefix(BASE_URI)
        if isinstance(back, dict) and set(back) == {"error"} and "error" not in data:
            found.setdefault(name, set()).add("unmarshal: " + back["error"])
            continue
        found.setdefault(name, set()).update(differences(data, back))
    assert len(cases) > 20
    # Every schema with a valid fixture was round-tripped (the others, compiled only: no valid fixture has them).
    assert len(found) == 10
    assert {k: sorted(v) for k, v in found.items() if v} == EXPECTED


# What Go's encoding/json makes of quicktype's types, by the schema shape that causes it (README "Other languages"):
# - a member the schema forbids (`"not": {}`: ground_truth and error in an attempt) becomes `interface{}` without
#   omitempty, and marshalling adds it as null;
# - an optional member that may be null (category, reused_from, error of run_info, service of an artifact): Go's one
#   nil cannot tell absent from null, and quicktype writes null;
# - an optional member whose value is {} or [] (extra, exclude; and the attempt's members that only the complete
#   branch of its if/else requires, which quicktype does not read) is dropped by omitempty;
# - an object open to members beside its properties (results.json's metrics) keeps only its properties.
EXPECTED: dict[str, list[str]] = {
    "abv3/results.v1.json": ["lost /all_passed", "lost /mean_latency_s", "lost /pass_at_1", "lost /success_rate"],
    "agentcompass/attempt.v3.json": [
        "added /artifacts/declared_artifacts/entries/0/service",
        "added /artifacts/declared_artifacts/entries/1/service",
        "added /error",
        "added /ground_truth",
        "lost /analysis_result",
        "lost /analysis_result/badcase/extra",
        "lost /artifacts/declared_artifacts/entries/0/exclude",
        "lost /artifacts/declared_artifacts/entries/1/exclude",
        "lost /issues",
        "lost /metrics",
        "lost /trajectory",
    ],
    "agentcompass/run-info.v3.json": ["added /error", "added /reused_from"],
    "agentcompass/task-detail.v3.json": [
        "added /attempts/1/error",
        "added /attempts/1/ground_truth",
        "added /attempts/2/error",
        "added /attempts/2/ground_truth",
        "added /attempts/3/error",
        "added /attempts/3/ground_truth",
        "lost /attempts/1/analysis_result/badcase/extra",
    ],
    "agentcompass/task.v3.json": ["added /category", "added /ground_truth"],
}
