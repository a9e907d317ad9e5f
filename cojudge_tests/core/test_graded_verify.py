"""Graded programs: candidates, verification by execution, balance (core/graded/verify.py)."""

from __future__ import annotations

import polars as pl
import pytest
from rapidfuzz.distance import Levenshtein

from cojudge_assets.core.graded.rules import BY_NAME, MINOR_REPAIR_TOKENS, RULES
from cojudge_assets.core.graded.verify import (
    INTENDED,
    LENGTHS,
    NO_SECRET,
    PROGRAM_SCHEMA,
    balance,
    candidates,
    ceiling_balance,
    graded_programs,
    rule_yield,
    verify,
)
from cojudge_assets.core.perturbation.verify import mutation_seeds
from cojudge_tests.conftest import write_problem

SEED = """#include <stdio.h>
#define TWO 2
int main(void) {
    long long a, b, total = 0;
    scanf("%lld %lld", &a, &b);
    for (int i = 0; i < TWO; i++) {
        if (i == 0) total += a;
        else total += b;
    }
    if (total > 1000 && a > 0) printf("big ");
    printf("%lld\\n", total);
    return 0;
}
"""


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    tests = {f"secret/{i}": (f"{i} {i + 1}\n", f"{2 * i + 1}\n") for i in range(1, 7)}
    tests["sample/1"] = ("1 1\n", "2\n")
    tests["secret/9"] = ("3000 4000\n", "big 7000\n")
    return write_problem(tmp_path_factory.mktemp("graded"), tests, name="sum")


@pytest.fixture(scope="module")
def seeds(judge, problem):
    attempts = pl.DataFrame(
        [
            {
                "attempt_uid": "s1",
                "participant": "p",
                "problem_id": "sum",
                "language": "c",
                "language_label": "C",
                "code": SEED,
                "accepted": True,
            }
        ]
    )
    return mutation_seeds(attempts, {"sum": problem}, judge)


class RecordingJudge:
    """The contest judge, recording the tests every call ran."""

    def __init__(self, judge):
        self._judge, self.ran = judge, []

    def __getattr__(self, name):
        return getattr(self._judge, name)

    def judge(self, package, language, code, **kwargs):
        tests = kwargs.get("tests") or package.tests
        self.ran += [t.name for t in tests]
        return self._judge.judge(package, language, code, **kwargs)


def test_programs_are_sequences_of_one_to_four_applications_ending_in_their_rule(seeds, problem):
    programs, skips = candidates(seeds, packages={"sum": problem})
    applied = {p["rule"] for p in programs}
    assert {s["rule"] for s in skips} == {r.name for r in RULES} - applied
    assert "R1_REMOVE_BASE_CASE" in {s["rule"] for s in skips}  # nothing recursive here
    assert {BY_NAME[r].ceiling for r in applied} == set(INTENDED)  # every ceiling 0..5 has a candidate
    for p in programs:
        ceilings = [BY_NAME[r].ceiling for r in p["rules"]]
        assert p["rules"][-1] == p["rule"] and 1 <= len(p["rules"]) <= max(LENGTHS)
        assert p["ceiling"] == min(ceilings) == BY_NAME[p["rule"]].ceiling
        assert sum(c == 0 for c in ceilings) == (p["ceiling"] == 0)  # a ceiling-0 program: one ceiling-0 rule
        assert p["edit_size"] == Levenshtein.distance(SEED, p["code"]) > 0
        if p["ceiling"] >= 3:
            assert p["repair_tokens"] == 0
    assert len({len(p["rules"]) for p in programs}) > 1  # lengths vary, by hash
    again, _ = candidates(seeds, packages={"sum": problem})
    assert [p["code"] for p in again] == [p["code"] for p in programs]  # deterministic


def test_removing_a_rule_keeps_every_program_that_did_not_use_it(seeds, problem):
    programs, _ = candidates(seeds, packages={"sum": problem})
    gone = "R5_COMPOUND_ASSIGN"
    fewer, _ = candidates(seeds, tuple(r for r in RULES if r.name != gone), packages={"sum": problem})
    before = {p["program_uid"]: p["code"] for p in programs if gone not in p["rules"]}
    after = {p["program_uid"]: p["code"] for p in fewer}
    kept = [uid for uid in before if after.get(uid) == before[uid]]
    assert len(kept) == len(before)  # rendezvous choice: only the slots the removed rule won change


def test_a_problem_without_secret_tests_makes_no_program(judge, seeds, tmp_path):
    only_samples = write_problem(tmp_path, {"sample/1": ("1 2\n", "3\n")}, name="sum")
    programs, skips = candidates(seeds, packages={"sum": only_samples})
    assert programs == [] and {s["reason"] for s in skips} == {NO_SECRET}


def test_every_program_is_verified_on_secret_tests_only_and_only_the_intended_effect_is_accepted(judge, problem, seeds):
    recording = RecordingJudge(judge)
    programs, _ = candidates(seeds, packages={"sum": problem})
    table = verify(seeds, programs, {"sum": problem}, recording, lazy=False)
    assert recording.ran and not [t for t in recording.ran if t.startswith("sample/")]  # labels: secret only
    assert len(table) == len(programs) and table["effect"].is_not_null().all()
    for row in table.iter_rows(named=True):
        assert row["accepted"] == (row["reason"] is None), row["program_uid"]
        if not row["accepted"]:
            continue
        if row["ceiling"] >= 3:
            assert row["effect"] == "preserved"
        elif row["ceiling"] == 0:
            assert row["effect"] in ("broken", "all_fail")
        else:
            assert row["effect"] == "some_fail" and 0 < row["failed"]
            assert (row["repair_tokens"] <= MINOR_REPAIR_TOKENS) == (row["ceiling"] == 2)
    assert {0, 1, 3, 4, 5} <= set(table.filter(pl.col("accepted"))["ceiling"].to_list())  # 2: this seed has none
    mismatched = table.filter(pl.col("effect") == "repair_mismatch")
    assert (mismatched["tests_run"] == 0).all()  # a repair of the wrong size is never run
    graded = table.filter(pl.col("graded"))
    assert graded.group_by("ceiling").len()["len"].n_unique() <= 1  # balanced (empty here: no ceiling 2)
    full = graded_programs(seeds, {"sum": problem}, judge)
    assert full.filter(pl.col("effect") != "skipped")["program_uid"].sort().equals(table["program_uid"].sort())
    yields = rule_yield(full)
    ran = full.filter(~pl.col("effect").is_in(["skipped", "not_run"]))
    assert yields["applied"].sum() == len(ran)
    assert len(yields) == len(RULES)
    assert (yields["applied"] + yields["not_run"] + yields["skipped"] == 1).all()  # one seed: one row per rule


def test_lazy_verification_runs_a_plentiful_ceiling_only_until_the_balance_is_met(judge, problem, seeds):
    programs, _ = candidates(seeds, packages={"sum": problem})
    lazy = verify(seeds, programs, {"sum": problem}, judge)
    full = verify(seeds, programs, {"sum": problem}, judge, lazy=False)
    assert (full["effect"] != "not_run").all()
    assert ceiling_balance(lazy)["graded"].equals(ceiling_balance(full)["graded"])  # as many per ceiling
    ran = lazy.filter(pl.col("effect") != "not_run")
    assert len(ran) < len(full)  # the plentiful ceilings stopped early
    assert (lazy.filter(pl.col("effect") == "not_run")["reason"].str.contains("balance")).all()


def _rules(ceiling: int) -> list[str]:
    return [r.name for r in RULES if r.ceiling == ceiling]


def _table(counts: dict[int, int], rule_of=lambda c, i: _rules(c)[i % len(_rules(c))]) -> pl.DataFrame:
    rows = [
        {
            "program_uid": f"s{i % 4}~{c}~{i}",
            "seed_uid": f"s{i % 4}",
            "rule": rule_of(c, i),
            "ceiling": c,
            "effect": "ok",
            "accepted": True,
            "graded": False,
        }
        for c, n in counts.items()
        for i in range(n)
    ]
    return pl.DataFrame(rows).with_columns(
        [pl.lit(None, dtype=d).alias(k) for k, d in PROGRAM_SCHEMA.items() if k not in rows[0]]
    )


def test_balance_keeps_the_scarcest_ceilings_count_for_every_ceiling_spread_over_seeds():
    table = balance(_table({5: 30, 4: 12, 3: 8, 2: 9, 1: 20, 0: 16}))
    shares = ceiling_balance(table)
    assert shares["graded"].to_list() == [8] * 6 and shares["share"].to_list() == [1 / 6] * 6
    top = table.filter(pl.col("graded") & (pl.col("ceiling") == 5))
    assert top["seed_uid"].value_counts()["count"].to_list() == [2] * 4  # 8 over 4 seeds: two each


def test_no_rule_holds_more_than_a_quarter_of_its_ceiling_unless_the_others_ran_out_and_the_table_says_why():
    def rule_of(ceiling, i):  # ceiling 5: one rule has 40 accepted programs, the three others 4 each
        return _rules(ceiling)[0 if ceiling == 5 and i < 40 else 1 + i % 3] if ceiling == 5 else _rules(ceiling)[0]

    counts = {5: 52, 4: 16, 3: 16, 2: 16, 1: 16, 0: 16}
    table = balance(_table(counts, rule_of))
    yields = rule_yield(table)
    five = yields.filter(pl.col("ceiling") == 5).sort("graded", descending=True)
    assert five["graded"].to_list() == [4, 4, 4, 4]  # 16 graded, cap 4 each: the dominant rule is held back
    assert five["ceiling_share"].max() == 0.25
    notes = ceiling_balance(table).select("ceiling", "note")
    assert notes.filter(pl.col("ceiling") == 5)["note"][0] is None
    # ceilings 4..0 each have one rule: it holds 100%, and the note names the rules with nothing accepted
    four = notes.filter(pl.col("ceiling") == 4)["note"][0]
    assert four.startswith(f"{_rules(4)[0]} holds 100%") and f"{_rules(4)[1]}: 0 accepted" in four
    assert "fill 4 of 16" in four


def test_where_the_cap_cannot_hold_it_is_raised_evenly_so_the_largest_share_is_as_small_as_possible():
    def rule_of(ceiling, i):  # ceiling 5: two rules with 30 accepted programs each, two with 2 each
        return (
            _rules(ceiling)[(0 if i < 30 else 1) if i < 60 else 2 + i % 2] if ceiling == 5 else _rules(ceiling)[i % 4]
        )

    table = balance(_table({5: 64, 4: 40, 3: 40, 2: 40, 1: 40, 0: 40}, rule_of))
    five = rule_yield(table).filter(pl.col("ceiling") == 5).sort("rule")
    # n = 40: cap 10 holds only 24; raised evenly to 18, the two plentiful rules take 18 each, the others 2 each
    assert sorted(five["graded"].to_list()) == [2, 2, 18, 18]
    note = ceiling_balance(table).filter(pl.col("ceiling") == 5)["note"][0]
    assert "holds 45%" in note and "fill 24 of 40" in note


def _candidates(counts: dict[int, list[int]]) -> list[dict]:
    """Candidate programs per ceiling: ``counts[c][k]`` programs of ceiling c's k-th rule, over 8 seeds."""
    return [
        {"program_uid": f"s{i % 8}~{c}~{k}~{i}", "seed_uid": f"s{i % 8}", "rule": _rules(c)[k], "ceiling": c}
        for c, per_rule in counts.items()
        for k, n in enumerate(per_rule)
        for i in range(n)
    ]


def _fake_runs(monkeypatch, rejected=lambda p: False) -> list[str]:
    """verify's runs replaced by a stand-in that accepts every program but the ``rejected`` ones; the uids run."""
    from cojudge_assets.core.graded import verify as module

    ran: list[str] = []

    def run_all(seeds, programs, packages, judge, on_done=None):
        ran.extend(p["program_uid"] for p in programs)
        for _ in programs if on_done else ():
            on_done()
        return [{**p, "effect": "x", "accepted": not rejected(p), "reason": None} for p in programs]

    monkeypatch.setattr(module, "_verify_all", run_all)
    return ran


@pytest.mark.parametrize(
    ("five", "rejected"),
    [
        ([40, 4, 4, 4], lambda p: False),  # one dominant rule: held at the cap, its other candidates never run
        ([30, 30, 2, 2], lambda p: False),  # two plentiful rules: the cap is raised evenly, to 18
        ([40, 9, 9, 9], lambda p: p["program_uid"].endswith(("~3", "~7"))),  # rejections: more batches
    ],
)
def test_lazy_verification_never_runs_a_rule_past_the_cap_the_balance_keeps(monkeypatch, five, rejected):
    counts = {1: [10, 10, 10, 10], 5: five, 4: [20, 20], 3: [30, 30, 30], 2: [12, 12, 12, 12], 0: [20, 20]}
    ran = _fake_runs(monkeypatch, rejected)
    programs = _candidates(counts)
    lazy = verify(pl.DataFrame(), programs, {}, None)
    lazy_ran = list(ran)
    ran.clear()
    full = verify(pl.DataFrame(), programs, {}, None, lazy=False)
    assert len(ran) == len(programs) and len(lazy_ran) < len(programs)
    graded = ["ceiling", "rule", "graded"]
    by_rule = [rule_yield(t).select(graded).sort("ceiling", "rule") for t in (lazy, full)]
    assert by_rule[0].equals(by_rule[1])  # the same count per ceiling and per rule as a full verification
    n = int(lazy.filter(pl.col("graded") & (pl.col("ceiling") == 1)).height)
    assert n == 40 - sum(rejected(p) for p in programs if p["ceiling"] == 1)
    fives = [uid for uid in lazy_ran if "~5~" in uid]
    kept = by_rule[0].filter(pl.col("ceiling") == 5)["graded"].sum()
    rejected_fives = sum(rejected(p) for p in programs if p["program_uid"] in fives)
    assert len(fives) == kept + rejected_fives  # ceiling 5: nothing run that the balance did not keep or reject


@pytest.mark.parametrize("per_ceiling", [12, 25])
def test_a_cap_per_ceiling_keeps_that_many_and_runs_only_what_they_need(monkeypatch, per_ceiling):
    counts = {1: [10, 10, 10, 10], 5: [30, 30, 2, 2], 4: [20, 20], 3: [30, 30, 30], 2: [12, 12, 12, 12], 0: [20, 20]}
    ran = _fake_runs(monkeypatch, lambda p: p["program_uid"].endswith("~3"))
    programs = _candidates(counts)
    uncapped = verify(pl.DataFrame(), programs, {}, None, per_ceiling=None)
    uncapped_ran = len(ran)
    ran.clear()
    capped = verify(pl.DataFrame(), programs, {}, None, per_ceiling=per_ceiling)
    capped_ran = list(ran)
    ran.clear()
    full = verify(pl.DataFrame(), programs, {}, None, lazy=False, per_ceiling=per_ceiling)
    assert ceiling_balance(capped)["graded"].to_list() == [per_ceiling] * 6  # every ceiling has more accepted
    five = ceiling_balance(capped).filter(pl.col("ceiling") == 5)["note"][0]  # two rules of 2: the cap is raised
    assert "more not run: the balance needed no more" in five and "2 accepted of 2 run, no site on" in five
    assert ceiling_balance(uncapped)["graded"].to_list() != [per_ceiling] * 6
    graded = ["ceiling", "rule", "graded"]
    by_rule = [rule_yield(t).select(graded).sort("ceiling", "rule") for t in (capped, full)]
    assert by_rule[0].equals(by_rule[1])  # the lazy run keeps what a full verification capped so keeps
    assert len(capped_ran) < uncapped_ran < len(programs)  # the cap runs fewer candidates than no cap
    # no ceiling ran more than it needed: its kept programs, its rejections, and at most one batch's slack
    for ceiling in counts:
        ran_here = [uid for uid in capped_ran if uid.split("~")[1] == str(ceiling)]
        assert len(ran_here) <= int(per_ceiling * 1.2) + 2 + sum(uid.endswith("~3") for uid in ran_here) + 2


def test_balance_keeps_no_more_than_the_cap_per_ceiling():
    table = balance(_table({5: 30, 4: 12, 3: 18, 2: 19, 1: 20, 0: 16}), per_ceiling=10)
    assert ceiling_balance(table)["graded"].to_list() == [10] * 6
    assert (
        ceiling_balance(balance(_table({5: 30, 4: 12, 3: 18, 2: 19, 1: 20, 0: 16}), per_ceiling=0))["graded"].to_list()
        == [12] * 6
    )  # 0: no cap, the scarcest ceiling's count


def test_lazy_and_full_verification_keep_the_same_programs_on_random_corpora(monkeypatch):
    import random

    draw = random.Random(20261205)
    for _ in range(40):
        counts = {c: [draw.randint(0, 25) for _ in _rules(c)[: draw.randint(1, len(_rules(c)))]] for c in range(6)}
        share = draw.choice([0, 0.1, 0.3])
        rejected = {p["program_uid"] for p in _candidates(counts) if draw.random() < share}
        ran = _fake_runs(monkeypatch, lambda p, rejected=rejected: p["program_uid"] in rejected)
        programs = _candidates(counts)
        for per_ceiling in (None, 5, 12, 30):
            lazy = verify(pl.DataFrame(), programs, {}, None, per_ceiling=per_ceiling)
            full = verify(pl.DataFrame(), programs, {}, None, lazy=False, per_ceiling=per_ceiling)
            graded = [set(t.filter(pl.col("graded"))["program_uid"]) for t in (lazy, full)]
            assert graded[0] == graded[1], (counts, per_ceiling)
        assert ran


def test_the_progress_total_is_what_the_lazy_verification_will_run_not_every_candidate(monkeypatch):
    counts = {1: [10, 10, 10, 10], 5: [30, 30, 2, 2], 4: [20, 20], 3: [30, 30, 30], 2: [12, 12, 12, 12], 0: [20, 20]}
    ran = _fake_runs(monkeypatch, lambda p: p["program_uid"].endswith("~3"))
    lines: list[str] = []
    verify(pl.DataFrame(), _candidates(counts), {}, None, per_ceiling=12, progress=lines.append)
    assert lines[0].endswith(f"0/{6 * 12} started")  # 12 a ceiling, every ceiling has more candidates
    assert f"{len(ran)}/{len(ran)} done in" in lines[-1]  # the total grew by the reruns after rejections
    assert len(ran) < len(_candidates(counts))
