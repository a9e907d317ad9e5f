"""Budgets on the tree-sitter work on one program (core/perturbation/budget.py, issue 34): a seed nested 10,000 blocks
deep once kept the mutants step in the REFORMAT rewrite for over 9 minutes. Now it is skipped with one row naming
the rule and the limit, and the other seeds' mutants and graded programs are those they get without it."""

from __future__ import annotations

import re

import polars as pl

from cojudge_assets.core.graded.rules import RULES
from cojudge_assets.core.graded.verify import NO_SITE, candidates
from cojudge_assets.core.perturbation import budget
from cojudge_assets.core.perturbation.rewrites import REWRITES, rewrite
from cojudge_assets.core.perturbation.stats import yield_table
from cojudge_assets.core.perturbation.verify import SEED_SCHEMA, SKIPPED, generate_mutants, verify_mutants

SEED = """#include <stdio.h>
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


def nested(depth: int) -> str:
    """An accepted-looking C program whose main holds ``depth`` nested blocks, written as the report's (2 bytes a
    level: 10,000 levels are 20 KB)."""
    return SEED.replace("    return 0;", "    " + "{" * depth + "s++;" + "}" * depth + "\n    return 0;")


def nested_ifs(depth: int) -> str:
    """``depth`` nested if blocks, each with a declaration and an assignment: sites for every rule at every level."""
    body = "".join(f"if (s < {i}) {{\n long long y{i} = s + 1; s = y{i};\n" for i in range(depth)) + "}\n" * depth
    return SEED.replace("    return 0;", body + "    return 0;")


def seeds(*programs: tuple[str, str]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "seed_uid": uid,
                "participant": "p",
                "problem_id": "sum",
                "language": "c",
                "language_label": "C",
                "code": code,
                "reexec_verdict": "AC",
                "tests": 1,
                "output_sha256": ["x"],
                "usable": True,
                "reason": None,
            }
            for uid, code in programs
        ],
        schema=SEED_SCHEMA,
    )


class NoRuns:
    """The contest judge's judge_many for a list with nothing runnable: a skipped seed is never compiled."""

    def judge_many(self, items, **kwargs):
        assert list(items) == []
        return []


def test_a_seed_nested_10000_deep_is_skipped_with_a_row_naming_the_rule_and_the_limit():
    normal = seeds(("s1", SEED), ("s3", SEED.replace("s = 0", "s = 1 - 1")))
    with_deep = seeds(("s1", SEED), ("s2", nested(10_000)), ("s3", SEED.replace("s = 0", "s = 1 - 1")))
    alone = generate_mutants(normal, max_per_operator=None, workers=1)
    made = generate_mutants(with_deep, max_per_operator=None, workers=1)
    skipped = [m for m in made if m["seed_uid"] == "s2"]
    assert len(skipped) == 1 and skipped[0]["kind"] == SKIPPED and skipped[0]["code"] is None
    # the rewrites run first on a seed (verify._mutate_one); the seed's own parse is over the depth bound
    assert skipped[0]["operator"] == budget.PARSE_RULE
    assert f"the bound of {budget.MAX_TREE_DEPTH} syntax tree levels" in skipped[0]["skip_reason"]
    assert [m for m in made if m["seed_uid"] != "s2"] == alone and len(alone) > 10

    table = verify_mutants(with_deep, skipped, {}, NoRuns())
    row = table.row(0, named=True)
    assert row["mutant_uid"] == "s2~skipped~-1" and row["verified"] is False
    assert (
        row["reason"] == f"seed skipped: PARSE went past the bound of {budget.MAX_TREE_DEPTH} syntax tree levels "
        "(the tree is deeper)"
    )
    assert yield_table(table)["mutants"].sum() == 0  # a skipped seed made no mutant


def test_a_seed_over_the_time_budget_is_skipped_naming_the_rule_that_ran_out():
    # 95 nested ifs: under the depth bound (about 2 levels each), and seconds of work over all rules
    deep = nested_ifs(95)
    made = generate_mutants(seeds(("s1", SEED), ("s2", deep)), max_per_operator=None, workers=1, seconds_per_seed=0.05)
    skipped = [m for m in made if m["seed_uid"] == "s2"]
    assert len(skipped) == 1 and skipped[0]["kind"] == SKIPPED
    assert skipped[0]["operator"] in (budget.PARSE_RULE, *REWRITES)  # the rewrites run first on a seed
    assert skipped[0]["skip_reason"].endswith("went past the time budget of 0.05 s on one program") or skipped[0][
        "skip_reason"
    ].endswith("on one program (in the parse)")
    assert any(m["seed_uid"] == "s1" for m in made)  # the seed within its budget is mutated (its 0.05 s suffice)


def test_reformat_of_deep_blocks_is_no_longer_cubic_and_gives_the_same_program():
    # REFORMAT asked tree-sitter for every token's ancestors (Node.parent descends from the root each time):
    # 600 levels took 2-3 s, 2,000 over a minute. Its ancestors are now tracked on its walk; 190 levels of blocks
    # are under the bound, and the rewrite is the brace flip and re-indent it always was.
    code = nested(190).replace("int main(void) {", "int main(void)\n{")
    with budget.program_budget(5.0):
        (made,) = rewrite(code, "c", operators=("REFORMAT",))
    assert made.before.startswith("Allman braces") or made.before.startswith("K&R braces")
    assert made.code.count("{") == code.count("{")


def test_graded_rules_skip_a_deep_seed_on_every_rule_and_keep_the_others():
    alone, alone_skips = candidates(seeds(("s1", SEED)))
    programs, skips = candidates(seeds(("s1", SEED), ("s2", nested(10_000))))
    assert programs == alone
    deep = [s for s in skips if s["seed_uid"] == "s2"]
    # the first rule to parse the seed (the first slot of the first rule's sequence) is the one over the bound
    assert len(deep) == len(RULES) and len({s["reason"] for s in deep}) == 1
    (reason,) = {s["reason"] for s in deep}
    assert re.fullmatch(r"seed skipped: (R\d_\w+) went past the bound of 200 syntax tree.*", reason)
    assert reason.split()[2] in {r.name for r in RULES}
    assert [s for s in skips if s["seed_uid"] == "s1"] == alone_skips
    assert all(s["reason"] == NO_SITE for s in alone_skips)


def test_codebleu_leaves_out_a_pair_with_a_program_over_the_depth_bound():
    # codebleu walks the tree recursively, quadratic in the nesting: 1,000 levels took 3.5 s a pair, 10,000 over
    # 5 minutes (the churn and the graded reference judges call it on every pair)
    from cojudge_assets.core.dynamics.trajectories import codebleu_similarity

    assert codebleu_similarity(nested(10_000), SEED, "c") is None
    assert codebleu_similarity(SEED, nested(10_000), "c") is None
    shallow = codebleu_similarity(nested(50), nested(50).replace("s = 0", "s = 1"), "c")
    assert shallow is not None and 0.5 < shallow < 1
