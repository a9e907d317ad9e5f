"""The perturbation study's mutants on the demo corpus: made, compiled and run in the sandbox, timed.

Reads the accepted C/C++/Java attempts of the demo corpus (core readers, no
Dagster), re-runs the seeds, makes the mutants (one site per operator and seed,
the asset's default) and verifies every one by execution, on all cores, with an
empty compile and result cache (a temporary folder), then once more warm. The
behaviour-preserving rewrites (core/perturbation/rewrites.py, ``--rewrite-share``
as MutationSettings.rewrite_share, 0: every rewrite on every seed) are verified
after the other mutants and timed apart: their time is what they add to a run.

    .venv/bin/python bench/perturbation_throughput.py [--max-per-operator 1] [--seeds N] [--rewrite-share 0.34]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from cojudge_assets.core.execution.contest_judge import ContestJudge
from cojudge_assets.core.ingest.corpus import contest_settings, read_corpus, read_problem_table
from cojudge_assets.core.ingest.kattis import read_problems
from cojudge_assets.core.perturbation.rewrites import REWRITES
from cojudge_assets.core.perturbation.verify import generate_mutants, mutation_seeds, verify_mutants

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-per-operator", type=int, default=1)
    parser.add_argument("--seeds", type=int, default=0, help="only the first N seeds (0: all)")
    parser.add_argument(
        "--rewrite-share", type=float, default=0.34, help="share of seeds rewritten once each (0: all, every one)"
    )
    args = parser.parse_args()
    problems = read_problem_table(DEMO, "pages")
    names = dict(zip(problems["problem_id"].to_list(), problems["name"].to_list()))
    attempts = read_corpus(DEMO, "pages", names, contest_settings(DEMO)).attempts
    packages = read_problems(DEMO / "problems")
    cache = Path(tempfile.mkdtemp(prefix="cojudge-bench-cache-"))
    print(f"cores: {os.cpu_count()}  max_per_operator: {args.max_per_operator}")
    try:
        for label in ("cold", "warm"):
            judge = ContestJudge(cache)
            started = time.perf_counter()
            seeds = mutation_seeds(attempts, packages, judge, max_seeds=args.seeds or None)
            seeded = time.perf_counter()
            made = generate_mutants(
                seeds, max_per_operator=args.max_per_operator, rewrite_share=args.rewrite_share or None
            )
            rewrites = [m for m in made if m["operator"] in REWRITES]
            made = [m for m in made if m["operator"] not in REWRITES]
            mutated = time.perf_counter()
            table = verify_mutants(seeds, made, packages, judge)
            done = time.perf_counter()
            rewritten = verify_mutants(seeds, rewrites, packages, judge)
            rewrite_done = time.perf_counter()
            verified = int(table["verified"].sum())
            by_arm = dict(table.filter(table["verified"]).group_by("arm").len().iter_rows())
            print(
                f"{label}: {len(seeds)} seeds re-run in {seeded - started:.1f} s; {len(made)} mutants made in "
                f"{mutated - seeded:.2f} s ({len(made) / max(mutated - seeded, 1e-9):,.0f} mutants/s); "
                f"compiled and run in {done - mutated:.1f} s: {verified} verified "
                f"({by_arm}) = {verified / (done - mutated):.2f} mutants verified/s; total {done - started:.1f} s"
            )
            print(
                f"{label}: {len(rewritten)} rewrites ({dict(rewritten.group_by('operator').len().iter_rows())}) "
                f"compiled and run in {rewrite_done - done:.1f} s: {int(rewritten['verified'].sum())} verified"
            )
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
