"""ACTF_v1.0 trajectory rules, for a trajectory on its own and inside every attempt."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from typing import Any

from ..reading._pointers import join
from ..vocabulary._issues import Finding
from ..vocabulary._text import quote
from . import _actf_steps
from ._common import is_int, once_per_document

# An ACTF date-time as the rules read it (and the ATIF converter with them): a date, T or a space, a time, an
# optional fraction and UTC offset.
TIMESTAMP = re.compile(
    r"^([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:[.,]([0-9]+))?"
    r"(Z|z|[+-][0-9]{2}:?[0-9]{2})?\Z"
)
# The members the per-step rules read, and the only ones their native pre-filter looks at (in this order:
# rules/_actf_native.c): the id, two lists, the object holding a third list and that list, the start and finish.
STEP_ID = "step_id"
LISTS = ("tools", "observation")
LIST_HOLDER, HELD_LIST = "assistant_content", "tool_calls"
SPAN = ("started_at", "finished_at")
STEP_MEMBERS = (STEP_ID, *LISTS, LIST_HOLDER, HELD_LIST, *SPAN)


def parse_timestamp(text: str) -> tuple[datetime.datetime | None, bool]:
    """(the moment, whether it has a UTC offset); None when the text is no real date-time."""
    if len(text) in (19, 20, 25, 26, 27, 32) and text[10] in "T ":
        try:  # the common forms, at C speed (Python 3.11 reads "Z" too)
            moment = datetime.datetime.fromisoformat(text)
        except ValueError:
            pass
        else:
            return moment, moment.tzinfo is not None
    match = TIMESTAMP.match(text)
    if match is None:
        return None, False
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    try:
        moment = datetime.datetime(
            int(year),
            int(month),
            int(day),
            int(hour),
            int(minute),
            int(second),
            int((fraction or "0")[:6].ljust(6, "0")),
        )
    except ValueError:
        return None, offset is not None
    if offset is None:
        return moment, False
    if offset in ("Z", "z"):
        return moment.replace(tzinfo=datetime.timezone.utc), True
    sign = -1 if offset[0] == "-" else 1
    digits = offset[1:].replace(":", "")
    try:
        zone = datetime.timezone(sign * datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
    except ValueError:
        return None, True
    return moment.replace(tzinfo=zone), True


def trajectory(data: Any) -> Iterator[Finding]:
    """The rules of a trajectory document."""
    return once_per_document(trajectory_findings(data, ""))


def trajectory_findings(data: Any, pointer: str) -> Iterator[Finding]:
    """The rules of a trajectory anywhere in a document, each finding where it is."""
    if not isinstance(data, dict):
        return
    yield from _span(data, pointer, (), "the trajectory")
    steps = data.get("steps")
    if not isinstance(steps, list):
        return
    judged = _actf_steps.steps_to_judge(steps, STEP_MEMBERS)
    if judged is None:  # the pure path: every step
        previous: int | None = None
        for index, step in enumerate(steps):
            if isinstance(step, dict):
                yield from _step(step, index, previous, pointer)
                step_id = step.get(STEP_ID)
                if is_int(step_id):
                    previous = step_id
        return
    # The native pre-filter leaves out the steps in which these rules certainly find nothing.
    for index in judged:
        yield from _step(steps[index], index, _previous_id(steps, index), pointer)


def _previous_id(steps: list[Any], index: int) -> int | None:
    """The step_id of the nearest earlier step that has an integer one."""
    for earlier in range(index - 1, -1, -1):
        step = steps[earlier]
        step_id = step.get(STEP_ID) if isinstance(step, dict) else None
        if is_int(step_id):
            return step_id
    return None


def _step(step: dict[str, Any], index: int, previous: int | None, pointer: str) -> Iterator[Finding]:
    # Pointers are spelled out only for findings: most steps have none, and a run has millions of steps.
    step_id = step.get(STEP_ID)
    if is_int(step_id) and previous is not None and step_id <= previous:
        yield Finding(
            join(pointer, "steps", index, STEP_ID),
            "rule.step-order",
            f"step_id {step_id} does not increase (the previous step is {previous}); step ids are strictly increasing",
        )
    for name in LISTS:
        if step.get(name) == {}:
            yield _empty_object(join(pointer, "steps", index, name))
    content = step.get(LIST_HOLDER)
    if isinstance(content, dict) and content.get(HELD_LIST) == {}:
        yield _empty_object(join(pointer, "steps", index, LIST_HOLDER, HELD_LIST))
    yield from _span(step, pointer, ("steps", index), f"step {index}")


def _empty_object(pointer: str) -> Finding:
    return Finding(
        pointer,
        "rule.empty-object-list",
        "{} stands for an empty list here, as AgentCompass writes it by design; [] or null says the same",
        severity="info",
    )


def _span(holder: dict[str, Any], base: str, tokens: tuple[str | int, ...], what: str) -> Iterator[Finding]:
    moments: dict[str, datetime.datetime] = {}
    for name in SPAN:
        value = holder.get(name)
        if not isinstance(value, str) or not value or TIMESTAMP.match(value) is None:
            continue  # null, "" and malformed text are the schema's to judge
        moment, has_offset = parse_timestamp(value)
        if moment is None:
            yield Finding(
                join(base, *tokens, name),
                "rule.timestamp",
                f"{quote(value)} is not a real date and time (month, day, hour or offset out of range)",
            )
            continue
        if not has_offset:
            yield Finding(
                join(base, *tokens, name),
                "rule.timestamp-offset",
                f"{quote(value)} has no UTC offset (AgentCompass writes local times so), so the moment it names "
                "depends on where it was written; Z or +00:00 would fix it",
                severity="info",
            )
        moments[name] = moment
    started, finished = (moments.get(name) for name in SPAN)
    if started is None or finished is None or (started.tzinfo is None) != (finished.tzinfo is None):
        return  # a naive and an aware moment cannot be compared
    if finished < started:
        yield Finding(
            join(base, *tokens, SPAN[1]),
            "rule.finished-before-started",
            f"{what} finishes ({finished.isoformat()}) before it starts ({started.isoformat()})",
            severity="warning",
        )
