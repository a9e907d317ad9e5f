"""Batch mode at CodeNet size: files, bytes, tokens and cost per judge, from the requests of a DuckDB file.

    .venv/bin/python bench/batch_projection.py DUCKDB [JUDGES_FILE] [--attempts 14000000] [--output-tokens 250]

Reads ``judge_requests`` (blind) of the file, renders each request as its batch line (judges/batch.py
``jsonl_lines``: the bytes a provider receives) and counts its input tokens (litellm ``token_counter``, as
``cojudge estimate``); then scales the means to ``--attempts`` x 3 conditions for every enabled hosted judge of the
judges file: batch files at the judge's ``batch.max_requests`` / ``max_bytes``, input tokens, and USD at the
synchronous and batch prices (judges/estimate.py ``judge_prices``), with ``--output-tokens`` per answer (an
assumption: a short JSON rationale) and at the judge's ``max_tokens`` (the upper bound). Sends nothing.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import cojudge_assets  # noqa: F401 - sets LITELLM_LOCAL_MODEL_COST_MAP before litellm is imported


def main() -> None:
    import duckdb

    from cojudge_assets.judges.batch import batch_refusal, jsonl_lines
    from cojudge_assets.judges.config import enabled_judges
    from cojudge_assets.judges.estimate import Unpriced, input_tokens, judge_prices

    parser = argparse.ArgumentParser()
    parser.add_argument("duckdb")
    parser.add_argument("judges", nargs="?", default="data/judges.yaml")
    parser.add_argument("--attempts", type=int, default=14_000_000)
    parser.add_argument("--output-tokens", type=int, default=250)
    args = parser.parse_args()
    with duckdb.connect(args.duckdb, read_only=True) as conn:
        rows = (
            conn.execute(
                "select attempt_uid, request_hash, request_json from main.judge_requests where condition = 'blind'"
            )
            .pl()
            .to_dicts()
        )
    requests = args.attempts * 3
    print(f"{len(rows)} blind requests of {Path(args.duckdb).name}, scaled to {requests:,} requests (3 conditions)")
    for spec in enabled_judges(Path(args.judges)):
        if not spec.asked or spec.local:
            continue
        lines = jsonl_lines(spec, (spec.name, "blind", 0), rows)
        mean_bytes = sum(len(line) for _, line in lines) / len(lines)
        mean_tokens = sum(input_tokens(spec, item["messages"]) for item, _ in lines) / len(lines)
        per_file = min(spec.batch.max_requests, int(spec.batch.max_bytes // mean_bytes))
        files = math.ceil(requests / per_file)
        try:
            prices = judge_prices(spec)
        except Unpriced as exc:
            print(f"{spec.name}: {exc}")
            continue
        tokens_in = requests * mean_tokens

        def usd(price_in, price_out, out, tokens_in=tokens_in):
            return tokens_in * price_in + requests * out * price_out

        refusal = batch_refusal(spec.model)
        print(
            f"{spec.name}: {mean_tokens:.0f} input tokens and {mean_bytes:.0f} bytes a request; "
            f"{per_file:,} requests a file, {files:,} files, {tokens_in / 1e9:.1f}B input tokens; "
            f"USD at {args.output_tokens} output tokens: {usd(prices.input, prices.output, args.output_tokens):,.0f} "
            f"synchronous, {usd(prices.batch_input, prices.batch_output, args.output_tokens):,.0f} batch; "
            f"at max_tokens {spec.max_tokens}: {usd(prices.input, prices.output, spec.max_tokens):,.0f} / "
            f"{usd(prices.batch_input, prices.batch_output, spec.max_tokens):,.0f}; prices: {prices.source}"
            + (f"; batch mode refused here: {refusal}" if refusal else "")
        )


if __name__ == "__main__":
    main()
