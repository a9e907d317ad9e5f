"""The tree-sitter work on one deeply nested seed, under core/perturbation/budget.py (issue 34).

For each nesting depth, a C seed whose main holds that many nested blocks (2 bytes a level, the report's shape) is
mutated as the mutants step does (verify.generate_mutants: every operator and rewrite), and CodeBLEU is computed
against a one-character edit of it (the churn step's pair); the wall seconds and what became of the seed are printed.
Before the budget: 500 levels 0.8-2.6 s, 1,000 6-13 s, 2,000 over 60 s, 10,000 killed after 566 s in REFORMAT.

    .venv/bin/python bench/tree_budget.py [--depths 100,190,500,1000,10000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cojudge_tests.faults.test_tree_budget import nested, seeds  # noqa: E402 - the test's seeds, one definition


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", default="100,190,500,1000,10000")
    args = parser.parse_args()
    from cojudge_assets.core.dynamics.trajectories import codebleu_similarity
    from cojudge_assets.core.perturbation.verify import generate_mutants

    print("depth  bytes  mutate_s  outcome                                        codebleu_s  codebleu")
    for depth in (int(d) for d in args.depths.split(",")):
        code = nested(depth)
        started = time.perf_counter()
        made = generate_mutants(seeds(("s", code)), max_per_operator=None, workers=1)
        mutate_s = time.perf_counter() - started
        skipped = [m for m in made if m["kind"] == "skipped"]
        outcome = skipped[0]["skip_reason"][:46] if skipped else f"{len(made)} mutants"
        started = time.perf_counter()
        score = codebleu_similarity(code, code.replace("s = 0", "s = 1"), "c")
        codebleu_s = time.perf_counter() - started
        print(f"{depth:>5}  {len(code):>5}  {mutate_s:>8.2f}  {outcome:<46} {codebleu_s:>10.2f}  {score}")


if __name__ == "__main__":
    main()
