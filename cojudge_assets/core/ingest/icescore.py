"""The ICE-Score release (Zhuo, EACL 2024 Findings) read as it is published: the corpus layout ``icescore``.

Layout (github.com/terryyz/ice-score, unmodified):

* ``data/humaneval/humaneval_<lang>_grade.json``: a list of problems, each a dict with ``intent`` (the
  HumanEval-X prompt), ``snippet`` (a list holding the reference solution), ``simplified`` (a one-sentence
  summary), ``task_id``, and per generation ``"<id>"`` (the code) and ``"grade-<id>": {"execution": 0|1}``
  (pass/fail under the HumanEval-X tests). The release also merged the judges' values into this file
  (``bleu-<id>``, ``gpt35_nsnr-<id>``, ...); they are NOT read here: judges come from their own files.
* ``experiment_source/original_output/humaneval/<lang>/<lang>_humaneval_<metric>.json``: one file per
  judge and language, a list aligned by position with the grade file; per problem ``"grade-<id>"`` (the
  execution label again, plus ``raw_output`` = GPT-3.5's answer as text for the GPT files) and
  ``"<metric>-<id>"`` = a number, or a dict {P, R, F1, F3} for CodeBERTScore.

Every language that has a grade file is read (python and java here; cpp and js have the same layout).

Judges (names are language-independent and partition-key safe):

* ``bleu``, ``chrf``, ``codebleu``, ``meteor``, ``rouge-l``, ``ruby``: similarity to the reference, in [0, 1];
* ``codebertscore-f1``, ``codebertscore-f3`` (file ``..._codebertscore``: candidate vs reference) and
  ``codebertscore-intent-f1``, ``codebertscore-intent-f3`` (file ``..._codebertscore_intent``: scored
  with the intent as source). These are the four variants compute_results.ipynb publishes:
  ``codebertscore_f1/_f3`` (w/o S.) and ``codebertscore_s_f1/_s_f3`` (w/ S.), whose values in the grade
  file are the F1/F3 fields of these two files. P and R are not published and not imported;
* ``gpt-3.5-noref`` / ``gpt-3.5-ref`` (files ``..._no_step_no_ref_gpt35`` / ``..._no_step_with_ref_gpt35``):
  gpt-3.5-turbo asked for functional correctness 0-4 without / with the reference solution
  (experiment_source/humaneval_gpt_eval.py). A ``with_step`` file (0-shot CoT, CoNaLa only) would become
  ``gpt-3.5-cot-noref`` / ``gpt-3.5-cot-ref``.

Quirks, handled as a careful user would (every skip is a quarantine row naming file, field and reason):

* file names: a leading underscore (``_cpp_humaneval_no_step_with_ref_gpt35.json`` next to
  ``cpp_humaneval_no_step_with_ref_gpt35.json``) marks another run for the same judge and language. The
  file that follows the pattern is used and the other is reported; alone, the deviating file is used. (The
  release's C++ grade file, from which the published numbers were computed, holds the answers of the
  file that follows the pattern, not those of the underscored run.) Files that name no known metric, or
  a language without a grade file, are reported and not read;
* GPT answers are text: the raw text is kept (``raw_answer``, score null); the importer parses strictly
  (``strict_answer``), so "Score: 3" or "3 - The code ..." stays an invalid answer, never a guess. (The
  release's grade file, which compute_results.ipynb reads, holds 0 for every such answer instead; see
  cojudge_tests/core/test_icescore.py for what that changes.);
* CodeBERTScore values are dicts: F1 and F3 are taken by field name;
* alignment: a judge file's problem i must hold only generation ids of grade problem i, with the same
  execution labels. A mismatching label quarantines that judgment; a problem holding unknown ids
  quarantines that problem's judgments; a generation without an entry is reported as unanswered;
* the one empty generation (java task 150, id 42: ``""``, execution 0) is kept as an attempt: the study
  scored it (every similarity is 0 there; the intent CodeBERTScore is the script's failure value 0);
* 40 similarities exceed 1 by float rounding (by at most 6e-7, on code identical to the reference): kept
  as published (clipping them would add ties and move tau); a scale check needs a tolerance of 1e-6.

``source_line`` of a judgment is the 1-based index of its problem in its file; the generation id is the
last part of ``item`` (the attempt_uid ``humaneval/<lang>/<task_id>/<id>``), so ``grade-<id>`` /
``<metric>-<id>`` at that index locates it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from cojudge_assets.core.constants import BLIND
from cojudge_assets.core.execution.contest_judge.languages import normalize_language
from cojudge_assets.core.ingest.attempts import ATTEMPT_SCHEMA, QUARANTINE_SCHEMA
from cojudge_assets.core.ingest.problems import PROBLEM_SCHEMA
from cojudge_assets.core.judging.imported import JUDGMENT_COLUMNS

if TYPE_CHECKING:
    from polars._typing import PolarsDataType  # the dtype alias polars' own signatures use

LAYOUT = "icescore"
GRADE_DIR = Path("data") / "humaneval"
JUDGE_DIR = Path("experiment_source") / "original_output" / "humaneval"
CONDITION = BLIND
GPT_MODEL = "gpt-3.5-turbo"  # experiment_source/humaneval_gpt_eval.py, model="gpt-3.5-turbo", temperature 0

ICESCORE_PROBLEM_SCHEMA: dict[str, PolarsDataType] = {
    **PROBLEM_SCHEMA,
    "language": pl.String,
    "reference_solution": pl.String,
    "summary": pl.String,
}

_GRADE_FILE = re.compile(r"humaneval_(?P<lang>[A-Za-z0-9+#]+)_grade\.json")
_JUDGE_FILE = re.compile(r"(?P<stray>_*)(?P<lang>[A-Za-z0-9+#]+)_humaneval_(?P<metric>[A-Za-z0-9_]+)\.json")
_SIMILARITY = {
    "bleu": ("bleu", "BLEU"),
    "chrf": ("chrf", "chrF"),
    "codebleu": ("codebleu", "CodeBLEU"),
    "meteor": ("meteor", "METEOR"),
    "rougel": ("rouge-l", "ROUGE-L"),
    "ruby": ("ruby", "RUBY"),
}
_GPT = re.compile(r"(?P<step>no|with)_step_(?P<ref>no|with)_ref_gpt35")


@dataclass(frozen=True)
class JudgeSpec:
    """How one judge is read from one kind of file."""

    judge: str
    key: str  # prefix of the per-generation key: "<key>-<id>", or "grade" for GPT answers
    field: str | None  # "F1"/"F3" inside a CodeBERTScore dict, "raw_output" for GPT, None for a number
    model: str
    scale: tuple[float, float, bool]


def judge_specs(metric: str) -> list[JudgeSpec]:
    """The judges a ``<lang>_humaneval_<metric>.json`` file holds (empty when the metric is unknown)."""
    if metric in _SIMILARITY:
        name, label = _SIMILARITY[metric]
        return [JudgeSpec(name, metric, None, label, (0.0, 1.0, False))]
    if metric in ("codebertscore", "codebertscore_intent"):
        suffix, label = ("-intent", " (with intent)") if metric.endswith("_intent") else ("", "")
        return [
            JudgeSpec(
                f"codebertscore{suffix}-{f.lower()}", "codebertscore", f, f"CodeBERTScore {f}{label}", (0.0, 1.0, False)
            )
            for f in ("F1", "F3")
        ]
    match = _GPT.fullmatch(metric)
    if match:
        cot = "-cot" if match["step"] == "with" else ""
        ref = "-ref" if match["ref"] == "with" else "-noref"
        return [JudgeSpec(f"gpt-3.5{cot}{ref}", "grade", "raw_output", GPT_MODEL, (0.0, 4.0, True))]
    return []


def strict_answer(raw: str | None, scale: tuple[float, float, bool]) -> float | None:
    """The answer as a number on ``scale`` when the text is exactly one number there (whitespace aside), else None.

    >>> strict_answer(" 3\\n", (0, 4, True)), strict_answer("Score: 3", (0, 4, True)), strict_answer("5", (0, 4, True))
    (3.0, None, None)
    """
    lo, hi, integer = scale
    text = (raw or "").strip()
    if not re.fullmatch(r"[+-]?\d+" if integer else r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", text):
        return None
    value = float(text)
    return value if lo <= value <= hi else None


@dataclass
class IceScoreCorpus:
    problems: pl.DataFrame  # ICESCORE_PROBLEM_SCHEMA: PROBLEM_SCHEMA + language, reference_solution, summary
    attempts: pl.DataFrame  # ATTEMPT_SCHEMA
    quarantine: pl.DataFrame  # QUARANTINE_SCHEMA: grade-file skips (stage attempt) and judge-file skips
    judgments: pl.DataFrame  # JUDGMENT_COLUMNS, one row per item x judge, condition "blind"
    scales: dict[str, tuple[float, float, bool]]
    raw_files: int  # generations seen in the grade files


@dataclass
class _Discovery:
    grade_files: dict[str, Path]  # language -> grade file
    judge_files: dict[tuple[str, str], Path]  # (language, metric) -> the file used
    skipped: list[dict]  # quarantine rows for files not read


def _discover(root: Path) -> _Discovery:
    grade_files = {}
    for path in sorted((root / GRADE_DIR).glob("*.json")) if (root / GRADE_DIR).is_dir() else []:
        match = _GRADE_FILE.fullmatch(path.name)
        if match:
            grade_files[match["lang"]] = path
    candidates: dict[tuple[str, str], list[tuple[bool, Path]]] = {}
    skipped = []
    folder = root / JUDGE_DIR
    for path in sorted(folder.rglob("*.json")) if folder.is_dir() else []:
        rel = path.relative_to(root).as_posix()
        match = _JUDGE_FILE.fullmatch(path.name)
        if match is None or path.parent.parent != folder:
            skipped.append(
                _skip(
                    rel,
                    "discover",
                    None,
                    f"{rel}: not a judge file (expected {JUDGE_DIR.as_posix()}/<lang>/<lang>_humaneval_<metric>.json)",
                )
            )
            continue
        lang, metric = match["lang"], match["metric"]
        if lang != path.parent.name:
            skipped.append(
                _skip(rel, "discover", None, f"{rel}: names language {lang!r} inside folder {path.parent.name!r}")
            )
        elif not judge_specs(metric):
            skipped.append(
                _skip(
                    rel,
                    "discover",
                    None,
                    f"{rel}: metric {metric!r} is not one this layout "
                    f"knows (expected bleu, chrf, codebleu, meteor, rougel, ruby, codebertscore, "
                    f"codebertscore_intent or (no|with)_step_(no|with)_ref_gpt35)",
                )
            )
        elif lang not in grade_files:
            skipped.append(
                _skip(
                    rel,
                    "discover",
                    None,
                    f"{rel}: no grade file "
                    f"{(GRADE_DIR / f'humaneval_{lang}_grade.json').as_posix()} for language {lang!r}",
                )
            )
        else:
            candidates.setdefault((lang, metric), []).append((bool(match["stray"]), path))
    judge_files = {}
    for key, found in candidates.items():
        found.sort(key=lambda c: (c[0], c[1].name))  # the file that follows the pattern first
        judge_files[key] = found[0][1]
        for _, other in found[1:]:
            rel = other.relative_to(root).as_posix()
            skipped.append(
                _skip(
                    rel,
                    "discover",
                    None,
                    f"{rel}: another file for the same judge and language; "
                    f"{found[0][1].relative_to(root).as_posix()} is used (it follows the release's "
                    f"name pattern)",
                )
            )
    return _Discovery(grade_files, judge_files, skipped)


def _skip(source: str, stage: str, field: str | None, reason: str) -> dict:
    return {"source_path": source, "stage": stage, "field": field, "reason": reason}


def icescore_judge_files(root: Path) -> dict[str, list[Path]]:
    """Judge -> the files it is read from (every language), from file names only."""
    files: dict[str, list[Path]] = {}
    for (_, metric), path in sorted(_discover(Path(root)).judge_files.items()):
        for spec in judge_specs(metric):
            files.setdefault(spec.judge, []).append(path)
    return {judge: sorted(paths) for judge, paths in sorted(files.items())}


def icescore_judges(root: Path) -> list[str]:
    """The judge names of a release, from file names only (cheap: nothing is parsed)."""
    return list(icescore_judge_files(root))


def _load_list(path: Path, root: Path) -> list:
    rel = path.relative_to(root).as_posix()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{rel}: not readable as JSON ({type(exc).__name__}: {exc})") from exc
    if not isinstance(data, list):
        raise ValueError(f"{rel}: top level is {type(data).__name__} (expected a list of problems)")
    return data


def _generation_ids(entry: dict) -> list[str]:
    return [key for key in entry if key.isdigit()]


@dataclass
class _GradeProblem:
    task_id: str
    labels: dict[str, int]  # generation id -> execution, for generations that became attempts


def _read_grades(
    root: Path, lang: str, path: Path, problems: list, attempts: list, quarantine: list
) -> tuple[list[_GradeProblem | None], int]:
    """Problems and attempts of one grade file; returns per position the problem (None if skipped)."""
    rel = path.relative_to(root).as_posix()
    try:
        language = normalize_language(lang)
    except ValueError:
        language = lang.lower()
    grades: list[_GradeProblem | None] = []
    seen_tasks: set[str] = set()
    generations = 0
    for index, entry in enumerate(_load_list(path, root), start=1):
        source = f"{rel}#{index}"
        if not isinstance(entry, dict):
            quarantine.append(
                _skip(source, "attempt", None, f"{source}: problem is {type(entry).__name__} (expected a dict)")
            )
            grades.append(None)
            continue
        ids = _generation_ids(entry)
        generations += len(ids)
        task_id, intent = entry.get("task_id"), entry.get("intent")
        problem_error = None
        if not isinstance(task_id, str | int) or str(task_id) == "":
            problem_error = ("task_id", f"{source}: no task_id")
        elif str(task_id) in seen_tasks:
            problem_error = ("task_id", f"{source}: task_id {task_id!r} repeats an earlier problem")
        elif not isinstance(intent, str) or not intent.strip():
            problem_error = ("intent", f"{source}: no intent (the problem statement)")
        if problem_error:
            for gid in ids:
                quarantine.append(
                    _skip(
                        f"{source}/{gid}", "attempt", problem_error[0], f"{problem_error[1]}; generation {gid} skipped"
                    )
                )
            grades.append(None)
            continue
        task_id = str(task_id)
        seen_tasks.add(task_id)
        problem_id = f"humaneval-{lang}-{task_id}"
        snippets = entry.get("snippet")
        reference = snippets[0] if isinstance(snippets, list) and snippets else snippets
        problems.append(
            {
                "problem_id": problem_id,
                "name": f"HumanEval/{task_id} ({lang})",
                "statement": intent,
                "time_limit_s": None,
                "memory_mb": None,
                "limits_stated": False,
                "sample_inputs": [],
                "sample_outputs": [],
                "n_secret_tests": 0,
                "tests_location": None,
                "language": language,
                "reference_solution": reference if isinstance(reference, str) else None,
                "summary": entry.get("simplified") if isinstance(entry.get("simplified"), str) else None,
            }
        )
        labels = {}
        for gid in ids:
            where = f"{rel}#{task_id}/{gid}"
            code, grade = entry[gid], entry.get(f"grade-{gid}")
            execution = grade.get("execution") if isinstance(grade, dict) else None
            if not isinstance(code, str):
                quarantine.append(
                    _skip(where, "attempt", gid, f"{where}: code is {type(code).__name__} (expected a string)")
                )
            elif execution not in (0, 1) or isinstance(execution, bool):
                quarantine.append(
                    _skip(
                        where,
                        "attempt",
                        f"grade-{gid}.execution",
                        f"{where}: execution label {execution!r} (expected 0 or 1)",
                    )
                )
            else:
                labels[gid] = execution
                attempts.append(
                    {
                        "attempt_uid": f"humaneval/{lang}/{task_id}/{gid}",
                        "source_path": where,
                        "participant": None,
                        "problem_id": problem_id,
                        "turn": 1,
                        "submitted_at": None,
                        "page_saved_at": None,
                        "file_order": None,
                        "submission_id": gid,
                        "language": language,
                        "language_label": lang,
                        "code": code,
                        "code_sha256": hashlib.sha256(code.encode()).hexdigest(),
                        "result": f"execution={execution}",
                        "verdict": "AC" if execution == 1 else "REJ",
                        "accepted": execution == 1,
                        "page_format": LAYOUT,
                    }
                )
        for key in entry:
            if key.startswith("grade-") and key[6:] not in entry:
                quarantine.append(
                    _skip(
                        f"{rel}#{task_id}/{key[6:]}", "attempt", key, f"{rel}#{task_id}: {key} has no code {key[6:]!r}"
                    )
                )
                generations += 1
        grades.append(_GradeProblem(task_id, labels))
    return grades, generations


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _read_judge_file(
    root: Path,
    lang: str,
    path: Path,
    specs: list[JudgeSpec],
    grades: list[_GradeProblem | None],
    rows: list,
    quarantine: list,
) -> None:
    rel = path.relative_to(root).as_posix()
    entries = _load_list(path, root)
    names = "/".join(s.judge for s in specs)
    if len(entries) > len(grades):
        quarantine.append(
            _skip(
                rel,
                "align",
                None,
                f"{rel}: {len(entries)} problems, the grade file "
                f"{len(grades)}: the {len(entries) - len(grades)} extra are not read ({names})",
            )
        )
    for index, grade in enumerate(grades, start=1):
        if grade is None:
            continue
        where = f"{rel}#{index}"
        entry = entries[index - 1] if index <= len(entries) else None
        if not isinstance(entry, dict):
            reason = "beyond the end of the file" if entry is None else f"a {type(entry).__name__}, not a dict"
            quarantine.append(
                _skip(
                    where,
                    "judgment",
                    None,
                    f"{where}: problem {grade.task_id} is {reason}: "
                    f"its {len(grade.labels)} generations have no answer from {names}",
                )
            )
            continue
        ids = {key.split("-", 1)[1] for key in entry if key.startswith(("grade-", f"{specs[0].key}-"))}
        unknown = sorted(ids - set(grade.labels), key=int) if all(i.isdigit() for i in ids) else sorted(ids)
        if unknown:
            quarantine.append(
                _skip(
                    where,
                    "align",
                    None,
                    f"{where}: generation ids {unknown[:5]} are not "
                    f"generations of grade problem {index} (task {grade.task_id}): the file is "
                    f"not aligned there; its {len(ids)} judgments are not used ({names})",
                )
            )
            continue
        for gid, label in grade.labels.items():
            item = f"humaneval/{lang}/{grade.task_id}/{gid}"
            at = f"{where}/{gid}"
            if gid not in ids:
                quarantine.append(_skip(at, "judgment", None, f"{at}: no answer for {item} ({names})"))
                continue
            stated = entry.get(f"grade-{gid}")
            if not isinstance(stated, dict):
                stated = {}
            execution = stated.get("execution")
            if execution != label:
                quarantine.append(
                    _skip(
                        at,
                        "align",
                        f"grade-{gid}.execution",
                        f"{at}: execution {execution!r} differs from the grade file's {label} "
                        f"for {item}: judgment not used ({names})",
                    )
                )
                continue
            for spec in specs:
                row: dict = {
                    "item": item,
                    "judge": spec.judge,
                    "condition": CONDITION,
                    "raw_answer": None,
                    "score": None,
                    "s_algo": None,
                    "s_robust": None,
                    "rationale": None,
                    "model": spec.model,
                    "source_file": rel,
                    "source_line": index,
                }
                if spec.field == "raw_output":
                    raw = stated.get("raw_output")
                    if not isinstance(raw, str):
                        quarantine.append(
                            _skip(
                                at,
                                "judgment",
                                f"grade-{gid}.raw_output",
                                f"{at}: no raw_output (expected the answer as text) for {item} ({spec.judge})",
                            )
                        )
                        continue
                    row["raw_answer"] = raw
                else:
                    key = f"{spec.key}-{gid}"
                    value = entry.get(key)
                    if spec.field is not None:
                        value = value.get(spec.field) if isinstance(value, dict) else None
                        key = f"{key}.{spec.field}"
                    score = _number(value)
                    if score is None:
                        quarantine.append(
                            _skip(
                                at,
                                "judgment",
                                key,
                                f"{at}: {key} is {value!r} (expected a finite number) for {item} ({spec.judge})",
                            )
                        )
                        continue
                    row["score"] = score
                rows.append(row)


def _read_grade_files(root: Path, found: _Discovery):
    problems: list[dict] = []
    attempts: list[dict] = []
    quarantine: list[dict] = []
    grades, generations = {}, 0
    for lang, path in sorted(found.grade_files.items()):
        grades[lang], count = _read_grades(root, lang, path, problems, attempts, quarantine)
        generations += count
    return (
        pl.DataFrame(problems, schema=ICESCORE_PROBLEM_SCHEMA),
        pl.DataFrame(attempts, schema=ATTEMPT_SCHEMA),
        quarantine,
        grades,
        generations,
    )


def read_icescore_attempts(root: Path) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, int]:
    """(problems, attempts, quarantine, generations seen) from the grade files only (no judge file is read)."""
    root = Path(root)
    found = _discover(root)
    if not found.grade_files:
        raise ValueError(f"{root / GRADE_DIR}: no humaneval_<lang>_grade.json (expected the ICE-Score release)")
    problems, attempts, quarantine, _, generations = _read_grade_files(root, found)
    return problems, attempts, pl.DataFrame(quarantine, schema=QUARANTINE_SCHEMA), generations


def read_icescore(root: Path) -> IceScoreCorpus:
    """The whole release: problems, attempts, every judge's judgments, and what was skipped and why."""
    root = Path(root)
    found = _discover(root)
    if not found.grade_files:
        raise ValueError(f"{root / GRADE_DIR}: no humaneval_<lang>_grade.json (expected the ICE-Score release)")
    problems, attempts, quarantine, grades, generations = _read_grade_files(root, found)
    quarantine.extend(found.skipped)
    rows: list[dict] = []
    scales: dict[str, tuple[float, float, bool]] = {}
    judged: dict[str, set[str]] = {}
    for (lang, metric), path in sorted(found.judge_files.items()):
        specs = judge_specs(metric)
        for spec in specs:
            scales[spec.judge] = spec.scale
            judged.setdefault(spec.judge, set()).add(lang)
        _read_judge_file(root, lang, path, specs, grades[lang], rows, quarantine)
    for judge, langs in sorted(judged.items()):
        for lang in sorted(set(found.grade_files) - langs):
            items = sum(len(g.labels) for g in grades[lang] if g is not None)
            quarantine.append(
                _skip(
                    (root / JUDGE_DIR / lang).relative_to(root).as_posix(),
                    "discover",
                    None,
                    f"judge {judge} has no file for language {lang!r}: its {items} items are not judged by it",
                )
            )
    judgments = pl.DataFrame(rows, schema=JUDGMENT_COLUMNS).sort("judge", "item")
    return IceScoreCorpus(
        problems,
        attempts,
        pl.DataFrame(quarantine, schema=QUARANTINE_SCHEMA),
        judgments,
        dict(sorted(scales.items())),
        raw_files=generations,
    )


SIMILARITY_MAX = 1.000001  # 40 published similarities exceed 1 by float rounding (at most 6e-7)


def icescore_judge_scale(judge: str) -> tuple[float, float, bool]:
    """The declared native scale of a judge of the release, by its name: GPT-3.5 answers 0..4 integers; the
    similarity metrics are in [0, 1], declared as [0, SIMILARITY_MAX] so that the values the release rounded
    above 1 stay valid and keep their order (p = score / SIMILARITY_MAX moves no rank and no Pearson r)."""
    return (0.0, 4.0, True) if judge.startswith("gpt-3.5") else (0.0, SIMILARITY_MAX, False)


# The values the ICE-Score paper and its release publish for HumanEval (execution labels): example-level
# Kendall tau and Spearman rho (compute_results.ipynb). CodeBERTScore is published in four variants
# (F1/F3, without/with the intent as source: judges codebertscore-f1/-f3, codebertscore-intent-f1/-f3), not
# listed here.
PUBLISHED_HUMANEVAL = {
    "java": {
        "bleu": (0.337, 0.401),
        "codebleu": (0.355, 0.421),
        "chrf": (0.346, 0.413),
        "rouge-l": (0.327, 0.389),
        "meteor": (0.358, 0.425),
        "ruby": (0.340, 0.401),
        "gpt-3.5-noref": (0.427, 0.442),
        "gpt-3.5-ref": (0.388, 0.404),
    },
    "python": {
        "bleu": (0.251, 0.297),
        "codebleu": (0.272, 0.323),
        "chrf": (0.262, 0.312),
        "rouge-l": (0.240, 0.284),
        "meteor": (0.276, 0.327),
        "ruby": (0.216, 0.255),
        "gpt-3.5-noref": (0.279, 0.282),
        "gpt-3.5-ref": (0.318, 0.325),
    },
}


def published_values(root: Path, layout: str) -> pl.DataFrame | None:
    """The published example-level tau/rho (columns judge, subset = language, tau, rho) for a run on the
    ICE-Score release; None for any other corpus."""
    if layout != LAYOUT:
        return None
    return pl.DataFrame(
        [
            {"judge": judge, "subset": language, "tau": tau, "rho": rho}
            for language, values in PUBLISHED_HUMANEVAL.items()
            for judge, (tau, rho) in values.items()
        ]
    )
