"""The design-phase split (seed study V-A): which attempts a prompt designer may read, fixed once per corpus.

Before any judge prompt is written, the corpus's groups are split into train /
validation / test in the study's proportions (146 / 19 / 19 of 184 trajectories).
Train and validation are the *inspectable* part: a prompt or schema designer may
read their requests and labels. Test is never inspected; at the end every metric
is computed on it and compared with the full corpus (the contamination check,
core/design/robustness.py).

The group is the trajectory (participant, problem); a corpus without participants
(the ICE-Score release: one generation per item) is grouped by problem. Grouping
by trajectory lets a test problem appear in the inspectable part too (another
participant's trajectory on it), so a prompt tuned to that problem cannot show in
the contamination check; ``unit="problem"`` (the ``design_split`` asset's config
``unit: problem``) groups every corpus by problem instead, so that no test
problem is ever inspected. Changing the unit of a stored assignment is a new
split: the stored one is replaced (the design record keeps the old split's hash). A group's
split depends only on the corpus seed and its key: ``u = blake2b(seed, unit, key)``
mapped to [0, 1) and cut at the proportions. The assignment is also stored once
(the ``design_split`` table): on a re-run every stored group keeps its stored
split, whatever the seed or the proportions say now, and only groups never seen
before are assigned. Appending attempts (new trajectories, or more attempts in
existing ones) therefore never moves a group between splits.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

import numpy as np
import polars as pl

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.judging import prompts

SPLITS = ("train", "validation", "test")
PROPORTIONS = (146 / 184, 19 / 184, 19 / 184)  # seed study V-A: 146 / 19 / 19 of 184 trajectories
INSPECTABLE = ("train", "validation")  # what a prompt designer may read
NEVER_INSPECTED = "test"
TRAJECTORY, PROBLEM = "trajectory", "problem"

SPLIT_SCHEMA: dict[str, Any] = {
    "group_key": pl.String,  # JSON list: [participant, problem_id] for a trajectory, [problem_id] for a problem
    "unit": pl.String,  # trajectory or problem
    "participant": pl.String,
    "problem_id": pl.String,
    "split": pl.String,
    "u": pl.Float64,  # the group's position in [0, 1) (the keyed hash)
    "seed": pl.Int64,  # the seed it was assigned with
    "assigned_at": pl.String,  # UTC date of the run that first assigned it
    "attempts": pl.Int64,  # attempts the group holds in the latest run (0: no longer in the corpus)
}


def grouping_unit(attempts: pl.DataFrame) -> str:
    """``trajectory`` when some attempt has a participant, else ``problem`` (a corpus without participants)."""
    _require(attempts, ("participant", "problem_id"), "attempts")
    participants = attempts["participant"].cast(pl.String).fill_null("").str.strip_chars()
    return TRAJECTORY if bool((participants != "").any()) else PROBLEM


def group_keys(frame: pl.DataFrame, unit: str) -> pl.Series:
    """Each row's group key under ``unit``: ``["u01", "admissions"]`` (trajectory) or ``["humaneval-java-99"]``."""
    _require(frame, ("participant", "problem_id"), "frame")
    if unit == TRAJECTORY:
        keys = [
            json.dumps([p, q], ensure_ascii=False)
            for p, q in zip(frame["participant"].to_list(), frame["problem_id"].to_list())
        ]
    elif unit == PROBLEM:
        keys = [json.dumps([q], ensure_ascii=False) for q in frame["problem_id"].to_list()]
    else:
        raise ValueError(f"design_split: field 'unit' must be {TRAJECTORY!r} or {PROBLEM!r}, got {unit!r}")
    return pl.Series("group_key", keys, dtype=pl.String)


def position(seed: int, unit: str, key: str) -> float:
    """The group's position in [0, 1): a keyed hash of (seed, unit, key), independent of every other group.

    >>> position(7, "trajectory", '["u01", "a"]') == position(7, "trajectory", '["u01", "a"]')
    True
    >>> 0 <= position(7, "problem", '["p"]') < 1
    True
    """
    digest = hashlib.blake2b(f"{seed}\x1f{unit}\x1f{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


def split_of(u: float, proportions: tuple[float, float, float] = PROPORTIONS) -> str:
    """The split a position falls in: train below the first cut, validation below the second, else test.

    >>> [split_of(x) for x in (0.0, 0.79, 0.80, 0.9, 0.999)]
    ['train', 'train', 'validation', 'test', 'test']
    """
    if len(proportions) != 3 or min(proportions) < 0 or not np.isclose(sum(proportions), 1.0):
        raise ValueError(f"proportions must be 3 nonnegative shares summing to 1, got {proportions}")
    cuts = np.cumsum(proportions)
    return SPLITS[int(np.searchsorted(cuts[:2], u, side="right"))]


def assign_split(
    attempts: pl.DataFrame,
    previous: pl.DataFrame | None = None,
    *,
    seed: int = SEED,
    proportions: tuple[float, float, float] = PROPORTIONS,
    today: str | None = None,
    unit: str | None = None,
) -> pl.DataFrame:
    """The design split: one row per group (:data:`SPLIT_SCHEMA`), stable under appending.

    ``unit`` (``"trajectory"`` or ``"problem"``) chooses the group; None keeps the stored assignment's unit, or
    :func:`grouping_unit` on a first run. A ``unit`` other than the stored one discards the stored assignment and
    assigns every group afresh (module docstring).

    ``previous`` is the stored assignment (None or empty on a corpus's first run): every group in it keeps its
    split, seed, position, unit and date; only groups it does not hold are assigned, by :func:`position` and
    :func:`split_of`. A stored group no longer in ``attempts`` keeps its row with ``attempts`` 0 (the record of
    what was inspectable is not rewritten). The grouping unit is the stored one when there is a stored
    assignment, else :func:`grouping_unit`.
    """
    if unit is not None and unit not in (TRAJECTORY, PROBLEM):
        raise ValueError(f"design_split: setting 'unit' must be {TRAJECTORY!r}, {PROBLEM!r} or null, got {unit!r}")
    previous = previous if previous is not None and len(previous) else None
    if previous is not None:
        _require(previous, tuple(SPLIT_SCHEMA), "design_split (stored)")
        units = set(previous["unit"].to_list())
        if len(units) != 1:
            raise ValueError(f"design_split (stored): field 'unit' must hold one value, got {sorted(units)}")
        stored_unit = units.pop()
        if unit is not None and unit != stored_unit:
            previous = None  # a new grouping is a new split
        else:
            unit = stored_unit
    if unit is None:
        unit = grouping_unit(attempts)
    today = today or datetime.now(UTC).strftime("%Y-%m-%d")
    keyed = attempts.select(
        group_keys(attempts, unit),
        pl.col("participant").cast(pl.String) if unit == TRAJECTORY else pl.lit(None, pl.String).alias("participant"),
        pl.col("problem_id").cast(pl.String),
    )
    current = keyed.group_by("group_key").agg(
        pl.col("participant").first(), pl.col("problem_id").first(), pl.len().cast(pl.Int64).alias("attempts")
    )
    stored = previous.select(pl.exclude("attempts")) if previous is not None else pl.DataFrame(schema=SPLIT_SCHEMA)
    stored = stored.select([c for c in SPLIT_SCHEMA if c != "attempts"]).cast(
        {c: t for c, t in SPLIT_SCHEMA.items() if c != "attempts"}
    )
    new = current.filter(~pl.col("group_key").is_in(stored["group_key"].implode()))
    positions = [position(seed, unit, key) for key in new["group_key"].to_list()]
    new_rows = new.select(
        "group_key",
        pl.lit(unit).alias("unit"),
        "participant",
        "problem_id",
        pl.Series("split", [split_of(u, proportions) for u in positions], dtype=pl.String),
        pl.Series("u", positions, dtype=pl.Float64),
        pl.lit(seed, pl.Int64).alias("seed"),
        pl.lit(today).alias("assigned_at"),
    )
    table = pl.concat([stored, new_rows]).join(current.select("group_key", "attempts"), on="group_key", how="left")
    return table.with_columns(pl.col("attempts").fill_null(0)).select(list(SPLIT_SCHEMA)).sort("group_key")


def attempt_splits(frame: pl.DataFrame, design_split: pl.DataFrame, *, source: str = "frame") -> pl.Series:
    """The split of each row of ``frame`` (columns participant, problem_id), from the stored assignment.

    Raises a ValueError naming the first groups that have no split (``frame`` newer than the assignment).
    """
    if design_split.is_empty():
        raise ValueError("design_split: the table is empty; materialize design_split before using the split")
    unit = design_split["unit"][0]
    keys = group_keys(frame, unit)
    lookup = dict(zip(design_split["group_key"].to_list(), design_split["split"].to_list()))
    splits = [lookup.get(k) for k in keys.to_list()]
    missing = sorted({k for k, s in zip(keys.to_list(), splits) if s is None})
    if missing:
        raise ValueError(
            f"{source}: {len(missing)} group(s) have no row in design_split (field group_key), e.g. "
            f"{missing[:3]}; expected every group of the corpus: re-materialize design_split"
        )
    return pl.Series("split", splits, dtype=pl.String)


def split_sizes(design_split: pl.DataFrame) -> dict[str, dict[str, int]]:
    """Groups and attempts per split (``{"train": {"groups": .., "attempts": ..}, ...}``), groups present only."""
    present = design_split.filter(pl.col("attempts") > 0)
    sizes = {}
    for split in SPLITS:
        part = present.filter(pl.col("split") == split)
        sizes[split] = {"groups": len(part), "attempts": int(part["attempts"].sum())}
    return sizes


def split_hash(design_split: pl.DataFrame) -> str:
    """sha256 of the assignment's content (unit, group_key, split, sorted): what a design record points at."""
    rows = design_split.select("unit", "group_key", "split").sort("group_key").rows()
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()


def inspectable(frame: pl.DataFrame, splits: pl.Series) -> pl.DataFrame:
    """The rows of ``frame`` a prompt designer may read (train and validation)."""
    return frame.filter(splits.is_in(list(INSPECTABLE)).to_numpy())


RECORD_SCHEMA: dict[str, Any] = {
    "prompt_version": pl.String,
    "templates_sha256": pl.String,
    "split_sha256": pl.String,
    "unit": pl.String,
    **{f"{s}_{what}": pl.Int64 for s in SPLITS for what in ("groups", "attempts")},
    "recorded_at": pl.String,
}


def design_record(
    previous: pl.DataFrame | None,
    design_split: pl.DataFrame,
    prompt_version: str,
    templates_sha256: str,
    *,
    today: str | None = None,
) -> pl.DataFrame:
    """The record of which prompt version was designed against which split: ``previous`` with one row appended
    when (prompt_version, templates_sha256) is not in it yet (:data:`RECORD_SCHEMA`)."""
    previous = (
        pl.DataFrame(schema=RECORD_SCHEMA)
        if previous is None or previous.is_empty()
        else previous.select(list(RECORD_SCHEMA)).cast(pl.Schema(RECORD_SCHEMA))
    )
    known = set(zip(previous["prompt_version"].to_list(), previous["templates_sha256"].to_list()))
    if (prompt_version, templates_sha256) in known:
        return previous
    sizes = split_sizes(design_split)
    row = {
        "prompt_version": prompt_version,
        "templates_sha256": templates_sha256,
        "split_sha256": split_hash(design_split),
        "unit": design_split["unit"][0] if len(design_split) else None,
        **{f"{s}_{what}": sizes[s][what] for s in SPLITS for what in ("groups", "attempts")},
        "recorded_at": today or datetime.now(UTC).strftime("%Y-%m-%d"),
    }
    return pl.concat([previous, pl.DataFrame([row], schema=RECORD_SCHEMA)])


def _require(frame: pl.DataFrame, columns: tuple[str, ...], name: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name}: missing column(s) {missing}; expected {list(columns)}")


def templates_sha256() -> str:
    """sha256 of the judge prompt's templates (core/judging/prompts.py: system, user and context block): a template edit
    that keeps PROMPT_VERSION is still a new prompt to the design record."""
    return hashlib.sha256("\x1e".join((prompts.SYSTEM, prompts.USER, prompts.CONTEXT_BLOCK)).encode()).hexdigest()


def inspectable_requests(
    judge_requests: pl.DataFrame, attempts: pl.DataFrame, design_split: pl.DataFrame
) -> pl.DataFrame:
    """The judge requests of the inspectable part (train and validation), with their ``split`` column."""
    _require(judge_requests, ("attempt_uid", "condition"), "judge_requests")
    _require(attempts, ("attempt_uid", "participant", "problem_id"), "attempts")
    keyed = attempts.select("attempt_uid", "participant", pl.col("problem_id").alias("attempt_problem_id"))
    joined = judge_requests.join(keyed, on="attempt_uid", how="left")
    unknown = joined.filter(pl.col("attempt_problem_id").is_null())["attempt_uid"].to_list()
    if unknown:
        raise ValueError(
            f"judge_requests: {len(unknown)} request(s) name an attempt_uid that attempts does not hold, e.g. "
            f"{unknown[:3]}; expected requests built from the current attempts"
        )
    splits = attempt_splits(
        joined.select("participant", pl.col("attempt_problem_id").alias("problem_id")),
        design_split,
        source="judge_requests",
    )
    return judge_requests.with_columns(splits).filter(pl.col("split").is_in(list(INSPECTABLE)))
