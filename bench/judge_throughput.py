"""Contest judge throughput on the demo corpus: submissions judged per second, cold and warm cache.

Usage: .venv/bin/python bench/judge_throughput.py [--corpus data/demo] [--limit N]

Cold: a fresh, empty cache (every distinct program is compiled and run).
Rerun: compilations cached, results and test outcomes deleted (every test runs again).
Warm: the same judge again (every result is a cache hit).
All use every core (one sandboxed run per core at a time). Prints one line per pass.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from cojudge_assets.core.execution.contest_judge import ContestJudge
from cojudge_assets.core.ingest.attempts import PageRules, list_pages, read_attempts
from cojudge_assets.core.ingest.corpus import contest_settings
from cojudge_assets.core.ingest.kattis import read_problems


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[1] / "data" / "demo")
    parser.add_argument("--limit", type=int, default=0, help="judge only the first N attempts (0: all)")
    args = parser.parse_args()
    problems = read_problems(args.corpus / "problems")
    rules = PageRules(set(problems), contest_settings(args.corpus).vocabulary)
    attempts, _ = read_attempts(args.corpus, list_pages(args.corpus), rules)
    rows = attempts.sort("attempt_uid").to_dicts()
    if args.limit:
        rows = rows[: args.limit]
    items = [(problems[r["problem_id"]], r["language"], r["code"]) for r in rows]
    distinct = len({(r["language"], r["code"]) for r in rows})
    with tempfile.TemporaryDirectory() as cache:
        judge = ContestJudge(cache)
        for label in ("cold", "rerun", "warm"):
            if label == "rerun":
                for measured in ("results", "tests"):
                    shutil.rmtree(Path(cache) / measured, ignore_errors=True)
            started = time.perf_counter()
            results = judge.judge_many(items)
            elapsed = time.perf_counter() - started
            agree = sum(r.verdict.value == row["verdict"] for r, row in zip(results, rows))
            print(
                f"{label}: {len(items)} submissions ({distinct} distinct programs) in {elapsed:.1f} s = "
                f"{len(items) / elapsed:.2f} submissions/s on {judge.workers} workers "
                f"(os.cpu_count()={os.cpu_count()}); verdict agrees with the page on {agree}/{len(items)}"
            )


if __name__ == "__main__":
    main()
