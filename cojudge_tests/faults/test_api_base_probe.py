"""An ``api_base`` where nothing listens passed preflight, and the run then retried for 72 s on 2 rows before failing
(issue 34). Preflight now opens a TCP connection to every api_base that will run (preflight.unreachable_judges) and
refuses in one line naming the judge and what happened: refused, timed out, or a name that does not resolve;
``--no-probe`` skips it."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys

import pytest

from cojudge_assets.cli import preflight
from cojudge_assets.preflight import PreflightError, unreachable_judges
from cojudge_tests.conftest import REPO
from cojudge_tests.judges.fixtures import write_judges_file, write_synthetic_progsnap2
from cojudge_tests.judges.loopback import LoopbackServer


def closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def refused_run(tmp_path, api_base: str, *flags: str) -> subprocess.CompletedProcess:
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 4)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("COJUDGE_")},
        "DAGSTER_HOME": str(tmp_path / "home"),
        "COJUDGE_JUDGES": str(write_judges_file(tmp_path / "judges.yaml", api_base)),
        "LOOPBACK_KEY": "loopback-key",
    }
    return subprocess.run(
        [sys.executable, "-m", "cojudge_assets.cli", "materialize", "--corpus", str(corpus), "--layout", "progsnap2"]
        + ["--duckdb", str(tmp_path / "db" / "c.duckdb"), *flags],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("api_base", "named"),
    [
        ("http://127.0.0.1:{port}/v1", "connection refused"),
        ("http://no-such-judge-host.invalid:8000/v1", "DNS: the name no-such-judge-host.invalid does not resolve"),
        ("http://user:s3cret-pw@127.0.0.1:{port}/v1", "http://127.0.0.1:"),  # no user or password printed
    ],
)
def test_an_api_base_that_does_not_answer_is_refused_in_one_line_before_anything_runs(tmp_path, api_base, named):
    done = refused_run(tmp_path, api_base.format(port=closed_port()))
    assert done.returncode == 2, (done.stdout[-2000:], done.stderr[-2000:])
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("cojudge: judge loop: api_base does not answer:") and named in line, line
    assert "--no-probe" in line and "s3cret" not in line
    assert done.stdout == ""
    assert not (tmp_path / "home").exists() and not (tmp_path / "db").exists()  # nothing touched


def args(tmp_path, **overrides) -> argparse.Namespace:
    corpus = tmp_path / "corpus"
    if not corpus.exists():
        write_synthetic_progsnap2(corpus, 4)
    values = dict(
        corpus=str(corpus),
        layout="progsnap2",
        duckdb=str(tmp_path / "c.duckdb"),
        judges_file=None,
        cache=str(tmp_path / "cache"),
        wait=False,
        judge=None,
        condition=None,
        select=None,
        jobs=None,
        allow_empty=False,
        force=False,
        no_probe=False,
    )
    return argparse.Namespace(**{**values, **overrides})


def test_no_probe_skips_the_check_and_a_listening_server_passes_it(tmp_path):
    judges = write_judges_file(tmp_path / "judges.yaml", f"http://127.0.0.1:{closed_port()}/v1")
    environ = {**os.environ, "COJUDGE_JUDGES": str(judges), "LOOPBACK_KEY": "k", "DAGSTER_HOME": str(tmp_path / "h")}
    with pytest.raises(PreflightError, match="judge loop: api_base does not answer"):
        preflight(args(tmp_path), environ=environ)
    assert preflight(args(tmp_path, no_probe=True), environ=environ).judges_file == judges
    # a judging step not selected: the judge will not run, and is not probed
    assert preflight(args(tmp_path, select="ingest"), environ=environ).judges_file == judges
    with LoopbackServer() as server:
        listening = write_judges_file(tmp_path / "up.yaml", server.api_base)
        ok = preflight(args(tmp_path), environ={**environ, "COJUDGE_JUDGES": str(listening)})
        assert ok.judges_file == listening


def test_local_judges_and_provider_defaults_are_not_probed():
    from cojudge_assets.judges.config import JudgeSpec

    local = JudgeSpec(name="static-rubric", model="cojudge/static-rubric")
    hosted = JudgeSpec(name="hosted", model="openai/gpt-5.2", api_key_env="OPENAI_API_KEY")
    assert unreachable_judges([local, hosted]) == []
