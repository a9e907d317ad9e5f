"""The deployed profile's run launcher: each run a process of its own session, whose health run monitoring checks.

Dagster's default run launcher asks the code server to start a run, and the code server starts it as a child
process of its own, in the daemon's process group. Two consequences, both seen on a deployment (issue 37): a
``kill`` of the daemon's process group (a service manager stopping it, an operator's ``kill -9 -<pgid>``) killed
the runs with it, and the default launcher cannot tell monitoring whether a run's worker is alive
(``supports_check_run_worker_health`` is False), so the killed run stayed STARTED for ever and held its provider's
places in the run queue.

:class:`SessionRunLauncher` starts each run as ``dagster api execute_run`` (the command Dagster's own container
launchers run) in a new session (``start_new_session``): outside the daemon's process group, so stopping or killing
the daemon leaves the runs to finish, and with the worker's pid and host in the run's tags. Run monitoring
(``run_monitoring`` in the instance's dagster.yaml, deployment.py) then asks :meth:`check_run_worker_health`: a
STARTED run whose worker process is gone (killed, out of memory, the machine restarted) is failed, and the
automation requests its partition again (run retries are off: with them on, the retry and the automation's request
both ran it), with no operator. A run this launcher did not start (a run executed in process by ``cojudge
materialize`` on the same instance) or whose worker is on another host is not judged: monitoring fails a run on any
status but RUNNING, so such a run is reported RUNNING. This launcher starts runs on the daemon's machine only.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dagster import serialize_value

# Dagster has no public base class of a run launcher: a custom one subclasses these (the one module of the package
# that imports dagster's private API: cojudge_tests/test_definitions.py allows it here alone; the version is locked;
# serialize_value is public)
from dagster._core.launcher.base import CheckRunHealthResult, LaunchRunContext, RunLauncher, WorkerStatus
from dagster._serdes import ConfigurableClass
from dagster._serdes.config_class import ConfigurableClassData

PID_TAG = "cojudge/worker_pid"
HOST_TAG = "cojudge/worker_host"
WORKER_LOGS = "run_workers"  # under the instance's folder: each worker's stderr (what fails before Dagster logs)


def worker_alive(pid: int, run_id: str) -> bool:
    """Whether process ``pid`` is running and is the worker of ``run_id`` (its command line names the run; a pid
    reused by another process is not it). A zombie (exited, not yet reaped) is not alive."""
    proc = Path("/proc") / str(pid)
    try:
        stat = (proc / "stat").read_text()
        command = (proc / "cmdline").read_bytes()
    except OSError:
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in ("Z", "X") and run_id.encode() in command


class SessionRunLauncher(RunLauncher, ConfigurableClass):
    """Runs as processes of their own session on this machine, with health checks (module docstring)."""

    def __init__(self, inst_data: ConfigurableClassData | None = None):
        self._inst_data = inst_data
        self._workers: dict[str, subprocess.Popen] = {}
        # the queued run coordinator dequeues with several threads (dequeue_use_threads): launches, and the reaping
        # each one starts with, run at once; two threads reaping the same ended worker raised KeyError and failed
        # the launch of an unrelated run
        self._lock = threading.Lock()
        super().__init__()

    @property
    def inst_data(self) -> ConfigurableClassData | None:
        return self._inst_data

    @classmethod
    def config_type(cls) -> dict:
        return {}

    @classmethod
    def from_config_value(cls, inst_data: ConfigurableClassData, config_value: Mapping[str, Any]):
        return cls(inst_data=inst_data)

    def _reap(self) -> None:
        """Collect the exit status of the workers that ended (no zombie is left in the daemon)."""
        with self._lock:
            for run_id, process in list(self._workers.items()):
                if process.poll() is not None:
                    del self._workers[run_id]

    def launch_run(self, context: LaunchRunContext) -> None:
        from dagster._grpc.types import ExecuteRunArgs

        self._reap()
        run = context.dagster_run
        origin = context.job_code_origin
        if origin is None:
            raise ValueError(f"run {run.run_id}: no code origin to start it from (launch it from the code location)")
        args = ExecuteRunArgs(
            job_origin=origin, run_id=run.run_id, instance_ref=self._instance.get_ref(), set_exit_code_on_failure=True
        )
        # the code location's own interpreter, by path: the origin's entry point is the bare name `dagster`, which a
        # daemon started by its full path (not from an activated venv) does not find on PATH
        command = [origin.executable_path, "-m", "dagster", "api", "execute_run", serialize_value(args)]
        logs = Path(self._instance.root_directory) / WORKER_LOGS
        logs.mkdir(parents=True, exist_ok=True)
        with (logs / f"{run.run_id}.log").open("ab") as log:
            process = subprocess.Popen(
                list(command), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        with self._lock:
            self._workers[run.run_id] = process
        self._instance.add_run_tags(run.run_id, {PID_TAG: str(process.pid), HOST_TAG: socket.gethostname()})

    @property
    def supports_check_run_worker_health(self) -> bool:
        return True

    def check_run_worker_health(self, run) -> CheckRunHealthResult:
        self._reap()
        pid, host = run.tags.get(PID_TAG), run.tags.get(HOST_TAG)
        # Dagster's monitoring fails a run on any status but RUNNING and SUCCESS: a run this launcher did not start
        # (executed in process by `cojudge materialize` or `dagster asset materialize` on this instance: no pid tag)
        # or started on another machine cannot be judged from here, and is left alone
        if pid is None:
            return CheckRunHealthResult(WorkerStatus.RUNNING, f"not started by this launcher (no {PID_TAG} tag)")
        if host != socket.gethostname():
            return CheckRunHealthResult(WorkerStatus.RUNNING, f"the worker runs on {host}: not judged from here")
        if worker_alive(int(pid), run.run_id):
            return CheckRunHealthResult(WorkerStatus.RUNNING, run_worker_id=pid)
        return CheckRunHealthResult(
            WorkerStatus.FAILED,
            f"the run's worker process {pid} on {host} is gone (killed, out of memory, or the machine restarted)",
            run_worker_id=pid,
        )

    def terminate(self, run_id: str) -> bool:
        run = self._instance.get_run_by_id(run_id)
        if run is None or run.is_finished:
            return False
        self._instance.report_run_canceling(run)
        pid = run.tags.get(PID_TAG)
        if pid is None or run.tags.get(HOST_TAG) != socket.gethostname() or not worker_alive(int(pid), run_id):
            return False
        try:  # the worker's session: the run process and the step processes it started; SIGINT is Dagster's cancel
            os.killpg(int(pid), signal.SIGINT)
        except ProcessLookupError:
            return False
        return True
