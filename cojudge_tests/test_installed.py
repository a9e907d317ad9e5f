"""Installed from a wheel, run from any folder (issue 24): no default depends on the source tree, and the cache
folder is resolved once (settings.py) and handed to core, which reads no environment for it.

The defaults are the working folder's ``data/demo`` and ``data/judges.yaml``, else the copies the package ships
(``cojudge_assets/shipped/``); the slow test builds the wheel, installs it in a clean venv and runs the README's
command in an empty folder.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import cojudge_assets
from cojudge_assets.settings import cache_folder, default_cache, resolve_settings, shipped
from cojudge_tests.conftest import DEMO_STUDY_TIMEOUT_S, REPO

CACHE_VARIABLES = ("COJUDGE_CACHE", "XDG_CACHE_HOME")


def test_the_defaults_are_the_working_folder_s_data_else_the_shipped_copies(tmp_path, monkeypatch):
    from cojudge_assets.judges.config import judges_file, load_judges

    monkeypatch.chdir(tmp_path)  # an empty folder: the package's own copies
    found = resolve_settings(environ={})
    assert Path(found.corpus.value) == shipped("demo") and not found.corpus.explicit
    assert Path(found.judges_file.value) == shipped("judges.yaml") and judges_file({}) == shipped("judges.yaml")
    assert (shipped("demo") / "contest.yaml").is_file() and (shipped("demo") / "problems").is_dir()
    enabled = {spec.name for spec in load_judges(shipped("judges.yaml")) if spec.enabled}
    assert enabled == {"sample-exec", "static-rubric"}  # local judges only: the demo needs no key
    (tmp_path / "data" / "demo").mkdir(parents=True)
    (tmp_path / "data" / "judges.yaml").write_text("judges: []\n")
    found = resolve_settings(environ={})  # a working folder with its own: those, as before
    assert (found.corpus.value, found.judges_file.value) == ("data/demo", "data/judges.yaml")
    assert judges_file({}) == Path("data/judges.yaml")
    # a variable or a flag still wins over either
    assert resolve_settings(corpus="/c", environ={"COJUDGE_CORPUS": "/e"}).corpus.value == "/c"
    assert resolve_settings(environ={"COJUDGE_JUDGES": "/e.yaml"}).judges_file.value == "/e.yaml"


def test_the_shipped_files_are_links_to_the_repository_s_data():
    """In a checkout, cojudge_assets/shipped/ holds links (the wheel's build copies their targets in), so the
    demo corpus and the judges file have one copy in the repository."""
    package = Path(cojudge_assets.__file__).parent
    if not (package.parent / "pyproject.toml").is_file():
        pytest.skip("cojudge_assets is installed, not a checkout")
    for name, target in (("demo", "data/demo"), ("judges.yaml", "data/judges.yaml")):
        assert (package / "shipped" / name).is_symlink()
        assert (package / "shipped" / name).resolve() == (package.parent / target).resolve()
    assert shipped("dagster.yaml").read_text() == (package.parent / "dagster_home" / "dagster.yaml").read_text()


def test_a_new_dagster_home_gets_the_shipped_configuration(tmp_path, monkeypatch, capsys):
    from cojudge_assets.cli import Plan, _start_from_shipped

    monkeypatch.chdir(tmp_path)
    home = tmp_path / "dagster_home"
    home.mkdir()  # what materialize does for the folders of plan.create, before this
    plan = Plan(
        corpus=shipped("demo").resolve(),
        layout="pages",
        duckdb=tmp_path / "data" / "cojudge.duckdb",
        home=home,
        judges_file=shipped("judges.yaml").resolve(),
        cache=tmp_path / "cache",
        create=(home,),
        corpus_config=False,
    )
    _start_from_shipped(plan)
    assert (home / "dagster.yaml").read_text() == shipped("dagster.yaml").read_text()
    said = capsys.readouterr().out
    assert f"corpus: the demo corpus cojudge ships, {shipped('demo').resolve()}" in said
    assert f"judges: the default judges file cojudge ships, {shipped('judges.yaml').resolve()}" in said
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: true\n")  # the user's own: never overwritten
    _start_from_shipped(plan)
    assert "enabled: true" in (home / "dagster.yaml").read_text()


def test_the_cache_folder_is_a_flag_else_its_variable_else_xdg_else_the_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    environ = {"COJUDGE_CACHE": "/c", "XDG_CACHE_HOME": "/x"}
    assert resolve_settings(cache="/f", environ=environ).cache.value == "/f"
    assert resolve_settings(environ=environ).cache.value == "/c"
    assert resolve_settings(environ={"XDG_CACHE_HOME": "/x"}).cache.value == "/x/cojudge"
    assert Path(resolve_settings(environ={}).cache.value) == tmp_path / "home" / ".cache" / "cojudge"
    assert default_cache({}) == tmp_path / "home" / ".cache" / "cojudge"
    assert cache_folder({"COJUDGE_CACHE": "~/mine"}) == tmp_path / "home" / "mine"


def test_core_reads_no_cache_variable():
    """core/ is handed its cache folder; settings.py is the one place that looks it up."""
    core = Path(cojudge_assets.__file__).parent / "core"
    readers = [
        f"{path.relative_to(core)}:{number}"
        for path in sorted(core.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if any(name in line for name in CACHE_VARIABLES) or "Path.home()" in line
    ]
    assert readers == []


def test_a_cache_folder_passed_in_is_the_one_used(tmp_path, monkeypatch, sum_problem):
    """The resource of the Definitions carries the folder it was built with; the judge it makes keeps its
    compiled programs, results and runner there, and writes nothing where the environment points."""
    from cojudge_assets.core.execution.contest_judge import Verdict
    from cojudge_assets.definitions import build_definitions

    default = tmp_path / "default"
    monkeypatch.setenv("HOME", str(default / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(default / "xdg"))
    monkeypatch.delenv("COJUDGE_CACHE", raising=False)
    mine = tmp_path / "mine"
    defs = build_definitions(database=tmp_path / "c.duckdb", cache=mine)
    assert defs.resources["contest_judge"].cache == str(mine)
    assert build_definitions(database=tmp_path / "c.duckdb").resources["contest_judge"].cache == str(
        default / "xdg" / "cojudge"
    )
    judge = defs.resources["contest_judge"].judge()
    code = '#include <stdio.h>\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a+b);}\n'
    assert judge.judge(sum_problem, "c", code).verdict == Verdict.AC
    assert [p.name for p in (mine / "runner").iterdir() if p.name.startswith("cojudge_runner-")]
    assert list((mine / "compile" / "results").rglob("*.json"))  # the verdict, cached
    assert any(p.is_dir() and len(p.name) == 2 for p in (mine / "compile").iterdir())  # the compiled program
    assert not default.exists()


# -- the wheel ---------------------------------------------------------------------------------------------------


def _source_tree(target: Path) -> Path:
    """The checkout's files (tracked, and new ones not ignored) copied to ``target``, links kept as links: what a
    release is built from, without .venv, build/ or the outputs of earlier runs."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source, copy = REPO / name, target / name
        if not source.exists() and not source.is_symlink():  # deleted in the work tree, not yet committed
            continue
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            copy.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, copy)
    return target


@pytest.mark.slow
def test_the_wheel_installed_in_a_clean_venv_runs_the_demo_from_an_empty_folder(tmp_path):
    """Build the wheel, install it with the locked dependencies into a new venv (uv, from its cache), run the
    README's command in an empty folder: the whole demo study, the shipped corpus and judges file, every output
    under that folder."""
    uv = Path(sys.executable).parent / "uv"
    if not uv.is_file():
        pytest.skip("uv is not in this venv (.ci/bootstrap installs it)")
    source = _source_tree(tmp_path / "source")
    subprocess.run([str(uv), "build", "--wheel", "-q", "-o", str(tmp_path / "dist"), str(source)], check=True)
    (wheel,) = (tmp_path / "dist").glob("cojudge-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(uv), "pip", "install", "-q", "--python", str(python), "-r", str(source / ".ci/requirements.lock"), wheel],
        check=True,
    )
    installed = Path(
        subprocess.run(
            [str(python), "-c", "import cojudge_assets; print(cojudge_assets.__file__)"],
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp_path,
        ).stdout.strip()
    ).parent
    assert installed.is_relative_to(venv) and not (installed / "shipped" / "demo").is_symlink()
    for native in ("cojudge_runner.c", "BatchJavac.java", "batch_pycheck.py"):
        assert (installed / "core" / "execution" / "native" / native).is_file(), native
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COJUDGE_", "DAGSTER_", "PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
    done = subprocess.run(
        [str(venv / "bin" / "cojudge"), "materialize"],
        cwd=empty,
        env=env,
        capture_output=True,
        text=True,
        timeout=DEMO_STUDY_TIMEOUT_S,
    )
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    database = empty / "data" / "cojudge.duckdb"
    success = re.search(rf"^success: tables in {re.escape(str(database))} \((\d+) attempts\)$", done.stdout, re.M)
    assert success and int(success.group(1)) > 0, done.stdout[-3000:]
    assert f"corpus: the demo corpus cojudge ships, {installed / 'shipped' / 'demo'}" in done.stdout
    assert f"judges: the default judges file cojudge ships, {installed / 'shipped' / 'judges.yaml'}" in done.stdout
    with duckdb.connect(str(database), read_only=True) as con:
        tables = {row[0] for row in con.execute("select table_name from information_schema.tables").fetchall()}
        judged = con.execute("select count(distinct judge) from judge_outputs").fetchall()[0][0]
    key = {"attempts", "judge_outputs", "judge_metrics", "perturbation_metrics", "findings", "drift_report"}
    assert key <= tables, key - tables
    assert judged == 2  # the shipped judges file's two local judges
    for report in ("report.html", "report.md"):
        assert (empty / "data" / "report" / report).stat().st_size > 0
    # everything it wrote is under the folder it ran in (and the cache): the DuckDB file's folder and the instance
    assert sorted(p.name for p in empty.iterdir()) == ["dagster_home", "data"]
    assert (empty / "dagster_home" / "dagster.yaml").read_text() == (installed / "shipped" / "dagster.yaml").read_text()
