"""The report's first section: what the data supports, and how robust it is (the findings, contamination and
design split tables of the design group; core/design/robustness.py, core/design/split.py)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

from cojudge_assets.core.measurement.predictions import has_table
from cojudge_assets.core.report.document import INTERVAL_SPACE, Section, Table, format_number

KIND_ORDER = ("above_chance", "judge_vs_judge", "condition_vs_condition", "panel_vs_mean_member", "perturbation_arm")
SCHEME_COLUMNS = {
    "": "trajectory resampling",
    "problem_": "problem resampling",
    "equal_weights_": "equal problem weights",
    "never_inspected_": "never-inspected part",
}
HOLM_COLUMN = "trajectory resampling after Holm"


def interval_cell(value, lo, hi) -> str | None:
    """ "value [lo, hi]" as the report shows numbers (core/report_content.interval_cell, which imports this
    module); the value alone without an interval, None without a value."""
    if value is None or value != value:
        return None
    if lo is None or hi is None:
        return format_number(value)
    return f"{format_number(value)} [{format_number(lo)},{INTERVAL_SPACE}{format_number(hi)}]"


def _scheme_cell(row: dict, prefix: str) -> str | None:
    """ "holds: 0.175 [0.133, 0.214]" (the status, then the estimate and its interval)."""
    state = row[f"{prefix}status"]
    if state == "by construction":  # 0 [0, 0] says nothing more
        return "no difference by construction"
    value = interval_cell(row[f"{prefix}estimate"], row[f"{prefix}lo"], row[f"{prefix}hi"])
    if value is None:
        return state if state not in (None, "undefined") else None
    return f"{state}: {value}"


def _holm_cell(row: dict) -> str | None:
    """ "holds (p 0.004, Holm 0.012)": the primary status after Holm within the row's family; "not a test" for a row
    that is no test (no difference by construction)."""
    if row.get("family") is None:
        return "not a test" if row.get("status") == "by construction" else None
    if row.get("p_value") is None:
        return row.get("holm_status")
    return f"{row['holm_status']} (p {format_number(row['p_value'])}, Holm {format_number(row['holm_p'])})"


def findings_table(findings: pl.DataFrame) -> pl.DataFrame:
    """One row per distinct finding: the claim, then status: estimate [interval] under each scheme, the status after
    Holm within its family, and the widening."""
    order = {kind: i for i, kind in enumerate(KIND_ORDER)}
    rows = []
    for row in sorted(findings.iter_rows(named=True), key=lambda r: (order.get(r["kind"], len(order)), r["finding"])):
        shown = {"finding": row["finding"], "primary resampling": row["resampling"]}
        shown.update({label: _scheme_cell(row, prefix) for prefix, label in SCHEME_COLUMNS.items()})
        shown[HOLM_COLUMN] = _holm_cell(row)
        shown["widening"] = None if row["widening"] is None else f"{format_number(row['widening'])}x"
        rows.append(shown)
    return pl.DataFrame(
        rows,
        schema={c: pl.String for c in ("finding", "primary resampling", *SCHEME_COLUMNS.values(), HOLM_COLUMN)}
        | {"widening": pl.String},
    )


def _number(value) -> str:
    """A number as the report shows it; "–" when there is none (no attempt of the judge in the part)."""
    return "–" if value is None or value != value else format_number(value)


def _flag_cell(flagged, detectable) -> str:
    """ "yes", or "no" with the smallest ROC-AUC difference the check could have flagged at 80% power."""
    if flagged is None:
        return "undefined"
    if flagged:
        return "yes"
    return "no" if detectable is None else f"no (detectable at 80% power: {format_number(detectable)})"


def contamination_table(contamination: pl.DataFrame) -> pl.DataFrame:
    """Per judge x condition: ROC-AUC on the inspectable and the never-inspected part, the paired difference, the
    flag with the smallest difference detectable at 80% power, and the prevalence of both parts."""
    auc = contamination.filter(pl.col("metric") == "roc_auc")
    prevalence = contamination.filter(pl.col("metric") == "base_rate").select(
        "judge", "condition", pl.col("inspectable").alias("prev_seen"), pl.col("never_inspected").alias("prev_never")
    )
    rows = []
    for r in auc.join(prevalence, on=["judge", "condition"], how="left").iter_rows(named=True):
        rows.append(
            {
                "judge": r["judge"],
                "condition": r["condition"],
                "ROC-AUC inspectable": interval_cell(r["inspectable"], r["inspectable_lo"], r["inspectable_hi"]),
                "ROC-AUC never inspected": interval_cell(
                    r["never_inspected"], r["never_inspected_lo"], r["never_inspected_hi"]
                ),
                "inspectable - never inspected": interval_cell(r["difference"], r["difference_lo"], r["difference_hi"]),
                "flagged": _flag_cell(r["flagged"], r["detectable"]),
                "prevalence inspectable / never inspected": f"{_number(r['prev_seen'])} / {_number(r['prev_never'])}",
                "attempts inspectable / never inspected": f"{r['n_inspectable']} / {r['n_never_inspected']}",
            }
        )
    return _conditions_sharing(pl.DataFrame(rows))


def _conditions_sharing(table: pl.DataFrame) -> pl.DataFrame:
    """One row per distinct result of a judge: rows that differ only in their condition (a judge that ignores the
    context) become one row naming the conditions, in the table's order."""
    if table.is_empty():
        return table
    rest = [c for c in table.columns if c != "condition"]
    return table.group_by(rest, maintain_order=True).agg(pl.col("condition").str.join(", ")).select(table.columns)


def differences_table(contamination: pl.DataFrame) -> pl.DataFrame:
    """inspectable - never_inspected [interval] for every metric, one column per metric."""
    shown = contamination.with_columns(
        pl.struct("difference", "difference_lo", "difference_hi")
        .map_elements(
            lambda r: interval_cell(r["difference"], r["difference_lo"], r["difference_hi"]), return_dtype=pl.String
        )
        .alias("cell")
    )
    return _conditions_sharing(
        shown.pivot(on="metric", index=["judge", "condition"], values="cell", maintain_order=True)
    )


def split_table(design_split: pl.DataFrame) -> pl.DataFrame:
    present = design_split.filter(pl.col("attempts") > 0)
    return (
        present.group_by("split")
        .agg(pl.len().alias("groups"), pl.col("attempts").sum().alias("attempts"))
        .with_columns((pl.col("groups") / pl.col("groups").sum()).round(4).alias("share of groups"))
        .sort(pl.col("split").replace_strict({"train": 0, "validation": 1, "test": 2}, default=3))
    )


FEW_PROBLEMS = 100  # fewer problems: problem-resampled intervals too narrow under either method (methodology.md)


def interval_methods(table: pl.DataFrame, column: str = "ci_method") -> str:
    """How a table's intervals were made, in words: "bootstrap", "analytic" or "bootstrap and analytic" (the
    column's values; "bootstrap" for a table written before it had the column)."""
    methods = sorted(set(table[column].drop_nulls().to_list())) if column in table.columns else []
    return " and ".join(methods) if methods else "bootstrap"


def _problems_caution(conn: duckdb.DuckDBPyConnection) -> str:
    """A sentence when the study has fewer than :data:`FEW_PROBLEMS` problems, else nothing."""
    if not has_table(conn, "attempts"):
        return ""
    row = conn.execute("select count(distinct problem_id) from main.attempts").fetchone()
    problems = int(row[0]) if row else 0
    if not 0 < problems < FEW_PROBLEMS:
        return ""
    return (
        f" Problem resampling draws this study's {problems} problems: with fewer than {FEW_PROBLEMS}, its intervals "
        "are too narrow under either method (by simulation, at 20 problems the analytic interval covers 0.90 and "
        "the bootstrap's 0.86; docs/methodology.md), so read a problem-resampled tie as telling and a hold as "
        "weaker than it looks."
    )


def findings_section(conn: duckdb.DuckDBPyConnection, folder: Path) -> Section | None:
    """The report's first section; None when the findings table is not there."""
    if not has_table(conn, "findings"):
        return None
    found = conn.execute("select * from main.findings").pl()
    tables = [
        Table(
            "Each distinct comparison the measurement makes (conditions that give the same result share a row), and "
            "its status under each check (holds: the interval excludes 0 on the claimed side; tie: it contains 0; "
            "reversed: it excludes 0 on the other side; by construction: the judge gives the same answers under "
            "both conditions, so there is nothing to test); estimate = claimed side minus the other (ROC-AUC, or "
            f"arm discrimination); intervals: {interval_methods(found)} (analytic where every side's cell has at "
            "least analytic_from predictions: column ci_method); after Holm: the primary status with its p "
            "Holm-adjusted over the family "
            "(every ROC-AUC row that is a test; the perturbation rows apart), at 0.05; widening = problem / "
            "trajectory interval width",
            findings_table(found),
            max_rows=120,
        )
    ]
    widening = (
        found.filter((pl.col("kind") == "above_chance") & pl.col("widening").is_not_null())
        .group_by("judge")
        .agg(pl.col("widening").mean().round(3).alias("mean widening"), pl.col("shared_by").sum().alias("conditions"))
        .sort("judge")
    )
    if len(widening):
        tables.append(
            Table("How much resampling problems instead of trajectories widens each judge's ROC-AUC interval", widening)
        )
    if has_table(conn, "contamination"):
        contamination = conn.execute("select * from main.contamination").pl()
        if len(contamination):
            tables.append(
                Table(
                    "Prompt-design contamination: the judges on the never-inspected part (test) against the "
                    "inspectable part (train and validation), paired intervals clustered by trajectory "
                    f"({interval_methods(contamination)}); flagged = the "
                    "ROC-AUC difference excludes 0 on the side where the inspectable part looks better; beside "
                    '"no", the smallest difference the check flags with 80% power; conditions with the same result '
                    "share a row",
                    contamination_table(contamination),
                )
            )
            tables.append(
                Table(
                    "Every metric: inspectable minus never-inspected part (paired); not flagged, as PR-AUC and MCC "
                    "move with prevalence and ECE with sample size",
                    differences_table(contamination),
                )
            )
    if has_table(conn, "design_split"):
        tables.append(
            Table(
                "The design split (groups fixed once per corpus; train and validation are inspectable)",
                split_table(conn.execute("select * from main.design_split").pl()),
            )
        )
    if has_table(conn, "design_record"):
        record = conn.execute("select * from main.design_record").pl()
        if len(record):
            tables.append(
                Table(
                    "Which prompt version was designed against which split",
                    record.with_columns(pl.col("templates_sha256").str.head(12), pl.col("split_sha256").str.head(12)),
                )
            )
    return Section(
        "What the data supports, and how robust it is",
        "Each conclusion the measurement draws, with its interval under trajectory resampling (the primary "
        "analysis), problem resampling, equal problem weights (the mean of per-problem ROC-AUCs) and on the "
        "attempts no prompt designer inspected (the design split's test part). A finding that holds under all "
        "four is robust; a tie under one says which check it does not survive." + _problems_caution(conn),
        tuple(tables),
    )
