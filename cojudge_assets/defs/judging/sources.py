"""The judges file as a source asset: what Dagster versions so that a judge's changed settings make it stale.

``judges_file`` is an observable source asset partitioned by judge (the judge
dimension of defs/partitions.py). Observing it records one data version per
judge (defs/versions.py ``judges_file_versions``): for a hosted or local judge its
answer settings and the epoch of its last provider drift, for an imported judge
the sha256 of its source files. ``judge_outputs`` and ``perturbation_outputs``
depend on the judge's partition, so Dagster (and ``cojudge materialize``) calls
exactly that judge's partitions stale when the file changes what it answers with,
when a provider drift was recorded, or when an imported file changed.
"""

from __future__ import annotations

import dagster as dg
from dagster_duckdb import DuckDBResource

from cojudge_assets.defs.partitions import judge_partitions
from cojudge_assets.defs.resources import judge_store
from cojudge_assets.defs.versions import judges_file_versions
from cojudge_assets.judges.config import JudgeSpec

JUDGES_FILE = "judges_file"


def judges_file_asset(
    specs: list[JudgeSpec], path: str, observe: dg.AutomationCondition | None = None
) -> dg.SourceAsset:
    """The observable source asset ``judges_file`` over these judges (the judge dimension of the run)."""

    @dg.observable_source_asset(
        name=JUDGES_FILE,
        group_name="judging",
        automation_condition=observe,
        partitions_def=judge_partitions(spec.name for spec in specs),
        description=f"The judges file ({path}) and the imported judges of the corpus, one partition per judge. "
        "Its data version per judge is what shapes the judge's answers: its answer settings (model, temperature, "
        "token budgets, JSON mode, extra) and its last provider drift, or an imported judge's source files.",
    )
    def judges_file(duckdb: DuckDBResource) -> dg.DataVersionsByPartition:
        with judge_store(duckdb) as store:  # the drift events only, by query under the deployed profile
            drifts = store.drift_epochs()
        return dg.DataVersionsByPartition(judges_file_versions(specs, drifts))

    return judges_file
