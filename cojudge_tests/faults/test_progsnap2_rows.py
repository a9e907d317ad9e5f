"""A ProgSnap2 main table read row by row: a line the CSV reader cannot parse is quarantined with its line number
and every other row is ingested; a missing required column is a refusal (exit 2) naming the file and column."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from cojudge_assets.core.ingest.corpus import raw_input_count
from cojudge_assets.core.ingest.progsnap2 import ProgSnap2Error, read_progsnap2
from cojudge_tests.faults.test_cli_faults import env, existing_db, run_cli  # noqa: F401 (fixtures)

HEADER = "EventType,EventID,Order,SubjectID,ProblemID,CodeStateID,ServerTimestamp,Correct,Verdict,Language\n"
ROWS = 40


def row(i: int) -> str:
    return f"Submit,e{i},{i},s{i % 3},p1,c{i % 2},2024-01-01T10:{i:02d}:00,{str(i % 2 == 0).lower()},,Python\n"


def corpus(root: Path, lines: list[str], header: str = HEADER) -> Path:
    folder = root / "progsnap2"
    (folder / "CodeStates").mkdir(parents=True)
    (folder / "MainTable.csv").write_text(header + "".join(lines))
    pl.DataFrame({"CodeStateID": ["c0", "c1"], "Code": ["print(0)\n", "print(1)\n"]}).write_csv(
        folder / "CodeStates" / "CodeStates.csv"
    )
    return root


def good_lines() -> list[str]:
    return [row(i) for i in range(1, ROWS + 1)]


def check_one_broken(root: Path, broken_event: int, line: int) -> None:
    attempts, quarantine, raw = read_progsnap2(root)
    kept = {f"e{i}" for i in range(1, ROWS + 1)} - {f"e{broken_event}"}
    assert set(attempts["submission_id"]) == kept  # every other row
    assert quarantine.height == 1, quarantine.to_dicts()
    q = quarantine.row(0, named=True)
    assert q["source_path"] == f"progsnap2/MainTable.csv:{line}" and (q["stage"], q["field"]) == ("csv", "row")
    assert f"line {line}" in q["reason"] and "other rows were read" in q["reason"]
    assert raw == raw_input_count(root, "progsnap2") == attempts.height + quarantine.height  # reconciled


def test_an_unterminated_quote_loses_only_its_row(tmp_path):
    lines = good_lines()
    lines[19] = lines[19].replace(",s", ',"s', 1)  # row e20, file line 21: a quote that never closes
    check_one_broken(corpus(tmp_path, lines), 20, 21)


def test_a_quote_closed_rows_later_loses_only_its_row(tmp_path):
    lines = good_lines()
    lines[9] = lines[9].replace(",s", ',"s', 1)  # row e10 opens a quote...
    lines[15] = lines[15].replace(",,Python", ',"Wrong Answer",Python')  # ...that row e16's quoted field closes
    check_one_broken(corpus(tmp_path, lines), 10, 11)
    attempts, _, _ = read_progsnap2(tmp_path)
    assert attempts.filter(pl.col("submission_id") == "e16")["verdict"].item() == "WA"  # read as itself


def test_a_row_with_too_many_fields_loses_only_its_row(tmp_path):
    lines = good_lines()
    lines[29] = lines[29].rstrip("\n") + ",surplus,fields\n"
    check_one_broken(corpus(tmp_path, lines), 30, 31)


def test_a_missing_required_column_is_named(tmp_path):
    header = HEADER.replace("SubjectID,", "")
    lines = [line.replace(f",s{i % 3},", ",", 1) for i, line in enumerate(good_lines(), start=1)]
    root = corpus(tmp_path, lines, header)
    with pytest.raises(ProgSnap2Error, match="MainTable.csv: no column 'SubjectID'"):
        read_progsnap2(root)


def test_the_command_refuses_a_missing_column_with_exit_2(tmp_path, env, existing_db):  # noqa: F811
    header = HEADER.replace("SubjectID,", "")
    lines = [line.replace(f",s{i % 3},", ",", 1) for i, line in enumerate(good_lines(), start=1)]
    root = corpus(tmp_path / "ps2", lines, header)
    done = run_cli(env, "--corpus", str(root), "--layout", "progsnap2", "--duckdb", str(existing_db))
    assert done.returncode == 2, (done.stdout[-2000:], done.stderr[-2000:])
    lines_out = done.stderr.strip().splitlines()
    assert len(lines_out) == 1 and str(root / "progsnap2" / "MainTable.csv") in lines_out[0], lines_out
    assert "'SubjectID'" in lines_out[0] and "success" not in done.stdout


def test_the_ingest_step_refuses_it_too(tmp_path):
    """A run launched from the Dagster UI (no preflight): the step fails as a refusal, nothing replaced."""
    import dagster as dg

    from cojudge_assets.defs.ingest.assets import read_contest
    from cojudge_assets.defs.resources import REFUSED, CorpusResource

    header = HEADER.replace("SubjectID,", "")
    lines = [line.replace(f",s{i % 3},", ",", 1) for i, line in enumerate(good_lines(), start=1)]
    root = corpus(tmp_path, lines, header)
    problems = pl.DataFrame({"problem_id": ["p1"], "name": ["P1"]})
    with pytest.raises(dg.Failure) as caught:
        list(read_contest(CorpusResource(path=str(root), layout="progsnap2"), problems, pl.DataFrame()))
    assert caught.value.metadata[REFUSED].value is True and "'SubjectID'" in caught.value.description


def test_reading_in_batches_of_two_gives_the_tables_of_one_batch(tmp_path, monkeypatch):
    """The reader holds BATCH_ROWS rows as Python values at a time (a million at once held 1.8 GB): batches that
    split the table, a broken line, a row without a label and one without code give the very same attempts,
    turns and quarantine as one batch."""
    from cojudge_assets.core.ingest import progsnap2

    lines = good_lines()
    lines[9] = lines[9].replace(",s", ',"s', 1)  # a quote closed rows later (row e16)
    lines[15] = lines[15].replace(",,Python", ',"Wrong Answer",Python')
    lines[4] = lines[4].replace(",true,", ",,").replace(",false,", ",,")  # e5: no label
    lines[6] = lines[6].replace(",c1,", ",c9,").replace(",c0,", ",c9,")  # e7: a code state with no code
    lines.append("Submit,e99,99,s0,p1,c1,2024-01-01T11:00:00,maybe,,Python\n")  # no usable label
    root = corpus(tmp_path, lines)
    whole = read_progsnap2(root)
    monkeypatch.setattr(progsnap2, "BATCH_ROWS", 2)
    batched = read_progsnap2(root)
    assert whole[0].height == ROWS - 3 and whole[1].height == 4  # e10 broken; e5, e7, e99 quarantined
    assert sorted(whole[1]["stage"]) == ["code", "csv", "label", "label"]
    assert batched[0].equals(whole[0]) and batched[1].equals(whole[1]) and batched[2] == whole[2]


def test_a_code_state_given_twice_is_read_as_its_last_code(tmp_path):
    """CodeStates.csv naming one CodeStateID twice: its last code (as a dict built from the rows would keep)."""
    root = corpus(tmp_path, good_lines())
    pl.DataFrame({"CodeStateID": ["c0", "c1", "c0"], "Code": ["old\n", "print(1)\n", "print(0)\n"]}).write_csv(
        root / "progsnap2" / "CodeStates" / "CodeStates.csv"
    )
    attempts, quarantine, _ = read_progsnap2(root)
    assert quarantine.is_empty() and attempts.height == ROWS
    assert set(attempts.filter(pl.col("submission_id") == "e2")["code"]) == {"print(0)\n"}


@pytest.mark.parametrize("block", [1, 2, 3, 5, 1 << 22])
def test_lines_are_the_physical_lines_of_the_whole_text(monkeypatch, block):
    """The main table's lines are held as one text and their starts (a list of 10^6 line strings held ~0.2 GB),
    split in blocks: every block size gives str.splitlines(keepends=True) of the whole text, \\r\\n, a lone \\r,
    Unicode line breaks, blank lines and a last line without its end included."""
    from cojudge_assets.core.ingest.progsnap2 import Lines

    monkeypatch.setattr(Lines, "BLOCK", block)
    for text in ["", "a", "a\n", "a\r\nb\rc\n\nd\u2028e\x85f\x0cg", "\r\n\r\n", "x\ry\r\n\n\r", "é,ü\r\nß\n" * 4]:
        lines = Lines(text)
        assert [lines[i] for i in range(len(lines))] == text.splitlines(keepends=True), (text, block)
        with pytest.raises(IndexError):
            lines[len(lines)]
