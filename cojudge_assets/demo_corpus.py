"""Generator of the shipped demo corpus: a simulated AI-permitted programming contest.

The seed study's contest data are private, so cojudge ships its own contest,
written for this project. This script turns the problem packages under
``data/demo/problems`` (statements, tests, and a pool of participant programs in
``submissions/<category>/``) into what such a contest leaves behind:

* ``pages/<participant>/<problem>-<nn>.<html|md|txt>``: one saved submission page
  per attempt, with a header clock (when the page was saved; pages were saved
  newest-first, so this clock runs backwards), a named Submit field, a named
  Result field, a Language field and the code in ``<pre>`` (or a fenced/marked
  block in .md/.txt);
* ``logs/<participant>/session-<k>.<md|txt|html>``: the participant's AI chat
  logs, in which most submitted programs appear verbatim before they are
  submitted, some problems are discussed without the code, and a few attempts
  have nothing usable; the logs contain personal data (names, e-mail addresses,
  student numbers) and pasted API-key-like strings for the scrubber to remove;
* ``contest.yaml``: the contest window and the problem set;
* ``judge_log.csv``: the generator's ledger of what the contest judge said about
  each page (for tests; ingestion reads the pages, never this file).

Every verdict comes from running the exact submitted code through the sandboxed
contest judge (:mod:`cojudge_assets.core.execution.contest_judge`); none is written by
hand. The plan is seeded, so the same problems and seed give byte-identical
files. Run: ``python -m cojudge_assets.demo_corpus [--out data/demo]``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import html
import io
import random
import string
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import yaml

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.execution.contest_judge import EXTENSION_LANGUAGE, ContestJudge, JudgeResult, Verdict
from cojudge_assets.core.ingest.kattis import ProblemPackage, read_problems

CONTEST_NAME = "cojudge demo contest (simulated, AI permitted)"
CONTEST_START = datetime(2026, 3, 14, 13, 45, 0)
CONTEST_END = datetime(2026, 3, 14, 17, 45, 0)
POOL_CATEGORIES = ("accepted", "wrong_answer", "time_limit_exceeded", "run_time_error", "compile_error")

RESULT_STRINGS = {
    Verdict.AC: "Accepted",
    Verdict.WA: "Wrong Answer",
    Verdict.TLE: "Time Limit Exceeded",
    Verdict.RE: "Runtime Error",
    Verdict.CE: "Compilation Error",
}
LANGUAGE_LABELS = {
    "c": "C (GCC 12, C11)",
    "cpp": "C++17 (GCC 12)",
    "java": "Java 17 (OpenJDK)",
    "python": "Python 3.11",
}
FENCE = {"c": "c", "cpp": "cpp", "java": "java", "python": "python"}

# Fictional people. Any resemblance to real persons is accidental.
PEOPLE = [
    ("Mara Lindqvist", "mara.lindqvist"),
    ("Tomasz Wierzbicki", "t.wierzbicki"),
    ("Aiko Tanabe", "aiko.tanabe"),
    ("Jonas Brenner", "jbrenner"),
    ("Lucia Ferrandez", "lucia.f"),
    ("Omar Haddad", "omar.haddad"),
    ("Priya Raghunathan", "priya.r"),
    ("Felix Osterholt", "fosterholt"),
    ("Nadia Kowalczyk", "nadia.k"),
    ("Samuel Okafor", "sam.okafor"),
    ("Ines Carvalho", "ines.carvalho"),
    ("Viktor Lund", "vlund"),
    ("Hana Svobodova", "hana.svobodova"),
    ("Daniel Achterberg", "d.achterberg"),
    ("Leila Nasseri", "leila.n"),
    ("Mateo Rinaldi", "mateo.rinaldi"),
    ("Yuki Morimoto", "y.morimoto"),
    ("Elena Petrova", "elena.petrova"),
]
# (preferred languages with weights, skill, AI style, page formats, log format)
PROFILES = [
    ({"cpp": 0.9, "python": 0.1}, 0.85, "chat", ("html",), "md"),
    ({"java": 1.0}, 0.55, "chat", ("html",), "md"),
    ({"cpp": 0.7, "c": 0.3}, 0.7, "agent", ("md",), "txt"),
    ({"c": 0.8, "cpp": 0.2}, 0.4, "chat", ("txt",), "txt"),
    ({"java": 0.8, "cpp": 0.2}, 0.65, "chat", ("html", "md"), "html"),
    ({"cpp": 1.0}, 0.3, "struggling", ("html",), "md"),
    ({"c": 1.0}, 0.6, "chat", ("md",), "md"),
    ({"java": 0.6, "python": 0.4}, 0.5, "sparse", ("txt",), "txt"),
    ({"cpp": 0.8, "java": 0.2}, 0.75, "chat", ("html",), "html"),
    ({"java": 1.0}, 0.35, "struggling", ("md",), "md"),
    ({"c": 0.5, "cpp": 0.5}, 0.6, "agent", ("html", "txt"), "md"),
    ({"cpp": 1.0}, 0.9, "sparse", ("txt",), "txt"),
    ({"java": 0.7, "c": 0.3}, 0.45, "chat", ("html",), "html"),
    ({"c": 0.6, "java": 0.4}, 0.55, "chat", ("md",), "md"),
    ({"cpp": 0.6, "java": 0.4}, 0.5, "none", ("html",), "txt"),
    ({"python": 0.5, "cpp": 0.5}, 0.6, "chat", ("txt", "md"), "md"),
    ({"java": 0.5, "cpp": 0.5}, 0.7, "agent", ("html",), "html"),
    ({"c": 0.7, "cpp": 0.3}, 0.5, "chat", ("html", "md", "txt"), "md"),
]
LONG_TRAJECTORIES = {("u06", 2): (24, True), ("u10", 4): (21, False), ("u06", 5): (27, True)}
COMMENT_LINES = [
    "read input",
    "solution",
    "final version",
    "main logic",
    "try this",
    "submit",
    "cleaned up",
    "version 2",
    "edge cases",
    "reworked",
]


@dataclass
class Participant:
    uid: str
    name: str
    email: str
    student_no: str
    languages: dict[str, float]
    skill: float
    style: str
    page_formats: tuple[str, ...]
    log_format: str


@dataclass
class PoolProgram:
    problem_id: str
    category: str
    language: str
    name: str
    code: str
    verdict: Verdict | None = None


@dataclass
class Attempt:
    participant: Participant
    problem_id: str
    turn: int
    language: str
    code: str
    intent: str  # pool category the code was drawn from (before judging)
    tier: str = "anchored"  # how the chat logs relate to this attempt: anchored, segmented, none
    submitted_at: datetime | None = None
    saved_at: datetime | None = None
    file_number: int = 0
    submission_id: int = 0
    page_format: str = "html"
    result: JudgeResult | None = None
    path: str = ""

    @property
    def submitted(self) -> datetime:
        """The submission time, once the schedule has set it."""
        if self.submitted_at is None:
            raise ValueError(
                f"attempt {self.participant.uid}/{self.problem_id} turn {self.turn}: no submission time yet"
            )
        return self.submitted_at

    @property
    def judged(self) -> JudgeResult:
        """The contest judge's result, once the attempt has been judged."""
        if self.result is None:
            raise ValueError(f"attempt {self.participant.uid}/{self.problem_id} turn {self.turn}: not judged yet")
        return self.result


@dataclass
class Trajectory:
    participant: Participant
    problem_id: str
    attempts: list[Attempt] = field(default_factory=list)


# ----------------------------------------------------------------------------------------------
# participants and pools


def make_participants(rng: random.Random) -> list[Participant]:
    people = []
    for i, ((name, handle), (langs, skill, style, formats, log_format)) in enumerate(zip(PEOPLE, PROFILES), 1):
        student_no = f"{2021 + i % 4}{rng.randrange(10000, 99999)}"
        domain = rng.choice(["uni-example.edu", "student.example.ac.uk", "mail.example.org"])
        people.append(
            Participant(f"u{i:02d}", name, f"{handle}@{domain}", student_no, langs, skill, style, formats, log_format)
        )
    return people


def load_pools(problems: dict[str, ProblemPackage]) -> dict[str, list[PoolProgram]]:
    pools: dict[str, list[PoolProgram]] = {}
    for pid, problem in problems.items():
        programs = []
        for category in POOL_CATEGORIES:
            for path in problem.submissions(category):
                language = EXTENSION_LANGUAGE.get(path.suffix.lstrip("."))
                if language is None or path.stem == "reference":
                    continue
                programs.append(PoolProgram(pid, category, language, path.name, path.read_text(encoding="utf-8")))
        pools[pid] = programs
    return pools


def cosmetic_variant(code: str, language: str, k: int) -> str:
    """A behaviour-preserving re-typing of ``code`` (comments, layout); k = 0 keeps it as is."""
    if k == 0:
        return code
    comment = "#" if language == "python" else "//"
    line = f"{comment} {COMMENT_LINES[k % len(COMMENT_LINES)]}"
    kind = k % 4
    if kind == 1:
        return f"{line}\n{code}"
    if kind == 2:
        return code.rstrip("\n") + f"\n{line}\n"
    if kind == 3 and language != "python":
        return "\n".join(line.replace("    ", "\t") for line in code.split("\n"))
    return code.rstrip("\n") + "\n\n" + f"{line} ({k})\n"


# ----------------------------------------------------------------------------------------------
# the plan


def _pick_language(rng: random.Random, person: Participant, pool: list[PoolProgram]) -> str:
    available = {p.language for p in pool if p.verdict == Verdict.AC}
    weights = {lang: w for lang, w in person.languages.items() if lang in available}
    if not weights:
        return rng.choice(sorted(available))
    langs = sorted(weights)
    return rng.choices(langs, weights=[weights[lang] for lang in langs])[0]


# how often a failing attempt is of each kind (compile errors are rarer than wrong answers in contests)
FAILURE_WEIGHTS = {Verdict.WA: 0.45, Verdict.TLE: 0.25, Verdict.RE: 0.18, Verdict.CE: 0.12}


def _pick_failing(rng: random.Random, failing: list[PoolProgram]) -> PoolProgram:
    kinds = sorted({p.verdict for p in failing if p.verdict is not None}, key=lambda v: v.value)
    kind = rng.choices(kinds, weights=[FAILURE_WEIGHTS[k] for k in kinds])[0]
    return rng.choice([p for p in failing if p.verdict == kind])


def plan_trajectories(
    rng: random.Random, people: list[Participant], pools: dict[str, list[PoolProgram]], problem_ids: list[str]
) -> list[Trajectory]:
    """Decide who attempts what, how many times, with which programs (verdicts of the pool are known)."""
    trajectories = []
    used_accepted: dict[tuple[str, str], int] = {}
    for person in people:
        n = len(problem_ids)
        count = rng.randint(max(1, min(8, n - 4)), max(1, n - 1))
        chosen = set(rng.sample(range(n), count))
        chosen |= {index for (uid, index) in LONG_TRAJECTORIES if uid == person.uid and index < n}
        for index in sorted(chosen):
            pid = problem_ids[index]
            pool = pools[pid]
            language = _pick_language(rng, person, pool)
            accepted = [p for p in pool if p.verdict == Verdict.AC and p.language == language]
            failing = [p for p in pool if p.verdict not in (Verdict.AC, None) and p.language == language]
            if not failing:
                failing = [p for p in pool if p.verdict not in (Verdict.AC, None)]
            forced = LONG_TRAJECTORIES.get((person.uid, index))
            if forced:
                n_fail, solved = forced[0] - (1 if forced[1] else 0), forced[1]
            else:
                solved = rng.random() < 0.45 + 0.5 * person.skill
                first_try = rng.random() < 0.25 + 0.6 * person.skill
                n_fail = 0 if (solved and first_try) else 1 + min(int(rng.expovariate(0.35)), 9)
            traj = Trajectory(person, pid)
            previous: Attempt | None = None
            for turn in range(1, n_fail + 1):
                if previous is not None and rng.random() < 0.12:
                    code, intent = previous.code, previous.intent  # a character-identical resubmission
                    lang = previous.language
                else:
                    prog = _pick_failing(rng, failing)
                    code = cosmetic_variant(prog.code, prog.language, rng.choice([0, 0, 1, 2, 3, 4, 5]))
                    intent, lang = prog.category, prog.language
                previous = Attempt(person, pid, turn, lang, code, intent)
                traj.attempts.append(previous)
            if solved:
                accepted.sort(key=lambda p: (used_accepted.get((pid, p.name), 0), rng.random()))
                prog = accepted[0]
                reuse = used_accepted.get((pid, prog.name), 0)
                used_accepted[(pid, prog.name)] = reuse + 1
                code = cosmetic_variant(prog.code, prog.language, reuse * 3 + rng.randrange(3) if reuse else 0)
                traj.attempts.append(Attempt(person, pid, n_fail + 1, prog.language, code, prog.category))
            if traj.attempts:
                trajectories.append(traj)
    return trajectories


def assign_tiers(rng: random.Random, trajectories: list[Trajectory]) -> None:
    """How each attempt shows up in its participant's chat logs."""
    for traj in trajectories:
        style = traj.participant.style
        for att in traj.attempts:
            draw = rng.random()
            if style == "none":
                att.tier = "none" if draw < 0.7 else "segmented"
            elif style == "sparse":
                att.tier = "anchored" if draw < 0.5 else ("segmented" if draw < 0.85 else "none")
            else:
                att.tier = "anchored" if draw < 0.82 else ("segmented" if draw < 0.95 else "none")


def assign_times(rng: random.Random, trajectories: list[Trajectory]) -> None:
    """Submit clocks inside the window, page-saved clocks after it (saved newest-first)."""
    by_person: dict[str, list[Attempt]] = {}
    for traj in trajectories:
        by_person.setdefault(traj.participant.uid, []).extend(traj.attempts)
    window = (CONTEST_END - CONTEST_START).total_seconds()
    for _, attempts in sorted(by_person.items()):
        start = CONTEST_START + timedelta(seconds=rng.randint(120, 900))
        # each participant stops at their own time, a few minutes to an hour before the end
        budget = window - (start - CONTEST_START).total_seconds() - rng.randint(120, 3600)
        gaps = [rng.uniform(0.3, 1.0) for _ in attempts]
        scale = budget / sum(gaps)
        clock = start
        for att, gap in zip(attempts, gaps):
            clock = clock + timedelta(seconds=int(gap * scale))
            att.submitted_at = clock
        # the participant saved their pages after the contest, newest submission first
        saved = CONTEST_END + timedelta(minutes=rng.randint(5, 40), seconds=rng.randint(0, 59))
        for att in sorted(attempts, key=lambda a: a.submitted, reverse=True):
            saved += timedelta(seconds=rng.randint(4, 25))
            att.saved_at = saved


def assign_files(rng: random.Random, trajectories: list[Trajectory]) -> None:
    everything = sorted(
        (a for t in trajectories for a in t.attempts), key=lambda a: (a.submitted_at, a.participant.uid)
    )
    for number, att in enumerate(everything, start=48211):
        att.submission_id = number
    for traj in trajectories:
        formats = traj.participant.page_formats
        for att in traj.attempts:
            att.file_number = att.turn
            att.page_format = formats[rng.randrange(len(formats))]
    # one participant renamed two saved pages, so filename order disagrees with the Submit clock once
    long_multi = [t for t in trajectories if len(t.attempts) >= 3]
    if long_multi:
        traj = long_multi[len(long_multi) // 2]
        a, b = traj.attempts[0], traj.attempts[1]
        a.file_number, b.file_number = b.file_number, a.file_number
    for traj in trajectories:
        for att in traj.attempts:
            att.path = f"pages/{att.participant.uid}/{att.problem_id}-{att.file_number:02d}.{att.page_format}"


# ----------------------------------------------------------------------------------------------
# rendering: pages


def _clock(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S")


def render_page(att: Attempt, problem: ProblemPackage) -> str:
    assert att.result is not None and att.submitted_at and att.saved_at
    result = RESULT_STRINGS[att.result.verdict]
    lang = LANGUAGE_LABELS[att.language]
    fields = [
        ("Submission", str(att.submission_id)),
        ("User", f"team-{att.participant.uid}"),
        ("Problem", f"{att.problem_id} - {problem.name}"),
        ("Language", lang),
        ("Submit", _clock(att.submitted_at)),
        ("Result", result),
    ]
    failure = att.result.first_failure
    tests_line = (
        f"{len(att.result.tests)} test(s) run" + (f"; first failure on {failure.test}" if failure else "")
        if att.result.verdict != Verdict.CE
        else "compilation failed"
    )
    if att.page_format == "html":
        rows = "\n".join(
            f'      <tr><th>{k}</th><td class="field-{k.lower()}">{html.escape(v)}</td></tr>' for k, v in fields
        )
        return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Submission {att.submission_id} - {html.escape(CONTEST_NAME)}</title>
  <style>.verdict-Accepted {{ color: green; }} pre {{ background: #f6f6f6; }}</style>
  <script>
    // the judge's front end; its labels are not this page's result
    var LABELS = {{"AC": "Accepted", "WA": "Wrong Answer", "TLE": "Time Limit Exceeded"}};
  </script>
</head>
<body>
  <div class="page-header">Page saved {_clock(att.saved_at)} &middot; {html.escape(CONTEST_NAME)}</div>
  <nav><a href="/submissions">My submissions</a> | <a href="/standings">Standings</a></nav>
  <h1>Submission {att.submission_id}</h1>
  <table class="submission">
{rows}
  </table>
  <h2>Judge notes</h2>
  <pre class="judge-notes">{html.escape(tests_line)}</pre>
  <h2>Source</h2>
  <pre class="source"><code class="language-{FENCE[att.language]}">{html.escape(att.code)}</code></pre>
</body>
</html>
"""
    if att.page_format == "md":
        table = "\n".join(f"| {k} | {v} |" for k, v in fields)
        return (
            f"_Page saved {_clock(att.saved_at)} - {CONTEST_NAME}_\n\n# Submission {att.submission_id}\n\n"
            f"| Field | Value |\n|---|---|\n{table}\n\nJudge notes: {tests_line}\n\n## Source\n\n"
            f"```{FENCE[att.language]}\n{att.code.rstrip(chr(10))}\n```\n"
        )
    lines = "\n".join(f"{k}: {v}" for k, v in fields)
    return (
        f"[page saved {_clock(att.saved_at)}] {CONTEST_NAME}\n\n{lines}\nJudge notes: {tests_line}\n\n"
        f"----- BEGIN SOURCE -----\n{att.code.rstrip(chr(10))}\n----- END SOURCE -----\n"
    )


# ----------------------------------------------------------------------------------------------
# rendering: chat logs


def _fake_key(rng: random.Random) -> str:
    alphabet = string.ascii_letters + string.digits
    return "sk-proj-" + "".join(rng.choice(alphabet) for _ in range(40))


def _statement_excerpt(problem: ProblemPackage) -> str:
    body = [line for line in problem.statement.splitlines() if line.strip() and not line.startswith("#")]
    return " ".join(body[:2])[:400]


def _sketch(att: Attempt) -> str:
    """Code-like text about the attempt that is not the submitted code (segmented tier)."""
    lines = [line for line in att.code.splitlines() if line.strip()]
    middle = lines[len(lines) // 3 : len(lines) // 3 + 4]
    comment = "#" if att.language == "python" else "//"
    return "\n".join([f"{comment} outline, not complete", *middle, f"{comment} ... rest as before"])


def chat_turns(
    rng: random.Random, person: Participant, trajectories: list[Trajectory], problems: dict[str, ProblemPackage]
) -> list[list[tuple[str, str, datetime]]]:
    """The participant's chat sessions: lists of (role, text, time); code appears before its submission."""
    attempts = sorted((a for t in trajectories for a in t.attempts), key=lambda a: a.submitted)
    sessions: list[list[tuple[str, str, datetime]]] = [[]]
    intro = (
        f"Hi! I'm {person.name} (student no. {person.student_no}, {person.email}). "
        f"I'm in a programming contest where AI help is allowed. Please help me with the problems."
    )
    first_time = attempts[0].submitted - timedelta(minutes=6)
    sessions[0].append(("user", intro, first_time))
    sessions[0].append(("assistant", "Happy to help. Paste the problem and what you have so far.", first_time))
    if person.uid in ("u04", "u13"):
        key = _fake_key(rng)
        sessions[0].append(("user", f"btw my script uses OPENAI_API_KEY={key} is that the right format?", first_time))
        sessions[0].append(
            (
                "assistant",
                "Never share API keys in a chat; revoke that one. The format looks like a project key.",
                first_time,
            )
        )
    previous_verdict: dict[str, str] = {}
    for att in attempts:
        problem = problems[att.problem_id]
        t = att.submitted - timedelta(minutes=rng.randint(2, 5))
        if len(sessions[-1]) > 14 and rng.random() < 0.3:
            sessions.append([])
        session = sessions[-1]
        title = f"{problem.name} ({att.problem_id})"
        feedback = previous_verdict.get(att.problem_id)
        if att.tier == "none":
            if rng.random() < 0.5:
                session.append(("user", "ok next one, what is a fast way to read lots of integers?", t))
                session.append(
                    (
                        "assistant",
                        "Read the whole input at once and split it, or use a buffered "
                        "reader; avoid per-character reads.",
                        t,
                    )
                )
            continue
        if feedback:
            ask = f"The judge said {feedback} for {title}. What could be wrong?"
        else:
            ask = f"Problem {title}: {_statement_excerpt(problem)}"
        if person.style == "agent":
            ask = f"[agent] task: solve {title}. " + ("Previous result: " + feedback if feedback else "Read statement.")
        session.append(("user", ask, t))
        lang = FENCE[att.language]
        if att.tier == "anchored":
            reply = f"Here is a {LANGUAGE_LABELS[att.language]} solution:\n\n```{lang}\n{att.code.rstrip(chr(10))}\n```"
        else:
            reply = (
                f"Think about the constraints of {att.problem_id} first. A sketch:\n\n```{lang}\n"
                f"{_sketch(att)}\n```\nAdapt it to your code."
            )
        session.append(("assistant", reply, t + timedelta(seconds=40)))
        if person.student_no and rng.random() < 0.04:
            session.append(("user", f"(note to self: submit as {person.name}, id {person.student_no})", t))
        previous_verdict[att.problem_id] = RESULT_STRINGS[att.result.verdict] if att.result else ""
    return [s for s in sessions if s]


def render_log(session: list[tuple[str, str, datetime]], fmt: str, index: int) -> str:
    if fmt == "md":
        parts = [f"# Chat session {index}\n"]
        for role, text, _ in session:
            parts.append(f"**{'You' if role == 'user' else 'Assistant'}:**\n\n{text}\n")
        return "\n".join(parts)
    if fmt == "txt":
        parts = [f"=== conversation export {index} ==="]
        for role, text, t in session:
            parts.append(f"[{t.strftime('%H:%M')}] {role.upper()}:\n{text}\n")
        return "\n".join(parts)
    parts = [
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Chat {index}</title>'
        "<style>.user{background:#eef}</style></head><body>"
    ]
    for role, text, _ in session:
        chunks = text.split("```")
        rendered = []
        for i, chunk in enumerate(chunks):
            if i % 2 == 1:
                lang, _, body = chunk.partition("\n")
                rendered.append(f'<pre><code class="language-{lang}">{html.escape(body.rstrip(chr(10)))}</code></pre>')
            elif chunk.strip():
                rendered.append(f"<p>{html.escape(chunk.strip())}</p>")
        parts.append(f'<div class="message {role}"><div class="role">{role}</div>{"".join(rendered)}</div>')
    parts.append("</body></html>\n")
    return "\n".join(parts)


# ----------------------------------------------------------------------------------------------
# the whole run


def judge_pools(judge: ContestJudge, problems: dict[str, ProblemPackage], pools: dict[str, list[PoolProgram]]) -> None:
    items = [(problems[p.problem_id], p.language, p.code) for pid in sorted(pools) for p in pools[pid]]
    results = judge.judge_many(items)
    flat = [p for pid in sorted(pools) for p in pools[pid]]
    for prog, result in zip(flat, results):
        prog.verdict = result.verdict


def generate(out: Path, *, seed: int = SEED, judge: ContestJudge | None = None, log=print) -> dict:
    """Write the corpus under ``out`` (which holds ``problems/``); return its counts."""
    out = Path(out)
    problems = read_problems(out / "problems")
    if not problems:
        raise SystemExit(f"{out / 'problems'}: no problem packages found")
    if judge is None:
        from cojudge_assets.judges.local import default_contest_judge

        judge = default_contest_judge()
    rng = random.Random(seed)
    pools = load_pools(problems)
    log(f"judging the pools of {len(problems)} problems ({sum(map(len, pools.values()))} programs)")
    judge_pools(judge, problems, pools)
    people = make_participants(rng)
    trajectories = plan_trajectories(rng, people, pools, sorted(problems))
    assign_tiers(rng, trajectories)
    assign_times(rng, trajectories)
    assign_files(rng, trajectories)
    attempts = [a for t in trajectories for a in t.attempts]
    log(f"judging {len(attempts)} attempts")
    results = judge.judge_many([(problems[a.problem_id], a.language, a.code) for a in attempts])
    for att, result in zip(attempts, results):
        att.result = result
    for sub in ("pages", "logs"):
        for old in sorted((out / sub).rglob("*"), reverse=True) if (out / sub).exists() else []:
            old.unlink() if old.is_file() else old.rmdir()
    for att in attempts:
        path = out / att.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_page(att, problems[att.problem_id]), encoding="utf-8")
    log_rng = random.Random(seed + 1)
    for person in people:
        mine = [t for t in trajectories if t.participant.uid == person.uid]
        for k, session in enumerate(chat_turns(log_rng, person, mine, problems), start=1):
            path = out / "logs" / person.uid / f"session-{k}.{person.log_format}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render_log(session, person.log_format, k), encoding="utf-8")
    contest = {
        "name": CONTEST_NAME,
        "simulated": True,
        "window": {"start": _clock(CONTEST_START), "end": _clock(CONTEST_END)},
        "problems": {pid: problems[pid].name for pid in sorted(problems)},
        "result_strings": {v.value: s for v, s in RESULT_STRINGS.items()},
        "seed": seed,
    }
    (out / "contest.yaml").write_text(yaml.safe_dump(contest, sort_keys=False), encoding="utf-8")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
            "page",
            "participant",
            "problem_id",
            "turn",
            "language",
            "submitted_at",
            "verdict",
            "intent",
            "log_tier",
            "first_failure",
            "code_sha256",
        ]
    )
    for att in sorted(attempts, key=lambda a: a.path):
        failure = att.judged.first_failure
        writer.writerow(
            [
                att.path,
                att.participant.uid,
                att.problem_id,
                att.turn,
                att.language,
                _clock(att.submitted),
                att.judged.verdict.value,
                att.intent,
                att.tier,
                failure.test if failure else "",
                hashlib.sha256(att.code.encode()).hexdigest(),
            ]
        )
    (out / "judge_log.csv").write_text(buffer.getvalue(), encoding="utf-8")
    counts = corpus_counts(attempts)
    log(f"corpus written to {out}: {counts}")
    return counts


def corpus_counts(attempts: list[Attempt]) -> dict:
    trajectories: dict[tuple[str, str], int] = {}
    for a in attempts:
        trajectories[(a.participant.uid, a.problem_id)] = trajectories.get((a.participant.uid, a.problem_id), 0) + 1
    verdicts: dict[str, int] = {}
    for a in attempts:
        verdicts[a.judged.verdict.value] = verdicts.get(a.judged.verdict.value, 0) + 1
    return {
        "participants": len({a.participant.uid for a in attempts}),
        "trajectories": len(trajectories),
        "attempts": len(attempts),
        "multi_attempt_trajectories": sum(1 for n in trajectories.values() if n > 1),
        "longest_trajectory": max(trajectories.values()),
        "verdicts": dict(sorted(verdicts.items())),
        "distinct_accepted_c_cpp_java": len(
            {a.code for a in attempts if a.judged.verdict == Verdict.AC and a.language in ("c", "cpp", "java")}
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("data/demo"), help="corpus folder holding problems/")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="cache folder (default: the one settings.py resolves, ~/.cache/cojudge)",
    )
    args = parser.parse_args(argv)
    generate(
        args.out,
        seed=args.seed,
        judge=ContestJudge(args.cache / "compile", build_dir=args.cache) if args.cache else None,
        log=lambda m: print(m, file=sys.stderr),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
