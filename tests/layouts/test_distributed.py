"""The Dask path gives the report of ``validate``: on a real ``distributed`` cluster, local files and object storage.

One ``LocalCluster`` of two worker processes (one thread each) serves the whole session. "Object storage" is
fsspec's memory filesystem, filled in every worker process (and in this one) by a worker plugin, as a bucket
would be seen by every machine.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from agentbeats_spec import Issue, validate
from agentbeats_spec.cli import main

from ..agentcompass_writer import run_files, summarize
from ..conftest import FIXTURES, ROOT, VALID

fsspec = pytest.importorskip("fsspec")
distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

from agentbeats_spec.distributed import validate_with_dask  # noqa: E402  (after the extra is known present)

INTEROP = ROOT / ".venv" / "interop"
BUCKET = "memory:///bucket"
FIXTURE_TREES = [
    f"{group}/{child.name}" if child else group
    for group in ("valid", "invalid")
    for child in (None, *sorted(path for path in (FIXTURES / group).iterdir() if path.is_dir()))
]


@pytest.fixture(scope="session")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every tree of the differential test, by name: the fixtures, a generated tree, a run AgentCompass wrote."""
    found = {name: FIXTURES / name for name in FIXTURE_TREES}
    made = tmp_path_factory.mktemp("trees")
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "generate.py"), str(made / "generated"), "--size-mb", "2",
         "--seed", "3", "--broken-percent", "50"],
        check=True, capture_output=True,
    )  # fmt: skip
    found["generated"] = made / "generated"
    found["agentcompass-1.0.1"] = _agentcompass_run(made / "agentcompass-1.0.1")
    found["abb-case-ids"] = _abb_with_repeated_case_ids(made / "abb-case-ids")
    found["run-disagreeing"] = _run_disagreeing(made / "run-disagreeing")
    return found


def _run_disagreeing(root: Path) -> Path:
    """A run whose units disagree (issue 34): a task's plan is not the run's, an attempt metric not the contract's;
    the rule across units compares facts each unit gave back, placed at the files a worker names."""
    shutil.copytree(VALID / "agentcompass-run", root)
    task = next((root / "details" / "error").iterdir())
    index = json.loads((task / "task.json").read_text(encoding="utf-8"))
    index["attempt_plan"]["k"] = 4
    (task / "task.json").write_text(json.dumps(index, indent=2), encoding="utf-8")
    result = json.loads((task / "attempt-1" / "result.json").read_text(encoding="utf-8"))
    result["metrics"]["correct"] = 1
    (task / "attempt-1" / "result.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    return root


def _agentcompass_run(root: Path) -> Path:
    """A run written by the released writer: tasks in every final state, Unicode and long ids, run-level files."""
    if INTEROP.is_dir() and str(INTEROP) not in sys.path:
        sys.path.append(str(INTEROP))
    layout = pytest.importorskip("agentcompass.runtime.results.layout")
    base = json.loads((VALID / "task-detail" / "swe-utils.task-detail.json").read_text(encoding="utf-8"))
    writer = layout.RunLayout(root)
    for number, (task_id, severity) in enumerate(
        [("swe/utils: off-by-one", "error"), ("ünïcode täsk", None), ("x" * 300, "fatal"), ("warn-only", "warning")]
    ):
        record = copy.deepcopy(base)
        record["task_id"] = f"{task_id}-{number}"
        record["retry_count"], record["retry_counts"] = 0, {}  # the runner, not write_result, writes retry records
        for attempt in record["attempts"].values():
            attempt["issues"] = [issue for issue in attempt["issues"] if severity is not None]
            for issue in attempt["issues"]:
                issue["severity"] = severity
            for step in (attempt.get("trajectory") or {}).get("steps", []):
                # as harnesses write them, Python's str(datetime) of a naive time: info (rule.timestamp-offset)
                step["started_at"], step["finished_at"] = "2026-08-01 10:00:00", "2026-08-01 10:00:03.585000"
        writer.write_result(record)
    # run_info.json, params.json, metrics.json (of a run with a fatal task), summary.md, progress files, by the writer
    run_files(root, failed=True)
    summarize(root)  # metrics.json of these four tasks, as the summary writes it (run_files' is of one task)
    return root


def _abb_with_repeated_case_ids(root: Path) -> Path:
    """An ABB tree whose third and fourth issue folders reuse the case_id of the first."""
    case = json.loads(
        (VALID / "abb" / "resources" / "agents" / "demo-agent" / "ground_truth" / "issue_123" / "verify.case.json")
        .read_text(encoding="utf-8")
    )  # fmt: skip
    for agent, number, case_id in [("a", 1, "dup"), ("a", 2, "other"), ("a", 3, "dup"), ("b", 4, "dup")]:
        folder = root / "resources" / "agents" / agent / "ground_truth" / f"issue_{number}"
        (folder / "runs" / "run-1").mkdir(parents=True)
        (folder / "runs" / "run-1" / "run.json").write_text("{}")
        data = {**case, "case_id": case_id, "issue": {**case["issue"], "number": number}}
        data["issue"]["url"] = f"https://github.com/{case['issue']['repository']}/issues/{number}"
        (folder / "verify.case.json").write_text(json.dumps(data, indent=2))
    return root


@pytest.fixture(scope="session")
def client(trees: dict[str, Path]) -> Iterator[Any]:
    """Two worker processes, one thread each; every process sees the same memory "bucket" holding every tree."""
    files = {
        f"/bucket/{name}/{file.relative_to(tree).as_posix()}": file.read_bytes()
        for name, tree in trees.items()
        for file in tree.rglob("*")
        if file.is_file()
    }
    _fill_bucket(files)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
    )
    client = distributed.Client(cluster, set_as_default=False)
    client.register_plugin(_bucket_plugin(files), name="bucket")
    yield client
    client.close()
    cluster.close()


def address(client: Any) -> str:
    return str(client.scheduler_info()["address"])


def _fill_bucket(files: dict[str, bytes]) -> None:
    memory = fsspec.filesystem("memory")
    for path, data in files.items():
        memory.pipe_file(path, data)


def _bucket_plugin(files: dict[str, bytes]) -> Any:
    """A worker plugin defined here, so that it travels by value (workers cannot import the tests)."""
    import fsspec as fsspec_

    class Bucket(distributed.WorkerPlugin):  # type: ignore[misc]
        def setup(self, worker: Any) -> None:
            memory = fsspec_.filesystem("memory")
            for path, data in files.items():
                memory.pipe_file(path, data)

    return Bucket()


def _as_remote(issues: list[Issue], tree: Path, url: str) -> list[Issue]:
    prefix = str(tree)
    return [
        attrs.evolve(issue, file=url + issue.file[len(prefix) :]) if issue.file and issue.file.startswith(prefix)
        else issue
        for issue in issues
    ]  # fmt: skip


TREES = [*FIXTURE_TREES, "generated", "agentcompass-1.0.1", "abb-case-ids", "run-disagreeing"]


@pytest.mark.parametrize("name", TREES)
def test_a_cluster_reports_what_validate_reports_on_local_files(name: str, trees: dict[str, Path], client: Any) -> None:
    tree = trees[name]
    assert validate_with_dask(tree, client=client) == validate(tree)


@pytest.mark.parametrize("name", TREES)
def test_a_cluster_reports_what_validate_reports_on_object_storage(
    name: str, trees: dict[str, Path], client: Any
) -> None:
    tree = trees[name]
    url = f"{BUCKET}/{name}"
    assert validate_with_dask(url, client=client) == _as_remote(validate(tree), tree, url)


def test_the_trees_hold_what_the_comparison_needs(trees: dict[str, Path]) -> None:
    """The equalities above are not between empty reports."""
    assert validate(trees["valid"]) == []
    written = validate(trees["agentcompass-1.0.1"])  # as real runs: info only (timestamps without an offset)
    assert written and {(issue.severity, issue.code) for issue in written} == {("info", "rule.timestamp-offset")}
    assert {issue.code for issue in validate(trees["generated"]) if issue.severity == "error"} >= {
        "json.duplicate-key", "json.non-finite"
    }  # fmt: skip
    assert len(validate(trees["invalid"])) >= 40
    codes = {issue.code for issue in validate(trees["run-disagreeing"])}
    assert codes >= {"layout.attempt-plan", "layout.undeclared-metric"}


def test_a_case_id_is_unique_in_an_abb_tree(trees: dict[str, Path], client: Any) -> None:
    tree = trees["abb-case-ids"]
    first = "resources/agents/a/ground_truth/issue_1/verify.case.json"
    found = [issue for issue in validate(tree) if issue.code == "layout.duplicate-case-id"]
    assert [(i.file, i.pointer, i.line, i.column, i.severity, i.message) for i in found] == [
        (str(tree / "resources/agents/a/ground_truth/issue_3/verify.case.json"), "/case_id", 2, 14, "error",
         f"case_id 'dup' is already the case_id of {first}; a case ID names one case of an ABB tree"),
        (str(tree / "resources/agents/b/ground_truth/issue_4/verify.case.json"), "/case_id", 2, 14, "error",
         f"case_id 'dup' is already the case_id of {first}; a case ID names one case of an ABB tree"),
    ]  # fmt: skip
    remote = validate_with_dask(f"{BUCKET}/abb-case-ids", client=client)
    assert [issue.message for issue in remote if issue.code == "layout.duplicate-case-id"] == [
        issue.message for issue in found
    ]


def test_a_worker_killed_mid_unit_loses_no_unit(trees: dict[str, Path], client: Any, tmp_path: Path) -> None:
    marker = tmp_path / "killed"
    client.register_plugin(_kill_once_plugin(str(marker)), name="kill-once")
    try:
        issues = validate_with_dask(trees["generated"], client=client, npartitions=6)
    finally:
        client.unregister_worker_plugin("kill-once")
        client.wait_for_workers(2)
    assert marker.exists()  # a worker did die holding a unit
    assert issues == validate(trees["generated"])


def _kill_once_plugin(marker: str) -> Any:
    class KillOnce(distributed.WorkerPlugin):  # type: ignore[misc]
        def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
            if finish == "executing":
                try:
                    os.close(os.open(marker, os.O_CREAT | os.O_EXCL))  # exactly one worker, exactly once
                except FileExistsError:
                    return
                os._exit(1)  # as abruptly as the OOM killer: no clean-up, the task it holds is lost

    return KillOnce()


def test_the_cli_on_a_cluster_prints_what_it_prints_alone(
    trees: dict[str, Path], client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = str(trees["invalid"])
    for form in ("json", "text", "sarif", "github"):
        alone = main(["validate", "--format", form, "--jobs", "1", tree]), capsys.readouterr().out
        clustered = main(["validate", "--format", form, "--dask", address(client), tree])
        assert (clustered, capsys.readouterr().out) == alone
    assert alone[0] == 1
    assert main(["validate", "--dask", address(client), str(trees["valid"])]) == 0


def test_the_readme_example_holds_on_a_run_agentcompass_wrote(client: Any) -> None:
    """The README's Python example, run as written but for its scheduler and bucket: on a run the released writer
    made, which carries info issues as real runs do, its assertion holds."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```python\nfrom dask.distributed import Client\n", 1)[1].split("```", 1)[0]
    source = block.replace('Client("tcp://10.0.4.20:8786")', "the_cluster").replace(
        "s3://eval-results/runs/2026-08-01/", f"{BUCKET}/agentcompass-1.0.1/"
    )
    assert "the_cluster" in source and BUCKET in source and "assert " in source
    names: dict[str, Any] = {"the_cluster": client}
    exec(compile(source, "README.md", "exec"), names)  # the README's own snippet
    assert any(issue.severity == "info" for issue in names["issues"])  # `issues == []` would have been false


def test_the_cli_reads_object_storage_on_a_cluster(client: Any, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["validate", "--format", "json", "--dask", address(client), f"{BUCKET}/invalid/abb-case"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert {issue["file"] for issue in report["issues"]} == {f"{BUCKET}/invalid/abb-case/verify.case.json"}


def test_the_cli_shows_dasks_progress_bar_on_a_terminal(
    trees: dict[str, Path], client: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["validate", "--dask", address(client), str(trees["valid"])]) == 0
    captured = capsys.readouterr()
    assert "| 100% Completed |" in captured.err
    assert "| 100% Completed |" not in captured.out and captured.out.startswith("valid:")


def test_usage_problems_on_a_cluster_exit_2(client: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--dask", address(client), f"{BUCKET}/no-such-tree"]) == 2
    assert capsys.readouterr().err == f"agentbeats-spec: error: no such file or folder: {BUCKET}/no-such-tree\n"
    assert main(["validate", f"{BUCKET}/invalid"]) == 2
    assert "needs --dask" in capsys.readouterr().err
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert main(["validate", "--dask", "tcp://127.0.0.1:9", str(VALID)]) == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err


def test_the_text_report_names_remote_files_by_url(client: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--dask", address(client), f"{BUCKET}/invalid/abv3-results"]) == 1
    out = capsys.readouterr().out
    assert f"\n{BUCKET}/invalid/abv3-results/results.json:2:12: error schema.minimum " in out
    assert "    2 | " not in out  # no source line for a file this machine cannot open, and no crash


def test_a_local_tree_copied_into_a_new_place_gives_the_same_report(
    trees: dict[str, Path], client: Any, tmp_path: Path
) -> None:
    """A task filed under two states: two units, one issue from the walk, the same on both paths."""
    run = tmp_path / "run"
    shutil.copytree(VALID / "agentcompass-run", run)
    task = next((run / "details" / "error").iterdir())
    shutil.copytree(task, run / "details" / "normal" / task.name)
    local = validate(run)
    assert "layout.duplicate-task" in {issue.code for issue in local}
    assert validate_with_dask(run, client=client) == local


def test_a_relative_path_names_files_as_validate_does_wherever_workers_start(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers started in another folder (here: the session's) still read the client's relative path."""
    monkeypatch.chdir(FIXTURES)
    local = validate(Path("invalid"))
    assert local and all(issue.file and issue.file.startswith("invalid/") for issue in local)
    assert validate_with_dask("invalid", client=client) == local


def test_dask_local_starts_a_cluster_of_jobs_processes_for_the_command(
    trees: dict[str, Path], client: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--dask local asks for --jobs single-threaded worker processes (the session's cluster stands in for it)."""
    asked: list[dict[str, Any]] = []

    class SessionCluster:
        def __init__(self, **options: Any) -> None:
            asked.append(options)

        def __enter__(self) -> Any:
            return address(client)

        def __exit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(distributed, "LocalCluster", SessionCluster)
    tree = str(trees["invalid"])
    assert main(["validate", "--format", "json", "--dask", "local", "--jobs", "3", tree]) == 1
    clustered = capsys.readouterr().out
    assert main(["validate", "--format", "json", tree]) == 1
    assert clustered == capsys.readouterr().out
    assert [(o["n_workers"], o["threads_per_worker"], o["processes"]) for o in asked] == [(3, 1, True)]


def test_without_a_cluster_dasks_own_schedulers_give_the_same_report(trees: dict[str, Path]) -> None:
    tree = trees["invalid"]
    assert validate_with_dask(tree, scheduler="sync") == validate(tree)
    assert validate_with_dask(tree, scheduler="processes", num_workers=2) == validate(tree)


def test_nothing_found_on_a_cluster_is_what_it_is_alone(
    client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same rule and the same exit code as without Dask: nothing checked is not a pass."""
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.md").write_text("# nothing to check\n")
    alone = validate(empty)
    assert [(i.code, i.file, i.severity) for i in alone] == [("layout.nothing-found", str(empty), "error")]
    assert validate_with_dask(empty, client=client) == alone
    assert validate_with_dask(empty, scheduler="sync") == alone
    assert validate_with_dask(empty, client=client, allow_empty=True) == []
    monkeypatch.chdir(empty)
    for name in (".", "./", str(empty)):
        assert main(["validate", "--dask", address(client), name]) == 2
        shown = str(Path(name))
        error = f"agentbeats-spec: error: no artifact found under {shown} (see --allow-empty)\n"
        assert capsys.readouterr().err == error
    assert main(["validate", "--dask", address(client), "--allow-empty", "."]) == 0
    monkeypatch.chdir(FIXTURES / "valid")
    assert main(["validate", "--dask", address(client), "."]) == 0
    monkeypatch.chdir(FIXTURES / "invalid")
    assert main(["validate", "--dask", address(client), "./"]) == 1


def test_nothing_found_under_a_remote_prefix(client: Any) -> None:
    fsspec.filesystem("memory").pipe_file("/bucket/notes-only/README.md", b"# nothing to check\n")
    (issue,) = validate_with_dask(f"{BUCKET}/notes-only", client=client)
    assert (issue.code, issue.file, issue.severity) == ("layout.nothing-found", f"{BUCKET}/notes-only", "error")
