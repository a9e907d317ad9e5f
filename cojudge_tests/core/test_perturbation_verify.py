"""Seeds and mutants verified by execution in the sandbox (core/perturbation/verify.py)."""

from __future__ import annotations

import polars as pl
import pytest

from cojudge_assets.core.perturbation.operators import mutate
from cojudge_assets.core.perturbation.rewrites import rewrite
from cojudge_assets.core.perturbation.verify import generate_mutants, mutation_seeds, request_frame, verify_mutants
from cojudge_tests.conftest import write_problem

SEED_C = """#include <stdio.h>
int main(void) {
    long long a, b;
    scanf("%lld %lld", &a, &b);
    long long s = 0;
    for (int i = 0; i < 2; i++) {
        if (i == 0) s += a;
        else s += b;
    }
    printf("%lld\\n", s);
    return 0;
}
"""
SEED_JAVA = """import java.util.*;
public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        long s = 0;
        for (int i = 0; i < 2; i++) {
            if (i <= 0) s = s + a;
            else s = s + b;
        }
        System.out.println(s);
    }
}
"""


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    return write_problem(
        tmp_path_factory.mktemp("perturb"),
        {
            "sample/1": ("3 4\n", "7\n"),
            "secret/1": ("2000000000 2000000000\n", "4000000000\n"),
            "secret/2": ("-5 5\n", "0\n"),
        },
        name="sum",
    )


def attempts(*rows) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "attempt_uid": uid,
                "participant": "p",
                "problem_id": "sum",
                "language": lang,
                "language_label": lang,
                "code": code,
                "accepted": accepted,
            }
            for uid, lang, code, accepted in rows
        ]
    )


def test_seeds_are_rerun_and_only_accepted_programs_are_usable(judge, problem):
    wrong = SEED_C.replace("long long s = 0", "int s = 0").replace('"%lld\\n", s', '"%d\\n", s')
    seeds = mutation_seeds(
        attempts(
            ("u1", "c", SEED_C, True),
            ("u2", "c", wrong, True),
            ("u3", "c", SEED_C, False),
            ("u4", "python", "print(7)", True),
        ),
        {"sum": problem},
        judge,
    )
    assert seeds["seed_uid"].to_list() == ["u1", "u2"]  # not-accepted and Python attempts are no seeds
    usable = dict(zip(seeds["seed_uid"], seeds["usable"]))
    assert usable == {"u1": True, "u2": False}  # recorded as accepted, but it overflows here
    assert "WA" in seeds.filter(pl.col("seed_uid") == "u2")["reason"][0]
    assert len(seeds.filter(pl.col("seed_uid") == "u1")["output_sha256"][0]) == 3  # one output hash per test


@pytest.mark.parametrize("language,code", [("c", SEED_C), ("java", SEED_JAVA)])
def test_every_mutant_is_verified_by_execution(judge, problem, language, code):
    seeds = mutation_seeds(attempts(("s", language, code, True)), {"sum": problem}, judge)
    made = generate_mutants(seeds, max_per_operator=None)
    table = verify_mutants(seeds, made, {"sum": problem}, judge)
    assert len(table) == len(mutate(code, language)) + len(rewrite(code, language)) and table["single_edit"].all()
    controls = table.filter(pl.col("arm") != "semantic")
    # behaviour-preserving edits print the seed's bytes on every test, so they are verified
    assert len(controls) >= 3 and controls["outputs_identical"].all() and controls["verified"].all()
    semantic = table.filter(pl.col("arm") == "semantic")
    # a semantic mutant needs only to compile (Java refuses long -> int from nextLong(): not verified, and why)
    assert (semantic["verified"] | (semantic["reason"] == "does not compile")).all()
    assert semantic["verified"].sum() >= 3 and semantic["outputs_identical"].is_null().all()
    semantic = semantic.filter(pl.col("verified"))
    changed = dict(zip(semantic["operator"] + ":" + semantic["line"].cast(str), semantic["behaviour_changed"]))
    # the loop bound cut to i < 2 - 1 skips b: every test with b != 0 fails
    assert any(v for k, v in changed.items() if k.startswith("LOOP_SHORTEN"))
    # measured, not assumed: every verified semantic mutant says whether a test's verdict changed (a narrowed
    # type can survive: printf("%lld") of an int may still print the 64-bit sum the register holds)
    assert semantic["behaviour_changed"].is_not_null().all()
    assert set(request_frame(seeds, table)["attempt_uid"]) == {"s", *table.filter(pl.col("verified"))["mutant_uid"]}


def test_a_control_that_changes_output_or_a_second_edit_is_not_verified(judge, problem):
    seeds = mutation_seeds(attempts(("s", "c", SEED_C, True)), {"sum": problem}, judge)
    made = [m for m in generate_mutants(seeds, max_per_operator=1) if m["operator"] == "COMMENT_INSERT"]
    loud = {
        **made[0],
        "operator": "COMMENT_INSERT",
        "site": 9,
        "code": made[0]["code"].replace('printf("%lld\\n", s);', 'printf("%lld \\n", s);'),
    }
    two_edits = {**made[0], "site": 8, "single_edit": False}
    table = verify_mutants(seeds, [made[0], loud, two_edits], {"sum": problem}, judge)
    reasons = dict(zip(table["site"], table["reason"]))
    assert reasons[made[0]["site"]] is None
    # a trailing space is the same tokens for the contest judge (AC), but not the seed's bytes
    assert reasons[9].startswith("output differs from the seed's")
    assert reasons[8] == "differs from its seed by more than its recorded edit"


def test_mutating_in_worker_processes_gives_the_same_mutants(judge, problem, monkeypatch):
    import cojudge_assets.core.perturbation.verify as verify

    rows = [(f"s{i}", "c", SEED_C.replace("s = 0", f"s = {i} - {i}"), True) for i in range(12)]
    seeds = pl.DataFrame(
        [
            {
                "seed_uid": uid,
                "participant": "p",
                "problem_id": "sum",
                "language": lang,
                "language_label": lang,
                "code": code,
                "reexec_verdict": "AC",
                "tests": 3,
                "output_sha256": [],
                "usable": True,
                "reason": None,
            }
            for uid, lang, code, _ in rows
        ],
        schema=verify.SEED_SCHEMA,
    )
    in_process = verify.generate_mutants(seeds, max_per_operator=None, workers=1)
    monkeypatch.setattr(verify, "PARALLEL_MUTATION_FROM", 1)  # a forkserver pool of 2 even for 12 seeds
    pooled = verify.generate_mutants(seeds, max_per_operator=None, workers=2)
    assert pooled == in_process and len(pooled) > 12 * 5
