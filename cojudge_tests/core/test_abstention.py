"""Abstention end to end in the pure core: the answer's exact shape, coverage, and a panel and agreement that use
only the judges that answered an item and leave a constant judge out, saying so."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score

from cojudge_assets.core.dynamics import pooling
from cojudge_assets.core.judging.models import validate_answer
from cojudge_assets.core.measurement import agreement
from cojudge_assets.core.measurement.measure import MeasurementConfig, measure
from cojudge_tests.core.test_metrics import synthetic_predictions

FAST = MeasurementConfig(resamples=60, problem_resamples=20)


# -- the answer ------------------------------------------------------------------------------------------------


def test_an_abstention_is_recognised_only_in_its_exact_shape():
    checked = validate_answer('  {"abstain": "the statement has no examples to run"}\n')
    assert checked.abstained and checked.abstain_reason == "the statement has no examples to run"
    assert checked.output is None and checked.error == ""
    invalid = {
        '{"abstain": "no examples", "p_accept": 0.5, "s_algo": 3, "s_robust": 3, "rationale": "x"}': (
            "an abstention is exactly"
        ),
        '{"abstain": ""}': "expected a non-empty reason",
        '{"abstain": "   "}': "the reason is blank",
        '{"abstain": true}': "expected a non-empty reason",
        '{"abstain": null}': "expected a non-empty reason",
    }
    for text, expected in invalid.items():
        checked = validate_answer(text)
        assert not checked.abstained and checked.output is None and expected in checked.error, (text, checked)
    # strict: a fenced abstention is not JSON; lenient: it is found, but an abstention must be the whole answer
    fenced = '```json\n{"abstain": "no examples"}\n```'
    assert not validate_answer(fenced).abstained and validate_answer(fenced).error.startswith("not a JSON object")
    lenient = validate_answer(fenced, lenient=True)
    assert not lenient.abstained and "must be the whole answer" in lenient.error
    # an ordinary answer is untouched
    ordinary = validate_answer('{"p_accept": 0.5, "s_algo": 3, "s_robust": 3, "rationale": "abstain"}')
    assert ordinary.output is not None and not ordinary.abstained


# -- the panel's helpers ---------------------------------------------------------------------------------------


def test_answered_panel_score_is_the_mean_rank_over_the_judges_that_answered():
    a = (np.array([0, 1, 2, 3]), np.array([0.1, 0.4, 0.4, 0.9]))
    b = (np.array([1, 3, 5]), np.array([0.7, 0.2, 0.5]))
    items, score = agreement.answered_panel_score({"a": a, "b": b})
    # a's ranks: 1, 2.5, 2.5, 4 over 4; b's: 3, 1, 2 over 3
    expected = {0: 0.25, 1: (0.625 + 1.0) / 2, 2: 0.625, 3: (1.0 + 1 / 3) / 2, 5: 2 / 3}
    assert items.tolist() == sorted(expected)
    assert score == pytest.approx([expected[i] for i in items.tolist()])
    # with full coverage it is the plain mean of percentile ranks
    p, q = np.array([0.3, 0.1, 0.8]), np.array([0.2, 0.9, 0.4])
    _, full = agreement.answered_panel_score({"p": (np.arange(3), p), "q": (np.arange(3), q)})
    assert full == pytest.approx((agreement.percentile_ranks(p) + agreement.percentile_ranks(q)) / 2)
    with pytest.raises(ValueError, match="one distinct attempt per answer"):
        agreement.answered_panel_score({"a": (np.array([0, 0]), np.array([0.1, 0.2]))})
    assert (
        pooling.left_out("j", np.full(4, 0.5)) is not None and pooling.left_out("j", np.array([0.5, 0.5, 0.6])) is None
    )


# -- measurement -------------------------------------------------------------------------------------------------


def with_constant_judge(table: pl.DataFrame, value: float = 0.5) -> pl.DataFrame:
    constant = table.filter(pl.col("judge") == "a").with_columns(
        pl.lit("const").alias("judge"), pl.lit(value).alias("p_accept")
    )
    return pl.concat([table, constant])


def metric(table: pl.DataFrame, judge: str, condition: str, name: str) -> pl.DataFrame:
    return table.filter((pl.col("judge") == judge) & (pl.col("condition") == condition) & (pl.col("metric") == name))


def test_a_constant_judge_changes_neither_the_panel_nor_fleiss_kappa_and_is_named():
    table = synthetic_predictions()
    before = measure(table, FAST)
    after = measure(with_constant_judge(table), FAST)
    figures = [("panel", name) for name in ("roc_auc", "pr_auc", "gain_over_mean_member", "mean_member_roc_auc")]
    figures += [("agreement", name) for name in ("fleiss_kappa", "mean_kappa", "mean_rho")]
    for condition in ("blind", "nonblind"):
        for table_name, name in figures:
            old = metric(before[table_name], "panel", condition, name).select("value", "lo", "hi", "n")
            new = metric(after[table_name], "panel", condition, name).select("value", "lo", "hi", "n")
            assert len(new) == 1 and new.equals(old), (table_name, name)
        for table_name in ("panel", "agreement"):
            note = metric(after[table_name], "const", condition, "excluded_constant")
            assert note.select("value", "n").rows() == [(0.5, 240)], table_name
            assert metric(before[table_name], "const", condition, "excluded_constant").is_empty()
        assert metric(after["panel"], "panel", condition, "members")["value"].item() == 3
        # no pair names the constant judge
        pairs = after["agreement"].filter(pl.col("judge").str.contains("~"))["judge"]
        assert len(pairs) and not pairs.str.contains("const").any()
    # it is still scored as a judge: ROC-AUC 0.5 exactly, one distinct value
    assert metric(after["judge_metrics"], "const", "blind", "roc_auc")["value"].item() == 0.5
    # and the old behaviour it replaces: counted in the panel it would have lowered the gain over the mean member
    gain = metric(after["panel"], "panel", "blind", "gain_over_mean_member")["value"].item()
    members = [metric(after["judge_metrics"], j, "blind", "roc_auc")["value"].item() for j in ("a", "b", "c")]
    panel_auc = metric(after["panel"], "panel", "blind", "roc_auc")["value"].item()
    assert gain == pytest.approx(panel_auc - np.mean(members))
    assert gain < panel_auc - np.mean([*members, 0.5])


def partial_predictions() -> pl.DataFrame:
    """Judge b abstained on every third attempt of the blind condition; judge a answered them all."""
    table = synthetic_predictions(n=120)
    abstained = (
        (pl.col("judge") == "b")
        & (pl.col("condition") == "blind")
        & (pl.col("attempt_uid").str.slice(1).cast(pl.Int64) % 3 == 0)
    )
    return table.filter(~abstained)


def test_coverage_on_a_hand_example():
    table = partial_predictions()
    blind = table.filter(pl.col("condition") == "blind")
    outcomes = pl.concat(
        [
            blind.select("judge", "condition", "attempt_uid", pl.lit("ok").alias("status")),
            pl.DataFrame(
                {
                    "judge": ["b"] * 40,
                    "condition": ["blind"] * 40,
                    "attempt_uid": [f"u{i:04d}" for i in range(0, 120, 3)],
                    "status": ["abstained"] * 40,
                }
            ),
            # judge d was asked about 5 attempts and abstained on all: a coverage row, no metrics
            pl.DataFrame(
                {
                    "judge": ["d"] * 5,
                    "condition": ["blind"] * 5,
                    "attempt_uid": [f"u{i:04d}" for i in range(5)],
                    "status": ["abstained"] * 5,
                }
            ),
        ]
    )
    metrics = measure(table, FAST, outcomes)["judge_metrics"]
    rows = {
        (r["judge"], r["metric"]): (r["value"], r["n"])
        for r in metrics.filter(
            (pl.col("condition") == "blind") & pl.col("metric").is_in(["coverage", "answered", "abstained"])
        ).iter_rows(named=True)
    }
    assert rows[("a", "coverage")] == (1.0, 120) and rows[("a", "abstained")] == (0, 120)
    assert rows[("b", "coverage")] == (pytest.approx(80 / 120), 120)
    assert rows[("b", "answered")] == (80, 120) and rows[("b", "abstained")] == (40, 120)
    assert rows[("d", "coverage")] == (0.0, 5) and rows[("d", "abstained")] == (5, 5)
    assert metric(metrics, "d", "blind", "roc_auc").is_empty()
    # b's metrics are computed on what it answered
    b = blind.filter(pl.col("judge") == "b")
    auc = metric(metrics, "b", "blind", "roc_auc")
    assert auc["n"].item() == 80 and auc["value"].item() == pytest.approx(roc_auc_score(b["y"], b["p_accept"]))
    # without outcomes, the attempts some judge answered under the condition are the denominator
    inferred = measure(table, FAST)["judge_metrics"]
    assert metric(inferred, "b", "blind", "coverage").select("value", "n").row(0) == (pytest.approx(80 / 120), 120)
    assert metric(inferred, "b", "blind", "abstained")["value"].item() == 40
    assert metric(inferred, "b", "nonblind", "coverage")["value"].item() == 1.0


def test_the_panel_and_agreement_use_the_judges_that_answered_each_attempt():
    table = partial_predictions()
    tables = measure(table, FAST)
    blind = table.filter(pl.col("condition") == "blind")
    p = {
        j: dict(
            zip(*blind.filter(pl.col("judge") == j).select("attempt_uid", "p_accept").to_dict(as_series=False).values())
        )
        for j in ("a", "b", "c")
    }
    y = dict(zip(*blind.select("attempt_uid", "y").unique().to_dict(as_series=False).values()))
    uids = sorted(y)
    # the panel covers every attempt, each scored over the judges that answered it
    ranks = {
        j: dict(zip(sorted(p[j]), agreement.percentile_ranks(np.array([p[j][u] for u in sorted(p[j])])))) for j in p
    }
    score = [np.mean([ranks[j][u] for j in p if u in ranks[j]]) for u in uids]
    panel_auc = metric(tables["panel"], "panel", "blind", "roc_auc")
    assert panel_auc["n"].item() == 120
    assert panel_auc["value"].item() == pytest.approx(roc_auc_score([y[u] for u in uids], score))
    # a pair on the attempts both answered; Fleiss on those all answered
    rho = metric(tables["agreement"], "a~b", "blind", "pairwise_rho")
    both = sorted(set(p["a"]) & set(p["b"]))
    assert rho["n"].item() == 80
    assert rho["value"].item() == pytest.approx(spearmanr([p["a"][u] for u in both], [p["b"][u] for u in both])[0])
    assert metric(tables["agreement"], "a~c", "blind", "pairwise_rho")["n"].item() == 120
    fleiss = metric(tables["agreement"], "panel", "blind", "fleiss_kappa")
    cuts = np.column_stack([agreement.median_cut(np.array([p[j][u] for u in both])) for j in ("a", "b", "c")])
    assert fleiss["n"].item() == 80 and fleiss["value"].item() == pytest.approx(agreement.fleiss_kappa(cuts))
    # every figure has its bootstrap interval
    for name in ("roc_auc", "gain_over_mean_member"):
        row = metric(tables["panel"], "panel", "blind", name)
        assert row["lo"].item() <= row["value"].item() <= row["hi"].item(), name
    assert rho["lo"].item() <= rho["value"].item() <= rho["hi"].item()
