"""Provider model drift: a hosted judge's name starts serving another model.

:func:`probe` sends one tiny request through litellm (the same provider path as
judging) and returns the model identity the provider reports in its response.
:func:`recorded_identity` is the identity on the judge's stored answers in its
current epoch (the commonest non-empty ``served_model``). When the two differ,
:func:`record_drift` writes a row to table ``drift_events`` (judge, old and new
identity, seen_at, the new epoch) and opens the judge's next epoch
(judges/store.start_epoch): its re-judged answers are stored beside the old
ones, keyed by epoch, each row carrying its served model, so both stay
queryable. Local judges have no provider and are never probed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import duckdb
from tenacity import retry, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from cojudge_assets.judges.client import is_transient, request_kwargs
from cojudge_assets.judges.config import JudgeSpec
from cojudge_assets.judges.store import CACHE_TABLE, EPOCHS_TABLE, current_epoch, has_table, start_epoch

DRIFT_TABLE = "drift_events"
PROBE_MESSAGES = [{"role": "user", "content": "Reply with the single word: ok"}]


@dataclass(frozen=True)
class DriftCheck:
    judge: str
    recorded: str | None  # None: nothing stored yet for this judge (nothing to compare)
    served: str | None  # None: not probed (no key in the environment)
    note: str = ""

    @property
    def drifted(self) -> bool:
        return bool(self.recorded and self.served and self.served != self.recorded)


@retry(
    retry=retry_if_exception(is_transient),
    stop=stop_after_attempt(4),
    wait=wait_exponential_jitter(1, 20),
    reraise=True,
)
def probe(spec: JudgeSpec) -> str:
    """The model identity the provider reports for one tiny request to this judge."""
    import litellm

    litellm.suppress_debug_info = True
    config = spec.client_config()
    kwargs = request_kwargs(config, PROBE_MESSAGES)
    kwargs.update(max_tokens=8, response_format=None)
    kwargs.pop("thinking", None)
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    response = litellm.completion(**kwargs)
    return str(getattr(response, "model", "") or "")


def recorded_identity(conn: duckdb.DuckDBPyConnection, judge: str, schema: str = "main") -> str | None:
    """The commonest served model on the judge's stored valid answers of its current epoch (None before any).
    The DuckDB store's ``served_model``; judges/postgres_store.py's is the same query on Postgres."""
    if not (has_table(conn, CACHE_TABLE, schema) and has_table(conn, EPOCHS_TABLE, schema)):
        return None
    row = conn.execute(
        f"select served_model, count(*) n from {schema}.{CACHE_TABLE} where judge = ? and epoch = ? "
        "and status = 'ok' and coalesce(served_model, '') <> '' group by 1 order by n desc, 1 limit 1",
        [judge, current_epoch(conn, judge, schema)],
    ).fetchone()
    return row[0] if row else None


def ensure_drift_table(conn: duckdb.DuckDBPyConnection, schema: str = "main") -> None:
    conn.execute(
        f"create table if not exists {schema}.{DRIFT_TABLE} (judge varchar not null, old_identity varchar, "
        "new_identity varchar, seen_at timestamp, old_epoch integer, new_epoch integer)"
    )


def check(spec: JudgeSpec, recorded: str | None) -> DriftCheck:
    """Probe one hosted judge and compare with ``recorded`` (:func:`recorded_identity`; does not record anything,
    and needs no connection: a slow provider holds no database open)."""
    if spec.api_key() == "":
        return DriftCheck(spec.name, recorded, None, f"not probed: {spec.api_key_env} is not set")
    return DriftCheck(spec.name, recorded, probe(spec))


def drift_reason(found: DriftCheck) -> str:
    return f"provider now serves {found.served} (was {found.recorded})"


def record_drift(
    conn: duckdb.DuckDBPyConnection,
    judge: str,
    old_model: str | None,
    new_model: str,
    reason: str,
    schema: str = "main",
) -> int:
    """Write the drift event and open the judge's next epoch; returns the new epoch (the DuckDB store's
    ``record_drift``; judges/postgres_store.py's is the same on Postgres)."""
    ensure_drift_table(conn, schema)
    old_epoch = current_epoch(conn, judge, schema)
    epoch = start_epoch(conn, judge, reason, schema)
    conn.execute(
        f"insert into {schema}.{DRIFT_TABLE} values (?, ?, ?, ?, ?, ?)",
        [judge, old_model, new_model, datetime.now(UTC).replace(tzinfo=None), old_epoch, epoch],
    )
    return epoch


def judged_conditions(conn: duckdb.DuckDBPyConnection, judge: str, epoch: int, schema: str = "main") -> list[str]:
    """The conditions under which the judge answered contest attempts in ``epoch`` (what a re-judging redoes)."""
    return [
        r[0]
        for r in conn.execute(
            f"select distinct condition from {schema}.{CACHE_TABLE} where judge = ? and epoch = ? and attempt_uid in "
            f"(select attempt_uid from {schema}.attempts) order by 1",
            [judge, epoch],
        ).fetchall()
    ]


def drift_epochs(conn: duckdb.DuckDBPyConnection, schema: str = "main") -> dict[str, int]:
    """{judge: the epoch its last provider drift opened} (judges with no drift left out)."""
    if not has_table(conn, DRIFT_TABLE, schema):
        return {}
    rows = conn.execute(f"select judge, max(new_epoch) from {schema}.{DRIFT_TABLE} group by judge").fetchall()
    return {judge: int(epoch) for judge, epoch in rows}
