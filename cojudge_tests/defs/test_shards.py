"""The sandboxed steps split into attempt-hash buckets (core/shards.py): the label audit and the mutant
verification, one partition per bucket, give the rows of the unsharded step, empty buckets included; the command
materializes every bucket and then says "nothing changed"."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import dagster as dg
import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from cojudge_assets.core.ingest.kattis import read_problem
from cojudge_assets.core.ingest.label_audit import AUDIT_SCHEMA, audit_labels
from cojudge_assets.core.perturbation.verify import MUTANT_SCHEMA, generate_mutants, verify_mutants
from cojudge_assets.core.shards import BUCKET_COLUMN, bucket_key, bucket_of, in_bucket, parse_bucket_key
from cojudge_assets.definitions import LABEL_AUDIT_JOB, MUTANT_SHARDS_JOB, build_definitions
from cojudge_assets.defs.partitions import bucket_partitions, dims, judge_partitions
from cojudge_assets.driver import resolve_selection, run_steps, run_tags
from cojudge_assets.settings import SHARDS_VARIABLE, shard_count

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo"


def test_a_bucket_is_a_stable_hash_of_the_uid():
    uid = "u01/brackets-01.html"
    expected = int(hashlib.sha256(uid.encode()).hexdigest()[:16], 16) % 4
    assert bucket_of(uid, 4) == expected  # the same on every machine and in every process (not hash())
    counts = pl.Series([bucket_of(f"u{i:03d}/p-{i}.html", 8) for i in range(4000)]).value_counts()
    assert len(counts) == 8 and counts["count"].min() > 400  # spread evenly: 500 expected in each
    assert [parse_bucket_key(bucket_key(i, 4)) for i in range(4)] == [(i, 4) for i in range(4)]
    assert parse_bucket_key("4of4") is None and parse_bucket_key("static-rubric") is None
    frame = pl.DataFrame({"attempt_uid": [f"a{i}" for i in range(50)]})
    shards = [in_bucket(frame, "attempt_uid", bucket_key(i, 3)) for i in range(3)]
    assert pl.concat(shards).sort("attempt_uid").equals(frame.sort("attempt_uid"))
    with pytest.raises(ValueError, match="expected a name like 0of4"):
        in_bucket(frame, "attempt_uid", "blind")


def test_the_bucket_count_is_a_setting():
    assert shard_count({}) == 4
    assert shard_count({SHARDS_VARIABLE: "16"}) == 16
    for bad in ("0", "-1", "four", "1000"):
        with pytest.raises(ValueError, match=SHARDS_VARIABLE):
            shard_count({SHARDS_VARIABLE: bad})


def test_buckets_are_their_own_dimension(tmp_path, monkeypatch):
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "x.duckdb"))
    monkeypatch.setenv(SHARDS_VARIABLE, "3")
    defs = build_definitions()
    graph = defs.resolve_asset_graph()
    for name in ("label_audit", "mutants"):
        assert graph.get(dg.AssetKey(name)).partitions_def.get_partition_keys() == ["0of3", "1of3", "2of3"]
    assert dims(bucket_partitions(3), "1of3").items() == {"bucket": "1of3"}
    assert dims(judge_partitions(["static-rubric"]), "static-rubric").items() == {"judge": "static-rubric"}
    audit = defs.resolve_job_def(LABEL_AUDIT_JOB)
    assert run_tags(audit, "1of3") == {}  # no judge, no provider tag
    # a job's name still selects its sharded part: ``--jobs ingest`` audits, ``--jobs mutants_job`` verifies
    assert dg.AssetKey("label_audit") in resolve_selection(defs, ("ingest",))
    assert dg.AssetKey("mutants") in resolve_selection(defs, ("mutants_job",))
    assert defs.resolve_job_def(MUTANT_SHARDS_JOB).partitions_def == bucket_partitions(3)


def demo_subset(root: Path, user: str = "u01") -> Path:
    """One participant's pages of the demo corpus with the problem packages they need: a real corpus, small."""
    corpus = root / "corpus"
    shutil.copytree(DEMO / "pages" / user, corpus / "pages" / user)
    for problem in {page.name.rsplit("-", 1)[0] for page in (DEMO / "pages" / user).iterdir()}:
        shutil.copytree(DEMO / "problems" / problem, corpus / "problems" / problem)
    shutil.copyfile(DEMO / "contest.yaml", corpus / "contest.yaml")
    return corpus


def table(db: Path, name: str) -> pl.DataFrame:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.sql(f"select * from main.{name}").pl()


def untimed(audit: pl.DataFrame) -> pl.DataFrame:
    """The audit without the one thing two re-executions may not share: how a time-limited run was killed (at the
    CPU or the wall-clock limit, after how many seconds) depends on the machine's load, in two unsharded runs as
    well. The verdict (TLE) is compared; its ``detail`` is not."""
    assert audit.filter(pl.col("reexec_verdict") == "TLE")["detail"].str.starts_with("killed at").all()
    return audit.with_columns(
        pl.when(pl.col("reexec_verdict") == "TLE")
        .then(pl.lit("killed at a limit"))
        .otherwise(pl.col("detail"))
        .alias("detail")
    )


def test_sharded_label_audit_equals_the_unsharded_audit(tmp_path, monkeypatch, judge):
    corpus = demo_subset(tmp_path)
    uids = [f"u01/{page.name}" for page in (corpus / "pages" / "u01").iterdir()]
    # the first bucket count from 6 that leaves a bucket empty: empty partitions are part of what is tested
    n = next(n for n in range(6, 64) if len({bucket_of(uid, n) for uid in uids}) < n)
    db = tmp_path / "sharded.duckdb"
    monkeypatch.setenv("COJUDGE_DUCKDB", str(db))
    monkeypatch.setenv(SHARDS_VARIABLE, str(n))
    # a table an older release wrote unsharded: its rows belong to no bucket and must not survive
    with duckdb.connect(str(db)) as con:
        stale = pl.DataFrame([{k: None for k in AUDIT_SCHEMA} | {"attempt_uid": "gone"}], schema=AUDIT_SCHEMA)  # noqa: F841 (read by DuckDB by name)
        con.sql("create table main.label_audit as select * from stale")
    config = {"resources": {"corpus": {"config": {"path": str(corpus), "layout": "pages"}}}}
    instance = dg.DagsterInstance.ephemeral()
    lines: list[str] = []
    outcome = run_steps(build_definitions(), instance, config, jobs=("ingest",), echo=lines.append)
    assert outcome, lines
    audited = {p for name, p in outcome.materialized if name == "label_audit"}
    assert audited == {bucket_key(i, n) for i in range(n)}, lines  # every bucket, the empty ones too

    sharded = table(db, "label_audit")
    attempts = table(db, "attempts")
    packages = {p.name: read_problem(p) for p in (corpus / "problems").iterdir()}
    unsharded = audit_labels(attempts, packages, judge)  # the single-step audit, run here
    assert len(unsharded) == len(uids) > 10
    assert (sharded[BUCKET_COLUMN] == pl.Series([bucket_key(bucket_of(u, n), n) for u in sharded["attempt_uid"]])).all()
    assert_frame_equal(untimed(sharded.drop(BUCKET_COLUMN).sort("attempt_uid")), untimed(unsharded))
    empty = [bucket_key(i, n) for i in range(n) if i not in {bucket_of(uid, n) for uid in uids}]
    assert empty and not set(sharded[BUCKET_COLUMN]) & set(empty)
    for key in empty:  # materialized, with no rows
        found = instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("label_audit"), asset_partitions=[key]), limit=1
        ).records
        assert found and found[0].asset_materialization.metadata["audited"].value == 0

    again: list[str] = []
    second = run_steps(build_definitions(), instance, config, jobs=("ingest",), echo=again.append)
    assert second.ran == 0 and second.line().startswith("nothing changed"), again
    assert sum(line.startswith(f"{LABEL_AUDIT_JOB}[") for line in again) == n

    # another bucket count: every new bucket runs, and the old buckets' rows leave the table
    monkeypatch.setenv(SHARDS_VARIABLE, "2")
    third = run_steps(build_definitions(), instance, config, jobs=("ingest",), echo=lines.append)
    assert {p for name, p in third.materialized if name == "label_audit"} == {"0of2", "1of2"}, lines
    resharded = table(db, "label_audit")
    assert set(resharded[BUCKET_COLUMN]) == {"0of2", "1of2"}
    assert_frame_equal(untimed(resharded.drop(BUCKET_COLUMN).sort("attempt_uid")), untimed(unsharded))


def test_sharded_mutants_equal_the_unsharded_verification(tmp_path, monkeypatch, judge):
    corpus = demo_subset(tmp_path)
    db = tmp_path / "mutants.duckdb"
    monkeypatch.setenv("COJUDGE_DUCKDB", str(db))
    monkeypatch.setenv(SHARDS_VARIABLE, "3")
    config = {"resources": {"corpus": {"config": {"path": str(corpus), "layout": "pages"}}}}
    instance = dg.DagsterInstance.ephemeral()
    lines: list[str] = []
    outcome = run_steps(
        build_definitions(), instance, config, jobs=("ingest", "mutation_seeds", "mutants"), echo=lines.append
    )
    assert outcome, lines
    assert {p for name, p in outcome.materialized if name == "mutants"} == {"0of3", "1of3", "2of3"}
    seeds = table(db, "mutation_seeds")
    packages = {p.name: read_problem(p) for p in (corpus / "problems").iterdir()}
    made = generate_mutants(seeds, max_per_operator=1, rewrite_share=0.34)  # the asset's defaults
    unsharded = verify_mutants(seeds, made, packages, judge)
    sharded = table(db, "mutants")
    assert len(unsharded) > 20 and int(unsharded["verified"].sum()) > 0
    by_seed = sharded.select("seed_uid", BUCKET_COLUMN).unique()
    assert by_seed["seed_uid"].is_unique().all()  # a seed's mutants are all verified in its bucket
    assert_frame_equal(sharded.drop(BUCKET_COLUMN).sort("mutant_uid").cast(MUTANT_SCHEMA), unsharded)
