"""Graded perturbation rules with score ceilings (core/graded/rules.py)."""

from __future__ import annotations

import pytest

from cojudge_assets.core.graded.examples import EXAMPLES
from cojudge_assets.core.graded.rules import BY_NAME, CATEGORIES, RULES, variants
from cojudge_assets.core.perturbation.operators import _parser


def test_at_least_three_rules_per_category_and_fifteen_in_all_each_named_with_its_ceiling():
    assert len(RULES) >= 15
    for ceiling in CATEGORIES:
        assert sum(r.ceiling == ceiling for r in RULES) >= 3, ceiling
    assert all(r.name.startswith(f"R{r.ceiling}_") for r in RULES)
    assert set(EXAMPLES) == set(BY_NAME)  # every rule has its documented example


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_rule_turns_its_example_into_the_documented_after(name):
    language, before, after = EXAMPLES[name]
    made = variants(before, language, BY_NAME[name])
    assert made[0] == after
    assert not _parser(language).parse(after.encode()).root_node.has_error


def test_a_rule_without_a_site_does_not_apply_and_is_never_forced():
    no_recursion = "int f(int n) {\n    if (n == 0) return 1;\n    return n;\n}\n"
    assert variants(no_recursion, "c", BY_NAME["R1_REMOVE_BASE_CASE"]) == []
    no_loop = "int f(int a) {\n    return a;\n}\n"
    assert variants(no_loop, "c", BY_NAME["R5_FOR_TO_WHILE"]) == []
    assert variants(no_loop, "java", BY_NAME["R3_INLINE_HELPER"]) == []


def test_a_for_loop_with_continue_is_not_made_a_while_loop():
    # `continue` in the while loop would skip the update the for loop runs
    code = (
        "void f(int n) {\n    for (int i = 0; i < n; i++) {\n        if (i == 2) continue;\n        g(i);\n    }\n}\n"
    )
    assert variants(code, "c", BY_NAME["R5_FOR_TO_WHILE"]) == []


def test_bug_rules_make_one_program_per_site_and_preserving_rules_one_program_for_every_site():
    code = (
        "int f(int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) s += i;\n"
        "    for (int j = 0; j < n; j++) s += j;\n    return s;\n}\n"
    )
    assert len(variants(code, "c", BY_NAME["R2_OFF_BY_ONE"])) == 2
    (both,) = variants(code, "c", BY_NAME["R5_INCREMENT_AS_COMPOUND"])
    assert both.count("+= 1") == 2


def test_deleting_an_accumulation_spares_the_loop_counter():
    # deleting `i += 2` would only hang the loop (a timeout, not a plausible defect)
    code = (
        "int f(int n) {\n    int i = 0, s = 0;\n    while (i < n) {\n"
        "        s += i;\n        i += 2;\n    }\n    return s;\n}\n"
    )
    (made,) = variants(code, "c", BY_NAME["R1_DELETE_ACCUMULATION"])
    assert "i += 2" in made and "s += i" not in made


def test_single_letter_names_never_take_a_letter_the_program_uses():
    code = "int f(int a) {\n    int total = a;\n    return total;\n}\n"
    (made,) = variants(code, "c", BY_NAME["R4_SINGLE_LETTER_NAMES"])
    assert "int b = a;" in made and "return b;" in made


def test_java_gets_java_forms():
    code = (
        "class A {\n    void f(int n) {\n        for (int i = 0; ; i++) {\n"
        "            if (i > n) break;\n        }\n    }\n}\n"
    )
    (made,) = variants(code, "java", BY_NAME["R5_FOR_TO_WHILE"])
    assert "while (true)" in made
    (dead,) = variants(code, "java", BY_NAME["R4_UNREACHABLE_CODE"])
    assert "if (false)" in dead


def test_an_unknown_language_is_refused_with_the_rule_named():
    with pytest.raises(ValueError, match="R5_FOR_TO_WHILE.*'go'"):
        variants("package main", "go", BY_NAME["R5_FOR_TO_WHILE"])
