"""Mistakes in the deployed profile are refused with a message naming the setting, never a hang: the profile
without its settings, an unreachable Postgres, a provider without a limit, two deployments on one storage."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest
import yaml

from cojudge_assets.definitions import build_definitions
from cojudge_assets.defs.deployed import claim_storage
from cojudge_assets.deployment import DeploymentError, instance_config, write_instance_config
from cojudge_assets.judges.config import load_judges
from cojudge_assets.judges.postgres_store import PostgresStore, StoreUnreachable
from cojudge_assets.settings import libpq_url, redact, resolve_settings
from cojudge_tests.judges.fixtures import write_judges_file
from cojudge_tests.services import free_port


def _settings(tmp_path: Path, **env: str):
    return resolve_settings(environ={"COJUDGE_JUDGES": str(tmp_path / "judges.yaml"), **env})


def _deployed_settings(tmp_path: Path, postgres_url: str):
    """The deployed profile's settings with ``postgres_url``, tables under ``tmp_path`` and a ceiling of 2 runs."""
    return _settings(
        tmp_path,
        COJUDGE_PROFILE="deployed",
        COJUDGE_POSTGRES_URL=postgres_url,
        COJUDGE_TABLES_URI=str(tmp_path / "tables"),
        COJUDGE_PROVIDER_LIMITS="*=2",
    )


def test_the_deployed_profile_without_its_settings_is_refused_naming_them(monkeypatch):
    monkeypatch.setenv("COJUDGE_PROFILE", "deployed")
    monkeypatch.delenv("COJUDGE_POSTGRES_URL", raising=False)
    monkeypatch.delenv("COJUDGE_TABLES_URI", raising=False)
    with pytest.raises(ValueError, match="COJUDGE_POSTGRES_URL is not set.*COJUDGE_TABLES_URI is not set"):
        build_definitions()
    monkeypatch.setenv("COJUDGE_PROFILE", "cluster")
    with pytest.raises(ValueError, match="COJUDGE_PROFILE='cluster': expected one of embedded, deployed"):
        build_definitions()
    monkeypatch.setenv("COJUDGE_PROFILE", "deployed")
    monkeypatch.setenv("COJUDGE_POSTGRES_URL", "mysql://db/cojudge")
    monkeypatch.setenv("COJUDGE_TABLES_URI", "/srv/tables")
    with pytest.raises(ValueError, match="COJUDGE_POSTGRES_URL='mysql://db/cojudge': expected a postgresql"):
        build_definitions()


def test_a_provider_without_a_limit_is_refused_naming_it(tmp_path):
    write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:8001/v1")
    specs = load_judges(tmp_path / "judges.yaml")
    deployed = {
        "COJUDGE_PROFILE": "deployed",
        "COJUDGE_POSTGRES_URL": "postgresql+psycopg2://cojudge@db:5432/cojudge",
        "COJUDGE_TABLES_URI": str(tmp_path / "tables"),
    }
    with pytest.raises(DeploymentError, match=r"COJUDGE_PROVIDER_LIMITS: no limit for provider\(s\) 127.0.0.1:8001"):
        instance_config(_settings(tmp_path, **deployed), specs)
    with pytest.raises(DeploymentError, match="COJUDGE_PROVIDER_LIMITS: 'x=0' is not provider=limit"):
        instance_config(_settings(tmp_path, **deployed, COJUDGE_PROVIDER_LIMITS="x=0"), specs)
    config = instance_config(_settings(tmp_path, **deployed, COJUDGE_PROVIDER_LIMITS="127.0.0.1:8001=2"), specs)
    assert config["concurrency"]["runs"]["tag_concurrency_limits"][0] == {
        "key": "cojudge/provider",
        "value": "127.0.0.1:8001",
        "limit": 2,
    }
    assert config["storage"]["postgres"]["postgres_db"]["scheme"] == "postgresql+psycopg2"
    # Dagster's own validation of an instance's dagster.yaml (schema and concurrency rules; no public validator)
    from dagster._core.instance.config import dagster_instance_config

    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "dagster.yaml").write_text(yaml.safe_dump(config))
    validated, _ = dagster_instance_config(str(tmp_path / "home"))
    assert validated["concurrency"]["runs"]["tag_concurrency_limits"][0]["limit"] == 2


def test_a_postgres_url_with_a_password_is_refused_for_the_instance_s_configuration(tmp_path):
    """dagster.yaml would hold the password in clear: refused, naming the setting and where libpq reads it from."""
    write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:8001/v1")
    specs = load_judges(tmp_path / "judges.yaml")
    settings = _deployed_settings(tmp_path, "postgresql+psycopg2://cojudge:s3cret-word@db:5432/cojudge")
    with pytest.raises(DeploymentError, match="COJUDGE_POSTGRES_URL=.* carries a password.*PGPASSWORD") as refused:
        instance_config(settings, specs)
    assert "s3cret-word" not in str(refused.value)
    with pytest.raises(DeploymentError, match="carries a password"):
        write_instance_config(settings, specs, tmp_path / "home")
    assert not (tmp_path / "home" / "dagster.yaml").exists()


def test_an_unreachable_postgres_is_refused_within_seconds_naming_the_setting(tmp_path):
    port = free_port()  # nothing listens there
    started = time.monotonic()
    with pytest.raises(StoreUnreachable, match="COJUDGE_POSTGRES_URL: no Postgres server answers at 127.0.0.1") as down:
        PostgresStore(f"postgresql://cojudge@127.0.0.1:{port}/cojudge")
    assert down.value.kind == "down"
    assert time.monotonic() - started < 10
    write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:8001/v1")
    env = {
        "COJUDGE_PROFILE": "deployed",
        "COJUDGE_POSTGRES_URL": f"postgresql+psycopg2://cojudge@127.0.0.1:{port}/cojudge",
        "COJUDGE_TABLES_URI": str(tmp_path / "tables"),
        "COJUDGE_PROVIDER_LIMITS": "*=2",
        "PATH": "/usr/bin:/bin",
    }
    command = [sys.executable, "-m", "cojudge_assets.cli", "deployment", "config", "--check"]
    command += ["--judges-file", str(tmp_path / "judges.yaml")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"COJUDGE_POSTGRES_URL: no Postgres server answers at 127.0.0.1:{port} within 5 s" in done.stderr


def test_two_deployments_on_one_storage_are_refused(tmp_path, postgres):
    first, second = postgres.create_database("first_deployment"), postgres.create_database("second_deployment")
    root = str(tmp_path / "tables")
    claim_storage(root, first.url)
    claim_storage(root, first.url)  # the same deployment again: its own storage
    with pytest.raises(dg.Failure, match="COJUDGE_TABLES_URI=.*belong to the deployment whose COJUDGE_POSTGRES_URL"):
        claim_storage(root, second.url)
    with pytest.raises(dg.Failure, match="COJUDGE_POSTGRES_URL=.*holds the judge store of the deployment whose"):
        claim_storage(str(tmp_path / "other-tables"), first.url)


def test_a_tables_root_that_cannot_be_written_is_refused_naming_it(tmp_path, postgres):
    (tmp_path / "a-file").write_text("")
    root = str(tmp_path / "a-file" / "tables")  # under a file: no folder can be made there
    with pytest.raises(dg.Failure, match="COJUDGE_TABLES_URI=.*cannot write the deployment's marker table"):
        claim_storage(root, postgres.create_database("unwritable_tables").url)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql+psycopg2://cojudge:pw@db.lab:5432/cojudge",
            "postgresql+psycopg2://cojudge:***@db.lab:5432/cojudge",
        ),
        ("redis://:pw@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
        ("postgresql://u:pw@[::1]:5432/d", "postgresql://u:***@[::1]:5432/d"),
        ("redis://:pw@broker:notaport/0", "redis://:***@broker:notaport/0"),  # a bad port: still no password
        ("postgresql://u@h/d", "postgresql://u@h/d"),
        ("postgresql://u@h/d?password=pw&sslmode=require", "postgresql://u@h/d?password=***&sslmode=require"),
        ("postgresql://u@h/d?sslmode=require&PassWord=pw", "postgresql://u@h/d?sslmode=require&PassWord=***"),
        ("postgresql://u@h/d?pass%77ord=pw", "postgresql://u@h/d?pass%77ord=***"),
        ("postgresql://u@h/d?sslpassword=pw", "postgresql://u@h/d?sslpassword=***"),
        ("postgresql://u:pw@h/d?password=pw", "postgresql://u:***@h/d?password=***"),
        ("postgresql://u@[::1/d?password=pw", "postgresql://***"),  # unparseable: nothing after the scheme
    ],
)
def test_a_url_in_a_message_has_no_password(url, shown):
    assert redact(url) == shown


def test_the_postgres_password_stays_out_of_the_code_location_s_snapshot(monkeypatch, tmp_path):
    """The snapshot of the code location is what the UI shows on its resource pages and what the instance stores
    with every run's job: the deployed profile's ``duckdb`` resource reads the URL from the run's environment."""
    from dagster._core.remote_representation.external_data import RepositorySnap

    monkeypatch.setenv("COJUDGE_PROFILE", "deployed")
    # a URL with a password is refused when the Definitions load (test above); the URL itself stays out too
    monkeypatch.setenv("COJUDGE_POSTGRES_URL", "postgresql+psycopg2://cojudge@s3cret-host.lab:1/cojudge")
    monkeypatch.setenv("COJUDGE_TABLES_URI", str(tmp_path / "tables"))
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "files" / "cojudge.duckdb"))
    repository = build_definitions().get_repository_def()
    snapshot = dg.serialize_value(RepositorySnap.from_def(repository))
    assert "COJUDGE_POSTGRES_URL" in snapshot  # the resource names the variable it reads
    assert "s3cret-host" not in snapshot


def test_a_password_from_pgpassword_reaches_the_instance_and_the_store(tmp_path, monkeypatch, postgres):
    """The path the refusal above points to, on a role that must give a password: the URL without one, the password
    in ``PGPASSWORD``. The instance's storage (from the dagster.yaml the command writes) and the judge store both
    connect; without ``PGPASSWORD`` the store is refused; dagster.yaml holds no password."""
    import psycopg2

    role = f"lab_{free_port()}"  # a name of this run's own (the cluster is the session's)
    admin = psycopg2.connect(postgres.dsn)
    admin.autocommit = True
    with admin.cursor() as cur:
        cur.execute(f"create role {role} login password 'lab-s3cret'")
        cur.execute(f"create database {role} owner {role}")
        cur.execute("show hba_file")
        hba = Path(cur.fetchone()[0])
    rules = hba.read_text()
    hba.write_text(f"host all {role} 127.0.0.1/32 scram-sha-256\n{rules}")  # this role alone gives a password
    try:
        with admin.cursor() as cur:
            cur.execute("select pg_reload_conf()")
        time.sleep(0.5)
        url = f"postgresql+psycopg2://{role}@{postgres.host}:{postgres.port}/{role}"
        monkeypatch.delenv("PGPASSWORD", raising=False)
        monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))
        with pytest.raises(StoreUnreachable, match="COJUDGE_POSTGRES_URL"):
            PostgresStore(libpq_url(url))
        monkeypatch.setenv("PGPASSWORD", "lab-s3cret")
        store = PostgresStore(libpq_url(url))
        store.ensure_tables()
        store.close()
        write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:8001/v1")
        home = tmp_path / "home"
        specs = load_judges(tmp_path / "judges.yaml")
        written, _, _ = write_instance_config(_deployed_settings(tmp_path, url), specs, home)
        assert "lab-s3cret" not in written.read_text()
        with dg.DagsterInstance.from_config(str(home)) as instance:
            assert instance.get_runs() == []
    finally:
        hba.write_text(rules)
        with admin.cursor() as cur:
            cur.execute("select pg_reload_conf()")
        admin.close()


def _deployment_config(
    monkeypatch, capsys, tmp_path: Path, *argv: str, url: str = "postgresql+psycopg2://cojudge@127.0.0.1:5432/cojudge"
) -> tuple[int, str, str]:
    from cojudge_assets.cli import main

    monkeypatch.setenv("COJUDGE_PROFILE", "deployed")
    monkeypatch.setenv("COJUDGE_POSTGRES_URL", url)
    monkeypatch.setenv("COJUDGE_TABLES_URI", str(tmp_path / "tables"))
    monkeypatch.setenv("COJUDGE_PROVIDER_LIMITS", "*=2")
    code = main(["deployment", "config", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_deployment_command_refuses_a_bad_judges_file_or_home_in_one_line(monkeypatch, capsys, tmp_path):
    code, _, err = _deployment_config(monkeypatch, capsys, tmp_path, "--judges-file", str(tmp_path / "nope.yaml"))
    assert code == 2 and err.count("\n") == 1 and "--judges-file: " in err and "not found" in err, err
    (tmp_path / "judges.yaml").write_text("just words\n")
    code, _, err = _deployment_config(monkeypatch, capsys, tmp_path, "--judges-file", str(tmp_path / "judges.yaml"))
    assert code == 2 and err.count("\n") == 1 and "expected a mapping" in err, err
    write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:8001/v1")
    (tmp_path / "a-file").write_text("")
    home = tmp_path / "a-file" / "home"
    code, _, err = _deployment_config(
        monkeypatch, capsys, tmp_path, "--judges-file", str(tmp_path / "judges.yaml"), "--home", str(home)
    )
    assert code == 2 and err.count("\n") == 1 and f"--home {home}: cannot write dagster.yaml there" in err, err


def test_an_edited_dagster_yaml_is_merged_into_not_moved_aside(monkeypatch, capsys, tmp_path):
    """issue 37: re-running ``deployment config --home`` moved the operator's edited dagster.yaml aside. Now its
    keys are merged in: the operator's keys and edited defaults stay, the keys derived from the settings follow the
    settings (and the command says which changed), the operator's own tag rules stay beside cojudge's."""
    write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:8001/v1")
    home = tmp_path / "home"
    argv = ("--judges-file", str(tmp_path / "judges.yaml"), "--home", str(home))
    assert _deployment_config(monkeypatch, capsys, tmp_path, *argv)[0] == 0
    assert _deployment_config(monkeypatch, capsys, tmp_path, *argv)[1] == f"{home / 'dagster.yaml'}\n"  # unchanged
    assert sorted(p.name for p in home.iterdir()) == ["dagster.yaml"]
    edited = yaml.safe_load((home / "dagster.yaml").read_text())
    edited["compute_logs"] = {"module": "my.logs", "class": "Mine"}  # a key cojudge does not write
    edited["concurrency"]["runs"]["max_concurrent_runs"] = 7  # a default the operator tuned
    edited["run_monitoring"]["poll_interval_seconds"] = 15
    edited["concurrency"]["runs"]["tag_concurrency_limits"].append({"key": "team", "value": "x", "limit": 1})
    edited["concurrency"]["runs"]["tag_concurrency_limits"][0]["limit"] = 9  # a managed value: follows the settings
    edited["storage"]["postgres"]["postgres_db"]["port"] = 6543
    (home / "dagster.yaml").write_text(yaml.safe_dump(edited))
    code, out, _ = _deployment_config(monkeypatch, capsys, tmp_path, *argv)
    assert code == 0 and "concurrency.runs.tag_concurrency_limits: replaced from the settings" in out, out
    assert "storage: replaced from the settings" in out
    merged = yaml.safe_load((home / "dagster.yaml").read_text())
    assert merged["compute_logs"] == {"module": "my.logs", "class": "Mine"}
    assert merged["concurrency"]["runs"]["max_concurrent_runs"] == 7
    assert merged["run_monitoring"]["poll_interval_seconds"] == 15 and merged["run_monitoring"]["enabled"] is True
    rules = merged["concurrency"]["runs"]["tag_concurrency_limits"]
    assert {"key": "team", "value": "x", "limit": 1} in rules
    assert {"key": "cojudge/provider", "value": {"applyLimitPerUniqueValue": True}, "limit": 2} in rules
    assert merged["storage"]["postgres"]["postgres_db"]["port"] == 5432
    assert len([r for r in rules if r["key"] == "cojudge/provider"]) == 1
    backups = [p for p in home.iterdir() if p.name != "dagster.yaml"]
    assert len(backups) == 1 and "my.logs" in backups[0].read_text() and f"previous file: {backups[0]}" in out
    from dagster._core.instance.config import dagster_instance_config

    dagster_instance_config(str(home))  # Dagster's own schema still takes it


def test_the_instance_monitors_runs_and_fits_the_machine(tmp_path):
    """issue 37: no run monitoring (a run whose worker died stayed STARTED for ever), ``max_concurrent_runs: 10`` on
    2 cores ran 8 sandboxed runs at once, and tick history grew without bound."""
    from dagster._core.instance.config import dagster_instance_config

    from cojudge_assets.deployment import machine_limits

    write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:8001/v1")
    specs = load_judges(tmp_path / "judges.yaml")
    settings = _deployed_settings(tmp_path, "postgresql+psycopg2://cojudge@db:5432/cojudge")
    assert machine_limits(2) == (2, 1) and machine_limits(1) == (2, 1) and machine_limits(16) == (16, 8)
    config = instance_config(settings, specs, cores=2)
    assert config["run_launcher"] == {"module": "cojudge_assets.launcher", "class": "SessionRunLauncher"}
    monitoring = config["run_monitoring"]
    assert monitoring["enabled"] and monitoring["max_resume_run_attempts"] == 0
    assert monitoring["start_timeout_seconds"] > 60 and monitoring["cancel_timeout_seconds"] > 0
    assert "run_retries" not in config  # the automation re-requests a failed partition: a retry would run it twice
    runs = config["concurrency"]["runs"]
    assert runs["max_concurrent_runs"] == 2
    assert {"key": "cojudge/sandbox", "value": "shard", "limit": 1} in runs["tag_concurrency_limits"]
    assert config["retention"]["sensor"]["purge_after_days"]["skipped"] == 7
    named = _settings(
        tmp_path,
        COJUDGE_PROFILE="deployed",
        COJUDGE_POSTGRES_URL="postgresql+psycopg2://cojudge@db:5432/cojudge",
        COJUDGE_TABLES_URI=str(tmp_path / "tables"),
        COJUDGE_PROVIDER_LIMITS="127.0.0.1:8001=3,other=2",
    )
    assert instance_config(named, specs, cores=2)["concurrency"]["runs"]["max_concurrent_runs"] == 5
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "dagster.yaml").write_text(yaml.safe_dump(config))
    validated, _ = dagster_instance_config(str(tmp_path / "home"))  # Dagster's schema takes every key
    assert validated["run_monitoring"]["poll_interval_seconds"] == monitoring["poll_interval_seconds"]


def test_the_sandboxed_shards_runs_carry_the_tag_the_queue_limits():
    from cojudge_assets.defs.partitions import SANDBOX_TAG, bucket_partitions
    from cojudge_assets.deployment import SANDBOX_TAG as LIMITED
    from cojudge_assets.deployment import SANDBOX_VALUE

    assert SANDBOX_TAG == LIMITED
    assert bucket_partitions(4).get_tags_for_partition_key("1of4")[SANDBOX_TAG] == SANDBOX_VALUE


def test_the_celery_config_is_written_for_its_owner_alone_and_ignored_by_git(monkeypatch, capsys, tmp_path):
    """issue 37: ``celery.yaml`` can hold a broker password, and was neither git-ignored nor private."""
    from cojudge_assets.cli import main
    from cojudge_tests.conftest import REPO

    monkeypatch.setenv("COJUDGE_CELERY_BROKER", "redis://:br0ker-pw@127.0.0.1:6379/0")
    out = tmp_path / "celery.yaml"
    out.write_text("old")
    out.chmod(0o644)  # an older file readable by all: the new one is not
    assert main(["deployment", "celery-config", "--out", str(out)]) == 0
    assert out.stat().st_mode & 0o777 == 0o600
    assert yaml.safe_load(out.read_text())["execution"]["config"]["broker"].startswith("redis://")
    assert capsys.readouterr().out == f"{out}\n"
    monkeypatch.delenv("COJUDGE_CELERY_BROKER")
    assert main(["deployment", "celery-config", "--out", str(out)]) == 2
    assert "COJUDGE_CELERY_BROKER" in capsys.readouterr().err
    for name in ("celery.yaml", "deploy/celery.yaml", "dagster_home/dagster.yaml.20260101T000000.000000Z.bak"):
        ignored = subprocess.run(["git", "check-ignore", "-q", name], cwd=REPO, timeout=60)
        assert ignored.returncode == 0, f"{name} is not ignored by git"


PLANTED = "pl4nted-Secr3t"


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql+psycopg2://cojudge:{PLANTED}@db:5432/cojudge",
        f"postgresql+psycopg2://cojudge@db:5432/cojudge?password={PLANTED}",
        f"postgresql+psycopg2://cojudge@db:5432/cojudge?sslmode=require&PASSWORD={PLANTED}",
        f"postgresql+psycopg2://cojudge@db:5432/cojudge?pass%77ord={PLANTED}",
        f"postgresql+psycopg2://cojudge@db:5432/cojudge?sslpassword={PLANTED}",
    ],
)
def test_a_password_in_any_part_of_the_url_is_refused_by_every_entry_without_showing_it(
    url, tmp_path, monkeypatch, capsys
):
    """issue 34: ``?password=`` passed ``cojudge deployment config`` and was written into the marker. Every entry
    refuses it (the settings, the Definitions, the command's preflight, ``deployment config``), the refusal names
    where the password is and never the password."""
    settings = _deployed_settings(tmp_path, url)
    problems = settings.profile_problems()
    assert len(problems) == 1 and "carries a password in its" in problems[0] and "PGPASSWORD" in problems[0]
    assert PLANTED not in problems[0]
    monkeypatch.setenv("COJUDGE_PROFILE", "deployed")
    monkeypatch.setenv("COJUDGE_POSTGRES_URL", url)
    monkeypatch.setenv("COJUDGE_TABLES_URI", str(tmp_path / "tables"))
    with pytest.raises(ValueError, match="carries a password") as loading:
        build_definitions()
    assert PLANTED not in str(loading.value)
    write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:8001/v1")
    code, out, err = _deployment_config(
        monkeypatch,
        capsys,
        tmp_path,
        "--judges-file",
        str(tmp_path / "judges.yaml"),
        "--home",
        str(tmp_path / "h"),
        url=url,
    )
    assert code == 2 and err.count("\n") == 1 and "carries a password" in err, err
    assert PLANTED not in out + err and not (tmp_path / "h").exists()
    from cojudge_assets.cli import main

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "files" / "cojudge.duckdb"))
    code = main(["materialize", "--judges-file", str(tmp_path / "judges.yaml")])
    out, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "carries a password" in err, err
    assert PLANTED not in out + err
    assert not (tmp_path / "tables").exists() and not (tmp_path / "home").exists()


def test_an_unreachable_postgres_is_refused_at_the_command_s_preflight_in_one_line(tmp_path, monkeypatch, capsys):
    """issue 34: with Postgres unreachable, ``materialize`` passed its preflight and failed inside Dagster with
    three stack traces. Now: one line, exit 2, nothing claimed or created."""
    from cojudge_assets.cli import main

    port = free_port()
    write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:8001/v1")
    monkeypatch.setenv("COJUDGE_PROFILE", "deployed")
    monkeypatch.setenv("COJUDGE_POSTGRES_URL", f"postgresql+psycopg2://cojudge@127.0.0.1:{port}/cojudge")
    monkeypatch.setenv("COJUDGE_TABLES_URI", str(tmp_path / "tables"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "files" / "cojudge.duckdb"))
    code = main(["materialize", "--judges-file", str(tmp_path / "judges.yaml")])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert (
        err
        == f"cojudge: COJUDGE_POSTGRES_URL: no Postgres server answers at 127.0.0.1:{port} within 5 s "
        + (err.split(" within 5 s ", 1)[1])
    )
    assert err.count("\n") == 1 and "Traceback" not in out + err
    assert not (tmp_path / "tables").exists() and not (tmp_path / "home").exists()


def test_a_run_with_a_wrong_port_claims_nothing_and_the_corrected_url_works(tmp_path, postgres):
    """issue 34: the tables root was claimed before Postgres was reached, so one run with a wrong port blocked every
    later run ("these tables belong to the deployment whose COJUDGE_POSTGRES_URL is ...@127.0.0.1:1/cojudge")."""
    database = postgres.create_database("corrected_url")
    root = str(tmp_path / "tables")
    wrong = database.url.replace(f":{database.port}/", f":{free_port()}/")
    with pytest.raises(dg.Failure, match="no Postgres server answers"):
        claim_storage(root, wrong)
    assert not (tmp_path / "tables").exists()  # no marker
    claim_storage(root, database.url)  # the corrected URL: claims
    claim_storage(root, database.url.replace("postgresql+psycopg2://", "postgresql://") + "?sslmode=disable")
    marker = (tmp_path / "tables" / "_meta").rglob("*.parquet")
    assert next(marker).exists()


def test_a_refused_claim_leaves_no_claim_in_the_database(tmp_path, postgres):
    """A run refused because the tables root is another deployment's writes nothing into its own database: that
    database can then be used with a tables root of its own."""
    import psycopg2

    first, second = postgres.create_database("claim_first"), postgres.create_database("claim_second")
    claim_storage(str(tmp_path / "tables"), first.url)
    with pytest.raises(dg.Failure, match="these tables belong to the deployment"):
        claim_storage(str(tmp_path / "tables"), second.url)
    conn = psycopg2.connect(libpq_url(second.url))
    with conn, conn.cursor() as cur:
        cur.execute("select to_regclass('cojudge.deployment')")  # rolled back whole: not even the table
        assert cur.fetchone()[0] is None
    conn.close()
    claim_storage(str(tmp_path / "own-tables"), second.url)


def test_a_missing_role_database_or_password_is_told_from_a_server_that_is_down(tmp_path, monkeypatch, postgres):
    """issue 37: ``--check`` said "cannot connect ... start it" when the server was up and the role did not exist."""
    import psycopg2

    base = f"postgresql://{{}}@{postgres.host}:{postgres.port}/{{}}"
    with pytest.raises(StoreUnreachable, match='answers, but role "nobody_here" does not exist') as role:
        PostgresStore(base.format("nobody_here", "cojudge"))
    assert role.value.kind == "missing"
    with pytest.raises(StoreUnreachable, match='answers, but database "no_such_db" does not exist') as db:
        PostgresStore(base.format(postgres.user, "no_such_db"))
    assert db.value.kind == "missing"
    name = f"auth_{free_port()}"
    admin = psycopg2.connect(postgres.dsn)
    admin.autocommit = True
    with admin.cursor() as cur:
        cur.execute(f"create role {name} login password 'right-one'")
        cur.execute("show hba_file")
        hba = Path(cur.fetchone()[0])
    rules = hba.read_text()
    hba.write_text(f"host all {name} 127.0.0.1/32 scram-sha-256\n{rules}")
    try:
        with admin.cursor() as cur:
            cur.execute("select pg_reload_conf()")
        time.sleep(0.5)
        monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))
        monkeypatch.setenv("PGPASSWORD", "wrong-one")
        with pytest.raises(StoreUnreachable, match=f'refused the authentication of role "{name}"') as auth:
            PostgresStore(base.format(name, "cojudge"))
        assert auth.value.kind == "auth" and "wrong-one" not in str(auth.value)
    finally:
        hba.write_text(rules)
        with admin.cursor() as cur:
            cur.execute("select pg_reload_conf()")
        admin.close()
