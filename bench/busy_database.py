"""How fast ``cojudge materialize`` is refused while another process has the DuckDB file open.

Usage: .venv/bin/python bench/busy_database.py [--repeat 3]

A DuckDB file with one table, a one-page corpus (copied from the demo), and a second process holding an ordinary
connection to the file (read-only, then read-write), as a notebook would. Prints the command's exit code, its
wall time (process start to exit, the interpreter's start-up included) and its one line on stderr. The issue's
target: exit 2 in under 5 s (before: 115-170 s of silence, then "success" and exit 0).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"
HOLD = (
    "import sys, duckdb\n"
    "con = duckdb.connect(sys.argv[1], read_only=sys.argv[2] == 'ro')\n"
    "print('open', flush=True); sys.stdin.read()\n"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import duckdb

    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        db = tmp / "cojudge.duckdb"
        con = duckdb.connect(str(db))
        con.execute("create table attempts as select 1 as n")
        con.close()
        corpus = tmp / "corpus"
        (corpus / "pages" / "u01").mkdir(parents=True)
        shutil.copyfile(DEMO / "pages" / "u01" / "brackets-01.html", corpus / "pages" / "u01" / "brackets-01.html")
        shutil.copytree(DEMO / "problems" / "brackets", corpus / "problems" / "brackets")
        judges = tmp / "judges.yaml"
        judges.write_text("judges:\n  - name: sample-exec\n    model: cojudge/sample-exec\n    enabled: false\n")
        env = {**os.environ, "DAGSTER_HOME": str(tmp / "home"), "COJUDGE_JUDGES": str(judges)}
        for mode in ("ro", "rw"):
            holder = subprocess.Popen(
                [sys.executable, "-c", HOLD, str(db), mode], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
            )
            assert holder.stdout.readline().strip() == "open"
            try:
                for _ in range(args.repeat):
                    started = time.perf_counter()
                    done = subprocess.run(
                        [sys.executable, "-m", "cojudge_assets.cli", "materialize", "--corpus", str(corpus)]
                        + ["--duckdb", str(db), "--jobs", "ingest"],
                        cwd=ROOT,
                        env=env,
                        capture_output=True,
                        text=True,
                        timeout=600,
                    )
                    seconds = time.perf_counter() - started
                    line = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
                    print(f"{mode}: exit {done.returncode} in {seconds:.2f} s: {line[:150]}...", flush=True)
            finally:
                holder.stdin.close()
                holder.wait(timeout=60)


if __name__ == "__main__":
    main()
