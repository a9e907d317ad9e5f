"""Bias diagnostics (core/design/bias.py): a planted length bias is found, an unbiased judge shows none, and the
covariates a corpus lacks or holds constant get a note row."""

import numpy as np
import polars as pl
import pytest
from scipy import stats

from cojudge_assets.core.design.bias import bias_diagnostics, bias_frame, bias_table, code_size, format_p


def synthetic_predictions(length_bias: float, *, seed: int = 1) -> tuple[pl.DataFrame, pl.DataFrame]:
    """600 attempts in 150 trajectories (30 participants x 5 problems, 4 turns each), two languages, verdicts among
    rejected; a judge whose p shifts by ``length_bias`` per doubling of the code's lines."""
    rng = np.random.default_rng(seed)
    size = 600
    participants = np.repeat([f"u{i:02d}" for i in range(30)], 20)
    problems = np.tile(np.repeat([f"q{i}" for i in range(5)], 4), 30)
    turns = np.tile(np.arange(1, 5), 150)
    lines = rng.integers(4, 400, size)
    y = (rng.random(size) < 0.35).astype(np.int64)
    noise = rng.normal(0, 0.12, size)
    p = np.clip(0.25 + 0.45 * y + length_bias * (np.log2(lines) - np.log2(lines).mean()) + noise, 0, 1)
    verdicts = np.where(y == 1, "AC", rng.choice(["WA", "TLE", "RE", "CE"], size))
    uids = [f"a{i:04d}" for i in range(size)]
    predictions = pl.DataFrame(
        {
            "attempt_uid": uids,
            "judge": "j",
            "condition": "nonblind",
            "p_accept": p,
            "y": y,
            "participant": participants,
            "problem_id": problems,
            "turn": turns,
            "verdict": verdicts,
            "language": rng.choice(["c", "cpp"], size),
            "code": ["x = 1;\n" * int(n) for n in lines],
        }
    )
    context = pl.DataFrame(
        {
            "attempt_uid": uids,
            "condition": "nonblind",
            "chars": rng.integers(0, 5000, size),
            "provenance": rng.choice(["anchored", "segmented"], size),
        }
    )
    return predictions, context


def test_a_planted_length_bias_is_found():
    predictions, context = synthetic_predictions(0.06)
    table = bias_diagnostics(bias_frame(predictions, context))
    lines = table.filter((pl.col("error") == "p_minus_y") & (pl.col("term") == "log2_lines")).row(0, named=True)
    assert lines["p_adjusted"] < 0.01
    assert lines["coef"] == pytest.approx(0.06, abs=0.02)
    assert lines["groups"] == 150 and lines["n"] == 600 and lines["cluster"] == "trajectory"


def test_an_unbiased_judge_shows_no_bias():
    """Holm keeps the family-wise error of the 26 terms at 5%: a seed in about twenty shows a false positive
    (the study's SEED, 20260314, does: verdict=WA, adjusted p 0.037); this one, fixed, does not."""
    predictions, context = synthetic_predictions(0.0)
    table = bias_diagnostics(bias_frame(predictions, context))
    terms = table.filter(pl.col("term").is_not_null())
    assert {"log2_lines", "log2_tokens", "turn", "context_kchars"} <= set(terms["term"])
    assert {"language", "problem", "provenance", "verdict"} <= set(terms["covariate"])
    assert terms["p_adjusted"].min() > 0.05


def test_the_table_a_cell_at_a_time_is_the_table_of_the_whole_frame():
    # bias_table (the asset's path, issue 33: one cell's frame in memory at a time) gives bias_diagnostics of
    # the whole bias_frame, row for row, under two judges x two conditions
    predictions, context = synthetic_predictions(0.3)
    cells = pl.concat(
        [
            predictions.with_columns(pl.lit(j).alias("judge"), pl.lit(c).alias("condition"))
            for j in ("j1", "j2")
            for c in ("blind", "nonblind")
        ]
    )
    contexts = pl.concat([context.with_columns(pl.lit(c).alias("condition")) for c in ("blind", "nonblind")])
    whole = bias_diagnostics(bias_frame(cells, contexts))
    by_cell = bias_table(cells, contexts)
    assert len(whole) > 0 and by_cell["judge"].n_unique() == 2 and by_cell["condition"].n_unique() == 2
    assert by_cell.equals(whole)
    assert bias_table(cells.head(0), contexts).is_empty()


def test_missing_and_constant_covariates_get_a_note_row():
    predictions, _ = synthetic_predictions(0.0)
    table = bias_diagnostics(bias_frame(predictions.with_columns(pl.lit("c").alias("language"))))
    notes = table.filter((pl.col("error") == "p_minus_y") & pl.col("term").is_null())
    reasons = dict(zip(notes["covariate"], notes["note"]))
    assert reasons["language"].startswith("constant")
    assert "no values" in reasons["context_kchars"] and "no values" in reasons["provenance"]
    # verdict types are read among rejected attempts only
    verdict = table.filter((pl.col("covariate") == "verdict") & (pl.col("error") == "p_minus_y"))
    assert set(verdict["n"]) == {int((predictions["y"] == 0).sum())}
    assert not any("AC" in term for term in verdict["term"])


def test_the_decision_error_uses_out_of_fold_decisions():
    predictions, context = synthetic_predictions(0.0)
    frame = bias_frame(predictions, context)
    assert set(frame["oof_wrong"].unique()) <= {0.0, 1.0}
    assert 0 < frame["oof_wrong"].mean() < 0.5  # an informative judge is wrong on a minority


def test_code_size_and_invalid_inputs():
    assert code_size("a\nb\n") == (2, 2)
    assert code_size(None) == (0, 0)
    with pytest.raises(ValueError, match="predictions"):
        bias_frame(pl.DataFrame({"attempt_uid": ["a"]}))
    predictions, context = synthetic_predictions(0.0)
    with pytest.raises(ValueError, match="covariates"):
        bias_diagnostics(bias_frame(predictions, context), covariates=("shoe_size",))


def test_p_values_use_t_on_trajectories_minus_one_and_tiny_ones_print_as_a_floor():
    """Few trajectories: the p-value is the two-sided t tail on G - 1 degrees of freedom of coef / se, larger than
    the z tail; a p-value below 1e-16 prints as "< 1e-16"."""
    predictions, context = synthetic_predictions(0.03)
    few = predictions.filter(pl.col("participant").is_in([f"u{i:02d}" for i in range(3)]))  # 15 trajectories
    table = bias_diagnostics(bias_frame(few, context))
    row = table.filter((pl.col("error") == "p_minus_y") & (pl.col("term") == "log2_lines")).row(0, named=True)
    assert row["groups"] == 15
    t = abs(row["coef"] / row["se"])
    assert row["p"] == pytest.approx(2 * stats.t.sf(t, 14), rel=1e-9)
    assert row["p"] > 2 * stats.norm.sf(t)
    assert format_p(7.7e-113) == "< 1e-16" and format_p(2e-16) == "2.0e-16" and format_p(0.04) == "0.0400"
