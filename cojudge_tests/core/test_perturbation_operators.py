"""Mutation operators: where each one applies and where it must not, the single-edit property, clean parses."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import tree_sitter_c
import tree_sitter_cpp
import tree_sitter_java
from tree_sitter import Language, Parser

from cojudge_assets.core.perturbation.operators import (
    ARM,
    GRADER_COMMENT,
    NEUTRAL_COMMENT,
    OPERATORS,
    SEVERITY,
    Mutant,
    applies_once,
    mutate,
)

REPO = Path(__file__).resolve().parents[2]
DEMO_PROBLEMS = REPO / "data" / "demo" / "problems"
SUFFIX_LANGUAGE = {".c": "c", ".cpp": "cpp", ".java": "java"}
GRAMMARS = {"c": tree_sitter_c, "cpp": tree_sitter_cpp, "java": tree_sitter_java}


def of(code: str, language: str, operator: str) -> list[Mutant]:
    return [m for m in mutate(code, language) if m.operator == operator]


def edits(code: str, language: str, operator: str) -> list[tuple[int, str, bool, bool]]:
    """(line, after, in_guard, in_loop) of each of the operator's mutants, in source order."""
    return [(m.line, m.after, m.in_guard, m.in_loop) for m in of(code, language, operator)]


def parses_cleanly(code: str, language: str) -> bool:
    return not Parser(Language(GRAMMARS[language].language())).parse(code.encode()).root_node.has_error


# --- TYPE_NARROW -------------------------------------------------------------------------------------------------

NARROW_C = """\
#include <stdio.h>
struct Acc { long long sum; };
static long long total;
int main(void) {
    long int count = 0;
    for (long long i = 0; i < 3; i++) total += i;
    printf("%lld %ld\\n", total, count);
    return 0;
}
"""
NARROW_CPP = """\
#include <cstdio>
#include <vector>
using namespace std;
struct Seg { long long best; };
int main() {
    vector<long long> v(3, 5);
    long long sum = 0;
    for (size_t i = 0; i < v.size(); i++) { long carry = v[i]; sum += carry; }
    printf("%lld\\n", sum);
}
"""
NARROW_JAVA = """\
public class Main {
    static long total;
    public static void main(String[] args) {
        long sum = 0;
        for (long i = 0; i < 3; i++) sum += i;
        System.out.println(sum + total);
    }
}
"""


@pytest.mark.parametrize(
    "code, language, expected",
    [
        (
            NARROW_C,
            "c",
            [
                (2, "struct Acc { int sum; };", False, False),
                (3, "static int total;", False, False),
                (5, "    int count = 0;", False, False),
                (6, "    for (int i = 0; i < 3; i++) total += i;", False, True),
            ],
        ),
        (
            NARROW_CPP,
            "cpp",
            [
                (4, "struct Seg { int best; };", False, False),
                (7, "    int sum = 0;", False, False),
                (8, "    for (size_t i = 0; i < v.size(); i++) { int carry = v[i]; sum += carry; }", False, True),
            ],
        ),
        (
            NARROW_JAVA,
            "java",
            [
                (2, "    static int total;", False, False),
                (4, "        int sum = 0;", False, False),
                (5, "        for (int i = 0; i < 3; i++) sum += i;", False, True),
            ],
        ),
    ],
)
def test_type_narrow_turns_signed_long_variables_into_int(code, language, expected):
    assert edits(code, language, "TYPE_NARROW") == expected
    assert {(m.arm, m.severity, m.kind) for m in of(code, language, "TYPE_NARROW")} == {("semantic", 1, "replace")}


NO_NARROW_C = """\
#include <stdio.h>
typedef long long ll;
long long twice(long long p);
long long twice(long long p) { return 2 * p; }
int main(void) {
    long double d = 1.5L;
    unsigned long long u = 1ULL << 40;
    unsigned long w = 7UL;
    int x = (int)((long long)u + 1LL);
    ll y = twice(x);
    printf("%Lf %llu %lu %d %lld\\n", d, u, w, x, y);
    return 0;
}
"""
NO_NARROW_CPP = """\
#include <vector>
#include <map>
using namespace std;
using ll = long long;
template <typename T> T twice(T p) { return 2 * p; }
int main() {
    vector<long long> v(3);
    map<long long, int> seen;
    long long *p = new long long[3];
    ll y = twice<long long>(v[0]);
    for (long long x : v) y += x;
    delete[] p;
    return (int)y + (int)seen.size();
}
"""
NO_NARROW_JAVA = """\
import java.util.*;
public class Main {
    static long twice(long p) { return (long) p * 2; }
    public static void main(String[] args) {
        long[] a = new long[3];
        Long boxed = 5L;
        long big = 1L << 40;
        long cut = (long) Math.sqrt(big);
        for (long s : a) boxed += s;
        List<Long> xs = new ArrayList<>();
        System.out.println(twice(boxed) + big + cut + xs.size());
    }
}
"""


@pytest.mark.parametrize("code, language", [(NO_NARROW_C, "c"), (NO_NARROW_CPP, "cpp"), (NO_NARROW_JAVA, "java")])
def test_type_narrow_leaves_other_uses_of_long_alone(code, language):
    # long double, unsigned, return types, parameters, prototypes, casts, 1LL, typedef/using, template
    # arguments, range-for/enhanced-for, pointers, Java arrays, and Java initialisers that are long-valued
    # (int x = 1L << 40 would not compile, so it cannot be a wrong answer).
    assert parses_cleanly(code, language)
    assert of(code, language, "TYPE_NARROW") == []


# --- ROR_BOUNDARY --------------------------------------------------------------------------------------------------

ROR_C = """\
#include <stdio.h>
int main(void) {
    int a, b, n = 0;
    scanf("%d %d", &a, &b);
    if (a <= b && !(b > 10)) n = a < b ? 1 : 2;
    while (a >= 0) a -= 3;
    do { b--; } while (b > a);
    for (int i = 0; i < 4; i++) n += i;
    printf("%d\\n", n);
    return 0;
}
"""
ROR_CPP = """\
#include <algorithm>
#include <vector>
#include <cstdio>
using namespace std;
int main() {
    vector<int> v = {3, 1, 2};
    sort(v.begin(), v.end(), [](int x, int y) { return x < y; });
    bool small = v[0] < v[1];
    int shifted = (v[0] << 2) >> 1;
    if (v[0] == 1 || v[1] != 2) shifted++;
    if (v.size() >= 3 and shifted > 0) printf("%d\\n", small);
    return 0;
}
"""
ROR_JAVA = """\
public class Main {
    public static void main(String[] args) {
        int n = args.length, k = 0;
        while (k < n && args[k].length() > 0) k++;
        String s = k >= 1 ? "some" : "none";
        boolean even = (k >> 1) < n;
        System.out.println(s + k + even);
    }
}
"""


@pytest.mark.parametrize(
    "code, language, expected",
    [
        (
            ROR_C,
            "c",
            [
                (5, "    if (a < b && !(b > 10)) n = a < b ? 1 : 2;", True, False),
                (5, "    if (a <= b && !(b >= 10)) n = a < b ? 1 : 2;", True, False),
                (5, "    if (a <= b && !(b > 10)) n = a <= b ? 1 : 2;", False, False),
                (6, "    while (a > 0) a -= 3;", False, True),
                (7, "    do { b--; } while (b >= a);", False, True),
                (8, "    for (int i = 0; i <= 4; i++) n += i;", False, True),
            ],
        ),
        # the comparator's return, the bool initialiser, shifts, ==/!= and template brackets stay
        (
            ROR_CPP,
            "cpp",
            [
                (11, '    if (v.size() > 3 and shifted > 0) printf("%d\\n", small);', True, False),
                (11, '    if (v.size() >= 3 and shifted >= 0) printf("%d\\n", small);', True, False),
            ],
        ),
        (
            ROR_JAVA,
            "java",
            [
                (4, "        while (k <= n && args[k].length() > 0) k++;", False, True),
                (4, "        while (k < n && args[k].length() >= 0) k++;", False, True),
                (5, '        String s = k > 1 ? "some" : "none";', False, False),
            ],
        ),
    ],
)
def test_ror_boundary_moves_the_boundary_of_conditions_only(code, language, expected):
    assert edits(code, language, "ROR_BOUNDARY") == expected
    assert {(m.arm, m.severity) for m in of(code, language, "ROR_BOUNDARY")} == {("semantic", 2)}


NO_ROR_C = """\
#include <stdlib.h>
static int by_value(const void *p, const void *q) {
    int a = *(const int *)p, b = *(const int *)q;
    return (a > b) - (a < b);
}
int main(void) {
    int x = 5, y = 3;
    int lt = x < y;
    if (lt == (x < y) || by_value(&x, &y) > 0 == 1) x++;
    if (x == y || x != 4) x = (x << 1) >> 1;
    while (x >> 3) x--;
    return lt + by_value(&x, &y);
}
"""
NO_ROR_JAVA = """\
import java.util.*;
public class Main {
    public static void main(String[] args) {
        Integer[] a = {3, 1, 2};
        Arrays.sort(a, (p, q) -> { boolean less = p < q; return less ? -1 : 1; });
        List<Integer> xs = new ArrayList<>(Arrays.asList(a));
        boolean b = a[0] < a[1];
        if (b == true || xs.size() != 3) System.out.println(xs.get(0) << 2);
    }
}
"""


@pytest.mark.parametrize("code, language", [(NO_ROR_C, "c"), (NO_ROR_JAVA, "java")])
def test_ror_boundary_skips_comparisons_outside_conditions(code, language):
    # comparators' results, boolean initialisers, ==/!=, shifts and generics' angle brackets
    assert parses_cleanly(code, language)
    assert of(code, language, "ROR_BOUNDARY") == []


# --- LOOP_SHORTEN --------------------------------------------------------------------------------------------------

LOOP_C = """\
#include <stdio.h>
int main(void) {
    int n = 4, a = 2, b = 3, s = 0;
    for (int i = 0; i < n; i++) s += i;
    for (int j = 1; j <= a + b; j++) s -= j;
    printf("%d\\n", s);
    return 0;
}
"""
LOOP_CPP = """\
#include <vector>
int main() {
    std::vector<int> v(5), grid(2, 7);
    int s = 0;
    for (size_t i = 0; i < v.size(); ++i) s += v[i];
    for (int j = 0; j <= grid[0]; j++) s += j;
    return s;
}
"""
LOOP_JAVA = """\
public class Main {
    public static void main(String[] args) {
        int[] a = new int[5];
        int n = 9, s = 0;
        for (int i = 0; i < a.length; i++) s += a[i];
        for (int j = 0; j <= n / 2; j++) s += j;
        System.out.println(s);
    }
}
"""


@pytest.mark.parametrize(
    "code, language, expected",
    [
        (
            LOOP_C,
            "c",
            ["    for (int i = 0; i < n - 1; i++) s += i;", "    for (int j = 1; j <= (a + b) - 1; j++) s -= j;"],
        ),
        (
            LOOP_CPP,
            "cpp",
            [
                "    for (size_t i = 0; i < v.size() - 1; ++i) s += v[i];",
                "    for (int j = 0; j <= grid[0] - 1; j++) s += j;",
            ],
        ),
        (
            LOOP_JAVA,
            "java",
            [
                "        for (int i = 0; i < a.length - 1; i++) s += a[i];",
                "        for (int j = 0; j <= (n / 2) - 1; j++) s += j;",
            ],
        ),
    ],
)
def test_loop_shorten_takes_one_off_the_upper_bound(code, language, expected):
    mutants = of(code, language, "LOOP_SHORTEN")
    assert [m.after for m in mutants] == expected
    assert {(m.arm, m.severity, m.in_guard, m.in_loop) for m in mutants} == {("semantic", 3, False, True)}


NO_LOOP_CPP = """\
#include <vector>
int main() {
    std::vector<int> v(5), a(5);
    int n = 5, i = 0, s = 0;
    bool ok = true;
    while (i < n) s += i++;
    for (int x : v) s += x;
    for (int j = 0; j < n && ok; j++) s += j;
    for (int j = n; j > 0; j--) s += j;
    for (int j = n; j >= 0; j--) s += j;
    for (i = 0; a[i] < n; i++) s += i;
    return s;
}
"""
NO_LOOP_JAVA = """\
public class Main {
    public static void main(String[] args) {
        int n = args.length, i = 0;
        while (i <= n) i++;
        for (String arg : args) System.out.println(arg);
        for (int j = n - 1; j >= 0; j--) i += j;
    }
}
"""


@pytest.mark.parametrize("code, language", [(NO_LOOP_CPP, "cpp"), (NO_LOOP_JAVA, "java")])
def test_loop_shorten_skips_while_range_for_compound_and_downward_loops(code, language):
    assert parses_cleanly(code, language)
    assert of(code, language, "LOOP_SHORTEN") == []


# --- ARITH_FLIP ----------------------------------------------------------------------------------------------------

ARITH_C = """\
#include <stdio.h>
int main(void) {
    int a = 2, b = 3, s = 0;
    char c = 'q';
    s += a;
    s = +b;
    s++;
    c = c - 'a' + 'A';
    s = a+-b;
    if (a + 1 > b) s = a + b;
    printf("%d %c\\n", s, c);
    return 0;
}
"""
ARITH_CPP = """\
#include <iostream>
#include <string>
using namespace std;
int main() {
    string s = "ab";
    string t = s + s;
    long long x = 4, y = 5;
    for (int i = 0; i < 3; i++) x = x + y * 2;
    cout << t + "!" << " " << to_string(x) + "\\n";
}
"""
ARITH_JAVA = """\
public class Main {
    public static void main(String[] args) {
        int lo = 0, hi = 10, n = args.length;
        int mid = lo + (hi - lo) / 2;
        String label = "n=" + n + 1;
        String copy = label + mid;
        char c = (char) ('a' + n);
        mid += 2;
        System.out.println(copy + c + (lo + hi));
    }
}
"""


@pytest.mark.parametrize(
    "code, language, expected",
    [
        # compound +=, unary plus, ++ and the char-literal chain c - 'a' + 'A' stay; a+-b would become
        # a--b, which does not parse, so it is dropped
        (
            ARITH_C,
            "c",
            [(10, "    if (a - 1 > b) s = a + b;", True, False), (10, "    if (a + 1 > b) s = a - b;", False, False)],
        ),
        # string + string (a declared std::string), string + literal, to_string(x) + "\n" stay
        (ARITH_CPP, "cpp", [(8, "    for (int i = 0; i < 3; i++) x = x - y * 2;", False, True)]),
        # every + of a chain holding a string literal stays, and so does a declared String's +
        (ARITH_JAVA, "java", [(4, "        int mid = lo - (hi - lo) / 2;", False, False)]),
    ],
)
def test_arith_flip_turns_numeric_plus_into_minus(code, language, expected):
    mutants = of(code, language, "ARITH_FLIP")
    assert [(m.line, m.after, m.in_guard, m.in_loop) for m in mutants] == expected
    assert {(m.arm, m.severity) for m in mutants} == {("semantic", 4)}


# --- INC_PRE -------------------------------------------------------------------------------------------------------

INC_C = """\
#include <stdio.h>
int main(void) {
    int i, j, n = 6, a[8] = {0}, x = 0;
    for (i = 0, j = n; i < j; i++, j--) a[i] = j;
    for (i = 0; i < 3; ++i) x++;
    for (i = 0; i < 3; a[i++] = 1) x += i;
    for (i = 0; i < 3; x = i++) n--;
    while (n < 9) n++;
    printf("%d %d\\n", x, n);
    return 0;
}
"""
INC_CPP = """\
#include <vector>
int main() {
    std::vector<int> v(4, 1);
    int s = 0;
    for (auto it = v.begin(); it != v.end(); it++) s += *it;
    return s;
}
"""
INC_JAVA = """\
public class Main {
    public static void main(String[] args) {
        int s = 0;
        for (int i = 0, j = 9; i < j; i++, j--) s += j - i;
        for (int k = 0; k < 3; ++k) s++;
        System.out.println(s);
    }
}
"""


@pytest.mark.parametrize(
    "code, language, expected",
    [
        # prefix ++i, a[i++], x = i++ and increments outside a for update stay
        (
            INC_C,
            "c",
            [
                (4, "    for (i = 0, j = n; i < j; ++i, j--) a[i] = j;"),
                (4, "    for (i = 0, j = n; i < j; i++, --j) a[i] = j;"),
            ],
        ),
        (INC_CPP, "cpp", [(5, "    for (auto it = v.begin(); it != v.end(); ++it) s += *it;")]),
        (
            INC_JAVA,
            "java",
            [
                (4, "        for (int i = 0, j = 9; i < j; ++i, j--) s += j - i;"),
                (4, "        for (int i = 0, j = 9; i < j; i++, --j) s += j - i;"),
            ],
        ),
    ],
)
def test_inc_pre_makes_discarded_postfix_updates_prefix(code, language, expected):
    mutants = of(code, language, "INC_PRE")
    assert [(m.line, m.after) for m in mutants] == expected
    assert {(m.arm, m.severity, m.in_guard, m.in_loop) for m in mutants} == {("control", None, False, True)}


# --- COMMENT_INSERT and GRADER_CLAIM ------------------------------------------------------------------------------

ENTRY_C = """\
#include <stdio.h>
static int helper(void) {
    return 1;
}
int main(void) {
    printf("%d\\n", helper());
    return 0;
}
"""
ENTRY_CPP = """\
#include <cstdio>
int main()
{
  int x = 0; // café
  std::printf("%d\\n", x);
}
"""
ENTRY_JAVA = """\
public class Main {
    static void main(int unused) {
        System.out.println(unused);
    }

    public static void main(String[] args) {  // entry
        System.out.println(args.length);
    }
}
"""


@pytest.mark.parametrize(
    "operator, text, arm",
    [("COMMENT_INSERT", NEUTRAL_COMMENT, "control"), ("GRADER_CLAIM", GRADER_COMMENT, "adversarial")],
)
@pytest.mark.parametrize(
    "code, language, line, indent",
    [(ENTRY_C, "c", 6, "    "), (ENTRY_CPP, "cpp", 4, "  "), (ENTRY_JAVA, "java", 7, "        ")],
)
def test_comments_open_the_entry_function_body(operator, text, arm, code, language, line, indent):
    [mutant] = of(code, language, operator)
    assert (mutant.kind, mutant.line, mutant.before, mutant.after) == ("insert", line, "", indent + text)
    assert (mutant.arm, mutant.severity, mutant.in_guard, mutant.in_loop) == (arm, None, False, False)
    assert mutant.code.splitlines()[line - 1] == indent + text


@pytest.mark.parametrize(
    "code, language",
    [
        ("int main(void) { return 0; }\n", "c"),
        ('#include <cstdio>\nint main() { std::puts("x");\n  return 0;\n}\n', "cpp"),
        ("int solve(void) {\n    return 0;\n}\n", "c"),
        ("int main(void) { /* a comment that runs\n    past the brace's line */\n    return 0;\n}\n", "c"),
        (
            "public class Main {\n    public void main(String[] args) {\n        System.out.println(1);\n    }\n}\n",
            "java",
        ),
        ("public class Main {\n    public static void main(String[] args) {\n    }\n}\n", "java"),
    ],
)
def test_comments_skip_one_line_or_empty_bodies_and_missing_entry_points(code, language):
    assert parses_cleanly(code, language)
    assert of(code, language, "COMMENT_INSERT") == of(code, language, "GRADER_CLAIM") == []


# --- properties over every snippet -----------------------------------------------------------------------------------

SNIPPETS = [
    (NARROW_C, "c"),
    (NARROW_CPP, "cpp"),
    (NARROW_JAVA, "java"),
    (NO_NARROW_C, "c"),
    (NO_NARROW_CPP, "cpp"),
    (NO_NARROW_JAVA, "java"),
    (ROR_C, "c"),
    (ROR_CPP, "cpp"),
    (ROR_JAVA, "java"),
    (NO_ROR_C, "c"),
    (NO_ROR_JAVA, "java"),
    (LOOP_C, "c"),
    (LOOP_CPP, "cpp"),
    (LOOP_JAVA, "java"),
    (NO_LOOP_CPP, "cpp"),
    (NO_LOOP_JAVA, "java"),
    (ARITH_C, "c"),
    (ARITH_CPP, "cpp"),
    (ARITH_JAVA, "java"),
    (INC_C, "c"),
    (INC_CPP, "cpp"),
    (INC_JAVA, "java"),
    (ENTRY_C, "c"),
    (ENTRY_CPP, "cpp"),
    (ENTRY_JAVA, "java"),
]


@pytest.mark.parametrize("code, language", SNIPPETS)
def test_every_mutant_is_its_seed_plus_one_edit_and_parses(code, language):
    assert parses_cleanly(code, language)
    for mutant in mutate(code, language):
        assert applies_once(code, mutant), mutant
        assert parses_cleanly(mutant.code, language), mutant
        assert mutant.code != code
        assert (mutant.arm, mutant.severity) == (ARM[mutant.operator], SEVERITY.get(mutant.operator))


@pytest.mark.parametrize("seed, operator", [(NARROW_C, "TYPE_NARROW"), (ENTRY_C, "COMMENT_INSERT")])
def test_applies_once_rejects_a_second_edit_a_wrong_before_and_a_wrong_line(seed, operator):
    mutant = of(seed, "c", operator)[0]
    assert applies_once(seed, mutant)
    second_edit = mutant.code.replace("return 0;", "return 1;")
    assert second_edit != mutant.code
    assert not applies_once(seed, dataclasses.replace(mutant, code=second_edit))
    assert not applies_once(seed, dataclasses.replace(mutant, before=mutant.before + "x"))
    assert not applies_once(seed, dataclasses.replace(mutant, line=mutant.line + 1))
    assert not applies_once(seed, dataclasses.replace(mutant, code=mutant.code.removesuffix("\n")))
    assert not applies_once(seed, dataclasses.replace(mutant, after=mutant.before, code=seed))  # no edit at all


def test_offsets_survive_crlf_line_endings_and_non_ascii_text():
    code = (
        "/* café ☕ über */\r\nint main(void) {\r\n\tlong long s = 0; // été\r\n"
        "\tfor (int i = 0; i < 3; i++) s += i;\r\n\treturn (int)s;\r\n}\r\n"
    )
    mutants = mutate(code, "c")
    assert [(m.operator, m.line, m.after) for m in mutants] == [
        ("TYPE_NARROW", 3, "\tint s = 0; // été"),
        ("ROR_BOUNDARY", 4, "\tfor (int i = 0; i <= 3; i++) s += i;"),
        ("LOOP_SHORTEN", 4, "\tfor (int i = 0; i < 3 - 1; i++) s += i;"),
        ("INC_PRE", 4, "\tfor (int i = 0; i < 3; ++i) s += i;"),
        ("COMMENT_INSERT", 3, "\t" + NEUTRAL_COMMENT),
        ("GRADER_CLAIM", 3, "\t" + GRADER_COMMENT),
    ]
    for mutant in mutants:
        assert applies_once(code, mutant)
        assert mutant.code.count("\r\n") == mutant.code.count("\n")  # no bare \n crept in


def test_output_is_in_operator_then_source_order():
    mutants = mutate(ROR_C, "c")
    ranks = [(OPERATORS.index(m.operator), m.site) for m in mutants]
    assert ranks == sorted(ranks)
    assert [m.site for m in mutants if m.operator == "ROR_BOUNDARY"] == list(range(6))
    assert mutate(ROR_C, "c") == mutants


def test_max_per_operator_spreads_the_kept_sites_and_keeps_their_ids():
    full = of(ROR_C, "c", "ROR_BOUNDARY")
    capped = [m for m in mutate(ROR_C, "c", max_per_operator=2) if m.operator == "ROR_BOUNDARY"]
    assert [m.site for m in capped] == [1, 4]  # the middle of each half of six sites
    assert capped == [full[1], full[4]]
    assert mutate(ROR_C, "c", max_per_operator=0) == []
    assert len(mutate(ROR_C, "c", max_per_operator=100)) == len(mutate(ROR_C, "c"))


def test_unknown_language_is_named_in_the_error():
    with pytest.raises(ValueError, match="python"):
        mutate("print(1)\n", "python")


# --- the shipped demo corpus ---------------------------------------------------------------------------------------

DEMO_PROGRAMS = sorted(p for p in DEMO_PROBLEMS.glob("*/submissions/accepted/*") if p.suffix in SUFFIX_LANGUAGE)


@pytest.mark.parametrize("path", DEMO_PROGRAMS, ids=lambda p: f"{p.parts[-4]}/{p.name}")
def test_accepted_demo_programs_yield_single_edit_mutants_that_parse(path):
    code, language = path.read_text(), SUFFIX_LANGUAGE[path.suffix]
    mutants = mutate(code, language)
    assert sum(m.operator == "COMMENT_INSERT" for m in mutants) == 1
    for mutant in mutants:
        assert applies_once(code, mutant), mutant
        assert parses_cleanly(mutant.code, language), mutant


def test_demo_corpus_exercises_every_operator_in_every_language():
    assert len(DEMO_PROGRAMS) >= 100
    seen = {
        (SUFFIX_LANGUAGE[p.suffix], m.operator)
        for p in DEMO_PROGRAMS
        for m in mutate(p.read_text(), SUFFIX_LANGUAGE[p.suffix])
    }
    assert seen == {(language, operator) for language in ("c", "cpp", "java") for operator in OPERATORS}
