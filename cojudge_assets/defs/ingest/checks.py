"""Data-verification checks of the ingest group (seed study IV-D: V1, V3, V4)."""

import dagster as dg
import polars as pl

from cojudge_assets.core.ingest.attempts import order_disagreements, outside_window, reconcile
from cojudge_assets.core.ingest.corpus import NOT_RAW_STAGES, contest_settings, raw_input_count
from cojudge_assets.core.ingest.scrub import scrub_secrets
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.resources import CorpusResource

# the five contest verdicts, and REJ: rejected with the exact verdict unknown (ProgSnap2 Correct=false)
VERDICTS = {"AC", "WA", "TLE", "RE", "CE", "REJ"}


@dg.asset_check(
    asset="attempts",
    blocking=True,
    description="Every verdict was read from a Result string of the known vocabulary (V3).",
)
def result_strings_known(attempts: pl.DataFrame) -> dg.AssetCheckResult:
    bad = attempts.filter(~pl.col("verdict").is_in(list(VERDICTS)))
    strings = dict(attempts.group_by("result").len().sort("result").iter_rows())
    return dg.AssetCheckResult(
        passed=len(bad) == 0, metadata={"distinct_result_strings": dg.MetadataValue.json(strings), "unmapped": len(bad)}
    )


@dg.asset_check(asset="attempts", description="Submit clocks lie inside the contest window (V1).")
def submit_inside_window(attempts: pl.DataFrame, corpus: CorpusResource) -> dg.AssetCheckResult:
    s = contest_settings(corpus.root(), window_start=corpus.window_start, window_end=corpus.window_end)
    if s.window_start is None or s.window_end is None or attempts["submitted_at"].null_count() == len(attempts):
        return dg.AssetCheckResult(passed=True, metadata={"window": "not configured"})
    outside = outside_window(attempts, s.window_start, s.window_end)
    return dg.AssetCheckResult(
        passed=len(outside) == 0,
        metadata={
            "window": f"{s.window_start} .. {s.window_end}",
            "earliest_submit": str(attempts["submitted_at"].min()),
            "latest_submit": str(attempts["submitted_at"].max()),
            "outside": dg.MetadataValue.md(markdown_table(outside)) if len(outside) else "none",
        },
    )


@dg.asset_check(
    asset="attempts",
    description="Submit order agrees with file-name order where both exist; disagreements listed (V1/V2).",
)
def submit_order_matches_filenames(attempts: pl.DataFrame) -> dg.AssetCheckResult:
    disagree = order_disagreements(attempts)
    multi = attempts.group_by("participant", "problem_id").len().filter(pl.col("len") > 1)
    bad_trajectories = disagree.select("participant", "problem_id").n_unique()
    return dg.AssetCheckResult(
        passed=len(disagree) == 0,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "multi_attempt_trajectories": len(multi),
            "agreeing_trajectories": len(multi) - bad_trajectories,
            "disagreements": dg.MetadataValue.md(markdown_table(disagree)) if len(disagree) else "none",
        },
    )


@dg.asset_check(asset="attempts", blocking=True, description="attempt_uid is unique (V4).")
def attempt_uid_unique(attempts: pl.DataFrame) -> dg.AssetCheckResult:
    dupes = attempts.group_by("attempt_uid").len().filter(pl.col("len") > 1)
    return dg.AssetCheckResult(passed=len(dupes) == 0, metadata={"duplicated_uids": len(dupes)})


@dg.asset_check(
    asset="quarantine",
    blocking=True,
    additional_ins={"attempts": dg.AssetIn("attempts"), "submission_pages": dg.AssetIn("submission_pages")},
    description="Reconciliation: raw inputs = attempts + quarantine. Pages layout: every path under "
    "pages/ is in exactly one of attempts and quarantine, and nothing else is; other layouts: the raw "
    "rows counted from the corpus equal attempts plus their quarantine rows.",
)
def every_file_accounted_for(
    quarantine: pl.DataFrame, attempts: pl.DataFrame, submission_pages: pl.DataFrame, corpus: CorpusResource
) -> dg.AssetCheckResult:
    raw_rows = quarantine.filter(~pl.col("stage").is_in(list(NOT_RAW_STAGES)))
    if corpus.layout == "pages":
        issues = reconcile(submission_pages, attempts, quarantine)
        raw = len(submission_pages)
        on_disk = raw_input_count(corpus.root(), "pages")  # the table against the corpus as it is now
        passed = issues.is_empty() and raw == len(attempts) + len(raw_rows) and on_disk == raw
        detail = {
            "unaccounted": dg.MetadataValue.md(markdown_table(issues.head(50))) if len(issues) else "none",
            "paths_on_disk": on_disk,
        }
    else:
        raw = raw_input_count(corpus.root(), corpus.layout)
        twice = pl.concat([attempts.select("source_path"), raw_rows.select("source_path")]).is_duplicated().sum()
        passed = raw == len(attempts) + len(raw_rows) and twice == 0
        detail = {"rows_counted_twice": int(twice)}
    return dg.AssetCheckResult(
        passed=passed,
        metadata={
            "raw_inputs": raw,
            "attempts": len(attempts),
            "quarantined_inputs": len(raw_rows),
            "quarantined_other": len(quarantine) - len(raw_rows),
            "by_stage": dg.MetadataValue.json(dict(quarantine["stage"].value_counts().sort("stage").iter_rows())),
            **detail,
        },
    )


@dg.asset_check(
    asset="prompt_logs",
    blocking=True,
    description="Nothing unscrubbed at rest: scrubbing the stored chat-log text again finds no secret and "
    "no e-mail address (core/ingest/scrub.py).",
)
def prompt_logs_scrubbed(prompt_logs: pl.DataFrame) -> dg.AssetCheckResult:
    texts = prompt_logs["text"].fill_null("").to_list()
    unscrubbed = sum(scrub_secrets(t) != t for t in texts)
    return dg.AssetCheckResult(passed=unscrubbed == 0, metadata={"records": len(texts), "unscrubbed": unscrubbed})
