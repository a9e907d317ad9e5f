"""The cojudge code location: every asset group under defs/, bound to DuckDB and the contest judge."""

from __future__ import annotations

import importlib
import os
import pkgutil
import warnings
from pathlib import Path

import dagster as dg

import cojudge_assets.defs as defs_folder
from cojudge_assets.defs.automation import (
    OBSERVE_JOB,
    automation_sensor,
    freshness_policy,
    observe_condition,
    with_conditions,
)
from cojudge_assets.defs.design.assets import findings_asset
from cojudge_assets.defs.ingest.assets import CONTEST_CORPUS, contest_corpus_asset, label_audit_asset
from cojudge_assets.defs.io import CojudgeDuckDBIOManager, LockedDuckDBResource
from cojudge_assets.defs.judging.assets import judge_outputs_asset
from cojudge_assets.defs.judging.sensors import batch_sensor
from cojudge_assets.defs.judging.sources import JUDGES_FILE, judges_file_asset
from cojudge_assets.defs.live import LIVE_LOGGER, live_logger
from cojudge_assets.defs.measurement.assets import (
    JUDGE_TABLES,
    judge_measurement_asset,
    measurement_asset,
    predictions_asset,
)
from cojudge_assets.defs.operations.assets import drift_report_asset
from cojudge_assets.defs.operations.sensors import drift_sensor, source_watch_sensor
from cojudge_assets.defs.partitions import bucket_partitions
from cojudge_assets.defs.perturbation.assets import (
    mutants_asset,
    perturbation_metrics_asset,
    perturbation_outputs_asset,
)
from cojudge_assets.defs.perturbation.graded import GRADED_PROGRAM_ASSETS, graded_scores_asset
from cojudge_assets.defs.report.assets import report_asset
from cojudge_assets.defs.resources import ContestJudgeResource, CorpusResource, JudgesResource
from cojudge_assets.judges.config import corpus_judges
from cojudge_assets.settings import (
    DUCKDB_VARIABLE,
    EXECUTORS,
    POSTGRES_VARIABLE,
    Settings,
    batch_sensor_interval_s,
    resolve_settings,
)

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
JUDGE_MEASUREMENT_JOB = "judge_measurement_job"  # the per-judge tables, one partition per condition x judge
DYNAMICS_JOB = "dynamics_job"
MUTANTS_JOB = "mutants_job"
LABEL_AUDIT_JOB = "label_audit_job"  # the label audit, one partition per attempt-hash bucket
MUTANT_SHARDS_JOB = "mutant_shards_job"  # the mutants made and verified, one partition per bucket of the seeds
PART_OF = "cojudge/part_of"  # job metadata: the named selection a sharded job belongs to (cli.resolve_selection)
PERTURBATION_OUTPUTS_JOB = "perturbation_outputs_job"
PERTURBATION_METRICS_JOB = "perturbation_metrics_job"
REPORT_JOB = "report_job"


def executor_from_environment() -> dg.ExecutorDefinition:
    """``$COJUDGE_EXECUTOR``: ``in_process`` (default: DuckDB has one writer per file, so the steps of a run
    share one process), ``multiprocess`` (steps in parallel processes, for a storage that takes concurrent
    writers; at most ``$COJUDGE_MAX_CONCURRENT`` steps at once, default one per core) or ``celery`` (steps sent to
    Celery workers through ``$COJUDGE_CELERY_BROKER``, executors.py). Configuration, not code, chooses it: see
    docs/operations.md."""
    name = os.environ.get("COJUDGE_EXECUTOR") or "in_process"  # set but empty: the default, as the preflight reads it
    if name not in EXECUTORS:
        raise ValueError(f"COJUDGE_EXECUTOR={name!r}: expected one of {', '.join(EXECUTORS)}")
    if name == "in_process":
        return dg.in_process_executor
    if name == "celery":
        from cojudge_assets.executors import celery_executor_from_environment

        return celery_executor_from_environment()
    return dg.multiprocess_executor.configured(
        {"max_concurrent": int(os.environ.get("COJUDGE_MAX_CONCURRENT", "").strip() or 0)}, name="multiprocess"
    )


def _names(assets: list) -> set[str]:
    keys = [key for asset in assets for key in (asset.keys if isinstance(asset, dg.AssetsDefinition) else [asset.key])]
    return {key.to_user_string() for key in keys}


def readers_of(assets: list) -> list[dg.AssetsDefinition]:
    """The assets whose inputs depend on which assets the Definitions hold (``judge_outputs`` and ``judges_file``
    only with a judge, ``perturbation_outputs`` only with an asked judge; ``findings`` reads the latter): each made
    by its module's factory with the inputs ``assets`` hold, the report last, over everything else."""
    outputs = [a for a in assets if isinstance(a, dg.AssetsDefinition) and dg.AssetKey("judge_outputs") in a.keys]
    # predictions and the per-judge tables are partitioned as the answers (with no judge, predictions is empty)
    readers = [predictions_asset(_names(assets), outputs[0].partitions_def if outputs else None)]
    if outputs and outputs[0].partitions_def is not None:
        readers.append(judge_measurement_asset(_names(assets + readers), outputs[0].partitions_def))
    readers += [
        factory(_names(assets + readers))
        for factory in (
            measurement_asset,
            drift_report_asset,
            perturbation_metrics_asset,
            findings_asset,
            graded_scores_asset,
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


# The words of the asset descriptions that name the embedded profile's stores, and what the deployed profile says
# instead (storage_resources): the UI describes where the rows of the running profile are.
DEPLOYED_WORDS = {
    "DuckDB table judge_cache": "Postgres table judge_cache (the database of COJUDGE_POSTGRES_URL)",
}


def for_profile(assets: list, deployed: bool) -> list:
    """The assets as the UI shows them under the profile: under the deployed one, the descriptions name its
    stores (:data:`DEPLOYED_WORDS`) and the tables are of kind deltalake, not duckdb."""
    if not deployed:
        return assets

    def deployed_spec(spec: dg.AssetSpec) -> dg.AssetSpec:
        text = spec.description or ""
        for embedded, there in DEPLOYED_WORDS.items():
            text = text.replace(embedded, there)
        kinds = (set(spec.kinds) - {"duckdb"}) | ({"deltalake"} if "duckdb" in spec.kinds else set())
        return spec.replace_attributes(description=text or None, kinds=kinds)

    return [
        asset.map_asset_specs(deployed_spec)
        if isinstance(asset, dg.AssetsDefinition) and asset.is_materializable
        else asset
        for asset in assets
    ]


def storage_resources(settings: Settings, bound: str | dg.EnvVar) -> dict:
    """The IO manager and the ``duckdb`` resource of the profile (settings.py ``COJUDGE_PROFILE``): the only
    difference between the profiles. Embedded: the DuckDB file ``bound`` (defs/io.py). Deployed: Delta tables under
    ``COJUDGE_TABLES_URI`` and the judge store in ``COJUDGE_POSTGRES_URL``'s database; the side files still go
    beside ``bound`` (defs/deployed.py)."""
    if not settings.deployed:
        return {
            "io_manager": CojudgeDuckDBIOManager(database=bound, schema="main"),
            "duckdb": LockedDuckDBResource(database=bound),
        }
    from cojudge_assets.defs.deployed import DeployedStores, tables_io_manager

    io_manager = tables_io_manager(settings.tables_uri.value)
    return {
        "io_manager": io_manager,
        "duckdb": DeployedStores(
            database=bound,
            # read by each run from its environment, so the URL's password never enters the code location's
            # snapshot (the UI's resource page, and the job snapshot Postgres stores with every run)
            postgres_url=dg.EnvVar(POSTGRES_VARIABLE),
            tables_root=io_manager.root_uri,
            provider_limits=settings.provider_limits.value,
        ),
    }


def build_definitions(
    *,
    corpus: str | Path | None = None,
    layout: str | None = None,
    database: str | Path | None = None,
    judges_path: str | Path | None = None,
    cache: str | Path | None = None,
) -> dg.Definitions:
    """The code location, its resources bound once, here, from settings.py ``resolve_settings`` (an argument, else
    the environment, else a default under the working folder; the command passes what its preflight resolved the
    same way), read when the Definitions are built, never at import: the corpus ($COJUDGE_CORPUS/$COJUDGE_LAYOUT,
    else ./data/demo), the DuckDB file (bound as ``dg.EnvVar("COJUDGE_DUCKDB")`` when the variable is set, so a
    run resolves it, else ./data/cojudge.duckdb), the judges file ($COJUDGE_JUDGES, else ./data/judges.yaml) and
    how often a deployment observes them ($COJUDGE_OBSERVE_CRON) and evaluates the automation conditions
    ($COJUDGE_AUTOMATION_INTERVAL_S), the contest judge's cache folder ($COJUDGE_CACHE, else
    $XDG_CACHE_HOME/cojudge, else ~/.cache/cojudge), and how many attempt-hash buckets the sandboxed steps (the
    label audit, the mutant verification) are split into ($COJUDGE_SHARDS). The judge partitions are the
    enabled judges of that judges file, then the imported judges the corpus's layout brings (the ICE-Score
    release's); imported judges answer nothing new, so they have no partition of ``perturbation_outputs``."""
    # the groups' modules under defs/ define assets and asset checks only; loaded by package, because
    # dg.load_from_defs_folder needs the project's pyproject.toml on disk, which an installed wheel has not
    found = dg.Definitions(
        assets=[a for group in _groups() for a in dg.load_assets_from_package_module(group)],
        asset_checks=[c for group in _groups() for c in dg.load_asset_checks_from_package_module(group)],
    )
    settings = resolve_settings(
        corpus=None if corpus is None else str(corpus),
        layout=layout,
        duckdb=None if database is None else str(database),
        judges_file=None if judges_path is None else str(judges_path),
        cache=None if cache is None else str(cache),
    )
    corpus_resource = CorpusResource(path=str(Path(settings.corpus.value).resolve()), layout=settings.layout.value)
    # only a run opens the DuckDB file: a deployment's variable is bound as such and resolved by the run
    bound = (
        dg.EnvVar(DUCKDB_VARIABLE)
        if settings.duckdb_from_environment()
        else str(Path(settings.duckdb.value).expanduser().resolve())
    )
    problems = settings.profile_problems()
    if problems:
        raise ValueError("; ".join(problems))
    judges = JudgesResource(path=str(Path(settings.judges_file.value).expanduser().resolve()))
    specs = corpus_judges(corpus_resource.root(), corpus_resource.layout, Path(judges.path))
    partitioned = {spec.name: spec for spec in specs}
    asked = {spec.name: spec for spec in specs if spec.asked}
    observe = observe_condition(settings.observe_cron.value)
    buckets = bucket_partitions(settings.shard_count())
    assets = [
        *list(found.assets or []),
        contest_corpus_asset(observe),
        label_audit_asset(buckets),
        mutants_asset(buckets),
    ]
    observed: dg.AssetSelection = dg.AssetSelection.assets(CONTEST_CORPUS)
    sensors = [*list(found.sensors or []), automation_sensor(settings.automation_interval_s())]
    jobs = [
        dg.define_asset_job(
            INGEST_JOB,
            selection=dg.AssetSelection.groups("ingest") - dg.AssetSelection.assets("label_audit"),
            description="Contest data read into tables (unpartitioned; the label audit is its sharded part).",
        ),
        dg.define_asset_job(
            LABEL_AUDIT_JOB,
            selection=dg.AssetSelection.assets("label_audit"),
            metadata={PART_OF: INGEST_JOB},
            description="The label audit: recorded verdicts re-executed, one partition per attempt-hash bucket.",
        ),
        dg.define_asset_job(
            REQUESTS_JOB,
            selection=dg.AssetSelection.assets("judge_requests"),
            description="Label-free judge requests, one partition per condition.",
        ),
        dg.define_asset_job(
            MUTANTS_JOB,
            selection=dg.AssetSelection.assets(
                "mutation_seeds", "perturbation_requests", "perturbation_yield", *GRADED_PROGRAM_ASSETS
            ),
            description="Seeds re-run, their mutants' blind requests (the mutants are its sharded part).",
        ),
        dg.define_asset_job(
            MUTANT_SHARDS_JOB,
            selection=dg.AssetSelection.assets("mutants"),
            metadata={PART_OF: MUTANTS_JOB},
            description="Mutants made and verified by execution, one partition per attempt-hash bucket of the seeds.",
        ),
        dg.define_asset_job(
            PERTURBATION_METRICS_JOB,
            # findings: its arm rows
            selection=dg.AssetSelection.assets("perturbation_metrics", "findings", "graded_scores", "graded_metrics"),
            description="The judges scored on the perturbation study.",
        ),
    ]
    jobs.append(
        dg.define_asset_job(
            MEASUREMENT_JOB,
            selection=(
                (
                    dg.AssetSelection.groups("measurement", "estimation", "design")
                    - dg.AssetSelection.assets(*JUDGE_TABLES)
                )
                if partitioned
                else dg.AssetSelection.assets("predictions")
                | dg.AssetSelection.groups("measurement", "estimation", "design")
            ),
            description="The judges scored as instruments across judges (unpartitioned; with "
            f"{JUDGE_MEASUREMENT_JOB}, predictions and the per-judge tables).",
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
        jobs.append(
            dg.define_asset_job(
                JUDGE_MEASUREMENT_JOB,
                selection=dg.AssetSelection.assets("predictions", *JUDGE_TABLES),
                metadata={PART_OF: MEASUREMENT_JOB},
                description="Predictions and the per-judge measurement tables, one partition per condition x judge.",
            )
        )
        if any(spec.asked and spec.mode == "batch" for spec in specs):
            sensors.append(batch_sensor(outputs_job, batch_sensor_interval_s()))
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
    sensors.append(source_watch_sensor(observe_job, settings.automation_interval_s()))
    if asked:
        sensors.append(drift_sensor(observe_job))
    return dg.Definitions(
        assets=with_conditions(
            for_profile(assets, settings.deployed),
            {name: holding for name in ("judge_outputs", "predictions", *JUDGE_TABLES)}
            if (holding := outputs_with_rows(specs))
            else None,
            freshness_policy(hours) if (hours := settings.freshness_hours()) is not None else None,
        ),
        asset_checks=list(found.asset_checks or []),
        sensors=sensors,
        schedules=list(found.schedules or []),
        jobs=jobs,
        resources={
            **storage_resources(settings, bound),
            "contest_judge": ContestJudgeResource(cache=str(Path(settings.cache.value).expanduser().resolve())),
            "corpus": corpus_resource,
            "judges": judges,
        },
        executor=executor_from_environment(),
        # Dagster's console logger (the default of a run that configures none), and the command's live line
        loggers={"console": dg.colored_console_logger, LIVE_LOGGER: live_logger},
    )


def _groups() -> list:
    """The asset groups' packages under defs/ (defs/ingest, defs/judging, ...): where assets and checks live. The
    modules beside them (io, automation, versions, partitions, resources, deployed) hold none, and the deployed
    profile's imports Delta Lake and Postgres, which the embedded profile never loads."""
    return [
        importlib.import_module(f"{defs_folder.__name__}.{module.name}")
        for module in pkgutil.iter_modules(defs_folder.__path__)
        if module.ispkg
    ]


@dg.definitions
def defs() -> dg.Definitions:
    """The code location ``dagster dev`` loads (workspace.yaml), built when it loads, not at import."""
    return build_definitions()
