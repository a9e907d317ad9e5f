"""The shipped demo corpus meets its specification; counted from the files themselves."""

from __future__ import annotations

import re
from collections import Counter

import polars as pl
import pytest

from cojudge_assets.core.execution.contest_judge import EXTENSION_LANGUAGE, Verdict
from cojudge_assets.core.ingest.attempts import PageRules, list_pages, read_attempts
from cojudge_assets.core.ingest.corpus import contest_settings
from cojudge_assets.core.ingest.kattis import read_problems
from cojudge_assets.core.ingest.pages import naive_verdict_scan, visible_text
from cojudge_tests.conftest import REPO

DEMO = REPO / "data" / "demo"


@pytest.fixture(scope="module")
def problems():
    return read_problems(DEMO / "problems")


@pytest.fixture(scope="module")
def corpus(problems):
    rules = PageRules(set(problems), contest_settings(DEMO).vocabulary)
    pages = list_pages(DEMO)
    attempts, quarantine = read_attempts(DEMO, pages, rules)
    return pages, attempts, quarantine


def test_problems_are_complete_kattis_packages(problems):
    assert len(problems) >= 10
    for pid, p in problems.items():
        text = p.statement
        for section in ("## Input", "## Output", "## Constraints"):
            assert section in text, (pid, section)
        assert len(re.findall(r"Sample Input \d", text)) >= 2, pid
        assert len(p.samples) >= 2 and len(p.secret) >= 8, pid
        for sample in p.samples:  # the examples of the statement are the sample files
            assert sample.input_path.read_text().strip() in text, (pid, sample.name)
        assert p.limits_stated and p.time_limit_s > 0
        assert (p.root / "generators" / "gen.py").is_file()
        assert any(s.stem == "reference" for s in p.submissions("accepted")), pid


def test_size_budget():
    total = sum(f.stat().st_size for f in DEMO.rglob("*") if f.is_file())
    assert total < 30 * 1024 * 1024


def test_every_page_is_an_attempt(corpus):
    pages, attempts, quarantine = corpus
    assert quarantine.is_empty(), quarantine.to_dicts()[:3]
    assert len(attempts) == len(pages)
    assert set(pages["format"]) == {"html", "md", "txt"}


def test_counts(corpus):
    _, attempts, _ = corpus
    sizes = attempts.group_by("participant", "problem_id").len()["len"]
    assert attempts["participant"].n_unique() >= 15
    assert len(sizes) >= 150
    assert len(attempts) >= 450
    assert (sizes > 1).sum() >= 60
    assert (sizes >= 20).sum() >= 2
    # every contest verdict occurs (JUDGE_ERROR is the contest judge's own failure, never a contest's verdict)
    assert set(attempts["verdict"]) == {v.value for v in Verdict} - {Verdict.JUDGE_ERROR.value}
    accepted = attempts.filter(pl.col("accepted") & pl.col("language").is_in(["c", "cpp", "java"]))
    assert accepted["code"].n_unique() >= 100


def test_character_identical_resubmissions_exist(corpus):
    _, attempts, _ = corpus
    ordered = attempts.sort("participant", "problem_id", "turn").with_columns(
        pl.col("code").shift(1).over("participant", "problem_id").alias("previous")
    )
    assert ordered.filter(pl.col("code") == pl.col("previous")).height >= 3


def test_header_clock_runs_backwards(corpus):
    """V1/V2: pages were saved newest-first, so the header clock reverses the Submit order."""
    _, attempts, _ = corpus
    multi = attempts.filter(pl.len().over("participant", "problem_id") > 1)
    by_trajectory = (
        multi.sort("turn")
        .group_by("participant", "problem_id")
        .agg(pl.col("page_saved_at").is_sorted(descending=True).alias("reversed"))
    )
    assert by_trajectory["reversed"].all()
    times = attempts["submitted_at"]
    settings = contest_settings(DEMO)
    assert times.min() >= settings.window_start and times.max() <= settings.window_end


def test_accepted_variable_trap(corpus):
    """V3: for one problem every program declares `accepted`, so a page scan misreads the verdict."""
    _, attempts, _ = corpus
    trap = attempts.filter(pl.col("problem_id") == "admissions")
    assert trap.height > 0 and all(re.search(r"\baccepted\b", c) for c in trap["code"])
    misread = 0
    for row in trap.filter(~pl.col("accepted")).iter_rows(named=True):
        text = (DEMO / row["source_path"]).read_text()
        misread += naive_verdict_scan(visible_text(text, row["page_format"])) == "AC"
    assert misread == trap.filter(~pl.col("accepted")).height > 0
    others = attempts.filter((pl.col("problem_id") != "admissions") & ~pl.col("accepted"))
    wrong_elsewhere = sum(
        naive_verdict_scan(visible_text((DEMO / r["source_path"]).read_text(), r["page_format"])) == "AC"
        for r in others.iter_rows(named=True)
    )
    assert wrong_elsewhere == 0  # every disagreement falls on that single problem


def test_pages_agree_with_the_generator_ledger(corpus):
    _, attempts, _ = corpus
    ledger = pl.read_csv(DEMO / "judge_log.csv", infer_schema=False)
    joined = attempts.with_columns(("pages/" + pl.col("attempt_uid")).alias("page")).join(ledger, on="page")
    assert joined.height == attempts.height
    assert (joined["verdict"] == joined["verdict_right"]).all()
    assert (joined["code_sha256"] == joined["code_sha256_right"]).all()


def test_logs(corpus):
    _, attempts, _ = corpus
    logs = sorted((DEMO / "logs").rglob("*"))
    files = [f for f in logs if f.is_file()]
    assert {f.suffix for f in files} == {".md", ".txt", ".html"}
    assert {f.parent.name for f in files} >= set(attempts["participant"])
    raw = "\n".join(f.read_text() for f in files)
    assert re.search(r"student no\. \d{6,}", raw) and re.search(r"@\S+\.(edu|org|uk)", raw)
    assert re.search(r"sk-proj-[A-Za-z0-9]{40}", raw)
    ledger = pl.read_csv(DEMO / "judge_log.csv", infer_schema=False)
    tiers = Counter(ledger["log_tier"])
    assert tiers["anchored"] > tiers["segmented"] > tiers["none"] > 0


def test_pool_programs_are_varied(problems):
    for pid, p in problems.items():
        langs = Counter(EXTENSION_LANGUAGE[f.suffix[1:]] for f in p.submissions("accepted") if f.stem != "reference")
        assert langs["c"] >= 3 and langs["cpp"] >= 3 and langs["java"] >= 3, (pid, langs)
        for category in ("wrong_answer", "time_limit_exceeded", "run_time_error", "compile_error"):
            assert p.submissions(category), (pid, category)


@pytest.mark.slow
def test_verdicts_come_from_execution(corpus, problems, judge):
    """A stratified sample of pages re-judged in the sandbox gets exactly the verdict on the page."""
    _, attempts, _ = corpus
    sample = attempts.sort("attempt_uid").group_by("verdict", "language", maintain_order=True).head(2)
    results = judge.judge_many(
        [(problems[r["problem_id"]], r["language"], r["code"]) for r in sample.iter_rows(named=True)]
    )
    assert [r.verdict.value for r in results] == sample["verdict"].to_list()
    assert sample["verdict"].n_unique() == 5


@pytest.mark.slow
def test_reference_solutions_pass_everything(problems, judge):
    refs = [
        (p, EXTENSION_LANGUAGE[f.suffix[1:]], f.read_text())
        for p in problems.values()
        for f in p.submissions("accepted")
        if f.stem == "reference"
    ]
    assert len(refs) == len(problems)
    assert [r.verdict for r in judge.judge_many(refs)] == [Verdict.AC] * len(refs)
