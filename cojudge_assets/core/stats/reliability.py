"""Krippendorff's alpha at the interval level in O(n) time and memory, without the coincidence matrix.

The ``krippendorff`` package (0.8, and the open issue pln-fing-udelar/fast-krippendorff#38 for 0.9) builds a
units x V x V array, V the number of distinct values: a continuous score has as many values as programs, so
1,630 units asked it for 32.4 GiB. For the interval metric ``delta(c, k) = (c - k)^2`` the coincidence-matrix
formula reduces to sums of squares (Krippendorff 2011, "Computing Krippendorff's alpha-reliability", eqs. for
D_o and D_e written over pairs of values instead of the matrix):

* a unit ``u`` with ``m_u >= 2`` values (the pairable units; the others carry no information on agreement)
  contributes ``sum_{i != j in u} (v_i - v_j)^2 / (m_u - 1)`` to ``n * D_o``, and the sum over the ordered pairs
  of a unit is ``2 * (m_u * sum v^2 - (sum v)^2)``;
* ``D_e`` is the same sum over all ordered pairs of the ``n`` pairable values, over ``n * (n - 1)``:
  ``2 * (n * sum v^2 - (sum v)^2) / (n * (n - 1))``;
* ``alpha = 1 - D_o / D_e``.

So each sum is a column sum, and the cost is linear in the number of values whatever V. The package stays the
reference in the tests (equal to 1e-9 on data where its V x V array fits).
"""

from __future__ import annotations

import numpy as np


def interval_alpha(reliability_data: np.ndarray) -> float:
    """Krippendorff's alpha, interval level, of ``reliability_data`` (coders x units, ``np.nan`` where a coder
    gave a unit no value), as ``krippendorff.alpha(reliability_data, level_of_measurement="interval")`` returns
    it. NaN when no unit is pairable or all pairable values are equal (no disagreement to compare with).

    >>> round(interval_alpha(np.array([[1, 2, 3, 4], [1, 2, 3, 5]])), 6)
    0.936937
    """
    data = np.asarray(reliability_data, dtype=np.float64)
    if data.ndim != 2:
        raise ValueError(f"reliability_data must have shape (coders, units), got {data.shape}")
    if np.isinf(data).any():
        raise ValueError("reliability_data must be finite or nan")
    present = ~np.isnan(data)
    m = present.sum(axis=0)
    pairable = m >= 2
    values = np.where(present, data, 0.0)[:, pairable]
    m = m[pairable].astype(np.float64)
    n = float(m.sum())
    if n < 2:
        return float("nan")
    # center on the mean before squaring: sums of squares of large offsets lose the small differences
    center = values[present[:, pairable]].mean()
    centered = np.where(present[:, pairable], values - center, 0.0)
    unit_sum, unit_squares = centered.sum(axis=0), (centered**2).sum(axis=0)
    observed = float(np.sum(2 * (m * unit_squares - unit_sum**2) / (m - 1))) / n
    total, squares = float(unit_sum.sum()), float(unit_squares.sum())
    expected = 2 * (n * squares - total**2) / (n * (n - 1))
    if expected <= 0 or np.ptp(values[present[:, pairable]]) == 0:
        return float("nan")
    return 1 - observed / expected
