"""The README's run command, end to end on the shipped demo corpus."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from cojudge_tests.conftest import REPO, run_command
from cojudge_tests.faults.support import table_digests

# the module's fixture runs the whole demo study cold (label audit, judging, ~700 mutants compiled and run)
pytestmark = pytest.mark.timeout(1800)


@pytest.fixture(scope="module")
def demo_home(demo_study) -> Path:
    return demo_study.home


@pytest.fixture(scope="module")
def demo_db(demo_study) -> Path:
    assert "success" in demo_study.stdout
    return demo_study.db


@pytest.mark.slow
def test_a_second_run_of_the_command_changes_nothing_sends_nothing_and_says_so(demo_db, demo_home):
    before = table_digests(demo_db)
    report = demo_db.parent / "report" / "report.html"
    stamp = report.stat().st_mtime_ns
    done = run_command(demo_db, demo_home, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    steps = [line for line in done.stdout.splitlines() if "_job" in line or line.startswith("ingest")]
    assert steps and all(line.endswith(": up to date, skipped") for line in steps), steps
    assert f"nothing changed: all {len(steps)} steps were up to date; 0 requests sent to judges" in done.stdout
    assert table_digests(demo_db) == before
    assert report.stat().st_mtime_ns == stamp


@pytest.mark.slow
def test_ingest_tables_from_the_run_command(demo_db):
    con = duckdb.connect(str(demo_db), read_only=True)
    tables = {
        r[0] for r in con.sql("select table_name from information_schema.tables where table_schema = 'main'").fetchall()
    }
    assert {
        "problems",
        "submission_pages",
        "attempts",
        "prompt_logs",
        "quarantine",
        "participant_context",
        "label_audit",
    } <= tables
    pages = con.sql("select count(*) from main.submission_pages").fetchone()[0]
    attempts = con.sql("select count(*) from main.attempts").fetchone()[0]
    quarantined = con.sql("select count(*) from main.quarantine").fetchone()[0]
    assert attempts >= 450 and attempts + quarantined == pages
    contexts = con.sql("select condition, count(*) from main.participant_context group by 1").fetchall()
    assert dict(contexts) == {"blind": attempts, "prefix12k": attempts, "nonblind": attempts}
    assert con.sql("select max(chars) from main.participant_context").fetchone()[0] <= 12_000
    tiers = dict(
        con.sql(
            "select provenance, count(*) from main.participant_context where condition = 'nonblind' group by 1"
        ).fetchall()
    )
    assert tiers["anchored"] > tiers["segmented"] > 0 and tiers.get("none", 0) > 0
    leaks = con.sql(
        "select count(*) from main.participant_context where regexp_matches(context, "
        "'sk-proj-|@student\\.|@uni-example|student no\\. \\d')"
    ).fetchone()[0]
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
    outputs = dict(
        con.sql(
            "select condition || '|' || judge, count(*) from main.judge_outputs where status = 'ok' group by 1"
        ).fetchall()
    )
    assert outputs == {
        f"{c}|{j}": attempts for c in ("blind", "prefix12k", "nonblind") for j in ("sample-exec", "static-rubric")
    }
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
    means = dict(
        con.sql(
            "select a.accepted, avg(p_accept) from main.judge_outputs o join main.attempts a "
            "using (attempt_uid) where judge = 'sample-exec' group by 1"
        ).fetchall()
    )
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
    done = subprocess.run(
        # a fresh Dagster home has no record of the demo's runs, so --force asks for the judging all the same:
        # every answer then comes from the judge cache in the DuckDB file
        [str(cli), "materialize", "--duckdb", str(demo_db), "--jobs", "judge_outputs_job", "--force"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summaries = [line for line in done.stdout.splitlines() if line.startswith("judge_outputs_job[")]
    assert len(summaries) == 6 and all("judged now 0, from cache" in line for line in summaries)


@pytest.mark.slow
def test_measurement_tables_from_the_run_command(demo_db):
    con = duckdb.connect(str(demo_db), read_only=True)
    for table in (
        "judge_metrics",
        "scale_validity",
        "agreement",
        "condition_effects",
        "panel",
        "per_problem",
        "consistency",
        "error_profile",
        "recalibration",
    ):
        assert con.sql(f"select count(*) from main.{table}").fetchone()[0] > 0, table
    auc = dict(
        con.sql(
            "select judge, value from main.judge_metrics where metric = 'roc_auc' and condition = 'nonblind'"
        ).fetchall()
    )
    assert auc["sample-exec"] > auc["static-rubric"] > 0.5  # 0.675 and 0.584 on the shipped corpus
    lo, hi = con.sql(
        "select lo, hi from main.judge_metrics where metric = 'roc_auc' and condition = 'nonblind' "
        "and judge = 'sample-exec'"
    ).fetchone()
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


@pytest.mark.slow
def test_perturbation_tables_from_the_run_command(demo_db):
    con = duckdb.connect(str(demo_db), read_only=True)
    verified = dict(con.sql("select arm, count(*) from main.mutants where verified group by 1").fetchall())
    assert verified["semantic"] >= 300 and verified["control"] >= 150 and verified["adversarial"] > 0
    # every verified control printed what its seed printed, and every mutant is one edit from its seed
    assert (
        con.sql(
            "select count(*) from main.mutants where verified and arm <> 'semantic' and not outputs_identical"
        ).fetchone()[0]
        == 0
    )
    assert con.sql("select bool_and(single_edit) from main.mutants where verified").fetchone()[0]
    confirmed = con.sql(
        "select avg(behaviour_changed::int) from main.mutants where verified and arm = 'semantic'"
    ).fetchone()[0]
    assert 0.3 < confirmed < 1.0  # most defects are real, some (a narrowed type that never overflows) are not
    operators = {r[0] for r in con.sql("select operator from main.perturbation_yield").fetchall()}
    assert operators == {
        "TYPE_NARROW",
        "ROR_BOUNDARY",
        "LOOP_SHORTEN",
        "ARITH_FLIP",
        "INC_PRE",
        "COMMENT_INSERT",
        "GRADER_CLAIM",
        "RENAME_LOCAL",
        "REFORMAT",
        "DEAD_BRANCH",
        "SWAP_STATEMENTS",
    }
    judged = dict(
        con.sql("select judge, count(*) from main.perturbation_outputs where status = 'ok' group by 1").fetchall()
    )
    requests = con.sql("select count(*) from main.perturbation_requests").fetchone()[0]
    assert judged == {"sample-exec": requests, "static-rubric": requests}
    metrics = {
        (j, m, s): v
        for j, m, s, v in con.sql("select judge, metric, subset, value from main.perturbation_metrics").fetchall()
    }
    # sample-exec runs the samples: it notices defects that break them, and never penalises a control
    assert metrics[("sample-exec", "arm_discrimination", "all")] > 0.5
    assert metrics[("sample-exec", "reaction", "control")] == 0.0
    assert (demo_db.parent / "perturbation" / "shift_by_operator.png").exists()
    # the local judges read a behaviour-preserving rewrite as the same program: no decision flips
    assert metrics[("sample-exec", "rewrite_flip", "RENAME_LOCAL")] == 0.0
    assert (demo_db.parent / "perturbation" / "consistency_under_rewrite.png").exists()


@pytest.mark.slow
def test_the_report_from_the_run_command(demo_db):
    html = (demo_db.parent / "report" / "report.html").read_text(encoding="utf-8")
    for title in (
        "Inputs and conditions",
        "Judges: served models, validity, drift",
        "The judges as instruments",
        "Perturbation: does a judge notice a broken program?",
        "Co-creation dynamics",
    ):
        assert title in html, title
    figures = html.count('<img src="data:image/png;base64,')
    assert figures == html.count('class="reading-guide"') >= 10  # one figure per distinct condition result
    assert "cojudge-local/sample-exec" in html  # the served models are named
    markdown = (demo_db.parent / "report" / "report.md").read_text(encoding="utf-8")
    assert markdown.count("](figures/") == figures


@pytest.mark.slow
def test_the_demo_report_renders_every_figure_in_chromium(demo_db, tmp_path):
    from cojudge_tests.report.browser import launch_chromium

    page_file = demo_db.parent / "report" / "report.html"
    with launch_chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        fetched: list[str] = []
        page.on("request", lambda request: fetched.append(request.url))
        page.goto(page_file.as_uri())
        page.wait_for_load_state("load")
        images = page.eval_on_selector_all(
            "figure img", "els => els.map(e => [e.complete, e.naturalWidth, e.src.slice(0, 22)])"
        )
        assert len(images) >= 10
        assert all(done and width > 0 and src == "data:image/png;base64," for done, width, src in images)
        assert page.locator(".reading-guide").count() == len(images)
        assert fetched == [page_file.as_uri()]  # self-contained: nothing else was fetched
        page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    assert (tmp_path / "report.png").stat().st_size > 100_000


@pytest.mark.slow
def test_a_verdict_fix_on_the_demo_corpus_recomputes_metrics_without_judge_calls(
    demo_db, demo_home, tmp_path, monkeypatch
):
    """Change how a verdict is read (and bump the reader's code version), re-materialize: zero judge calls."""
    import dagster as dg

    import cojudge_assets.core.ingest.attempts as attempts_reader
    import cojudge_assets.defs.ingest.assets as ingest_assets
    from cojudge_assets.definitions import build_definitions
    from cojudge_assets.driver import run_steps

    # a copy of the finished run (tables, files beside them, Dagster's history), so other tests keep theirs
    shutil.copytree(demo_db.parent, tmp_path / "run")
    shutil.copytree(demo_home, tmp_path / "home")
    db = tmp_path / "run" / demo_db.name
    monkeypatch.setenv("COJUDGE_DUCKDB", str(db))
    instance = dg.DagsterInstance.from_config(str(tmp_path / "home"))

    def metrics():
        con = duckdb.connect(str(db), read_only=True)
        try:
            return dict(
                con.sql(
                    "select judge || '|' || condition, value from main.judge_metrics where metric = 'roc_auc'"
                ).fetchall()
            )
        finally:
            con.close()

    before = metrics()
    read = attempts_reader.map_verdict
    # the fix: this judge system's "Runtime Error" page meant a run killed after printing a correct answer
    monkeypatch.setattr(
        attempts_reader,
        "map_verdict",
        lambda result, vocabulary: "AC" if result.strip().lower() == "runtime error" else read(result, vocabulary),
    )
    monkeypatch.setattr(
        ingest_assets,
        "read_contest",
        ingest_assets.read_contest.map_asset_specs(
            lambda spec: (
                spec.replace_attributes(code_version=f"{spec.code_version}-fixed")
                if spec.key == dg.AssetKey("attempts")
                else spec
            )
        ),
    )
    lines: list[str] = []
    outcome = run_steps(build_definitions(), instance, {}, echo=lines.append)
    assert outcome, "\n".join(lines)
    steps: dict[str, str] = {}
    for line in lines:  # a step may run in several rounds (a reader one round after its input)
        steps[line.split(":")[0]] = steps.get(line.split(":")[0], "") + line + "\n"
    assert "ingest: ok" in steps["ingest"] and "attempts" in steps["ingest"]
    judging = [line for step, line in steps.items() if step.startswith(("judge_outputs_job", "perturbation_outputs"))]
    assert len(judging) == 8 and all(line == line.split(":")[0] + ": up to date, skipped\n" for line in judging)
    assert outcome.requests_sent == 0
    after = metrics()
    assert set(after) == set(before) and all(after[k] != pytest.approx(before[k]) for k in before)
    con = duckdb.connect(str(db), read_only=True)
    assert con.sql("select count(*) from main.attempts where verdict = 'RE'").fetchone()[0] == 0
    con.close()
