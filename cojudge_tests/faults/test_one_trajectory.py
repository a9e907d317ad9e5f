"""A contest with a single problem and a single participant (one trajectory, issue 34) crashed the measurement step:
``groups must hold at least 2 distinct groups to form folds, got 1``. It now measures what needs no folds, leaves
out what does (NaN or no row) and says so (measure.NO_FOLDS, in the step's metadata)."""

from __future__ import annotations

import math

import polars as pl

from cojudge_assets.core.design.robustness import RobustnessConfig, contamination
from cojudge_assets.core.design.split import assign_split
from cojudge_assets.core.measurement.measure import NO_FOLDS, MeasurementConfig, measure
from cojudge_tests.core.test_metrics import synthetic_predictions


def one_trajectory(n: int = 60) -> pl.DataFrame:
    return synthetic_predictions(n=n).with_columns(pl.lit("s0").alias("participant"), pl.lit("p0").alias("problem_id"))


def test_measure_on_one_trajectory_measures_what_needs_no_folds():
    tables = measure(one_trajectory(), MeasurementConfig(resamples=50, problem_resamples=20))
    jm = tables["judge_metrics"]
    value = {(r["judge"], r["condition"], r["metric"]): r["value"] for r in jm.iter_rows(named=True)}
    assert 0 <= value[("a", "blind", "roc_auc")] <= 1 and not math.isnan(value[("a", "blind", "brier")])
    assert math.isnan(value[("a", "blind", "mcc_oof")])  # no folds: no out-of-fold decisions
    assert math.isnan(value[("a", "blind", "threshold_oof_median")])
    assert tables["recalibration"].is_empty()
    profile = set(tables["error_profile"]["metric"].to_list())
    assert "confident_fn" in profile and "tp" not in profile
    assert "got 1" in NO_FOLDS and "mcc_oof" in NO_FOLDS


def test_contamination_on_one_trajectory_does_not_crash():
    predictions = one_trajectory()
    split = assign_split(predictions.select("attempt_uid", "participant", "problem_id").unique("attempt_uid"))
    table = contamination(predictions, split, RobustnessConfig(resamples=50))
    oof = table.filter(pl.col("metric") == "mcc_oof")
    assert len(oof) == 6 and oof["inspectable"].is_nan().all()  # 3 judges x 2 conditions, no folds: NaN
    auc = table.filter(pl.col("metric") == "roc_auc")
    assert len(auc) == 6 and not auc["inspectable"].is_nan().any()


def test_the_graph_on_a_one_problem_one_participant_corpus_succeeds_and_says_what_it_left_out(tmp_path, monkeypatch):
    import dagster as dg

    from cojudge_assets.definitions import build_definitions
    from cojudge_assets.driver import run_steps
    from cojudge_tests.judges.fixtures import write_judges_file
    from cojudge_tests.judges.loopback import LoopbackServer

    n = 12
    folder = tmp_path / "corpus" / "progsnap2"
    (folder / "CodeStates").mkdir(parents=True)
    pl.DataFrame(
        {
            "EventType": ["Submit"] * n,
            "EventID": [f"e{i}" for i in range(n)],
            "Order": list(range(n)),
            "SubjectID": ["s0"] * n,
            "ProblemID": ["p0"] * n,
            "CodeStateID": [f"c{i}" for i in range(n)],
            "ServerTimestamp": [f"2024-01-01T10:00:{i:02d}" for i in range(n)],
            "Correct": ["true" if i % 3 == 0 else "false" for i in range(n)],
            "Language": ["Python"] * n,
        }
    ).write_csv(folder / "MainTable.csv")
    pl.DataFrame({"CodeStateID": [f"c{i}" for i in range(n)], "Code": [f"print({i})\n" for i in range(n)]}).write_csv(
        folder / "CodeStates" / "CodeStates.csv"
    )
    monkeypatch.setenv("LOOPBACK_KEY", "loopback-key")
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "j.duckdb"))
    instance = dg.DagsterInstance.ephemeral()
    with LoopbackServer() as server:
        answer = '{{"p_accept": {p}, "s_algo": 3, "s_robust": 3, "rationale": "r"}}'
        server.script = [("ok", answer.format(p=round(0.1 + 0.07 * i, 2))) for i in range(n)]
        monkeypatch.setenv("COJUDGE_JUDGES", str(write_judges_file(tmp_path / "judges.yaml", server.api_base)))
        config = {"resources": {"corpus": {"config": {"path": str(tmp_path / "corpus"), "layout": "progsnap2"}}}}
        lines: list[str] = []
        outcome = run_steps(build_definitions(), instance, config, conditions=["blind"], echo=lines.append)
    assert outcome, "\n".join(lines)
    record = instance.fetch_materializations(dg.AssetKey("judge_metrics"), limit=1).records[0]
    metadata = record.asset_materialization.metadata
    assert metadata["not_measured"].value == NO_FOLDS and metadata["folds"].value == 1
