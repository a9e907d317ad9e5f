"""What the study report says: sections built from the DuckDB tables and the figures beside them.

Read by the ``report`` asset and rendered by core/report/document.py. Every section
reads the long tables as they are; a group that was not materialized (no table)
is left out of the report with a line saying so, never shown empty.

The sections query a DuckDB connection in which the report asset registered its
inputs under their asset names (core/frames.py), with the internal stores of the
judging path (:data:`STORES`) beside them. :data:`READS` says which tables each
section queries: the report's inputs are derived from it, so a table a section
reads and :data:`READS` does not name is absent when the section runs.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

import duckdb
import numpy as np
import polars as pl

from cojudge_assets.core.constants import CONDITIONS
from cojudge_assets.core.dynamics import trajectories as dynamics
from cojudge_assets.core.graded.metrics import table_iii
from cojudge_assets.core.measurement.measure import INSTRUMENT_METRICS
from cojudge_assets.core.measurement.predictions import has_table
from cojudge_assets.core.perturbation.rewrites import ALL_OPERATORS
from cojudge_assets.core.perturbation.stats import accuracy_points
from cojudge_assets.core.report import plots
from cojudge_assets.core.report.document import INTERVAL_SPACE, Figure, Section, Table, format_number
from cojudge_assets.core.report.estimation import TABLES as ESTIMATION_TABLES
from cojudge_assets.core.report.estimation import estimation_section
from cojudge_assets.core.report.findings import findings_section

ACCOUNTING = "judge_cache_accounting"  # the judge cache's counts (read_stores), not its rows
# section -> the tables it queries (asset tables, and the internal stores of STORES); one entry per section
READS: dict[str, tuple[str, ...]] = {
    "inputs": ("judge_requests", "attempts", "participant_context", "quarantine"),
    "judges": (ACCOUNTING, "attempts", "predictions", "judge_epochs", "drift_events", "drift_report"),
    "imported": ("judge_imports", "import_rejects", "judge_metrics", "correlation"),
    "measurement": (
        "judge_metrics",
        "predictions",
        ACCOUNTING,
        "scale_validity",
        "panel",
        "condition_effects",
        "agreement",
    ),
    "perturbation": ("perturbation_metrics", "perturbation_yield", "judge_metrics"),
    "graded": ("graded_metrics", "graded_yield", "graded_balance"),
    "dynamics": ("success_at_turn", "churn_vs_improvement", "convergence", "rank_consensus", "attempts"),
    "estimation": ESTIMATION_TABLES,
    "findings": ("findings", "contamination", "design_split", "design_record"),
}
# tables the judging path writes row by row (judges/store.py, judges/drift.py, judges/imports.py): not assets, so
# the report reads them from the judge store (read_stores) rather than as inputs; the judge cache, a row per answer,
# only as its counts (ACCOUNTING: the store's ``accounting``), never whole
STORES = (ACCOUNTING, "judge_epochs", "drift_events", "judge_imports", "import_rejects")
# the columns the sections query of the asset tables that carry text or a row per answer: the report's inputs are
# read with these only (a column a section queries must be named here)
READ_COLUMNS = {
    "judge_requests": ["condition", "context_chars"],
    "attempts": ["attempt_uid", "participant", "problem_id", "turn", "submitted_at", "language", "accepted"],
    "participant_context": ["condition", "provenance"],
    "predictions": ["judge", "condition", "attempt_uid", "p_accept", "y"],
}


def read_tables() -> tuple[str, ...]:
    """Every table some section reads (:data:`READS`), sorted."""
    return tuple(sorted({name for names in READS.values() for name in names}))


def read_stores(store, attempts: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """The internal stores the sections read, from the judge store (judges/store.py ``DuckDBStore`` or
    judges/postgres_store.py ``PostgresStore``; those that exist): the side tables whole, the judge cache as its
    counts over the contest's ``attempts`` (column attempt_uid), counted where the cache is."""
    wanted = [name for name in read_tables() if name in STORES]
    found = {name: store.read_table(name) for name in wanted if name != ACCOUNTING}
    tables = {name: frame for name, frame in found.items() if frame is not None}
    if ACCOUNTING in wanted and "attempt_uid" in attempts.columns:
        tables[ACCOUNTING] = store.accounting(attempts)
    return tables


CONDITION_ORDER = CONDITIONS
LOCAL_MODEL_PREFIX = "cojudge-local/"  # the served model of the local judges (judges/local.py)
TRACKED_METRICS = list(INSTRUMENT_METRICS)


def _condition_key(condition: str) -> tuple[int, str]:
    return (CONDITION_ORDER.index(condition) if condition in CONDITION_ORDER else len(CONDITION_ORDER), condition)


def _ordered(conditions) -> list[str]:
    return sorted(conditions, key=_condition_key)


def condition_label(conditions) -> str:
    """How a set of conditions with identical answers is named in tables and titles: "blind = prefix12k"."""
    return " = ".join(_ordered(conditions))


@dataclass(frozen=True)
class ConditionGroups:
    """Which conditions gave identical answers: per judge (same attempts answered, same p_accept on each), and for
    the whole set of judges (every judge identical: the panel, agreement and kappa are then identical too)."""

    per_judge: dict[str, tuple[tuple[str, ...], ...]]
    whole: tuple[tuple[str, ...], ...]
    local: frozenset[str] = frozenset()

    def judge_label(self, judge: str, condition: str) -> str:
        for group in self.per_judge.get(judge, ()):
            if condition in group:
                return condition_label(group)
        return condition

    def whole_label(self, condition: str) -> str:
        for group in self.whole:
            if condition in group:
                return condition_label(group)
        return condition

    def merged(self) -> dict[str, tuple[str, ...]]:
        """The judges with at least two conditions of identical answers: {judge: the largest such group}."""
        return {judge: max(groups, key=len) for judge, groups in self.per_judge.items() if max(map(len, groups)) > 1}

    def note(self) -> str:
        """The line that says which judges' results are shown once for several conditions, and why."""
        merged = self.merged()
        if not merged:
            return ""
        lines = []
        for group in sorted(set(merged.values()), key=lambda g: (-len(g), [_condition_key(c) for c in g])):
            judges = sorted(j for j, g in merged.items() if g == group)
            names = ", ".join(judges[:-1]) + (" and " if len(judges) > 1 else "") + judges[-1]
            plural = len(judges) > 1
            if set(judges) <= self.local:
                why = (
                    f"{'they are' if plural else 'it is a'} local judge{'s' if plural else ''}, which "
                    f"{'do' if plural else 'does'} not read the participant context"
                )
            else:
                why = f"{'their' if plural else 'its'} answers did not change with the participant context"
            conditions = _ordered(group)
            listed = ", ".join(conditions[:-1]) + " and " + conditions[-1]
            lines.append(
                f"{names} gave identical answers under {listed}: {why}. "
                f"{'Their' if plural else 'Its'} metrics and figures are therefore shown once, for "
                f'"{condition_label(group)}", and {"their" if plural else "its"} condition effects '
                "(zero by construction) are left out."
            )
        return " ".join(lines)


def condition_groups(predictions: pl.DataFrame, local: frozenset[str] = frozenset()) -> ConditionGroups:
    """Group each judge's conditions by identical answers (``predictions``: judge, condition, attempt_uid,
    p_accept), and the conditions under which every judge's answers are identical.

    >>> preds = pl.DataFrame({"judge": ["a"] * 4 + ["b"] * 4, "condition": ["blind", "nonblind"] * 4,
    ...                       "attempt_uid": ["x", "x", "y", "y"] * 2, "p_accept": [.1, .1, .9, .9, .2, .3, .5, .5]})
    >>> groups = condition_groups(preds)
    >>> groups.per_judge, groups.whole
    ({'a': (('blind', 'nonblind'),), 'b': (('blind',), ('nonblind',))}, (('blind',), ('nonblind',)))
    """
    answers: dict[tuple[str, str], tuple] = {}
    for (judge, condition), part in (
        predictions.sort("attempt_uid").partition_by(["judge", "condition"], as_dict=True, maintain_order=True).items()
    ):
        answers[(judge, condition)] = tuple(zip(part["attempt_uid"].to_list(), part["p_accept"].to_list()))
    judges = sorted({j for j, _ in answers})
    conditions = _ordered({c for _, c in answers})

    def grouped(key_of) -> tuple[tuple[str, ...], ...]:
        groups: dict[object, list[str]] = {}
        for condition in conditions:
            groups.setdefault(key_of(condition), []).append(condition)
        return tuple(tuple(g) for g in groups.values())

    per_judge = {j: grouped(lambda c, j=j: answers.get((j, c))) for j in judges}
    per_judge = {j: tuple(g for g in groups if all((j, c) in answers for c in g)) for j, groups in per_judge.items()}
    whole = grouped(lambda c: tuple(answers.get((j, c)) for j in judges))
    return ConditionGroups(per_judge, whole, frozenset(local))


def _comparable(value):
    return None if isinstance(value, float) and math.isnan(value) else value


def merge_conditions(frame: pl.DataFrame, label) -> pl.DataFrame:
    """``frame`` with the rows of conditions that gave identical answers shown once, their condition column
    relabelled ``label(judge, condition)`` ("blind = prefix12k = nonblind"); rows of a group whose values differ
    after all (e.g. a failed request under one condition) are kept under their own condition."""
    if frame.is_empty():
        return frame
    judge_of = (lambda row: row["judge"]) if "judge" in frame.columns else (lambda row: None)
    kept = []
    rest = [c for c in frame.columns if c not in ("judge", "condition")]
    rows = frame.to_dicts()
    by_key: dict[tuple, list[dict]] = {}
    for row in rows:
        by_key.setdefault((judge_of(row), row["condition"]), []).append(row)
    for row in rows:
        judge, condition = judge_of(row), row["condition"]
        target = label(judge, condition)
        if target == condition:
            kept.append(row)
            continue
        members = [c for c in target.split(" = ")]
        values = [[tuple(_comparable(r[c]) for c in rest) for r in by_key.get((judge, c), [])] for c in members]
        if any(v != values[0] for v in values[1:]):
            kept.append(row)  # not identical after all: each condition keeps its rows
            continue
        if condition != members[0]:
            continue  # shown once, under the group's first condition
        kept.append({**row, "condition": target})
    return pl.DataFrame(kept, schema=frame.schema)


def _query(conn: duckdb.DuckDBPyConnection, table: str, sql: str) -> pl.DataFrame | None:
    return conn.execute(sql).pl() if has_table(conn, table) else None


def _tables_if_any(conn: duckdb.DuckDBPyConnection, wanted: list[tuple[str, str, str]]) -> list[Table]:
    """A Table for each (table, SQL, caption) whose table exists and whose query returns rows."""
    found = [(caption, _query(conn, table, sql)) for table, sql, caption in wanted]
    return [Table(caption, frame) for caption, frame in found if frame is not None and len(frame)]


def interval_cell(value, lo, hi) -> str | None:
    """ "value [lo, hi]" with each number as the report shows numbers; the value alone when the row has no interval
    (lo and hi null); None (shown "–") when there is no value or it is undefined (NaN: e.g. a ROC-AUC on a subset
    with one class). An interval that is NaN beside a value is shown as it is: that is a fault to see."""
    if value is None or math.isnan(value):
        return None
    if lo is None and hi is None:
        return format_number(value)
    return f"{format_number(value)} [{format_number(lo)},{INTERVAL_SPACE}{format_number(hi)}]"


def _metric_table(frame: pl.DataFrame, metrics: list[str], index: list[str]) -> pl.DataFrame:
    """value [lo, hi] per metric as columns (in the order of ``metrics``), one row per index."""
    rows = frame.filter(pl.col("metric").is_in(metrics))
    if rows.is_empty():
        return pl.DataFrame(schema={c: pl.String for c in index})
    shown = rows.with_columns(
        pl.struct("value", "lo", "hi")
        .map_elements(lambda r: interval_cell(r["value"], r["lo"], r["hi"]), return_dtype=pl.String)
        .alias("cell")
    )
    wide = shown.pivot(on="metric", index=index, values="cell", maintain_order=True)
    return wide.select(*index, *[m for m in metrics if m in wide.columns])


def left_out_table(conn: duckdb.DuckDBPyConnection, table: str, column: str) -> Table | None:
    """The judges a pooled table left out (core/dynamics/pooling.py) and why: its rows' distinct non-null ``column``
    (the measurement tables' ``note``, the rank consensus's ``left_out``); None when it left no one out."""
    frame = _query(conn, table, f"select * from main.{table}")
    if frame is None or column not in frame.columns:
        return None
    keep = [c for c in ("condition",) if c in frame.columns]
    notes = frame.filter(pl.col(column).is_not_null()).select(*keep, pl.col(column).alias("left out, and why")).unique()
    if notes.is_empty():
        return None
    return Table(
        f"Judges left out of the {table.replace('_', ' ')} figures: answers all one value (or none) on the "
        "attempts a figure pools; such a judge cannot order or split them",
        notes.sort(pl.all()),
    )


def coverage_section(conn: duckdb.DuckDBPyConnection) -> Section | None:
    requests = _query(
        conn,
        "judge_requests",
        """
        select condition, count(*) as requests, count(*) filter (where context_chars > 0) as with_context,
               round(avg(context_chars))::bigint as mean_context_chars, max(context_chars) as max_context_chars
        from main.judge_requests group by 1
        order by array_position("""
        + repr(list(CONDITIONS))
        + """, condition) nulls last, condition""",
    )
    attempts = _query(
        conn,
        "attempts",
        """
        select count(*) as attempts, count(distinct participant) as participants, count(distinct problem_id)
               as problems, count(distinct (participant, problem_id)) as trajectories,
               avg(accepted::int) as accepted_share from main.attempts""",
    )
    if requests is None or attempts is None:
        return None
    tables = [Table("The contest's attempts", attempts), Table("Requests per input condition", requests)]
    provenance = _query(
        conn,
        "participant_context",
        """
        select provenance, count(*) as attempts from main.participant_context where condition = 'nonblind'
        group by 1 order by 2 desc""",
    )
    if provenance is not None:
        tables.append(Table("How the nonblind context was anchored", provenance))
    quarantine = _query(
        conn, "quarantine", "select stage, reason, count(*) as files from main.quarantine group by 1, 2 order by 3 desc"
    )
    if quarantine is not None and len(quarantine):
        tables.append(Table("Quarantined inputs", quarantine, max_rows=20))
    return Section(
        "Inputs and conditions",
        "blind: no participant context; prefix12k: the first 12,000 characters of the participant's "
        "logs; nonblind: the context anchored just before the code first appears.",
        tuple(tables),
    )


def judges_section(conn: duckdb.DuckDBPyConnection) -> Section | None:
    validity = _query(
        conn,
        ACCOUNTING,
        f"""
        select c.judge, c.condition, c.epoch, string_agg(distinct c.served_model, ', ') as served_models,
               sum(c.answers)::bigint as rows,
               coalesce(sum(c.answers) filter (where c.status = 'ok' and not c.repaired), 0)::bigint
                   as valid_first_receipt,
               coalesce(sum(c.answers) filter (where c.status = 'ok' and c.repaired), 0)::bigint
                   as repaired_by_reasking,
               coalesce(sum(c.answers) filter (where c.status = 'abstained'), 0)::bigint as abstained,
               coalesce(sum(c.answers) filter (where c.status not in ('ok', 'abstained')), 0)::bigint as failed,
               round(sum(c.cost), 4) as cost_usd
        from main.{ACCOUNTING} c
        where c.contest
        group by 1, 2, 3 order by 1, 2, 3""",
    )
    if validity is None:
        return None
    validity = merge_conditions(validity, _by_judge(_condition_groups(conn)))
    tables = [
        Table("Served models and validity accounting (contest attempts)", validity),
        *_tables_if_any(
            conn,
            [
                ("judge_epochs", "select * from main.judge_epochs order by judge, epoch", "Judge epochs (re-judgings)"),
                ("drift_events", "select * from main.drift_events order by seen_at", "Provider drift events"),
                (
                    "drift_report",
                    "select * exclude (old_identity, new_identity) from main.drift_report",
                    "Before and after each drift",
                ),
            ],
        ),
    ]
    return Section(
        "Judges: served models, validity, drift",
        "Each judge's answers as stored: which model the provider reported serving, how many answers "
        "were valid on first receipt, how many were repaired by re-asking, how many the judge abstained on "
        "(nothing to go on: no answer, not scored), how many failed.",
        tuple(tables),
    )


def imported_section(conn: duckdb.DuckDBPyConnection, published: pl.DataFrame | None = None) -> Section | None:
    """Imported judges: where their answers came from, how many were usable, every metric, and (for a corpus
    whose publishing study reported values) cojudge's correlations beside the published ones."""
    provenance = _query(
        conn,
        "judge_imports",
        """
        select judge, condition, source, left(sha256, 16) as sha256, requests, ok, invalid, rejected, unanswered,
               round(ok / nullif(requests, 0), 4) as coverage
        from main.judge_imports where requests > 0 and ok + invalid > 0 order by judge, condition""",
    )
    if provenance is None or provenance.is_empty():
        return None
    judges = provenance["judge"].unique().to_list()
    tables = [Table("Imported judges: source, sha256 and coverage (ok answers / requests)", provenance)]
    rejects = _query(
        conn,
        "import_rejects",
        "select judge, condition, source_file, source_line, field, reason "
        "from main.import_rejects order by judge, source_line",
    )
    if rejects is not None and len(rejects):
        tables.append(Table("Imported rows that could not enter (file, line, field)", rejects, max_rows=30))
    metrics = _query(conn, "judge_metrics", "select * from main.judge_metrics")
    if metrics is not None and len(metrics):
        mine = metrics.filter(pl.col("judge").is_in(judges))
        if len(mine):
            tables.append(
                Table(
                    "Imported judges as instruments (trajectory-bootstrap 95% intervals)",
                    _metric_table(mine, TRACKED_METRICS, ["judge", "condition"]),
                )
            )
    correlation = _query(conn, "correlation", "select * from main.correlation")
    if correlation is not None and len(correlation):
        mine = correlation.filter(pl.col("judge").is_in(judges))
        if len(mine):
            tables.append(
                Table(
                    "Rank correlation with the label, corpus and example level",
                    _metric_table(mine, sorted(mine["metric"].unique().to_list()), ["judge", "condition", "subset"]),
                )
            )
        if published is not None:
            tables.append(
                Table("Reproduced beside the published values (example level)", reproduction(correlation, published))
            )
    return Section(
        "Imported judges",
        "Judgments made elsewhere and imported (never sent to a provider), scored by the same "
        "measurement as every judge; p_accept is the declared scale mapped to [0, 1].",
        tuple(tables),
    )


def reproduction(correlation: pl.DataFrame, published: pl.DataFrame) -> pl.DataFrame:
    """Published example-level Kendall tau and Spearman rho (columns judge, subset, tau, rho) beside cojudge's,
    with the differences."""
    wide = correlation.filter(
        pl.col("metric").is_in(["kendall_tau_b_example", "spearman_example", "kendall_tau_b_corpus", "spearman_corpus"])
    ).pivot(on="metric", index=["judge", "condition", "subset"], values="value")
    joined = published.join(wide, on=["judge", "subset"], how="left")
    return joined.select(
        "judge",
        "subset",
        pl.col("tau").alias("published_tau"),
        pl.col("kendall_tau_b_example").round(3).alias("tau"),
        (pl.col("kendall_tau_b_example") - pl.col("tau")).round(4).alias("tau_diff"),
        pl.col("rho").alias("published_rho"),
        pl.col("spearman_example").round(3).alias("rho"),
        (pl.col("spearman_example") - pl.col("rho")).round(4).alias("rho_diff"),
        pl.col("kendall_tau_b_corpus").round(3).alias("tau_corpus"),
        pl.col("spearman_corpus").round(3).alias("rho_corpus"),
    ).sort("subset", "judge")


def _condition_groups(conn: duckdb.DuckDBPyConnection) -> ConditionGroups | None:
    predictions = _query(conn, "predictions", "select judge, condition, attempt_uid, p_accept from main.predictions")
    if predictions is None or predictions.is_empty():
        return None
    served = _query(
        conn,
        ACCOUNTING,
        "select judge, bool_and(starts_with(coalesce(served_model, ''), "
        f"'{LOCAL_MODEL_PREFIX}')) as local from main.{ACCOUNTING} group by 1",
    )
    local = frozenset(served.filter(pl.col("local"))["judge"].to_list()) if served is not None else frozenset()
    return replace(condition_groups(predictions), local=local)


def _by_judge(groups: ConditionGroups | None):
    return (lambda judge, condition: groups.judge_label(judge, condition)) if groups else (lambda j, c: c)


def _by_panel(groups: ConditionGroups | None):
    return (lambda judge, condition: groups.whole_label(condition)) if groups else (lambda j, c: c)


def _within_one_group(groups: ConditionGroups | None, judge: str, pair: str, whole: bool) -> bool:
    """Whether a condition effect "b - a" compares two conditions of identical answers (zero by construction)."""
    if groups is None or " - " not in pair:
        return False
    b, a = pair.split(" - ", 1)
    label = (lambda c: groups.whole_label(c)) if whole else (lambda c: groups.judge_label(judge, c))
    return label(a) == label(b)


# Figures: each one's title is drawn in the image (and stored in its PNG) and is its caption in the report; the
# reading guide says how to read that very figure.
ROC_GUIDE = (
    "Each curve is a judge; the further above the diagonal, the better it ranks accepted attempts above the "
    "rest (ROC-AUC in the legend)."
)
RELIABILITY_GUIDE = (
    "Observed acceptance rate against the judge's mean stated probability, per bin: points on the "
    "diagonal are calibrated, below it the judge is over-confident, above it under-confident; marker "
    "area is the bin's size."
)
KAPPA_GUIDE = "Cohen's kappa between judges on median-cut decisions; 0 is chance agreement, 1 identical decisions."


def _file_part(label: str) -> str:
    """A condition label as part of a file name: "blind = prefix12k" -> "blind+prefix12k"."""
    return re.sub(r"[^A-Za-z0-9_+-]+", "-", label.replace(" = ", "+"))


def _figure(path: Path, title: str, guide: str) -> Figure:
    return Figure(path, title, guide)


def measurement_figures(
    conn: duckdb.DuckDBPyConnection, folder: Path, groups: ConditionGroups | None
) -> tuple[Figure, ...]:
    """ROC curves and reliability diagrams, one per distinct condition result: a judge whose answers are identical
    under several conditions is drawn once, in the figure of that group of conditions; the kappa heatmap once per
    group of conditions under which every judge answered identically."""
    predictions = _query(
        conn,
        "predictions",
        "select judge, condition, attempt_uid, p_accept, y "
        "from main.predictions order by judge, condition, attempt_uid",
    )
    if predictions is None or predictions.is_empty() or groups is None:
        return ()
    from cojudge_assets.core.measurement import calibration

    by_label: dict[str, list[tuple[str, str]]] = {}  # group label -> (judge, a condition of the group)
    for judge, judge_groups in groups.per_judge.items():
        for group in judge_groups:
            by_label.setdefault(condition_label(group), []).append((judge, group[0]))
    order = sorted(by_label, key=lambda label: (-label.count(" = "), [_condition_key(c) for c in label.split(" = ")]))
    figures = []
    for label in order:
        curves, tables = {}, {}
        for judge, condition in by_label[label]:
            mine = predictions.filter((pl.col("judge") == judge) & (pl.col("condition") == condition))
            p, y = mine["p_accept"].to_numpy(), mine["y"].to_numpy()
            curves[judge], tables[judge] = (p, y), calibration.reliability_table(p, y)
        title = f"ROC curves, {label}"
        path = plots.roc_curves(curves, folder / f"roc_{_file_part(label)}.png", title)
        figures.append(_figure(path, title, ROC_GUIDE))
        title = f"Reliability (15 bins), {label}"
        path = plots.reliability_diagram(tables, folder / f"reliability_{_file_part(label)}.png", title)
        figures.append(_figure(path, title, RELIABILITY_GUIDE))
    agreement = _query(
        conn, "agreement", "select judge, condition, value from main.agreement where metric = 'pairwise_kappa'"
    )
    if agreement is not None and len(agreement):
        for group in groups.whole:
            pairs = agreement.filter(pl.col("condition") == group[0])
            judges = sorted({j for pair in pairs["judge"].to_list() for j in pair.split("~")})
            if len(judges) < 2:
                continue
            kappa = np.full(
                (len(judges), len(judges)), np.nan
            )  # a pair left out (core/dynamics/pooling.py) stays blank
            np.fill_diagonal(kappa, 1.0)
            for pair, value in pairs.select("judge", "value").iter_rows():
                a, b = (judges.index(j) for j in pair.split("~"))
                kappa[a, b] = kappa[b, a] = value
            title = f"Cohen's kappa (median cuts), {condition_label(group)}"
            path = plots.heatmap(kappa, judges, folder / f"kappa_{_file_part(condition_label(group))}.png", title)
            figures.append(_figure(path, title, KAPPA_GUIDE))
    return tuple(figures)


def panel_table(panel: pl.DataFrame) -> pl.DataFrame:
    """The panel's rows (long: judge, condition, metric, value, lo, hi, n) as one row per metric and one
    "value [lo, hi]" column per condition; the members and the attempts scored as whole numbers in rows of their
    own; a row about the best member names it."""
    conditions = panel["condition"].unique(maintain_order=True).to_list()
    scored = panel.filter((pl.col("metric") != "members") & ~pl.col("metric").str.starts_with("excluded_"))
    rows: list[dict] = []
    members = panel.filter(pl.col("metric") == "members")
    for name, frame, column in (
        ("members", members, "value"),
        ("attempts scored", scored.filter(pl.col("metric") == "roc_auc"), "n"),
    ):
        if len(frame):
            rows.append({"metric": name, **{c: str(int(v)) for c, v in frame.select("condition", column).iter_rows()}})
    for metric in scored["metric"].unique(maintain_order=True).to_list():
        mine = scored.filter(pl.col("metric") == metric)
        judges = sorted(set(mine["judge"].to_list()) - {"panel"})
        label = f"{metric} ({', '.join(judges)})" if judges else metric
        rows.append(
            {
                "metric": label,
                **{r["condition"]: interval_cell(r["value"], r["lo"], r["hi"]) for r in mine.iter_rows(named=True)},
            }
        )
    return pl.DataFrame(rows, schema={"metric": pl.String, **{c: pl.String for c in conditions}})


def measurement_section(conn: duckdb.DuckDBPyConnection, folder: Path) -> Section | None:
    metrics = _query(conn, "judge_metrics", "select * from main.judge_metrics")
    if metrics is None:
        return None
    groups = _condition_groups(conn)
    by_judge, by_panel = _by_judge(groups), _by_panel(groups)
    metrics = merge_conditions(metrics, by_judge)
    tables = [
        Table(
            "Judge metrics with trajectory-bootstrap 95% intervals",
            _metric_table(metrics, TRACKED_METRICS, ["judge", "condition"]),
        )
    ]
    coverage = metrics.filter(pl.col("metric").is_in(["coverage", "answered", "abstained"]))
    if len(coverage):
        tables.append(
            Table(
                "Coverage: the share of the attempts asked about that each judge answered (the metrics "
                "are computed on those; abstentions are not scored)",
                coverage.pivot(on="metric", index=["judge", "condition", "n"], values="value").select(
                    "judge",
                    "condition",
                    pl.col("n").alias("asked"),
                    pl.col("answered").cast(pl.Int64),
                    pl.col("abstained").cast(pl.Int64),
                    pl.col("coverage").round(3),
                ),
            )
        )
    validity = _query(conn, "scale_validity", "select * from main.scale_validity")
    if validity is not None and len(validity):
        wide = merge_conditions(validity, by_judge).pivot(
            on="metric", index=["judge", "condition"], values="value", maintain_order=True
        )
        counts = [c for c in ("distinct_values", "effective_rules") if c in wide.columns]  # counts, stored as floats
        tables.append(Table("Scale validity", wide.with_columns(pl.col(counts).round().cast(pl.Int64))))
    panel = _query(conn, "panel", "select * from main.panel")
    if panel is not None and len(panel):
        panel = merge_conditions(panel, by_panel)
        tables.append(
            Table(
                "The panel (percentile-rank average of the judges): one column per condition, "
                "trajectory-bootstrap 95% intervals",
                panel_table(panel),
            )
        )
    effects = _query(conn, "condition_effects", "select * from main.condition_effects")
    if effects is not None and len(effects):
        kept = effects.filter(
            ~pl.struct("judge", "condition").map_elements(
                lambda r: _within_one_group(groups, r["judge"], r["condition"], r["judge"] == "panel"),
                return_dtype=pl.Boolean,
            )
        )
        if len(kept):
            tables.append(
                Table(
                    "Condition effects (paired), trajectory-bootstrap 95% intervals",
                    kept.rename({"condition": "conditions"}),
                )
            )
    left_out = left_out_table(conn, "agreement", "note")  # the panel's notes are among the agreement's
    if left_out is not None:
        tables.append(left_out)
    intro = (
        "Ranking (ROC-AUC, PR-AUC), calibration (LogLoss, Brier, ECE), out-of-fold decisions (MCC), "
        "scale validity and agreement, scored against the contest's verdicts."
    )
    if groups is not None and groups.note():
        intro += "\n\n" + groups.note()
    return Section("The judges as instruments", intro, tuple(tables), measurement_figures(conn, folder, groups))


SHIFT_TITLE = "Mean score shift per operator (semantic by severity)"
ACCURACY_TITLE = "Accuracy on real attempts vs defect discrimination (blind)"
REWRITE_TITLE = "Consistency under rewrite: how far p moves on a behaviour-preserving edit"


def perturbation_figures(metrics: pl.DataFrame, judge_metrics: pl.DataFrame | None, folder: Path) -> tuple[Figure, ...]:
    order = [op for op in ALL_OPERATORS if op in set(metrics["subset"].to_list())]
    if not order:
        return ()
    band = plots.control_interval(metrics)
    guide = (
        "Each point is a judge's mean change of p_accept from the accepted seed to its mutant, per operator, "
        "with its seed-bootstrap interval; below zero the judge lowered its score. Semantic operators (left, by "
        "severity) should fall below the grey band, the control arm's interval"
    )
    if band is not None:
        guide += f" [{format_number(band[0])}, {format_number(band[1])}]"
        if band[1] - band[0] < 1e-9:
            guide += (
                f" (no width: the judges never moved on a behaviour-preserving edit; drawn "
                f"{plots.MIN_BAND_FRACTION:.0%} of the axis tall so that it shows)"
            )
    figures = [
        _figure(
            plots.shift_by_operator(metrics, order, folder / "shift_by_operator.png", SHIFT_TITLE),
            SHIFT_TITLE,
            guide + ".",
        )
    ]
    rewrites = [op for op in order if op in set(metrics.filter(pl.col("metric") == "rewrite_flip")["subset"])]
    if rewrites:
        figures.append(
            _figure(
                plots.consistency_under_rewrite(
                    metrics, rewrites, folder / "consistency_under_rewrite.png", REWRITE_TITLE
                ),
                REWRITE_TITLE,
                "Per behaviour-preserving operator and judge, with seed-bootstrap intervals: left, how far p moves "
                "from the seed to its rewrite (mean |p(rewrite) - p(seed)|); right, the share of rewrites whose "
                "decision at 0.5 flips. Every rewrite printed the seed's output on every test: a consistent judge "
                "sits at 0 in both.",
            )
        )
    points = accuracy_points(metrics, judge_metrics, "blind") if judge_metrics is not None else pl.DataFrame()
    if len(points):
        figures.append(
            _figure(
                plots.accuracy_vs_discrimination(points, folder / "accuracy_vs_discrimination.png", ACCURACY_TITLE),
                ACCURACY_TITLE,
                "Each judge at its ROC-AUC on the contest's attempts (blind, right is better) and its arm "
                "discrimination on injected defects (up is better), with intervals; a judge can rank real "
                "attempts well yet be blind to defects.",
            )
        )
    return tuple(figures)


def perturbation_section(conn: duckdb.DuckDBPyConnection, folder: Path) -> Section | None:
    metrics = _query(conn, "perturbation_metrics", "select * from main.perturbation_metrics")
    yields = _query(conn, "perturbation_yield", "select * from main.perturbation_yield")
    if metrics is None or yields is None:
        return None
    judge_metrics = _query(
        conn, "judge_metrics", "select judge, condition, metric, value, lo, hi from main.judge_metrics"
    )
    headline = metrics.filter(~pl.col("metric").is_in(["mean_shift", "rewrite_abs_shift", "rewrite_flip"]))
    tables = (
        Table("Mutants per operator and their verification", yields),
        Table("Perturbation metrics (primary subset: seed scored >= 0.5), seed-bootstrap 95% intervals", headline),
        Table(
            "Mean shift per operator (semantic by severity, then control and adversarial), seed-bootstrap "
            "95% intervals",
            metrics.filter(pl.col("metric") == "mean_shift")
            .drop("metric")
            .sort(
                "judge",
                pl.col("subset").replace_strict(
                    {op: i for i, op in enumerate(ALL_OPERATORS)}, default=len(ALL_OPERATORS)
                ),
                "subset",
            ),
        ),
        Table(
            "Consistency under rewrite per control operator: mean |p(rewrite) - p(seed)| and the share whose "
            "decision flips, seed-bootstrap 95% intervals",
            metrics.filter(pl.col("metric").is_in(["rewrite_abs_shift", "rewrite_flip"])).sort(
                "judge", "metric", "subset"
            ),
        ),
    )
    return Section(
        "Perturbation: does a judge notice a broken program?",
        "Single defects injected into accepted programs (semantic arm, severity 1-4) against "
        "behaviour-preserving edits (control arm) and a comment addressed to the grader (adversarial "
        "arm), every mutant verified by execution. Mutants are judged blind (no participant context).",
        tables,
        perturbation_figures(metrics, judge_metrics, folder),
    )


GRADED_TITLE = "Score vs ceiling per judge (graded programs, blind)"


def graded_section(conn: duckdb.DuckDBPyConnection, folder: Path) -> Section | None:
    """The graded perturbations (AXIOM): yield per rule, balance per ceiling, Table III per judge, MCC per pair of
    adjacent ceilings, and the score-vs-ceiling figure."""
    metrics = _query(conn, "graded_metrics", "select * from main.graded_metrics")
    yields = _query(conn, "graded_yield", "select * from main.graded_yield")
    balance = _query(conn, "graded_balance", "select * from main.graded_balance")
    if metrics is None or yields is None or balance is None:
        return None

    def shown(frame: pl.DataFrame) -> pl.DataFrame:  # an undefined value (a constant judge's rho) shows as "–"
        return frame.with_columns(pl.col(pl.Float64).fill_nan(None))

    metrics = shown(metrics)
    tables = [
        Table("Graded rules: seeds skipped (no site), programs made, accepted (yield), graded", shown(yields)),
        Table("Balance of the verified graded set per ceiling", balance),
    ]
    figures: tuple[Figure, ...] = ()
    if len(metrics):
        overall = metrics.filter(pl.col("subset") == "all").select(
            "judge", "answer", "scope", "metric", "value", "lo", "hi", "p_value", "holm_p", "n", "n_problems", "note"
        )
        tables += [
            Table(
                "Judges against the ceilings in AXIOM's Table III layout (rho pooled, within problem and "
                "controlled for edit size, tau, alpha x100; EMD; mean), Full (ceilings 0-5) and Rectifiable (1-5)",
                shown(table_iii(metrics)),
            ),
            Table(
                "Rank and agreement metrics with problem-clustered 95% intervals (bootstrap SE, t on problems - 1), "
                "p-values and Holm over every test",
                overall.sort("judge", "answer", "scope", "metric"),
            ),
            Table(
                "Mean score per ceiling and MCC per pair of adjacent ceilings, problem-clustered 95% intervals",
                metrics.filter(pl.col("subset") != "all").sort("judge", "answer", "scope", "metric", "subset"),
            ),
        ]
        figures = (
            _figure(
                plots.score_vs_ceiling(metrics, folder / "score_vs_ceiling.png", GRADED_TITLE),
                GRADED_TITLE,
                "One panel per judge: its mean score (0-5) on the graded programs of each ceiling, with "
                "seed-bootstrap intervals, one series per answer kind; a judge that grades as the ceilings do "
                "follows the dashed diagonal.",
            ),
        )
    return Section(
        "Graded perturbations: does a judge's score fall as far as the flaw deserves?",
        "Rules with score ceilings (AXIOM's five categories: 5 alternatives, 4 readability, 3 design, 2 minor "
        "bugs, 1 major defects) chained on accepted programs, every program verified by execution (3-5 keep "
        "the seed's output on every test, 2 fail at most half the tests, 1 more than half) and the ceilings "
        "balanced. Judges answer blind; the reference-based judges compare each program with its seed and with "
        "another accepted solution of the problem.",
        tuple(tables),
        figures,
    )


SUCCESS_TITLE = "Success@Turn: share of trajectories accepted by turn k"
SURVIVAL_TITLE = "Kaplan-Meier: share of trajectories still unsolved, by turn"
CODEBLEU_TITLE = "CodeBLEU similarity to the first accepted submission"
Q_BY_VERDICT_TITLE = "Rank consensus q by recorded verdict"


def _trajectories(conn: duckdb.DuckDBPyConnection) -> pl.DataFrame | None:
    attempts = _query(
        conn,
        "attempts",
        """
        select attempt_uid, participant, problem_id, turn, submitted_at, language, '' as code, accepted
        from main.attempts where participant is not null and participant <> ''""",
    )
    if attempts is None or attempts.is_empty():
        return None
    return dynamics.trajectories(attempts)


def dynamics_figures(conn: duckdb.DuckDBPyConnection, folder: Path, success: pl.DataFrame) -> tuple[Figure, ...]:
    figures = []
    every = success.filter(pl.col("subset") == "all").sort("k")
    if len(every):
        figures.append(
            _figure(
                plots.line_with_band(
                    every["k"],
                    every["share"],
                    every["lo"],
                    every["hi"],
                    folder / "success_at_turn.png",
                    SUCCESS_TITLE,
                    "turn k",
                    "share accepted by turn k",
                ),
                SUCCESS_TITLE,
                f"All {every['n'][0]} trajectories: the share whose first accepted "
                "attempt came at turn k or earlier, with its trajectory-bootstrap 95% band; the "
                "plateau is the share ever solved.",
            )
        )
    trajs = _trajectories(conn)
    if trajs is not None:
        durations = dynamics.survival_durations(trajs).rename({"duration": "t"})
        stopped = 1 - cast(float, trajs["solved"].mean())
        guide = (
            f"A cross marks a trajectory that stopped unsolved ({stopped:.0%} of {trajs.height}, the dotted "
            "line): "
            "Kaplan-Meier counts it as censored at its last attempt, not as solved, so the curve estimates the "
            "share still unsolved among the trajectories still being attempted at each turn, with its 95% "
            "band. It is not the share never solved (1 minus the plateau of Success@Turn)"
        )
        end = int(cast(float, durations["t"].max()))  # turns are whole numbers
        last = durations.filter(pl.col("t") == end)
        if last["solved"].all():
            n = last.height
            guide += (
                f"; it falls to 0 at turn {end} because the only trajectory still being attempted then was solved"
                if n == 1
                else f"; it falls to 0 at turn {end} because the {n} trajectories still being "
                "attempted then were solved"
            )
        figures.append(
            _figure(
                plots.kaplan_meier(
                    durations["t"].to_numpy(),
                    durations["solved"].to_numpy(),
                    folder / "survival.png",
                    SURVIVAL_TITLE,
                    never_solved_share=stopped,
                ),
                SURVIVAL_TITLE,
                guide + ".",
            )
        )
    convergence = _query(conn, "convergence", "select similarity from main.convergence")
    if convergence is not None and len(convergence):
        figures.append(
            _figure(
                plots.histogram(
                    convergence["similarity"].drop_nulls().to_numpy(),
                    folder / "codebleu_histogram.png",
                    CODEBLEU_TITLE,
                    "CodeBLEU",
                ),
                CODEBLEU_TITLE,
                "In solved trajectories, how close each other attempt is to the first "
                "accepted submission (CodeBLEU, 1 = the same code): mass near 1 means the accepted "
                "program was reached by small revisions, mass near 0 by rewriting.",
            )
        )
    consensus = _query(
        conn, "rank_consensus", "select participant, problem_id, turn, q, accepted, verdict from main.rank_consensus"
    )
    if consensus is not None and len(consensus):
        figures.append(
            _figure(
                plots.struggle_curves(consensus, folder / "struggle.png"),
                plots.STRUGGLE_TITLE,
                "The panel's rank consensus q (mean percentile rank of p_accept over the judges) along "
                "the three longest solved and the three longest unsolved trajectories.",
            )
        )
        by_verdict = {
            v: consensus.filter(pl.col("verdict") == v)["q"].to_list()
            for v in sorted(consensus["verdict"].unique().to_list())
        }
        figures.append(
            _figure(
                plots.boxes(by_verdict, folder / "q_by_verdict.png", Q_BY_VERDICT_TITLE, "q"),
                Q_BY_VERDICT_TITLE,
                "The panel's rank consensus q of the attempts with each recorded "
                "verdict; if the judges track correctness, AC sits highest.",
            )
        )
    return tuple(figures)


def _success_table(success: pl.DataFrame) -> pl.DataFrame:
    """Success@Turn as one row per turn k and one "share [lo, hi]" column per subset (its n in the header)."""
    sizes = dict(success.group_by("subset").agg(pl.col("n").first()).iter_rows())
    cells = success.with_columns(
        pl.struct("share", "lo", "hi")
        .map_elements(lambda r: interval_cell(r["share"], r["lo"], r["hi"]), return_dtype=pl.String)
        .alias("cell"),
        pl.format("{} (n={})", pl.col("subset"), pl.col("n")).alias("column"),
    )
    wide = cells.pivot(on="column", index="k", values="cell", maintain_order=True).sort("k")
    order = [f"{s} (n={sizes[s]})" for s in success["subset"].unique(maintain_order=True).to_list()]
    return wide.select("k", *order)


def dynamics_section(conn: duckdb.DuckDBPyConnection, folder: Path) -> Section | None:
    success = _query(conn, "success_at_turn", "select * from main.success_at_turn order by subset, k")
    if success is None:
        return None
    tables = (
        [
            Table(
                "Success@Turn: share of trajectories accepted by turn k, per subset, trajectory-bootstrap 95% "
                "intervals",
                _success_table(success),
                max_rows=60,
            )
        ]
        if len(success)
        else []
    )
    tables += _tables_if_any(
        conn,
        [
            (
                "churn_vs_improvement",
                "select * from main.churn_vs_improvement",
                "Revision churn against the panel's improvement",
            )
        ],
    )
    convergence = _query(
        conn,
        "convergence",
        """
        select count(*) as attempts, round(median(similarity), 3) as median_codebleu_to_first_accepted
        from main.convergence""",
    )
    if convergence is not None:
        tables.append(
            Table(
                "Convergence: CodeBLEU similarity of the attempts of solved trajectories to their first "
                "accepted submission (the histogram below)",
                convergence,
            )
        )
    left_out = left_out_table(conn, "rank_consensus", "left_out")
    if left_out is not None:
        tables.append(left_out)
    return Section(
        "Co-creation dynamics",
        "How trajectories of attempts unfold: when they succeed, how much code changes between "
        "attempts, and whether the judges' consensus tracks real improvement.",
        tuple(tables),
        dynamics_figures(conn, folder, success),
    )


def report_sections(
    conn: duckdb.DuckDBPyConnection, figure_dir: Path, published: pl.DataFrame | None = None
) -> tuple[list[Section], list[str]]:
    """The report's sections, and the groups left out because their tables are not there. The figures are drawn
    from the tables into ``figure_dir``. ``published``: the values a publishing study reported for the imported
    judges (judge, subset, tau, rho), if any."""
    built = {
        "findings": findings_section(conn, figure_dir / "findings"),
        "inputs": coverage_section(conn),
        "judges": judges_section(conn),
        "measurement": measurement_section(conn, figure_dir / "measurement"),
        "perturbation": perturbation_section(conn, figure_dir / "perturbation"),
        "graded": graded_section(conn, figure_dir / "graded"),
        "dynamics": dynamics_section(conn, figure_dir / "dynamics"),
        "estimation": estimation_section(conn, figure_dir / "estimation"),
    }
    sections = [s for s in built.values() if s is not None]
    imported = imported_section(conn, published)  # only runs with imported judges have this section
    if imported is not None:
        sections.insert(min(3, len(sections)), imported)  # after the findings, the inputs and the judges
    return sections, [name for name, s in built.items() if s is None]
