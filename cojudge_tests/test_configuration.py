"""Configuration goes in as arguments and resources, never through the environment (issue 17).

Two Definitions built in one process for two DuckDB files and two judges files each write and read where they
say; the package writes no environment variable; ``cojudge materialize`` leaves its process's environment as it
found it.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import dagster as dg
import duckdb
import pytest

import cojudge_assets
from cojudge_assets.definitions import INGEST_JOB, OUTPUTS_JOB, REQUESTS_JOB, build_definitions
from cojudge_assets.defs.resources import database_path
from cojudge_tests.judges.fixtures import write_synthetic_progsnap2

SETTINGS = ("COJUDGE_DUCKDB", "COJUDGE_JUDGES", "COJUDGE_CORPUS", "COJUDGE_LAYOUT", "DAGSTER_HOME")
# the documented exception: litellm reads its cost-map switch from the environment when it is imported
ALLOWED_WRITES = {'__init__.py: os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")'}
WRITE = re.compile(
    r"os\.environ\[[^\]]+\]\s*=(?!=)|os\.environ\.(setdefault|update|pop|popitem|clear)\(|"
    r"\b(putenv|unsetenv)\(|del\s+os\.environ"
)


def hosted_judges_file(path: Path, name: str) -> Path:
    """One hosted judge whose key variable is never set (so the drift probe names it without calling anyone)."""
    path.write_text(
        f"judges:\n  - name: {name}\n    model: openai/{name}-model\n    api_key_env: COJUDGE_CONFIG_TEST_KEY_UNSET\n"
    )
    return path


def tables(db: Path) -> set[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {row[0] for row in con.execute("select table_name from information_schema.tables").fetchall()}


def test_two_definitions_in_one_process_each_write_where_they_say(tmp_path, monkeypatch):
    for name in SETTINGS:  # nothing from the environment: each Definitions has only its arguments
        monkeypatch.delenv(name, raising=False)
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 9)
    built = {
        side: build_definitions(
            corpus=corpus,
            layout="progsnap2",
            database=tmp_path / side / "c.duckdb",
            judges_path=hosted_judges_file(tmp_path / f"judges-{side}.yaml", f"judge-{side}"),
        )
        for side in ("a", "b")
    }
    instance = dg.DagsterInstance.ephemeral()
    for side, defs in built.items():
        assert database_path(defs.resources["duckdb"]) == tmp_path / side / "c.duckdb"
        assert defs.resources["judges"].path == str(tmp_path / f"judges-{side}.yaml")
        partitions = defs.resolve_job_def(OUTPUTS_JOB).partitions_def.get_partition_keys()
        assert {key.split("|")[-1] for key in partitions} == {f"judge-{side}"}
    (tmp_path / "a").mkdir()
    assert built["a"].resolve_job_def(INGEST_JOB).execute_in_process(instance=instance).success
    shutil.copytree(tmp_path / "a", tmp_path / "b")  # the same ingest tables in both files (one ingest run)
    for side, condition in (("a", "blind"), ("b", "nonblind")):
        job = built[side].resolve_job_def(REQUESTS_JOB)
        assert job.execute_in_process(instance=instance, partition_key=condition).success
    for side, condition, other in (("a", "blind", "b"), ("b", "nonblind", "a")):
        with duckdb.connect(str(tmp_path / side / "c.duckdb"), read_only=True) as con:
            stored = con.execute("select distinct condition from judge_requests").fetchall()
        assert stored == [(condition,)]
        assert [p.name for p in (tmp_path / side / "requests").iterdir()] == [f"judge_requests.{condition}.jsonl"]
        # the drift sensor reads the judges of its own Definitions' judges file
        defs = built[side]
        sensor = next(s for s in defs.sensors if s.name == "provider_drift")
        resources = {name: defs.resources[name] for name in ("duckdb", "judges")}
        with dg.build_sensor_context(instance=instance, resources=resources) as context:
            tick = sensor.evaluate_tick(context)
        assert f"judge-{side}: not probed" in tick.skip_message
        assert f"judge-{other}" not in tick.skip_message
    assert not (Path(cojudge_assets.__file__).parents[1] / "requests").exists()


def test_the_duckdb_variable_is_bound_as_an_env_var_resolved_by_the_run(tmp_path, monkeypatch):
    target = tmp_path / "elsewhere.duckdb"
    monkeypatch.setenv("COJUDGE_DUCKDB", str(target))
    defs = build_definitions()
    for name in ("io_manager", "duckdb"):
        assert isinstance(defs.resources[name].database, dg.EnvVar)
        assert database_path(defs.resources[name]) == target
    # an argument wins over the variable
    explicit = build_definitions(database=tmp_path / "mine.duckdb").resources["duckdb"]
    assert explicit.database == str(tmp_path / "mine.duckdb")


def test_the_package_writes_no_environment_variable():
    """Settings reach the code as arguments, resources and run config: a variable written by one part of the
    package would be read by another in the same process (and by every test after it)."""
    root = Path(cojudge_assets.__file__).parent
    writes = {
        f"{path.relative_to(root)}: {line.strip()}"
        for path in sorted(root.rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if WRITE.search(line)
    }
    assert WRITE.search('os.environ["X"] = "1"') and not WRITE.search('os.environ["X"] == "1"')
    assert writes == ALLOWED_WRITES


def test_the_command_leaves_the_environment_as_it_found_it(tmp_path, monkeypatch, capsys):
    from cojudge_assets import cli

    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))  # this test's instance, not the project's
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 6)
    judges = tmp_path / "judges.yaml"
    judges.write_text("judges:\n  - name: rubric\n    model: cojudge/static-rubric\n    enabled: false\n")
    before = dict(os.environ)
    code = cli.main(
        [
            "materialize",
            "--corpus",
            str(corpus),
            "--layout",
            "progsnap2",
            "--duckdb",
            str(tmp_path / "out" / "c.duckdb"),
            "--judges-file",
            str(judges),
            "--jobs",
            "ingest",
        ]
    )
    assert code == 0, capsys.readouterr()
    assert dict(os.environ) == before
    assert "attempts" in tables(tmp_path / "out" / "c.duckdb")
    # the runs were recorded in the instance of DAGSTER_HOME, opened without setting the variable
    assert dg.DagsterInstance.from_config(str(tmp_path / "home")).get_run_records()


@pytest.mark.parametrize("environ", [{}, {"K": ""}, {"K": "  "}, {"K": "sk-1 "}])
def test_one_function_reads_a_judges_key(environ):
    from cojudge_assets.judges.config import JudgeSpec
    from cojudge_assets.preflight import missing_keys

    spec = JudgeSpec(name="j", model="openai/m", api_key_env="K")
    key = spec.api_key(environ)
    assert key == environ.get("K", "").strip()
    assert missing_keys([spec], environ) == ([] if key else [("j", "K")])
    assert JudgeSpec(name="local", model="cojudge/static-rubric").api_key(environ) is None


def test_the_evaluator_runs_inside_a_running_event_loop(tmp_path):
    # dg.evaluate_automation_conditions starts its own event loop; called from a thread that already runs one (a
    # notebook, an async harness), defs/automation.py evaluate hands it to a worker thread instead of failing
    import asyncio
    import concurrent.futures

    from cojudge_assets.definitions import build_definitions
    from cojudge_assets.defs.automation import evaluate, observe_sources

    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 6)
    judges = tmp_path / "judges.yaml"
    judges.write_text("judges:\n  - name: rubric\n    model: cojudge/static-rubric\n    enabled: false\n")
    defs = build_definitions(corpus=corpus, layout="progsnap2", database=tmp_path / "c.duckdb", judges_path=judges)
    instance = dg.DagsterInstance.ephemeral()
    assert observe_sources(defs, instance).success  # the corpus observed: its readers can be requested

    async def inside_a_loop():
        return evaluate(defs, instance)

    # a thread of its own: the browser tests' session (Playwright's sync API) may keep a loop running in this one
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        found = pool.submit(asyncio.run, inside_a_loop()).result()
    assert dg.AssetKey("problems") in found.partitions  # never materialized, its input observed: requested
