"""Content versions: the sha256 of the columns' sorted CSV, hashed a slice at a time."""

from __future__ import annotations

import hashlib

import numpy as np
import polars as pl
import pytest

from cojudge_assets.defs import versions


def whole_csv_version(table: pl.DataFrame, columns: list[str]) -> str:
    """The version as it was computed before slicing: the whole CSV text at once."""
    return hashlib.sha256(table.select(columns).sort(columns).write_csv().encode()).hexdigest()[:32]


@pytest.mark.parametrize("slice_rows", [1, 3, 1_000])
def test_the_sliced_digest_is_the_whole_texts(monkeypatch, slice_rows):
    monkeypatch.setattr(versions, "CSV_SLICE_ROWS", slice_rows)
    rng = np.random.default_rng(3)
    n = 257
    table = pl.DataFrame(
        {
            "attempt_uid": [f'u,{i}"q' if i % 7 == 0 else f"u{i}" for i in range(n)],  # quoted fields
            "p_accept": [None if i % 5 == 0 else float(x) for i, x in enumerate(rng.random(n))],
            "s_algo": rng.integers(1, 6, n),
        }
    )
    for columns in (["attempt_uid", "p_accept"], ["s_algo", "attempt_uid"], ["p_accept"]):
        assert versions.content_version(table, columns).value == whole_csv_version(table, columns)
        shuffled = table.sample(fraction=1.0, shuffle=True, seed=1)
        assert versions.content_version(shuffled, columns) == versions.content_version(table, columns)
    assert versions.content_version(table.head(0), ["attempt_uid"]).value == whole_csv_version(
        table.head(0), ["attempt_uid"]
    )
    moved = table.with_columns(pl.when(pl.int_range(n) == 100).then(0.5).otherwise("p_accept").alias("p_accept"))
    assert versions.content_version(moved, ["p_accept"]) != versions.content_version(table, ["p_accept"])
