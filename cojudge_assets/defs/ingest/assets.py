"""Group ``ingest``: contest data read into tables (see core/ingest/attempts.py, core/ingest/context.py)."""

from typing import cast

import dagster as dg
import polars as pl

from cojudge_assets.core.ingest.attempts import PAGE_SCHEMA, list_pages
from cojudge_assets.core.ingest.context import CONTEXT_ATTEMPT_COLUMNS, build_contexts
from cojudge_assets.core.ingest.corpus import (
    contest_settings,
    fingerprint,
    problem_quarantine,
    read_corpus,
    read_problem_table,
)
from cojudge_assets.core.ingest.label_audit import audit_labels, audit_summary
from cojudge_assets.core.ingest.progsnap2 import ProgSnap2Error
from cojudge_assets.core.shards import BUCKET_COLUMN, in_bucket, with_bucket
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.io import KINDS, read_only
from cojudge_assets.defs.partitions import bucket_of
from cojudge_assets.defs.resources import REFUSED, ContestJudgeResource, CorpusResource

CONTEST_CORPUS = "contest_corpus"


def contest_corpus_asset(observe: dg.AutomationCondition | None = None) -> dg.SourceAsset:
    """The observable source ``contest_corpus``, observed when ``observe`` says (defs/automation.py; the cron is a
    setting, so the source is made when the Definitions are built)."""

    @dg.observable_source_asset(
        name=CONTEST_CORPUS,
        group_name="ingest",
        automation_condition=observe,
        description="The contest corpus on disk (pages, chat logs, problem packages, contest.yaml). Its data version "
        "is a sha256 over every file and the corpus settings: while it is unchanged, nothing read from it is stale.",
    )
    def contest_corpus(corpus: CorpusResource) -> dg.DataVersion:
        return dg.DataVersion(fingerprint(corpus.root(), corpus.layout, corpus.window_start, corpus.window_end))

    return contest_corpus


# The assets below read the corpus through the ``corpus`` resource. An observable source asset is observed, never
# loaded (it has no table an input could be), so their dependency on it is the one kind declared with ``deps=``:
# it is what carries the corpus's data version into their stale status (an ``AssetIn`` of type Nothing would say
# the same thing in more words).


@dg.asset(
    group_name="ingest",
    kinds=KINDS,
    code_version="2",
    deps=[CONTEST_CORPUS],
    description="One row per problem: full statement (constraints, format, examples), sample I/O, limits, "
    "where the hidden tests are. A package that cannot be read is left out and quarantined (see quarantine).",
)
def problems(context: dg.AssetExecutionContext, corpus: CorpusResource) -> pl.DataFrame:
    corpus.require_input()
    table = read_problem_table(corpus.root(), corpus.layout)
    context.add_output_metadata(
        {
            "problems": len(table),
            "secret_tests": int(table["n_secret_tests"].sum()) if len(table) else 0,
            "without_stated_limits": int((~table["limits_stated"]).sum()) if len(table) else 0,
            "quarantined_packages": len(problem_quarantine(corpus.root(), corpus.layout)),
        }
    )
    return table


@dg.asset(
    group_name="ingest",
    kinds=KINDS,
    code_version="2",
    deps=[CONTEST_CORPUS],
    description="One row per raw path under pages/ (regular files, symlinks, special files, directories named "
    "like a page): path, format (html/md/txt, empty if none), bytes, sha256, kind, and the problem that already "
    "rejects it (a symlink out of the corpus, a fifo, over the size limit) or null.",
)
def submission_pages(context: dg.AssetExecutionContext, corpus: CorpusResource) -> pl.DataFrame:
    corpus.require_input()
    table = list_pages(corpus.root()) if corpus.layout == "pages" else pl.DataFrame(schema=PAGE_SCHEMA)
    context.add_output_metadata(
        {
            "files": len(table),
            "by_format": dg.MetadataValue.json(dict(table["format"].value_counts().iter_rows())),
            "by_kind": dg.MetadataValue.json(dict(table["kind"].value_counts().iter_rows())),
            "rejected_on_discovery": int(table["problem"].is_not_null().sum()),
        }
    )
    return table


@dg.multi_asset(
    group_name="ingest",
    outs={
        "attempts": dg.AssetOut(
            kinds=KINDS,
            code_version="2",
            description="One row per attempt: attempt_uid (path key), participant, problem_id, turn k (Submit "
            "clock), submitted_at (Submit field), page_saved_at (header clock), language, code, verdict (Result "
            "field), accepted.",
        ),
        "prompt_logs": dg.AssetOut(
            kinds=KINDS,
            code_version="3",  # 3: tagged with the problem a record names most strongly (context.mentioned_problem)
            description="One row per chat-log record: participant, file, deterministic order, role, the text "
            "scrubbed of secrets, e-mails, names and ids (nothing raw is stored), the problem it concerns (if "
            "known), the sha256 of the raw log file.",
        ),
        "quarantine": dg.AssetOut(
            kinds=KINDS, code_version="2", description="One row per rejected input: source path, stage, field, reason."
        ),
    },
    deps=[CONTEST_CORPUS],
    internal_asset_deps={
        "attempts": {dg.AssetKey("problems"), dg.AssetKey("submission_pages"), dg.AssetKey("contest_corpus")},
        "prompt_logs": {dg.AssetKey("problems"), dg.AssetKey("contest_corpus")},
        "quarantine": {dg.AssetKey("problems"), dg.AssetKey("submission_pages"), dg.AssetKey("contest_corpus")},
    },
)
def read_contest(corpus: CorpusResource, problems: pl.DataFrame, submission_pages: pl.DataFrame):
    root = corpus.root()
    settings = contest_settings(root, window_start=corpus.window_start, window_end=corpus.window_end)
    names = dict(zip(problems["problem_id"].to_list(), problems["name"].to_list()))
    try:
        tables = read_corpus(root, corpus.layout, names, settings, pages=submission_pages)
    except ProgSnap2Error as exc:  # a table without a required column: refused (exit 2), nothing replaced
        raise dg.Failure(
            description=f"{exc}; attempts, prompt_logs and quarantine left as they were",
            metadata={REFUSED: True, "corpus": str(root), "layout": corpus.layout},
        ) from None
    a = tables.attempts
    if a.is_empty() and not corpus.allow_empty:  # refused before any of the three outputs is stored
        reasons = tables.quarantine["reason"].head(3).to_list()
        raise corpus.refuse(
            f"corpus {root} yielded 0 attempts from {tables.raw_files} raw file(s), "
            f"{len(tables.quarantine)} quarantined{': ' + ' | '.join(reasons) if reasons else ''}",
            kept="attempts, prompt_logs and quarantine",
        )
    yield dg.Output(
        a,
        output_name="attempts",
        metadata={
            "attempts": len(a),
            "participants": a["participant"].n_unique(),
            "trajectories": a.select("participant", "problem_id").n_unique(),
            "verdicts": dg.MetadataValue.json(dict(a["verdict"].value_counts().sort("verdict").iter_rows())),
            "raw_files": tables.raw_files,
        },
    )
    yield dg.Output(
        tables.prompt_logs,
        output_name="prompt_logs",
        metadata={
            "records": len(tables.prompt_logs),
            "participants_with_logs": tables.prompt_logs["participant"].n_unique(),
        },
    )
    yield dg.Output(
        tables.quarantine,
        output_name="quarantine",
        metadata={
            "rejected": len(tables.quarantine),
            "by_stage": dg.MetadataValue.json(dict(tables.quarantine["stage"].value_counts().iter_rows())),
        },
    )


@dg.asset(
    group_name="ingest",
    kinds=KINDS,
    code_version="2",
    ins={"attempts": dg.AssetIn("attempts", metadata=read_only(columns=CONTEXT_ATTEMPT_COLUMNS))},
    description="One row per (attempt, condition): condition in blind/prefix12k/nonblind, the PII-scrubbed "
    "context text, provenance (anchored/segmented/none; prefix for prefix12k), chars.",
)
def participant_context(
    context: dg.AssetExecutionContext, attempts: pl.DataFrame, prompt_logs: pl.DataFrame
) -> pl.DataFrame:
    table = build_contexts(attempts, prompt_logs)
    nonblind = table.filter(pl.col("condition") == "nonblind")
    context.add_output_metadata(
        {
            "rows": len(table),
            "nonblind_provenance": dg.MetadataValue.json(dict(nonblind["provenance"].value_counts().iter_rows())),
            "max_chars": int(cast(int, table["chars"].max()) or 0),
        }
    )
    return table


def label_audit_asset(buckets: dg.StaticPartitionsDefinition) -> dg.AssetsDefinition:
    """``label_audit`` split into these attempt-hash buckets (defs/partitions.py ``bucket_partitions``): each
    partition re-executes the auditable attempts of its bucket, so the shards spread over runs and machines; a
    reader gets every bucket's rows in one frame (the same rows as one unsharded audit, plus the ``bucket``
    column). A bucket no attempt falls in is a valid, empty partition."""

    @dg.asset(
        name="label_audit",
        group_name="ingest",
        kinds=KINDS,
        code_version="2",
        partitions_def=buckets,
        metadata={"partition_expr": BUCKET_COLUMN},
        description="One row per re-executed attempt: recorded verdict vs the sandboxed contest judge's "
        "re-execution (only problems with tests). Recorded verdicts stay the labels; this makes their noise visible. "
        "Split into attempt-hash buckets (column bucket), one partition each.",
    )
    def label_audit(
        context: dg.AssetExecutionContext,
        attempts: pl.DataFrame,
        corpus: CorpusResource,
        contest_judge: ContestJudgeResource,
    ) -> pl.DataFrame:
        bucket = bucket_of(context)
        audit = with_bucket(
            audit_labels(
                in_bucket(attempts, "attempt_uid", bucket),
                corpus.packages(),
                contest_judge.judge(),
                progress=context.log.info,
            ),
            bucket,
        )
        summary = audit_summary(audit)
        disagreements = audit.filter(~pl.col("verdict_agrees"))
        context.add_output_metadata(
            {
                "audited": len(audit),
                "verdict_agreement": round(float(cast(float, audit["verdict_agrees"].mean())), 4)
                if len(audit)
                else None,
                "label_agreement": round(float(cast(float, audit["label_agrees"].mean())), 4) if len(audit) else None,
                "by_problem_and_verdict": dg.MetadataValue.md(markdown_table(summary)),
                "disagreements": dg.MetadataValue.md(
                    markdown_table(
                        disagreements.select("attempt_uid", "recorded_verdict", "reexec_verdict", "first_failure")
                    )
                )
                if len(disagreements)
                else "none",
            }
        )
        return audit

    return label_audit
