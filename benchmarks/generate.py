"""Generate realistic run trees for the benchmarks, seeded and reproducible.

    python benchmarks/generate.py OUT --size-mb 1024 [--seed 7] [--broken-percent 0] [--huge-trajectory-mb 0]

OUT gets an AgentCompass run (``run/details/<state>/<task>--<sha256>/`` with attempts, ACTF trajectories of 5
to 120 steps, retries, artifacts and checkpoints, a few megabyte strings), an ABB tree (``abb/``) and an ABV3
repository (``repo/``). ``--broken-percent`` plants an error in that share of the attempt results (a wrong type
deep in a trajectory, a missing member, NaN, a duplicate key, in turn). ``--huge-trajectory-mb`` also writes one
trajectory of that size on its own (``huge.actf.json``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

PATCH = b"diff --git a/x b/x\n" + b"+x\n" * 20  # every attempt's collected artifact, written with mode 0644
# Its sha256 as the AgentCompass 1.0.1 collector records it (runtime/artifacts.py, _fingerprint): the compact JSON
# of [name, permission bits, size], then "file:" and the bytes.
PATCH_SHA256 = hashlib.sha256(json.dumps(["patch.diff", 0o644, len(PATCH)], separators=(",", ":")).encode()
                              + b"file:" + PATCH).hexdigest()  # fmt: skip
WORDS = [
    "the",
    "agent",
    "runs",
    "tests",
    "fails",
    "patch",
    "file",
    "function",
    "returns",
    "error",
    "value",
    "list",
    "dict",
    "import",
    "module",
    "class",
    "def",
    "self",
    "assert",
    "expected",
    "observed",
    "output",
    "input",
    "command",
    "shell",
    "python",
    "pytest",
    "repository",
    "commit",
    "issue",
    "fix",
    "bug",
    "line",
    "code",
    "model",
    "tool",
    "call",
    "result",
    "observation",
    "step",
    "reasoning",
    "answer",
    "task",
    "benchmark",
    "metric",
    "reward",
    "score",
    "json",
    "config",
]


class Text:
    """Slices of one large pseudo-text, so that strings of any size cost nothing to make."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.corpus = " ".join(rng.choice(WORDS) for _ in range(400_000))

    def __call__(self, size: int) -> str:
        if size <= 0:
            return ""
        start = self.rng.randrange(0, max(1, len(self.corpus) - size))
        piece = self.corpus[start : start + size]
        while len(piece) < size:
            piece += " " + self.corpus[: size - len(piece)]
        return piece


def stamp(rng: random.Random, second: int) -> str:
    minute, second = divmod(second, 60)
    hour, minute = divmod(minute, 60)
    style = rng.random()
    if style < 0.5:
        return f"2026-08-01 {10 + hour % 12:02d}:{minute:02d}:{second:02d}.{rng.randrange(10**6):06d}+00:00"
    return f"2026-08-01T{10 + hour % 12:02d}:{minute:02d}:{second:02d}Z"


def trajectory(rng: random.Random, text: Text, steps: int, huge: bool) -> dict[str, Any]:
    clock = rng.randrange(3600)
    result_steps = []
    for number in range(1, steps + 1):
        tool_calls = [
            {"id": f"call_{number}_{k}", "type": "function",
             "function": {"name": rng.choice(["bash", "edit", "view"]), "arguments": json.dumps({"cmd": text(60)})}}
            for k in range(rng.randrange(0, 3))
        ]  # fmt: skip
        observation_size = rng.choice([200, 800, 3000, 12000])
        if huge and number == 1:
            observation_size = 1_200_000  # a megabyte string, as real logs have
        started = clock
        clock += rng.randrange(1, 30)
        step = {
            "step_id": number,
            "system_prompt": text(rng.choice([1500, 4000])) if number == 1 else "",
            "user_content": text(rng.choice([300, 2000, 6000])),
            "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}],
            "assistant_content": {
                "content": text(rng.choice([100, 600, 2000])),
                "reasoning_content": text(rng.choice([0, 400, 1500])) or None,
                "tool_calls": tool_calls if rng.random() > 0.05 else {},
            },
            "observation": [text(observation_size)] if rng.random() > 0.1 else [],
            "metric": {
                "prompt_tokens_len": rng.randrange(500, 60000),
                "completion_tokens_len": rng.randrange(10, 3000),
                "llm_infer_ms": round(rng.uniform(100, 20000), 3),
                "env_action_ms": -1 if rng.random() < 0.1 else round(rng.uniform(1, 5000), 3),
                "stop_reason": rng.choice(["tool_calls", "stop", None]),
            },
            "started_at": stamp(rng, started),
            "finished_at": stamp(rng, clock),
        }
        if rng.random() < 0.2:
            step["cache_hit"] = rng.random() < 0.5  # an unknown member, as real writers add
        result_steps.append(step)
    return {"schema_version": "ACTF_v1.0", "steps": result_steps, "started_at": result_steps[0]["started_at"],
            "finished_at": result_steps[-1]["finished_at"]}  # fmt: skip


def task_folder(task_id: str) -> str:
    readable = re.sub(r"[^A-Za-z0-9._=-]+", "_", task_id).strip("._-")[:80] or "task"
    return f"{readable}--{hashlib.sha256(task_id.encode()).hexdigest()}"


def write_json(path: Path, value: Any) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(value, ensure_ascii=False, indent=2) + "\n"
    path.write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))


def attempt_payload(rng: random.Random, text: Text, number: int, directory: str) -> dict[str, Any]:
    issues = []
    if rng.random() < 0.15:
        issues.append({"severity": rng.choice(["warning", "error"]), "phase": "evaluate", "code": "judge_failed",
                       "message": "HTTP 503: judge unavailable"})  # fmt: skip
    return {
        "status": "completed" if not issues else "eval_error",
        "metrics": {"correct": rng.random() < 0.5, "reward": round(rng.random(), 4)},
        "final_answer": text(rng.choice([200, 2000])),
        "trajectory": trajectory(rng, text, rng.randint(5, 120), huge=rng.random() < 0.01),
        "issues": issues,
        "artifacts": {
            "declared_artifacts": {
                "schema_version": 1,
                "directory": directory,
                "complete": True,
                "entries": [
                    {
                        "source": "/workspace/fix.diff",
                        "destination": "patch.diff",
                        "status": "collected",
                        "kind": "file",
                        "sha256": PATCH_SHA256,
                        "size_bytes": len(PATCH),
                        "file_count": 1,
                    }
                ],
            }
        },
        "analysis_result": {"badcase": {"is_badcase": rng.random() < 0.1, "score": round(rng.random(), 3)}},
        "meta": {
            "benchmark": {"tests_passed": rng.randrange(50)},
            "harness": {"telemetry": {"tokens": rng.randrange(10**6)}},
        },
    }


def agentcompass_run(root: Path, rng: random.Random, text: Text, budget: int, broken_percent: float) -> int:
    written = 0
    number = 0
    broken = 0
    while written < budget:
        number += 1
        task_id = f"swe/task-{number:05d}: {text(20).strip()}"
        name = task_folder(task_id)
        attempts = rng.randint(1, 3)
        payloads = {}
        for attempt in range(1, attempts + 1):
            directory = f"details/STATE/{name}/attempt-{attempt}/artifacts"
            payloads[str(attempt)] = attempt_payload(rng, text, attempt, directory)
        severities = {issue["severity"] for payload in payloads.values() for issue in payload["issues"]}
        state = "error" if "error" in severities else "normal"
        task = root / "details" / state / name
        retry_counts: dict[str, int] = {}
        for key, payload in payloads.items():
            payload["artifacts"]["declared_artifacts"]["directory"] = f"details/{state}/{name}/attempt-{key}/artifacts"
            retries = rng.choice([0, 0, 0, 1, 2])
            attempt_dir = task / f"attempt-{key}"
            for retry in range(1, retries + 1):
                record = {"schema_version": "agentcompass.retry.v1", "task_id": task_id, "category": "coding",
                          "attempt": int(key), "retry": retry, "max_retries": 2, "retry_delay_seconds": 1.5,
                          "stage": "evaluate", "scope": "evaluate", "matched_pattern": "fatal",
                          "issues": [{"severity": "fatal", "phase": "evaluate", "code": "judge_failed",
                                      "message": "HTTP 503"}],
                          "discarded_result": {"status": "eval_error", "metrics": {}}}  # fmt: skip
                written += write_json(
                    attempt_dir / "retries" / f"{name}.attempt{key}.retry{retry}.evaluate.json", record
                )
            if retries:
                retry_counts[key] = retries
            result = {**payload, "retry_count": retries}
            text_ = json.dumps(result, ensure_ascii=False, indent=2) + "\n"
            planted = rng.random() * 100  # drawn always, so that a broken tree is the valid one plus its faults
            if planted < broken_percent:
                broken += 1
                text_ = _break(text_, broken)
            (attempt_dir / "artifacts").mkdir(parents=True, exist_ok=True)
            (attempt_dir / "artifacts" / "patch.diff").write_bytes(PATCH)
            (attempt_dir / "artifacts" / "patch.diff").chmod(0o644)  # the mode its recorded sha256 holds
            (attempt_dir / "result.json").write_text(text_, encoding="utf-8")
            written += len(text_.encode())
            checkpoint = {"schema_version": "agentcompass.attempt_checkpoint.v1", "evaluation": {"k": 3}}
            written += write_json(attempt_dir / "checkpoint.json", checkpoint)
        index = {"schema_version": "agentcompass.task.v3", "task_id": task_id,
                 "attempts": {str(k): f"attempt-{k}" for k in range(1, attempts + 1)},
                 "category": "coding", "ground_truth": {"tests": [text(30)]},
                 "attempt_plan": {"k": 3, "strategy": "avg"}}  # fmt: skip
        written += write_json(task / "task.json", index)
    return written


def _break(text: str, which: int) -> str:
    """One planted error, of four sorts in turn."""
    sort = which % 4
    if sort == 0:
        return text.replace('"step_id": 3,', '"step_id": "3",', 1)
    if sort == 1:
        return text.replace('"final_answer":', '"final_answr":', 1)
    if sort == 2:
        return text.replace('"reward": ', '"reward": NaN, "x": ', 1)
    return text.replace('"status":', '"retry_count": 0,\n  "status":', 1)


def abb_tree(root: Path, rng: random.Random, text: Text) -> None:
    for number in range(1, 21):
        case = {"case_id": f"demo-{number}", "issue": {"repository": "octo-org/octo-cli", "number": number,
                "url": f"https://github.com/octo-org/octo-cli/issues/{number}", "state": "closed",
                "title": text(40), "body": text(800)}, "version_choice": "pinned", "commit_version": "9f2c1e7",
                "steps": [text(30), text(30)], "expected": text(80), "defect": text(80)}  # fmt: skip
        issue = root / "resources" / "agents" / "demo" / "ground_truth" / f"issue_{number}"
        write_json(issue / "verify.case.json", case)
        write_json(issue / "runs" / "run-1" / "run.json", {"status": "reproduced", "log": text(200)})
        attempt = root / "results" / "agents" / "demo" / "cases" / f"issue_{number}" / "attempts" / "1"
        write_json(attempt / "case.json", case)
        for name in ("trajectory.json", "run.json", "manifest.json", "process.json"):
            write_json(attempt / name, {"content": text(rng.choice([100, 5000]))})
        for step in ("1", "2"):
            for name in ("input.json", "request.json", "result.json", "submission.json"):
                write_json(attempt / "steps" / step / name, {"v": text(200)})


def abv3_repo(root: Path, rng: random.Random) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "agentbeats.toml").write_text(
        '[abv3_repo]\nname = "bench"\nrole = "judge"\nauthor = "bench"\nversion = "1.0.0"\n\n'
        '[run]\ncommand = "python main.py $RUN_CONFIG_FILE"\n\n[run_configs]\nfolder = "run_configs"\n'
        'default_exp = "default"\n'
    )
    for experiment in ("default", "ablation"):
        write_json(root / "run_configs" / experiment / "config.json", {"model": "m"})
        write_json(root / "results" / experiment / "results.json",
                   {"count": 100, "main_metric": "acc", "acc": round(rng.random(), 3)})  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--size-mb", type=float, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--broken-percent", type=float, default=0.0)
    parser.add_argument("--huge-trajectory-mb", type=float, default=0.0)
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    text = Text(rng)
    out: Path = arguments.out
    written = agentcompass_run(out / "run", rng, text, int(arguments.size_mb * 1024**2), arguments.broken_percent)
    abb_tree(out / "abb", rng, text)
    abv3_repo(out / "repo", rng)
    if arguments.huge_trajectory_mb:
        steps = []
        size = 0
        number = 0
        while size < arguments.huge_trajectory_mb * 1024**2:
            number += 1
            part = trajectory(rng, text, 50, huge=True)["steps"]
            for step in part:
                step["step_id"] = len(steps) + 1
                steps.append(step)
            size += len(json.dumps(part))
        write_json(out / "huge.actf.json", {"schema_version": "ACTF_v1.0", "steps": steps})
    print(f"wrote {written / 1024**2:.0f} MB of AgentCompass run files to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
