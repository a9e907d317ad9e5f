"""What makes a judge wrong: its errors regressed on the covariates the corpus has (issue 18, part 2).

Two errors per answered attempt x judge x condition:

* ``p_minus_y``: p_accept - y, the signed error of the probability (positive: too lenient);
* ``oof_wrong``: 1 when the out-of-fold decision ``p >= t_k`` is wrong, t_k the threshold selected on the other
  folds, with measurement's folds (grouped by trajectory, ``grouped_folds`` on the same attempts and seed), so
  the decisions are judge_metrics' MCCoof decisions.

Covariates, each fitted in a model of its own (``error ~ covariate`` by OLS, statsmodels), because several are
nested in others (language and problem, verdict type only among rejected attempts) and would not be separable
in one model:

* ``log2_lines``, ``log2_tokens``: code length (lines; tokens = identifiers, numbers and single punctuation
  characters), as log2 so a coefficient is the error shift per doubling;
* ``language``, ``problem``: categorical, one term per level against the most frequent level;
* ``turn``: the attempt's index within its trajectory;
* ``context_kchars`` and ``provenance``: the participant context the judge was sent under the condition
  (participant_context: chars / 1000, and the provenance tier);
* ``verdict``: the verdict type (WA/TLE/RE/CE...) among rejected attempts only, against the most frequent.

Standard errors are cluster-robust (statsmodels ``cov_type="cluster"``, CR1) by trajectory (participant x problem;
the problem when the attempt has no participant), and p-values come from t on G - 1 degrees of freedom (G the
trajectories), not z: with few trajectories z overstates the evidence (issue 26). p-values are adjusted over
every term of a judge x condition x error (``multipletests``, Holm by default). A covariate the corpus lacks
(no column, all null) or that is constant on the cell gets a note row instead of terms.

What ``p_minus_y`` measures: the judge's error *and* whatever predicts y. A covariate that predicts the verdict
(longer programs fail more often, turn 2 is the accepted one) shifts p - y even for a judge that ignores it,
because p cannot follow y perfectly; a coefficient is "the judge is more lenient where this covariate is high"
only beside the covariate's association with y. ``oof_wrong`` has the same caveat for the error rate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.frames import TableReader, as_reader, frame_reader
from cojudge_assets.core.stats import metrics as m

P_FLOOR = 1e-16  # a p-value below this is shown as "< 1e-16": double precision holds no more


def format_p(value: float | None) -> str:
    """A p-value as shown in the report: "< 1e-16" below P_FLOOR, else three significant digits.

    >>> [format_p(v) for v in (7.7e-113, 0.0, 0.0123, 0.5, None)]
    ['< 1e-16', '< 1e-16', '0.0123', '0.500', '–']
    """
    if value is None or value != value:
        return "–"
    if value < P_FLOOR:
        return "< 1e-16"
    if value < 0.001:
        return f"{value:.1e}"
    return f"{value:#.3g}"


ERRORS = ("p_minus_y", "oof_wrong")
CONTEXT_COLUMNS = ("attempt_uid", "condition", "chars", "provenance")  # what bias_frame reads of participant_context
NUMERIC = ("log2_lines", "log2_tokens", "turn", "context_kchars")
CATEGORICAL = ("language", "problem", "provenance", "verdict")
COVARIATES = ("log2_lines", "log2_tokens", "language", "problem", "turn", "context_kchars", "provenance", "verdict")
SE_FLOOR = 1e-9  # a standard error below this share of the error's spread is rounding, not an estimate
TOKEN = re.compile(r"\w+|[^\w\s]")
BIAS_SCHEMA = pl.Schema(
    {
        "judge": pl.String,
        "condition": pl.String,
        "error": pl.String,
        "covariate": pl.String,
        "term": pl.String,
        "coef": pl.Float64,
        "se": pl.Float64,
        "p": pl.Float64,
        "p_adjusted": pl.Float64,
        "n": pl.Int64,
        "groups": pl.Int64,
        "cluster": pl.String,
        "note": pl.String,
    }
)


def code_size(code: str | None) -> tuple[int, int]:
    """(lines, tokens) of a source text; tokens are identifiers/numbers and single punctuation characters.

    >>> code_size("int main() {\\n  return 0;\\n}\\n")
    (3, 9)
    """
    if not code:
        return 0, 0
    return len(code.splitlines()), len(TOKEN.findall(code))


# the line boundaries str.splitlines() knows, as one pattern (a \r\n pair is one boundary)
LINE_BREAK = r"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]"


def code_size_columns(code: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """:func:`code_size` of a column of source texts, vectorized: ``code_lines`` and ``code_tokens`` (Int32), so a
    table carries a program's size instead of its text (predictions: core/measurement/predictions.py).

    >>> texts = ["int main() {\\n  return 0;\\n}\\n", "a\\r\\nb", "", None, "x = 1\\n\\n"]
    >>> frame = pl.DataFrame({"code": texts}).select(*code_size_columns(pl.col("code")))
    >>> [tuple(row) for row in frame.iter_rows()] == [code_size(t) for t in texts]
    True
    """
    breaks = code.str.count_matches(LINE_BREAK)
    unterminated = code.str.contains(f"(?:{LINE_BREAK})$").not_() & (code.str.len_bytes() > 0)
    lines = (breaks + unterminated.cast(pl.UInt32)).fill_null(0).cast(pl.Int32).alias("code_lines")
    tokens = code.str.count_matches(TOKEN.pattern).fill_null(0).cast(pl.Int32).alias("code_tokens")
    return lines, tokens


def bias_frame(
    predictions: pl.DataFrame | TableReader,
    participant_context: pl.DataFrame | TableReader | None = None,
    *,
    folds: int = 10,
    seed: int = SEED,
) -> pl.DataFrame:
    """One row per answered attempt x judge x condition: both errors, the trajectory and every covariate the
    inputs have (a covariate they lack is a null column); the cells in judge, condition order."""
    cells = list(_cell_frames(predictions, participant_context, folds, seed))
    return pl.concat(cells) if len(cells) > 1 else cells[0]


def bias_table(
    predictions: pl.DataFrame | TableReader,
    participant_context: pl.DataFrame | TableReader | None = None,
    *,
    folds: int = 10,
    seed: int = SEED,
    method: str = "holm",
) -> pl.DataFrame:
    """``bias_diagnostics(bias_frame(...))`` a judge x condition at a time: memory of one cell's frame, not of
    every cell's (the cells are independent: the folds are over every attempt, the adjustment within a cell).
    ``predictions`` and ``participant_context`` may be :class:`TableReader` s: a cell's predictions and its
    condition's contexts are then read when it is fitted, so no more than one cell's rows are held."""
    fitted = (
        bias_diagnostics(frame, method=method) for frame in _cell_frames(predictions, participant_context, folds, seed)
    )
    parts = [part for part in fitted if len(part)]
    return pl.concat(parts) if parts else pl.DataFrame(schema=BIAS_SCHEMA)


ANSWERED = pl.col("p_accept").is_not_null() & pl.col("p_accept").is_not_nan()
PREDICTION_COLUMNS = ("attempt_uid", "judge", "condition", "p_accept", "y", "participant", "problem_id")


def _cell_frames(
    predictions: pl.DataFrame | TableReader,
    participant_context: pl.DataFrame | TableReader | None,
    folds: int,
    seed: int,
) -> Iterator[pl.DataFrame]:
    """:func:`_cell_frame` of each judge x condition in judge, condition order, each read when it is made (a
    frame with no cell: one empty frame, the schema)."""
    reader = as_reader(predictions, "predictions")
    missing = set(PREDICTION_COLUMNS) - set(reader.columns or PREDICTION_COLUMNS)
    if missing:
        raise ValueError(f"predictions: expected columns {sorted(PREDICTION_COLUMNS)}; missing {sorted(missing)}")
    cells = reader.keys("judge", "condition")
    fold_of = _folds(reader, cells, folds, seed)
    context = _context_reader(participant_context)
    if not cells:
        yield _cell_frame(reader.read(), fold_of, None)
        return
    for judge, condition in cells:
        # no name bound to the cell's rows or contexts: the generator would hold them while its frame is fitted
        yield _cell_frame(
            reader.read(judge=judge, condition=condition).filter(ANSWERED).sort("attempt_uid"),
            fold_of,
            context.read(condition=condition) if context else None,
        )


def _context_reader(participant_context: pl.DataFrame | TableReader | None) -> TableReader | None:
    """The contexts as a reader of one condition's rows, None when there are none or they lack
    :data:`CONTEXT_COLUMNS` (a frame: a corpus before contexts had them)."""
    if participant_context is None:
        return None
    if isinstance(participant_context, pl.DataFrame):
        if not set(CONTEXT_COLUMNS) <= set(participant_context.columns):
            return None
        return frame_reader("participant_context", participant_context.select(CONTEXT_COLUMNS))
    return participant_context


def _folds(reader: TableReader, cells: list[tuple], folds: int, seed: int) -> pl.DataFrame:
    """Measurement's fold of each answered attempt of every cell (attempt_uid, fold), the attempts gathered a
    cell at a time (their three columns only)."""
    columns = ("attempt_uid", "participant", "problem_id")
    attempts = pl.DataFrame(schema={"attempt_uid": pl.String, "participant": pl.String, "problem_id": pl.String})
    for judge, condition in cells:
        rows = reader.read(*columns, "p_accept", judge=judge, condition=condition).filter(ANSWERED)
        found = rows.select(pl.col(c).cast(pl.String) for c in columns).unique("attempt_uid")
        attempts = pl.concat([attempts, found]).unique("attempt_uid")
    # measurement's folds: every attempt of the predictions, in attempt_uid order (core/measurement.Universe)
    attempts = attempts.sort("attempt_uid")
    # cluster_codes(participant, problem_id) by polars: the keys joined as str() joins them (a null as "None")
    keys = pl.concat_str(
        [pl.col(c).cast(pl.String).fill_null("None") for c in ("participant", "problem_id")], separator="\x1f"
    )
    trajectory = _codes(attempts.select(keys.alias("key"))["key"])
    # fewer than two trajectories: one fold, no out-of-fold decision (oof_wrong is NaN, its models note it)
    assigned = m.grouped_folds(trajectory, n_splits=folds, seed=seed) if len(set(trajectory)) >= 2 else trajectory * 0
    return attempts.select("attempt_uid", pl.Series("fold", assigned, dtype=pl.Int64))


def _cell_frame(cell: pl.DataFrame, fold_of: pl.DataFrame, participant_context: pl.DataFrame | None) -> pl.DataFrame:
    """:func:`bias_frame`'s rows of one judge x condition (``cell``: its answered predictions)."""
    joined = cell.select("attempt_uid").join(fold_of, on="attempt_uid", how="left", maintain_order="left")
    cell_folds = joined["fold"].to_numpy()
    y, p = cell["y"].to_numpy(), cell["p_accept"].to_numpy()
    if len(np.unique(cell_folds)) >= 2:
        decisions, _ = m.oof_decisions(y, p, folds=cell_folds)
        wrong = (decisions != y).astype(float)
    else:
        wrong = np.full(len(y), np.nan)
    frame = cell.with_columns(pl.Series("oof_wrong", wrong, dtype=pl.Float64))

    def column(name, dtype):
        return (pl.col(name).cast(dtype) if name in frame.columns else pl.lit(None, dtype=dtype)).alias(name)

    if {"code_lines", "code_tokens"} <= set(frame.columns):  # predictions carry the program's size, not its text
        lines, tokens = pl.col("code_lines"), pl.col("code_tokens")
    elif "code" in frame.columns:
        lines, tokens = code_size_columns(pl.col("code"))
    else:
        lines = tokens = pl.lit(None, dtype=pl.Int32)

    frame = frame.select(
        "judge",
        "condition",
        "attempt_uid",
        (pl.col("p_accept") - pl.col("y")).alias("p_minus_y"),
        pl.col("oof_wrong").cast(pl.Float64),
        pl.when(pl.col("participant").is_null())
        .then(pl.lit("problem\x1f") + pl.col("problem_id").cast(pl.String))
        .otherwise(pl.col("participant").cast(pl.String) + pl.lit("\x1f") + pl.col("problem_id").cast(pl.String))
        .alias("trajectory"),
        pl.col("y").cast(pl.Int64),
        column("language", pl.String),
        pl.col("problem_id").cast(pl.String).alias("problem"),
        column("turn", pl.Float64),
        pl.when(pl.col("y") == 0).then(column("verdict", pl.String)).alias("verdict"),
        lines.cast(pl.Int64).alias("log2_lines"),
        tokens.cast(pl.Int64).alias("log2_tokens"),
    )
    frame = frame.with_columns(_log2(frame["log2_lines"]), _log2(frame["log2_tokens"]))
    if participant_context is not None and set(CONTEXT_COLUMNS) <= set(participant_context.columns):
        conditions = frame["condition"].unique().to_list()
        context = participant_context.filter(pl.col("condition").is_in(conditions)).select(
            "attempt_uid",
            "condition",
            (pl.col("chars").cast(pl.Float64) / 1000).alias("context_kchars"),
            pl.col("provenance").cast(pl.String),
        )
        frame = frame.join(context, on=["attempt_uid", "condition"], how="left", maintain_order="left")
    else:
        frame = frame.with_columns(
            pl.lit(None, dtype=pl.Float64).alias("context_kchars"), pl.lit(None, dtype=pl.String).alias("provenance")
        )
    return frame


def _log2(sizes: pl.Series) -> pl.Series:
    """``math.log2`` of the positive sizes (null elsewhere), computed once per distinct size: numpy's and polars'
    log2 differ from it in the last bit for some integers, and a size repeats across attempts."""
    distinct = [v for v in sizes.unique().drop_nulls().to_list() if v > 0]
    return sizes.replace_strict(distinct, [math.log2(v) for v in distinct], default=None, return_dtype=pl.Float64)


def _codes(trajectory: pl.Series) -> np.ndarray:
    """:func:`cluster_codes` of a column of trajectory keys (never null), by polars: the same codes (sorted key
    order: a dense rank of the strings, compared as UTF-8 bytes, which is code point order), without a Python
    string per row."""
    return trajectory.rank("dense").cast(pl.Int64).to_numpy() - 1


def _note(covariate: str, n: int, note: str) -> dict:
    return {"covariate": covariate, "term": None, "coef": None, "se": None, "p": None, "n": n, "note": note}


def _fit(part: pl.DataFrame, error: str, covariate: str) -> list[dict]:
    """The terms of ``error ~ covariate`` on the rows of one cell, or one note row saying why there are none."""
    import statsmodels.api as sm  # imported when a fit runs, not when the Definitions load

    if part[covariate].null_count() == len(part):
        return [_note(covariate, 0, "the corpus has no values of this covariate")]
    # the three columns a fit reads, so the filter copies those, not every column of the cell
    data = part.select(covariate, error, "trajectory").filter(
        pl.col(covariate).is_not_null() & pl.col(error).is_not_null() & pl.col(error).is_not_nan()
    )
    if len(data) < 3:
        return [_note(covariate, len(data), "fewer than 3 attempts have this covariate")]
    if data[covariate].n_unique() < 2:
        return [_note(covariate, len(data), f"constant on this cell ({data[covariate][0]})")]
    clusters = _codes(data["trajectory"])
    if clusters.max() < 1:
        return [_note(covariate, len(data), "a single trajectory: no cluster-robust standard error")]
    notes = []
    if covariate in CATEGORICAL:
        # a level seen in one trajectory only has no cluster-robust variance: its rows are left out, with a note
        spread = data.group_by(covariate).agg(pl.col("trajectory").n_unique().alias("clusters"))
        lone = sorted(spread.filter(pl.col("clusters") < 2)[covariate].to_list())
        if lone:
            data = data.filter(~pl.col(covariate).is_in(lone))
            shown = ", ".join(map(str, lone[:5])) + (f" and {len(lone) - 5} more" if len(lone) > 5 else "")
            notes.append(_note(covariate, len(data), f"levels in a single trajectory, not tested: {shown}"))
            if data[covariate].n_unique() < 2:
                return notes
            clusters = _codes(data["trajectory"])
        counts = data[covariate].value_counts(sort=True)
        reference = counts.sort(["count", covariate], descending=[True, False])[covariate][0]
        levels = sorted(v for v in counts[covariate].to_list() if v != reference)
        # one column per level against the reference: set from each row's level index, no Python object per row
        level_of = data[covariate].replace_strict(levels, list(range(len(levels))), default=-1, return_dtype=pl.Int64)
        index = level_of.to_numpy()
        design = np.zeros((len(data), len(levels) + 1))
        design[:, 0] = 1.0
        tagged = np.flatnonzero(index >= 0)
        design[tagged, index[tagged] + 1] = 1.0
        names = [f"{covariate}={level} (vs {reference})" for level in levels]
    else:
        design = np.column_stack([np.ones(len(data)), data[covariate].to_numpy().astype(float)])
        names = [covariate]
    result = sm.OLS(data[error].to_numpy().astype(float), design).fit(
        cov_type="cluster", cov_kwds={"groups": clusters}, use_t=True
    )  # t on (trajectories - 1) degrees of freedom
    rows = []
    scale = max(float(np.std(data[error].to_numpy())), 1e-300)
    for i, name in enumerate(names):
        coef, se = float(result.params[i + 1]), float(result.bse[i + 1])
        row = {"covariate": covariate, "term": name, "coef": coef, "se": se, "n": len(data)}
        row["groups"] = int(clusters.max()) + 1
        if (
            not se > SE_FLOOR * scale
        ):  # no variation left between clusters (a perfect fit, residuals cancelling within every trajectory)
            rows.append(
                row | {"p": None, "note": "no residual variance between trajectories (e.g. a perfect fit): not tested"}
            )
        else:
            rows.append(row | {"p": float(result.pvalues[i + 1]), "note": None})
    return notes + rows


def bias_diagnostics(frame: pl.DataFrame, *, method: str = "holm", covariates=COVARIATES) -> pl.DataFrame:
    """One row per judge x condition x error x covariate term (coef, cluster-robust se, p, p adjusted over the
    terms of the judge x condition x error), and a note row per covariate skipped. ``frame``: :func:`bias_frame`."""
    unknown = set(covariates) - set(COVARIATES)
    if unknown:
        raise ValueError(f"covariates: expected names among {list(COVARIATES)}, got unknown {sorted(unknown)}")
    missing = {"judge", "condition", "trajectory", *ERRORS, *covariates} - set(frame.columns)
    if missing:
        raise ValueError(f"frame: expected the columns of bias_frame; missing {sorted(missing)}")
    from statsmodels.stats.multitest import multipletests

    out = []
    # a frame of one cell (bias_table's) is fitted as it is: a group_by would copy it
    one = frame.select(pl.struct("judge", "condition").n_unique()).item() == 1
    cells = (
        [((frame["judge"][0], frame["condition"][0]), frame)]
        if one
        else frame.group_by("judge", "condition", maintain_order=True)
    )
    for (judge, condition), cell in cells:
        for error in ERRORS:
            rows = [r for covariate in covariates for r in _fit(cell, error, covariate)]
            tested = [i for i, r in enumerate(rows) if r["p"] is not None and not math.isnan(r["p"])]
            if tested:
                adjusted = multipletests([rows[i]["p"] for i in tested], method=method)[1]
                for i, value in zip(tested, adjusted):
                    rows[i]["p_adjusted"] = float(value)
            for r in rows:
                out.append({"judge": judge, "condition": condition, "error": error, "cluster": "trajectory"} | r)
    if not out:
        return pl.DataFrame(schema=BIAS_SCHEMA)
    return pl.DataFrame(out, schema=BIAS_SCHEMA, strict=False).select(list(BIAS_SCHEMA))


def bias_title(judge: str) -> str:
    """The bias figure's title, which the report uses as its caption (one kind of figure: the judge after the comma)."""
    return f"Shift of p - label by covariate term, {judge}"


def bias_figure(table: pl.DataFrame, judge: str, path: Path, *, error: str = "p_minus_y") -> Path | None:
    """One judge's coefficients (95% interval: coef +- 1.96 se) per term, one marker colour per condition; terms
    whose adjusted p is below 0.05 are drawn filled. None when the judge has no term."""
    from cojudge_assets.core.report import plots

    rows = table.filter((pl.col("judge") == judge) & (pl.col("error") == error) & pl.col("term").is_not_null())
    if rows.is_empty():
        return None
    terms = sorted(set(rows["term"].to_list()), key=lambda t: (COVARIATES.index(t.split("=")[0].split(" ")[0]), t))
    conditions = list(dict.fromkeys(rows["condition"].to_list()))
    fig, ax = plots.subplots(figsize=(plots.FIGSIZE[0] + 1.5, max(plots.FIGSIZE[1], 0.28 * len(terms) + 1.2)))
    at = {t: i for i, t in enumerate(terms)}
    for k, condition in enumerate(conditions):
        part = rows.filter(pl.col("condition") == condition)
        position = np.array([at[t] for t in part["term"].to_list()]) + (k - (len(conditions) - 1) / 2) * 0.22
        coef, half = part["coef"].to_numpy(), 1.96 * part["se"].to_numpy()
        significant = (part["p_adjusted"].fill_null(1.0) < 0.05).to_numpy()
        for mask, face, label in ((significant, f"C{k}", condition), (~significant, "white", None)):
            if mask.any():  # one call per condition and fill: drawing stays fast with many terms
                ax.errorbar(
                    coef[mask],
                    position[mask],
                    xerr=half[mask],
                    fmt="o",
                    color=f"C{k}",
                    markerfacecolor=face,
                    markersize=5,
                    capsize=2,
                    linewidth=1,
                    label=label if significant.any() else (condition if face == "white" else None),
                )
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(range(len(terms)), terms, fontsize="small")
    ax.invert_yaxis()
    ax.set(xlabel=f"shift in {error} (95% cluster-robust interval; filled: Holm p < 0.05)", title=bias_title(judge))
    ax.legend(fontsize="small")
    return plots._save(fig, path)
