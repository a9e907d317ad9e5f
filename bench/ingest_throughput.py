"""Ingestion throughput: saved pages parsed per second, ProgSnap2 attempts imported per second.

Usage: .venv/bin/python bench/ingest_throughput.py [--corpus data/demo] [--progsnap2 DIR ...] [--repeat 5]

Pages: read_attempts over every page of the corpus (decode, parse the named fields and the
code block, map the verdict, assign turns), best of --repeat passes. ProgSnap2: read_progsnap2
over each given corpus folder (default: the shared corpora, when present), best of --repeat.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cojudge_assets.core.ingest.attempts import PageRules, list_pages, read_attempts  # noqa: E402
from cojudge_assets.core.ingest.corpus import contest_settings  # noqa: E402
from cojudge_assets.core.ingest.kattis import read_problems  # noqa: E402
from cojudge_assets.core.ingest.progsnap2 import read_progsnap2  # noqa: E402


def best_of(repeat: int, fn):
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - started)
    return min(times), out


def main() -> None:
    shared = ROOT.parent / "shared" / "corpora"
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=ROOT / "data" / "demo")
    parser.add_argument(
        "--progsnap2",
        type=Path,
        nargs="*",
        default=[shared / n for n in ("itsp-c", "csedm2019-python", "condefects-atcoder")],
    )
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rules = PageRules(set(read_problems(args.corpus / "problems")), contest_settings(args.corpus).vocabulary)
    pages = list_pages(args.corpus)
    elapsed, (attempts, quarantine) = best_of(args.repeat, lambda: read_attempts(args.corpus, pages, rules))
    print(
        f"pages: {len(pages)} parsed in {elapsed:.3f} s = {len(pages) / elapsed:.0f} pages/s "
        f"({len(attempts)} attempts, {len(quarantine)} quarantined)"
    )
    for folder in args.progsnap2:
        if not (folder / "progsnap2").is_dir():
            print(f"progsnap2: {folder} not found, skipped")
            continue
        elapsed, (attempts, quarantine, rows) = best_of(args.repeat, functools.partial(read_progsnap2, folder))
        print(
            f"progsnap2 {folder.name}: {len(attempts)} attempts imported in {elapsed:.3f} s = "
            f"{len(attempts) / elapsed:.0f} attempts/s ({rows} Submit rows, {len(quarantine)} quarantined)"
        )


if __name__ == "__main__":
    main()
