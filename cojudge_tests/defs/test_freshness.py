"""What ``cojudge materialize`` re-runs is what Dagster's evaluator requests (defs/automation.py): a judges-file
change, a code change and a data fix each re-run exactly the partitions they touch, and a second run then says
"nothing changed" and sends nothing. (Provider drift: test_operations.py; the same changes under a daemon:
test_automation_daemon.py.)"""

from __future__ import annotations

import json

import dagster as dg
import pytest

from cojudge_assets.definitions import build_definitions
from cojudge_assets.defs.automation import CursorFile, evaluate, observe_sources
from cojudge_assets.defs.partitions import dims
from cojudge_assets.defs.versions import judge_version
from cojudge_assets.driver import resolve_selection, run_steps
from cojudge_tests.judges.fixtures import write_judges_file, write_synthetic_progsnap2
from cojudge_tests.judges.loopback import LoopbackServer

GOOD = json.dumps({"p_accept": 0.6, "s_algo": 3, "s_robust": 4, "rationale": "plausible"})
JOBS = ("ingest", "judge_requests_job", "judge_outputs_job")


@pytest.fixture()
def server(monkeypatch):
    monkeypatch.setenv("LOOPBACK_KEY", "sk-freshness-test")
    with LoopbackServer() as s:
        s.script = [("ok", GOOD)]
        yield s


def requested_now(defs: dg.Definitions, instance: dg.DagsterInstance, config: dict) -> set[tuple[str, str | None]]:
    """What Dagster's evaluator requests now, from the command's own cursor, in the command's selection (the three
    jobs, the blind condition); observing the sources first, as the command does. Evaluating changes nothing."""
    assert observe_sources(defs, instance, config).success
    selected = resolve_selection(defs, JOBS)
    partitions = {spec.key: spec.partitions_def for spec in defs.resolve_all_asset_specs()}

    def kept(key: dg.AssetKey, p: str | None) -> bool:
        return key in selected and dims(partitions[key], p).condition in (None, "blind")

    # what the command leaves out holds nothing downstream (defs/automation.py UpstreamSettled), as in run_steps
    found = evaluate(defs, instance, CursorFile(instance).load(), left_out=lambda key, p: not kept(key, p))
    return {
        (key.to_user_string(), None if p is None else str(p))
        for key, keys in found.partitions.items()
        for p in keys
        if kept(key, p)
    }


def rerun(defs, instance, config, server) -> tuple[set, int]:
    """Run the command's steps; check that it ran exactly what the evaluator requested round by round (the first
    round being what :func:`requested_now` said), and that a second run changes nothing and sends nothing.
    Returns what the first run materialized and the requests it sent."""
    first = requested_now(defs, instance, config)
    sent = len(server.requests)
    outcome = run_steps(defs, instance, config, conditions=["blind"], jobs=JOBS, echo=lambda line: None)
    assert outcome, outcome.line()
    assert outcome.rounds and outcome.rounds[0] == first
    assert outcome.materialized == set().union(*outcome.rounds)
    lines: list[str] = []
    again = run_steps(defs, instance, config, conditions=["blind"], jobs=JOBS, echo=lines.append)
    assert again.ran == 0 and again.rounds == [], lines
    assert lines[-1].endswith("up to date, skipped")
    assert again.line() == f"nothing changed: all {again.skipped} steps were up to date; 0 requests sent to judges"
    return outcome.materialized, len(server.requests) - sent


def start(tmp_path, monkeypatch, server, n=6, **judges_extra):
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "f.duckdb"))
    judges = write_judges_file(tmp_path / "judges.yaml", server.api_base, local=True, **judges_extra)
    monkeypatch.setenv("COJUDGE_JUDGES", str(judges))
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", n)
    config = {"resources": {"corpus": {"config": {"path": str(corpus), "layout": "progsnap2"}}}}
    instance = dg.DagsterInstance.ephemeral()
    outcome = run_steps(build_definitions(), instance, config, conditions=["blind"], jobs=JOBS, echo=lambda _: None)
    assert outcome and outcome.requests_sent == 2 * n  # two judges, under blind
    return instance, config, judges, corpus


def test_judge_version_moves_with_what_shapes_the_answers_only():
    settings = {"model": "openai/m", "temperature": 0.0}
    assert judge_version(settings) == judge_version(dict(settings))
    assert judge_version({**settings, "temperature": 0.5}) != judge_version(settings)
    assert judge_version(settings, drift_epoch=1) != judge_version(settings)


def test_a_judges_file_change_re_runs_that_judges_partitions_only(tmp_path, monkeypatch, server):
    instance, config, judges, _ = start(tmp_path, monkeypatch, server)
    assert requested_now(build_definitions(), instance, config) == set()
    # the judges file now gives the loopback judge another token budget: its partition alone is requested
    write_judges_file(judges, server.api_base, local=True, max_tokens=999)
    ran, sent = rerun(build_definitions(), instance, config, server)
    assert ran == {("judge_outputs", "blind|loop")}
    assert sent == 6  # the loop judge's 6 requests, once


def test_a_code_version_change_re_runs_that_asset_and_what_its_data_moves(tmp_path, monkeypatch, server):
    instance, config, _, _ = start(tmp_path, monkeypatch, server, n=4)
    # a fix of how attempts are read: a new code version of attempts (as test_operations' verdict fix does)
    from cojudge_assets.defs.ingest import assets as ingest_assets

    monkeypatch.setattr(
        ingest_assets,
        "read_contest",
        ingest_assets.read_contest.map_asset_specs(
            lambda spec: (
                spec.replace_attributes(code_version=f"{spec.code_version}-fixed")
                if spec.key == dg.AssetKey("attempts")
                else spec
            )
        ),
    )
    defs = build_definitions()
    assert ("attempts", None) in requested_now(defs, instance, config)
    ran, sent = rerun(defs, instance, config, server)
    # attempts and what reads it in the same run; the requests' content (label-free) did not move: no judge re-runs
    assert ("attempts", None) in ran and ("judge_requests", "blind") in ran
    assert not {name for name, _ in ran} & {"judge_outputs", "problems", "submission_pages"}
    assert sent == 0


def test_a_data_fix_re_runs_the_ingest_and_sends_nothing(tmp_path, monkeypatch, server):
    """A verdict fixed in the corpus moves contest_corpus's observed data version: what reads the corpus re-runs,
    then the requests, whose content (label-free) is unchanged, so no judge partition is requested or re-sent."""
    instance, config, _, corpus = start(tmp_path, monkeypatch, server)
    table = corpus / "progsnap2" / "MainTable.csv"
    events = table.read_text().splitlines()
    fixed = events[2].replace(",false,", ",true,")  # the second submission was in fact correct
    assert fixed != events[2]
    table.write_text("\n".join([*events[:2], fixed, *events[3:]]) + "\n")
    defs = build_definitions()
    assert {name for name, _ in requested_now(defs, instance, config)} >= {"problems", "submission_pages"}
    ran, sent = rerun(defs, instance, config, server)
    assert {name for name, _ in ran} >= {"attempts", "judge_requests"}
    assert not {name for name, _ in ran} & {"judge_outputs"}
    assert sent == 0
