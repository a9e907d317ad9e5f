"""The predictions table: every valid judge answer joined to its attempt's label.

The asset tables come in as frames (the ``predictions`` and measurement assets'
inputs) and are joined in an in-memory DuckDB under their asset names
(core/frames.py); the judge cache, an internal store, is read from the DuckDB file.

Only rows of status ``ok`` are predictions: an abstention (status ``abstained``)
has no p_accept and is counted by measurement's coverage (:func:`read_outcomes`),
never scored.

y = 1 when the verdict is AC. ``evidence`` says whether the attempt's nonblind
context is anchored or segmented. ``code_matches`` compares the code in the
request the judge answered (by request hash) with the attempt's code: the
seed study's V4 check, made on every row. A prediction carries its program's
size (``code_lines``, ``code_tokens``: core/design/bias.py ``code_size``), not its
text: at a million attempts the text of every prediction would be the largest
part of the table. Measurement's own partition reads the text (``with_code``) for
its identical-resubmission figures.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Protocol

import duckdb
import polars as pl

from cojudge_assets.core.design.bias import code_size_columns
from cojudge_assets.core.frames import frames_connection

PREDICTIONS_SCHEMA = pl.Schema(
    {
        "attempt_uid": pl.String,
        "judge": pl.String,
        "condition": pl.String,
        "p_accept": pl.Float64,
        "s_algo": pl.Int32,
        "s_robust": pl.Int32,
        "request_hash": pl.String,
        "served_model": pl.String,
        "participant": pl.String,
        "problem_id": pl.String,
        "turn": pl.Int64,
        "verdict": pl.String,
        "accepted": pl.Boolean,
        "y": pl.Int64,
        "evidence": pl.Boolean,
        "code_lines": pl.Int32,
        "code_tokens": pl.Int32,
        "code_matches": pl.Boolean,
        "language": pl.String,
    }
)
# the columns each input of predictions is read with (defs/measurement/assets.py): no request text, no rationale
PREDICTIONS_READ = {
    "judge_outputs": [
        "attempt_uid",
        "judge",
        "condition",
        "p_accept",
        "s_algo",
        "s_robust",
        "request_hash",
        "served_model",
        "status",
    ],
    "judge_requests": ["attempt_uid", "condition", "request_hash", "source_code"],
    "attempts": ["attempt_uid", "participant", "problem_id", "turn", "verdict", "accepted", "code", "language"],
    "participant_context": ["attempt_uid", "condition", "provenance"],
}


def _predictions_sql(code_check: bool) -> str:
    """The join of :data:`PREDICTIONS_SCHEMA`'s rows, with the attempt's code; ``code_check``: judge_requests has
    the request's code (else code_matches is null: not checked by this reader)."""
    matches = "coalesce(r.source_code = a.code, false)" if code_check else "null::boolean"
    requests = "left join main.judge_requests r using (attempt_uid, condition, request_hash)" if code_check else ""
    return f"""
    select o.attempt_uid, o.judge, o.condition, o.p_accept, o.s_algo, o.s_robust, o.request_hash,
           o.served_model, a.participant, a.problem_id, a.turn, a.verdict, a.accepted,
           a.accepted::bigint as y, coalesce(pc.provenance in ('anchored', 'segmented'), false) as evidence,
           a.code, {matches} as code_matches, a.language
    from main.judge_outputs o
    join main.attempts a using (attempt_uid)
    {requests}
    left join (select attempt_uid, provenance from main.participant_context
               where condition = 'nonblind') pc using (attempt_uid)
    where o.status = 'ok'
    order by o.judge, o.condition, o.attempt_uid
"""


def has_table(conn: duckdb.DuckDBPyConnection, name: str, schema: str = "main") -> bool:
    return bool(
        conn.execute(
            "select count(*) from information_schema.tables where table_schema = ? and table_name = ?", [schema, name]
        ).fetchall()[0][0]
    )


# what the readers of predictions take (an asset input's columns): the scores, labels and trajectories, no text
SCORED_COLUMNS = ("attempt_uid", "judge", "condition", "p_accept", "y", "participant", "problem_id", "turn", "evidence")


def scored(*more: str) -> dict[str, list[str]]:
    """The input metadata of a reader of predictions: :data:`SCORED_COLUMNS` and ``more``."""
    return {"columns": [*SCORED_COLUMNS, *more]}


PREDICTIONS_INPUTS = ("judge_outputs", "judge_requests", "attempts", "participant_context")


def read_predictions(conn: duckdb.DuckDBPyConnection, *, with_code: bool = False) -> pl.DataFrame:
    """Every valid answer with its label (empty, with the schema, before any judge has answered); with the
    attempt's ``code`` as a last column when ``with_code``."""
    schema = pl.Schema([*PREDICTIONS_SCHEMA.items(), ("code", pl.String())]) if with_code else PREDICTIONS_SCHEMA
    if not has_table(conn, "judge_outputs"):
        return pl.DataFrame(schema=schema)
    code_check = "source_code" in _columns(conn, "judge_requests")
    joined = conn.execute(_predictions_sql(code_check)).pl()
    lines, tokens = code_size_columns(pl.col("code"))
    return joined.with_columns(lines, tokens).select(list(schema)).cast(schema)


def _columns(conn: duckdb.DuckDBPyConnection, name: str) -> set[str]:
    return {
        row[0]
        for row in conn.execute(
            "select column_name from information_schema.columns where table_schema = 'main' and table_name = ?", [name]
        ).fetchall()
    }


def predictions_table(frames: Mapping[str, pl.DataFrame], *, with_code: bool = False) -> pl.DataFrame:
    """:func:`read_predictions` over the asset frames named in :data:`PREDICTIONS_INPUTS` (``judge_outputs``
    absent or never materialized: no judge has answered)."""
    with frames_connection(frames) as conn:
        return read_predictions(conn, with_code=with_code)


UNIVERSE_SCHEMA = pl.Schema(
    {
        "attempt_uid": pl.String,
        "y": pl.Int64,
        "participant": pl.String,
        "problem_id": pl.String,
        "turn": pl.Int64,
        "evidence": pl.Boolean,
    }
)
UNIVERSE_INPUTS = ("judge_requests", "attempts", "participant_context")


def read_universe(conn: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The attempts measurement resamples and folds over (core/measurement/measure.py ``Universe``): every contest
    attempt a judge was asked about under some condition, with its label, trajectory and evidence as in
    :data:`PREDICTIONS_SQL`. The same for every judge's partition, whichever judges have answered."""
    if not (has_table(conn, "judge_requests") and has_table(conn, "attempts")):
        return pl.DataFrame(schema=UNIVERSE_SCHEMA)
    context = (
        "left join (select attempt_uid, provenance from main.participant_context "
        "where condition = 'nonblind') pc using (attempt_uid)"
        if has_table(conn, "participant_context")
        else "left join (select null::varchar as attempt_uid, null::varchar as provenance) pc using (attempt_uid)"
    )
    return (
        conn.execute(f"""
        select a.attempt_uid, a.accepted::bigint as y, a.participant, a.problem_id, a.turn,
               coalesce(pc.provenance in ('anchored', 'segmented'), false) as evidence
        from main.attempts a {context}
        where a.attempt_uid in (select attempt_uid from main.judge_requests)
        order by a.attempt_uid
        """)
        .pl()
        .cast(UNIVERSE_SCHEMA)
    )


# what the requests tell measurement: which attempts were asked under which condition (no request text)
REQUESTS_ASKED = ["attempt_uid", "condition"]
# the columns the cross-judge tables read: keys, label, trajectory and p, none of the text
CROSS_READ = {
    "judge_outputs": ["judge", "condition", "attempt_uid", "status"],
    "judge_requests": REQUESTS_ASKED,
    "attempts": ["attempt_uid", "participant", "problem_id", "turn", "accepted"],
    "participant_context": ["attempt_uid", "condition", "provenance"],
}
# what the cross-judge tables read slice by slice (a slice is filtered on its partition columns, which it need
# not carry): which attempts were asked, which contexts are evidence-backed, and each cell's scores (the label, the
# trajectory and the evidence are the universe's)
CROSS_SLICES = {
    "judge_requests": ["attempt_uid"],
    "participant_context": ["attempt_uid", "provenance"],
    "predictions": ["attempt_uid", "p_accept"],
}


class SliceReader(Protocol):
    """A table read slice by slice (defs/io.py ``TableReader``): ``read(condition="blind")`` the rows of those
    column values (``read("attempt_uid", judge=...)``: that column only), ``distinct(*columns)`` the distinct rows
    (found by the store), ``keys("judge", "condition")`` the distinct values there are, sorted."""

    def read(self, *columns: str, **equal: str) -> pl.DataFrame: ...

    def distinct(self, *columns: str, **equal: str) -> pl.DataFrame: ...

    def keys(self, *columns: str) -> list[tuple]: ...


EVIDENCE_TIERS = ("anchored", "segmented")


def universe_of_slices(
    requests: SliceReader | None, attempts: pl.DataFrame, context: SliceReader | None
) -> pl.DataFrame:
    """:func:`read_universe` from the requests read condition by condition (only their attempt ids kept), the
    attempts, and the nonblind rows of the contexts: the same rows, without holding every condition's requests
    and contexts at once (at 10^6 attempts they are 6M rows of strings). ``requests`` None: no request asked."""
    if requests is None or attempts.is_empty() or "attempt_uid" not in attempts.columns:
        return pl.DataFrame(schema=UNIVERSE_SCHEMA)
    asked = pl.DataFrame(schema={"attempt_uid": pl.String})
    for (condition,) in requests.keys("condition"):
        asked = pl.concat([asked, requests.read(condition=condition).select("attempt_uid")]).unique()
    universe = attempts.join(asked, on="attempt_uid", how="semi")
    if context is not None:
        nonblind = context.read(condition="nonblind").select(
            "attempt_uid", pl.col("provenance").is_in(list(EVIDENCE_TIERS)).alias("evidence")
        )
        universe = universe.join(nonblind, on="attempt_uid", how="left")
    else:
        universe = universe.with_columns(evidence=pl.lit(None, pl.Boolean))
    return (
        universe.select(
            "attempt_uid",
            pl.col("accepted").cast(pl.Int64).alias("y"),
            "participant",
            "problem_id",
            "turn",
            pl.col("evidence").fill_null(False),
        )
        .sort("attempt_uid")
        .cast(UNIVERSE_SCHEMA)
    )


def cell_slices(predictions: SliceReader) -> Iterator[tuple[str, str, pl.DataFrame]]:
    """``(judge, condition, rows)`` for each judge x condition of the predictions, read one at a time (columns
    attempt_uid and p_accept at least): what core/measurement/measure.py ``Universe.from_slices`` takes."""
    for judge, condition in predictions.keys("judge", "condition"):
        yield judge, condition, predictions.read(judge=judge, condition=condition)


def universe_table(frames: Mapping[str, pl.DataFrame]) -> pl.DataFrame:
    """:func:`read_universe` over the asset frames named in :data:`UNIVERSE_INPUTS`."""
    with frames_connection(frames) as conn:
        return read_universe(conn)


OUTCOMES_SCHEMA = pl.Schema({"judge": pl.String, "condition": pl.String, "attempt_uid": pl.String, "status": pl.String})


def read_outcomes(conn: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per contest attempt each judge was asked about under each condition, with its status (ok,
    abstained, failed; for an imported judge also invalid, or ``unanswered`` when its source has no row for a
    request of a condition it answered under): the denominators of coverage (core/measurement/measure.py)."""
    if not has_table(conn, "judge_outputs"):
        return pl.DataFrame(schema=OUTCOMES_SCHEMA)
    only_attempts = (
        " where attempt_uid in (select attempt_uid from main.attempts)" if has_table(conn, "attempts") else ""
    )
    if not has_table(conn, "judge_requests"):
        return (
            conn.execute(f"select {', '.join(OUTCOMES_SCHEMA)} from main.judge_outputs{only_attempts}")
            .pl()
            .cast(OUTCOMES_SCHEMA)
        )
    return (
        conn.execute(f"""
        with cells as (select distinct judge, condition from main.judge_outputs),
             asked as (select c.judge, c.condition, r.attempt_uid
                       from cells c join main.judge_requests r using (condition))
        select a.judge, a.condition, a.attempt_uid, coalesce(o.status, 'unanswered') as status
        from asked a left join main.judge_outputs o using (judge, condition, attempt_uid)
        {only_attempts.replace("where attempt_uid", "where a.attempt_uid")}
        """)
        .pl()
        .cast(OUTCOMES_SCHEMA)
    )


OUTCOMES_INPUTS = ("judge_outputs", "judge_requests", "attempts")


def outcomes_table(frames: Mapping[str, pl.DataFrame]) -> pl.DataFrame:
    """:func:`read_outcomes` over the asset frames named in :data:`OUTCOMES_INPUTS`."""
    with frames_connection(frames) as conn:
        return read_outcomes(conn)


CACHE_READ = pl.Schema(  # the judge cache's columns run-to-run agreement reads
    {
        "judge": pl.String,
        "condition": pl.String,
        "attempt_uid": pl.String,
        "request_hash": pl.String,
        "epoch": pl.Int32,
        "status": pl.String,
        "p_accept": pl.Float64,
    }
)


def read_judge_cache(
    conn: duckdb.DuckDBPyConnection, attempts: pl.DataFrame, judge: str | None = None, condition: str | None = None
) -> pl.DataFrame:
    """The judge cache's keys, status and p of the contest's ``attempts`` (for run-to-run agreement between
    epochs), of one ``judge`` and one ``condition`` when given: a filtered query, so a partition's reader moves
    only its own rows. ``conn``: the DuckDB file, where the cache (an internal store, not an asset) lives."""
    columns = CACHE_READ
    if not has_table(conn, "judge_cache"):
        return pl.DataFrame(schema=columns)
    where = [(name, value) for name, value in (("judge", judge), ("condition", condition)) if value is not None]
    clause = (" where " + " and ".join(f"{name} = ?" for name, _ in where)) if where else ""
    cache = (
        conn.execute(f"select {', '.join(columns)} from main.judge_cache{clause}", [value for _, value in where])
        .pl()
        .cast(columns)
    )
    if "attempt_uid" not in attempts.columns:
        return cache
    # the cache also holds the perturbation study's mutants: keep the contest's attempts only
    return cache.filter(pl.col("attempt_uid").is_in(attempts["attempt_uid"].implode()))
