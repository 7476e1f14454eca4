"""``main``: the parsed command run with the settings of its command line, and every way it can end (the exit
codes, SIGTERM and SIGHUP, a closed pipe or a full disk on standard output, the one-line internal error)."""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import io
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence

from ..application._front_door import settings_applied
from ..checking._collect import CheckFailed, Report
from ..vocabulary._issues import SpecError
from ._commands import parser
from ._configuration import _configure, _request
from ._reports import _write_outputs
from ._status import EXIT_INTERNAL, EXIT_USAGE, shown

EXIT_BROKEN_PIPE = 128 + 13  # what a shell shows for a program ended by SIGPIPE, as `yes | head` is


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):  # never fail on a character the terminal cannot show
            stream.reconfigure(errors="backslashreplace")
    arguments = parser().parse_args(argv)
    # What start-up made (modules, the parser, the kind table) lives as long as the process: out of the cyclic
    # collector's sight, the collections that the parsed documents of a big tree set off do not walk it each time.
    gc.freeze()
    try:
        _configure(arguments)
        with _stopping_on_signals(), settings_applied(_request(arguments)):
            status: int = arguments.handler(arguments)
        sys.stdout.flush()  # a full disk or a closed pipe shows here at the latest, while it can still be told
        return status
    except SpecError as error:
        print(f"agentbeats-spec: error: {shown(error)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as error:
        if not _is_stdout_error(error):
            return _os_error(error, arguments)
        _discard_stdout()
        reason = shown(error.strerror or error)
        print(f"agentbeats-spec: error: cannot write standard output: {reason}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as error:  # Ctrl-C, SIGTERM or SIGHUP: workers and clusters are stopped on the way
        print("agentbeats-spec: interrupted", file=sys.stderr)
        return 128 + (error.signum if isinstance(error, Stopped) else signal.SIGINT)
    except CheckFailed as error:  # a bug met on one file: name it, so that it can be reported with the file
        return _internal(arguments, f"while checking {error.file}", f"while checking {shown(error.file)} "
                         f"({shown(error.detail)})", "that file")  # fmt: skip
    except Exception as error:  # a bug: say so in one line, never with a traceback
        return _internal(arguments, f"({type(error).__name__})", f"({type(error).__name__}: {shown(error)})")
    finally:
        gc.unfreeze()  # main called again in the same process (tests, an embedding tool) frees what it leaves


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread so that the run ends as it does on Ctrl-C: every ``finally``
    runs, worker processes and a local Dask cluster are stopped and their scratch folders removed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


# The signals that end a run as Ctrl-C does (SIGHUP: the terminal went away); Windows has no SIGHUP.
STOPPING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def _stopping_on_signals() -> Iterator[None]:
    """While the command runs, SIGTERM and SIGHUP raise :class:`Stopped`; a signal the caller ignores (``nohup``)
    stays ignored. Only the first one stops the run: the ones that follow would cut the cleanup short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        if os.getpid() != owner:  # a forked worker that has not set its own handlers yet: die as it would
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        if not stopping:
            stopping = True
            raise Stopped(signum)

    previous = {
        signum: signal.signal(signum, stop) for signum in STOPPING if signal.getsignal(signum) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that the flush at exit cannot fail again and print a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _os_error(error: OSError, arguments: argparse.Namespace) -> int:
    """An OSError that no command turned into an issue. One about a path (a named run swapped for a link while it
    was read, a folder removed meanwhile) is a problem of the input: exit 2, naming the path, never a traceback and
    never exit 1, which CI would read as "invalid". So is a working folder that was deleted. Any other is a bug:
    the one-line internal error (exit 3)."""
    reason = error.strerror or str(error)
    if error.filename is not None:
        note = f"{error.filename}: {reason}"
    elif _working_folder_gone():
        note = f"the working folder cannot be read (was it deleted?): {reason}"
    else:
        return _internal(arguments, f"({type(error).__name__})", f"({type(error).__name__}: {shown(error)})")
    print(f"agentbeats-spec: error: {shown(note)}", file=sys.stderr)
    with contextlib.suppress(Exception):  # the outputs say the run failed, if they can
        _write_outputs(Report((), 0), arguments, EXIT_USAGE, (note,))
    return EXIT_USAGE


def _working_folder_gone() -> bool:
    try:
        os.getcwd()
    except OSError:
        return True
    return False


def _internal(arguments: argparse.Namespace, recorded: str, said: str, file: str = "the file that caused it") -> int:
    """A bug: said in one line, never with a traceback (exit 3); ``recorded`` goes to the outputs (a SARIF
    invocation), ``said`` to standard error, each after "internal error "."""
    with contextlib.suppress(Exception):  # the outputs say the run failed, if they can
        _write_outputs(Report((), 0), arguments, EXIT_INTERNAL, (f"internal error {recorded}",))
    print(
        f"agentbeats-spec: internal error {said}; please report it with the command line and, if you can, {file}",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


def _is_stdout_error(error: OSError) -> bool:
    """Whether an OSError came from writing the report (a file we write ourselves raises WriteError)."""
    return error.filename is None and error.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EPIPE)
