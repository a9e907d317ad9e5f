"""The cluster bootstrap shared by measurement, dynamics, drift, consensus, correlation and perturbation.

Clusters (trajectories, problems, mutation seeds) are drawn with replacement,
as many as there are; an observation's weight in a resample is the number of
times its cluster was drawn. Resample ``b`` is therefore a row of counts, never
a copied table, and a statistic over B resamples is a few matrix products (the
metric functions of core/stats/metrics.py take such a (B, n) matrix as
``sample_weight``).

Resamples are generated in fixed blocks of ``BLOCK`` rows by
``numpy.random.default_rng(seed).multinomial(G, [1/G] * G)``, so the same seed
gives the same resamples whatever the data size and however the caller splits
the blocks. Memory stays bounded: :func:`cluster_weights` cuts its blocks so
that one block of weight rows holds at most ``MAX_CELLS`` numbers (rows x
observations; at most ``BLOCK`` rows, at least one), so a million observations
take blocks of 4 rows (32 MB), never n x B. The cut does not change the draws. ``seed`` may also be a
``numpy.random.Generator``, for a caller that draws several sets of resamples
from one stream.

Intervals are percentile intervals of the replicates; replicates that are NaN
(a resample in which the statistic is undefined, e.g. a ROC-AUC drawn without
any accepted attempt) are left out.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

BLOCK = 250
MAX_CELLS = 1 << 22  # numbers in one block of weight rows (32 MB of float64): the bound on a block's memory


def cluster_codes(*keys: np.ndarray) -> np.ndarray:
    """Integer cluster ids (0..G-1) for the rows of one or more key columns, in sorted key order.

    >>> cluster_codes(np.array(["p", "q", "p"]), np.array(["A", "A", "A"])).tolist()
    [0, 1, 0]
    """
    joined = np.array(["\x1f".join(map(str, parts)) for parts in zip(*keys)], dtype=object)
    _, codes = np.unique(joined, return_inverse=True)
    return codes.astype(np.int64)


def column_cluster_codes(columns: list) -> np.ndarray:
    """:func:`cluster_codes` of string columns (polars Series), computed by polars: the same codes (the joined key
    sorted by code point, as Python sorts strings; UTF-8's byte order is that order), without a Python string per
    row (at a million attempts, 3 million objects and most of a second each). A column with a null falls back to
    :func:`cluster_codes` (``str(None)``).

    >>> import polars as pl
    >>> column_cluster_codes([pl.Series(["p", "q", "p"]), pl.Series(["A", "A", "A"])]).tolist()
    [0, 1, 0]
    """
    import polars as pl

    if not columns or not len(columns[0]):
        return np.zeros(0, dtype=np.int64)
    if any(column.null_count() or column.dtype != pl.String for column in columns):
        return cluster_codes(*(column.to_numpy() for column in columns))
    key = pl.DataFrame({f"k{i}": column for i, column in enumerate(columns)}).select(
        pl.concat_str(pl.all(), separator="\x1f").rank("dense").cast(pl.Int64) - 1
    )
    return key.to_series().to_numpy()


def cluster_counts(
    n_clusters: int, n_resamples: int, seed: int | np.random.Generator, *, block: int = BLOCK
) -> Iterator[np.ndarray]:
    """Blocks of bootstrap count rows (at most ``block``, ``n_clusters``): G draws with replacement out of G.

    The rows do not depend on ``block``: one stream of draws, cut where the caller likes.

    >>> counts = np.concatenate(list(cluster_counts(4, 600, seed=0)))
    >>> counts.shape, bool((counts.sum(axis=1) == 4).all())
    ((600, 4), True)
    """
    if n_clusters < 0 or n_resamples < 0 or block < 1:
        raise ValueError(
            f"n_clusters and n_resamples must be nonnegative and block positive, got {n_clusters}, "
            f"{n_resamples} and {block}"
        )
    rng = np.random.default_rng(seed)  # a Generator is passed through unchanged
    probabilities = np.full(n_clusters, 1.0 / max(n_clusters, 1))
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        yield rng.multinomial(n_clusters, probabilities, size=rows).astype(np.float64)


def block_rows(n_columns: int, max_cells: int = MAX_CELLS) -> int:
    """Rows in one block of ``n_columns`` columns: ``BLOCK``, fewer when that would exceed ``max_cells`` numbers.

    >>> block_rows(517), block_rows(1_000_000)
    (250, 4)
    """
    return max(1, min(BLOCK, max_cells // max(n_columns, 1)))


def cluster_weights(
    clusters: np.ndarray, n_resamples: int, seed: int | np.random.Generator, *, max_cells: int = MAX_CELLS
) -> Iterator[np.ndarray]:
    """Blocks of bootstrap weight rows over the observations: each row draws the G clusters G times.

    A block has :func:`block_rows` rows (at most ``max_cells`` numbers); the rows are the same however they are
    cut.

    ``clusters`` holds each observation's cluster id in 0..G-1 (:func:`cluster_codes`).
    Every observation of a cluster gets that cluster's count, so a cluster is
    drawn whole or not at all.

    >>> w = next(cluster_weights(np.array([0, 0, 1]), 3, seed=1))  # attempts 0 and 1 share cluster 0
    >>> bool((w[:, 0] == w[:, 1]).all()), (w[:, 0] + w[:, 2]).tolist()
    (True, [2.0, 2.0, 2.0])
    """
    clusters = np.asarray(clusters, dtype=np.int64)
    n_clusters = int(clusters.max()) + 1 if len(clusters) else 0
    for counts in cluster_counts(n_clusters, n_resamples, seed, block=block_rows(len(clusters), max_cells)):
        yield counts[:, clusters]


def interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of bootstrap replicates: the (1 - level)/2 and (1 + level)/2 quantiles.

    NaN and infinite replicates are ignored; with none left the interval is (nan, nan).

    >>> interval(np.array([0.0, 1.0, 2.0, 3.0, np.nan]), level=0.5)
    (0.75, 2.25)
    """
    samples = np.asarray(samples, dtype=np.float64)
    finite = samples[np.isfinite(samples)]
    if len(finite) == 0:
        return float("nan"), float("nan")
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(finite, [tail, 100 - tail])
    return float(lo), float(hi)
