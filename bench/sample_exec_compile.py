"""sample-exec's compile-only path on a corpus without statements: one JVM per Java program against batches.

On the shared ConDefects corpus (AtCoder faulty and fixed submissions, Java and
Python, no statements, no tests) sample-exec has no examples to run: it compiles
each program and answers "does not compile" or abstains. This script builds the
prompts the judging step sends (blind condition), then scores every one with
``SampleExecScorer`` twice, each time with a fresh, empty compile cache and the
judge's configured concurrency (data/judges.yaml), as the runner sends them:

* one JVM per Java program: ``score`` alone, which compiles each program with
  ``ContestJudge.compile`` (one javac command, one JVM, per program), the way
  sample-exec compiled before its ``prepare`` step;
* batched: ``prepare`` on the prompts first (``ContestJudge.precompile``: one
  javac JVM, or one Python interpreter, per worker for many programs), then
  ``score``, which finds them compiled.

Each path scores the Java prompts first, then the others (Python), so it can print
the time of each; the batched path prepares each group just before scoring it, and
that time counts with the group. It prints both times, the speed-ups and whether
every answer (the JSON the scorer returns) is identical between the two, and
exits 1 if one is not.

    nice -n 5 .venv/bin/python bench/sample_exec_compile.py               # every program
    nice -n 5 .venv/bin/python bench/sample_exec_compile.py --limit 100   # the first 100 attempts
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's package, not another one installed in the environment

import yaml  # noqa: E402

from cojudge_assets.core.execution.contest_judge import ContestJudge  # noqa: E402
from cojudge_assets.core.ingest.corpus import contest_settings, read_corpus, read_problem_table  # noqa: E402
from cojudge_assets.core.judging.models import JudgeRequest  # noqa: E402
from cojudge_assets.core.judging.prompts import render  # noqa: E402
from cojudge_assets.judges.local import PromptParts, SampleExecScorer, parse_prompt  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpora" / "condefects-atcoder"


def corpus_prompts(root: Path, limit: int | None) -> list[PromptParts]:
    """The prompts sample-exec is sent for the corpus's attempts (blind: no context), parsed as it parses them."""
    problems = read_problem_table(root, "progsnap2")
    statements = dict(zip(problems["problem_id"].to_list(), problems["statement"].to_list()))
    names = dict(zip(problems["problem_id"].to_list(), problems["problem_id"].to_list()))
    attempts = read_corpus(root, "progsnap2", names, contest_settings(root)).attempts.sort("attempt_uid")
    if limit:
        attempts = attempts.head(limit)
    return [
        parse_prompt(
            render(
                JudgeRequest(
                    problem_id=a["problem_id"],
                    problem_statement=statements.get(a["problem_id"]) or "",
                    language=a["language_label"] or a["language"],
                    source_code=a["code"],
                )
            )
        )
        for a in attempts.iter_rows(named=True)
    ]


def sample_exec_concurrency() -> int:
    judges = yaml.safe_load((REPO / "data" / "judges.yaml").read_text())["judges"]
    return next(j.get("concurrency", 4) for j in judges if j["name"] == "sample-exec")


def timed_answers(
    prompts: list[PromptParts], cache: Path, *, prepare: bool, concurrency: int
) -> tuple[list[str], dict[str, float], dict[str, int]]:
    """(answers, seconds by language, programs the batches compiled) of scoring ``prompts`` with an empty cache at
    ``cache``: the Java prompts first, then the others (each group's ``prepare`` counts with it)."""
    scorer = SampleExecScorer(ContestJudge(cache))
    answers: dict[int, str] = {}
    seconds: dict[str, float] = {}
    batched: dict[str, int] = {}
    java = [i for i, p in enumerate(prompts) if p.language.lower().startswith("java")]
    others = sorted(set(range(len(prompts))) - set(java))
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        for name, group in (("Java", java), ("other", others)):
            started = time.perf_counter()
            if prepare:
                batched[name] = scorer.prepare([prompts[i] for i in group])
            answers.update(zip(group, pool.map(scorer.score, [prompts[i] for i in group])))
            seconds[name] = time.perf_counter() - started
    return [answers[i] for i in range(len(prompts))], seconds, batched


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="a ProgSnap2 corpus folder (default: ConDefects)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N attempts (by attempt_uid)")
    args = parser.parse_args()
    if not (args.corpus / "progsnap2" / "MainTable.csv").is_file():
        print(f"{args.corpus}: no progsnap2/MainTable.csv (expected the shared ConDefects corpus)", file=sys.stderr)
        return 2
    prompts = corpus_prompts(args.corpus, args.limit)
    concurrency = sample_exec_concurrency()
    languages = Counter(p.language for p in prompts)
    print(f"corpus: {args.corpus.name}  cores: {os.cpu_count()}  sample-exec concurrency: {concurrency}")
    print(
        f"programs: {len(prompts)} ({', '.join(f'{n} {lang}' for lang, n in sorted(languages.items()))}); "
        f"with a statement: {sum(bool(p.statement.strip()) for p in prompts)}",
        flush=True,
    )
    root = Path(tempfile.mkdtemp(prefix="cojudge-bench-sample-exec-"))
    try:
        alone, alone_s, _ = timed_answers(prompts, root / "alone", prepare=False, concurrency=concurrency)
        batched, batched_s, in_batches = timed_answers(prompts, root / "batched", prepare=True, concurrency=concurrency)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    kinds = Counter(
        "does not compile" if '"does not compile"' in a else "abstained" if '"abstain"' in a else "other"
        for a in batched
    )
    total_alone, total_batched = sum(alone_s.values()), sum(batched_s.values())
    print(
        f"one JVM per Java program (compile per program): {total_alone:.1f} s = "
        f"{total_alone / len(prompts) * 1000:.0f} ms per program (Java {alone_s['Java']:.1f} s, "
        f"the others {alone_s['other']:.1f} s)"
    )
    print(
        f"batched (prepare, then score): {total_batched:.1f} s = {total_batched / len(prompts) * 1000:.0f} ms per "
        f"program (Java {batched_s['Java']:.1f} s, {in_batches['Java']} of them compiled in batches; the others "
        f"{batched_s['other']:.1f} s, {in_batches['other']} of them compiled in batches)"
    )
    speedups = {name: f"{alone_s[name] / batched_s[name]:.1f}x" if batched_s[name] else "none" for name in alone_s}
    print(
        f"speed-up: {total_alone / total_batched:.1f}x (Java alone: {speedups['Java']}, "
        f"the others alone: {speedups['other']})"
    )
    print(f"answers: {', '.join(f'{n} {kind}' for kind, n in sorted(kinds.items()))}")
    same = sum(a == b for a, b in zip(alone, batched))
    print(f"identical answers: {same}/{len(prompts)}")
    return 0 if same == len(prompts) else 1


if __name__ == "__main__":
    sys.exit(main())
