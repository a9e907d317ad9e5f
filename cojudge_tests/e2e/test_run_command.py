"""The README's run command, end to end on the shipped demo corpus."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from cojudge_tests.conftest import REPO


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("run") / "cojudge.duckdb"
    home = tmp_path_factory.mktemp("dagster_home")
    (home / "dagster.yaml").write_text((REPO / "dagster_home" / "dagster.yaml").read_text())
    env = {**os.environ, "DAGSTER_HOME": str(home)}
    cli = Path(sys.executable).parent / "cojudge"
    done = subprocess.run([str(cli), "materialize", "--duckdb", str(db)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "success" in done.stdout
    return db


@pytest.mark.slow
def test_ingest_tables_from_the_run_command(demo_db):
    con = duckdb.connect(str(demo_db), read_only=True)
    tables = {r[0] for r in con.sql("select table_name from information_schema.tables "
                                     "where table_schema = 'main'").fetchall()}
    assert {"problems", "submission_pages", "attempts", "prompt_logs", "quarantine", "participant_context",
            "label_audit"} <= tables
    pages = con.sql("select count(*) from main.submission_pages").fetchone()[0]
    attempts = con.sql("select count(*) from main.attempts").fetchone()[0]
    quarantined = con.sql("select count(*) from main.quarantine").fetchone()[0]
    assert attempts >= 450 and attempts + quarantined == pages
    contexts = con.sql("select condition, count(*) from main.participant_context group by 1").fetchall()
    assert dict(contexts) == {"blind": attempts, "prefix12k": attempts, "nonblind": attempts}
    assert con.sql("select max(chars) from main.participant_context").fetchone()[0] <= 12_000
    tiers = dict(con.sql("select provenance, count(*) from main.participant_context "
                         "where condition = 'nonblind' group by 1").fetchall())
    assert tiers["anchored"] > tiers["segmented"] > 0 and tiers.get("none", 0) > 0
    leaks = con.sql("select count(*) from main.participant_context where regexp_matches(context, "
                    "'sk-proj-|@student\\.|@uni-example|student no\\. \\d')").fetchone()[0]
    assert leaks == 0
    # the demo corpus's verdicts came from this very judge: the audit agrees everywhere
    agree = con.sql("select count(*), sum(verdict_agrees::int) from main.label_audit").fetchone()
    assert agree[0] == attempts and agree[1] == attempts


@pytest.mark.slow
def test_judging_tables_from_the_run_command(demo_db):
    con = duckdb.connect(str(demo_db), read_only=True)
    attempts = con.sql("select count(*) from main.attempts").fetchone()[0]
    requests = dict(con.sql("select condition, count(*) from main.judge_requests group by 1").fetchall())
    assert requests == {"blind": attempts, "prefix12k": attempts, "nonblind": attempts}
    outputs = dict(con.sql("select condition || '|' || judge, count(*) from main.judge_outputs "
                           "where status = 'ok' group by 1").fetchall())
    assert outputs == {f"{c}|{j}": attempts for c in ("blind", "prefix12k", "nonblind")
                       for j in ("sample-exec", "static-rubric")}
    served = {r[0] for r in con.sql("select distinct served_model from main.judge_outputs").fetchall()}
    assert served == {"cojudge-local/sample-exec", "cojudge-local/static-rubric"}
    # each judge saw the attempt's own code, under the hash its request was stored with
    mismatched = con.sql("""select count(*) from main.judge_outputs o
                            join main.judge_requests r using (attempt_uid, condition, request_hash)
                            join main.attempts a using (attempt_uid)
                            where r.source_code <> a.code""").fetchone()[0]
    joined = con.sql("""select count(*) from main.judge_outputs o
                        join main.judge_requests r using (attempt_uid, condition, request_hash)""").fetchone()[0]
    assert mismatched == 0 and joined == 6 * attempts
    # sample-exec is an instrument, not a constant: it ranks accepted attempts above the rest
    means = dict(con.sql("select a.accepted, avg(p_accept) from main.judge_outputs o join main.attempts a "
                         "using (attempt_uid) where judge = 'sample-exec' group by 1").fetchall())
    assert means[True] > means[False] + 0.1  # 0.76 against 0.57 on the shipped demo corpus
    for condition in ("blind", "prefix12k", "nonblind"):
        lines = (demo_db.parent / "requests" / f"judge_requests.{condition}.jsonl").read_text().splitlines()
        assert len(lines) == attempts


@pytest.mark.slow
def test_a_second_judging_run_sends_nothing_and_says_so(demo_db, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "DAGSTER_HOME": str(home)}
    cli = Path(sys.executable).parent / "cojudge"
    done = subprocess.run([str(cli), "materialize", "--duckdb", str(demo_db), "--jobs", "judge_outputs_job"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summaries = [line for line in done.stdout.splitlines() if line.startswith("judge_outputs_job[")]
    assert len(summaries) == 6 and all("judged now 0, from cache" in line for line in summaries)


@pytest.mark.slow
def test_measurement_tables_from_the_run_command(demo_db):
    con = duckdb.connect(str(demo_db), read_only=True)
    for table in ("judge_metrics", "scale_validity", "agreement", "condition_effects", "panel", "per_problem",
                  "consistency", "error_profile", "recalibration"):
        assert con.sql(f"select count(*) from main.{table}").fetchone()[0] > 0, table
    auc = dict(con.sql("select judge, value from main.judge_metrics where metric = 'roc_auc' "
                       "and condition = 'nonblind'").fetchall())
    assert auc["sample-exec"] > auc["static-rubric"] > 0.5  # 0.675 and 0.584 on the shipped corpus
    lo, hi = con.sql("select lo, hi from main.judge_metrics where metric = 'roc_auc' and condition = 'nonblind' "
                     "and judge = 'sample-exec'").fetchone()
    assert lo < auc["sample-exec"] < hi
    assert (demo_db.parent / "measurement" / "kappa_nonblind.png").exists()


@pytest.mark.slow
def test_dynamics_tables_from_the_run_command(demo_db):
    con = duckdb.connect(str(demo_db), read_only=True)
    trajectories = con.sql("select count(distinct (participant, problem_id)) from main.attempts").fetchone()[0]
    first = con.sql("select share, n from main.success_at_turn where subset = 'all' and k = 1").fetchone()
    solved_first = con.sql("select count(*) from main.attempts where turn = 1 and accepted").fetchone()[0]
    assert first == (pytest.approx(solved_first / trajectories), trajectories)
    pairs = con.sql("select count(*) from main.churn").fetchone()[0]
    attempts = con.sql("select count(*) from main.attempts").fetchone()[0]
    assert pairs == attempts - trajectories  # one pair per consecutive attempts
    assert con.sql("select count(*) from main.rank_consensus").fetchone()[0] == attempts
    assert con.sql("select count(*) from main.churn_vs_improvement where value is not null").fetchone()[0] == 3
    for plot in ("success_at_turn", "survival", "codebleu_histogram", "struggle", "q_by_verdict"):
        assert (demo_db.parent / "dynamics" / f"{plot}.png").exists(), plot
