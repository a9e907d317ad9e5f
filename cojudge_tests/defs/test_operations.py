"""Operations: provider drift re-judging, backfills after a data fix, and runs that skip what is up to date."""

from __future__ import annotations

import json

import dagster as dg
import duckdb
import pytest
from dagster_duckdb import DuckDBResource
from sklearn.metrics import roc_auc_score

import cojudge_assets.core.ingest.progsnap2 as progsnap2
import cojudge_assets.defs.ingest.assets as ingest_assets
from cojudge_assets.definitions import build_definitions
from cojudge_assets.defs.automation import CursorFile, evaluate, observe_sources
from cojudge_assets.driver import run_steps
from cojudge_tests.judges.fixtures import write_synthetic_progsnap2
from cojudge_tests.judges.loopback import LoopbackServer

GOOD = json.dumps({"p_accept": 0.6, "s_algo": 3, "s_robust": 4, "rationale": "plausible"})
KEYS = {"DRIFTY_KEY": "sk-drift-test-key-never-stored-1", "STEADY_KEY": "sk-drift-test-key-never-stored-2"}


@pytest.fixture()
def two_providers(monkeypatch):
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    with LoopbackServer(model="vendor-model-2025-01") as drifty, LoopbackServer(model="steady-model-7") as steady:
        drifty.script = [("ok", GOOD)]
        steady.script = [("ok", GOOD)]
        yield drifty, steady


def setup(tmp_path, monkeypatch, drifty, steady, n=24):
    judges = tmp_path / "judges.yaml"
    judges.write_text(
        "\n".join(
            [
                "judges:",
                "  - name: drifty",
                "    model: openai/vendor-model",
                f"    api_base: {drifty.api_base}",
                "    api_key_env: DRIFTY_KEY",
                "    timeout_s: 5",
                "  - name: steady",
                "    model: openai/steady-model",
                f"    api_base: {steady.api_base}",
                "    api_key_env: STEADY_KEY",
                "    timeout_s: 5",
            ]
        )
        + "\n"
    )
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "ops.duckdb"))
    monkeypatch.setenv("COJUDGE_JUDGES", str(judges))
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", n)
    config = {"resources": {"corpus": {"config": {"path": str(corpus), "layout": "progsnap2"}}}}
    return dg.DagsterInstance.ephemeral(), config


def tick_of(defs, instance, db):
    sensor = next(s for s in defs.sensors if s.name == "provider_drift")
    context = dg.build_sensor_context(
        instance=instance,
        resources={"duckdb": DuckDBResource(database=str(db)), "judges": defs.resources["judges"]},
        definitions=defs,
    )
    return sensor.evaluate_tick(context)


def test_drift_sensor_rejudges_exactly_the_drifted_judge_and_keeps_both_epochs(tmp_path, monkeypatch, two_providers):
    drifty, steady = two_providers
    instance, config = setup(tmp_path, monkeypatch, drifty, steady)
    db = tmp_path / "ops.duckdb"
    defs = build_definitions()
    assert run_steps(defs, instance, config, conditions=["blind"], echo=lambda line: None)
    assert (len(drifty.requests), len(steady.requests)) == (24, 24)

    # same models served: the probes (one tiny request each) find nothing
    tick = tick_of(defs, instance, db)
    assert not tick.run_requests and "no drift among 2 hosted judge(s)" in tick.skip_message
    assert (len(drifty.requests), len(steady.requests)) == (25, 25)

    # the provider behind "drifty" now serves another model under the same name
    drifty.model = "vendor-model-2025-06"
    tick = tick_of(defs, instance, db)
    # one observation of the judges file: drifty's partition of it now carries the new epoch
    assert [(r.job_name, r.run_key) for r in tick.run_requests] == [("observe_sources", "drift:drifty:1")]
    con = duckdb.connect(str(db), read_only=True)
    event = con.sql("select judge, old_identity, new_identity, old_epoch, new_epoch from main.drift_events").fetchall()
    con.close()
    assert event == [("drifty", "vendor-model-2025-01", "vendor-model-2025-06", 0, 1)]

    # observed (as the daemon would run the request, and as the command does first), Dagster's evaluator requests
    # exactly drifty's partitions that hold answers (only blind was judged here) and its perturbation partition
    assert observe_sources(defs, instance, config).success
    found = evaluate(defs, instance, CursorFile(instance).load())
    judged = {
        (key.to_user_string(), str(p))
        for key, keys in found.partitions.items()
        for p in keys
        if key.to_user_string() in {"judge_outputs", "perturbation_outputs"}
        and not str(p).startswith(("prefix", "non"))
    }
    assert judged == {("judge_outputs", "blind|drifty"), ("perturbation_outputs", "drifty")}

    # the command runs them: drifty's requests re-sent once, steady's none
    drifty.script = [
        ("ok", json.dumps({"p_accept": p, "s_algo": 3, "s_robust": 3, "rationale": "r"})) for p in (0.3, 0.8, 0.5) * 8
    ] + [("ok", GOOD)]
    outcome = run_steps(defs, instance, config, conditions=["blind"], echo=lambda line: None)
    assert outcome, outcome.line()
    assert judged <= outcome.rounds[0]
    assert not {pair for pair in outcome.materialized if pair[1] and "steady" in pair[1]}
    assert (len(drifty.requests), len(steady.requests)) == (26 + 24, 26)
    con = duckdb.connect(str(db), read_only=True)
    epochs = dict(
        con.sql(
            "select epoch, string_agg(distinct served_model) from main.judge_cache where judge = 'drifty' group by 1"
        ).fetchall()
    )
    assert epochs == {0: "vendor-model-2025-01", 1: "vendor-model-2025-06"}  # both kept, side by side
    assert con.sql("select count(*) from main.judge_cache where judge = 'steady'").fetchone()[0] == 24
    con.close()

    # the new epoch's answers now carry the new identity: the next probe is quiet again
    tick = tick_of(defs, instance, db)
    assert not tick.run_requests

    # and the drift report compares the two epochs
    assert run_steps(build_definitions(), instance, config, conditions=["blind"], echo=lambda line: None)
    con = duckdb.connect(str(db), read_only=True)
    rows = {
        m: (old, new, delta)
        for m, old, new, delta in con.sql(
            "select metric, old, new, delta from main.drift_report where judge = 'drifty' and condition = 'blind'"
        ).fetchall()
    }
    con.close()
    assert set(rows) == {"rank_correlation", "roc_auc", "pr_auc", "brier", "log_loss"}
    # epoch 0 answered 0.6 everywhere, epoch 1 varies: the ranking is new (rho undefined), Brier moved
    assert rows["roc_auc"][0] == pytest.approx(0.5) and rows["brier"][0] is not None
    assert rows["brier"][2] == pytest.approx(rows["brier"][1] - rows["brier"][0])
    for secret in KEYS.values():
        assert secret.encode() not in db.read_bytes()


def test_a_verdict_fix_recomputes_the_metrics_without_a_single_judge_call(tmp_path, monkeypatch, two_providers):
    drifty, steady = two_providers
    instance, config = setup(tmp_path, monkeypatch, drifty, steady)
    db = tmp_path / "ops.duckdb"
    drifty.script = [
        ("ok", json.dumps({"p_accept": p, "s_algo": 3, "s_robust": 3, "rationale": "r"})) for p in (0.9, 0.2, 0.4) * 30
    ] + [("ok", GOOD)]
    assert run_steps(build_definitions(), instance, config, conditions=["blind"], echo=lambda line: None)
    sent = (len(drifty.requests), len(steady.requests))

    def scored():
        """drifty's blind predictions (attempt -> (problem, y, p)) and the ROC-AUC judge_metrics holds for them."""
        con = duckdb.connect(str(db), read_only=True)
        try:
            rows = con.sql(
                "select attempt_uid, problem_id, y, p_accept from main.predictions "
                "where judge = 'drifty' and condition = 'blind'"
            ).fetchall()
            stored = con.sql(
                "select value from main.judge_metrics where judge = 'drifty' and condition = 'blind' "
                "and metric = 'roc_auc'"
            ).fetchone()[0]
        finally:
            con.close()
        return {uid: (problem, y, p) for uid, problem, y, p in rows}, stored

    before, _ = scored()

    # the fix: the course exported Correct inverted for problem p1; the reader is corrected and its asset's
    # code version bumped, as an engineer would when fixing how a verdict is read
    read_label = progsnap2._label

    def fixed(row, vocabulary):
        verdict, text = read_label(row, vocabulary)
        if row.get("ProblemID") == "p1" and verdict in ("AC", "REJ"):
            return ("REJ" if verdict == "AC" else "AC"), text
        return verdict, text

    monkeypatch.setattr(progsnap2, "_label", fixed)
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
    lines: list[str] = []
    outcome = run_steps(build_definitions(), instance, config, conditions=["blind"], echo=lines.append)
    assert outcome, "\n".join(lines)
    assert (len(drifty.requests), len(steady.requests)) == sent  # not one judge call
    assert outcome.requests_sent == 0
    # each asset partition once: no reader before the last of its inputs the fix moves (issue 37)
    materialized = [pair for found in outcome.rounds for pair in found]
    assert len(materialized) == len(set(materialized)), outcome.rounds
    by_step: dict[str, str] = {}
    for line in lines:  # a step may run in several rounds (a reader one round after its input)
        by_step[line.split(":")[0]] = by_step.get(line.split(":")[0], "") + line + "\n"
    assert "ingest: ok" in by_step["ingest"] and "attempts" in by_step["ingest"]
    assert by_step["judge_outputs_job[blind|drifty]"] == "judge_outputs_job[blind|drifty]: up to date, skipped\n"
    assert "ok" in by_step["measurement_job"]
    # the labels of p1 moved and nothing else did, and the metrics were computed again from the moved labels (the
    # answers came in an order the test does not fix, so the ROC-AUC itself may or may not change: its value is
    # checked against the stored predictions, not against the old one)
    after, stored_auc = scored()
    assert after.keys() == before.keys()
    moved = {uid for uid in after if after[uid][1] != before[uid][1]}
    assert moved and all(before[uid][0] == "p1" and after[uid][1] == 1 - before[uid][1] for uid in moved)
    assert all(after[uid][2] == before[uid][2] for uid in after)  # not one answer changed
    ys, ps = zip(*[(y, p) for _, y, p in after.values()])
    assert stored_auc == pytest.approx(roc_auc_score(ys, ps))

    # and once the backfill ran, the same command has nothing left to do
    lines = []
    outcome = run_steps(build_definitions(), instance, config, conditions=["blind"], echo=lines.append)
    assert outcome.ran == 0 and all(line.endswith("up to date, skipped") for line in lines)


def test_a_probe_that_fails_is_reported_and_does_not_stop_the_others(tmp_path, monkeypatch, two_providers):
    drifty, steady = two_providers
    instance, config = setup(tmp_path, monkeypatch, drifty, steady, n=9)
    db = tmp_path / "ops.duckdb"
    defs = build_definitions()
    assert run_steps(defs, instance, config, conditions=["blind"], echo=lambda line: None)
    drifty.script = [("status", 401, None)]  # the key was revoked: the probe is refused
    steady.model = "steady-model-8"
    tick = tick_of(defs, instance, db)
    assert [r.run_key for r in tick.run_requests] == ["drift:steady:1"]  # steady's drift still seen
    tick = tick_of(defs, instance, db)  # nothing new to re-judge: the skip message says what went wrong
    assert not tick.run_requests and "drifty: probe failed (AuthenticationError)" in tick.skip_message
