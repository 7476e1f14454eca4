"""The settings a run takes from outside its command line: the configuration file, the baseline of issues, the
allow-list of reviewed secrets, and the limits and exclusions they set."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..application._front_door import CheckRequest
from ..project import _config, _known
from ..reading._trusted import Untrusted, warn_on_stderr
from ..vocabulary._issues import SpecError
from ..vocabulary._settings import AllowList, Limits
from ._options import ALLOW_LIST
from ._status import shown


def _limits(arguments: argparse.Namespace) -> Limits:
    """The command line's limits, then the configuration's, then the defaults."""
    given = {
        "max_file_size": arguments.max_file_size,
        "max_depth": arguments.max_depth,
        "max_issues": arguments.max_issues,
        "shown_length": arguments.max_shown,
    }
    config: _config.Config = getattr(arguments, "configuration", _config.Config())
    return config.applied_to(Limits(), given)


def _configure(arguments: argparse.Namespace) -> None:
    """Read the configuration of a command that reports issues (validate, scan, check-l1, watch): a problem in it
    is a usage error, found before anything is checked."""
    if not hasattr(arguments, "no_config"):  # the command has no configuration options (_configuration_options)
        return
    config = _config.load(arguments.config, search=_discovering(arguments))
    config = config.with_command_line(arguments.exclude, arguments.select, arguments.ignore)
    arguments.configuration = config
    if config.path is not None:  # settings that bend the verdict are always said (the reports say it too, or none)
        print(f"agentbeats-spec: configuration {shown(config.path)}", file=sys.stderr)
    arguments.strict = arguments.strict or config.strict
    baseline: Path | None = getattr(arguments, "issue_baseline", None)
    arguments.known = _known.read(baseline) if baseline is not None else None


def _excluded(arguments: argparse.Namespace) -> Callable[[str], bool] | None:
    """What the configuration and --exclude leave out, for the settings of the run (None: nothing)."""
    config: _config.Config | None = getattr(arguments, "configuration", None)
    return config.excluded if config is not None and config.exclude else None


def _discovering(arguments: argparse.Namespace) -> bool:
    """Whether settings are looked for from the working folder (the configuration, ./agentbeats-secrets.allow):
    not with --no-config, nor where AGENTBEATS_SPEC_NO_CONFIG is set to anything."""
    return not getattr(arguments, "no_config", False) and not os.environ.get(_config.NO_CONFIG)


def _allow_list(path: Path | None, arguments: argparse.Namespace, baseline: Path | None = None) -> AllowList:
    """The allow-list named, else ./agentbeats-secrets.allow when settings are looked for (``_discovering``) and
    it is there, with the key beside it: one that another user owns or others may write is refused when named
    (exit 2) and, when found, not used (one warning). Without one, the key beside ``baseline`` (a baseline of
    issues whose messages hold fingerprints), else a key for this run alone: a fingerprint that outlives the run
    needs a key kept in a file, and one is made only beside a file the user named or placed."""
    from ..credentials import _keys, _scan  # lazy: validate without --secrets never imports the scanner

    if path is not None or (_discovering(arguments) and os.path.lexists(ALLOW_LIST)):
        named = ALLOW_LIST if path is None else path
        try:
            return _scan.read_allow_list(named)
        except Untrusted as untrusted:
            if path is not None:
                raise
            warn_on_stderr(untrusted.passed_over())
        except (OSError, UnicodeDecodeError) as error:
            raise SpecError(f"cannot read the allow-list {shown(named)}: {error}") from None
    if baseline is None:
        return AllowList()
    return AllowList(key=_keys.read_or_make(_keys.beside(baseline)), lasting=True)


def _request(arguments: argparse.Namespace, **options: Any) -> CheckRequest:
    """The front door's request of a command: its limits and what the configuration leaves out, then ``options``
    (the settings themselves are put together by the front door only)."""
    limits = _limits(arguments) if hasattr(arguments, "max_depth") else None
    return CheckRequest(limits=limits, excluded=_excluded(arguments), **options)
