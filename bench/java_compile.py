"""Java compilation on the demo corpus: one JVM per program against batches, one JVM per worker.

Takes every distinct Java program of the demo corpus and the mutants of its
accepted ones (one site per operator, as the perturbation study makes them),
compiles them all with an empty cache through ``ContestJudge.precompile`` (the
batches ``judge_many`` runs), then again with another empty cache one
``compile`` (one javac command) per program, and checks that the two caches
hold the same result for every program: compiled or not, message, and the
digest of what runs.

    .venv/bin/python bench/java_compile.py
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from cojudge_assets.core.execution.contest_judge import ContestJudge
from cojudge_assets.core.ingest.corpus import contest_settings, read_corpus, read_problem_table
from cojudge_assets.core.perturbation.operators import mutate

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"


def main() -> None:
    problems = read_problem_table(DEMO, "pages")
    names = dict(zip(problems["problem_id"].to_list(), problems["name"].to_list()))
    attempts = read_corpus(DEMO, "pages", names, contest_settings(DEMO)).attempts.filter(language="java")
    codes = attempts["code"].to_list()
    accepted = attempts.filter(verdict="AC")["code"].unique(maintain_order=True).to_list()
    codes += [m.code for code in accepted for m in mutate(code, "java", max_per_operator=1)]
    codes = list(dict.fromkeys(codes))
    root = Path(tempfile.mkdtemp(prefix="cojudge-bench-javac-"))
    try:
        batched, alone = ContestJudge(root / "batched"), ContestJudge(root / "alone")
        started = time.perf_counter()
        done = batched.precompile([("java", code, 256) for code in codes])
        batch_s = time.perf_counter() - started
        started = time.perf_counter()
        single = [alone.compile("java", code) for code in codes]
        alone_s = time.perf_counter() - started
        same = sum(
            (b.ok, b.message, b.artifact_sha256) == (s.ok, s.message, s.artifact_sha256)
            for b, s in zip((batched.compile("java", code) for code in codes), single)
        )
        print(
            f"cores: {os.cpu_count()}  programs: {len(codes)} ({len(attempts)} attempts and the mutants of "
            f"{len(accepted)} accepted ones), {sum(not s.ok for s in single)} do not compile"
        )
        print(
            f"batches ({batched.workers} JVMs): {done} compiled in {batch_s:.1f} s = "
            f"{batch_s / len(codes) * 1000:.0f} ms per program"
        )
        print(
            f"one JVM per program: {len(codes)} compiled in {alone_s:.1f} s = "
            f"{alone_s / len(codes) * 1000:.0f} ms per program"
        )
        print(f"same result (compiled, message, digest of what runs): {same}/{len(codes)}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
