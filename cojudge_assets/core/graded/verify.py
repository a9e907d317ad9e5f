"""Graded programs made as AXIOM makes them: sequences of rule applications on accepted seeds, verified on the
problem's secret tests, balanced over the ceilings 0..5.

**Programs.** For every usable seed (core/perturbation/verify.py ``mutation_seeds``: accepted here, with its output
per test) and every rule (core/graded/rules.py) that applies to it, one program of the rule's ceiling k: a sequence
of ``L`` rule applications, each at one site, the rule itself last. The ``L - 1`` others are drawn from the rules of
ceiling >= k, so the program's ceiling, the lowest of its rules', is k; and of ceiling >= 3, so that a program
carries one defect at most (its own rule's, for k <= 2): two defects stacked would make a repair of their summed
size, and fail every test more often than either, so the ceiling would no longer be the rule's. AXIOM's sequences
are written by an LLM; here they are drawn, and this is the one constraint added. ``L`` is 1, 2, 3 or 4 by a hash of
seed and rule: the same distribution at every ceiling, so that the edit size does not grow with the ceiling by
construction. Each slot's rule is chosen by rendezvous hashing (the rule with the smallest hash of seed, rule and
slot among those with a site in the program so far) and its site by a hash of seed, rule and slot; so adding a rule
changes only the programs of that rule and the slots it wins, and every other program keeps its code, and with it
its cached verification (the contest judge caches results by the compiled artifact) and its cached judge answers.
``edit_size`` is the program's Levenshtein distance to the seed in characters (rapidfuzz); ``repair_tokens`` the
size of the repair that undoes its defect: the token-level Levenshtein distance of its bug application (ceilings
0-2; rules.repair_tokens), 0 for ceilings 3-5.

**Verification, on the secret tests only.** The statement's sample tests are never run for a label (a judge
such as sample-exec runs them; a label that shared them would agree with it by construction). A seed whose
problem has no secret test makes no program (a skip row says so). Each program's *effect*:

* ``preserved``: output byte-identical to the seed's on every secret test (the first difference stops the run);
* ``changed``: a secret test's output differs from the seed's while every test is accepted;
* ``some_fail``: fails at least one secret test and passes at least one (the run stops once both are seen);
* ``all_fail``: fails every secret test;
* ``passes_a_test``: a ceiling-0 candidate that passed a test (the run stops there: it is no ceiling-0 program);
* ``broken``: does not compile (or the judge could not run it).

A program is *accepted* when its effect is the one its ceiling intends: ``preserved`` for 5, 4, 3;
``some_fail`` for 2 and 1, with a repair of at most ``MINOR_REPAIR_TOKENS`` (5) tokens for 2 and more for 1
(checked before anything runs: a mismatch is never run); ``broken`` or ``all_fail`` for 0. Anything else is
rejected with its reason, counted, and never scored.

**Balance.** Among the accepted programs, ``n`` = the count of the scarcest ceiling, at most ``per_ceiling``
(:data:`PER_CEILING`, below), are kept for every ceiling (``graded``), so the six ceilings hold 1/6 each, chosen
round-robin over the seeds (a seed's programs one per round, rarest rule first) with no rule past ``RULE_CAP``
(25%) of its ceiling while another rule of the ceiling has accepted programs left; where none has, the cap is
raised evenly and ``graded_balance`` says why (:func:`ceiling_balance`, ``note``). Since no more than ``n`` per
ceiling are kept, the ceilings are verified scarcest first, and a ceiling runs only the candidates the balance
would keep if every candidate not run yet were accepted, again after each rejection (:func:`verify`, ``lazy``):
the programs kept are those of a full verification; the rest are ``not_run`` rows.

**Size.** A graded program costs a compile and a run on the secret tests (0.35 to 0.47 s of CPU on the demo), and
the programs a corpus yields grow with its seeds. ``PER_CEILING`` (48; ``graded_programs``' run config
``per_ceiling``, 0 for no cap) bounds the study, so the graded programs add a bounded share to a study's run:
on the demo, 48 a ceiling instead of the 204 the scarcest ceiling holds (docs/methodology.md, "Graded
perturbations", gives the figures and the decision).
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import polars as pl

from cojudge_assets.core.execution.contest_judge import ContestJudge, Verdict
from cojudge_assets.core.graded.rules import (
    BY_NAME,
    CATEGORIES,
    MINOR_REPAIR_TOKENS,
    PRESERVING,
    RULES,
    Application,
    Rule,
    apply_at,
    levenshtein,
)
from cojudge_assets.core.ingest.kattis import ProblemPackage
from cojudge_assets.core.perturbation import budget

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

INTENDED = {5: "preserved", 4: "preserved", 3: "preserved", 2: "some_fail", 1: "some_fail", 0: "not rectifiable"}
LENGTHS = (1, 2, 3, 4)  # rule applications in one program, by a hash of seed and rule: the same at every ceiling
RULE_CAP = 0.25  # no rule holds more than this share of its ceiling's graded programs, where the corpus allows
# graded programs kept per ceiling by default (module docstring, "Size"); None or 0: as many as the scarcest has
PER_CEILING = 48  # a multiple of 4: a ceiling with four usable rules holds each at 25%, not 13 of 50 (26%)

PROGRAM_SCHEMA: dict[str, PolarsDataType] = {
    "program_uid": pl.String,
    "seed_uid": pl.String,
    "problem_id": pl.String,
    "language": pl.String,
    "language_label": pl.String,
    "rule": pl.String,  # the rule that sets the ceiling (the sequence's last)
    "rules": pl.List(pl.String),  # the sequence of rule applications, in the order applied
    "ceiling": pl.Int64,
    "category": pl.String,
    "code": pl.String,
    "edit_size": pl.Int64,  # Levenshtein distance to the seed, characters
    "repair_tokens": pl.Int64,  # tokens of the repair undoing the bug applications (ceilings 0-2), else 0
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
NO_SECRET = "the problem has no secret test: nothing to label the program on"


def _hash(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")


def candidates(
    seeds: pl.DataFrame,
    rules: tuple[Rule, ...] = RULES,
    *,
    packages: dict[str, ProblemPackage] | None = None,
    seconds_per_seed: float = budget.TIME_BUDGET_S,
) -> tuple[list[dict], list[dict]]:
    """(programs, skips): one program per usable seed and applicable rule (a sequence, see the module docstring),
    and one skip row per (seed, rule) that made none, with its reason. A seed whose problem (in ``packages``,
    when given) has no secret test makes no program. A seed whose tree is deeper than budget.MAX_TREE_DEPTH or
    whose rules take more than ``seconds_per_seed`` of tree-sitter work in all makes no program: one skip row per
    rule, whose reason names the rule that ran out and the limit."""
    programs, skips = [], []
    for seed in seeds.filter(pl.col("usable")).sort("seed_uid").iter_rows(named=True):
        uid, language = seed["seed_uid"], seed["language"]
        if packages is not None and not packages[seed["problem_id"]].secret:
            skips += [{"seed_uid": uid, "language": language, "rule": r.name, "reason": NO_SECRET} for r in rules]
            continue
        try:
            with budget.program_budget(seconds_per_seed):
                made = [p for rule in rules if (p := _program(seed, rule, rules)) is not None]
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


def _length(uid: str, rule: str) -> int:
    return LENGTHS[_hash(uid, rule, "length") % len(LENGTHS)]


def _apply(code: str, language: str, rule: Rule, *key: str) -> Application | None:
    with budget.rule(rule.name):
        return apply_at(code, language, rule, _hash(*key, rule.name, "site"))


def _program(seed: dict, rule: Rule, rules: tuple[Rule, ...]) -> dict | None:
    """``rule``'s program of ``seed``: ``L - 1`` applications drawn from the rules of ceiling >= its own and >= 3
    (one defect a program: see the module docstring), then ``rule``'s; with fewer of the others when ``rule``
    finds no site after them; None when it finds none in the seed itself."""
    uid, language, code = seed["seed_uid"], seed["language"], seed["code"]
    pool = [r for r in rules if r.ceiling >= max(rule.ceiling, min(PRESERVING))]
    steps: list[Application] = []
    current = code
    for slot in range(1, _length(uid, rule.name)):
        for other in sorted(pool, key=lambda r: _hash(uid, rule.name, str(slot), r.name)):
            made = _apply(current, language, other, uid, rule.name, str(slot))
            if made is not None:
                steps.append(made)
                current = made.code
                break
    while True:
        last = _apply(steps[-1].code if steps else code, language, rule, uid, rule.name, "last")
        if last is not None or not steps:
            break
        steps.pop()  # the others took away every site of the rule: one fewer
    if last is None:
        return None
    steps.append(last)
    return {
        "program_uid": f"{uid}~{rule.name}",
        "seed_uid": uid,
        "problem_id": seed["problem_id"],
        "language": language,
        "language_label": seed["language_label"],
        "rule": rule.name,
        "rules": [s.rule for s in steps],
        "ceiling": rule.ceiling,
        "category": rule.category,
        "code": last.code,
        "edit_size": levenshtein(code, last.code),
        "repair_tokens": sum(s.repair_tokens for s in steps if BY_NAME[s.rule].ceiling <= 2),
    }


def _broken(verdict: Verdict) -> dict:
    return {"verdict": verdict.value, "tests_run": 0, "failed": None, "effect": "broken"}


def _run_bug(judge: ContestJudge, package: ProblemPackage, language: str, code: str, ceiling: int) -> dict:
    """Secret test by secret test, until the effect is decided: a pass and a failure seen (``some_fail``), or,
    for a ceiling-0 candidate, a pass (``passes_a_test``); else ``all_fail`` or ``preserved`` at the end."""
    failed = passed = 0
    verdict = Verdict.AC
    for test in package.secret:
        result = judge.judge(package, language, code, tests=[test])
        if result.verdict in (Verdict.CE, Verdict.JUDGE_ERROR):
            return _broken(result.verdict)
        if result.verdict == Verdict.AC:
            passed += 1
        else:
            failed += 1
            verdict = verdict if verdict != Verdict.AC else result.verdict
        if passed and (failed or ceiling == 0):
            effect = "some_fail" if failed else "passes_a_test"
            return {"verdict": verdict.value, "tests_run": failed + passed, "failed": failed, "effect": effect}
    effect = "preserved" if not failed else ("all_fail" if not passed else "some_fail")
    return {"verdict": verdict.value, "tests_run": failed + passed, "failed": failed, "effect": effect}


def _run_preserving(judge: ContestJudge, package: ProblemPackage, language: str, code: str, outputs: list) -> dict:
    """On the secret tests; ``outputs``: the seed's output hashes on the secret tests."""
    result = judge.judge(package, language, code, tests=list(package.secret))  # stops at the first failing test
    if result.verdict in (Verdict.CE, Verdict.JUDGE_ERROR):
        return _broken(result.verdict)
    identical = len(result.tests) == len(outputs) and all(
        t.verdict == Verdict.AC and t.output_sha256 == s for t, s in zip(result.tests, outputs)
    )
    failed = sum(t.verdict != Verdict.AC for t in result.tests)
    return {
        "verdict": result.verdict.value,
        "tests_run": len(result.tests),
        "failed": failed,
        "effect": "preserved" if identical else ("changed" if failed == 0 else "some_fail"),
    }


def _repair_mismatch(program: dict) -> str | None:
    """Why a ceiling-1 or -2 program's repair size is not its ceiling's (checked before it runs), else None."""
    tokens = program["repair_tokens"]
    if program["ceiling"] == 2 and tokens > MINOR_REPAIR_TOKENS:
        return f"repair of {tokens} tokens > {MINOR_REPAIR_TOKENS}: a major defect, not a minor bug"
    if program["ceiling"] == 1 and tokens <= MINOR_REPAIR_TOKENS:
        return f"repair of {tokens} tokens <= {MINOR_REPAIR_TOKENS}: a minor bug, not a major defect"
    return None


def _reason(row: dict) -> str | None:
    ceiling, effect = row["ceiling"], row["effect"]
    if ceiling == 0:
        if effect in ("broken", "all_fail"):
            return None
        return "passes a secret test: rectifiable, not ceiling 0"
    if effect == INTENDED[ceiling]:
        return None
    if effect == "broken":
        return f"does not compile ({row['verdict']})"
    if ceiling in PRESERVING:
        return "behaviour changed: " + (
            "output differs from the seed's" if effect == "changed" else f"{row['verdict']} on a secret test"
        )
    if effect == "preserved":
        return "no secret test fails: the defect is not observable on the problem's secret tests"
    return f"fails every secret test ({row['failed']}/{row['tests']}): not rectifiable, ceiling 0"


def _verify_all(
    seeds: pl.DataFrame,
    programs: list[dict],
    packages: dict[str, ProblemPackage],
    judge: ContestJudge,
    on_done: Callable[[], object] | None = None,
) -> list[dict]:
    by_seed = {r["seed_uid"]: r for r in seeds.iter_rows(named=True)}
    runnable = [p for p in programs if _repair_mismatch(p) is None]
    judge.precompile((p["language"], p["code"], packages[p["problem_id"]].memory_mb) for p in runnable)

    def run(p: dict) -> dict:
        package = packages[p["problem_id"]]
        mismatch = _repair_mismatch(p)
        if mismatch is not None:
            outcome: dict = {"verdict": None, "tests_run": 0, "failed": None, "effect": "repair_mismatch"}
        elif p["ceiling"] in PRESERVING:
            secret = by_seed[p["seed_uid"]]["output_sha256"][len(package.samples) :]
            outcome = _run_preserving(judge, package, p["language"], p["code"], secret)
        else:
            outcome = _run_bug(judge, package, p["language"], p["code"], p["ceiling"])
        row = {**p, **outcome, "tests": len(package.secret)}
        row["fail_share"] = row["failed"] / row["tests"] if row["failed"] is not None and row["tests"] else None
        row["reason"] = mismatch or _reason(row)
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
    per_ceiling: int | None = None,
    progress: Callable[[str], object] | None = None,
) -> pl.DataFrame:
    """Candidate programs run on their problem's tests (module docstring), one row per program, ``graded`` set
    by :func:`balance` (at most ``per_ceiling`` a ceiling: :data:`PER_CEILING`).

    ``lazy``: the ceilings are verified scarcest first (fewest candidates); once ``n``, the fewest accepted so
    far, is known, a ceiling with more candidates runs only the candidates the balance would keep if every one not
    run yet were accepted (:func:`_filled` over the accepted and the not-run, in :func:`_round_robin` order), and
    again after each rejection, until the balance's choice holds none not run. A candidate the balance skips in
    that optimistic choice (past the 25% cap, or after ``n``) it skips whatever the others' verdicts, so the
    programs kept are exactly those of a full verification. The candidates never run have effect ``not_run``
    (never accepted, never graded). ``lazy=False`` runs every candidate. ``progress`` gets a line at most every
    10 s (core/progress.py; its total is what is left to run as far as it is known: every candidate of a
    ceiling verified in full, at most ``n`` of a lazy one, one more after each rejection)."""
    from cojudge_assets.core.progress import Progress

    by_ceiling: dict[int, list[dict]] = defaultdict(list)
    for p in programs:
        by_ceiling[p["ceiling"]].append(p)
    rows: list[dict] = []
    needed: float = per_ceiling if per_ceiling else float("inf")
    order = sorted(INTENDED, key=lambda c: (len(by_ceiling[c]), c))

    def left(ceilings: list[int], done: dict[str, dict]) -> int:
        """Candidates still to run as far as known; the first of ``ceilings`` is the one being verified."""
        full = not lazy or needed == float("inf")
        counts = [len(by_ceiling[c]) if full else min(int(needed), len(by_ceiling[c])) for c in ceilings]
        if ceilings:
            accepted = sum(r["accepted"] for r in done.values())
            counts[0] = len(by_ceiling[ceilings[0]]) - len(done) if full else max(0, counts[0] - accepted)
        return sum(counts)

    tracker = Progress(progress, left(order, {}), "graded programs (candidates run on their tests)")
    for i, ceiling in enumerate(order):
        queue = _round_robin(by_ceiling[ceiling], ceiling)
        done: dict[str, dict] = {}
        while True:
            tracker.expect(left(order[i:], done))
            if not lazy or needed == float("inf"):
                chosen = [p for p in queue if p["program_uid"] not in done]
            else:
                hopeful = [p for p in queue if done.get(p["program_uid"], {"accepted": True})["accepted"]]
                chosen = [p for p in _filled(hopeful, int(needed)) if p["program_uid"] not in done]
            if not chosen:
                break
            done.update((r["program_uid"], r) for r in _verify_all(seeds, chosen, packages, judge, tracker.advance))
        rows += done.values()
        rows += [
            {**p, "effect": "not_run", "accepted": False, "reason": "not run: the balance needs no more"}
            for p in queue
            if p["program_uid"] not in done
        ]
        needed = min(needed, sum(r["accepted"] for r in done.values()))
    tracker.expect(0)
    tracker.finish()
    table = pl.DataFrame([{**r, "graded": False} for r in rows], schema=PROGRAM_SCHEMA)
    return balance(table, per_ceiling)


def graded_programs(
    seeds: pl.DataFrame,
    packages: dict[str, ProblemPackage],
    judge: ContestJudge,
    rules: tuple[Rule, ...] = RULES,
    *,
    per_ceiling: int | None = PER_CEILING,
    progress: Callable[[str], object] | None = None,
) -> pl.DataFrame:
    """Candidates made, verified and balanced (module docstring), at most ``per_ceiling`` graded a ceiling (None
    or 0: as many as the scarcest ceiling has), with one ``skipped`` row per (seed, rule) the rule found no site in
    (no code, never accepted): the table the yield is counted from."""
    programs, skips = candidates(seeds, rules, packages=packages)
    table = verify(seeds, programs, packages, judge, per_ceiling=per_ceiling, progress=progress)
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


def _filled(queue: list[dict], n: int) -> list[dict]:
    """Up to ``n`` of ``queue``, no rule past RULE_CAP of ``n`` while the others can fill it: every rule up to the
    cap in queue order, then, while fewer than ``n`` are taken, the cap raised by one and the queue passed again
    (water-filling), so the largest rule share is as small as the corpus allows. :func:`verify`'s lazy order runs
    the candidates in the same order, so it keeps what a full verification keeps."""
    cap = max(1, math.floor(RULE_CAP * n))
    taken: dict[str, dict] = {}
    count: dict[str, int] = defaultdict(int)
    while len(taken) < n:
        before = len(taken)
        for p in queue:
            if len(taken) >= n:
                break
            if p["program_uid"] not in taken and count[p["rule"]] < cap:
                taken[p["program_uid"]] = p
                count[p["rule"]] += 1
        if len(taken) == before:
            break
        cap += 1
    return list(taken.values())


def balance(table: pl.DataFrame, per_ceiling: int | None = None) -> pl.DataFrame:
    """``graded`` set on ``n`` accepted programs per ceiling, n the count of the scarcest ceiling (at most
    ``per_ceiling`` when set), taken in the :func:`_round_robin` order of the ceiling's candidates (accepted or
    not, as :func:`verify` runs them) with no rule past RULE_CAP of ``n``; where the ceiling's rules cannot fill
    ``n`` so, the cap is raised evenly just enough (:func:`_filled`), and :func:`ceiling_balance` says so."""
    candidates = table.filter(pl.col("effect").fill_null("") != "skipped")
    accepted = candidates.filter(pl.col("accepted"))
    n = min(accepted.filter(pl.col("ceiling") == c).height for c in INTENDED)
    if per_ceiling:
        n = min(n, per_ceiling)
    chosen: set[str] = set()
    for ceiling in INTENDED:
        queue = _round_robin(candidates.filter(pl.col("ceiling") == ceiling).to_dicts(), ceiling)
        chosen.update(p["program_uid"] for p in _filled([p for p in queue if p["accepted"]], n))
    return table.with_columns(graded=pl.col("program_uid").is_in(sorted(chosen))).sort("program_uid")


def rule_yield(table: pl.DataFrame) -> pl.DataFrame:
    """One row per rule: seeds it was skipped on (no site, or the seed over a tree-sitter budget: the reason says
    which), programs made and run (applied), made but not run (the balance needed no more), accepted (their share
    of the run: the yield), broken (no compile) or of the wrong effect, graded, its share of the graded set and
    of its ceiling's graded programs (``ceiling_share``, at most RULE_CAP where the corpus allows)."""
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
            ceiling_share=pl.when(pl.col("graded").sum().over("ceiling") > 0).then(
                pl.col("graded") / pl.col("graded").sum().over("ceiling")
            ),
        )
        .rename({"yield_": "yield"})
    )


def _cap_note(ceiling: int, yields: pl.DataFrame) -> str | None:
    """Why a rule holds more than RULE_CAP of ``ceiling``'s graded programs, else None."""
    rows = yields.filter(pl.col("ceiling") == ceiling).sort("ceiling_share", descending=True, nulls_last=True)
    if rows.is_empty() or (rows["ceiling_share"][0] or 0) <= RULE_CAP:
        return None
    top, graded = rows.row(0, named=True), int(rows["graded"].sum())
    cap = max(1, math.floor(RULE_CAP * graded))
    within = sum(min(a, cap) for a in rows["accepted"].to_list())
    others = [
        f"{r['rule']}: {r['accepted']} accepted of {r['applied']} run"
        + (f" ({r['not_run']} more not run: the balance needed no more)" if r["not_run"] else "")
        + f", no site on {r['skipped']} seeds"
        for r in rows.iter_rows(named=True)
        if r["rule"] != top["rule"]
    ]
    return (
        f"{top['rule']} holds {top['ceiling_share']:.0%} (> {RULE_CAP:.0%}): at most {cap} programs a rule, the "
        f"ceiling's accepted programs fill {within} of {graded}, so the cap was raised evenly; the others: "
        f"{'; '.join(others) or 'none'}"
    )


def ceiling_balance(table: pl.DataFrame) -> pl.DataFrame:
    """One row per ceiling 5..0: its category, candidates, verified, accepted, graded, the graded share (the
    balance, 1/6 each), the median edit size of its graded programs, and a ``note`` where a rule holds more than
    RULE_CAP of them, saying why (the other rules' accepted programs are all graded: no site, or no yield)."""
    total = max(int(table["graded"].sum()), 1) if len(table) else 1
    made = table.filter(pl.col("effect").fill_null("") != "skipped")
    run = pl.col("effect").fill_null("") != "not_run"
    yields = rule_yield(table)
    out = (
        pl.DataFrame(
            {"ceiling": list(INTENDED), "category": [CATEGORIES[c] for c in INTENDED]},
            schema={"ceiling": pl.Int64, "category": pl.String},
        )
        .join(
            made.group_by("ceiling").agg(
                candidates=pl.len(),
                verified=run.sum(),
                accepted=pl.col("accepted").sum(),
                graded=pl.col("graded").sum(),
                median_edit_size=pl.col("edit_size").filter(pl.col("graded")).median(),
            ),
            on="ceiling",
            how="left",
        )
        .with_columns(pl.col("candidates", "verified", "accepted", "graded").fill_null(0).cast(pl.Int64))
        .with_columns(share=pl.col("graded") / total)
        .sort("ceiling", descending=True)
    )
    return out.with_columns(note=pl.Series([_cap_note(c, yields) for c in out["ceiling"].to_list()], dtype=pl.String))


def shape(table: pl.DataFrame) -> dict[str, float]:
    """The graded set's shape (issue 36's done-when): Spearman's rho of edit size with the ceiling, each
    ceiling's share (the one farthest from 1/6), and the largest share of its ceiling any rule holds."""
    from scipy import stats

    graded = table.filter(pl.col("graded"))
    balance_ = ceiling_balance(table)
    yields = rule_yield(table)
    rho = stats.spearmanr(graded["edit_size"].to_numpy(), graded["ceiling"].to_numpy()).statistic
    return {
        "programs": float(len(graded)),
        "spearman_edit_size_ceiling": float(rho),
        "max_share_gap": max((abs(x - 1 / len(INTENDED)) for x in balance_["share"].to_list()), default=0.0),
        "max_rule_ceiling_share": max((x for x in yields["ceiling_share"].to_list() if x is not None), default=0.0),
    }


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
