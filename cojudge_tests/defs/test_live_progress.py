"""The command's live line (defs/live.py): a progress bar rewritten in place on a terminal, plain lines
otherwise, fed by the progress a step logs through Dagster (core/progress.py); lines counted, never timed."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import dagster as dg

from cojudge_assets.core.progress import PREFIX, Progress
from cojudge_assets.defs.live import LIVE_LOGGER, end_line, live_logger, show
from cojudge_tests.core.test_progress import Clock


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_line_is_rewritten_in_place():
    stream = FakeTerminal()
    show("work: 5/10 (50%), 1.0/s, about 5 s left", stream=stream)
    show("work: 10/10 done in 10 s (1.0/s)", stream=stream)
    end_line(stream)
    text = stream.getvalue()
    assert "\n" not in text and text.count("\r\x1b[K") == 3
    assert "[##########..........] work: 5/10" in text and "[####################] work: 10/10" in text


def test_not_on_a_terminal_each_is_a_plain_line():
    stream = io.StringIO()
    show("work: 5/10 (50%), 1.0/s, about 5 s left", stream=stream)
    end_line(stream)
    assert stream.getvalue() == "  work: 5/10 (50%), 1.0/s, about 5 s left\n"


def test_a_slow_step_logs_progress_through_dagster_and_the_live_line(capsys):
    """A fake slow step (100 items of 1 s each on an injected clock) materialized with the command's live logger:
    its progress lines are in the run's event log (what dagster dev shows) and on the command's output, 12 of them,
    and nothing else of the run's log is."""
    clock = Clock()

    @dg.asset
    def slow_step(context) -> int:
        progress = Progress(context.log.info, 100, "slow step", clock=clock)
        for _ in range(100):
            clock.now += 1.0
            progress.advance()
        progress.finish()
        context.log.info("an ordinary message, not progress")
        return 100

    job = dg.define_asset_job("slow_job", selection=[slow_step])
    defs = dg.Definitions(assets=[slow_step], jobs=[job], loggers={LIVE_LOGGER: live_logger})
    instance = dg.DagsterInstance.ephemeral()
    result = defs.resolve_job_def("slow_job").execute_in_process(
        instance=instance, run_config={"loggers": {LIVE_LOGGER: {}}}
    )
    assert result.success
    logged = [
        record.user_message
        for record in instance.all_logs(result.run_id)
        if record.user_message.startswith(PREFIX + "slow step")
    ]
    assert len(logged) == 12, logged
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 12 and all(re.match(r"^  slow step: \d+/100 ", line) for line in printed), printed


def _wait_for(condition, timeout_s: float = 60.0) -> bool:
    import time

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


def test_a_step_without_progress_of_its_own_is_seen_to_run_and_no_line_follows_its_end():
    from cojudge_assets.defs.live import heartbeat

    stream = io.StringIO()
    with heartbeat("judge_metrics[blind|a]", every_s=0.02, stream=stream):
        assert _wait_for(lambda: stream.getvalue().count("\n") >= 3)
    ended = stream.getvalue()
    lines = ended.splitlines()
    assert all(re.match(r"^  judge_metrics\[blind\|a\]: running \d+ s, [\d,]+ MB resident$", line) for line in lines)
    assert not _wait_for(lambda: stream.getvalue() != ended, timeout_s=0.2)  # the beat stopped with the body


def test_the_heartbeat_counts_the_memory_of_the_command_s_child_processes():
    """A partition run in a child process of its own (--process-per-partition) holds its memory there: the line
    counts it, not only the command's."""
    from cojudge_assets.defs import live

    alone = live._resident_mb()
    holding = "x = bytearray(300 * 2**20); x[::4096] = b'y' * len(x[::4096]); print('held', flush=True); input()"
    child = subprocess.Popen([sys.executable, "-c", holding], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "held"
        assert live._resident_mb() >= alone + 290  # the child's 300 MB, touched page by page
    finally:
        child.communicate("")
    assert live._resident_mb() < alone + 100  # gone with the child


def test_the_command_s_runs_carry_the_heartbeat(monkeypatch, tmp_path):
    """A step that logs nothing: the driver's run of it shows the heartbeat's line, naming the step, while it runs
    (the asset waits for that line; nothing is timed)."""
    import threading

    from cojudge_assets import driver
    from cojudge_assets.defs import live

    shown: list[str] = []
    seen = threading.Event()
    plain = live.show

    def recording(text: str, *, stream=None) -> None:
        shown.append(text)
        seen.set()
        plain(text, stream=io.StringIO())

    monkeypatch.setattr(live, "HEARTBEAT_S", 0.02)
    monkeypatch.setattr(live, "show", recording)

    @dg.asset
    def quiet_step() -> int:
        assert seen.wait(60), "no heartbeat while the step ran"
        return 1

    job = dg.define_asset_job("quiet_job", selection=[quiet_step])
    # an unpartitioned job: run_tags reads neither resource
    resources = {"corpus": "unused", "judges": "unused"}
    defs = dg.Definitions(assets=[quiet_step], jobs=[job], loggers={LIVE_LOGGER: live_logger}, resources=resources)
    step, keys = ("quiet_job", None), {dg.AssetKey("quiet_step")}
    instance = dg.DagsterInstance.ephemeral()
    ok = driver._run_step(defs, instance, {}, step, keys, driver.StepsOutcome(), lambda line: None)
    assert ok and shown and all(text.startswith("quiet_job: running ") for text in shown), shown
