"""The source watch (defs/operations/sensors.py): an edit of the corpus or of the judges file is observed at the
sensor's next tick, not at the next tick of the observation cron (issue 37: an edit waited up to 5 minutes, with
nothing in the UI)."""

from __future__ import annotations

import os

import dagster as dg

from cojudge_assets.definitions import build_definitions
from cojudge_assets.defs.automation import OBSERVE_JOB
from cojudge_assets.defs.operations.sensors import WATCH_SENSOR, stat_fingerprint
from cojudge_assets.defs.resources import CorpusResource, JudgesResource
from cojudge_tests.judges.fixtures import write_synthetic_progsnap2


def _tick(sensor: dg.SensorDefinition, cursor: str | None, corpus, judges):
    context = dg.build_sensor_context(
        cursor=cursor,
        resources={
            "corpus": CorpusResource(path=str(corpus), layout="progsnap2"),
            "judges": JudgesResource(path=str(judges)),
        },
    )
    return sensor.evaluate_tick(context)


def test_an_edit_of_a_source_is_observed_at_the_next_tick(tmp_path):
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 6)
    judges = tmp_path / "judges.yaml"
    judges.write_text("judges:\n  - name: rubric\n    model: cojudge/static-rubric\n")
    defs = build_definitions(corpus=corpus, layout="progsnap2", database=tmp_path / "c.duckdb", judges_path=judges)
    sensor = defs.resolve_sensor_def(WATCH_SENSOR)
    assert sensor.default_status == dg.DefaultSensorStatus.RUNNING

    first = _tick(sensor, None, corpus, judges)  # never seen: observed once
    assert [r.job_name for r in first.run_requests] == [OBSERVE_JOB]
    quiet = _tick(sensor, first.cursor, corpus, judges)
    assert quiet.run_requests == [] and "no file changed" in (quiet.skip_message or "")

    table = corpus / "progsnap2" / "MainTable.csv"
    table.write_text(table.read_text().replace(",false,", ",true,", 1))  # a verdict fixed: the same size
    edited = _tick(sensor, quiet.cursor or first.cursor, corpus, judges)
    assert [r.job_name for r in edited.run_requests] == [OBSERVE_JOB]
    assert edited.cursor != first.cursor

    judges.write_text(judges.read_text() + "    max_tokens: 99\n")
    again = _tick(sensor, edited.cursor, corpus, judges)
    assert [r.job_name for r in again.run_requests] == [OBSERVE_JOB]


def test_the_fingerprint_moves_with_a_touch_and_names_a_missing_path(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text("x")
    before = stat_fingerprint([folder])
    os.utime(folder / "a.txt", ns=(1, 1))  # same bytes, another modification time
    assert stat_fingerprint([folder]) != before
    assert stat_fingerprint([tmp_path / "absent"]) != stat_fingerprint([folder])
