"""Imported judgments (cojudge judgments, version 1): files written by hand, read, validated and mapped."""

from __future__ import annotations

import doctest
import hashlib
import json
import random
from pathlib import Path

import polars as pl
import pytest
from pydantic import ValidationError

from cojudge_assets.core.judging import imported
from cojudge_assets.core.judging.imported import (
    ANSWER_COLUMNS,
    JUDGMENT_COLUMNS,
    REJECT_COLUMNS,
    ImportedSource,
    ImportFormatError,
    Scale,
    answers,
    file_sha256,
    load_imported,
    read_judgments,
)

ZERO_FOUR = Scale(min=0, max=4, integer=True)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def one(tmp_path: Path, csv_text: str, scale: Scale = ZERO_FOUR, known: set[str] | None = None):
    """Answers and rejects of a CSV file written by hand (all its rows, one judge)."""
    frame, read_rejects = read_judgments(write(tmp_path, "j.csv", csv_text), default_judge="j")
    assert read_rejects.is_empty()
    return answers(frame, scale, known)


# ------------------------------------------------------------------------------------------------ formats


ROWS = [  # item, judge, condition, score, raw_answer, s_algo, rationale
    ("u1", "a", "blind", None, "3", 4, "fine"),
    ("u2", "a", "nonblind", 1.0, None, None, None),
    ("u3", "a", None, None, "Score: 3", 2, "prose"),
    ("u1", "b", "prefix12k", 4.0, "4", 5, "with, a comma"),
    ("u4", "b", "blind", 7.0, None, None, None),
]
COLUMNS = ["item", "judge", "condition", "score", "raw_answer", "s_algo", "rationale"]


def write_csv(tmp_path: Path) -> Path:
    def cell(value):
        if value is None:
            return ""
        text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        return f'"{text}"' if "," in text else text

    lines = [",".join(COLUMNS)] + [",".join(cell(v) for v in row) for row in ROWS]
    return write(tmp_path, "j.csv", "\n".join(lines) + "\n")


def write_jsonl(tmp_path: Path) -> Path:
    lines = [json.dumps({k: v for k, v in zip(COLUMNS, row) if v is not None}) for row in ROWS]
    return write(tmp_path, "j.jsonl", "\n".join(lines) + "\n")


def write_parquet(tmp_path: Path) -> Path:
    path = tmp_path / "j.parquet"
    pl.DataFrame(
        ROWS,
        schema={
            "item": pl.String,
            "judge": pl.String,
            "condition": pl.String,
            "score": pl.Float64,
            "raw_answer": pl.String,
            "s_algo": pl.Int64,
            "rationale": pl.String,
        },
        orient="row",
    ).write_parquet(path)
    return path


@pytest.mark.parametrize("writer", [write_jsonl, write_parquet])
def test_csv_jsonl_and_parquet_give_the_same_answers(tmp_path, writer):
    via_csv = answers(read_judgments(write_csv(tmp_path))[0], ZERO_FOUR)[0]
    other, read_rejects = read_judgments(writer(tmp_path))
    via_other = answers(other, ZERO_FOUR)[0]
    assert read_rejects.is_empty() and len(via_csv) == len(ROWS)
    same = ["attempt_uid", "condition", "status", "p_accept", "s_algo", "rationale", "raw_response"]
    assert via_other.select(same).equals(via_csv.select(same))
    assert via_csv["status"].to_list() == ["ok", "ok", "invalid", "ok", "invalid"]
    assert via_csv["p_accept"].to_list() == [0.75, 0.25, None, 1.0, None]
    assert via_csv["condition"][2] == "blind"  # empty condition: the default
    assert via_csv["source_line"].to_list() == [2, 3, 4, 5, 6]  # CSV: the header is line 1
    assert via_other["source_line"].to_list() == [1, 2, 3, 4, 5]  # JSONL lines, Parquet rows, from 1
    assert via_csv.schema == pl.Schema(ANSWER_COLUMNS)


def test_frames_have_the_declared_schemas(tmp_path):
    frame, read_rejects = read_judgments(write_jsonl(tmp_path))
    assert frame.schema == pl.Schema(JUDGMENT_COLUMNS)
    assert read_rejects.schema == pl.Schema(REJECT_COLUMNS)
    assert answers(frame, ZERO_FOUR)[1].schema == pl.Schema(REJECT_COLUMNS)
    assert frame["source_file"].unique().to_list() == [str(tmp_path / "j.jsonl")]


# ------------------------------------------------------------------------------------------------ scores


def test_raw_three_on_an_integer_zero_to_four_scale_is_three_quarters(tmp_path):
    out, rejects = one(tmp_path, "item,raw_answer\nu1,3\nu2, 3.0 \nu3,0\n")
    assert out["p_accept"].to_list() == [0.75, 0.75, 0.0]
    assert out["status"].to_list() == ["ok"] * 3 and out["error"].to_list() == [""] * 3
    assert out["raw_response"].to_list() == ["3", " 3.0 ", "0"]  # the text as the file had it
    assert rejects.is_empty()


def test_a_probability_on_the_unit_scale_is_kept_as_it_is(tmp_path):
    out, _ = one(tmp_path, "item,score\nu1,0.83\nu2,0\nu3,1\n", Scale(min=0, max=1))
    assert out["p_accept"].to_list() == [0.83, 0.0, 1.0]
    assert out["raw_response"].to_list() == ["0.83", "0", "1"]  # the score as text when no raw answer


def test_the_score_column_wins_over_the_raw_answer(tmp_path):
    out, _ = one(tmp_path, "item,score,raw_answer\nu1,2,I'd say 2 of 4\nu2,,1\n")
    assert out["p_accept"].to_list() == [0.5, 0.25]
    assert out["raw_response"][0] == "I'd say 2 of 4"


@pytest.mark.parametrize("text", ["Score: 3", "three", "3/4", "3 or 4", "1,5", "", "3 3"])
def test_a_raw_answer_that_is_not_one_number_is_kept_invalid_never_guessed(tmp_path, text):
    out, rejects = one(tmp_path, f'item,raw_answer\nu1,"{text}"\n')
    assert rejects.is_empty() and out["status"].to_list() == ["invalid"] and out["p_accept"][0] is None
    shown = text
    assert out["error"][0] == (
        f"{tmp_path / 'j.csv'}:2: field 'raw_answer': '{shown}' is not a number (expected "
        "exactly one number on the declared integer scale 0..4, nothing else in the text)"
    )


def test_no_score_and_no_raw_answer_is_invalid(tmp_path):
    out, _ = one(tmp_path, "item,score,raw_answer\nu1,,\n")
    assert out["status"][0] == "invalid" and "field 'score': empty, and no raw_answer" in out["error"][0]


def test_a_score_outside_the_declared_scale_is_invalid_and_named(tmp_path):
    out, rejects = one(tmp_path, "item,score\nu1,7\nu2,-1\nu3,nan\nu4,inf\n")
    assert rejects.is_empty() and out["status"].to_list() == ["invalid"] * 4
    path = tmp_path / "j.csv"
    assert out["error"].to_list() == [
        f"{path}:2: field 'score': 7 is outside the declared integer scale 0..4",
        f"{path}:3: field 'score': -1 is outside the declared integer scale 0..4",
        f"{path}:4: field 'score': NaN is not a finite number on the declared integer scale 0..4",
        f"{path}:5: field 'score': inf is not a finite number on the declared integer scale 0..4",
    ]


def test_a_fraction_is_invalid_only_on_an_integer_scale(tmp_path):
    out, _ = one(tmp_path, "item,raw_answer\nu1,2.5\n")
    assert out["status"][0] == "invalid"
    assert out["error"][0].endswith("field 'raw_answer': 2.5 is not an integer on the declared integer scale 0..4")
    out, _ = one(tmp_path, "item,raw_answer\nu1,2.5\n", Scale(min=0, max=4))
    assert (out["status"][0], out["p_accept"][0]) == ("ok", 0.625)


def test_scale_to_p_and_its_refusals():
    assert Scale(min=1, max=5).to_p(2) == 0.25
    assert Scale(min=-1, max=1).to_p(0) == 0.5
    with pytest.raises(ValueError, match="7 is outside the declared integer scale 0..4"):
        ZERO_FOUR.to_p(7)
    with pytest.raises(ValueError, match="2.5 is not an integer"):
        ZERO_FOUR.to_p(2.5)
    with pytest.raises(ValueError, match="not a finite number"):
        Scale(min=0, max=1).to_p(float("nan"))
    with pytest.raises(ValidationError, match="max must be greater than min"):
        Scale(min=4, max=4)


# ------------------------------------------------------------------------------------------------ rejects


def test_an_unknown_item_is_rejected_naming_file_line_and_field(tmp_path):
    out, rejects = one(tmp_path, "item,raw_answer\nu1,3\nghost,2\n", known={"u1", "u2"})
    assert out["attempt_uid"].to_list() == ["u1"]
    row = rejects.row(0, named=True)
    path = str(tmp_path / "j.csv")
    assert (row["source_file"], row["source_line"], row["field"], row["judge"]) == (path, 3, "item", "j")
    assert row["reason"] == f"{path}:3: field 'item': unknown item key 'ghost' (not an attempt_uid of the corpus)"


def test_a_duplicate_is_rejected_naming_the_first_line(tmp_path):
    text = "item,condition,raw_answer\nu1,blind,3\nu1,nonblind,2\nu2,,1\nu1,,4\nu1,blind,0\n"
    out, rejects = one(tmp_path, text)
    assert out["source_line"].to_list() == [2, 3, 4]  # the first of each item x condition enters
    assert out["p_accept"].to_list() == [0.75, 0.5, 0.25]
    assert rejects["source_line"].to_list() == [5, 6]
    assert all("field 'item': duplicate of line 2" in reason for reason in rejects["reason"])


def test_an_unknown_condition_is_rejected(tmp_path):
    out, rejects = one(tmp_path, "item,condition,raw_answer\nu1,Blind,3\nu2, prefix12k ,3\n")
    assert out["attempt_uid"].to_list() == ["u2"] and out["condition"].to_list() == ["prefix12k"]
    assert rejects["field"].to_list() == ["condition"]
    assert "'Blind' is not a condition (expected one of blind, prefix12k, nonblind)" in rejects["reason"][0]


def test_an_empty_item_key_is_rejected(tmp_path):
    out, rejects = one(tmp_path, 'item,raw_answer\n"  ",3\n,2\nu1,1\n')
    assert out["attempt_uid"].to_list() == ["u1"]
    assert rejects["source_line"].to_list() == [2, 3] and set(rejects["field"]) == {"item"}
    assert all(reason.endswith("field 'item': empty item key") for reason in rejects["reason"])


def test_rubric_scores_must_be_integers_in_one_to_five(tmp_path):
    path = write(
        tmp_path, "j.csv", "item,raw_answer,s_algo,s_robust\nu1,3,4,5\nu2,3,0,3\nu3,3,3,6\nu4,3,3.5,2\nu5,3,3.0,\n"
    )
    frame, read_rejects = read_judgments(path, default_judge="j")
    assert read_rejects["source_line"].to_list() == [5]  # 3.5 cannot be an Int32 rubric score
    assert read_rejects["reason"][0] == f"{path}:5: field 's_algo': 3.5 is not an integer in 1..5"
    out, rejects = answers(frame, ZERO_FOUR)
    assert out["attempt_uid"].to_list() == ["u1", "u5"] and out["s_algo"].to_list() == [4, 3]
    assert out["s_robust"].to_list() == [5, None]
    assert rejects["field"].to_list() == ["s_algo", "s_robust"]
    assert "field 's_robust': 6 is outside 1..5" in rejects["reason"][1]


def test_nothing_is_silently_dropped(tmp_path):
    """Every data row of a messy file ends in the judgments or the read rejects, and every judgment in the
    answers or the answer rejects: a seeded mix of every kind of row, in JSONL (bad lines included)."""
    rng = random.Random(14)
    kinds = [
        "ok",
        "prose",
        "outside",
        "fraction",
        "ghost",
        "duplicate",
        "condition",
        "rubric",
        "empty",
        "badline",
        "rubric-fraction",
    ]
    lines, expected_read_rejects = [], 0
    for i in range(400):
        kind = rng.choice(kinds)
        record = {"item": f"u{i % 150}", "condition": rng.choice(["blind", "nonblind"]), "raw_answer": "2"}
        record |= {
            "prose": {"raw_answer": "about 2"},
            "outside": {"raw_answer": "9"},
            "fraction": {"raw_answer": "1.5"},
            "ghost": {"item": "ghost"},
            "duplicate": {"item": "u0"},
            "condition": {"condition": "sighted"},
            "rubric": {"s_algo": 0},
            "empty": {"item": ""},
            "rubric-fraction": {"s_robust": 2.5},
        }.get(kind, {})
        if kind in ("badline", "rubric-fraction"):
            expected_read_rejects += 1
        lines.append("{not json" if kind == "badline" else json.dumps(record))
        if rng.random() < 0.1:
            lines.append("")  # blank lines hold no row
    path = write(tmp_path, "mixed.jsonl", "\n".join(lines) + "\n")
    frame, read_rejects = read_judgments(path, default_judge="j")
    rows = sum(1 for line in lines if line)
    assert len(frame) + len(read_rejects) == rows and len(read_rejects) == expected_read_rejects
    out, rejects = answers(frame, ZERO_FOUR, {f"u{i}" for i in range(150)})
    assert len(frame) == len(out) + len(rejects)
    assert len(out) > 0 and len(rejects) > 0 and set(out["status"]) == {"ok", "invalid"}
    lines_seen = pl.concat([out["source_line"], rejects["source_line"], read_rejects["source_line"]])
    assert lines_seen.n_unique() == rows  # each row accounted for exactly once
    assert out.select("attempt_uid", "condition").is_duplicated().sum() == 0
    result = load_imported(
        ImportedSource(path="mixed.jsonl", scale=ZERO_FOUR),
        judge_name="j",
        known_items={f"u{i}" for i in range(150)},
        base_dir=tmp_path,
    )
    assert result.rows == rows == len(result.answers) + len(result.rejects)


# ------------------------------------------------------------------------------------------------ judges


JUDGES_CSV = "item,judge,raw_answer\nu1,a,1\nu1,b,2\nu2, a ,3\nu2,,4\n"  # cells' spaces around a judge do not count


def test_the_judge_filter_takes_one_judges_rows(tmp_path):
    path = write(tmp_path, "j.csv", JUDGES_CSV)
    frame, read_rejects = read_judgments(path, judge="a")
    assert frame["item"].to_list() == ["u1", "u2"] and set(frame["judge"]) == {"a"}
    assert read_rejects["source_line"].to_list() == [5] and read_rejects["field"][0] == "judge"
    every, _ = read_judgments(path)
    assert every["judge"].to_list() == ["a", "b", "a"]
    out, rejects = answers(every, ZERO_FOUR)
    assert rejects.is_empty() and len(out) == 3  # u1 of a and u1 of b are not duplicates
    with pytest.raises(ImportFormatError, match=r"column 'judge': no row of judge 'c'; the file holds 'a', 'b'"):
        read_judgments(path, judge="c")


def test_a_file_without_judge_column_belongs_to_the_default_judge(tmp_path):
    path = write(tmp_path, "j.csv", "item,raw_answer\nu1,1\nu2,2\n")
    assert read_judgments(path, default_judge="team-x")[0]["judge"].to_list() == ["team-x", "team-x"]
    assert read_judgments(path, judge="team-x")[0]["judge"].to_list() == ["team-x", "team-x"]
    assert read_judgments(path, judge="other", default_judge="team-x")[0]["judge"].unique().to_list() == ["team-x"]


# ------------------------------------------------------------------------------------------------ whole-file errors


def test_a_missing_item_column_names_the_file_and_the_column(tmp_path):
    path = write(tmp_path, "j.csv", "attempt,raw_answer\nu1,3\n")
    with pytest.raises(ImportFormatError, match="column 'item' is missing") as caught:
        read_judgments(path)
    assert str(caught.value).startswith(f"{path}: ") and "columns found: attempt, raw_answer" in str(caught.value)


@pytest.mark.parametrize("name, text", [("j.csv", "item,verdict\nu1,3\n"), ("j.jsonl", '{"item": "u1"}\n')])
def test_neither_score_nor_raw_answer_is_a_file_error(tmp_path, name, text):
    with pytest.raises(ImportFormatError, match="neither a 'score' nor a 'raw_answer' column"):
        read_judgments(write(tmp_path, name, text))


@pytest.mark.parametrize("name", ["j.txt", "j.xlsx", "j.json", "j"])
def test_an_unknown_extension_is_refused_naming_the_accepted_ones(tmp_path, name):
    path = write(tmp_path, name, "item,score\nu1,3\n")
    with pytest.raises(ImportFormatError, match=r"unknown extension .*\.csv, \.jsonl, \.ndjson, \.parquet") as caught:
        read_judgments(path)
    assert str(path) in str(caught.value)


def test_missing_and_empty_files_are_errors_but_a_header_alone_is_zero_rows(tmp_path):
    with pytest.raises(ImportFormatError, match="judgments file not found"):
        read_judgments(tmp_path / "absent.csv")
    with pytest.raises(ImportFormatError, match="the file is empty"):
        read_judgments(write(tmp_path, "empty.csv", ""))
    frame, rejects = read_judgments(write(tmp_path, "header.csv", "item,score\n"))
    assert frame.is_empty() and rejects.is_empty() and frame.schema == pl.Schema(JUDGMENT_COLUMNS)
    with pytest.raises(ImportFormatError, match="column 'item' is missing"):
        read_judgments(write(tmp_path, "header2.csv", "score\n"))


def test_a_cell_that_is_not_of_its_column_type_names_the_column_and_line(tmp_path):
    with pytest.raises(ImportFormatError, match=r"column 'score': line 3: 'high' is not a number \(1 such cells\)"):
        read_judgments(write(tmp_path, "j.csv", "item,score\nu1,3\nu2,high\n"))
    with pytest.raises(ImportFormatError, match=r"column 's_algo': line 2: '\[4\]' is not a number"):
        read_judgments(write(tmp_path, "j.csv", "item,score,s_algo\nu1,3,[4]\n"))
    with pytest.raises(ImportFormatError, match=r"column 'score': line 2: \[3\] is a JSON list, expected a number"):
        read_judgments(write(tmp_path, "j.jsonl", '{"item": "u1", "score": 1}\n{"item": "u2", "score": [3]}\n'))
    path = tmp_path / "j.parquet"
    pl.DataFrame({"item": ["u1"], "score": [[3.0]]}).write_parquet(path)
    with pytest.raises(ImportFormatError, match=r"column 'score' is of type List\(Float64\), expected a number"):
        read_judgments(path)


def test_garbled_files_are_errors_naming_the_line(tmp_path):
    with pytest.raises(ImportFormatError, match="not a readable CSV: line 3: 3 fields, the header has 2"):
        read_judgments(write(tmp_path, "j.csv", "item,score\nu1,3\nu2,3,4\n"))
    bad = tmp_path / "latin.csv"
    bad.write_bytes("item,raw_answer\nu1,3\nu2,trés\n".encode("latin-1"))
    with pytest.raises(ImportFormatError, match=r"line 3: not UTF-8 \(byte 0xe9\)"):
        read_judgments(bad)
    bad_jsonl = tmp_path / "latin.jsonl"
    bad_jsonl.write_bytes('{"item": "u1", "score": 1}\n{"item": "é", "score": 1}\n'.encode("latin-1"))
    with pytest.raises(ImportFormatError, match=r"latin.jsonl: line 2: not UTF-8 \(byte 0xe9\)"):
        read_judgments(bad_jsonl)
    bad_header = tmp_path / "header.csv"
    bad_header.write_bytes("item,scoré\nu1,3\n".encode("latin-1"))
    with pytest.raises(ImportFormatError, match=r"header.csv: line 1: not UTF-8"):
        read_judgments(bad_header)
    utf16 = tmp_path / "utf16.csv"
    utf16.write_bytes("item,score\nu1,3\n".encode("utf-16"))
    with pytest.raises(ImportFormatError, match="UTF-16"):
        read_judgments(utf16)
    with pytest.raises(ImportFormatError, match="not a readable Parquet file"):
        read_judgments(write(tmp_path, "j.parquet", "item,score\n"))
    with pytest.raises(ImportFormatError, match="column 'score' appears more than once"):
        read_judgments(write(tmp_path, "twice.csv", "item,score,score\nu1,1,2\n"))


def test_a_malformed_jsonl_line_is_a_reject_with_its_line(tmp_path):
    path = write(
        tmp_path,
        "j.ndjson",
        '{"item": "u1", "score": 3}\n\n{"item": "u2", score: 3}\n[1, 2]\n'
        '{"item": "u3", "raw_answer": 4, "extra": {"x": 1}}\n',
    )
    frame, rejects = read_judgments(path, default_judge="j")
    assert frame["source_line"].to_list() == [1, 5] and frame["raw_answer"].to_list() == [None, "4"]
    assert rejects["source_line"].to_list() == [3, 4] and set(rejects["field"]) == {"(line)"}
    assert rejects["reason"][0].startswith(f"{path}:3: not a JSON object: Expecting property name")
    assert rejects["reason"][1] == f"{path}:4: expected a JSON object, got list"


# ------------------------------------------------------------------------------------------------ CSV details


def test_csv_bom_extra_columns_blank_lines_and_quoted_line_breaks(tmp_path):
    text = (
        "\ufeffitem,raw_answer,rationale,notes\n"
        'u1,3,"first line\nsecond line\nthird",x\n'
        "\n"
        "u2,1,plain,y\r\n"
        'u3,"2","a ""quoted"" word",\n'
    )
    path = write(tmp_path, "j.csv", text)
    frame, rejects = read_judgments(path, default_judge="j")
    assert rejects.is_empty() and frame["item"].to_list() == ["u1", "u2", "u3"]  # BOM: 'item' still found
    assert frame["source_line"].to_list() == [2, 6, 7]  # u1 spans lines 2-4, line 5 is blank
    assert frame["rationale"].to_list() == ["first line\nsecond line\nthird", "plain", 'a "quoted" word']
    assert "notes" not in frame.columns
    trailing = write(tmp_path, "trailing.csv", "item,raw_answer,,\nu1,3,,\n")  # a spreadsheet's empty columns
    assert read_judgments(trailing)[0]["raw_answer"].to_list() == ["3"]


def test_a_semicolon_separated_file_gets_a_hint(tmp_path):
    with pytest.raises(ImportFormatError, match="separated by ';' or tabs"):
        read_judgments(write(tmp_path, "j.csv", "item;score\nu1;3\n"))


def test_version_two_is_refused():
    with pytest.raises(
        ValidationError, match="version 2 is not known: this cojudge reads cojudge judgments version 1 only"
    ):
        ImportedSource(path="x.csv", version=2, scale={"min": 0, "max": 4})
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        ImportedSource(path="x.csv", scale={"min": 0, "max": 4}, sclae={"min": 0})
    source = ImportedSource.model_validate({"path": "runs/x.csv", "scale": {"min": 0, "max": 4, "integer": True}})
    assert source.version == 1 and source.scale == ZERO_FOUR and source.judge is None
    assert source.resolve("/data") == Path("/data/runs/x.csv")


def test_load_imported_reads_the_declared_file_with_its_hash(tmp_path):
    (tmp_path / "imported").mkdir()
    path = write(tmp_path, "imported/team.csv", JUDGES_CSV)
    result = load_imported(
        ImportedSource(path="imported/team.csv", judge="b", scale=ZERO_FOUR),
        judge_name="team-b",
        known_items={"u1", "u2"},
        base_dir=tmp_path,
    )
    assert result.path == path and result.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert result.sha256 == file_sha256(path)
    assert result.answers["p_accept"].to_list() == [0.5]
    assert result.rejects["field"].to_list() == ["judge"]  # the row with no judge is reported to every judge
    assert result.rows == 2


def test_readme_example(tmp_path):
    """The example of the module docstring, as written there."""
    lines = imported.__doc__.split("Example (``data/imported/team-x.csv``)::")[1].split("declared in")[0]
    text = "\n".join(line.strip() for line in lines.strip().splitlines()) + "\n"
    out, rejects = one(tmp_path, text)
    assert rejects.is_empty()
    assert out["p_accept"].to_list() == [0.75, 1.0, None, 0.0]
    assert "field 'raw_answer': 'Score: 1' is not a number" in out["error"][2]


def test_doctests():
    assert doctest.testmod(imported).failed == 0


def test_answers_take_an_adapters_frame_and_check_its_columns():
    """An adapter's frame (no file behind it, no judge) goes through the same checks."""
    frame = pl.DataFrame(
        {"item": ["u1", "u1", "u2"], "score": [4.0, 1.0, 2.0], "source_line": [7, 9, 8]},
        schema_overrides={"source_line": pl.Int64},
    )
    frame = frame.with_columns(
        pl.lit(None, dtype).alias(name) for name, dtype in JUDGMENT_COLUMNS.items() if name not in frame.columns
    )
    out, rejects = answers(frame, Scale(min=0, max=4))
    assert out["attempt_uid"].to_list() == ["u1", "u2"] and out["p_accept"].to_list() == [1.0, 0.5]
    assert out["condition"].to_list() == ["blind", "blind"]  # null condition: the default
    assert rejects["reason"].to_list() == [
        "(imported):9: field 'item': duplicate of line 7 (same item, judge and condition)"
    ]
    with pytest.raises(ValueError, match="lacks column.*s_algo"):
        answers(frame.drop("s_algo"), ZERO_FOUR)


def test_jsonl_numbers_are_read_as_text_where_text_is_expected(tmp_path):
    path = write(
        tmp_path,
        "j.jsonl",
        '{"item": 17, "raw_answer": 3, "s_algo": 4.0}\n{"item": "u2", "raw_answer": 0.1, "condition": null}\n',
    )
    frame, _ = read_judgments(path, default_judge="j")
    assert frame["item"].to_list() == ["17", "u2"] and frame["raw_answer"].to_list() == ["3", "0.1"]
    assert frame["s_algo"].to_list() == [4, None]
    with pytest.raises(ImportFormatError, match=r"column 'raw_answer': line 1: true is a JSON bool"):
        read_judgments(write(tmp_path, "b.jsonl", '{"item": "u1", "raw_answer": true}\n'))


# ------------------------------------------------------------------------------------- a Parquet partition's rows


def mixed_parquet(tmp_path: Path) -> Path:
    """Two judges x three conditions (blank cells, spaces), an empty judge cell, rubric scores that are not integers
    under other conditions than blind, a duplicate: every rule whose rows a partition's scan might leave out."""
    rows = [
        ("u1", "a", "blind", 1.0, 3.0),
        ("u1", "a", " nonblind ", 2.0, None),
        ("u1", "a", "", 3.0, None),  # blind again: a duplicate of line 1
        ("u2", " a ", None, 4.0, None),
        ("u2", "a", "prefix12k", 0.0, 2.5),  # a rubric reject, reported under blind
        ("u2", "a", "nonblind", 9.0, None),  # off the scale: invalid
        ("u1", "b", "nonblind", 1.0, None),
        ("u3", "", "blind", 1.0, None),  # no judge: a reject every judge reports under blind
        ("u3", "a", "prefix12k", 2.0, None),
    ]
    path = tmp_path / "mixed.parquet"
    pl.DataFrame(rows, schema=["item", "judge", "condition", "score", "s_algo"], orient="row").write_parquet(path)
    return path


@pytest.mark.parametrize("judge", ["a", "b"])
@pytest.mark.parametrize("condition", ["blind", "nonblind", "prefix12k"])
def test_a_parquet_partition_reads_the_rows_the_whole_read_gives_it(tmp_path, judge, condition):
    path = mixed_parquet(tmp_path)
    whole, whole_rejects = read_judgments(path, judge=judge)
    part, part_rejects = read_judgments(path, judge=judge, condition=condition)
    assert part.equals(whole.filter(pl.col("condition") == condition))
    if condition == "blind":  # where the read rejects are reported: all of them
        assert part_rejects.equals(whole_rejects)
    # and so the answers, duplicates and invalid ones included
    known = {"u1", "u2", "u3"}
    expected = answers(whole.filter(pl.col("condition") == condition), ZERO_FOUR, known)
    got = answers(part, ZERO_FOUR, known)
    assert got[0].equals(expected[0]) and got[1].equals(expected[1])


def test_the_conditions_of_a_parquet_judge_from_two_columns(tmp_path):
    path = mixed_parquet(tmp_path)
    assert imported.judgment_conditions(path, judge="a") == {"blind", "nonblind", "prefix12k"}
    assert imported.judgment_conditions(path, judge="b") == {"nonblind"}
    assert imported.judgment_conditions(path) == {"blind", "nonblind", "prefix12k"}
    with pytest.raises(ImportFormatError, match=r"no row of judge 'c'; the file holds 'a', 'b'"):
        imported.judgment_conditions(path, judge="c")
    with pytest.raises(ImportFormatError, match=r"no row of judge 'c'; the file holds 'a', 'b'"):
        read_judgments(path, judge="c", condition="nonblind")
    csv = write(tmp_path, "j.csv", JUDGES_CSV)  # another format: read whole, the same answer
    assert imported.judgment_conditions(csv, judge="a") == {"blind"}


def test_a_csv_read_by_condition_gives_that_conditions_judgments(tmp_path):
    path = write(tmp_path, "j.csv", "item,condition,raw_answer\nu1,,1\nu2,nonblind,2\nu3, blind ,3\n")
    assert read_judgments(path, condition="blind")[0]["item"].to_list() == ["u1", "u3"]
    assert read_judgments(path, condition="nonblind")[0]["item"].to_list() == ["u2"]
