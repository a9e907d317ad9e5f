"""The run's settings, resolved once: a flag, else the environment, else a default under the working folder.

The command (cli.py, through its preflight) and the Definitions (definitions.py ``build_definitions``) both call
:func:`resolve_settings`; no default depends on where the package is installed: the DuckDB file is
``./data/cojudge.duckdb``, the judges file ``./data/judges.yaml``, the corpus ``./data/demo``, the Dagster instance
``./dagster_home``, all under the folder the command runs in. Where the working folder has no ``data/demo`` or
no ``data/judges.yaml`` (an installed wheel run from an empty folder), the default is the copy the package ships
(``cojudge_assets/shipped/``: the demo corpus and the default judges file, read only, never written), so ``cojudge
materialize`` runs the demo from any folder and writes only under it (and the cache). The contest judge's cache
folder, shared by every run of the user, is ``--cache``, else ``$COJUDGE_CACHE``, else ``$XDG_CACHE_HOME/cojudge``,
else ``~/.cache/cojudge``; core/ never looks it up, it is handed the folder. Each setting remembers how it was set, so a
message can name the flag or the variable at fault.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

DUCKDB_VARIABLE = "COJUDGE_DUCKDB"
JUDGES_VARIABLE = "COJUDGE_JUDGES"  # judges/config.py reads the same name
CORPUS_VARIABLE = "COJUDGE_CORPUS"
LAYOUT_VARIABLE = "COJUDGE_LAYOUT"
HOME_VARIABLE = "DAGSTER_HOME"
OBSERVE_CRON_VARIABLE = "COJUDGE_OBSERVE_CRON"
FRESHNESS_VARIABLE = "COJUDGE_FRESHNESS_HOURS"  # defs/automation.py freshness_policy: a study's expected cadence
SHARDS_VARIABLE = "COJUDGE_SHARDS"
AUTOMATION_INTERVAL_VARIABLE = "COJUDGE_AUTOMATION_INTERVAL_S"
CACHE_VARIABLE = "COJUDGE_CACHE"
XDG_CACHE_VARIABLE = "XDG_CACHE_HOME"  # the cache's default is cojudge/ in it (the XDG base directory rule)
PROFILE_VARIABLE = "COJUDGE_PROFILE"
POSTGRES_VARIABLE = "COJUDGE_POSTGRES_URL"
TABLES_VARIABLE = "COJUDGE_TABLES_URI"
PROVIDER_LIMITS_VARIABLE = "COJUDGE_PROVIDER_LIMITS"

DEFAULT_DUCKDB = Path("data") / "cojudge.duckdb"  # relative: under the working folder
DEFAULT_JUDGES = Path("data") / "judges.yaml"
DEFAULT_CORPUS = Path("data") / "demo"
DEFAULT_HOME = Path("dagster_home")
DEFAULT_LAYOUT = "pages"
DEFAULT_OBSERVE_CRON = "*/5 * * * *"  # how often a deployment observes the corpus and the judges file
DEFAULT_SHARDS = 4  # attempt-hash buckets of the sandboxed steps (the label audit, the mutant verification)
MAX_SHARDS = 256
DEFAULT_AUTOMATION_INTERVAL_S = 30  # how often a deployment's automation sensor evaluates the conditions


def shipped(name: str) -> Path:
    """A file or folder the package ships in ``cojudge_assets/shipped/`` (pyproject.toml package data): ``demo``
    (the demo corpus), ``judges.yaml`` (the default judges file), ``dagster.yaml`` (a new DAGSTER_HOME's
    configuration). In the repository these are links to ``data/`` and ``dagster_home/``; a wheel holds copies."""
    folder = resources.files("cojudge_assets") / "shipped"
    if not isinstance(folder, Path):  # a package imported from a zip file: no folder to hand to a subprocess
        raise RuntimeError(f"cojudge_assets is not installed as files on disk ({folder}); install it from a wheel")
    return folder / name


def default_corpus(cwd: Path | None = None) -> Path:
    """``./data/demo`` when the working folder has it (a checkout of the repository), else the shipped demo."""
    local = (cwd or Path.cwd()) / DEFAULT_CORPUS
    return DEFAULT_CORPUS if local.is_dir() else shipped("demo")


def default_judges(cwd: Path | None = None) -> Path:
    """``./data/judges.yaml`` when the working folder has it, else the shipped default judges file (the two local
    judges enabled, the hosted ones listed and disabled): copy it to ``./data/judges.yaml`` to change it."""
    local = (cwd or Path.cwd()) / DEFAULT_JUDGES
    return DEFAULT_JUDGES if local.is_file() else shipped("judges.yaml")


def default_cache(environ: Mapping[str, str]) -> Path:
    """``$XDG_CACHE_HOME/cojudge``, else ``~/.cache/cojudge``: the one place the cache folder's default is read
    (core/ is handed the folder: defs/resources.py ``ContestJudgeResource``)."""
    return Path(environ.get(XDG_CACHE_VARIABLE) or Path.home() / ".cache") / "cojudge"


def cache_folder(environ: Mapping[str, str] | None = None) -> Path:
    """The cache folder of a caller with no flag (a local judge built outside a run, the demo generator):
    ``$COJUDGE_CACHE``, else :func:`default_cache`."""
    return Path(resolve_settings(environ=environ).cache.value).expanduser()


EMBEDDED, DEPLOYED = "embedded", "deployed"
PROFILES = (EMBEDDED, DEPLOYED)


@dataclass(frozen=True)
class Setting:
    """A setting's value and how it was set (the flag or variable to name in a message)."""

    name: str
    value: str
    explicit: bool  # set by a flag or a variable (not a default)


@dataclass(frozen=True)
class Settings:
    corpus: Setting
    layout: Setting
    duckdb: Setting
    judges_file: Setting
    home: Setting
    observe_cron: Setting
    automation_interval: Setting
    cache: Setting  # the contest judge's cache folder: compile/ (compiled programs, results), runner/, javac/
    shards: Setting

    def shard_count(self) -> int:
        """How many attempt-hash buckets the sandboxed steps are split into (core/shards.py), 1 to
        :data:`MAX_SHARDS`; a ValueError names the variable. Every process of a deployment (daemon, code server,
        workers) must see the same value: it is the partitions of those steps."""
        raw = self.shards.value.strip()
        if not raw.isdigit() or not 1 <= int(raw) <= MAX_SHARDS:
            raise ValueError(f"{self.shards.name}={raw!r}: expected a whole number of buckets from 1 to {MAX_SHARDS}")
        return int(raw)

    def automation_interval_s(self) -> int:
        """The automation sensor's interval in whole seconds (at least 1); a ValueError names the variable."""
        value = self.automation_interval.value
        if not value.isdigit() or int(value) < 1:
            raise ValueError(f"{self.automation_interval.name}={value!r}: expected a whole number of seconds >= 1")
        return int(value)

    # the deployment profile (docs/operations.md "Beyond one machine"): embedded (one DuckDB file, the default) or
    # deployed (a Postgres instance and judge cache, Delta tables under a folder or object-store URI)
    profile: Setting = Setting(PROFILE_VARIABLE, EMBEDDED, False)
    postgres_url: Setting = Setting(POSTGRES_VARIABLE, "", False)
    tables_uri: Setting = Setting(TABLES_VARIABLE, "", False)
    provider_limits: Setting = Setting(PROVIDER_LIMITS_VARIABLE, "", False)
    # how often a study is expected to take new data (unset: no expectation, no freshness policy)
    freshness: Setting = Setting(FRESHNESS_VARIABLE, "", False)

    def freshness_hours(self) -> float | None:
        """The hours after which the study's ingest and report count as late (None: unset); a ValueError names the
        variable."""
        value = self.freshness.value.strip()
        if not value:
            return None
        if not _positive_number(value):
            raise ValueError(f"{self.freshness.name}={value!r}: expected a positive number of hours")
        return float(value)

    @property
    def deployed(self) -> bool:
        return self.profile.value == DEPLOYED

    def profile_problems(self) -> list[str]:
        """Why these settings make no profile (empty when they do): an unknown profile, or the deployed one
        without the settings it needs, each naming the variable."""
        if self.profile.value not in PROFILES:
            return [f"{self.profile.name}={self.profile.value!r}: expected one of {', '.join(PROFILES)}"]
        if not self.deployed:
            return []
        problems = []
        if not self.postgres_url.value:
            problems.append(
                f"{POSTGRES_VARIABLE} is not set: the deployed profile keeps its Dagster instance and judge cache "
                "in Postgres (e.g. postgresql+psycopg2://user@host:5432/cojudge)"
            )
        elif not self.postgres_url.value.startswith(("postgresql://", "postgresql+psycopg2://", "postgres://")):
            problems.append(
                f"{POSTGRES_VARIABLE}={redact(self.postgres_url.value)!r}: expected a postgresql+psycopg2:// URL"
            )
        elif where := url_secret(self.postgres_url.value):
            problems.append(
                f"{POSTGRES_VARIABLE}={redact(self.postgres_url.value)!r} carries a password in {where}: a URL is "
                "shown in logs and written into dagster.yaml and markers, so leave the password out of it and give "
                "it to libpq in PGPASSWORD or a ~/.pgpass file (PGPASSFILE) in the environment of every process of "
                "the deployment (docs/operations.md, Runbook)"
            )
        if not self.tables_uri.value:
            problems.append(
                f"{TABLES_VARIABLE} is not set: the deployed profile writes its tables as Delta tables under "
                "this folder or object-store URI (e.g. /srv/cojudge/tables or s3://bucket/cojudge)"
            )
        return problems

    def duckdb_from_environment(self) -> bool:
        """Whether the DuckDB file is the deployment's variable (bound as ``dg.EnvVar``, resolved by each run)."""
        return self.duckdb.name == DUCKDB_VARIABLE


def _one(
    flag: str | None, flag_name: str, variable: str | None, environ: Mapping[str, str], default, default_name: str
) -> Setting:
    if flag:
        return Setting(flag_name, str(flag), True)
    if variable and environ.get(variable):
        return Setting(variable, environ[variable], True)
    return Setting(default_name, str(default), False)


def resolve_settings(
    *,
    corpus: str | None = None,
    layout: str | None = None,
    duckdb: str | None = None,
    judges_file: str | None = None,
    cache: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Every setting: the argument (a flag) if given, else its variable in ``environ`` (the process's by default),
    else its default under the working folder (the corpus and the judges file: the shipped ones when the working
    folder has none)."""
    environ = os.environ if environ is None else environ
    return Settings(
        corpus=_one(
            corpus, "--corpus", CORPUS_VARIABLE, environ, default_corpus(), "--corpus (default: the demo corpus)"
        ),
        layout=_one(layout, "--layout", LAYOUT_VARIABLE, environ, DEFAULT_LAYOUT, "--layout"),
        duckdb=_one(duckdb, "--duckdb", DUCKDB_VARIABLE, environ, DEFAULT_DUCKDB, "--duckdb (default)"),
        judges_file=_one(
            judges_file, "--judges-file", JUDGES_VARIABLE, environ, default_judges(), "--judges-file (default)"
        ),
        home=_one(None, HOME_VARIABLE, HOME_VARIABLE, environ, DEFAULT_HOME, HOME_VARIABLE),
        observe_cron=_one(
            None, OBSERVE_CRON_VARIABLE, OBSERVE_CRON_VARIABLE, environ, DEFAULT_OBSERVE_CRON, OBSERVE_CRON_VARIABLE
        ),
        automation_interval=_one(
            None,
            AUTOMATION_INTERVAL_VARIABLE,
            AUTOMATION_INTERVAL_VARIABLE,
            environ,
            DEFAULT_AUTOMATION_INTERVAL_S,
            AUTOMATION_INTERVAL_VARIABLE,
        ),
        cache=_one(cache, "--cache", CACHE_VARIABLE, environ, default_cache(environ), "--cache (default)"),
        shards=_one(None, SHARDS_VARIABLE, SHARDS_VARIABLE, environ, DEFAULT_SHARDS, SHARDS_VARIABLE),
        profile=_one(None, PROFILE_VARIABLE, PROFILE_VARIABLE, environ, EMBEDDED, PROFILE_VARIABLE),
        postgres_url=_one(None, POSTGRES_VARIABLE, POSTGRES_VARIABLE, environ, "", POSTGRES_VARIABLE),
        tables_uri=_one(None, TABLES_VARIABLE, TABLES_VARIABLE, environ, "", TABLES_VARIABLE),
        provider_limits=_one(
            None, PROVIDER_LIMITS_VARIABLE, PROVIDER_LIMITS_VARIABLE, environ, "", PROVIDER_LIMITS_VARIABLE
        ),
        freshness=_one(None, FRESHNESS_VARIABLE, FRESHNESS_VARIABLE, environ, "", FRESHNESS_VARIABLE),
    )


def shard_count(environ: Mapping[str, str] | None = None) -> int:
    """The shard count of the settings ``environ`` (the process's by default) resolves to: see
    :meth:`Settings.shard_count`."""
    return resolve_settings(environ=environ).shard_count()


# libpq's connection parameters (and the spellings of other clients) whose value is a secret: a URL holding one is
# refused (Settings.profile_problems) and shown with the value replaced (redact)
SECRET_WORDS = ("password", "passwd", "pwd", "secret", "token")


def _secret_name(name: str) -> bool:
    from urllib.parse import unquote

    lowered = unquote(name).strip().lower()
    return any(word in lowered for word in SECRET_WORDS)


def url_secret(url: str) -> str | None:
    """Where ``url`` carries a password (``"its user part"``, ``"its query parameter 'password'"``), or None: libpq
    takes a password in the user part and as ``?password=`` (``?sslpassword=`` too), in any spelling of the name
    (percent-encoded, any case)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # a malformed host part: whatever follows the scheme may hold anything
        return "a part that cannot be parsed"
    if password is not None:
        return "its user part (user:password@)"
    for piece in filter(None, (parts.query + "&" + parts.fragment).split("&")):
        name = piece.split("=", 1)[0]
        if _secret_name(name):
            return f"its query parameter {name!r}"
    return None


def redact(url: str) -> str:
    """A URL fit for a message, a log or a marker: a password in its user part and the value of every query
    parameter that holds a secret (:data:`SECRET_WORDS`) replaced by ``***``."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return f"{url.split('://', 1)[0]}://***" if "://" in url else "***"
    if password is not None:
        # the host part as written (an IPv6 host keeps its brackets; a port that is not a number is not parsed here)
        host = parts.netloc.rsplit("@", 1)[1]
        parts = parts._replace(netloc=f"{parts.username}:***@{host}")

    def hidden(query: str) -> str:
        pieces = []
        for piece in query.split("&"):
            name, equals, _ = piece.partition("=")
            pieces.append(f"{name}=***" if equals and _secret_name(name) else piece)
        return "&".join(pieces)

    return urlunsplit(parts._replace(query=hidden(parts.query), fragment=hidden(parts.fragment)))


def database_identity(url: str) -> tuple[str, str, int, str]:
    """Which database a Postgres URL names, whatever else it carries (driver, query, a password): user, host, port
    and database name. Two URLs with one identity are one deployment's (defs/deployed.py ``claim_storage``)."""
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(url)
    try:
        port = parts.port or 5432
    except ValueError:
        port = 0
    return (unquote(parts.username or ""), (parts.hostname or "").lower(), port, parts.path.strip("/"))


def libpq_url(url: str) -> str:
    """The libpq (psycopg2) form of a SQLAlchemy Postgres URL: the ``+psycopg2`` driver suffix dropped."""
    return "postgresql://" + url.split("://", 1)[1] if "://" in url else url


def provider_limits(text: str) -> dict[str, int]:
    """``COJUDGE_PROVIDER_LIMITS``: ``provider=limit`` pairs separated by commas (``*=n``: every other provider),
    the most runs of one provider's judges at once. Raises ValueError naming the variable and the bad pair."""
    limits: dict[str, int] = {}
    for pair in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = pair.rpartition("=")
        if not name or not value.strip().isdigit() or int(value) < 1:
            raise ValueError(
                f"{PROVIDER_LIMITS_VARIABLE}: {pair!r} is not provider=limit with a limit of at least 1 "
                "(e.g. api.openai.com=4,127.0.0.1:8001=2,*=2)"
            )
        limits[name.strip()] = int(value)
    return limits


def runs_at_once(limits: Mapping[str, int], provider: str) -> int:
    """How many runs of ``provider``'s judges the run queue lets run at once under ``limits``
    (:func:`provider_limits`): its own limit, capped by ``*``'s; 1 when neither is set (``cojudge deployment
    config`` refuses such a provider)."""
    own, every = limits.get(provider), limits.get("*")
    if own is not None and every is not None:
        return min(own, every)
    return own if own is not None else every if every is not None else 1


EXECUTOR_VARIABLE = "COJUDGE_EXECUTOR"
MAX_CONCURRENT_VARIABLE = "COJUDGE_MAX_CONCURRENT"
CELERY_BROKER_VARIABLE = "COJUDGE_CELERY_BROKER"  # executors.py reads them
CELERY_BACKEND_VARIABLE = "COJUDGE_CELERY_BACKEND"
SECCOMP_VARIABLE = "COJUDGE_SECCOMP"  # core/execution/syscall_filter.py reads it
CGROUPS_VARIABLE = "COJUDGE_CGROUPS"  # core/execution/cgroups.py reads it
RUN_BUDGET_VARIABLE = "COJUDGE_MAX_RUN_COST_USD"  # judges/estimate.py reads it: the run's budget, over its partitions
BUDGET_WINDOW_VARIABLE = "COJUDGE_BUDGET_WINDOW"  # judges/estimate.py reads it: the runs that share one run budget
BUDGET_WINDOWS = ("run", "hour", "day", "week", "month")
BATCH_SENSOR_INTERVAL_VARIABLE = "COJUDGE_BATCH_SENSOR_INTERVAL_S"  # definitions.py: the pending_batches sensor's
DEFAULT_BATCH_SENSOR_INTERVAL_S = 600
EXECUTORS = ("in_process", "multiprocess", "celery")  # definitions.py executor_from_environment
SECCOMP_CHOICES = ("on", "off")
CGROUPS_CHOICES = ("auto", "on", "v1", "v2", "off", "0", "no", "false")

# Every COJUDGE_* variable the code reads: its default and what it takes (docs/operations.md lists them). The
# command's preflight checks each one that is set (:func:`variable_problems`), so a bad value is one line and exit 2
# before anything runs, never a traceback from the Definitions or a silent fallback.
VARIABLES: dict[str, tuple[str, str]] = {
    CORPUS_VARIABLE: ("./data/demo, else the shipped demo", "a readable corpus folder"),
    LAYOUT_VARIABLE: (DEFAULT_LAYOUT, "a corpus layout (cojudge materialize --help lists them)"),
    DUCKDB_VARIABLE: (str(DEFAULT_DUCKDB), "a DuckDB file path whose folder exists or can be created"),
    JUDGES_VARIABLE: ("./data/judges.yaml, else the shipped one", "a judges file (docs/judging.md)"),
    CACHE_VARIABLE: ("$XDG_CACHE_HOME/cojudge, else ~/.cache/cojudge", "a writable folder, or one that can be created"),
    OBSERVE_CRON_VARIABLE: (DEFAULT_OBSERVE_CRON, "a 5-field cron expression, e.g. */5 * * * *"),
    AUTOMATION_INTERVAL_VARIABLE: (str(DEFAULT_AUTOMATION_INTERVAL_S), "a whole number of seconds >= 1"),
    SHARDS_VARIABLE: (str(DEFAULT_SHARDS), f"a whole number from 1 to {MAX_SHARDS}"),
    PROFILE_VARIABLE: (EMBEDDED, "one of " + ", ".join(PROFILES)),
    POSTGRES_VARIABLE: ("(unset)", "a postgresql+psycopg2:// URL (deployed profile)"),
    TABLES_VARIABLE: ("(unset)", "a folder or object-store URI (deployed profile)"),
    PROVIDER_LIMITS_VARIABLE: ("(unset)", "provider=limit pairs, comma-separated, e.g. api.openai.com=4,*=2"),
    EXECUTOR_VARIABLE: ("in_process", "one of " + ", ".join(EXECUTORS)),
    MAX_CONCURRENT_VARIABLE: ("0 (one step per core)", "a whole number >= 0"),
    CELERY_BROKER_VARIABLE: ("(unset)", "the broker's URL, e.g. redis://127.0.0.1:6379/0 (required by celery)"),
    CELERY_BACKEND_VARIABLE: ("the broker", "a URL, e.g. redis://127.0.0.1:6379/1"),
    SECCOMP_VARIABLE: ("on", "one of " + ", ".join(SECCOMP_CHOICES)),
    CGROUPS_VARIABLE: ("auto", "one of " + ", ".join(CGROUPS_CHOICES)),
    RUN_BUDGET_VARIABLE: ("(unset: no run budget)", "a positive number of USD"),
    BUDGET_WINDOW_VARIABLE: (
        "(unset: one budget per cojudge materialize; a day for a run without its tag, as the daemon's)",
        "one of " + ", ".join(BUDGET_WINDOWS),
    ),
    FRESHNESS_VARIABLE: ("(unset: no freshness policy)", "a positive number of hours"),
    BATCH_SENSOR_INTERVAL_VARIABLE: (str(DEFAULT_BATCH_SENSOR_INTERVAL_S), "a whole number of seconds >= 1"),
}


def _positive_number(value: str) -> bool:
    try:
        return 0 < float(value.strip()) < float("inf")
    except ValueError:
        return False


def _is_url(value: str) -> bool:
    from urllib.parse import urlsplit

    parts = urlsplit(value)
    return bool(parts.scheme) and value.startswith(f"{parts.scheme}://")


def _cron_problem(value: str) -> str | None:
    """Why ``value`` is no cron expression Dagster runs (None when it is one), asked of Dagster's own check (a
    schedule refuses what its evaluator could not tick on); imported only when the variable is set."""
    import dagster as dg

    try:
        dg.ScheduleDefinition(name="cojudge_observe_cron_check", cron_schedule=value, job_name="check")
    except dg.DagsterInvalidDefinitionError:
        return "not a cron expression Dagster recognizes"
    return None


def variable_problems(environ: Mapping[str, str] | None = None, *, profile: bool = True) -> list[str]:
    """One line per ``COJUDGE_*`` variable of ``environ`` set to a value the code cannot use, naming the variable,
    the value and what it takes (:data:`VARIABLES`); a variable that is no known one but one letter or two from a
    known one (SHARDS mistyped) is refused as a likely typo. The paths (corpus, DuckDB file, judges file, cache)
    are checked by the preflight that opens them; the deployed profile's settings by :meth:`Settings.profile_problems`
    (with ``profile``)."""
    environ = os.environ if environ is None else environ
    problems: list[str] = []

    def refuse(name: str, value: str) -> None:
        problems.append(f"{name}={value!r}: expected {VARIABLES[name][1]}")

    def choice(name: str, choices: tuple[str, ...]) -> None:
        value = environ.get(name, "")
        if value and value.strip().lower() not in choices:
            refuse(name, value)

    accepts = {
        EXECUTOR_VARIABLE: lambda value: value in EXECUTORS,  # read as written (definitions.py)
        MAX_CONCURRENT_VARIABLE: lambda value: value.strip().isdigit(),
        RUN_BUDGET_VARIABLE: _positive_number,
        FRESHNESS_VARIABLE: _positive_number,
        BATCH_SENSOR_INTERVAL_VARIABLE: lambda value: value.strip().isdigit() and int(value) >= 1,
    }
    for name, accepted in accepts.items():
        if (value := environ.get(name, "")) and not accepted(value):
            refuse(name, value)
    choice(SECCOMP_VARIABLE, SECCOMP_CHOICES)
    choice(BUDGET_WINDOW_VARIABLE, BUDGET_WINDOWS)
    choice(CGROUPS_VARIABLE, CGROUPS_CHOICES)
    for name in (CELERY_BROKER_VARIABLE, CELERY_BACKEND_VARIABLE):
        if (value := environ.get(name, "").strip()) and not _is_url(value):
            problems.append(f"{name}={redact(value)!r}: expected {VARIABLES[name][1]}")
    if environ.get(EXECUTOR_VARIABLE) == "celery" and not environ.get(CELERY_BROKER_VARIABLE, "").strip():
        problems.append(
            f"{EXECUTOR_VARIABLE}=celery needs {CELERY_BROKER_VARIABLE}: {VARIABLES[CELERY_BROKER_VARIABLE][1]}"
        )
    settings = resolve_settings(environ=environ)
    for check in (settings.automation_interval_s, settings.shard_count):
        try:
            check()
        except ValueError as exc:
            problems.append(str(exc))
    if (value := environ.get(OBSERVE_CRON_VARIABLE, "")) and (why := _cron_problem(value)):
        problems.append(f"{OBSERVE_CRON_VARIABLE}={value!r}: {why}; expected {VARIABLES[OBSERVE_CRON_VARIABLE][1]}")
    try:
        provider_limits(environ.get(PROVIDER_LIMITS_VARIABLE, ""))
    except ValueError as exc:
        problems.append(str(exc))
    if profile:  # (``cojudge deployment config`` words the profile's problems itself: deployment.py)
        if profile_problems := settings.profile_problems():  # one line: the profile's settings together
            problems.append("; ".join(profile_problems))
    problems.extend(_typos(environ))
    return problems


def _typos(environ: Mapping[str, str]) -> list[str]:
    """A ``COJUDGE_*`` variable that is no known one but close to one (SHARDS mistyped): a likely typo, whose
    value would otherwise be silently ignored. Others (a test's own variables) are left alone."""
    import difflib

    return [
        f"{name}: no such variable; did you mean {near[0]}?"
        for name in sorted(n for n in environ if n.startswith("COJUDGE_") and n not in VARIABLES)
        if (near := difflib.get_close_matches(name, list(VARIABLES), n=1, cutoff=0.85))
    ]


def batch_sensor_interval_s(environ: Mapping[str, str] | None = None) -> int:
    """The pending_batches sensor's interval in whole seconds ($COJUDGE_BATCH_SENSOR_INTERVAL_S, 600 by default: a
    provider batch takes hours); a ValueError names the variable."""
    value = ((os.environ if environ is None else environ).get(BATCH_SENSOR_INTERVAL_VARIABLE) or "").strip()
    if not value:
        return DEFAULT_BATCH_SENSOR_INTERVAL_S
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{BATCH_SENSOR_INTERVAL_VARIABLE}={value!r}: expected a whole number of seconds >= 1")
    return int(value)
