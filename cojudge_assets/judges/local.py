"""Local judges that need no network, answering the same prompt as any hosted judge.

They are registered as litellm custom providers (:func:`register_local_judges`), so a
call to ``litellm.completion(model="cojudge/sample-exec", messages=...)`` takes the
very path a hosted model takes. They read only what an LLM judge reads: the
rendered prompt (problem id, language, statement, code, context between the
prompt's delimiters). Both are deterministic and honest instruments, not fakes:
how good their probabilities are is for the measurement group to say.

* ``sample-exec`` compiles the code and runs it on the examples written in the
  statement, in the sandbox, and maps the outcome to a probability: a compile
  error, a crash, a wrong example output or a slow example lowers it; passing
  every example gives a high but not certain probability (examples are small).
  Without a statement (corpora of bare submissions, such as ConDefects) it
  still compiles the code: a compile error is evidence even without examples
  ("does not compile", p = 0.02); code that compiles has nothing left to be
  judged on, and sample-exec abstains.
* ``static-rubric`` reads the statement's constraints and the code without
  running it: 32-bit integers where values or counts can pass 2^31, loop nesting
  against the input size, whether all input is read, and answers the statement
  asks for in special cases (such as -1) that the code never prints.

Before a partition's pending requests are sent, the runner hands them to the local
judge (:meth:`SampleExecScorer.prepare`, through what :func:`register_local_judges`
returns): sample-exec compiles their Java programs in batches, one javac JVM per
contest-judge worker for many programs, and syntax-checks their Python programs the
same way, one interpreter per worker (``ContestJudge.precompile``, the path of the
label audit and the perturbation study), so each request, still scored alone through
litellm, finds its program in the compile cache instead of starting a JVM or an
interpreter of its own. C and C++ programs are still compiled one sandboxed run each
as their request is scored. The answers are the same with or without this step; only
the time differs.

A local judge with nothing to go on for an item abstains instead of answering a
constant (core/judging/models.py: ``{"abstain": "<reason>"}``), and says why in words a
reader understands (:meth:`SampleExecScorer.abstention`,
:meth:`StaticRubricScorer.abstention`). sample-exec abstains before compiling
anything when it cannot run the language, when there is neither a statement nor
code, and when a statement gives no example with input and output to run (or
only bare Input/Output sections whose bodies read as a format description, not
data: core/judging/examples.py, ``looks_like_prose``; it does not guess): such
statements are function-level prompts (HumanEval-style), whose code is a fragment
that does not compile alone (ICE-Score: 3,112 of 3,220 Python items are not valid
Python on their own, and 117 of 120 sampled Java items do not compile), so calling
a compile error there would be a false "does not compile". Without a statement it
compiles, and abstains when the code compiles. Nor does it compile code that has no
entry point (a Java file without ``static void main``, C without ``main``: method
bodies or functions a course's grader wraps in a harness of its own, as CSEDM's Java
attempts are): it cannot build the program as the grader did, so it abstains and says
so, instead of answering "does not compile" to accepted code. static-rubric abstains when there
is no statement, or the statement states neither a bound on its input nor a special
answer, the only things it checks code against.

Where the request asks for AXIOM's 0-5 score (graded programs, core/judging/prompts.py ``SYSTEM_WITH_SCORE``),
both answer it from what they already found: sample-exec 0 for a compile error, 1 when every example fails, 2
when some fail, 4 when all pass (examples are evidence, not proof, and say nothing of readability or design);
static-rubric its two rubric scores' mean stretched from 1-5 onto 0-5 and rounded.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cojudge_assets.core.execution.contest_judge import ContestJudge, Verdict, normalize_language
from cojudge_assets.core.execution.contest_judge.languages import missing_entry_point
from cojudge_assets.core.execution.sandbox import SandboxError
from cojudge_assets.core.ingest.kattis import DEFAULT_MEMORY_MB, DEFAULT_TIME_LIMIT_S, ProblemPackage, TestCase
from cojudge_assets.core.judging.examples import read_examples, statement_examples
from cojudge_assets.core.judging.prompts import asks_score

_BLOCK = re.compile(r"<<<BEGIN (STATEMENT|CODE|CONTEXT)>>>\n(.*?)\n<<<END \1>>>", re.DOTALL)


@dataclass
class PromptParts:
    problem_id: str
    language: str
    statement: str
    code: str
    context: str
    ask_score: bool = False  # the request asked for AXIOM's 0-5 score


def parse_prompt(messages: list[dict]) -> PromptParts:
    """The request fields back out of a rendered prompt (see core/judging/prompts.py)."""
    user = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
    blocks = {name: body for name, body in _BLOCK.findall(user)}
    pid = re.search(r"^Problem id: (.*)$", user, re.MULTILINE)
    lang = re.search(r"^Language: (.*)$", user, re.MULTILINE)
    return PromptParts(
        pid.group(1).strip() if pid else "",
        lang.group(1).strip() if lang else "",
        blocks.get("STATEMENT", ""),
        blocks.get("CODE", ""),
        blocks.get("CONTEXT", ""),
        asks_score(messages),
    )


def _limits(statement: str) -> tuple[float, int]:
    time_match = re.search(r"time limit[^0-9]{0,20}([0-9.]+)\s*(ms|s|sec|second)", statement, re.IGNORECASE)
    memory_match = re.search(r"memory limit[^0-9]{0,20}([0-9]+)\s*(MB|MiB|KB)", statement, re.IGNORECASE)
    time_limit = DEFAULT_TIME_LIMIT_S
    if time_match:
        value = float(time_match.group(1))
        time_limit = value / 1000 if time_match.group(2).lower() == "ms" else value
    memory = DEFAULT_MEMORY_MB
    if memory_match:
        memory = int(memory_match.group(1)) // (1024 if memory_match.group(2).upper() == "KB" else 1)
    return time_limit, memory


def _answer(p: float, s_algo: int, s_robust: int, rationale: str, score: int | None = None) -> str:
    """The answer's JSON; ``score`` (0-5) only where the request asked for it."""
    answer: dict = {"p_accept": round(p, 4), "s_algo": s_algo, "s_robust": s_robust}
    if score is not None:
        answer["score"] = score
    return json.dumps(answer | {"rationale": rationale})


def _abstain(reason: str) -> str:
    return json.dumps({"abstain": reason})


class SampleExecScorer:
    """Run the code on the statement's examples in the sandbox; see the module docstring for the mapping."""

    # the abstention of code that compiles when there is no statement: nothing left to judge it on
    COMPILES_WITHOUT_EXAMPLES = (
        "the code compiles, but there is no problem statement, so there are no examples "
        "to run it on (a compile error would have been answered)"
    )

    def __init__(self, judge: ContestJudge | None = None):
        self.judge = judge or default_contest_judge()

    @staticmethod
    def abstention(parts: PromptParts) -> str:
        """Why sample-exec abstains on this item before compiling anything ("" when it compiles the code: to run
        the statement's examples, or, without a statement, to see whether it compiles at all)."""
        try:
            normalize_language(parts.language)
        except ValueError:
            return (
                f"cannot run code in {parts.language.strip() or 'an unnamed language'!r}: sample-exec runs "
                "only C, C++, Java and Python"
            )
        if not parts.statement.strip():
            if not parts.code.strip():
                return "there is neither a problem statement nor code: nothing to compile or run"
            return SampleExecScorer._fragment(parts)
        reading = read_examples(parts.statement)
        if reading.examples:
            return SampleExecScorer._fragment(parts)
        if reading.set_aside:
            # its Input/Output sections describe the format in words: running the code on a sentence would fail
            # every program alike, so sample-exec does not guess (core/judging/examples.py: looks_like_prose)
            return (
                "the statement's Input/Output sections describe the format in words "
                f"({len(reading.set_aside)} read as prose, not data) and it gives no example that can be read "
                "with confidence to run the code on"
            )
        # a statement without stdin examples is a function-level prompt: its code is a fragment that does not
        # compile alone, so a compile error there is no evidence (module docstring)
        return (
            "the statement gives no example input with its expected output to run the code on "
            "(sample-exec runs programs that read standard input)"
        )

    @staticmethod
    def _fragment(parts: PromptParts) -> str:
        """Why sample-exec cannot build the code as the grader did ("" when it can): code with no entry point (Java
        method bodies, C functions) that the course's grader wraps in a harness of its own. Compiled alone it fails
        right or wrong, so "does not compile" would be a constant answer (contest_judge/languages.py
        ``missing_entry_point``)."""
        why = missing_entry_point(normalize_language(parts.language), parts.code)
        return f"cannot build the program as the grader did: {why}" if why else ""

    def prepare(self, prompts: Iterable[PromptParts]) -> int:
        """Compile, before scoring, the programs of ``prompts`` that :meth:`score` will compile: the Java and Python
        ones in batches (``ContestJudge.precompile``: one javac JVM, or one interpreter, per worker for many
        programs), so that scoring each prompt finds its program compiled. Scoring answers the same with or
        without this step. Returns how many programs the batches compiled now."""
        programs = []
        for parts in prompts:
            if self.abstention(parts):
                continue
            programs.append((normalize_language(parts.language), parts.code, _limits(parts.statement)[1]))
        return self.judge.precompile(programs) if programs else 0

    def score(self, parts: PromptParts) -> str:
        reason = self.abstention(parts)
        if reason:
            return _abstain(reason)
        language = normalize_language(parts.language)
        if not parts.statement.strip():
            compiled = self.judge.compile(language, parts.code, memory_mb=_limits(parts.statement)[1])
            if compiled.error:  # the judge could not run the compiler: a failed row, tried again
                raise SandboxError(f"the contest judge could not compile the code: {compiled.error}")
            return (
                _answer(0.02, 1, 1, "does not compile", 0 if parts.ask_score else None)
                if not compiled.ok
                else _abstain(self.COMPILES_WITHOUT_EXAMPLES)
            )
        examples = statement_examples(parts.statement)
        time_limit, memory = _limits(parts.statement)
        with tempfile.TemporaryDirectory(prefix="cojudge-samples-") as tmp:
            tests = []
            for i, (inp, out) in enumerate(examples, start=1):
                (Path(tmp) / f"{i}.in").write_text(inp)
                (Path(tmp) / f"{i}.ans").write_text(out)
                tests.append(
                    TestCase(name=f"example/{i}", input_path=Path(tmp) / f"{i}.in", answer_path=Path(tmp) / f"{i}.ans")
                )
            problem = ProblemPackage(
                problem_id=parts.problem_id or "problem",
                name=parts.problem_id,
                root=Path(tmp),
                statement=parts.statement,
                statement_path=None,
                time_limit_s=time_limit,
                memory_mb=memory,
                limits_stated=True,
                float_tolerance=None,
                samples=tests,
                secret=[],
            )
            result = self.judge.judge(problem, language, parts.code, stop_at_first_failure=False)
        if result.verdict == Verdict.JUDGE_ERROR:  # as before JUDGE_ERROR existed: a failed row, tried again
            raise SandboxError(f"the contest judge could not run the examples: {result.error}")
        if result.verdict == Verdict.CE:
            return _answer(0.02, 1, 1, "does not compile", 0 if parts.ask_score else None)
        passed = sum(t.verdict == Verdict.AC for t in result.tests)
        if result.verdict == Verdict.AC:
            # examples are tiny: passing them is evidence, not proof; more examples, more evidence.
            # Measured times are left out on purpose, so the same code always gets the same answer.
            p = 0.65 + 0.05 * min(len(examples), 3)
            passes = f"passes all {len(examples)} examples of the statement"
            return _answer(p, 4, 3, passes, 4 if parts.ask_score else None)
        share = passed / len(result.tests)
        kinds = sorted({t.verdict.value for t in result.tests if t.verdict != Verdict.AC})
        base = {"WA": 0.12, "RE": 0.08, "TLE": 0.06}.get(kinds[0], 0.1) if kinds else 0.1
        return _answer(
            base + 0.1 * share,
            2 if share > 0 else 1,
            1 if "RE" in kinds else 2,
            f"fails {len(result.tests) - passed} of {len(result.tests)} examples ({', '.join(kinds)})",
            (2 if share > 0 else 1) if parts.ask_score else None,
        )


_NUMBER = (
    r"(?:10\s*\^\s*\{?(?P<pow>\d+)\}?"
    r"|(?P<base>\d+(?:\.\d+)?)\s*(?:[x×·*]\s*10\s*\^\s*\{?(?P<exp>\d+)\}?|e(?P<e>\d+))?)"
)
_BOUND = re.compile(r"(?P<name>\w+)[|)}$*]*\s*(?:<=|≤|\\leq|\\le)\s*" + _NUMBER)
SIZE_NAMES = {"n", "m", "q", "k", "t", "r", "c", "length"}


def _plain_numbers(statement: str) -> str:
    """LaTeX and typographic forms made plain: 300\\,000, 2 \\cdot 10^9, 10^{5}."""
    statement = re.sub(r"(?<=\d)(?:\\,|\{,\}|\\ |,)(?=\d{3})", "", statement)
    return statement.replace("\\cdot", "·").replace("\\times", "×")


def _max_bound(statement: str) -> tuple[float, float]:
    """(largest bound on a size like n, largest bound on a value) written as <= / ≤ in the statement."""
    sizes, values = [0.0], [0.0]
    for match in _BOUND.finditer(_plain_numbers(statement)):
        if match.group("pow"):
            value = 10.0 ** int(match.group("pow"))
        else:
            value = float(match.group("base"))
            if match.group("exp") or match.group("e"):
                value *= 10.0 ** int(match.group("exp") or match.group("e"))
        (sizes if match.group("name").lower() in SIZE_NAMES else values).append(value)
    return max(sizes), max(values)


def _loop_depth(code: str, language: str) -> int:
    """Deepest nesting of loops (braces for C-like languages, indentation for Python)."""
    if language == "python":
        depth = 0
        stack: list[int] = []
        for line in code.splitlines():
            stripped = line.lstrip()
            if not stripped or stripped.startswith("#"):
                continue
            indent = len(line) - len(stripped)
            while stack and stack[-1] >= indent:
                stack.pop()
            if re.match(r"(for|while)\b", stripped):
                stack.append(indent)
                depth = max(depth, len(stack))
        return depth
    # chain: loop headers seen since the last statement began; they all enclose what follows
    depth, best, chain, parens, stack = 0, 0, 0, 0, []
    for token in re.finditer(r"\b(for|while)\b|[{}();]", re.sub(r"//.*|/\*.*?\*/", "", code, flags=re.DOTALL)):
        text = token.group(0)
        if text in ("for", "while"):
            chain += 1
            best = max(best, depth + chain)
        elif text == "(":
            parens += 1
        elif text == ")":
            parens = max(0, parens - 1)
        elif text == "{":
            stack.append(chain)
            depth += chain
            chain = 0
        elif text == "}":
            depth -= stack.pop() if stack else 0
            chain = 0
        elif text == ";" and parens == 0:
            chain = 0  # a loop whose body was a single statement has ended
    return best


# the statement asks for a special answer such as -1 ("print -1 if it cannot be reached")
_SPECIAL_ANSWER = re.compile(r"(?:print|output|answer|report)[^.\n]{0,60}(?<![\d^\w])-1(?![\d^])", re.IGNORECASE)


class StaticRubricScorer:
    """Read constraints and code without running anything; see the module docstring."""

    def prepare(self, prompts: Iterable[PromptParts]) -> int:
        """Nothing to do ahead of scoring (it runs nothing); here so every local scorer has one."""
        return 0

    @staticmethod
    def abstention(parts: PromptParts) -> str:
        """Why static-rubric has nothing to go on for this item ("" when the statement states something it
        checks: a bound written as <= / ≤, or a special answer such as -1)."""
        if not parts.statement.strip():
            return "there is no problem statement, so there are no constraints to check the code against"
        if _BOUND.search(_plain_numbers(parts.statement)) is None and _SPECIAL_ANSWER.search(parts.statement) is None:
            return (
                "the statement writes no bound on its input as an inequality (such as 1 ≤ n ≤ 10^5) and asks "
                "for no special answer (such as -1): static-rubric has nothing to check the code against"
            )
        return ""

    def score(self, parts: PromptParts) -> str:
        reason = self.abstention(parts)
        if reason:
            return _abstain(reason)
        try:
            language = normalize_language(parts.language)
        except ValueError:
            language = parts.language.lower()
        code, statement = parts.code, parts.statement
        max_size, max_value = _max_bound(statement)
        p, algo, robust, notes = 0.7, 4, 4, []
        wide = language == "python" or re.search(r"\blong\s+long\b|\bint64_t\b|\blong\b|\bBigInteger\b", code)
        if max_value * max(max_size, 1) > 2**31 and not wide:
            p, robust = p - 0.3, robust - 2
            notes.append("no 64-bit type although values or sums can pass 2^31")
        depth = _loop_depth(code, language)
        if max_size >= 5e4 and depth >= 2:
            p, algo = p - 0.3, algo - 2
            notes.append(f"{depth} nested loops for n up to {max_size:.0f}")
        elif max_size >= 5e4 and language == "python" and depth >= 1 and "sys.stdin" not in code:
            p -= 0.1
            notes.append("Python reading large input line by line")
        asks_minus_one = _SPECIAL_ANSWER.search(statement)
        if asks_minus_one and not re.search(r"(?<![\d\w])-\s*1(?![\d.])", code):
            p, robust = p - 0.15, robust - 1
            notes.append("never prints the statement's special answer -1")
        if len(code.strip()) < 40:
            p, algo = p - 0.3, 1
            notes.append("almost no code")
        p = min(0.95, max(0.03, p))
        algo, robust = max(1, min(5, algo)), max(1, min(5, robust))
        return _answer(
            p,
            algo,
            robust,
            "; ".join(notes) or "types, loops and special cases look consistent with the constraints",
            round(5 * ((algo + robust) / 2 - 1) / 4) if parts.ask_score else None,
        )


def _custom_llm_class():
    import litellm
    from litellm import CustomLLM

    class LocalJudgeLLM(CustomLLM):
        """Adapter: a scorer behind litellm's completion interface."""

        def __init__(self, name: str, scorer):
            super().__init__()
            self.name, self.scorer = name, scorer

        def completion(self, model, messages, *args, **kwargs) -> litellm.ModelResponse:
            started = time.perf_counter()
            content = self.scorer.score(parse_prompt(messages))
            response = litellm.ModelResponse(
                model=f"cojudge-local/{self.name}",
                choices=[{"message": {"role": "assistant", "content": content}, "finish_reason": "stop", "index": 0}],
            )
            response._hidden_params["latency_s"] = time.perf_counter() - started
            return response

        async def acompletion(self, model, messages, *args, **kwargs) -> litellm.ModelResponse:
            import asyncio

            return await asyncio.to_thread(self.completion, model, messages, *args, **kwargs)

    return LocalJudgeLLM


LOCAL_PROVIDER = "cojudge"
# bumped when what the local judges answer changes (2: abstention instead of a constant; 3: examples read from
# plain text, indented blocks, HTML <pre> and Aizu/JOI labels, core/judging/examples.py, and sample-exec answers a
# compile error without a statement; 4: sample-exec abstains on code with no entry point, a fragment the grader
# wraps in a harness), so a database judged by an older version is judged again in a new epoch
# (JudgeSpec.answer_settings) rather than kept from the cache
LOCAL_JUDGES_VERSION = 4


LocalScorer = SampleExecScorer | StaticRubricScorer


def default_contest_judge() -> ContestJudge:
    """The contest judge of a scorer made outside a Dagster run (which hands its own, defs/resources.py): over the
    cache folder settings.py resolves (``$COJUDGE_CACHE``, else ``$XDG_CACHE_HOME/cojudge``, else
    ``~/.cache/cojudge``)."""
    from cojudge_assets.settings import cache_folder

    root = cache_folder()
    return ContestJudge(root / "compile", build_dir=root)


def register_local_judges(contest_judge: ContestJudge | None = None) -> dict[str, LocalScorer]:
    """Make ``cojudge/sample-exec`` and ``cojudge/static-rubric`` litellm models (idempotent).

    Returns the scorers the models answer with, by model name ("sample-exec"), so the caller can
    :meth:`~SampleExecScorer.prepare` them with a partition's pending prompts before sending them.
    """
    import litellm

    cls = _custom_llm_class()
    scorers: dict[str, LocalScorer] = {
        "sample-exec": SampleExecScorer(contest_judge),
        "static-rubric": StaticRubricScorer(),
    }
    handlers = {name: cls(name, scorer) for name, scorer in scorers.items()}

    def route(self, model, messages, *args, **kwargs):
        return handlers[model.split("/")[-1]].completion(model, messages, *args, **kwargs)

    # one provider, the model name picks the scorer; made with type() because its base is made at run time
    router = type("Router", (cls,), {"completion": route})

    existing = [p for p in (litellm.custom_provider_map or []) if p.get("provider") != LOCAL_PROVIDER]
    litellm.custom_provider_map = [*existing, {"provider": LOCAL_PROVIDER, "custom_handler": router("router", None)}]
    # litellm builds its provider table from custom_provider_map when this is called
    from litellm.utils import custom_llm_setup

    custom_llm_setup()
    return scorers
