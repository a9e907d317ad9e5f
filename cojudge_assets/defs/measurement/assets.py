"""Group ``measurement``: the judges scored as instruments (core/measurement/measure.py), and ``predictions``.

``predictions`` joins every valid judge answer to its attempt's label; its
blocking check proves that the code each judge was sent is the attempt's code
on every row. The measurement tables are one multi-asset because they share
one set of folds and one set of bootstrap resamples (paired differences).

Both read ``judge_outputs``, which is in the Definitions only when the run has a
judge, so both are made by factories (:func:`predictions_asset`,
:func:`measurement_asset`) whose inputs are the assets the Definitions hold.
"""

from collections.abc import Set
from typing import Any

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.frames import TableReader
from cojudge_assets.core.measurement.correlation import correlations
from cojudge_assets.core.measurement.measure import (
    CROSS_TABLES,
    LONG_SCHEMA,
    NO_FOLDS,
    PER_CELL_TABLES,
    MeasurementConfig,
    Universe,
    headline_table,
    measure,
    run_to_run,
)
from cojudge_assets.core.measurement.predictions import (
    CACHE_READ,
    CELL_READ,
    CROSS_READ,
    CROSS_SLICES,
    OUTCOMES_INPUTS,
    PREDICTIONS_INPUTS,
    PREDICTIONS_READ,
    REQUESTS_ASKED,
    UNIVERSE_INPUTS,
    cell_inputs,
    cell_slices,
    outcomes_table,
    predictions_of,
    read_judge_cache,
    scored,
    universe_of_slices,
    universe_table,
)
from cojudge_assets.core.report import plots
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.io import KINDS, present_inputs
from cojudge_assets.defs.partitions import condition_of, judge_of
from cojudge_assets.defs.resources import output_dir


def predictions_asset(present: Set[str], partitions: dg.PartitionsDefinition | None = None) -> dg.AssetsDefinition:
    """``predictions`` over the assets of :data:`PREDICTIONS_INPUTS` that ``present`` (the Definitions) holds, each
    read with only the columns it needs (:data:`PREDICTIONS_READ`). With ``partitions`` (those of ``judge_outputs``)
    one partition per judge x condition: a partition reads its own answers and its condition's requests, so its
    memory is bounded by the partition, and a judge removed from the judges file is no partition, never read."""
    # every input a reader (core/measurement/predictions.py ``predictions_of``): the requests' text, the attempts and
    # the answers are dropped once joined, not held by the run's inputs while the table is written
    ins = present_inputs(PREDICTIONS_INPUTS, present, columns=PREDICTIONS_READ, readers=True)

    @dg.asset(
        name="predictions",
        group_name="judging",
        kinds=KINDS,
        code_version="2",  # the program's size (code_lines, code_tokens) in place of its text; by partition
        partitions_def=partitions,
        ins=ins,
        metadata={"partition_expr": {"condition": "condition", "judge": "judge"}} if partitions is not None else None,
        check_specs=[
            dg.AssetCheckSpec(
                "judged_code_is_attempt_code",
                asset="predictions",
                blocking=True,
                description="On every row the code in the request the judge answered equals "
                "the attempt's code (seed study V4).",
            )
        ],
        description="One row per valid answer (attempt x judge x condition), one partition per judge x condition: "
        "p_accept and the rubric scores joined to the label (y = 1 when the verdict is AC), the trajectory key, "
        "turn, the program's size (code_lines, code_tokens) and whether the attempt's nonblind context is "
        "evidence-backed (anchored or segmented).",
    )
    def predictions(context: dg.AssetExecutionContext, **readers: TableReader):
        table = predictions_of(readers)
        mismatched = table.filter(~pl.col("code_matches"))
        cells = table.group_by("judge", "condition").len().sort("judge", "condition")
        yield dg.Output(table, metadata={"rows": len(table), "cells": dg.MetadataValue.md(markdown_table(cells))})
        yield dg.AssetCheckResult(
            check_name="judged_code_is_attempt_code",
            passed=mismatched.is_empty(),
            metadata={
                "rows_checked": len(table),
                "mismatched": len(mismatched),
                "examples": dg.MetadataValue.md(
                    markdown_table(mismatched.select("attempt_uid", "judge", "condition").head(20))
                )
                if len(mismatched)
                else "none",
            },
        )

    return predictions


CORRELATION_RESAMPLES = 1000  # rank correlations cost more per resample than the weighted metrics


class MeasurementSettings(dg.Config):
    folds: int = 10
    resamples: int = 2000
    seed: int = SEED
    confident: float = 0.2
    # a judge x condition with at least this many predictions gets analytic intervals clustered by trajectory, and so
    # does an agreement figure on that many attempts (core/stats/analytic.py; coverage in docs/methodology.md);
    # below it, the trajectory bootstrap
    analytic_from: int = 5000


TABLES = {
    "judge_metrics": "Per judge x condition: ROC-AUC, PR-AUC, LogLoss (p clipped to [1e-6, 1-1e-6]), Brier, ECE "
    "(15 bins), MCC in-fold and out-of-fold, thresholds, base rate, mean p; intervals clustered by trajectory (lo, hi) "
    "and by problem (lo_problem, hi_problem), from the bootstrap or, for a judge x condition of at least "
    "analytic_from predictions, analytic (column ci_method); "
    "coverage (answered / asked), answered and abstained, "
    "each metric computed on the attempts the judge answered.",
    "scale_validity": "Distinct probability values, effective decision rules on the 0.01..0.99 grid, shares at "
    "exactly 0 and 1, MCC drop from in-fold to out-of-fold.",
    "agreement": "Per condition: pairwise Cohen's kappa (median cuts) and Spearman rho on the attempts both judges "
    "answered, Fleiss' kappa, means and rho minus kappa on those every member answered, with bootstrap intervals "
    "or, on at least analytic_from attempts, analytic ones (column ci_method); a judge whose answers are "
    "constant (or absent) on a figure's attempts is left out of it, and a note row says so (metric excluded_constant "
    "or excluded_no_answers, column note).",
    "condition_effects": "Per judge: ROC-AUC change between conditions (all attempts and the evidence-backed "
    "subset) with paired intervals, rank correlation between conditions; Fleiss' kappa change.",
    "panel": "The unweighted percentile-rank panel (per attempt, over the judges that answered it) scored like a "
    "judge; its gain over the mean member and its difference from the best member, paired; a judge whose answers "
    "are constant is left out (row excluded_constant, column note).",
    "per_problem": "ROC-AUC per problem (inverted orderings flagged) and the problem-weighted macro average.",
    "consistency": "Identical consecutive resubmissions and how far p moved; run-to-run Krippendorff's alpha where "
    "a judge was run more than once.",
    "error_profile": "Confusion at the out-of-fold thresholds; confident false negatives and positives.",
    "recalibration": "Out-of-fold isotonic and Platt recalibration: ECE, Brier and ROC-AUC before and after.",
    "correlation": "Per judge x condition x subset (all attempts, and each language when there are several): "
    "Kendall's tau-b, Spearman and Pearson between the label and p, at corpus level (all items) and example level "
    "(within each problem, then averaged over problems), with trajectory-bootstrap intervals, or at corpus level "
    "on at least analytic_from predictions analytic ones clustered by trajectory (column ci_method) "
    "(core/measurement/correlation.py).",
}


# who is pooled changed (core/dynamics/pooling.py): these tables' results, and the kappa heatmap, changed with it;
# then (3) the attempts resampled are those asked about (core/measurement/predictions.py read_universe), and
# (2 for the per-judge tables) column ci_method, analytic intervals from analytic_from predictions; (4, and 3 for the
# per-judge tables) analytic agreement figures from analytic_from attempts, and an analytic interval no attempt
# moves (a paired difference of identical sides) is the point, not nan; (4 for the per-judge tables) the correlation
# table's column ci_method and its analytic corpus-level intervals from analytic_from predictions; (5 for the per-judge
# tables) no interval for the in-fold MCC and its drop to out-of-fold (measure.py: ScalarMetric.interval)
CODE_VERSIONS = {"agreement": "4", "panel": "3", "condition_effects": "4"}
PER_JUDGE_CODE_VERSION = "5"
JUDGE_TABLES = (*PER_CELL_TABLES, "correlation")  # per judge x condition: partitioned like judge_outputs
JUDGE_MEASUREMENT = "judge_measurement"


def _settings(config: MeasurementSettings) -> MeasurementConfig:
    return MeasurementConfig(
        folds=config.folds,
        resamples=config.resamples,
        seed=config.seed,
        confident=config.confident,
        problem_resamples=config.resamples,
        analytic_from=config.analytic_from,
    )


def _one_trajectory(context: dg.AssetExecutionContext, predictions: pl.DataFrame) -> bool:
    """Whether ``predictions`` hold one trajectory (participant x problem): no folds, so what needs them is left
    out and said (NO_FOLDS, a warning in the run's log)."""
    one = predictions.select("participant", "problem_id").n_unique() < 2
    if one:
        context.log.warning(NO_FOLDS)
    return one


def _metadata(
    name: str, table: pl.DataFrame, settings: MeasurementConfig, *, one_trajectory: bool = False
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "rows": len(table),
        "resamples": settings.resamples,
        "folds": settings.folds if not one_trajectory else 1,
        "seed": settings.seed,
        "analytic_from": settings.analytic_from,
    }
    if one_trajectory:
        metadata["not_measured"] = NO_FOLDS
    if name == "judge_metrics":
        for condition in sorted(table["condition"].unique().to_list()):
            metadata[f"table_{condition}"] = dg.MetadataValue.md(markdown_table(headline_table(table, condition)))
    return metadata


def judge_cache_slice(
    resource: Any, attempts: pl.DataFrame, judge: str | None = None, condition: str | None = None
) -> pl.DataFrame:
    """The judge cache's rows of one judge x condition (of the contest's ``attempts``; None: every judge or
    condition), for run-to-run agreement.

    Under the deployed profile (a resource with ``judge_store``: defs/deployed.py) a filtered query on Postgres
    (judges/postgres_store.py ``cache_rows``), never the whole-store snapshot ``get_connection`` makes; in the
    DuckDB file, a filtered query too."""
    if hasattr(resource, "judge_store"):
        with resource.judge_store() as store:
            cache = store.cache_rows(judge, condition, tuple(CACHE_READ))
        cache = cache.cast(CACHE_READ)
        if "attempt_uid" in attempts.columns:
            cache = cache.filter(pl.col("attempt_uid").is_in(attempts["attempt_uid"].implode()))
        return cache
    with resource.get_connection() as conn:
        return read_judge_cache(conn, attempts, judge, condition)


def judge_measurement_asset(present: Set[str], partitions: dg.PartitionsDefinition) -> dg.AssetsDefinition:
    """The per-judge tables (:data:`JUDGE_TABLES`), one partition per judge x condition like ``judge_outputs``: a
    partition reads its own ``judge_outputs`` partition, the requests of every condition one condition at a time (a
    :class:`TableReader`: the attempts resampled, the same for every judge, core/measurement/predictions.py
    ``universe_of``), the attempts (no text: their ``code_sha256``) and the nonblind contexts, and its own rows of
    the judge cache. Adding a judge measures that judge's partitions only."""
    # every input a reader (core/measurement/predictions.py ``cell_inputs``): what the cell does not keep is not held
    # by the run's inputs either while the cell is measured
    ins = present_inputs(("judge_outputs", "attempts", "participant_context"), present, columns=CELL_READ, readers=True)
    if "judge_requests" in present:  # every condition's requests, whichever partition reads them: which attempts
        ins["judge_requests"] = dg.AssetIn(
            "judge_requests",
            partition_mapping=dg.AllPartitionMapping(),
            metadata={"columns": REQUESTS_ASKED},
            dagster_type=TableReader,  # read one condition at a time (at 10^6 attempts every condition is 3M rows)
        )

    @dg.multi_asset(
        name=JUDGE_MEASUREMENT,
        group_name="measurement",
        partitions_def=partitions,
        outs={
            name: dg.AssetOut(
                kinds=KINDS,
                code_version=PER_JUDGE_CODE_VERSION,
                description=TABLES[name],
                metadata={"partition_expr": {"condition": "condition", "judge": "judge"}},
            )
            for name in JUDGE_TABLES
        },
        ins=ins,
    )
    def judge_measurement(
        context: dg.AssetExecutionContext, config: MeasurementSettings, duckdb: DuckDBResource, **frames: Any
    ):
        condition, judge = condition_of(context), judge_of(context)
        settings = _settings(config)
        cell = cell_inputs(
            frames["judge_outputs"],
            frames.get("attempts"),
            frames.get("participant_context"),
            frames.get("judge_requests"),
            condition,
        )
        table, universe, outcomes = cell.predictions, cell.universe, cell.outcomes
        if universe.is_empty() or outcomes.is_empty():
            empty = pl.DataFrame(schema=LONG_SCHEMA)
            for name in JUDGE_TABLES:
                yield dg.Output(empty, output_name=name, metadata={"rows": 0, "note": f"{judge} was asked nothing"})
            return
        # a judge that answered nothing still has its coverage rows (answered 0, abstained ...)
        tables = measure(
            table, settings, outcomes, attempts=universe, tables=PER_CELL_TABLES, progress=context.log.info
        )
        tables["correlation"] = correlations(
            table,
            resamples=min(config.resamples, CORRELATION_RESAMPLES),
            seed=config.seed,
            analytic_from=config.analytic_from,
        )
        one = not table.is_empty() and _one_trajectory(context, table)
        attempt_uids = cell.attempt_uids
        del cell, table, universe, outcomes  # the cache's rows are read next (at 10^6 attempts a million of them)
        cache = judge_cache_slice(duckdb, attempt_uids, judge, condition)
        if len(cache):
            tables["consistency"] = pl.concat([tables["consistency"], run_to_run(cache)])
        for name in JUDGE_TABLES:
            metadata = _metadata(name, tables[name], settings, one_trajectory=one)
            yield dg.Output(tables[name], output_name=name, metadata=metadata)

    return judge_measurement


def measurement_asset(present: Set[str]) -> dg.AssetsDefinition:
    """The cross-judge measurement tables (agreement, condition_effects, panel) over the attempts of
    :func:`universe_of_slices`; and, when the Definitions hold no :func:`judge_measurement_asset` (no judge), the
    per-judge tables too (empty, as predictions is).

    Bounded memory (issue 33): ``predictions``, the requests and the contexts come as :class:`TableReader`s, read
    one judge x condition (one condition) at a time, and only the cells' arrays are kept (an attempt's position and
    its p: core/measurement/measure.py ``Universe.from_slices``), never the predictions' strings."""
    per_judge = "judge_metrics" not in present
    names = (*CROSS_TABLES, *JUDGE_TABLES) if per_judge else CROSS_TABLES
    # the answers' statuses count coverage, a per-judge figure: with the per-judge tables partitioned, the
    # cross-judge tables do not read every judge's answers again
    inputs = tuple(dict.fromkeys(OUTCOMES_INPUTS + UNIVERSE_INPUTS)) if per_judge else UNIVERSE_INPUTS
    ins = present_inputs(inputs, present, columns=CROSS_READ)
    for name in ("judge_requests", "participant_context"):
        if name in ins and not per_judge:
            ins[name] = dg.AssetIn(name, metadata={"columns": CROSS_SLICES[name]}, dagster_type=TableReader)
    read = scored() if per_judge else {"columns": CROSS_SLICES["predictions"]}

    @dg.multi_asset(
        name="measurement",
        group_name="measurement",
        outs={
            name: dg.AssetOut(
                kinds=KINDS, code_version=CODE_VERSIONS.get(name, PER_JUDGE_CODE_VERSION), description=TABLES[name]
            )
            for name in names
        },
        ins={**ins, "predictions": dg.AssetIn("predictions", metadata=read, dagster_type=TableReader)},
    )
    def measurement(
        context: dg.AssetExecutionContext,
        config: MeasurementSettings,
        predictions: TableReader,
        duckdb: DuckDBResource,
        **frames: Any,
    ):
        settings = _settings(config)
        # the folder is this asset's: no figure outlives its run
        plots.remove_figures(output_dir(duckdb) / "measurement")
        if not predictions.keys("judge", "condition"):
            empty = pl.DataFrame(schema=LONG_SCHEMA)
            for name in names:
                yield dg.Output(empty, output_name=name, metadata={"rows": 0, "note": "no judge predictions yet"})
            return
        if per_judge:  # no judge partitions (not made by the Definitions when there is a judge): one frame
            tables, u = _every_table(context, settings, config, predictions, duckdb, frames, names)
        else:
            universe = universe_of_slices(
                frames.get("judge_requests"), frames.get("attempts", pl.DataFrame()), frames.get("participant_context")
            )
            u = Universe.from_slices(cell_slices(predictions), settings, universe)
            tables = measure(None, settings, tables=names, progress=context.log.info, universe=u)
        files = plots.measurement_figures(u, output_dir(duckdb) / "measurement")
        one = u.one_trajectory()
        if one:
            context.log.warning(NO_FOLDS)
        for name in names:
            table = tables[name]
            metadata = _metadata(name, table, settings, one_trajectory=one)
            # the figures: ROC and calibration on judge_metrics, kappa heatmaps on agreement (all there when the
            # per-judge tables are partitioned)
            if name == "judge_metrics" or (name == "agreement" and "judge_metrics" not in names):
                metadata.update({k: dg.MetadataValue.path(v) for k, v in files.items() if not k.startswith("kappa")})
            if name == "agreement":
                metadata.update({k: dg.MetadataValue.path(v) for k, v in files.items() if k.startswith("kappa")})
            yield dg.Output(table, output_name=name, metadata=metadata)

    return measurement


def _every_table(
    context: dg.AssetExecutionContext,
    settings: MeasurementConfig,
    config: MeasurementSettings,
    predictions: TableReader,
    duckdb: DuckDBResource,
    frames: dict[str, pl.DataFrame],
    names: tuple[str, ...],
) -> tuple[dict[str, pl.DataFrame], Universe]:
    """Every table of ``names`` from the whole predictions frame, when no judge partition makes the per-judge
    tables."""
    table = predictions.read()
    outcomes, universe = outcomes_table(frames), universe_table(frames)
    u = Universe(table, settings, universe if len(universe) else None)
    tables = measure(
        table,
        settings,
        outcomes if len(outcomes) else None,
        tables=tuple(n for n in names if n in PER_CELL_TABLES + CROSS_TABLES),
        progress=context.log.info,
        universe=u,
    )
    tables["correlation"] = correlations(
        table,
        resamples=min(config.resamples, CORRELATION_RESAMPLES),
        seed=config.seed,
        analytic_from=config.analytic_from,
    )
    # the judge cache is an internal store, not an asset (no judge partition here: every judge's rows)
    cache = judge_cache_slice(duckdb, frames.get("attempts", pl.DataFrame()))
    if len(cache):
        tables["consistency"] = pl.concat([tables["consistency"], run_to_run(cache)])
    return tables, u
