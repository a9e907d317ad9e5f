"""What the command calls up to date is what Dagster's UI calls fresh: the judges file, a code change and a data
fix seen as stale by both, exactly for the partitions they touch (freshness.py, defs/judging/sources.py)."""

from __future__ import annotations

import json

import dagster as dg
import pytest

from cojudge_assets.cli import run_steps
from cojudge_assets.definitions import build_definitions
from cojudge_assets.defs.partitions import condition_judge_key
from cojudge_assets.freshness import judge_version, observe_sources, outdated_assets, stale_causes
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


def ui_status(defs: dg.Definitions, instance: dg.DagsterInstance, key: str, partition: str | None) -> str:
    """The stale status the Dagster UI shows (its resolver is private: used by this test only, never the package)."""
    from dagster._core.asset_graph_view.asset_graph_view import AssetGraphView
    from dagster._core.definitions.data_version import CachingStaleStatusResolver
    from dagster._core.definitions.temporal_context import TemporalContext
    from dagster._time import get_current_datetime

    graph = defs.resolve_asset_graph()
    view = AssetGraphView(
        temporal_context=TemporalContext(effective_dt=get_current_datetime(), last_event_id=None),
        instance=instance,
        asset_graph=graph,
    )
    return CachingStaleStatusResolver(instance, graph, view).get_status(dg.AssetKey(key), partition).value.lower()


def command_status(defs: dg.Definitions, instance: dg.DagsterInstance, key: str, partition: str | None) -> str:
    causes = stale_causes(defs, instance, dg.AssetKey(key), partition)
    return "missing" if causes is None else ("stale" if causes else "fresh")


def statuses(defs, instance) -> dict[tuple[str, str | None], tuple[str, str]]:
    """(command, UI) status of every asset partition the three jobs materialize."""
    found = {}
    for spec in defs.resolve_all_asset_specs():
        if spec.key.path[-1] in {"contest_corpus", "judges_file"} or spec.group_name not in {"ingest", "judging"}:
            continue
        keys = [None] if spec.partitions_def is None else spec.partitions_def.get_partition_keys()
        for partition in keys:
            name = spec.key.to_user_string()
            found[(name, partition)] = (
                command_status(defs, instance, name, partition),
                ui_status(defs, instance, name, partition),
            )
    return found


def test_judge_version_moves_with_what_shapes_the_answers_only():
    settings = {"model": "openai/m", "temperature": 0.0}
    assert judge_version(settings) == judge_version(dict(settings))
    assert judge_version({**settings, "temperature": 0.5}) != judge_version(settings)
    assert judge_version(settings, drift_epoch=1) != judge_version(settings)


def test_the_command_and_the_ui_agree_on_a_judges_file_change(tmp_path, monkeypatch, server):
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "f.duckdb"))
    judges = write_judges_file(tmp_path / "judges.yaml", server.api_base, local=True)
    monkeypatch.setenv("COJUDGE_JUDGES", str(judges))
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 6)
    config = {"resources": {"corpus": {"config": {"path": str(corpus), "layout": "progsnap2"}}}}
    instance = dg.DagsterInstance.ephemeral()
    defs = build_definitions()
    before = statuses(defs, instance)
    assert before and all(command == ui == "missing" for command, ui in before.values())

    assert run_steps(defs, instance, config, conditions=["blind"], jobs=JOBS, echo=lambda line: None)
    after = statuses(defs, instance)
    assert all(command == ui for command, ui in after.values()), after
    assert after[("judge_outputs", "blind|loop")] == ("fresh", "fresh")
    assert after[("judge_outputs", "nonblind|loop")] == ("missing", "missing")

    # the judges file now gives the loopback judge another token budget: its partition alone is stale, in both
    write_judges_file(judges, server.api_base, local=True, max_tokens=999)
    defs = build_definitions()
    assert observe_sources(defs, instance, config)
    changed = statuses(defs, instance)
    assert all(command == ui for command, ui in changed.values()), changed
    assert changed[("judge_outputs", "blind|loop")] == ("stale", "stale")
    assert changed[("judge_outputs", "blind|static-rubric")] == ("fresh", "fresh")
    assert outdated_assets(
        defs, instance, "judge_outputs_job", str(condition_judge_key("blind", "loop")), str(tmp_path / "f.duckdb")
    ) == ["judge_outputs stale (judges_file[loop] has a new data version)"]

    # the command re-runs exactly that partition, and then both call everything fresh again
    lines = []
    assert run_steps(defs, instance, config, conditions=["blind"], jobs=JOBS, echo=lines.append)
    ran = [line.split(":")[0] for line in lines if not line.endswith("up to date, skipped")]
    assert ran == ["judge_outputs_job[blind|loop]"]
    final = statuses(defs, instance)
    assert all(command == ui for command, ui in final.values()), final
    assert final[("judge_outputs", "blind|loop")] == ("fresh", "fresh")


def test_a_code_version_change_is_stale_in_both(tmp_path, monkeypatch, server):
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "f.duckdb"))
    monkeypatch.setenv("COJUDGE_JUDGES", str(write_judges_file(tmp_path / "judges.yaml", server.api_base)))
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 4)
    config = {"resources": {"corpus": {"config": {"path": str(corpus), "layout": "progsnap2"}}}}
    instance = dg.DagsterInstance.ephemeral()
    assert run_steps(build_definitions(), instance, config, jobs=("ingest",), echo=lambda line: None)
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
    found = statuses(defs, instance)
    assert found[("attempts", None)] == ("stale", "stale")
    assert found[("prompt_logs", None)] == ("fresh", "fresh")
    assert found[("participant_context", None)] == ("fresh", "fresh")  # shallow: stale once attempts moves
    assert all(command == ui for command, ui in found.values()), found


def test_a_data_fix_is_stale_in_both_and_re_runs_the_ingest_only(tmp_path, monkeypatch, server):
    """A verdict fixed in the corpus moves contest_corpus's observed data version: the assets that read the corpus
    are stale in both (nothing else is, before they re-run); the command re-runs them and the requests, whose
    content (label-free) is unchanged, so no judge partition is stale or re-sent."""
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "f.duckdb"))
    monkeypatch.setenv("COJUDGE_JUDGES", str(write_judges_file(tmp_path / "judges.yaml", server.api_base)))
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 6)
    config = {"resources": {"corpus": {"config": {"path": str(corpus), "layout": "progsnap2"}}}}
    instance = dg.DagsterInstance.ephemeral()
    assert run_steps(build_definitions(), instance, config, conditions=["blind"], jobs=JOBS, echo=lambda line: None)
    sent = len(server.requests)

    table = corpus / "progsnap2" / "MainTable.csv"
    events = table.read_text().splitlines()
    fixed = events[2].replace(",false,", ",true,")  # the second submission was in fact correct
    assert fixed != events[2]
    table.write_text("\n".join([*events[:2], fixed, *events[3:]]) + "\n")
    defs = build_definitions()
    assert observe_sources(defs, instance, config)
    found = statuses(defs, instance)
    assert all(command == ui for command, ui in found.values()), found
    stale = {name for (name, _), (_, ui) in found.items() if ui == "stale"}
    assert stale == {"problems", "submission_pages", "attempts", "prompt_logs", "quarantine"}

    lines = []
    assert run_steps(defs, instance, config, conditions=["blind"], jobs=JOBS, echo=lines.append)
    ran = [line.split(":")[0] for line in lines if not line.endswith("up to date, skipped")]
    assert ran == ["ingest", "judge_requests_job[blind]"]
    assert len(server.requests) == sent  # no judge request re-sent
    final = statuses(defs, instance)
    assert all(command == ui for command, ui in final.values()), final
    assert {ui for command, ui in final.values()} == {"fresh", "missing"}
    assert final[("judge_outputs", "blind|loop")] == ("fresh", "fresh")
