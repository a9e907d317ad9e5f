"""Judging throughput against the loopback OpenAI-compatible server with a fixed injected latency.

Usage: .venv/bin/python bench/judge_client_throughput.py [--latency 0.5] [--concurrency 1 8 32 64] [--seconds 6]

For each concurrency c, one partition of distinct requests (about --seconds of work at the ideal
rate) goes through the full judging path (cojudge_assets.judges.runner.judge_partition: litellm
acompletion, validation, tenacity, the cache writer upserting each row into a DuckDB file), and
the script prints requests per second next to the ideal c / latency and their ratio.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402
import polars as pl  # noqa: E402

from cojudge_assets.core.judging.models import JudgeRequest  # noqa: E402
from cojudge_assets.core.judging.prompts import canonical_json, request_hash  # noqa: E402
from cojudge_assets.judges.config import JudgeSpec  # noqa: E402
from cojudge_assets.judges.runner import judge_partition  # noqa: E402

ANSWER = json.dumps({"p_accept": 0.5, "s_algo": 3, "s_robust": 3, "rationale": "benchmark"})


def serve(delay_s: float, ready) -> None:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 answering every request after ``delay_s`` (aiohttp).

    Asynchronous, so the server is never what limits the measurement: the test suite's threaded
    loopback server (cojudge_tests/judges/loopback.py) tops out near 60 requests/s on 2 cores.
    """
    import asyncio

    from aiohttp import web

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        await asyncio.sleep(delay_s)
        return web.json_response(
            {
                "id": "chatcmpl-bench",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "bench"),
                "system_fingerprint": "fp_bench",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": ANSWER}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            }
        )

    async def main() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
        await site.start()
        ready.put(site._server.sockets[0].getsockname()[1])
        await asyncio.Event().wait()

    asyncio.run(main())


def requests(n: int, tag: str) -> pl.DataFrame:
    rows = []
    for i in range(n):
        r = JudgeRequest(
            problem_id="bench",
            problem_statement="Print the sum of two integers." * 20,
            language="C++",
            source_code=f"// {tag} {i}\nint main(){{return 0;}}\n" * 10,
        )
        rows.append({"attempt_uid": f"{tag}-{i}", "request_hash": request_hash(r), "request_json": canonical_json(r)})
    return pl.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, nargs="*", default=[1, 8, 32, 64])
    parser.add_argument("--seconds", type=float, default=6.0, help="work per level at the ideal rate")
    args = parser.parse_args()
    os.environ["BENCH_KEY"] = "bench-key"
    print(f"latency {args.latency} s per request (injected by the loopback server); {os.cpu_count()} cores")
    print(f"{'concurrency':>11} {'requests':>8} {'seconds':>8} {'req/s':>8} {'ideal':>8} {'share':>6}")
    # the server runs in its own process, as a provider would: its threads do not share this process's GIL
    ready = multiprocessing.Queue()
    server = multiprocessing.Process(target=serve, args=(args.latency, ready), daemon=True)
    server.start()
    api_base = f"http://127.0.0.1:{ready.get(timeout=30)}/v1"
    with tempfile.TemporaryDirectory() as tmp:
        conn = duckdb.connect(str(Path(tmp) / "bench.duckdb"))
        judge_partition(
            JudgeSpec(name="warmup", model="openai/bench", api_base=api_base, api_key_env="BENCH_KEY", concurrency=4),
            "blind",
            requests(4, "warm"),
            conn,
        )
        for c in args.concurrency:
            ideal = c / args.latency
            n = max(c, int(round(ideal * args.seconds / c)) * c)
            spec = JudgeSpec(
                name=f"bench-c{c}",
                model="openai/bench",
                api_base=api_base,
                api_key_env="BENCH_KEY",
                concurrency=c,
                timeout_s=60,
            )
            table = requests(n, f"c{c}")
            started = time.perf_counter()
            stats = judge_partition(spec, "blind", table, conn)
            elapsed = time.perf_counter() - started
            assert stats.sent == n and stats.failed == 0, stats
            rate = n / elapsed
            print(f"{c:>11} {n:>8} {elapsed:>8.2f} {rate:>8.2f} {ideal:>8.2f} {rate / ideal:>6.1%}")
    server.terminate()


if __name__ == "__main__":
    main()
