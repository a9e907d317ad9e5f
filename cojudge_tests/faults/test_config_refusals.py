"""Hostile configuration refused at preflight, one line each, exit 2, before anything runs or is sent.

The judges file (its encoding, type, size, depth, aliases, top-level keys, ``extra`` keys that clash with what
cojudge sets in the litellm call, judge names that are no safe file and partition names) and every ``COJUDGE_*``
variable. ``cojudge deployment config`` loads the same judges file and refuses the same way. Each case was, before,
a traceback and exit 1 (UnicodeDecodeError, IsADirectoryError, RecursionError, a TypeError in the judging step
after paid requests), a preflight that spun for minutes (an alias bomb), or silence (an unknown key).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cojudge_assets.judges.client import SET_BY_COJUDGE, JudgeConfig, request_kwargs
from cojudge_assets.judges.config import MAX_NAME_LENGTH, JudgesConfigError, load_judges
from cojudge_assets.settings import VARIABLES, variable_problems
from cojudge_tests.conftest import REPO
from cojudge_tests.faults.support import table_digests
from cojudge_tests.faults.test_cli_faults import env, existing_db, run_cli, tiny_corpus  # noqa: F401 (fixtures)

JUDGE = "  - name: fine-judge\n    model: cojudge/static-rubric\n"


def alias_bomb() -> str:
    """A judges file of under 500 bytes whose ``extra`` expands to 10^9 leaves (9 levels of 10 aliases)."""
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        prev, this = chr(96 + level), chr(97 + level)
        lines.append(f"{this}: &{this} [{', '.join(['*' + prev] * 10)}]")
    return "judges:\n" + JUDGE + "    extra:\n" + "".join(f"      {line}\n" for line in lines)


def hostile_files(folder: Path) -> dict[str, tuple[Path, str]]:
    """{case: (the judges file, a word the refusal must say)}."""
    cases: dict[str, tuple[bytes | None, str]] = {
        "not UTF-8": (b"judges:\n  - name: caf\xe9\n    model: cojudge/static-rubric\n", "not UTF-8"),
        "nested 5,000 levels": (("judges: " + "[" * 5000 + "]" * 5000 + "\n").encode(), "nested deeper"),
        "alias bomb": (alias_bomb().encode(), "aliases"),
        "unknown top-level key": (
            ("judges:\n" + JUDGE + "judge_defaults: {temperature: 1}\n").encode(),
            "judge_defaults",
        ),
        "extra num_retries": (("judges:\n" + JUDGE + "    extra: {num_retries: 2}\n").encode(), "num_retries"),
        "extra stream": (("judges:\n" + JUDGE + "    extra: {stream: true}\n").encode(), "stream"),
        "300-char name": (f"judges:\n  - name: {'j' * 300}\n    model: cojudge/static-rubric\n".encode(), "at most"),
        "name with a slash": (b"judges:\n  - name: a/b\n    model: cojudge/static-rubric\n", "field 'name'"),
        "too large": (("judges:\n" + JUDGE + "# " + "x" * (1 << 20) + "\n").encode(), "larger than"),
        "a folder": (None, "is a folder"),
    }
    files = {}
    for i, (case, (content, word)) in enumerate(cases.items()):
        path = folder / f"judges-{i}.yaml"
        if content is None:
            path.mkdir()
        else:
            path.write_bytes(content)
        files[case] = (path, word)
    return files


CASE_NAMES = [
    "not UTF-8",
    "nested 5,000 levels",
    "alias bomb",
    "unknown top-level key",
    "extra num_retries",
    "extra stream",
    "300-char name",
    "name with a slash",
    "too large",
    "a folder",
]


@pytest.mark.parametrize("case", CASE_NAMES)
def test_the_loader_refuses_each_in_one_line(tmp_path, case):
    path, word = hostile_files(tmp_path)[case]
    with pytest.raises(JudgesConfigError) as caught:
        load_judges(path)
    lines = caught.value.lines
    assert len(lines) == 1 and "\n" not in lines[0], lines
    assert str(path) in lines[0] and word in lines[0], lines[0]
    assert len(lines[0]) < 400, lines[0]  # a 300-character name is not repeated in full


def test_the_alias_bomb_is_refused_before_it_expands(tmp_path):
    """Refused at the first alias, not after building 10^9 leaves (which ran past 180 s): counted in values
    composed, never timed."""
    import yaml

    from cojudge_assets.judges import config

    composed = 0
    original = yaml.SafeLoader.compose_node

    def counting(self, parent, index):
        nonlocal composed
        composed += 1
        return original(self, parent, index)

    path, _ = hostile_files(tmp_path)["alias bomb"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(yaml.SafeLoader, "compose_node", counting)
        with pytest.raises(JudgesConfigError):
            config._parse_judges.cache_clear()
            load_judges(path)
    assert 0 < composed < 100


def test_names_up_to_the_bound_are_taken(tmp_path):
    path = tmp_path / "judges.yaml"
    name = "j" * MAX_NAME_LENGTH
    path.write_text(f"judges:\n  - name: {name}\n    model: cojudge/static-rubric\n")
    assert [spec.name for spec in load_judges(path)] == [name]


@pytest.mark.parametrize("key", sorted(SET_BY_COJUDGE))
def test_every_key_cojudge_sets_is_refused_in_extra(tmp_path, key):
    path = tmp_path / "judges.yaml"
    path.write_text("judges:\n" + JUDGE + f"    extra: {{{key}: 1}}\n")
    with pytest.raises(JudgesConfigError) as caught:
        load_judges(path)
    assert key in caught.value.lines[0] and "field 'extra'" in caught.value.lines[0]


def test_what_cojudge_sets_is_listed():
    """Every argument request_kwargs passes litellm, with every optional field set, is in SET_BY_COJUDGE: a new
    one added there without the list would let ``extra`` clash with it again."""
    config = JudgeConfig(
        name="j",
        model="openai/x",
        api_base="http://127.0.0.1:1/v1",
        api_key_env="COJUDGE_CONFIG_TEST_KEY_UNSET",
        top_p=0.5,
        reasoning_budget=64,
        json_mode=True,
    )
    assert set(request_kwargs(config, [{"role": "user", "content": "x"}])) <= SET_BY_COJUDGE


def test_provider_arguments_cojudge_does_not_set_are_kept(tmp_path):
    path = tmp_path / "judges.yaml"
    path.write_text("judges:\n" + JUDGE + "    extra: {seed: 7, presence_penalty: 0.5}\n")
    assert load_judges(path)[0].extra == {"seed": 7, "presence_penalty": 0.5}


# (variable, value, what the line names): each a traceback, exit 1 or silence before
BAD_VARIABLES = [
    ("COJUDGE_EXECUTOR", "bogus", "in_process, multiprocess, celery"),
    ("COJUDGE_OBSERVE_CRON", "not a cron", "cron"),
    ("COJUDGE_OBSERVE_CRON", "61 * * * *", "cron"),
    ("COJUDGE_MAX_CONCURRENT", "four", "whole number"),
    ("COJUDGE_SECCOMP", "maybe", "on, off"),
    ("COJUDGE_CGROUPS", "v3", "v1, v2"),
    ("COJUDGE_CELERY_BROKER", "localhost:6379", "URL"),
    ("COJUDGE_CELERY_BACKEND", "nowhere", "URL"),
    ("COJUDGE_PROVIDER_LIMITS", "api.openai.com=many", "provider=limit"),
    ("COJUDGE_AUTOMATION_INTERVAL_S", "0", ">= 1"),
    ("COJUDGE_BATCH_SENSOR_INTERVAL_S", "ten", ">= 1"),
    ("COJUDGE_MAX_RUN_COST_USD", "-1", "positive number of USD"),
    ("COJUDGE_SHARDS", "abc", "from 1 to"),
    ("COJUDGE_PROFILE", "cluster", "embedded, deployed"),
    ("COJUDGE_SHRADS", "8", "did you mean COJUDGE_SHARDS"),
]


@pytest.mark.parametrize(("variable", "value", "named"), BAD_VARIABLES, ids=[f"{v}={x}" for v, x, _ in BAD_VARIABLES])
def test_each_bad_variable_is_one_line(variable, value, named):
    problems = variable_problems({variable: value})
    assert len(problems) == 1, problems
    assert problems[0].startswith(variable) and named in problems[0], problems[0]


def test_good_values_pass():
    good = {
        "COJUDGE_EXECUTOR": "multiprocess",
        "COJUDGE_OBSERVE_CRON": "*/10 * * * *",
        "COJUDGE_MAX_CONCURRENT": "2",
        "COJUDGE_SECCOMP": "off",
        "COJUDGE_CGROUPS": "v2",
        "COJUDGE_CELERY_BROKER": "redis://127.0.0.1:6379/0",
        "COJUDGE_PROVIDER_LIMITS": "api.openai.com=4,*=2",
        "COJUDGE_SHARDS": "8",
        "COJUDGE_DAEMON_TESTS": "1",  # a test's own variable, close to no known one: left alone
    }
    assert variable_problems(good) == []


def test_celery_without_a_broker_is_refused():
    assert "COJUDGE_CELERY_BROKER" in variable_problems({"COJUDGE_EXECUTOR": "celery"})[0]


def test_every_variable_the_code_reads_is_known():
    """Every COJUDGE_ name in the package's code (the variables it reads) is in settings.VARIABLES, so the
    preflight checks it and the operations table can list it."""
    import re

    found = set()
    for path in (REPO / "cojudge_assets").rglob("*.py"):
        found |= set(re.findall(r"COJUDGE_[A-Z0-9_]*[A-Z0-9]", path.read_text()))
    assert found - set(VARIABLES) == set(), sorted(found - set(VARIABLES))


@pytest.mark.parametrize("case", ["not UTF-8", "nested 5,000 levels", "alias bomb", "unknown top-level key"])
def test_the_command_refuses_a_hostile_judges_file(tmp_path, env, tiny_corpus, existing_db, case):  # noqa: F811
    path, word = hostile_files(tmp_path)[case]
    before = table_digests(existing_db)
    done = run_cli(env, "--corpus", str(tiny_corpus), "--duckdb", str(existing_db), "--judges-file", str(path))
    assert done.returncode == 2, (done.stdout[-2000:], done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--judges-file" in lines[0] and word in lines[0], lines
    assert done.stdout == "" and not Path(env["DAGSTER_HOME"]).exists()
    assert table_digests(existing_db) == before


@pytest.mark.parametrize(("variable", "value"), [("COJUDGE_EXECUTOR", "bogus"), ("COJUDGE_OBSERVE_CRON", "not a cron")])
def test_the_command_refuses_a_bad_variable(env, tiny_corpus, existing_db, variable, value):  # noqa: F811
    done = run_cli({**env, variable: value}, "--corpus", str(tiny_corpus), "--duckdb", str(existing_db))
    assert done.returncode == 2, (done.stdout[-2000:], done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"cojudge: {variable}="), lines
    assert "Traceback" not in done.stderr and done.stdout == ""


@pytest.mark.slow  # one `cojudge` process per case
@pytest.mark.parametrize("case", ["a folder", "extra stream", "300-char name"])
def test_deployment_config_refuses_the_same(tmp_path, case):
    path, word = hostile_files(tmp_path)[case]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("COJUDGE_")}
    done = subprocess.run(
        [sys.executable, "-m", "cojudge_assets.cli", "deployment", "config", "--judges-file", str(path)],
        cwd=REPO,
        env={**environ, "COJUDGE_PROFILE": "deployed"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and word in lines[0] and "Traceback" not in done.stderr, lines


def test_figure_files_of_any_stored_judge_name_fit(tmp_path):
    """A judge name the file no longer allows may still be in a stored table (a judge since removed: the
    predictions read every stored partition): its figure's file name stays short and safe."""
    from cojudge_assets.core.report.plots import figure_file

    for name in ("j" * 300, "a/../b", "é" * 200):
        path = figure_file(tmp_path, "bias", name)
        assert path.parent == tmp_path and len(path.name.encode()) <= 100, path
    assert figure_file(tmp_path, "bias", "gpt-5.2").name == "bias_gpt-5.2.png"


def test_a_selection_whose_inputs_were_never_materialized_is_no_success(tmp_path, env, tiny_corpus):  # noqa: F811
    """``--select attempts,quarantine`` on a new DuckDB file ran nothing, printed ``success`` and exited 0, with no
    table in the file. Now: exit 3, no ``success``, the inputs outside the selection named."""
    from cojudge_assets.preflight import stored_rows as preflight_rows

    database = tmp_path / "new" / "cojudge.duckdb"
    done = run_cli(env, "--corpus", str(tiny_corpus), "--duckdb", str(database), "--select", "attempts,quarantine")
    assert done.returncode == 3, (done.stdout[-3000:], done.stderr[-3000:])
    assert "success" not in done.stdout, done.stdout
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("INCOMPLETE:") and "problems" in last and "--select" in last, last
    assert preflight_rows(database, "attempts") is None  # the reason it must not say success: no such table
