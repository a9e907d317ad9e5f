"""Same tables as the embedded run: one small study (a synthetic ProgSnap2 corpus, a loopback judge that answers
the same every time, and an imported judge whose file has a valid, an invalid and an unknown row) materialized
under the embedded profile (one DuckDB file) and under the deployed profile (Delta tables, the judge store in
Postgres, the Dagster instance on Postgres), by the same driver; every table, the asset tables and the judge
store's (the imports' records and rejects included), equals its twin row by row, times and run ids aside."""

from __future__ import annotations

import json
import os

import dagster as dg
import polars as pl
import pytest

from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import run_steps
from cojudge_tests.deploy.support import comparable, deployed_env, deployed_instance, deployed_tables, embedded_tables
from cojudge_tests.judges.fixtures import write_judges_file, write_synthetic_progsnap2
from cojudge_tests.judges.loopback import LoopbackServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

GOOD = json.dumps({"p_accept": 0.6, "s_algo": 3, "s_robust": 4, "rationale": "plausible"})
IMPORTED_JUDGE = """  - name: team
    imported:
      path: team.csv
      scale: {min: 0, max: 4, integer: true}
"""


def _materialize(monkeypatch, env: dict[str, str], instance: dg.DagsterInstance) -> None:
    for name in ("COJUDGE_PROFILE", "COJUDGE_POSTGRES_URL", "COJUDGE_TABLES_URI"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    lines: list[str] = []
    outcome = run_steps(build_definitions(), instance, {}, echo=lines.append)
    assert outcome.ok, "\n".join(lines)


def test_the_deployed_profile_writes_the_same_tables_as_the_embedded_one(tmp_path, monkeypatch, postgres):
    monkeypatch.setenv("LOOPBACK_KEY", "sk-same-tables")
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 6)
    with LoopbackServer() as server:
        server.script = [("ok", GOOD)]
        judges = write_judges_file(tmp_path / "judges.yaml", server.api_base)
        with judges.open("a") as config:
            config.write(IMPORTED_JUDGE)
        lines = ["item,raw_answer,rationale", *(f"progsnap2/e{i},{i % 5},read it" for i in range(4))]
        lines += ["progsnap2/e4,Score: 3,prose and no number", "progsnap2/nobody,2,an unknown attempt"]
        (tmp_path / "team.csv").write_text("\n".join(lines) + "\n")
        common = {"COJUDGE_JUDGES": str(judges), "COJUDGE_CORPUS": str(corpus), "COJUDGE_LAYOUT": "progsnap2"}
        embedded_db = tmp_path / "embedded" / "cojudge.duckdb"
        embedded_db.parent.mkdir()
        _materialize(
            monkeypatch,
            {**common, "COJUDGE_DUCKDB": str(embedded_db)},
            dg.DagsterInstance.from_config(str(_home(tmp_path / "embedded-home"))),
        )
        database = postgres.create_database("same_tables")
        env = {**common, **deployed_env(tmp_path / "deployed", database.url, COJUDGE_PROVIDER_LIMITS="*=2")}
        (tmp_path / "deployed" / "files").mkdir(parents=True)
        instance = deployed_instance(tmp_path / "deployed-home", {**os.environ, **env})
        _materialize(monkeypatch, env, instance)

    embedded = embedded_tables(embedded_db)
    deployed = deployed_tables(tmp_path / "deployed" / "tables", database.url)
    # the Postgres store makes its drift table with the others; the DuckDB file only at the first drift
    assert deployed.pop("drift_events").is_empty() and "drift_events" not in embedded
    assert set(embedded) == set(deployed), (sorted(embedded), sorted(deployed))
    assert {"attempts", "judge_outputs", "judge_cache", "predictions", "judge_metrics"} <= set(embedded)
    for name in sorted(embedded):
        assert len(embedded[name]) == len(deployed[name]), name
        # files beside the tables are named by their folder: each profile's own
        here = [row.replace(str(embedded_db.parent), "<files>") for row in comparable(embedded[name])]
        there = [row.replace(str(tmp_path / "deployed" / "files"), "<files>") for row in comparable(deployed[name])]
        assert here == there, name
    outputs = embedded["judge_outputs"]
    assert len(outputs.filter(pl.col("judge") == "loop")) == 3 * len(embedded["attempts"])
    # the imported judge: 4 valid rows and 1 invalid, the unknown item rejected naming file, line and field
    team = outputs.filter(pl.col("judge") == "team")
    assert sorted(team["status"].to_list()) == ["invalid"] + ["ok"] * 4
    rejects = deployed["import_rejects"]
    assert rejects.select("judge", "source_line", "field").rows() == [("team", 7, "item")]
    assert deployed["judge_imports"].select("judge", "condition", "ok", "invalid", "rejected").rows() == [
        ("team", "blind", 4, 1, 1)
    ]


def _home(folder):
    folder.mkdir(parents=True)
    (folder / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    return folder
