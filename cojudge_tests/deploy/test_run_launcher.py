"""The deployed profile's run launcher (cojudge_assets/launcher.py): a run worker is judged alive by its pid and
its command line (a reused pid is not it; a zombie is not alive), and monitoring's health check says FAILED for a
worker that is gone, RUNNING for a live one and for a run it cannot judge (another machine's, one run in process)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import dagster as dg
from dagster._core.launcher.base import WorkerStatus

from cojudge_assets.launcher import HOST_TAG, PID_TAG, SessionRunLauncher, worker_alive

RUN_ID = "0f1e2d3c-run-of-the-launcher-test"


def _run(pid: int, host: str | None = None) -> dg.DagsterRun:
    return dg.DagsterRun(job_name="j", run_id=RUN_ID, tags={PID_TAG: str(pid), HOST_TAG: host or socket.gethostname()})


def test_a_worker_is_alive_while_its_process_runs_and_failed_once_it_is_gone():
    worker = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)", "execute_run", RUN_ID], start_new_session=True
    )
    launcher = SessionRunLauncher()
    try:
        assert worker_alive(worker.pid, RUN_ID)
        assert not worker_alive(worker.pid, "another-run")  # a pid reused by another process is not the worker
        assert launcher.check_run_worker_health(_run(worker.pid)).status == WorkerStatus.RUNNING
        # another machine's worker is not judged from here (monitoring would fail the run on anything but RUNNING)
        assert launcher.check_run_worker_health(_run(worker.pid, "elsewhere")).status == WorkerStatus.RUNNING
        worker.kill()
        deadline = time.time() + 30
        while time.time() < deadline and worker_alive(worker.pid, RUN_ID):  # a zombie until reaped: not alive
            time.sleep(0.05)
        assert not worker_alive(worker.pid, RUN_ID)
        health = launcher.check_run_worker_health(_run(worker.pid))
        assert health.status == WorkerStatus.FAILED and f"process {worker.pid}" in (health.msg or "")
    finally:
        worker.kill()
        worker.wait()
    assert launcher.check_run_worker_health(_run(worker.pid)).status == WorkerStatus.FAILED  # reaped: gone
    untagged = dg.DagsterRun(job_name="j", run_id=RUN_ID)  # executed in process by the command: left alone
    assert launcher.check_run_worker_health(untagged).status == WorkerStatus.RUNNING
