"""The graded perturbation assets in the Definitions (defs/perturbation/graded.py)."""

import dagster as dg

from cojudge_assets.definitions import MUTANTS_JOB, PERTURBATION_METRICS_JOB, build_definitions
from cojudge_assets.defs.perturbation.graded import GRADED_PROGRAM_ASSETS


def _parents(defs: dg.Definitions, name: str) -> set[str]:
    return {key.to_user_string() for key in defs.resolve_asset_graph().get(dg.AssetKey(name)).parent_keys}


def test_graded_assets_are_in_the_perturbation_group_jobs_and_lineage(tmp_path, monkeypatch):
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "x.duckdb"))
    judges = tmp_path / "judges.yaml"
    judges.write_text("judges:\n  - name: rubric\n    model: cojudge/static-rubric\n")
    monkeypatch.setenv("COJUDGE_JUDGES", str(judges))
    defs = build_definitions()
    graph = defs.resolve_asset_graph()
    for name in (*GRADED_PROGRAM_ASSETS, "graded_scores", "graded_metrics"):
        assert graph.get(dg.AssetKey(name)).group_name == "perturbation"
    mutants_job = {k.to_user_string() for k in defs.resolve_job_def(MUTANTS_JOB).asset_layer.selected_asset_keys}
    assert set(GRADED_PROGRAM_ASSETS) <= mutants_job
    metrics_job = defs.resolve_job_def(PERTURBATION_METRICS_JOB).asset_layer.selected_asset_keys
    assert {dg.AssetKey("graded_scores"), dg.AssetKey("graded_metrics")} <= metrics_job
    assert _parents(defs, "graded_programs") == {"mutation_seeds"}
    assert "graded_programs" in _parents(defs, "perturbation_requests")  # judged blind with the mutants
    assert _parents(defs, "graded_scores") == {"graded_programs", "mutation_seeds", "perturbation_outputs"}
    assert _parents(defs, "graded_metrics") == {"graded_scores"}  # the similarities are not recomputed with it
    assert {"graded_metrics", "graded_yield", "graded_balance"} <= _parents(defs, "report")

    judges.write_text("judges:\n  - name: idle\n    model: openai/m\n    enabled: false\n")
    without = build_definitions()  # no judge asked: the reference-based judges alone
    assert _parents(without, "graded_scores") == {"graded_programs", "mutation_seeds"}


def test_the_graded_set_is_capped_per_ceiling_by_default_and_a_negative_cap_is_refused():
    import polars as pl
    import pytest

    from cojudge_assets.core.graded.verify import PER_CEILING
    from cojudge_assets.defs.perturbation.graded import GradedSettings, graded_programs

    assert GradedSettings().per_ceiling == PER_CEILING > 0
    with pytest.raises(ValueError, match="per_ceiling=-1: expected 0 \\(no cap\\) or more"):
        list(
            graded_programs(
                dg.build_asset_context(),
                config=GradedSettings(per_ceiling=-1),
                mutation_seeds=pl.DataFrame(),
                corpus=None,
                contest_judge=None,
            )
        )
