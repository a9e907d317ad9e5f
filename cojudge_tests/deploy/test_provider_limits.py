"""Pools hold: under the deployed profile, the daemon launches the judge partitions that Dagster's automation
requests through the queued run coordinator, with the limit per provider of the instance's dagster.yaml (written by
``cojudge deployment config``'s function from ``COJUDGE_PROVIDER_LIMITS``).

Two loopback providers (0.5 s a request), two judges each, three conditions: 12 partitions, 6 per provider, at most
2 runs per provider. Each judge sends one request at a time (concurrency 1), so a provider's requests in flight at
once are at most its runs at once. The servers' request logs show both providers served at the same time and never
more than 2 requests (so runs) in flight at one provider; the run records agree (every judge run carries its
provider's tag, and no provider had more than 2 runs at once, but 2 at some moment: the limit was reached)."""

from __future__ import annotations

import json
import os
import time

import dagster as dg
import pytest

from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import run_steps
from cojudge_tests.deploy.support import ACTIVE, UPSTREAM, Daemon, deployed_env, deployed_instance
from cojudge_tests.judges.fixtures import write_synthetic_progsnap2
from cojudge_tests.judges.loopback import LoopbackServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

GOOD = json.dumps({"p_accept": 0.6, "s_algo": 3, "s_robust": 4, "rationale": "plausible"})
CONDITIONS = ("blind", "prefix12k", "nonblind")
LIMIT = 2
ATTEMPTS = 40  # 20 s of requests per run: longer than the launch of the next run on a loaded machine


def write_judges(path, servers: dict[str, LoopbackServer]) -> None:
    lines = ["judges:"]
    for name, server in servers.items():
        lines += [
            f"  - name: {name}",
            f"    model: openai/{name}",
            f"    api_base: {server.api_base}",
            "    api_key_env: LOOPBACK_KEY",
            "    concurrency: 1",
            "    timeout_s: 10",
        ]
    path.write_text("\n".join(lines) + "\n")


def most_at_once(intervals: list[tuple[float, float]]) -> int:
    events = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals])
    now = most = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def overlap(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
    """Seconds during which both lists have an interval open."""
    return sum(max(0.0, min(e1, e2) - max(s1, s2)) for s1, e1 in a for s2, e2 in b)


def launched_runs(instance: dg.DagsterInstance, runs: list[dg.RunRecord]) -> str:
    """What a failure shows: each judge run (partition, status, start, tags) and each source observation."""
    lines = [
        f"{r.dagster_run.tags.get('dagster/partition')} {r.dagster_run.status.value} {r.start_time} "
        f"{ {k: v for k, v in r.dagster_run.tags.items() if not k.startswith('dagster/partition')} }"
        for r in sorted(runs, key=lambda r: r.start_time or 0)
    ]
    for key in ("judges_file", "contest_corpus"):
        for record in instance.fetch_observations(dg.AssetKey(key), limit=100).records:
            event = record.event_log_entry
            lines.append(f"observed {key} {record.partition_key} at {event.timestamp}: {event.run_id[:8]}")
    return "\n".join(lines)


def test_runs_of_different_providers_run_at_once_and_none_exceeds_its_limit(tmp_path, monkeypatch, postgres):
    monkeypatch.setenv("LOOPBACK_KEY", "sk-pools")
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", ATTEMPTS)
    with LoopbackServer(delay_s=0.5) as first, LoopbackServer(delay_s=0.5) as second:
        for server in (first, second):
            server.script = [("ok", GOOD)]
        judges = {"a1": first, "a2": first, "b1": second, "b2": second}
        write_judges(tmp_path / "judges.yaml", judges)
        providers = {name: f"127.0.0.1:{server.port}" for name, server in judges.items()}
        database = postgres.create_database("pools")
        env = deployed_env(
            tmp_path,
            database.url,
            COJUDGE_JUDGES=str(tmp_path / "judges.yaml"),
            COJUDGE_CORPUS=str(corpus),
            COJUDGE_LAYOUT="progsnap2",
            COJUDGE_PROVIDER_LIMITS=",".join(f"127.0.0.1:{s.port}={LIMIT}" for s in (first, second)),
        )
        (tmp_path / "files").mkdir()
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        instance = deployed_instance(tmp_path / "home", dict(os.environ))
        # everything but the judges' answers, materialized here (fast); the judge partitions are left to the daemon
        run_steps(build_definitions(), instance, {}, jobs=UPSTREAM, echo=lambda _: None)
        for server in (first, second):
            server.log.clear()
        daemon = Daemon(tmp_path, tmp_path / "home", env)
        daemon.start()
        keys = [f"{c}|{j}" for c in CONDITIONS for j in judges]
        try:
            deadline = time.time() + 1200
            while time.time() < deadline:
                assert daemon.alive(), daemon.tail()
                done = instance.fetch_materializations(
                    dg.AssetRecordsFilter(asset_key=dg.AssetKey("judge_outputs"), asset_partitions=keys), limit=100
                ).records
                judging = [
                    run
                    for run in instance.get_runs(dg.RunsFilter(statuses=ACTIVE))
                    if dg.AssetKey("judge_outputs") in (run.asset_selection or ())
                ]
                if {r.partition_key for r in done} == set(keys) and not judging:
                    break
                time.sleep(3)
            else:
                raise AssertionError(f"the judge partitions were not all materialized\n{daemon.tail()}")
        finally:
            daemon.stop()  # its process group: the runs it launched after the judges' (readers of the answers) too

    runs = [
        record
        for record in instance.get_run_records()
        if dg.AssetKey("judge_outputs") in (record.dagster_run.asset_selection or ())
    ]
    assert len(runs) == len(keys), launched_runs(instance, runs)
    assert all(r.dagster_run.status == dg.DagsterRunStatus.SUCCESS for r in runs), [r.dagster_run.status for r in runs]
    by_provider: dict[str, list[tuple[float, float]]] = {}
    for record in runs:
        tags = record.dagster_run.tags
        judge = tags["dagster/partition/judge"]
        assert tags.get("cojudge/provider") == providers[judge], tags  # the automation's runs carry the tag
        assert record.start_time is not None and record.end_time is not None
        by_provider.setdefault(providers[judge], []).append((record.start_time, record.end_time))
    assert {p: most_at_once(spans) for p, spans in by_provider.items()} == dict.fromkeys(set(providers.values()), LIMIT)

    # the servers' own logs: every request once, at most LIMIT in flight at each, both served at once
    for server in (first, second):
        assert len(server.log) == 2 * len(CONDITIONS) * ATTEMPTS
        assert most_at_once([(start, end) for start, end, _ in server.log]) <= LIMIT
    both = overlap([(s, e) for s, e, _ in first.log], [(s, e) for s, e, _ in second.log])
    assert both > 1.0, both
