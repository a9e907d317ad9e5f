"""Figures for the measurement report, as PNG files.

Every function draws one figure with the non-interactive Agg backend, writes it
to ``path`` (creating parent folders), closes it, and returns the ``Path``. The
same inputs give the same bytes: fixed size and resolution, no timestamp or
software tag in the PNG metadata.

- ``roc_curves``: one ROC curve per label from (p, y) via
  ``sklearn.metrics.roc_curve``, its ROC-AUC in the legend, the chance diagonal.
- ``reliability_diagram``: from ``calibration.reliability_table`` outputs,
  observed acceptance rate against mean predicted probability per non-empty
  bin, marker area proportional to the bin's count, the diagonal of perfect
  calibration.
- ``heatmap``: a square matrix (e.g. pairwise agreement) with each cell
  annotated to two decimals; nan cells are left blank.
- ``line_with_band``: a line with a shaded interval (e.g. Success@Turn with its
  bootstrap interval).
- ``bars``: one bar per label, with an optional interval drawn from lo to hi.
- ``kaplan_meier``: lifelines' Kaplan-Meier curve with its interval and a cross
  at each censored duration (a trajectory that stopped unsolved).

Each PNG carries its figure's title in its ``Title`` text chunk (:func:`png_title`),
so a caption can be checked against the title drawn in the image.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import numpy as np
import polars as pl

from cojudge_assets.core.measurement import calibration
from cojudge_assets.core.measurement.measure import Universe, condition_panel, panel_kappa_matrix

FIGSIZE = (6.0, 4.5)
SQUARE_FIGSIZE = (6.0, 5.5)
DPI = 120
PNG_METADATA = {"Software": None}  # matplotlib's version string would tie the bytes to the install
MAX_MARKER_AREA = 400.0
MIN_BAND_FRACTION = 0.02  # a control band narrower than this share of the y axis is widened to it, to be seen


MAX_FIGURE_STEM = 80  # a figure's name, well under a file name's 255 bytes


def figure_file(folder: Path, prefix: str, name: str) -> Path:
    """``folder/<prefix>_<name>.png`` for a judge (or other) ``name`` that is safe in a file name and short; else the
    name's safe characters, cut, and a hash of the whole name, so a name that the judges file no longer allows but
    a stored table still holds (a judge since removed) never fails the figure with ``File name too long``.

    >>> figure_file(Path("f"), "bias", "gpt-5.2").name
    'bias_gpt-5.2.png'
    >>> len(figure_file(Path("f"), "bias", "j" * 300).name)
    62
    """
    import hashlib
    import re

    stem = f"{prefix}_{name}"
    if re.fullmatch(r"[A-Za-z0-9._-]+", name) and len(stem) <= MAX_FIGURE_STEM:
        return Path(folder) / f"{stem}.png"
    digest = hashlib.sha256(name.encode()).hexdigest()[:12]
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:40]
    return Path(folder) / f"{prefix}_{safe}-{digest}.png"


def remove_figures(folder: Path, *names: str) -> list[Path]:
    """Delete an asset's earlier figures before it draws again: ``<name>.png`` and ``<name>_*.png`` for each name
    (every PNG in ``folder`` when no name is given, for an asset that owns the folder). A figure the asset does not
    draw this time (no predictions yet, a condition gone) is then not left on disk for the report to embed."""
    folder = Path(folder)
    patterns = [p for name in names for p in (f"{name}.png", f"{name}_*.png")] or ["*.png"]
    removed = sorted({path for pattern in patterns for path in folder.glob(pattern) if path.is_file()})
    for path in removed:
        path.unlink()
    return removed


def _pyplot():
    """matplotlib's pyplot with the non-interactive Agg backend chosen before it loads. Imported on the first
    figure, not with this module: loading the Definitions must not pay for matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def subplots(*args, **kwargs):
    """``matplotlib.pyplot.subplots`` on the Agg backend: every figure of the package starts here."""
    return _pyplot().subplots(*args, **kwargs)


def _save(fig, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    title = next((ax.get_title() for ax in fig.axes if ax.get_title()), "")
    try:
        fig.tight_layout()
        fig.savefig(path, format="png", dpi=DPI, metadata={**PNG_METADATA, "Title": title or None})
    finally:
        _pyplot().close(fig)
    return path


def png_title(path) -> str:
    """The title a figure of this module was drawn with (its PNG ``Title`` chunk; "" if it has none)."""
    from PIL import Image
    from PIL.PngImagePlugin import PngImageFile

    with Image.open(path) as image:
        return image.text.get("Title", "") if isinstance(image, PngImageFile) else ""


def roc_curves(curves: dict[str, tuple[np.ndarray, np.ndarray]], path, title: str) -> Path:
    """One ROC curve per label from its (p, y); a label whose y has one class gets no curve."""
    from sklearn.metrics import roc_auc_score, roc_curve

    fig, ax = subplots(figsize=FIGSIZE)
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="chance")
    for label, (p, y) in curves.items():
        p, y = np.asarray(p, dtype=float), np.asarray(y)
        if np.unique(y).size < 2:
            ax.plot([], [], label=f"{label} (one class: no ROC)")
            continue
        fpr, tpr, _ = roc_curve(y, p)
        ax.plot(fpr, tpr, linewidth=1.5, label=f"{label} (AUC {roc_auc_score(y, p):.3f})")
    ax.set(xlim=(0, 1), ylim=(0, 1.01), xlabel="false positive rate", ylabel="true positive rate", title=title)
    ax.set_aspect("equal")
    ax.legend(loc="lower right", fontsize="small")
    return _save(fig, path)


def reliability_diagram(tables: dict[str, pl.DataFrame], path, title: str) -> Path:
    """Observed rate against mean predicted probability per bin, marker area by bin count."""
    fig, ax = subplots(figsize=SQUARE_FIGSIZE)
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="perfect calibration")
    filled = {label: table.filter(pl.col("n") > 0).sort("bin") for label, table in tables.items()}
    largest = max((int(cast(int, t["n"].max())) for t in filled.values() if t.height), default=1)
    for label, table in filled.items():
        mean_p, observed = table["mean_p"].to_numpy(), table["observed_rate"].to_numpy()
        (line,) = ax.plot(mean_p, observed, linewidth=1, label=label)
        ax.scatter(
            mean_p,
            observed,
            s=MAX_MARKER_AREA * table["n"].to_numpy() / largest,
            color=line.get_color(),
            alpha=0.6,
            edgecolors="none",
        )
    ax.set(
        xlim=(0, 1), ylim=(0, 1), xlabel="mean predicted probability", ylabel="observed acceptance rate", title=title
    )
    ax.set_aspect("equal")
    ax.legend(loc="upper left", fontsize="small")
    return _save(fig, path)


def heatmap(matrix: np.ndarray, labels: list[str], path, title: str, vmin: float = -1, vmax: float = 1) -> Path:
    """A square matrix with its values to two decimals; nan cells blank."""
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"heatmap needs a square matrix, got shape {matrix.shape}")
    if len(labels) != matrix.shape[0]:
        raise ValueError(f"{len(labels)} labels for a {matrix.shape[0]}x{matrix.shape[0]} matrix")
    fig, ax = subplots(figsize=SQUARE_FIGSIZE)
    image = ax.imshow(np.ma.masked_invalid(matrix), cmap="RdBu_r", vmin=vmin, vmax=vmax)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    ticks = np.arange(len(labels))
    ax.set_xticks(ticks, labels, rotation=45, ha="right")
    ax.set_yticks(ticks, labels)
    span = vmax - vmin
    for (row, col), value in np.ndenumerate(matrix):
        if np.isnan(value):
            continue
        # white text on the saturated ends of the colour map, black in its pale middle
        strong = span > 0 and abs((value - vmin) / span - 0.5) > 0.3
        ax.text(
            col, row, f"{value:.2f}", ha="center", va="center", fontsize="small", color="white" if strong else "black"
        )
    ax.set_title(title)
    return _save(fig, path)


def line_with_band(x, y, lo, hi, path, title: str, xlabel: str, ylabel: str, label: str | None = None) -> Path:
    """A line through (x, y) with the interval [lo, hi] shaded around it."""
    x, y, lo, hi = (np.asarray(a, dtype=float) for a in (x, y, lo, hi))
    if not x.shape == y.shape == lo.shape == hi.shape:
        raise ValueError(f"x, y, lo, hi differ in shape: {x.shape}, {y.shape}, {lo.shape}, {hi.shape}")
    fig, ax = subplots(figsize=FIGSIZE)
    (line,) = ax.plot(x, y, marker="o", markersize=3, linewidth=1.5, label=label)
    ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.25, linewidth=0)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    if label is not None:
        ax.legend(fontsize="small")
    return _save(fig, path)


def bars(labels: list[str], values, path, title: str, ylabel: str, lo=None, hi=None) -> Path:
    """One bar per label; with ``lo`` and ``hi``, an interval drawn from lo to hi.

    The interval is drawn at its own ends, not as an offset from the bar, so an
    interval that does not contain the point estimate is shown as it is.
    """
    values = np.asarray(values, dtype=float)
    if len(labels) != values.size:
        raise ValueError(f"{len(labels)} labels for {values.size} values")
    if (lo is None) != (hi is None):
        raise ValueError("give both lo and hi, or neither")
    fig, ax = subplots(figsize=FIGSIZE)
    positions = np.arange(values.size)
    ax.bar(positions, values, color="tab:blue", alpha=0.8)
    if lo is not None:
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        if not lo.shape == hi.shape == values.shape:
            raise ValueError(f"lo and hi must have shape {values.shape}, got {lo.shape} and {hi.shape}")
        ax.errorbar(
            positions, (lo + hi) / 2, yerr=np.abs(hi - lo) / 2, fmt="none", ecolor="black", capsize=4, linewidth=1
        )
    ax.set_xticks(positions, labels, rotation=30 if values.size > 4 else 0, ha="right" if values.size > 4 else "center")
    ax.set(ylabel=ylabel, title=title)
    return _save(fig, path)


def histogram(values, path, title: str, xlabel: str, bins: int = 20, value_range=(0.0, 1.0)) -> Path:
    """A histogram of ``values`` (nan ignored) over ``value_range``."""
    values = np.asarray(values, dtype=float)
    fig, ax = subplots(figsize=FIGSIZE)
    ax.hist(values[np.isfinite(values)], bins=bins, range=value_range, color="tab:blue", alpha=0.8)
    ax.set(xlabel=xlabel, ylabel="count", title=title)
    return _save(fig, path)


def trajectories(series: dict[str, tuple[list, list, list]], path, title: str, xlabel: str, ylabel: str) -> Path:
    """One line per label through (x, y); points where the third list is true are marked with a star."""
    fig, ax = subplots(figsize=FIGSIZE)
    for label, (x, y, marked) in series.items():
        (line,) = ax.plot(x, y, marker="o", markersize=3, linewidth=1.2, label=label)
        hits = [(a, b) for a, b, m in zip(x, y, marked) if m]
        if hits:
            hit_x, hit_y = zip(*hits)
            ax.scatter(hit_x, hit_y, marker="*", s=120, color=line.get_color(), zorder=3)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    if series:
        ax.legend(fontsize="x-small")
    return _save(fig, path)


def boxes(groups: dict[str, list[float]], path, title: str, ylabel: str) -> Path:
    """One box per group (empty groups drawn empty)."""
    fig, ax = subplots(figsize=FIGSIZE)
    labels = list(groups)
    ax.boxplot([np.asarray(groups[k], dtype=float) for k in labels], tick_labels=labels)
    ax.set(ylabel=ylabel, title=title)
    return _save(fig, path)


def measurement_figures(u: Universe, folder: Path) -> dict[str, str]:
    """ROC curves, reliability diagrams and the kappa heatmap per condition, from the cells of the universe
    (core/measurement/measure.py); {name: PNG path}."""
    files = {}
    for condition in sorted(u.conditions):
        curves, tables = {}, {}
        for judge in sorted(j for j, c in u.cells if c == condition):
            cell = u.cells[(judge, condition)]
            curves[judge] = (cell.p, cell.y)
            tables[judge] = calibration.reliability_table(cell.p, cell.y)
        files[f"roc_{condition}"] = str(roc_curves(curves, folder / f"roc_{condition}.png", f"ROC curves, {condition}"))
        files[f"reliability_{condition}"] = str(
            reliability_diagram(tables, folder / f"reliability_{condition}.png", f"Reliability (15 bins), {condition}")
        )
        # pairs on the attempts both answered; core/dynamics/pooling.py's rule
        judges, kappa, left_out = panel_kappa_matrix(condition_panel(u, condition))
        if len(judges) >= 2:
            title = f"Cohen's kappa (median cuts), {condition}"
            if left_out:
                title += "\nleft out: " + ", ".join(f"{x.judge} ({x.reason.replace('_', ' ')})" for x in left_out)
            files[f"kappa_{condition}"] = str(heatmap(kappa, judges, folder / f"kappa_{condition}.png", title))
    return files


STRUGGLE_TITLE = "Struggle curves: rank consensus q per attempt (star: accepted)"


def struggle_curves(table: pl.DataFrame, path, title: str = STRUGGLE_TITLE) -> Path:
    """q per attempt for the three longest solved and the three longest unsolved trajectories (rank_consensus rows)."""
    lengths = table.group_by("participant", "problem_id").agg(pl.len().alias("n"), pl.col("accepted").any())
    series = {}
    for solved in (True, False):
        longest = (
            lengths.filter(pl.col("accepted") == solved)
            .sort("n", "participant", "problem_id", descending=[True, False, False])
            .head(3)
        )
        for r in longest.iter_rows(named=True):
            mine = table.filter(
                (pl.col("participant") == r["participant"]) & (pl.col("problem_id") == r["problem_id"])
            ).sort("turn")
            label = f"{r['participant']}/{r['problem_id']} ({'solved' if solved else 'unsolved'})"
            series[label] = (mine["turn"].to_list(), mine["q"].to_list(), mine["accepted"].to_list())
    return trajectories(series, path, title, "turn", "q")


def shift_by_operator(metrics: pl.DataFrame, order: list[str], path, title: str) -> Path:
    """Mean shift p(mutant) - p(seed) per operator (x in ``order``: semantic by severity, then the others), one
    series per judge with its seed-bootstrap interval; the grey band is the control arm's mean shift interval
    (pooled over judges: min lo to max hi, :func:`control_interval`), its ends drawn as dashed lines. A band
    narrower than ``MIN_BAND_FRACTION`` of the y axis (judges that never move on a control edit give [0, 0]) is
    drawn that tall around its centre so that it can be seen; its legend entry then says so."""
    rows = metrics.filter(pl.col("metric") == "mean_shift")
    fig, ax = subplots(figsize=FIGSIZE)
    positions = {op: i for i, op in enumerate(order)}
    judges = sorted(set(rows["judge"].to_list()))
    for k, judge in enumerate(judges):
        mine = rows.filter((pl.col("judge") == judge) & pl.col("subset").is_in(order))
        x = np.array([positions[s] for s in mine["subset"].to_list()], dtype=float) + (k - len(judges) / 2) * 0.08
        y, lo, hi = (mine[c].to_numpy().astype(float) for c in ("value", "lo", "hi"))
        ax.errorbar(x, y, yerr=[np.abs(y - lo), np.abs(hi - y)], fmt="o", capsize=3, label=judge)
    ax.axhline(0, color="black", linewidth=0.8)
    band = control_interval(metrics)
    if band is not None:
        band_lo, band_hi = band
        bottom, top = ax.get_ylim()
        least = MIN_BAND_FRACTION * (top - bottom)
        label = f"control interval [{band_lo:.3g}, {band_hi:.3g}]"
        if band_hi - band_lo < least:
            middle = (band_lo + band_hi) / 2
            band_lo, band_hi = middle - least / 2, middle + least / 2
            label += f", drawn {MIN_BAND_FRACTION:.0%} of the axis tall"
        ax.axhspan(band_lo, band_hi, color="grey", alpha=0.35, label=label, zorder=0)
        for end in band:
            ax.axhline(end, color="grey", linewidth=0.8, linestyle="--", zorder=0)
        ax.set_ylim(bottom, top)
    ax.set_xticks(range(len(order)), order, rotation=30, ha="right")
    ax.set(ylabel="mean shift p(mutant) - p(seed)", title=title)
    ax.legend(fontsize=8)
    return _save(fig, path)


CONTROL_OPERATORS = ("INC_PRE", "COMMENT_INSERT", "RENAME_LOCAL", "REFORMAT", "DEAD_BRANCH", "SWAP_STATEMENTS")


def control_interval(metrics: pl.DataFrame) -> tuple[float, float] | None:
    """The control arm's mean-shift interval pooled over judges and control operators (min lo, max hi), or None."""
    control = metrics.filter((pl.col("metric") == "mean_shift") & pl.col("subset").is_in(CONTROL_OPERATORS))
    if control.is_empty() or control["lo"].drop_nulls().drop_nans().is_empty():
        return None
    # Float64 columns with a non-null value (checked above)
    return float(cast(float, control["lo"].drop_nans().min())), float(cast(float, control["hi"].drop_nans().max()))


def kaplan_meier(
    durations, solved, path, title: str, xlabel: str = "turn", never_solved_share: float | None = None
) -> Path:
    """lifelines' Kaplan-Meier curve of the share still unsolved, with its 95% interval and a cross at every
    censored duration (a trajectory that stopped without being solved: it leaves the risk set, it does not count
    as solved). With ``never_solved_share``, a dotted line at the share of trajectories that stopped unsolved,
    which the curve is not: it estimates the share still unsolved among those still trying."""
    from lifelines import KaplanMeierFitter

    durations, solved = np.asarray(durations, dtype=float), np.asarray(solved, dtype=bool)
    fig, ax = subplots(figsize=FIGSIZE)
    fitter = KaplanMeierFitter(label="share still unsolved (Kaplan-Meier)").fit(durations, event_observed=solved)
    fitter.plot_survival_function(
        ax=ax, show_censors=True, ci_show=True, censor_styles={"marker": "x", "ms": 6, "mew": 1.2}
    )
    ax.plot([], [], linestyle="none", marker="x", ms=6, mew=1.2, color="tab:blue", label="censored: stopped unsolved")
    if never_solved_share is not None:
        ax.axhline(
            never_solved_share,
            color="grey",
            linewidth=1,
            linestyle=":",
            label=f"share that stopped unsolved ({never_solved_share:.0%})",
        )
    ax.set(xlabel=xlabel, ylabel="share still unsolved", ylim=(-0.02, 1.02), title=title)
    ax.legend(fontsize="small")
    return _save(fig, path)


def accuracy_vs_discrimination(points: pl.DataFrame, path, title: str) -> Path:
    """Each judge at (ROC-AUC on real attempts, arm discrimination A_j), both with their intervals."""
    fig, ax = subplots(figsize=FIGSIZE)
    for r in points.iter_rows(named=True):
        ax.errorbar(
            r["roc_auc"],
            r["arm_discrimination"],
            xerr=[[abs(r["roc_auc"] - r["roc_auc_lo"])], [abs(r["roc_auc_hi"] - r["roc_auc"])]],
            yerr=[[abs(r["arm_discrimination"] - r["ad_lo"])], [abs(r["ad_hi"] - r["arm_discrimination"])]],
            fmt="o",
            capsize=3,
            label=r["judge"],
        )
    ax.plot([0, 1], [0.5, 0.5], color="grey", linewidth=0.8, linestyle="--")
    ax.plot([0.5, 0.5], [0, 1], color="grey", linewidth=0.8, linestyle="--")
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1),
        xlabel="ROC-AUC on the contest's attempts (blind)",
        ylabel="arm discrimination A_j",
        title=title,
    )
    ax.legend(fontsize=8)
    return _save(fig, path)


def consistency_under_rewrite(metrics: pl.DataFrame, order: list[str], path, title: str) -> Path:
    """Per behaviour-preserving operator (x in ``order``), one series per judge with its seed-bootstrap interval:
    left, the mean |p(rewrite) - p(seed)| (``rewrite_abs_shift``); right, the share of rewrites whose decision
    flips (``rewrite_flip``). A judge that reads a rewrite as the same program sits at 0 in both."""
    fig, axes = subplots(1, 2, figsize=(FIGSIZE[0] * 1.7, FIGSIZE[1]), sharex=True)
    positions = {op: i for i, op in enumerate(order)}
    judges = sorted(set(metrics.filter(pl.col("metric").is_in(["rewrite_abs_shift", "rewrite_flip"]))["judge"]))
    for ax, metric, ylabel in (
        (axes[0], "rewrite_abs_shift", "mean |p(rewrite) - p(seed)|"),
        (axes[1], "rewrite_flip", "share whose decision flips"),
    ):
        for k, judge in enumerate(judges):
            mine = metrics.filter(
                (pl.col("metric") == metric) & (pl.col("judge") == judge) & pl.col("subset").is_in(order)
            )
            x = np.array([positions[s] for s in mine["subset"].to_list()], dtype=float)
            x += (k - (len(judges) - 1) / 2) * 0.1
            y, lo, hi = (mine[c].to_numpy().astype(float) for c in ("value", "lo", "hi"))
            ax.errorbar(x, y, yerr=[np.abs(y - lo), np.abs(hi - y)], fmt="o", capsize=3, label=judge)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(order)), order, rotation=30, ha="right")
        ax.set(ylabel=ylabel, ylim=(-0.02, max(0.1, ax.get_ylim()[1])))
    axes[0].set_title(title)
    if judges:
        axes[1].legend(fontsize=8)
    return _save(fig, path)


ESTIMATION_METHODS = {"labels": "labels alone", "rogan_gladen": "Rogan-Gladen", "ppi": "PPI++"}


def estimation_title(judge: str) -> str:
    """The estimation figure's title, which the report uses as its caption."""
    return f"Interval width and coverage against the label budget, {judge}"


def estimation_curves(rows: pl.DataFrame, path, title: str, *, nominal: float = 0.95) -> Path:
    """Two panels over the label budget n (groups): each method's mean interval width, and its coverage with a
    band of two Monte Carlo standard errors and the nominal level as a dashed line. ``rows``: estimation rows
    (method, n, width, coverage, coverage_se, and ``conditions`` naming the conditions that share a result:
    one line style per distinct result)."""
    needed = {"method", "n", "width", "coverage", "coverage_se", "conditions"}
    missing = needed - set(rows.columns)
    if missing:
        raise ValueError(f"rows: expected columns {sorted(needed)}; missing {sorted(missing)}")
    shown = rows.filter(pl.col("method").is_in(list(ESTIMATION_METHODS)) & pl.col("coverage").is_not_null())
    fig, (left, right) = subplots(1, 2, figsize=(FIGSIZE[0] * 2, FIGSIZE[1]))
    groups = list(dict.fromkeys(shown["conditions"].to_list()))
    styles = ["-", "--", ":", "-."]
    for k, conditions in enumerate(groups):
        for c, (method, name) in enumerate(ESTIMATION_METHODS.items()):
            part = shown.filter((pl.col("conditions") == conditions) & (pl.col("method") == method)).sort("n")
            if part.is_empty():
                continue
            label = name if len(groups) == 1 else f"{name} ({conditions})"
            n = part["n"].to_numpy()
            style = {"color": f"C{c}", "linestyle": styles[k % len(styles)], "marker": "o", "markersize": 4}
            left.plot(n, part["width"].to_numpy(), label=label, **style)
            coverage, se = part["coverage"].to_numpy(), part["coverage_se"].to_numpy()
            right.plot(n, coverage, **style)
            right.fill_between(n, coverage - 2 * se, coverage + 2 * se, color=f"C{c}", alpha=0.15, linewidth=0)
    right.axhline(nominal, color="black", linestyle="--", linewidth=1, label=f"nominal {nominal:.0%}")
    left.set(xlabel="labelled groups n", ylabel="mean width of the 95% interval", title=title)
    left.set_ylim(bottom=0)
    right.set(xlabel="labelled groups n", ylabel="coverage (band: 2 Monte Carlo SE)", title="coverage")
    low = float(np.nanmin((shown["coverage"] - 2 * shown["coverage_se"]).to_numpy())) if len(shown) else nominal
    right.set_ylim(min(low, nominal) - 0.02, 1.005)
    left.legend(fontsize="small")  # the methods (and conditions): the right panel draws them alike
    right.legend(fontsize="small", loc="lower right")
    return _save(fig, path)


def score_vs_ceiling(metrics: pl.DataFrame, path, title: str) -> Path:
    """The graded study's figure (core/graded/metrics.py): one panel per judge, its mean 0-5 score per ceiling
    (x 0..5 for the Full scope, 1..5 when there is no ceiling 0) with its problem-clustered interval, one series
    per answer kind; the dashed diagonal is a judge that answers the ceiling exactly, and each panel's label carries
    its Spearman rho."""
    if "scope" in metrics.columns:
        metrics = metrics.filter(pl.col("scope") == ("full" if (metrics["scope"] == "full").any() else "rectifiable"))
    low = 0 if (metrics.filter(pl.col("metric") == "mean_score")["subset"] == "0").any() else 1
    rows = metrics.filter(pl.col("metric") == "mean_score")
    judges = sorted(set(rows["judge"].to_list()))
    columns = min(3, max(1, len(judges)))
    lines = -(-max(1, len(judges)) // columns)
    fig, axes = subplots(lines, columns, figsize=(3.2 * columns, 2.9 * lines), squeeze=False, sharey=True)
    for ax in axes.flat[len(judges) :]:
        ax.axis("off")
    for ax, judge in zip(axes.flat, judges):
        for k, answer in enumerate(sorted(set(rows.filter(pl.col("judge") == judge)["answer"].to_list()))):
            mine = rows.filter((pl.col("judge") == judge) & (pl.col("answer") == answer)).sort("subset")
            x = mine["subset"].cast(pl.Int64).to_numpy().astype(float) + (k - 0.5) * 0.1
            y, lo, hi = (mine[c].to_numpy().astype(float) for c in ("value", "lo", "hi"))
            rho = metrics.filter(
                (pl.col("judge") == judge) & (pl.col("answer") == answer) & (pl.col("metric") == "spearman_rho")
            )["value"]
            defined = len(rho) and rho[0] is not None and np.isfinite(rho[0])
            label = f"{answer} (rho {rho[0]:.2f})" if defined else f"{answer} (constant)"
            lo, hi = np.where(np.isfinite(lo), lo, y), np.where(np.isfinite(hi), hi, y)  # no interval: no bar
            ax.errorbar(x, y, yerr=[np.abs(y - lo), np.abs(hi - y)], fmt="o-", capsize=3, label=label)
        ax.plot([low, 5], [low, 5], color="grey", linestyle="--", linewidth=0.8)
        ax.set(xticks=list(range(low, 6)), xlim=(low - 0.5, 5.5), ylim=(-0.2, 5.2), xlabel="ceiling", title=judge)
        ax.legend(fontsize=6, loc="upper left")
    axes.flat[0].set_ylabel("mean score (0-5)")
    fig.suptitle(title, fontsize=10)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:  # _save reads the title off the first panel, which here names a judge: the figure's title is written
        fig.tight_layout()
        fig.savefig(path, format="png", dpi=DPI, metadata={**PNG_METADATA, "Title": title})
    finally:
        _pyplot().close(fig)
    return path
