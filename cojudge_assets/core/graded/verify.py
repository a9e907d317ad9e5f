"""Graded programs: rules chained on accepted seeds, verified by execution, balanced over the ceilings 1..5.

**Candidates.** For every usable seed (core/perturbation/verify.py ``mutation_seeds``: accepted here, with its
output per test) and every rule (core/graded/rules.py), the rule's program: every site for ceilings 5-3, one
site (the middle one of the program's sites) for ceilings 2-1. A rule that finds no site is *skipped* and
counted. Half of the programs (by a hash of seed and rule) are *chained*: a companion rule of a ceiling
at least the rule's own is applied on top, so the program carries two rules and its ceiling is the lower
one, the rule's. The companion is chosen by rendezvous hashing (the applicable rule with the smallest hash of
seed, rule and companion), so adding a rule changes only the chains it wins, and every other program keeps
its code, and with it its cached verification (the contest judge caches results by the compiled artifact)
and its cached judge answers (keyed by the request's hash).

**Verification.** Each program is compiled and run on the problem's tests in the sandbox, through the contest
judge resource as the mutants are. Its *effect* is:

* ``preserved``: output byte-identical to the seed's on every test (the first difference stops the run);
* ``minor``: fails some tests, at most ``MAJOR_CUT`` (half) of them;
* ``major``: fails more than half of them;
* ``broken``: does not compile (or the judge could not run it).

A program is *accepted* when its effect is the one its ceiling intends: ``preserved`` for 5, 4, 3; ``minor``
for 2; ``major`` for 1. Anything else is rejected with its reason, counted, and never scored. Bug programs run
test by test and stop once the effect is decided (a program that has failed more than half of the tests is
major whatever the rest give; one that has failed a test and passed more than half is minor), so that an
endless loop costs at most half the tests' time limits; ``failed`` and ``tests_run`` say how far it went.

**Balance.** Among the accepted programs, ``n`` = the count of the scarcest ceiling are kept for every ceiling
(``graded``), chosen round-robin over the seeds (a seed's programs are taken one per round, rarest rule first)
so that no seed and no rule dominates a ceiling; the five ceilings then hold 20% each. Since no more than
``n`` per ceiling are kept, the ceilings are verified scarcest first and a ceiling with more candidates is run,
in that round-robin order, only until ``n`` of its programs are accepted (:func:`verify`, ``lazy``); the rest
are ``not_run`` rows. This is what keeps the step's cost near the mutants step's (bench/graded_cost.py).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import polars as pl

from cojudge_assets.core.execution.contest_judge import ContestJudge, Verdict
from cojudge_assets.core.graded.rules import BY_NAME, PRESERVING, RULES, Rule, spread, variants
from cojudge_assets.core.ingest.kattis import ProblemPackage
from cojudge_assets.core.perturbation import budget

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

MAJOR_CUT = 0.5  # a bug failing more than this share of the tests is major (ceiling 1), at most it: minor (2)
INTENDED = {5: "preserved", 4: "preserved", 3: "preserved", 2: "minor", 1: "major"}

PROGRAM_SCHEMA: dict[str, PolarsDataType] = {
    "program_uid": pl.String,
    "seed_uid": pl.String,
    "problem_id": pl.String,
    "language": pl.String,
    "language_label": pl.String,
    "rule": pl.String,  # the rule that sets the ceiling
    "companion": pl.String,  # the chained rule (null: a single rule)
    "rules": pl.List(pl.String),
    "ceiling": pl.Int64,
    "category": pl.String,
    "code": pl.String,
    "verdict": pl.String,
    "tests": pl.Int64,
    "tests_run": pl.Int64,
    "failed": pl.Int64,
    "fail_share": pl.Float64,  # failed / tests (a lower bound when the run stopped once decided)
    "effect": pl.String,
    "accepted": pl.Boolean,
    "reason": pl.String,
    "graded": pl.Boolean,
}
SKIP_SCHEMA: dict[str, PolarsDataType] = {
    "seed_uid": pl.String,
    "language": pl.String,
    "rule": pl.String,
    "reason": pl.String,
}
NO_SITE = "the rule finds no site in this program"


def _hash(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")


def _one(code: str, language: str, rule: Rule) -> str | None:
    made = variants(code, language, rule)
    if not made:
        return None
    return made[0] if rule.every_site else made[spread(len(made), 1)[0]]


def candidates(
    seeds: pl.DataFrame, rules: tuple[Rule, ...] = RULES, *, seconds_per_seed: float = budget.TIME_BUDGET_S
) -> tuple[list[dict], list[dict]]:
    """(programs, skips): one program per usable seed and applicable rule (chained for half of them, see the
    module docstring), and one skip row per (seed, rule) that found no site, with its reason. A seed whose tree
    is deeper than budget.MAX_TREE_DEPTH or whose rules take more than ``seconds_per_seed`` of tree-sitter work
    in all makes no program: one skip row per rule, whose reason names the rule that ran out and the limit."""
    programs, skips = [], []
    for seed in seeds.filter(pl.col("usable")).sort("seed_uid").iter_rows(named=True):
        uid, language = seed["seed_uid"], seed["language"]
        try:
            with budget.program_budget(seconds_per_seed):
                made = _programs_of(seed, rules)
        except budget.OverBudget as over:
            skips += [{"seed_uid": uid, "language": language, "rule": r.name, "reason": over.reason} for r in rules]
            continue
        programs += made
        skips += [
            {"seed_uid": uid, "language": language, "rule": r.name, "reason": NO_SITE}
            for r in rules
            if r.name not in {p["rule"] for p in made}
        ]
    return programs, skips


def _programs_of(seed: dict, rules: tuple[Rule, ...]) -> list[dict]:
    uid, language, code = seed["seed_uid"], seed["language"], seed["code"]
    programs = []
    applicable = {}
    for rule in rules:
        with budget.rule(rule.name):
            made = _one(code, language, rule)
        if made is not None:
            applicable[rule.name] = made
    for rule in rules:
        if rule.name not in applicable:
            continue
        with budget.rule(rule.name):
            program, companion = applicable[rule.name], None
            if _hash(uid, rule.name) % 2 == 0:
                pool = [
                    r
                    for r in rules
                    if r.name != rule.name
                    and r.ceiling in PRESERVING
                    and r.ceiling >= rule.ceiling
                    and r.name in applicable
                ]
                for other in sorted(pool, key=lambda r: _hash(uid, rule.name, r.name)):
                    chained = _one(program, language, other)
                    if chained is not None:
                        program, companion = chained, other.name
                        break
            programs.append(
                {
                    "program_uid": f"{uid}~{rule.name}" + (f"+{companion}" if companion else ""),
                    "seed_uid": uid,
                    "problem_id": seed["problem_id"],
                    "language": language,
                    "language_label": seed["language_label"],
                    "rule": rule.name,
                    "companion": companion,
                    "rules": [rule.name] + ([companion] if companion else []),
                    "ceiling": rule.ceiling,
                    "category": rule.category,
                    "code": program,
                }
            )
    return programs


def _classify(failed: int, passed: int, total: int) -> str | None:
    """The effect once decided by ``failed`` and ``passed`` of ``total`` tests, else None (see module docstring)."""
    if failed > MAJOR_CUT * total:
        return "major"
    if failed > 0 and passed >= total - int(MAJOR_CUT * total):
        return "minor"
    if failed + passed == total:
        return "preserved" if failed == 0 else "minor"
    return None


def _run_bug(judge: ContestJudge, package: ProblemPackage, language: str, code: str) -> dict:
    tests = list(package.tests)
    failed = passed = 0
    verdict = Verdict.AC
    for test in tests:
        result = judge.judge(package, language, code, tests=[test])
        if result.verdict in (Verdict.CE, Verdict.JUDGE_ERROR):
            return {"verdict": result.verdict.value, "tests_run": 0, "failed": None, "effect": "broken"}
        if result.verdict == Verdict.AC:
            passed += 1
        else:
            failed += 1
            verdict = verdict if verdict != Verdict.AC else result.verdict
        effect = _classify(failed, passed, len(tests))
        if effect is not None:
            return {"verdict": verdict.value, "tests_run": failed + passed, "failed": failed, "effect": effect}
    return {"verdict": verdict.value, "tests_run": len(tests), "failed": failed, "effect": "preserved"}


def _run_preserving(judge: ContestJudge, package: ProblemPackage, language: str, code: str, outputs: list) -> dict:
    result = judge.judge(package, language, code)  # stops at the first failing test
    if result.verdict in (Verdict.CE, Verdict.JUDGE_ERROR):
        return {"verdict": result.verdict.value, "tests_run": 0, "failed": None, "effect": "broken"}
    identical = len(result.tests) == len(outputs) and all(
        t.verdict == Verdict.AC and t.output_sha256 == s for t, s in zip(result.tests, outputs)
    )
    failed = sum(t.verdict != Verdict.AC for t in result.tests)
    return {
        "verdict": result.verdict.value,
        "tests_run": len(result.tests),
        "failed": failed,
        "effect": "preserved" if identical else ("changed" if failed == 0 else "minor"),
    }


def _reason(row: dict) -> str | None:
    intended = INTENDED[row["ceiling"]]
    if row["effect"] == intended:
        return None
    if row["effect"] == "broken":
        return f"does not compile ({row['verdict']})"
    if intended == "preserved":
        return "behaviour changed: " + (
            "output differs from the seed's" if row["effect"] == "changed" else f"{row['verdict']} on a test"
        )
    if row["effect"] == "preserved":
        return "no test fails: the defect is not observable on the problem's tests"
    return f"{row['effect']} instead of {intended} ({row['failed']}/{row['tests']} tests failed)"


def _verify_all(
    seeds: pl.DataFrame,
    programs: list[dict],
    packages: dict[str, ProblemPackage],
    judge: ContestJudge,
    on_done: Callable[[], object] | None = None,
) -> list[dict]:
    by_seed = {r["seed_uid"]: r for r in seeds.iter_rows(named=True)}
    judge.precompile((p["language"], p["code"], packages[p["problem_id"]].memory_mb) for p in programs)

    def run(p: dict) -> dict:
        package = packages[p["problem_id"]]
        if p["ceiling"] in PRESERVING:
            outcome = _run_preserving(judge, package, p["language"], p["code"], by_seed[p["seed_uid"]]["output_sha256"])
        else:
            outcome = _run_bug(judge, package, p["language"], p["code"])
        row = {**p, **outcome, "tests": len(package.tests)}
        row["fail_share"] = row["failed"] / row["tests"] if row["failed"] is not None and row["tests"] else None
        row["reason"] = _reason(row)
        row["accepted"] = row["reason"] is None
        if on_done is not None:
            on_done()
        return row

    with ThreadPoolExecutor(max_workers=judge.workers) as pool:
        return list(pool.map(run, programs))


def _round_robin(programs: list[dict], ceiling: int) -> list[dict]:
    """A ceiling's programs one seed at a time: every seed's first, then every seed's second, ...; seeds in a
    hash order, so that any prefix spreads over the seeds, and a seed's programs rarest rule first (the rule
    with the fewest candidates in the ceiling, then by name), so that any prefix spreads over the rules too."""
    frequency: dict[str, int] = defaultdict(int)
    for p in programs:
        frequency[p["rule"]] += 1
    by_seed: dict[str, list[dict]] = defaultdict(list)
    for p in sorted(programs, key=lambda p: (frequency[p["rule"]], p["rule"], p["program_uid"])):
        by_seed[p["seed_uid"]].append(p)
    order = sorted(by_seed, key=lambda s: _hash(s, str(ceiling)))
    depth = max(map(len, by_seed.values()), default=0)
    return [by_seed[s][i] for i in range(depth) for s in order if i < len(by_seed[s])]


def verify(
    seeds: pl.DataFrame,
    programs: list[dict],
    packages: dict[str, ProblemPackage],
    judge: ContestJudge,
    *,
    lazy: bool = True,
    progress: Callable[[str], object] | None = None,
) -> pl.DataFrame:
    """Candidate programs run on their problem's tests (module docstring), one row per program, ``graded`` set
    by :func:`balance`.

    ``lazy``: the ceilings are verified scarcest first (fewest candidates); once ``n``, the fewest accepted so
    far, is known, a ceiling with more candidates is verified in round-robin order (:func:`_round_robin`) only
    until ``n`` are accepted - the balance keeps no more. The candidates never run have effect ``not_run``
    (never accepted, never graded). ``lazy=False`` runs every candidate. ``progress`` gets a line at most every
    10 s (core/progress.py; the total counts every candidate, of which the lazy balance may run fewer)."""
    from cojudge_assets.core.progress import Progress

    tracker = Progress(progress, len(programs), "graded programs (candidates run on their tests)")
    by_ceiling: dict[int, list[dict]] = defaultdict(list)
    for p in programs:
        by_ceiling[p["ceiling"]].append(p)
    rows: list[dict] = []
    needed: float = float("inf")
    for ceiling in sorted(INTENDED, key=lambda c: (len(by_ceiling[c]), c)):
        queue = _round_robin(by_ceiling[ceiling], ceiling)
        accepted, start = 0, 0
        while start < len(queue) and (not lazy or accepted < needed):
            batch = len(queue) if not lazy or needed == float("inf") else int((needed - accepted) * 1.2) + 2
            done = _verify_all(seeds, queue[start : start + batch], packages, judge, tracker.advance)
            accepted += sum(r["accepted"] for r in done)
            rows += done
            start += batch
        rows += [
            {**p, "effect": "not_run", "accepted": False, "reason": "not run: the balance needs no more"}
            for p in queue[start:]
        ]
        needed = min(needed, accepted)
    tracker.finish()
    table = pl.DataFrame([{**r, "graded": False} for r in rows], schema=PROGRAM_SCHEMA)
    return balance(table)


def graded_programs(
    seeds: pl.DataFrame,
    packages: dict[str, ProblemPackage],
    judge: ContestJudge,
    rules: tuple[Rule, ...] = RULES,
    *,
    progress: Callable[[str], object] | None = None,
) -> pl.DataFrame:
    """Candidates made, verified and balanced (module docstring), with one ``skipped`` row per (seed, rule) the
    rule found no site in (no code, never accepted): the table the yield is counted from."""
    programs, skips = candidates(seeds, rules)
    table = verify(seeds, programs, packages, judge, progress=progress)
    by_seed = {r["seed_uid"]: r for r in seeds.iter_rows(named=True)}
    skipped = pl.DataFrame(
        [
            {
                "program_uid": f"{s['seed_uid']}~{s['rule']}",
                "seed_uid": s["seed_uid"],
                "problem_id": by_seed[s["seed_uid"]]["problem_id"],
                "language": s["language"],
                "language_label": by_seed[s["seed_uid"]]["language_label"],
                "rule": s["rule"],
                "rules": [s["rule"]],
                "ceiling": BY_NAME[s["rule"]].ceiling,
                "category": BY_NAME[s["rule"]].category,
                "effect": "skipped",
                "accepted": False,
                "reason": s["reason"],
                "graded": False,
            }
            for s in skips
        ],
        schema=PROGRAM_SCHEMA,
    )
    return pl.concat([table, skipped]).sort("program_uid")


def balance(table: pl.DataFrame) -> pl.DataFrame:
    """``graded`` set on ``n`` accepted programs per ceiling, n the count of the scarcest ceiling, taken in
    :func:`_round_robin` order over the seeds."""
    accepted = table.filter(pl.col("accepted"))
    n = min(accepted.filter(pl.col("ceiling") == c).height for c in INTENDED)
    chosen: set[str] = set()
    for ceiling in INTENDED:
        queue = _round_robin(accepted.filter(pl.col("ceiling") == ceiling).to_dicts(), ceiling)
        chosen.update(p["program_uid"] for p in queue[:n])
    return table.with_columns(graded=pl.col("program_uid").is_in(sorted(chosen))).sort("program_uid")


def rule_yield(table: pl.DataFrame) -> pl.DataFrame:
    """One row per rule: seeds it was skipped on (no site, or the seed over a tree-sitter budget: the reason says
    which), programs made and run (applied), made but not run (the balance needed no more), accepted (their share
    of the run: the yield), broken (no compile) or of the wrong effect, graded, and its share of the graded set."""
    graded_total = max(int(table["graded"].sum()), 1) if len(table) else 1
    skipped = table.filter(pl.col("effect") == "skipped").group_by("rule").len().rename({"len": "skipped"})
    made = (
        table.filter(pl.col("effect") != "skipped")
        .group_by("rule")
        .agg(
            applied=(pl.col("effect") != "not_run").sum(),
            not_run=(pl.col("effect") == "not_run").sum(),
            accepted=pl.col("accepted").sum(),
            graded=pl.col("graded").sum(),
            broken=(pl.col("effect") == "broken").sum(),
            wrong_effect=(~pl.col("accepted") & ~pl.col("effect").is_in(["broken", "not_run"])).sum(),
            languages=pl.col("language").unique().sort().str.join(","),
        )
    )
    rules = pl.DataFrame(
        {
            "rule": [r.name for r in RULES],
            "ceiling": [r.ceiling for r in RULES],
            "category": [r.category for r in RULES],
        }
    )
    return (
        rules.join(made, on="rule", how="left")
        .join(skipped, on="rule", how="left")
        .with_columns(
            pl.col("applied", "not_run", "accepted", "graded", "broken", "wrong_effect", "skipped")
            .fill_null(0)
            .cast(pl.Int64),
        )
        .with_columns(
            yield_=pl.when(pl.col("applied") > 0).then(pl.col("accepted") / pl.col("applied")),
            graded_share=pl.col("graded") / graded_total,
        )
        .rename({"yield_": "yield"})
    )


def ceiling_balance(table: pl.DataFrame) -> pl.DataFrame:
    """One row per ceiling: candidates, accepted, graded and the graded share (the balance)."""
    total = max(int(table["graded"].sum()), 1) if len(table) else 1
    made = table.filter(pl.col("effect").fill_null("") != "skipped") if "effect" in table.columns else table
    run = pl.col("effect").fill_null("") != "not_run" if "effect" in table.columns else pl.lit(True)
    return (
        pl.DataFrame({"ceiling": list(INTENDED)}, schema={"ceiling": pl.Int64})
        .join(
            made.group_by("ceiling").agg(
                candidates=pl.len(),
                verified=run.sum(),
                accepted=pl.col("accepted").sum(),
                graded=pl.col("graded").sum(),
            ),
            on="ceiling",
            how="left",
        )
        .with_columns(pl.col("candidates", "verified", "accepted", "graded").fill_null(0).cast(pl.Int64))
        .with_columns(share=pl.col("graded") / total)
        .sort("ceiling", descending=True)
    )


def fail_share_distribution(table: pl.DataFrame) -> pl.DataFrame:
    """The failed-test shares of the bug programs that ran, in tenths, by ceiling and effect."""
    return (
        table.filter(pl.col("ceiling").is_in([1, 2]) & pl.col("fail_share").is_not_null())
        .with_columns(bin=(pl.col("fail_share") * 10).floor().clip(0, 9) / 10)
        .group_by("ceiling", "effect", "bin")
        .len()
        .sort("ceiling", "bin", "effect")
    )


def request_frame(table: pl.DataFrame) -> pl.DataFrame:
    """The graded programs shaped like attempts, for core/requests.build_requests (blind)."""
    return (
        table.filter(pl.col("graded"))
        .rename({"program_uid": "attempt_uid"})
        .select("attempt_uid", "problem_id", "language", "language_label", "code")
    )
