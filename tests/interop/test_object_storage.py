"""Object storage for real: ``validate --dask`` on ``s3://`` URLs, read through s3fs from a local server that speaks
S3 over HTTP (moto's server mode, in a process of its own on a free port of the loopback, started and stopped here),
gives the report of ``validate`` on the same files on disk. fsspec's in-memory filesystem stays the quick stand-in
(tests/layouts/test_distributed.py); this is the same path over HTTP, signed requests, ETags and listings of a
real S3 API, with workers in other processes reaching the bucket as other machines would.

The run reader, ``export`` and ``score`` read local paths only (``open_run`` and the commands take a folder): when
they take URLs, their tests belong here, on the same server (``s3_run``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from agentbeats_spec import Issue, validate
from agentbeats_spec.cli import main

from ..conftest import FIXTURES, ROOT

pytest.importorskip("moto.server", reason="moto[server] is a dev dependency (pyproject.toml [dev])")
s3fs = pytest.importorskip("s3fs", reason="s3fs is a dev dependency (pyproject.toml [dev])")
distributed = pytest.importorskip("distributed")

from agentbeats_spec.distributed import validate_with_dask  # noqa: E402  (after the extra is known present)

BUCKET = "agentbeats-runs"
TREES = ["valid", "invalid", "valid/agentcompass-run", "invalid/abb-case", "writer-run", "writer-run-broken"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def moto_server() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A moto S3 server in a process of its own on a free loopback port: its URL and its process."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_serving(url, server)
        yield url, server
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A moto S3 server, and an environment that sends every S3 client of this process and of the workers it
    starts there (dummy credentials, no AWS configuration file read, no instance metadata)."""
    with moto_server() as (url, _):
        nowhere = tmp_path_factory.mktemp("aws") / "none"
        with pytest.MonkeyPatch.context() as patch:
            for name, value in {
                "AWS_ENDPOINT_URL": url, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_DEFAULT_REGION": "us-east-1", "AWS_CONFIG_FILE": str(nowhere),
                "AWS_SHARED_CREDENTIALS_FILE": str(nowhere), "AWS_EC2_METADATA_DISABLED": "true",
            }.items():  # fmt: skip
                patch.setenv(name, value)
            patch.delenv("AWS_PROFILE", raising=False)
            patch.delenv("AWS_SESSION_TOKEN", raising=False)
            yield url


def _wait_until_serving(url: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the moto server ended with status {server.returncode}")
        try:
            urllib.request.urlopen(url, timeout=2).close()
        except urllib.error.HTTPError:
            return  # an answer, whatever it says
        except OSError:
            pass
        else:
            return
        time.sleep(0.2)
    pytest.fail(f"the moto server did not answer at {url} within 60 s")


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The trees compared, by name: the fixtures, and a small run the released AgentCompass 1.0.1 writer wrote."""
    found = {name: FIXTURES / name for name in TREES if not name.startswith("writer-run")}
    made = tmp_path_factory.mktemp("writer") / "run"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "agentcompass_writer.py"), str(made), "--tasks", "12"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"the released AgentCompass writer is not installed (make test does it): {done.stderr[-300:]}")
    found["writer-run"] = made
    found["writer-run-broken"] = _without_trajectory_versions(made, made.parent / "broken")
    return found


def _without_trajectory_versions(run: Path, copy: Path) -> Path:
    """The run, its trajectories written without ``schema_version`` (issue 38's harness: AgentCompass reads them)."""
    shutil.copytree(run, copy)
    for result in sorted(copy.glob("details/*/*/attempt-*/result.json")):
        data = json.loads(result.read_text(encoding="utf-8"))
        data["trajectory"].pop("schema_version", None)
        result.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return copy


@pytest.fixture(scope="module")
def s3(endpoint: str, trees: dict[str, Path]) -> Any:
    """The bucket, holding every tree under its name, through s3fs: the filesystem the package itself opens."""
    filesystem = s3fs.S3FileSystem(client_kwargs={"endpoint_url": endpoint}, key="testing", secret="testing")
    filesystem.mkdir(BUCKET)
    for name, tree in trees.items():
        for file in sorted(tree.rglob("*")):
            if file.is_file() and not file.is_symlink():
                filesystem.pipe_file(f"{BUCKET}/{name}/{file.relative_to(tree).as_posix()}", file.read_bytes())
    filesystem.invalidate_cache()
    return filesystem


@pytest.fixture(scope="module")
def client(s3: Any) -> Iterator[Any]:
    """Two worker processes, started after the environment points at the server: each opens its own s3fs."""
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
    )
    client = distributed.Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()


def as_remote(issues: list[Issue], tree: Path, url: str) -> list[Issue]:
    prefix = str(tree)
    return [
        attrs.evolve(issue, file=url + issue.file[len(prefix) :]) if issue.file and issue.file.startswith(prefix)
        else issue
        for issue in issues
    ]  # fmt: skip


def test_the_trees_hold_what_the_comparison_needs(trees: dict[str, Path]) -> None:
    """The equalities below are not between empty reports."""
    assert validate(trees["valid"]) == [] and len(validate(trees["invalid"])) >= 40
    assert validate(trees["writer-run"]) == []
    assert {issue.code for issue in validate(trees["writer-run-broken"]) if issue.severity == "error"}


@pytest.mark.parametrize("name", TREES)
def test_a_cluster_reads_a_bucket_through_s3fs_as_validate_reads_the_files(
    name: str, trees: dict[str, Path], endpoint: str, client: Any
) -> None:
    url = f"s3://{BUCKET}/{name}"
    options = {"client_kwargs": {"endpoint_url": endpoint}, "key": "testing", "secret": "testing"}
    assert validate_with_dask(url, client=client, storage_options=options) == as_remote(
        validate(trees[name]), trees[name], url
    )


def test_the_command_on_a_bucket_prints_what_it_prints_for_the_files(
    trees: dict[str, Path], client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command passes no storage options: the client and every worker find the server and their credentials
    in their own environment, as on a real cluster."""
    scheduler = str(client.scheduler_info()["address"])
    url = f"s3://{BUCKET}/invalid"
    assert main(["validate", "--format", "json", "--dask", scheduler, url]) == 1
    remote = json.loads(capsys.readouterr().out)
    assert main(["validate", "--format", "json", str(trees["invalid"])]) == 1
    local = json.loads(capsys.readouterr().out)
    prefix = str(trees["invalid"])
    for issue in local["issues"]:
        issue["file"] = url + issue["file"][len(prefix) :] if issue["file"].startswith(prefix) else issue["file"]
    assert remote == local
    assert main(["validate", "--dask", scheduler, f"s3://{BUCKET}/valid"]) == 0
    assert capsys.readouterr().out.startswith("valid:")


def test_a_missing_prefix_and_an_unreachable_server_are_said_in_one_line(
    client: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    scheduler = str(client.scheduler_info()["address"])
    assert main(["validate", "--dask", scheduler, f"s3://{BUCKET}/no-such-run"]) == 2
    assert capsys.readouterr().err == f"agentbeats-spec: error: no such file or folder: s3://{BUCKET}/no-such-run\n"
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")  # nothing listens there
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    s3fs.S3FileSystem.clear_instance_cache()
    code = main(["validate", "--dask", scheduler, f"s3://{BUCKET}/valid"])
    err = capsys.readouterr().err
    s3fs.S3FileSystem.clear_instance_cache()
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"agentbeats-spec: error: cannot read s3://{BUCKET}/valid: EndpointConnectionError: "), err


def test_the_workers_read_the_bucket_over_http(s3: Any, endpoint: str) -> None:
    """The server holds the trees as objects (no folders): what the workers list and fetch is S3's answer."""
    listed = s3.find(f"{BUCKET}/valid/agentcompass-run")
    assert listed and all(name.startswith(f"{BUCKET}/valid/agentcompass-run/") for name in listed)
    with urllib.request.urlopen(f"{endpoint}/{BUCKET}?list-type=2&max-keys=1", timeout=10) as answer:
        assert b"<KeyCount>1</KeyCount>" in answer.read()
    assert s3.exists(f"{BUCKET}/writer-run/run_info.json")


def test_a_server_lost_after_the_listing_is_an_issue_on_each_unit_never_a_crash(
    endpoint: str, trees: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listed, then gone before a unit is fetched (a worker's network, the server stopped): each unit fetched from
    it is an ``io.unreadable`` error naming its URL, and the report comes back."""
    import agentbeats_spec.distributed as dask_path

    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    with moto_server() as (url, server):
        options = {"client_kwargs": {"endpoint_url": url}, "key": "testing", "secret": "testing"}
        filesystem = s3fs.S3FileSystem(**options)
        filesystem.mkdir("lost")
        tree = trees["valid/agentcompass-run"]
        for file in sorted(tree.rglob("*")):
            if file.is_file():
                filesystem.pipe_file(f"lost/run/{file.relative_to(tree).as_posix()}", file.read_bytes())
        check = dask_path._check

        def after_the_server_stopped(item: Any, settings: Any) -> Any:
            if server.poll() is None:
                server.terminate()
                server.wait(timeout=30)
            return check(item, settings)

        monkeypatch.setattr(dask_path, "_check", after_the_server_stopped)
        issues = validate_with_dask("s3://lost/run", scheduler="sync", storage_options=options)
    unreadable = [issue for issue in issues if issue.code == "io.unreadable"]
    assert unreadable and all(issue.file and issue.file.startswith("s3://lost/run/") for issue in unreadable)
    assert all(issue.message.startswith("cannot read from storage: ") for issue in unreadable), unreadable
