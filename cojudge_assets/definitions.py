"""The cojudge code location: every asset group under defs/, bound to DuckDB and the contest judge."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import dagster as dg

from cojudge_assets.defs.automation import (
    OBSERVE_JOB,
    automation_sensor,
    observe_condition,
    with_conditions,
)
from cojudge_assets.defs.design.assets import findings_asset
from cojudge_assets.defs.ingest.assets import CONTEST_CORPUS, contest_corpus_asset
from cojudge_assets.defs.io import CojudgeDuckDBIOManager, LockedDuckDBResource
from cojudge_assets.defs.judging.assets import judge_outputs_asset
from cojudge_assets.defs.judging.sources import JUDGES_FILE, judges_file_asset
from cojudge_assets.defs.measurement.assets import measurement_asset, predictions_asset
from cojudge_assets.defs.operations.assets import drift_report_asset
from cojudge_assets.defs.operations.sensors import drift_sensor
from cojudge_assets.defs.perturbation.assets import perturbation_metrics_asset, perturbation_outputs_asset
from cojudge_assets.defs.perturbation.graded import GRADED_PROGRAM_ASSETS, graded_metrics_asset
from cojudge_assets.defs.report.assets import report_asset
from cojudge_assets.defs.resources import ContestJudgeResource, CorpusResource, JudgesResource
from cojudge_assets.judges.config import corpus_judges
from cojudge_assets.settings import DUCKDB_VARIABLE, resolve_settings

# content data versions (defs/versions.py) are a beta parameter of dg.Output; they are what makes re-runs skip
warnings.filterwarnings("ignore", message=".*data_version.*", category=dg.BetaWarning)
# the beta parts of the public API the automation uses (observable sources and their versions per partition, the
# automation sensor evaluated in the code server): used knowingly, not worth a line on every command's stderr
for _beta in ("observable_source_asset", "DataVersionsByPartition", "use_user_code_server", "include_sources"):
    warnings.filterwarnings("ignore", message=f".*{_beta}.*", category=dg.BetaWarning)

# Named selections of the graph, one per partitioning (Dagster runs one partition of one partitions definition per
# run): for launching from the UI, for ``cojudge materialize --select``, and to name the command's steps. What runs
# and in which order is decided by the assets' automation conditions (defs/automation.py), not by these.
INGEST_JOB = "ingest"
REQUESTS_JOB = "judge_requests_job"
OUTPUTS_JOB = "judge_outputs_job"
MEASUREMENT_JOB = "measurement_job"
DYNAMICS_JOB = "dynamics_job"
MUTANTS_JOB = "mutants_job"
PERTURBATION_OUTPUTS_JOB = "perturbation_outputs_job"
PERTURBATION_METRICS_JOB = "perturbation_metrics_job"
REPORT_JOB = "report_job"


EXECUTORS = ("in_process", "multiprocess")


def executor_from_environment() -> dg.ExecutorDefinition:
    """``$COJUDGE_EXECUTOR``: ``in_process`` (default: DuckDB has one writer per file, so the steps of a run
    share one process) or ``multiprocess`` (steps in parallel processes, for a storage that takes concurrent
    writers; at most ``$COJUDGE_MAX_CONCURRENT`` steps at once, default one per core). Configuration, not code,
    chooses it: see the README's "Beyond one machine"."""
    name = os.environ.get("COJUDGE_EXECUTOR", "in_process")
    if name not in EXECUTORS:
        raise ValueError(f"COJUDGE_EXECUTOR={name!r}: expected one of {', '.join(EXECUTORS)}")
    if name == "in_process":
        return dg.in_process_executor
    return dg.multiprocess_executor.configured(
        {"max_concurrent": int(os.environ.get("COJUDGE_MAX_CONCURRENT") or 0)}, name="multiprocess"
    )


def _names(assets: list) -> set[str]:
    keys = [key for asset in assets for key in (asset.keys if isinstance(asset, dg.AssetsDefinition) else [asset.key])]
    return {key.to_user_string() for key in keys}


def readers_of(assets: list) -> list[dg.AssetsDefinition]:
    """The assets whose inputs depend on which assets the Definitions hold (``judge_outputs`` and ``judges_file``
    only with a judge, ``perturbation_outputs`` only with an asked judge; ``findings`` reads the latter): each made
    by its module's factory with the inputs ``assets`` hold, the report last, over everything else."""
    readers = [predictions_asset(_names(assets))]
    readers += [
        factory(_names(assets + readers))
        for factory in (
            measurement_asset,
            drift_report_asset,
            perturbation_metrics_asset,
            findings_asset,
            graded_metrics_asset,
        )
    ]
    return readers + [report_asset(_names(assets + readers))]


def outputs_with_rows(specs: list) -> list[str] | None:
    """The ``judge_outputs`` partitions that can hold rows: every condition of a judge that is asked, the
    conditions an imported judge's source has rows for (judges/imports.py ``answered_conditions``); None when
    that is every partition."""
    from cojudge_assets.core.constants import CONDITIONS
    from cojudge_assets.defs.partitions import condition_judge_key
    from cojudge_assets.judges.imports import answered_conditions

    keys = []
    for spec in specs:
        answered = answered_conditions(spec)
        keys += [str(condition_judge_key(c, spec.name)) for c in CONDITIONS if answered is None or c in answered]
    return keys if len(keys) < len(CONDITIONS) * len(specs) else None


def build_definitions(
    *,
    corpus: str | Path | None = None,
    layout: str | None = None,
    database: str | Path | None = None,
    judges_path: str | Path | None = None,
) -> dg.Definitions:
    """The code location, its resources bound once, here, from settings.py ``resolve_settings`` (an argument, else
    the environment, else a default under the working folder; the command passes what its preflight resolved the
    same way), read when the Definitions are built, never at import: the corpus ($COJUDGE_CORPUS/$COJUDGE_LAYOUT,
    else ./data/demo), the DuckDB file (bound as ``dg.EnvVar("COJUDGE_DUCKDB")`` when the variable is set, so a
    run resolves it, else ./data/cojudge.duckdb), the judges file ($COJUDGE_JUDGES, else ./data/judges.yaml) and
    how often a deployment observes them ($COJUDGE_OBSERVE_CRON). The judge partitions are the
    enabled judges of that judges file, then the imported judges the corpus's layout brings (the ICE-Score
    release's); imported judges answer nothing new, so they have no partition of ``perturbation_outputs``."""
    found = dg.load_from_defs_folder(path_within_project=Path(__file__).parent)
    settings = resolve_settings(
        corpus=None if corpus is None else str(corpus),
        layout=layout,
        duckdb=None if database is None else str(database),
        judges_file=None if judges_path is None else str(judges_path),
    )
    corpus_resource = CorpusResource(path=str(Path(settings.corpus.value).resolve()), layout=settings.layout.value)
    # only a run opens the DuckDB file: a deployment's variable is bound as such and resolved by the run
    bound = (
        dg.EnvVar(DUCKDB_VARIABLE)
        if settings.duckdb_from_environment()
        else str(Path(settings.duckdb.value).expanduser().resolve())
    )
    judges = JudgesResource(path=str(Path(settings.judges_file.value).expanduser().resolve()))
    specs = corpus_judges(corpus_resource.root(), corpus_resource.layout, Path(judges.path))
    partitioned = {spec.name: spec for spec in specs}
    asked = {spec.name: spec for spec in specs if spec.asked}
    observe = observe_condition(settings.observe_cron.value)
    assets = [*list(found.assets or []), contest_corpus_asset(observe)]
    observed: dg.AssetSelection = dg.AssetSelection.assets(CONTEST_CORPUS)
    sensors = [*list(found.sensors or []), automation_sensor()]
    jobs = [
        dg.define_asset_job(
            INGEST_JOB,
            selection=dg.AssetSelection.groups("ingest"),
            description="Contest data read into tables (unpartitioned).",
        ),
        dg.define_asset_job(
            REQUESTS_JOB,
            selection=dg.AssetSelection.assets("judge_requests"),
            description="Label-free judge requests, one partition per condition.",
        ),
        dg.define_asset_job(
            MUTANTS_JOB,
            selection=dg.AssetSelection.assets(
                "mutation_seeds", "mutants", "perturbation_requests", "perturbation_yield", *GRADED_PROGRAM_ASSETS
            ),
            description="Seeds re-run, mutants made and verified by execution, their blind requests.",
        ),
        dg.define_asset_job(
            PERTURBATION_METRICS_JOB,
            # findings: its arm rows
            selection=dg.AssetSelection.assets("perturbation_metrics", "findings", "graded_metrics"),
            description="The judges scored on the perturbation study.",
        ),
    ]
    jobs.append(
        dg.define_asset_job(
            MEASUREMENT_JOB,
            selection=dg.AssetSelection.assets("predictions")
            | dg.AssetSelection.groups("measurement", "estimation", "design"),
            description="Predictions joined to labels, and the judges scored as instruments (unpartitioned).",
        )
    )
    jobs.append(
        dg.define_asset_job(
            DYNAMICS_JOB,
            selection=dg.AssetSelection.groups("dynamics"),
            description="Co-creation dynamics (unpartitioned).",
        )
    )
    jobs.append(
        dg.define_asset_job(
            REPORT_JOB,
            selection=dg.AssetSelection.assets("drift_report", "report"),
            description="The drift comparison and the study report (HTML + Markdown).",
        )
    )
    if partitioned:
        assets += [judges_file_asset(specs, judges.path, observe), judge_outputs_asset(partitioned)]
        observed |= dg.AssetSelection.assets(JUDGES_FILE)
        outputs_job = dg.define_asset_job(
            OUTPUTS_JOB,
            selection=dg.AssetSelection.assets("judge_outputs"),
            description="Judge answers, one partition per condition x judge.",
        )
        jobs.append(outputs_job)
    if asked:
        assets.append(perturbation_outputs_asset(asked))
        perturbation_outputs_job = dg.define_asset_job(
            PERTURBATION_OUTPUTS_JOB,
            selection=dg.AssetSelection.assets("perturbation_outputs"),
            description="Judge answers on seeds and mutants (blind), one partition per judge.",
        )
        jobs.append(perturbation_outputs_job)
    assets += readers_of(assets)
    observe_job = dg.define_asset_job(
        OBSERVE_JOB, selection=observed, description="Observe the source assets: the corpus and the judges file."
    )
    jobs.append(observe_job)
    if asked:
        sensors.append(drift_sensor(observe_job))
    return dg.Definitions(
        assets=with_conditions(assets, {"judge_outputs": holding} if (holding := outputs_with_rows(specs)) else None),
        asset_checks=list(found.asset_checks or []),
        sensors=sensors,
        schedules=list(found.schedules or []),
        jobs=jobs,
        resources={
            "io_manager": CojudgeDuckDBIOManager(database=bound, schema="main"),
            "duckdb": LockedDuckDBResource(database=bound),
            "contest_judge": ContestJudgeResource(),
            "corpus": corpus_resource,
            "judges": judges,
        },
        executor=executor_from_environment(),
    )


@dg.definitions
def defs() -> dg.Definitions:
    """The code location ``dagster dev`` loads (workspace.yaml), built when it loads, not at import."""
    return build_definitions()
