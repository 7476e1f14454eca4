"""SIGTERM and SIGHUP end a run as Ctrl-C does: worker processes and a local Dask cluster stop with it.

Each test starts the command in a subprocess on a run whose check is held in progress (a hook makes every unit
wait, so the signal always lands mid-run), sends the signal once the work has started, and then checks the exit
status (128 + the signal), that stderr holds the one "interrupted" line after the hook's own marker, that no
process the command started is still alive, and that no scratch folder is left in its temporary folder.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT, VALID

psutil = pytest.importorskip("psutil")

# Every unit waits (in the worker process that runs it) until the command is stopped.
POOL_HOOK = """
import sys, time
from agentbeats_spec.cli import main
from agentbeats_spec.units import _running

def held(units, settings):
    print("unit started", file=sys.stderr, flush=True)
    time.sleep(600)

_running.WORKERS_GAIN_BYTES = 1  # workers even for a small run
_running.run_units = held
sys.exit(main(sys.argv[1:]))
"""

# The cluster is up (scheduler, nannies, workers) and the check waits.
DASK_HOOK = """
import sys, time

def held(*arguments, **options):
    print("unit started", file=sys.stderr, flush=True)
    time.sleep(600)

if __name__ == "__main__":  # the cluster's processes are spawned: they import this file
    from agentbeats_spec import distributed
    from agentbeats_spec.cli import main

    distributed.check_with_dask = held
    sys.exit(main(sys.argv[1:]))
"""

# The signal comes while the cluster is starting (a cluster half started cannot be closed).
STARTING_HOOK = """
import sys

if __name__ == "__main__":
    import distributed
    from agentbeats_spec.cli import main

    start = distributed.LocalCluster.__init__

    def starting(self, *arguments, **options):
        print("unit started", file=sys.stderr, flush=True)
        start(self, *arguments, **options)

    distributed.LocalCluster.__init__ = starting
    sys.exit(main(sys.argv[1:]))
"""


def stopped(tmp_path: Path, hook: str, options: list[str], signum: int) -> tuple[int, str, dict[int, str]]:
    """Exit status and stderr of the command stopped by ``signum`` once its work started, and its processes."""
    run = tmp_path / "run"
    shutil.copytree(VALID / "agentcompass-run", run)
    script = tmp_path / "hook.py"
    script.write_text(hook)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TMPDIR": str(scratch)}
    command = [sys.executable, str(script), "validate", "--no-cache", *options, str(run)]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=environment, cwd=tmp_path)
    assert process.stderr is not None
    try:
        line = process.stderr.readline()
        assert line == "unit started\n"
        below = psutil.Process(process.pid).children(recursive=True)
        children = {child.pid: " ".join(child.cmdline()) for child in below}
        process.send_signal(signum)
        rest = process.stderr.read()
        status = process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return status, rest, children


def leftovers(tmp_path: Path) -> list[str]:
    """Every process still running that the command started, however far below it: they carry its TMPDIR."""
    scratch = str(tmp_path / "tmp")
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get("TMPDIR") == scratch and process.status() != psutil.STATUS_ZOMBIE:
                found.append(" ".join(process.cmdline()))
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return found


def alive(children: dict[int, str]) -> list[str]:
    found = []
    for pid, command in children.items():
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                found.append(command)
        except psutil.NoSuchProcess:
            pass
    return found


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
def test_a_signal_ends_the_worker_processes_of_jobs(tmp_path: Path, signum: int, status: int) -> None:
    code, stderr, children = stopped(tmp_path, POOL_HOOK, ["--jobs", "2"], signum)
    assert (code, stderr) == (status, "agentbeats-spec: interrupted\n")
    assert len(children) == 2  # both workers had started
    assert alive(children) == [] and leftovers(tmp_path) == []
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.parametrize(
    ("hook", "signum", "status"),
    [(DASK_HOOK, signal.SIGTERM, 143), (DASK_HOOK, signal.SIGHUP, 129), (STARTING_HOOK, signal.SIGTERM, 143)],
    ids=["running-SIGTERM", "running-SIGHUP", "starting-SIGTERM"],
)
def test_a_signal_closes_the_local_dask_cluster_and_its_scratch_space(
    tmp_path: Path, hook: str, signum: int, status: int
) -> None:
    pytest.importorskip("distributed")
    code, stderr, children = stopped(tmp_path, hook, ["--dask", "local", "--jobs", "2"], signum)
    assert (code, stderr) == (status, "agentbeats-spec: interrupted\n")  # no resource-tracker warning
    if hook == DASK_HOOK:
        assert len(children) >= 2  # the nannies and their workers
    assert alive(children) == [] and leftovers(tmp_path) == []
    assert list((tmp_path / "tmp").iterdir()) == []  # no dask-scratch-space
