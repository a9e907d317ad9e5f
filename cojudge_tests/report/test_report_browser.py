"""A written report opened from disk in headless chromium: every figure shows, nothing is fetched, no error."""

from __future__ import annotations

import numpy as np
import polars as pl

from cojudge_assets.core.measurement.calibration import reliability_table
from cojudge_assets.core.report import plots
from cojudge_assets.core.report.document import Figure, Section, Table, write_report
from cojudge_tests.report.browser import expect, png_colour_count

TITLE = "How far can an LLM judge of code be trusted?"


def judge_scores(seed: int, n: int = 150):
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(size=n), 2)
    return p, (rng.uniform(size=n) < p).astype(int)


def study_sections(figures_dir) -> list[Section]:
    """Two sections with the figures the study draws (core/report/plots.py) and two tables."""
    roc = plots.roc_curves(
        {"static-rubric": judge_scores(0), "sample-exec": judge_scores(1)},
        figures_dir / "roc.png",
        "ROC, blind condition",
    )
    reliability = plots.reliability_diagram(
        {"static-rubric": reliability_table(*judge_scores(0))},
        figures_dir / "reliability.png",
        "Reliability, blind condition",
    )
    auc = plots.bars(
        ["static-rubric", "sample-exec"],
        [0.71, 0.78],
        figures_dir / "auc.png",
        "ROC-AUC",
        "ROC-AUC",
        lo=[0.64, 0.72],
        hi=[0.77, 0.83],
    )
    metrics = pl.DataFrame(
        {
            "judge": ["static-rubric", "sample-exec", "panel"],
            "roc_auc": [0.71234, 0.78456, None],
            "ece": [0.0812, 0.0433, 0.05],
            "n": [150, 150, 150],
        }
    )
    per_problem = pl.DataFrame({"problem": [f"p{i:02d}" for i in range(55)], "roc_auc": np.linspace(0.4, 0.95, 55)})
    return [
        Section(
            "Ranking",
            "How well each judge orders accepted attempts above rejected ones.",
            tables=(Table("Judge metrics, blind condition", metrics),),
            figures=(
                Figure(
                    roc,
                    "ROC curves",
                    "The further a curve bows to the upper left, the better the judge ranks; the diagonal is chance.",
                ),
                Figure(
                    auc,
                    "ROC-AUC with trajectory-bootstrap intervals",
                    "Bars whose intervals do not overlap differ beyond resampling noise.",
                ),
            ),
        ),
        Section(
            "Calibration",
            "Whether a stated probability of acceptance matches how often attempts pass.",
            tables=(Table("ROC-AUC per problem", per_problem, max_rows=20),),
            figures=(
                Figure(
                    reliability,
                    "Reliability diagram",
                    "Points on the diagonal are calibrated; below it the judge is over-confident.",
                ),
            ),
        ),
    ]


def test_report_page_shows_every_figure_without_fetching(chromium, tmp_path):
    sections = study_sections(tmp_path / "drawn")
    html_path, _ = write_report(
        tmp_path / "report",
        TITLE,
        sections,
        run_config={"folds": 10, "resamples": 2000, "seed": 20260314},
        generated_at="2026-03-14 12:00 UTC",
    )
    page_url = html_path.as_uri()

    page = chromium.new_page(viewport={"width": 1200, "height": 900})
    requests, console_errors = [], []
    page.on("request", lambda request: requests.append(request.url))
    page.on("console", lambda message: console_errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(str(error)))
    try:
        page.goto(page_url, wait_until="load")

        images = page.evaluate(
            "() => [...document.images].map(i => ({complete: i.complete, "
            "width: i.naturalWidth, src: i.src.slice(0, 22)}))"
        )
        assert len(images) == 3
        for image in images:
            assert image["complete"] and image["width"] > 0, image
            assert image["src"] == "data:image/png;base64,"

        figures = page.locator("figure")
        expect(figures).to_have_count(3)
        for i in range(3):
            guide = figures.nth(i).locator(".reading-guide")
            expect(guide).to_be_visible()
            assert guide.inner_text().strip()

        expect(page.get_by_role("heading", name=TITLE, exact=True)).to_be_visible()
        for title in ("Ranking", "Calibration", "Run configuration"):
            heading = page.get_by_role("heading", name=title, exact=True)
            expect(heading).to_be_visible()
            section_id = page.locator("section", has=heading).get_attribute("id")
            expect(page.get_by_role("link", name=title, exact=True)).to_have_attribute("href", f"#{section_id}")
        page.get_by_role("link", name="Run configuration", exact=True).click()
        expect(page.get_by_role("heading", name="Run configuration", exact=True)).to_be_in_viewport()
        expect(page.get_by_role("cell", name="20260314", exact=True)).to_be_visible()
        expect(page.get_by_text("… 35 more rows")).to_be_visible()
        expect(page.get_by_role("cell", name="0.712", exact=True)).to_be_visible()

        shot = page.screenshot(path=tmp_path / "report_page.png", full_page=True)
        print(f"report screenshot: {tmp_path / 'report_page.png'}")
    finally:
        page.close()

    assert requests == [page_url], "the report fetched something besides itself"
    assert console_errors == []
    assert len(shot) > 50_000  # three embedded plots at full page height
    assert png_colour_count(tmp_path / "report_page.png") > 100  # plot lines and anti-aliased text, not a blank page
