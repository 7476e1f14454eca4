"""Configuration: ``[tool.agentbeats-spec]`` in pyproject.toml or ``.agentbeats-spec.toml``, found upward from the
working folder; ``--config``, ``--no-config``; ``--exclude``, ``--select`` and ``--ignore`` on the command line."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from agentbeats_spec.cli import main
from agentbeats_spec.project._config import names_the_table

from ..conftest import FIXTURES, INVALID_TOTALS


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project holding a copy of the invalid fixtures, as the working folder."""
    shutil.copytree(FIXTURES / "invalid", tmp_path / "inv")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def issues(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, object]]]:
    code = main(["validate", "--format", "json", *argv])
    return code, json.loads(capsys.readouterr().out)["issues"]


def codes(found: list[dict[str, object]]) -> set[object]:
    return {issue["code"] for issue in found}


def test_without_a_configuration_every_issue_is_reported(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found = issues(capsys, "inv")
    assert code == 1 and len(found) == INVALID_TOTALS.issues


def test_pyproject_table_selects_ignores_and_excludes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.agentbeats-spec]\nselect = ["schema", "rule.main-metric"]\n'
        'ignore = ["schema.enum"]\nexclude = ["abv3-repo"]\n'
    )
    _, found = issues(capsys, "inv")
    assert {str(code).partition(".")[0] for code in codes(found)} == {"schema", "rule"}
    assert "rule.main-metric" in codes(found) and "schema.enum" not in codes(found)
    assert not any("abv3-repo" in str(issue["file"]) for issue in found)


def test_the_configuration_is_found_from_a_folder_below(project: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    (project / ".agentbeats-spec.toml").write_text('select = ["rule.main-metric"]\n')
    (project / "deeper").mkdir()
    monkeypatch.chdir(project / "deeper")
    _, found = issues(capsys, "../inv")
    assert codes(found) == {"rule.main-metric"}
    _, everything = issues(capsys, "--no-config", "../inv")
    assert len(everything) == INVALID_TOTALS.issues


def test_the_dot_file_comes_before_pyproject_in_one_folder(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text('[tool.agentbeats-spec]\nselect = ["schema"]\n')
    (project / ".agentbeats-spec.toml").write_text('select = ["rule.main-metric"]\n')
    assert codes(issues(capsys, "inv")[1]) == {"rule.main-metric"}


def test_a_pyproject_without_the_table_is_passed_over(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "deeper").mkdir()
    (project / "deeper" / "pyproject.toml").write_text('[project]\ndependencies = ["agentbeats-spec"]\n')
    (project / ".agentbeats-spec.toml").write_text('select = ["rule.main-metric"]\n')
    assert codes(issues(capsys, "inv")[1]) == {"rule.main-metric"}


def test_config_names_the_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "elsewhere.toml").write_text('ignore = ["schema", "rule", "json", "legacy", "security", "jsonl"]\n')
    code, found = issues(capsys, "--config", "elsewhere.toml", "inv")
    assert code == 0 and found == []


def test_command_line_select_replaces_and_ignore_extends(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".agentbeats-spec.toml").write_text('select = ["rule"]\nignore = ["rule.misspelled-key"]\n')
    _, found = issues(capsys, "--select", "schema,rule", "--ignore", "schema.type", "inv")
    assert "schema.minimum" in codes(found)
    assert not codes(found) & {"schema.type", "rule.misspelled-key"}


def test_command_line_exclude_adds_a_glob(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, found = issues(capsys, "--exclude", "inv/**/*.toml", "--exclude", "*.jsonl", "inv")
    files = {Path(str(issue["file"])).name for issue in found}
    assert "agentbeats.toml" not in files and "progress.jsonl" not in files and "results.json" in files


def test_an_excluded_path_named_on_the_command_line_is_not_checked(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["validate", "--exclude", "abv3-results", "inv/abv3-results/results.json", "inv/abb-case"])
    out = capsys.readouterr().out
    assert code == 1 and "results.json" not in out and "1 file(s) checked" in out


def test_per_file_severity_changes_or_drops_issues_of_matching_files(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".agentbeats-spec.toml").write_text(
        "[per-file-severity]\n"
        '"inv/abv3-repo/*.toml" = { schema = "warning", "schema.enum" = "info", "security.path-escape" = "ignore" }\n'
    )
    _, found = issues(capsys, "inv")
    repo = [issue for issue in found if str(issue["file"]).endswith("agentbeats.toml")]
    assert {(issue["code"], issue["severity"]) for issue in repo} == {
        ("schema.required", "warning"), ("schema.enum", "info"), ("rule.misspelled-key", "error"),
        ("schema.pattern", "warning"), ("schema.unique-items", "warning"), ("schema.type", "warning"),
    }  # fmt: skip
    results = [issue for issue in found if str(issue["file"]).endswith("results.json")]
    assert {issue["severity"] for issue in results if str(issue["code"]).startswith("schema.")} == {"error"}


def test_strict_in_the_configuration_fails_on_warnings(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    progress = "inv/agentcompass-run-files/progress.jsonl"
    assert main(["validate", "--select", "jsonl,rule.writer-shape", progress]) == 0
    (project / ".agentbeats-spec.toml").write_text("strict = true\n")
    assert main(["validate", "--select", "jsonl,rule.writer-shape", progress]) == 1


def test_limits_come_from_the_configuration_unless_the_command_line_names_them(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".agentbeats-spec.toml").write_text('max-issues = 2\nmax-file-size = "1K"\n')
    _, found = issues(capsys, "inv/abv3-repo/agentbeats.toml")
    assert codes(found) == {"schema.required", "schema.enum", "io.issues-truncated"}
    _, found = issues(capsys, "--max-issues", "1000", "inv/abv3-repo/agentbeats.toml")
    assert "io.issues-truncated" not in codes(found)
    big = project / "inv" / "abv3-results" / "results.json"
    big.write_text(big.read_text() + " " * 2048)
    _, found = issues(capsys, str(big))
    assert codes(found) == {"io.too-large"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bogus = 1\n", "bogus: unknown key; expected one of exclude, ignore, max-depth, max-file-size, max-issues,"),
        ('select = ["nope"]\n', "select: 'nope' is neither a code nor a family (see docs/codes.md)"),
        ('ignore = "schema"\n', "ignore: expected an array of strings"),
        ("strict = 1\n", "strict: expected true or false"),
        ("max-depth = 0\n", "max-depth: expected a whole number of at least 1, found 0"),
        ('max-file-size = "big"\n', "max-file-size: expected a whole number (suffixes K, M, G), found 'big'"),
        ('[per-file-severity]\n"a" = { schema = "loud" }\n',
         "per-file-severity.\"a\".schema: expected one of error, warning, info, ignore, found 'loud'"),
        ('[per-file-severity]\n"a" = { nope = "info" }\n',
         "per-file-severity.\"a\": 'nope' is neither a code nor a family"),
        ("[x\n", ":1: invalid TOML: "),
    ],
)  # fmt: skip
def test_a_configuration_error_exits_2_naming_the_file_and_key(
    project: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    (project / ".agentbeats-spec.toml").write_text(text)
    log = project / "log.sarif"
    assert main(["validate", "inv", "--output", f"sarif:{log}"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not log.exists()
    assert captured.err.startswith(f"agentbeats-spec: error: {project / '.agentbeats-spec.toml'}")
    assert message in captured.err


def test_a_pyproject_error_names_the_table(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text("[tool.agentbeats-spec]\nstrict = 'yes'\n")
    assert main(["validate", "inv"]) == 2
    expected = f"agentbeats-spec: error: {project / 'pyproject.toml'}: [tool.agentbeats-spec] strict: expected true"
    assert capsys.readouterr().err.startswith(expected)


def test_a_missing_config_file_and_a_bad_select_are_usage_errors(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", "--config", "nowhere.toml", "inv"]) == 2
    assert capsys.readouterr().err == "agentbeats-spec: error: no configuration file nowhere.toml\n"
    assert main(["validate", "--select", "schema,bogus", "inv"]) == 2
    assert capsys.readouterr().err == (
        "agentbeats-spec: error: --select: 'bogus' is neither a code nor a family (see docs/codes.md)\n"
    )


# ------------------------------------------------------------------ which configuration a run used, in every format


def test_every_report_names_the_configuration_used(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".agentbeats-spec.toml").write_text('ignore = ["schema"]\n')
    outputs = [f"{name}:{project / name}" for name in ("sarif", "markdown")]
    code = main(["validate", "--format", "json", "inv", *[arg for out in outputs for arg in ("--output", out)]])
    captured = capsys.readouterr()
    used = str(project / ".agentbeats-spec.toml")
    assert code == 1 and json.loads(captured.out)["configuration"] == used
    assert captured.err == f"agentbeats-spec: configuration {used}\n"  # said on stderr in every format
    (invocation,) = json.loads((project / "sarif").read_text())["runs"][0]["invocations"]
    assert invocation["properties"] == {"configuration": used}
    assert f"\nConfiguration: `{used}`\n" in (project / "markdown").read_text()
    main(["validate", "--format", "text", "-q", "inv"])
    assert capsys.readouterr().err == f"agentbeats-spec: configuration {used}\n"  # even with --quiet


def test_a_run_without_a_configuration_says_none(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["validate", "--format", "json", "--output", f"sarif:{project / 'sarif'}", "--output",
                 f"markdown:{project / 'markdown'}", "inv"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 1 and json.loads(captured.out)["configuration"] is None and captured.err == ""
    (invocation,) = json.loads((project / "sarif").read_text())["runs"][0]["invocations"]
    assert invocation["properties"] == {"configuration": None}
    assert "\nNo configuration file.\n" in (project / "markdown").read_text()


# ------------------------------------------------------------------ settings trusted only from their owner


def warned(capsys: pytest.CaptureFixture[str], what: str, path: Path, why: str) -> None:
    """Exactly one warning, saying which file is not used and why."""
    err = capsys.readouterr().err
    assert err.count("warning") == 1, err
    assert f"agentbeats-spec: warning: the {what} {path} {why}: not used (" in err


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a file away")
def test_a_configuration_another_user_owns_is_not_used(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    planted = project / ".agentbeats-spec.toml"
    planted.write_text('ignore = ["schema", "rule", "json", "jsonl", "legacy", "security"]\n')
    os.chown(planted, 4321, -1)
    code, found = issues(capsys, "inv")
    assert code == 1 and len(found) == INVALID_TOTALS.issues
    main(["validate", "--format", "json", "inv"])
    warned(capsys, "configuration", planted, "belongs to user 4321, not to this one (0)")


def test_a_configuration_others_may_write_is_not_used(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    planted = project / ".agentbeats-spec.toml"
    planted.write_text('exclude = ["**"]\n')
    planted.chmod(0o666)
    assert main(["validate", "--format", "json", "inv"]) == 1
    assert len(json.loads(capsys.readouterr().out)["issues"]) == INVALID_TOTALS.issues
    main(["validate", "--format", "json", "inv"])
    warned(capsys, "configuration", planted, "may be written by others (mode 0666)")


def test_a_configuration_in_a_folder_others_may_write_is_not_used_sticky_or_not(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """/tmp is 1777: anyone may create a file there, so what a file there says is no one's in particular."""
    shared = project / "shared"
    (shared / "work").mkdir(parents=True)
    (shared / ".agentbeats-spec.toml").write_text('ignore = ["schema", "rule", "json", "jsonl", "legacy"]\n')
    monkeypatch.chdir(shared / "work")
    for mode in (0o1777, 0o757):
        shared.chmod(mode)
        code, found = issues(capsys, "../../inv")
        assert code == 1 and len(found) == INVALID_TOTALS.issues
        main(["validate", "--format", "json", "../../inv"])
        warned(capsys, "configuration", shared / ".agentbeats-spec.toml", f"is in {shared}, which may be written by "
               f"others (mode {mode:04o})")  # fmt: skip
    shared.chmod(0o755)
    assert len(issues(capsys, "../../inv")[1]) < INVALID_TOTALS.issues  # the same file, now the user's alone, is used


def test_the_search_ends_at_the_nearest_configuration_even_when_it_is_not_used(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".agentbeats-spec.toml").write_text('select = ["rule.main-metric"]\n')
    (project / "sub").mkdir()
    (project / "sub" / ".agentbeats-spec.toml").write_text('select = ["schema"]\n')
    (project / "sub" / ".agentbeats-spec.toml").chmod(0o646)
    monkeypatch.chdir(project / "sub")
    assert (
        len(issues(capsys, "../inv")[1]) == INVALID_TOTALS.issues
    )  # neither: not the one farther up in place of the one refused


@pytest.mark.parametrize("option", ["--config", "--baseline"])
def test_a_named_configuration_or_baseline_others_may_write_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    """The user named it: it is neither used nor silently left out; the run does not start (exit 2)."""
    main(["validate", "--format", "json", "--write-baseline", "known.json", "inv"])
    (project / "ci.toml").write_text('ignore = ["schema"]\n')
    named = project / ("ci.toml" if option == "--config" else "known.json")
    named.chmod(0o646)
    capsys.readouterr()
    log = project / "log.sarif"
    assert main(["validate", option, named.name, "--output", f"sarif:{log}", "inv"]) == 2
    captured = capsys.readouterr()
    what = "configuration" if option == "--config" else "baseline"
    assert captured.out == "" and not log.exists()
    assert captured.err.startswith(
        f"agentbeats-spec: error: the {what} {named.name} may be written by others (mode 0646): refused ("
    )
    assert captured.err.count("\n") == 1
    named.chmod(0o644)
    assert main(["validate", option, named.name, "inv"]) in (0, 1)


def test_a_found_allow_list_others_may_write_is_not_used(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agentbeats_spec.vocabulary._settings import (
        legacy_fingerprint,  # an entry from before keyed fingerprints still counts
    )

    secret = "sk-proj-" + "a1B2c3D4" * 5
    (project / "leak.txt").write_text(f"key: {secret}\n")
    allow = project / "agentbeats-secrets.allow"
    allow.write_text(f"{legacy_fingerprint(secret)}\n")
    assert main(["scan", "leak.txt"]) == 0  # the user's own allow-list is used
    allow.chmod(0o666)
    capsys.readouterr()
    assert main(["scan", "--format", "json", "leak.txt"]) == 1
    warned(capsys, "allow-list", Path("agentbeats-secrets.allow"), "may be written by others (mode 0666)")
    assert main(["scan", "--allow-list", "agentbeats-secrets.allow", "leak.txt"]) == 2  # named: refused
    assert "the allow-list agentbeats-secrets.allow may be written by others" in capsys.readouterr().err
    allow.chmod(0o644)
    assert main(["scan", "--no-config", "leak.txt"]) == 1  # --no-config: the working folder's allow-list is not read
    assert main(["scan", "--no-config", "--allow-list", "agentbeats-secrets.allow", "leak.txt"]) == 0


def test_a_detect_secrets_baseline_others_may_write_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "leak.txt").write_text("key: sk-proj-" + "a1B2c3D4" * 5 + "\n")
    main(["scan", "--baseline", "ds.baseline", "--update-baseline", "leak.txt"])
    assert main(["scan", "--baseline", "ds.baseline", "leak.txt"]) == 0  # the user's own baseline is used
    (project / "ds.baseline").chmod(0o606)
    capsys.readouterr()
    assert main(["scan", "--baseline", "ds.baseline", "leak.txt"]) == 2
    assert capsys.readouterr().err.startswith(
        "agentbeats-spec: error: the baseline ds.baseline may be written by others (mode 0606): refused ("
    )


def test_trust_is_one_check_for_owner_and_mode() -> None:
    """reading._trusted.distrusted: this user or root, and no one else may write (a group only when it is the
    user's private group, as umask 002 systems make one per user); the cache keeps to this user alone."""
    from agentbeats_spec.reading._trusted import _private_group, distrusted

    me = os.getuid()
    mode = stat.S_IFREG | 0o644

    def info(uid: int, mode: int, gid: int = 4321) -> os.stat_result:
        return os.stat_result((mode, 0, 0, 1, uid, gid, 0, 0, 0, 0))

    assert distrusted(info(me, mode)) is None and distrusted(info(0, mode)) is None
    assert distrusted(info(4321, mode)) == f"belongs to user 4321, not to this one ({me})"
    assert distrusted(info(me, stat.S_IFDIR | 0o1777)) == "may be written by others (mode 1777)"
    assert distrusted(info(me, mode | 0o002, os.getgid())) == "may be written by others (mode 0646)"
    assert distrusted(info(me, mode | 0o020)) == "may be written by others (mode 0664)"  # a group of others
    private = distrusted(info(me, mode | 0o020, os.getgid()))
    assert private is None if _private_group(os.getgid()) else private == "may be written by others (mode 0664)"
    assert distrusted(info(me, mode | 0o020, os.getgid()), alone=True) == "may be written by others (mode 0664)"
    if me != 0:
        assert distrusted(info(0, mode), alone=True) == f"belongs to user 0, not to this one ({me})"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a file away")
def test_a_configuration_its_group_may_write_is_used_only_when_the_group_is_the_users_own(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentbeats_spec.reading._trusted import _private_group

    planted = project / ".agentbeats-spec.toml"
    planted.write_text('exclude = ["**"]\n')
    planted.chmod(0o664)
    os.chown(planted, -1, 4321)  # a group of others
    assert main(["validate", "--format", "json", "inv"]) == 1
    warned(capsys, "configuration", planted, "may be written by others (mode 0664)")
    os.chown(planted, -1, os.getgid())
    if _private_group(os.getgid()):  # root's group, of its name, with no other member
        assert main(["validate", "--format", "json", "inv"]) == 2  # used: every path named is excluded


# ------------------------------------------------------------------ where the search ends


def test_the_search_stops_at_the_repository_root(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".agentbeats-spec.toml").write_text('select = ["rule.main-metric"]\n')
    checkout = project / "checkout"
    (checkout / "deeper").mkdir(parents=True)
    monkeypatch.chdir(checkout / "deeper")
    assert codes(issues(capsys, "../../inv")[1]) == {"rule.main-metric"}
    for git in ("folder", "file"):  # a clone holds a .git folder, a worktree or a submodule a .git file
        (checkout / ".git").mkdir() if git == "folder" else (checkout / ".git").write_text("gitdir: elsewhere\n")
        assert len(issues(capsys, "../../inv")[1]) == INVALID_TOTALS.issues
        shutil.rmtree(checkout / ".git") if git == "folder" else (checkout / ".git").unlink()
    (checkout / ".agentbeats-spec.toml").write_text('select = ["schema.enum"]\n')
    (checkout / ".git").mkdir()
    assert codes(issues(capsys, "../../inv")[1]) == {"schema.enum"}  # the root's own configuration counts


def test_the_search_stops_at_the_home_folder(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".agentbeats-spec.toml").write_text('select = ["rule.main-metric"]\n')
    home = project / "home"
    (home / "work").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home / "work")
    assert len(issues(capsys, "../../inv")[1]) == INVALID_TOTALS.issues
    (home / ".agentbeats-spec.toml").write_text('select = ["schema.enum"]\n')
    assert codes(issues(capsys, "../../inv")[1]) == {"schema.enum"}


# ------------------------------------------------------------------ the reviewer's switch


@pytest.mark.parametrize("how", ["option", "variable"])
def test_no_config_and_its_variable_read_no_configuration_the_tree_holds(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    (project / ".agentbeats-spec.toml").write_text('exclude = ["**"]\n')
    (project / "ci.toml").write_text('select = ["rule.main-metric"]\n')
    if how == "variable":
        monkeypatch.setenv("AGENTBEATS_SPEC_NO_CONFIG", "1")
    switch = ["--no-config"] if how == "option" else []
    assert len(issues(capsys, *switch, "inv")[1]) == INVALID_TOTALS.issues
    if how == "variable":  # a file named still counts: the variable only stops the search
        assert codes(issues(capsys, "--config", "ci.toml", "inv")[1]) == {"rule.main-metric"}


# ------------------------------------------------------------------ excluded is not checked


def test_excluding_every_named_path_is_nothing_checked(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".agentbeats-spec.toml").write_text('exclude = ["**"]\n')
    log = project / "log.sarif"
    assert main(["validate", "--output", f"sarif:{log}", "."]) == 2
    captured = capsys.readouterr()
    assert "0 file(s) checked" not in captured.out
    assert "agentbeats-spec: error: every path named is excluded: . (see --allow-empty)\n" in captured.err
    (invocation,) = json.loads(log.read_text())["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    assert main(["validate", "--exclude", "inv", "inv"]) == 2
    assert main(["validate", "--allow-empty", "."]) == 0
    assert "0 file(s) checked" in capsys.readouterr().out


# ------------------------------------------------------------------ a hostile configuration


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 100_000 + "]" * 100_000 + "\n",
        "a = " + "{b = " * 20_000 + "1" + "}" * 20_000 + "\n",
        "[" + "a." * 50_000 + "b]\nx = 1\n",
        "[[" + "a." * 50_000 + "b]]\n",
        "a = 1\n" * 50_000,
        "x = '\udcff'\n",
    ],
    ids=["deep-array", "deep-inline-table", "deep-header", "deep-array-of-tables", "a-key-50000-times", "not-utf8"],
)
def test_a_hostile_configuration_is_a_one_line_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    (project / ".agentbeats-spec.toml").write_bytes(text.encode("utf-8", "surrogateescape"))
    assert main(["validate", "inv"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"agentbeats-spec: error: {project / '.agentbeats-spec.toml'}") or (
        captured.err.startswith(f"agentbeats-spec: error: cannot read the configuration {project}")
    )


# ------------------------------------------------------------------ the search is linear


MB = 1_000_000


@pytest.mark.parametrize(
    "shape",
    ["\n" * MB, " \t\n" * (MB // 3), "[" * MB + "\n", "[\n" * (MB // 2), "\n" * MB + "[tool.x]\n"],
    ids=["blank-lines", "spaces-on-blank-lines", "brackets", "bracket-lines", "blank-lines-then-another-table"],
)
def test_the_search_reads_a_pyproject_once_through(shape: str) -> None:
    """1 MB of the shapes that made the search's pattern quadratic (80 kB took 43 to 51 s, so this would take some
    two hours); linear, it takes milliseconds. No time is measured: a quadratic search would never finish."""
    assert not names_the_table(shape)
    assert names_the_table(shape + "  [ tool . 'agentbeats-spec' ]\n")
    assert names_the_table(shape + "[[tool.agentbeats-spec.x]]\n")


def test_a_pyproject_above_that_names_the_table_only_in_a_value_is_passed_over(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text("\n" * 100_000 + 'x = "[tool.agentbeats-spec]"\n')
    assert len(issues(capsys, "inv")[1]) == INVALID_TOTALS.issues


def test_the_pre_commit_hooks_pass_a_commit_whose_files_are_all_excluded(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import yaml

    from ..conftest import ROOT

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (entry,) = {hook["entry"] for hook in hooks}
    assert entry == "agentbeats-spec validate --no-context --allow-empty --quiet-valid"
    (project / ".agentbeats-spec.toml").write_text('exclude = ["inv/abv3-results"]\n')
    assert main([*entry.split()[1:], "inv/abv3-results/results.json"]) == 0


@pytest.mark.parametrize("function", ["scan", "redact"])
def test_an_allow_list_named_to_the_api_that_others_may_write_is_refused(tmp_path: Path, function: str) -> None:
    import agentbeats_spec
    from agentbeats_spec import SpecError

    allow = tmp_path / "agentbeats-secrets.allow"
    allow.write_text("# reviewed\n")
    allow.chmod(0o622)
    with pytest.raises(SpecError, match=r"the allow-list .* may be written by others \(mode 0622\): refused"):
        getattr(agentbeats_spec, function)({"token": "x"}, allow_list=allow)
    allow.chmod(0o600)
    getattr(agentbeats_spec, function)({"token": "x"}, allow_list=allow)


def test_excluded_files_are_not_counted_as_checked(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def checked(*argv: str) -> int:
        main(["validate", "--format", "json", "--cache", str(project / "cache"), *argv])
        return int(json.loads(capsys.readouterr().out)["checked"])

    every = checked("inv")
    assert checked("--exclude", "inv/abv3-repo", "inv") == every - 1
    (project / ".agentbeats-spec.toml").write_text('exclude = ["*.json"]\n')  # the cached verdicts do not count
    assert checked("inv") == 2  # agentbeats.toml and progress.jsonl


# ------------------------------------------------------------------ globs cost names times parts


def test_a_glob_of_many_wildcards_is_matched_without_going_back(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A regular expression made of these globs went back over every way to split the path (one of 12 ``**/`` on
    a path 40 folders deep did not end in a minute); matched name by name, they cost names times parts."""
    deep = project / "inv" / "/".join(["a"] * 40)
    deep.mkdir(parents=True)
    (deep / ("a" * 200 + ".actf.json")).write_text('{"schema_version": "ACTF_v1.0", "steps": 5}')  # an issue
    globs = ["**/" * 12 + "x", "*a" * 30 + "b", "**a" * 30 + "b", "a/" + "**/" * 30 + "?" * 100]
    (project / ".agentbeats-spec.toml").write_text(f"exclude = {json.dumps(globs)}\n")
    code, found = issues(capsys, "inv")
    assert code == 1 and len(found) == 45  # nothing excluded: the copy's issue is there too


def _reference(pattern: str, relative: str, below: bool) -> bool:
    """What the globs meant as one regular expression over the whole path (fine on short inputs)."""
    import re

    stripped, parts, index = pattern.strip("/"), [], 0
    while index < len(stripped):
        for token, expression in (("**/", "(?:.*/)?"), ("**", ".*"), ("*", "[^/]*"), ("?", "[^/]")):
            if stripped.startswith(token, index):
                parts.append(expression)
                index += len(token)
                break
        else:
            parts.append(re.escape(stripped[index]))
            index += 1
    expression = ("(?:.*/)?" if "/" not in stripped else "") + "".join(parts) + ("(?:/.*)?" if below else "")
    return re.fullmatch(expression, relative, re.DOTALL) is not None


def test_globs_match_as_they_did_as_one_regular_expression() -> None:
    """Every glob whose ``**`` stands alone between slashes, on paths of up to five names: as before."""
    import random

    from agentbeats_spec.project._config import _matches

    rng = random.Random(33)
    for _ in range(4_000):
        pattern = "/".join(rng.choice(["a", "b", "*", "?", "**", "a*", "*b", "?a", "ab", "[a]"]) for _ in range(4))
        pattern = rng.choice(["", "/"]) + pattern[: rng.randint(1, len(pattern))].rstrip("[") + rng.choice(["", "/"])
        if any("**" in name and name != "**" for name in pattern.split("/")):
            continue  # within a name, ** is * (as .gitignore has it): no longer a path of many folders
        relative = "/".join(rng.choice(["a", "b", "ab", "ba", "[a]", ".a"]) for _ in range(rng.randint(1, 5)))
        for below in (True, False):
            expected = _reference(pattern, relative, below)
            assert _matches(pattern, relative, Path("/elsewhere"), below=below) == expected, (pattern, relative)


@pytest.mark.parametrize("switch", [[], ["--no-config"]])
def test_a_working_folder_removed_under_the_command_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, switch: list[str]
) -> None:
    (project / "gone").mkdir()
    monkeypatch.chdir(project / "gone")
    (project / "gone").rmdir()
    assert main(["validate", *switch, str(project / "inv")]) == 2
    assert (
        capsys.readouterr().err
        == "agentbeats-spec: error: the working folder cannot be read (was it deleted?): No such file or directory\n"
    )
