"""Every figure docs/methodology.md quotes from the graded study is in the stored tables it came from.

The tables are docs/figures/graded-<corpus>.csv (``graded_metrics``) and graded-<corpus>-edit-size.csv
(``edit_size_by_ceiling``), written by ``bench/graded_study.py --store``. The docs quote them in blocks between
``<!-- graded-figures:<corpus> -->`` and ``<!-- /graded-figures -->``: each block holds the lines
:func:`figures_markdown` renders from the stored tables, and every other number in the block (the prose that
reads the tables) must be printed in those lines, sign and decimals as there (or be a ceiling, 0 to 5)."""

from __future__ import annotations

import re

import polars as pl
import pytest

from cojudge_assets.core.graded.metrics import METRIC_SCHEMA, figures_markdown
from cojudge_tests.conftest import REPO

FIGURES = REPO / "docs" / "figures"
METHODOLOGY = REPO / "docs" / "methodology.md"
BLOCK = re.compile(r"<!-- graded-figures:(?P<corpus>[\w-]+) -->(?P<body>.*?)<!-- /graded-figures -->", re.DOTALL)
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e-?\d+)?(?![\w])")


def stored(corpus: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    metrics = pl.read_csv(FIGURES / f"graded-{corpus}.csv", schema_overrides=METRIC_SCHEMA)
    sizes = pl.read_csv(FIGURES / f"graded-{corpus}-edit-size.csv")
    return metrics, sizes


def blocks() -> list[tuple[str, str]]:
    return [(m["corpus"], m["body"]) for m in BLOCK.finditer(METHODOLOGY.read_text(encoding="utf-8"))]


def test_the_graded_study_is_quoted_from_stored_tables():
    quoted = {corpus for corpus, _ in blocks()}
    tables = {p.name.removeprefix("graded-").removesuffix(".csv") for p in FIGURES.glob("graded-*.csv")}
    tables = {t for t in tables if not t.endswith("-edit-size")}
    assert quoted, "docs/methodology.md quotes no stored graded figures"
    assert quoted == tables, f"quoted {sorted(quoted)}, stored {sorted(tables)}: each stored table is quoted"


@pytest.mark.parametrize("corpus", sorted({c for c, _ in blocks()}))
def test_every_graded_figure_in_the_docs_is_in_the_stored_table(corpus):
    metrics, sizes = stored(corpus)
    body = "\n".join(b for c, b in blocks() if c == corpus)
    rendered = figures_markdown(metrics, sizes)
    for line in rendered.splitlines():
        if line.strip():
            assert line.strip() in body, f"{corpus}: the stored table's line is not in the docs: {line}"
    # prose may quote only what the lines rendered from the stored table print (and the ceilings 0..5)
    allowed = set(NUMBER.findall(rendered)) | {str(k) for k in range(0, 6)}
    prose = [line for line in body.splitlines() if line.strip() and line.strip() not in rendered]
    for line in prose:
        for number in NUMBER.findall(line):
            assert number in allowed, f"{corpus}: {number} in '{line.strip()}' is not a stored figure"
