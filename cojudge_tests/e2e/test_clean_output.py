"""What ``cojudge materialize`` prints: its step lines, its progress lines and its summary, nothing else.

Run as a subprocess whose output is a pipe (not a terminal), over a two-attempt trajectory of the demo corpus, so
that the churn step calls codebleu: codebleu's first ``logging.warning`` used to configure the root logger, after
which every library's records (263 ``DEBUG:dagster.automation_condition_tester`` lines on a held-out run) went to
the command's output. The DAGSTER_HOME exists but has no dagster.yaml, which made every run print Dagster's
telemetry banner and "No dagster instance configuration file".
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from cojudge_tests.conftest import REPO

DEMO = REPO / "data" / "demo"
NO_JUDGES = "judges:\n  - name: sample-exec\n    model: cojudge/sample-exec\n    enabled: false\n"

STEP = re.compile(r"^[A-Za-z0-9_]+(\[[^\]]+\])?: (ok|FAILED|up to date, skipped|not run, .+)( \(run [0-9a-f]{8}.*)?")
PROGRESS = re.compile(r"^  [^ ].*: \d+/\d+ (started|\(\d+%\)|done in )")
HEARTBEAT = re.compile(r"^  [A-Za-z0-9_]+(\[[^\]]+\])?: running (\d+ min )?\d+ s, [\d,]+ MB resident$")  # defs/live.py
SUMMARY = re.compile(r"^(ran \d+ step|nothing changed:|nothing ran:|success: tables in |FAILED|INCOMPLETE:)")


def kind(line: str) -> str | None:
    for name, pattern in (("step", STEP), ("progress", PROGRESS), ("heartbeat", HEARTBEAT), ("summary", SUMMARY)):
        if pattern.match(line):
            return name
    return None


def test_line_kinds():
    assert kind("ingest: ok (run 37b16d9c, 6.6 s) [problems, submission_pages]") == "step"
    assert kind("label_audit_job[0of4]: ok (run 22261bf0, 4.1 s) [label_audit]") == "step"
    assert kind("  label audit (attempts re-executed): 0/1 started") == "progress"
    assert kind("  judging j/blind (requests answered): 10/30 (33%), 1.0/s, about 20 s left") == "progress"
    assert kind("  measurement_job: running 2 min 10 s, 1,213 MB resident") == "heartbeat"
    assert kind("  judge_outputs_job[blind|judge-a]: running 10 s, 640 MB resident") == "heartbeat"
    assert kind("ran 9 step(s), 0 up to date; 0 request(s) sent to judges, 0 of them to hosted providers") == "summary"
    assert kind("DEBUG:dagster.automation_condition_tester:churn evaluation result") is None
    assert kind("2026-12-04 21:01:06 +0000 - dagster - INFO - telemetry") is None


@pytest.mark.timeout(1800)
def test_the_command_prints_only_steps_progress_and_summary(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "pages" / "u01").mkdir(parents=True)
    # one trajectory of two Python attempts, scored by codebleu in the churn step; the first has no data flow, so
    # codebleu calls logging.warning ("no reference data-flows"), which configured the root logger on stderr
    first = (DEMO / "pages" / "u01" / "brackets-01.html").read_text()
    start = first.index('<code class="language-python">') + len('<code class="language-python">')
    (corpus / "pages" / "u01" / "brackets-01.html").write_text(
        first[:start] + "print(0)\n" + first[first.index("</code>", start) :]
    )
    shutil.copyfile(DEMO / "pages" / "u01" / "brackets-02.html", corpus / "pages" / "u01" / "brackets-02.html")
    shutil.copytree(DEMO / "problems" / "brackets", corpus / "problems" / "brackets")
    shutil.copyfile(DEMO / "contest.yaml", corpus / "contest.yaml")
    judges = tmp_path / "judges.yaml"
    judges.write_text(NO_JUDGES)
    home = tmp_path / "home"
    home.mkdir()  # found without a dagster.yaml
    db = tmp_path / "out" / "cojudge.duckdb"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("COJUDGE_")}
    done = subprocess.run(
        [sys.executable, "-m", "cojudge_assets.cli", "materialize", "--corpus", str(corpus), "--duckdb", str(db)]
        + ["--judges-file", str(judges), "--select", "ingest,dynamics"],
        cwd=REPO,
        env={**environ, "DAGSTER_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stderr == "", done.stderr[-3000:]
    lines = done.stdout.splitlines()
    stray = [line for line in lines if kind(line) is None]
    assert stray == [], stray[:20]
    kinds = [kind(line) for line in lines]
    assert kinds.count("step") >= 4 and kinds[-1] == "summary", lines
    # the live line of a run that is not a terminal: plain progress lines, the label audit's among them
    assert any(line.startswith("  label audit") for line in lines), lines
    assert not any("\r" in line or "\x1b" in line for line in lines)
    with duckdb.connect(str(db), read_only=True) as conn:  # codebleu did run (what configured the root logger)
        scored = conn.execute("select count(codebleu_churn) from main.churn").fetchone()
    assert scored is not None and scored[0] >= 1
    config = (home / "dagster.yaml").read_text()
    assert "enabled: false" in config and "# Telemetry off" in config
    log = home / "cojudge" / "libraries.log"  # where the libraries' records went instead
    assert "dagster.automation_condition_tester" in log.read_text()
    assert not Path(REPO / "cojudge").exists()


def test_library_logging_never_reaches_the_terminal(tmp_path, capfd):
    """What codebleu does (``logging.warning`` on a root logger with no handler: ``basicConfig`` on stderr), and
    then a Dagster logger's DEBUG record, inside the command's logging: nothing on the terminal, the INFO and
    WARNING records in the library log, and the root logger as it was afterwards."""
    import logging
    import warnings

    from cojudge_assets.cli import LIBRARY_LOG, quiet_libraries

    root = logging.getLogger()
    before = list(root.handlers)
    noisy = logging.getLogger("dagster.automation_condition_tester")
    level = noisy.level
    noisy.setLevel(logging.DEBUG)
    try:
        with quiet_libraries() as log_to:
            # a root-level warning as codebleu makes one (not its data-flow text: trajectories.py filters that one
            # out on the root logger once CodeBLEU has run in this process, so the test would depend on the order)
            logging.warning("WARNING: a library's own logging.warning")
            noisy.debug("Evaluating churn (1/45)")
            warnings.warn("a library's warning", UserWarning, stacklevel=1)
            path = log_to(tmp_path)
            noisy.info("churn evaluation result: 1 requested")
    finally:
        noisy.setLevel(level)
    out, err = capfd.readouterr()
    assert out == "" and err == "", (out, err)
    assert path == tmp_path / LIBRARY_LOG
    text = path.read_text()
    assert (
        "a library's own logging.warning" in text
        and "churn evaluation result" in text
        and "a library's warning" in text
    )
    assert "Evaluating churn" not in text  # DEBUG is not kept
    assert root.handlers == before
