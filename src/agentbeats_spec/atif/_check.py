"""What the converter needs of an ATIF document (v1.x), each problem with its pointer: ``atif.invalid``.

The rules are ATIF's own as the ``atif`` models enforce them (sequential step ids from 1, agent-only members on
agent steps, tool results that name a tool call of their step), checked without pydantic at run time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from ..vocabulary._issues import Anchor, Finding
from ..vocabulary._text import quote


def check(document: Any) -> Iterator[Finding]:
    """What keeps a document from being ATIF (v1.x) as the converter reads it, each with its pointer."""
    if not isinstance(document, dict):
        yield _bad("", "an ATIF trajectory is a JSON object")
        return
    version = document.get("schema_version")
    if not isinstance(version, str) or not version.startswith("ATIF-v"):
        yield _bad(
            "/schema_version",
            f"schema_version must be ATIF-v1.<n>, found {_shown(version)}"
            + (" (an ACTF trajectory: convert it with --to atif)" if str(version).startswith("ACTF_") else ""),
            "schema_version" not in document,
        )
    agent = document.get("agent")
    if not isinstance(agent, dict):
        yield _bad("/agent", "agent must be an object with name and version", "agent" not in document)
    else:
        for member in ("name", "version"):
            if not isinstance(agent.get(member), str):
                yield _bad(f"/agent/{member}", f"agent.{member} must be text", member not in agent)
        yield from _optional(agent, "/agent", "model_name", str, "text")
        tools = agent.get("tool_definitions")
        if tools is not None and not (isinstance(tools, list) and all(isinstance(tool, dict) for tool in tools)):
            yield _bad("/agent/tool_definitions", "tool_definitions must be a list of objects")
    steps = document.get("steps")
    if not isinstance(steps, list):
        yield _bad("/steps", "steps must be a list", "steps" not in document)
        return
    for index, step in enumerate(steps):
        yield from _check_step(step, index)


def _check_step(step: Any, index: int) -> Iterator[Finding]:
    base = f"/steps/{index}"
    if not isinstance(step, dict):
        yield _bad(base, "a step must be an object")
        return
    if type(step.get("step_id")) is not int or step["step_id"] != index + 1:
        yield _bad(f"{base}/step_id", f"step ids are 1, 2, 3, ... in order: this one must be {index + 1}, "
                   f"found {_shown(step.get('step_id'))}", "step_id" not in step)  # fmt: skip
    source = step.get("source")
    if source not in ("system", "user", "agent"):
        yield _bad(f"{base}/source", f"source must be system, user or agent, found {_shown(source)}",
                   "source" not in step)  # fmt: skip
    message = step.get("message")
    if not isinstance(message, (str, list)):
        yield _bad(f"{base}/message", "message must be text or a list of content parts", "message" not in step)
    yield from _optional(step, base, "timestamp", str, "text (ISO 8601)")
    yield from _optional(step, base, "reasoning_content", str, "text")
    yield from _optional(step, base, "model_name", str, "text")
    if source != "agent":
        for member in ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"):
            if step.get(member) is not None:
                yield _bad(f"{base}/{member}", f"{member} is only for agent steps (this one is a {source} step)")
    calls = step.get("tool_calls")
    call_ids: set[str] = set()
    if calls is not None:
        if not isinstance(calls, list):
            yield _bad(f"{base}/tool_calls", "tool_calls must be a list")
        else:
            for position, call in enumerate(calls):
                where = f"{base}/tool_calls/{position}"
                if not isinstance(call, dict):
                    yield _bad(where, "a tool call must be an object")
                    continue
                for member, kind, what in (("tool_call_id", str, "text"), ("function_name", str, "text"),
                                           ("arguments", dict, "an object")):  # fmt: skip
                    if not isinstance(call.get(member), kind):
                        yield _bad(f"{where}/{member}", f"{member} must be {what}", member not in call)
                if isinstance(call.get("tool_call_id"), str):
                    call_ids.add(call["tool_call_id"])
    observation = step.get("observation")
    if observation is not None:
        results = observation.get("results") if isinstance(observation, dict) else None
        if not isinstance(results, list):
            yield _bad(f"{base}/observation", "observation must be an object with a list of results")
        else:
            for position, result in enumerate(results):
                where = f"{base}/observation/results/{position}"
                if not isinstance(result, dict):
                    yield _bad(where, "a result must be an object")
                    continue
                call = result.get("source_call_id")
                if call is not None and (not isinstance(call, str) or (calls is not None and call not in call_ids)):
                    yield _bad(f"{where}/source_call_id", "source_call_id must name a tool call of this step")
    metrics = step.get("metrics")
    if metrics is not None:
        if not isinstance(metrics, dict):
            yield _bad(f"{base}/metrics", "metrics must be an object")
        else:
            for member in ("prompt_tokens", "completion_tokens", "cached_tokens"):
                value = metrics.get(member)
                if value is not None and type(value) is not int:
                    yield _bad(f"{base}/metrics/{member}", f"{member} must be an integer, found {_shown(value)}")


def _optional(holder: Mapping[str, Any], base: str, member: str, kind: type, what: str) -> Iterator[Finding]:
    value = holder.get(member)
    if value is not None and not isinstance(value, kind):
        yield _bad(f"{base}/{member}", f"{member} must be {what}, found {_shown(value)}")


def _bad(pointer: str, message: str, missing: bool = False) -> Finding:
    return Finding(pointer, "atif.invalid", message, anchor=Anchor.PARENT if missing else Anchor.VALUE)


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return quote(value)
    if value is None:
        return "null"
    return type(value).__name__ if isinstance(value, (dict, list)) else json.dumps(value)
