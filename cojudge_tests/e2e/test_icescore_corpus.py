"""The ICE-Score release through the README's command: a trimmed copy of the real release (its first problems of
each language, every file of the release cut the same way) run by ``cojudge materialize --layout icescore``, as a
user would, with the shipped judges file. The full release is checked by cojudge_tests/core/test_icescore.py
(the published values) and by bench/import_throughput.py."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from cojudge_tests.conftest import REPO, SHARED_CORPORA
from cojudge_tests.judges.fixtures import cli

RELEASE = SHARED_CORPORA / "ice-score-humaneval"
PROBLEMS = 6  # per language

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not RELEASE.is_dir(), reason=f"the ICE-Score release is not at {RELEASE}"),
]


def trimmed_release(target: Path, problems: int = PROBLEMS) -> Path:
    """The release's files with only their first ``problems`` entries (every file is a list aligned by position)."""
    for path in sorted(RELEASE.rglob("*.json")):
        out = target / path.relative_to(RELEASE)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(json.loads(path.read_text())[:problems]))
    shutil.copy(RELEASE / "LICENSE", target / "LICENSE")
    return target


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("icescore")
    corpus = trimmed_release(root / "release")
    db, home = root / "ice.duckdb", root / "home"
    first = cli(
        ["materialize", "--corpus", str(corpus), "--layout", "icescore"],
        db=db,
        judges=REPO / "data" / "judges.yaml",
        home=home,
        timeout=1800,
    )
    return corpus, db, home, first


def test_the_release_is_imported_and_scored_without_a_provider_call(run):
    corpus, db, home, first = run
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    with duckdb.connect(str(db), read_only=True) as conn:
        languages = dict(conn.sql("select language, count(*) from main.attempts group by 1").fetchall())
        assert set(languages) == {"python", "java"} and min(languages.values()) > 50
        imported = conn.sql(
            "select judge, count(distinct a.language) from main.judge_outputs o join main.attempts a "
            "using (attempt_uid) where o.provenance = 'imported' and o.status = 'ok' "
            "group by 1"
        ).fetchall()
        assert len(imported) == 12 and all(n == 2 for _, n in imported)
        # the local judges were asked (through the one judging path) and abstained on every attempt: nothing else
        asked = conn.sql(
            "select judge, status, count(*) from main.judge_cache where provenance = 'judged' group by 1, 2"
        ).fetchall()
        statuses = {(j, s): n for j, s, n in asked}
        assert {j for j, _ in statuses} == {"sample-exec", "static-rubric"}
        assert {s for j, s in statuses if j == "sample-exec"} == {"abstained"}  # no stdin examples to run
        # static-rubric answers only where a docstring states a bound (5% of the full release)
        assert statuses[("static-rubric", "abstained")] > 5 * statuses.get(("static-rubric", "ok"), 0)
        assert set(statuses) <= {("sample-exec", "abstained"), ("static-rubric", "abstained"), ("static-rubric", "ok")}
        reasons = {
            r[0]
            for r in conn.sql("select distinct rationale from main.judge_cache where status = 'abstained'").fetchall()
        }
        assert reasons and all(reason for reason in reasons)
        # every measurement table holds the imported judges
        judges = {j for j, _ in imported}
        for table, metric in (
            ("judge_metrics", "roc_auc"),
            ("judge_metrics", "mcc_oof"),
            ("judge_metrics", "ece15"),
            ("judge_metrics", "coverage"),
            ("scale_validity", "distinct_values"),
            ("per_problem", None),
            ("correlation", "kendall_tau_b_example"),
        ):
            where = f" where metric = '{metric}'" if metric else ""
            found = {r[0] for r in conn.sql(f"select distinct judge from main.{table}{where}").fetchall()}
            assert judges <= found, (table, metric, judges - found)
        gpt_values = conn.sql(
            "select value from main.scale_validity where judge = 'gpt-3.5-noref' and metric = 'distinct_values'"
        ).fetchone()[0]
        assert 2 <= gpt_values <= 5
        subsets = {r[0] for r in conn.sql("select distinct subset from main.correlation").fetchall()}
        assert subsets == {"all", "java", "python"}
        assert conn.sql("select count(*) from main.agreement").fetchone()[0] > 0
        panel = conn.sql("select count(*) from main.panel where metric = 'roc_auc'").fetchone()[0]
        assert panel > 0
    report = (db.parent / "report" / "report.md").read_text()
    assert "Imported judges" in report and "Reproduced beside the published values" in report


def test_a_second_run_changes_nothing_and_one_changed_judge_file_reimports_that_judge(run):
    corpus, db, home, first = run
    again = cli(
        ["materialize", "--corpus", str(corpus), "--layout", "icescore"],
        db=db,
        judges=REPO / "data" / "judges.yaml",
        home=home,
        timeout=900,
    )
    assert again.returncode == 0 and "nothing changed" in again.stdout, again.stdout[-3000:]
    bleu = corpus / "experiment_source" / "original_output" / "humaneval" / "python" / "python_humaneval_bleu.json"
    entries = json.loads(bleu.read_text())
    key = next(k for k in entries[0] if k.startswith("bleu-"))
    entries[0][key] = min(1.0, entries[0][key] + 0.5)
    bleu.write_text(json.dumps(entries))
    third = cli(
        ["materialize", "--corpus", str(corpus), "--layout", "icescore"],
        db=db,
        judges=REPO / "data" / "judges.yaml",
        home=home,
        timeout=900,
    )
    assert third.returncode == 0, third.stdout[-3000:]
    ran = [line for line in third.stdout.splitlines() if re.match(r"^judge_outputs_job\[.*\]: ok", line)]
    assert ran and all(re.match(r"^judge_outputs_job\[\w+\|bleu\]", line) for line in ran), ran
    assert any(line.startswith("judge_outputs_job[blind|bleu]") for line in ran)
    assert not any(re.match(r"^(ingest|judge_requests_job\[.*\]): ok", line) for line in third.stdout.splitlines())
