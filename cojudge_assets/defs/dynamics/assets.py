"""Group ``dynamics``: how participants progress across attempts (core/dynamics/trajectories.py,
core/dynamics/consensus.py).

Success@Turn, survival, churn and convergence read verdicts and code only, so
they exist for any corpus; the rank consensus and its relation to churn need
judge predictions and say how well the panel behind them discriminates.
"""

from pathlib import Path
from typing import cast

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.dynamics import trajectories as dynamics
from cojudge_assets.core.dynamics.consensus import (
    CONSENSUS_SCHEMA,
    churn_vs_improvement,
    panel_discrimination,
    rank_consensus,
)
from cojudge_assets.core.measurement.predictions import scored
from cojudge_assets.core.report import plots
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.io import KINDS, read_only
from cojudge_assets.defs.resources import output_dir

CHURN_COLUMNS = ("ned_code", "codebleu_churn", "ned_prompt")
# the attempts' columns the trajectory tables read (8 of 17: the rest stay in the store), and churn's contexts: the
# nonblind condition's text only, a third of participant_context's rows
ATTEMPTS = dg.AssetIn("attempts", metadata=read_only(columns=dynamics.ATTEMPT_COLUMNS))
NONBLIND_CONTEXTS = dg.AssetIn(
    "participant_context", metadata=read_only(columns=["attempt_uid", "context"], rows={"condition": "nonblind"})
)


class DynamicsSettings(dg.Config):
    resamples: int = 2000
    seed: int = SEED
    max_turn: int = 0  # 0: the longest trajectory
    consensus_condition: str = "nonblind"


def co_creation(attempts: pl.DataFrame) -> pl.DataFrame:
    """The attempts that belong to a participant's trajectory. A corpus without participants (the ICE-Score
    release: independent generations per problem) has no co-creation to follow: its dynamics tables are empty,
    with a note, rather than computed over unrelated programs."""
    return attempts.filter(pl.col("participant").is_not_null() & (pl.col("participant") != ""))


NO_TRAJECTORIES = "no attempt has a participant: the corpus holds no co-creation trajectories"


def _folder(duckdb: DuckDBResource) -> Path:
    return output_dir(duckdb) / "dynamics"


@dg.asset(
    group_name="dynamics",
    kinds=KINDS,
    ins={"attempts": ATTEMPTS},
    code_version="2",
    description="Share of trajectories first accepted by turn k (all, multi-attempt, and those unsolved at "
    "the first attempt), with trajectory-bootstrap intervals.",
)
def success_at_turn(
    context: dg.AssetExecutionContext, config: DynamicsSettings, attempts: pl.DataFrame, duckdb: DuckDBResource
) -> pl.DataFrame:
    plots.remove_figures(_folder(duckdb), "success_at_turn")
    trajs = dynamics.trajectories(co_creation(attempts))
    table = dynamics.success_at_turn(
        trajs, max_turn=config.max_turn or None, resamples=config.resamples, seed=config.seed
    )
    every = table.filter(pl.col("subset") == "all").sort("k")
    if every.is_empty():
        context.add_output_metadata({"trajectories": 0, "note": NO_TRAJECTORIES})
        return table
    path = plots.line_with_band(
        every["k"],
        every["share"],
        every["lo"],
        every["hi"],
        _folder(duckdb) / "success_at_turn.png",
        "Success@Turn (all trajectories)",
        "turn k",
        "share accepted by k",
    )
    context.add_output_metadata(
        {
            "trajectories": len(trajs),
            "solved": int(trajs["solved"].sum()),
            "first_turns": dg.MetadataValue.md(markdown_table(table.filter(pl.col("k") <= 5))),
            "plot": dg.MetadataValue.path(str(path)),
        }
    )
    return table


@dg.asset(
    group_name="dynamics",
    kinds=KINDS,
    ins={"attempts": ATTEMPTS},
    code_version="2",
    description="Kaplan-Meier estimate (lifelines) of the share still unsolved, by turn and by minutes from "
    "the first attempt (Submit clock); never-solved trajectories right-censored at their last attempt.",
)
def survival(context: dg.AssetExecutionContext, attempts: pl.DataFrame, duckdb: DuckDBResource) -> pl.DataFrame:
    plots.remove_figures(_folder(duckdb), "survival")
    trajs = dynamics.trajectories(co_creation(attempts))
    table = pl.concat([dynamics.kaplan_meier(trajs, clock="turn"), dynamics.kaplan_meier(trajs, clock="minutes")])
    turns = table.filter(pl.col("clock") == "turn").sort("t")
    if turns.is_empty():
        context.add_output_metadata({"trajectories": 0, "note": NO_TRAJECTORIES})
        return table
    durations = dynamics.survival_durations(trajs)
    path = plots.kaplan_meier(
        durations["duration"].to_numpy(),
        durations["solved"].to_numpy(),
        _folder(duckdb) / "survival.png",
        "Kaplan-Meier: share still unsolved (x: stopped unsolved, censored)",
        never_solved_share=1 - cast(float, trajs["solved"].mean()),
    )
    context.add_output_metadata(
        {
            "trajectories": len(trajs),
            "with_clock": int(trajs["minutes_observed"].is_not_null().sum()),
            "plot": dg.MetadataValue.path(str(path)),
        }
    )
    return table


@dg.asset(
    group_name="dynamics",
    kinds=KINDS,
    ins={"attempts": ATTEMPTS, "participant_context": NONBLIND_CONTEXTS},
    code_version="2",
    description="One row per consecutive pair of attempts in a trajectory: normalized edit distance of the "
    "code and of the prompt-side (nonblind) context, CodeBLEU churn, whether the transition reached "
    "acceptance.",
)
def churn(
    context: dg.AssetExecutionContext,
    config: DynamicsSettings,
    attempts: pl.DataFrame,
    participant_context: pl.DataFrame,
) -> pl.DataFrame:
    pairs = dynamics.churn_pairs(co_creation(attempts), participant_context)  # nonblind rows only (NONBLIND_CONTEXTS)
    differences = []
    for column in CHURN_COLUMNS:
        d = dynamics.churn_difference(pairs, column, resamples=config.resamples, seed=config.seed)
        differences.append({"column": column, **d})
    context.add_output_metadata(
        {
            "pairs": len(pairs),
            "reached_acceptance": int(pairs["reached_acceptance"].sum()) if len(pairs) else 0,
            "difference_reached_minus_other": dg.MetadataValue.md(markdown_table(pl.DataFrame(differences))),
        }
    )
    return pairs


@dg.asset(
    group_name="dynamics",
    kinds=KINDS,
    ins={"attempts": ATTEMPTS},
    code_version="2",
    description="Within solved trajectories, the CodeBLEU similarity of each attempt to the first accepted "
    "submission (which is left out of its own comparison).",
)
def convergence(context: dg.AssetExecutionContext, attempts: pl.DataFrame, duckdb: DuckDBResource) -> pl.DataFrame:
    plots.remove_figures(_folder(duckdb), "codebleu_histogram")
    table = dynamics.convergence(co_creation(attempts))
    if table.is_empty():
        context.add_output_metadata({"attempts": 0, "note": NO_TRAJECTORIES})
        return table
    summary = dynamics.convergence_summary(table)
    path = plots.histogram(
        table["similarity"].drop_nulls().to_numpy(),
        _folder(duckdb) / "codebleu_histogram.png",
        "CodeBLEU similarity to the first accepted submission",
        "CodeBLEU",
    )
    context.add_output_metadata(
        {
            **{k: (float(v) if v is not None else None) for k, v in summary.items()},
            "plot": dg.MetadataValue.path(str(path)),
        }
    )
    return table


@dg.asset(
    name="rank_consensus",
    group_name="dynamics",
    kinds=KINDS,
    code_version="2",
    ins={"predictions": dg.AssetIn("predictions", metadata=scored("verdict", "accepted"))},
    description="Per attempt under the consensus condition (nonblind by default): q = mean over judges of the "
    "judge's percentile rank of p_accept, its turn-wise change dq, and the panel's ROC-AUC beside it; a judge "
    "whose answers there are all one value is left out (column left_out).",
)
def rank_consensus_table(
    context: dg.AssetExecutionContext,
    config: DynamicsSettings,
    predictions: pl.DataFrame,
    panel: pl.DataFrame,
    duckdb: DuckDBResource,
) -> pl.DataFrame:
    plots.remove_figures(_folder(duckdb), "struggle", "q_by_verdict")  # drawn only when there are predictions
    predictions = co_creation(predictions)
    table = (
        rank_consensus(predictions, config.consensus_condition)
        if len(predictions)
        else pl.DataFrame(schema=CONSENSUS_SCHEMA)
    )
    auc = panel_discrimination(panel, config.consensus_condition)
    metadata = {
        **auc,
        "attempts": len(table),
        "condition": config.consensus_condition,
        "judges": int(cast(int, table["n_judges"].max()) or 0) if len(table) else 0,
        "left_out": (table["left_out"][0] or "none") if len(table) else "none",
    }
    if len(table):
        metadata["struggle_curves"] = dg.MetadataValue.path(
            str(plots.struggle_curves(table, _folder(duckdb) / "struggle.png"))
        )
        by_verdict = {
            v: table.filter(pl.col("verdict") == v)["q"].drop_nulls().to_list()  # null: no judge pooled
            for v in sorted(table["verdict"].unique().to_list())
        }
        metadata["q_by_verdict"] = dg.MetadataValue.path(
            str(plots.boxes(by_verdict, _folder(duckdb) / "q_by_verdict.png", "Rank consensus q by verdict", "q"))
        )
    context.add_output_metadata(metadata)
    return table.with_columns(*[pl.lit(v, dtype=pl.Float64).alias(k) for k, v in auc.items()])


@dg.asset(
    name="churn_vs_improvement",
    group_name="dynamics",
    kinds=KINDS,
    code_version="1",
    ins={"consensus": dg.AssetIn("rank_consensus")},
    description="Spearman's rho between churn (NED, CodeBLEU churn, prompt NED) and the consensus change dq, "
    "with trajectory-bootstrap intervals, next to the panel's ROC-AUC.",
)
def churn_vs_improvement_table(
    context: dg.AssetExecutionContext,
    config: DynamicsSettings,
    churn: pl.DataFrame,
    consensus: pl.DataFrame,
    panel: pl.DataFrame,
) -> pl.DataFrame:
    table = churn_vs_improvement(churn, consensus, CHURN_COLUMNS, resamples=config.resamples, seed=config.seed)
    auc = panel_discrimination(panel, config.consensus_condition)
    context.add_output_metadata({**auc, "table": dg.MetadataValue.md(markdown_table(table))})
    return table.with_columns(*[pl.lit(v, dtype=pl.Float64).alias(k) for k, v in auc.items()])
