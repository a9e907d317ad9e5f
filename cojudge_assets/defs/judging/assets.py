"""Group ``judging``: label-free requests per condition, and every enabled judge's answers.

The judge dimension of ``judge_outputs`` is the list of enabled judges in the
judges config file, read when the Definitions are built (like the DuckDB path),
so that asset is made by :func:`judge_outputs_asset` when the Definitions are
built rather than at import.

Partition keys are made and read by defs/partitions.py; each judge's partitions
depend on its partition of the source asset ``judges_file`` (defs/judging/sources.py),
so a changed judge is stale in Dagster.
"""

from pathlib import Path
from typing import Any, cast

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from cojudge_assets.core.frames import TableReader
from cojudge_assets.core.judging.imported import ImportFormatError
from cojudge_assets.core.judging.requests import REQUEST_INPUT_COLUMNS, build_condition
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.io import KINDS
from cojudge_assets.defs.judging.sources import JUDGES_FILE
from cojudge_assets.defs.partitions import CONDITION_PARTITIONS, condition_judge_partitions, condition_of, judge_of
from cojudge_assets.defs.resources import ContestJudgeResource, judge_store, output_dir
from cojudge_assets.defs.versions import answers_version, content_version
from cojudge_assets.judges.config import JudgeSpec, rate_of_one_run
from cojudge_assets.judges.estimate import RUN_TAG, budget_key
from cojudge_assets.judges.imports import import_partition
from cojudge_assets.judges.runner import REQUEST_COLUMNS, judge_partition
from cojudge_assets.judges.store import ANSWERED_STATUSES


def requests_file(duckdb: DuckDBResource, condition: str) -> Path:
    """The model-agnostic requests file of one condition, shared by every judge, beside the DuckDB file."""
    return output_dir(duckdb) / "requests" / f"judge_requests.{condition}.jsonl"


@dg.asset(
    group_name="judging",
    kinds=KINDS,
    code_version="1",
    partitions_def=CONDITION_PARTITIONS,
    metadata={"partition_expr": "condition"},
    # the contexts are read by condition (a TableReader): a partition loads its own third of participant_context
    ins={
        name: dg.AssetIn(name, metadata={"columns": columns}, dagster_type=TableReader)
        if name == "participant_context"
        else dg.AssetIn(name, metadata={"columns": columns})
        for name, columns in REQUEST_INPUT_COLUMNS.items()
    },
    check_specs=[
        dg.AssetCheckSpec(
            "no_label_in_requests",
            asset="judge_requests",
            blocking=True,
            description="No request would change if its attempt's label changed, and none "
            "spells its Result string out (core/judging/requests.py: label_leaks).",
        )
    ],
    description="One row per (attempt, condition): the canonical label-free request (problem_id, full statement, "
    "language, code, the condition's context) and its request_hash; also written as one JSONL file per "
    "condition, shared by every judge.",
)
def judge_requests(
    context: dg.AssetExecutionContext,
    attempts: pl.DataFrame,
    problems: pl.DataFrame,
    participant_context: TableReader,
    duckdb: DuckDBResource,
):
    condition = condition_of(context)
    path = requests_file(duckdb, condition)
    contexts = participant_context.read(condition=condition)
    built = build_condition(attempts, problems, contexts, condition, path)  # slice by slice
    table, leaks = built.table, built.leaks
    # the content is the data version: a label fix upstream leaves the requests, so the answers, up to date
    yield dg.Output(
        table,
        data_version=content_version(table, ["attempt_uid", "request_hash"]),
        metadata={
            "requests": len(table),
            "with_context": int((table["context_chars"] > 0).sum()),
            "mean_context_chars": round(float(cast(float, table["context_chars"].mean()) or 0), 1),
            "max_context_chars": int(cast(int, table["context_chars"].max()) or 0),
            "jsonl": dg.MetadataValue.path(str(path)),
        },
    )
    yield dg.AssetCheckResult(
        check_name="no_label_in_requests",
        passed=leaks.is_empty(),
        metadata={
            "requests_checked": len(table),
            "leaks": len(leaks),
            "leaking": dg.MetadataValue.md(markdown_table(leaks.head(50))) if len(leaks) else "none",
        },
    )


def _build_judge_outputs(judges: dict[str, JudgeSpec]) -> dg.AssetsDefinition:
    partitions = condition_judge_partitions(judges)

    @dg.asset(
        name="judge_outputs",
        group_name="judging",
        kinds=KINDS,
        code_version="1",
        partitions_def=partitions,
        # the condition dimension maps onto judge_requests' partitions, the judge dimension onto judges_file's
        # (Dagster infers both mappings); judges_file is an observable source asset, observed and never loaded, so
        # its dependency is declared: there is no table an input could load
        deps=[dg.AssetDep(JUDGES_FILE)],
        # the requests' keys and canonical JSON only: neither judging nor importing reads the code or context again;
        # read on demand (a TableReader), so an imported judge's partition loads the keys and never the JSON
        ins={
            "judge_requests": dg.AssetIn(
                "judge_requests", metadata={"columns": REQUEST_COLUMNS}, dagster_type=TableReader
            )
        },
        metadata={"partition_expr": {"condition": "condition", "judge": "judge"}},
        check_specs=[
            dg.AssetCheckSpec(
                "one_valid_row_per_attempt",
                asset="judge_outputs",
                description="Every request of the partition has exactly one answered row: "
                "valid, or an abstention with its reason.",
            )
        ],
        description="One row per attempt for one judge under one condition: p_accept, s_algo, s_robust, rationale, "
        "raw response, served model, tries, validation failures, latency, tokens, cost, judged_at, provenance "
        "(judged or imported) and the imported source. status is ok, abstained (the judge had nothing to go on: "
        "null p_accept, the reason in rationale), or for an imported judge invalid (its answer is not on its "
        "declared scale). Answers are cached in DuckDB table judge_cache row by row; a re-run sends only what is "
        "missing or failed. An imported judge's partition is read from its source file (judges/imports.py), "
        "never sent.",
    )
    def judge_outputs(
        context: dg.AssetExecutionContext,
        judge_requests: TableReader,
        duckdb: DuckDBResource,
        contest_judge: ContestJudgeResource,
    ):
        # both dimensions are present on these partitions: condition_of / judge_of fail naming the asset otherwise
        condition, judge = condition_of(context), judge_of(context)
        spec = judges.get(judge)
        if spec is None:  # the partitions are made from these judges: a clear error, should they ever disagree
            raise dg.Failure(
                description=f"judge_outputs: partition judge {judge!r} is not among the configured judges "
                f"({', '.join(sorted(judges)) or 'none'}); add it to the judges file or drop the partition"
            )
        if spec.is_imported:  # its answers are attached to the requests' keys: the canonical JSON is never read
            requests = judge_requests.read("attempt_uid", "request_hash")
            table, metadata, passed = import_one_partition(spec, condition, requests, duckdb)
        else:
            requests = judge_requests.read()
            table, metadata, passed = judge_one_partition(context, spec, condition, requests, duckdb, contest_judge)
        yield dg.Output(table, metadata=metadata, data_version=answers_version(table))
        yield dg.AssetCheckResult(
            check_name="one_valid_row_per_attempt",
            passed=passed,
            metadata={
                "requests": len(requests),
                "valid_rows": metadata["valid_rows"],
                "abstained": metadata["abstained"],
            },
        )

    return judge_outputs


def judge_outputs_asset(judges: dict[str, JudgeSpec]) -> dg.AssetsDefinition:
    """``judge_outputs`` partitioned by condition x these judges (the enabled ones of the config, then the
    corpus layout's imported ones), by name."""
    return _build_judge_outputs(judges)


def _source_path(spec: JudgeSpec) -> str:
    return str(spec.imported.path) if spec.imported is not None else "(no source declared)"


def import_one_partition(spec: JudgeSpec, condition: str, requests: pl.DataFrame, duckdb: DuckDBResource):
    """An imported judge's partition: its source's answers under ``condition`` (judges/imports.py). Invalid
    answers are kept as rows (status ``invalid``), unknown or duplicate rows go to table import_rejects; neither
    fails the run, as nothing can be re-asked. A source that cannot be read at all fails it, naming the file."""
    try:
        with judge_store(duckdb) as store:  # the DuckDB file's tables, or the deployed profile's Postgres store
            stats = import_partition(spec, condition, requests, store)
            table = store.partition_rows(requests, spec.name, condition, store.current_epoch(spec.name))
            rejects = store.import_rejects(spec.name, condition)
    except ImportFormatError as exc:
        raise dg.Failure(description=f"imported judge {spec.name}: {exc}") from None
    except OSError as exc:  # the declared file is missing or unreadable
        raise dg.Failure(
            description=f"imported judge {spec.name}: its source {exc.filename or _source_path(spec)} "
            f"cannot be read ({exc.strerror or exc}); fix the path under 'imported:' in the judges "
            "file"
        ) from None
    metadata: dict[str, Any] = {
        "requests": stats.requests,
        "judged_now": 0,
        "cached": 0,
        "imported_now": stats.imported,
        "valid_rows": stats.ok,
        "abstained": 0,
        "invalid": stats.invalid,
        "rejected": stats.rejected,
        "unanswered": stats.unanswered,
        "coverage": round(stats.ok / stats.requests, 4) if stats.requests else None,
        "source": stats.source,
        "sha256": stats.sha256,
        "served_models": dg.MetadataValue.json(sorted(set(table["served_model"].drop_nulls().to_list()) - {""})),
    }
    if len(rejects):
        metadata["rejects"] = dg.MetadataValue.md(markdown_table(rejects.head(50)))
    passed = bool(table["attempt_uid"].n_unique() == len(table))
    return table, metadata, passed


def judge_one_partition(
    context: dg.AssetExecutionContext,
    spec: JudgeSpec,
    condition: str,
    requests: pl.DataFrame,
    duckdb: DuckDBResource,
    contest_judge: ContestJudgeResource,
):
    """Judge ``requests`` with one judge under one condition through the cache; the partition's rows, metadata
    and whether every request has exactly one answered row (valid or abstained). Raises dg.Failure (saved rows
    kept) on failed rows; an abstention is an answer, not a failure.

    Shared by ``judge_outputs`` and ``perturbation_outputs``: one judging path for attempts and mutants.
    """
    if spec.api_key() == "":
        raise dg.Failure(
            description=f"judge {spec.name}: the environment variable {spec.api_key_env} that "
            "holds its API key is not set; export it, or disable the judge in the judges config"
        )
    # under the deployed profile up to the provider's limit of runs judge at once, each with its own rpm limiter
    runs = duckdb.runs_at_once(spec.provider) if hasattr(duckdb, "runs_at_once") else 1
    if runs > 1 and spec.rpm:
        spec = rate_of_one_run(spec, runs)
        context.log.info(f"judge {spec.name}: rpm {spec.rpm} in this run (one of up to {runs} at once)")
    with judge_store(duckdb) as store:
        stats = judge_partition(
            spec,
            condition,
            requests,
            store,
            log=context.log.info,
            contest_judge=contest_judge.judge() if spec.local else None,
            # the run budget is the command's (its runs share the tag), else the budget window's (estimate.py)
            run_key=budget_key(context.run.run_id, context.run.tags.get(RUN_TAG)),
        )
        table = store.partition_rows(requests, spec.name, condition, store.current_epoch(spec.name))
    valid = table.filter(pl.col("status") == "ok")
    abstained = table.filter(pl.col("status") == "abstained")
    answered = table.filter(pl.col("status").is_in(list(ANSWERED_STATUSES)))
    failed = table.filter(~pl.col("status").is_in(list(ANSWERED_STATUSES)))
    missing = len(requests) - len(table)
    metadata: dict[str, Any] = {
        "requests": stats.requests,
        "judged_now": stats.sent,
        "requests_sent": stats.requests_sent,  # what the judge's server received (judges/client.py reached_server)
        "cached": stats.cached,
        "valid_first_receipt": stats.ok_first,
        "repaired": stats.repaired,
        "failed_now": stats.failed,
        "over_input_budget": stats.over_budget,
        "valid_rows": len(valid),
        "abstained": len(abstained),
        "abstained_now": stats.abstained,
        "latency_p50_s": stats.latency_quantile(0.5),
        "latency_p95_s": stats.latency_quantile(0.95),
        "input_tokens": stats.input_tokens,
        "output_tokens": stats.output_tokens,
        "cost_usd": round(stats.cost, 6) if not spec.local else None,
        "served_models": dg.MetadataValue.json(sorted(set(table["served_model"].drop_nulls().to_list()) - {""})),
    }
    metadata |= partition_batch_metadata(stats)
    if len(abstained):
        reasons = (
            abstained.group_by(pl.col("rationale").alias("reason"))
            .len()
            .sort("len", "reason", descending=[True, False])
        )
        metadata["abstain_reasons"] = dg.MetadataValue.md(markdown_table(reasons.head(10)))
    if stats.budget_stop:  # the partition ends resumable: every stored row is whole, the next run continues
        metadata["budget_stop"] = stats.budget_stop  # what the command's driver reads (driver.py _stops)
        raise dg.Failure(description=f"judge {spec.name} under {condition}: {stats.budget_stop}", metadata=metadata)
    if stats.batch is not None and stats.batch.pending:
        raise dg.Failure(
            description=f"judge {spec.name} under {condition}: {len(stats.batch.pending)} batch(es) pending at the "
            f"provider ({metadata['batch_state']}); nothing is lost: materialize the partition again (or let the "
            "batch sensor do it) to collect them",
            metadata=metadata,
        )
    if len(failed) or missing or stats.fatal_error:
        errors = failed.group_by("error").len().sort("len", descending=True).head(5)
        raise dg.Failure(
            description=f"judge {spec.name} under {condition}: {len(failed)} of {len(requests)} rows failed "
            f"after their tries and {missing} have no row"
            f"{'; stopped: ' + stats.fatal_error if stats.fatal_error else ''}. "
            "Saved rows are kept; materialize the partition again to re-send only the failed and missing ones.",
            metadata={**metadata, "errors": dg.MetadataValue.md(markdown_table(errors))},
        )
    passed = bool(len(answered) == len(requests) == answered["attempt_uid"].n_unique())
    return table, metadata, passed


def partition_batch_metadata(stats) -> dict[str, Any]:
    """The estimate made before sending, and for a judge in batch mode the state of its batches: ``submitted`` (sent,
    not seen running), ``in_progress`` with the provider's counts, or ``completed`` (every batch collected)."""
    metadata: dict[str, Any] = {}
    if stats.estimate is not None:
        metadata |= stats.estimate.metadata()
    elif stats.estimate_note:
        metadata["estimate"] = stats.estimate_note
    outcome = stats.batch
    if outcome is None:
        return metadata
    if outcome.pending:
        states = sorted({b["status"] for b in outcome.pending})
        counts = ", ".join(
            f"{b['batch_id']}: {b['status']} {b['completed'] or 0}/{b['requests']} done, {b['failed'] or 0} failed"
            for b in outcome.pending
        )
        state = ("in_progress" if set(states) - {"submitted", "validating"} else "submitted") + f" ({counts})"
    else:
        state = "completed"
    metadata |= {
        "batch_state": state,
        "batches_submitted": outcome.submitted,
        "batches_collected": outcome.collected,
        "batches_pending": len(outcome.pending),
        "batch_resubmitted": outcome.resubmitted,
        "batch_retried_sync": outcome.retried_sync,
        "batch_malformed_lines": outcome.malformed_lines,
        "batch_estimate_usd": round(outcome.estimate_usd, 6),
        "batch_cost_usd": round(outcome.cost_usd, 6),
    }
    return metadata
