"""The cross-judge tables from the compact reader (issue 33): the predictions read one judge x condition at a time
into each cell's arrays (core/measurement/measure.py ``Universe.from_slices``) and the universe from the requests
and contexts read one condition at a time (core/measurement/predictions.py ``universe_of_slices``) give the same
agreement, condition_effects and panel tables, row for row, as the whole predictions frame did, on a generated
study with thousands of distinct continuous scores, abstentions, a judge constant under one condition, and
evidence-backed contexts; under analytic intervals and under the bootstrap. The tables are computed alone there
(no out-of-fold decision, no other metric of a cell): they equal those of the whole measurement."""

import hashlib

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from cojudge_assets.core.frames import frames_connection
from cojudge_assets.core.measurement.measure import CROSS_TABLES, MeasurementConfig, Universe, measure
from cojudge_assets.core.measurement.predictions import (
    cell_slices,
    read_predictions,
    read_universe,
    universe_of_slices,
)

CONDITIONS = ("blind", "prefix12k", "nonblind")
JUDGES = ("judge-a", "judge-b", "judge-c")


class FrameSlices:
    """A table read slice by slice, as defs/io.py's TableReader reads one, over a frame."""

    def __init__(self, frame: pl.DataFrame, columns: list[str]):
        self.frame, self.columns, self.reads = frame, columns, 0

    def read(self, **equal: str) -> pl.DataFrame:
        self.reads += 1
        rows = self.frame
        for column, value in equal.items():
            rows = rows.filter(pl.col(column) == value)
        return rows.select(self.columns)

    def keys(self, *columns: str) -> list[tuple]:
        return list(self.frame.select(columns).unique().sort(list(columns)).iter_rows())


def _study(attempts: int, seed: int = 7) -> dict[str, pl.DataFrame]:
    """The asset frames of a study: attempts in trajectories, requests under every condition (a few attempts never
    asked), contexts (some evidence-backed), and answers with continuous scores and abstentions."""
    rng = np.random.default_rng(seed)
    uid = [f"s/{i:06d}" for i in range(attempts)]
    participant = [f"p{i // 20 % 150}" for i in range(attempts)]
    problem = [f"q{i % 20}" for i in range(attempts)]
    quality = rng.normal(size=attempts)
    accepted = quality > 0
    table = {
        "attempts": pl.DataFrame(
            {
                "attempt_uid": uid,
                "participant": participant,
                "problem_id": problem,
                "turn": [i // 3000 + 1 for i in range(attempts)],
                "verdict": ["AC" if a else "WA" for a in accepted],
                "accepted": accepted,
                "code_sha256": [hashlib.sha256(f"print({i})".encode()).hexdigest() for i in range(attempts)],
                "language": "python",
            }
        )
    }
    asked = [u for u in uid if not u.endswith("7")]  # a tenth of the attempts asked under no condition
    table["judge_requests"] = pl.DataFrame(
        {
            "attempt_uid": asked * 3,
            "condition": [c for c in CONDITIONS for _ in asked],
            "request_hash": [f"h-{c}-{u}" for c in CONDITIONS for u in asked],
            "source_code": [f"print({int(u[2:])})" for _ in CONDITIONS for u in asked],
        }
    )
    tiers = rng.choice(["anchored", "segmented", "none"], size=len(asked))
    table["participant_context"] = pl.DataFrame(
        {
            "attempt_uid": asked * 3,
            "condition": [c for c in CONDITIONS for _ in asked],
            "provenance": [t if c == "nonblind" else "none" for c in CONDITIONS for t in tiers],
        }
    )
    outputs = []
    for k, judge in enumerate(JUDGES):
        for c, condition in enumerate(CONDITIONS):
            answered = rng.random(len(asked)) > 0.1 * (k + 1)  # each judge abstains on some
            index = np.array([int(u[2:]) for u in asked])[answered]
            p = 1 / (1 + np.exp(-(quality[index] * (0.5 + k + c / 2) + rng.normal(size=len(index)))))
            if judge == "judge-c" and condition == "prefix12k":
                p = np.full(len(index), 0.5)  # constant: left out of that condition's panel, said in a note row
            outputs.append(
                pl.DataFrame(
                    {
                        "attempt_uid": [uid[i] for i in index],
                        "judge": judge,
                        "condition": condition,
                        "p_accept": p,
                        "s_algo": 3,
                        "s_robust": 3,
                        "request_hash": [f"h-{condition}-{uid[i]}" for i in index],
                        "served_model": judge,
                        "status": "ok",
                    }
                )
            )
    table["judge_outputs"] = pl.concat(outputs)
    return table


@pytest.mark.parametrize(
    "config",
    [
        MeasurementConfig(analytic_from=1000),  # every figure analytic
        MeasurementConfig(analytic_from=10**9, resamples=40, problem_resamples=40),  # every figure bootstrapped
    ],
    ids=["analytic", "bootstrap"],
)
def test_the_compact_reader_gives_the_frame_readers_cross_judge_tables(config):
    frames = _study(6000)
    with frames_connection(frames) as conn:
        predictions = read_predictions(conn)
        universe = read_universe(conn)
    assert predictions["p_accept"].n_unique() > 10_000  # thousands of distinct continuous scores
    # with judge_metrics: every metric, decision and problem resample of the cells, as the whole measurement
    before = measure(predictions, config, attempts=universe, tables=CROSS_TABLES + ("judge_metrics",))

    requests = FrameSlices(frames["judge_requests"], ["attempt_uid", "condition"])
    contexts = FrameSlices(frames["participant_context"], ["attempt_uid", "condition", "provenance"])
    sliced_universe = universe_of_slices(requests, frames["attempts"], contexts)
    assert_frame_equal(sliced_universe, universe)
    assert requests.reads == len(CONDITIONS) and contexts.reads == 1  # one condition at a time; nonblind only
    reader = FrameSlices(predictions, ["attempt_uid", "judge", "condition", "p_accept"])
    u = Universe.from_slices(cell_slices(reader), config, sliced_universe)
    assert reader.reads == len(JUDGES) * len(CONDITIONS)
    after = measure(None, config, tables=CROSS_TABLES, universe=u)

    for name in CROSS_TABLES:
        assert_frame_equal(after[name], before[name])
    assert before["panel"].filter(pl.col("metric") == "excluded_constant")["judge"].to_list() == ["judge-c"]
    evidence = before["condition_effects"].filter(pl.col("metric") == "delta_roc_auc_evidence")
    assert evidence["value"].is_finite().all() and len(evidence) == len(JUDGES) * 3


def test_a_prediction_outside_the_attempts_is_named_by_the_compact_reader_too():
    frames = _study(200)
    with frames_connection(frames) as conn:
        universe = read_universe(conn)
    stray = pl.DataFrame({"attempt_uid": ["s/999999"], "p_accept": [0.4]})
    with pytest.raises(ValueError, match="s/999999"):
        Universe.from_slices([("judge-a", "blind", stray)], MeasurementConfig(), universe)


def test_no_request_no_universe():
    frames = _study(50)
    assert universe_of_slices(None, frames["attempts"], None).is_empty()


def test_the_cluster_codes_polars_makes_are_those_of_the_joined_python_strings():
    """core/stats/bootstrap.py ``column_cluster_codes`` (the universe's trajectories and problems, issue 33) gives
    ``cluster_codes``'s ids: the resamples and folds drawn over them are the same."""
    from cojudge_assets.core.stats.bootstrap import cluster_codes, column_cluster_codes

    rng = np.random.default_rng(0)
    alphabet = list("ab1Z_/\x01é中 ")  # a control character below the separator, non-ASCII, a space
    for _ in range(50):
        a = ["".join(rng.choice(alphabet, size=rng.integers(0, 4))) for _ in range(300)]
        b = ["".join(rng.choice(alphabet, size=rng.integers(0, 3))) for _ in range(300)]
        expected = cluster_codes(np.array(a, dtype=object), np.array(b, dtype=object))
        assert column_cluster_codes([pl.Series(a), pl.Series(b)]).tolist() == expected.tolist()
        assert column_cluster_codes([pl.Series(a)]).tolist() == cluster_codes(np.array(a, dtype=object)).tolist()
    with_null = [pl.Series(["p", None, "p"]), pl.Series(["A", "A", "A"])]
    assert column_cluster_codes(with_null).tolist() == cluster_codes(*(s.to_numpy() for s in with_null)).tolist()
