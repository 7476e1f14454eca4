"""A call the API cannot do is the caller's mistake, said in the caller's terms: a TypeError where a type is wrong
(never an input returned unchanged, secrets and all), the parameter to pass where one is missing, and the
parameters of the function, not the flags of the command line, in what a function raises."""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest

from agentbeats_spec import ArtifactsUnavailable, SpecError, from_dict, migrate_run, read_task, redact, write_task
from agentbeats_spec.cli import main

from ..conftest import TASK_DIR, VALID, load_fixture

SECRET = b'{"api_key": "sk-live-0123456789abcdefghijklmnop"}'


@pytest.mark.parametrize(
    ("value", "name"), [(SECRET, "bytes"), (bytearray(SECRET), "bytearray"), (Path("task.json"), "PosixPath")]
)
def test_redact_refuses_what_is_not_a_model_or_a_parsed_document(value: object, name: str) -> None:
    with pytest.raises(TypeError) as info:
        redact(value)  # type: ignore[call-overload]
    assert str(info.value) == (
        f"cannot redact a {name}: pass a model of an artifact or a parsed document (a dict, a list or a str); "
        "parse bytes or a file's text first (json.loads)"
    )


def test_redact_of_a_parsed_document_still_masks_its_secrets() -> None:
    assert redact({"api_key": "sk-live-0123456789abcdefghijklmnop"}) == {"api_key": "********"}


def test_from_dict_with_its_arguments_swapped_says_which_is_which() -> None:
    data = load_fixture("valid/agentcompass-run/run_info.json")
    with pytest.raises(TypeError) as info:
        from_dict(data, "agentcompass-run-info")  # type: ignore[call-overload]
    message = str(info.value)
    assert message.startswith(
        "from_dict(kind, data) takes the kind first, then the parsed document: they are swapped; got kind=dict, "
        "data=str; kind is one of: abv3-repo, abv3-results, abb-case, agentcompass-task,"
    )
    assert message.endswith("actf-trajectory")
    with pytest.raises(TypeError, match=r"^from_dict\(kind, data\) takes the kind first.*; got kind=str, data=list;"):
        from_dict("agentcompass-run-info", [data])  # type: ignore[call-overload]
    assert from_dict("agentcompass-run-info", data) is not None


def test_write_task_of_an_evolved_record_names_artifacts_from(tmp_path: Path) -> None:
    run = tmp_path / "a"
    shutil.copytree(VALID / "agentcompass-run", run)
    task = run / "details" / "error" / TASK_DIR.name
    record = read_task(task)
    changed = attrs.evolve(record, category="changed")  # a new record: it does not know the run it came from
    with pytest.raises(ArtifactsUnavailable) as info:
        write_task(tmp_path / "b", changed)
    assert info.value.attempt == "1"
    assert str(info.value).endswith(
        "the artifacts folder of its manifest is not there in the run written to; a record read from another run "
        "by read_task and changed since (attrs.evolve makes a new record, which does not know that run) takes "
        "artifacts_from=<the run it was read from>; nothing was written"
    )
    assert not (tmp_path / "b").exists()
    written = write_task(tmp_path / "b", changed, artifacts_from=run)
    assert (written.parent / "attempt-1" / "artifacts" / "patches" / "fix.diff").is_file()
    # the record itself, as read_task returned it, knows its run and needs no hint
    assert write_task(tmp_path / "c", record).is_file()


def test_migrate_run_speaks_of_its_parameters_and_the_command_of_its_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    shutil.copytree(VALID / "agentcompass-run", run)
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "x").write_text("x")
    cases = [
        ((run,), {}, "say where to write: output=NEW writes a migrated copy of the run, in_place=True rewrites the "
         "run itself (dry_run=True shows what either would do)",
         [], "say where to write: -o NEW writes a migrated copy of the run, --in-place rewrites the run itself "
         "(--dry-run shows what either would do)"),
        ((run, occupied), {}, f"{occupied} already exists; migrate writes a new folder (or in_place=True rewrites "
         "the run)", ["-o", str(occupied)], f"{occupied} already exists; migrate writes a new folder (or use "
         "--in-place)"),
    ]  # fmt: skip
    for positional, keywords, said, flags, told in cases:
        with pytest.raises(SpecError) as info:
            migrate_run(*positional, **keywords)
        assert str(info.value) == said and "--" not in said and "-o " not in said
        assert main(["migrate", str(run), *flags]) == 2
        assert capsys.readouterr().err == f"agentbeats-spec: error: {told}\n"
    with pytest.raises(SpecError, match=r"^give either output or in_place=True, not both$"):
        migrate_run(run, tmp_path / "new", in_place=True)
