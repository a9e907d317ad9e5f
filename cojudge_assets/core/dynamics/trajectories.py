"""Dynamics of attempts: how trajectories reach acceptance, and how much code changes on the way.

Inputs. An attempts table has one row per attempt: ``attempt_uid`` (str,
unique), ``participant`` (str), ``problem_id`` (str), ``turn`` (int, 1-based
order of the attempt within its trajectory), ``submitted_at`` (Datetime, may
be null), ``language`` (str), ``code`` (str) and ``accepted`` (bool). A
trajectory is the attempts of one ``(participant, problem_id)`` ordered by
``turn``; within a trajectory turns are unique.

Definitions:

- Trajectory (:func:`trajectories`): ``n_attempts`` its number of attempts,
  ``solved`` whether any attempt is accepted, ``first_ac_turn`` the smallest
  accepted turn (null if never accepted), ``last_turn`` the largest turn.
  ``minutes_to_success`` is the time from the first attempt's ``submitted_at``
  to the first accepted attempt's, ``minutes_observed`` from the first
  attempt's to the last attempt's; each is null when either of its two clocks
  is null, and ``minutes_to_success`` also when the trajectory is unsolved.
- Success by turn k (:func:`success_at_turn`): the share of a subset's
  trajectories with ``first_ac_turn <= k``, for the subsets ``all``, ``multi``
  (``n_attempts >= 2``) and ``unsolved_at_first`` (not accepted at turn 1; k
  from 2). Its 95% interval is the 2.5 and 97.5 percentiles over bootstrap
  resamples that draw the subset's trajectories with replacement.
- Still unsolved after t (:func:`kaplan_meier`): the Kaplan-Meier estimate
  ``S(t) = prod_{t_i <= t} (1 - d_i / n_i)``, d_i the trajectories solved at
  t_i and n_i those still at risk. On the ``turn`` clock a solved trajectory
  ends at ``first_ac_turn`` and an unsolved one is right-censored at
  ``last_turn``; on the ``minutes`` clock at ``minutes_to_success`` and
  ``minutes_observed``, trajectories without a clock being dropped.
- Normalized edit distance (:func:`normalized_edit_distance`):
  ``NED(s, t) = Levenshtein(s, t) / max(1, len(s), len(t))``, in [0, 1]; 0 for
  equal strings, 1 when nothing is shared.
- CodeBLEU similarity (:func:`codebleu_similarity`): codebleu 0.7's
  ``0.25 BLEU + 0.25 weighted BLEU + 0.25 syntax match + 0.25 dataflow match``
  of a candidate against one reference, in [0, 1], for the languages in
  :data:`CODEBLEU_LANGUAGES`; None for any other language. The dataflow match
  (:func:`dataflow_match`) is codebleu's with each edge's parent variables in
  a fixed order, so the score does not change with PYTHONHASHSEED.
- Churn (:func:`churn_pairs`): for two consecutive attempts of a trajectory,
  ``ned_code`` the NED of their code, ``codebleu_churn = 1 - CodeBLEU(previous,
  current)``, ``ned_prompt`` the NED of their contexts, and
  ``reached_acceptance`` whether the later attempt is accepted and the earlier
  is not.
- Churn difference (:func:`churn_difference`): mean churn over transitions that
  reached acceptance minus mean churn over the others, with a 95% percentile
  interval from resampling trajectories with replacement.
- Convergence (:func:`convergence`): in a solved trajectory, the CodeBLEU
  similarity of every other attempt to the first accepted attempt's code;
  :func:`convergence_summary` gives its median and quartiles.

Languages. CodeBLEU compares two attempts in one grammar: the later attempt's
language in :func:`churn_pairs`, the compared attempt's in :func:`convergence`
(the first accepted attempt is the reference). A trajectory that switches
language is scored in that grammar, not left out.

Validation. A missing column, a null key, turn, code or verdict, a repeated
``attempt_uid``, a turn below 1 or a repeated turn within a trajectory raise
ValueError; a ``submitted_at`` that is not Datetime, or a non-numeric churn
column, raise TypeError.

Bootstrap. The resampling unit is always the trajectory, since attempts of one
trajectory are not independent. Resample ``b`` is a row of counts ``w[b, i]``,
how many times trajectory ``i`` was drawn (n draws with replacement from n
trajectories), and a statistic for all resamples is one matrix product with the
per-trajectory table. The counts come from the cluster bootstrap the
measurement group uses (core/stats/bootstrap.py: ``cluster_counts``, blocks of a
seeded ``numpy.random.default_rng(seed)``), so a seed fixes every interval.
"""

from __future__ import annotations

import functools
import logging
import math
from typing import cast

import numpy as np
import polars as pl

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.stats.bootstrap import cluster_counts, interval

TRAJECTORY_KEYS = ["participant", "problem_id"]
ATTEMPT_COLUMNS = ("attempt_uid", "participant", "problem_id", "turn", "submitted_at", "language", "code", "accepted")
CLOCKS = ("turn", "minutes")
DEFAULT_RESAMPLES = 2000
CHURN_BATCH = 10_000  # pairs whose codes and contexts are Python strings at once

# The grammar codebleu 0.7 parses each language with (tree-sitter-c, -cpp, -java, -python).
CODEBLEU_LANGUAGES = {"c": "c", "cpp": "cpp", "java": "java", "python": "python"}

TRAJECTORY_SCHEMA = {
    "participant": pl.String,
    "problem_id": pl.String,
    "n_attempts": pl.Int64,
    "solved": pl.Boolean,
    "first_ac_turn": pl.Int64,
    "last_turn": pl.Int64,
    "minutes_to_success": pl.Float64,
    "minutes_observed": pl.Float64,
}
SUCCESS_SCHEMA = {
    "subset": pl.String,
    "k": pl.Int64,
    "share": pl.Float64,
    "lo": pl.Float64,
    "hi": pl.Float64,
    "n": pl.Int64,
}
SURVIVAL_SCHEMA = {
    "clock": pl.String,
    "t": pl.Float64,
    "survival": pl.Float64,
    "lo": pl.Float64,
    "hi": pl.Float64,
    "at_risk": pl.Int64,
    "events": pl.Int64,
}
CHURN_SCHEMA = {
    "participant": pl.String,
    "problem_id": pl.String,
    "attempt_uid_from": pl.String,
    "attempt_uid_to": pl.String,
    "turn_from": pl.Int64,
    "turn_to": pl.Int64,
    "language": pl.String,
    "ned_code": pl.Float64,
    "codebleu_churn": pl.Float64,
    "ned_prompt": pl.Float64,
    "reached_acceptance": pl.Boolean,
}
CONVERGENCE_SCHEMA = {
    "participant": pl.String,
    "problem_id": pl.String,
    "attempt_uid": pl.String,
    "turn": pl.Int64,
    "first_ac_turn": pl.Int64,
    "similarity": pl.Float64,
}

# codebleu 0.7 logs this through the root logger (logging.warning) on every call whose reference
# has no data flow; it says nothing about the pair being scored, so it is dropped (see below).
_NO_DATAFLOW_MESSAGE = "WARNING: There is no reference data-flows extracted"


class _DropNoDataflowWarning(logging.Filter):
    """Drops codebleu's "no reference data-flows" record and lets every other record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(_NO_DATAFLOW_MESSAGE)


_NO_DATAFLOW_FILTER = _DropNoDataflowWarning()


# -- validation ---------------------------------------------------------------------------------------------


def _require(frame: pl.DataFrame, columns, name: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} lacks column(s) {missing}; it has {frame.columns}")


def _validated_attempts(attempts: pl.DataFrame) -> pl.DataFrame:
    """The attempts with their columns in canonical types, ordered by trajectory and turn, or a ValueError."""
    _require(attempts, ATTEMPT_COLUMNS, "attempts")
    for column in ("attempt_uid", "participant", "problem_id", "turn", "code", "accepted"):
        if attempts[column].null_count():
            raise ValueError(f"attempts.{column} has {attempts[column].null_count()} null value(s)")
    clock = attempts["submitted_at"]
    if clock.dtype == pl.Null:  # an all-null column built without a type
        clock = clock.cast(pl.Datetime("us"))
    if not isinstance(clock.dtype, pl.Datetime):
        raise TypeError(f"attempts.submitted_at must be a Datetime column, got {clock.dtype}")
    if attempts["attempt_uid"].n_unique() != attempts.height:
        raise ValueError("attempts.attempt_uid must be unique")
    frame = attempts.with_columns(
        clock.alias("submitted_at"),
        pl.col("turn").cast(pl.Int64),
        pl.col("accepted").cast(pl.Boolean),
        pl.col("language").cast(pl.String),
    )
    if (frame["turn"] < 1).any():
        raise ValueError("attempts.turn must be 1-based (every turn >= 1)")
    if frame.select(TRAJECTORY_KEYS + ["turn"]).is_duplicated().any():
        raise ValueError("attempts has a (participant, problem_id) trajectory with a repeated turn")
    return frame.sort(TRAJECTORY_KEYS + ["turn"])


def _check_bootstrap(resamples: int) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")


def _resampled(per_trajectory: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Column sums of a per-trajectory table (n, k) in every resample: (resamples, k)."""
    n = per_trajectory.shape[0]
    return np.concatenate([counts @ per_trajectory for counts in cluster_counts(n, resamples, rng)])


def _column_intervals(boot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """95% percentile interval of each column of the replicates (resamples, K)."""
    bounds = np.array([interval(column) for column in boot.T]).reshape(-1, 2)
    return bounds[:, 0], bounds[:, 1]


# -- trajectories and success by turn -----------------------------------------------------------------------


def trajectories(attempts: pl.DataFrame) -> pl.DataFrame:
    """One row per (participant, problem_id) trajectory, sorted by participant and problem_id.

    Columns: ``participant, problem_id, n_attempts, solved, first_ac_turn``
    (null if never accepted), ``last_turn, minutes_to_success`` (first
    attempt's ``submitted_at`` to the first accepted attempt's; null when
    unsolved or either clock is null) and ``minutes_observed`` (first
    attempt's to last attempt's; null when either clock is null).

    >>> import datetime as dt
    >>> at = lambda m: dt.datetime(2026, 3, 14, 9, 0) + dt.timedelta(minutes=m)
    >>> attempts = pl.DataFrame({
    ...     "attempt_uid": ["a1", "a2", "a3"], "participant": ["p", "p", "p"],
    ...     "problem_id": ["A", "A", "A"], "turn": [1, 2, 3], "submitted_at": [at(0), at(4.5), at(10)],
    ...     "language": ["cpp"] * 3, "code": ["", "", ""], "accepted": [False, True, False]})
    >>> trajectories(attempts).drop("participant", "problem_id").row(0)
    (3, True, 2, 3, 4.5, 10.0)
    """
    frame = _validated_attempts(attempts)
    accepted = pl.col("accepted")
    table = frame.group_by(TRAJECTORY_KEYS, maintain_order=True).agg(
        pl.len().alias("n_attempts"),
        accepted.any().alias("solved"),
        pl.col("turn").filter(accepted).min().alias("first_ac_turn"),
        pl.col("turn").max().alias("last_turn"),
        pl.col("submitted_at").first().alias("_first_at"),
        pl.col("submitted_at").filter(accepted).first().alias("_first_ac_at"),
        pl.col("submitted_at").last().alias("_last_at"),
    )

    def minutes(end: str) -> pl.Expr:
        return (pl.col(end) - pl.col("_first_at")).dt.total_microseconds() / 60e6

    return (
        table.with_columns(
            minutes("_first_ac_at").alias("minutes_to_success"), minutes("_last_at").alias("minutes_observed")
        )
        .select([pl.col(c).cast(t) for c, t in TRAJECTORY_SCHEMA.items()])
        .sort(TRAJECTORY_KEYS)
    )


def success_at_turn(
    trajs: pl.DataFrame, *, max_turn: int | None = None, resamples: int = DEFAULT_RESAMPLES, seed: int = SEED
) -> pl.DataFrame:
    """Share of trajectories accepted by turn k, with a trajectory bootstrap interval.

    ``share(k) = #{first_ac_turn <= k} / n`` over a subset of n trajectories
    (an unsolved trajectory never counts), for k = 1..K, K = ``max_turn`` or
    the largest ``last_turn``. Subsets: ``all``; ``multi``, the trajectories
    with ``n_attempts >= 2``; ``unsolved_at_first``, those not accepted at turn
    1, for k = 2..K. ``lo`` and ``hi`` are the 2.5 and 97.5 percentiles of the
    share over ``resamples`` resamples drawing the subset's trajectories with
    replacement; one generator ``default_rng(seed)`` serves the subsets in the
    order above. A subset with no trajectory has null share, lo and hi.

    Trajectories solved at turns 1, 2 and never: 1/3 by turn 1, 2/3 by turn 2.

    >>> trajs = pl.DataFrame({"n_attempts": [1, 2, 3], "first_ac_turn": [1, 2, None], "last_turn": [1, 2, 3]})
    >>> success_at_turn(trajs, resamples=10).filter(pl.col("subset") == "all")["share"].round(4).to_list()
    [0.3333, 0.6667, 0.6667]
    """
    _require(trajs, ("n_attempts", "first_ac_turn", "last_turn"), "trajs")
    _check_bootstrap(resamples)
    if max_turn is not None and (
        isinstance(max_turn, bool) or not isinstance(max_turn, (int, np.integer)) or max_turn < 1
    ):
        raise ValueError(f"max_turn must be a positive integer or None, got {max_turn!r}")
    last_turn = cast("int | None", trajs["last_turn"].max())  # an Int64 column
    horizon = int(max_turn) if max_turn is not None else int(last_turn or 0)
    first_ac = trajs["first_ac_turn"].cast(pl.Float64).fill_null(np.inf).to_numpy()
    ks = np.arange(1, horizon + 1)
    solved_by = (first_ac[:, None] <= ks[None, :]).astype(float)  # (trajectories, K)

    subsets = {
        "all": (np.ones(trajs.height, dtype=bool), ks >= 1),
        "multi": (trajs["n_attempts"].to_numpy() >= 2, ks >= 1),
        "unsolved_at_first": (~(first_ac <= 1), ks >= 2),
    }
    rng = np.random.default_rng(seed)
    parts = []
    for subset, (rows, columns) in subsets.items():
        indicator = solved_by[np.ix_(rows, columns)]
        n = indicator.shape[0]
        k = ks[columns]
        if n == 0:
            share = lo = hi = np.full(k.size, np.nan)
        else:
            share = indicator.mean(axis=0)
            boot = _resampled(indicator, resamples, rng) / n  # (resamples, K)
            lo, hi = _column_intervals(boot)
        parts.append(
            pl.DataFrame(
                {"subset": [subset] * k.size, "k": k, "share": share, "lo": lo, "hi": hi, "n": [n] * k.size},
                schema=SUCCESS_SCHEMA,
            )
        )
    return pl.concat(parts).with_columns(pl.col("share", "lo", "hi").fill_nan(None))


# -- survival -----------------------------------------------------------------------------------------------


def survival_durations(trajs: pl.DataFrame, *, clock: str = "turn") -> pl.DataFrame:
    """Each trajectory's time to its end on ``clock`` (columns ``duration``, ``solved``): a solved one ends at its
    first acceptance (an event), an unsolved one is censored at its last attempt; trajectories without a time on
    that clock are left out."""
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {CLOCKS}, got {clock!r}")
    if clock == "turn":
        _require(trajs, ("solved", "first_ac_turn", "last_turn"), "trajs")
        ended, censored = "first_ac_turn", "last_turn"
    else:
        _require(trajs, ("solved", "minutes_to_success", "minutes_observed"), "trajs")
        ended, censored = "minutes_to_success", "minutes_observed"
    return trajs.select(
        pl.when(pl.col("solved")).then(pl.col(ended)).otherwise(pl.col(censored)).cast(pl.Float64).alias("duration"),
        pl.col("solved").cast(pl.Boolean),
    ).filter(pl.col("duration").is_not_null() & pl.col("duration").is_not_nan())


def kaplan_meier(trajs: pl.DataFrame, *, clock: str = "turn") -> pl.DataFrame:
    """Kaplan-Meier share of trajectories still unsolved, on the turn or the minutes clock.

    ``S(t) = prod_{t_i <= t} (1 - d_i / n_i)``, fitted by lifelines'
    ``KaplanMeierFitter``. ``clock="turn"``: a solved trajectory ends at
    ``first_ac_turn`` (event), an unsolved one is censored at ``last_turn``.
    ``clock="minutes"``: ``minutes_to_success`` (event) or
    ``minutes_observed`` (censored), trajectories whose duration is null being
    dropped. One row per time of lifelines' event table, t = 0 included:
    ``clock, t, survival, lo, hi`` (lifelines' 95% interval), ``at_risk`` and
    ``events`` (trajectories solved at t). No trajectory gives an empty table.

    Durations 1, 2, 2, 3, 4 with the second 2 and the 4 censored:
    S(1) = 4/5, S(2) = 0.8 * 3/4 = 0.6, S(3) = 0.6 * 1/2 = 0.3.

    >>> trajs = pl.DataFrame({"solved": [True, True, False, True, False],
    ...                       "first_ac_turn": [1, 2, None, 3, None], "last_turn": [1, 2, 2, 3, 4]})
    >>> kaplan_meier(trajs)["survival"].round(6).to_list()
    [1.0, 0.8, 0.6, 0.3, 0.3]
    """
    durations = survival_durations(trajs, clock=clock)
    if durations.height == 0:
        return pl.DataFrame(schema=SURVIVAL_SCHEMA)
    if (durations["duration"] < 0).any():
        raise ValueError(f"negative {clock} durations: a trajectory ends before it starts")
    from lifelines import KaplanMeierFitter  # lifelines (and pandas) load with the first fit, not at start-up

    fitter = KaplanMeierFitter().fit(durations["duration"].to_numpy(), event_observed=durations["solved"].to_numpy())
    events = fitter.event_table
    times = events.index
    interval = fitter.confidence_interval_survival_function_.loc[times].to_numpy()
    return pl.DataFrame(
        {
            "clock": [clock] * len(times),
            "t": times.to_numpy(dtype=float),
            "survival": fitter.survival_function_.loc[times].iloc[:, 0].to_numpy(dtype=float),
            "lo": interval[:, 0],
            "hi": interval[:, 1],
            "at_risk": events["at_risk"].to_numpy(),
            "events": events["observed"].to_numpy(),
        },
        schema=SURVIVAL_SCHEMA,
    )


# -- code similarity ----------------------------------------------------------------------------------------


def normalized_edit_distance(s: str, t: str) -> float:
    """Levenshtein distance over the longer length: ``distance(s, t) / max(1, len(s), len(t))``.

    In [0, 1]: 0 for equal strings (two empty strings included), 1 when no
    character can be kept in place.

    >>> round(normalized_edit_distance("kitten", "sitting"), 4)  # 3 edits / 7
    0.4286
    >>> normalized_edit_distance("", ""), normalized_edit_distance("abc", "")
    (0.0, 1.0)
    """
    from rapidfuzz.distance import Levenshtein  # on first use: the Definitions do not load rapidfuzz

    return Levenshtein.distance(s, t) / max(1, len(s), len(t))


@functools.cache
def _dataflow_parser(lang: str) -> list:
    """codebleu's pair for ``lang``: a tree-sitter parser and its data-flow extractor (built once per process)."""
    from codebleu.dataflow_match import dfg_function  # codebleu loads tree-sitter and its grammars: on first use
    from codebleu.utils import get_tree_sitter_language
    from tree_sitter import Parser

    parser = Parser()
    parser.language = get_tree_sitter_language(lang)
    return [parser, dfg_function[lang]]


@functools.lru_cache(maxsize=512)
def _cached_dataflow(code: str, lang: str) -> tuple:
    """:func:`_canonical_dataflow`, kept for the programs scored again (a seed is the reference of each of its
    graded programs; an attempt is the candidate of one churn pair and the reference of the next)."""
    return tuple(_canonical_dataflow(code, lang))


def _canonical_dataflow(code: str, lang: str) -> list[tuple]:
    """codebleu's normalised data flow of ``code`` with every edge's parent names in a fixed order.

    codebleu 0.7 (``dataflow_match.get_data_flow`` and the ``DFG_*``
    extractors) merges the parents of an edge reached along several paths
    with ``list(set(...))``, so their order follows string hashing and changes
    with PYTHONHASHSEED; ``normalize_dataflow`` then numbers the variables in
    that order and the match compares the numbered lists in order. Here each
    edge's parents are sorted by where the variable first appears in the data
    flow (its smallest token index as a defined variable), then by name,
    before codebleu's own normalisation. That order does not depend on the
    hash seed and, like codebleu's numbering, not on the variables' names.
    """
    from codebleu.dataflow_match import get_data_flow, normalize_dataflow
    from codebleu.parser import remove_comments_and_docstrings

    try:
        code = remove_comments_and_docstrings(code, lang)
    except Exception:  # noqa: BLE001 - codebleu scores the code unchanged when its comment stripper fails
        pass
    flow = get_data_flow(code, _dataflow_parser(lang))
    first: dict[str, int] = {}
    for item in flow:
        first.setdefault(item[0], item[1])
    ordered = [
        (item[0], item[1], item[2], sorted(item[3], key=lambda name: (first.get(name, math.inf), name)), item[4])
        for item in flow
    ]
    return normalize_dataflow(ordered)


def dataflow_match(reference: str, candidate: str, language: str) -> float:
    """codebleu 0.7's dataflow match of one pair, independent of the process's hash seed.

    The share of the reference's normalised data-flow edges found in the
    candidate's (each candidate edge used once), 0 when the reference has no
    data flow, exactly as ``codebleu.dataflow_match.corpus_dataflow_match``
    counts it; the one change is the order of each edge's parent variables
    (:func:`_canonical_dataflow`). Where codebleu's order is already that
    order, the two give the same number.

    >>> dataflow_match("int main() { int a = 1; int b = a; return b; }",
    ...                "int main() { int x = 1; int y = x; return y; }", "c")
    1.0
    """
    lang = CODEBLEU_LANGUAGES[language]
    reference_flow = list(_cached_dataflow(reference.strip(), lang))
    candidate_flow = list(_cached_dataflow(candidate.strip(), lang))
    if not reference_flow:
        return 0.0
    matched = 0
    for edge in reference_flow:
        if edge in candidate_flow:
            matched += 1
            candidate_flow.remove(edge)
    return matched / len(reference_flow)


def _too_deep(code: str, lang: str) -> bool:
    """Whether ``code``'s syntax tree (codebleu's grammar for ``lang``) is deeper than perturbation.budget's bound:
    codebleu walks the tree recursively, in time that grows with the square of the nesting (a pair of C programs
    nested 1,000 blocks deep took 3.5 s, 10,000 deep over 5 minutes)."""
    from cojudge_assets.core.perturbation.budget import MAX_TREE_DEPTH, OverBudget, bounded_depth

    try:
        bounded_depth(_dataflow_parser(lang)[0].parse(code.encode("utf-8")).root_node, MAX_TREE_DEPTH)
    except OverBudget:
        return True
    return False


@functools.cache
def _codebleu_keywords(lang: str) -> frozenset[str]:
    from codebleu.codebleu import PACKAGE_DIR

    with open(PACKAGE_DIR / "keywords" / f"{lang}.txt", encoding="utf-8") as f:
        return frozenset(x.strip() for x in f.readlines())


def codebleu_parts(reference: str, candidate: str, lang: str) -> dict[str, float]:
    """The first three components of ``codebleu.calc_codebleu([reference], [candidate], lang=lang)``, computed as it
    computes them (tested equal), without its dataflow match: :func:`codebleu_similarity` replaces that with
    :func:`dataflow_match`, and codebleu's own extraction of both programs' data flow was a third of the time
    (issue 33: the graded metrics' reference judges). The keyword list is read once per process, not per pair."""
    from codebleu import bleu, syntax_match, weighted_ngram_match  # tree-sitter and its grammars: on first use
    from codebleu.utils import get_tree_sitter_language

    references, hypothesis = [[reference.strip()]], [candidate.strip()]
    tokenized_hyps = [x.split() for x in hypothesis]
    tokenized_refs = [[x.split() for x in ref] for ref in references]
    keywords = _codebleu_keywords(lang)
    weighted_refs = [
        [[tokens, {token: 1 if token in keywords else 0.2 for token in tokens}] for tokens in ref]
        for ref in tokenized_refs
    ]
    return {
        "ngram_match_score": bleu.corpus_bleu(tokenized_refs, tokenized_hyps),
        "weighted_ngram_match_score": weighted_ngram_match.corpus_bleu(weighted_refs, tokenized_hyps),
        "syntax_match_score": syntax_match.corpus_syntax_match(
            references, hypothesis, lang, tree_sitter_language=get_tree_sitter_language(lang)
        ),
    }


def codebleu_similarity(reference: str, candidate: str, language: str | None) -> float | None:
    """CodeBLEU of ``candidate`` against ``reference``, or None for a language codebleu is not used for, and None
    when either program's syntax tree is deeper than ``perturbation.budget.MAX_TREE_DEPTH`` levels (:func:`_too_deep`:
    the deepest real program of the shared corpora has 54).

    codebleu 0.7's default score, ``0.25`` each on BLEU, keyword-weighted
    BLEU, syntax (AST subtree) match and dataflow match, so the score is in
    [0, 1]. The first three components are those of
    ``codebleu.calc_codebleu([reference], [candidate], lang=...)``; the
    dataflow match is :func:`dataflow_match`, codebleu's with each edge's
    parent variables in a fixed order. codebleu's own dataflow match depends
    on the process's string-hash seed (it merges parents through a set), so
    the same pair scored 0.4558 and 0.4506 under PYTHONHASHSEED 1 and 2; this
    score is the same in every process. Languages are those of
    :data:`CODEBLEU_LANGUAGES`. C is scored with the C grammar (tree-sitter-c)
    and codebleu's C keyword list, not the C++ configuration; codebleu
    extracts data flow for C and C++ alike with the extractor it inherited
    from C#.

    Traits of codebleu 0.7 that the score keeps (it is not adjusted):

    - Missing data flow earns full credit. When no data flow is extracted from
      the reference, codebleu reports a dataflow match of 0 but adds
      ``0.25 * (dataflow_match or 1)``, i.e. the component counts as 1, not 0;
      the same holds when the reference has data flow and none of it matches.
      So an identical program without data flow still scores 1.0.
    - Identical short snippets score below 1.0. The two BLEU components count
      n-grams of whitespace-separated tokens up to n = 4, and a snippet of
      fewer than four tokens has none to match: ``print(1)`` against itself
      scores 0.5 + 0.25 * (0.178 + 0.044).

    On every call without reference data flow codebleu logs a warning through
    the root logger; a filter installed on the root logger at the first call
    drops exactly that message (it says nothing about the pair) and lets every
    other record through. Because codebleu calls the module-level
    ``logging.warning``, a process whose root logger has no handler gets
    ``logging.basicConfig()`` (a stderr handler) at the first such call.

    >>> codebleu_similarity("int main() { return 0; }", "int main() { return 0; }", "c")
    1.0
    >>> codebleu_similarity("print(1)", "print(1)", "python")  # doctest: +ELLIPSIS
    0.555...
    >>> codebleu_similarity("fn main() {}", "fn main() {}", "rust") is None
    True
    """
    lang = CODEBLEU_LANGUAGES.get(language) if isinstance(language, str) else None
    if lang is None:
        return None
    if _too_deep(reference, lang) or _too_deep(candidate, lang):
        return None
    logging.getLogger().addFilter(_NO_DATAFLOW_FILTER)  # idempotent: one filter instance, added once
    parts = codebleu_parts(reference, candidate, lang)
    flow = dataflow_match(reference, candidate, lang)
    # The sum in codebleu's order and grouping, so a pair whose dataflow match agrees gets codebleu's float.
    return float(
        0.25 * parts["ngram_match_score"]
        + 0.25 * parts["weighted_ngram_match_score"]
        + 0.25 * parts["syntax_match_score"]
        + 0.25 * (flow or 1)
    )


# -- churn between consecutive attempts ---------------------------------------------------------------------


def churn_pairs(attempts: pl.DataFrame, contexts: pl.DataFrame | None = None) -> pl.DataFrame:
    """One row per pair of consecutive attempts of a trajectory, sorted by participant, problem_id, turn_from.

    Columns: ``participant, problem_id, attempt_uid_from, attempt_uid_to,
    turn_from, turn_to, language`` (the later attempt's), ``ned_code`` (NED of
    the earlier and later code), ``codebleu_churn`` (``1 - CodeBLEU(earlier,
    later)`` in the later attempt's language; null when codebleu is not used
    for it or a program is too deep, :func:`codebleu_similarity`), ``ned_prompt``
    and ``reached_acceptance`` (the later attempt is accepted and the earlier is not).

    ``contexts`` (columns ``attempt_uid``, ``context``; one row per attempt)
    gives ``ned_prompt``, the NED of the two attempts' contexts, a missing or
    null context counting as empty and two empty contexts giving null. Without
    ``contexts`` the column is all null, so the table's schema never changes.
    """
    frame = _validated_attempts(attempts)

    def previous(column: str) -> pl.Expr:
        return pl.col(column).shift(1).over(TRAJECTORY_KEYS)

    pairs = (
        frame.with_columns(
            previous("attempt_uid").alias("attempt_uid_from"),
            previous("turn").alias("turn_from"),
            previous("code").alias("code_from"),
            previous("accepted").alias("accepted_from"),
        )
        .filter(pl.col("turn_from").is_not_null())
        .rename({"attempt_uid": "attempt_uid_to", "turn": "turn_to", "code": "code_to"})
    )

    if contexts is not None:
        _require(contexts, ("attempt_uid", "context"), "contexts")
        if contexts["attempt_uid"].n_unique() != contexts.height:
            raise ValueError("contexts.attempt_uid must be unique")
        context = contexts.select(pl.col("attempt_uid").cast(pl.String), pl.col("context").cast(pl.String))
        for side in ("from", "to"):  # a missing or null context counts as empty
            pairs = pairs.join(
                context.rename({"attempt_uid": f"attempt_uid_{side}", "context": f"context_{side}"}),
                on=f"attempt_uid_{side}",
                how="left",
                maintain_order="left",
            ).with_columns(pl.col(f"context_{side}").fill_null(""))
    else:
        pairs = pairs.with_columns(pl.lit(None, dtype=pl.String).alias(c) for c in ("context_from", "context_to"))
    # the pairs' Python values CHURN_BATCH at a time: a million pairs' codes and contexts as Python strings at once
    # held over 1 GB (the scale rehearsal's churn at 10^6 attempts)
    measured = [_churn_values(batch) for batch in pairs.iter_slices(CHURN_BATCH)]
    ned_code, codebleu_churn, ned_prompt = (
        pl.concat([m[i] for m in measured]) if measured else pl.Series([], dtype=pl.Float64) for i in range(3)
    )
    return (
        pairs.with_columns(
            ned_code.alias("ned_code"),
            codebleu_churn.alias("codebleu_churn"),
            ned_prompt.alias("ned_prompt"),
            (pl.col("accepted") & ~pl.col("accepted_from")).alias("reached_acceptance"),
        )
        .select([pl.col(c).cast(t) for c, t in CHURN_SCHEMA.items()])
        .sort(TRAJECTORY_KEYS + ["turn_from"])
    )


def _churn_values(pairs: pl.DataFrame) -> tuple[pl.Series, pl.Series, pl.Series]:
    """ned_code, codebleu_churn and ned_prompt of these pairs (columns code_from, code_to, language, context_from
    and context_to; a null context: no contexts given, so ned_prompt is null)."""
    ned_code, codebleu_churn, ned_prompt = [], [], []
    for before, after, language, context_from, context_to in zip(
        pairs["code_from"].to_list(),
        pairs["code_to"].to_list(),
        pairs["language"].to_list(),
        pairs["context_from"].to_list(),
        pairs["context_to"].to_list(),
    ):
        ned_code.append(normalized_edit_distance(before, after))
        similarity = codebleu_similarity(before, after, language)
        codebleu_churn.append(None if similarity is None else 1.0 - similarity)
        given = context_from is not None and (context_from or context_to)
        ned_prompt.append(normalized_edit_distance(context_from, context_to) if given else None)
    return (
        pl.Series(ned_code, dtype=pl.Float64),
        pl.Series(codebleu_churn, dtype=pl.Float64),
        pl.Series(ned_prompt, dtype=pl.Float64),
    )


def churn_difference(pairs: pl.DataFrame, column: str, *, resamples: int = DEFAULT_RESAMPLES, seed: int = SEED) -> dict:
    """Mean ``column`` over transitions that reached acceptance minus the mean over the others.

    ``value = mean(x | reached_acceptance) - mean(x | not reached_acceptance)``,
    null (and NaN) values of ``column`` ignored. ``lo`` and ``hi`` are the 2.5
    and 97.5 percentiles of the same difference over ``resamples`` resamples
    drawing trajectories (participant, problem_id) with replacement, among the
    trajectories with at least one non-null value; resamples in which a group
    is empty are left out of the percentiles. ``n_reached`` and ``n_other``
    count the non-null transitions in each group. ``value``, ``lo`` and ``hi``
    are None when a group is empty.

    Reached: 0.9 and 0.7 (mean 0.8); other: 0.2, 0.4 and null (mean 0.3).

    >>> pairs = pl.DataFrame({"participant": ["p", "p", "q", "q", "r"], "problem_id": ["A"] * 5,
    ...                       "ned_code": [0.2, 0.9, 0.4, 0.7, None],
    ...                       "reached_acceptance": [False, True, False, True, False]})
    >>> out = churn_difference(pairs, "ned_code", resamples=50)
    >>> round(out["value"], 6), out["n_reached"], out["n_other"]
    (0.5, 2, 2)
    """
    _require(pairs, TRAJECTORY_KEYS + [column, "reached_acceptance"], "pairs")
    _check_bootstrap(resamples)
    if not pairs[column].dtype.is_numeric():
        raise TypeError(f"pairs.{column} must be numeric, got {pairs[column].dtype}")
    x = pl.col("_x")
    reached = pl.col("reached_acceptance")
    valid = pairs.select(
        *TRAJECTORY_KEYS, pl.col(column).cast(pl.Float64).alias("_x"), reached.fill_null(False)
    ).filter(x.is_not_null() & x.is_not_nan())
    per_trajectory = (
        valid.group_by(TRAJECTORY_KEYS, maintain_order=True)
        .agg(
            x.filter(reached).sum().alias("sum_reached"),
            x.filter(reached).len().alias("n_reached"),
            x.filter(~reached).sum().alias("sum_other"),
            x.filter(~reached).len().alias("n_other"),
        )
        .sort(TRAJECTORY_KEYS)
        .select("sum_reached", "n_reached", "sum_other", "n_other")
        .to_numpy()
        .astype(float)
    )  # (trajectories, 4)

    def difference(totals: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return totals[..., 0] / totals[..., 1] - totals[..., 2] / totals[..., 3]

    totals = per_trajectory.sum(axis=0)
    n_reached, n_other = int(totals[1]), int(totals[3])
    out: dict[str, float | None] = {"value": None, "lo": None, "hi": None, "n_reached": n_reached, "n_other": n_other}
    if n_reached == 0 or n_other == 0:
        return out
    out["value"] = float(difference(totals))
    rng = np.random.default_rng(seed)
    boot = difference(_resampled(per_trajectory, resamples, rng))
    if np.isfinite(boot).any():
        out["lo"], out["hi"] = interval(boot)
    return out


# -- convergence to the accepted code -----------------------------------------------------------------------


def convergence(attempts: pl.DataFrame) -> pl.DataFrame:
    """Similarity of each attempt of a solved trajectory to that trajectory's first accepted code.

    One row per attempt of a solved trajectory other than its first accepted
    attempt (earlier attempts and later resubmissions alike), sorted by
    participant, problem_id, turn: ``participant, problem_id, attempt_uid,
    turn, first_ac_turn, similarity`` with ``similarity =
    CodeBLEU(first accepted code, this attempt's code)`` in this attempt's
    language (null when codebleu is not used for it). Unsolved trajectories
    have no rows.
    """
    frame = _validated_attempts(attempts)
    first_accepted = (
        frame.filter(pl.col("accepted"))
        .group_by(TRAJECTORY_KEYS, maintain_order=True)
        .agg(pl.col("turn").first().alias("first_ac_turn"), pl.col("code").first().alias("accepted_code"))
    )
    rows = frame.join(first_accepted, on=TRAJECTORY_KEYS, how="inner").filter(pl.col("turn") != pl.col("first_ac_turn"))
    similarity = [
        codebleu_similarity(reference, candidate, language)
        for reference, candidate, language in zip(
            rows["accepted_code"].to_list(), rows["code"].to_list(), rows["language"].to_list()
        )
    ]
    return (
        rows.with_columns(pl.Series("similarity", similarity, dtype=pl.Float64))
        .select([pl.col(c).cast(t) for c, t in CONVERGENCE_SCHEMA.items()])
        .sort(TRAJECTORY_KEYS + ["turn"])
    )


def convergence_summary(table: pl.DataFrame) -> dict:
    """``n`` non-null similarities with their ``median``, ``q1`` and ``q3`` (linear interpolation).

    The quartiles are None when there is no similarity.

    >>> convergence_summary(pl.DataFrame({"similarity": [0.0, None, 0.25, 0.5, 1.0]}))
    {'n': 4, 'median': 0.375, 'q1': 0.1875, 'q3': 0.625}
    """
    _require(table, ("similarity",), "table")
    values = table["similarity"].cast(pl.Float64).drop_nulls().drop_nans().to_numpy()
    if values.size == 0:
        return {"n": 0, "median": None, "q1": None, "q3": None}
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    return {"n": int(values.size), "median": float(median), "q1": float(q1), "q3": float(q3)}
