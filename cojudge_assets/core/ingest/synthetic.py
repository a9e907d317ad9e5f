"""A synthetic study of known truth at any size: a ProgSnap2 corpus of N attempts in trajectories, and imported
judges whose ROC-AUC is planted (bench/scale_rehearsal.py runs the graph on it at 10^5 and 10^6 attempts; the
at-size test runs it on thousands).

The corpus (ProgSnap2 layout, core/ingest/progsnap2.py): ``participants x problems`` trajectories of ``turns``
attempts each (N = their product). Each trajectory has a latent skill, each problem a difficulty and each turn a
gain; an attempt's latent quality is their sum plus noise, and it is accepted when the quality is above 0 (so
the labels are clustered by trajectory and improve with the turns). Every code is distinct.

The judges (the *cojudge judgments* format, core/judging/imported.py): two imported judges x the three
conditions in one Parquet file. A judge's score of an attempt is ``Phi((d * accepted + e) / 2)`` with
``e ~ N(0, 1)``: given the label it is binormal with separation ``d``, so its ROC-AUC is exactly
``Phi(d / sqrt(2))`` (a monotone map keeps the AUC), and every score is a distinct continuous value.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

CONDITIONS = ("blind", "prefix12k", "nonblind")
# separation d per judge and condition: the planted AUC is Phi(d / sqrt 2)
SEPARATION = {
    "judge-a": {"blind": 1.0, "prefix12k": 1.2, "nonblind": 1.5},
    "judge-b": {"blind": 0.5, "prefix12k": 0.6, "nonblind": 0.8},
}


def planted_auc(d: float) -> float:
    return 0.5 * (1 + math.erf(d / 2))  # Phi(d / sqrt 2) = (1 + erf(d / 2)) / 2


def shape(attempts: int) -> tuple[int, int, int]:
    """participants, problems, turns with product ``attempts`` (turns 5, problems 20 where it divides)."""
    turns = 5
    problems = 20 if attempts % (turns * 20) == 0 else 1
    participants = attempts // (turns * problems)
    if participants * problems * turns != attempts or participants < 1:
        raise SystemExit(f"--attempts {attempts}: expected a multiple of 100 (participants x 20 problems x 5 turns)")
    return participants, problems, turns


def write_corpus(root: Path, attempts: int, seed: int) -> pl.DataFrame:
    """The ProgSnap2 corpus under ``root``; returns attempt_uid and accepted (the planted labels)."""
    participants, problems, turns = shape(attempts)
    rng = np.random.default_rng(seed)
    subject = np.repeat(np.arange(participants), problems * turns)
    problem = np.tile(np.repeat(np.arange(problems), turns), participants)
    turn = np.tile(np.arange(turns), participants * problems)
    skill = rng.normal(0, 1, participants * problems)[subject * problems + problem]
    difficulty = rng.normal(0, 0.5, problems)[problem]
    quality = skill - difficulty + 0.4 * (turn - 2) + rng.normal(0, 1, attempts)
    accepted = quality > 0
    event = np.arange(attempts)
    folder = root / "progsnap2"
    (folder / "CodeStates").mkdir(parents=True, exist_ok=True)
    base = np.datetime64("2024-01-01T08:00:00")
    stamps = (base + (turn * 600 + problem * 7200).astype("timedelta64[s]")).astype(str)
    pl.DataFrame(
        {
            "EventType": "Submit",
            "EventID": pl.Series(event).cast(pl.String).str.replace(r"^", "e"),
            "Order": turn,
            "SubjectID": pl.Series(subject).cast(pl.String).str.replace(r"^", "s"),
            "ProblemID": pl.Series(problem).cast(pl.String).str.replace(r"^", "p"),
            "CodeStateID": pl.Series(event).cast(pl.String).str.replace(r"^", "c"),
            "ServerTimestamp": stamps,
            "Correct": np.where(accepted, "true", "false"),
            "Language": "Python",
        }
    ).write_csv(folder / "MainTable.csv")
    code = pl.Series(event).cast(pl.String).str.replace(r"^(.*)$", "n = int(input())\nprint(n * ${1} + 1)\n")
    pl.DataFrame({"CodeStateID": pl.Series(event).cast(pl.String).str.replace(r"^", "c"), "Code": code}).write_csv(
        folder / "CodeStates" / "CodeStates.csv"
    )
    return pl.DataFrame({"attempt_uid": [f"progsnap2/e{i}" for i in event], "accepted": accepted})


def write_judgments(folder: Path, labels: pl.DataFrame, seed: int) -> Path:
    """The two judges' scores under the three conditions, one Parquet file, and the judges file declaring them."""
    from scipy.special import ndtr

    rng = np.random.default_rng(seed + 1)
    accepted = labels["accepted"].to_numpy().astype(np.float64)
    frames = []
    for judge, by_condition in SEPARATION.items():
        for condition, d in by_condition.items():
            score = ndtr((d * accepted + rng.normal(0, 1, len(accepted))) / 2)
            frames.append(
                pl.DataFrame({"item": labels["attempt_uid"], "judge": judge, "condition": condition, "score": score})
            )
    pl.concat(frames).write_parquet(folder / "judgments.parquet")
    declarations = ["judges:"]
    for judge in SEPARATION:
        declarations += [
            f"  - name: {judge}",
            "    imported:",
            "      path: judgments.parquet",
            f"      judge: {judge}",
            "      scale: {min: 0, max: 1}",
        ]
    judges = folder / "judges.yaml"
    judges.write_text("\n".join(declarations) + "\n")
    return judges


# the steps a generated corpus has nothing for: they run programs on a problem's tests in the sandbox (and findings
# and the report read what they make); bench/scale_rehearsal.py and the at-size test run every other step
SANDBOX_STEPS = frozenset(
    {
        "label_audit",
        "mutation_seeds",
        "mutants",
        "graded_programs",
        "graded_yield",
        "graded_balance",
        "graded_scores",
        "graded_metrics",
        "perturbation_requests",
        "perturbation_outputs",
        "perturbation_yield",
        "perturbation_metrics",
        "findings",  # reads perturbation_metrics: waits for it
        "report",  # reads findings
    }
)
