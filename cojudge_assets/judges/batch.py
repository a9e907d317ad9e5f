"""Batch mode: a judge's requests through the provider's batch API (``mode: batch`` in the judges file).

:func:`judge_in_batches` is called by judges/runner.py for the requests of one partition (judge x condition) that
have no answer in the judge store. Each step is written to the store before the next one waits on the provider,
so a run killed at any point resumes where it stopped and never submits the same requests twice:

1. **Recover.** The partition's open batches (table ``judge_batches``) are taken up first: a batch created but not
   collected is polled; a chunk whose file was uploaded but whose batch id was never stored (a kill between the two
   calls) is looked up by its input file among the provider's batches (``list_batches``), and created only when
   the provider has none. The requests of open batches (table ``judge_batch_items``) are not sent again.
2. **Submit.** The rest are written in the provider's JSONL format (``custom_id`` = the request's cache key,
   ``judge|condition|epoch|attempt_uid|request_hash``; ``body`` = the synchronous path's litellm arguments), split
   at the judge's ``batch.max_requests`` and ``batch.max_bytes``. Per chunk: the budget is checked (spent +
   reserved + the chunk's estimate against ``max_cost_usd``; judges/estimate.py), the chunk and its items are
   recorded (status ``uploading``), the file uploaded (its id stored), the batch created (its id stored, status
   ``submitted``).
3. **Wait.** Each open batch is polled with exponential backoff (``batch.poll_initial_s`` doubling to
   ``poll_max_s``), never sooner than a Retry-After asks; ``batch.poll_failures`` failed polls in a row fail that
   batch alone for this run (its rows recorded failed, the batch kept open: the next run polls it again).
4. **Collect.** A batch that ended (completed, expired, cancelled) has its output and error files downloaded.
   Every answer goes through the synchronous path's validation and repair rule (core/judging/models.py
   ``validate_answer``); valid answers and abstentions are stored with the batch id and file ids. Invalid answers
   and error-file lines are re-asked synchronously (judges/client.py ``judge_once``) with the tries left under
   the judge's ``max_tries`` (the batch answer was the first). Requests an expired or cancelled batch left
   unanswered are submitted again in a follow-up batch (``batch.rounds`` in all). A failed batch fails its rows and
   records no charge. A malformed output line is kept in the batch's record with its line number. The batch is
   marked ``collected`` only after its rows are committed, so a download repeated after a kill upserts the same
   rows (no duplicate).

The actual cost of each answer (litellm's batch cost calculation, or the judges file's batch price) is stored
with the row, and the batch's sum beside its estimate in ``judge_batches``.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from cojudge_assets.core.judging.models import JudgeRequest, validate_answer
from cojudge_assets.core.judging.prompts import render
from cojudge_assets.judges.client import JudgeCall, is_transient, judge_once, request_kwargs, retry_after_s

if TYPE_CHECKING:
    from cojudge_assets.judges.config import JudgeSpec

BATCHES_TABLE = "judge_batches"
ITEMS_TABLE = "judge_batch_items"
BATCH_PROVIDERS = ("openai", "hosted_vllm")  # litellm creates batches for these (OpenAI-compatible servers)
ENDPOINT = "/v1/chat/completions"
OPEN = ("uploading", "submitted", "validating", "in_progress", "finalizing", "cancelling")
ENDED = ("completed", "expired", "cancelled")
UNANSWERED_CODES = ("batch_expired", "batch_cancelled")  # error-file lines that mean "never run": resubmitted

BATCH_COLUMNS = {
    "batch_key": "VARCHAR",  # ours, made before anything is sent
    "judge": "VARCHAR",
    "condition": "VARCHAR",
    "epoch": "INTEGER",
    "status": "VARCHAR",  # OPEN, ENDED, then collected; failed
    "batch_id": "VARCHAR",
    "input_file_id": "VARCHAR",
    "output_file_id": "VARCHAR",
    "error_file_id": "VARCHAR",
    "requests": "INTEGER",
    "completed": "INTEGER",
    "failed": "INTEGER",
    "estimate_usd": "DOUBLE",
    "cost_usd": "DOUBLE",
    "created_at": "TIMESTAMP",
    "updated_at": "TIMESTAMP",
    "note": "VARCHAR",
    "run_key": "VARCHAR",  # the run whose budget holds its estimate (judges/estimate.py RunLedger)
    "judge_key": "VARCHAR",  # the judge's ledger row that holds it too (judges/estimate.py judge_key), or none
}


def batch_refusal(model: str) -> str:
    """Why a judge with this litellm model string cannot run in batch mode ("" when it can)."""
    provider = model.split("/", 1)[0] if "/" in model else ""
    if provider == "anthropic":
        return (
            "batch mode for an anthropic model: litellm cannot create Anthropic batches (only retrieve them) and "
            "cojudge has no path through the official SDK; use mode: sync"
        )
    if provider == "cojudge":
        return "batch mode is for hosted judges; a local judge (cojudge/...) answers in this process: use mode: sync"
    if provider not in BATCH_PROVIDERS:
        return (
            f"batch mode needs a provider whose batches litellm can create ({', '.join(BATCH_PROVIDERS)}: "
            f"an OpenAI-compatible server); model {model!r} is served by {provider or 'no named provider'!r}"
        )
    return ""


def custom_id(judge: str, condition: str, epoch: int, attempt_uid: str, request_hash: str) -> str:
    """The request's cache key (judges/store.py KEY) as the batch line's ``custom_id``."""
    return f"{judge}|{condition}|{epoch}|{attempt_uid}|{request_hash}"


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


# --- the ledger: open batches and their requests, in the judge store ---------------------------------------------


class BatchLedger:
    """Tables ``judge_batches`` (one row per chunk sent or about to be) and ``judge_batch_items`` (its requests),
    beside the judge cache: DuckDB (``param="?"``) or Postgres (``param="%s"``) through one ``execute(sql, params)
    -> rows`` function."""

    def __init__(self, execute: Callable[[str, list], list[tuple]], schema: str, param: str = "?"):
        self._execute, self.schema, self.param = execute, schema, param

    def _sql(self, sql: str, params: list | tuple = ()) -> list[tuple]:
        return self._execute(sql.replace("?", self.param), list(params))

    def ensure(self) -> None:
        columns = ", ".join(
            f"{n} {'DOUBLE PRECISION' if t == 'DOUBLE' and self.param != '?' else t}" for n, t in BATCH_COLUMNS.items()
        )
        self._sql(f"create table if not exists {self.schema}.{BATCHES_TABLE} ({columns}, primary key (batch_key))")
        for newer in ("run_key", "judge_key"):  # columns added after the table first shipped
            self._sql(f"alter table {self.schema}.{BATCHES_TABLE} add column if not exists {newer} VARCHAR")
        self._sql(
            f"create table if not exists {self.schema}.{ITEMS_TABLE} (batch_key VARCHAR, custom_id VARCHAR, "
            "attempt_uid VARCHAR, request_hash VARCHAR, primary key (batch_key, custom_id))"
        )

    def record_chunk(
        self,
        part: tuple[str, str, int],
        items: list[dict],
        estimate_usd: float | None,
        run_key: str | None = None,
        judge_key: str | None = None,
    ) -> str:
        """A chunk about to be uploaded: its row (status ``uploading``) and its items, before anything is sent."""
        key = uuid.uuid4().hex
        judge, condition, epoch = part
        names = list(BATCH_COLUMNS)
        values: dict[str, Any] = dict.fromkeys(names)
        values.update(
            batch_key=key,
            judge=judge,
            condition=condition,
            epoch=epoch,
            status="uploading",
            requests=len(items),
            estimate_usd=estimate_usd,
            run_key=run_key,
            judge_key=judge_key,
            created_at=_now(),
            updated_at=_now(),
        )
        self._sql(
            f"insert into {self.schema}.{BATCHES_TABLE} ({', '.join(names)}) values ({', '.join('?' for _ in names)})",
            [values[n] for n in names],
        )
        for start in range(0, len(items), 500):
            rows = items[start : start + 500]
            placeholders = ", ".join("(?, ?, ?, ?)" for _ in rows)
            params = [v for r in rows for v in (key, r["custom_id"], r["attempt_uid"], r["request_hash"])]
            self._sql(f"insert into {self.schema}.{ITEMS_TABLE} values {placeholders}", params)
        return key

    def update(self, key: str, **values) -> None:
        values["updated_at"] = _now()
        sets = ", ".join(f"{n} = ?" for n in values)
        self._sql(f"update {self.schema}.{BATCHES_TABLE} set {sets} where batch_key = ?", [*values.values(), key])

    def batches(self, judge: str, condition: str, epoch: int, statuses: tuple[str, ...] = OPEN + ENDED) -> list[dict]:
        """The partition's batches in these statuses (by default the ones not collected yet), oldest first."""
        marks = ", ".join("?" for _ in statuses)
        rows = self._sql(
            f"select {', '.join(BATCH_COLUMNS)} from {self.schema}.{BATCHES_TABLE} where judge = ? and condition = ? "
            f"and epoch = ? and status in ({marks}) order by created_at",
            [judge, condition, epoch, *statuses],
        )
        return [dict(zip(BATCH_COLUMNS, row, strict=True)) for row in rows]

    def all_batches(self, judge: str | None = None) -> list[dict]:
        where, params = ("where judge = ?", [judge]) if judge else ("", [])
        rows = self._sql(
            f"select {', '.join(BATCH_COLUMNS)} from {self.schema}.{BATCHES_TABLE} {where} order by created_at", params
        )
        return [dict(zip(BATCH_COLUMNS, row, strict=True)) for row in rows]

    def items(self, key: str) -> dict[str, dict]:
        rows = self._sql(
            f"select custom_id, attempt_uid, request_hash from {self.schema}.{ITEMS_TABLE} where batch_key = ?", [key]
        )
        return {c: {"custom_id": c, "attempt_uid": a, "request_hash": h} for c, a, h in rows}

    def exists(self) -> bool:
        """Whether the ledger's tables exist (a reader asks this rather than create them)."""
        rows = self._sql(
            "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
            [self.schema, BATCHES_TABLE],
        )
        return bool(rows and rows[0][0])

    def open_partitions(self) -> list[tuple[str, str, str]]:
        """(judge, condition, last update) of every partition with a batch not collected yet, when the ledger
        exists: what the batch sensor (defs/judging/sensors.py) asks a run of."""
        if not self.exists():
            return []
        marks = ", ".join("?" for _ in OPEN + ENDED)
        rows = self._sql(
            f"select judge, condition, max(updated_at) from {self.schema}.{BATCHES_TABLE} where status in ({marks}) "
            "group by judge, condition order by judge, condition",
            list(OPEN + ENDED),
        )
        return [(judge, condition, str(updated)) for judge, condition, updated in rows]

    def reserved_usd(self, judge: str) -> float:
        """The estimates of the judge's batches sent and not collected yet: money that may be spent."""
        marks = ", ".join("?" for _ in OPEN + ENDED)
        rows = self._sql(
            f"select coalesce(sum(estimate_usd), 0) from {self.schema}.{BATCHES_TABLE} where judge = ? "
            f"and status in ({marks})",
            [judge, *(OPEN + ENDED)],
        )
        return float(rows[0][0]) if rows else 0.0


def duckdb_ledger(conn, schema: str = "main") -> BatchLedger:
    def execute(sql: str, params: list) -> list[tuple]:
        cursor = conn.execute(sql, params)
        return cursor.fetchall() if cursor.description else []

    return BatchLedger(execute, schema)


# --- the provider's batch API through litellm ---------------------------------------------------------------------


class PollsFailed(RuntimeError):
    """A batch could not be polled ``poll_failures`` times in a row."""


@dataclass
class BatchApi:
    """litellm's file and batch calls for one judge (its provider, base URL and key)."""

    spec: JudgeSpec
    sleep: Callable[[float], None] = time.sleep
    last: dict[str, Any] = field(default_factory=dict)  # the last state seen of each batch polled

    @property
    def kwargs(self) -> dict:
        provider = self.spec.model.split("/", 1)[0]
        kwargs: dict[str, Any] = {"custom_llm_provider": provider, "max_retries": 0}
        if self.spec.api_base:
            kwargs["api_base"] = self.spec.api_base
        if self.spec.api_key_env:
            kwargs["api_key"] = self.spec.api_key()
        return kwargs

    def _call(self, what: str, function, *args, **kwargs):
        """One call, its transient failures retried (the judge's ``transient_retries``) honouring Retry-After."""
        delay = self.spec.batch.poll_initial_s
        for attempt in range(self.spec.transient_retries + 1):
            try:
                return function(*args, **kwargs, **self.kwargs)
            except Exception as exc:  # noqa: BLE001 - transient ones waited on, the rest raised with what failed
                if not is_transient(exc) or attempt == self.spec.transient_retries:
                    raise RuntimeError(f"{what}: {type(exc).__name__}: {str(exc)[:300]}") from exc
                self.sleep(max(delay, retry_after_s(exc) or 0.0))
                delay = min(delay * 2, self.spec.batch.poll_max_s)
        raise AssertionError("unreachable")

    def upload(self, content: bytes) -> str:
        import litellm

        return self._call("upload", litellm.create_file, file=("cojudge-batch.jsonl", content), purpose="batch").id

    def create(self, input_file_id: str, metadata: dict) -> Any:
        import litellm

        return self._call(
            "create batch",
            litellm.create_batch,
            completion_window=self.spec.batch.completion_window,
            endpoint=ENDPOINT,
            input_file_id=input_file_id,
            metadata=metadata,
        )

    def find(self, input_file_id: str) -> Any | None:
        """The provider's batch made from this input file, if any (a kill between upload and storing the id)."""
        import litellm

        page = self._call("list batches", litellm.list_batches, limit=100)
        for batch in getattr(page, "data", None) or []:
            if getattr(batch, "input_file_id", None) == input_file_id:
                return batch
        return None

    def retrieve(self, batch_id: str) -> Any:
        import litellm

        return litellm.retrieve_batch(batch_id=batch_id, **self.kwargs)

    def content(self, file_id: str) -> bytes:
        import litellm

        return self._call(f"download {file_id}", litellm.file_content, file_id=file_id).content

    def poll(self, batch_id: str, deadline: float | None) -> Any | None:
        """Poll until the batch ends (its object), or None when ``deadline`` (monotonic) passes first."""
        settings = self.spec.batch
        delay, failures = settings.poll_initial_s, 0
        while True:
            try:
                batch = self.retrieve(batch_id)
                self.last[batch_id] = batch
                failures = 0
                if batch.status not in OPEN:
                    return batch
                wait = delay
            except Exception as exc:  # noqa: BLE001 - counted; poll_failures in a row fail this batch
                failures += 1
                if failures >= settings.poll_failures or not is_transient(exc):
                    raise PollsFailed(
                        f"polling batch {batch_id} failed {failures} time(s) in a row, last: "
                        f"{type(exc).__name__}: {str(exc)[:200]}"
                    ) from exc
                wait = max(delay, retry_after_s(exc) or 0.0)
            if deadline is not None and time.monotonic() + wait > deadline:
                return None
            self.sleep(wait)
            delay = min(delay * 2, settings.poll_max_s)


# --- the partition in batches -------------------------------------------------------------------------------------


@dataclass
class BatchOutcome:
    submitted: int = 0  # batches created now
    collected: int = 0
    pending: list[dict] = field(default_factory=list)  # batches still open when the run returned
    resubmitted: int = 0  # requests sent again in a follow-up batch (expired, cancelled, never answered)
    retried_sync: int = 0  # invalid answers and error lines re-asked synchronously
    malformed_lines: int = 0
    budget_stop: str = ""  # why a chunk was not sent
    estimate_usd: float = 0.0
    cost_usd: float = 0.0


def jsonl_lines(spec: JudgeSpec, part: tuple[str, str, int], pending: list[dict]) -> list[tuple[dict, bytes]]:
    """Each pending request as its batch line (the synchronous path's body, without key or timeout)."""
    judge, condition, epoch = part
    lines = []
    for row in pending:
        messages = render(JudgeRequest(**json.loads(row["request_json"])))
        body = request_kwargs(spec.client_config(), messages)
        for name in ("api_key", "api_base", "timeout", "num_retries", "max_retries"):
            body.pop(name, None)
        body["model"] = spec.model.split("/", 1)[1]
        cid = custom_id(judge, condition, epoch, row["attempt_uid"], row["request_hash"])
        line = {"custom_id": cid, "method": "POST", "url": ENDPOINT, "body": body}
        item = {"custom_id": cid, "attempt_uid": row["attempt_uid"], "request_hash": row["request_hash"]}
        lines.append((item | {"messages": messages}, (json.dumps(line, separators=(",", ":")) + "\n").encode()))
    return lines


def chunks(lines: list[tuple[dict, bytes]], max_requests: int, max_bytes: int) -> Iterator[list[tuple[dict, bytes]]]:
    """Consecutive runs of lines, each at most ``max_requests`` lines and ``max_bytes`` bytes. A line alone over
    ``max_bytes`` raises (it could never be sent)."""
    current: list[tuple[dict, bytes]] = []
    size = 0
    for item, line in lines:
        if len(line) > max_bytes:
            raise ValueError(
                f"request {item['custom_id']}: its batch line is {len(line)} bytes, over batch.max_bytes "
                f"({max_bytes}); inputs are never shortened"
            )
        if current and (len(current) >= max_requests or size + len(line) > max_bytes):
            yield current
            current, size = [], 0
        current.append((item, line))
        size += len(line)
    if current:
        yield current


class BatchJudge:
    """One partition's batches (see the module docstring); ``store`` is the judge store (DuckDB or Postgres),
    ``record(row_key, call, provenance)`` stores one answer, ``budget`` (judges/estimate.py ``Budget``) says
    whether a chunk may be sent."""

    def __init__(
        self,
        spec: JudgeSpec,
        part: tuple[str, str, int],
        ledger: BatchLedger,
        api: BatchApi,
        *,
        write: Callable[[dict, JudgeCall, dict], None],
        flush: Callable[[], None],
        budget=None,
        log=None,
    ):
        self.spec, self.part, self.ledger, self.api = spec, part, ledger, api
        self.write, self.flush, self.budget, self.log = write, flush, budget, log or (lambda _m: None)
        self.outcome = BatchOutcome()
        self.unanswered: dict[str, dict] = {}  # custom_id -> item, for a follow-up batch
        self.retry: list[tuple[dict, JudgeCall, dict]] = []
        # (attempt_uid, request_hash) -> request_json of the partition's pending requests: a result line carries no
        # request, and whether it asked for the 0-5 score decides whether an answer without one is valid
        self.requests: dict[tuple[str, str], str] = {}

    # the steps ------------------------------------------------------------------------------------------------

    def in_flight(self) -> set[tuple[str, str]]:
        keys: set[tuple[str, str]] = set()
        for batch in self.ledger.batches(*self.part):
            keys |= {(i["attempt_uid"], i["request_hash"]) for i in self.ledger.items(batch["batch_key"]).values()}
        return keys

    def recover(self) -> None:
        """Chunks recorded but never created: found among the provider's batches, created, or dropped."""
        for batch in self.ledger.batches(*self.part, statuses=("uploading",)):
            if batch["input_file_id"]:
                found = self.api.find(batch["input_file_id"])
                if found is None:
                    found = self.api.create(batch["input_file_id"], self._metadata(batch["batch_key"]))
                    self.outcome.submitted += 1
                self.ledger.update(batch["batch_key"], batch_id=found.id, status="submitted")
            else:  # killed before its upload finished: nothing reached the provider under this record
                self.ledger.update(batch["batch_key"], status="dropped", note="killed before the upload ended")
                self._settle(batch, 0.0)

    def submit(self, pending: list[dict]) -> None:
        settings = self.spec.batch
        lines = jsonl_lines(self.spec, self.part, pending)
        oversized = [(item, line) for item, line in lines if len(line) > settings.max_bytes]
        for item, line in oversized:  # never shortened, never sent: a failed row with its reason
            reason = (
                f"request {item['custom_id']}: its batch line is {len(line)} bytes, over batch.max_bytes "
                f"({settings.max_bytes}) of judge {self.spec.name}; inputs are never shortened"
            )
            failed = _call_of({}, reason)
            failed.tries = failed.sent = 0
            self.write(item, failed, {})
        if oversized:
            self.flush()
        lines = [(item, line) for item, line in lines if len(line) <= settings.max_bytes]
        for chunk in chunks(lines, settings.max_requests, settings.max_bytes):
            items = [item for item, _ in chunk]
            estimate = self.budget.chunk_estimate([i["messages"] for i in items]) if self.budget else None
            if self.budget is not None:
                refusal = self.budget.reserve(estimate, self.ledger.reserved_usd(self.spec.name))
                if refusal:
                    self.outcome.budget_stop = refusal
                    self.log(refusal)
                    return
            run_key = self.budget.run.key if self.budget is not None and self.budget.run is not None else None
            held = self.budget.held_by() if self.budget is not None and estimate is not None else None
            key = self.ledger.record_chunk(self.part, items, estimate, run_key, held)
            file_id = self.api.upload(b"".join(line for _, line in chunk))
            self.ledger.update(key, input_file_id=file_id)
            batch = self.api.create(file_id, self._metadata(key))
            self.ledger.update(key, batch_id=batch.id, status="submitted")
            self.outcome.submitted += 1
            self.outcome.estimate_usd += estimate or 0.0
            self.log(f"{self.spec.name}/{self.part[1]}: batch {batch.id} submitted ({len(items)} requests)")

    def _metadata(self, key: str) -> dict:
        return {"cojudge_batch_key": key, "judge": self.spec.name, "condition": self.part[1]}

    def wait_and_collect(self, deadline: float | None) -> None:
        for batch in self.ledger.batches(*self.part):
            if batch["status"] in OPEN:
                try:
                    ended = self.api.poll(batch["batch_id"], deadline)
                except PollsFailed as exc:
                    self._fail_rows(batch, f"{exc}; the batch is kept and the next run polls it again")
                    self.ledger.update(batch["batch_key"], note=str(exc)[:500])
                    continue
                if ended is None:  # still running at the deadline: its last known state recorded
                    current = self.api.last.get(batch["batch_id"])
                    if current is not None:
                        counts = getattr(current, "request_counts", None)
                        self.ledger.update(
                            batch["batch_key"],
                            status=current.status,
                            completed=getattr(counts, "completed", None),
                            failed=getattr(counts, "failed", None),
                        )
                    key = batch["batch_key"]
                    self.outcome.pending.append(
                        next(b for b in self.ledger.batches(*self.part) if b["batch_key"] == key)
                    )
                    continue
                counts = getattr(ended, "request_counts", None)
                self.ledger.update(
                    batch["batch_key"],
                    status=ended.status,
                    output_file_id=ended.output_file_id,
                    error_file_id=ended.error_file_id,
                    completed=getattr(counts, "completed", None),
                    failed=getattr(counts, "failed", None),
                    note=_errors(ended) if ended.status == "failed" else None,
                )
                batch = {
                    **batch,
                    "status": ended.status,
                    "output_file_id": ended.output_file_id,
                    "error_file_id": ended.error_file_id,
                    "note": _errors(ended),
                }
            self.collect(batch)

    def collect(self, batch: dict) -> None:
        items = self.ledger.items(batch["batch_key"])
        if batch["status"] == "failed":
            self._fail_rows(batch, f"batch {batch['batch_id']} failed: {batch.get('note') or 'no reason given'}")
            self.flush()
            self.ledger.update(batch["batch_key"], status="collected_failed", cost_usd=0.0)
            self._settle(batch, 0.0)
            self.outcome.collected += 1
            return
        seen: set[str] = set()
        cost, notes = 0.0, []
        provenance = {"batch_id": batch["batch_id"], "batch_files": _files(batch)}
        for name in ("output_file_id", "error_file_id"):
            if not batch.get(name):
                continue
            text = self.api.content(batch[name]).decode("utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                problem, answered, line_cost = self._line(batch, name, number, line, items, provenance)
                if problem:
                    notes.append(problem)
                    self.outcome.malformed_lines += 1
                if answered:
                    seen.add(answered)
                    cost += line_cost
        for cid, item in items.items():
            if cid not in seen:
                self.unanswered[cid] = item
        self.flush()  # the rows are committed before the batch is marked collected
        note = "; ".join(notes)[:2000] or None
        self.ledger.update(batch["batch_key"], status="collected", cost_usd=cost, note=note)
        self._settle(batch, cost)
        self.outcome.cost_usd += cost
        self.outcome.collected += 1

    def _settle(self, batch: dict, cost: float) -> None:
        """The batch's estimate released from the budget of the run that sent it, its cost spent (in this run's
        judge budget, and in the sending run's ledger row)."""
        if self.budget is None:
            return
        if batch.get("run_key") is None:  # sent before runs held budgets: the judge's spending only
            self.budget.spent_usd += cost
        else:  # and from the judge's row that held it, if one did
            self.budget.settle(batch.get("estimate_usd"), cost, batch["run_key"], batch.get("judge_key") or "")

    def _line(
        self, batch: dict, name: str, number: int, line: str, items: dict, provenance: dict
    ) -> tuple[str, str, float]:
        """One result line: (what is wrong with it, or ""; the custom_id it answered or will be re-asked, or "";
        its cost). An answer is stored, an invalid answer or an error kept for the synchronous re-ask."""
        where = f"{name.replace('_file_id', ' file')} {batch[name]} line {number}"
        try:
            data = json.loads(line)
            cid = data["custom_id"]
            if not isinstance(cid, str):
                raise TypeError(f"custom_id is {type(cid).__name__}")
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            return f"{where}: not a result line ({type(exc).__name__}: {str(exc)[:80]})", "", 0.0
        item = items.get(cid)
        if item is None:
            return f"{where}: custom_id {cid!r} is not a request of this batch", "", 0.0
        try:
            response, error = data.get("response") or {}, data.get("error")
            body = response.get("body") or {}
            if error and (error.get("code") in UNANSWERED_CODES):
                return "", "", 0.0  # never ran: left for the follow-up batch
            if error or response.get("status_code") != 200:
                reason = (error or {}).get("message") or (body.get("error") or {}).get("message") or "no answer"
                call = _call_of({}, f"provider error in {where}: {reason}")
                call.provider_errors = 1
                self.retry.append((item, call, provenance))
                return "", cid, 0.0
            call = _call_of(body, "")
        except (AttributeError, TypeError, IndexError, KeyError) as exc:  # the request is known, its line is not
            problem = f"{where}: malformed result line ({type(exc).__name__}: {str(exc)[:80]})"
            call = _call_of({}, f"invalid answer: {problem}")
            call.validation_failures = 1
            self.retry.append((item, call, provenance))  # kept as invalid, re-asked under the retry rule
            return problem, cid, 0.0
        call.cost = self.budget.line_cost(call.input_tokens, call.output_tokens) if self.budget else None
        checked = validate_answer(call.raw_text, lenient=self.spec.lenient, require_score=self._asks_score(item))
        if checked.output is not None:
            call.status, call.output, call.repaired = "ok", checked.output, checked.repaired
            self.write(item, call, provenance)
        elif checked.abstained:
            call.status, call.abstain_reason = "abstained", checked.abstain_reason
            self.write(item, call, provenance)
        else:
            call.validation_failures, call.error = 1, f"invalid answer: {checked.error}"
            self.retry.append((item, call, provenance))
        return "", cid, call.cost or 0.0

    def _asks_score(self, item: dict) -> bool:
        """Whether the item's request asked for AXIOM's 0-5 score, as the synchronous path checks (a request no
        longer pending, of an earlier run's batch: not known, so not required)."""
        request_json = self.requests.get((item["attempt_uid"], item["request_hash"]))
        return bool(request_json and json.loads(request_json).get("ask_score"))

    def _fail_rows(self, batch: dict, reason: str) -> None:
        provenance = {"batch_id": batch.get("batch_id"), "batch_files": _files(batch)}
        for item in self.ledger.items(batch["batch_key"]).values():
            self.write(item, _call_of({}, reason), provenance)

    def retry_synchronously(self, requests: dict[tuple[str, str], str]) -> None:
        """Invalid answers and error lines, re-asked with the tries left (the batch's answer was the first)."""
        config = self.spec.client_config()
        left = config.max_tries - 1
        todo, self.retry = self.retry, []
        if not todo:
            return
        if left < 1:
            for item, call, provenance in todo:
                self.write(item, call, provenance)
            self.flush()
            return
        config = config.model_copy(update={"max_tries": left})

        async def ask_all() -> None:
            semaphore = asyncio.Semaphore(self.spec.concurrency)

            async def ask(item: dict, first: JudgeCall, provenance: dict) -> None:
                request_json = requests.get((item["attempt_uid"], item["request_hash"]))
                if request_json is None:  # a request of an earlier run no longer asked: its batch answer stays
                    self.write(item, first, provenance)
                    return
                messages = render(JudgeRequest(**json.loads(request_json)))
                async with semaphore:
                    call = await judge_once(config, messages, backoff_initial_s=0.01, backoff_max_s=5.0)
                if self.budget is not None:  # the re-ask's own cost (the batch answer's is in its batch's)
                    self.budget.settle(0.0, call.cost)
                call.tries += first.tries
                call.validation_failures += first.validation_failures
                call.provider_errors += first.provider_errors
                call.cost = (call.cost or 0.0) + (first.cost or 0.0) if call.cost or first.cost else None
                self.write(item, call, provenance)
                self.outcome.retried_sync += 1

            await asyncio.gather(*(ask(*entry) for entry in todo))

        asyncio.run(ask_all())
        self.flush()


def _files(batch: dict) -> str:
    return ";".join(
        f"{name.removesuffix('_file_id')}={batch[name]}"
        for name in ("input_file_id", "output_file_id", "error_file_id")
        if batch.get(name)
    )


def _errors(batch) -> str:
    errors = getattr(batch, "errors", None)
    data = getattr(errors, "data", None) or (errors.get("data") if isinstance(errors, dict) else None) or []
    return "; ".join(
        f"{getattr(e, 'code', None) or (e.get('code') if isinstance(e, dict) else '')}: "
        f"{getattr(e, 'message', None) or (e.get('message') if isinstance(e, dict) else '')}"
        for e in data
    )


def _call_of(body: dict, error: str) -> JudgeCall:
    """A JudgeCall of one result line's chat completion ``body`` (empty for an error line)."""
    choices = body.get("choices") or [{}]
    usage = body.get("usage") or {}
    text = ((choices[0] or {}).get("message") or {}).get("content") or ""
    return JudgeCall(
        status="failed",
        output=None,
        error=error,
        raw_text=text,
        served_model=str(body.get("model") or ""),
        system_fingerprint=str(body.get("system_fingerprint") or ""),
        tries=1,
        validation_failures=0,
        repaired=False,
        latency_s=0.0,
        input_tokens=usage.get("prompt_tokens"),
        output_tokens=usage.get("completion_tokens"),
        cost=None,
        sent=1,
    )


def judge_in_batches(
    spec: JudgeSpec,
    part: tuple[str, str, int],
    pending: list[dict],
    store,
    write: Callable[[dict, JudgeCall, dict], None],
    flush: Callable[[], None],
    *,
    budget=None,
    log=None,
    sleep: Callable[[float], None] = time.sleep,
) -> BatchOutcome:
    """Judge ``pending`` (rows with attempt_uid, request_hash, request_json) of one partition ``part`` = (judge,
    condition, epoch) in batches (see the module docstring)."""
    ledger = store.batch_ledger()
    ledger.ensure()
    judge = BatchJudge(
        spec, part, ledger, BatchApi(spec, sleep=sleep), write=write, flush=flush, budget=budget, log=log
    )
    requests = {(r["attempt_uid"], r["request_hash"]): r["request_json"] for r in pending}
    judge.requests = requests
    deadline = time.monotonic() + spec.batch.max_wait_s if spec.batch.max_wait_s else None
    judge.recover()
    flying = judge.in_flight()
    todo = [r for r in pending if (r["attempt_uid"], r["request_hash"]) not in flying]
    for round_ in range(spec.batch.rounds):
        if todo and not judge.outcome.budget_stop:
            judge.submit(todo)
        if not spec.batch.wait:
            judge.wait_and_collect(deadline=time.monotonic())
        else:
            judge.wait_and_collect(deadline)
        judge.retry_synchronously(requests)
        if judge.outcome.pending or not judge.unanswered or judge.outcome.budget_stop:
            break
        todo = [
            {
                "attempt_uid": i["attempt_uid"],
                "request_hash": i["request_hash"],
                "request_json": requests[(i["attempt_uid"], i["request_hash"])],
            }
            for i in judge.unanswered.values()
            if (i["attempt_uid"], i["request_hash"]) in requests
        ]
        judge.outcome.resubmitted += len(todo) if round_ + 1 < spec.batch.rounds else 0
        judge.unanswered = {}
    return judge.outcome
