"""The demo study's report as a reader meets it: every interval filled, counts as whole numbers, one figure per
distinct condition result, every caption the title drawn in its own figure, wide tables scrolling in their column.

The report is rendered from the demo study's DuckDB (the ``demo_study`` fixture of cojudge_tests/conftest.py, the
run the end-to-end tests read too) by the code under test, figures included, over the tables its sections declare
(``READS``) registered in memory as the ``report`` asset does, so these tests see what the asset would write (and a
section reading a table it does not declare finds it absent).
"""

from __future__ import annotations

import base64
import io
import math
import re

import duckdb
import numpy as np
import polars as pl
import pytest
from PIL import Image
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from cojudge_assets.core.frames import frames_connection
from cojudge_assets.core.measurement.predictions import has_table
from cojudge_assets.core.report import plots
from cojudge_assets.core.report.content import (
    STORES,
    condition_groups,
    condition_label,
    measurement_figures,
    read_stores,
    read_tables,
    report_sections,
)
from cojudge_assets.core.report.document import write_report
from cojudge_assets.judges.store import DuckDBStore
from cojudge_tests.report.browser import expect, png_colour_count

pytestmark = pytest.mark.timeout(1800)  # the first session runs the demo study cold

TITLE = "cojudge report: LLM judges of code as instruments"
NUMBER = re.compile(r"-?\d+(\.\d+)?")


@pytest.fixture(scope="module")
def demo_report(demo_study, tmp_path_factory):
    """(sections, report.html path, parsed HTML, the study's predictions)."""
    folder = tmp_path_factory.mktemp("demo-report")
    with duckdb.connect(str(demo_study.db), read_only=True) as study:
        frames = {
            name: study.execute(f"select * from main.{name}").pl()
            for name in read_tables()
            if name not in STORES and has_table(study, name)
        }
        frames |= read_stores(DuckDBStore(study), frames["attempts"])  # as the report asset reads the judge store
        predictions = study.execute("select judge, condition, attempt_uid, p_accept from main.predictions").pl()
    with frames_connection(frames) as conn:
        sections, missing = report_sections(conn, folder / "drawn")
    assert missing == []
    html_path, _ = write_report(
        folder / "report",
        TITLE,
        sections,
        run_config={"duckdb": str(demo_study.db)},
        generated_at="2026-03-14 12:00 UTC",
    )
    return sections, html_path, HTMLParser(html_path.read_text(encoding="utf-8")), predictions


def shown_tables(tree: HTMLParser) -> list[tuple[str, list[str], list[list[str]]]]:
    """(caption, header, rows of cell texts) of every table of the study's sections."""
    out = []
    for table in tree.css("section table:not(.run-config)"):
        caption = table.css_first("caption").text()
        header = [th.text() for th in table.css("thead th")]
        rows = [[td.text().replace("\xa0", " ") for td in tr.css("td")] for tr in table.css("tbody tr")]
        out.append((caption, header, rows))
    return out


def test_no_nan_in_any_cell_with_data(demo_report):
    _, _, tree, _ = demo_report
    tables = shown_tables(tree)
    intervals = 0
    for caption, header, rows in tables:
        for row in rows:
            for column, cell in zip(header, row):
                assert not re.search(r"\bnan\b", cell, re.IGNORECASE), (caption, column, row)
                intervals += bool(re.fullmatch(rf"{NUMBER.pattern} \[{NUMBER.pattern},\s{NUMBER.pattern}\]", cell))
    panel = next(rows for caption, _, rows in tables if caption.startswith("The panel"))
    pr_auc = next(row for row in panel if row[0] == "pr_auc")
    assert all(re.fullmatch(r"0\.\d+ \[0\.\d+,\s0\.\d+\]", cell) for cell in pr_auc[1:]), pr_auc  # its interval
    assert intervals >= 30  # the checks above ran over the interval cells, not over an empty report


def test_integer_columns_print_as_integers(demo_report):
    """A column whose values are all whole numbers, some of them above 1, counts something: no decimals in it.
    (A column of shares that are all 0 or 1, "0.00", is not a count.)"""
    _, _, tree, _ = demo_report
    counted = []
    for caption, header, rows in shown_tables(tree):
        for i, column in enumerate(header):
            cells = [row[i] for row in rows if row[i] != "–"]
            if not cells or not all(NUMBER.fullmatch(cell) for cell in cells):
                continue
            values = [float(cell) for cell in cells]
            if all(v == math.floor(v) for v in values) and max(abs(v) for v in values) >= 2:
                counted.append(column)
                assert not any("." in cell for cell in cells), (caption, column, cells)
    assert {"distinct_values", "effective_rules", "mean_context_chars", "mutants", "n", "asked"} <= set(counted)


def groups_by_hand(predictions: pl.DataFrame) -> set[tuple[str, ...]]:
    """The distinct condition results across judges: for each judge, its conditions grouped by identical answers."""
    found = set()
    for judge in predictions["judge"].unique().to_list():
        answers = {}
        for condition in ("blind", "prefix12k", "nonblind"):
            mine = predictions.filter((pl.col("judge") == judge) & (pl.col("condition") == condition))
            if len(mine):
                answers.setdefault(tuple(mine.sort("attempt_uid").select("attempt_uid", "p_accept").rows()), []).append(
                    condition
                )
        found |= {tuple(group) for group in answers.values()}
    return found


def test_one_figure_per_distinct_condition_result(demo_report):
    sections, _, tree, predictions = demo_report
    groups = groups_by_hand(predictions)
    assert groups == {("blind", "prefix12k", "nonblind")}  # the demo's local judges do not read the context
    captions = [f.caption for s in sections for f in s.figures]
    for kind in ("ROC curves", "Reliability (15 bins)", "Cohen's kappa (median cuts)"):
        assert sorted(c for c in captions if c.startswith(kind)) == sorted(
            f"{kind}, {condition_label(g)}" for g in groups
        )
    measurement = next(s for s in tree.css("section") if s.css_first("h2").text() == "The judges as instruments")
    note = " ".join(p.text() for p in measurement.css("p.intro"))
    assert "gave identical answers under blind, prefix12k and nonblind" in note
    assert "do not read the participant context" in note
    metrics = next(rows for caption, _, rows in shown_tables(tree) if caption.startswith("Judge metrics"))
    assert sorted((row[0], row[1]) for row in metrics) == sorted(
        (judge, "blind = prefix12k = nonblind") for judge in predictions["judge"].unique().to_list()
    )
    assert not any(caption.startswith("Condition effects") for caption, _, _ in shown_tables(tree))  # all zero


def test_a_judge_that_reads_the_context_keeps_a_figure_per_condition(tmp_path):
    """One judge identical under the three conditions, one that differs under each: the first gets one ROC curve
    figure for the three, the second one per condition, and the kappa heatmap is drawn per condition."""
    rng = np.random.default_rng(7)
    uids = [f"a{i:03d}" for i in range(60)]
    y = rng.integers(0, 2, size=60)
    fixed = np.round(rng.uniform(size=60), 2)
    rows = []
    for condition in ("blind", "prefix12k", "nonblind"):
        moved = np.round(rng.uniform(size=60), 2)
        rows += [
            {"judge": "local", "condition": condition, "attempt_uid": u, "p_accept": float(p), "y": int(t)}
            for u, p, t in zip(uids, fixed, y)
        ]
        rows += [
            {"judge": "llm", "condition": condition, "attempt_uid": u, "p_accept": float(p), "y": int(t)}
            for u, p, t in zip(uids, moved, y)
        ]
    predictions = pl.DataFrame(rows)
    agreement = pl.DataFrame(
        {
            "judge": ["llm~local"] * 3,
            "condition": ["blind", "prefix12k", "nonblind"],
            "metric": ["pairwise_kappa"] * 3,
            "value": [0.1, 0.2, 0.3],
        }
    )
    conn = duckdb.connect()
    conn.register("predictions_frame", predictions)
    conn.register("agreement_frame", agreement)
    conn.execute("create table predictions as select * from predictions_frame")
    conn.execute("create table agreement as select * from agreement_frame")
    groups = condition_groups(predictions, local=frozenset({"local"}))
    assert groups.per_judge == {
        "llm": (("blind",), ("prefix12k",), ("nonblind",)),
        "local": (("blind", "prefix12k", "nonblind"),),
    }
    assert (
        "local gave identical answers under blind, prefix12k and nonblind: it is a local judge, which does not "
        "read the participant context"
    ) in groups.note()
    figures = measurement_figures(conn, tmp_path, groups)
    roc = [f.caption for f in figures if f.caption.startswith("ROC curves")]
    assert roc == [
        "ROC curves, blind = prefix12k = nonblind",
        "ROC curves, blind",
        "ROC curves, prefix12k",
        "ROC curves, nonblind",
    ]
    assert len([f for f in figures if f.caption.startswith("Cohen's kappa")]) == 3
    for figure in figures:
        assert plots.png_title(figure.path) == figure.caption


def test_every_caption_is_the_title_drawn_in_its_figure(demo_report):
    sections, _, tree, _ = demo_report
    shown = tree.css("section figure")
    assert len(shown) == sum(len(s.figures) for s in sections) >= 10
    for figure in shown:
        media, payload = re.fullmatch(r"data:([^;]+);base64,(.+)", figure.css_first("img").attributes["src"]).groups()
        assert media == "image/png"
        with Image.open(io.BytesIO(base64.b64decode(payload))) as image:
            drawn = image.text.get("Title", "")
        caption = figure.css_first(".caption").text()
        assert drawn and caption == drawn == figure.css_first("img").attributes["alt"]
        assert figure.css_first(".reading-guide").text().strip()
    guides = [f.reading_guide for s in sections for f in s.figures]
    kinds = [f.caption.split(",")[0] for s in sections for f in s.figures]
    assert len(set(guides)) == len(set(kinds))  # a guide per kind of figure, none borrowed from another kind
    survival = next(f for s in sections for f in s.figures if f.caption.startswith("Kaplan-Meier"))
    assert "censored" in survival.reading_guide and "not the share never solved" in survival.reading_guide
    shift = next(f for s in sections for f in s.figures if f.caption.startswith("Mean score shift"))
    assert "drawn 2% of the axis tall" in shift.reading_guide  # the demo's control band is [0, 0]


def test_the_demo_report_in_the_browser(demo_report, chromium, tmp_path):
    """At a narrow window the page never scrolls sideways: a wide table (the mutants) scrolls inside its column.
    The full-page screenshot shows the figures (many colours), and nothing is fetched."""
    _, html_path, _, _ = demo_report
    page = chromium.new_page(viewport={"width": 640, "height": 900})  # a phone on its side, a narrow window
    fetched = []
    page.on("request", lambda request: fetched.append(request.url))
    try:
        page.goto(html_path.as_uri(), wait_until="load")
        expect(page.get_by_role("heading", name="The judges as instruments", exact=True)).to_be_visible()
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        mutants = page.locator(".table-wrap", has=page.get_by_text("Mutants per operator and their verification"))
        sizes = mutants.evaluate(
            "w => [w.scrollWidth, w.clientWidth, getComputedStyle(w).overflowX, w.closest('section').clientWidth]"
        )
        assert sizes[0] > sizes[1] and sizes[2] == "auto" and sizes[1] <= sizes[3], sizes
        shot = tmp_path / "demo_report.png"
        page.screenshot(path=shot, full_page=True)
    finally:
        page.close()
    assert fetched == [html_path.as_uri()]
    assert png_colour_count(shot) > 200
