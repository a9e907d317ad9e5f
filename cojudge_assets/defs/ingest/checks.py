"""Data-verification checks of the ingest group (seed study IV-D: V1, V3, V4)."""

import dagster as dg
import polars as pl

from cojudge_assets.core.attempts import order_disagreements, outside_window
from cojudge_assets.core.corpus import contest_settings
from cojudge_assets.core.scrub import scrub_secrets
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.resources import CorpusResource

# the five contest verdicts, and REJ: rejected with the exact verdict unknown (ProgSnap2 Correct=false)
VERDICTS = {"AC", "WA", "TLE", "RE", "CE", "REJ"}


@dg.asset_check(asset="attempts", blocking=True,
                description="Every verdict was read from a Result string of the known vocabulary (V3).")
def result_strings_known(attempts: pl.DataFrame) -> dg.AssetCheckResult:
    bad = attempts.filter(~pl.col("verdict").is_in(list(VERDICTS)))
    strings = dict(attempts.group_by("result").len().sort("result").iter_rows())
    return dg.AssetCheckResult(passed=len(bad) == 0, metadata={
        "distinct_result_strings": dg.MetadataValue.json(strings), "unmapped": len(bad)})


@dg.asset_check(asset="attempts", description="Submit clocks lie inside the contest window (V1).")
def submit_inside_window(attempts: pl.DataFrame, corpus: CorpusResource) -> dg.AssetCheckResult:
    s = contest_settings(corpus.root(), window_start=corpus.window_start, window_end=corpus.window_end)
    if s.window_start is None or s.window_end is None or attempts["submitted_at"].null_count() == len(attempts):
        return dg.AssetCheckResult(passed=True, metadata={"window": "not configured"})
    outside = outside_window(attempts, s.window_start, s.window_end)
    return dg.AssetCheckResult(passed=len(outside) == 0, metadata={
        "window": f"{s.window_start} .. {s.window_end}",
        "earliest_submit": str(attempts["submitted_at"].min()), "latest_submit": str(attempts["submitted_at"].max()),
        "outside": dg.MetadataValue.md(markdown_table(outside)) if len(outside) else "none",
    })


@dg.asset_check(asset="attempts", description="Submit order agrees with file-name order where both exist; "
                                               "disagreements listed (V1/V2).")
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
        })


@dg.asset_check(asset="attempts", blocking=True, description="attempt_uid is unique (V4).")
def attempt_uid_unique(attempts: pl.DataFrame) -> dg.AssetCheckResult:
    dupes = attempts.group_by("attempt_uid").len().filter(pl.col("len") > 1)
    return dg.AssetCheckResult(passed=len(dupes) == 0, metadata={"duplicated_uids": len(dupes)})


@dg.asset_check(asset="quarantine", blocking=True,
                additional_ins={"attempts": dg.AssetIn("attempts"), "submission_pages": dg.AssetIn("submission_pages")},
                description="Every raw submission file ends in attempts or in quarantine, never neither.")
def every_file_accounted_for(quarantine: pl.DataFrame, attempts: pl.DataFrame,
                             submission_pages: pl.DataFrame) -> dg.AssetCheckResult:
    if len(submission_pages) == 0:
        return dg.AssetCheckResult(passed=True, metadata={"raw_files": 0, "note": "layout has no page files"})
    seen = set(attempts["source_path"].to_list()) | set(quarantine["source_path"].to_list())
    missing = [p for p in submission_pages["source_path"].to_list() if p not in seen]
    return dg.AssetCheckResult(passed=not missing, metadata={
        "raw_files": len(submission_pages), "attempts": len(attempts),
        "quarantined_pages": quarantine.filter(pl.col("source_path").str.starts_with("pages/")).height,
        "unaccounted": dg.MetadataValue.json(missing[:50])})



@dg.asset_check(asset="prompt_logs", blocking=True,
                description="Nothing unscrubbed at rest: scrubbing the stored chat-log text again finds no secret and "
                "no e-mail address (core/scrub.py).")
def prompt_logs_scrubbed(prompt_logs: pl.DataFrame) -> dg.AssetCheckResult:
    texts = prompt_logs["text"].fill_null("").to_list()
    unscrubbed = sum(scrub_secrets(t) != t for t in texts)
    return dg.AssetCheckResult(passed=unscrubbed == 0, metadata={"records": len(texts), "unscrubbed": unscrubbed})
