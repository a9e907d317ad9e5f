"""Group ``design``: the design-phase split and the robustness of the findings (seed study V-A, VI).

``design_split`` fixes, once per corpus, which groups (trajectories, or problems
where the corpus has no participants) a prompt designer may inspect;
``inspectable_requests`` writes the requests of that part only; ``design_record``
records which prompt version was designed against which split; ``contamination``
and ``findings`` score the judges on the never-inspected part and state which
conclusions survive each robustness check (core/design/split.py,
core/design/robustness.py).

The split and the record are stored once and extended, never redrawn: each reads
its own previous table through the ``duckdb`` resource (the DuckDB file, or its
Delta table under the deployed profile). Dagster's public API has
no self-dependency for an unpartitioned asset (an asset input naming the asset
itself is a cycle; self-dependent assets need a partition mapping to an earlier
partition), so that one read of the asset's own table is by name.
"""

from collections.abc import Set
from typing import Any

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.design import split as ds
from cojudge_assets.core.design.robustness import RobustnessConfig, widening_by_judge
from cojudge_assets.core.design.robustness import contamination as score_contamination
from cojudge_assets.core.design.robustness import findings as state_findings
from cojudge_assets.core.frames import TableReader
from cojudge_assets.core.judging.prompts import PROMPT_VERSION
from cojudge_assets.core.judging.requests import write_jsonl
from cojudge_assets.core.measurement.predictions import has_table, scored
from cojudge_assets.core.perturbation.stats import judged_pairs, perturbation_answers
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.io import KINDS, present_inputs
from cojudge_assets.defs.resources import output_dir

GROUP = "design"


def _stored(duckdb: DuckDBResource, table: str) -> pl.DataFrame | None:
    """The asset's own previous table (see the module docstring), or None on its first run: from the DuckDB file,
    or under the deployed profile from its Delta table (defs/deployed.py ``asset_table``)."""
    deployed = getattr(duckdb, "asset_table", None)
    if deployed is not None:
        return deployed(table)
    with duckdb.get_connection() as conn:
        return conn.execute(f"select * from main.{table}").pl() if has_table(conn, table) else None


class SplitSettings(dg.Config):
    seed: int = SEED  # the corpus seed: a new group's split is a keyed hash of (seed, its key)
    # the group: "trajectory", "problem" (no test problem is ever inspected) or null (the stored unit; on a first
    # run trajectory, or problem for a corpus without participants); a unit other than the stored one re-splits
    unit: str | None = None


class RobustnessSettings(dg.Config):
    resamples: int = 1000  # at most the measurement's count; the trajectory and problem streams are its own
    seed: int = SEED
    folds: int = 10
    # analytic intervals on at least this many predictions (core/design/robustness.py RobustnessConfig): contamination's
    # cell with as many in each part; findings' comparison whose every side's cell has (on the never-inspected part:
    # has there)
    analytic_from: int = 5000


def _sizes_metadata(table: pl.DataFrame) -> dict:
    sizes = ds.split_sizes(table)
    metadata: dict[str, Any] = {f"{split}_{what}": n for split, counts in sizes.items() for what, n in counts.items()}
    groups = sum(s["groups"] for s in sizes.values())
    metadata.update({f"{split}_share": round(sizes[split]["groups"] / groups, 4) if groups else 0 for split in sizes})
    return metadata


@dg.asset(
    group_name=GROUP,
    kinds=KINDS,
    code_version="2",
    description="One row per group (trajectory; problem where the corpus has no participants, or with config unit: "
    "problem, so that no test problem is ever inspected): its design split "
    "(train / validation / test, seed study V-A proportions 146/19/19 of 184), from a keyed hash of (seed, group) "
    "cut at the proportions; stored once: on a re-run every stored group keeps its split and only new groups are "
    "assigned, so appending attempts moves no group.",
)
def design_split(
    context: dg.AssetExecutionContext, config: SplitSettings, attempts: pl.DataFrame, duckdb: DuckDBResource
) -> pl.DataFrame:
    previous = _stored(duckdb, "design_split")
    table = ds.assign_split(attempts, previous, seed=config.seed, unit=config.unit)
    known = 0 if previous is None else int(table["group_key"].is_in(previous["group_key"].implode()).sum())
    test_problems = set(table.filter(pl.col("split") == ds.NEVER_INSPECTED)["problem_id"].to_list())
    seen_problems = set(table.filter(pl.col("split").is_in(list(ds.INSPECTABLE)))["problem_id"].to_list())
    context.add_output_metadata(
        {
            "unit": table["unit"][0] if len(table) else "none",
            "groups_kept_from_stored": known,
            "groups_assigned_now": len(table) - known,
            "test_problems_also_inspectable": len(test_problems & seen_problems),
            "split_sha256": ds.split_hash(table),
            **_sizes_metadata(table),
        }
    )
    return table


INSPECTABLE_READ = ("attempt_uid", "condition", "request_hash", "prompt_version", "request_json")


@dg.asset(
    group_name=GROUP,
    kinds=KINDS,
    code_version="1",
    # a condition at a time, with the columns the file and the split need (at 10^6 attempts the whole table of
    # requests, the file's lines and their join held 3.5 GB)
    ins={
        "judge_requests": dg.AssetIn(
            "judge_requests",
            metadata={"columns": list(INSPECTABLE_READ)},
            dagster_type=TableReader,
        ),
        "attempts": dg.AssetIn("attempts", metadata={"columns": ["attempt_uid", "participant", "problem_id"]}),
    },
    description="One row per condition: the judge requests of the inspectable part (train and validation) "
    "written to <DuckDB folder>/design/inspectable.<condition>.jsonl (the only requests a prompt designer reads), "
    "and how many were withheld (test).",
)
def inspectable_requests(
    context: dg.AssetExecutionContext,
    judge_requests: TableReader,
    attempts: pl.DataFrame,
    design_split: pl.DataFrame,
    duckdb: DuckDBResource,
) -> pl.DataFrame:
    folder = output_dir(duckdb) / "design"
    for stale in folder.glob("inspectable.*.jsonl"):  # the folder is this asset's: no file outlives its run
        stale.unlink()
    rows = []
    for (condition,) in judge_requests.keys("condition"):  # one condition's requests in memory (issue 33)
        requests = judge_requests.read(condition=condition)
        mine = ds.inspectable_requests(requests, attempts, design_split)
        path = folder / f"inspectable.{condition}.jsonl"
        write_jsonl(mine, path)
        rows.append(
            {"condition": condition, "inspectable": len(mine), "withheld": len(requests) - len(mine), "file": str(path)}
        )
        del requests, mine
    table = pl.DataFrame(
        rows, schema={"condition": pl.String, "inspectable": pl.Int64, "withheld": pl.Int64, "file": pl.String}
    )
    context.add_output_metadata({"files": dg.MetadataValue.md(markdown_table(table))})
    return table


@dg.asset(
    group_name=GROUP,
    kinds=KINDS,
    # the prompt's templates are part of the code version: a template edit makes the record stale, so it runs
    code_version=f"1-{PROMPT_VERSION}-{ds.templates_sha256()[:12]}",
    description="One row per judge prompt version (core/judging/prompts.py: PROMPT_VERSION and a hash of the "
    "templates): "
    "the split it was designed against (content hash, sizes) and the date; a row is appended when the prompt "
    "changes, never rewritten.",
)
def design_record(
    context: dg.AssetExecutionContext, design_split: pl.DataFrame, duckdb: DuckDBResource
) -> pl.DataFrame:
    previous = _stored(duckdb, "design_record")
    table = ds.design_record(previous, design_split, PROMPT_VERSION, ds.templates_sha256())
    context.add_output_metadata(
        {
            "prompt_versions": len(table),
            "appended": len(table) - (0 if previous is None else len(previous)),
            "record": dg.MetadataValue.md(markdown_table(table)),
        }
    )
    return table


def _config(settings: RobustnessSettings) -> RobustnessConfig:
    return RobustnessConfig(
        resamples=settings.resamples, seed=settings.seed, folds=settings.folds, analytic_from=settings.analytic_from
    )


@dg.asset(
    group_name=GROUP,
    kinds=KINDS,
    code_version="4",  # 4: analytic only with analytic_from predictions in each part
    # read a judge x condition at a time (core/frames.py TableReader): one cell's predictions in memory (issue 33)
    ins={"predictions": dg.AssetIn("predictions", metadata=scored(), dagster_type=TableReader)},
    description="One row per (judge, condition, metric): ROC-AUC, PR-AUC, Brier, ECE, log loss, out-of-fold MCC "
    "and the prevalence on the inspectable part (train and validation) and on the never-inspected part (test), the "
    "paired difference inspectable - never-inspected, trajectory-bootstrap intervals (in a cell of at least "
    "analytic_from predictions in each part analytic ones clustered by trajectory; column ci_method), flagged = "
    "the ROC-AUC difference's interval excludes 0 on the side where the inspectable part looks better (prompt-design "
    "contamination, seed study VI), and detectable = the smallest ROC-AUC difference flagged with 80% power.",
)
def contamination(
    context: dg.AssetExecutionContext,
    config: RobustnessSettings,
    predictions: TableReader,
    design_split: pl.DataFrame,
) -> pl.DataFrame:
    table = score_contamination(predictions, design_split, _config(config))
    flagged = table.filter(pl.col("flagged").fill_null(False))
    context.add_output_metadata(
        {
            "cells": table.select("judge", "condition").n_unique() if len(table) else 0,
            "flagged": len(flagged),
            "resamples": config.resamples,
            "flagged_rows": dg.MetadataValue.md(
                markdown_table(flagged.select("judge", "condition", "metric", "difference"))
            )
            if len(flagged)
            else "none",
        }
    )
    return table


MUTANT_COLUMNS = ["mutant_uid", "seed_uid", "operator", "arm", "severity", "in_loop", "in_guard",
                  "behaviour_changed", "verified"]  # fmt: skip


def findings_asset(present: Set[str]) -> dg.AssetsDefinition:
    """``findings`` over the measurement tables, ``perturbation_metrics`` and, when ``present`` (the Definitions)
    holds it, ``perturbation_outputs`` with ``mutants``: the per-mutant pairs its perturbation rows' checks use."""
    optional = present_inputs(
        ("perturbation_outputs",),
        present,
        columns={"perturbation_outputs": ["judge", "attempt_uid", "status", "p_accept"]},
    )
    if optional:
        optional["mutants"] = dg.AssetIn("mutants", metadata={"columns": MUTANT_COLUMNS})
    optional["attempts"] = dg.AssetIn("attempts", metadata={"columns": ["attempt_uid", "participant", "problem_id"]})
    # read a judge x condition at a time (core/design/robustness.py ``findings``): at 10^6 attempts x 6 cells the
    # whole table is ~1.5 GB resident
    optional["predictions"] = dg.AssetIn("predictions", metadata=scored(), dagster_type=TableReader)

    @dg.asset(
        name="findings",
        group_name=GROUP,
        kinds=KINDS,
        code_version="3",  # 3: analytic intervals at large n, the ci_method columns
        ins=optional,
        description="One row per distinct finding (a judge above chance, a judge above another, a condition above "
        "another, the panel above its mean member, a perturbation arm above the control; rows that give the same "
        "result under several conditions are one row naming them, and a judge that answers the same under two "
        "conditions shows no difference by construction): estimate, interval and status (holds / tie / reversed) "
        "under trajectory resampling, problem resampling, equal problem weights and on the never-inspected part, "
        "the widening of problem over trajectory intervals, and the p with its Holm adjustment within the stated "
        "family; at large n (every side's cell of at least analytic_from predictions) the intervals and the p are "
        "analytic, clustered by trajectory or problem (columns ci_method) (core/design/robustness.py).",
    )
    def findings(
        context: dg.AssetExecutionContext,
        config: RobustnessSettings,
        predictions: TableReader,
        design_split: pl.DataFrame,
        judge_metrics: pl.DataFrame,
        condition_effects: pl.DataFrame,
        panel: pl.DataFrame,
        per_problem: pl.DataFrame,
        perturbation_metrics: pl.DataFrame,
        attempts: pl.DataFrame,
        **frames: pl.DataFrame,
    ) -> pl.DataFrame:
        outputs = perturbation_answers(frames.get("perturbation_outputs"))
        mutants = frames.get("mutants")
        pairs = None
        if not outputs.is_empty() and mutants is not None and not mutants.is_empty():
            pairs = judged_pairs(mutants, outputs)
        table = state_findings(
            predictions,
            design_split,
            judge_metrics=judge_metrics,
            condition_effects=condition_effects,
            panel=panel,
            per_problem=per_problem,
            perturbation_metrics=perturbation_metrics,
            perturbation_pairs=pairs,
            attempts=None if attempts.is_empty() else attempts,
            config=_config(config),
        )
        counts = table.group_by("kind", "status").len().sort("kind", "status") if len(table) else table
        holm = (
            table.filter(pl.col("family").is_not_null())
            .group_by("family", "status", "holm_status")
            .len()
            .sort("family", "status", "holm_status")
            if len(table)
            else table
        )
        context.add_output_metadata(
            {
                "findings": len(table),
                "by_status": dg.MetadataValue.md(markdown_table(counts)) if len(table) else "none",
                "holm": dg.MetadataValue.md(markdown_table(holm)) if len(table) else "none",
                "widening_by_judge": dg.MetadataValue.md(markdown_table(widening_by_judge(table)))
                if len(table)
                else "none",
                "perturbation_rows": int((table["kind"] == "perturbation_arm").sum()) if len(table) else 0,
                "perturbation_pairs": 0 if pairs is None else len(pairs),
            }
        )
        return table

    return findings
