"""The cluster bootstrap in bounded memory (core/stats/bootstrap.py): blocks cut by size, the same draws."""

import tracemalloc

import numpy as np
import pytest

from cojudge_assets.core.stats import metrics as m
from cojudge_assets.core.stats.bootstrap import BLOCK, block_rows, cluster_weights


def test_a_block_holds_at_most_max_cells_numbers_and_at_least_one_row():
    assert block_rows(100) == BLOCK
    assert block_rows(1_000_000, max_cells=4_000_000) == 4
    assert block_rows(10_000_000, max_cells=4_000_000) == 1


def test_the_weights_are_the_same_however_small_the_blocks():
    clusters = np.repeat(np.arange(700), 3)
    whole = np.concatenate(list(cluster_weights(clusters, 300, seed=11, max_cells=10**9)))
    blocks = list(cluster_weights(clusters, 300, seed=11, max_cells=5_000))
    assert max(len(b) for b in blocks) == 2  # 5,000 numbers over 2,100 observations
    assert np.array_equal(np.concatenate(blocks), whole)


@pytest.mark.slow  # a million observations, 64 resamples: about 10 s on a loaded machine
def test_a_bootstrap_of_a_million_observations_stays_within_its_block_budget():
    n, resamples = 1_000_000, 64
    rng = np.random.default_rng(0)
    clusters = np.arange(n) // 3  # trajectories of three attempts
    values = rng.random(n)
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        replicates = np.concatenate(
            [m.weighted_mean(values, sample_weight=w) for w in cluster_weights(clusters, resamples, seed=1)]
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert replicates.shape == (resamples,) and np.isfinite(replicates).all()
    # one block of 64 x n (the old fixed 250-row blocks) peaked at 670 MB;
    # a block of 4 rows is 32 MB, and a few such arrays live at once
    assert peak - base < 200 * 2**20, f"peak {(peak - base) / 2**20:.0f} MB"
    assert abs(replicates.mean() - values.mean()) < 0.01
