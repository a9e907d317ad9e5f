"""Group ``perturbation``: single defects injected into accepted programs, against behaviour-preserving edits.

``mutation_seeds`` re-runs the accepted C/C++/Java programs; ``mutants`` (one partition per attempt-hash
bucket of the seeds, :func:`mutants_asset`) applies
the tree-sitter operators (core/perturbation/operators.py) and the behaviour-
preserving rewrites of the control arm (core/perturbation/rewrites.py) and verifies every
mutant by execution (core/perturbation/verify.py); ``perturbation_outputs`` sends
seeds and verified mutants through the one judging path under the blind
condition (same cache, so a seed's blind answer from ``judge_outputs`` is
reused); ``perturbation_metrics`` scores the judges (core/perturbation/stats.py).
Its judge dimension is the enabled judges, so ``perturbation_outputs`` is made
by :func:`perturbation_outputs_asset` when the Definitions are built, and only
when a judge is asked; ``perturbation_metrics``, which reads it, is made by
:func:`perturbation_metrics_asset` with the inputs the Definitions hold.
"""

from collections.abc import Set

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from cojudge_assets.core.constants import BLIND, SEED
from cojudge_assets.core.graded.verify import request_frame as graded_request_frame
from cojudge_assets.core.judging.requests import build_requests
from cojudge_assets.core.perturbation.rewrites import ALL_OPERATORS
from cojudge_assets.core.perturbation.stats import (
    METRIC_SCHEMA,
    PerturbationConfig,
    accuracy_points,
    judged_pairs,
    perturbation_answers,
    yield_table,
)
from cojudge_assets.core.perturbation.stats import perturbation_metrics as score_perturbations
from cojudge_assets.core.perturbation.verify import generate_mutants, request_frame, verify_mutants
from cojudge_assets.core.perturbation.verify import mutation_seeds as select_seeds
from cojudge_assets.core.report import plots
from cojudge_assets.core.shards import BUCKET_COLUMN, in_bucket, with_bucket
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.io import KINDS, present_inputs
from cojudge_assets.defs.judging.assets import judge_one_partition
from cojudge_assets.defs.judging.sources import JUDGES_FILE
from cojudge_assets.defs.partitions import bucket_of, judge_of, judge_partitions
from cojudge_assets.defs.resources import ContestJudgeResource, CorpusResource, output_dir
from cojudge_assets.defs.versions import answers_version, content_version
from cojudge_assets.judges.config import JudgeSpec

CONDITION = BLIND  # mutants are judged without participant context (the study's perturbation protocol)


class MutationSettings(dg.Config):
    max_per_operator: int = 1  # sites kept per operator and seed (spread over the program); 0: every site
    max_seeds: int = 0  # 0: every accepted program; N keeps N spread evenly over them (by attempt_uid)
    # the share of the seeds given one behaviour-preserving rewrite each, chosen by the hash of their seed_uid, as
    # is the operator tried first (core/perturbation/rewrites.rewrite_plan; 0.34: about 40 of the demo's 117);
    # 0: every rewrite operator on every seed
    rewrite_share: float = 0.34


@dg.asset(
    group_name="perturbation",
    kinds=KINDS,
    code_version="1",
    description="One row per accepted C/C++/Java attempt whose problem has tests, re-run on its tests here (an "
    "accepted program runs them all): the re-execution verdict, the sha256 of its output per test, and whether it "
    "is usable as a seed (accepted here).",
)
def mutation_seeds(
    context: dg.AssetExecutionContext,
    config: MutationSettings,
    attempts: pl.DataFrame,
    corpus: CorpusResource,
    contest_judge: ContestJudgeResource,
) -> pl.DataFrame:
    seeds = select_seeds(attempts, corpus.packages(), contest_judge.judge(), max_seeds=config.max_seeds or None)
    context.add_output_metadata(
        {
            "seeds": len(seeds),
            "usable": int(seeds["usable"].sum()) if len(seeds) else 0,
            "by_language": dg.MetadataValue.md(
                markdown_table(seeds.group_by("language", "usable").len().sort("language", "usable"))
            ),
        }
    )
    return seeds


def mutants_asset(buckets: dg.StaticPartitionsDefinition) -> dg.AssetsDefinition:
    """``mutants`` split into these attempt-hash buckets of the seeds (defs/partitions.py ``bucket_partitions``):
    every partition makes, compiles and runs the mutants of the seeds that fall in its bucket (a seed's mutants
    depend on that seed alone: core/perturbation/verify.py ``generate_mutants``), so the verification spreads
    over runs and machines; a reader gets every bucket's rows in one frame (the rows of one unsharded step, plus
    the ``bucket`` column). A bucket no seed falls in is a valid, empty partition."""

    @dg.asset(
        name="mutants",
        group_name="perturbation",
        kinds=KINDS,
        code_version="4",
        partitions_def=buckets,
        metadata={"partition_expr": BUCKET_COLUMN},
        check_specs=[
            dg.AssetCheckSpec(
                "controls_behave_like_seeds",
                asset="mutants",
                description="Every verified control or adversarial mutant printed byte-identical "
                "output to its seed on every test, and every verified mutant is one edit away.",
            )
        ],
        description="One row per mutant: operator, arm, severity, the edit (line, before, after), guard/loop "
        "context, the code, and its verification: single edit, compiles, output identical to the seed's on every "
        "test (controls), behaviour_changed on the problem's tests (semantic), verified, and the reason when not. "
        "Split into attempt-hash buckets of the seed (column bucket), one partition each.",
    )
    def mutants(
        context: dg.AssetExecutionContext,
        config: MutationSettings,
        mutation_seeds: pl.DataFrame,
        corpus: CorpusResource,
        contest_judge: ContestJudgeResource,
    ):
        bucket = bucket_of(context)
        made = generate_mutants(
            in_bucket(mutation_seeds, "seed_uid", bucket),
            max_per_operator=config.max_per_operator or None,
            rewrite_share=config.rewrite_share or None,
            progress=context.log.info,
        )
        table = with_bucket(
            verify_mutants(mutation_seeds, made, corpus.packages(), contest_judge.judge(), progress=context.log.info),
            bucket,
        )
        verified = table.filter(pl.col("verified"))
        counts = verified.group_by("arm").len()
        by_arm = dict(zip(counts["arm"].to_list(), counts["len"].to_list()))
        broken = verified.filter(
            ~pl.col("single_edit") | ((pl.col("arm") != "semantic") & ~pl.col("outputs_identical").fill_null(False))
        )
        yield dg.Output(
            table,
            metadata={
                "mutants": len(table),
                "verified": len(verified),
                "verified_semantic": by_arm.get("semantic", 0),
                "verified_control": by_arm.get("control", 0),
                "verified_adversarial": by_arm.get("adversarial", 0),
                "execution_confirmed": int(verified["behaviour_changed"].fill_null(False).sum()),
                # seeds whose tree-sitter work went past a budget (core/perturbation/budget.py): one row each
                "seeds_skipped": int((table["kind"] == "skipped").sum()),
                "not_verified": dg.MetadataValue.md(
                    markdown_table(
                        table.filter(~pl.col("verified"))
                        .group_by("operator", "reason")
                        .len()
                        .sort("len", descending=True)
                    )
                ),
            },
        )
        yield dg.AssetCheckResult(
            check_name="controls_behave_like_seeds",
            passed=broken.is_empty(),
            metadata={"verified": len(verified), "violations": len(broken)},
        )

    return mutants


@dg.asset(
    group_name="perturbation",
    kinds=KINDS,
    code_version="3",
    description="One row per usable seed, verified mutant and graded program (defs/perturbation/graded.py): the "
    "label-free blind request (core/judging/requests.py), keyed by the seed's attempt_uid, the mutant_uid or the "
    "program_uid; a graded program's request also asks for AXIOM's 0-5 score.",
)
def perturbation_requests(
    context: dg.AssetExecutionContext,
    mutation_seeds: pl.DataFrame,
    mutants: pl.DataFrame,
    graded_programs: pl.DataFrame,
    problems: pl.DataFrame,
):
    no_context = pl.DataFrame(schema={"attempt_uid": pl.String, "condition": pl.String, "context": pl.String})
    table = build_requests(request_frame(mutation_seeds, mutants), problems, no_context, CONDITION)
    if not graded_programs.is_empty():  # the graded programs are asked for AXIOM's 0-5 score too (docs/judging.md)
        graded = build_requests(graded_request_frame(graded_programs), problems, no_context, CONDITION, ask_score=True)
        table = pl.concat([table, graded]).sort("attempt_uid")
    return dg.Output(
        table, data_version=content_version(table, ["attempt_uid", "request_hash"]), metadata={"requests": len(table)}
    )


def perturbation_outputs_asset(judges: dict[str, JudgeSpec]) -> dg.AssetsDefinition:
    """``perturbation_outputs`` partitioned by these judges (the asked ones: enabled, not imported), by name."""
    partitions = judge_partitions(judges)

    @dg.asset(
        name="perturbation_outputs",
        group_name="perturbation",
        kinds=KINDS,
        code_version="1",
        partitions_def=partitions,
        # the judge's partition of judges_file (an identity mapping onto the judges that are asked); an observable
        # source asset is observed, never loaded, so this dependency is declared (no table an input could load)
        deps=[dg.AssetDep(JUDGES_FILE, partition_mapping=dg.StaticPartitionMapping({j: j for j in judges}))],
        metadata={"partition_expr": "judge"},
        check_specs=[
            dg.AssetCheckSpec(
                "one_valid_row_per_program",
                asset="perturbation_outputs",
                description="Every seed and verified mutant has exactly one valid row.",
            )
        ],
        description="One row per (seed or verified mutant) for one judge under the blind condition, through the "
        "same cached, resumable judging path as judge_outputs (DuckDB table judge_cache).",
    )
    def perturbation_outputs(
        context: dg.AssetExecutionContext,
        perturbation_requests: pl.DataFrame,
        duckdb: DuckDBResource,
        contest_judge: ContestJudgeResource,
    ):
        spec = judges[judge_of(context)]
        table, metadata, passed = judge_one_partition(
            context, spec, CONDITION, perturbation_requests, duckdb, contest_judge
        )
        yield dg.Output(table, metadata=metadata, data_version=answers_version(table))
        yield dg.AssetCheckResult(
            check_name="one_valid_row_per_program",
            passed=passed,
            metadata={"requests": len(perturbation_requests), "valid_rows": metadata["valid_rows"]},
        )

    return perturbation_outputs


class PerturbationSettings(dg.Config):
    seed_cut: float = 0.5  # primary subset: the judge scored the seed at or above this
    drop_cut: float = 0.05  # a reaction is a drop (or, adversarial, a rise) larger than this
    resamples: int = 2000
    seed: int = SEED


@dg.asset(
    group_name="perturbation",
    kinds=KINDS,
    code_version="2",
    description="One row per operator: mutants made, single-edit, compiled, verified, in a guard, in a loop, "
    "behaviour changed on the tests, the execution-confirmed share of the verified ones, the languages mutated, "
    "and a note when the operator found no site.",
)
def perturbation_yield(context: dg.AssetExecutionContext, mutants: pl.DataFrame) -> pl.DataFrame:
    table = yield_table(mutants, operators=ALL_OPERATORS)
    context.add_output_metadata({"yield": dg.MetadataValue.md(markdown_table(table))})
    return table


def perturbation_metrics_asset(present: Set[str]) -> dg.AssetsDefinition:
    """``perturbation_metrics`` over ``mutants``, ``judge_metrics`` and, when ``present`` (the Definitions) holds
    it, ``perturbation_outputs``."""
    optional = present_inputs(
        ("perturbation_outputs",),
        present,
        columns={"perturbation_outputs": ["judge", "attempt_uid", "status", "p_accept"]},
    )

    @dg.asset(
        name="perturbation_metrics",
        group_name="perturbation",
        kinds=KINDS,
        code_version="2",
        ins=optional,
        description="One row per (judge, metric, subset): arm discrimination A_j (all, loop-context, execution-"
        "confirmed), reactions per arm, severity gradient, adversarial mean shift and rise, mean shift per operator; "
        "seed-bootstrap intervals (lo, hi), mutants n and seeds n_seeds, on the primary subset (seed scored >= cut).",
    )
    def perturbation_metrics(
        context: dg.AssetExecutionContext,
        config: PerturbationSettings,
        mutants: pl.DataFrame,
        judge_metrics: pl.DataFrame,
        duckdb: DuckDBResource,
        **frames: pl.DataFrame,
    ) -> pl.DataFrame:
        # the folder is this asset's: no figure outlives its run
        plots.remove_figures(output_dir(duckdb) / "perturbation")
        outputs = perturbation_answers(frames.get("perturbation_outputs"))
        if outputs.is_empty():  # no judge enabled, or no C/C++/Java program accepted: nothing to score
            context.add_output_metadata({"pairs": 0, "note": "no judged mutants"})
            return pl.DataFrame(schema=METRIC_SCHEMA)
        pairs = judged_pairs(mutants, outputs)
        table = score_perturbations(
            pairs,
            PerturbationConfig(
                seed_cut=config.seed_cut, drop_cut=config.drop_cut, n_resamples=config.resamples, seed=config.seed
            ),
        )
        folder = output_dir(duckdb) / "perturbation"
        order = [op for op in ALL_OPERATORS if op in set(table["subset"].to_list())]
        figures = {
            "shift_by_operator": plots.shift_by_operator(
                table, order, folder / "shift_by_operator.png", "Mean score shift per operator (semantic by severity)"
            )
        }
        rewrites = [op for op in order if op in set(table.filter(pl.col("metric") == "rewrite_flip")["subset"])]
        if rewrites:
            figures["consistency_under_rewrite"] = plots.consistency_under_rewrite(
                table, rewrites, folder / "consistency_under_rewrite.png", "Consistency under rewrite per judge"
            )
        points = accuracy_points(table, judge_metrics, CONDITION)
        if len(points):
            figures["accuracy_vs_discrimination"] = plots.accuracy_vs_discrimination(
                points, folder / "accuracy_vs_discrimination.png", "Accuracy on real attempts vs defect discrimination"
            )
        headline = table.filter(
            pl.col("metric").is_in(
                ["arm_discrimination", "reaction", "severity_gradient", "adversarial_mean_shift", "adversarial_rise"]
            )
        )
        context.add_output_metadata(
            {
                "pairs": len(pairs),
                "judges": len(set(pairs["judge"].to_list())),
                "headline": dg.MetadataValue.md(
                    markdown_table(headline.with_columns(pl.col("value", "lo", "hi").round(3)))
                ),
                **{name: dg.MetadataValue.path(str(path)) for name, path in figures.items()},
            }
        )
        return table

    return perturbation_metrics
