"""What one condition's judge_requests partition costs in memory: built whole, or slice by slice.

Each way runs in a child process of its own, on the tables of a DuckDB file (a study's ``attempts``, ``problems``
and ``participant_context``), as the step does without Dagster: the inputs read the way the IO manager reads them
(``whole``: every column, as before; ``sliced``: the columns core/judging/requests.py ``REQUEST_INPUT_COLUMNS``
names), the requests built, checked for label leaks and written to a JSONL file (``whole``: build_requests,
label_leaks and write_jsonl on the whole partition; ``sliced``: build_condition), the content version taken, and
the table inserted into a scratch DuckDB file as the IO manager inserts it. Printed per stage: the resident memory
(VmRSS) and the peak so far (ru_maxrss), and the CPU time of the build.

    .venv/bin/python bench/requests_memory.py --duckdb FILE [--condition nonblind] [--way whole --way sliced]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
import duckdb, polars as pl
from cojudge_assets.core.judging import requests as R
from cojudge_assets.defs.versions import content_version

database, condition, way, scratch = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
stages = []

def stage(name, **more):
    with open("/proc/self/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    stages.append({"stage": name, "rss_mb": round(rss), "peak_mb": round(peak), **more})

stage("start")
columns = R.REQUEST_INPUT_COLUMNS if way == "sliced" else {}
with duckdb.connect(database, read_only=True) as conn:
    def read(table):
        chosen = ", ".join(columns[table]) if table in columns else "*"
        return pl.DataFrame(conn.execute(f"select {chosen} from main.{table}").arrow())
    attempts, problems, contexts = read("attempts"), read("problems"), read("participant_context")
stage("inputs read", rows=len(attempts))
started = time.process_time()
path = scratch / f"requests.{way}.jsonl"
if way == "sliced":
    built = R.build_condition(attempts, problems, contexts, condition, path)
    table, leaks = built.table, built.leaks
else:
    table = R.build_requests(attempts, problems, contexts, condition)
    leaks = R.label_leaks(table, attempts, problems, contexts)
    R.write_jsonl(table, path)
stage("built, checked, written", cpu_s=round(time.process_time() - started, 1), leaks=len(leaks))
content_version(table, ["attempt_uid", "request_hash"])
stage("content version")
obj_arrow = table.to_arrow()
with duckdb.connect(str(scratch / f"{way}.duckdb")) as out:
    out.execute("create table judge_requests as select * from obj_arrow")
stage("inserted")
print(json.dumps(stages))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duckdb", type=Path, required=True)
    parser.add_argument("--condition", default="nonblind")
    parser.add_argument("--way", action="append", choices=("whole", "sliced"))
    args = parser.parse_args()
    if not args.duckdb.is_file():
        raise SystemExit(f"--duckdb {args.duckdb}: no such file")
    with tempfile.TemporaryDirectory(prefix="cojudge-requests-memory-") as scratch:
        jsonl = {}
        for way in args.way or ["whole", "sliced"]:
            done = subprocess.run(
                [sys.executable, "-c", CHILD, str(args.duckdb), args.condition, way, scratch],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise SystemExit(f"{way}: the child failed:\n{done.stderr[-3000:]}")
            for row in json.loads(done.stdout.splitlines()[-1]):
                more = "  ".join(f"{k} {v}" for k, v in row.items() if k not in ("stage", "rss_mb", "peak_mb"))
                print(f"{way:<7} {row['stage']:<26} rss {row['rss_mb']:>6} MB  peak {row['peak_mb']:>6} MB  {more}")
            jsonl[way] = (Path(scratch) / f"requests.{way}.jsonl").read_bytes()
        if len(jsonl) == 2:
            print(f"JSONL files identical: {jsonl['whole'] == jsonl['sliced']}")
    with open("/proc/loadavg") as load:
        print(f"load average: {load.read().split()[:3]}")


if __name__ == "__main__":
    main()
