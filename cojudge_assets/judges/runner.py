"""Judge one partition (one judge x one condition): send what is missing, store rows as they arrive.

:func:`judge_partition` is the whole loop, free of Dagster so it can be tested and
benchmarked on its own:

1. the requests already answered validly or abstained from (same attempt,
   request hash, judge, condition and epoch) are taken from the cache and not
   sent: an abstention is a final answer;
2. a request over the judge's input budget is stored as failed with its reason,
   never shortened and never sent;
3. a local judge first sees the rest all at once (its scorer's ``prepare``):
   ``sample-exec`` compiles their programs in batches (one JVM for many Java
   programs, one interpreter syntax-checking many Python programs), so each
   request, sent alone below, finds its program compiled;
   a hosted judge's requests go out as they are;
4. the rest go through :func:`cojudge_assets.judges.client.judge_once`, at most
   ``concurrency`` in flight and at most ``rpm`` requests a minute (aiolimiter),
   the workers starting one after another over ``RAMP_S`` seconds;
5. each answer, valid, abstained or failed, is upserted into the cache as it
   arrives (an abstention with null p_accept and scores, its reason in
   ``rationale``, ``error`` null),
   committed at least every 10 rows and every half second
   (:class:`cojudge_assets.judges.store.CacheWriter`);
6. an authentication or permission error stops the partition: every other row
   would fail the same way.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from cojudge_assets.core.judging.models import JudgeRequest
from cojudge_assets.core.judging.prompts import render
from cojudge_assets.core.progress import Progress
from cojudge_assets.judges.batch import BatchOutcome, judge_in_batches
from cojudge_assets.judges.client import JudgeCall, judge_once
from cojudge_assets.judges.config import JudgeSpec
from cojudge_assets.judges.estimate import Estimate, Unpriced, estimate_partition
from cojudge_assets.judges.store import CacheWriter, DuckDBStore

if TYPE_CHECKING:
    from cojudge_assets.judges.postgres_store import PostgresCacheWriter, PostgresStore

    JudgeStore = DuckDBStore | PostgresStore

RAMP_S = 0.5  # the workers' first requests are spread over this many seconds


@dataclass
class PartitionStats:
    requests: int = 0
    cached: int = 0  # valid rows found in the cache: not sent
    sent: int = 0  # rows judged now (sent to the judge)
    requests_sent: int = 0  # requests that reached the judge's server, re-asks and retries included
    ok_first: int = 0  # valid on first receipt
    repaired: int = 0  # valid after a re-ask or a lenient repair
    failed: int = 0
    abstained: int = 0  # rows judged now on which the judge abstained (a final answer, not a failure)
    over_budget: int = 0
    latencies: list[float] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    served_models: set[str] = field(default_factory=set)
    fatal_error: str = ""
    batch: BatchOutcome | None = None  # mode batch: the batches of this run (judges/batch.py)
    estimate: Estimate | None = None  # what the pending requests were estimated to cost before sending
    estimate_note: str = ""  # why there is no estimate (a synchronous judge with no price)
    budget_stop: str = ""  # a chunk not sent because it would pass the budget (judges/estimate.py)

    def count(self, call: JudgeCall) -> None:
        """Count one stored answer (its row written): sent now, its requests, its outcome, tokens, cost, model."""
        self.sent += 1
        self.requests_sent += call.sent
        if call.status == "ok":
            first = call.tries == 1 and not call.repaired
            self.ok_first += first
            self.repaired += not first
        elif call.status == "abstained":
            self.abstained += 1
        else:
            self.failed += 1
        self.input_tokens += call.input_tokens or 0
        self.output_tokens += call.output_tokens or 0
        self.cost += call.cost or 0.0
        if call.served_model:
            self.served_models.add(call.served_model)

    def latency_quantile(self, q: float) -> float | None:
        """The q-quantile of the latencies of the rows sent now (nearest rank below), None if none."""
        if not self.latencies:
            return None
        ordered = sorted(self.latencies)
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 4)


def input_budget(spec: JudgeSpec) -> int | None:
    """The judge's input budget in tokens: the config's, else litellm's model info, else none known."""
    if spec.max_input_tokens:
        return spec.max_input_tokens
    if spec.local:
        return None
    import litellm

    try:
        return litellm.get_model_info(spec.model).get("max_input_tokens")
    except Exception:  # noqa: BLE001 - a model litellm does not know has no known budget
        return None


def _tokens(spec: JudgeSpec, messages: list[dict]) -> int:
    import litellm

    return int(litellm.token_counter(model=spec.model, messages=messages))


def _row(
    spec: JudgeSpec,
    condition: str,
    epoch: int,
    attempt_uid: str,
    request_hash: str,
    call: JudgeCall,
    provenance: dict | None = None,
) -> dict:
    out = call.output
    return (provenance or {}) | {
        "attempt_uid": attempt_uid,
        "judge": spec.name,
        "condition": condition,
        "request_hash": request_hash,
        "epoch": epoch,
        "status": call.status,
        "p_accept": out.p_accept if out else None,
        "s_algo": out.s_algo if out else None,
        "s_robust": out.s_robust if out else None,
        "score": out.score if out else None,
        "rationale": out.rationale if out else (call.abstain_reason or None),
        "raw_response": call.raw_text,
        "served_model": call.served_model,
        "system_fingerprint": call.system_fingerprint,
        "tries": call.tries,
        "validation_failures": call.validation_failures,
        "repaired": call.repaired,
        "provider_errors": call.provider_errors,
        "latency_s": call.latency_s,
        "input_tokens": call.input_tokens,
        "output_tokens": call.output_tokens,
        "cost": call.cost,
        "error": call.error or None,
        "judged_at": datetime.now(UTC).replace(tzinfo=None),
        "provenance": "judged",
        "source": None,
    }


def _prepare_local(spec: JudgeSpec, pending: list[dict], scorers: dict, log) -> None:
    """Hand a local judge the prompts it is about to be sent (see the module docstring, step 3)."""
    from cojudge_assets.judges.local import parse_prompt

    scorer = scorers.get(spec.model.split("/")[-1])
    if scorer is None:  # not a model the local provider knows: each request fails with litellm's own error
        return
    compiled = scorer.prepare(parse_prompt(render(JudgeRequest(**json.loads(row["request_json"])))) for row in pending)
    if log and compiled:
        log(f"{spec.name}: compiled {compiled} programs in batches before judging")


def _failure(error: str) -> JudgeCall:
    return JudgeCall("failed", None, error, "", "", "", 0, 0, False, 0.0, None, None, None)


async def _judge_all(
    spec: JudgeSpec,
    condition: str,
    epoch: int,
    pending: list[dict],
    writer: CacheWriter | PostgresCacheWriter,
    stats: PartitionStats,
    backoff: tuple[float, float],
    progress: Progress,
    log,
    cost_budget=None,
) -> None:
    from aiolimiter import AsyncLimiter

    config = spec.client_config()
    limiter = AsyncLimiter(spec.rpm, 60) if spec.rpm else None
    budget = input_budget(spec)
    queue: asyncio.Queue = asyncio.Queue()
    spending = _Spending(spec, cost_budget, log)
    for row in pending:
        queue.put_nowait(row)

    def record(row: dict, call: JudgeCall) -> None:
        writer.write(_row(spec, condition, epoch, row["attempt_uid"], row["request_hash"], call))
        stats.count(call)
        if call.tries:
            stats.latencies.append(call.latency_s)
        progress.advance()

    async def worker(slot: int) -> None:
        # slow start: worker k waits k * RAMP_S / workers before its first request, so the judge is not
        # hit by one burst (which trips providers' burst limits and makes answers arrive in waves that
        # this single event loop then has to process one after another)
        await asyncio.sleep(slot * RAMP_S / workers)
        while not stats.fatal_error and not stats.budget_stop:
            try:
                row = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            messages = render(JudgeRequest(**json.loads(row["request_json"])))
            if budget is not None:
                tokens = _tokens(spec, messages)
                if tokens > budget:
                    stats.over_budget += 1
                    record(
                        row,
                        _failure(
                            f"input of {tokens} tokens is over the input budget of {budget} tokens "
                            f"of judge {spec.name}; inputs are never shortened"
                        ),
                    )
                    continue
            estimate = spending.reserve(messages)
            if spending.refusal:  # not sent: the partition stops here, resumable
                stats.budget_stop = spending.refusal
                return
            call = await judge_once(
                config, messages, backoff_initial_s=backoff[0], backoff_max_s=backoff[1], limiter=limiter
            )
            spending.settle(call, estimate)
            record(row, call)
            if call.fatal:
                stats.fatal_error = call.error

    workers = min(spec.concurrency, max(1, len(pending)))
    await asyncio.gather(*(worker(slot) for slot in range(workers)))


# the columns of judge_requests the judging reads (judge_outputs' input loads only these)
REQUEST_COLUMNS = ["attempt_uid", "request_hash", "request_json"]


def judge_partition(
    spec: JudgeSpec,
    condition: str,
    requests: pl.DataFrame,
    conn: duckdb.DuckDBPyConnection | JudgeStore,
    *,
    schema: str = "main",
    backoff: tuple[float, float] = (1.0, 60.0),
    log=None,
    contest_judge=None,
    run_key: str | None = None,
) -> PartitionStats:
    """Judge every request of ``requests`` (columns attempt_uid, request_hash, request_json) not yet answered.

    ``contest_judge`` is the sandboxed judge the local ``sample-exec`` judge runs code with. ``conn``: the
    judge store, a DuckDB connection (the embedded profile's file) or a store of the same interface
    (judges/postgres_store.py ``PostgresStore``, the deployed profile's). ``run_key``: the run whose budget
    (``COJUDGE_MAX_RUN_COST_USD``) this partition spends from, with the other partitions of that run (the run's
    ``cojudge/run`` tag); none: this partition alone is the run.
    """
    run_key = run_key or uuid.uuid4().hex
    scorers: dict = {}  # the local judges' scorers by model name (register_local_judges)
    if spec.local:
        from cojudge_assets.judges.local import register_local_judges

        scorers = register_local_judges(contest_judge)
    store = DuckDBStore(conn, schema) if isinstance(conn, duckdb.DuckDBPyConnection) else conn
    store.ensure_tables()
    epoch = store.settled_epoch(spec.name, spec.answer_settings())
    done = store.valid_keys(spec.name, condition, epoch)
    answered = pl.DataFrame(list(done), schema={"attempt_uid": pl.String, "request_hash": pl.String}, orient="row")
    # only the pending requests become Python dicts (a re-run of 10^6 answered requests makes none)
    pending = (
        requests.select(REQUEST_COLUMNS)
        .join(answered, on=["attempt_uid", "request_hash"], how="anti", maintain_order="left")
        .to_dicts()
    )
    stats = PartitionStats(requests=len(requests), cached=len(requests) - len(pending))
    if pending and not spec.local:
        try:
            stats.estimate = estimate_partition(spec, condition, len(requests), pending, store.spending(spec.name)[1])
        except Unpriced as exc:
            if spec.mode == "batch":  # a batch's cost is never taken as zero (litellm's batch cost path would)
                raise
            stats.estimate_note = str(exc)  # the synchronous path is unchanged: litellm prices each answer itself
    if pending and spec.mode == "batch":
        _judge_batch_mode(spec, (spec.name, condition, epoch), pending, store, stats, log, run_key)
    elif pending:
        if spec.local:
            _prepare_local(spec, pending, scorers, log)
        writer = store.writer()
        progress = Progress(log, len(pending), f"judging {spec.name}/{condition} (requests answered)")
        try:
            budget = _sync_budget(spec, store, run_key)
            asyncio.run(_judge_all(spec, condition, epoch, pending, writer, stats, backoff, progress, log, budget))
        finally:
            writer.close()
        progress.finish()
    return stats


def judge_budget(spec: JudgeSpec, store, run_key: str, *, batch: bool):
    """The judge's budget (judges/estimate.py ``Budget``) with what its stored answers cost so far, and the budget
    of the run ``run_key`` in the store's run ledger; raises ``Unpriced`` for a hosted model with no price."""
    from cojudge_assets.judges.estimate import (
        Budget,
        RunBudget,
        expected_output_tokens,
        judge_key,
        judge_prices,
        run_budget,
    )

    spent, observed = store.spending(spec.name)
    tokens, _ = expected_output_tokens(spec, observed)
    ledger = store.run_ledger()
    run = RunBudget(ledger, run_key, run_budget())
    # the judge's max_cost_usd in the same ledger, one row per judge: partitions of the judge reserving at once
    # (a deployment's processes, threads on one file) never pass it together
    judge = RunBudget(ledger, judge_key(spec.name), spec.max_cost_usd) if spec.max_cost_usd is not None else None
    return Budget(spec, judge_prices(spec), batch, tokens, spent_usd=spent, run=run, judge=judge)


class _Spending:
    """The synchronous path's budget check (judges/estimate.py ``Budget``; none: every request may go): before a
    request, spent + the estimates of the requests in flight + its own against the budget; after it, its cost
    spent."""

    def __init__(self, spec: JudgeSpec, budget, log):
        self.spec, self.budget, self.log = spec, budget, log
        self.in_flight_usd = 0.0
        self.refusal = ""

    def reserve(self, messages: list[dict]) -> float:
        if self.budget is None or self.refusal:
            return 0.0
        estimate = self.budget.chunk_estimate([messages]) or 0.0
        self.refusal = self.budget.reserve(estimate, self.in_flight_usd)
        if self.refusal and self.log:
            self.log(self.refusal)
        self.in_flight_usd += 0.0 if self.refusal else estimate
        return estimate

    def settle(self, call: JudgeCall, estimate: float) -> None:
        if call.cost is None and self.spec.price is not None:  # litellm cannot price it: the judges file's price,
            call.cost = _file_price_cost(self.spec, call)  # stored with or without a budget (a later one counts it)
        if self.budget is None:
            return
        self.in_flight_usd -= estimate
        self.budget.settle(estimate, call.cost)


def _file_price_cost(spec: JudgeSpec, call: JudgeCall) -> float | None:
    """A synchronous answer's cost at the judges file's ``price:`` (None without both token counts)."""
    from cojudge_assets.judges.estimate import judge_prices, line_cost

    return line_cost(spec, judge_prices(spec), False, call.input_tokens, call.output_tokens)


def _sync_budget(spec: JudgeSpec, store, run_key: str):
    """The synchronous path's budget, only where one is set (a judge's ``max_cost_usd``, the run's variable): the
    path without a budget is unchanged."""
    from cojudge_assets.judges.estimate import run_budget

    if spec.local or (spec.max_cost_usd is None and run_budget() is None):
        return None
    return judge_budget(spec, store, run_key, batch=False)


def _judge_batch_mode(
    spec: JudgeSpec, part: tuple[str, str, int], pending: list[dict], store, stats, log, run_key: str
) -> None:
    """The partition's pending requests through the provider's batch API (judges/batch.py)."""
    _, condition, epoch = part
    budget = judge_budget(spec, store, run_key, batch=True)
    state = {"writer": store.writer()}

    def write(item: dict, call: JudgeCall, provenance: dict) -> None:
        state["writer"].write(_row(spec, condition, epoch, item["attempt_uid"], item["request_hash"], call, provenance))
        stats.count(call)

    def flush() -> None:  # commit what was written: the batch is marked collected only after its rows are stored
        state["writer"].close()
        state["writer"] = store.writer()

    try:
        stats.batch = judge_in_batches(spec, part, pending, store, write, flush, budget=budget, log=log)
    finally:
        state["writer"].close()
    stats.budget_stop = stats.batch.budget_stop
