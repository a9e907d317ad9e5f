"""Small helpers for showing tables (asset metadata, reports)."""

from __future__ import annotations

import polars as pl


def markdown_table(frame: pl.DataFrame, *, max_rows: int = 50) -> str:
    """A Markdown table of the first ``max_rows`` rows (a note says how many were left out).

    >>> print(markdown_table(pl.DataFrame({"a": [1], "b": ["x"]})))
    | a | b |
    |---|---|
    | 1 | x |
    """
    head = frame.head(max_rows)
    lines = ["| " + " | ".join(head.columns) + " |", "|" + "---|" * len(head.columns)]
    lines += ["| " + " | ".join("" if v is None else str(v) for v in row) + " |" for row in head.iter_rows()]
    if frame.height > max_rows:
        lines.append(f"\n({frame.height - max_rows} more rows not shown)")
    return "\n".join(lines)
