"""ACTF_v1.0 <-> ATIF (Harbor's Agent Trajectory Interchange Format, v1.8), exact about what it cannot carry.

Each ACTF step is one model call; it becomes the ATIF steps that say the same thing: a ``system`` step when the
system prompt in force changes, a ``user`` step for the user content, and one ``agent`` step with the message,
reasoning, tool calls, observations (as tool results) and token counts. Agent steps and ACTF steps correspond one
to one, so the way back groups each agent step with the system and user steps before it.

Exactness by construction: after an ACTF object (the trajectory, a step, a tool call, an observation) is mapped,
the way back is run on what was written and compared with the source, member by member and type by type. What
differs is kept in the ATIF object's ``extra.actf`` (values, mirroring the ACTF members) and
``extra.agentbeats_spec`` (``absent``: members the way back would add; ``form``/``json_text``/``arguments``:
how a value was spelled). Each difference is a *lost* entry of the report (ATIF has no counterpart for it), and
every value the converter had to fill in is listed in ``extra.agentbeats_spec.invented`` of the object holding it
and is an *invented* entry. ACTF -> ATIF -> ACTF therefore gives back the source exactly; the report says what an
ATIF reader does not see. Member order is not kept (JSON objects are unordered); values and types are.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

import attrs

from ..reading._documents import NotJSON, load_json
from ..reading._pointers import escape
from ..rules.actf import TIMESTAMP, parse_timestamp
from ..vocabulary._version import __version__

ATIF_VERSION = "ATIF-v1.8"
ACTF_VERSION = "ACTF_v1.0"
CARRY = "actf"  # extra member holding the ACTF values ATIF has no counterpart for
NOTES = "agentbeats_spec"  # extra member holding the converter's annotations
CONVERTER = f"agentbeats-spec {__version__}"
FILLER = "unknown"  # what a required ATIF name or version gets when the source has none

# ACTF objects whose members are compared one by one (anything else is compared whole).
_STEP_OBJECTS = frozenset({(), ("assistant_content",), ("metric",)})
_TOOL_CALL_OBJECTS = frozenset({(), ("function",)})
_ROOT_OBJECTS = frozenset({()})
# The ACTF step metrics ATIF has a counterpart for (a count of tokens each), ACTF name -> ATIF name.
_METRICS = {"prompt_tokens_len": "prompt_tokens", "completion_tokens_len": "completion_tokens"}


@attrs.frozen
class Loss:
    """One entry of a loss report: where (a JSON Pointer, in ``file`` when known) and why."""

    pointer: str
    reason: str
    file: str | None = None

    def as_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"pointer": self.pointer, "reason": self.reason}
        if self.file is not None:
            entry["file"] = self.file
        return entry


@attrs.frozen
class Conversion:
    """A converted document and its loss report.

    ``lost`` points into the source: members the target format has no counterpart for. ``invented`` points
    into ``document``: members filled with a value that was not in the source. Both are recorded inside the
    document itself, so an invented value can always be told from a real one.
    """

    document: dict[str, Any]
    lost: tuple[Loss, ...]
    invented: tuple[Loss, ...]

    @property
    def exact(self) -> bool:
        return not self.lost and not self.invented

    def report(self) -> dict[str, Any]:
        return {
            "lost": [loss.as_dict() for loss in self.lost],
            "invented": [loss.as_dict() for loss in self.invented],
        }


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


ABSENT: Any = _Absent()


def same(left: Any, right: Any) -> bool:
    """JSON equality that tells 1 from 1.0 and True from 1 (Python's == does not)."""
    if left is right:
        return True
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(same(value, right[key]) for key, value in left.items())
    if isinstance(left, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, float):
        return left == right and math.copysign(1.0, left) == math.copysign(1.0, right)
    return bool(left == right)


# ---------------------------------------------------------------------------------------------- differences


def _diff(
    source: Mapping[str, Any], restored: Mapping[str, Any], objects: frozenset[tuple[str, ...]]
) -> tuple[dict[str, Any], list[tuple[str, ...]]]:
    """What turns ``restored`` back into ``source``: members to set, and paths of members to remove."""
    carried: dict[str, Any] = {}
    absent: list[tuple[str, ...]] = []

    def walk(src: Mapping[str, Any], got: Mapping[str, Any], path: tuple[str, ...], into: dict[str, Any]) -> None:
        for key, value in src.items():
            if key not in got:
                into[key] = value
                continue
            other = got[key]
            child = (*path, key)
            if child in objects and isinstance(value, dict) and isinstance(other, dict):
                nested: dict[str, Any] = {}
                walk(value, other, child, nested)
                if nested:
                    into[key] = nested
            elif not same(value, other):
                into[key] = value
        absent.extend((*path, key) for key in got if key not in src)

    walk(source, restored, (), carried)
    return carried, absent


def _apply(restored: dict[str, Any], carried: Any, absent: Any, objects: frozenset[tuple[str, ...]]) -> dict[str, Any]:
    """The inverse of :func:`_diff`, on a fresh restored object (changed in place and returned)."""

    def merge(target: dict[str, Any], values: Mapping[str, Any], path: tuple[str, ...]) -> None:
        for key, value in values.items():
            child = (*path, key)
            current = target.get(key)
            if child in objects and isinstance(value, dict) and isinstance(current, dict):
                current = dict(current)
                merge(current, value, child)
                target[key] = current
            else:
                target[key] = value

    if isinstance(carried, dict):
        merge(restored, carried, ())
    if isinstance(absent, list):
        for entry in absent:
            if not isinstance(entry, str):
                continue
            *parents, last = entry.split("/")
            holder: Any = restored
            for token in parents:
                holder = holder.get(token) if isinstance(holder, dict) else None
            if isinstance(holder, dict):
                holder.pop(last, None)
    return restored


def _leaves(
    carried: Mapping[str, Any], objects: frozenset[tuple[str, ...]], path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], Any]]:
    for key, value in carried.items():
        child = (*path, key)
        if child in objects and isinstance(value, dict) and value:
            yield from _leaves(value, objects, child)
        else:
            yield child, value


def _annotate(target: dict[str, Any], carried: dict[str, Any], absent: list[tuple[str, ...]]) -> None:
    if carried:
        target.setdefault("extra", {})[CARRY] = carried
    if absent:
        _notes(target)["absent"] = ["/".join(path) for path in absent]


def _extra_last(target: dict[str, Any]) -> None:
    """ATIF readers expect extra after the members it adds to (a matter of reading, not of meaning)."""
    if "extra" in target:
        target["extra"] = target.pop("extra")


def _notes(target: dict[str, Any]) -> dict[str, Any]:
    notes: dict[str, Any] = target.setdefault("extra", {}).setdefault(NOTES, {})
    return notes


def _invent(target: dict[str, Any], member: str, value: Any) -> None:
    target[member] = value
    _notes(target).setdefault("invented", []).append(member)


def _own_notes(atif_object: Mapping[str, Any]) -> Mapping[str, Any]:
    extra = atif_object.get("extra")
    notes = extra.get(NOTES) if isinstance(extra, dict) else None
    return notes if isinstance(notes, dict) else {}


def _own_carried(atif_object: Mapping[str, Any]) -> Any:
    extra = atif_object.get("extra")
    return extra.get(CARRY) if isinstance(extra, dict) else None


# ---------------------------------------------------------------------------------------------- values


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _timestamp(value: Any) -> str | None:
    """An ACTF timestamp that ATIF accepts as it is (ISO 8601 as Python reads it), else None."""
    if not isinstance(value, str) or not value or value.endswith("z") or TIMESTAMP.match(value) is None:
        return None
    moment, _ = parse_timestamp(value)
    return value if moment is not None else None


_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_AUDIO_TYPES = frozenset(
    {"audio/wav", "audio/mpeg", "audio/mp4", "audio/aac", "audio/ogg", "audio/flac", "audio/webm", "audio/aiff"}
)


def _content_parts(value: Any) -> bool:
    """A list that is already an ATIF ContentPart array (text parts, image or audio references)."""
    if not isinstance(value, list) or not value:
        return False
    for part in value:
        if not isinstance(part, dict):
            return False
        kind = part.get("type")
        if kind == "text":
            if set(part) != {"type", "text"} or not isinstance(part["text"], str):
                return False
        elif kind in ("image", "audio"):
            source = part.get("source")
            if set(part) != {"type", "source"} or not isinstance(source, dict):
                return False
            allowed = {"media_type", "path"} | ({"duration_sec"} if kind == "audio" else set())
            types = _IMAGE_TYPES if kind == "image" else _AUDIO_TYPES
            if not {"media_type", "path"} <= set(source) <= allowed:
                return False
            if source["media_type"] not in types or not isinstance(source["path"], str):
                return False
            if "duration_sec" in source:
                duration = source["duration_sec"]
                if type(duration) not in (int, float) or duration < 0:
                    return False
        else:
            return False
    return True


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _message(value: Any, holder: dict[str, Any], member: str = "message") -> None:
    """An ACTF text-or-structured value as an ATIF message: text, content parts, or the JSON text of it."""
    if isinstance(value, str) or _content_parts(value):
        holder[member] = value
    else:
        holder[member] = _json_text(value)
        _notes(holder).setdefault("json_text", []).append(member)


def _unmessage(holder: Mapping[str, Any], member: str = "message") -> Any:
    value = holder.get(member)
    if member in _own_notes(holder).get("json_text", ()) and isinstance(value, str):
        try:
            return load_json(value)
        except NotJSON:
            return value
    return value


# ---------------------------------------------------------------------------------------------- ACTF -> ATIF


@attrs.define
class _Context:
    """What the agent and the run say, when the trajectory comes from an attempt or a task folder."""

    agent_name: str | None = None
    agent_version: str | None = None
    model_name: str | None = None
    session_id: str | None = None
    run: dict[str, Any] | None = None  # task id, attempt, status, metrics: ATIF's run metadata (root extra)


def to_atif(
    trajectory: Mapping[str, Any],
    context: _Context | None = None,
    *,
    prefix: str = "",
    source_file: str | None = None,
    output_file: str | None = None,
    lost_before: tuple[Loss, ...] = (),
) -> Conversion:
    """An ACTF_v1.0 trajectory (already validated) as an ATIF document.

    ``prefix`` is the trajectory's pointer in its file (``/trajectory`` in an attempt result); ``lost_before``
    are the losses of the file around it (an attempt's members that are not its trajectory).
    """
    context = context or _Context()
    steps_in = trajectory.get("steps")
    steps_in = steps_in if isinstance(steps_in, list) else []
    agent: dict[str, Any] = {}
    for member, value in (("name", context.agent_name), ("version", context.agent_version)):
        if value is None:
            _invent(agent, member, FILLER)
        else:
            agent[member] = value
    if context.model_name is not None:
        agent["model_name"] = context.model_name
    first_tools = steps_in[0].get("tools") if steps_in and isinstance(steps_in[0], dict) else None
    if isinstance(first_tools, list) and first_tools and all(isinstance(tool, dict) for tool in first_tools):
        agent["tool_definitions"] = first_tools

    steps: list[dict[str, Any]] = []
    system: Any = ABSENT  # the ACTF system prompt in force: the one the last system step said
    for index, step in enumerate(steps_in):
        group, system = _step_to_atif(step, index, len(steps) + 1, system, agent)
        steps.extend(group)

    document: dict[str, Any] = {"schema_version": ATIF_VERSION}
    if context.session_id is not None:
        document["session_id"] = context.session_id
    document["agent"] = agent
    document["steps"] = steps
    # Each step was compared on its own: the root compares its other members (the steps are the same object).
    carried, absent = _diff(
        trajectory, {"schema_version": ACTF_VERSION, "steps": trajectory.get("steps")}, _ROOT_OBJECTS
    )
    _annotate(document, carried, absent)
    if context.run is not None:
        document.setdefault("extra", {})["agentcompass"] = context.run
    from_context = [
        name
        for name, value in (
            ("session_id", context.session_id),
            ("agent/name", context.agent_name),
            ("agent/version", context.agent_version),
            ("agent/model_name", context.model_name),
        )
        if value is not None
    ]

    _extra_last(agent)
    lost = (*lost_before, *_lost_entries(document, prefix, source_file))
    invented = tuple(_invented_entries(document, output_file))
    notes = _notes(document)
    notes.update({"converter": CONVERTER, "from": ACTF_VERSION, "lost": len(lost), "invented": len(invented)})
    if from_context:
        notes["context"] = from_context
    document["notes"] = (
        f"Converted from {ACTF_VERSION} by {CONVERTER}. {len(lost)} ACTF member(s) have no ATIF counterpart: "
        f"their values are kept in extra.{CARRY} of the object they belong to. {len(invented)} value(s) were "
        f"filled in because ATIF requires them: each object lists them in extra.{NOTES}.invented."
    )
    return Conversion(document, lost, invented)


def _step_to_atif(
    step: Any, index: int, next_id: int, system: Any, agent: dict[str, Any]
) -> tuple[list[dict[str, Any]], Any]:
    if not isinstance(step, dict):  # validated input has only objects
        step = {}
    before = system
    group: list[dict[str, Any]] = []
    started = _timestamp(step.get("started_at"))
    prompt = step.get("system_prompt", ABSENT)
    if prompt is not ABSENT and prompt is not None and prompt != "" and not same(prompt, system):
        group.append(_opening("system", next_id + len(group), prompt, started if not group else None))
        system = prompt
    user = step.get("user_content", ABSENT)
    if user is not ABSENT and user is not None and user != "":
        group.append(_opening("user", next_id + len(group), user, started if not group else None))

    out: dict[str, Any] = {"step_id": next_id + len(group)}
    finished = _timestamp(step.get("finished_at"))
    if finished is not None:
        out["timestamp"] = finished
    out["source"] = "agent"
    content = step.get("assistant_content")
    content = content if isinstance(content, dict) else {}
    message = content.get("content")
    if isinstance(message, str):
        out["message"] = message
    else:
        _invent(out, "message", "")
    if isinstance(content.get("reasoning_content"), str):
        out["reasoning_content"] = content["reasoning_content"]
    calls = _tool_calls(content.get("tool_calls"), out["step_id"])
    if calls is not None:
        out["tool_calls"] = calls
    results = _results(step.get("observation"), calls or [])
    if results is not None:
        out["observation"] = {"results": results}
    metric = step.get("metric")
    if isinstance(metric, dict):
        metrics: dict[str, Any] = {}
        for source, target in _METRICS.items():
            if _is_count(metric.get(source)):
                metrics[target] = metric[source]
        out["metrics"] = metrics
    group.append(out)

    restored, _ = _restore_step(group, index, before, agent)
    carried, absent = _diff(step, restored, _STEP_OBJECTS)
    _annotate(out, carried, absent)
    _extra_last(out)
    return group, system


def _opening(source: str, step_id: int, value: Any, timestamp: str | None) -> dict[str, Any]:
    step: dict[str, Any] = {"step_id": step_id}
    if timestamp is not None:
        step["timestamp"] = timestamp
    step["source"] = source
    _message(value, step)
    return step


def _tool_calls(value: Any, step_id: int) -> list[dict[str, Any]] | None:
    """ACTF tool calls as ATIF ones; None (kept whole in extra) unless every one names its function."""
    if not isinstance(value, list):
        return None
    names = [_function_name(call) for call in value]
    if any(name is None for name in names):
        return None
    calls = []
    for position, (call, name) in enumerate(zip(value, names, strict=True)):
        out: dict[str, Any] = {}
        identifier = call.get("id")
        if isinstance(identifier, str):
            out["tool_call_id"] = identifier
        else:
            _invent(out, "tool_call_id", f"call-{step_id}-{position + 1}")
        out["function_name"] = name
        function = call.get("function") if isinstance(call.get("function"), dict) else call
        if function is call:  # {id, name, arguments}: no OpenAI "function" wrapper
            _notes(out)["form"] = "flat"
        arguments = function.get("arguments", ABSENT)
        if isinstance(arguments, dict):
            out["arguments"] = arguments
        else:
            parsed = _parsed_arguments(arguments)
            if parsed is None:
                _invent(out, "arguments", {})
            else:
                out["arguments"], form = parsed
                if form is not None:
                    _notes(out)["arguments"] = form
        restored = _restore_tool_call(out)
        carried, absent = _diff(call, restored, _TOOL_CALL_OBJECTS)
        _annotate(out, carried, absent)
        _extra_last(out)
        calls.append(out)
    return calls


def _function_name(call: Any) -> str | None:
    if not isinstance(call, dict):
        return None
    function = call.get("function")
    if isinstance(function, dict):
        name = function.get("name")
        return name if isinstance(name, str) else None
    if "function" in call:
        return None
    name = call.get("name")
    return name if isinstance(name, str) else None


# How JSON text of tool arguments is commonly spelled; a spelling reproduced exactly needs no copy of the text.
_ARGUMENT_FORMS: dict[str, dict[str, Any]] = {
    "json": {"ensure_ascii": False},
    "json_compact": {"ensure_ascii": False, "separators": (",", ":")},
    "json_ascii": {"ensure_ascii": True},
    "json_ascii_compact": {"ensure_ascii": True, "separators": (",", ":")},
}


def _parsed_arguments(value: Any) -> tuple[dict[str, Any], str | None] | None:
    """Arguments given as the JSON text of an object: the object, and the name of the spelling if standard."""
    if not isinstance(value, str):
        return None
    try:
        parsed = load_json(value)
    except NotJSON:  # not JSON, or JSON the reader refuses (too deep, duplicate members): kept as the text it is
        return None
    if not isinstance(parsed, dict):
        return None
    for form, options in _ARGUMENT_FORMS.items():
        if json.dumps(parsed, allow_nan=False, **options) == value:
            return parsed, form
    return parsed, None


def _results(value: Any, calls: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    if not isinstance(value, list):
        return None
    call_ids = {call["tool_call_id"] for call in calls}
    results = []
    for element in value:
        out: dict[str, Any] = {}
        if isinstance(element, str):
            out["content"] = element
            _notes(out)["form"] = "text"
        elif not isinstance(element, dict):
            out["content"] = _json_text(element)
            _notes(out)["form"] = "json"
        else:
            source_call = element.get("source_call_id")
            if isinstance(source_call, str) and source_call in call_ids:
                out["source_call_id"] = source_call
            content = element.get("content")
            if isinstance(content, str) or _content_parts(content):
                out["content"] = content
            carried, absent = _diff(element, _restore_observation_element(out), _ROOT_OBJECTS)
            _annotate(out, carried, absent)
        results.append(out)
    return results


# ---------------------------------------------------------------------------------------------- ATIF -> ACTF


def _restore_root(document: Mapping[str, Any], lost: list[Loss] | None = None) -> dict[str, Any]:
    """The ACTF trajectory an ATIF document says (before applying the root's own carried members).

    ATIF members with no ACTF counterpart are kept in an ``atif`` member of the step they belong to, each
    reported in ``lost`` (when given) with its pointer into the ATIF document.
    """
    steps = document.get("steps")
    steps = steps if isinstance(steps, list) else []
    agent: Mapping[str, Any] = document["agent"] if isinstance(document.get("agent"), dict) else {}
    restored_steps: list[dict[str, Any]] = []
    system: Any = ABSENT
    group: list[tuple[int, dict[str, Any]]] = []
    for position, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        group.append((position, step))
        if step.get("source") == "agent":
            restored, system = _restore_group(group, len(restored_steps), system, agent, lost)
            restored_steps.append(restored)
            group = []
    if group:
        restored, system = _restore_group(group, len(restored_steps), system, agent, lost)
        restored_steps.append(restored)
    return {"schema_version": ACTF_VERSION, "steps": restored_steps}


def from_atif(document: Mapping[str, Any], *, source_file: str | None = None) -> Conversion:
    """An ATIF document (already checked with :func:`check`) as an ACTF_v1.0 trajectory.

    What this converter wrote comes back exactly; what another writer put in ATIF and ACTF has no place for
    is kept in ``atif`` members (of the trajectory, or of the step it belongs to) and reported as lost.
    """
    lost: list[Loss] = []
    restored = _restore_root(document, lost)
    notes = _own_notes(document)
    ours = notes.get("from") == ACTF_VERSION
    context = set(notes.get("context", ())) if ours else set()
    kept: dict[str, Any] = {}
    for key, value in document.items():
        if key in ("schema_version", "steps") or (key == "notes" and ours):
            continue
        if key == "agent" and isinstance(value, dict):
            agent = _agent_leftover(value, context, lost)
            if agent:
                kept["agent"] = agent
        elif key == "extra" and isinstance(value, dict):
            for name, item in _foreign_extra(document).items():
                if ours and name == "agentcompass":
                    lost.append(Loss("/extra/agentcompass", _CONTEXT_REASON))
                else:
                    kept.setdefault("extra", {})[name] = item
                    lost.append(Loss(f"/extra/{escape(name)}", _from_reason("extra", "trajectory")))
        elif key in context:
            lost.append(Loss("/" + escape(key), _CONTEXT_REASON))
        else:
            kept[key] = value
            lost.append(Loss("/" + escape(key), _from_reason(key, "trajectory")))
    if kept:
        restored["atif"] = kept
    restored = _apply(restored, _own_carried(document), notes.get("absent"), _ROOT_OBJECTS)
    lost.sort(key=lambda loss: _pointer_key(loss.pointer))
    return Conversion(restored, tuple(attrs.evolve(loss, file=source_file) for loss in lost), ())


_CONTEXT_REASON = (
    "run metadata from the attempt and its run, not from the trajectory: an ACTF trajectory has no place for it"
)


def _agent_leftover(agent: Mapping[str, Any], context: set[str], lost: list[Loss]) -> dict[str, Any]:
    invented = _own_notes(agent).get("invented", ())
    kept: dict[str, Any] = {}
    for key, value in agent.items():
        if (key == "tool_definitions" and isinstance(value, list)) or key == "extra" or key in invented:
            continue
        if f"agent/{key}" in context:
            lost.append(Loss(f"/agent/{escape(key)}", _CONTEXT_REASON))
            continue
        kept[key] = value
        lost.append(Loss(f"/agent/{escape(key)}", _from_reason("agent/" + key, "trajectory")))
    foreign = _foreign_extra(agent)
    if foreign:
        kept["extra"] = foreign
        lost.extend(Loss(f"/agent/extra/{escape(key)}", _from_reason("extra", "trajectory")) for key in foreign)
    return kept


def _pointer_key(pointer: str) -> tuple[Any, ...]:
    return tuple((0, int(token), "") if token.isdigit() else (1, 0, token) for token in pointer.split("/"))


def _restore_step(
    group: list[dict[str, Any]], index: int, system: Any, agent: Mapping[str, Any]
) -> tuple[dict[str, Any], Any]:
    return _restore_group(list(enumerate(group)), index, system, agent, None)


def _restore_group(
    group: list[tuple[int, dict[str, Any]]],
    index: int,
    system: Any,
    agent: Mapping[str, Any],
    lost: list[Loss] | None,
) -> tuple[dict[str, Any], Any]:
    """One ACTF step from an agent step and the system and user steps before it; and the system prompt after."""
    step: dict[str, Any] = {"step_id": index + 1}
    closing = group[-1][1] if group[-1][1].get("source") == "agent" else None
    opened = _restore_openings(group[:-1] if closing is not None else group, system, lost)
    if opened.system is not ABSENT:
        step["system_prompt"] = opened.system
    if opened.user is not ABSENT:
        step["user_content"] = opened.user
    if index == 0 and isinstance(agent.get("tool_definitions"), list):
        step["tools"] = agent["tool_definitions"]
    leftovers = opened.leftovers
    if closing is not None:
        leftovers.append(_restore_closing(closing, group[-1][0], step, lost))
    if opened.started is not ABSENT:
        step["started_at"] = opened.started
    if closing is not None and _actf_timestamp(closing.get("timestamp")):
        step["finished_at"] = closing["timestamp"]
    kept = [leftover for leftover in leftovers if len(leftover) > 2]
    if kept:
        step["atif"] = kept
    if closing is not None:
        step = _apply_own(step, closing, _STEP_OBJECTS)
    return step, opened.system


class _Opened(NamedTuple):
    """What the system and user steps before an agent step say: ABSENT where none says it."""

    started: Any  # the first ACTF timestamp among them
    system: Any  # the last system step's message, else the system prompt in force before them
    user: Any  # the last user step's message
    leftovers: list[dict[str, Any]]  # what each says that ACTF has no member for


def _restore_openings(openings: list[tuple[int, dict[str, Any]]], system: Any, lost: list[Loss] | None) -> _Opened:
    started: Any = ABSENT
    user: Any = ABSENT
    last = {source: position for position, atif_step in openings if (source := atif_step.get("source"))}
    leftovers: list[dict[str, Any]] = []
    for position, atif_step in openings:
        used = {"step_id", "source", "extra"}
        if started is ABSENT and _actf_timestamp(atif_step.get("timestamp")):
            started = atif_step["timestamp"]
            used.add("timestamp")
        source = atif_step.get("source")
        if source in ("system", "user") and last[source] == position:
            used.add("message")
            if source == "system":
                system = _unmessage(atif_step)
            else:
                user = _unmessage(atif_step)
        leftovers.append(_leftover(atif_step, position, used, lost))
    return _Opened(started, system, user, leftovers)


def _restore_closing(
    closing: Mapping[str, Any], position: int, step: dict[str, Any], lost: list[Loss] | None
) -> dict[str, Any]:
    """The agent step's model call into ``step`` (assistant content, observation, metric); what ACTF has no member
    for is returned, as a leftover."""
    used = {"step_id", "source", "extra"}
    step["assistant_content"] = _assistant_content(closing, used)
    observation = closing.get("observation")
    if isinstance(observation, dict) and isinstance(observation.get("results"), list):
        used.add("observation")
        step["observation"] = [_restore_observation_element(result) for result in observation["results"]]
    metrics = closing.get("metrics")
    metric_left: dict[str, Any] = {}
    if isinstance(metrics, dict):
        used.add("metrics")
        step["metric"] = {target: metrics[source] for target, source in _METRICS.items() if source in metrics}
        metric_left = {key: value for key, value in metrics.items() if key not in _METRICS.values()}
    if _actf_timestamp(closing.get("timestamp")):
        used.add("timestamp")
    leftover = _leftover(closing, position, used, lost)
    if metric_left:
        leftover["metrics"] = metric_left
        if lost is not None:
            lost.extend(
                Loss(f"/steps/{position}/metrics/{escape(key)}", _from_reason("metrics/" + key)) for key in metric_left
            )
    return leftover


def _assistant_content(closing: Mapping[str, Any], used: set[str]) -> dict[str, Any]:
    """The message (unless the converter invented it), reasoning and tool calls; each member read goes to ``used``."""
    content: dict[str, Any] = {}
    if isinstance(closing.get("message"), str):
        used.add("message")
        if "message" not in _own_notes(closing).get("invented", ()):
            content["content"] = closing["message"]
    if isinstance(closing.get("reasoning_content"), str):
        used.add("reasoning_content")
        content["reasoning_content"] = closing["reasoning_content"]
    if isinstance(closing.get("tool_calls"), list):
        used.add("tool_calls")
        content["tool_calls"] = [
            _apply_own(_restore_tool_call(call), call, _TOOL_CALL_OBJECTS) for call in closing["tool_calls"]
        ]
    return content


def _actf_timestamp(value: Any) -> bool:
    return isinstance(value, str) and TIMESTAMP.match(value) is not None and parse_timestamp(value)[0] is not None


def _leftover(atif_step: Mapping[str, Any], position: int, used: set[str], lost: list[Loss] | None) -> dict[str, Any]:
    """An ATIF step's members that no ACTF member says, identified by its step_id and source."""
    leftover: dict[str, Any] = {"step_id": atif_step.get("step_id"), "source": atif_step.get("source")}
    for key, value in atif_step.items():
        if key not in used:
            leftover[key] = value
            if lost is not None:
                member = "agent/message" if key == "message" and atif_step.get("source") == "agent" else key
                lost.append(Loss(f"/steps/{position}/{escape(key)}", _from_reason(member)))
    foreign = _foreign_extra(atif_step)
    if foreign:
        leftover["extra"] = foreign
        if lost is not None:
            lost.extend(Loss(f"/steps/{position}/extra/{escape(key)}", _from_reason("extra")) for key in foreign)
    return leftover


def _foreign_extra(atif_object: Mapping[str, Any]) -> dict[str, Any]:
    extra = atif_object.get("extra")
    if not isinstance(extra, dict):
        return {}
    return {key: value for key, value in extra.items() if key not in (CARRY, NOTES)}


_FROM_REASONS = {
    "model_name": "ACTF steps name no model",
    "reasoning_effort": "ACTF has no reasoning effort",
    "llm_call_count": "an ACTF step is one model call; it has no call count",
    "is_copied_context": "ACTF cannot mark copied context",
    "observation": "ACTF has observations only on model calls, not on system or user steps",
    "message": "an ACTF model call has one system prompt and one user content; this earlier message has no place",
    "timestamp": "an ACTF step has a start (its first system or user message) and an end (its agent step), "
    "written as YYYY-MM-DD HH:MM:SS with an optional fraction and offset",
    "extra": "custom ATIF metadata has no ACTF counterpart",
    "agent/message": "ACTF assistant content is text; this message is content parts",
    "metrics/cached_tokens": "ACTF metrics have no cached token count",
    "metrics/cost_usd": "ACTF metrics have no cost",
    "metrics/prompt_token_ids": "ACTF metrics have no token ids",
    "metrics/completion_token_ids": "ACTF metrics have no token ids",
    "metrics/logprobs": "ACTF metrics have no log probabilities",
    "metrics/extra": "ACTF metrics have no custom metrics",
    "agent/name": "an ACTF trajectory does not name its agent",
    "agent/version": "an ACTF trajectory does not name its agent's version",
    "agent/model_name": "an ACTF trajectory does not name its model",
    "session_id": "an ACTF trajectory has no session id",
    "notes": "an ACTF trajectory has no notes",
    "final_metrics": "ACTF has no totals (they are sums over the steps)",
}


def _from_reason(member: str, holder: str = "step") -> str:
    found = _FROM_REASONS.get(member)
    return (found or "ACTF has no counterpart for this ATIF member") + f"; kept in the ACTF {holder}'s atif member"


def _apply_own(restored: dict[str, Any], atif_object: Mapping[str, Any], objects: frozenset[tuple[str, ...]]) -> Any:
    return _apply(restored, _own_carried(atif_object), _own_notes(atif_object).get("absent"), objects)


def _restore_tool_call(call: Mapping[str, Any]) -> dict[str, Any]:
    """The OpenAI shape the harnesses write ({id, type, function: {name, arguments}}), or the flat one it came in."""
    notes = _own_notes(call)
    invented = notes.get("invented", ())
    out: dict[str, Any] = {}
    if "tool_call_id" not in invented:
        out["id"] = call.get("tool_call_id")
    arguments: Any = call.get("arguments")
    form = notes.get("arguments")
    if isinstance(form, str) and form in _ARGUMENT_FORMS:
        arguments = json.dumps(arguments, allow_nan=False, **_ARGUMENT_FORMS[form])
    function: dict[str, Any] = out if notes.get("form") == "flat" else {}
    function["name"] = call.get("function_name")
    if "arguments" not in invented:
        function["arguments"] = arguments
    if function is not out:
        out["type"] = "function"
        out["function"] = function
    return out


def _restore_observation_element(result: Mapping[str, Any]) -> Any:
    form = _own_notes(result).get("form")
    content = result.get("content")
    if form == "text" and isinstance(content, str):
        return content
    if form == "json" and isinstance(content, str):
        try:
            return load_json(content)
        except NotJSON:
            return content
    restored = {key: value for key, value in result.items() if key != "extra"}
    extra = result.get("extra")
    if isinstance(extra, dict):
        foreign = {key: value for key, value in extra.items() if key not in (CARRY, NOTES)}
        if foreign:
            restored["extra"] = foreign
    return _apply_own(restored, result, _ROOT_OBJECTS)


# ---------------------------------------------------------------------------------------------- the report


def _lost_entries(document: Mapping[str, Any], prefix: str, file: str | None) -> Iterator[Loss]:
    """Every ACTF member kept in extra.actf (or removed by absent), with its pointer into the source."""
    yield from _object_losses(document, prefix, _ROOT_OBJECTS, "trajectory", file)
    index = 0
    for step in document.get("steps", ()):
        if step.get("source") != "agent":
            continue
        base = f"{prefix}/steps/{index}"
        yield from _object_losses(step, base, _STEP_OBJECTS, "step", file)
        for position, call in enumerate(step.get("tool_calls") or ()):
            where = f"{base}/assistant_content/tool_calls/{position}"
            yield from _object_losses(call, where, _TOOL_CALL_OBJECTS, "tool call", file)
        results = (step.get("observation") or {}).get("results") or ()
        for position, result in enumerate(results):
            yield from _object_losses(result, f"{base}/observation/{position}", _ROOT_OBJECTS, "observation", file)
        index += 1


def _object_losses(
    atif_object: Mapping[str, Any], base: str, objects: frozenset[tuple[str, ...]], what: str, file: str | None
) -> Iterator[Loss]:
    carried = _own_carried(atif_object)
    if isinstance(carried, dict):
        for path, value in _leaves(carried, objects):
            yield Loss(base + "".join("/" + escape(token) for token in path), _reason(what, path, value), file)
    for entry in _own_notes(atif_object).get("absent", ()):
        yield Loss(
            base + "".join("/" + escape(token) for token in entry.split("/")),
            f"absent from the {what}; ATIF cannot say that it is absent",
            file,
        )


def _invented_entries(document: Mapping[str, Any], file: str | None) -> Iterator[Loss]:
    yield from _object_inventions(document.get("agent", {}), "/agent", file)
    for index, step in enumerate(document.get("steps", ())):
        yield from _object_inventions(step, f"/steps/{index}", file)
        for position, call in enumerate(step.get("tool_calls") or ()):
            yield from _object_inventions(call, f"/steps/{index}/tool_calls/{position}", file)


_INVENTED_REASONS = {
    "name": "ATIF requires an agent name; the source names none",
    "version": "ATIF requires an agent version; the source gives none",
    "message": "ATIF requires a message on every step; the ACTF step has no assistant text",
    "tool_call_id": "ATIF requires a tool call id; the ACTF tool call has none",
    "arguments": "ATIF requires the arguments as an object; the ACTF ones are not a JSON object",
}


def _object_inventions(atif_object: Mapping[str, Any], base: str, file: str | None) -> Iterator[Loss]:
    for member in _own_notes(atif_object).get("invented", ()):
        yield Loss(f"{base}/{escape(member)}", _INVENTED_REASONS.get(member, "filled in; not in the source"), file)


_REASONS: dict[tuple[str, tuple[str, ...]], str] = {
    ("trajectory", ("started_at",)): "ATIF has no start time for the whole trajectory",
    ("trajectory", ("finished_at",)): "ATIF has no end time for the whole trajectory",
    ("step", ("step_id",)): "ATIF numbers its steps 1, 2, 3, ...; this id is not the step's place in that order",
    ("step", ("tools",)): "ATIF has tool definitions only for the whole trajectory (agent.tool_definitions, "
    "from the first step)",
    ("step", ("metric", "llm_infer_ms")): "ATIF metrics have no model inference time",
    ("step", ("metric", "env_action_ms")): "ATIF metrics have no environment action time",
    ("step", ("metric", "stop_reason")): "ATIF has no stop reason",
    **{("step", ("metric", name)): "ATIF token counts are non-negative integers" for name in _METRICS},
    ("step", ("started_at",)): "ATIF has one time per step: a model call's start is the time of its system or user "
    "step, and this call has none",
    ("step", ("system_prompt",)): "ATIF writes no system step for an empty system prompt (the one in force stays "
    "the last one said)",
    ("step", ("user_content",)): "ATIF writes no user step for empty user content",
    ("step", ("finished_at",)): "the time of the agent step is not one ATIF reads as ISO 8601",
    ("step", ("assistant_content",)): "ATIF agent steps have a message, reasoning and tool calls; not this value",
    ("step", ("assistant_content", "content")): "ATIF agent messages are text",
    ("step", ("assistant_content", "reasoning_content")): "ATIF reasoning is text or absent",
    ("step", ("assistant_content", "tool_calls")): "ATIF tool calls are a list of calls that each name a function",
    ("step", ("observation",)): "ATIF observations are a list of results",
    ("step", ("metric",)): "ATIF metrics are an object",
    ("tool call", ("id",)): "ATIF tool call ids are text",
    ("tool call", ("type",)): "ATIF tool calls are function calls and have no type",
    ("tool call", ("function", "arguments")): "ATIF holds the arguments as a JSON object; this spelling of them "
    "is not kept by it",
    ("observation", ("source_call_id",)): "ATIF results name a tool call of the same step",
    ("observation", ("content",)): "ATIF result content is text or content parts",
}


def _reason(what: str, path: tuple[str, ...], value: Any) -> str:
    if path[-1] in ("started_at", "finished_at") and len(path) == 1 and what in ("step", "trajectory"):
        if value is None or value == "":
            return f"ATIF leaves out a time; this one is {'null' if value is None else 'empty'}"
        if _timestamp(value) is None:
            return "not a time ATIF reads as ISO 8601"
    known = _REASONS.get((what, path))
    if known is not None:
        return known
    if (len(path) == 1 and what == "step") or (len(path) == 2 and path[0] in ("assistant_content", "metric")):
        return f"not an {ACTF_VERSION} member of a {what}; ATIF has no counterpart"
    if what == "trajectory":
        return f"not an {ACTF_VERSION} member of a trajectory; ATIF has no counterpart"
    return f"ATIF has no counterpart for this member of an ACTF {what}"
