"""Reading the examples a statement shows, in the forms real statements write them, and checking them against
the problem package's sample files (core/judging/examples.py, core/ingest/problems.py: full_statement)."""

from __future__ import annotations

import json

import pytest

from cojudge_assets.core.ingest.kattis import scan_problems
from cojudge_assets.core.ingest.problems import full_statement, problems_table
from cojudge_assets.core.judging.examples import PACKAGE_MARK, read_examples, same_examples, statement_examples
from cojudge_assets.judges.local import PromptParts, SampleExecScorer
from cojudge_tests.conftest import SHARED_CORPORA

TWO_PAIRS = [("3 4\n", "7\n"), ("10 -2\n", "8\n")]

FENCED = """# Pair sum

Read two integers and print their sum.

## Sample Input 1
```
3 4
```

## Sample Output 1
```
7
```

## Sample Input 2
```
10 -2
```

## Sample Output 2
```
8
```
"""

PLAIN_AFTER_LABEL = """Write a program that prints the sum of two integers given on one line.

Sample Input 1:
3 4

Sample Output 1:
7

Sample Input 2:
10 -2
Sample Output 2:
8
"""

INDENTED = """Print the sum of the two integers.

### Sample Input 1

    3 4

### Sample Output 1

    7

### Sample Input 2

    10 -2

### Sample Output 2

    8
"""

BOLD_EXAMPLE = """Print the sum of the two integers.

**Example Input 1:**

```
3 4
```

**Example Output 1:**

```
7
```

__Example Input 2__
```
10 -2
```
__Example Output 2__
```
8
```
"""

HTML_PRE = """<h1>Pair sum</h1>
<p>Read two integers <var>a</var> and <var>b</var> and print <var>a</var> + <var>b</var>.</p>
<h3>Sample Input 1</h3>
<pre>3 4
</pre>
<h3>Sample Output 1</h3>
<pre>
7
</pre>
<H3>Sample Input 2</H3><PRE>10 -2</PRE>
<H3>Sample Output 2</H3><PRE>8</PRE>
"""

AIZU = """# Sum of Two

## Input

```
a b
```

## Output

```
a + b
```

## Sample Input 1

```
3 4
```

## Output for the Sample Input 1

```
7
```

## Sample Input 2

```
10 -2
```

## Output for the Sample Input 2

```
8
```
"""

COURSE_BARE_LABELS = """Given two integers as input, print their sum.

Input Format: a b separated by a single space.

Example:
Input:
3 4
Output:
7

Input: 10 -2
Output: 8
"""

JOI = """### 入力例 1

```
3 4
```

### 出力例 1

```
7
```

### 入力例 2

```
10 -2
```

### 出力例 2

```
8
```
"""


@pytest.mark.parametrize(
    "statement",
    [FENCED, PLAIN_AFTER_LABEL, INDENTED, BOLD_EXAMPLE, HTML_PRE, AIZU, COURSE_BARE_LABELS, JOI],
    ids=["fenced", "plain-after-label", "indented", "bold-example", "html-pre", "aizu", "course-bare-labels", "joi"],
)
def test_each_form_gives_the_two_examples(statement):
    assert statement_examples(statement) == TWO_PAIRS


def test_aizu_output_for_the_sample_input_is_an_output_not_a_second_input():
    examples = statement_examples(AIZU)
    assert [given for given, _ in examples] == ["3 4\n", "10 -2\n"]
    assert [expected for _, expected in examples] == ["7\n", "8\n"]


def test_input_format_sections_are_not_examples_when_samples_are_labelled():
    # the "## Input" section holds "a b", the format: never an example beside the labelled samples
    assert all(given != "a b\n" for given, _ in statement_examples(AIZU))


def test_numbered_labels_pair_by_number_whatever_their_order():
    statement = "Sample Input 1:\n3 4\n\nSample Input 2:\n10 -2\n\nSample Output 2:\n8\n\nSample Output 1:\n7\n"
    assert statement_examples(statement) == TWO_PAIRS


def test_an_input_without_its_output_is_left_out():
    statement = "Example:\nInput:\n3 4\n\nOutput:\n7\n\nInput:\n5 5\nand so on for other inputs.\n"
    assert statement_examples(statement) == [("3 4\n", "7\n")]


def test_an_empty_fenced_output_is_an_example():
    assert statement_examples("## Sample Input 1\n```\n0\n```\n## Sample Output 1\n```\n```\n") == [("0\n", "")]


def test_a_statement_without_examples_gives_none():
    assert statement_examples("Read n and print n squared.\n\nInput is given on one line.\n") == []


def test_same_examples_is_token_wise():
    assert same_examples([("1  2\n", "3\n")], [("1 2", "3")])
    assert same_examples([("a\nb\n", "")], [("a b", "\n")])
    assert not same_examples([("1 2\n", "3\n")], [("1 2\n", "4\n")])
    assert not same_examples([("1 2\n", "3\n")], [("1 2\n", "3\n"), ("5\n", "5\n")])
    assert not same_examples([], [("1\n", "1\n")])


def test_full_statement_keeps_a_statement_whose_examples_agree_with_the_package():
    assert full_statement(PLAIN_AFTER_LABEL, [("3 4", "7"), ("10 -2", "8")], None, None) == (
        PLAIN_AFTER_LABEL.rstrip() + "\n"
    )


def test_full_statement_appends_the_package_samples_when_the_statement_disagrees():
    samples = [("3 4\n", "7\n"), ("10 -2\n", "8\n"), ("0 0\n", "0\n")]
    disagreeing = PLAIN_AFTER_LABEL.replace("Sample Output 1:\n7", "Sample Output 1:\n8")
    full = full_statement(disagreeing, samples, None, None)
    assert full.startswith(disagreeing.rstrip())  # the statement's own text is never dropped
    assert f"### Sample Input 3 {PACKAGE_MARK}" in full
    assert statement_examples(full) == samples


def test_full_statement_appends_the_package_samples_when_the_statement_examples_cannot_be_read():
    statement = "Print the sum.\n\nSample Input 1 and its Sample Output 1 are shown in the figure below.\n"
    full = full_statement(statement, [("3 4\n", "7\n")], None, None)
    assert full.startswith(statement.rstrip()) and PACKAGE_MARK in full
    assert statement_examples(full) == [("3 4\n", "7\n")]


def test_full_statement_without_examples_appends_the_samples_unmarked_as_before():
    statement = "Print the sum of the two integers on the input line."
    full = full_statement(statement, [("3 4\n", "7\n")], None, None)
    assert full == statement + "\n\n### Sample Input 1\n```\n3 4\n```\n\n### Sample Output 1\n```\n7\n```\n"
    assert full_statement(statement, [], None, None) == statement + "\n"


def test_sample_exec_finds_examples_in_a_plain_text_statement():
    # before core/judging/examples.py, sample-exec abstained here ("the statement gives no example input ...")
    parts = PromptParts(problem_id="sum", language="C", statement=PLAIN_AFTER_LABEL, code="int main(){}", context="")
    assert SampleExecScorer.abstention(parts) == ""


@pytest.mark.parametrize("corpus", ["itsp-c", "codenet-statements"])
def test_every_problem_with_sample_files_gets_those_examples_on_the_real_corpora(corpus):
    folder = SHARED_CORPORA / corpus / "problems"
    if not folder.is_dir():
        pytest.skip(f"shared corpus {folder} is absent (see /work/wt/shared/corpora/README.md)")
    problems = problems_table(folder)
    with_samples = problems.filter(problems["sample_inputs"].list.len() > 0)
    assert with_samples.height > 0, f"{folder}: no problem with sample files"
    without_examples, wrong = [], []
    for row in with_samples.iter_rows(named=True):
        examples = statement_examples(row["statement"])
        if not examples:
            without_examples.append(row["problem_id"])
        elif not same_examples(examples, list(zip(row["sample_inputs"], row["sample_outputs"]))):
            wrong.append(row["problem_id"])
    assert without_examples == [], f"{corpus}: problems with sample files but no examples: {without_examples}"
    assert wrong == [], f"{corpus}: examples that differ from the sample files: {wrong}"


def test_every_codenet_statement_shows_examples_the_extractor_reads_as_its_sample_files():
    # CodeNet statements write every example in the text (AtCoder, Aizu and JOI labels): the text alone must
    # give the sample files, with nothing appended from the package
    folder = SHARED_CORPORA / "codenet-statements" / "problems"
    if not folder.is_dir():
        pytest.skip(f"shared corpus {folder} is absent (see /work/wt/shared/corpora/README.md)")
    packages = scan_problems(folder)[0]
    misread = [
        pid
        for pid, package in packages.items()
        if not same_examples(
            statement_examples(package.statement),
            [(t.input_path.read_text(), t.answer_path.read_text()) for t in package.samples],
        )
    ]
    assert len(packages) > 200 and misread == []


# -- format prose is never an example (issue 26) ------------------------------------------------------------
# Statements written for these tests: format sections under bare labels, and genuine examples in the forms
# course statements use.

PROSE_ONLY = {
    "one-line-format": """Sort the numbers.

Input: A positive integer n followed by a line containing n positive integers separated by space.
Output: Space separated sorted list of integers.
""",
    "multi-line-format": """Count the vowels of each word.

Input
The first line contains an integer T, the number of test cases.
Each of the next T lines contains a single word of lowercase letters.

Output
For each test case print the number of vowels on its own line.
""",
    "tex-format": """Find where two circles meet.

INPUT: $x_1 \\: y_1 \\: r_1$ and $x_2 \\: y_2 \\: r_2$ are given on two lines.

OUTPUT: Print "NONE" if the circles do not meet, else print each point up to 2 decimal places.
""",
    "heading-format": """## Input

Two integers a and b separated by a single space.

## Output

Print their greatest common divisor as a single integer.
""",
    "bold-format": """**Input:** an array of integers given as its length followed by its elements.

**Output:** the largest element of the array.
""",
}

GENUINE = {
    "inline": ("Add the two numbers.\n\nInput: 3 4\nOutput: 7\n", [("3 4\n", "7\n")]),
    "example-then-labels": (
        "Say whether a year is a leap year.\n\nExample:\nInput: 2024\nOutput: Leap Year\n",
        [("2024\n", "Leap Year\n")],
    ),
    "code-block": (
        "Reverse the list.\n\nInput:\n```\n4\n1 2 3 4\n```\nOutput:\n```\n4 3 2 1\n```\n",
        [("4\n1 2 3 4\n", "4 3 2 1\n")],
    ),
    "sample-input-1": (
        "Sample Input 1\n\n    2\n    abc\n    de\n\nSample Output 1\n\n    3\n    2\n",
        [("2\nabc\nde\n", "3\n2\n")],
    ),
    "sentence-output": (
        "Tell the sign.\n\nInput: -12\nOutput: -12.0000 is negative.\n\nInput: 0\nOutput: input is zero.\n",
        [("-12\n", "-12.0000 is negative.\n"), ("0\n", "input is zero.\n")],
    ),
    "words-as-data": (
        "Count the words.\n\nInput:\nhello world how are you\nOutput:\n5\n",
        [("hello world how are you\n", "5\n")],
    ),
}


@pytest.mark.parametrize("statement", list(PROSE_ONLY.values()), ids=list(PROSE_ONLY))
def test_format_prose_under_bare_labels_is_never_an_example(statement):
    reading = read_examples(statement)
    assert reading.examples == [] and statement_examples(statement) == []
    assert reading.set_aside, "the prose bodies are reported as set aside"


@pytest.mark.parametrize(("statement", "expected"), list(GENUINE.values()), ids=list(GENUINE))
def test_genuine_examples_are_still_read(statement, expected):
    assert statement_examples(statement) == expected
    assert read_examples(statement).set_aside == []


def test_a_format_section_beside_genuine_bare_examples_keeps_only_the_examples():
    statement = PROSE_ONLY["one-line-format"] + "\nExample:\nInput:\n3\n5 1 4\nOutput:\n1 4 5\n"
    reading = read_examples(statement)
    assert reading.examples == [("3\n5 1 4\n", "1 4 5\n")]
    assert len(reading.set_aside) == 2


def test_a_prose_input_does_not_pair_its_output_with_an_earlier_input():
    # reading order: the genuine input's output is missing; the prose input's data-like output must not pair
    # with the genuine input
    statement = "Input: 5 6\n\nInput: Two integers separated by a space.\nOutput: 11\n"
    assert statement_examples(statement) == []


def test_qualified_labels_are_read_even_when_their_body_is_wordy():
    # "Sample Input" is an example by its label: a sentence there is the test's data (a text problem)
    statement = "Sample Input 1:\nthe number of lines is given first\n\nSample Output 1:\n7\n"
    assert statement_examples(statement) == [("the number of lines is given first\n", "7\n")]


@pytest.mark.parametrize("name", list(PROSE_ONLY))
def test_sample_exec_abstains_on_format_prose_instead_of_guessing(name):
    parts = PromptParts(problem_id="p", language="C", statement=PROSE_ONLY[name], code="int main(){}", context="")
    reason = SampleExecScorer.abstention(parts)
    assert "read as prose" in reason and "with confidence" in reason
    answer = json.loads(SampleExecScorer().score(parts))
    assert answer == {"abstain": reason}
