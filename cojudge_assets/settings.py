"""The run's settings, resolved once: a flag, else the environment, else a default under the working folder.

The command (cli.py, through its preflight) and the Definitions (definitions.py ``build_definitions``) both call
:func:`resolve_settings`; no default depends on where the package is installed: the DuckDB file is
``./data/cojudge.duckdb``, the judges file ``./data/judges.yaml``, the corpus ``./data/demo``, the Dagster instance
``./dagster_home``, all under the folder the command runs in. Each setting remembers how it was set, so a
message can name the flag or the variable at fault.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DUCKDB_VARIABLE = "COJUDGE_DUCKDB"
JUDGES_VARIABLE = "COJUDGE_JUDGES"  # judges/config.py reads the same name
CORPUS_VARIABLE = "COJUDGE_CORPUS"
LAYOUT_VARIABLE = "COJUDGE_LAYOUT"
HOME_VARIABLE = "DAGSTER_HOME"
OBSERVE_CRON_VARIABLE = "COJUDGE_OBSERVE_CRON"

DEFAULT_DUCKDB = Path("data") / "cojudge.duckdb"  # relative: under the working folder
DEFAULT_JUDGES = Path("data") / "judges.yaml"
DEFAULT_CORPUS = Path("data") / "demo"
DEFAULT_HOME = Path("dagster_home")
DEFAULT_LAYOUT = "pages"
DEFAULT_OBSERVE_CRON = "*/5 * * * *"  # how often a deployment observes the corpus and the judges file


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
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Every setting: the argument (a flag) if given, else its variable in ``environ`` (the process's by default),
    else its default under the working folder."""
    environ = os.environ if environ is None else environ
    return Settings(
        corpus=_one(
            corpus, "--corpus", CORPUS_VARIABLE, environ, DEFAULT_CORPUS, "--corpus (default: the demo corpus)"
        ),
        layout=_one(layout, "--layout", LAYOUT_VARIABLE, environ, DEFAULT_LAYOUT, "--layout"),
        duckdb=_one(duckdb, "--duckdb", DUCKDB_VARIABLE, environ, DEFAULT_DUCKDB, "--duckdb (default)"),
        judges_file=_one(
            judges_file, "--judges-file", JUDGES_VARIABLE, environ, DEFAULT_JUDGES, "--judges-file (default)"
        ),
        home=_one(None, HOME_VARIABLE, HOME_VARIABLE, environ, DEFAULT_HOME, HOME_VARIABLE),
        observe_cron=_one(
            None, OBSERVE_CRON_VARIABLE, OBSERVE_CRON_VARIABLE, environ, DEFAULT_OBSERVE_CRON, OBSERVE_CRON_VARIABLE
        ),
    )
