"""One before/after example per graded rule: the documentation's (docs/methodology.md) and the tests'."""
# ruff: noqa: E501

# rule: (language, before, after)
EXAMPLES: dict[str, tuple[str, str, str]] = {
    "R5_FOR_TO_WHILE": (
        "c",
        "int f(int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) {\n        s += i;\n    }\n    return s;\n}\n",
        "int f(int n) {\n    int s = 0;\n    { int i = 0; while (i < n) {\n        s += i; i++; } }\n    return s;\n}\n",
    ),
    "R5_COMPOUND_ASSIGN": (
        "java",
        "class A {\n    int f(int s, int x) {\n        s = s + x * 2;\n        return s;\n    }\n}\n",
        "class A {\n    int f(int s, int x) {\n        s += x * 2;\n        return s;\n    }\n}\n",
    ),
    "R5_INCREMENT_AS_COMPOUND": (
        "cpp",
        "int f(int n) {\n    int c = 0;\n    while (c < n) c++;\n    return c;\n}\n",
        "int f(int n) {\n    int c = 0;\n    while (c < n) c += 1;\n    return c;\n}\n",
    ),
    "R5_IF_TO_TERNARY": (
        "c",
        "int f(int a, int b) {\n    if (a > b) return a;\n    else return b;\n}\n",
        "int f(int a, int b) {\n    return (a > b) ? a : b;\n}\n",
    ),
    "R4_SINGLE_LETTER_NAMES": (
        "c",
        "int f(int n) {\n    int total = 0;\n    for (int idx = 0; idx < n; idx++) total += idx;\n    return total;\n}\n",
        "int f(int n) {\n    int a = 0;\n    for (int idx = 0; idx < n; idx++) a += idx;\n    return a;\n}\n",
    ),
    "R4_MAGIC_NUMBERS": (
        "c",
        "#define MOD 1000000007\nint f(long x) {\n    return x % MOD;\n}\n",
        "int f(long x) {\n    return x % 1000000007;\n}\n",
    ),
    "R4_CHAR_CODES": (
        "java",
        "class A {\n    int f(char c) {\n        return c - 'a';\n    }\n}\n",
        "class A {\n    int f(char c) {\n        return c - 97;\n    }\n}\n",
    ),
    "R4_UNREACHABLE_CODE": (
        "c",
        "int f(int x) {\n    return x;\n}\n",
        "int f(int x) { if (0) { int unused = 0; unused++; }\n    return x;\n}\n",
    ),
    "R3_NEST_CONJUNCTION": (
        "c",
        "void f(int a, int b) {\n    if (a > 0 && b > 0) g();\n}\n",
        "void f(int a, int b) {\n    if (a > 0) { if (b > 0) g(); }\n}\n",
    ),
    "R3_NEST_ELSE_IF": (
        "c",
        "int f(int a) {\n    if (a < 0) return -1;\n    else if (a > 0) return 1;\n    else return 0;\n}\n",
        "int f(int a) {\n    if (a < 0) return -1;\n    else { if (a > 0) return 1;\n    else return 0; }\n}\n",
    ),
    "R3_DUPLICATE_INTO_BRANCHES": (
        "c",
        "void f(int a) {\n    if (a) x = 1;\n    else x = 2;\n    y = x;\n}\n",
        "void f(int a) {\n    if (a) { x = 1; y = x; }\n    else { x = 2; y = x; }\n}\n",
    ),
    "R3_LOCALS_TO_GLOBALS": (
        "c",
        "int main() {\n    int n = 0;\n    return n;\n}\n",
        "int n = 0;\nint main() {\n    return n;\n}\n",
    ),
    "R3_INLINE_HELPER": (
        "c",
        "int sq(int v) {\n    return v * v;\n}\nint f(int a) {\n    return sq(a) + 1;\n}\n",
        "int sq(int v) {\n    return v * v;\n}\nint f(int a) {\n    return (a * a) + 1;\n}\n",
    ),
    "R3_REDUNDANT_LOOP_GUARD": (
        "c",
        "int f(int n) {\n    int s = 0;\n    while (s < n) {\n        s += 2;\n    }\n    return s;\n}\n",
        "int f(int n) {\n    int s = 0;\n    while (s < n) { if (s < n) {\n        s += 2;\n    } }\n    return s;\n}\n",
    ),
    "R2_OFF_BY_ONE": (
        "c",
        "int f(int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) s++;\n    return s;\n}\n",
        "int f(int n) {\n    int s = 0;\n    for (int i = 0; i <= n; i++) s++;\n    return s;\n}\n",
    ),
    "R2_SWAP_PLUS_MINUS": (
        "c",
        "int f(int a, int b) {\n    return a + b;\n}\n",
        "int f(int a, int b) {\n    return a - b;\n}\n",
    ),
    "R2_LOOP_BOUND_MINUS_ONE": (
        "c",
        "int f(int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) s++;\n    return s;\n}\n",
        "int f(int n) {\n    int s = 0;\n    for (int i = 0; i < n - 1; i++) s++;\n    return s;\n}\n",
    ),
    "R2_NARROW_TYPE": (
        "c",
        "int f(int n) {\n    long s = 0;\n    s = n;\n    return s;\n}\n",
        "int f(int n) {\n    int s = 0;\n    s = n;\n    return s;\n}\n",
    ),
    "R2_NEGATE_CONDITION": (
        "c",
        "int f(int a) {\n    if (a > 0) return 1;\n    return 0;\n}\n",
        "int f(int a) {\n    if (!(a > 0)) return 1;\n    return 0;\n}\n",
    ),
    "R1_REMOVE_BASE_CASE": (
        "c",
        "int fact(int n) {\n    if (n == 0) return 1;\n    return n * fact(n - 1);\n}\n",
        "int fact(int n) {\n    return n * fact(n - 1);\n}\n",
    ),
    "R2_SWAP_MIN_MAX": (
        "cpp",
        "int f(int a, int b) {\n    return std::max(a, b);\n}\n",
        "int f(int a, int b) {\n    return std::min(a, b);\n}\n",
    ),
    "R2_DELETE_ACCUMULATION": (
        "c",
        "int f(int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) s += i;\n    return s;\n}\n",
        "int f(int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) ;\n    return s;\n}\n",
    ),
    "R1_DELETE_BRANCH": (
        "c",
        "int f(int a) {\n    int s = a;\n    if (a > 10) s = s * 2;\n    return s;\n}\n",
        "int f(int a) {\n    int s = a;\n    return s;\n}\n",
    ),
    "R1_DELETE_VALIDATION": (
        "c",
        "int f(int n) {\n    if (n < 0) return 0;\n    return n * 2;\n}\n",
        "int f(int n) {\n    return n * 2;\n}\n",
    ),
    "R1_DELETE_ELSE": (
        "java",
        "class A {\n    int f(int a) {\n        int s;\n        if (a > 0) s = a;\n        else s = -a;\n        return s;\n    }\n}\n",
        "class A {\n    int f(int a) {\n        int s;\n        if (a > 0) s = a;\n        return s;\n    }\n}\n",
    ),
    "R1_LOOP_FIRST_ITERATION": (
        "c",
        "int f(int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) {\n        s += i;\n    }\n    return s;\n}\n",
        "int f(int n) {\n    int s = 0;\n    { int i = 0; if (i < n) {\n        s += i;\n    } }\n    return s;\n}\n",
    ),
    "R0_MISSING_SEMICOLON": (
        "c",
        "int f(int a) {\n    a++;\n    return a;\n}\n",
        "int f(int a) {\n    a++\n    return a;\n}\n",
    ),
    "R0_UNCLOSED_BLOCK": (
        "cpp",
        "int f(int a) {\n    if (a) {\n        a--;\n    }\n    return a;\n}\n",
        "int f(int a) {\n    if (a) {\n        a--;\n    \n    return a;\n}\n",
    ),
    "R0_UNDECLARED_NAME": (
        "c",
        "int f(int a) {\n    int s = a;\n    return s;\n}\n",
        "int f(int a) {\n    int s = a;\n    return s_;\n}\n",
    ),
    "R0_RETURN_AT_START": (
        "c",
        'int main(void) {\n    printf("1\\n");\n    return 0;\n}\n',
        'int main(void) { return 0;\n    printf("1\\n");\n    return 0;\n}\n',
    ),
    "R0_DELETE_OUTPUT": (
        "java",
        "class A {\n    public static void main(String[] args) {\n        int n = 1;\n        System.out.println(n);\n    }\n}\n",
        "class A {\n    public static void main(String[] args) {\n        int n = 1;\n    }\n}\n",
    ),
}
