"""Submit clocks in UTC: an offset or zone name is applied, a time without zone is read in contest.yaml's
``timezone`` (else kept as it reads), and a time that cannot be placed is quarantined as ambiguous, never shifted.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import polars as pl
import pytest

from cojudge_tests.faults.test_damaged_corpus import GOOD, base_corpus, ingest, md_page, other, page

P = "pages/u02/pairsum-01.html"


def contest(corpus: Path, zone: str | None, start="2026-03-14 13:45:00", end="2026-03-14 17:45:00") -> None:
    lines = [f"window:\n  start: '{start}'\n  end: '{end}'\n"]
    if zone is not None:
        lines.append(f"timezone: '{zone}'\n")
    (corpus / "contest.yaml").write_text("".join(lines))


def submitted(tables, path: str) -> datetime:
    row = tables.attempts.filter(pl.col("source_path") == path)
    assert row.height == 1, tables.quarantine.to_dicts()
    return row["submitted_at"].item()


def quarantined(tables, path: str) -> dict:
    rows = tables.quarantine.filter(pl.col("source_path") == path)
    assert rows.height == 1, (tables.attempts["source_path"].to_list(), tables.quarantine.to_dicts())
    return rows.row(0, named=True)


@pytest.mark.parametrize(
    "value",
    [
        "2026-03-14 23:03:22 +09:00",
        "2026-03-14T23:03:22+0900",
        "2026-03-14 23:03:22 UTC+9",
        "2026-03-14 23:03:22 Asia/Tokyo",
    ],
)
def test_a_tokyo_submit_is_stored_as_its_utc_instant(tmp_path, value):
    corpus = base_corpus(tmp_path)
    contest(corpus, "UTC")
    page(corpus, P, other("tokyo", submit=value))
    _, _, tables = ingest(corpus)
    assert submitted(tables, P) == datetime(2026, 3, 14, 14, 3, 22)  # 23:03:22 in Tokyo
    assert submitted(tables, GOOD) == datetime(2026, 3, 14, 14, 3, 22)  # the page without zone, in UTC as declared


def test_markdown_submit_with_a_negative_offset(tmp_path):
    corpus = base_corpus(tmp_path)
    contest(corpus, "UTC")
    rel = "pages/u02/pairsum-02.md"
    page(corpus, rel, md_page().replace("2026-03-14 14:20:00", "2026-03-14 09:20:00.500-05:00"))
    _, _, tables = ingest(corpus)
    assert submitted(tables, rel) == datetime(2026, 3, 14, 14, 20, 0)


def test_a_time_without_zone_is_read_in_the_contest_zone(tmp_path):
    corpus = base_corpus(tmp_path)
    contest(corpus, "Asia/Tokyo", start="2026-03-14 22:45:00", end="2026-03-15 02:45:00")  # the window in Tokyo
    page(corpus, GOOD, other("good in tokyo", submit="2026-03-14 23:03:22"))
    page(corpus, P, other("also tokyo", submit="2026-03-15 00:10:00"))
    _, _, tables = ingest(corpus)
    assert submitted(tables, GOOD) == datetime(2026, 3, 14, 14, 3, 22)
    assert submitted(tables, P) == datetime(2026, 3, 14, 15, 10, 0)


def test_without_a_declared_zone_a_time_without_zone_beside_zoned_ones_is_ambiguous(tmp_path):
    corpus = base_corpus(tmp_path)
    contest(corpus, None)
    page(corpus, P, other("tokyo", submit="2026-03-14 23:03:22 +09:00"))
    _, _, tables = ingest(corpus)
    assert submitted(tables, P) == datetime(2026, 3, 14, 14, 3, 22)
    row = quarantined(tables, GOOD)  # 14:03:22 without zone: UTC, or Tokyo like its neighbour? Never guessed
    assert (row["stage"], row["field"]) == ("ambiguous", "Submit") and "cannot be placed" in row["reason"]


def test_a_corpus_without_any_zone_is_read_as_before(tmp_path):
    corpus = base_corpus(tmp_path)
    page(corpus, P, other("plain", submit="2026-03-14 15:00:00"))
    _, _, tables = ingest(corpus)
    assert submitted(tables, GOOD) == datetime(2026, 3, 14, 14, 3, 22)
    assert submitted(tables, P) == datetime(2026, 3, 14, 15, 0, 0)


@pytest.mark.parametrize(
    ("zone", "value", "says"),
    [
        ("UTC", "2026-03-14 23:03:22 JST", "abbreviation"),
        ("UTC", "2026-03-14 14:03:22 +15:00", "not a UTC offset"),
        ("UTC", "2026-03-14 14:03:22 Mars/Olympus", "not a known time zone"),
        ("UTC", "2026-03-14 02:03:22 PM", "12-hour clock"),
        ("Europe/Berlin", "2026-03-29 02:30:00", "skipped or repeated"),  # the DST gap: 02:30 never happened
        ("Europe/Berlin", "2026-10-25 02:30:00", "skipped or repeated"),  # the DST fold: 02:30 happened twice
    ],
)
def test_a_time_that_cannot_be_placed_is_ambiguous(tmp_path, zone, value, says):
    corpus = base_corpus(tmp_path)
    contest(corpus, zone, start="2026-01-01 00:00:00", end="2026-12-31 00:00:00")
    page(corpus, P, other("unplaceable", submit=value))
    _, _, tables = ingest(corpus)
    row = quarantined(tables, P)
    assert (row["stage"], row["field"]) == ("ambiguous", "Submit") and says in row["reason"], row


def test_an_unknown_contest_zone_is_named(tmp_path):
    from cojudge_assets.core.ingest.corpus import contest_settings

    corpus = base_corpus(tmp_path)
    contest(corpus, "Tokyo Time")
    with pytest.raises(ValueError, match="contest.yaml: timezone 'Tokyo Time'"):
        contest_settings(corpus)


def test_progsnap2_server_timezone_is_applied(tmp_path):
    from cojudge_assets.core.ingest.progsnap2 import read_progsnap2

    folder = tmp_path / "progsnap2"
    (folder / "CodeStates").mkdir(parents=True)
    (folder / "MainTable.csv").write_text(
        "EventType,EventID,Order,SubjectID,ProblemID,CodeStateID,ServerTimestamp,ServerTimezone,Correct\n"
        "Submit,e1,1,s1,p1,c1,2024-01-01T19:00:00,+0900,true\n"
        "Submit,e2,2,s1,p1,c1,2024-01-01T10:30:00+00:00,,false\n"
        "Submit,e3,3,s1,p1,c1,2024-01-01T05:00:00,-5,true\n"
        "Submit,e4,4,s1,p1,c1,2024-01-01T05:00:00,EST,true\n"
    )
    (folder / "CodeStates" / "CodeStates.csv").write_text("CodeStateID,Code\nc1,print(1)\n")
    attempts, quarantine, _ = read_progsnap2(tmp_path)
    times = dict(zip(attempts["submission_id"], attempts["submitted_at"]))
    assert times == {
        "e1": datetime(2024, 1, 1, 10, 0),
        "e2": datetime(2024, 1, 1, 10, 30),
        "e3": datetime(2024, 1, 1, 10, 0),
    }
    row = quarantine.row(0, named=True)
    assert (row["source_path"], row["stage"], row["field"]) == (
        "progsnap2/MainTable.csv#e4",
        "ambiguous",
        "ServerTimestamp",
    )
