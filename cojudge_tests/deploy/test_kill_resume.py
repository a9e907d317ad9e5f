"""Kill and resume under the deployed profile: the process running a judge partition (a run worker: ``dagster
asset materialize`` on the deployment's instance) is killed with SIGKILL in the middle of the partition; the
answers it committed to the Postgres judge store stay, and the re-run sends only the requests that have no stored
answer (counted by the loopback server). Nothing is lost or duplicated: one answered row per request in the store
and in the partition's Delta table."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from deltalake import DeltaTable

from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import run_steps
from cojudge_tests.deploy.support import LOCATION, deployed_env, deployed_instance, stored_cache
from cojudge_tests.judges.fixtures import write_judges_file, write_synthetic_progsnap2
from cojudge_tests.judges.loopback import LoopbackServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

GOOD = json.dumps({"p_accept": 0.6, "s_algo": 3, "s_robust": 4, "rationale": "plausible"})
ATTEMPTS = 24
PARTITION = "blind|loop"


def materialize(tmp: Path, env: dict[str, str]) -> subprocess.Popen:
    location = tmp / "location.py"
    location.write_text(LOCATION)
    return subprocess.Popen(
        [
            str(Path(sys.executable).parent / "dagster"),
            "asset",
            "materialize",
            "--select",
            "judge_outputs",
            "--partition",
            PARTITION,
            "-f",
            str(location),
        ],
        cwd=tmp,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def stored(url: str) -> pl.DataFrame:
    return stored_cache(url).filter((pl.col("judge") == "loop") & (pl.col("condition") == "blind"))


def test_a_killed_judge_run_loses_no_committed_answer_and_the_rerun_sends_only_the_missing(
    tmp_path, monkeypatch, postgres
):
    monkeypatch.setenv("LOOPBACK_KEY", "sk-kill")
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", ATTEMPTS)
    with LoopbackServer(delay_s=0.5) as server:
        server.script = [("ok", GOOD)]
        judges = write_judges_file(tmp_path / "judges.yaml", server.api_base, concurrency=1)
        database = postgres.create_database("kill_resume")
        env = deployed_env(
            tmp_path,
            database.url,
            COJUDGE_JUDGES=str(judges),
            COJUDGE_CORPUS=str(corpus),
            COJUDGE_LAYOUT="progsnap2",
            COJUDGE_PROVIDER_LIMITS="*=2",
            DAGSTER_HOME=str(tmp_path / "home"),
        )
        (tmp_path / "files").mkdir()
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        instance = deployed_instance(tmp_path / "home", dict(os.environ))
        assert run_steps(build_definitions(), instance, {}, jobs=("ingest", "judge_requests_job"), echo=lambda _: None)

        worker = materialize(tmp_path, env)
        deadline = time.time() + 300
        while len(server.log) < 8 and time.time() < deadline and worker.poll() is None:
            time.sleep(0.1)
        assert worker.poll() is None, worker.communicate()[0][-3000:]
        os.killpg(worker.pid, signal.SIGKILL)  # mid-partition: 8 of 24 answered, the rest not yet sent
        worker.wait(timeout=60)
        server.settle()  # a request on the wire when the worker died is recorded after it
        sent_before = len(server.log)
        kept = stored(database.url)
        assert 0 < len(kept) < ATTEMPTS
        assert kept["attempt_uid"].n_unique() == len(kept)

        rerun = materialize(tmp_path, env)
        output = rerun.communicate(timeout=600)[0]
        assert rerun.returncode == 0, output[-3000:]
        sent_again = len(server.log) - sent_before

    assert sent_again == ATTEMPTS - len(kept)  # only the requests without a committed answer
    final = stored(database.url)
    assert len(final) == ATTEMPTS and final["attempt_uid"].n_unique() == ATTEMPTS
    assert set(final["status"]) == {"ok"}
    # the committed rows were kept as they were (not re-sent, not replaced)
    assert (
        final.join(kept.select("attempt_uid", "judged_at"), on="attempt_uid")
        .filter(pl.col("judged_at") != pl.col("judged_at_right"))
        .is_empty()
    )
    table = pl.from_arrow(DeltaTable(str(tmp_path / "tables" / "main" / "judge_outputs")).to_pyarrow_table())
    assert isinstance(table, pl.DataFrame)
    partition = table.filter((pl.col("judge") == "loop") & (pl.col("condition") == "blind"))
    assert len(partition) == ATTEMPTS and partition["attempt_uid"].n_unique() == ATTEMPTS
