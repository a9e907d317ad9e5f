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


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def test_a_worker_is_alive_while_its_process_runs_and_failed_once_it_is_gone():
    worker = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)", "execute_run", RUN_ID], start_new_session=True
    )
    launcher = SessionRunLauncher()
    try:
        # until the child has exec'd: between fork and exec its command line is still this process's (a loaded
        # machine showed that window: the first check failed)
        deadline = time.time() + 30
        while time.time() < deadline and RUN_ID not in _cmdline(worker.pid):
            time.sleep(0.05)
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


class _Ended:
    """A worker that has ended (what ``Popen.poll`` says of it), slow to say so, as a loaded daemon's is."""

    def poll(self) -> int:
        time.sleep(0.001)
        return 0


def test_threads_that_reap_the_same_ended_workers_at_once_raise_nothing():
    """The queued run coordinator dequeues with 4 threads (dequeue_use_threads): each launch first reaps the ended
    workers. Two threads reaping the same one raised KeyError in the daemon, and the launch of an unrelated run
    failed: the demo through the daemon failed on it (a dequeue error in the daemon's log), and a run failed so is
    requested again, a likely cause of the provider-limits test's 13 runs for 12 partitions."""
    import threading

    launcher = SessionRunLauncher()
    errors: list[BaseException] = []
    for _ in range(20):
        launcher._workers.update({f"run-{i}": _Ended() for i in range(8)})  # type: ignore[misc]
        start = threading.Barrier(4)

        def reap(start: threading.Barrier = start) -> None:
            start.wait()
            try:
                launcher._reap()
            except BaseException as exc:  # noqa: BLE001 (what a thread raised, asserted below)
                errors.append(exc)

        threads = [threading.Thread(target=reap) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    assert launcher._workers == {}
