"""What the study report says: sections built from the DuckDB tables and the figures beside them.

Read by the ``report`` asset and rendered by core/report.py. Every section
reads the long tables as they are; a group that was not materialized (no table)
is left out of the report with a line saying so, never shown empty.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

from cojudge_assets.core.predictions import has_table
from cojudge_assets.core.report import Figure, Section, Table

# one-line reading guides, by figure file name (a {condition} suffix is matched by prefix)
READING_GUIDES = {
    "roc": "Each curve is a judge; the further above the diagonal, the better it ranks accepted attempts above the rest "
           "(ROC-AUC in the legend).",
    "reliability": "Points on the diagonal are calibrated; below it the judge is over-confident, above it "
                   "under-confident; bin size shows where its answers fall.",
    "kappa": "Cohen's kappa between judges on median-cut decisions; 0 is chance agreement, 1 identical decisions.",
    "shift_by_operator": "Below zero the judge lowered its score for the mutant; semantic operators should fall below "
                         "the grey control band, more so at higher severity.",
    "accuracy_vs_discrimination": "Right is better at ranking real attempts, up is better at noticing injected "
                                  "defects; a judge can be accurate yet blind to defects.",
    "success_at_turn": "Share of trajectories accepted by turn k, with its trajectory-bootstrap band.",
    "survival": "Kaplan-Meier estimate of still being unsolved after t turns; a steep early fall means most solve "
                "quickly.",
    "codebleu_histogram": "How similar consecutive attempts are (CodeBLEU); mass near 1 means small revisions.",
    "struggle": "The panel's score q along the longest trajectories; a star marks the accepted attempt.",
    "q_by_verdict": "The panel's score q by recorded verdict; AC should sit highest.",
}


def reading_guide(path: Path) -> str:
    stem = path.stem
    for prefix in sorted(READING_GUIDES, key=len, reverse=True):
        if stem == prefix or stem.startswith(prefix + "_"):
            return READING_GUIDES[prefix]
    return "See the caption."


def _figures(folder: Path, names: list[str]) -> tuple[Figure, ...]:
    out = []
    for name in names:
        for path in sorted(folder.glob(f"{name}*.png")):
            out.append(Figure(path, path.stem.replace("_", " "), reading_guide(path)))
    return tuple(out)


def _query(conn: duckdb.DuckDBPyConnection, table: str, sql: str) -> pl.DataFrame | None:
    return conn.execute(sql).pl() if has_table(conn, table) else None


def _tables_if_any(conn: duckdb.DuckDBPyConnection, wanted: list[tuple[str, str, str]]) -> list[Table]:
    """A Table for each (table, SQL, caption) whose table exists and whose query returns rows."""
    found = [(caption, _query(conn, table, sql)) for table, sql, caption in wanted]
    return [Table(caption, frame) for caption, frame in found if frame is not None and len(frame)]


def _metric_table(frame: pl.DataFrame, metrics: list[str], index: list[str]) -> pl.DataFrame:
    """value [lo, hi] per metric as columns, one row per index."""
    rows = frame.filter(pl.col("metric").is_in(metrics))
    shown = rows.with_columns(pl.format("{} [{}, {}]", *(pl.col(c).round(3) for c in ("value", "lo", "hi")))
                              .alias("cell"))
    return shown.pivot(on="metric", index=index, values="cell").sort(index)


def left_out_table(conn: duckdb.DuckDBPyConnection, table: str, column: str) -> Table | None:
    """The judges a pooled table left out (core/pooling.py) and why: its rows' distinct non-null ``column``
    (the measurement tables' ``note``, the rank consensus's ``left_out``); None when it left no one out."""
    frame = _query(conn, table, f"select * from main.{table}")
    if frame is None or column not in frame.columns:
        return None
    keep = [c for c in ("condition",) if c in frame.columns]
    notes = frame.filter(pl.col(column).is_not_null()).select(*keep, pl.col(column).alias("left out, and why")).unique()
    if notes.is_empty():
        return None
    return Table(f"Judges left out of the {table.replace('_', ' ')} figures: answers all one value (or none) on the "
                 "attempts a figure pools; such a judge cannot order or split them", notes.sort(pl.all()))


def coverage_section(conn: duckdb.DuckDBPyConnection) -> Section | None:
    requests = _query(conn, "judge_requests", """
        select condition, count(*) as requests, count(*) filter (where context_chars > 0) as with_context,
               round(avg(context_chars), 1) as mean_context_chars, max(context_chars) as max_context_chars
        from main.judge_requests group by 1 order by 1""")
    attempts = _query(conn, "attempts", """
        select count(*) as attempts, count(distinct participant) as participants, count(distinct problem_id)
               as problems, count(distinct (participant, problem_id)) as trajectories,
               avg(accepted::int) as accepted_share from main.attempts""")
    if requests is None or attempts is None:
        return None
    tables = [Table("The contest's attempts", attempts), Table("Requests per input condition", requests)]
    provenance = _query(conn, "participant_context", """
        select provenance, count(*) as attempts from main.participant_context where condition = 'nonblind'
        group by 1 order by 2 desc""")
    if provenance is not None:
        tables.append(Table("How the nonblind context was anchored", provenance))
    quarantine = _query(conn, "quarantine", "select stage, reason, count(*) as files from main.quarantine "
                                            "group by 1, 2 order by 3 desc")
    if quarantine is not None and len(quarantine):
        tables.append(Table("Quarantined inputs", quarantine, max_rows=20))
    return Section("Inputs and conditions",
                   "blind: no participant context; prefix12k: the first 12,000 characters of the participant's "
                   "logs; nonblind: the context anchored just before the code first appears.", tuple(tables))


def judges_section(conn: duckdb.DuckDBPyConnection) -> Section | None:
    validity = _query(conn, "judge_cache", """
        select c.judge, c.condition, c.epoch, string_agg(distinct c.served_model, ', ') as served_models,
               count(*) as rows,
               count(*) filter (where c.status = 'ok' and c.validation_failures = 0) as valid_first_receipt,
               count(*) filter (where c.status = 'ok' and c.validation_failures > 0) as repaired_by_reasking,
               count(*) filter (where c.status = 'abstained') as abstained,
               count(*) filter (where c.status not in ('ok', 'abstained')) as failed,
               round(sum(c.cost), 4) as cost_usd
        from main.judge_cache c
        where c.attempt_uid in (select attempt_uid from main.attempts)
        group by 1, 2, 3 order by 1, 2, 3""")
    if validity is None:
        return None
    tables = [Table("Served models and validity accounting (contest attempts)", validity), *_tables_if_any(conn, [
        ("judge_epochs", "select * from main.judge_epochs order by judge, epoch", "Judge epochs (re-judgings)"),
        ("drift_events", "select * from main.drift_events order by seen_at", "Provider drift events"),
        ("drift_report", "select * exclude (old_identity, new_identity) from main.drift_report",
         "Before and after each drift")])]
    return Section("Judges: served models, validity, drift",
                   "Each judge's answers as stored: which model the provider reported serving, how many answers "
                   "were valid on first receipt, how many were repaired by re-asking, how many the judge abstained on "
                   "(nothing to go on: no answer, not scored), how many failed.",
                   tuple(tables))


def imported_section(conn: duckdb.DuckDBPyConnection, published: pl.DataFrame | None = None) -> Section | None:
    """Imported judges: where their answers came from, how many were usable, every metric, and (for a corpus
    whose publishing study reported values) cojudge's correlations beside the published ones."""
    provenance = _query(conn, "judge_imports", """
        select judge, condition, source, left(sha256, 16) as sha256, requests, ok, invalid, rejected, unanswered,
               round(ok / nullif(requests, 0), 4) as coverage
        from main.judge_imports where requests > 0 and ok + invalid > 0 order by judge, condition""")
    if provenance is None or provenance.is_empty():
        return None
    judges = provenance["judge"].unique().to_list()
    tables = [Table("Imported judges: source, sha256 and coverage (ok answers / requests)", provenance)]
    rejects = _query(conn, "import_rejects", "select judge, condition, source_file, source_line, field, reason "
                                             "from main.import_rejects order by judge, source_line")
    if rejects is not None and len(rejects):
        tables.append(Table("Imported rows that could not enter (file, line, field)", rejects, max_rows=30))
    metrics = _query(conn, "judge_metrics", "select * from main.judge_metrics")
    if metrics is not None and len(metrics):
        mine = metrics.filter(pl.col("judge").is_in(judges))
        if len(mine):
            tables.append(Table("Imported judges as instruments (trajectory-bootstrap 95% intervals)", _metric_table(
                mine, ["roc_auc", "pr_auc", "log_loss", "brier", "ece15", "mcc_oof"], ["judge", "condition"])))
    correlation = _query(conn, "correlation", "select * from main.correlation")
    if correlation is not None and len(correlation):
        mine = correlation.filter(pl.col("judge").is_in(judges))
        if len(mine):
            tables.append(Table("Rank correlation with the label, corpus and example level", _metric_table(
                mine, sorted(mine["metric"].unique().to_list()), ["judge", "condition", "subset"])))
        if published is not None:
            tables.append(Table("Reproduced beside the published values (example level)",
                                reproduction(correlation, published)))
    return Section("Imported judges",
                   "Judgments made elsewhere and imported (never sent to a provider), scored by the same "
                   "measurement as every judge; p_accept is the declared scale mapped to [0, 1].", tuple(tables))


def reproduction(correlation: pl.DataFrame, published: pl.DataFrame) -> pl.DataFrame:
    """Published example-level Kendall tau and Spearman rho (columns judge, subset, tau, rho) beside cojudge's,
    with the differences."""
    wide = (correlation.filter(pl.col("metric").is_in(["kendall_tau_b_example", "spearman_example",
                                                       "kendall_tau_b_corpus", "spearman_corpus"]))
            .pivot(on="metric", index=["judge", "condition", "subset"], values="value"))
    joined = published.join(wide, on=["judge", "subset"], how="left")
    return joined.select(
        "judge", "subset", pl.col("tau").alias("published_tau"),
        pl.col("kendall_tau_b_example").round(3).alias("tau"),
        (pl.col("kendall_tau_b_example") - pl.col("tau")).round(4).alias("tau_diff"),
        pl.col("rho").alias("published_rho"), pl.col("spearman_example").round(3).alias("rho"),
        (pl.col("spearman_example") - pl.col("rho")).round(4).alias("rho_diff"),
        pl.col("kendall_tau_b_corpus").round(3).alias("tau_corpus"),
        pl.col("spearman_corpus").round(3).alias("rho_corpus")).sort("subset", "judge")


def measurement_section(conn: duckdb.DuckDBPyConnection, folder: Path) -> Section | None:
    metrics = _query(conn, "judge_metrics", "select * from main.judge_metrics")
    if metrics is None:
        return None
    tables = [Table("Judge metrics with trajectory-bootstrap 95% intervals",
                    _metric_table(metrics, ["roc_auc", "pr_auc", "log_loss", "brier", "ece15", "mcc_oof"],
                                  ["judge", "condition"]))]
    coverage = metrics.filter(pl.col("metric").is_in(["coverage", "answered", "abstained"]))
    if len(coverage):
        tables.append(Table("Coverage: the share of the attempts asked about that each judge answered (the metrics "
                            "are computed on those; abstentions are not scored)", coverage.pivot(
                                on="metric", index=["judge", "condition", "n"], values="value").select(
                                "judge", "condition", pl.col("n").alias("asked"), pl.col("answered").cast(pl.Int64),
                                pl.col("abstained").cast(pl.Int64), pl.col("coverage").round(3)).sort(
                                "judge", "condition")))
    validity = _query(conn, "scale_validity", "select * from main.scale_validity")
    if validity is not None:
        tables.append(Table("Scale validity", validity.pivot(on="metric", index=["judge", "condition"],
                                                             values="value").sort("judge", "condition")))
    tables += _tables_if_any(conn, [
        ("panel", "select * from main.panel", "The panel (percentile-rank average of the judges)"),
        ("condition_effects", "select * from main.condition_effects", "Condition effects (paired)")])
    left_out = left_out_table(conn, "agreement", "note")  # the panel's notes are among the agreement's
    if left_out is not None:
        tables.append(left_out)
    return Section("The judges as instruments",
                   "Ranking (ROC-AUC, PR-AUC), calibration (LogLoss, Brier, ECE), out-of-fold decisions (MCC), "
                   "scale validity and agreement, scored against the contest's verdicts.",
                   tuple(tables), _figures(folder, ["roc", "reliability", "kappa"]))


def perturbation_section(conn: duckdb.DuckDBPyConnection, folder: Path) -> Section | None:
    metrics = _query(conn, "perturbation_metrics", "select * from main.perturbation_metrics")
    yields = _query(conn, "perturbation_yield", "select * from main.perturbation_yield")
    if metrics is None or yields is None:
        return None
    headline = metrics.filter(pl.col("metric") != "mean_shift")
    tables = (Table("Mutants per operator and their verification", yields),
              Table("Perturbation metrics (primary subset: seed scored >= 0.5), seed-bootstrap 95% intervals",
                    headline.with_columns(pl.col("value", "lo", "hi").round(3))),
              Table("Mean shift per operator", metrics.filter(pl.col("metric") == "mean_shift")))
    return Section("Perturbation: does a judge notice a broken program?",
                   "Single defects injected into accepted programs (semantic arm, severity 1-4) against "
                   "behaviour-preserving edits (control arm) and a comment addressed to the grader (adversarial "
                   "arm), every mutant verified by execution.", tables,
                   _figures(folder, ["shift_by_operator", "accuracy_vs_discrimination"]))


def dynamics_section(conn: duckdb.DuckDBPyConnection, folder: Path) -> Section | None:
    success = _query(conn, "success_at_turn", "select * from main.success_at_turn order by subset, k")
    if success is None:
        return None
    tables = [Table("Success@Turn", success, max_rows=30)]
    tables += _tables_if_any(conn, [("churn_vs_improvement", "select * from main.churn_vs_improvement",
                                     "Revision churn against the panel's improvement")])
    convergence = _query(conn, "convergence", """
        select count(*) as attempts, round(median(similarity), 3) as median_similarity_to_final
        from main.convergence""")
    if convergence is not None:
        tables.append(Table("Convergence towards the final attempt", convergence))
    left_out = left_out_table(conn, "rank_consensus", "left_out")
    if left_out is not None:
        tables.append(left_out)
    return Section("Co-creation dynamics",
                   "How trajectories of attempts unfold: when they succeed, how much code changes between "
                   "attempts, and whether the judges' consensus tracks real improvement.", tuple(tables),
                   _figures(folder, ["success_at_turn", "survival", "codebleu_histogram", "struggle",
                                     "q_by_verdict"]))


def report_sections(conn: duckdb.DuckDBPyConnection, output_dir: Path,
                    published: pl.DataFrame | None = None) -> tuple[list[Section], list[str]]:
    """The report's sections, and the groups left out because their tables are not there. ``published``:
    the values a publishing study reported for the imported judges (judge, subset, tau, rho), if any."""
    built = {
        "inputs": coverage_section(conn),
        "judges": judges_section(conn),
        "measurement": measurement_section(conn, output_dir / "measurement"),
        "perturbation": perturbation_section(conn, output_dir / "perturbation"),
        "dynamics": dynamics_section(conn, output_dir / "dynamics"),
    }
    sections = [s for s in built.values() if s is not None]
    imported = imported_section(conn, published)  # only runs with imported judges have this section
    if imported is not None:
        sections.insert(min(2, len(sections)), imported)
    return sections, [name for name, s in built.items() if s is None]
