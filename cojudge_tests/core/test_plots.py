"""Plots: every function writes a PNG, creates its folder, closes its figure, and is deterministic."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.axes import Axes

from cojudge_assets.core.measurement.calibration import reliability_table
from cojudge_assets.core.report import plots

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def judge_scores(seed: int, n: int = 120):
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(size=n), 2)
    return p, (rng.uniform(size=n) < p).astype(int)


def draw_roc(path):
    return plots.roc_curves(
        {"judge A": judge_scores(0), "judge B": judge_scores(1), "one class": (np.array([0.2, 0.8]), np.array([1, 1]))},
        path,
        "ROC",
    )


def draw_reliability(path):
    return plots.reliability_diagram(
        {"judge A": reliability_table(*judge_scores(0)), "sparse": reliability_table([0.1, 0.95], [0, 1])},
        path,
        "Reliability",
    )


def draw_heatmap(path):
    matrix = np.array([[1.0, 0.42, -0.3], [0.42, 1.0, np.nan], [-0.3, np.nan, 1.0]])
    return plots.heatmap(matrix, ["claude", "deepseek", "gemini"], path, "Cohen's kappa")


def draw_band(path):
    turns = np.arange(1, 11)
    rate = 0.6 + 0.025 * (turns - 1)
    return plots.line_with_band(
        turns, rate, rate - 0.07, rate + 0.05, path, "Success@Turn", "turn", "share solved", label="all trajectories"
    )


def draw_bars(path):
    return plots.bars(
        ["claude", "deepseek", "gemini", "openai"],
        [0.70, 0.77, 0.75, 0.72],
        path,
        "ROC-AUC",
        "ROC-AUC",
        lo=[0.63, 0.72, 0.69, 0.64],
        hi=[0.76, 0.82, 0.80, 0.79],
    )


def draw_bars_plain(path):
    return plots.bars(["a", "b"], [1.0, 2.0], path, "counts", "n")


DRAWINGS = [draw_roc, draw_reliability, draw_heatmap, draw_band, draw_bars, draw_bars_plain]


@pytest.mark.parametrize("draw", DRAWINGS, ids=lambda f: f.__name__)
def test_writes_png_in_new_folder_and_closes_figure(draw, tmp_path):
    plt.close("all")
    target = tmp_path / "figures" / "nested" / f"{draw.__name__}.png"
    written = draw(str(target))
    assert written == target
    data = target.read_bytes()
    assert len(data) > 1000 and data[:8] == PNG_SIGNATURE
    assert plt.get_fignums() == []


@pytest.mark.parametrize("draw", DRAWINGS, ids=lambda f: f.__name__)
def test_same_inputs_same_bytes(draw, tmp_path):
    assert draw(tmp_path / "one.png").read_bytes() == draw(tmp_path / "two.png").read_bytes()


def test_heatmap_annotates_every_cell_but_nan(tmp_path, monkeypatch):
    annotations = []
    original = Axes.text

    def recording_text(self, x, y, s, *args, **kwargs):
        annotations.append((x, y, s))
        return original(self, x, y, s, *args, **kwargs)

    monkeypatch.setattr(Axes, "text", recording_text)
    draw_heatmap(tmp_path / "nan.png")
    # 9 cells, 2 of them nan; (x, y) = (column, row)
    assert sorted(annotations) == sorted(
        [
            (0, 0, "1.00"),
            (1, 0, "0.42"),
            (2, 0, "-0.30"),
            (0, 1, "0.42"),
            (1, 1, "1.00"),
            (0, 2, "-0.30"),
            (2, 2, "1.00"),
        ]
    )


def test_bad_shapes_raise(tmp_path):
    with pytest.raises(ValueError, match="square"):
        plots.heatmap(np.zeros((2, 3)), ["a", "b"], tmp_path / "h.png", "t")
    with pytest.raises(ValueError, match="labels"):
        plots.heatmap(np.zeros((2, 2)), ["a"], tmp_path / "h.png", "t")
    with pytest.raises(ValueError, match="both lo and hi"):
        plots.bars(["a"], [1.0], tmp_path / "b.png", "t", "y", lo=[0.5])
    assert plt.get_fignums() == []
