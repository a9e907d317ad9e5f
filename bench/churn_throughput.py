"""Churn pairs scored per second: normalized edit distance and CodeBLEU, on the demo corpus's attempts.

Usage: .venv/bin/python bench/churn_throughput.py [--corpus data/demo] [--repeat 3]

Reads the corpus's attempts (pages layout), forms every consecutive pair within a trajectory,
and times NED (rapidfuzz) and CodeBLEU (codebleu 0.7, tree-sitter) over all pairs separately,
best of --repeat for NED (CodeBLEU once: it is slow enough to be stable).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import polars as pl  # noqa: E402

from cojudge_assets.core.dynamics.trajectories import codebleu_similarity, normalized_edit_distance  # noqa: E402
from cojudge_assets.core.ingest.corpus import contest_settings, read_corpus, read_problem_table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=ROOT / "data" / "demo")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    problems = read_problem_table(args.corpus, "pages")
    names = dict(zip(problems["problem_id"].to_list(), problems["name"].to_list()))
    attempts = read_corpus(args.corpus, "pages", names, contest_settings(args.corpus)).attempts
    ordered = attempts.sort("participant", "problem_id", "turn")
    pairs = []
    for _, part in ordered.group_by("participant", "problem_id", maintain_order=True):
        rows = part.select("code", "language").rows()
        pairs += [(a[0], b[0], b[1]) for a, b in zip(rows, rows[1:])]
    best = float("inf")
    for _ in range(args.repeat):
        started = time.perf_counter()
        for previous, current, _ in pairs:
            normalized_edit_distance(previous, current)
        best = min(best, time.perf_counter() - started)
    print(f"NED: {len(pairs)} pairs in {best:.4f} s = {len(pairs) / best:,.0f} pairs/s")
    started = time.perf_counter()
    scored = sum(codebleu_similarity(previous, current, language) is not None for previous, current, language in pairs)
    elapsed = time.perf_counter() - started
    mix = dict(pl.Series([p[2] for p in pairs]).value_counts().iter_rows())
    print(f"CodeBLEU: {scored} pairs in {elapsed:.2f} s = {scored / elapsed:,.1f} pairs/s (languages {mix})")


if __name__ == "__main__":
    main()
