"""A hand-written agentbeats.toml keeps its comments, order and layout through load and dump."""

from __future__ import annotations

from pathlib import Path

import attrs
import tomli

from agentbeats_spec import dump, load, validate

HAND_WRITTEN = """\
# My benchmark: hand-written, with comments
[abv3_repo]
name = 'my-bench'          # literal string, on purpose
role = "judge"   # or "subject"
author = "someone"
version = "0.1.0"
tags = [
    "a",   # first
    "b",
]

[run]
command = "python run.py"

# What the run needs
[dependency.openai_api_key]
required = true

[dependency.docker_sock]
required = false  # only for the sandbox
"""


def written(tmp_path: Path) -> Path:
    path = tmp_path / "agentbeats.toml"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    return path


def test_load_then_dump_changes_no_byte(tmp_path: Path) -> None:
    path = written(tmp_path)
    dump(load(path), path)
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN


def test_a_changed_value_takes_the_place_and_style_of_the_old_one(tmp_path: Path) -> None:
    path = written(tmp_path)
    repo = load(path)
    about = attrs.evolve(repo.abv3_repo, name="renamed", version="0.2.0", tags=["a", "b", "c"])
    dump(attrs.evolve(repo, abv3_repo=about), path)
    expected = (
        HAND_WRITTEN.replace("name = 'my-bench'", "name = 'renamed'")
        .replace('version = "0.1.0"', 'version = "0.2.0"')
        .replace('    "b",\n]', '    "b",\n    "c",\n]')
    )
    assert path.read_text(encoding="utf-8") == expected
    assert validate(path) == []


def test_a_removed_table_goes_and_the_rest_stays(tmp_path: Path) -> None:
    path = written(tmp_path)
    repo = load(path)
    dependencies = {name: value for name, value in repo.dependency.items() if name != "docker_sock"}
    dump(attrs.evolve(repo, dependency=dependencies), path)
    text = path.read_text(encoding="utf-8")
    # the blank line that stood before the table stays: it belongs to what precedes it
    assert text == HAND_WRITTEN.replace("[dependency.docker_sock]\nrequired = false  # only for the sandbox\n", "")


def test_a_new_member_is_written_and_reads_back(tmp_path: Path) -> None:
    path = written(tmp_path)
    repo = load(path)
    dump(attrs.evolve(repo, abv3_repo=attrs.evolve(repo.abv3_repo, logo_file="./logo.svg")), path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# My benchmark: hand-written, with comments\n[abv3_repo]\nname = 'my-bench'  ")
    assert tomli.loads(text)["abv3_repo"]["logo_file"] == "./logo.svg"
    assert "# What the run needs" in text and "# only for the sandbox" in text


def test_a_new_file_is_plain_toml(tmp_path: Path) -> None:
    repo = load(written(tmp_path))
    target = tmp_path / "copy" / "agentbeats.toml"
    target.parent.mkdir()
    dump(repo, target)
    assert "#" not in target.read_text(encoding="utf-8")
    assert tomli.loads(target.read_text(encoding="utf-8")) == tomli.loads(HAND_WRITTEN)
