"""Group ``perturbation``, graded part: programs with score ceilings (AXIOM), verified, balanced and scored.

``graded_programs`` makes sequences of the rules of core/graded/rules.py on the usable seeds of
``mutation_seeds``, verifies every program by execution on the secret tests (core/graded/verify.py) and balances
the ceilings 0..5; ``graded_yield`` and ``graded_balance`` count it per rule and per ceiling. The graded programs
are judged blind through ``perturbation_requests`` / ``perturbation_outputs`` with the seeds and mutants (one
partition per judge, the judge cache, so nothing is sent twice; graded requests also ask for AXIOM's 0-5 score);
``graded_scores`` maps every judge's answers, and the reference-based judges' (chrF++, CodeBLEU, edit similarity
against the seed and against another accepted solution), to 0-5 scores per program, and ``graded_metrics`` scores
them against the ceilings (core/graded/metrics.py); the costly similarities are computed once, not again when only
the metrics change. ``graded_scores`` reads ``perturbation_outputs`` only when the Definitions hold it, so it is
made by :func:`graded_scores_asset`.

Incremental: a program's code depends on its seed, its rule and the rules rendezvous hashing picks for the
other slots of its sequence, so adding a rule adds that rule's programs and changes only the slots the new rule
wins; every unchanged program is served from the contest judge's result cache and the judge cache.
"""

from collections.abc import Set

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.graded.metrics import METRIC_SCHEMA, edit_size_by_ceiling, score_programs, table_iii
from cojudge_assets.core.graded.metrics import graded_metrics as score_graded
from cojudge_assets.core.graded.rules import BY_NAME, RULES
from cojudge_assets.core.graded.verify import (
    PER_CEILING,
    PROGRAM_SCHEMA,
    ceiling_balance,
    fail_share_distribution,
    rule_yield,
    shape,
)
from cojudge_assets.core.graded.verify import graded_programs as build
from cojudge_assets.core.report import plots
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.io import KINDS, present_inputs
from cojudge_assets.defs.resources import ContestJudgeResource, CorpusResource, output_dir
from cojudge_assets.defs.versions import content_version

GRADED_PROGRAM_ASSETS = ("graded_programs", "graded_yield", "graded_balance")  # run with the mutants
BALANCE_TOLERANCE = 0.05  # each ceiling 0..5 holds 1/6 +- this of the graded set
SCORE_VS_CEILING_TITLE = "Score vs ceiling per judge (graded programs, blind)"


class GradedSettings(dg.Config):
    rules: list[str] = []  # rule names (core/graded/rules.py); empty: every rule
    # graded programs kept per ceiling (core/graded/verify.py PER_CEILING, "Size"); 0: as many as the scarcest
    # ceiling has, whatever the verification costs
    per_ceiling: int = PER_CEILING


@dg.asset(
    group_name="perturbation",
    kinds=KINDS,
    code_version="4",
    check_specs=[
        dg.AssetCheckSpec(
            "every_graded_program_verified",
            asset="graded_programs",
            description="Every graded program was run on its problem's secret tests and had its ceiling's intended "
            "effect.",
        ),
        dg.AssetCheckSpec(
            "ceilings_balanced",
            asset="graded_programs",
            description="Each ceiling 0..5 holds 1/6 +- 5% of the graded set.",
        ),
    ],
    description="One row per (usable seed, rule): the graded program (its rule sequence `rules`, the ceiling 0..5 "
    "of its last rule, code, edit_size to the seed, repair_tokens) and its verification by execution on the secret "
    "tests (tests run, failed, fail_share, effect, accepted, reason), graded when the balance keeps it; a rule "
    "that finds no site is a skipped row (no code).",
)
def graded_programs(
    context: dg.AssetExecutionContext,
    config: GradedSettings,
    mutation_seeds: pl.DataFrame,
    corpus: CorpusResource,
    contest_judge: ContestJudgeResource,
):
    unknown = sorted(set(config.rules) - set(BY_NAME))
    if unknown:
        raise ValueError(f"graded_programs config rules: unknown {unknown}; expected names of {sorted(BY_NAME)}")
    if config.per_ceiling < 0:
        raise ValueError(f"graded_programs config per_ceiling={config.per_ceiling}: expected 0 (no cap) or more")
    rules = tuple(r for r in RULES if not config.rules or r.name in config.rules)
    if mutation_seeds.is_empty():  # no C/C++/Java program accepted (or the seeds never materialized)
        table = pl.DataFrame(schema=PROGRAM_SCHEMA)
    else:
        table = build(
            mutation_seeds,
            corpus.packages(),
            contest_judge.judge(),
            rules,
            per_ceiling=config.per_ceiling or None,
            progress=context.log.info,
        )
    graded = table.filter(pl.col("graded"))
    balance = ceiling_balance(table)
    figures = shape(table) if len(graded) else {}
    yield dg.Output(
        table,
        data_version=content_version(table, ["program_uid", "code", "effect", "graded"]),
        metadata={
            "programs": int((table["effect"] != "skipped").sum()),
            "accepted": int(table["accepted"].sum()),
            "graded": len(graded),
            "balance": dg.MetadataValue.md(markdown_table(balance)),
            "fail_share": dg.MetadataValue.md(markdown_table(fail_share_distribution(table))),
            **{k: dg.MetadataValue.float(v) for k, v in figures.items() if k != "programs"},
        },
    )
    yield dg.AssetCheckResult(
        check_name="every_graded_program_verified",
        passed=bool(graded["accepted"].all()) if len(graded) else True,
        metadata={"graded": len(graded), "not_verified": int((~graded["accepted"]).sum())},
    )
    shares = balance["share"].to_list()
    yield dg.AssetCheckResult(
        check_name="ceilings_balanced",
        passed=len(graded) > 0 and all(abs(s - 1 / len(shares)) <= BALANCE_TOLERANCE for s in shares),
        metadata={"shares": dg.MetadataValue.md(markdown_table(balance.select("ceiling", "graded", "share")))},
    )


@dg.asset(
    group_name="perturbation",
    kinds=KINDS,
    code_version="2",
    description="One row per graded rule: its ceiling and category, seeds skipped (no site), programs made, "
    "accepted (yield = accepted / made), broken, of the wrong effect, graded, share of the graded set and of its "
    "ceiling (ceiling_share, at most 25% where the corpus allows), languages.",
)
def graded_yield(context: dg.AssetExecutionContext, graded_programs: pl.DataFrame) -> pl.DataFrame:
    table = rule_yield(graded_programs)
    in_use = int((table["graded"] > 0).sum())
    context.add_output_metadata(
        {"rules_in_use": in_use, "yield": dg.MetadataValue.md(markdown_table(table.drop("category")))}
    )
    return table


@dg.asset(
    group_name="perturbation",
    kinds=KINDS,
    code_version="2",
    description="One row per ceiling 5..0: its category, candidate programs, verified, accepted, graded, the graded "
    "share (balance, 1/6 each), the median edit size of its graded programs, and a note where a rule holds more "
    "than 25% of the ceiling, saying why.",
)
def graded_balance(context: dg.AssetExecutionContext, graded_programs: pl.DataFrame) -> pl.DataFrame:
    table = ceiling_balance(graded_programs)
    context.add_output_metadata({"balance": dg.MetadataValue.md(markdown_table(table))})
    return table


class GradedMetricsSettings(dg.Config):
    resamples: int = 1000
    seed: int = SEED


def graded_scores_asset(present: Set[str]) -> dg.AssetsDefinition:
    """``graded_scores`` over ``graded_programs``, ``mutation_seeds`` and, when ``present`` (the Definitions)
    holds it, ``perturbation_outputs``."""
    optional = present_inputs(
        ("perturbation_outputs",),
        present,
        columns={"perturbation_outputs": ["judge", "attempt_uid", "status", "p_accept", "s_algo", "s_robust", "score"]},
    )

    @dg.asset(
        name="graded_scores",
        group_name="perturbation",
        kinds=KINDS,
        code_version="1",
        ins=optional,
        description="One row per (judge, answer kind, graded program): its 0-5 score, with the program's seed, "
        "problem, ceiling and edit size (Levenshtein characters to the seed). The asked judges' answers "
        "(score, 5 p_accept, rubric) and the reference-based chrF++, CodeBLEU and edit similarity against the seed "
        "(similarity) and against another accepted solution of the problem (similarity_other).",
    )
    def graded_scores(
        context: dg.AssetExecutionContext,
        graded_programs: pl.DataFrame,
        mutation_seeds: pl.DataFrame,
        **frames: pl.DataFrame,
    ) -> pl.DataFrame:
        scores = score_programs(graded_programs, mutation_seeds, frames.get("perturbation_outputs"))
        context.add_output_metadata(
            {"rows": len(scores), "judges": scores["judge"].n_unique(), "programs": scores["program_uid"].n_unique()}
        )
        return scores

    return graded_scores


@dg.asset(
    group_name="perturbation",
    kinds=KINDS,
    code_version="3",
    description="One row per (judge, answer kind, scope, metric, subset) against the graded ceilings: Spearman "
    "rho (pooled, within problem, controlled for edit size), Kendall tau, Krippendorff's alpha (interval), EMD, "
    "mean score per ceiling, MCC per adjacent pair of ceilings; scope full (ceilings 0..5) and rectifiable "
    "(1..5); problem-clustered intervals (bootstrap SE, t on problems - 1), p-values and Holm over the tests; "
    "undefined values null with a note; from graded_scores.",
)
def graded_metrics(
    context: dg.AssetExecutionContext,
    config: GradedMetricsSettings,
    graded_scores: pl.DataFrame,
    duckdb: DuckDBResource,
) -> pl.DataFrame:
    folder = output_dir(duckdb) / "graded"
    plots.remove_figures(folder)
    if graded_scores.is_empty():
        context.add_output_metadata({"graded": 0, "note": "no graded program"})
        return pl.DataFrame(schema=METRIC_SCHEMA)
    table = score_graded(graded_scores, n_resamples=config.resamples, seed=config.seed)
    figure = plots.score_vs_ceiling(table, folder / "score_vs_ceiling.png", SCORE_VS_CEILING_TITLE)
    context.add_output_metadata(
        {
            "graded": graded_scores["program_uid"].n_unique(),
            "judges": graded_scores["judge"].n_unique(),
            "table_iii": dg.MetadataValue.md(markdown_table(table_iii(table))),
            "edit_size": dg.MetadataValue.md(markdown_table(edit_size_by_ceiling(graded_scores))),
            "score_vs_ceiling": dg.MetadataValue.path(str(figure)),
        }
    )
    return table
