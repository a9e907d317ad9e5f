"""What a judge's requests will cost before anything is sent, and the budget that stops a run at a limit.

* **Tokens**: the input tokens of each request are litellm's ``token_counter`` over the rendered messages (the
  model's tokenizer where litellm knows it, else its default). The expected output tokens per request are the
  judges file's ``expected_output_tokens``, else the mean of the judge's stored answers, else its ``max_tokens``
  (an upper bound: the budget errs on the safe side).
* **Prices** (USD per token): the judges file's ``price:`` if given, else litellm's price map as installed (the
  package imports it with ``LITELLM_LOCAL_MODEL_COST_MAP=True``: cojudge_assets/__init__.py, never downloaded,
  so an estimate is the same offline). A batch price missing from the map is half the synchronous one (litellm's
  own rule, ``_batch_or_half``). A hosted model with no price is an error (:class:`Unpriced`) unless the judges
  file says ``allow_unpriced: true``: litellm's batch cost path would return 0.0 for it, and a zero is never
  taken for a price. Local judges cost nothing.
* **Budget** (:class:`Budget`): a judge's ``max_cost_usd``, and the run's (``COJUDGE_MAX_RUN_COST_USD``). Before a
  chunk or batch is sent, spent + reserved + the chunk's estimate is checked against each; a chunk that would pass
  one is not sent. Both are rows of one ledger in the judge store (:class:`RunLedger`, table ``run_budgets``): the
  judge's row (:func:`judge_key`), its spent and reserved summed over every partition of the judge, and the run's,
  summed over every partition the run judges. A chunk's estimate is reserved in each row by one conditional
  ``UPDATE`` (granted only when spent + reserved + estimate stays within the limit), so partitions judging at once
  (processes of a deployment on Postgres, or threads on one DuckDB file) never pass either budget together; the
  estimate is released and the actual cost added when the answers are stored. The judge's row counts the greater of
  its own figures and what the store knows (the cost of the judge's stored answers, the estimates of its batches not
  collected), so answers stored before the judge had a budget count.
* **Which runs share a run budget** (:func:`budget_key`): the runs tagged with one :data:`RUN_TAG` (``cojudge
  materialize`` tags each of its runs with one value); a run with no tag (the daemon's) spends from a budget window,
  the UTC day unless ``COJUDGE_BUDGET_WINDOW`` says otherwise, so a retried partition never spends the budget again.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cojudge_assets.judges.config import JudgeSpec

RUN_BUDGET_VARIABLE = "COJUDGE_MAX_RUN_COST_USD"
RUN_TAG = "cojudge/run"  # the runs of one budget: cojudge materialize gives all its runs one value (driver.py)
RUN_BUDGETS_TABLE = "run_budgets"
# a key's reservations lapse when nothing reserved or settled under it for this long: what a process killed with
# requests in flight (kill -9, an OOM kill) held is never released, and would stop the judge early for ever. Longer
# than any chunk's requests take (each holder settles as its answers are stored, which updates the row); a live
# holder whose one chunk outlasts it lets at most that chunk's estimate be reserved twice
RESERVATION_LEASE_S = 900
UNTAGGED_WINDOW = "day"  # the budget window of a run with no RUN_TAG when COJUDGE_BUDGET_WINDOW is unset


class Unpriced(ValueError):
    """A hosted judge whose model has no price anywhere, and no ``allow_unpriced: true``."""


@dataclass(frozen=True)
class Prices:
    """USD per token; ``None`` when the judge is unpriced by choice (``allow_unpriced``)."""

    input: float | None
    output: float | None
    batch_input: float | None
    batch_output: float | None
    source: str

    def per_request(self, batch: bool) -> tuple[float | None, float | None]:
        return (self.batch_input, self.batch_output) if batch else (self.input, self.output)


def litellm_version() -> str:
    from importlib.metadata import version

    return version("litellm")


def judge_prices(spec: JudgeSpec) -> Prices:
    """The judge's prices and where they came from (see the module docstring); raises :class:`Unpriced`."""
    if spec.local:
        return Prices(0.0, 0.0, 0.0, 0.0, "local judge: no charge")
    if spec.price is not None:
        p = spec.price
        batch_in = p.batch_input_usd_per_mtok if p.batch_input_usd_per_mtok is not None else p.input_usd_per_mtok / 2
        batch_out = (
            p.batch_output_usd_per_mtok if p.batch_output_usd_per_mtok is not None else p.output_usd_per_mtok / 2
        )
        return Prices(
            p.input_usd_per_mtok / 1e6,
            p.output_usd_per_mtok / 1e6,
            batch_in / 1e6,
            batch_out / 1e6,
            "judges file (price:)",
        )
    import litellm

    info: dict = {}
    try:
        info = dict(litellm.get_model_info(spec.model))
    except Exception:  # noqa: BLE001 - litellm raises its own errors for a model it does not map
        info = {}
    sync_in, sync_out = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if sync_in is None or sync_out is None:
        if spec.allow_unpriced:
            return Prices(None, None, None, None, "unpriced (allow_unpriced: true): cost not counted")
        raise Unpriced(
            f"judge {spec.name}: model {spec.model} has no price in litellm's price map (litellm "
            f"{litellm_version()}, the map installed with it); give 'price:' (USD per million tokens) in the judges "
            "file, or set 'allow_unpriced: true' to run it with no cost counted"
        )
    map_in, map_out = info.get("input_cost_per_token_batches"), info.get("output_cost_per_token_batches")
    source = f"litellm {litellm_version()} price map ({info.get('key') or spec.model})"
    if map_in is None or map_out is None:
        source += "; batch price: half the synchronous one (litellm's rule, none in the map)"
    return Prices(
        float(sync_in),
        float(sync_out),
        float(map_in if map_in is not None else sync_in / 2),
        float(map_out if map_out is not None else sync_out / 2),
        source,
    )


def input_tokens(spec: JudgeSpec, messages: list[dict]) -> int:
    import litellm

    return int(litellm.token_counter(model=spec.model, messages=messages))


def expected_output_tokens(spec: JudgeSpec, observed_mean: float | None) -> tuple[int, str]:
    """Output tokens expected per request, and where the figure came from."""
    if spec.expected_output_tokens:
        return spec.expected_output_tokens, "judges file (expected_output_tokens)"
    if observed_mean:
        return round(observed_mean), "mean of the judge's stored answers"
    return spec.max_tokens, "max_tokens (an upper bound: no answer stored yet)"


class RunLedger:
    """Table ``run_budgets`` of the judge store: per run, what its partitions spent and hold reserved (see the module
    docstring). DuckDB (``param="?"``) or Postgres (``param="%s"``) through one ``execute(sql, params) -> rows``
    function; ``conflicts``: the exceptions of a write that lost a race (DuckDB's transaction conflict), retried."""

    def __init__(
        self,
        execute: Callable[[str, list], list[tuple]],
        schema: str,
        param: str = "?",
        conflicts: tuple[type[BaseException], ...] = (),
    ):
        self._execute, self.schema, self.param, self.conflicts = execute, schema, param, conflicts

    def _sql(self, sql: str, params: list) -> list[tuple]:
        for attempt in range(50):
            try:
                return self._execute(sql.replace("?", self.param), params)
            except self.conflicts:
                if attempt == 49:
                    raise
                time.sleep(0.005 * (attempt + 1))
        raise AssertionError("unreachable")

    def ddl(self) -> str:
        number = "DOUBLE" if self.param == "?" else "DOUBLE PRECISION"
        return (
            f"create table if not exists {self.schema}.{RUN_BUDGETS_TABLE} (run_key VARCHAR primary key, "
            f"limit_usd {number}, reserved_usd {number} not null, spent_usd {number} not null, "
            "created_at TIMESTAMP, updated_at TIMESTAMP)"
        )

    def ensure(self) -> None:
        self._sql(self.ddl(), [])

    def reserve(
        self, run_key: str, usd: float, limit_usd: float | None, spent_floor: float = 0.0, reserved_floor: float = 0.0
    ) -> tuple[bool, float, float]:
        """Reserve ``usd`` under the key when its spent + reserved + ``usd`` stays within ``limit_usd`` (always, with
        no limit), in one statement; (granted, spent, reserved) as the key's row stood.

        ``spent_floor`` and ``reserved_floor``: what the caller knows was spent and is reserved outside the ledger (a
        judge's stored answers, its batches sent before the ledger held them); the row counts the greater of its own
        figure and the floor, never their sum (the two count the same money), and keeps the greater spent."""
        now = datetime.now(UTC).replace(tzinfo=None)
        table = f"{self.schema}.{RUN_BUDGETS_TABLE}"
        self._sql(
            f"insert into {table} values (?, ?, 0, 0, ?, ?) on conflict (run_key) do nothing",
            [run_key, limit_usd, now, now],
        )
        # what the row holds reserved, unless its lease lapsed (RESERVATION_LEASE_S: its holders were killed)
        held = "(case when updated_at < ? then 0 else reserved_usd end)"
        lapsed = now - timedelta(seconds=RESERVATION_LEASE_S)
        within = "" if limit_usd is None else f" and greatest(spent_usd, ?) + greatest({held}, ?) + ? <= ?"
        rows = self._sql(
            f"update {table} set spent_usd = greatest(spent_usd, ?), reserved_usd = {held} + ?, updated_at = ? "
            f"where run_key = ?{within} returning spent_usd, reserved_usd",
            [
                spent_floor,
                lapsed,
                usd,
                now,
                run_key,
                *([] if limit_usd is None else [spent_floor, lapsed, reserved_floor, usd, limit_usd]),
            ],
        )
        if rows:
            return True, float(rows[0][0]), max(float(rows[0][1]) - usd, reserved_floor)
        spent, reserved = self.state(run_key)
        return False, max(spent, spent_floor), max(reserved, reserved_floor)

    def settle(self, run_key: str, reserved_usd: float, spent_usd: float) -> None:
        """Release ``reserved_usd`` of the run's reservations and count ``spent_usd`` spent."""
        self._sql(
            f"update {self.schema}.{RUN_BUDGETS_TABLE} set reserved_usd = greatest(reserved_usd - ?, 0), "
            "spent_usd = spent_usd + ?, updated_at = ? where run_key = ?",
            [reserved_usd, spent_usd, datetime.now(UTC).replace(tzinfo=None), run_key],
        )

    def state(self, run_key: str) -> tuple[float, float]:
        """(spent, reserved) of the run, zeros for a run with no row."""
        rows = self._sql(
            f"select spent_usd, reserved_usd from {self.schema}.{RUN_BUDGETS_TABLE} where run_key = ?", [run_key]
        )
        return (float(rows[0][0]), float(rows[0][1])) if rows else (0.0, 0.0)


def judge_key(judge: str) -> str:
    """The ledger key of a judge's own budget (``max_cost_usd``): one row per judge, whatever run spends from it (a
    run's key is a run id, a :data:`RUN_TAG` value or a window's :func:`window_key`, never this prefix)."""
    return f"judge:{judge}"


@dataclass
class RunBudget:
    """One partition's view of one ledger row: the run's budget (``key``: the run's key) or the judge's (``key``:
    :func:`judge_key`); ``limit_usd`` None: counted, not limited."""

    ledger: RunLedger
    key: str
    limit_usd: float | None

    def reserve(self, usd: float, spent_floor: float = 0.0, reserved_floor: float = 0.0) -> tuple[bool, float, float]:
        return self.ledger.reserve(self.key, usd, self.limit_usd, spent_floor, reserved_floor)

    def settle(self, reserved_usd: float, spent_usd: float, key: str | None = None) -> None:
        self.ledger.settle(key or self.key, reserved_usd, spent_usd)


def line_cost(
    spec: JudgeSpec, prices: Prices, batch: bool, tokens_in: int | None, tokens_out: int | None
) -> float | None:
    """An answer's actual cost: litellm's batch cost calculation when the price is the map's, else the judges file's
    price (None without a price or both token counts)."""
    price_in, price_out = prices.per_request(batch)
    if price_in is None or price_out is None or tokens_in is None or tokens_out is None:
        return None
    if batch and prices.source.startswith("litellm"):
        from litellm.cost_calculator import batch_cost_calculator
        from litellm.types.utils import Usage

        usage = Usage(prompt_tokens=tokens_in, completion_tokens=tokens_out, total_tokens=tokens_in + tokens_out)
        prompt_cost, completion_cost = batch_cost_calculator(
            usage, spec.model.split("/", 1)[-1], spec.model.split("/", 1)[0]
        )
        return float(prompt_cost + completion_cost)
    return tokens_in * price_in + tokens_out * price_out


@dataclass
class Budget:
    """The limits a judge's spending is checked against before each chunk is sent (see the module docstring).
    ``spent_usd``: what the store's rows of the judge cost so far; ``run``: the run's budget in the judge store;
    ``judge``: the judge's ``max_cost_usd`` in the same ledger (none: checked in this process alone, from
    ``spent_usd``)."""

    spec: JudgeSpec
    prices: Prices
    batch: bool
    output_tokens: int
    spent_usd: float = 0.0
    run: RunBudget | None = None
    judge: RunBudget | None = None

    def chunk_estimate(self, messages: list[list[dict]]) -> float | None:
        price_in, price_out = self.prices.per_request(self.batch)
        if price_in is None or price_out is None:
            return None
        tokens = sum(input_tokens(self.spec, m) for m in messages)
        return tokens * price_in + len(messages) * self.output_tokens * price_out

    def line_cost(self, tokens_in: int | None, tokens_out: int | None) -> float | None:
        return line_cost(self.spec, self.prices, self.batch, tokens_in, tokens_out)

    def reserve(self, estimate: float | None, reserved_usd: float) -> str:
        """Why a chunk of this estimate must not be sent ("" when it may: then its estimate is held in the judge's
        and the run's rows of the ledger until :meth:`settle`). ``reserved_usd``: the judge's estimates sent and not
        settled, as this process knows them (its batches not collected, its requests in flight)."""
        if estimate is None:
            return ""
        limit = self.spec.max_cost_usd
        if limit is not None and self.judge is None and self.spent_usd + reserved_usd + estimate > limit:
            return self._refusal("judge", self.spent_usd, reserved_usd, estimate, limit)
        if self.judge is not None:
            granted, spent, reserved = self.judge.reserve(estimate, self.spent_usd, reserved_usd)
            if not granted and self.judge.limit_usd is not None:
                return self._refusal("judge", spent, reserved, estimate, self.judge.limit_usd)
        if self.run is None:
            return ""
        granted, spent, reserved = self.run.reserve(estimate)
        if granted or self.run.limit_usd is None:
            return ""
        if self.judge is not None:  # not sent: the judge's reservation given back
            self.judge.settle(estimate, 0.0)
        return self._refusal("run", spent, reserved, estimate, self.run.limit_usd)

    def held_by(self) -> str | None:
        """The judge's ledger key when :meth:`reserve` holds estimates in it (the batch ledger records it with each
        batch, so the run that collects the batch releases the estimate where it was held)."""
        return self.judge.key if self.judge is not None else None

    def _refusal(self, scope: str, spent: float, reserved: float, estimate: float, limit: float) -> str:
        where = (
            "max_cost_usd in the judges file, summed over every partition of the judge"
            if scope == "judge"
            else f"{RUN_BUDGET_VARIABLE}, summed over every partition of the run"
        )
        return (
            f"stopped at the budget: judge {self.spec.name}: spent {spent:.4f} + reserved {reserved:.4f} "
            f"+ the next chunk's estimate {estimate:.4f} USD would pass the {scope} budget of {limit:.4f} "
            f"USD ({where}); nothing past it was sent, and the next run continues from here"
        )

    def settle(
        self, reserved_usd: float | None, cost_usd: float | None, run_key: str | None = None, judge_key: str = "-"
    ) -> None:
        """A chunk answered (or given up): its estimate released from the run's budget (that of ``run_key``: the
        run that sent it) and from the judge's row that held it (``judge_key``; "-": this budget's own, "": none),
        its cost spent in both."""
        reserved, cost = reserved_usd or 0.0, cost_usd or 0.0
        self.spent_usd += cost
        if self.run is not None:
            self.run.settle(reserved, cost, run_key)
        held = self.held_by() if judge_key == "-" else judge_key
        ledger = self.judge.ledger if self.judge is not None else self.run.ledger if self.run is not None else None
        if held and ledger is not None:
            ledger.settle(held, reserved, cost)
        elif self.judge is not None:  # held nowhere (sent with no judge budget): its cost still counts in the row
            self.judge.settle(0.0, cost)


def budget_window(environ: Mapping[str, str] | None = None) -> str | None:
    """``COJUDGE_BUDGET_WINDOW`` (see :func:`budget_key`), None when unset; another value is an error naming it."""
    from cojudge_assets.settings import BUDGET_WINDOW_VARIABLE, BUDGET_WINDOWS

    value = ((os.environ if environ is None else environ).get(BUDGET_WINDOW_VARIABLE) or "").strip().lower()
    if value and value not in BUDGET_WINDOWS:
        raise ValueError(f"{BUDGET_WINDOW_VARIABLE}={value!r}: expected one of {', '.join(BUDGET_WINDOWS)}")
    return value or None


def window_key(window: str, now: datetime) -> str:
    """The ledger key of the budget window (UTC calendar hour, day, ISO week or month) that holds ``now``."""
    stamp = {"hour": "%Y-%m-%dT%H", "day": "%Y-%m-%d", "week": "%G-W%V", "month": "%Y-%m"}[window]
    at = now.astimezone(UTC) if now.tzinfo else now
    return f"window:{window}:{at.strftime(stamp)}"


def budget_key(
    run_id: str, tag: str | None, environ: Mapping[str, str] | None = None, now: datetime | None = None
) -> str:
    """The ledger key a run spends its run budget (``COJUDGE_MAX_RUN_COST_USD``) under.

    ``COJUDGE_BUDGET_WINDOW`` hour, day, week or month: every run that starts in the window (UTC) shares one key,
    whatever launched it, so retries, backfills and the daemon spend at most the budget per window. ``run``: the
    runs of one :data:`RUN_TAG` value (one ``cojudge materialize``), else each run alone. Unset: the tag's runs share
    one key, as with ``run``; a run with no tag (the daemon's, a sensor's, one launched in the UI), which nothing
    ties to the runs before it and which the daemon requests again after a failure, spends from the day's key, so
    retrying never multiplies the budget."""
    window = budget_window(environ)
    if window == "run" or (window is None and tag):
        return tag or run_id
    return window_key(window or UNTAGGED_WINDOW, now or datetime.now(UTC))


def run_budget(environ: Mapping[str, str] | None = None) -> float | None:
    """The run's budget in USD (``COJUDGE_MAX_RUN_COST_USD``), None when unset; a value that is not a positive
    number is an error naming the variable."""
    value = ((os.environ if environ is None else environ).get(RUN_BUDGET_VARIABLE) or "").strip()
    if not value:
        return None
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not number > 0 or number == float("inf"):
        raise ValueError(f"{RUN_BUDGET_VARIABLE}={value!r}: expected a positive number of USD")
    return number


@dataclass(frozen=True)
class Estimate:
    """What one judge x condition will cost, before anything is sent."""

    judge: str
    condition: str
    mode: str
    requests: int  # in the partition
    to_send: int  # with no answer in the store: what a run would send
    input_tokens: int  # of the requests to send (litellm token_counter)
    output_tokens: int  # expected, of the requests to send
    output_source: str
    usd: float | None  # at the synchronous price
    batch_usd: float | None  # at the batch price
    price_source: str

    @property
    def charged_usd(self) -> float | None:
        """What the judge's mode would cost."""
        return self.batch_usd if self.mode == "batch" else self.usd

    def line(self) -> str:
        def usd(value: float | None) -> str:
            return "unpriced" if value is None else f"{value:.4f} USD"

        return (
            f"{self.judge} x {self.condition} (mode {self.mode}): {self.to_send} of {self.requests} requests to send, "
            f"{self.input_tokens} input tokens, {self.output_tokens} expected output tokens ({self.output_source}); "
            f"{usd(self.usd)} synchronous, {usd(self.batch_usd)} batch; prices: {self.price_source}"
        )

    def metadata(self) -> dict:
        return {
            "estimate_requests_to_send": self.to_send,
            "estimate_input_tokens": self.input_tokens,
            "estimate_output_tokens": self.output_tokens,
            "estimate_usd": None if self.usd is None else round(self.usd, 6),
            "estimate_batch_usd": None if self.batch_usd is None else round(self.batch_usd, 6),
            "estimate_price_source": self.price_source,
            "estimate_output_source": self.output_source,
        }


def estimate_partition(
    spec: JudgeSpec, condition: str, requests: int, pending: list[dict], observed_output_mean: float | None
) -> Estimate:
    """The estimate of sending ``pending`` (rows with request_json) of a partition of ``requests`` requests;
    raises :class:`Unpriced` for a hosted model with no price."""
    import json

    from cojudge_assets.core.judging.models import JudgeRequest
    from cojudge_assets.core.judging.prompts import render

    prices = judge_prices(spec)
    tokens_in = sum(input_tokens(spec, render(JudgeRequest(**json.loads(r["request_json"])))) for r in pending)
    per_out, out_source = expected_output_tokens(spec, observed_output_mean)
    tokens_out = per_out * len(pending)

    def usd(price_in: float | None, price_out: float | None) -> float | None:
        return None if price_in is None or price_out is None else tokens_in * price_in + tokens_out * price_out

    return Estimate(
        judge=spec.name,
        condition=condition,
        mode=spec.mode,
        requests=requests,
        to_send=len(pending),
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        output_source=out_source,
        usd=usd(prices.input, prices.output),
        batch_usd=usd(prices.batch_input, prices.batch_output),
        price_source=prices.source,
    )


class RequestsMissing(ValueError):
    """The DuckDB file holds no ``judge_requests`` table to estimate from."""


def estimate_database(database, specs: list[JudgeSpec], conditions: list[str] | None = None) -> list[Estimate]:
    """The estimate of every judge x condition from the requests stored in a DuckDB file (table ``judge_requests``,
    made by the local steps: nothing is sent to build it) and the answers already in its judge cache (read only:
    nothing is written). Raises :class:`RequestsMissing`, or :class:`Unpriced` naming each unpriced judge (one line
    each)."""
    from pathlib import Path

    import duckdb

    from cojudge_assets.judges import store as judge_store

    path = Path(database)
    if not path.is_file() or not _has(path, "judge_requests"):
        raise RequestsMissing(
            f"{path}: no table judge_requests to estimate from; build the requests first (local steps, nothing is "
            "sent): cojudge materialize --select judge_requests"
        )
    unpriced = []
    for spec in specs:
        try:
            judge_prices(spec)
        except Unpriced as exc:
            unpriced.append(str(exc))
    if unpriced:
        raise Unpriced("\n".join(unpriced))
    conn = duckdb.connect(str(path), read_only=True)
    try:
        estimates = []
        cached = _has(path, judge_store.CACHE_TABLE, conn)
        for spec in specs:
            observed = judge_store.spending(conn, spec.name)[1] if cached else None
            epoch = judge_store.current_epoch(conn, spec.name) if _has(path, judge_store.EPOCHS_TABLE, conn) else 0
            changed = (
                bool(judge_store.settings_change(conn, spec.name, spec.answer_settings()))
                if _has(path, judge_store.SETTINGS_TABLE, conn)
                else False
            )
            found = conn.execute("select distinct condition from main.judge_requests order by condition").fetchall()
            for (condition,) in found:
                if conditions and condition not in conditions:
                    continue
                rows = conn.execute(
                    "select attempt_uid, request_hash, request_json from main.judge_requests where condition = ? "
                    "order by attempt_uid",
                    [condition],
                ).pl()
                done = set() if changed or not cached else judge_store.valid_keys(conn, spec.name, condition, epoch)
                pending = [r for r in rows.to_dicts() if (r["attempt_uid"], r["request_hash"]) not in done]
                estimates.append(estimate_partition(spec, condition, len(rows), pending, observed))
        return estimates
    finally:
        conn.close()


def _has(path, table: str, conn=None) -> bool:
    import duckdb

    from cojudge_assets.judges.store import has_table

    if conn is not None:
        return has_table(conn, table)
    with duckdb.connect(str(path), read_only=True) as own:
        return has_table(own, table)
