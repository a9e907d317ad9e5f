"""Behaviour-preserving rewrites of the control arm (core/perturbation/rewrites.py): where each applies and where it
must not, the single-edit check, and, by execution, that each prints the seed's output."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import polars as pl
import pytest

from cojudge_assets.core.perturbation.operators import _parser
from cojudge_assets.core.perturbation.rewrites import (
    FRESH_NAMES,
    REWRITES,
    rewrite,
    rewrite_plan,
    single_edit,
    tokens,
)
from cojudge_assets.core.perturbation.stats import PAIR_SCHEMA, PerturbationConfig, perturbation_metrics, yield_table
from cojudge_assets.core.perturbation.verify import _mutate_one, generate_mutants, mutation_seeds, verify_mutants
from cojudge_assets.core.report import plots

SUM_C = """\
#include <stdio.h>
struct Pair { long long first; long long total; };
static long long total = 0;
long long twice(long long v) { return 2 * v; }
int main(void) {
    long long a, b;
    scanf("%lld %lld", &a, &b);
    struct Pair p;
    p.total = a;
    long long s = p.total + b;
    total = twice(0);
    printf("%lld\\n", s + total);
    return 0;
}
"""
SUM_CPP = """\
#include <iostream>
using namespace std;
int total = 0;
int main() {
    long long a, b;
    cin >> a >> b;
    long long s = a;
    int k = 1;
    s += b;
    cout << s + total * k << "\\n";
    return 0;
}
"""
SUM_JAVA = """\
import java.util.*;
public class Main {
    static long total = 0;
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        long s = a;
        int k = 1;
        s = s + b;
        System.out.println(s + total * k);
    }
}
"""
PROGRAMS = {"c": SUM_C, "cpp": SUM_CPP, "java": SUM_JAVA}


def of(code: str, language: str, operator: str) -> list:
    return [m for m in rewrite(code, language) if m.operator == operator]


def parses_cleanly(code: str, language: str) -> bool:
    return not _parser(language).parse(code.encode()).root_node.has_error


def words(code: str) -> list[str]:
    return re.findall(r"[A-Za-z_]\w*", code)


# --- RENAME_LOCAL ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["c", "cpp", "java"])
def test_rename_changes_every_use_of_one_local_and_nothing_else(language):
    code = PROGRAMS[language]
    renames = of(code, language, "RENAME_LOCAL")
    assert {m.before for m in renames} >= {"a", "b", "s"}
    # never a field (first, total of the struct), a global (total), a function (twice, main) or a parameter (v)
    assert not {m.before for m in renames} & {"total", "first", "twice", "main", "v", "args", "in"}
    for m in renames:
        assert parses_cleanly(m.code, language) and single_edit(code, m, language)
        assert m.after == "aux" and "aux" not in words(code)  # a fresh name, taken from nowhere in the seed
        seed_words, new_words = words(code), words(m.code)
        assert len(seed_words) == len(new_words)
        changed = {(x, y) for x, y in zip(seed_words, new_words) if x != y}
        assert changed == {(m.before, m.after)}  # every changed word is the variable...
        # ...and every word that was the variable changed (it is declared once, used only as itself)
        assert m.before not in new_words


def test_rename_leaves_a_field_of_the_same_name_alone_by_not_renaming_at_all():
    code = SUM_C.replace("struct Pair { long long first;", "struct Pair { long long s;")
    assert "s" not in {m.before for m in of(code, "c", "RENAME_LOCAL")}
    code = SUM_JAVA.replace("static long total = 0;", "static long total = 0;\n    static long s;")
    assert "s" not in {m.before for m in of(code, "java", "RENAME_LOCAL")}


def test_rename_skips_a_shadowed_name_and_a_name_used_in_a_macro():
    shadowed = """\
#include <stdio.h>
#define TWICE(x) (2 * (x) + n)
int main(void) {
    int n = 1, m = 2;
    { int m = 3; printf("%d\\n", m); }
    printf("%d %d\\n", TWICE(n), m);
    return 0;
}
"""
    assert of(shadowed, "c", "RENAME_LOCAL") == []  # m is declared twice, n appears in a macro body


def test_no_local_variable_gives_no_rename():
    code = '#include <stdio.h>\nint main(void) {\n    printf("%d\\n", 7);\n    return 0;\n}\n'
    assert of(code, "c", "RENAME_LOCAL") == []
    code = "public class Main {\n    public static void main(String[] a) {\n        System.out.println(7);\n    }\n}\n"
    assert of(code, "java", "RENAME_LOCAL") == []


def test_the_fresh_name_collides_with_nothing_in_the_seed():
    taken = "\n".join(f"// {name}" for name in FRESH_NAMES)  # in comments only: still taken
    code = taken + "\n" + SUM_C.replace("printf", "/* aux2 */ printf")
    names = {m.after for m in of(code, "c", "RENAME_LOCAL")}
    assert names == {"aux3"}


def test_single_edit_rejects_a_partial_rename_and_a_second_change():
    m = next(m for m in of(SUM_C, "c", "RENAME_LOCAL") if m.before == "s")
    assert single_edit(SUM_C, m, "c")
    partial = m.code.replace('"%lld\\n", aux', '"%lld\\n", s', 1)
    assert partial != m.code and not single_edit(SUM_C, dataclasses.replace(m, code=partial), "c")
    second = m.code.replace("return 0;", "return 1;")
    assert not single_edit(SUM_C, dataclasses.replace(m, code=second), "c")
    spaced = m.code.replace("aux = p.total", "aux  = p.total")
    assert not single_edit(SUM_C, dataclasses.replace(m, code=spaced), "c")  # a rename keeps every other byte
    assert not single_edit(SUM_C, dataclasses.replace(m, after="total"), "c")  # a name the seed uses
    assert not single_edit(SUM_C, m)  # no language: the tokens cannot be read


# --- REFORMAT -------------------------------------------------------------------------------------------------------

ALLMAN_C = """\
#include <stdio.h>
/* a block comment
   whose inside { keeps its indentation } */
int main(void)
{
\tint n = 3;
\tif (n > 2)
\t{
\t\tprintf("{ %d }\\n", n);   // a brace in a string stays
\t}
\treturn 0;
}
"""


@pytest.mark.parametrize("language", ["c", "cpp", "java"])
def test_reformat_flips_k_and_r_to_allman_and_keeps_the_token_stream(language):
    code = PROGRAMS[language]
    [m] = of(code, language, "REFORMAT")
    assert (m.kind, m.before, m.after) == ("reformat", "K&R braces, indent 4 spaces", "Allman braces, indent 2 spaces")
    assert parses_cleanly(m.code, language) and single_edit(code, m, language)
    assert [(t.type, t.text) for t in tokens(code, language)] == [(t.type, t.text) for t in tokens(m.code, language)]
    # every block's opening brace now stands on a line of its own, the body two spaces in
    braces = [line for line in m.code.splitlines() if line.strip().startswith("{")]
    assert braces and all(line.strip() == "{" for line in braces)
    assert not any(line.rstrip().endswith(") {") for line in m.code.splitlines())
    assert "\n  " in m.code and "\n    " + "long long a" not in m.code


def test_reformat_flips_allman_to_k_and_r_and_leaves_comments_and_strings_alone():
    [m] = of(ALLMAN_C, "c", "REFORMAT")
    assert (m.before, m.after) == ("Allman braces, indent tabs", "K&R braces, indent 2 spaces")
    assert "int main(void) {\n" in m.code and "  if (n > 2) {\n" in m.code
    assert "   whose inside { keeps its indentation } */" in m.code  # inside a comment: not re-indented
    assert 'printf("{ %d }\\n", n);   // a brace in a string stays' in m.code
    assert single_edit(ALLMAN_C, m, "c")


def test_single_edit_rejects_a_reformat_that_changes_a_token():
    [m] = of(SUM_CPP, "cpp", "REFORMAT")
    changed = m.code.replace('"\\n"', '" \\n"')
    assert not single_edit(SUM_CPP, dataclasses.replace(m, code=changed), "cpp")
    assert not single_edit(SUM_CPP, dataclasses.replace(m, code=SUM_CPP), "cpp")  # no change is no rewrite


# --- DEAD_BRANCH ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("language,guard", [("c", "if (0)"), ("cpp", "if (0)"), ("java", "if (false)")])
def test_dead_branch_is_one_unreachable_line_in_the_entry_function(language, guard):
    code = PROGRAMS[language]
    [m] = of(code, language, "DEAD_BRANCH")
    assert m.kind == "insert" and m.after.strip().startswith(guard + " {") and single_edit(code, m, language)
    assert parses_cleanly(m.code, language)
    # the branch is the first statement of main, under a constant false condition
    lines = m.code.splitlines()
    assert "main" in lines[m.line - 2] and lines[m.line - 1] == m.after
    assert m.code.count(guard) == code.count(guard) + 1


def test_no_entry_function_gives_no_dead_branch():
    assert of("int twice(int v) {\n    return 2 * v;\n}\n", "c", "DEAD_BRANCH") == []


# --- SWAP_STATEMENTS ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["cpp", "java"])
def test_swap_exchanges_two_independent_adjacent_statements(language):
    code = PROGRAMS[language]
    swaps = of(code, language, "SWAP_STATEMENTS")
    # `long long s = a;` and `int k = 1;` share nothing; `k` then `s += b` neither; input and output stay put
    assert [(m.before.strip(), m.after.strip()) for m in swaps] == [
        (
            next(x for x in code.splitlines() if "s = a;" in x).strip(),
            next(x for x in code.splitlines() if "k = 1" in x).strip(),
        ),
        (
            next(x for x in code.splitlines() if "k = 1" in x).strip(),
            next(x for x in code.splitlines() if "s +" in x and "b;" in x).strip(),
        ),
    ]
    for m in swaps:
        assert single_edit(code, m, language) and parses_cleanly(m.code, language)
        assert sorted(m.code.splitlines()) == sorted(code.splitlines())


def test_no_swap_across_a_dependency_a_call_or_a_write_through_memory():
    code = """\
#include <stdio.h>
int main(void) {
    int a = 1;
    int b = a + 1;
    a = 5;
    printf("%d\\n", a);
    int c[2];
    c[0] = b;
    b++;
    return 0;
}
"""
    # a -> b reads a; b then a = 5: `b = a + 1` reads a which `a = 5` writes; printf is a call; c[0] writes memory
    assert of(code, "c", "SWAP_STATEMENTS") == []


def test_single_edit_rejects_a_swap_of_other_lines():
    m = of(SUM_CPP, "cpp", "SWAP_STATEMENTS")[0]
    assert not single_edit(SUM_CPP, dataclasses.replace(m, line=m.line + 1), "cpp")
    assert not single_edit(SUM_CPP, dataclasses.replace(m, code=m.code + "\n"), "cpp")


# --- the cap and the languages ----------------------------------------------------------------------------------------


def test_the_cap_keeps_one_site_per_operator():
    capped = rewrite(SUM_C, "c", max_per_operator=1)
    assert sorted(m.operator for m in capped) == sorted({m.operator for m in rewrite(SUM_C, "c")})
    assert all(m.operator in REWRITES and m.arm == "control" and m.severity is None for m in capped)


def test_first_only_keeps_the_first_operator_that_applies():
    # no swap applies to SUM_C: its turn passes to the next operator, RENAME_LOCAL
    order = ("SWAP_STATEMENTS", "RENAME_LOCAL", "REFORMAT")
    assert of(SUM_C, "c", "SWAP_STATEMENTS") == []
    made = rewrite(SUM_C, "c", max_per_operator=1, operators=order, first_only=True)
    assert [m.operator for m in made] == ["RENAME_LOCAL"]


def _five_seeds() -> pl.DataFrame:
    codes = [SUM_C, SUM_CPP, SUM_JAVA, SUM_C.replace("7", "8"), SUM_CPP + "\n"]
    return pl.DataFrame(
        {
            "seed_uid": [f"s{i}" for i in range(5)],
            "language": ["c", "cpp", "java", "c", "cpp"],
            "code": codes,
            "usable": [True] * 5,
        }
    )


def test_generate_mutants_gives_each_planned_seed_one_rewrite():
    seeds = _five_seeds()
    plan = dict(zip(seeds["seed_uid"].to_list(), rewrite_plan(seeds["seed_uid"].to_list(), 0.5)))
    made = [m for m in generate_mutants(seeds, max_per_operator=1, rewrite_share=0.5) if m["operator"] in REWRITES]
    per_seed = {m["seed_uid"]: m["operator"] for m in made}
    assert len(made) == len(per_seed)  # one rewrite per chosen seed
    assert set(per_seed) <= {uid for uid, ops in plan.items() if ops}  # on the chosen seeds only
    assert per_seed and all(op in plan[uid] for uid, op in per_seed.items())
    everything = [m for m in generate_mutants(seeds, max_per_operator=1) if m["operator"] in REWRITES]
    assert len(everything) > len(made)


def test_removing_or_adding_a_seed_changes_no_other_seeds_mutants():
    """Issue 37: a verdict fix that made one seed unusable changed other seeds' mutants (the rewrites were
    planned by the seeds' positions), so their requests were new and the judges were asked again."""
    seeds = _five_seeds()
    for share in (0.5, 1.0, None):
        every = generate_mutants(seeds, max_per_operator=1, rewrite_share=share)
        for gone in seeds["seed_uid"].to_list():
            fewer = generate_mutants(seeds.filter(pl.col("seed_uid") != gone), max_per_operator=1, rewrite_share=share)
            assert fewer == [m for m in every if m["seed_uid"] != gone], (share, gone)


def test_the_rewrite_plan_draws_each_seed_by_its_own_hash():
    uids = [f"course/p{i}/attempt{i * 7}" for i in range(2000)]
    plan = rewrite_plan(uids, 0.34)
    chosen = [ops for ops in plan if ops]
    assert 0.30 < len(chosen) / len(uids) < 0.38  # about the share
    assert {ops[0] for ops in chosen} == set(REWRITES)  # every operator first on some seeds
    assert all(sorted(ops) == sorted(REWRITES) for ops in chosen)  # then the others, if it does not apply
    assert rewrite_plan(uids[1:], 0.34) == plan[1:]  # by its seed_uid, not its position
    assert rewrite_plan(list(reversed(uids)), 0.34) == list(reversed(plan))
    assert rewrite_plan(uids[:3], None) == [REWRITES] * 3
    assert all(rewrite_plan(uids[:50], 1.0))
    with pytest.raises(ValueError, match=r"rewrite share 1.5: expected a share in \(0, 1\]"):
        rewrite_plan(uids, 1.5)


def test_unknown_language_is_named_in_the_error():
    with pytest.raises(ValueError, match="python"):
        rewrite("print(1)\n", "python")


# --- verified by execution --------------------------------------------------------------------------------------------


# C and Java: a C++ compile of <iostream> costs seconds each; the demo and ITSP runs verify C++ rewrites
@pytest.mark.parametrize("language", ["c", "java"])
def test_every_rewrite_compiles_and_prints_the_seed_output(judge, sum_problem, language):
    attempts = pl.DataFrame(
        [
            {
                "attempt_uid": "s",
                "participant": "p",
                "problem_id": "sum",
                "language": language,
                "language_label": language,
                "code": PROGRAMS[language],
                "accepted": True,
            }
        ]
    )
    seeds = mutation_seeds(attempts, {"sum": sum_problem}, judge)
    assert seeds["usable"].to_list() == [True]
    made = [
        row
        for row in _mutate_one(("s", PROGRAMS[language], language, 1, REWRITES, False, 20.0))
        if row["operator"] in REWRITES
    ]
    assert {row["operator"] for row in made} >= {"RENAME_LOCAL", "REFORMAT", "DEAD_BRANCH"}
    table = verify_mutants(seeds, made, {"sum": sum_problem}, judge)
    assert table["single_edit"].all() and table["compiles"].all()
    assert table["outputs_identical"].all() and table["verified"].all(), table.select("operator", "reason")


# --- consistency under rewrite ------------------------------------------------------------------------------------


def rewrite_pairs() -> pl.DataFrame:
    rows = [
        # (judge, seed, operator, p_seed, p_mutant)
        ("j", "s1", "RENAME_LOCAL", 0.9, 0.7),  # |shift| 0.2, stays accepted
        ("j", "s2", "RENAME_LOCAL", 0.6, 0.4),  # |shift| 0.2, flips below 0.5
        ("j", "s1", "REFORMAT", 0.9, 0.9),
        ("j", "s2", "REFORMAT", 0.6, 0.7),  # a rise is inconsistent too: |shift| 0.1
        ("j", "s3", "REFORMAT", 0.3, 0.9),  # seed below the cut: not in the primary subset
        ("j", "s1", "ARITH_FLIP", 0.9, 0.1),  # semantic: no consistency row
    ]
    return pl.DataFrame(
        [
            {
                "judge": judge,
                "seed_uid": seed,
                "mutant_uid": f"{seed}~{op}~0",
                "operator": op,
                "arm": "semantic" if op == "ARITH_FLIP" else "control",
                "severity": 4 if op == "ARITH_FLIP" else None,
                "in_loop": False,
                "in_guard": False,
                "behaviour_changed": True if op == "ARITH_FLIP" else None,
                "p_seed": p_seed,
                "p_mutant": p_mutant,
            }
            for judge, seed, op, p_seed, p_mutant in rows
        ],
        schema=PAIR_SCHEMA,
    )


def test_consistency_under_rewrite_is_the_mean_absolute_shift_and_the_flip_share(tmp_path):
    metrics = perturbation_metrics(rewrite_pairs(), PerturbationConfig(n_resamples=200))
    got = {
        (r["metric"], r["subset"]): (r["value"], r["n"])
        for r in metrics.filter(pl.col("metric").str.starts_with("rewrite_")).iter_rows(named=True)
    }
    assert got.keys() == {(m, op) for m in ("rewrite_abs_shift", "rewrite_flip") for op in ("RENAME_LOCAL", "REFORMAT")}
    assert got[("rewrite_abs_shift", "RENAME_LOCAL")] == (pytest.approx(0.2), 2)
    assert got[("rewrite_flip", "RENAME_LOCAL")] == (pytest.approx(0.5), 2)
    assert got[("rewrite_abs_shift", "REFORMAT")] == (pytest.approx(0.05), 2)  # (0 + 0.1) / 2, s3 left out
    assert got[("rewrite_flip", "REFORMAT")] == (pytest.approx(0.0), 2)
    path = plots.consistency_under_rewrite(metrics, ["RENAME_LOCAL", "REFORMAT"], tmp_path / "c.png", "Consistency")
    assert plots.png_title(path) == "Consistency"


def test_the_yield_has_a_row_with_a_note_for_an_operator_without_a_site():
    mutants = pl.DataFrame(
        {
            "operator": ["RENAME_LOCAL", "RENAME_LOCAL"],
            "arm": ["control", "control"],
            "severity": [None, None],
            "language": ["java", "c"],
            "single_edit": [True, True],
            "compiles": [True, True],
            "verified": [True, False],
            "in_guard": [False, False],
            "in_loop": [False, False],
            "behaviour_changed": [None, None],
        },
        schema_overrides={"severity": pl.Int64, "behaviour_changed": pl.Boolean},
    )
    table = yield_table(mutants, operators=("RENAME_LOCAL", "SWAP_STATEMENTS"))
    rows = {r["operator"]: r for r in table.iter_rows(named=True)}
    assert (rows["RENAME_LOCAL"]["verified"], rows["RENAME_LOCAL"]["languages"]) == (1, "c, java")
    assert rows["RENAME_LOCAL"]["note"] is None
    assert rows["SWAP_STATEMENTS"]["mutants"] == 0 and "no site" in rows["SWAP_STATEMENTS"]["note"]
    assert "c, java" in rows["SWAP_STATEMENTS"]["note"]


# --- the shipped demo corpus ------------------------------------------------------------------------------------------

DEMO_PROBLEMS = Path(__file__).resolve().parents[2] / "data" / "demo" / "problems"
SUFFIX_LANGUAGE = {".c": "c", ".cpp": "cpp", ".java": "java"}


def test_every_rewrite_of_the_demo_programs_is_one_edit_that_parses():
    programs = sorted(p for p in DEMO_PROBLEMS.glob("*/submissions/accepted/*") if p.suffix in SUFFIX_LANGUAGE)
    assert len(programs) >= 100
    seen = set()
    for path in programs:
        code, language = path.read_text(), SUFFIX_LANGUAGE[path.suffix]
        for m in rewrite(code, language, max_per_operator=1):
            assert single_edit(code, m, language) and parses_cleanly(m.code, language), (path, m.operator)
            seen.add((language, m.operator))
    assert seen == {(language, op) for language in ("c", "cpp", "java") for op in REWRITES}
