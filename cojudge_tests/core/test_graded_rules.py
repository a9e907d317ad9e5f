"""Graded perturbation rules with score ceilings (core/graded/rules.py)."""

from __future__ import annotations

import pytest

from cojudge_assets.core.graded.examples import EXAMPLES
from cojudge_assets.core.graded.rules import (
    BY_NAME,
    CATEGORIES,
    MINOR_REPAIR_TOKENS,
    RULES,
    Edit,
    repair_tokens,
    sites,
    tokens,
    variants,
)
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
    if BY_NAME[name].ceiling > 0:  # a ceiling-0 rule's program may not parse (a semicolon deleted)
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


def test_every_rule_makes_one_program_per_site():
    code = (
        "int f(int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) s += i;\n"
        "    for (int j = 0; j < n; j++) s += j;\n    return s;\n}\n"
    )
    assert len(variants(code, "c", BY_NAME["R2_OFF_BY_ONE"])) == 2
    one, two = variants(code, "c", BY_NAME["R5_INCREMENT_AS_COMPOUND"])  # formerly one program of both sites
    assert one.count("+= 1") == two.count("+= 1") == 1 and one != two


def test_repair_size_is_the_token_edit_and_sorts_minor_from_major_defects():
    src = b"if (a > 0) x++;"
    assert repair_tokens(src, [Edit(0, len(src), b"")]) == 9  # if ( a > 0 ) x ++ ;
    assert repair_tokens(src, [Edit(6, 7, b">=")]) == 1
    assert tokens(b'a<<=b; s = "x;y";') == [b"a", b"<<=", b"b", b";", b"s", b"=", b'"x;y"', b";"]
    code = (
        '#include <stdio.h>\nint main(void) {\n    int n, s = 0;\n    scanf("%d", &n);\n'
        "    if (n < 0) return 1;\n    for (int i = 0; i < n; i++) {\n        if (i % 2) s += i;\n"
        "        else s -= i * 3;\n        s = s * 2 % 1000;\n    }\n    if (s > 10) s = s - 10;\n"
        '    printf("%d\\n", s);\n    return 0;\n}\n'
    )
    for rule in RULES:
        src, found = sites(code, "c", rule)
        for site in found:
            size = repair_tokens(src, site)
            if rule.ceiling == 2:
                assert 1 <= size <= MINOR_REPAIR_TOKENS, (rule.name, size)
            elif rule.ceiling == 1:
                assert size > MINOR_REPAIR_TOKENS, (rule.name, size)
    for name in ("R1_DELETE_BRANCH", "R1_DELETE_VALIDATION", "R1_DELETE_ELSE", "R1_LOOP_FIRST_ITERATION"):
        assert sites(code, "c", BY_NAME[name])[1], name  # each structural defect finds a site here


def test_only_a_ceiling_zero_rule_may_leave_a_program_that_does_not_parse():
    code = "int f(int a) {\n    a++;\n    return a;\n}\n"
    (broken,) = variants(code, "c", BY_NAME["R0_MISSING_SEMICOLON"])
    assert _parser("c").parse(broken.encode()).root_node.has_error
    for rule in RULES:
        if rule.ceiling > 0:
            for made in variants(code, "c", rule):
                assert not _parser("c").parse(made.encode()).root_node.has_error, rule.name


def test_deleting_an_accumulation_spares_the_loop_counter():
    # deleting `i += 2` would only hang the loop (a timeout, not a plausible defect)
    code = (
        "int f(int n) {\n    int i = 0, s = 0;\n    while (i < n) {\n"
        "        s += i;\n        i += 2;\n    }\n    return s;\n}\n"
    )
    (made,) = variants(code, "c", BY_NAME["R2_DELETE_ACCUMULATION"])
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
