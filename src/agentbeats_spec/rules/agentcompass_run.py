"""AgentCompass run-level files: run_info.json, params.json, metrics.json, analysis_summary.json, progress files.

Severity follows consequence. An error is what an AgentCompass 1.0.1 reader refuses or misreads: resume
(``store._require_current_run_info``), reuse (``RunStore._validate_reuse_source``, ``_normalized_attempt_plan``,
``materialize_reused_details``), summary and analysis (``launcher._summary_request_from_run_dir``,
``launcher._load_run_info``), the metric report model (``MetricReport.model_validate``). A departure from what the
1.0.1 writer writes that every reader tolerates is a warning saying which reader tolerates it and how: the writer's
shape is ``$defs/written`` of each file's schema, which the check validates beside the schema itself
(``checking/_examine.py``), asking the ``tolerated_in_*`` function of the file's kind what to say of a departure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from pathlib import PurePosixPath
from typing import Any

import attrs

from ..reading._pointers import join
from ..vocabulary._issues import Anchor, Finding
from ..vocabulary._text import closest, quote
from ._common import is_int
from .agentcompass import KNOWN_STRATEGIES

REDUCERS = ("native", "avg", "pass")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
REUSE = "AgentCompass 1.0.1 cannot reuse this run"
SUMMARY = "AgentCompass 1.0.1 cannot summarize this run"
MODEL = "AgentCompass 1.0.1's MetricReport refuses this report"
# Said after each schema error of a run-level file: what the readers of that file will not do with it.
REFUSED = {
    "run_info": "AgentCompass 1.0.1 cannot resume, reuse, summarize or analyze this run",
    "params": "AgentCompass 1.0.1 cannot summarize this run",
    "metrics": MODEL,
    "browsed": "the file holds none of the data the AgentCompass 1.0.1 writer writes in it",
    "events": "the line holds none of the data of a progress event",
}


def _unknown_members(data: dict[str, Any], known: tuple[str, ...], where: str, how: str) -> Iterator[Finding]:
    """Members the writer never writes: every reader ignores them, so a near miss too is only a warning."""
    for name in data:
        if name in known:
            continue
        match = closest(name, [each for each in known if each not in data])
        hint = f"; did you mean {match!r}?" if match is not None else ""
        yield Finding(
            join("", name),
            "rule.unknown-key",
            f"unknown member {quote(name)} in {where}{hint} ({how})",
            severity="warning",
            anchor=Anchor.KEY,
        )


# ---------------------------------------------------------------------------------------------------- run_info.json

RUN_INFO_MEMBERS = (
    "schema_version", "run_id", "started_at", "request", "reused_from", "resolved_execution_plans", "status",
    "finished_at", "error", "metric_artifacts",
)  # fmt: skip
_RUN_INFO_TOLERATED = {
    "/started_at": "the latest-run search (RunStore._run_info_sort_key) reads a started_at it cannot parse as the "
    "oldest run, and every other reader ignores it",
    "/status": "the result browser reads a status that is not text as empty, and no other reader reads it",
}
_RUN_INFO_DEFAULT = "no AgentCompass 1.0.1 reader reads this member back"


def tolerated_in_run_info(pointer: str) -> str:
    return next((note for at, note in _RUN_INFO_TOLERATED.items() if _under(pointer, at)), _RUN_INFO_DEFAULT)


def _under(pointer: str, at: str) -> bool:
    return pointer == at or pointer.startswith(at + "/")


def run_info(data: Any) -> Iterator[Finding]:
    if not isinstance(data, dict):
        return
    version = data.get("schema_version")
    if version == "agentcompass.run_info.v2":
        yield Finding(
            "/schema_version",
            "legacy.run-info-v2",
            "written by an older AgentCompass (agentcompass.run_info.v2): AgentCompass 1.0.1 resumes and reuses the "
            "run, but refuses to summarize or analyze it (both require agentcompass.run_info.v3)",
            severity="warning",
        )
    elif version == "agentcompass.run_info.v3":
        yield from _unknown_members(
            data, RUN_INFO_MEMBERS, "run_info.json", "every AgentCompass 1.0.1 reader ignores it"
        )
    else:
        return
    request = data.get("request")
    if isinstance(request, dict):
        yield from _request(request)
        if version == "agentcompass.run_info.v3":
            yield from _rebuilt_request(request)
    if "resolved_execution_plans" in data:
        yield from _resolved_plans(data["resolved_execution_plans"])


def _request(request: dict[str, Any]) -> Iterator[Finding]:
    """What reuse (``_validate_reuse_source``) and analysis (``launcher._load_run_info``) read of the request."""
    benchmark = request.get("benchmark")
    if benchmark and not isinstance(benchmark, dict):
        yield Finding(
            "/request/benchmark",
            "rule.reuse-refused",
            f"{REUSE}: request.benchmark is {_what(benchmark)}, but reuse reads the benchmark id from an object "
            '{"id": ...}',
        )
    elif isinstance(benchmark, dict):
        identifier = benchmark.get("id")
        if not isinstance(identifier, str) or not identifier or identifier != identifier.strip():
            yield Finding(
                "/request/benchmark/id",
                "rule.reuse-refused",
                f"{REUSE}: request.benchmark.id is {_found(benchmark, 'id')}; reuse requires the benchmark id, text "
                "without surrounding white space, equal to the one requested",
                anchor=_anchor(benchmark, "id"),
            )
    else:
        yield Finding(
            "/request/benchmark",
            "rule.reuse-refused",
            f"{REUSE}: request.benchmark is {_found(request, 'benchmark')}; reuse requires the benchmark id, and "
            "analysis refuses a request without a benchmark",
            anchor=_anchor(request, "benchmark"),
        )
    execution = request.get("execution")
    if execution and not isinstance(execution, dict):
        yield Finding(
            "/request/execution",
            "rule.reuse-refused",
            f"{REUSE}: request.execution is {_what(execution)}; reuse reads execution.attempts from an object",
        )
        return
    if not isinstance(execution, dict):
        yield Finding(
            "/request/execution",
            "rule.reuse-refused",
            f"{REUSE}: request.execution is {_found(request, 'execution')}; reuse reads the attempt plan "
            "execution.attempts {k, strategy} from run_info.json only (params.json does not count)",
            anchor=_anchor(request, "execution"),
        )
        return
    attempts = execution.get("attempts")
    if not isinstance(attempts, dict):
        yield Finding(
            "/request/execution/attempts",
            "rule.reuse-refused",
            f"{REUSE}: request.execution.attempts is {_found(execution, 'attempts')}; reuse reads the attempt plan "
            "{k, strategy} from run_info.json only (params.json does not count)",
            anchor=_anchor(execution, "attempts"),
        )
        return
    yield from attempt_plan(attempts, "/request/execution/attempts")


# ------------------------------------------------------------- the request as AgentCompass 1.0.1 rebuilds it

ANALYSIS = "AgentCompass 1.0.1 cannot analyze this run"
# Each check of one member gives what 1.0.1 requires of it, or None where it takes the value.
Requires = Callable[[Any], "str | None"]
_OBJECT = "an object (or an array of pairs, which dict() reads as one)"


def _as_mapping(value: Any) -> dict[Any, Any] | None:
    """``dict(value or {})``, as ``RunRequest.from_params`` reads each section and its params: a falsy value is
    empty, an array of pairs (two-item arrays, two-character texts, two-member objects) is read as one; None where
    dict() raises."""
    if not value:
        return {}
    if isinstance(value, dict):
        return value
    if not isinstance(value, list):
        return None
    pairs: dict[Any, Any] = {}
    for item in value:
        if not isinstance(item, (list, str, dict)) or len(item) != 2:
            return None
        key, each = list(item)
        if isinstance(key, (list, dict)):  # unhashable
            return None
        pairs[key] = each
    return pairs


def _text(value: Any) -> str | None:
    """``str(value)``, None where it raises (an integer of more than 4,300 digits, an array nested past Python's
    recursion limit), as it raises in 1.0.1."""
    try:
        return str(value)
    except (ValueError, RecursionError):
        return None


def _dict_of(value: Any) -> str | None:
    return None if _as_mapping(value) is not None else _OBJECT


def _textual(value: Any) -> str | None:
    return None if _text(value) is not None else "text (str() of an integer of more than 4,300 digits fails)"


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else "true or false"


def _boolean_or_null(value: Any) -> str | None:
    return None if value is None or isinstance(value, bool) else "true, false or null"


def _positive(value: Any) -> str | None:
    return None if _positive_number(value) else "a finite positive number"


def _positive_or_null(value: Any) -> str | None:
    return None if value is None or _positive_number(value) else "a finite positive number or null"


def _integer(value: Any) -> str | None:
    return None if _integral(value) else "an integer (a number, or text int() reads)"


def _recipes(value: Any) -> str | None:
    """``[str(item).strip() for item in (value or [])]``: anything falsy or iterable."""
    if value and not isinstance(value, (list, str, dict)):
        return "an array of recipe names"
    items = value if isinstance(value, list) else []
    return None if all(_text(item) is not None for item in items) else "an array of recipe names"


def _patterns(value: Any) -> str | None:
    """``retry_pattern_list``: null or an array of regular expressions Python's re compiles."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return "null or an array of regular expressions (text)"
    for item in value:
        try:
            re.compile(item)
        except Exception:  # re.error, and RecursionError or OverflowError on a pathological pattern
            return f"regular expressions Python compiles, which {quote(item)} is not"
    return None


def _limits(value: Any) -> str | None:
    """``ArtifactLimits.from_value``."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return "an object {max_mb, max_files, timeout_seconds} or null"
    if unknown := [name for name in value if name not in ("max_mb", "max_files", "timeout_seconds")]:
        return f"an object of max_mb, max_files and timeout_seconds only, not {quote(unknown[0])}"
    size = value.get("max_mb", 1)
    try:
        megabytes = float(size) if isinstance(size, (int, float)) and not isinstance(size, bool) else math.nan
    except OverflowError:
        megabytes = math.inf
    if not math.isfinite(megabytes * 1024**2) or megabytes * 1024**2 < 1:
        return f"max_mb a finite number of at least 1/1048576, not {_what(size)}"
    files = value.get("max_files", 1)
    if not is_int(files) or files < 1:
        return f"max_files an integer of at least 1, not {_what(files)}"
    if not _positive_number(value.get("timeout_seconds", 1)):
        return f"timeout_seconds a finite positive number, not {_what(value['timeout_seconds'])}"
    return None


def _sandbox_path(value: Any) -> str | None:
    """``artifacts._sandbox_path``: the normalized absolute path, or None."""
    if not isinstance(value, str) or "\0" in value or "\\" in value:
        return None
    path = PurePosixPath(value)
    if not path.is_absolute() or value.startswith("//") or ".." in path.parts or str(path) == "/":
        return None
    return str(path)


def _store_path(value: Any) -> PurePosixPath | None:
    """``artifacts._store_path``: a relative path below the artifact directory, or None."""
    if not isinstance(value, str) or not value or "\0" in value or "\\" in value:
        return None
    path = PurePosixPath(value)
    return None if path.is_absolute() or ".." in path.parts or str(path) == "." else path


def _artifacts(value: Any) -> str | None:
    """``normalize_artifacts``: null, or an array of paths and ``ArtifactSpec`` objects whose stored destinations
    do not overlap."""
    if value is None:
        return None
    if not isinstance(value, list):
        return "null or an array of artifact declarations"
    stored: list[PurePosixPath] = []
    for item in value:
        spec = {"source": item} if isinstance(item, str) else item
        if not isinstance(spec, dict) or "source" not in spec or set(spec) - {"source", "destination", "exclude",
                                                                             "service"}:  # fmt: skip
            return "artifact declarations each a path or an object of source, destination, exclude and service"
        source = _sandbox_path(spec["source"])
        if source is None:
            return "each artifact source an absolute POSIX path other than / without '..', '\\' or NUL"
        destination = spec.get("destination")
        target = _store_path(source.lstrip("/") if destination is None else destination)
        if target is None:
            return "each artifact destination a relative POSIX path without '..', '\\' or NUL"
        exclude = spec.get("exclude", [])
        if not isinstance(exclude, list) or any(not isinstance(each, str) or not each or "\0" in each
                                                for each in exclude):  # fmt: skip
            return "each artifact exclude an array of non-empty patterns"
        if spec.get("service") not in (None, "main"):
            return "each artifact service null or 'main'"
        if any(target == other or target in other.parents or other in target.parents for other in stored):
            return f"artifact destinations that do not overlap, which {quote(str(target))} does"
        stored.append(target)
    return None


def _collect(value: Any) -> str | None:
    """``normalize_artifact_collect``: null, or an array of commands and ``ArtifactCollectCommand`` objects."""
    if value is None:
        return None
    if not isinstance(value, list):
        return "null or an array of artifact collect commands"
    for item in value:
        spec = {"command": item} if isinstance(item, str) else item
        if not isinstance(spec, dict) or "command" not in spec or set(spec) - {"command", "timeout_seconds",
                                                                               "service"}:  # fmt: skip
            return "artifact collect commands each a command or an object of command, timeout_seconds and service"
        command = spec["command"]
        if not isinstance(command, str) or not command.strip() or "\0" in command:
            return "each artifact collect command a non-empty shell command"
        if not _positive_number(spec.get("timeout_seconds", 60)):
            return "each artifact collect timeout_seconds a finite positive number"
        if spec.get("service", "main") != "main":
            return "each artifact collect service 'main'"
    return None


_PROTOCOLS = ("openai-chat", "openai-responses", "anthropic")
_PROTOCOL = f"'auto', {', '.join(_PROTOCOLS)}, or an array of them"


def _protocol(value: Any) -> str | None:
    """``normalize_model_api_protocol``: each text stripped and lower-cased, a known protocol or 'auto' (not with
    another in an array); null and empty text are 'auto'."""
    if value is None:
        return None
    if not isinstance(value, list):
        text = _text(value)
        known = text is not None and text.strip().lower() in ("", "auto", *_PROTOCOLS)
        return None if known else _PROTOCOL
    protocols: list[str] = []
    for item in value:
        text = _text(item)
        if text is None or text.strip().lower() not in ("", "auto", *_PROTOCOLS):
            return _PROTOCOL
        if text.strip() and text.strip().lower() not in protocols:
            protocols.append(text.strip().lower())
    return None if "auto" not in protocols or len(protocols) == 1 else "'auto' alone, not with another protocol"


def _protocol_or_auto(value: Any) -> str | None:
    """What ``RunRequest.from_params`` passes: ``api_protocol or ""``."""
    return _protocol(value or "")


# Each member a rebuilt section reads: (what RunRequest.from_params requires, what the summary requires). The
# summary (launcher._summary_request_from_run_dir) rebuilds the model, environment and execution settings with the
# same specs where the request holds an object (the run's execution merged over params.json's); None where it
# does not read the member or takes any value. A member missing is its default, which both take.
_Row = tuple[Requires | None, Requires | None]
_MODEL: dict[str, _Row] = {
    "base_url": (_textual, None), "api_key": (_textual, None), "params": (_dict_of, None),
    "api_protocol": (_protocol_or_auto, _protocol), "wrap_api_key": (_boolean, _boolean),
}  # fmt: skip
_EXECUTION: dict[str, _Row] = {
    "task_concurrency": (_integer, _integer), "enabled_recipes": (_recipes, None),
    "keep_environment": (_boolean, None), "enable_analysis": (_boolean, None), "analysis_params": (_dict_of, None),
    "max_retries": (_integer, None), "retry_pattern_list": (_patterns, None),
    "retry_min_delay_seconds": (_positive, None), "retry_max_delay_seconds": (_positive, None),
    "run_timeout_seconds": (_positive_or_null, _positive_or_null),
    "run_timer_compensation_seconds": (_positive, _positive),
    "evaluation_timeout_seconds": (_positive_or_null, _positive_or_null), "timeout_multiplier": (_positive, _positive),
    "run_timeout_multiplier": (_positive_or_null, _positive_or_null),
    "evaluation_timeout_multiplier": (_positive_or_null, _positive_or_null),
    "runresult_collect_timeout_seconds": (_positive, _positive),
    "artifact_collect_timeout_seconds": (_positive_or_null, _positive_or_null),
    "artifact_limits": (_limits, _limits), "save_artifacts": (_boolean_or_null, _boolean_or_null),
    "artifacts": (_artifacts, _artifacts), "artifact_collect": (_collect, _collect),
}  # fmt: skip
# The members of request.execution that RunRequest.from_params takes (ExecutionSpec.validate_fields refuses any
# other): the fields of ExecutionSpec in 1.0.1. attempts is reuse's plan (attempt_plan).
EXECUTION_MEMBERS = ("attempts", *_EXECUTION)
_RUNTIME: dict[str, _Row] = {
    "reuse": (_boolean_or_null, None), "reuse_run_id": (_textual, None), "checkpoint_resume": (_boolean_or_null, None),
}  # fmt: skip
_OUTPUT: dict[str, _Row] = {"run_name": (_textual, None), "run_id": (_textual, None)}


def _recipe_dirs(value: Any) -> str | None:
    if value is None or (isinstance(value, list) and all(isinstance(item, str) for item in value)):
        return None
    return "null or an array of directory paths (text)"


_METADATA: dict[str, _Row] = {
    "config_path": (_textual, None), "recipe_dirs": (_recipe_dirs, None), "request_name": (_textual, None),
}  # fmt: skip

# EnvironmentSpec's structured members; from_payload refuses any other beside id and params, and takes one held in
# params as a lower layer of it. Resources and network policies are not judged here (docs/spec-notes.md).
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SETUP = ("image", "build_timeout_seconds", "workdir", "os")
_ENVIRONMENT_MEMBERS = (
    "resources", "run_resources", "evaluation_resources", "baseline_network_policy",
    "evaluation_baseline_network_policy", "run_network_policy", "evaluation_network_policy",
    "evaluation_environment_mode", "env_variables", "run_env_variables", "evaluation_env_variables",
    "evaluation_environment_env_variables", "require_startup_env", "setup", "evaluation_setup",
)  # fmt: skip


def _setup_layer(value: Any) -> str | None:
    """``EnvironmentSetup.config_payload`` of one layer."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return "null or an object of image, build_timeout_seconds, workdir and os"
    if unknown := [name for name in value if name not in _SETUP]:
        return f"an object of image, build_timeout_seconds, workdir and os only, not {quote(str(unknown[0]))}"
    return None


def _setup(layers: list[Any]) -> str | None:
    """``EnvironmentSetup`` of the merged layers (a null member is left out of the merge)."""
    merged: dict[str, Any] = {}
    for layer in layers:
        merged.update({name: value for name, value in (layer or {}).items() if value is not None})
    if merged.get("os") not in (None, "linux", "windows"):
        return "os 'linux' or 'windows'"
    image = merged.get("image")
    if image is not None and (not isinstance(image, str) or not image.strip()):
        return "image non-empty text"
    if _positive_or_null(merged.get("build_timeout_seconds")):
        return "build_timeout_seconds a finite positive number"
    workdir = merged.get("workdir")
    if workdir is not None and (not isinstance(workdir, str) or not workdir.startswith("/") or "\0" in workdir):
        return "workdir an absolute POSIX path"
    return None


def _env_variables(value: Any) -> str | None:
    """``parse_env_variables``: null or an object whose names are environment variable names."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return "null or an object of environment variables"
    for name, each in value.items():
        if not _ENV_NAME.fullmatch(str(name or "").strip()) or (each is not None and _text(each) is None):
            return f"an object whose names are environment variable names, which {quote(str(name))} is not"
    return None


def _environment_mode(value: Any) -> str | None:
    if value is None or (_text(value or "") or "").strip().lower() in ("none", "reuse", "fresh"):
        return None
    return "null, 'none', 'reuse' or 'fresh'"


def _environment(environment: dict[Any, Any], at: str) -> Iterator[tuple[str, Any, str]]:
    """``EnvironmentSpec.from_payload``: (pointer, value, what it requires) of each member it refuses."""
    for name in environment:
        if name not in ("id", "params", *_ENVIRONMENT_MEMBERS):
            yield join(at, name), environment[name], "only id, params and EnvironmentSpec's members"
    params = _as_mapping(environment.get("params"))
    if params is None:
        yield join(at, "params"), environment["params"], _OBJECT
        return
    # a member held in params is the lower layer, the member itself the upper (EnvironmentSpec.from_config)
    layers = {name: [(join(at, "params", name), params[name])] for name in _ENVIRONMENT_MEMBERS if name in params}
    for name in _ENVIRONMENT_MEMBERS:
        if name in environment:
            layers.setdefault(name, []).append((join(at, name), environment[name]))
    for name, found in layers.items():
        top_pointer, top = found[-1]
        if name in ("setup", "evaluation_setup"):
            shaped = [(pointer, value, _setup_layer(value)) for pointer, value in found]
            refused = [(pointer, value, why) for pointer, value, why in shaped if why is not None]
            if refused:
                yield refused[0]
            elif (why := _setup([value for _, value in found])) is not None:
                yield top_pointer, top, why
        elif "env_variables" in name:
            for pointer, value in found:
                if (why := _env_variables(value)) is not None:
                    yield pointer, value, why
        else:
            merged = next((value for _, value in reversed(found) if value is not None), None)
            pointer = next((pointer for pointer, value in reversed(found) if value is not None), top_pointer)
            check = {"require_startup_env": _boolean_or_null, "evaluation_environment_mode": _environment_mode}
            if name in check and (why := check[name](merged)) is not None:
                yield pointer, merged, why


def _rebuilt_request(request: dict[str, Any]) -> Iterator[Finding]:
    """What ``RunRequest.from_params`` refuses of the request, which analysis (``launcher._load_run_info``)
    rebuilds; the summary rebuilds the model, environment and execution settings with the same specs, so what it
    refuses too is rule.summary-refused. The benchmark id and the attempt plan are reuse's (``_request``)."""
    yield from _model_id(request)
    benchmark = request.get("benchmark")
    if isinstance(benchmark, dict) and _as_mapping(benchmark.get("params")) is None:
        yield _refused("/request/benchmark/params", benchmark["params"], _OBJECT, False, True)
    for section in ("harness", "environment", "runtime", "output", "metadata", "model"):
        if _as_mapping(request.get(section)) is None:
            yield _refused(join("/request", section), request[section], _OBJECT, False, True)
    harness = _as_mapping(request.get("harness"))
    if harness is not None:
        yield from _identity(harness, "harness", request)
        if _as_mapping(harness.get("params")) is None:
            yield _refused("/request/harness/params", harness["params"], _OBJECT, False, True)
    environment = _as_mapping(request.get("environment"))
    if environment is not None:
        yield from _identity(environment, "environment", request)
        read = isinstance(request.get("environment"), dict)  # the summary reads only an object
        for pointer, value, why in _environment(environment, "/request/environment"):
            yield _refused(pointer, value, why, read, True)
    for section, table in (("model", _MODEL), ("runtime", _RUNTIME), ("output", _OUTPUT), ("metadata", _METADATA)):
        found = _as_mapping(request.get(section))
        yield from _rows(found or {}, table, join("/request", section), isinstance(request.get(section), dict))
    execution = request.get("execution")
    if isinstance(execution, dict):  # else reuse refuses it (_request)
        yield from _execution(execution)


def _rows(section: dict[Any, Any], table: dict[str, _Row], at: str, summarized: bool) -> Iterator[Finding]:
    for name, (analysis, summary) in table.items():
        if name not in section:
            continue
        value = section[name]
        by_analysis = analysis(value) if analysis is not None else None
        by_summary = summary(value) if summary is not None and summarized else None
        if by_analysis is not None or by_summary is not None:
            yield _refused(join(at, name), value, by_summary or by_analysis or "", by_summary is not None,
                           by_analysis is not None)  # fmt: skip


def _execution(execution: dict[str, Any]) -> Iterator[Finding]:
    for name in execution:
        if name not in EXECUTION_MEMBERS:
            match = closest(name, [each for each in EXECUTION_MEMBERS if each not in execution])
            hint = f"; did you mean {match!r}?" if match is not None else ""
            yield Finding(
                join("/request/execution", name),
                "rule.analysis-refused",
                f"{ANALYSIS}: request.execution holds {quote(name)}, which ExecutionSpec does not know{hint}",
                anchor=Anchor.KEY,
            )
    yield from _rows(execution, _EXECUTION, "/request/execution", True)
    low, high = execution.get("retry_min_delay_seconds", 5), execution.get("retry_max_delay_seconds", 60)
    if _positive_number(low) and _positive_number(high) and float(high) < float(low):
        yield _refused(
            "/request/execution/retry_max_delay_seconds",
            high,
            f"at least retry_min_delay_seconds ({_what(low)})",
            False,
            True,
        )


def _model_id(request: dict[str, Any]) -> Iterator[Finding]:
    """``ModelSpec`` requires an id, ``str(id or "").strip()`` (the summary falls back to the run's folder)."""
    model = _as_mapping(request.get("model"))
    if model is None:
        return
    text = _text(model.get("id") or "")
    if not (text or "").strip():
        where = "/request/model/id" if isinstance(request.get("model"), dict) else "/request/model"
        found = _what(model["id"]) if "id" in model else "missing"
        yield Finding(
            where,
            "rule.analysis-refused",
            f"{ANALYSIS}: request.model.id is {found}; analysis rebuilds the request, which requires a model id",
            anchor=Anchor.VALUE if "id" in model else Anchor.PARENT,
        )


def _identity(section: dict[Any, Any], name: str, request: dict[str, Any]) -> Iterator[Finding]:
    """``HarnessSpec`` and ``EnvironmentSpec`` require an id, ``str(id or "").strip()``: the summary gives a
    missing one its own (summary, host_process), analysis refuses the request."""
    text = _text(section.get("id") or "")
    if (text or "").strip():
        return
    inside = isinstance(request.get(name), dict)
    found = _what(section["id"]) if "id" in section else "missing"
    article = "an" if name == "environment" else "a"
    yield Finding(
        f"/request/{name}/id" if inside else f"/request/{name}",
        "rule.analysis-refused",
        f"{ANALYSIS}: request.{name}.id is {found}; analysis rebuilds the request, which requires {article} {name} "
        "id (the AgentCompass 1.0.1 runner always records one)",
        anchor=Anchor.PARENT if (inside and "id" not in section) or name not in request else Anchor.VALUE,
    )


def _refused(pointer: str, value: Any, requires: str, by_summary: bool, by_analysis: bool) -> Finding:
    """One member the summary or analysis refuses, saying what AgentCompass 1.0.1 requires of it."""
    if by_summary:
        who, code = SUMMARY + (" (nor analyze it)" if by_analysis else ""), "rule.summary-refused"
    else:
        who, code = ANALYSIS, "rule.analysis-refused"
    what = "request" + pointer.removeprefix("/request").replace("/", ".")
    return Finding(pointer, code, f"{who}: {what} is {_what(value)}; AgentCompass 1.0.1 requires {requires}")


# What the summary reads of params.json under the request: execution (deep_merge(params, request)) and two members
# of the model (request.model's own where it has them).
SUMMARIZED = {
    "execution": tuple(name for name, (_, summary) in _EXECUTION.items() if summary is not None),
    "model": ("api_protocol", "wrap_api_key"),
}


def summarized(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The members of ``data``'s sections (a request or params.json) the summary merges, by section."""
    found = {section: data.get(section) for section in SUMMARIZED}
    return {
        section: {name: value[name] for name in names if name in value}
        for section, names in SUMMARIZED.items()
        if isinstance(value := found[section], dict)
    }


def benchmark_id(data: dict[str, Any]) -> str | None:
    """The benchmark id a request or params.json records, when it is non-empty text."""
    benchmark = data.get("benchmark")
    identifier = benchmark.get("id") if isinstance(benchmark, dict) else None
    return identifier if isinstance(identifier, str) and identifier else None


def benchmark_disagrees(requested: str, recorded: str) -> str:
    """What is said of a run whose run_info.json and params.json record two benchmark ids: reuse looks a source run
    up under the requesting benchmark's folder and requires that id (``_validate_reuse_source``), so the run is not
    reusable as the benchmark params.json records; which of the two files was edited cannot be told."""
    return (
        f"request.benchmark.id is {quote(requested)}, but params.json, written from the same request, records "
        f"{quote(recorded)}: AgentCompass 1.0.1 reuses a run only with a request for the benchmark its run_info.json "
        "names (Reuse requires the same Benchmark ID), and the summary reads this one"
    )


def _deep_merge(base: Any, override: Any) -> Any:
    """``config.deep_merge`` of one member: objects merge member by member, anything else is the override."""
    if not isinstance(base, dict) or not isinstance(override, dict):
        return override
    merged = dict(base)
    for name, value in override.items():
        merged[name] = _deep_merge(merged[name], value) if name in merged else value
    return merged


def merged_params(section: str, name: str, value: Any, request: dict[str, dict[str, Any]]) -> Finding | None:
    """What the summary refuses of params.json's ``section.name`` once merged under the request's (``request`` as
    ``summarized`` gives it): None where the request's own member overrides it or the merge is accepted; a
    request member refused alone is the request's own error."""
    own = request.get(section, {})
    if section == "model":
        if name in own:
            return None  # request_model.get(name, params_model.get(name)): the request's wins
        why = _MODEL[name][1]
        requires = why(value) if why is not None else None
    else:
        check = _EXECUTION[name][1]
        assert check is not None
        if name in own and (not isinstance(own[name], dict) or not isinstance(value, dict) or check(own[name])):
            return None  # the request's value replaces it, or is refused alone
        requires = check(_deep_merge(value, own[name]) if name in own else value)
    if requires is None:
        return None
    merged = " (merged under request.execution of run_info.json)" if section == "execution" and name in own else ""
    return Finding(
        join("/" + section, name),
        "rule.summary-refused",
        f"{SUMMARY}: params.json's {section}.{name} is {_what(value)}{merged}, which the summary reads where "
        f"run_info.json's request does not override it; AgentCompass 1.0.1 requires {requires}",
    )


def _positive_number(value: Any) -> bool:
    """What ``optional_timeout`` takes: not a boolean, ``float()`` of it finite and positive."""
    if isinstance(value, bool):
        return False
    try:
        number = float(value)
    except (TypeError, ValueError):
        return False
    return math.isfinite(number) and number > 0


def _integral(value: Any) -> bool:
    """What ``int()`` takes, as ``ExecutionSpec`` reads task_concurrency."""
    try:
        int(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def _found(parent: dict[str, Any], name: str) -> str:
    return _what(parent[name]) if name in parent else "missing"


def _anchor(parent: dict[str, Any], name: str) -> Anchor:
    return Anchor.VALUE if name in parent else Anchor.PARENT


def attempt_plan(plan: dict[str, Any], pointer: str) -> Iterator[Finding]:
    """``RunStore._normalized_attempt_plan``: exactly k (an integer >= 1) and a known strategy."""
    for name in plan:
        if name not in ("k", "strategy"):
            yield Finding(
                join(pointer, name),
                "rule.reuse-refused",
                f"{REUSE}: execution.attempts holds {quote(name)}; it holds only k and strategy",
                anchor=Anchor.KEY,
            )
    k = plan.get("k")
    if not is_int(k) or k < 1:
        yield Finding(
            join(pointer, "k"),
            "rule.reuse-refused",
            f"{REUSE}: execution.attempts.k is {_found(plan, 'k')}; expected an integer of at least 1",
            anchor=_anchor(plan, "k"),
        )
    strategy = plan.get("strategy")
    if not isinstance(strategy, str) or strategy.strip().lower() not in KNOWN_STRATEGIES:
        yield Finding(
            join(pointer, "strategy"),
            "rule.reuse-refused",
            f"{REUSE}: execution.attempts.strategy is {_found(plan, 'strategy')}; AgentCompass 1.0.1 knows "
            f"{' and '.join(KNOWN_STRATEGIES)} (a strategy a plugin registers is read only where that plugin is "
            "loaded)",
            anchor=_anchor(plan, "strategy"),
        )
    elif strategy not in KNOWN_STRATEGIES:
        yield Finding(
            join(pointer, "strategy"),
            "rule.writer-shape",
            f"strategy {quote(strategy)} is read as {strategy.strip().lower()!r}, which the AgentCompass 1.0.1 "
            "writer writes; reuse and summary strip and lower-case it",
            severity="warning",
        )


def _resolved_plans(plans: Any) -> Iterator[Finding]:
    """``materialize_reused_details`` reads the source run's per-task plans as an object by task id. Whether an
    entry is read at all depends on the run's tasks (reuse looks up only a task it reuses, and needs an object
    only where that task declares artifacts): the run's layout says so (``layouts._run_facts``); the writer's
    shape warns of any other entry."""
    if not isinstance(plans, dict):
        yield Finding(
            "/resolved_execution_plans",
            "rule.reuse-refused",
            f"{REUSE}: resolved_execution_plans is {_what(plans)}; reuse reads it as an object by task id",
        )


def _what(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    return "an array" if isinstance(value, list) else "an object"


# ------------------------------------------------------------------------------------------------------ params.json

_PARAMS_DEFAULT = (
    "the summary (launcher._summary_request_from_run_dir), the one reader of params.json, reads a section that is "
    'not an object as {"id": <its text>} and ignores what it does not use'
)


def tolerated_in_params(pointer: str) -> str:
    return _PARAMS_DEFAULT


def params(data: Any) -> Iterator[Finding]:
    """params.json alone; what the summary refuses of the settings it merges under run_info.json's request is
    ``merged_params``, run by the run's facts (``layouts._run_facts``), which see both files."""
    execution = data.get("execution") if isinstance(data, dict) else None
    attempts = execution.get("attempts") if isinstance(execution, dict) else None
    if not isinstance(attempts, dict):
        return
    # The summary merges request.execution of run_info.json over these: an extra key stays, k and strategy are
    # overridden by the request's own (which reuse requires).
    for name in attempts:
        if name not in ("k", "strategy"):
            yield Finding(
                join("/execution/attempts", name),
                "rule.summary-refused",
                f"{SUMMARY}: execution.attempts holds {quote(name)}, which the summary merges into the request's "
                "plan; it holds only k and strategy",
                anchor=Anchor.KEY,
            )
    k, strategy = attempts.get("k"), attempts.get("strategy")
    departs = {"k": "k" in attempts and (not is_int(k) or k < 1), "strategy": "strategy" in attempts and (
        strategy not in KNOWN_STRATEGIES)}  # fmt: skip
    for at in (name for name, bad in departs.items() if bad):
        yield Finding(
            join("/execution/attempts", at),
            "rule.writer-shape",
            f"{at} is {_what(attempts[at])}, unlike what the AgentCompass 1.0.1 writer writes (the request's plan); "
            "the summary reads request.execution.attempts of run_info.json over it",
            severity="warning",
        )


# ----------------------------------------------------------------------------------------------------- metrics.json

_DEFAULTS = (
    "MetricReport.model_validate gives a missing member its default (0 for counts.invalidated, null for "
    "reference_value, aggregation_weight, display and its description, unit and precision, false for "
    "evaluation_failed, empty for categories, hierarchy and extra) and strips an "
    "aggregation"
)


def tolerated_in_metrics(pointer: str) -> str:
    if pointer == "/evaluation_failed":
        return (
            "MetricReport.model_validate reads 0, 1 and the text true, yes, on, t, y or 1 as booleans (pydantic's lax "
            "bool), and the result browser reads it as true or false alike"
        )
    if "/display/" in pointer and pointer.rsplit("/", 1)[-1] in ("label", "description", "unit"):
        return "MetricReport.model_validate strips display text and reads a missing one as null (MetricDisplay)"
    return _DEFAULTS


# What pydantic's lax bool reads as true or false (case-insensitive), as MetricReport.evaluation_failed does.
_LAX_BOOL = {
    **dict.fromkeys(("1", "on", "t", "true", "y", "yes"), True),
    **dict.fromkeys(("0", "off", "f", "false", "n", "no"), False),
}
_COUNTS = ("total", "evaluated", "error", "unavailable", "invalidated")
_CANONICAL = {"correct": "binary_success", "score": "scalar"}
_AGGREGATIONS = ("micro_weighted", "category_mean", "category_hierarchy")
_ROLES = ("headline", "auxiliary")
_KINDS = ("binary_success", "scalar")
Counts = tuple[int, int, int, int, int]


def _lax_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        return _LAX_BOOL.get(value.lower())
    return None


def _counts_of(counts: Any) -> Counts | None:
    """A ``SeriesCounts`` as the model reads it (invalidated defaults to 0), or None where it refuses its fields."""
    if not isinstance(counts, dict):
        return None
    values: list[int] = []
    for name in _COUNTS:
        value = counts.get(name, 0 if name == "invalidated" else None)
        if not is_int(value) or value < 0:
            return None
        values.append(value)
    return (values[0], values[1], values[2], values[3], values[4])


def _number(value: Any) -> float | bool | None:
    """``_finite_optional_number``: the float, None for null, False where it refuses the value."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        number = float(value)
    except OverflowError:
        return False
    return number if math.isfinite(number) else False


def _breakdown_of(part: Any) -> tuple[Any, ...] | None:
    """A ``MetricBreakdown`` as the model compares two of them, or None where it refuses its fields."""
    if not isinstance(part, dict) or "value" not in part:
        return None
    numbers = [_number(part.get(name)) for name in ("value", "reference_value", "aggregation_weight")]
    counts = _counts_of(part.get("counts"))
    if counts is None or any(number is False for number in numbers):
        return None
    return (*numbers, counts)


_ZERO = (None, None, 0.0, (0, 0, 0, 0, 0))  # the breakdown of a hierarchy leaf without a category


def _mapping(item: dict[str, Any], name: str) -> dict[str, Any] | None:
    """categories or hierarchy of a series ({} when missing), None where the model refuses it."""
    value = item.get(name, {})
    return value if isinstance(value, dict) else None


_Planned = tuple[str, str, str, bool]  # (metric_id, kind, reducer, headline) of a series


@attrs.define
class _MetricReport:
    """What each series of metrics.json is judged by, and what the series must agree on, gathered one by one."""

    k: Any
    aggregation: Any
    first: dict[str, Any] | None  # the first series, which every other covers the tasks of
    failed: bool | None  # evaluation_failed as the values are judged by it
    headlines: dict[str, int] = attrs.Factory(dict)  # headline metric -> where it is first a headline
    roles: dict[str, tuple[str, int]] = attrs.Factory(dict)  # metric -> its role and where it first has one
    seen: dict[str, int] = attrs.Factory(dict)  # series_id -> where it first appears
    planned: list[_Planned] | None = attrs.Factory(list)  # None once a series is not all there

    def plan(self, item: dict[str, Any], reducer: str | None) -> None:
        metric, kind, role = item.get("metric_id"), item.get("kind"), item.get("role")
        if self.planned is not None and isinstance(metric, str) and kind in _KINDS and reducer and role in _ROLES:
            self.planned.append((metric, kind, reducer, role == "headline"))
        else:
            self.planned = None


def metrics(data: Any) -> Iterator[Finding]:
    """metrics.json: what ``MetricReport.model_validate`` checks beyond the shape of each member."""
    if not isinstance(data, dict):
        return
    strategy = data.get("strategy")
    known_strategy = None
    if isinstance(strategy, str):
        found, known_strategy = _read_as(strategy, "/strategy", KNOWN_STRATEGIES, "rule.unknown-strategy", "strategy")
        yield from found
    raw_failed = data.get("evaluation_failed", False)
    failed = _lax_bool(raw_failed)
    yield from _evaluation_failed(raw_failed, failed)
    series = data.get("series")
    if not isinstance(series, list):
        return
    first = series[0] if series and isinstance(series[0], dict) else None
    first_counts = _counts_of(first.get("counts")) if first is not None else None
    if failed is not None and first_counts is not None and failed != (first_counts[4] > 0):
        failed = first_counts[4] > 0  # the flag is at fault: the values are judged by what it should say
        yield _failed_unlike_counts(data, first_counts[4])
    report = _MetricReport(data.get("k"), data.get("aggregation"), first, failed)
    for position, item in enumerate(series):
        if isinstance(item, dict):
            yield from _series(report, position, item)
        else:
            report.planned = None
    yield from _headline(report, len(series), known_strategy)


def _read_as(
    value: str, pointer: str, known: tuple[str, ...], code: str, what: str
) -> tuple[list[Finding], str | None]:
    """What ``_identifier`` finds of a strategy or reducer, and the name it is read as where none of it is an error."""
    found = list(_identifier(value, pointer, known, code, what))
    return found, None if any(finding.severity == "error" for finding in found) else value.strip().lower()


def _evaluation_failed(raw: Any, failed: bool | None) -> Iterator[Finding]:
    """evaluation_failed as the model reads it (``_lax_bool``) and as the result browser shows it."""
    if failed is None and isinstance(raw, (int, float, str)) and not isinstance(raw, bool):
        yield Finding(
            "/evaluation_failed",
            "rule.metric-report",
            f"{MODEL}: evaluation_failed is {_what(raw)}; expected true or false",
        )
    elif failed is False and isinstance(raw, str):
        yield Finding(
            "/evaluation_failed",
            "rule.evaluation-failed",
            f"evaluation_failed is {_what(raw)}, which MetricReport reads as false but the AgentCompass 1.0.1 "
            "result browser shows as a failed evaluation (it reads any non-empty text as true); expected false",
        )


def _failed_unlike_counts(data: dict[str, Any], invalidated: int) -> Finding:
    failed = invalidated > 0
    return Finding(
        "/evaluation_failed" if "evaluation_failed" in data else "/series/0/counts/invalidated",
        "rule.evaluation-failed",
        f"{MODEL}: evaluation_failed is {str(not failed).lower()}, but the first series counts {invalidated} "
        "invalidated task(s); evaluation_failed is true exactly when a fatal issue invalidated a task",
    )


def _series(report: _MetricReport, position: int, item: dict[str, Any]) -> Iterator[Finding]:
    """One series: its name and reducer, what it shares with the others, its counts and breakdowns, its values."""
    pointer = join("/series", position)
    reducer, known = item.get("reducer"), None
    if isinstance(reducer, str):
        found, known = _read_as(reducer, join(pointer, "reducer"), REDUCERS, "rule.unknown-reducer", "reducer")
        yield from found
    yield from _series_name(item, pointer, known)
    yield from _shared(report, position, item)
    report.plan(item, known)
    yield from _all_counts(item, pointer)
    if report.aggregation in _AGGREGATIONS:
        yield from _hierarchy_fits(item, pointer, report.aggregation)
    if report.first is not None and position > 0:
        yield from _like_the_first(item, report.first, pointer)
    if report.failed is not None:
        yield from _values(item, pointer, report.failed)


def _series_name(item: dict[str, Any], pointer: str, reducer: str | None) -> Iterator[Finding]:
    """The series_id <metric_id>.<reducer>@<k>, the reducer's bounds on k, and the aggregation's name."""
    metric, series_k = item.get("metric_id"), item.get("k")
    if isinstance(metric, str) and reducer is not None and is_int(series_k):
        expected = f"{metric}.{reducer}@{series_k}"
        if item.get("series_id") != expected:
            yield Finding(
                join(pointer, "series_id"),
                "rule.series-id",
                f"{MODEL}: series_id is {quote(str(item.get('series_id')))}; a series is named "
                f"<metric_id>.<reducer>@<k>: expected {expected!r}",
            )
    if reducer is not None and is_int(series_k):
        yield from _reducer_fits(reducer, series_k, item.get("kind"), pointer)
    aggregation = item.get("aggregation")
    if isinstance(aggregation, str) and not _IDENTIFIER.fullmatch(aggregation.strip()):
        yield Finding(
            join(pointer, "aggregation"),
            "rule.metric-report",
            f"{MODEL}: aggregation {quote(aggregation)} is not an identifier (a letter, then letters, "
            "digits, '.', '_' or '-')",
        )


def _shared(report: _MetricReport, position: int, item: dict[str, Any]) -> Iterator[Finding]:
    """What the series share: a series_id of each its own, the report's k, one role for all series of a metric."""
    pointer = join("/series", position)
    series_id, series_k, metric, role = item.get("series_id"), item.get("k"), item.get("metric_id"), item.get("role")
    if isinstance(series_id, str):
        if series_id in report.seen:
            yield Finding(
                join(pointer, "series_id"),
                "rule.series-id",
                f"{MODEL}: series {quote(series_id)} also appears at /series/{report.seen[series_id]}",
            )
        report.seen.setdefault(series_id, position)
    if is_int(report.k) and is_int(series_k) and series_k != report.k:
        yield Finding(
            join(pointer, "k"), "rule.series-k", f"{MODEL}: the series has k = {series_k}, the report k = {report.k}"
        )
    if isinstance(metric, str) and role in _ROLES:
        earlier = report.roles.setdefault(metric, (role, position))
        if earlier[0] != role:
            yield Finding(
                join(pointer, "role"),
                "rule.metric-report",
                f"{MODEL}: metric {quote(metric)} is {role} here but {earlier[0]} at /series/{earlier[1]}; all "
                "series of a metric have one role",
            )
        if role == "headline":
            report.headlines.setdefault(metric, position)


def _all_counts(item: dict[str, Any], pointer: str) -> Iterator[Finding]:
    """The counts of the series and of each breakdown, how the categories sum, and the hierarchy's tree."""
    yield from _series_counts(item.get("counts"), join(pointer, "counts"))
    for group in ("categories", "hierarchy"):
        parts = item.get(group)
        if isinstance(parts, dict):
            for name, part in parts.items():
                if isinstance(part, dict):
                    yield from _series_counts(part.get("counts"), join(pointer, group, name, "counts"))
    yield from _category_sums(item, pointer)
    yield from _hierarchy(item, pointer)


def _hierarchy_fits(item: dict[str, Any], pointer: str, aggregation: str) -> Iterator[Finding]:
    """A hierarchy breakdown in every series of a category_hierarchy report, and in no series of another."""
    hierarchy = _mapping(item, "hierarchy")
    if hierarchy is not None and (aggregation == "category_hierarchy") != bool(hierarchy):
        yield Finding(
            join(pointer, "hierarchy"),
            "rule.metric-report",
            f"{MODEL}: "
            + ("a category_hierarchy report has a hierarchy breakdown in every series; this one has none"
               if hierarchy == {} else
               f"a hierarchy breakdown belongs only in a category_hierarchy report, not a {aggregation} one"),
            anchor=Anchor.VALUE if "hierarchy" in item else Anchor.PARENT,
        )  # fmt: skip


def _headline(report: _MetricReport, count: int, strategy: str | None) -> Iterator[Finding]:
    """Exactly one headline metric; where every series is all there, the primary metric and the strategy's rules."""
    if len(report.headlines) != 1:
        found = ", ".join(sorted(report.headlines)) or "none"
        yield Finding(
            "/series", "rule.headline", f"{MODEL}: a metric report has exactly one headline metric; found {found}"
        )
    elif report.planned is not None and len(report.planned) == count:
        yield from _primary(report.planned)
        if strategy is not None and is_int(report.k):
            yield from _strategy_holds(strategy, report.k, report.planned)


def _like_the_first(item: dict[str, Any], first: dict[str, Any], pointer: str) -> Iterator[Finding]:
    """Every series covers the tasks of the first: its category keys, hierarchy paths, total and invalidated."""
    counts, expected = _counts_of(item.get("counts")), _counts_of(first.get("counts"))
    if counts is not None and expected is not None:
        for index, name in ((4, "invalidated"), (0, "total")):
            if counts[index] != expected[index]:
                yield Finding(
                    join(pointer, "counts", name),
                    "rule.metric-report",
                    f"{MODEL}: counts.{name} is {counts[index]}, but {expected[index]} in /series/0; every series "
                    "counts the same " + ("invalidated tasks" if name == "invalidated" else "candidate tasks"),
                    anchor=Anchor.VALUE if name in (item.get("counts") or {}) else Anchor.PARENT,
                )
    for group in ("categories", "hierarchy"):
        parts, others = _mapping(item, group), _mapping(first, group)
        if parts is None or others is None:
            continue
        what = "category" if group == "categories" else "hierarchy path"
        for name in parts:
            if name not in others:
                yield Finding(
                    join(pointer, group, name),
                    "rule.metric-report",
                    f"{MODEL}: {what} {quote(name)} is not in /series/0; every series has the same {group} keys",
                    anchor=Anchor.KEY,
                )
                continue
            own, theirs = _breakdown_of(parts[name]), _breakdown_of(others[name])
            if own is None or theirs is None:
                continue
            for index, field in ((0, "total"), (4, "invalidated")):
                if own[3][index] != theirs[3][index]:
                    yield Finding(
                        join(pointer, group, name, "counts", field),
                        "rule.metric-report",
                        f"{MODEL}: counts.{field} of {what} {quote(name)} is {own[3][index]}, but {theirs[3][index]} "
                        "in /series/0; corresponding breakdowns count the same tasks",
                    )
        missing = [name for name in others if name not in parts]
        if missing:
            yield Finding(
                join(pointer, group),
                "rule.metric-report",
                f"{MODEL}: {what} {', '.join(quote(name) for name in missing)} of /series/0 missing; every series has "
                f"the same {group} keys",
                anchor=Anchor.VALUE if group in item else Anchor.PARENT,
            )


def _category_sums(item: dict[str, Any], pointer: str) -> Iterator[Finding]:
    """The categories partition the series' tasks: each count is the sum of the categories' counts."""
    categories, counts = _mapping(item, "categories"), _counts_of(item.get("counts"))
    if categories is None or counts is None:
        return
    parts = [_counts_of(part.get("counts")) if isinstance(part, dict) else None for part in categories.values()]
    if any(part is None for part in parts):
        return
    for index, name in enumerate(_COUNTS):
        total = sum(part[index] for part in parts if part is not None)
        if total != counts[index]:
            yield Finding(
                join(pointer, "counts", name),
                "rule.metric-report",
                f"{MODEL}: counts.{name} is {counts[index]}, but the categories' counts.{name} sum to {total}; the "
                "categories partition the series' tasks",
                anchor=Anchor.VALUE if name in (item.get("counts") or {}) else Anchor.PARENT,
            )


def _segment(segment: str) -> str | None:
    """``_decode_hierarchy_segment``: the name a canonical path segment escapes (~0, ~1), None if not canonical."""
    if re.search(r"~(?![01])", segment):
        return None
    return segment.replace("~1", "/").replace("~0", "~")


def _hierarchy(item: dict[str, Any], pointer: str) -> Iterator[Finding]:
    """``overall`` and paths below it; a parent counts what its children count; a leaf is its category's copy."""
    hierarchy, categories = _mapping(item, "hierarchy"), _mapping(item, "categories")
    if not hierarchy:
        return
    at = join(pointer, "hierarchy")
    if "overall" not in hierarchy:
        yield Finding(at, "rule.metric-report", f"{MODEL}: a hierarchy breakdown has an 'overall' root; none found")
        return
    children: dict[str, list[str]] = {}
    leaves = set(hierarchy)
    for path in hierarchy:
        segments = path.split("/")
        if segments[0] != "overall" or "" in segments or any(_segment(each) is None for each in segments):
            yield Finding(
                join(at, path),
                "rule.metric-report",
                f"{MODEL}: hierarchy path {quote(path)} is not 'overall' followed by '/'-separated non-empty names "
                "escaped as JSON Pointer segments (~0 for '~', ~1 for '/')",
                anchor=Anchor.KEY,
            )
            return
        if path == "overall":
            continue
        parent = path.rsplit("/", 1)[0]
        if parent not in hierarchy:
            yield Finding(
                join(at, path),
                "rule.metric-report",
                f"{MODEL}: hierarchy path {quote(path)} has no parent breakdown {quote(parent)}",
                anchor=Anchor.KEY,
            )
            return
        children.setdefault(parent, []).append(path)
        leaves.discard(parent)
    parts = {path: _breakdown_of(part) for path, part in hierarchy.items()}
    for parent, paths in children.items():
        own, below = parts[parent], [parts[path] for path in paths]
        if own is None or any(part is None for part in below):
            continue
        total = tuple(sum(part[3][index] for part in below if part is not None) for index in range(5))
        if total != own[3]:
            yield Finding(
                join(at, parent, "counts"),
                "rule.metric-report",
                f"{MODEL}: hierarchy node {quote(parent)} counts {_counted(own[3])}, but its children count "
                f"{_counted(total)}",
            )
    for path in sorted(leaves):
        name = _segment(path.rsplit("/", 1)[-1])
        category = categories.get(name) if categories is not None and name is not None else None
        expected = _ZERO if category is None else _breakdown_of(category)
        if parts[path] is not None and expected is not None and parts[path] != expected:
            where = f"category {quote(name or '')}" if category is not None else "no category (all zero and null)"
            yield Finding(
                join(at, path),
                "rule.metric-report",
                f"{MODEL}: hierarchy leaf {quote(path)} is not a copy of its category: expected the value, "
                f"reference_value, counts and aggregation_weight of {where}",
            )
    root, counts = parts["overall"], _counts_of(item.get("counts"))
    if root is not None and counts is not None:
        for index, name in enumerate(_COUNTS):
            if root[3][index] > counts[index]:
                yield Finding(
                    join(at, "overall", "counts", name),
                    "rule.metric-report",
                    f"{MODEL}: the hierarchy's overall counts.{name} is {root[3][index]}, more than the series' "
                    f"{counts[index]}",
                    anchor=Anchor.VALUE if name in (hierarchy["overall"].get("counts") or {}) else Anchor.PARENT,
                )


def _counted(counts: tuple[int, ...]) -> str:
    return ", ".join(f"{name} {value}" for name, value in zip(_COUNTS, counts, strict=True))


def _primary(planned: list[_Planned]) -> Iterator[Finding]:
    """One kind of headline series; the primary is binary_success 'correct' or scalar 'score', and the other of
    those ids is used by no series."""
    heads = [(position, each) for position, each in enumerate(planned) if each[3]]
    kinds = {each[1] for _, each in heads}
    if len(kinds) != 1:
        first_kind = heads[0][1][1]
        for position, each in heads:
            if each[1] != first_kind:
                yield Finding(
                    join("/series", position, "kind"),
                    "rule.metric-report",
                    f"{MODEL}: the primary metric's series are {first_kind} at /series/{heads[0][0]} but {each[1]} "
                    "here; all primary series use one kind",
                )
        return
    position, (primary, kind, _, _) = heads[0]
    if primary not in _CANONICAL:
        yield Finding(
            join("/series", position, "metric_id"),
            "rule.metric-report",
            f"{MODEL}: the primary metric is {quote(primary)}; the primary metric must be binary_success 'correct' or "
            "scalar 'score'",
        )
        return
    if _CANONICAL[primary] != kind:
        yield Finding(
            join("/series", position, "kind"),
            "rule.metric-report",
            f"{MODEL}: the primary metric {quote(primary)} is {kind}; {primary!r} is {_CANONICAL[primary]}",
        )
        return
    for position, each in enumerate(planned):
        if each[0] in _CANONICAL and each[0] != primary:
            yield Finding(
                join("/series", position, "metric_id"),
                "rule.metric-report",
                f"{MODEL}: metric id {quote(each[0])} is reserved for the primary metric, which is {primary!r}",
            )


def _strategy_holds(strategy: str, k: int, planned: list[_Planned]) -> Iterator[Finding]:
    """``AttemptStrategy.validate_report`` of avg and pass. Its k = 1 rule (only native series) and avg's (only avg
    and pass above k = 1) are the reducers' own bounds, reported at each series (``_reducer_fits``, rule.series-k)."""
    heads = [each for each in planned if each[3]]
    binary = {each[1] for each in heads} == {"binary_success"}
    reducers = {each[2] for each in heads}
    if strategy == "avg" and k > 1:
        for needed in ("avg", "pass") if binary else ("avg",):
            if needed not in reducers:
                yield Finding(
                    "/series",
                    "rule.metric-report",
                    f"{MODEL}: an avg report with k = {k} holds the primary metric's {needed} series; none found",
                )
    elif strategy == "pass":
        if not binary:
            position = next(index for index, each in enumerate(planned) if each[3])
            yield Finding(
                join("/series", position, "kind"),
                "rule.metric-report",
                f"{MODEL}: the pass strategy requires a binary_success primary metric",
            )
        elif k > 1:
            for position, each in enumerate(planned):
                if not each[3] or each[2] != "pass":
                    yield Finding(
                        join("/series", position),
                        "rule.metric-report",
                        f"{MODEL}: a pass report with k = {k} holds only the primary metric's pass series, not "
                        f"{quote(each[0] + '.' + each[2])}",
                    )


def _identifier(value: str, pointer: str, known: tuple[str, ...], code: str, what: str) -> Iterator[Finding]:
    """A strategy or reducer as the registries resolve it: stripped, an identifier, lower-cased, registered."""
    normalized = value.strip().lower()
    if not _IDENTIFIER.fullmatch(value.strip()) or normalized not in known:
        yield Finding(
            pointer,
            code,
            f"{MODEL}: unknown {what} {quote(value)}; AgentCompass 1.0.1 knows {', '.join(known)} (one a plugin "
            "registers is read only where that plugin is loaded)",
        )
    elif value != normalized:
        yield Finding(
            pointer,
            "rule.writer-shape",
            f"{what} {quote(value)} is read as {normalized!r}, which the AgentCompass 1.0.1 writer writes; "
            "MetricReport.model_validate strips and lower-cases it",
            severity="warning",
        )


def _reducer_fits(reducer: str, k: int, kind: Any, pointer: str) -> Iterator[Finding]:
    if (reducer == "native" and k != 1) or (reducer in ("avg", "pass") and k <= 1):
        needs = "k = 1" if reducer == "native" else "k > 1"
        yield Finding(
            join(pointer, "reducer"),
            "rule.metric-report",
            f"{MODEL}: a {reducer} series has k = {k}; {reducer} requires {needs}",
        )
    elif reducer == "pass" and kind == "scalar":
        yield Finding(join(pointer, "reducer"), "rule.metric-report", f"{MODEL}: pass does not reduce a scalar metric")


def _values(item: dict[str, Any], pointer: str, failed: bool) -> Iterator[Finding]:
    """Where the value of each scope goes: ``value``, or ``reference_value`` once evaluation_failed."""
    selected, forbidden = ("reference_value", "value") if failed else ("value", "reference_value")
    hierarchy = item.get("hierarchy")
    overall = hierarchy.get("overall") if isinstance(hierarchy, dict) else None
    overall = overall if isinstance(overall, dict) else None
    scopes: list[tuple[str, dict[str, Any], Any]] = [
        (pointer, item, overall.get("counts") if overall is not None else item.get("counts"))
    ]
    for group in ("categories", "hierarchy"):
        parts = item.get(group)
        for name, part in parts.items() if isinstance(parts, dict) else ():
            if isinstance(part, dict):
                scopes.append((join(pointer, group, name), part, part.get("counts")))
    for at, part, counts in scopes:
        evaluated = counts.get("evaluated") if isinstance(counts, dict) else None
        if part.get(forbidden) is not None:
            yield Finding(
                join(at, forbidden),
                "rule.series-value",
                f"{MODEL}: {forbidden} is set, but evaluation_failed is {str(failed).lower()}: the value belongs in "
                f"{selected}",
            )
        elif is_int(evaluated) and evaluated > 0 and part.get(selected) is None:
            yield Finding(
                join(at, selected),
                "rule.series-value",
                f"{MODEL}: {evaluated} task(s) were evaluated, but {selected} is null",
                anchor=Anchor.VALUE if selected in part else Anchor.PARENT,
            )
        own = part.get("counts")
        if isinstance(own, dict) and own.get("evaluated") == 0:
            for name in ("value", "reference_value"):
                if part.get(name) is not None and name != forbidden:
                    yield Finding(
                        join(at, name), "rule.series-value", f"{MODEL}: no task was evaluated, so {name} is null"
                    )
        for name in ("value", "reference_value", "aggregation_weight"):
            if is_int(part.get(name)) and _number(part[name]) is False:
                yield Finding(
                    join(at, name),
                    "rule.series-value",
                    f"{MODEL}: {name} is an integer too large to read as a finite number",
                )
        if item.get("kind") == "binary_success":
            for name in ("value", "reference_value"):
                value = part.get(name)
                number = _number(value)
                if isinstance(number, float) and not 0 <= number <= 1:
                    yield Finding(
                        join(at, name),
                        "rule.series-value",
                        f"{MODEL}: {name} {value!r} of a binary_success metric is outside [0, 1]",
                    )


def _series_counts(counts: Any, pointer: str) -> Iterator[Finding]:
    if not isinstance(counts, dict):
        return
    values: dict[str, int] = {}
    for name in _COUNTS:
        value = counts.get(name, 0 if name == "invalidated" else None)  # MetricReport's default
        if not is_int(value):
            return
        values[name] = value
    parts = values["evaluated"] + values["unavailable"] + values["invalidated"]
    if parts != values["total"]:
        yield Finding(
            join(pointer, "total"),
            "rule.series-counts",
            f"{MODEL}: total is {values['total']}, but evaluated + unavailable + invalidated = {parts}",
        )
    elif values["error"] > values["total"]:
        yield Finding(
            join(pointer, "error"),
            "rule.series-counts",
            f"{MODEL}: error is {values['error']}, more than the total of {values['total']} tasks",
        )


# -------------------------------------------------------------------------------- analysis and progress: browsed only


def tolerated_in_analysis_summary(pointer: str) -> str:
    return (
        "only the result browser reads analysis_summary.json back (viewer/reader.py), and it skips a row or item it "
        "cannot use"
    )


def tolerated_in_progress(pointer: str) -> str:
    return "only the result browser reads progress.json back, and shows it as it is"


def tolerated_in_progress_events(pointer: str) -> str:
    return "no AgentCompass 1.0.1 reader reads progress.jsonl"


def analysis_summary(data: Any) -> Iterator[Finding]:
    return iter(())


def progress(data: Any) -> Iterator[Finding]:
    return iter(())


def progress_event(data: Any) -> Iterator[Finding]:
    return iter(())
