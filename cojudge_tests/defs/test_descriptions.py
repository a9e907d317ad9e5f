"""The asset descriptions name the stores of the active profile (issue 37: under the deployed profile the UI said
"Answers are cached in DuckDB table judge_cache", which lived in Postgres)."""

from __future__ import annotations

import dagster as dg

from cojudge_assets.definitions import build_definitions
from cojudge_tests.judges.fixtures import write_judges_file, write_synthetic_progsnap2


def _specs(tmp_path, monkeypatch, **env: str) -> dict[str, dg.AssetSpec]:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 3)
    judges = write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:9/v1")
    defs = build_definitions(corpus=corpus, layout="progsnap2", database=tmp_path / "c.duckdb", judges_path=judges)
    return {spec.key.to_user_string(): spec for spec in defs.resolve_all_asset_specs()}


def test_the_deployed_profile_names_postgres_and_delta_lake(tmp_path, monkeypatch):
    specs = _specs(
        tmp_path,
        monkeypatch,
        COJUDGE_PROFILE="deployed",
        COJUDGE_POSTGRES_URL="postgresql://cojudge@127.0.0.1:1/cojudge",
        COJUDGE_TABLES_URI=str(tmp_path / "tables"),
    )
    for name in ("judge_outputs", "perturbation_outputs"):
        description = specs[name].description or ""
        assert "Postgres table judge_cache" in description and "DuckDB" not in description, name
    assert all("duckdb" not in spec.kinds for spec in specs.values())
    assert "deltalake" in specs["attempts"].kinds


def test_the_embedded_profile_names_the_duckdb_file(tmp_path, monkeypatch):
    monkeypatch.delenv("COJUDGE_PROFILE", raising=False)
    specs = _specs(tmp_path, monkeypatch)
    assert "DuckDB table judge_cache" in (specs["judge_outputs"].description or "")
    assert "duckdb" in specs["attempts"].kinds
