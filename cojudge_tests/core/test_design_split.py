"""The design split (core/design/split.py): grouped, in the study's proportions, stable under appending."""

import json

import numpy as np
import polars as pl
import pytest

from cojudge_assets.core.design import split as ds


def _attempts(groups: list[tuple[str | None, str]], per_group: int = 2, start: int = 0) -> pl.DataFrame:
    rows = []
    for g, (participant, problem) in enumerate(groups):
        for k in range(per_group):
            rows.append(
                {
                    "attempt_uid": f"{participant}/{problem}/{start + g}-{k}",
                    "participant": participant,
                    "problem_id": problem,
                }
            )
    return pl.DataFrame(rows, schema={"attempt_uid": pl.String, "participant": pl.String, "problem_id": pl.String})


def _by_attempt(attempts: pl.DataFrame, split: pl.DataFrame) -> pl.DataFrame:
    return attempts.with_columns(ds.attempt_splits(attempts, split))


def test_appending_attempts_moves_no_group():
    first = _attempts([(f"u{i}", f"p{i % 7}") for i in range(120)], per_group=3)
    stored = ds.assign_split(first, seed=11, today="2026-01-01")
    # more attempts in existing trajectories, and new trajectories (new participants, and old ones on new problems)
    more = _attempts([(f"u{i}", f"p{i % 7}") for i in range(0, 120, 3)], per_group=2, start=1000)
    new = _attempts([(f"v{i}", f"p{i % 7}") for i in range(60)] + [(f"u{i}", "p-new") for i in range(10)])
    again = ds.assign_split(pl.concat([first, more, new]), stored, seed=11, today="2026-02-01")

    kept = stored.select("group_key", "split", "u", "assigned_at").join(
        again.select("group_key", "split", "u", "assigned_at"), on="group_key", suffix="_again"
    )
    assert len(kept) == len(stored)
    assert (kept["split"] == kept["split_again"]).all()
    assert (kept["assigned_at_again"] == "2026-01-01").all()
    assert len(again) == len(stored) + 70  # only the new trajectories were assigned, on the run that saw them
    assert (
        again.filter(~pl.col("group_key").is_in(stored["group_key"].implode()))["assigned_at"] == "2026-02-01"
    ).all()
    # an existing trajectory's new attempts take its stored split
    old = _by_attempt(first, stored).select("participant", "problem_id", "split").unique()
    appended = _by_attempt(more, again).select("participant", "problem_id", "split").unique()
    joined = appended.join(old, on=["participant", "problem_id"], suffix="_first")
    assert len(joined) == 40 and (joined["split"] == joined["split_first"]).all()


def test_stored_split_wins_over_a_new_seed_or_new_proportions():
    attempts = _attempts([(f"u{i}", "p") for i in range(50)])
    stored = ds.assign_split(attempts, seed=1)
    again = ds.assign_split(attempts, stored, seed=2, proportions=(0.0, 0.0, 1.0))
    assert again.select("group_key", "split").equals(stored.select("group_key", "split"))


def test_a_group_depends_only_on_seed_and_key():
    some = ds.assign_split(_attempts([(f"u{i}", "p") for i in range(30)]), seed=5)
    more = ds.assign_split(_attempts([(f"u{i}", "p") for i in range(300)]), seed=5)
    both = some.join(more, on="group_key", suffix="_more")
    assert (both["split"] == both["split_more"]).all() and (both["u"] == both["u_more"]).all()
    other_seed = ds.assign_split(_attempts([(f"u{i}", "p") for i in range(300)]), seed=6)
    assert not other_seed["split"].equals(more["split"])


def test_proportions_on_1000_groups_are_the_studys_within_a_few_points():
    split = ds.assign_split(_attempts([(f"u{i}", f"p{i % 13}") for i in range(1000)], per_group=1), seed=2026)
    shares = {s: (split["split"] == s).mean() for s in ds.SPLITS}
    for s, expected in zip(ds.SPLITS, ds.PROPORTIONS):
        assert abs(shares[s] - expected) < 0.03, (s, shares[s], expected)


def test_grouped_no_trajectory_in_two_splits():
    attempts = _attempts([(f"u{i % 40}", f"p{i % 9}") for i in range(400)], per_group=4)
    split = ds.assign_split(attempts, seed=3)
    per = _by_attempt(attempts, split).group_by("participant", "problem_id").agg(pl.col("split").n_unique())
    assert (per["split"] == 1).all()
    assert set(split["split"].to_list()) == set(ds.SPLITS)


def test_a_corpus_without_participants_is_grouped_by_problem():
    attempts = _attempts([(None, f"q{i % 50}") for i in range(200)])
    split = ds.assign_split(attempts, seed=3)
    assert set(split["unit"].to_list()) == {ds.PROBLEM}
    assert len(split) == 50 and [json.loads(k) for k in split["group_key"].head(1)] == [["q0"]]
    per = _by_attempt(attempts, split).group_by("problem_id").agg(pl.col("split").n_unique())
    assert (per["split"] == 1).all()


def test_sizes_record_and_inspectable_requests():
    attempts = _attempts([(f"u{i}", "p") for i in range(200)])
    split = ds.assign_split(attempts, seed=9)
    sizes = ds.split_sizes(split)
    assert sum(s["groups"] for s in sizes.values()) == 200 and sum(s["attempts"] for s in sizes.values()) == 400
    requests = attempts.select("attempt_uid", "problem_id", pl.lit("blind").alias("condition"))
    readable = ds.inspectable_requests(requests, attempts, split)
    assert len(readable) == sizes["train"]["attempts"] + sizes["validation"]["attempts"]
    assert set(readable["split"].to_list()) <= set(ds.INSPECTABLE)

    record = ds.design_record(None, split, "v1", "abc", today="2026-01-01")
    assert record.height == 1 and record["split_sha256"][0] == ds.split_hash(split)
    assert ds.design_record(record, split, "v1", "abc").equals(record)  # same prompt: nothing appended
    assert ds.design_record(record, split, "v2", "def").height == 2


def test_a_request_of_an_unknown_group_is_named():
    split = ds.assign_split(_attempts([("u1", "p")]), seed=1)
    with pytest.raises(ValueError, match="design_split .*group_key"):
        ds.attempt_splits(pl.DataFrame({"participant": ["u2"], "problem_id": ["p"]}), split, source="predictions")


def test_position_is_uniform_enough_and_cut_at_the_proportions():
    u = np.array([ds.position(0, ds.TRAJECTORY, str(i)) for i in range(2000)])
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.03
    assert ds.split_of(146 / 184 - 1e-9) == "train" and ds.split_of(146 / 184 + 1e-9) == "validation"
    with pytest.raises(ValueError, match="proportions"):
        ds.split_of(0.5, (0.5, 0.5, 0.5))
